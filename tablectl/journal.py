"""The journal: every input, hash-chained and durable before the engine sees it; and the outbox.

SQLite in WAL mode with `synchronous=FULL`. Each record's SHA-256 covers the previous record's
hash, so an altered, removed or reordered record breaks the chain at a place `verify` can name.
Outputs go to the outbox together with the journal position they derive from, so after a crash
the daemon knows exactly which records still need their outputs written.

Whoever can edit the file can also recompute that public chain, so two things make a rewrite
detectable (docs/operations.md, "Checking the journal"):

- a keyed hash per record (`mac`, HMAC-SHA256 under the table's chain key, tablectl/chainkey.py)
  over the same bytes the public hash covers. The `keys` table says from which record on which
  key is in force; each of its rows is itself keyed, names the key before it and the hash of the
  record before it, so a key cannot be dropped, moved or swapped for another without the key;
- the chain head (seq, public hash, key id) published with every round result (tablectl/table.py),
  which the floor keeps: anyone can check a journal against those heads without any key.

The file and its -wal/-shm companions are created 0600 whatever the umask; a folder it creates
is 0700. A file or folder that was there before keeps its mode and owner, and a path that is not
a regular file (/dev/null, a FIFO, a folder) is refused unopened (`_prepare_file`).
"""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablectl import __version__
from tablectl.chainkey import ChainKey
from tablectl.outputs import OutboxRow
from tablectl.paths import folder_problem, not_a_file, not_a_plain_file
from tablectl.witness import GENESIS as GENESIS
from tablectl.witness import Head
from tablectl_base.events import json_problem

if TYPE_CHECKING:
    from tablectl.exports import ExportLine

