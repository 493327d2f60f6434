"""The ledger's TOML file (`tablectl ledger --config ledger.toml`): which sites it keeps, the
broker it reads them from and the database it writes to. Unknown keys are errors, as in a
table's config (docs/operations.md "The ledger")."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator

from tablectl.config.error_reasons import key_of, reason_of
from tablectl.config.sections import (
    CLOCK_TIME,
    SHORT_NAME,
    SITE_TABLE,
    PathText,
    Text,
    Tls,
    TopicId,
)
from tablectl.games.settings import StrictInt
from tablectl.games.table_rules import StrictSection

ShortName = Annotated[str, Field(pattern=SHORT_NAME)]
TableName = Annotated[str, Field(pattern=SITE_TABLE)]
"""A table as "site/table" (each as a table's config names it)."""
ClockTime = Annotated[str, Field(pattern=CLOCK_TIME)]


class LedgerBroker(StrictSection):
    """The broker the ledger reads: the central or a pit broker every table's messages reach."""

    host: Text = "127.0.0.1"
    port: StrictInt = Field(1883, ge=1, le=65535)
    username: Text | None = None
    password_file: PathText | None = None
    tls: Tls | None = None
    client_id: Text | None = None  # default: tablectl-ledger-<first site>
    keepalive: StrictInt = Field(30, ge=5, le=3600)
    # How long a connect (and each broker operation) may take: a broker handing back a session
    # that queued an outage's messages (a million at ten times a busy floor for 10 minutes)
    # answers the CONNECT late
    timeout_seconds: StrictInt = Field(120, ge=5, le=3600)
    # How long the broker keeps the ledger's session (its subscriptions and the messages queued
    # for it) while the ledger is away: past it, what was queued is lost to the broker and the
    # ledger fills the gap from the tables' journals.
    session_expiry_seconds: StrictInt = Field(7 * 24 * 3600, ge=60, le=0xFFFFFFFE)


class LedgerSection(StrictSection):
    """`[ledger]`: the sites kept, the database, how rows are batched."""

    sites: Annotated[list[TopicId], Field(min_length=1)]
    prefix: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]+$")] = "tablectl"
    database: Text  # a libpq connection string: "host=db1 dbname=tablectl user=ledger"
    password_file: PathText | None = None  # the database user's password, when it needs one
    batch_rows: StrictInt = Field(500, ge=1, le=100_000)
    batch_ms: StrictInt = Field(200, ge=1, le=60_000)
    # A gap this old is asked of its table (`cmd/history`): younger, a message may be on its way
    gap_grace_seconds: StrictInt = Field(10, ge=1, le=3600)
    history_timeout_seconds: StrictInt = Field(30, ge=1, le=3600)  # unanswered: ask again
    broker: LedgerBroker = LedgerBroker()
    # The card room's shifts by name, each from its start to the next one's (reports)
    shifts: dict[ShortName, ClockTime] = Field(
        default_factory=lambda: {"day": "06:00", "swing": "14:00", "grave": "22:00"}
    )
    timezone: Text = "America/Los_Angeles"  # the room's clock, which the shifts are in
    # The room's pits for the reports' totals: pit name -> its tables as "site/table"
    pits: dict[ShortName, list[TableName]] = Field(default_factory=dict)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not a time zone this machine knows") from None
        return value

    @field_validator("shifts")
    @classmethod
    def _some_shift(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("name at least one shift and its start")
        if len(set(value.values())) != len(value):
            raise ValueError("two shifts start at the same time")
        return value


class LedgerFile(StrictSection):
    ledger: LedgerSection


class LedgerConfigError(ValueError):
    """The ledger's config cannot be used: every problem, each naming its key."""


def load_ledger_config(path: Path) -> LedgerSection:
    """`path` read and checked; LedgerConfigError naming the file and each key that is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LedgerConfigError(f"{path}: cannot be read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LedgerConfigError(f"{path}: not TOML: {exc}") from None
    try:
        return LedgerFile.model_validate(data).ledger
    except ValidationError as exc:
        lines = [f"{path}: {key_of(err['loc'])}: {reason_of(err)}" for err in exc.errors()]
        raise LedgerConfigError("\n".join(lines)) from None
