"""Fortune Pai Gow Poker (documents 003, 004): `spec` (its `[game]` options and GameSpec),
`state` (the round's state), `settlement` (the showdown and its outcome) and `engine` (the round's
inputs, pure).
"""
