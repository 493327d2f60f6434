"""The journal's store: every input, hash-chained and durable before the engine sees it.

SQLite in WAL mode with `synchronous=FULL`, one writer at a time (the daemon, or an import). Its
file holds the records (tablectl/journal/chain.py says what their hashes cover), the keys in
force from which record on, the meta rows (the table, the schema, where the file starts after
its closed segments, tablectl/journal/segments.py), the snapshots, and the outbox
(tablectl/journal/outbox.py). `check` (tablectl/journal/verification.py) says what a file's
chain proves.

The chain head (seq, public hash, key id) is published with every round result
(tablectl/table/), which the floor keeps: anyone can check a journal against those heads
without any key (tablectl/journal/heads.py).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablectl.chainkey import ChainKey
from tablectl.journal import verification
from tablectl.journal.chain import GENESIS, KeyStart, Provenance, record_bytes, start_data
from tablectl.journal.errors import BadRecord, JournalError, JournalUnavailable
from tablectl.journal.file import (
    UNAVAILABLE_CODES,
    Transaction,
    one_writer,
    prepare_file,
    unreadable,
)
from tablectl.journal.outbox import Outbox
from tablectl.journal.rows import BODIES_KEPT, field_problem, misplaced, read_body, record_from_row
from tablectl.journal.schema import (
    RECORDS_TABLE,
    SCHEMA_VERSION,
    SCHEMAS,
    TABLES,
    columns,
    hash_bytes,
    hash_hex,
    schema_refused,
    upgrade,
)
from tablectl.records import SNAPSHOTS_KEPT, Record, Snapshot, Verification, month_of, now_ts

if TYPE_CHECKING:
    from tablectl.exports import ExportLine
    from tablectl.journal.heads import Head


class Journal(Outbox):
    """The SQLite file holding the journal and the outbox. One writer: the daemon.

    The daemon opens it with the table's chain `key` (or None: an unkeyed journal). A key other
    than the one in force starts at the next record (that is rotation, and how an unkeyed journal
    becomes keyed; `key_change` says so); a keyed journal refuses to be written without a key."""

    def __init__(
        self,
        path: Path,
        *,
        table: str | None,
        readonly: bool = False,
        key: ChainKey | None = None,
    ) -> None:
        self.path = path
        self._writer: int | None = None  # the descriptor holding the one-writer lock
        try:
            if readonly:  # verify and recall must not change the file they look at
                self.db = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
                self.db.execute("SELECT value FROM meta LIMIT 1").fetchall()
            else:
                prepare_file(path)
                self._writer = one_writer(path)
                self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(TABLES)
                if not columns(self.db):
                    self.db.executescript(RECORDS_TABLE)
                snap_columns = {row[1] for row in self.db.execute("PRAGMA table_info(snapshots)")}
                for column in ("key", "mac"):  # a schema-3 file from before signed snapshots
                    if column not in snap_columns:
                        self.db.execute(f"ALTER TABLE snapshots ADD COLUMN {column} TEXT")
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(AttributeError):
                self.db.close()
            self._release()
            code = getattr(exc, "sqlite_errorname", "")
            if code.startswith(UNAVAILABLE_CODES):
                hint = (
                    "is its disk full? docs/operations.md 'Disk full'"
                    if code.startswith(("SQLITE_IOERR", "SQLITE_FULL"))
                    else unreadable(path)
                    or "does another process hold it, or is its folder out of reach?"
                )
                raise JournalUnavailable(f"{path} cannot be opened: {exc} ({hint})") from None
            raise JournalError(f"{path} is not a tablectl journal: {exc}") from None
        try:
            self._open_rest(table, readonly, key)
        except BaseException as exc:  # the file is not taken: its connection and its lock go
            self.db.close()
            self._release()
            if isinstance(exc, JournalError) or not isinstance(exc, Exception):
                raise
            code = getattr(exc, "sqlite_errorname", "")
            if code.startswith(UNAVAILABLE_CODES):  # a lock, an I/O error: a later start may do
                raise JournalUnavailable(f"{path} cannot be read now: {exc}") from None
            # An edited meta row (first_seq "x"), a damaged page: what the file holds cannot be
            # read as a journal (a daemon holds on it: docs/operations.md).
            raise JournalError(
                f"{path} cannot be read as a journal: {type(exc).__name__}: {exc}"
            ) from exc

    def _open_rest(self, table: str | None, readonly: bool, key: ChainKey | None) -> None:
        """`__init__` once the file is open: its meta checked (or upgraded), where it starts
        and ends, its key starts, and (writable) the key the records to come are made with."""
        # First record whose head is published; None: none (a journal from before heads).
        self._witness_from: int | None = None
        self._check_meta(table, readonly)
        self.mac_column = "mac" if "mac" in columns(self.db) else "NULL"
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        # A segment (or a live journal after one) starts after record `first_seq - 1`, whose
        # hash is `prev_hash`; a journal from the beginning starts at 1 after the genesis hash.
        self.first_seq = int(meta.get("first_seq", "1"))
        self.start_hash: str = meta.get("prev_hash", GENESIS)
        self._month: str | None = meta.get("month")  # the month the file's records began in
        last = self.db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq: int = last[0] if last else self.first_seq - 1
        self._last_hash: str = hash_hex(last[1]) if last else self.start_hash  # type: ignore[assignment]
        self.key_starts: list[KeyStart] = self._key_starts()
        self._key: ChainKey | None = None
        # (previous key id, new key id, first record) when opening started a key; None if not.
        self.key_change: tuple[str | None, str, int] | None = None
        if not readonly:
            self._use_key(key)
            self._read_stored_top()

    def _check_meta(self, table: str | None, readonly: bool) -> None:
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        if not meta:
            if table is None:
                raise JournalError(f"{self.path} is empty: not a tablectl journal")
            with self._tx():
                self.db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("schema", SCHEMA_VERSION), ("table", table), ("witness_from", "1")],
                )
            self._witness_from = 1
            return
        if meta.get("schema") not in SCHEMAS:
            raise JournalError(schema_refused(self.path, meta.get("schema")))
        if table is not None and meta.get("table") != table:
            raise JournalError(
                f"{self.path} is the journal of table {meta.get('table')!r}, not {table!r}"
            )
        if meta.get("schema") != SCHEMA_VERSION and not readonly:
            upgrade(self.db, self.path, meta)
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        witness_from = meta.get("witness_from")
        self._witness_from = int(witness_from) if witness_from is not None else None

    def _key_starts(self) -> list[KeyStart]:
        if not self._has_table("keys"):  # a schema-1 journal opened read-only
            return []
        rows = self.db.execute(
            "SELECT first_seq, key_id, prev_key, prev_hash, ts, mac FROM keys ORDER BY first_seq"
        )
        return [KeyStart(*row) for row in rows]

    def key_at(self, seq: int) -> KeyStart | None:
        """The key in force for record `seq` (None: unkeyed there)."""
        i = bisect.bisect_right([k.first_seq for k in self.key_starts], seq)
        return self.key_starts[i - 1] if i else None

    def _use_key(self, key: ChainKey | None) -> None:
        """Take `key` for the records to come: a key start at the next record when it is not the
        key in force (a start no record has used yet is replaced)."""
        nxt = self._last_seq + 1
        current = self.key_at(nxt)
        if key is None:
            if current is not None:
                raise JournalError(
                    f"{self.path} is keyed (key {current.key_id} since record "
                    f"{current.first_seq}): set [journal] key_file to that key's file; "
                    "a keyed journal is not written without its key (docs/operations.md)"
                )
            return
        self._key = key
        if current is not None and current.key_id == key.id:
            return
        with self._tx():
            self.db.execute("DELETE FROM keys WHERE first_seq >= ?", (nxt,))
            before = self.key_at(self._last_seq)
            prev_key = before.key_id if before is not None else None
            if prev_key != key.id:
                ts = now_ts()
                data = KeyStart.data(nxt, key.id, prev_key, self._last_hash, ts)
                self.db.execute(
                    "INSERT INTO keys (first_seq, key_id, prev_key, prev_hash, ts, mac) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (nxt, key.id, prev_key, self._last_hash, ts, key.mac(data)),
                )
        self.key_starts = self._key_starts()
        if prev_key != key.id:
            self.key_change = (prev_key, key.id, nxt)

    @property
    def table(self) -> str:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'table'").fetchone()
        return str(row[0])

    def close(self) -> None:
        self.db.close()
        self._release()

    def _release(self) -> None:
        """Let another writer have the file (`one_writer`, tablectl/journal/file.py)."""
        fd = self._writer
        if fd is not None:
            os.close(fd)  # closing the descriptor drops its lock
            self._writer = None

    def reset_after_failure(self) -> None:
        """The connection as it was before a write that failed (a full disk): no transaction
        left open, no segment left attached, synchronous=FULL."""
        db = self.db
        with contextlib.suppress(sqlite3.Error):
            if db.in_transaction:
                db.execute("ROLLBACK")
        with contextlib.suppress(sqlite3.Error):
            for _, name, _ in db.execute("PRAGMA database_list").fetchall():
                if name not in ("main", "temp"):
                    db.execute(f'DETACH DATABASE "{name}"')
        with contextlib.suppress(sqlite3.Error):
            db.execute("PRAGMA synchronous=FULL")

    # -- segments (tablectl/journal/segments.py) -----------------------------------------------

    @property
    def month(self) -> str | None:
        """The month (YYYY-MM, UTC) this file's records began in: its segment's name once
        closed; None while it holds no record and names none."""
        if self._month is None:
            ts = self.ts_at(self.first_seq)
            self._month = None if ts is None else month_of(ts)
        return self._month

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def drop_closed(self, last: int, month: str) -> None:
        """After records up to `last` went into a closed segment: they leave this file, which
        carries on from record `last + 1` (after that record's hash) as `month`'s records. The
        snapshot after `last` stays: it is where this file's replay starts."""
        chain = self.hash_at(last)
        if chain is None or last != self._last_seq:
            raise JournalError(f"record {last} is not this journal's last record")
        start = [("first_seq", str(last + 1)), ("prev_hash", chain), ("month", month)]
        origin = self.origin()
        if origin is not None and self.meta("origin") is None:  # record 1 leaves this file
            start.append(("origin", json.dumps(origin, separators=(",", ":"))))
        if self._key is not None:  # signed: records cannot be cut off the front without the key
            data = start_data(last + 1, chain, self._key.id)
            start += [("start_key", self._key.id), ("start_mac", self._key.mac(data))]
        with self._tx():
            self.db.execute("DELETE FROM journal WHERE seq <= ?", (last,))
            self.db.execute("DELETE FROM snapshots WHERE journal_seq < ?", (last,))
            self.db.execute("DELETE FROM meta WHERE key IN ('start_key', 'start_mac')")
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", start)
        self.first_seq, self.start_hash, self._month = last + 1, chain, month

    # -- anchors: where the journal and this file begin -----------------------------------------

    def origin(self) -> dict[str, Any] | None:
        """The head of record 1, where the whole journal begins (`{"seq", "hash", "key"}`):
        read from this file while it holds record 1, else kept in meta `origin` when record 1
        went into a closed segment. None: no record yet, or a file from before anchors whose
        first records are elsewhere."""
        if self.first_seq == 1:
            return self.head_at(1)
        kept = self.meta("origin")
        return None if kept is None else dict(json.loads(kept))

    def keep_origin(self, head: dict[str, Any]) -> None:
        """Remember record 1's head in meta `origin` (a live file whose first months were closed
        into segments before anchors existed: the daemon finds it in the oldest segment)."""
        with self._tx(durable=False):
            self.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('origin', ?)",
                (json.dumps(head, separators=(",", ":")),),
            )

    def file_start(self) -> dict[str, Any] | None:
        """The head of this file's first record (`{"seq", "hash", "key"}`), None while it holds
        none: after a month closes, the first record of the new month's file."""
        return self.head_at(self.first_seq)

    def head_at(self, seq: int) -> dict[str, Any] | None:
        """Record `seq`'s chain head as the table publishes heads; None if not in this file."""
        digest = None if seq < self.first_seq else self.hash_at(seq)
        if digest is None:
            return None
        # An imported record's head names the key of the table it came from, as that table
        # published it (and as `verification._check_heads` expects of every head).
        return {"seq": seq, "hash": digest, "key": self.published_key(seq, self.provenance)}

    # -- the journal -------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def key_id(self) -> str | None:
        """The id of the key new records are made with (None: unkeyed)."""
        return self._key.id if self._key is not None else None

    def append(
        self, ts: str, source: str, ref: str | None, body: dict[str, Any], event: Any = None
    ) -> Record:
        """Append one input and commit it durably; only then may the engine see it. `event`:
        the body already parsed, when the caller has it (`Record.event`)."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        seq = self._last_seq + 1
        data = record_bytes(self._last_hash, seq, ts, source, ref, text)
        raw = hashlib.sha256(data).digest()
        digest = raw.hex()
        mac = self._key.mac(data) if self._key is not None else None
        # One statement, its own transaction (the connection is in autocommit: committed, with
        # the fsync synchronous=FULL asks, before it returns; rolled back whole if it fails).
        # Never inside a transaction left open: the record would not be durable when it returns.
        if self.db.in_transaction:
            raise JournalError(f"{self.path}: a transaction is open where a record is appended")
        self.db.execute(
            "INSERT INTO journal (seq, ts, source, ref, body, hash, mac) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (seq, ts, source, ref, text, raw, hash_bytes(mac)),
        )
        rec = Record(
            seq,
            ts,
            source,
            ref,
            body,
            self._last_hash,
            digest,
            self.key_id,
            self._publishes_head(seq),
            event=event,
        )
        self._last_seq, self._last_hash = seq, digest
        return rec

    def import_records(self, lines: Iterable[ExportLine], *, batch: int = 5000) -> int:
        """Fill an empty journal from an export's proved records (tablectl/exports.py) in
        batched transactions: a table restored onto a replacement PC.

        The public chain is recomputed here too and must give each record the hash the export
        proved. The records are marked applied with an empty outbox: their messages were
        published by the table they come from, and the next message carries on their count.
        Heads are published from the first record the old table published one for. Meta
        `imported` says where the records came from (`Provenance`): the export's first and last
        record and hash, and the key the old table had in force for each record, so its
        published heads still verify against this journal. Returns the records imported.

        Meta `importing` marks the file from before the first batch until the last transaction:
        an import that stops part way leaves a journal the daemon refuses to run on."""
        if self._last_seq:
            raise JournalError(
                f"{self.path} already holds {self._last_seq} records: import into a new journal"
            )
        with self._tx():
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('importing', '1')")
        prev, seq, first_head = self._last_hash, 0, None
        first_hash: str | None = None
        keys: list[list[Any]] = []  # [first record, key id] of each run of the old table's keys
        rows: list[tuple[Any, ...]] = []

        def flush() -> None:
            with self._tx():
                self.db.executemany(
                    "INSERT INTO journal (seq, ts, source, ref, body, hash, mac) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
            rows.clear()

        for line in lines:
            seq += 1
            text = json.dumps(line.body, separators=(",", ":"), ensure_ascii=False)
            data = record_bytes(prev, seq, line.ts, line.source, line.ref, text)
            digest = hashlib.sha256(data).hexdigest()
            if line.seq != seq or line.hash != digest:  # exports.verified_lines proved it
                raise JournalError(f"export line {line.line}: not the record {seq} it was proved")
            if line.published and first_head is None:
                first_head = seq
            if not keys or keys[-1][1] != line.key:
                keys.append([seq, line.key])
            first_hash = digest if first_hash is None else first_hash
            mac = self._key.mac(data) if self._key is not None else None
            hashed = bytes.fromhex(digest)
            rows.append((seq, line.ts, line.source, line.ref, text, hashed, hash_bytes(mac)))
            prev = digest
            if len(rows) >= batch:
                flush()
        if rows:
            flush()
        witness_from = first_head if first_head is not None else seq + 1
        done = [("witness_from", str(witness_from))]
        if seq:
            origin = Provenance(1, first_hash or GENESIS, seq, prev, now_ts(), keys)
            done.append(("imported", origin.to_json()))
        with self._tx():
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", done)
            self.db.execute("DELETE FROM meta WHERE key = 'importing'")
            if seq:
                self.db.execute(
                    "INSERT INTO applied (id, journal_seq, hash) VALUES (1, ?, ?) "
                    "ON CONFLICT (id) DO UPDATE SET journal_seq = excluded.journal_seq, "
                    "hash = excluded.hash",
                    (seq, prev),
                )
        self._last_seq, self._last_hash, self._witness_from = seq, prev, witness_from
        return seq

    @property
    def provenance(self) -> Provenance | None:
        """Where this journal's first records came from when it was built by `import`."""
        text = self.meta("imported")
        return None if text is None else Provenance.from_json(text)

    @property
    def witness_from(self) -> int | None:
        """The first record whose chain head the table publishes (None: none, a journal from
        before heads)."""
        return self._witness_from

    def _publishes_head(self, seq: int) -> bool:
        return self._witness_from is not None and seq >= self._witness_from

    def records(self, after: int = 0) -> Iterator[Record]:
        """Records with seq > `after`, in order (each with the hash it follows).

        BadRecord names the first record that cannot be read (a field that is not text, a body
        that is not a JSON object) or is missing (a gap in the seqs): what comes before it has
        been yielded, nothing after it is."""
        after = max(after, self.first_seq - 1)
        if after >= self._last_seq:
            return
        prev = self.hash_at(after)
        if prev is None:
            raise JournalError(f"{self.path} has no record {after} to read on from")
        cur = self.db.execute(
            "SELECT seq, ts, source, ref, body, hash FROM journal WHERE seq > ? ORDER BY seq",
            (after,),
        )
        starts = [k.first_seq for k in self.key_starts]
        witness_from = self._witness_from
        flat: dict[str, dict[str, Any]] = {}  # bodies met before, without a nested value
        expect = after + 1
        for seq, ts, source, ref, text, stored in cur:
            if seq != expect:
                raise BadRecord(self.path, expect, misplaced(expect, seq))
            expect += 1
            if (
                type(ts) is not str
                or type(source) is not str
                or type(text) is not str
                or (ref is not None and type(ref) is not str)
            ):
                problem = field_problem(ts, source, ref, text)
                raise BadRecord(self.path, seq, problem or "unreadable")
            i = bisect.bisect_right(starts, seq) if starts else 0
            key = self.key_starts[i - 1].key_id if i else None
            digest = stored.hex() if type(stored) is bytes else hash_hex(stored)
            assert digest is not None
            witness = witness_from is not None and seq >= witness_from  # `_publishes_head`
            # The same wager or bank comes again and again: a flat body is parsed once, then
            # copied (each record has a body of its own).
            known = flat.get(text)
            if known is not None:
                body = dict(known)
            else:
                try:
                    body = read_body(text)
                except ValueError as exc:
                    raise BadRecord(self.path, seq, str(exc)) from None
                if text.count("{") == 1 and "[" not in text:
                    if len(flat) >= BODIES_KEPT:
                        flat.clear()
                    flat[text] = dict(body)
            yield record_from_row(seq, ts, source, ref, body, prev, digest, key, witness, text)
            prev = digest

    def hash_at(self, seq: int) -> str | None:
        """The chain hash of record `seq` (the segment's start hash just before its first
        record); None if this file does not hold it."""
        if seq == self.first_seq - 1:
            return self.start_hash
        row = self.db.execute("SELECT hash FROM journal WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else hash_hex(row[0])

    def ts_at(self, seq: int) -> str | None:
        row = self.db.execute("SELECT ts FROM journal WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else str(row[0])

    # -- snapshots ------------------------------------------------------------------------------

    def store_snapshot(self, snap: Snapshot, *, keep: int = SNAPSHOTS_KEPT) -> None:
        """Store a checkpoint and drop all but the newest `keep` (the one a segment opens with
        is kept too). Not fsync'd: a snapshot lost in a power cut only means a longer replay."""
        if self._key is not None:  # signed with the table's chain key
            snap = replace(snap, key=self._key.id, mac=None)
            snap = replace(snap, mac=self._key.mac(snap.signed_data()))
        with self._tx(durable=False):
            self.db.execute(
                "INSERT OR REPLACE INTO snapshots (journal_seq, hash, format, made_by, digest, "
                "body, key, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    snap.journal_seq,
                    snap.hash,
                    snap.format,
                    snap.made_by,
                    snap.digest,
                    snap.body,
                    snap.key,
                    snap.mac,
                ),
            )
            self.db.execute(
                "DELETE FROM snapshots WHERE journal_seq NOT IN (SELECT journal_seq FROM "
                "snapshots ORDER BY journal_seq DESC LIMIT ?) AND journal_seq != ?",
                (keep, self.first_seq - 1),
            )

    def snapshots(self) -> list[Snapshot]:
        """Every stored checkpoint, newest first."""
        if not self._has_table("snapshots"):
            return []
        signed = {row[1] for row in self.db.execute("PRAGMA table_info(snapshots)")} >= {"mac"}
        extra = "key, mac" if signed else "NULL, NULL"
        cur = self.db.execute(
            f"SELECT journal_seq, hash, format, made_by, digest, body, {extra} FROM snapshots "
            "ORDER BY journal_seq DESC"
        )
        return [Snapshot(s, h, f, m, d, bytes(b), k, x) for s, h, f, m, d, b, k, x in cur]

    @property
    def signing_key(self) -> ChainKey | None:
        """The chain key this (writable) journal signs with; None when unkeyed or read-only."""
        return self._key

    def _has_table(self, name: str) -> bool:
        found = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return found is not None

    def published_key(self, seq: int, origin: Provenance | None) -> str | None:
        """The key id a head for record `seq` was published under: an imported record's is the
        old table's (its export says which), any other the one in force here."""
        if origin is not None and origin.first <= seq <= origin.last:
            return origin.key_at(seq)
        start = self.key_at(seq)
        return start.key_id if start is not None else None

    # -- verification (tablectl/journal/verification.py) ---------------------------------------

    def verify(self, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = ()) -> list[str]:
        """Every break in the chain, naming the record; empty when the journal is intact."""
        return verification.check(self, keys, heads).problems

    def check(
        self, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = (), *, last: bool = True
    ) -> Verification:
        """What this file's chain proves (`verification.check`): with `keys`, its keyed hashes
        too; with `heads`, every published head against it. `last`: this file ends the
        history."""
        return verification.check(self, keys, heads, last=last)

    def end_problems(self, last_seq: int, last_hash: str) -> list[tuple[int, str]]:
        """Where the outbox says the journal went on past its last record
        (`verification.end_problems`)."""
        return verification.end_problems(self, last_seq, last_hash)

    def _tx(self, *, durable: bool = True) -> Transaction:
        return Transaction(self.db, durable)
