"""EZ Baccarat Panda 8 (document 003): `spec` (its `[game]` options and GameSpec) and
`engine` (its rules, pure).
"""
