"""The journal file's schema: its tables, the schema versions this release reads and writes,
how a stored hash reads back, and the upgrade of an older file to the current schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tablectl import __version__
from tablectl.journal.errors import JournalError
from tablectl.journal.file import Transaction

SCHEMA_VERSION = "3"  # 3: hashes stored as bytes, no stored prev_hash, snapshots, segments
# Older schemas are read as they are, and upgraded when the daemon opens them. 2 added keyed
# hashes (`journal.mac`, `keys`) and published heads.
SCHEMAS = ("1", "2", "3")

TABLES = """
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
# again: about 180 bytes a keyed record where schema 2 took 315.
RECORDS_TABLE = """
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


def hash_hex(value: str | bytes | None) -> str | None:
    """A stored hash as hex: schema 3 keeps bytes, older schemas hex text."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).hex()


def hash_bytes(value: str | None) -> bytes | None:
    """A hex hash as schema 3 stores it (bytes); None stays None."""
    return None if value is None else bytes.fromhex(value)


def schema_refused(path: Path, schema: str | None) -> str:
    """Why a journal of `schema` is not read: one written by a newer release (a rollback past
    the release that upgraded it), or a schema no release writes (an edited meta row)."""
    reads = f"this tablectl ({__version__}) reads journal schemas {', '.join(SCHEMAS)}"
    if schema is not None and schema.isdigit() and int(schema) > int(SCHEMA_VERSION):
        return (
            f"{path} has journal schema {schema}, written by a newer release: {reads} and will "
            "not touch it; run the release that wrote it (docs/operations.md 'Upgrading a table')"
        )
    if schema is None:  # its meta rows are there, the one naming the schema is not
        return (
            f"{path} names no journal schema (its meta row 'schema' is missing: an edited or "
            f"damaged file): {reads}"
        )
    return f"{path} has journal schema {schema!r}, which no release writes: {reads}"


def columns(db: sqlite3.Connection) -> set[str]:
    """The columns of the records' table."""
    return {row[1] for row in db.execute("PRAGMA table_info(journal)")}


def upgrade(db: sqlite3.Connection, path: Path, meta: dict[str, str]) -> None:
    """An older journal rewritten to schema 3 in one transaction: the same records, their
    hashes as bytes, the stored prev_hash left out. A schema-1 journal publishes heads from
    its next record on: replaying the old records must give exactly the messages they gave
    (the same seqs), so they get no head now."""
    mac = "mac" if "mac" in columns(db) else "NULL"
    last = db.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0
    with Transaction(db, durable=True):
        db.execute("ALTER TABLE journal RENAME TO journal_old")
        db.execute(RECORDS_TABLE)
        cur = db.execute(
            f"SELECT seq, ts, source, ref, body, hash, {mac} FROM journal_old ORDER BY seq"
        )
        while rows := cur.fetchmany(20_000):
            try:
                converted = [
                    (s, t, src, ref, body, bytes.fromhex(h), hash_bytes(m))
                    for s, t, src, ref, body, h, m in rows
                ]
            except (TypeError, ValueError):
                raise JournalError(
                    f"{path}: a record's hash is not hex text; the journal was not "
                    "upgraded (check it with verify-journal)"
                ) from None
            db.executemany(
                "INSERT INTO journal (seq, ts, source, ref, body, hash, mac) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                converted,
            )
        db.execute("DROP TABLE journal_old")
        upgrades = [("schema", SCHEMA_VERSION)]
        if "witness_from" not in meta:
            upgrades.append(("witness_from", str(last + 1)))
        db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", upgrades)
