"""The poker room's draw games: Five Card Draw high and high-low eight or better, and Lowball with
the bug, each a game id of one package (document 003).

`spec.py` holds each game's `[game]` options (the poker room's) and the GameSpec; `family.py` the
draw family's policy (the deal of five, the draw, the second round, the seven rule) read by the
one poker engine (tablectl/games/poker/engine.py), `reader.py` the card-reading table's reads and
Lowball's flashed cards; the draw hands (Lowball's bug, the seven rule's test) are in
tablectl/rules/draw.py. No card of a draw game is ever published before the showdown (R46).
"""
