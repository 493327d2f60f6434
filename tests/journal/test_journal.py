"""The journal (DESIGN "Journal", contract 2): real SQLite files in WAL mode with synchronous=FULL,
a SHA-256 chain whose every break `verify()` names, and the outbox written with the position it
derives from. Tampering is done the way an intruder would: with a separate sqlite3 connection."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.journal import Journal, JournalError, JournalUnavailable
from tablectl.journal.chain import GENESIS, record_hash
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tests.helpers import run_unprivileged, write_config

TABLE = "bac-01"


def body(n: int) -> dict[str, Any]:
    return {"type": "shoe.card", "card": f"{'A23456789TJQK'[n % 13]}h"}


def ts(n: int) -> str:
    return f"2024-05-01T12:00:{n:02d}.000000Z"


def row(seq: int, topic: str = "event", payload: bytes | None = None) -> OutboxRow:
    data = payload if payload is not None else b'{"table":"bac-01","seq":%d}' % seq
    return OutboxRow(seq, f"tablectl/site/{TABLE}/{topic}", data, 1, topic == "state")


def fill(journal: Journal, n: int, *, outputs: bool = True) -> list[Record]:
    """Append n records; each gets two outbox rows, written as the daemon does."""
    recs = []
    for _ in range(n):
        k = journal.last_seq + 1
        rec = journal.append(ts(k), "test", None, body(k))
        if outputs:
            journal.write_outputs(rec, [row(2 * k - 1), row(2 * k, "state")])
        recs.append(rec)
    return recs


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "journal.db"


@pytest.fixture
def journal(path: Path) -> Iterator[Journal]:
    j = Journal(path, table=TABLE)
    yield j
    j.close()


def raw(path: Path, *sql: str) -> None:
    """Run statements on the file through a connection of its own, as an intruder would."""
    db = sqlite3.connect(path)
    try:
        for statement in sql:
            db.execute(statement)
        db.commit()
    finally:
        db.close()


def verify_file(path: Path) -> list[str]:
    j = Journal(path, table=None)
    try:
        return j.verify()
    finally:
        j.close()


# -- durability settings --------------------------------------------------------------------


def test_journal_is_in_wal_mode_with_synchronous_full(journal: Journal, path: Path) -> None:
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # 2 = FULL
    other = sqlite3.connect(path)  # WAL is a property of the file: every reader sees it
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        other.close()


def test_reopened_journal_is_again_wal_and_synchronous_full(path: Path) -> None:
    Journal(path, table=TABLE).close()
    j = Journal(path, table=TABLE)
    try:
        assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2
    finally:
        j.close()


def test_appended_record_is_committed_before_append_returns(journal: Journal, path: Path) -> None:
    rec = journal.append(ts(1), "driver/shoe", None, body(1))
    other = sqlite3.connect(path)
    try:
        seen = other.execute("SELECT seq, lower(hex(hash)) FROM journal").fetchall()
    finally:
        other.close()
    assert seen == [(1, rec.hash)]


# -- append / records / the chain -------------------------------------------------------------


def test_append_numbers_records_from_one_and_chains_each_to_the_previous(
    journal: Journal,
) -> None:
    recs = fill(journal, 4)
    assert [r.seq for r in recs] == [1, 2, 3, 4]
    assert recs[0].prev_hash == GENESIS
    for before, after in pairwise(recs):
        assert after.prev_hash == before.hash
    assert len({r.hash for r in recs}) == 4
    assert journal.last_seq == 4


def test_record_hash_is_sha256_over_every_field_and_the_previous_hash(journal: Journal) -> None:
    rec = journal.append(ts(1), "cmd/wager", "req-7", {"type": "bets.close"})
    assert rec.hash == record_hash(GENESIS, 1, ts(1), "cmd/wager", "req-7", '{"type":"bets.close"}')
    assert len(rec.hash) == 64
    assert int(rec.hash, 16) >= 0


def test_records_round_trip_what_was_appended(journal: Journal) -> None:
    appended = [
        journal.append(ts(1), "driver/shoe", None, body(1)),
        journal.append(ts(2), "cmd/bank", "r-1", {"type": "bank", "seat": 4, "amount": "500.00"}),
        journal.append(ts(3), "replay", None, {"type": "input.invalid", "raw": "é", "reason": "x"}),
    ]
    assert list(journal.records()) == appended
    assert list(journal.records(after=1)) == appended[1:]
    assert list(journal.records(after=3)) == []


def test_record_jsonl_is_the_event_with_ts_source_and_ref() -> None:
    rec = Record(5, ts(5), "cmd/bank", "r-9", {"type": "bank", "seat": 4}, GENESIS, "h")
    assert rec.jsonl() == (
        '{"type":"bank","seat":4,"ts":"2024-05-01T12:00:05.000000Z","source":"cmd/bank",'
        '"ref":"r-9"}'
    )
    no_ref = Record(5, ts(5), "replay", None, {"type": "bets.close"}, GENESIS, "h")
    assert '"ref"' not in no_ref.jsonl()


def test_reopening_continues_the_chain(path: Path) -> None:
    first = Journal(path, table=TABLE)
    before = fill(first, 3)
    first.close()
    again = Journal(path, table=TABLE)
    try:
        assert again.last_seq == 3
        (rec,) = fill(again, 1)
        assert rec.seq == 4
        assert rec.prev_hash == before[-1].hash
        assert again.verify() == []
        assert [r.seq for r in again.records()] == [1, 2, 3, 4]
    finally:
        again.close()


def test_reopening_without_a_table_id_reads_the_stored_one(path: Path) -> None:
    Journal(path, table=TABLE).close()
    j = Journal(path, table=None)
    try:
        assert j.table == TABLE
    finally:
        j.close()


def test_journal_of_another_table_is_refused_naming_both_tables(path: Path) -> None:
    Journal(path, table=TABLE).close()
    with pytest.raises(JournalError) as exc_info:
        Journal(path, table="bac-02")
    assert "'bac-01'" in str(exc_info.value)
    assert "'bac-02'" in str(exc_info.value)


def test_new_file_without_a_table_id_is_refused(path: Path) -> None:
    with pytest.raises(JournalError, match="not a tablectl journal"):
        Journal(path, table=None)


def test_file_that_is_not_a_database_is_refused(path: Path) -> None:
    path.write_text("these are not the records you are looking for\n" * 20)
    with pytest.raises(JournalError, match="not a tablectl journal"):
        Journal(path, table=TABLE)


def test_journal_of_a_newer_schema_is_refused(path: Path) -> None:
    Journal(path, table=TABLE).close()
    raw(path, "UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(JournalError, match="schema 99"):
        Journal(path, table=TABLE)


# -- verify(): every kind of tampering is found and the record named ---------------------------


def test_verify_is_empty_on_an_intact_journal(journal: Journal) -> None:
    assert journal.verify() == []
    fill(journal, 6)
    assert journal.verify() == []


def test_verify_is_empty_when_the_last_record_has_no_outputs_yet(journal: Journal) -> None:
    fill(journal, 3)
    fill(journal, 1, outputs=False)  # a crash between the journal commit and the outbox write
    assert journal.verify() == []


def mismatch(seq: int) -> str:
    """What `check` says of a record whose hash its contents and the record before it do not
    give (schema 3 stores no prev_hash to tell a changed record from a misplaced one)."""
    return (
        f"record {seq}: contents altered, or it does not follow the record before it "
        "(hash mismatch)"
    )


SWAP_2_AND_3 = [
    "CREATE TEMP TABLE keep AS SELECT * FROM journal WHERE seq IN (2, 3)",
    *(
        f"UPDATE journal SET ts = k.ts, source = k.source, ref = k.ref, body = k.body, "
        f"hash = k.hash, mac = k.mac FROM keep AS k "
        f"WHERE journal.seq = {a} AND k.seq = {b}"
        for a, b in ((2, 3), (3, 2))
    ),
]

TAMPERING: list[tuple[str, list[str], list[str]]] = [
    (
        "altered body",
        ["""UPDATE journal SET body = '{"type":"shoe.card","card":"9d"}' WHERE seq = 3"""],
        [mismatch(3)],
    ),
    (
        "altered ts",
        ["UPDATE journal SET ts = '2024-05-01T11:59:59.000000Z' WHERE seq = 2"],
        [mismatch(2)],
    ),
    (
        "altered source",
        ["UPDATE journal SET source = 'cmd/bank' WHERE seq = 4"],
        [mismatch(4)],
    ),
    (
        "altered ref",
        ["UPDATE journal SET ref = 'r-1' WHERE seq = 5"],
        [mismatch(5)],
    ),
    (
        # Schema 3 has no prev_hash column: the link is record 3's stored hash, which record 4
        # is checked against. Replaced, record 3 no longer matches and record 4 no longer follows.
        "replaced hash of record 3 (record 4 no longer follows it; was: altered prev_hash)",
        [f"UPDATE journal SET hash = X'{'1' * 64}' WHERE seq = 3"],
        [mismatch(3), mismatch(4)],
    ),
    (
        "deleted middle record",
        ["DELETE FROM journal WHERE seq = 3"],
        ["record 4: records 3-3 are missing (removed)", mismatch(4)],
    ),
    (
        "deleted several middle records",
        ["DELETE FROM journal WHERE seq IN (2, 3, 4)"],
        ["record 5: records 2-4 are missing (removed)"],
    ),
    (
        "deleted first record",
        ["DELETE FROM journal WHERE seq = 1"],
        ["record 2: records 1-1 are missing (removed)"],
    ),
    (
        "swapped contents of records 2 and 3",
        SWAP_2_AND_3,
        [mismatch(2), mismatch(3), mismatch(4)],
    ),
    (
        "swapped numbers of records 2 and 3",
        [
            "UPDATE journal SET seq = -2 WHERE seq = 2",
            "UPDATE journal SET seq = 2 WHERE seq = 3",
            "UPDATE journal SET seq = 3 WHERE seq = -2",
        ],
        [mismatch(2), mismatch(3)],
    ),
    (
        "renumbered last record",
        ["UPDATE journal SET seq = 9 WHERE seq = 6"],
        ["record 9: records 6-8 are missing (removed)", mismatch(9)],
    ),
    (
        "renumbered middle record",
        ["UPDATE journal SET seq = 8 WHERE seq = 3"],
        ["record 4: records 3-3 are missing", "record 8: records 7-7 are missing"],
    ),
    (
        "deleted last records",
        ["DELETE FROM journal WHERE seq >= 5"],
        ["records after 4 were removed: outputs exist up to record 6"],
    ),
    (
        "deleted last record and the applied position",
        ["DELETE FROM journal WHERE seq = 6", "DELETE FROM applied"],
        ["records after 5 were removed: outputs refer to record 6"],
    ),
    (
        "deleted every record",
        ["DELETE FROM journal"],
        ["records after 0 were removed: outputs exist up to record 6"],
    ),
    (
        "inserted forged record at the end",
        [
            "INSERT INTO journal (seq, ts, source, ref, body, hash) "
            f"SELECT 7, ts, source, ref, body, X'{'a' * 64}' FROM journal WHERE seq = 6"
        ],
        [mismatch(7)],
    ),
]


@pytest.mark.parametrize(
    ("sql", "expected"), [(sql, exp) for _, sql, exp in TAMPERING], ids=[t[0] for t in TAMPERING]
)
def test_verify_names_the_record_that_was_tampered_with(
    path: Path, sql: list[str], expected: list[str]
) -> None:
    j = Journal(path, table=TABLE)
    fill(j, 6)
    j.close()
    raw(path, *sql)
    problems = verify_file(path)
    assert problems, "tampering went unnoticed"
    for text in expected:
        assert any(text in p for p in problems), (text, problems)


def test_rechained_alteration_of_the_last_record_is_betrayed_by_the_applied_hash(
    path: Path,
) -> None:
    """An intruder who alters the last record and recomputes its hash keeps the chain valid, but
    the outbox's applied position remembers the hash the outputs came from."""
    j = Journal(path, table=TABLE)
    recs = fill(j, 3)
    j.close()
    forged = '{"type":"shoe.card","card":"9d"}'
    last = recs[-1]
    digest = record_hash(last.prev_hash, last.seq, last.ts, last.source, last.ref, forged)
    raw(path, f"UPDATE journal SET body = '{forged}', hash = X'{digest}' WHERE seq = 3")
    assert verify_file(path) == ["record 3: differs from the record its outputs came from"]


