"""Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004): `spec` (its `[game]` options
and GameSpec) and `engine` (its rules, pure).
"""
