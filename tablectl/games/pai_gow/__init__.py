"""Fortune Pai Gow Poker (documents 003, 004): `spec` (its `[game]` options and GameSpec),
`state` (the round's state), `settlement` (the showdown and its outcome) and `engine` (the round's
inputs, pure).

The engine's classes are also reachable as `tablectl.games.pai_gow.<Class>`, imported on first
use: journal snapshots written before the game became a package name its state classes so.
"""

from __future__ import annotations

from tablectl.games.spec import moved_to

__getattr__ = moved_to(
    __name__,
    {
        **dict.fromkeys({"Setting", "PaiGowState"}, "state"),
        **dict.fromkeys({"ShownHand", "PlayedHand", "PaiGowOutcome"}, "settlement"),
        "PaiGowEngine": "engine",
    },
)