def test_rechained_alteration_of_a_middle_record_is_named_at_the_record_after_it(
    path: Path,
) -> None:
    """Record 3 altered and its own hash recomputed (over the true hash of record 2) checks out
    by itself; the record after it, whose hash covers record 3's old hash, no longer follows."""
    j = Journal(path, table=TABLE)
    recs = fill(j, 6)
    j.close()
    forged = '{"type":"shoe.card","card":"9d"}'
    rec = recs[2]
    digest = record_hash(rec.prev_hash, rec.seq, rec.ts, rec.source, rec.ref, forged)
    raw(path, f"UPDATE journal SET body = '{forged}', hash = X'{digest}' WHERE seq = 3")
    assert verify_file(path) == [mismatch(4)]


def test_verify_notices_a_null_ref_changed_to_an_empty_string(path: Path) -> None:
    j = Journal(path, table=TABLE)
    fill(j, 3)
    j.close()
    raw(path, "UPDATE journal SET ref = '' WHERE seq = 2")
    assert any(p.startswith("record 2:") for p in verify_file(path))


# -- the outbox -------------------------------------------------------------------------------


def test_fresh_journal_has_applied_nothing(journal: Journal) -> None:
    assert journal.applied() == 0
    assert journal.outbox() == []
    assert journal.pending(10) == []


