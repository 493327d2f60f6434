"""What the journal's hash chain covers: a record's bytes and hash, a key start's and a file
start's signed bytes, the hash record 1 follows, and where an imported journal's records came
from (whose published heads name the old table's keys).

The public chain: each record's SHA-256 covers the previous record's hash and every field of the
record, so an altered, removed or reordered record breaks the chain at a place a check can name.
The keyed hashes (HMAC-SHA256 under the table's chain key, tablectl/chainkey.py) cover the same
bytes. docs/operations.md, "Checking the journal".
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablectl.chainkey import ChainKey

GENESIS = "0" * 64
"""The hash record 1 follows."""


def record_bytes(
    prev_hash: str, seq: int, ts: str, source: str, ref: str | None, body: str
) -> bytes:
    """What a record's hashes cover: the previous hash and every field of the record."""
    # A missing ref hashes as "\x00", which no JSON string field can be, so NULL != "".
    parts = (prev_hash, str(seq), ts, source, "\x00" if ref is None else ref, body)
    return b"".join(part.encode("utf-8") + b"\x1f" for part in parts)


def record_hash(prev_hash: str, seq: int, ts: str, source: str, ref: str | None, body: str) -> str:
    """SHA-256 over the previous hash and every field of the record: the public chain."""
    return hashlib.sha256(record_bytes(prev_hash, seq, ts, source, ref, body)).hexdigest()


@dataclass(frozen=True)
class KeyStart:
    """A row of `keys`: from record `first_seq` on, records are keyed with `key_id`. Keyed itself
    (`mac`), over the key before it and the hash of the record before it."""

    first_seq: int
    key_id: str
    prev_key: str | None
    prev_hash: str
    ts: str
    mac: str

    @staticmethod
    def data(first_seq: int, key_id: str, prev_key: str | None, prev_hash: str, ts: str) -> bytes:
        # The first part can never be a 64-hex-digit hash: no record's bytes look like these.
        parts = ("tablectl journal key", key_id, str(first_seq), prev_key or "\x00", prev_hash, ts)
        return b"".join(part.encode("utf-8") + b"\x1f" for part in parts)

    def made_with(self, key: ChainKey) -> bool:
        data = self.data(self.first_seq, self.key_id, self.prev_key, self.prev_hash, self.ts)
        return hmac.compare_digest(self.mac, key.mac(data))


def start_data(first_seq: int, prev_hash: str, key_id: str) -> bytes:
    """What a file's signed start covers: where it begins and the hash it continues from."""
    parts = ("tablectl journal start", str(first_seq), prev_hash, key_id)
    return b"".join(part.encode("utf-8") + b"\x1f" for part in parts)


@dataclass(frozen=True)
class Provenance:
    """Where an imported journal's records came from (meta `imported`): records `first`-`last`
    of an export whose first and last chain hashes were `first_hash` and `last_hash`, imported
    at `ts`; `keys` lists [first record, key id] for each run of records the old table made
    under one chain key (None: unkeyed). The old table's heads name those keys, not this
    journal's own (which signs the imported records anew)."""

    first: int
    first_hash: str
    last: int
    last_hash: str
    ts: str
    keys: list[list[Any]]

    def to_json(self) -> str:
        return json.dumps(
            {
                "first": self.first,
                "first_hash": self.first_hash,
                "last": self.last,
                "last_hash": self.last_hash,
                "ts": self.ts,
                "keys": self.keys,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Provenance:
        d = json.loads(text)
        return cls(d["first"], d["first_hash"], d["last"], d["last_hash"], d["ts"], d["keys"])

    def key_at(self, seq: int) -> str | None:
        """The old table's key for imported record `seq`."""
        i = bisect.bisect_right([k[0] for k in self.keys], seq)
        return str(self.keys[i - 1][1]) if i and self.keys[i - 1][1] is not None else None