SNAPSHOTS_KEPT = 3  # the newest checkpoints kept: a damaged one falls back to the one before
BODIES_KEPT = 1024  # flat bodies a replay remembers, parsed (`Journal.records`)
SCHEMA_VERSION = "3"  # 3: hashes stored as bytes, no stored prev_hash, snapshots, segments
# Older schemas are read as they are, and upgraded when the daemon opens them. 2 added keyed
# hashes (`journal.mac`, `keys`) and published heads.
SCHEMAS = ("1", "2", "3")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keys (
    first_seq INTEGER PRIMARY KEY,
    key_id TEXT NOT NULL,
    prev_key TEXT,
    prev_hash TEXT NOT NULL,
    ts TEXT NOT NULL,
    mac TEXT NOT NULL
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
CREATE TABLE IF NOT EXISTS snapshots (
    journal_seq INTEGER PRIMARY KEY,
    hash TEXT NOT NULL,
    format INTEGER NOT NULL,
    made_by TEXT NOT NULL,
    digest TEXT NOT NULL,
    body BLOB NOT NULL,
    key TEXT,
    mac TEXT
);
"""
# The records themselves (schema 3): each hash is 32 bytes, not 64 hex digits, and the hash a
# record follows is the one of the record before it (or the segment's `prev_hash`), not stored
# again: about 180 bytes a keyed record where schema 2 took 315 (issue 10 item 2).
_JOURNAL = """
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    source TEXT NOT NULL,
    ref TEXT,
    body TEXT NOT NULL,
    hash BLOB NOT NULL,
    mac BLOB
);
"""


def _hex(value: str | bytes | None) -> str | None:
    """A stored hash as hex: schema 3 keeps bytes, older schemas hex text."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).hex()


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
        (so a snapshot cannot be forged or moved without the chain key, issue 10 review)."""
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


@dataclass(frozen=True)
class Record:
    """One journaled input: `body` is the canonical event object, `ref` a command's request id.

    `key` is the id of the chain key in force for it (None: unkeyed); `witness` says whether its
    chain head is published when it finishes a round (every record a witness-aware daemon
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

    @property
    def chain(self) -> dict[str, Any]:
        """The chain head this record makes: what the table publishes as its witness."""
        return {"seq": self.seq, "hash": self.hash, "key": self.key}

    def jsonl(self) -> str:
        """The record as a contract-2 event line with `ts` (and where it came from), and its
        chain head when it has one (so that `replay` publishes the same witness)."""
        out: dict[str, Any] = dict(self.body)
        out["ts"] = self.ts
        out["source"] = self.source
        if self.ref is not None:
            out["ref"] = self.ref
        if self.witness:
            out["chain"] = self.chain
        return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


_loads = json.JSONDecoder().decode
"""json.loads(text) for a str (what SQLite gives for a TEXT column), without its per-call checks."""

_scan: Callable[[str, int], tuple[Any, int]]
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (typeshed lacks it)
"""The decoder's scanner: (the value at an index, the index after it), or StopIteration."""


def _load_body(text: str) -> Any:
    """`_loads(text)` for a record's body: a journal holds compact JSON, which the decoder's C
    scanner reads at once; anything else (leading or trailing whitespace, not JSON) goes through
    `_loads`, so its value or its error is the same."""
    if type(text) is str:
        try:
            value, end = _scan(text, 0)
        except StopIteration:
            return _loads(text)
        if end == len(text):
            return value
    return _loads(text)


_new_record = object.__new__


def _record(
    seq: int,
    ts: str,
    source: str,
    ref: str | None,
    body: dict[str, Any],
    prev_hash: str,
    hash: str,
    key: str | None,
    witness: bool,
    text: str,
) -> Record:
    """`Record(seq, ts, source, ref, body, prev_hash, hash, key, witness, text)` at under half
    its cost, for `Journal.records` (a replay reads every record): the same instance, its fields
    set directly rather than one `object.__setattr__` at a time by the frozen class's
    `__init__`."""
    rec: Record = _new_record(Record)
    rec.__dict__.update(
        seq=seq,
        ts=ts,
        source=source,
        ref=ref,
        body=body,
        prev_hash=prev_hash,
        hash=hash,
        key=key,
        witness=witness,
        text=text,
    )
    return rec


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


@dataclass
class Verification:
    """What `Journal.check` found: `problems` (tampering, or what could not be proved when a key
    was given), and `notes` on what was and was not checked."""

    records: int
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _bytes(value: str | None) -> bytes | None:
    return None if value is None else bytes.fromhex(value)


def start_data(first_seq: int, prev_hash: str, key_id: str) -> bytes:
    """What a file's signed start covers: where it begins and the hash it continues from."""
    parts = ("tablectl journal start", str(first_seq), prev_hash, key_id)
    return b"".join(part.encode("utf-8") + b"\x1f" for part in parts)


_UNAVAILABLE_CODES = (
    "SQLITE_IOERR",
    "SQLITE_FULL",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CANTOPEN",
)
"""SQLite's result codes for a file that cannot be opened now, as opposed to one that is not a
journal (`JournalUnavailable`)."""


def _missing(expect: int, found: int) -> str:
    """Why a record is not where the journal's seqs say it should be."""
    if found > expect:
        gone = f"records {expect}-{found - 1} are" if found - 1 > expect else "it is"
        return f"{gone} missing (removed): record {found} follows record {expect - 1}"
    return f"out of order: record {found} follows record {expect - 1}"


def _span(seqs: Sequence[int]) -> str:
    return f"record {seqs[0]}" if len(seqs) == 1 else f"records {seqs[0]}-{seqs[-1]}"


def _prepare_file(path: Path) -> None:
    """The journal file, and any folder it needs, made private whatever the umask; nothing that
    is already there opened, or changed (issue 24 item 5).

    What is at `path`, or at its -wal and -shm companions, must be a regular file or a link to
    one (tablectl/paths.py): a device (/dev/null), a FIFO, a folder, a socket or a link to
    nothing is refused with JournalError before SQLite opens it. So is a path whose folder is
    not a folder. Folders this creates are 0700, the file, when this creates it, 0600 (set on
    the descriptor it created: the umask cannot leave it otherwise); SQLite makes -wal and -shm
    with the file's mode.

    A file or folder that was already there keeps its mode and owner. Only a file tablectl
    created is known to be its own: a journal path can name anything, a hard link to
    /etc/shadow as well as /dev/null, and the daemon may run as root, which owns both, so
    "a regular file owned by the running user" is no proof either. A journal others can read
    is reported instead (`check-config` and the daemon's start: `config.path_warnings`)."""
    checks = (
        (path, not_a_file),
        (Path(f"{path}-wal"), not_a_plain_file),
        (Path(f"{path}-shm"), not_a_plain_file),
    )
    for p, check in checks:
        why = check(p)
        if why is not None:
            raise JournalError(
                f"{p} is {why}, not a regular file: no journal can be kept there (nothing was "
                "opened or changed)"
            )
    blocked = folder_problem(path)
    if blocked is not None:
        where, why = blocked
        raise JournalError(f"{path} cannot be made: {where} is {why}, not a folder")
    missing = []
    parent = path.parent
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by someone else: theirs, left as it is
        _fchmod_new(folder, 0o700, os.O_RDONLY | os.O_DIRECTORY)
    with contextlib.suppress(FileExistsError):  # a journal already: left as it is
        _fchmod_new(path, 0o600, os.O_WRONLY | os.O_CREAT | os.O_EXCL)


def _fchmod_new(path: Path, mode: int, flags: int) -> None:
    """`mode` on what `path` names, through a descriptor opened without following a link (a
    folder just made, or a file `flags` creates): never on something put there instead."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have taken bits away
    finally:
        os.close(fd)


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


def _one_writer(path: Path) -> int:
    """An exclusive lock on the journal file for as long as this writer has it open (a
    descriptor of its own, `flock`, which SQLite's own POSIX locks do not touch): a second
    `tablectl run` or an `import` on the same file is refused, instead of two writers each
    numbering records from what it last saw. JournalUnavailable when another process holds it
    (a later start may find it free)."""
    # The file the path names, through a link too (check-config and run have made sure it is a
    # regular file, or a link to one: tablectl/paths.py): the lock is on the file itself.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise JournalUnavailable(f"{path} cannot be opened: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalUnavailable(
            f"{path} is open for writing by another process (another `tablectl run` or "
            "`tablectl import` of this journal): one writer at a time"
        ) from None
    return fd


def schema_refused(path: Path, schema: str | None) -> str:
    """Why a journal of `schema` is not read: one written by a newer release (a rollback past
    the release that upgraded it), or a schema no release writes (an edited meta row)."""
    reads = f"this tablectl ({__version__}) reads journal schemas {', '.join(SCHEMAS)}"
    if schema is not None and schema.isdigit() and int(schema) > int(SCHEMA_VERSION):
        return (
            f"{path} has journal schema {schema}, written by a newer release: {reads} and will "
            "not touch it; run the release that wrote it (docs/operations.md 'Upgrading a table')"
        )
    return f"{path} has journal schema {schema}, which no release writes: {reads}"


class JournalError(Exception):
    """The journal file cannot be used (wrong table, newer schema, not a journal)."""


class JournalUnavailable(JournalError):
    """The journal file cannot be opened now (a full disk, an I/O error, a lock another process
    holds, a folder it cannot open): the file may be sound, and a later start may open it."""


class BadRecord(JournalError):
    """A record the journal holds, or should hold, cannot be read or replayed (issue 24 item 4):
    `seq` names it, `problem` says what is wrong with it."""

    def __init__(self, path: Path, seq: int, problem: str) -> None:
        super().__init__(f"{path}: record {seq}: {problem}")
        self.seq = seq
        self.problem = problem


def field_problem(ts: Any, source: Any, ref: Any, body: Any) -> str | None:
    """Why a record's stored fields are not what every record holds (text, and a ref that is
    text or NULL), or None: an edited row can hold a BLOB where the journal writes text."""
    for name, value in (("ts", ts), ("source", source), ("body", body)):
        if type(value) is not str:
            return f"its {name} is {_sql_kind(value)}, not text"
    if ref is not None and type(ref) is not str:
        return f"its ref is {_sql_kind(ref)}, not text"
    return None


def read_body(text: str) -> dict[str, Any]:
    """A record's body from its stored JSON text; ValueError saying why when it is not a JSON
    object (the journal only ever writes objects: `tablectl.table.journal_body`)."""
    try:
        body = _load_body(text)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"its body is not JSON: {json_problem(exc)}") from None
    if type(body) is not dict:
        raise ValueError(f"its body is JSON but not an object ({type(body).__name__})")
    return body


def _body_problem(text: str) -> str | None:
    """Why `read_body` refuses a record's body text, or None."""
    try:
        read_body(text)
    except ValueError as exc:
        return str(exc)
    return None


def _sql_kind(value: Any) -> str:
    """What SQLite stored, for a reason line."""
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"a BLOB of {len(value)} bytes"
    return f"a {type(value).__name__}"


class Journal:
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
                _prepare_file(path)
                self._writer = _one_writer(path)
                self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(_SCHEMA)
                if not self._columns():
                    self.db.executescript(_JOURNAL)
                snap_columns = {row[1] for row in self.db.execute("PRAGMA table_info(snapshots)")}
                for column in ("key", "mac"):  # a schema-3 file from before signed snapshots
                    if column not in snap_columns:
                        self.db.execute(f"ALTER TABLE snapshots ADD COLUMN {column} TEXT")
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(AttributeError):
                self.db.close()
            self._release()
            code = getattr(exc, "sqlite_errorname", "")
            if code.startswith(_UNAVAILABLE_CODES):
                hint = (
                    "is its disk full? docs/operations.md 'Disk full'"
                    if code.startswith(("SQLITE_IOERR", "SQLITE_FULL"))
                    else "does another process hold it, or is its folder out of reach?"
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
            if code.startswith(_UNAVAILABLE_CODES):  # a lock, an I/O error: a later start may do
                raise JournalUnavailable(f"{path} cannot be read now: {exc}") from None
            # An edited meta row (first_seq "x"), a damaged page: what the file holds cannot be
            # read as a journal (a daemon holds on it: docs/operations.md).
            raise JournalError(f"{path} cannot be read as a journal: {exc!r}") from exc

    def _open_rest(self, table: str | None, readonly: bool, key: ChainKey | None) -> None:
        """`__init__` once the file is open: its meta checked (or upgraded), where it starts
        and ends, its key starts, and (writable) the key the records to come are made with."""
        # First record whose head is published; None: none (a journal from before heads).
        self._witness_from: int | None = None
        self._check_meta(table, readonly)
        columns = self._columns()
        self._mac_column = "mac" if "mac" in columns else "NULL"
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        # A segment (or a live journal after one) starts after record `first_seq - 1`, whose
        # hash is `prev_hash`; a journal from the beginning starts at 1 after the genesis hash.
        self.first_seq = int(meta.get("first_seq", "1"))
        self.start_hash: str = meta.get("prev_hash", GENESIS)
        self._month: str | None = meta.get("month")  # the month the file's records began in
        last = self.db.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq: int = last[0] if last else self.first_seq - 1
        self._last_hash: str = _hex(last[1]) if last else self.start_hash  # type: ignore[assignment]
        self.key_starts: list[KeyStart] = self._key_starts()
        self._key: ChainKey | None = None
        # (previous key id, new key id, first record) when opening started a key; None if not.
        self.key_change: tuple[str | None, str, int] | None = None
        if not readonly:
            self._use_key(key)

    def _columns(self) -> set[str]:
        return {row[1] for row in self.db.execute("PRAGMA table_info(journal)")}

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
            self._upgrade(meta)
            meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        witness_from = meta.get("witness_from")
        self._witness_from = int(witness_from) if witness_from is not None else None

    def _upgrade(self, meta: dict[str, str]) -> None:
        """An older journal rewritten to schema 3 in one transaction: the same records, their
        hashes as bytes, the stored prev_hash left out. A schema-1 journal publishes heads from
        its next record on: replaying the old records must give exactly the messages they gave
        (the same seqs), so they get no head now."""
        columns = self._columns()
        mac = "mac" if "mac" in columns else "NULL"
        last = self.db.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0
        with self._tx():
            self.db.execute("ALTER TABLE journal RENAME TO journal_old")
            self.db.execute(_JOURNAL)
            cur = self.db.execute(
                f"SELECT seq, ts, source, ref, body, hash, {mac} FROM journal_old ORDER BY seq"
            )
            while rows := cur.fetchmany(20_000):
                try:
                    converted = [
                        (s, t, src, ref, body, bytes.fromhex(h), _bytes(m))
                        for s, t, src, ref, body, h, m in rows
                    ]
                except (TypeError, ValueError):
                    raise JournalError(
                        f"{self.path}: a record's hash is not hex text; the journal was not "
                        "upgraded (check it with verify-journal)"
                    ) from None
                self.db.executemany(
                    "INSERT INTO journal (seq, ts, source, ref, body, hash, mac) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    converted,
                )
            self.db.execute("DROP TABLE journal_old")
            upgrades = [("schema", SCHEMA_VERSION)]
            if "witness_from" not in meta:
                upgrades.append(("witness_from", str(last + 1)))
            self.db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", upgrades)

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
                ts = _now()
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
        """Let another writer have the file (`_one_writer`)."""
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

    # -- segments (tablectl/segments.py) -------------------------------------------------------

    @property
    def month(self) -> str | None:
        """The month (YYYY-MM, UTC) this file's records began in: its segment's name once
        closed; None while it holds no record and names none."""
        if self._month is None:
            ts = self.ts_at(self.first_seq)
            self._month = None if ts is None else ts[:7]
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

    # -- anchors: where the journal and this file begin (issue 24 item 2) ----------------------

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
        # published it (and as `_check_heads` expects of every head).
        return {"seq": seq, "hash": digest, "key": self._published_key(seq, self.provenance)}

    # -- the journal -------------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._last_seq

    @property
    def key_id(self) -> str | None:
        """The id of the key new records are made with (None: unkeyed)."""
        return self._key.id if self._key is not None else None

    def append(self, ts: str, source: str, ref: str | None, body: dict[str, Any]) -> Record:
        """Append one input and commit it durably; only then may the engine see it."""
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        seq = self._last_seq + 1
        data = record_bytes(self._last_hash, seq, ts, source, ref, text)
        digest = hashlib.sha256(data).hexdigest()
        mac = self._key.mac(data) if self._key is not None else None
        with self._tx():
            self.db.execute(
                "INSERT INTO journal (seq, ts, source, ref, body, hash, mac) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (seq, ts, source, ref, text, bytes.fromhex(digest), _bytes(mac)),
            )
        rec = Record(
            seq, ts, source, ref, body, self._last_hash, digest, self.key_id, self._witness(seq)
        )
        self._last_seq, self._last_hash = seq, digest
        return rec

    def import_records(self, lines: Iterable[ExportLine], *, batch: int = 5000) -> int:
        """Fill an empty journal from an export's proved records (tablectl/exports.py) in
        batched transactions (issue 10 item 5: a table restored onto a replacement PC).

        The public chain is recomputed here too and must give each record the hash the export
        proved. The records are marked applied with an empty outbox: their messages were
        published by the table they come from, and the next message carries on their count.
        Heads are published from the first record the old table published one for. Meta
        `imported` says where the records came from (`Provenance`): the export's first and last
        record and hash, and the key the old table had in force for each record, so its
        published heads still verify against this journal (issue 24 item 1). Returns the
        records imported.

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
            rows.append((seq, line.ts, line.source, line.ref, text, hashed, _bytes(mac)))
            prev = digest
            if len(rows) >= batch:
                flush()
        if rows:
            flush()
        witness_from = first_head if first_head is not None else seq + 1
        done = [("witness_from", str(witness_from))]
        if seq:
            origin = Provenance(1, first_hash or GENESIS, seq, prev, _now(), keys)
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

    def _witness(self, seq: int) -> bool:
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
                raise BadRecord(self.path, expect, _missing(expect, seq))
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
            digest = stored.hex() if type(stored) is bytes else _hex(stored)
            assert digest is not None
            witness = witness_from is not None and seq >= witness_from  # `_witness`
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
            yield _record(seq, ts, source, ref, body, prev, digest, key, witness, text)
            prev = digest

    def hash_at(self, seq: int) -> str | None:
        """The chain hash of record `seq` (the segment's start hash just before its first
        record); None if this file does not hold it."""
        if seq == self.first_seq - 1:
            return self.start_hash
        row = self.db.execute("SELECT hash FROM journal WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else _hex(row[0])

    def ts_at(self, seq: int) -> str | None:
        row = self.db.execute("SELECT ts FROM journal WHERE seq = ?", (seq,)).fetchone()
        return None if row is None else str(row[0])

    # -- snapshots (issue 10 item 1) -----------------------------------------------------------

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

    def stored_outputs(self) -> Iterator[tuple[int, OutboxRow]]:
        """Every stored output (sent or not) with the record it came from, in seq order: what
        `tablectl upgrade-check` compares a new release's replay with."""
        cur = self.db.execute(
            "SELECT journal_seq, seq, topic, payload, qos, retain FROM outbox ORDER BY seq"
        )
        for j, s, t, p, q, r in cur:
            # bytes as the journal writes them; text where someone edited the row in SQL
            data = p.encode("utf-8", "replace") if isinstance(p, str) else bytes(p)
            yield int(j), OutboxRow(s, t, data, q, bool(r))

    def latest_retained(self) -> list[OutboxRow]:
        """The newest retained message of each topic, in seq order: what the broker should
        hold, and what a restarted table draws its displays from."""
        cur = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE seq IN "
            "(SELECT max(seq) FROM outbox WHERE retain = 1 GROUP BY topic) ORDER BY seq"
        )
        return [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]

    def last_output(self, topic: str) -> OutboxRow | None:
        """The newest stored message of `topic` (sent or not), or None when the outbox holds
        none (never one, or pruned): `tablectl status` shows the last `round/result` from it
        after a restart."""
        row = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE topic = ? "
            "ORDER BY seq DESC LIMIT 1",
            (topic,),
        ).fetchone()
        if row is None:
            return None
        s, t, p, q, r = row
        return OutboxRow(s, t, bytes(p), q, bool(r))

    def prune_outbox(self, before: str) -> int:
        """Drop sent messages of records journaled before `before` (a journal timestamp),
        except the newest retained message of each topic; never an unsent one (issue 10 item
        2). Returns how many were dropped."""
        cut = self._last_before(before)
        if cut is None:
            return 0
        with self._tx(durable=False):
            cur = self.db.execute(
                "DELETE FROM outbox WHERE sent = 1 AND journal_seq <= ? AND seq NOT IN "
                "(SELECT max(seq) FROM outbox WHERE retain = 1 GROUP BY topic)",
                (cut,),
            )
        return int(cur.rowcount)

    def _last_before(self, ts: str) -> int | None:
        """The last record journaled before `ts` (records are in time order: a binary search
        over seq, not a scan of a year of records); None if there is none."""
        lo, hi = self.first_seq, self._last_seq
        found = None
        while lo <= hi:
            mid = (lo + hi) // 2
            at = self.ts_at(mid)
            if at is None:
                return found
            if at < ts:
                found, lo = mid, mid + 1
            else:
                hi = mid - 1
        return found

    def unsent_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0])

    # -- verification --------------------------------------------------------------------------

    def verify(self, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = ()) -> list[str]:
        """Every break in the chain, naming the record; empty when the journal is intact."""
        return self.check(keys, heads).problems

    def check(
        self, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = (), *, last: bool = True
    ) -> Verification:
        """The public chain, record by record; with `keys` (the table's key ring) every keyed hash
        and key start too; with `heads` (collected off MQTT) every published head against the
        journal. Without a key a rewrite that recomputes the public chain cannot be seen: the
        notes say so, and what else was left unchecked. `last`: this file ends the history (a
        closed segment does not: a key taken up after it closed is not missing from it)."""
        problems: list[str] = []
        ring = {k.id: k for k in keys}
        hashes: dict[int, str] = {}
        checked: dict[str, list[int]] = defaultdict(list)  # key id -> records proved with it
        unchecked: dict[str, list[int]] = defaultdict(list)  # key id -> records not provable
        unkeyed: list[int] = []
        prev, expect = self.start_hash, self.first_seq
        rows = self.db.execute(
            f"SELECT seq, ts, source, ref, body, hash, {self._mac_column} FROM journal "
            "ORDER BY rowid"
        )
        last_seq, last_hash = self.first_seq - 1, self.start_hash
        readable: set[str] = set()  # bodies `_body_problem` found sound, up to BODIES_KEPT
        for seq, ts, source, ref, body, stored, stored_mac in rows:
            digest, mac = _hex(stored), _hex(stored_mac)
            if seq != expect:
                if seq > expect:
                    problems.append(
                        f"record {seq}: records {expect}-{seq - 1} are missing (removed)"
                    )
                else:
                    problems.append(f"record {seq}: out of order after record {expect - 1}")
            fields = field_problem(ts, source, ref, body)
            unreadable = fields
            if fields is None and body not in readable:  # one met before parses the same
                unreadable = _body_problem(body)
                if unreadable is None and len(readable) < BODIES_KEPT:
                    readable.add(body)
            if unreadable is not None:
                problems.append(f"record {seq}: cannot be read: {unreadable}")
                if fields is not None:  # no bytes to hash
                    assert digest is not None
                    hashes.setdefault(seq, digest)
                    prev, expect = digest, seq + 1
                    last_seq, last_hash = seq, digest
                    continue
            data = record_bytes(prev, seq, ts, source, ref, body)
            if hashlib.sha256(data).hexdigest() != digest:
                problems.append(
                    f"record {seq}: contents altered, or it does not follow the record before it "
                    "(hash mismatch)"
                )
            start = self.key_at(seq)
            if start is None:
                unkeyed.append(seq)
                if mac is not None:
                    problems.append(
                        f"record {seq}: carries a keyed hash where no key is in force "
                        "(the journal's key starts were altered)"
                    )
            elif (key := ring.get(start.key_id)) is None:
                unchecked[start.key_id].append(seq)
            elif mac is None:
                problems.append(
                    f"record {seq}: keyed hash missing (key {start.key_id} is in force from "
                    f"record {start.first_seq}): rewritten without the key"
                )
            elif not hmac.compare_digest(mac, key.mac(data)):
                problems.append(
                    f"record {seq}: keyed hash does not match (key {start.key_id}): "
                    "contents or place rewritten without the key"
                )
            else:
                checked[start.key_id].append(seq)
            assert digest is not None
            hashes.setdefault(seq, digest)
            prev, expect = digest, seq + 1
            last_seq, last_hash = seq, digest
        problems += [text for _, text in self.end_problems(last_seq, last_hash)]
        if self.meta("importing") is not None:  # Journal.import_records stopped part way
            problems.append("an import did not finish: move it away and import again")
        result = Verification(len(hashes), problems)
        self._check_key_starts(result, ring, hashes, last_seq, ends=last)
        self._check_snapshots(result, ring)
        self._check_start(result, ring)
        self._check_heads(result, heads, hashes, last_seq)
        top = max((h.seq for h in heads), default=0)
        self._notes(result, ring, checked, unchecked, unkeyed, (min(top, last_seq), last_seq))
        return result

    def end_problems(self, last_seq: int, last_hash: str) -> list[tuple[int, str]]:
        """Where the outbox says the journal went on past its last record (`last_seq`, whose
        hash is `last_hash`): its end was cut off, or its last record replaced. Each as (the
        first record concerned, what is wrong); empty when the end is the one the outputs
        came from."""
        problems: list[tuple[int, str]] = []
        applied = self.db.execute("SELECT journal_seq, hash FROM applied WHERE id = 1").fetchone()
        if applied:
            a_seq, a_hash = applied
            if a_seq > last_seq:
                problems.append(
                    (
                        last_seq + 1,
                        f"records after {last_seq} were removed: outputs exist up to record "
                        f"{a_seq}",
                    )
                )
            elif a_seq == last_seq and a_hash != last_hash:
                problems.append(
                    (a_seq, f"record {a_seq}: differs from the record its outputs came from")
                )
        top = self.db.execute("SELECT max(journal_seq) FROM outbox").fetchone()[0]
        if top is not None and top > last_seq and not (applied and applied[0] > last_seq):
            problems.append(
                (
                    last_seq + 1,
                    f"records after {last_seq} were removed: outputs refer to record {top}",
                )
            )
        return problems

    def _check_key_starts(
        self,
        result: Verification,
        ring: dict[str, ChainKey],
        hashes: dict[int, str],
        last: int,
        *,
        ends: bool = True,
    ) -> None:
        """Each key start where the records say, after the key before it, made with its key; and
        with a key ring, the journal must end under one of its keys (a journal whose keys were
        stripped and whose public chain was recomputed ends unkeyed)."""
        problems = result.problems
        before: str | None = None
        for start in self.key_starts:
            name = f"key {start.key_id} from record {start.first_seq}"
            if start.prev_key != before:
                problems.append(
                    f"{name}: names key {start.prev_key or 'none'} before it, the journal has "
                    f"{before or 'none'} (key starts removed or inserted)"
                )
            if start.first_seq > last + 1:
                problems.append(f"{name}: the journal ends at record {last} (records removed)")
            prev = (
                self.start_hash
                if start.first_seq == self.first_seq
                else hashes.get(start.first_seq - 1)
            )
            if prev is not None and prev != start.prev_hash:
                problems.append(
                    f"{name}: does not follow record {start.first_seq - 1} "
                    "(records before it were rewritten)"
                )
            key = ring.get(start.key_id)
            if key is not None and not start.made_with(key):
                problems.append(f"{name}: not made with that key (forged)")
            before = start.key_id
        if not ring or not ends:
            return
        end = self.key_starts[-1] if self.key_starts else None
        given = ", ".join(sorted(ring))
        if end is None:
            problems.append(
                f"no record is keyed (keys given: {given}): the journal was never keyed, or its "
                "keyed hashes were stripped and its chain recomputed"
            )
        elif end.key_id not in ring:
            span = f"records {end.first_seq}-{last}" if last >= end.first_seq else "new records"
            problems.append(
                f"key {end.key_id}, in force from record {end.first_seq}, was not given "
                f"(keys given: {given}): {span} cannot be checked"
            )

    def _check_start(self, result: Verification, ring: dict[str, ChainKey]) -> None:
        """A file that starts after record 1 (records went into a closed segment) says where,
        signed with the key in force then: with the key, a front cut off and the start
        rewritten to match is evident."""
        if self.first_seq == 1 or not ring:
            return
        where = f"the journal's start (record {self.first_seq}, after hash {self.start_hash[:16]})"
        key_id, mac = self.meta("start_key"), self.meta("start_mac")
        if key_id is None or mac is None:
            keyed = self.key_at(self.first_seq) is not None
            if keyed:
                result.problems.append(
                    f"{where} is not signed, in a keyed journal: records before it may have been "
                    "cut off without the key"
                )
            return
        key = ring.get(key_id)
        if key is None:
            result.notes.append(f"{where}: signed with key {key_id}, which was not given")
        elif not hmac.compare_digest(
            mac, key.mac(start_data(self.first_seq, self.start_hash, key_id))
        ):
            result.problems.append(f"{where}: its keyed hash does not match: rewritten")

    def _check_snapshots(self, result: Verification, ring: dict[str, ChainKey]) -> None:
        """With keys: every stored snapshot signed with the table's key, where it belongs. A
        snapshot is what a restart trusts, so one forged or moved without the key is tampering
        even though the records are intact."""
        if not ring:
            return
        keyed_from = self.key_starts[0].first_seq if self.key_starts else None
        for snap in self.snapshots():
            where = f"snapshot after record {snap.journal_seq}"
            if snap.key is None:
                if keyed_from is not None and snap.journal_seq + 1 >= keyed_from:
                    result.problems.append(
                        f"{where}: not signed, in a keyed journal (added without the key)"
                    )
            elif (key := ring.get(snap.key)) is None:
                result.notes.append(f"{where}: signed with key {snap.key}, which was not given")
            elif not snap.made_with(key):
                result.problems.append(
                    f"{where}: its keyed hash does not match (key {snap.key}): forged or moved "
                    "without the key"
                )

    def _check_heads(
        self, result: Verification, heads: Sequence[Head], hashes: dict[int, str], last: int
    ) -> None:
        """Every published head the journal contradicts."""
        origin = self.provenance
        if origin is not None:
            result.notes.append(
                f"records {origin.first}-{origin.last} were imported from an export on "
                f"{origin.ts[:19]} (last record's hash {origin.last_hash[:16]}...): this "
                "table's key signed them then; the old table's heads tie them to what it "
                "published"
            )
        for h in heads:
            if h.seq < self.first_seq:
                continue  # in a closed segment: checked there (segments.History)
            where = f"head from {h.where}"
            have = hashes.get(h.seq)
            if h.seq > last:
                result.problems.append(
                    f"{where}: record {h.seq} was published (hash {h.hash[:16]}), but the journal "
                    f"ends at record {last}: records removed"
                )
            elif have != h.hash:
                shown = have[:16] if have is not None else "no such record"
                result.problems.append(
                    f"{where}: record {h.seq} was published with hash {h.hash[:16]}, the journal "
                    f"has {shown}: rewritten"
                )
            elif h.key_known:
                key = self._published_key(h.seq, origin)
                if key != h.key:
                    result.problems.append(
                        f"{where}: record {h.seq} was published under key {h.key or 'none'}, the "
                        f"journal says {key or 'none'}: its key starts were altered"
                    )
        if heads:
            top = max(h.seq for h in heads)
            result.notes.append(f"checked against {len(heads)} published heads, up to record {top}")

    def _published_key(self, seq: int, origin: Provenance | None) -> str | None:
        """The key id a head for record `seq` was published under: an imported record's is the
        old table's (its export says which), any other the one in force here."""
        if origin is not None and origin.first <= seq <= origin.last:
            return origin.key_at(seq)
        start = self.key_at(seq)
        return start.key_id if start is not None else None

    def _notes(
        self,
        result: Verification,
        ring: dict[str, ChainKey],
        checked: dict[str, list[int]],
        unchecked: dict[str, list[int]],
        unkeyed: list[int],
        span: tuple[int, int],
    ) -> None:
        """What was and was not checked; `span`: the last record a published head covers, and
        the journal's last record."""
        notes = result.notes
        for key_id, seqs in checked.items():
            notes.insert(0, f"{_span(seqs)}: keyed hashes checked with key {key_id}")
        for key_id, seqs in unchecked.items():
            if ring:
                notes.append(
                    f"{_span(seqs)}: made with key {key_id}, which was not given: their contents "
                    "are not checked, only their place in the chain"
                )
            else:
                notes.append(f"{_span(seqs)}: keyed with key {key_id}, not checked (no key given)")
        if unkeyed and (ring or self.key_starts):
            sealed = self.key_starts and self.key_starts[0].key_id in ring
            notes.append(
                f"{_span(unkeyed)}: unkeyed (from before the journal was keyed)"
                + ("; the keyed record after them seals their hashes" if sealed else "")
            )
        witnessed, last = span
        if not ring and witnessed == 0:
            notes.append(
                "no key given: only the public SHA-256 chain was checked, which whoever edits the "
                "file can recompute; check with the table's key (--key, or key_file in the "
                "config) or against published heads (--against)"
            )
        elif not ring and witnessed < last:
            notes.append(
                f"no key given: records {witnessed + 1}-{last}, after the last head, are checked "
                "only by the public SHA-256 chain, which whoever edits the file can recompute"
            )

    def _tx(self, *, durable: bool = True) -> _Transaction:
        return _Transaction(self.db, durable)


def format_ts(moment: datetime) -> str:
    """The journal's timestamp form: ISO-8601 UTC with microseconds and a Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(text: str) -> datetime:
    """A journal timestamp (or any ISO-8601 time; UTC when it names no zone) as a datetime;
    ValueError for anything else."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _now() -> str:
    return format_ts(datetime.now(UTC))


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
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._full()
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            if exc_type is None:
                self.db.execute("COMMIT")  # a failed COMMIT (a full disk) may leave it open
            else:
                self.db.execute("ROLLBACK")
        finally:
            if self.db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            self._full()

    def _full(self) -> None:
        if not self.durable:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("PRAGMA synchronous=FULL")
