"""The table's one TOML file, validated by pydantic: every problem named by file, key, reason.

Unknown keys are errors (a typo must not silently fall back to a default). Collection schedules
(R4) come from a schedules file shipped as data, chosen by option number, or are written inline.
"""

from __future__ import annotations

import hashlib
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from tablectl.games.registry import game_ids, settings_models, spec_of, spots_of
from tablectl.games.settings import GameSettings
from tablectl.rules.fees import CollectionSchedule, ScheduleError, load_schedules
from tablectl.rules.paytables import PayTable
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.money import Money

M = TypeVar("M", bound=BaseModel)
TopicId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
MAX_PATH = 4096  # Linux PATH_MAX


def _path_text(value: str) -> str:
    """A path (or device port) as the operating system can take it: no NUL byte, not empty."""
    if "\0" in value:
        raise ValueError("contains a NUL byte (\\0), which no path can hold")
    if not value:
        raise ValueError("is empty; give a path")
    if len(value) > MAX_PATH:
        raise ValueError(f"is {len(value)} characters long; a path is at most {MAX_PATH}")
    return value


PathText = Annotated[str, AfterValidator(_path_text)]
"""A file, folder or port named in the config: refused here, naming its key, if the operating
system could not even be asked about it (tablectl check-config, issue 9)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


if TYPE_CHECKING:
    GameConfig = GameSettings
else:
    _models = settings_models()
    GameConfig = Annotated[Union[tuple(_models.values())], Field(discriminator="id")]  # noqa: UP007
GAME_IDS = game_ids()
"""Every known game id (tablectl/games/registry.py)."""


class SpotLimit(_Strict):
    min: Money
    max: Money

    @model_validator(mode="after")
    def _ordered(self) -> SpotLimit:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


class Limits(SpotLimit):
    """Per-spot table limits; `spots` overrides them for single spots (a smaller Panda 8 max)."""

    spots: dict[str, SpotLimit] = Field(default_factory=dict)

    def for_spot(self, spot: str) -> SpotLimit:
        return self.spots.get(spot, SpotLimit(min=self.min, max=self.max))


class Seats(_Strict):
    count: int = Field(7, ge=1, le=14)


class Collection(_Strict):
    """A schedule picked from a schedules file (`file` relative to this config) or given inline."""

    file: PathText | None = None
    option: int | None = Field(None, ge=1)
    schedule: CollectionSchedule | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Collection:
        if self.schedule is None and (self.file is None or self.option is None):
            raise ValueError("give either file and option, or an inline schedule")
        if self.schedule is not None and (self.file is not None or self.option is not None):
            raise ValueError("give either file and option, or an inline schedule, not both")
        return self


class Device(_Strict):
    name: TopicId
    driver: str
    port: PathText
    baud: int = Field(9600, ge=50, le=4_000_000)
    options: dict[str, Any] = Field(default_factory=dict)


class Tls(_Strict):
    ca: PathText
    cert: PathText | None = None
    key: PathText | None = None


class Mqtt(_Strict):
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    client_id: str | None = None
    username: str | None = None
    password_file: PathText | None = None
    tls: Tls | None = None
    keepalive: int = Field(30, ge=5, le=3600)
    # Home Assistant MQTT discovery (tablectl/discovery.py): retained entity configs for the
    # table's status, held round, journal trouble, round and last alert. Off unless asked.
    discovery: bool = False
    discovery_prefix: str = Field("homeassistant", pattern=r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$")


class Journal(_Strict):
    path: PathText
    # The table's chain key (tablectl keygen), relative to this config; unset: an unkeyed journal.
    key_file: PathText | None = None
    # How long published messages stay in the outbox (the newest retained one of each topic and
    # anything unsent always stay): the journal keeps the inputs, which reproduce them all.
    outbox_hours: int = Field(24, ge=1, le=24 * 366)
    # Closed monthly segments: `tablectl archive` moves all but the newest `keep_local_months`
    # of them here (relative to this config; a mounted share off the table PC is best), and
    # deletes archived ones older than `retain_months` (0: never). docs/operations.md "Storage".
    archive_dir: PathText | None = None
    keep_local_months: int = Field(2, ge=0, le=120)
    retain_months: int = Field(0, ge=0, le=1200)


class Broadcast(_Strict):
    """The delayed broadcast feed (tablectl/broadcast.py): every input with its cards and every
    result, `delay_seconds` after the table journaled them, for the broadcast role only. 0: off."""

    delay_seconds: int = Field(0, strict=True, ge=0, le=86_400)


class TableConfig(_Strict):
    site: TopicId
    table: TopicId
    game: GameConfig
    seats: Seats = Seats()
    # A banked game's (R4); a poker table has neither: its stakes and collection (R44) are in
    # [game]. parse_config says which a game needs (`GameSpec.kind`).
    limits: Limits | None = None
    collection: Collection | None = None
    devices: list[Device] = Field(default_factory=list)
    mqtt: Mqtt = Mqtt()
    broadcast: Broadcast = Broadcast()
    journal: Journal
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # The folder of pay table files (relative to this config); unset: the ones shipped with
    # tablectl (config/paytables, installed as share/tablectl/paytables).
    paytables: PathText | None = None

    @model_validator(mode="after")
    def _unique_devices(self) -> TableConfig:
        names = [d.name for d in self.devices]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"device names must be unique: {', '.join(dupes)}")
        return self

    @property
    def base_topic(self) -> str:
        return f"tablectl/{self.site}/{self.table}"


@dataclass(frozen=True)
class Problem:
    file: str
    key: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key or '(top level)'}: {self.reason}"


class BrokerSetupError(Exception):
    """The config's broker password or TLS files cannot be used: the daemon does not start (the
    message names the config key and the file)."""


class ConfigError(Exception):
    """A config that cannot be used; `problems` names every one."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class Rules(_Strict):
    """Everything that decides how a round is played and settled: journaled, so that a round is
    always replayed under the rules it was played under, whatever the config file says later."""

    game: GameConfig
    seats: Seats
    limits: Limits | None  # a banked game's; None at a poker table
    schedule: CollectionSchedule | PokerSchedule  # R4 for a banked game, R44 for poker
    # The pay tables the game names, by name, as they read when the rules were loaded: a later
    # edit of config/paytables/*.toml changes new rounds only, never how old ones replay.
    paytables: dict[str, PayTable] = Field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def banked(self) -> tuple[Limits, CollectionSchedule]:
        """A banked game's limits and collection schedule (R4); ValueError at a poker table."""
        if self.limits is None or not isinstance(self.schedule, CollectionSchedule):
            raise ValueError(f"{self.game.id} is not a banked game: no limits, no R4 schedule")
        return self.limits, self.schedule

    def poker_schedule(self) -> PokerSchedule:
        """A poker table's collection schedule (R44); ValueError at a banked table."""
        if not isinstance(self.schedule, PokerSchedule):
            raise ValueError(f"{self.game.id} is not a poker game: it has no R44 schedule")
        return self.schedule

    def paytable(self, name: str) -> PayTable:
        """A pay table these rules name (engines take theirs from here, not from the file)."""
        try:
            return self.paytables[name]
        except KeyError:
            have = ", ".join(self.paytables) or "none"
            raise ValueError(f"the rules carry no pay table {name!r} (they carry {have})") from None


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config with everything it refers to resolved."""

    path: Path
    table: TableConfig
    schedule: CollectionSchedule | PokerSchedule
    paytables: dict[str, PayTable] = field(default_factory=dict)
    # "file: key: reason" of what does not stop the table but a technician should know: a
    # vendor plugin that cannot be loaded (issue 5: "imported lazily so a broken plugin cannot
    # stop the daemon"; its device reports itself unavailable instead).
    warnings: tuple[str, ...] = ()
    # "sha256:<hex>" of the file's bytes as `load_config` read them (the retained `info` topic
    # names it, so a floor can tell which tables run which config file); None for a config
    # built in memory.
    digest: str | None = None

    @property
    def rules(self) -> Rules:
        t = self.table
        return Rules(
            game=t.game,
            seats=t.seats,
            limits=t.limits,
            schedule=self.schedule,
            paytables=self.paytables,
        )

    @property
    def journal_path(self) -> Path:
        return resolve(self.path, self.table.journal.path)

    @property
    def archive_path(self) -> Path | None:
        """Where closed journal segments are archived, if the config says."""
        folder = self.table.journal.archive_dir
        return None if folder is None else resolve(self.path, folder)

    @property
    def key_path(self) -> Path | None:
        """The journal's chain key file, if the config names one."""
        key_file = self.table.journal.key_file
        return None if key_file is None else resolve(self.path, key_file)


