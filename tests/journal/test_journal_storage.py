"""How the journal is stored (schema 3: snapshots and segments): real SQLite files.

- an older journal (schema 2, built here by hand in the layout that version wrote: hex hashes, a
  stored prev_hash) is upgraded in one transaction with every record, hash and keyed hash kept,
  and read as it is, unchanged, when opened read-only;
- a schema-3 record takes far fewer bytes;
- outbox pruning never drops an unsent message, nor a topic's newest retained one, nor anything
  of a record journaled at or after the cut; `latest_retained` is each topic's newest retained
  message;
- snapshots: the newest `keep`, plus the one the journal (or segment) opens with.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.chainkey import ChainKey, create_key
from tablectl.journal import Journal, JournalError
from tablectl.journal.chain import GENESIS, KeyStart, record_bytes
from tablectl.outputs import OutboxRow
from tablectl.records import Snapshot
from tests.helpers import proved_lines

TABLE = "bac-01"
T0 = datetime(2026, 11, 26, 10, 0, 0, tzinfo=UTC)


def ts(seconds: float) -> str:
    """A journal timestamp (tablectl.records.now_ts's form) `seconds` after T0."""
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def card(n: int) -> dict[str, Any]:
    """A shoe card as the table journals it: where it stands in the shoe's run, and the card."""
    return {
        "type": "shoe.card",
        "at": {"run": "12", "pos": n % 416, "seq": 5000 + n},
        "card": "A23456789TJQK"[n % 13] + "hdcs"[n % 4],
    }


Line = tuple[str, str, str | None, dict[str, Any]]  # ts, source, ref, body


def session(n: int) -> list[Line]:
    """n realistic inputs: mostly shoe cards, every tenth a wager with a request id."""
    lines: list[Line] = []
    for i in range(1, n + 1):
        if i % 10 == 0:
            wager = {"type": "wager", "seat": i % 7 + 1, "spot": "banker", "amount": "25"}
            lines.append((ts(1.5 * i), "cmd/wager", f"req-{i}", wager))
        else:
            lines.append((ts(1.5 * i), "device/shoe", None, card(i)))
    return lines


@pytest.fixture
def key(tmp_path: Path) -> ChainKey:
    return create_key(tmp_path / "journal.key")


# -- schema 2, as the version before wrote it ---------------------------------------------------

# tablectl/journal/schema.py's TABLES at schema 2 (the commit before "Journal schema 3").
SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    source TEXT NOT NULL,
    ref TEXT,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    mac TEXT
);
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
"""


def write_schema_2(
    path: Path, key: ChainKey, lines: Sequence[Line], *, outputs: bool = True
) -> None:
    """A keyed schema-2 journal of `lines` as that version's daemon left it (WAL mode; the key
    in force from record 1; hashes, prev_hash and keyed hashes as hex text); with `outputs`,
    two outbox rows per record (the older half of them sent) and the applied mark."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA_2)
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("schema", "2"), ("table", TABLE), ("witness_from", "1")],
        )
        started = ts(0)
        data = KeyStart.data(1, key.id, None, GENESIS, started)
        db.execute(
            "INSERT INTO keys VALUES (1, ?, NULL, ?, ?, ?)",
            (key.id, GENESIS, started, key.mac(data)),
        )
        prev = GENESIS
        for seq, (at, source, ref, body) in enumerate(lines, start=1):
            text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
            data = record_bytes(prev, seq, at, source, ref, text)
            digest = hashlib.sha256(data).hexdigest()
            db.execute(
                "INSERT INTO journal VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, at, source, ref, text, prev, digest, key.mac(data)),
            )
            if outputs:
                sent = seq <= len(lines) // 2
                for n, topic in ((2 * seq - 1, "event"), (2 * seq, "state")):
                    payload = b'{"seq":%d}' % n
                    db.execute(
                        "INSERT INTO outbox VALUES (?, ?, ?, ?, 1, ?, ?)",
                        (n, seq, f"tablectl/site/{TABLE}/{topic}", payload, topic == "state", sent),
                    )
            prev = digest
        if lines and outputs:
            db.execute("INSERT INTO applied VALUES (1, ?, ?)", (len(lines), prev))
        db.execute("COMMIT")
    finally:
        db.close()


