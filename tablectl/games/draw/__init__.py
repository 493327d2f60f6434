"""The poker room's draw games (issue 13 item 2): Five Card Draw high and high-low eight or
better, and Lowball with the bug, each a game id of one package (document 003).

`spec.py` holds each game's `[game]` options (the poker room's) and the GameSpec; `engine.py` the
pure engine, the poker engine (tablectl/games/poker/engine.py) with the deal of five, the draw
and the second round; the draw hands (Lowball's bug, the seven rule's test) are in
tablectl/rules/draw.py. No card of a draw game is ever published before the showdown (R46).
"""
