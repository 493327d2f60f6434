"""Game id (DESIGN contract 4) to engine."""

from __future__ import annotations

from typing import Any

from tablectl.config import LoadedConfig
from tablectl.games.base import Engine


def make_engine(cfg: LoadedConfig) -> Engine[Any]:
    """The engine for the configured game."""
    game_id = cfg.table.game.id
    if game_id == "ez-baccarat-panda8":
        from tablectl.games.baccarat import BaccaratEngine

        return BaccaratEngine(cfg)
    raise ValueError(f"no engine for game {game_id!r}")
