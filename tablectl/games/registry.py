"""Game id (DESIGN contract 4) to engine."""

from __future__ import annotations

from typing import Any

from tablectl.config import Rules
from tablectl.games.base import Engine


def make_engine(rules: Rules) -> Engine[Any]:
    """The engine for the configured game."""
    game_id = rules.game.id
    if game_id == "ez-baccarat-panda8":
        from tablectl.games.baccarat import BaccaratEngine

        return BaccaratEngine(rules)
    raise ValueError(f"no engine for game {game_id!r}")
