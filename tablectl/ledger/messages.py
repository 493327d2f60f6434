"""What the ledger reads from a table's MQTT message: which table and number it is, and whether
its payload is one the books keep.

Every message the books need carries the envelope `table`, `seq`, `ts`, `v` (docs/mqtt.md): the
ledger keys a row by (table, seq), so a redelivered message changes nothing. The topics kept are
those that make the books: round results (each wager's settlement and the collection), the
accepted inputs (wagers, cards, voids, bank changes: every round exactly as dealt), alerts
(refusals, holds, faults) and the devices' status. The retained views (`state`, the scoreboard,
the open alerts), the journal's head and the command replies are counted but not kept: the
rows above hold what they say."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

KEPT = ("round/result", "event", "alert")
"""Topics below a table's base whose messages the ledger keeps (and `device/<name>/status`)."""

PAYLOAD_VERSIONS = (1,)
"""The payload schema versions the ledger reads (docs/mqtt.md `v`): a reader refuses another."""


UNNUMBERED = ("status", "history")
"""Topics below a base that carry no message number of the table's: the bare availability word,
and the answers to `cmd/history` (the ledger reads those itself: tablectl/ledger/service.py)."""
NOT_THE_TABLES = ("broadcast/", "surveillance/")
"""Feeds below a base that copy or derive from the table's messages under numbers of their own."""


def _is_command(below: str) -> bool:
    """`cmd/<verb>`: a command to the table (its reply, `cmd/<verb>/reply`, is the table's)."""
    return below.startswith("cmd/") and below.count("/") == 1


class NotLedgerMessage(ValueError):
    """A message the ledger cannot read (no envelope, another version, not JSON); the reason
    says what was wrong."""


@dataclass(frozen=True, slots=True)
class Received:
    """One numbered message of one table, as received."""

    site: str
    table: str
    seq: int
    topic: str  # below the table's base: round/result, event, alert, device/shoe/status ...
    ts: str
    payload: dict[str, Any]
    text: str  # the payload as published (JSON), stored as it came

    @property
    def kept(self) -> bool:
        """Whether the books keep this message (the rest only count its number)."""
        return self.topic in KEPT or (
            self.topic.startswith("device/") and self.topic.endswith("/status")
        )

    @property
    def kind(self) -> str:
        """What the row holds, for the reports: the round result, an input's type (`wager`,
        `round.void` ...), an alert's kind (`held`, `rejected` ...), a device's status."""
        if self.topic == "round/result":
            return "round-result"
        if self.topic == "event":
            return f"event:{self.payload.get('type', '?')}"
        if self.topic == "alert":
            return f"alert:{self.payload.get('kind', '?')}"
        if self.topic.startswith("device/"):
            return "device-status"
        return self.topic


def read_message(prefix: str, topic: str, payload: bytes) -> Received | None:
    """The numbered message on `topic` (`<prefix>/<site>/<table>/<below>`), or None for one the
    table publishes without a number (`status`, `info`, and the few from memory: docs/mqtt.md),
    which the books do not count. Raises NotLedgerMessage naming what is wrong with the rest."""
    parts = topic.split("/", 3)
    if len(parts) < 4 or parts[0] != prefix:
        raise NotLedgerMessage(f"topic {topic!r} is not below {prefix}/<site>/<table>/")
    _, site, table, below = parts
    if below in UNNUMBERED or below.startswith(NOT_THE_TABLES) or _is_command(below):
        return None
    try:
        text = payload.decode("utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotLedgerMessage(f"{topic}: the payload is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise NotLedgerMessage(f"{topic}: the payload is not a JSON object")
    if data.get("table") != table:
        raise NotLedgerMessage(f"{topic}: the payload's table is {data.get('table')!r}")
    seq = data.get("seq")
    if seq is None:
        return None  # from memory (info, journal/status, journal-unwritable ...): not numbered
    if type(seq) is not int or seq < 1:
        raise NotLedgerMessage(f"{topic}: seq is {seq!r}, not a whole number from 1")
    if data.get("v") not in PAYLOAD_VERSIONS:
        raise NotLedgerMessage(
            f"{topic}: payload version {data.get('v')!r}, the ledger reads {PAYLOAD_VERSIONS}"
        )
    ts = data.get("ts")
    if not isinstance(ts, str):
        raise NotLedgerMessage(f"{topic}: ts is {ts!r}, not a time")
    return Received(site, table, seq, below, ts, data, text)
