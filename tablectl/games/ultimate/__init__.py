"""Ultimate Texas Hold'em (documents 003, 004): `spec` (its `[game]` options and GameSpec) and
`engine` (its rules, pure).
"""
