"""Dealer's Choice (003 "Dealer's Choice"): each hand, the player on the button chooses the game
from those the table offers (flop, stud and draw games, each high-only or split as offered), with
that game's own limits; the button then moves and the next player chooses.

`spec.py` holds the `[game]` options (the poker room's, the games offered, each game's limits)
and the GameSpec; `engine.py` the engine, which plays each hand with the chosen game's poker
engine on the one table state (seats, stacks, button, kill).
"""
