"""The table's one TOML file, validated by pydantic: every problem named by file, key, reason.

Unknown keys are errors (a typo must not silently fall back to a default). Collection schedules
(R4) come from a schedules file shipped as data, chosen by option number, or are written inline.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from tablectl.money import Money
from tablectl.rules.fees import CollectionSchedule, ScheduleError, load_schedules

M = TypeVar("M", bound=BaseModel)
TopicId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BaccaratGame(_Strict):
    """EZ Baccarat Panda 8 (document 003) and its approval options."""

    id: Literal["ez-baccarat-panda8"]
    decks: int = Field(8, ge=3, le=8, description="3 to 8 decks in the shoe (003)")
    settlement_order: Literal["by-spot", "by-seat"] = "by-spot"  # R3: 003 settles spot by spot
    banker_push_on_dragon7: bool = False  # R26
    bet_timer_seconds: int = Field(0, ge=0, le=600)  # R28: 0 = no timer


class ThreeCardPokerGame(_Strict):
    """Three Card Poker 6 Card Bonus (documents 000, 001, 003, 004; R29) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "six_card_bonus_table": ("three-card-poker.toml", "six-card-bonus"),
        "pair_plus_table": ("three-card-poker.toml", "pair-plus"),
    }

    id: Literal["three-card-poker-6cb"]
    six_card_bonus_table: str = "TCB-6B2"  # R29: TCB-6B2, TCB-6B4 or the 001 table
    pair_plus_table: str = "PP-MR200"
    # "two alternating decks" (000, 001, 003, 004): the deck colours the shuffler reports.
    deck_colours: tuple[str, str] = ("red", "blue")
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"


class FortunePaiGowGame(_Strict):
    """Fortune Pai Gow Poker (documents 003, 004; R30-R32) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "fortune_table": ("fortune-pai-gow.toml", "fortune"),
    }

    id: Literal["fortune-pai-gow"]
    fortune_table: str
    envy_minimum: Money = Decimal(5)  # R32: an Envy button per Fortune wager of $5 or more
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"


class UltimateTexasHoldemGame(_Strict):
    """Ultimate Texas Hold'em (003 with the Bad Beat, 004 Trips only; R35) and its options."""

    PAYTABLES: ClassVar[dict[str, tuple[str, str]]] = {
        "blind_table": ("ultimate-texas-holdem.toml", "blind"),
        "trips_table": ("ultimate-texas-holdem.toml", "trips"),
        "bad_beat_table": ("ultimate-texas-holdem.toml", "bad-beat"),
    }

    id: Literal["ultimate-texas-holdem"]
    blind_table: str
    trips_table: str
    bad_beat_table: str | None = None  # None: no Bad Beat wager at this table (004)
    settlement_order: Literal["by-spot", "by-seat"] = "by-seat"


GameConfig = Annotated[
    BaccaratGame | ThreeCardPokerGame | FortunePaiGowGame | UltimateTexasHoldemGame,
    Field(discriminator="id"),
]
GAME_IDS = (
    "ez-baccarat-panda8",
    "three-card-poker-6cb",
    "fortune-pai-gow",
    "ultimate-texas-holdem",
)


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

    file: str | None = None
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
    port: str
    baud: int = Field(9600, ge=50, le=4_000_000)
    options: dict[str, Any] = Field(default_factory=dict)


class Tls(_Strict):
    ca: str
    cert: str | None = None
    key: str | None = None


class Mqtt(_Strict):
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(1883, ge=1, le=65535)
    client_id: str | None = None
    username: str | None = None
    password_file: str | None = None
    tls: Tls | None = None
    keepalive: int = Field(30, ge=5, le=3600)


class Journal(_Strict):
    path: str


