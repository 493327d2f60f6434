"""A game as one unit: everything tablectl needs to know about a game family, in one value.

Each game package exposes one `GameSpec` (its `SPEC`); the registry (tablectl/games/registry.py)
finds it by game id, and `check_spec` proves it whole when it is loaded. Adding a game is
docs/adding-a-game.md: a package with its SPEC, its config and data files, one registry line
(or an entry point in the `tablectl.games` group for a game shipped elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from importlib import import_module
from typing import TYPE_CHECKING, Any, Literal, Required, TypedDict, get_args, get_type_hints

from tablectl.games.settings import GameSettings

if TYPE_CHECKING:
    from tablectl.games.base import Engine
    from tablectl.games.table_rules import Rules


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
class AnalyzeOption:
    """An option of `tablectl analyze` that only a game's analysis reads (its spec's
    `analyze_options`): the flag, its help line, and its choices (None: an on/off switch). Its
    value goes to the `AnalyzeRequest` field of the flag's name ("--pure-pays": `pure_pays`)."""

    flag: str
    help: str
    choices: tuple[str, ...] | None = None

    @property
    def field(self) -> str:
        """The `AnalyzeRequest` field the option's value goes to."""
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True)
class Analysis:
    """An analysis's answer: a title line (`what`) and the figures (`result`, printed as JSON)."""

    what: str
    result: Mapping[str, Any]  # figures of many shapes, printed as JSON as they are


Analyzer = Callable[[AnalyzeRequest], Analysis]

RoundPrinter = Callable[[str, dict[str, Any], Sequence[dict[str, Any]]], str]
"""A game's printer of a finished round for `tablectl recall` and the demo: the time it finished,
its `round/result` payload and its journaled inputs (each with its `seq`) -> the text."""


class DeviceRole(TypedDict, total=False):
    """One kind of device a game takes (`GameSpec.device_roles`): check-config holds every
    device of a table's config to its game's roles."""

    role: Required[str]
    """What the device is for, as a floor person says it ("the cards", "the dice")."""
    drivers: Required[tuple[str, ...]]
    """The built-in drivers that can fill it (a vendor plugin is allowed with a warning)."""
    needed: bool
    """The table's card reader: a config without one is refused (parse_config) unless it says
    the dealer keys the cards at the console (`manual_entry = true`)."""
    most: int
    """How many devices may fill it (unset: any number)."""
    stack_size: tuple[int, ...]
    """A dispenser's `stack_size` must be exactly these sizes (the game's hands and board)."""
    dice: int
    """A dice cup's `dice` must be this many."""
    why: str
    """The rule or document line that says so."""


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
    recall_printer: str | None = None
    """"module:function" of the game's RoundPrinter (`tablectl recall`, the demo); None: a banked
    round with its outcome as a JSON line."""
    analyzed_wagers: str | None = None
    """"module:name" of the wagers `tablectl analyze` offers when its analysis takes fewer than
    every spot: a sequence (every id of the family) or a mapping by game id; None: every spot."""
    device_roles: tuple[DeviceRole, ...] | None = None
    """The kinds of device a table of this game takes (`DeviceRole`): every device of a table's
    config must fill one of them, and a `needed` one must be filled (check-config). () for a game
    that takes no devices; None (a game shipped elsewhere that declares none): any device is
    allowed, unchecked."""
    snapshot_classes: Mapping[str, str] = field(default_factory=dict)
    """Stable name -> "module:qualname" of each class of the game's own that its state can
    hold (tablectl/snapshot_names.py): a snapshot writes the name, never the module, so the
    class can move with only its line here changed. Each name starts with the family's own
    prefix ("<family>.") and names one class across every game."""
    round_formats: Mapping[str, str] = field(default_factory=dict)
    """History format name -> "module:Class" of its writer of finished rounds, for a format only
    this game's rounds are written in (`tablectl export --format`): a class with the members of
    tablectl/history/generic.py `RoundWriter`, which raises ValueError naming a round it
    cannot write."""
    analyze_options: tuple[AnalyzeOption, ...] = ()
    """The options of `tablectl analyze` the game's analysis reads, beyond the game, wager, pay
    table and decks every analysis takes."""
    result_summary: str | None = None
    """"module:function" taking a `round/result` payload's `outcome` and giving its verdict in
    a few words with no card in it (the status report's last result line), or None; None: the
    line counts the wagers and money alone."""

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

    def analyzed(self, game_id: str) -> tuple[str, ...]:
        """The wagers of `game_id` that `tablectl analyze` offers (none without an analyzer)."""
        if self.analyzer is None:
            return ()
        if self.analyzed_wagers is None:
            return tuple(self.spots.get(game_id, ()))
        wagers = load(self.analyzed_wagers)
        if isinstance(wagers, Mapping):
            return tuple(wagers[game_id])
        return tuple(wagers)


