"""The journal: every input, hash-chained and durable before the engine sees it; and the outbox.

SQLite in WAL mode with `synchronous=FULL`. Each record's SHA-256 covers the previous record's
hash, so an altered, removed or reordered record breaks the chain at a place `verify` can name.
Outputs go to the outbox together with the journal position they derive from, so after a crash
the daemon knows exactly which records still need their outputs written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablectl.relay import OutboxRow

GENESIS = "0" * 64
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    source TEXT NOT NULL,
    ref TEXT,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    journal_seq INTEGER NOT NULL,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    qos INTEGER NOT NULL,
    retain INTEGER NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (sent, seq);
CREATE TABLE IF NOT EXISTS applied (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    journal_seq INTEGER NOT NULL,
    hash TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Record:
    """One journaled input: `body` is the canonical event object, `ref` a command's request id."""

    seq: int
    ts: str
    source: str
    ref: str | None
    body: dict[str, Any]
    prev_hash: str
    hash: str

    def jsonl(self) -> str:
        """The record as a contract-2 event line with `ts` (and where it came from)."""
        out: dict[str, Any] = dict(self.body)
        out["ts"] = self.ts
        out["source"] = self.source
        if self.ref is not None:
            out["ref"] = self.ref
        return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def record_hash(prev_hash: str, seq: int, ts: str, source: str, ref: str | None, body: str) -> str:
    """SHA-256 over the previous hash and every field of the record."""
    h = hashlib.sha256()
    # A missing ref hashes as "\x00", which no JSON string field can be, so NULL != "".
    for part in (prev_hash, str(seq), ts, source, "\x00" if ref is None else ref, body):
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


class JournalError(Exception):
    """The journal file cannot be used (wrong table, newer schema, not a journal)."""


