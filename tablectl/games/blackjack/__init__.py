"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004) as one unit.

`spec` (the `[game]` options of both games and their GameSpec), `variant` (what differs between the
two games; the configured table's `Policy`), `state` (the state and its hands), `deal` (betting
closes, the deal, the peek, the draws), `decisions` (Chart 1A and the player's choices), `insurance`
(R17), `settlement` (the verdicts for the one settlement walk, the outcome, `BlackjackRoundEnd`: the
round-end hooks), `views` (what the table shows) and `engine` (`BlackjackEngine`, composing
them).
"""
