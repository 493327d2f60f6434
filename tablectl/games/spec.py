"""A game as one unit: everything tablectl needs to know about a game family, in one value.

Each game package exposes one `GameSpec` (its `SPEC`); the registry (tablectl/games/registry.py)
finds it by game id, and `check_spec` proves it whole when it is loaded. Adding a game is
docs/adding-a-game.md: a package with its SPEC, its config and data files, one registry line
(or an entry point in the `tablectl.games` group for a game shipped elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal, get_args, get_type_hints

from tablectl.games.settings import GameSettings

if TYPE_CHECKING:
    from tablectl.config import Rules
    from tablectl.games.base import Engine


@dataclass(frozen=True)
class AnalyzeRequest:
    """What `tablectl analyze` was asked: a wager of a game under some options."""

    game: str
    wager: str
    paytable: str | None = None
    decks: int | None = None
    banker_push_on_dragon7: bool = False
    pure_pays: str | None = None


@dataclass(frozen=True)
class Analysis:
    """An analysis's answer: a title line (`what`) and the figures (`result`, printed as JSON)."""

    what: str
    result: Mapping[str, Any]  # figures of many shapes, printed as JSON as they are


Analyzer = Callable[[AnalyzeRequest], Analysis]


@dataclass(frozen=True)
class GameSpec:
    """One game family: its ids, `[game]` models, engine, wager spots, what the table shows
    when, its display views and the analyses it offers.

    `engine` and `analyzer` are "module:name" strings, imported only when used, so loading a
    spec (to validate a config, say) never loads an engine or an analysis."""

    title: str
    settings: Mapping[str, type[GameSettings]]
    """Game id -> the model of its `[game]` section (a family may have several ids)."""
    engine: str
    """"module:Class" of the engine, built with the table's `Rules`."""
    spots: Mapping[str, tuple[str, ...]]
    """Game id -> its wager spots (DESIGN contract 4), in the order the documents list them."""
    shows_every_card: bool = False
    """Every card is dealt face up, so an alert may name a card (otherwise they are masked)."""
    dealt_from_shoe: bool = False
    """Cards come from a multi-deck shoe (`analyze --decks` applies), not one deck a round."""
    displays: tuple[str, ...] = ()
    """The `display/<name>` views the engine publishes (e.g. "eztrak")."""
    analyzer: str | None = None
    """"module:function" taking an AnalyzeRequest and returning an Analysis, if any."""
    screen: str = "table"
    """The scoreboard's view of this game (web/views/<screen>.js, docs/scoreboard.md): the page
    reads it from `info` and draws the table with it. "table" is the plain view any game gets
    until it brings its own."""
    kind: Literal["banked", "poker"] = "banked"
    """"banked": wagers on spots against a player-dealer, with `[limits]` and a `[collection]`
    schedule (R4); "poker": players play each other for the pot, with no spots, the stakes and
    the collection (R44) in the game's own section."""

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self.settings)

    def make_engine(self, rules: Rules) -> Engine[Any]:
        """The engine for `rules` (whose game is one of this spec's ids)."""
        engine: Engine[Any] = load(self.engine)(rules)
        return engine

    def analyze(self, request: AnalyzeRequest) -> Analysis:
        """Run the game's analysis of a wager; ValueError when it has none for it."""
        if self.analyzer is None:
            raise ValueError(f"analyze does not know game {request.game!r} yet")
        analysis: Analysis = load(self.analyzer)(request)
        return analysis


def load(path: str) -> Any:
    """The object a "module:name" string names, imported now."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


ENGINE_MEMBERS = ("initial", "apply", "void", "in_deal", "between_rounds", "state_view")
"""What every engine has (tablectl/games/base.py `Engine`)."""


class SpecError(TypeError):
    """A game spec that is not whole: found when it is loaded, never at a table."""


def check_spec(spec: object, game_id: str, where: str) -> GameSpec:
    """`spec` is a whole GameSpec for `game_id`: each settings model is a GameSettings whose `id`
    is that game's Literal, each game lists its spots, and each pay table option exists and
    settles one of them. Cheap: run whenever a spec is loaded."""
    if not isinstance(spec, GameSpec):
        raise SpecError(f"{where} is not a GameSpec: {type(spec).__name__}")
    model = spec.settings.get(game_id)
    if model is None:
        raise SpecError(f"{where} does not declare game {game_id!r} (it has {spec.ids})")
    for gid, settings in spec.settings.items():
        if not (isinstance(settings, type) and issubclass(settings, GameSettings)):
            raise SpecError(f"{where}: the settings of {gid} are not a GameSettings model")
        hint = get_type_hints(settings)["id"]
        if get_args(hint) != (gid,) or getattr(hint, "__origin__", None) is not Literal:
            raise SpecError(f'{where}: {settings.__name__}.id must be Literal["{gid}"]')
        if spec.kind == "banked" and not spec.spots.get(gid):
            raise SpecError(f"{where}: no wager spots for {gid}")
        if spec.kind == "poker" and spec.spots.get(gid):
            raise SpecError(f"{where}: {gid} is a poker game: players bet into pots, not spots")
        for key, (_file, wager) in settings.PAYTABLES.items():
            if key not in settings.model_fields:
                raise SpecError(f"{where}: {settings.__name__}.PAYTABLES names no option {key!r}")
            if wager not in spec.spots[gid]:
                raise SpecError(f"{where}: pay table {key} settles {wager!r}, not a spot of {gid}")
    return spec


def check_parts(spec: GameSpec, where: str) -> None:
    """The engine class and analyzer a spec names import, and the engine has every member the
    table calls (run by the conformance test for every registered game)."""
    engine = load(spec.engine)
    missing = [m for m in ENGINE_MEMBERS if not callable(getattr(engine, m, None))]
    if missing:
        raise SpecError(f"{where}: {spec.engine} lacks {', '.join(missing)}")
    if spec.analyzer is not None and not callable(load(spec.analyzer)):
        raise SpecError(f"{where}: {spec.analyzer} is not callable")