def test_write_outputs_stores_rows_and_moves_the_applied_position(journal: Journal) -> None:
    rec = journal.append(ts(1), "test", None, body(1))
    rows = [row(1), row(2, "state")]
    journal.write_outputs(rec, rows)
    assert journal.applied() == 1
    assert journal.outbox() == rows
    assert journal.unsent_count() == 2


def test_write_outputs_for_the_same_seqs_is_idempotent(journal: Journal) -> None:
    rec = journal.append(ts(1), "test", None, body(1))
    rows = [row(1), row(2, "state")]
    journal.write_outputs(rec, rows)
    journal.write_outputs(rec, rows)  # e.g. recovery after a crash rewrites the same outputs
    assert journal.outbox() == rows
    assert journal.applied() == 1


def test_write_outputs_never_replaces_a_stored_row(journal: Journal) -> None:
    rec = journal.append(ts(1), "test", None, body(1))
    journal.write_outputs(rec, [row(1)])
    journal.write_outputs(rec, [row(1)])  # the same message again: nothing to do
    # A different message under a stored seq means replay no longer matches: refuse loudly.
    with pytest.raises(JournalError, match="outbox message 1 differs"):
        journal.write_outputs(rec, [row(1, payload=b'{"other":true}')])
    assert journal.outbox() == [row(1)]