def resolve(config_path: Path, value: str) -> Path:
    """A path from the config: absolute as given, relative to the config file's folder otherwise."""
    p = Path(value)
    return p if p.is_absolute() else (config_path.parent / p)


def _key(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in GAME_IDS or part.startswith("function-"):
            continue  # discriminator tags and validator names are not keys
        else:
            out += ("." if out else "") + part
    return out


def _reason(err: Any) -> str:
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        return "unknown key (check the spelling; unknown keys are not ignored)"
    if err["type"] == "missing":
        return "required key is missing"
    if err["type"] == "union_tag_invalid":
        return f"unknown game id; known: {', '.join(GAME_IDS)}"
    return msg


def parse_config(data: dict[str, Any], path: Path) -> LoadedConfig:
    """Validate decoded TOML; raise ConfigError listing every problem.

    The cross-checks (schedule file, limits against the schedule, per-spot limits, driver names)
    run on every section that is valid by itself, so one typo does not hide the other problems.
    """
    name = str(path)
    problems: list[Problem] = []
    table: TableConfig | None = None
    try:
        table = TableConfig.model_validate(data)
    except ValidationError as exc:
        problems += [Problem(name, _key(tuple(e["loc"])), _reason(e)) for e in exc.errors()]
    collection = _section(Collection, data.get("collection"))
    limits = _section(Limits, data.get("limits"))
    game = data.get("game")
    game_id = game.get("id") if isinstance(game, dict) else None
    kind = spec_of(str(game_id)).kind if game_id in GAME_IDS else None
    problems += _kind_problems(name, kind, data)
    schedule: CollectionSchedule | PokerSchedule | None = None
    if collection is not None:
        schedule = _schedule(collection, path, problems)
    if isinstance(schedule, CollectionSchedule) and limits is not None:
        problems += _limit_problems(name, limits, schedule)
    if limits is not None and game_id in GAME_IDS:
        known = spots_of(str(game_id))
        for spot in limits.spots:
            if spot not in known:
                problems.append(
                    Problem(
                        name,
                        f"limits.spots.{spot}",
                        f"no such wager in {game_id}; known: {', '.join(known)}",
                    )
                )
    if isinstance(schedule, CollectionSchedule) and game_id in GAME_IDS:
        known = spots_of(str(game_id))
        for spot in schedule.player_fee_spots:
            if spot not in known:
                problems.append(
                    Problem(
                        name,
                        "collection",
                        f"schedule {schedule.option} charges a player fee on {spot!r}, which is "
                        f"no wager in {game_id} (known: {', '.join(known)}), so nobody would pay "
                        "it (R4)",
                    )
                )
    raw_limits = data.get("limits")
    if limits is None and isinstance(raw_limits, dict):
        try:
            SpotLimit.model_validate({k: raw_limits.get(k) for k in ("min", "max")})
        except ValidationError as exc:
            problems += [Problem(name, "limits", _reason(e)) for e in exc.errors()]
    driver_problems, driver_warnings = _driver_checks(name, data.get("devices"))
    problems += driver_problems
    if table is not None:
        problems += _paytable_problems(name, table.game, paytable_dir(path, table))
        # a game's own checks of the other sections (e.g. its seat count)
        problems += [Problem(name, key, reason) for key, reason in table.game.cross_check(table)]
    problems = list(dict.fromkeys(problems))  # the same problem found by two passes, once
    if table is not None and table.mqtt.password_file and not table.mqtt.username:
        problems.append(Problem(name, "mqtt.password_file", "a password file needs a username"))
    if not problems and table is not None and kind == "poker":
        schedule = table.game.own_schedule(table.seats.count)
    if problems or table is None or schedule is None:
        raise ConfigError(problems)
    return LoadedConfig(
        path=path,
        table=table,
        schedule=schedule,
        paytables=game_paytables(table.game, paytable_dir(path, table)),
        warnings=tuple(str(w) for w in driver_warnings)
        + tuple(str(Problem(name, key, why)) for key, why in table.game.advice(table)),
    )


_POKER_HAS_NO = {
    "limits": "a poker table has no [limits]: its stakes are game.structure, game.stakes and "
    "game.blinds",
    "collection": "a poker table's collection is [game.collection]: the posted options, or a "
    "schedule where no document posts one (R44)",
}


def _kind_problems(name: str, kind: str | None, data: dict[str, Any]) -> list[Problem]:
    """A banked game needs `[limits]` and `[collection]` (R4); a poker game has neither."""
    if kind == "banked":
        return [
            Problem(name, key, "required key is missing")
            for key in ("limits", "collection")
            if key not in data
        ]
    if kind == "poker":
        return [Problem(name, key, why) for key, why in _POKER_HAS_NO.items() if key in data]
    return []


def _section(model: type[M], raw: object) -> M | None:
    """One section validated on its own, or None (its problems are reported by the full pass)."""
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


def _limit_problems(name: str, limits: Limits, schedule: CollectionSchedule) -> list[Problem]:
    """R4: one schedule's table limit bounds every spot's limits."""
    out = []
    checks = [("limits", limits.min, limits.max)] + [
        (f"limits.spots.{spot}", lim.min, lim.max) for spot, lim in limits.spots.items()
    ]
    for key, lo, hi in checks:
        if lo < schedule.table_min or hi > schedule.table_max:
            out.append(
                Problem(
                    name,
                    key,
                    f"limits {lo}-{hi} fall outside collection schedule {schedule.option}'s "
                    f"table limit {schedule.table_min}-{schedule.table_max} (R4)",
                )
            )
    return out


def _driver_checks(name: str, devices: object) -> tuple[list[Problem], list[Problem]]:
    """Problems and warnings of the devices' drivers.

    Problems: a driver name neither built in nor installed; options a driver refuses (it checks
    them when built and opens nothing until it runs); a built-in that cannot be imported.
    Warnings: a vendor plugin that cannot be loaded, or fails other than by refusing its options
    (issue 5: plugins are "imported lazily so a broken plugin cannot stop the daemon"): the
    daemon runs the other devices and reports this one unavailable on device/<name>/status.
    """
    if not isinstance(devices, list):
        return [], []
    from tablectl_drivers.registry import (
        BUILTIN_DRIVERS,
        DriverLoadError,
        available_drivers,
        load_driver,
    )

    known = available_drivers()
    problems: list[Problem] = []
    warnings: list[Problem] = []
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str):
            continue
        if driver not in known:
            problems.append(
                Problem(
                    name,
                    f"devices[{i}].driver",
                    f"no driver {driver!r}; known: {', '.join(sorted(known))}",
                )
            )
            continue
        device = _section(Device, dev)
        if device is None:
            continue
        plugin = driver not in BUILTIN_DRIVERS
        key = f"devices[{i}].driver"
        try:
            cls = load_driver(driver)
        except DriverLoadError as exc:
            if not plugin:
                problems.append(Problem(name, key, str(exc)))
            else:
                warnings.append(Problem(name, key, f"{exc}{_PLUGIN_DOWN}"))
            continue
        try:
            cls(device.name, device.port, device.baud, device.options)
        except (ValueError, TypeError) as exc:
            problems.append(Problem(name, f"devices[{i}].options", str(exc)))
        except Exception as exc:
            if not plugin:
                raise  # a built-in failing any other way is a bug in tablectl: loud
            cause = f"{type(exc).__name__}: {exc}"
            warnings.append(
                Problem(name, key, f"driver {driver!r} cannot be built: {cause}{_PLUGIN_DOWN}")
            )
    return problems, warnings


