"""The poker room's flop games (issue 12): Texas Hold'em, Omaha, Omaha hi-lo and Crazy Pineapple
hi-lo, each a game id of one package.

`spec.py` holds each game's `[game]` options (document, betting structure and stakes, blinds,
smallest chip, collection) and the GameSpec; `state.py` the frozen table and hand; `engine.py`
the pure engine: seats, the button, blinds, the betting through tablectl/rules/betting.py, the
board and hole cards, the showdown and pots (rules/pots.py), the collection (rules/poker_fees.py)
and misdeals. No hole card is ever published (R46).
"""