def test_write_outputs_keeps_rows_already_sent_as_sent(journal: Journal) -> None:
    rec = journal.append(ts(1), "test", None, body(1))
    journal.write_outputs(rec, [row(1), row(2)])
    journal.mark_sent([1])
    journal.write_outputs(rec, [row(1), row(2)])
    assert journal.pending(10) == [row(2)]


def test_failed_write_outputs_stores_nothing_and_leaves_applied_alone(journal: Journal) -> None:
    first = journal.append(ts(1), "test", None, body(1))
    journal.write_outputs(first, [row(1)])
    second = journal.append(ts(2), "test", None, body(2))
    broken = OutboxRow(3, "t/event", object(), 1, False)  # type: ignore[arg-type]
    with pytest.raises(sqlite3.Error):
        journal.write_outputs(second, [row(2), broken])
    assert journal.applied() == 1
    assert journal.outbox() == [row(1)]
    journal.write_outputs(second, [row(2)])  # the connection is usable again
    assert journal.applied() == 2


def test_pending_is_unsent_rows_in_seq_order_up_to_the_limit(journal: Journal) -> None:
    fill(journal, 3)  # outbox seqs 1..6
    assert [r.seq for r in journal.pending(4)] == [1, 2, 3, 4]
    assert [r.seq for r in journal.pending(100)] == [1, 2, 3, 4, 5, 6]


def test_mark_sent_takes_rows_out_of_pending_but_not_out_of_the_outbox(journal: Journal) -> None:
    fill(journal, 3)
    journal.mark_sent([1, 2, 4])
    assert [r.seq for r in journal.pending(100)] == [3, 5, 6]
    assert journal.unsent_count() == 3
    assert [r.seq for r in journal.outbox()] == [1, 2, 3, 4, 5, 6]
    journal.mark_sent([1])  # sending again after a redelivery is harmless
    assert journal.unsent_count() == 3


