"""The table's one TOML file, validated by pydantic: every problem named by file, key, reason.

Unknown keys are errors (a typo must not silently fall back to a default). Collection schedules
(R4) come from a schedules file shipped as data, chosen by option number, or are written inline.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Required, TypedDict, TypeVar, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tablectl.games.registry import available, game_ids, settings_models, spec_of, spots_of
from tablectl.games.settings import GameSettings, StrictBool, StrictInt
from tablectl.paths import folder_problem, not_a_file, not_a_folder, not_a_plain_file
from tablectl.rules.approval import Approval, documents_text, mismatch, missing
from tablectl.rules.fees import CollectionSchedule, ScheduleError, load_schedule_file
from tablectl.rules.paytables import PayTable
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.money import Money

M = TypeVar("M", bound=BaseModel)
TOPIC_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
TopicId = Annotated[str, Field(pattern=TOPIC_ID)]
Text = Annotated[str, Field(min_length=1)]
"""Text that must say something: `""` is refused."""
_PATTERNS = {
    TOPIC_ID: "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit "
    "(it is part of the MQTT topics)",
    r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$": "letters, digits, '_' or '-', in parts joined by '/'",
}
"""What each pattern a key must match means, for a technician (never the raw regex)."""
MAX_PATH = 4096  # Linux PATH_MAX


def _path_text(value: str) -> str:
    """A path (or device port) as the operating system can take it: no NUL byte, not empty."""
    if "\0" in value:
        raise ValueError("contains a NUL byte (\\0), which no path can hold")
    if not value:
        raise ValueError('is empty (""); give a path')
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
    count: StrictInt = Field(7, ge=1, le=14)


class Collection(_Strict):
    """A schedule picked from a schedules file (`file` relative to this config) or given inline."""

    file: PathText | None = None
    option: StrictInt | None = Field(None, ge=1)
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
    driver: Text
    port: PathText
    baud: StrictInt = Field(9600, ge=50, le=4_000_000)
    # A rate outside STANDARD_BAUDS is taken only when the config says it means it (a typo,
    # 96000 for 9600, would otherwise leave the device silent with no word).
    custom_baud: StrictBool = False
    # The port is an emulator's pseudo-terminal (tablectl demo, hil/, the tests): only then is a
    # /dev/pts/N port opened, since the number goes to the next terminal once the emulator ends.
    emulator: StrictBool = False
    options: dict[str, Any] = Field(default_factory=dict)


STANDARD_BAUDS = (
    50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600,
    115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000,
    2500000, 3000000, 3500000, 4000000,
)  # fmt: skip
"""The serial rates Linux names (termios B50 ... B4000000): any other needs `custom_baud`."""
PTY = re.compile(r"^/dev/pts/[0-9]+$")
"""A pseudo-terminal's path: an emulator's port, never a device's (`Device.emulator`)."""
WINDOWS_PORT = re.compile(r"^(?i:com)[0-9]+:?$")
"""A Windows serial port name, which names nothing on the Linux table PC."""


class Tls(_Strict):
    ca: PathText
    cert: PathText | None = None
    key: PathText | None = None


