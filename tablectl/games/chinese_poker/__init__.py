"""Chinese Poker (003 "Chinese Poker"): up to five seated, four dealt in, 13
cards each set 3-5-5, each pair of players settling points for the segments, bonus hands and
clean sweeps, within the stacks they started the round with; the house's fee before the deal.

`spec.py` the `[game]` options (the point's value, the buy-in, the collection) and the GameSpec;
`engine.py` the pure engine; the game's rules (the setting and its foul, the points, the sweeps,
the settlement walk) are in tablectl/rules/chinese_poker.py.
"""