def test_only_rows_numbered_past_every_stored_one_may_go_before_they_are_stored(path: Path) -> None:
    """The daemon hands a record's rows to the broker before storing them only when none can be
    stored already (so none stored can differ from them): numbered past every row the outbox
    held, this run or before it (the highest is read from the file once)."""
    j = Journal(path, table=TABLE)
    fill(j, 2)  # rows 1-4
    j.close()
    again = Journal(path, table=TABLE)
    try:
        assert again.holds_none_of([row(5), row(6)]) is True
        assert again.holds_none_of([row(4), row(5)]) is False
        assert again.holds_none_of([]) is False
        fill(again, 1)  # rows 5-6
        assert again.holds_none_of([row(6)]) is False
        assert again.holds_none_of([row(7)]) is True
    finally:
        again.close()


def test_a_row_the_broker_took_before_its_store_failed_is_stored_sent(journal: Journal) -> None:
    """A record's rows went to the broker before their store, the store failed (a full disk)
    and the broker's acknowledgment came meanwhile: the store that succeeds marks them sent,
    so they are neither left pending for ever nor sent again."""
    fill(journal, 1)  # rows 1-2
    assert journal.holds_none_of([row(3), row(4)])
    rec = journal.append(ts(2), "test", None, body(2))
    journal.mark_sent([3])  # acknowledged; row 4 is not yet
    journal.write_outputs(rec, [row(3), row(4, "state")])
    assert [r.seq for r in journal.pending(10)] == [1, 2, 4]
    journal.mark_sent([4])
    assert [r.seq for r in journal.pending(10)] == [1, 2]
    # A row of a later record with the same number as one acknowledged early: no such thing
    # is left to mark.
    rec = journal.append(ts(3), "test", None, body(3))
    journal.write_outputs(rec, [row(5), row(6, "state")])
    assert [r.seq for r in journal.pending(10)] == [1, 2, 5, 6]
    # Acknowledged early, then the relay connected again (it published older retained rows
    # anew): stored unsent, so they go again after those.
    rec = journal.append(ts(4), "test", None, body(4))
    journal.mark_sent([7, 8])
    journal.forget_sent_unstored()
    journal.write_outputs(rec, [row(7), row(8, "state")])
    assert [r.seq for r in journal.pending(10)] == [1, 2, 5, 6, 7, 8]


def test_a_read_only_journal_hands_nothing_on_before_it_is_stored(path: Path) -> None:
    j = Journal(path, table=TABLE)
    fill(j, 1)
    j.close()
    reader = Journal(path, table=TABLE, readonly=True)
    try:
        assert reader.holds_none_of([row(3)]) is False
    finally:
        reader.close()


def test_pending_rows_survive_reopening(path: Path) -> None:
    j = Journal(path, table=TABLE)
    fill(j, 2)
    j.mark_sent([1])
    j.close()
    again = Journal(path, table=TABLE)
    try:
        assert [r.seq for r in again.pending(10)] == [2, 3, 4]
        assert again.applied() == 2
    finally:
        again.close()


def test_outbox_rows_keep_topic_payload_qos_and_retain(journal: Journal) -> None:
    rec = journal.append(ts(1), "test", None, body(1))
    rows = [
        OutboxRow(1, "tablectl/s/t/state", b'{"a":"\xc3\xa9"}', 1, True),
        OutboxRow(2, "tablectl/s/t/event", b"{}", 0, False),
    ]
    journal.write_outputs(rec, rows)
    assert journal.outbox() == rows
    assert journal.outbox(topic_suffix="state") == rows[:1]
    assert journal.outbox(topic_suffix="round/result") == []


def test_applied_follows_the_last_record_written(journal: Journal) -> None:
    recs = fill(journal, 4)
    assert journal.applied() == recs[-1].seq


def test_one_writer_at_a_time_a_second_is_refused_until_the_first_closes(path: Path) -> None:
    """Two `tablectl run` (or a run and an import) on one journal would each number records
    from what it last saw: the second writer is refused while the first has the file open, and
    a reader is not (verify, recall, export read while the table runs)."""
    first = Journal(path, table=TABLE)
    try:
        with pytest.raises(JournalUnavailable, match="open for writing by another process"):
            Journal(path, table=TABLE)
        reader = Journal(path, table=TABLE, readonly=True)
        reader.close()
    finally:
        first.close()
    second = Journal(path, table=TABLE)  # free again
    second.close()


def test_run_on_a_journal_another_writer_holds_exits_2_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    holder = Journal(tmp_path / "journal.db", table="t1")
    try:
        assert main(["run", "--config", str(config)]) == 2
    finally:
        holder.close()
    assert "open for writing by another process" in capsys.readouterr().err


