"""The poker room's flop games: Texas Hold'em, Omaha, Omaha hi-lo and Crazy Pineapple hi-lo, each
a game id of one package; and the one poker engine every flop, stud and draw game is played by.

`spec.py` holds each game's `[game]` options (document, betting structure and stakes, blinds,
smallest chip, collection) and the GameSpec; `state.py` the frozen table and hand; `family.py`
the family policy (`Family`, `Game`) and `flop.py` the flop family's; `engine.py` the pure
engine: the button, blinds and betting (tablectl/rules/betting.py); `seats.py` the seats between
hands; `settlement.py` the showdown, pots (rules/pots.py) and collection (rules/poker_fees.py);
`view.py` the `state` view. No hole card is ever published (R46).
"""
