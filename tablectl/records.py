"""What the journal holds, as plain values: a `Record` (one journaled input), a `Snapshot` (a
stored checkpoint), a `Verification` (what a check of the chain found), and the record time form.

No database, no broker, no other tablectl module at run time: the pure table core
(tablectl/table/, tablectl/snapshot.py) takes these without loading SQLite (tests/test_layers.py
holds it to that). The journal itself, which stores and checks them, is tablectl/journal/.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablectl.chainkey import ChainKey

SNAPSHOTS_KEPT = 3  # the newest checkpoints kept: a damaged one falls back to the one before
REPLAY_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""The time a replayed line without one is given, plus its sequence number (`replay_ts`)."""


def format_ts(moment: datetime) -> str:
    """The journal's timestamp form: ISO-8601 UTC with microseconds and a Z."""
    utc = moment.astimezone(UTC)
    if utc.year < 1000:  # isoformat writes such a year with leading zeros, strftime without
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return utc.isoformat(timespec="microseconds")[:-6] + "Z"  # quicker than strftime


def parse_ts(text: str) -> datetime:
    """A journal timestamp (or any ISO-8601 time; UTC when it names no zone) as a datetime;
    ValueError for anything else."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def now_ts() -> str:
    """Now, in the journal's timestamp form (`format_ts`)."""
    return format_ts(datetime.now(UTC))


def month_of(ts: str) -> str:
    """The month of a journal timestamp, as segments are named: "2026-11"."""
    return ts[:7]


def replay_ts(seq: int) -> str:
    """Timestamp of a replayed event that has none: a fixed epoch plus its sequence number."""
    return format_ts(REPLAY_EPOCH + timedelta(seconds=seq))


@dataclass(frozen=True)
class Record:
    """One journaled input: `body` is the canonical event object, `ref` a command's request id.

    `key` is the id of the chain key in force for it (None: unkeyed); `witness` says whether its
    chain head is published when it finishes a round (every record a daemon that publishes heads
    journaled; not those of a journal from before, nor a replayed line that carries no head)."""

    seq: int
    ts: str
    source: str
    ref: str | None
    body: dict[str, Any]
    prev_hash: str
    hash: str
    key: str | None = None
    witness: bool = False
    text: str | None = field(default=None, compare=False, repr=False)
    """`body` as the journal file holds it (JSON text), when read from one: a replay parses a
    body it has parsed before (the same wager, the same bank) only once (Table)."""
    event: Any = field(default=None, compare=False, repr=False)
    """`body` already parsed as an input event (what `parse_event(body)` gives), when whoever
    made the record parsed it anyway (`tablectl replay`): the table does not parse it again."""

    @property
    def chain(self) -> dict[str, Any]:
        """The chain head this record makes: what the table publishes with its round result."""
        return {"seq": self.seq, "hash": self.hash, "key": self.key}

    def jsonl(self) -> str:
        """The record as a contract-2 event line with `ts` (and where it came from), and its
        chain head when it has one (so that `replay` publishes the same head)."""
        out: dict[str, Any] = dict(self.body)
        out["ts"] = self.ts
        out["source"] = self.source
        if self.ref is not None:
            out["ref"] = self.ref
        if self.witness:
            out["chain"] = self.chain
        return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Snapshot:
    """A stored checkpoint (tablectl/snapshot.py): the table's state after record
    `journal_seq`, whose chain hash was `hash` when it was taken."""

    journal_seq: int
    hash: str
    format: int
    made_by: str
    digest: str
    body: bytes
    key: str | None = None
    """The chain key that signed it (`mac`); None in an unkeyed journal."""
    mac: str | None = None

    def signed_data(self) -> bytes:
        """What a snapshot's keyed hash covers: where it belongs and the digest of its contents
        (so a snapshot cannot be forged or moved without the chain key)."""
        parts = (
            "tablectl snapshot",
            str(self.journal_seq),
            self.hash,
            str(self.format),
            self.digest,
            self.key or "\x00",
        )
        return b"".join(part.encode("utf-8") + b"\x1f" for part in parts)

    def made_with(self, key: ChainKey) -> bool:
        return (
            self.mac is not None
            and self.key == key.id
            and hmac.compare_digest(self.mac, key.mac(self.signed_data()))
        )


@dataclass
class Verification:
    """What `Journal.check` found: `problems` (tampering, or what could not be proved when a key
    was given), and `notes` on what was and was not checked."""

    records: int
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class RoundRefused(ValueError):
    """A finished round a history format cannot write (PHH and a game it has no code for, say),
    named: `tablectl export` says so and exits 2, where any other error is a defect."""