def load(path: str) -> Any:
    """The object a "module:name" string names, imported now."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def _loaded_by_qualname(path: str) -> object:
    """The object a "module:qualname" string names (a nested class too), or None."""
    module, _, qualname = path.partition(":")
    try:
        obj: object = import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj


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
    if spec.device_roles is not None:
        _check_device_roles(spec.device_roles, where)
    return spec


_ROLE_KEYS: Mapping[str, type] = {
    "role": str,
    "drivers": tuple,
    "needed": bool,
    "most": int,
    "stack_size": tuple,
    "dice": int,
    "why": str,
}
"""Each key a `DeviceRole` may have, and the type of its value."""


def _check_device_roles(roles: object, where: str) -> None:
    """`roles` is a tuple of whole `DeviceRole`s, each role named once: a role's name, its
    drivers (one or more), a positive `most`, `dice` and stack sizes."""
    if not isinstance(roles, tuple):
        raise SpecError(f"{where}: device_roles must be a tuple, not {type(roles).__name__}")
    seen: set[str] = set()
    for i, role in enumerate(roles):
        at = f"{where}: device_roles[{i}]"
        if not isinstance(role, dict):
            raise SpecError(f"{at} is not a DeviceRole: {type(role).__name__}")
        for key, value in role.items():
            wanted = _ROLE_KEYS.get(key)
            if wanted is None:
                known = ", ".join(_ROLE_KEYS)
                raise SpecError(f"{at} has no key {key!r} (a DeviceRole has {known})")
            if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
                raise SpecError(f"{at}.{key} must be of type {wanted.__name__}")
        name, drivers = role.get("role"), role.get("drivers")
        if not name or not drivers:
            raise SpecError(f"{at} needs a role and at least one driver")
        if not all(isinstance(d, str) and d for d in drivers):
            raise SpecError(f"{at}.drivers must name drivers")
        sizes = role.get("stack_size", (1,))
        if not all(isinstance(n, int) and n >= 1 for n in sizes) or not sizes:
            raise SpecError(f"{at}.stack_size must be whole numbers of cards, 1 or more")
        if role.get("most", 1) < 1 or role.get("dice", 1) < 1:
            raise SpecError(f"{at}: most and dice are 1 or more")
        if name in seen:
            raise SpecError(f"{at}: role {name!r} is declared twice")
        seen.add(name)


def check_parts(spec: GameSpec, where: str) -> None:
    """The engine class and analyzer a spec names import, and the engine has every member the
    table calls (run by the conformance test for every registered game)."""
    engine = load(spec.engine)
    missing = [m for m in ENGINE_MEMBERS if not callable(getattr(engine, m, None))]
    if missing:
        raise SpecError(f"{where}: {spec.engine} lacks {', '.join(missing)}")
    if spec.analyzer is not None and not callable(load(spec.analyzer)):
        raise SpecError(f"{where}: {spec.analyzer} is not callable")
    if spec.recall_printer is not None and not callable(load(spec.recall_printer)):
        raise SpecError(f"{where}: {spec.recall_printer} is not callable")
    request_fields = {f.name for f in fields(AnalyzeRequest)}
    for option in spec.analyze_options:
        if option.field not in request_fields:
            raise SpecError(f"{where}: analyze option {option.flag} has no AnalyzeRequest field")
    if spec.result_summary is not None and not callable(load(spec.result_summary)):
        raise SpecError(f"{where}: {spec.result_summary} is not callable")
    for name, path in spec.round_formats.items():
        writer = load(path)
        if not all(callable(getattr(writer, m, None)) for m in ("write_round", "finish")):
            raise SpecError(f"{where}: round format {name} ({path}) writes no rounds")
    for name, path in spec.snapshot_classes.items():
        if ":" in name or not isinstance(_loaded_by_qualname(path), type):
            raise SpecError(f"{where}: snapshot class {name} ({path}) is not a class")
    if spec.analyzed_wagers is not None:
        for gid in spec.ids:
            if not set(spec.analyzed(gid)) <= set(spec.spots.get(gid, ())):
                raise SpecError(f"{where}: {spec.analyzed_wagers} names a wager {gid} has no spot")
