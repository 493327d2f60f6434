"""Game id (DESIGN contract 4) -> its GameSpec: a built-in table merged with the entry-point group
`tablectl.games` (a game shipped in another distribution), each imported only when asked for and
checked whole (`check_spec`) when it is.

An entry point's name is the game id and its value the spec, e.g. in that project's
pyproject.toml: `[project.entry-points."tablectl.games"]` `my-game = "my_pkg.my_game:SPEC"`.
A built-in id cannot be replaced by an entry point.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from tablectl.games.spec import GameSpec, check_spec, load

if TYPE_CHECKING:
    from tablectl.config import Rules
    from tablectl.games.base import Engine
    from tablectl.games.settings import GameSettings

ENTRY_POINT_GROUP = "tablectl.games"

BUILTIN: dict[str, str] = {
    "ez-baccarat-panda8": "tablectl.games.baccarat.spec:SPEC",
    "three-card-poker-6cb": "tablectl.games.three_card_poker.spec:SPEC",
    "fortune-pai-gow": "tablectl.games.pai_gow.spec:SPEC",
    "ultimate-texas-holdem": "tablectl.games.ultimate.spec:SPEC",
    "pure-21.5-blackjack": "tablectl.games.blackjack.spec:SPEC",
    "pure-spanish-21.5": "tablectl.games.blackjack.spec:SPEC",
}
"""The games tablectl ships, by id -> "module:SPEC"."""


@cache
def available() -> dict[str, str]:
    """Every game id known here -> where its spec is: the built-in table, then entry points."""
    games = dict(BUILTIN)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        games.setdefault(ep.name, ep.value)
    return games


def game_ids() -> tuple[str, ...]:
    """Every known game id, built-in ones first."""
    return tuple(available())


@cache
def spec_of(game_id: str) -> GameSpec:
    """The spec of a game, imported and checked; ValueError for an unknown id."""
    where = available().get(game_id)
    if where is None:
        raise ValueError(f"unknown game id {game_id!r}; known: {', '.join(available())}")
    return check_spec(load(where), game_id, where)


def settings_models() -> dict[str, type[GameSettings]]:
    """Every game's `[game]` model by id (what the config validates a `[game]` section with)."""
    return {gid: spec_of(gid).settings[gid] for gid in available()}


def spots_of(game_id: str) -> tuple[str, ...]:
    """The wager spots of a game (DESIGN contract 4)."""
    return spec_of(game_id).spots[game_id]


def make_engine(rules: Rules) -> Engine[Any]:
    """The engine for the configured game."""
    return spec_of(rules.game.id).make_engine(rules)
