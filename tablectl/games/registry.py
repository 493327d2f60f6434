"""Game id (DESIGN contract 4) -> its GameSpec: the built-in games (each package under
tablectl/games with a `spec` module) merged with the entry-point group `tablectl.games` (a game
shipped in another distribution); a spec is checked whole (`check_spec`) when it is loaded, and
an engine is imported only when a table is built.

An entry point's name is the game id and its value the spec, e.g. in that project's
pyproject.toml: `[project.entry-points."tablectl.games"]` `my-game = "my_pkg.my_game:SPEC"`.
A built-in id cannot be replaced by an entry point.
"""

from __future__ import annotations

import pkgutil
from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from tablectl.games.spec import GameSpec, check_spec, load

if TYPE_CHECKING:
    from tablectl.games.base import Engine
    from tablectl.games.settings import GameSettings
    from tablectl.games.table_rules import Rules

ENTRY_POINT_GROUP = "tablectl.games"

PACKAGE = "tablectl.games"


@cache
def builtin() -> dict[str, str]:
    """The games tablectl ships, by id -> "module:SPEC": every package under tablectl/games with
    a `spec` module (so adding a game is adding its package). Only the light spec modules are
    imported, never an engine."""
    games = import_module(PACKAGE)
    found: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(games.__path__), key=lambda m: m.name):
        module = f"{PACKAGE}.{info.name}.spec"
        if not info.ispkg or find_spec(module) is None:
            continue
        where = f"{module}:SPEC"
        spec = load(where)
        for gid in getattr(spec, "ids", ()):  # not a GameSpec: check_spec says so when asked
            found[gid] = where
    return found


@cache
def available() -> dict[str, str]:
    """Every game id known here -> where its spec is: the built-in table, then entry points."""
    games = dict(builtin())
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
    """The wager spots of a game (DESIGN contract 4); none for a poker game."""
    return spec_of(game_id).spots.get(game_id, ())


def make_engine(rules: Rules) -> Engine[Any]:
    """The engine for the configured game."""
    return spec_of(rules.game.id).make_engine(rules)
