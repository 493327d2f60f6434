"""Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004): `spec` (its `[game]` options
and GameSpec), `state` (the round's state), `settlement` (the verdicts and the outcome) and
`engine` (the round's inputs, pure).
"""