def stored_rows(path: Path) -> list[tuple[Any, ...]]:
    """Every record as stored, its hash and keyed hash as hex whatever the schema."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT seq, ts, source, ref, body, hash, mac FROM journal ORDER BY seq"
        ).fetchall()
    finally:
        db.close()
    return [
        (*row[:5], *(v if isinstance(v, str) else bytes(v).hex() for v in row[5:])) for row in rows
    ]


def meta(path: Path) -> dict[str, str]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()


def test_upgrading_a_schema_2_journal_keeps_every_record_hash_and_keyed_hash(
    tmp_path: Path, key: ChainKey
) -> None:
    path = tmp_path / "journal.db"
    write_schema_2(path, key, session(60))
    rows_before = stored_rows(path)
    old = Journal(path, table=None, readonly=True)
    records_before = list(old.records())
    outbox_before = old.outbox()
    pending_before = old.pending(1000)
    assert old.check([key]).problems == []
    old.close()
    assert [r.prev_hash for r in records_before[1:]] == [r.hash for r in records_before[:-1]]

    journal = Journal(path, table=TABLE, key=key)  # the daemon opens it: upgraded
    try:
        assert journal.key_change is None  # the same key, in force from the same record
        assert list(journal.records()) == records_before  # seq, hash, prev_hash, body, key...
        assert journal.outbox() == outbox_before
        assert journal.pending(1000) == pending_before
        result = journal.check([key])
        assert result.problems == []
        assert result.notes[0] == f"records 1-60: keyed hashes checked with key {key.id}"
        # the chain goes on from the last upgraded record, keyed with the same key
        rec = journal.append(ts(1000), "device/shoe", None, card(61))
        assert (rec.seq, rec.prev_hash, rec.key) == (61, records_before[-1].hash, key.id)
        assert journal.check([key]).problems == []
    finally:
        journal.close()

    assert meta(path)["schema"] == "3"
    assert meta(path)["witness_from"] == "1"  # schema 2 already published heads: unchanged
    assert stored_rows(path)[:60] == rows_before  # every hash and keyed hash, byte for byte
    db = sqlite3.connect(path)
    try:
        columns = [r[1] for r in db.execute("PRAGMA table_info(journal)")]
        kinds = db.execute(
            "SELECT DISTINCT typeof(hash), length(hash), typeof(mac), length(mac) FROM journal"
        ).fetchall()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()
    assert columns == ["seq", "ts", "source", "ref", "body", "hash", "mac"]  # no prev_hash
    assert kinds == [("blob", 32, "blob", 32)]
    assert "journal_old" not in tables


def test_a_readonly_open_reads_and_verifies_a_schema_2_journal_without_changing_it(
    tmp_path: Path, key: ChainKey
) -> None:
    path = tmp_path / "journal.db"
    lines = session(40)
    write_schema_2(path, key, lines)
    before = path.read_bytes()
    journal = Journal(path, table=None, readonly=True)
    try:
        recs = list(journal.records())
        assert [(r.seq, r.ts, r.source, r.ref, r.body) for r in recs] == [
            (seq, *line) for seq, line in enumerate(lines, start=1)
        ]
        assert recs[0].prev_hash == GENESIS
        assert all(r.key == key.id and r.witness for r in recs)
        result = journal.check([key])
        assert result.problems == []
        assert result.notes == [f"records 1-40: keyed hashes checked with key {key.id}"]
        assert journal.hash_at(40) == recs[-1].hash
        assert journal.ts_at(7) == lines[6][0]
        assert journal.snapshots() == []  # schema 2 has none
        assert len(journal.outbox()) == 80
    finally:
        journal.close()
    assert path.read_bytes() == before
    assert meta(path)["schema"] == "2"


def test_a_readonly_open_still_catches_tampering_in_a_schema_2_journal(
    tmp_path: Path, key: ChainKey
) -> None:
    """Read as it is, the old layout's hex hashes are checked like schema 3's bytes."""
    path = tmp_path / "journal.db"
    write_schema_2(path, key, session(20))
    db = sqlite3.connect(path)
    db.execute("UPDATE journal SET body = ? WHERE seq = 5", (json.dumps(card(99)),))
    db.commit()
    db.close()
    journal = Journal(path, table=None, readonly=True)
    try:
        problems = journal.check([key]).problems
    finally:
        journal.close()
    assert problems == [
        "record 5: contents altered, or it does not follow the record before it (hash mismatch)",
        f"record 5: keyed hash does not match (key {key.id}): contents or place rewritten "
        "without the key",
    ]


def test_an_upgrade_that_fails_leaves_the_schema_2_journal_as_it_was(
    tmp_path: Path, key: ChainKey
) -> None:
    """One transaction: a record the upgrade cannot convert (a hash that is not hex) undoes it
    all; the file stays a schema-2 journal whose check names the record."""
    path = tmp_path / "journal.db"
    write_schema_2(path, key, session(30))
    db = sqlite3.connect(path)
    db.execute("UPDATE journal SET hash = 'not a hash' WHERE seq = 17")
    db.commit()
    db.close()
    rows = stored_rows(path)
    # tablectl lets the ValueError of bytes.fromhex through (not a JournalError): either way the
    # daemon does not start on it.
    with pytest.raises((JournalError, ValueError)):
        Journal(path, table=TABLE, key=key)
    assert meta(path)["schema"] == "2"
    assert stored_rows(path) == rows
    journal = Journal(path, table=None, readonly=True)
    try:
        problems = journal.verify([key])
    finally:
        journal.close()
    assert problems[0].startswith("record 17: contents altered, or it does not follow")
    assert problems[1].startswith("record 18: contents altered, or it does not follow")


# -- size --------------------------------------------------------------------------------------


def file_size(db: sqlite3.Connection, path: Path) -> int:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def test_a_schema_3_record_takes_far_fewer_bytes_than_schema_2(
    tmp_path: Path, key: ChainKey
) -> None:
    """2,000 keyed shoe cards: the file of schema 3 is at most 60% of the same records in schema
    2 (32-byte hashes instead of 64 hex digits, and no stored prev_hash)."""
    lines = [(ts(1.5 * n), "device/shoe", None, card(n)) for n in range(1, 2001)]
    new = tmp_path / "schema3.db"
    journal = Journal(new, table=TABLE, key=key)
    try:
        for line in lines:
            journal.append(*line)
        records = list(journal.records())
        size_3 = file_size(journal.db, new)
    finally:
        journal.close()
    old = tmp_path / "schema2.db"
    write_schema_2(old, key, lines, outputs=False)  # records only, as the schema-3 file holds
    db = sqlite3.connect(old)
    try:
        size_2 = file_size(db, old)
    finally:
        db.close()
    assert stored_rows(old) == stored_rows(new)  # the same records, hashes and keyed hashes
    assert len(records) == 2000
    # Measured (SQLite 3.40, 4 KiB pages): 105 pages against 175, exactly 60%: about 182 bytes of
    # record a row against 314 (and 8 pages of other tables in each file).
    note = f"schema 3: {size_3} bytes, schema 2: {size_2} bytes ({size_3 / size_2:.1%})"
    assert 100 * size_3 <= 60 * size_2, note


# -- the outbox: pruning, and what the broker should hold ---------------------------------------

TOPICS = ("state", "event", "display/eztrak", "round/result")


@st.composite
def outboxes(draw: st.DrawFn) -> tuple[list[float], list[tuple[int, str, bool, bool]], float]:
    """Record times (non-decreasing, ties allowed), outbox rows in seq order as (record, topic,
    retained, sent), and a cut time anywhere from before the first record to after the last."""
    gaps = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=12))
    times = [sum(gaps[: i + 1]) for i in range(len(gaps))]
    rows = draw(
        st.lists(
            st.tuples(
                st.integers(1, len(times)),
                st.sampled_from(TOPICS),
                st.booleans(),
                st.booleans(),
            ),
            max_size=40,
        )
    )
    rows.sort(key=lambda r: r[0])  # the outbox is written record by record
    cut = draw(st.sampled_from([*times, *(t + 0.25 for t in times), -1.0]))
    return times, rows, cut


def build_outbox(
    path: Path, times: list[float], rows: list[tuple[int, str, bool, bool]]
) -> tuple[Journal, list[OutboxRow], set[int]]:
    """A journal of one record per time, its outbox `rows` (seq 1, 2, ...), the sent ones
    acknowledged. Returns the journal (open), the rows and the seqs sent."""
    journal = Journal(path, table=TABLE)
    journal.import_records(
        proved_lines((ts(t), "test", None, card(i)) for i, t in enumerate(times))
    )
    made = [
        OutboxRow(n, f"tablectl/site/{TABLE}/{topic}", b'{"seq":%d}' % n, 1, retain)
        for n, (_, topic, retain, _) in enumerate(rows, start=1)
    ]
    by_record: dict[int, list[OutboxRow]] = {}
    for out, (seq, *_) in zip(made, rows, strict=True):
        by_record.setdefault(seq, []).append(out)
    for rec in journal.records():
        if rec.seq in by_record:
            journal.write_outputs(rec, by_record[rec.seq])
    sent = {n for n, (*_, was_sent) in enumerate(rows, start=1) if was_sent}
    journal.mark_sent(sorted(sent))
    return journal, made, sent


def newest_retained(rows: list[OutboxRow]) -> dict[str, OutboxRow]:
    newest: dict[str, OutboxRow] = {}
    for r in rows:  # in seq order: the last one wins
        if r.retain:
            newest[r.topic] = r
    return newest


@settings(max_examples=150, deadline=None)
@given(case=outboxes())
def test_prune_outbox_never_removes_an_unsent_row_nor_a_topics_newest_retained_one(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[list[float], list[tuple[int, str, bool, bool]], float],
) -> None:
    times, rows, cut = case
    journal, made, sent = build_outbox(tmp_path_factory.mktemp("prune") / "j.db", times, rows)
    try:
        record_of = {n: seq for n, (seq, *_) in enumerate(rows, start=1)}
        keep = {r.seq for r in newest_retained(made).values()}
        before = ts(cut)
        dropped = journal.prune_outbox(before)
        left = {r.seq for r in journal.outbox()}
        removed = {r.seq for r in made} - left
    finally:
        journal.close()
    assert dropped == len(removed)
    assert {r.seq for r in made} - sent <= left, "an unsent row was removed"
    assert keep <= left, "a topic's newest retained row was removed"
    at_or_after = {n for n, seq in record_of.items() if times[seq - 1] >= cut}
    assert at_or_after <= left, "a row of a record at or after the cut was removed"
    for n in removed:
        assert n in sent and n not in keep
        assert times[record_of[n] - 1] < cut
    # and everything else, sent, before the cut and not a newest retained one, is gone
    assert removed == {n for n in sent if n not in keep and times[record_of[n] - 1] < cut}


@settings(max_examples=100, deadline=None)
@given(case=outboxes())
def test_held_from_is_where_the_unbroken_run_to_the_newest_row_begins(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[list[float], list[tuple[int, str, bool, bool]], float],
) -> None:
    """After any pruning, `held_from` (what a `cmd/history` answer says:
    tablectl/history_answers.py) is the smallest number from which every row up to the
    outbox's newest is there, found by walking the rows one by one; and `outbox_between`
    gives exactly the rows in its range."""
    times, rows, cut = case
    journal, _, _ = build_outbox(tmp_path_factory.mktemp("held") / "j.db", times, rows)
    try:
        journal.prune_outbox(ts(cut))
        left = sorted(r.seq for r in journal.outbox())
        held = journal.held_from()
        between = [r.seq for r in journal.outbox_between(2, 5)]
    finally:
        journal.close()
    expected = 1
    if left:
        expected = left[-1]
        while expected - 1 in left:
            expected -= 1
    assert held == expected
    assert between == [n for n in left if 2 <= n <= 5]


@settings(max_examples=60, deadline=None)
@given(case=outboxes())
def test_latest_retained_is_each_topics_newest_retained_row_in_seq_order(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[list[float], list[tuple[int, str, bool, bool]], float],
) -> None:
    times, rows, _ = case
    journal, made, _ = build_outbox(tmp_path_factory.mktemp("latest") / "j.db", times, rows)
    try:
        latest = journal.latest_retained()
    finally:
        journal.close()
    assert latest == sorted(newest_retained(made).values(), key=lambda r: r.seq)


def test_latest_retained_skips_unretained_rows_and_topics_that_never_retained(
    tmp_path: Path,
) -> None:
    rows = [
        (1, "state", True, True),  # replaced by seq 4
        (1, "event", False, True),  # never retained: not held by the broker
        (2, "display/eztrak", True, False),  # the newest of its topic, though unsent
        (2, "state", True, True),
        (3, "state", False, False),  # not retained: the broker still holds seq 4
    ]
    journal, made, _ = build_outbox(tmp_path / "j.db", [0.0, 1.0, 2.0], rows)
    try:
        assert journal.latest_retained() == [made[2], made[3]]
        assert journal.prune_outbox(ts(5)) == 2  # seqs 1 and 2: sent, older, not the newest
        assert [r.seq for r in journal.outbox()] == [3, 4, 5]
        assert journal.latest_retained() == [made[2], made[3]]
    finally:
        journal.close()


# -- snapshots -----------------------------------------------------------------------------------


def snap(journal: Journal, seq: int) -> Snapshot:
    body = json.dumps({"position": seq, "round": seq // 10}).encode()
    chain = journal.hash_at(seq)
    assert chain is not None
    return Snapshot(seq, chain, 1, "tablectl test", hashlib.sha256(body).hexdigest(), body)


def test_store_snapshot_keeps_the_newest_keep_and_the_one_the_journal_opens_with(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.db"
    journal = Journal(path, table=TABLE)
    try:
        journal.import_records(proved_lines((ts(i), "test", None, card(i)) for i in range(1, 61)))
        opening = snap(journal, 0)  # before record 1: the genesis hash
        assert opening.hash == GENESIS
        journal.store_snapshot(opening, keep=2)
        stored = [snap(journal, seq) for seq in (10, 20, 30, 40, 50)]
        for s in stored:
            journal.store_snapshot(s, keep=2)
        assert journal.snapshots() == [stored[4], stored[3], opening]  # newest first
        journal.store_snapshot(snap(journal, 60))  # the default: SNAPSHOTS_KEPT (3)
        assert [s.journal_seq for s in journal.snapshots()] == [60, 50, 40, 0]
    finally:
        journal.close()
    again = Journal(path, table=TABLE)
    try:
        assert [s.journal_seq for s in again.snapshots()] == [60, 50, 40, 0]
        assert again.snapshots()[1] == stored[4]  # every field, the body byte for byte
    finally:
        again.close()


def test_a_segments_opening_snapshot_is_kept_and_survives_reopening(tmp_path: Path) -> None:
    """A journal that starts at record 101 (meta first_seq and prev_hash: the records before it
    are in closed segments) keeps the snapshot after record 100, however many follow."""
    path = tmp_path / "journal.db"
    Journal(path, table=TABLE).close()
    start = hashlib.sha256(b"record 100").hexdigest()
    db = sqlite3.connect(path)
    db.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)", [("first_seq", "101"), ("prev_hash", start)]
    )
    db.commit()
    db.close()
    journal = Journal(path, table=TABLE)
    try:
        assert (journal.first_seq, journal.hash_at(100)) == (101, start)
        for i in range(101, 151):
            journal.append(ts(i), "test", None, card(i))
        assert journal.verify() == []
        opening = snap(journal, 100)
        journal.store_snapshot(opening, keep=1)
        for seq in (110, 120, 130, 140, 150):
            journal.store_snapshot(snap(journal, seq), keep=1)
        assert [s.journal_seq for s in journal.snapshots()] == [150, 100]
    finally:
        journal.close()
    again = Journal(path, table=TABLE)
    try:
        assert again.snapshots() == [snap(again, 150), opening]
        again.store_snapshot(snap(again, 150), keep=1)  # stored again: replaced, not doubled
        assert [s.journal_seq for s in again.snapshots()] == [150, 100]
    finally:
        again.close()
