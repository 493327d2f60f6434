"""Ultimate Texas Hold'em (documents 003, 004): `spec` (its `[game]` options and GameSpec) and
`engine` (its rules, pure).

The engine's classes are also reachable as `tablectl.games.ultimate.<Class>`, imported on first
use: journal snapshots written before the game became a package name its state classes so.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_MOVED = frozenset(
    {
        "Stack",
        "Play",
        "UltimateState",
        "SeatHand",
        "DealerHand",
        "ShownHand",
        "SeatOutcome",
        "UltimateOutcome",
        "UltimateEngine",
    }
)


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        return getattr(import_module(f"{__name__}.engine"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