_PLUGIN_DOWN = "; the daemon runs without this device and reports it unavailable"


def _schedule(col: Collection, path: Path, problems: list[Problem]) -> CollectionSchedule | None:
    if col.schedule is not None:
        return col.schedule
    assert col.file is not None and col.option is not None
    file = resolve(path, col.file)
    try:
        schedules = load_schedules(file)
    except FileNotFoundError:
        problems.append(Problem(str(path), "collection.file", f"no such file: {file}"))
        return None
    except ScheduleError as exc:
        problems += [Problem(str(path), "collection.file", line) for line in str(exc).splitlines()]
        return None
    except (ValueError, RecursionError) as exc:  # e.g. a 4300-digit integer; deep nesting
        problems.append(Problem(str(path), "collection.file", f"{file}: {_toml_problem(exc)}"))
        return None
    if col.option not in schedules:
        problems.append(
            Problem(
                str(path),
                "collection.option",
                f"{file} has no schedule option {col.option}; "
                f"it has {min(schedules)}-{max(schedules)}",
            )
        )
        return None
    return schedules[col.option]


def load_config(path: Path | str) -> LoadedConfig:
    """Read and validate a table config file."""
    p = Path(path)
    if "\0" in str(p):
        shown = str(p).replace("\0", "\\0")
        raise ConfigError([Problem(shown, "", "the path contains a NUL byte (\\0)")])
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(str(p), "", f"cannot read: {exc.strerror or exc}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError([Problem(str(p), "", "not UTF-8 text")]) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError([Problem(str(p), "", _toml_problem(exc))]) from None
    return replace(parse_config(data, p), digest=f"sha256:{hashlib.sha256(raw).hexdigest()}")


def _toml_problem(exc: ValueError | RecursionError) -> str:
    """Why tomllib refused a text: besides TOMLDecodeError it raises a plain ValueError for an
    integer of more digits than Python converts (4300) and RecursionError for deep nesting."""
    if isinstance(exc, RecursionError):
        return "not valid TOML: nested too deeply"
    if "integer string conversion" in str(exc):
        return f"not valid TOML: a number has more than {sys.get_int_max_str_digits()} digits"
    return f"not valid TOML: {exc}"


def paytable_dir(config_path: Path, table: TableConfig) -> Path:
    """Where this table's pay table files are: its `paytables` folder, or the shipped one."""
    from tablectl.rules.paytables import PAYTABLE_DIR

    return PAYTABLE_DIR if table.paytables is None else resolve(config_path, table.paytables)


def game_paytables(game: GameSettings, folder: Path) -> dict[str, PayTable]:
    """Every pay table the game's config names, read from its data file (checked already)."""
    from tablectl.rules.paytables import load_paytables

    out: dict[str, PayTable] = {}
    for key, (file, _wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is not None:
            out[wanted] = load_paytables(folder / file)[wanted]
    return out


def _paytable_problems(name: str, game: GameSettings, folder: Path) -> list[Problem]:
    """Every pay table the game names exists in its data file and settles the right wager."""
    from tablectl.rules.paytables import PayTableError, load_paytables

    out = []
    for key, (file, wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is None:
            continue
        try:
            tables = load_paytables(folder / file)
        except PayTableError as exc:
            out.append(Problem(name, f"game.{key}", str(exc)))
            continue
        except UnicodeDecodeError:
            out.append(Problem(name, f"game.{key}", f"{folder / file}: not UTF-8 text"))
            continue
        except (ValueError, RecursionError) as exc:  # e.g. a 4300-digit integer; deep nesting
            out.append(Problem(name, f"game.{key}", f"{folder / file}: {_toml_problem(exc)}"))
            continue
        table = tables.get(wanted)
        if table is None:
            have = ", ".join(n for n, t in tables.items() if t.wager == wager)
            out.append(
                Problem(name, f"game.{key}", f"no {wager} pay table {wanted!r}; have {have}")
            )
        elif table.wager != wager:
            out.append(
                Problem(name, f"game.{key}", f"{wanted} is a {table.wager} table, not {wager}")
            )
    return out