class Mqtt(_Strict):
    enabled: StrictBool = True
    host: Text = "127.0.0.1"
    port: StrictInt = Field(1883, ge=1, le=65535)
    client_id: Text | None = None
    username: Text | None = None
    password_file: PathText | None = None
    tls: Tls | None = None
    # Seconds; the broker publishes the Last Will 1.5 keepalives after the table fell silent,
    # and Mosquitto 2.0.11 looks only every 6 s: 8 makes it 12-19 s, after a page marked the
    # table stale (two 5 s heartbeats; docs/config.md).
    keepalive: StrictInt = Field(8, ge=5, le=3600)
    # Seconds between the retained `status` "online" the relay publishes again from memory, so
    # that a page can tell a hung or cut-off table (stale after two missed) long before the
    # Last Will (issue 25 item 2; docs/mqtt.md `status`). 0: only after each connect.
    heartbeat_seconds: StrictInt = Field(5, ge=0, le=3600)
    # Home Assistant MQTT discovery (tablectl/discovery.py): retained entity configs for the
    # table's status, held round, journal trouble, round and last alert. Off unless asked.
    discovery: StrictBool = False
    discovery_prefix: str = Field("homeassistant", pattern=r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$")


class Journal(_Strict):
    path: PathText
    # The table's chain key (tablectl keygen), relative to this config; unset: an unkeyed journal.
    key_file: PathText | None = None
    # How long published messages stay in the outbox (the newest retained one of each topic and
    # anything unsent always stay): the journal keeps the inputs, which reproduce them all.
    outbox_hours: StrictInt = Field(24, ge=1, le=24 * 366)
    # Closed monthly segments: `tablectl archive` moves all but the newest `keep_local_months`
    # of them here (relative to this config; a mounted share off the table PC is best), and
    # deletes archived ones older than `retain_months` (0: never). docs/operations.md "Storage".
    archive_dir: PathText | None = None
    keep_local_months: StrictInt = Field(2, ge=0, le=120)
    retain_months: StrictInt = Field(0, ge=0, le=1200)


class Broadcast(_Strict):
    """The delayed broadcast feed (tablectl/broadcast.py): every input with its cards and every
    result, `delay_seconds` after the table journaled them, for the broadcast role only. 0: off."""

    delay_seconds: int = Field(0, strict=True, ge=0, le=86_400)


class PaceBand(_Strict):
    """The rounds an hour a table is expected to play (issue 14 item 2): outside the band an
    alert (`pace`) waits for a person. Either end may be left out; journaled with the rules, so
    a replay raises the same alerts."""

    min_rounds_per_hour: StrictInt | None = Field(None, ge=1, le=10_000)
    max_rounds_per_hour: StrictInt | None = Field(None, ge=1, le=10_000)

    @model_validator(mode="after")
    def _ordered(self) -> PaceBand:
        low, high = self.min_rounds_per_hour, self.max_rounds_per_hour
        if low is not None and high is not None and low > high:
            raise PydanticCustomError(
                "pace_band",
                "min_rounds_per_hour ({low}) is above max_rounds_per_hour ({high})",
                {"low": low, "high": high},
            )
        return self


class Metrics(_Strict):
    """The Prometheus endpoint (tablectl/metrics.py, docs/operations.md "Metrics"): served on
    `listen`, an IP address and a port ("127.0.0.1:9464", "[::1]:9464"); bound there and nowhere
    else. No `[metrics]` table: no endpoint, and nothing counted."""

    listen: Text

    @field_validator("listen")
    @classmethod
    def _address(cls, value: str) -> str:
        Metrics.address_of(value)  # ValueError naming what is wrong
        return value

    @property
    def address(self) -> tuple[str, int]:
        """The host and port to bind."""
        return Metrics.address_of(self.listen)

    @staticmethod
    def address_of(listen: str) -> tuple[str, int]:
        """`listen` as (host, port); ValueError saying why it is not an address and port."""
        host, sep, port = listen.rpartition(":")
        if not sep or not host:
            raise ValueError("give an IP address and a port, as 127.0.0.1:9464 or [::1]:9464")
        bracketed = host.startswith("[") and host.endswith("]")
        host = host[1:-1] if bracketed else host
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(
                f"{shown(host)} is not an IP address: give the address to listen on (127.0.0.1 "
                "for this PC alone), not a host name"
            ) from None
        if (ip.version == 6) != bracketed:
            raise ValueError("an IPv6 address goes in brackets ([::1]:9464), an IPv4 one not")
        if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            raise ValueError(f"port {shown(port)} is not a number from 1 to 65535")
        return host, int(port)


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
    # The dealer keys the cards at the console: the table has no card reader, and check-config
    # accepts it without the device the game otherwise needs (DEVICE_ROLES `needed`), saying so.
    manual_entry: StrictBool = False
    mqtt: Mqtt = Mqtt()
    broadcast: Broadcast = Broadcast()
    pace: PaceBand | None = None
    journal: Journal
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    # The folder of pay table files (relative to this config); unset: the ones shipped with
    # tablectl (config/paytables, installed as share/tablectl/paytables).
    paytables: PathText | None = None
    # The Prometheus endpoint; None (no [metrics] table): none
    metrics: Metrics | None = None

    @model_validator(mode="after")
    def _unique_devices(self) -> TableConfig:
        names = [d.name for d in self.devices]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:  # parse_config names each one at its key (devices[i].name)
            raise PydanticCustomError(
                "duplicate_device_name", "device names must be unique: {names}", {"names": dupes}
            )
        return self

    @property
    def base_topic(self) -> str:
        return f"tablectl/{self.site}/{self.table}"

    @property
    def client_id(self) -> str:
        """The daemon's MQTT client id: `[mqtt] client_id`, else the broker user (`username`),
        else ``tablectl-<site>-<table>``. The shipped broker config makes every client's id its
        user name (``use_username_as_clientid``, so nobody can take over the table's connection
        with its id), so the id the table asks for is the one the broker and its log use."""
        return self.mqtt.client_id or self.mqtt.username or f"tablectl-{self.site}-{self.table}"


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
    pace: PaceBand | None = None  # issue 14: the band of rounds an hour (alerts only)
    # R55: the table has no card reader; the dealer keys every card at the console.
    manual_entry: bool = False

    def to_json(self) -> dict[str, Any]:
        """The rules as journaled; without `pace` when none is set, `manual_entry` when false,
        and without a banked game's `document` when the config names none, so rules journaled
        before they existed keep their JSON (and digest)."""
        doc = self.model_dump(mode="json", by_alias=True)
        if doc.get("pace") is None:
            doc.pop("pace", None)
        if not doc.get("manual_entry"):
            doc.pop("manual_entry", None)
        if doc["game"].get("document", "") is None:
            doc["game"].pop("document")
        return doc

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
    # The rule document the table is approved under: its `game.document`, else the one document
    # that approves the game, else the one its data files agree on; None when nothing says.
    document: str | None = None

    @property
    def rules(self) -> Rules:
        t = self.table
        return Rules(
            game=t.game,
            seats=t.seats,
            limits=t.limits,
            schedule=self.schedule,
            paytables=self.paytables,
            pace=t.pace,
            manual_entry=t.manual_entry,
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


def path_problems(cfg: LoadedConfig) -> list[Problem]:
    """The journal, key and archive paths the config names, as they are on disk now (issue 24
    item 5): each that exists must be what tablectl will use it as, the journal (and its -wal,
    -shm and the monthly segments beside it) and the key a regular file, the archive a folder;
    one where nothing is yet needs a folder on its way, not a device or a file. Nothing is
    opened or changed to find out (tablectl/paths.py): `check-config` and `run` refuse such a
    config before anything opens the path, one line each naming the key, its value and what
    is there. Whether the key file is a usable key is `load_key`'s to say."""
    from tablectl.chainkey import not_a_key_file
    from tablectl.journal import segments

    name = str(cfg.path)
    j = cfg.table.journal
    out: list[Problem] = []

    def problem(key: str, value: str, resolved: Path, reason: str) -> None:
        where = "" if str(resolved) == value else f" ({resolved})"
        out.append(Problem(name, key, f"{shown(value)}{where} {reason}"))

    journal = cfg.journal_path
    why = not_a_file(journal)
    if why is not None:
        problem(
            "journal.path",
            j.path,
            journal,
            f"is {why}, not a regular file: name the journal file itself (tablectl creates it "
            "when nothing is there)",
        )
    for companion in (Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        why = not_a_plain_file(companion)
        if why is not None:
            problem(
                "journal.path",
                j.path,
                journal,
                f"has {companion} beside it, which is {why}, not the regular file SQLite keeps "
                "there: move it away",
            )
    problem_at = folder_problem(journal)
    if problem_at is not None:
        where, why = problem_at
        problem("journal.path", j.path, journal, f"cannot be made: {where} is {why}, not a folder")
    archive = cfg.archive_path
    # Where segments are read from: beside the journal, and in the archive.
    folders = [("journal.path", j.path, journal, journal.parent)] if problem_at is None else []
    if archive is not None and j.archive_dir is not None:
        why = not_a_folder(archive)
        blocked = folder_problem(archive)
        if why is not None:
            problem("journal.archive_dir", j.archive_dir, archive, f"is {why}, not a folder")
        elif blocked is not None:
            problem(
                "journal.archive_dir",
                j.archive_dir,
                archive,
                f"cannot be made: {blocked[0]} is {blocked[1]}, not a folder",
            )
        else:
            folders.append(("journal.archive_dir", j.archive_dir, archive, archive))
    for key_name, value, resolved, folder in folders:
        if os.path.isdir(folder):
            try:
                segments.segment_files(journal, folder)
            except segments.SegmentPathError as exc:
                problem(key_name, value, resolved, f"holds a segment's name taken: {exc}")
    key = cfg.key_path
    if key is not None and j.key_file is not None:
        why = not_a_key_file(key)
        if why is not None:
            problem("journal.key_file", j.key_file, key, f"is {why}, not a regular file")
    return out


def path_warnings(cfg: LoadedConfig) -> list[str]:
    """The journal file and its -wal/-shm when group or others may read or change them: left as
    they are (tablectl never changes the mode of a file it did not create, `_prepare_file` in
    tablectl/journal.py), and said, with the command that fixes it."""
    out = []
    journal = cfg.journal_path
    for path in (journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            continue  # not there (yet), or not ours to look at: nothing to say about its mode
        if mode & 0o077:
            out.append(
                str(
                    Problem(
                        str(cfg.path),
                        "journal.path",
                        f"{path} is mode {mode:04o}: group or others can read or change it; "
                        f"`chmod 600 {path}` (tablectl sets the mode only of files it creates)",
                    )
                )
            )
    return out


def checked_paths(cfg: LoadedConfig) -> LoadedConfig:
    """`cfg` once its journal, key and archive paths and its device ports are fit (ConfigError
    naming each that is not: `path_problems`, `port_problems`), with `path_warnings` and
    `port_warnings` added to its warnings: what `check-config` and `run` use, so the daemon
    never opens a path the check would refuse."""
    problems = path_problems(cfg) + port_problems(cfg)
    if problems:
        raise ConfigError(problems)
    return replace(cfg, warnings=cfg.warnings + tuple(path_warnings(cfg) + port_warnings(cfg)))


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


def shown(value: object) -> str:
    """A value as the technician wrote it in TOML: text quoted, numbers and true/false bare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)


_KINDS = {
    "int_type": "a whole number written without quotes",
    "int_from_float": "a whole number",
    "bool_type": "true or false, without quotes",
    "string_type": "text in quotes",
    "list_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "decimal_type": "an amount",
    "float_type": "a number",
}


def _reason(err: Any) -> str:
    """pydantic's error as a technician reads it, with the value it saw."""
    kind = err["type"]
    value = err.get("input")
    ctx = err.get("ctx") or {}
    msg = str(err["msg"]).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; unknown keys are not ignored)"
    if kind == "missing":
        return "required key is missing"
    if kind == "union_tag_invalid":
        return f"unknown game id {shown(ctx.get('tag'))}; known: {', '.join(GAME_IDS)}"
    if kind == "union_tag_not_found":
        return f"required key is missing: name the game; known: {', '.join(GAME_IDS)}"
    if kind in _KINDS:
        return f"must be {_KINDS[kind]}, not {shown(value)}"
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern", ""))
        meaning = _PATTERNS.get(pattern, f"text of the form {pattern}")
        return f"{shown(value)} is not usable here: give {meaning}"
    if kind == "string_too_short" and value == "":
        return 'is empty ("")'
    if kind == "literal_error":
        return f"{shown(value)} is not one of {ctx.get('expected', '')}"
    if isinstance(value, dict | list) or value is None:
        return msg
    seen = shown(value)
    if isinstance(value, bool | str):  # a message quoting Python's True or 'x': as TOML says it
        msg = msg.replace(repr(value), seen, 1)
    return msg if seen in msg else f"{msg} (got {seen})"


def parse_config(data: dict[str, Any], path: Path) -> LoadedConfig:
    """Validate decoded TOML; raise ConfigError listing every problem.

    Every device must fill one of the game's device roles (`DEVICE_ROLES` of its spec module),
    and a role the game cannot do without (blackjack's card source) must be filled: here, so a
    config built in memory (a test's, a tool's) is held to the same rules as a file `load_config`
    reads. Nothing that replays a journal needs a config without devices: the journaled `Rules`
    carry everything a round is played under, and `Rules` has no devices.

    The cross-checks (schedule file, limits against the schedule, per-spot limits, driver names)
    run on every section that is valid by itself, so one typo does not hide the other problems.
    """
    name = str(path)
    problems: list[Problem] = []
    table: TableConfig | None = None
    try:
        table = TableConfig.model_validate(data)
    except ValidationError as exc:
        problems += [
            Problem(name, _error_key(e), _reason(e))
            for e in exc.errors()
            if e["type"] != "duplicate_device_name"  # named at each device's key below
        ]
    problems += _duplicate_names(name, data.get("devices"))
    problems += _port_problems(name, data.get("devices"))
    collection = _section(Collection, data.get("collection"))
    limits = _section(Limits, data.get("limits"))
    game = data.get("game")
    game_id = game.get("id") if isinstance(game, dict) else None
    kind = spec_of(str(game_id)).kind if game_id in GAME_IDS else None
    problems += _kind_problems(name, kind, data)
    schedule: CollectionSchedule | PokerSchedule | None = None
    schedule_approval: Approval | None = None
    schedule_read = False
    if collection is not None:
        before = len(problems)
        schedule, schedule_approval = _schedule(collection, path, problems)
        schedule_read = (  # a poker table's [collection] is refused as such (_kind_problems)
            kind == "banked"
            and collection.file is not None
            and not any(p.key == "collection.file" for p in problems[before:])
        )
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
            problems += [
                Problem(name, _key(("limits", *e["loc"])), _reason(e)) for e in exc.errors()
            ]
    driver_problems, driver_warnings, built = _driver_checks(name, data.get("devices"))
    problems += driver_problems
    if game_id in GAME_IDS and isinstance(data.get("devices", []), list):
        role_problems, role_warnings = _role_checks(
            name, str(game_id), data.get("devices", []), built, data.get("manual_entry") is True
        )
        problems += role_problems
        driver_warnings += role_warnings
    driver_warnings += _surprises(name, data.get("devices"), built)
    if table is not None and table.mqtt.username not in (None, table.client_id):
        driver_warnings.append(
            Problem(
                name,
                "mqtt.client_id",
                f"{table.client_id!r} is not the username {table.mqtt.username!r}: a broker "
                "set up as config/mosquitto/tablectl.conf (use_username_as_clientid) uses the "
                "username instead; leave client_id out",
            )
        )
    document: str | None = None
    if table is not None:
        problems += _paytable_problems(name, table.game, paytable_dir(path, table))
        found, document = _data_file_problems(
            name, table, schedule_approval, schedule_read, paytable_dir(path, table)
        )
        problems += found
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
        document=document,
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


def _driver_checks(
    name: str, devices: object
) -> tuple[list[Problem], list[Problem], dict[int, object]]:
    """Problems and warnings of the devices' drivers, and the options each driver built (by the
    device's index) for the game's own checks.

    Problems: a driver name neither built in nor installed; options a driver refuses (it checks
    them when built and opens nothing until it runs); a built-in that cannot be imported.
    Warnings: a vendor plugin that cannot be loaded, or fails other than by refusing its options
    (issue 5: plugins are "imported lazily so a broken plugin cannot stop the daemon"): the
    daemon runs the other devices and reports this one unavailable on device/<name>/status.
    """
    if not isinstance(devices, list):
        return [], [], {}
    from tablectl_drivers.registry import (
        BUILTIN_DRIVERS,
        DriverLoadError,
        available_drivers,
        load_driver,
    )

    known = available_drivers()
    problems: list[Problem] = []
    warnings: list[Problem] = []
    built: dict[int, object] = {}
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str) or not driver:
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
            made = cls(device.name, device.port, device.baud, device.options)
            built[i] = getattr(made, "options", None)
        except (ValueError, TypeError) as exc:
            problems.append(Problem(name, f"devices[{i}].options", str(exc)))
        except Exception as exc:
            if not plugin:
                raise  # a built-in failing any other way is a bug in tablectl: loud
            cause = f"{type(exc).__name__}: {exc}"
            warnings.append(
                Problem(name, key, f"driver {driver!r} cannot be built: {cause}{_PLUGIN_DOWN}")
            )
    return problems, warnings, built


_PLUGIN_DOWN = "; the daemon runs without this device and reports it unavailable"


class DeviceRole(TypedDict, total=False):
    """One kind of device a game takes, declared in its spec module's `DEVICE_ROLES` (a game
    whose spec module declares none, e.g. one installed by an entry point, is not checked)."""

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


DRIVER_WHAT = {
    "shoe": "a card-reading shoe",
    "line": "a card-reading device described line by line (it reads as a shoe)",
    "dice-cup": "a dice cup",
    "shuffler": "a shuffler",
    "hand-dispenser": "a hand dispenser",
    "eztrak": "an EZtrak display",
    "poker-table": "a card-reading poker table",
}
"""What each built-in driver's device is, for the messages."""

HEARTBEATS_OPTIONAL = {
    "shoe": "a shoe's heartbeats (HBT) are optional (docs/protocols/shoe.md), so a shoe that "
    "sends none is reported SILENT, and the round held, whenever nobody deals for that long",
}
"""Built-in drivers whose devices may never send HBT: `silence_timeout` there is a surprise."""


def device_roles(game_id: str) -> tuple[DeviceRole, ...] | None:
    """The device roles a game's spec module declares (`DEVICE_ROLES`), or None if it declares
    none (then any device is allowed)."""
    where = available().get(game_id)
    if where is None:
        return None
    roles = getattr(import_module(where.partition(":")[0]), "DEVICE_ROLES", None)
    return None if roles is None else tuple(roles)


def is_port_path(port: str) -> bool:
    """Whether a device `port` names a file (a device path), not a pyserial URL (`socket://`,
    `rfc2217://`) or a plain USB device (`usb:`)."""
    return "://" not in port and not port.startswith("usb:")


def _port_problems(name: str, devices: object) -> list[Problem]:
    """What is wrong with each device's port and baud rate as written, nothing looked up
    (`port_problems` looks at the path): a Windows port name; a path that is not whole; a
    pseudo-terminal not said to be an emulator's; a rate Linux has no name for, unless
    `custom_baud` says it is meant."""
    if not isinstance(devices, list):
        return []
    out = []
    for i, raw in enumerate(devices):
        dev = _section(Device, raw)
        if dev is None:
            continue  # reported by the full pass
        port, key = dev.port, f"devices[{i}].port"
        if WINDOWS_PORT.match(port):
            out.append(
                Problem(
                    name,
                    key,
                    f"{shown(port)} is a Windows port name, which names nothing here: give the "
                    "Linux path, best the stable one (/dev/serial/by-id/..., or the "
                    "/dev/tablectl-* name systemd/99-tablectl.rules gives); `tablectl devices` "
                    "lists the ports present",
                )
            )
        elif is_port_path(port) and not port.startswith("/"):
            out.append(
                Problem(
                    name,
                    key,
                    f"{shown(port)} is not a whole path: give it from /dev (e.g. "
                    f'"/dev/{port.removeprefix("./")}"), a pyserial URL (socket://host:port) or a '
                    "usb: port",
                )
            )
        elif PTY.match(port) and not dev.emulator:
            out.append(Problem(name, key, _pty_reason(port)))
        usb = port.startswith("usb:")  # USB has no line speed: its baud is never used
        if not usb and not dev.custom_baud and dev.baud not in STANDARD_BAUDS:
            below = max((b for b in STANDARD_BAUDS if b < dev.baud), default=None)
            above = min((b for b in STANDARD_BAUDS if b > dev.baud), default=None)
            near = " or ".join(str(b) for b in (below, above) if b is not None)
            out.append(
                Problem(
                    name,
                    f"devices[{i}].baud",
                    f"{dev.baud} is not a standard serial rate (the nearest are {near}): check "
                    f"the device's manual; if it really runs at {dev.baud}, set "
                    "custom_baud = true on this device",
                )
            )
    return out


def _pty_reason(port: str, target: str | None = None) -> str:
    """Why a pseudo-terminal port is refused unless the device says `emulator = true`."""
    via = "" if target is None else f" (a link to {target})"
    return (
        f"{shown(port)}{via} is a pseudo-terminal, which no device is: an emulator's (tablectl "
        "demo, hil/, a simulator) lasts only while it runs, and the next terminal opened gets its "
        "number, so tablectl would write into somebody's terminal; set emulator = true on this "
        "device only if an emulator serves it"
    )


def port_problems(cfg: LoadedConfig) -> list[Problem]:
    """Each device port that is a path, as it is on disk now (nothing opened): something there
    that is not a character device (a serial port is one) is refused, and so is one that leads
    to a pseudo-terminal when the device does not say it is an emulator's. Nothing there is
    `port_warnings`' to say: a config is often written before the device is plugged in."""
    from tablectl.paths import kind

    out = []
    for i, dev in enumerate(cfg.table.devices):
        if not is_port_path(dev.port) or not dev.port.startswith("/"):
            continue
        key = f"devices[{i}].port"
        try:
            st = os.stat(dev.port)
        except (FileNotFoundError, NotADirectoryError):
            continue  # nothing there, or a link to nothing: a warning
        except OSError as exc:
            out.append(Problem(str(cfg.path), key, f"{shown(dev.port)}: {exc.strerror}"))
            continue
        if not stat.S_ISCHR(st.st_mode):
            link = os.path.islink(dev.port)
            what = f"a symbolic link to {kind(st.st_mode)}" if link else kind(st.st_mode)
            out.append(
                Problem(
                    str(cfg.path),
                    key,
                    f"{shown(dev.port)} is {what}, not a character device: a serial port is one; "
                    "name the device's port (`tablectl devices` lists them)",
                )
            )
            continue
        target = os.path.realpath(dev.port)
        if PTY.match(target) and target != dev.port and not dev.emulator:
            out.append(Problem(str(cfg.path), key, _pty_reason(dev.port, target)))
    return out


def port_warnings(cfg: LoadedConfig) -> list[str]:
    """Each device port that is a path with nothing there (or a link to nothing): not refused,
    since a config is often written before its device is plugged in, but said; `tablectl
    devices` is the live check of the ports present."""
    out = []
    for i, dev in enumerate(cfg.table.devices):
        if not is_port_path(dev.port) or not dev.port.startswith("/"):
            continue
        if os.path.exists(dev.port):
            continue
        dangling = os.path.islink(dev.port)
        what = "is a link to nothing" if dangling else "is not there"
        remedy = "start its emulator" if dev.emulator else "plug the device in, or correct the port"
        out.append(
            str(
                Problem(
                    str(cfg.path),
                    f"devices[{i}].port",
                    f"{shown(dev.port)} {what} (yet): {remedy}; until then the table runs "
                    "without it and reports it unavailable (`tablectl devices` shows whether it "
                    "is found)",
                )
            )
        )
    return out


def _duplicate_names(name: str, devices: object) -> list[Problem]:
    """A device name used twice, named at the second (and later) device's key."""
    if not isinstance(devices, list):
        return []
    first: dict[str, int] = {}
    out = []
    for i, dev in enumerate(devices):
        dev_name = dev.get("name") if isinstance(dev, dict) else None
        if not isinstance(dev_name, str):
            continue
        if dev_name in first:
            out.append(
                Problem(
                    name,
                    f"devices[{i}].name",
                    f"{shown(dev_name)} is already the name of devices[{first[dev_name]}]; "
                    "each device needs a name of its own (it names the device's MQTT topics)",
                )
            )
        else:
            first[dev_name] = i
    return out


def _roles_text(roles: tuple[DeviceRole, ...]) -> str:
    if not roles:
        return "it takes no devices"
    return "its devices are " + "; ".join(
        f"{r['role']}: {' or '.join(r['drivers'])}" for r in roles
    )


def _role_checks(
    name: str,
    game_id: str,
    devices: list[Any],
    built: dict[int, object],
    manual_entry: bool = False,
) -> tuple[list[Problem], list[Problem]]:
    """Each device fills one of the game's roles, set as the game needs (stack sizes, dice);
    no role has more devices than it takes; every role the game needs (its card reader) is
    filled, unless `manual_entry` says the dealer keys the cards at the console.
    A vendor plugin's device is allowed with a warning: which role it fills cannot be told."""
    from tablectl_drivers.registry import BUILTIN_DRIVERS, available_drivers

    roles = device_roles(game_id)
    if roles is None:
        return [], []
    title = spec_of(game_id).title
    problems: list[Problem] = []
    warnings: list[Problem] = []
    filled: dict[str, list[int]] = {r["role"]: [] for r in roles}
    plugins = False
    unsure = False  # a device refused already (driver or options): it may be the needed one
    known = available_drivers()
    for i, dev in enumerate(devices):
        driver = dev.get("driver") if isinstance(dev, dict) else None
        if not isinstance(driver, str) or driver not in known:
            unsure = True
            continue  # reported already (or no driver key: reported by the full pass)
        key = f"devices[{i}].driver"
        if driver not in BUILTIN_DRIVERS:
            plugins = True
            if i not in built:
                continue  # it cannot be loaded or built: warned of (or refused) already
            warnings.append(
                Problem(
                    name,
                    key,
                    f"driver {shown(driver)} is a vendor plugin: check-config cannot tell whether "
                    f"{game_id} can use it ({_roles_text(roles)})",
                )
            )
            continue
        role = next((r for r in roles if driver in r["drivers"]), None)
        if role is None:
            problems.append(
                Problem(
                    name,
                    key,
                    f"{game_id} ({title}) cannot use driver {shown(driver)} "
                    f"({DRIVER_WHAT.get(driver, driver)}): {_roles_text(roles)}",
                )
            )
            continue
        if i in built:
            filled[role["role"]].append(i)
        else:  # its options are refused, reported already: not counted, but it fills the role
            unsure = True
        problems += _role_options(name, i, dev, driver, role, built.get(i))
    for role in roles:
        at = filled[role["role"]]
        most = role.get("most")
        if most is not None and len(at) > most:
            problems.append(
                Problem(
                    name,
                    f"devices[{at[most]}].driver",
                    f"{game_id} takes at most {most} device for {role['role']}, and "
                    + ", ".join(f"devices[{j}]" for j in at)
                    + " all fill it",
                )
            )
        if role.get("needed") and at and manual_entry:
            warnings.append(
                Problem(
                    name,
                    "manual_entry",
                    f"true says the dealer keys the cards at the console, but devices[{at[0]}] "
                    f"reads {role['role']}: leave manual_entry out while the table has its reader",
                )
            )
        if role.get("needed") and not at and not unsure and not manual_entry:
            why = f" ({role['why']})" if role.get("why") else ""
            text = (
                f"{game_id} needs a device for {role['role']}: {' or '.join(role['drivers'])}"
                f"{why}; none is configured (if the dealer keys the cards at the console "
                "instead, set manual_entry = true)"
            )
            if plugins:  # a vendor's device may be the one: say so, do not refuse
                warnings.append(Problem(name, "devices", text + " unless a plugin's device is it"))
            else:
                problems.append(Problem(name, "devices", text))
    return problems, warnings


def _role_options(
    name: str, i: int, dev: dict[str, Any], driver: str, role: DeviceRole, options: object
) -> list[Problem]:
    """A dispenser's stack sizes and a dice cup's dice as the game deals them."""
    out = []
    raw = dev.get("options")
    given = raw if isinstance(raw, dict) else {}
    why = f" ({role['why']})" if role.get("why") else ""
    wanted = role.get("stack_size")
    sizes = getattr(options, "stack_sizes", None)
    if wanted is not None and isinstance(sizes, tuple) and tuple(sorted(sizes)) != wanted:
        seen = (
            shown(given["stack_size"])
            if "stack_size" in given
            else f"unset, so {driver}'s default {sizes[0] if len(sizes) == 1 else list(sizes)}"
        )
        want = str(wanted[0]) if len(wanted) == 1 else str(list(wanted))
        out.append(
            Problem(
                name,
                f"devices[{i}].options.stack_size",
                f"{role['role']} at this game come in stacks of {want}{why}: "
                f"stack_size must be {want}, not {seen}",
            )
        )
    dice = role.get("dice")
    count = getattr(options, "dice", None)
    if dice is not None and isinstance(count, int) and count != dice:
        seen = shown(given["dice"]) if "dice" in given else f"unset, so {count}"
        out.append(
            Problem(
                name,
                f"devices[{i}].options.dice",
                f"the cup holds {dice} dice at this game{why}: dice must be {dice}, not {seen}",
            )
        )
    return out


def _surprises(name: str, devices: object, built: dict[int, object]) -> list[Problem]:
    """Options that are valid but will surprise at the table: warned of, never refused."""
    if not isinstance(devices, list):
        return []
    out = []
    for i, dev in enumerate(devices):
        if i not in built or not isinstance(dev, dict):
            continue
        why = HEARTBEATS_OPTIONAL.get(str(dev.get("driver")))
        timeout = getattr(built[i], "silence_timeout", None)
        if why is not None and timeout is not None:
            out.append(
                Problem(
                    name,
                    f"devices[{i}].options.silence_timeout",
                    f"{shown(dev.get('options', {}).get('silence_timeout'))} seconds: {why}; "
                    "set it only if this device sends HBT while idle",
                )
            )
    return out


def _error_key(err: Any) -> str:
    """The key an error of the full pass is at: a game id's is `game.id`, not `game`."""
    key = _key(tuple(err["loc"]))
    if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return f"{key}.id"
    return key


def _schedule(
    col: Collection, path: Path, problems: list[Problem]
) -> tuple[CollectionSchedule | None, Approval | None]:
    """The collection's schedule (None when it cannot be had: `problems` says why) and the
    `[approval]` of the schedules file it comes from (None for an inline schedule, or a file
    without one)."""
    if col.schedule is not None:
        return col.schedule, None
    assert col.file is not None and col.option is not None
    file = resolve(path, col.file)
    try:
        schedules, approval = load_schedule_file(file)
    except FileNotFoundError:
        problems.append(Problem(str(path), "collection.file", f"no such file: {file}"))
        return None, None
    except ScheduleError as exc:
        problems += [Problem(str(path), "collection.file", line) for line in str(exc).splitlines()]
        return None, None
    except (ValueError, RecursionError) as exc:  # e.g. a 4300-digit integer; deep nesting
        problems.append(Problem(str(path), "collection.file", f"{file}: {_toml_problem(exc)}"))
        return None, None
    if col.option not in schedules:
        problems.append(
            Problem(
                str(path),
                "collection.option",
                f"{file} has no schedule option {col.option}; "
                f"it has {min(schedules)}-{max(schedules)}",
            )
        )
        return None, approval
    return schedules[col.option], approval


def _data_file_problems(
    name: str,
    table: TableConfig,
    schedule_approval: Approval | None,
    schedule_read: bool,
    folder: Path,
) -> tuple[list[Problem], str | None]:
    """Each data file the config names is for the table's game and document (issue 26 item 1),
    and the table's document.

    The files: the collection schedules file (`collection.file`) and every pay table a
    `[game]` key names (in `folder`). Each must carry an `[approval]` (tablectl/rules/approval.py)
    naming the game; the table's document is its `game.document`, else the one document that
    approves the game; with neither, the files themselves must agree on one (the first file
    names the candidates, each later one must share one). A file or table that cannot be read is
    reported elsewhere (`_schedule`, `_paytable_problems`) and skipped here: `schedule_read`
    says whether the schedules file was read."""
    from tablectl.rules.paytables import PayTableError, load_paytable_file

    game = table.game
    stated: str | None = getattr(game, "document", None)
    only = game.DOCUMENTS[0] if len(game.DOCUMENTS) == 1 else None
    document = stated or only
    files: list[tuple[str, str, Approval | None]] = []
    col = table.collection
    if col is not None and col.file is not None and schedule_read:
        files.append(("collection.file", col.file, schedule_approval))
    for key, (file, _wager) in game.PAYTABLES.items():
        wanted = getattr(game, key)
        if wanted is None:
            continue
        try:
            entry = load_paytable_file(folder / file).get(wanted)
        except (PayTableError, ValueError, RecursionError):
            continue  # reported by _paytable_problems
        if entry is not None:
            files.append((f"game.{key}", wanted, entry[1]))
    out: list[Problem] = []
    agreed: tuple[str, tuple[str, ...]] | None = None  # the first file's key, its documents
    for key, value, approval in files:
        if approval is None:
            out.append(Problem(name, key, missing(value)))
            continue
        why = mismatch(value, approval, game.id, document)
        if why is not None:
            out.append(Problem(name, key, why))
            continue
        if document is not None:
            continue
        mine = tuple(d for d in approval.documents if d in game.DOCUMENTS or not game.DOCUMENTS)
        if not mine:  # a file whose documents do not approve the game at all
            out.append(
                Problem(
                    name,
                    key,
                    f"{value} is for {approval.label}, and {game.id} is approved by "
                    f"{documents_text(game.DOCUMENTS)} only",
                )
            )
            continue
        if agreed is None:
            agreed = (key, mine)
            continue
        shared = tuple(d for d in agreed[1] if d in mine)
        if not shared:
            out.append(
                Problem(
                    name,
                    key,
                    f"{value} is for {approval.label}, but {agreed[0]} is for "
                    f"{documents_text(agreed[1])}: name the table's document (game.document) "
                    "and use that document's files",
                )
            )
            continue
        agreed = (agreed[0], shared)
    if document is None and agreed is not None and len(agreed[1]) == 1:
        document = agreed[1][0]
    return out, document


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
