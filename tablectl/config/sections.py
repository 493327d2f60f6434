"""The sections of the table's TOML file as pydantic models (`TableConfig` and its parts): what
each key may hold. Unknown keys are errors, so a typo never silently falls back to a default.
The parts that decide how a round is played (`Rules`, limits, seats) are the games'
(tablectl/games/table_rules.py)."""

from __future__ import annotations

import ipaddress
import re
from decimal import Decimal
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from tablectl.config.problems import shown
from tablectl.games.settings import StrictBool, StrictInt
from tablectl.games.table_rules import GameConfig, Limits, PaceBand, Seats, StrictSection
from tablectl.rules.fees import CollectionSchedule

M = TypeVar("M", bound=BaseModel)
_ID = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
TOPIC_ID = f"^{_ID}$"
TopicId = Annotated[str, Field(pattern=TOPIC_ID)]
SITE_TABLE = f"^{_ID}/{_ID}$"
"""A table named across sites, "site/table" (the ledger's pits)."""
SHORT_NAME = r"^[A-Za-z0-9_-]{1,32}$"
"""A name the ledger's reports print (a shift, a pit)."""
CLOCK_TIME = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
"""A time of day on the 24-hour clock (a shift's start)."""
Text = Annotated[str, Field(min_length=1)]
"""Text that must say something: `""` is refused."""
PATTERNS = {
    TOPIC_ID: "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit "
    "(it is part of the MQTT topics)",
    r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$": "letters, digits, '_' or '-', in parts joined by '/'",
    SITE_TABLE: "a table as its site and table id joined by '/' (\"cardroom-1/bac-01\")",
    SHORT_NAME: "1 to 32 letters, digits, '_' or '-'",
    CLOCK_TIME: 'a time of day as HH:MM on the 24-hour clock, 00:00 to 23:59 ("06:00", "22:00")',
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
system could not even be asked about it (tablectl check-config), rather than failing later
with the operating system's own words."""


class Collection(StrictSection):
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


class Device(StrictSection):
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


class Tls(StrictSection):
    ca: PathText
    cert: PathText | None = None
    key: PathText | None = None


class Mqtt(StrictSection):
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
    # Last Will (docs/mqtt.md `status`). 0: only after each connect.
    heartbeat_seconds: StrictInt = Field(5, ge=0, le=3600)
    # Home Assistant MQTT discovery (tablectl/discovery.py): retained entity configs for the
    # table's status, held round, journal trouble, round and last alert. Off unless asked.
    discovery: StrictBool = False
    discovery_prefix: str = Field("homeassistant", pattern=r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$")


class Journal(StrictSection):
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


class Broadcast(StrictSection):
    """The delayed broadcast feed (tablectl/broadcast.py): every input with its cards and every
    result, `delay_seconds` after the table journaled them, for the broadcast role only. 0: off."""

    delay_seconds: int = Field(0, strict=True, ge=0, le=86_400)


FIGURE_TEXT = r"^-?[0-9]{1,3}(\.[0-9]{1,12})?$"
"""An expectation or a correlation written in the config: text, as "0.005" or "-0.02"."""


def _figure(value: object) -> Decimal:
    """A figure given as text ("0.005"): exact, so a threshold means what it says (a TOML
    float such as 0.005 is binary and not exactly that)."""
    if not isinstance(value, str):
        raise ValueError(f'give it as text in quotes, as "0.005", not the value {value!r}')
    if re.fullmatch(FIGURE_TEXT, value) is None:
        raise ValueError(
            f"{shown(value)} is not a figure: digits with an optional sign and point, as "
            '"0.005" or "-0.02"'
        )
    return Decimal(value)


Figure = Annotated[Decimal, BeforeValidator(_figure)]
"""An exact decimal figure given as text (`[protection]`)."""


class Protection(StrictSection):
    """Game protection for surveillance (tablectl/surveillance/, docs/surveillance.md): the live
    figures of every wager after each card on `surveillance/odds`, and the alerts on
    `surveillance/alert`, for the surveillance role only. Off unless `enabled`; only at a game
    with live figures. The defaults and their reasons: docs/config.md "[protection]"."""

    enabled: StrictBool = False
    # A wager the player holds an edge on off the top (full-shoe expectation 0 or more): an
    # alert when its expectation rises this much above its full-shoe figure.
    margin: Figure = Decimal("0.005")
    # Per wager (the game's spot name): the expectation above which it is an alert, in place
    # of the default (0 for a wager that favours the player-dealer off the top).
    thresholds: dict[str, Figure] = Field(default_factory=dict)
    # The counter alert: per seat over a shoe, the rank correlation between its stake on a
    # wager and the wager's expectation, at least this, over at least `counter_min_rounds`.
    counter_threshold: Figure = Decimal("0.6")
    counter_min_rounds: StrictInt = Field(40, ge=5, le=1000)
    # The wagers the counter alert watches (spot names); unset: every wager with figures.
    counter_wagers: list[str] | None = None

    @field_validator("margin")
    @classmethod
    def _margin(cls, value: Decimal) -> Decimal:
        if value < 0:
            raise ValueError("a margin is 0 or more")
        return value

    @field_validator("counter_threshold")
    @classmethod
    def _correlation(cls, value: Decimal) -> Decimal:
        if not 0 < value <= 1:
            raise ValueError("a rank correlation threshold is above 0 and at most 1")
        return value


def protection_problems(table: TableConfig) -> list[tuple[str, str]]:
    """`[protection]`'s wagers that the table's game has no spot of (a typo would otherwise
    watch nothing, silently), as (key, reason)."""
    from tablectl.games.registry import spots_of

    spots = spots_of(table.game.id)
    named = [(f"protection.thresholds.{w}", w) for w in table.protection.thresholds]
    named += [("protection.counter_wagers", w) for w in table.protection.counter_wagers or ()]
    return [
        (key, f"{shown(wager)} is not a wager of {table.game.id} (its spots: {', '.join(spots)})")
        for key, wager in named
        if wager not in spots
    ]


class Metrics(StrictSection):
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


class TableConfig(StrictSection):
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
    # accepts it without the device the game otherwise needs (a `needed` one of its
    # `GameSpec.device_roles`), saying so.
    manual_entry: StrictBool = False
    mqtt: Mqtt = Mqtt()
    broadcast: Broadcast = Broadcast()
    protection: Protection = Protection()
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


def section_or_none(model: type[M], raw: object) -> M | None:
    """One section validated on its own, or None (its problems are reported by the full pass)."""
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None