class TableConfig(_Strict):
    site: TopicId
    table: TopicId
    game: GameConfig
    seats: Seats = Seats()
    limits: Limits
    collection: Collection
    devices: list[Device] = Field(default_factory=list)
    mqtt: Mqtt = Mqtt()
    journal: Journal
    log_level: Literal["debug", "info", "warning", "error"] = "info"

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
    limits: Limits
    schedule: CollectionSchedule

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config with everything it refers to resolved."""

    path: Path
    table: TableConfig
    schedule: CollectionSchedule

    @property
    def rules(self) -> Rules:
        t = self.table
        return Rules(game=t.game, seats=t.seats, limits=t.limits, schedule=self.schedule)

    @property
    def journal_path(self) -> Path:
        return resolve(self.path, self.table.journal.path)


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
    schedule = None
    if collection is not None:
        schedule = _schedule(collection, path, problems)
    if schedule is not None and limits is not None:
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
    raw_limits = data.get("limits")
    if limits is None and isinstance(raw_limits, dict):
        try:
            SpotLimit.model_validate({k: raw_limits.get(k) for k in ("min", "max")})
        except ValidationError as exc:
            problems += [Problem(name, "limits", _reason(e)) for e in exc.errors()]
    problems += _driver_problems(name, data.get("devices"))
    if table is not None:
        problems += _paytable_problems(name, table.game)
        check = getattr(table.game, "cross_check", None)
        if check is not None:  # a game's own checks of the other sections (e.g. its seat count)
            problems += [Problem(name, key, reason) for key, reason in check(table)]
    problems = list(dict.fromkeys(problems))  # the same problem found by two passes, once
    if table is not None and table.mqtt.password_file and not table.mqtt.username:
        problems.append(Problem(name, "mqtt.password_file", "a password file needs a username"))
    if problems or table is None or schedule is None:
        raise ConfigError(problems)
    return LoadedConfig(path=path, table=table, schedule=schedule)


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


def _driver_problems(name: str, devices: object) -> list[Problem]:
    """Every device names a driver that is built in or installed as a plugin."""
    if not isinstance(devices, list):
        return []
    from drivers.registry import DriverLoadError, available_drivers, load_driver

    known = available_drivers()
    out = []
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str):
            continue
        if driver not in known:
            out.append(
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
        try:  # a driver checks its options when built; it opens nothing until it runs
            load_driver(driver)(device.name, device.port, device.baud, device.options)
        except (ValueError, TypeError) as exc:
            out.append(Problem(name, f"devices[{i}].options", str(exc)))
        except DriverLoadError as exc:
            out.append(Problem(name, f"devices[{i}].driver", str(exc)))
    return out


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
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError([Problem(str(p), "", f"cannot read: {exc.strerror}")]) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError([Problem(str(p), "", "not UTF-8 text")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([Problem(str(p), "", f"not valid TOML: {exc}")]) from None
    return parse_config(data, p)


SPOTS: dict[str, tuple[str, ...]] = {
    "ez-baccarat-panda8": ("player", "banker", "tie", "dragon7", "panda8"),
    "three-card-poker-6cb": ("ante", "play", "pair-plus", "six-card-bonus"),
    "fortune-pai-gow": ("base", "fortune", "envy"),
    "ultimate-texas-holdem": ("ante", "blind", "play", "trips", "bad-beat"),
}


def spots_of(game_id: str) -> tuple[str, ...]:
    """The wager spots of a game (DESIGN contract 4)."""
    return SPOTS[game_id]


def _paytable_problems(name: str, game: Any) -> list[Problem]:
    """Every pay table the game names exists in its data file and settles the right wager."""
    from tablectl.rules.paytables import PAYTABLE_DIR, PayTableError, load_paytables

    out = []
    for key, (file, wager) in getattr(game, "PAYTABLES", {}).items():
        wanted = getattr(game, key)
        if wanted is None:
            continue
        try:
            tables = load_paytables(PAYTABLE_DIR / file)
        except PayTableError as exc:
            out.append(Problem(name, f"game.{key}", str(exc)))
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
