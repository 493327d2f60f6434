"""Game id (DESIGN contract 4) to engine, imported lazily so one game's module loads alone."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from tablectl.config import Rules
from tablectl.games.base import Engine

ENGINES: dict[str, str] = {
    "ez-baccarat-panda8": "tablectl.games.baccarat:BaccaratEngine",
    "three-card-poker-6cb": "tablectl.games.three_card_poker:ThreeCardPokerEngine",
    "fortune-pai-gow": "tablectl.games.pai_gow:PaiGowEngine",
    "ultimate-texas-holdem": "tablectl.games.ultimate:UltimateEngine",
    "pure-21.5-blackjack": "tablectl.games.blackjack:BlackjackEngine",
    "pure-spanish-21.5": "tablectl.games.blackjack:BlackjackEngine",
}


def make_engine(rules: Rules) -> Engine[Any]:
    """The engine for the configured game."""
    game_id = rules.game.id
    try:
        module, cls = ENGINES[game_id].split(":")
    except KeyError:
        raise ValueError(f"no engine for game {game_id!r}") from None
    engine: Engine[Any] = getattr(import_module(module), cls)(rules)
    return engine
