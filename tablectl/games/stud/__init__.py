"""The poker room's stud games (issue 13): Seven Card Stud high and high-low eight or better,
Razz and Five Card Stud, each a game id of one package (document 003).

`spec.py` holds each game's `[game]` options (the poker room's: document, structure and stakes,
blinds, chip, kill, collection) and the GameSpec; `engine.py` the pure engine, the poker engine
(tablectl/games/poker/engine.py) with stud's cards street by street; stud's own rules (the deal's
faces, the first bettor, the hands) are in tablectl/rules/stud.py. No down card is ever
published (R46).
"""