def test_a_journal_path_that_is_a_link_to_a_regular_file_is_written_and_locked_through_it(
    tmp_path: Path,
) -> None:
    """paths.py lets a journal path be a link to a regular file: it is opened through the link,
    and the one-writer lock is on the file itself, whichever name a second writer uses. (Found
    in review: the lock was opened with O_NOFOLLOW, so such a journal failed every start with a
    raw OSError.)"""
    real = tmp_path / "real.db"
    Journal(real, table=TABLE).close()
    link = tmp_path / "journal.db"
    link.symlink_to(real)
    first = Journal(link, table=TABLE)
    try:
        first.append("2026-11-29T00:00:00.000000Z", "test", None, {"type": "bets.close"})
        with pytest.raises(JournalUnavailable, match="open for writing by another process"):
            Journal(real, table=TABLE)
    finally:
        first.close()
    reader = Journal(real, table=TABLE, readonly=True)
    assert reader.last_seq == 1
    reader.close()


@pytest.mark.parametrize(("key", "value"), [("witness_from", "x"), ("first_seq", "1.5")])
def test_a_meta_row_edited_to_nonsense_is_a_journal_error_the_daemon_holds_on(
    path: Path, key: str, value: str
) -> None:
    """An edited meta row must not escape as a ValueError (a crash at every start): it is a
    JournalError naming the file, which the daemon holds on (docs/operations.md)."""
    Journal(path, table=TABLE).close()
    db = sqlite3.connect(path)
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="cannot be read as a journal") as caught:
        Journal(path, table=TABLE)
    assert not isinstance(caught.value, JournalUnavailable)


def test_a_journal_whose_schema_row_or_records_table_is_gone_is_named_so(path: Path) -> None:
    """Two edits a technician may meet: the meta row naming the schema deleted ("has journal
    schema None" before), and the records' table dropped (a Python repr before; a writable
    open makes the table again, empty, and the daemon holds on the records gone)."""
    Journal(path, table=TABLE).close()
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="names no journal schema \\(its meta row 'schema' "):
        Journal(path, table=TABLE)
    path.unlink()
    Journal(path, table=TABLE).close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE journal")
    db.commit()
    db.close()
    with pytest.raises(JournalError) as caught:  # read only (verify-journal, recall, export)
        Journal(path, table=None, readonly=True)
    assert str(caught.value).endswith(
        "cannot be read as a journal: OperationalError: no such table: journal"
    )


def test_a_journal_this_user_may_not_read_says_permission_denied() -> None:
    """SQLite says only "unable to open database file" of a journal the user may not read
    (verify-journal, recall and export open it read only): the reason is named. Run as an
    unprivileged user (root reads everything)."""
    folder = Path(tempfile.mkdtemp(prefix="tablectl-perm-"))
    try:
        folder.chmod(0o755)  # the other user reaches the file; the file itself is closed
        path = folder / "journal.db"
        Journal(path, table=TABLE).close()
        path.chmod(0)
        code = (
            "import sys; from pathlib import Path; from tablectl.journal import Journal, "
            "JournalError\n"
            "try:\n    Journal(Path(sys.argv[1]), table=None, readonly=True)\n"
            "except JournalError as exc:\n    print(exc)\n"
        )
        out = run_unprivileged(code, str(path))
        assert "permission denied: this user (uid " in out
        assert "may not read it, uid " in out and "with mode 0000: run as the table's user" in out
        path.chmod(0o644)  # the file readable, its write-ahead log (left by a crash) not
        wal = folder / "journal.db-wal"
        wal.touch(mode=0o600)
        wal.chmod(0 if os.getuid() != 0 else 0o600)  # nobody may not read root's 0600
        out = run_unprivileged(code, str(path))
        assert "may not read its journal.db-wal, uid " in out
    finally:
        shutil.rmtree(folder)


def test_a_record_is_never_appended_inside_a_transaction_left_open(path: Path) -> None:
    """The append is one INSERT in autocommit, committed (and fsync'd) before it returns; inside
    a transaction something left open it would not be, and the record would go out before it
    is durable: refused instead, nothing written."""
    journal = Journal(path, table=TABLE)
    journal.append(ts(1), "test", None, body(1))
    journal.db.execute("BEGIN")
    with pytest.raises(JournalError, match="a transaction is open where a record is appended"):
        journal.append(ts(2), "test", None, body(2))
    journal.db.execute("ROLLBACK")
    assert journal.last_seq == 1
    journal.close()