class Journal:
    """The SQLite file holding the journal and the outbox. One writer: the daemon."""

    def __init__(self, path: Path, *, table: str | None, readonly: bool = False) -> None:
        self.path = path
        try:
            if readonly:  # verify and recall must not change the file they look at
                self.db = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
                self.db.execute("SELECT value FROM meta LIMIT 1").fetchall()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(AttributeError):
                self.db.close()
            raise JournalError(f"{path} is not a tablectl journal: {exc}") from None
        self._check_meta(table)
        last = self.db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq: int = last[0] if last else 0
        self._last_hash: str = last[1] if last else GENESIS

    def _check_meta(self, table: str | None) -> None:
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            if table is None:
                raise JournalError(f"{self.path} is empty: not a tablectl journal")
            with self._tx():
                self.db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("schema", SCHEMA_VERSION), ("table", table)],
                )
            return
        if meta.get("schema") != SCHEMA_VERSION:
            raise JournalError(f"{self.path} has journal schema {meta.get('schema')}")
        if table is not None and meta.get("table") != table:
            raise JournalError(
                f"{self.path} is the journal of table {meta.get('table')!r}, not {table!r}"
            )

    @property
    def table(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone()
        return str(row[0])

    def close(self) -> None:
        self.db.close()

    # -- the journal -------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._last_seq

    def append(self, ts: str, source: str, ref: str | None, body: dict[str, Any]) -> Record:
        """Append one input and commit it durably; only then may the engine see it."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        seq = self._last_seq + 1
        digest = record_hash(self._last_hash, seq, ts, source, ref, text)
        with self._tx():
            self.db.execute(
                "INSERT INTO journal (seq, ts, source, ref, body, prev_hash, hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, source, ref, text, self._last_hash, digest),
            )
        rec = Record(seq, ts, source, ref, body, self._last_hash, digest)
        self._last_seq, self._last_hash = seq, digest
        return rec

    def records(self, after: int = 0) -> Iterator[Record]:
        """Records with seq > `after`, in order."""
        cur = self.db.execute(
            "SELECT seq, ts, source, ref, body, prev_hash, hash FROM journal "
            "WHERE seq > ? ORDER BY seq",
            (after,),
        )
        for seq, ts, source, ref, body, prev, digest in cur:
            yield Record(seq, ts, source, ref, json.loads(body), prev, digest)

    # -- the outbox --------------------------------------------------------------------------

    def applied(self) -> int:
        """The last journal record whose outputs are in the outbox."""
        row = self.db.execute("SELECT journal_seq FROM applied WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def write_outputs(self, rec: Record, rows: Sequence[OutboxRow]) -> None:
        """Store a record's outputs and mark it applied, in one transaction.

        Only the journal needs fsync: outputs are a pure function of it. If a power cut loses
        this commit, the restart replays the record and stores the very same rows under the very
        same seqs, so nothing is lost and nothing gets a new seq."""
        with self._tx(durable=False):
            cur = self.db.executemany(
                "INSERT OR IGNORE INTO outbox (seq, journal_seq, topic, payload, qos, retain) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(r.seq, rec.seq, r.topic, r.payload, r.qos, int(r.retain)) for r in rows],
            )
            if cur.rowcount != len(rows):
                self._same_as_stored(rows)
            self.db.execute(
                "INSERT INTO applied (id, journal_seq, hash) VALUES (1, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET journal_seq = excluded.journal_seq, "
                "hash = excluded.hash",
                (rec.seq, rec.hash),
            )

    def _same_as_stored(self, rows: Sequence[OutboxRow]) -> None:
        """A seq already in the outbox must hold the very same message: anything else means the
        engine no longer reproduces the journal, and publishing on would lose or garble rounds."""
        for r in rows:
            got = self.db.execute(
                "SELECT topic, payload FROM outbox WHERE seq = ?", (r.seq,)
            ).fetchone()
            if got is not None and (got[0], bytes(got[1])) != (r.topic, r.payload):
                raise JournalError(
                    f"outbox message {r.seq} differs from what the journal now produces "
                    f"({got[0]} vs {r.topic}): the journal cannot be replayed consistently"
                )

    def pending(self, limit: int) -> list[OutboxRow]:
        cur = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE sent = 0 "
            "ORDER BY seq LIMIT ?",
            (limit,),
        )
        return [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]

    def mark_sent(self, seqs: Sequence[int]) -> None:
        """Record acknowledged messages. Not fsync'd: a mark lost in a crash only means the
        message is published again under the same seq, which consumers de-duplicate."""
        with self._tx(durable=False):
            self.db.executemany("UPDATE outbox SET sent = 1 WHERE seq = ?", [(s,) for s in seqs])

    def outbox(self, *, topic_suffix: str | None = None) -> list[OutboxRow]:
        """Every stored output (sent or not), optionally only one topic's, in seq order."""
        cur = self.db.execute("SELECT seq, topic, payload, qos, retain FROM outbox ORDER BY seq")
        rows = [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]
        if topic_suffix is None:
            return rows
        return [r for r in rows if r.topic.endswith("/" + topic_suffix)]

    def unsent_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0])

    # -- verification --------------------------------------------------------------------------

    def verify(self) -> list[str]:
        """Every break in the chain, naming the record; empty when the journal is intact."""
        problems: list[str] = []
        prev_hash, expect = GENESIS, 1
        rows = self.db.execute(
            "SELECT seq, ts, source, ref, body, prev_hash, hash FROM journal ORDER BY rowid"
        )
        last_seq, last_hash = 0, GENESIS
        for seq, ts, source, ref, body, prev, digest in rows:
            if seq != expect:
                if seq > expect:
                    problems.append(
                        f"record {seq}: records {expect}-{seq - 1} are missing (removed)"
                    )
                else:
                    problems.append(f"record {seq}: out of order after record {expect - 1}")
            if prev != prev_hash:
                problems.append(
                    f"record {seq}: does not follow the record before it "
                    "(removed, inserted or reordered records)"
                )
            if record_hash(prev, seq, ts, source, ref, body) != digest:
                problems.append(f"record {seq}: contents altered (hash mismatch)")
            prev_hash, expect = digest, seq + 1
            last_seq, last_hash = seq, digest
        applied = self.db.execute("SELECT journal_seq, hash FROM applied WHERE id = 1").fetchone()
        if applied:
            a_seq, a_hash = applied
            if a_seq > last_seq:
                problems.append(
                    f"records after {last_seq} were removed: outputs exist up to record {a_seq}"
                )
            elif a_seq == last_seq and a_hash != last_hash:
                problems.append(f"record {a_seq}: differs from the record its outputs came from")
        top = self.db.execute("SELECT max(journal_seq) FROM outbox").fetchone()[0]
        if top is not None and top > last_seq and not (applied and applied[0] > last_seq):
            problems.append(f"records after {last_seq} were removed: outputs refer to record {top}")
        return problems

    def _tx(self, *, durable: bool = True) -> _Transaction:
        return _Transaction(self.db, durable)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (which is re-raised).

    A durable commit runs with synchronous=FULL (fsync before COMMIT returns); others with
    NORMAL, which in WAL mode keeps the database consistent but may lose the last commits on a
    power cut. The connection is left at FULL."""

    def __init__(self, db: sqlite3.Connection, durable: bool) -> None:
        self.db = db
        self.durable = durable

    def __enter__(self) -> None:
        if not self.durable:
            self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        finally:
            if not self.durable:
                self.db.execute("PRAGMA synchronous=FULL")
