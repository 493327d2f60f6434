"""Pure 21.5 Blackjack and Pure Spanish 21.5 (documents 000, 002, 003, 004): the engine.

Every name other code imports from `tablectl.games.blackjack` is reachable here, imported on
first use: the game's spec names "tablectl.games.blackjack:BlackjackEngine", and journal
snapshots name the state's classes "tablectl.games.blackjack:BlackjackState" and ":Hand"
(tablectl/snapshot.py).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablectl.games.blackjack.engine import BlackjackEngine as BlackjackEngine
    from tablectl.games.blackjack.engine import BlackjackState as BlackjackState
    from tablectl.games.blackjack.engine import Hand as Hand

_WHERE = {"BlackjackEngine": "engine", "BlackjackState": "engine", "Hand": "engine"}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{where}"), name)
