"""The poker room's stud games: Seven Card Stud high and high-low eight or better, Razz, Five
Card Stud and Option Alley, each a game id of one package (document 003).

`spec.py` holds each game's `[game]` options (the poker room's: document, structure and stakes,
blinds, chip, kill, collection) and the GameSpec; `family.py` the stud family's policy (its
streets, first bettor, hands and shown cards) read by the one poker engine
(tablectl/games/poker/engine.py); stud's own rules (the deal's faces, the first bettor, the
hands) are in tablectl/rules/stud.py. No down card is ever published (R46).
"""
