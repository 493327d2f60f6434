"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004) as one unit.

`spec` (the `[game]` options of both games and their GameSpec), `variant` (what differs between the
two games; the configured table's `Policy`), `state` (the state and its hands), `deal` (betting
closes, the deal, the peek, the draws), `decisions` (Chart 1A and the player's choices), `insurance`
(R17), `settlement` (the verdicts for the one settlement walk, the outcome, `BlackjackRoundEnd`: the
round-end hooks), `views` (what the table shows) and `engine` (`BlackjackEngine`, composing
them).

Every name other code imports from `tablectl.games.blackjack` is reachable here, imported on
first use: the game's spec names "tablectl.games.blackjack.engine:BlackjackEngine", and journal
snapshots name the state's classes "tablectl.games.blackjack:BlackjackState" and ":Hand"
(tablectl/snapshot.py).
"""

from __future__ import annotations

from tablectl.games.spec import moved_to

_WHERE = {
    "BlackjackEngine": "engine",
    "BURN_HIDDEN": "engine",
    "BlackjackState": "state",
    "Hand": "state",
    "Phase": "state",
    "End": "state",
    "Action": "state",
    "MAX_HANDS": "state",
    "MAX_DOUBLES": "state",
    "hand_numbers": "state",
    "Variant": "variant",
    "PURE": "variant",
    "SPANISH": "variant",
    "variant_of": "variant",
    "Policy": "variant",
    "policy_of": "variant",
    "DECISIONS": "decisions",
    "CHART_1A": "decisions",
    "BlackjackOutcome": "settlement",
    "RedFlexResult": "settlement",
    "BusterResult": "settlement",
    "MatchResult": "settlement",
    "rank_view": "views",
}


__getattr__ = moved_to(__name__, _WHERE)
