"""The table's own messages, as typed records like the engines' (tablectl/game_records.py): the
alerts it raises, the replies to commands, the echoes of inputs it handles itself (new rules,
round.resume, alert.ack), a device's status, the open alerts and the journal's chain head.
tablectl/render.py renders them, with the engines' records, to topics and payloads.

Each knows its `topic` (relative to the table's base), so a message that could not be rendered
can still be named (R40). A leaf module: no MQTT, SQLite or asyncio.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tablectl.alerts import OpenAlerts
from tablectl.game_records import GameRecord, JsonObject
from tablectl_base.frozen import quick_init


@quick_init
@dataclass(frozen=True)
class TableAlert:
    """`alert`: an input refused, a device's fault, a gap, a held round, an engine error (R40).
    Its payload is `kind`, `reason`, then those of the rest that are given, in this order:
    `rule`, `device`, `source`, `input` (the refused input, its cards withheld), `raw`,
    `records` (journal records it speaks of), `since`, `until`."""

    topic = "alert"

    reason: str
    kind: str = "rejected"
    rule: str | None = None
    device: str | None = None
    source: str | None = None
    input: Mapping[str, Any] | None = None
    raw: str | None = None
    records: tuple[int, ...] | None = None
    since: str | None = None
    until: str | None = None


@quick_init
@dataclass(frozen=True)
class PaceAlert:
    """`alert` of kind `pace`: the table went outside the rules' band of rounds an hour."""

    topic = "alert"
    kind = "pace"

    reason: str
    pace: str  # "slow" or "fast"
    rounds_last_hour: int
    band: JsonObject  # {"min": ..., "max": ...}


@quick_init
@dataclass(frozen=True)
class CommandReply:
    """`cmd/<verb>/reply`: whether the command with request id `id` was done, and if not why
    (and under which rule)."""

    verb: str
    id: str | None
    ok: bool
    reason: str | None = None
    rule: str | None = None

    @property
    def topic(self) -> str:
        return f"cmd/{self.verb}/reply"


@quick_init
@dataclass(frozen=True)
class RulesChanged:
    """`event` of type `config`: the rules in force from this record on (`Rules.to_json()`)."""

    topic = "event"

    rules: JsonObject
    ts: str


@quick_init
@dataclass(frozen=True)
class RoundResumed:
    """`event` of type `round.resume`: play goes on after a hold."""

    topic = "event"

    ts: str


@quick_init
@dataclass(frozen=True)
class AlertAcknowledged:
    """`event` of type `alert.ack`: a person closed open alert `alert` (its kind), saying who
    and why."""

    topic = "event"

    alert: int
    kind: str
    by: str
    why: str
    ts: str


@quick_init
@dataclass(frozen=True)
class DeviceStatusChanged:
    """`device/<name>/status` (retained): what a device reports now."""

    device: str
    available: bool
    fault: str | None
    detail: JsonObject
    ts: str

    @property
    def topic(self) -> str:
        return f"device/{self.device}/status"


@quick_init
@dataclass(frozen=True)
class OpenAlertsChanged:
    """`alerts/open` (retained): the alerts waiting for a person, after a change."""

    topic = "alerts/open"

    alerts: OpenAlerts


@quick_init
@dataclass(frozen=True)
class ChainHead:
    """`journal/head` (retained): the journal's chain head after a round's result, the floor's
    witness of the journal (docs/mqtt.md)."""

    topic = "journal/head"

    chain: JsonObject


TableMessage = (
    TableAlert
    | PaceAlert
    | CommandReply
    | RulesChanged
    | RoundResumed
    | AlertAcknowledged
    | DeviceStatusChanged
    | OpenAlertsChanged
    | ChainHead
)
"""A message of the table's own."""

TABLE_MESSAGES: tuple[type[TableMessage], ...] = (
    TableAlert,
    PaceAlert,
    CommandReply,
    RulesChanged,
    RoundResumed,
    AlertAcknowledged,
    DeviceStatusChanged,
    OpenAlertsChanged,
    ChainHead,
)
"""Their classes (`isinstance` takes the tuple)."""

ALERTS = (TableAlert, PaceAlert)
"""The table's alerts: what may open an alert waiting for a person (tablectl/alerts.py)."""

Message = GameRecord | TableMessage
"""What the table numbers and publishes: a game's record, or a message of the table's own."""
