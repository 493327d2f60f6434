"""The poker room's hand engine (issue 12 items 1, 2, 3 and 6): seats, the button, blinds, the
betting through tablectl/rules/betting.py, the board, the showdown and pots (rules/pots.py), the
collection (rules/poker_fees.py) and misdeals, for the flop games.

No `spec.py` yet, on purpose: the registry offers every package with a spec to the tables, and
this game has no device or config wiring yet. The spec to add once it has:

PENDING_SPEC: GameSpec(game_id per variant ("texas-holdem", "omaha", "omaha-hi-lo",
"crazy-pineapple-hi-lo"), engine=PokerEngine(PokerSettings(...) built from the table's config:
variant, betting structure and stakes, smallest chip, the document whose odd-chip rule applies,
the collection schedule (rules/poker_fees.table_schedule)), hidden cards: yes (R46)).
"""
