"""The ledger's database on a real PostgreSQL (tests/ledger/postgres.py): schema, idempotent
writes keyed by (site, table, seq), the received numbers surviving a restart of the ledger."""

from __future__ import annotations

import json

import psycopg
import pytest

from hil.postgres import PostgresServer
from tablectl.ledger.messages import Received, read_message
from tablectl.ledger.schema import MIGRATIONS, SchemaError, migrate
from tablectl.ledger.store import LedgerBusy, LedgerStore


def message(seq: int, below: str = "event", table: str = "bac-1", **fields: object) -> Received:
    body = {"table": table, "seq": seq, "ts": "2026-11-29T10:00:00.000000Z", "v": 1, **fields}
    msg = read_message("tablectl", f"tablectl/room-1/{table}/{below}", json.dumps(body).encode())
    assert msg is not None
    return msg


def test_a_message_delivered_twice_is_one_row(postgres: PostgresServer) -> None:
    store = LedgerStore(postgres.conninfo)
    first = store.write([message(1, type="wager"), message(2, "state"), message(3, type="card")])
    again = store.write([message(1, type="wager"), message(3, type="card")])
    assert (first.rows, first.counted, first.repeated) == (2, 3, 0)
    assert (again.rows, again.counted, again.repeated) == (0, 0, 2)
    rows = store.conn.execute(
        "SELECT seq, kind, payload->>'type' FROM ledger_messages ORDER BY seq"
    ).fetchall()
    assert rows == [(1, "event:wager", "wager"), (3, "event:card", "card")]
    store.close()


def test_the_gaps_survive_a_restart_of_the_ledger(postgres: PostgresServer) -> None:
    store = LedgerStore(postgres.conninfo)
    store.write([message(s) for s in (1, 2, 5)] + [message(1, table="bac-2")])
    store.close()
    again = LedgerStore(postgres.conninfo)
    assert again.gaps() == {("room-1", "bac-1"): [(3, 4)]}
    again.write([message(3), message(4)])
    assert again.gaps() == {}
    assert again.tables[("room-1", "bac-1")].through == 5
    again.close()


def test_a_batch_the_database_cannot_take_leaves_neither_rows_nor_counted_numbers(
    postgres: PostgresServer,
) -> None:
    """The connection gone mid-write: nothing of the batch is stored or counted, so its numbers
    are not a gap hidden (the ledger writes the batch again on a new connection)."""
    store = LedgerStore(postgres.conninfo)
    store.conn.close()
    with pytest.raises(psycopg.OperationalError):
        store.write([message(1), message(2)])
    assert store.tables == {}


def test_a_message_the_database_refuses_is_quarantined_and_the_rest_written(
    postgres: PostgresServer,
) -> None:
    """jsonb cannot hold a NUL (an alert can echo a refused input that carried one) and a time
    must be a time: each such message goes to the quarantine with the database's reason, its
    number counted, and the batch's other messages are written: one bad message never stops
    the books."""
    store = LedgerStore(postgres.conninfo)
    nul = message(2, "alert", kind="rejected", input={"player": "ab\u0000c"})
    assert "\\u0000" in nul.text  # the NUL, as JSON escapes it
    bad = message(3)
    bad = Received(bad.site, bad.table, 3, bad.topic, "not a time", bad.payload, bad.text)
    done = store.write([message(1), nul, bad, message(4)])
    assert (done.rows, done.counted, done.quarantined) == (2, 4, 2)
    assert store.gaps() == {} and store.tables[("room-1", "bac-1")].through == 4
    held = store.conn.execute("SELECT seq FROM ledger_messages ORDER BY seq").fetchall()
    assert held == [(1,), (4,)]
    quarantined = store.conn.execute(
        "SELECT seq, reason FROM ledger_quarantine ORDER BY seq"
    ).fetchall()
    assert [q[0] for q in quarantined] == [2, 3]
    assert all(q[1].startswith("the database refused it") for q in quarantined)
    store.close()


def test_a_number_held_with_another_payload_is_kept_apart_not_dropped(
    postgres: PostgresServer,
) -> None:
    """A table whose journal began again at 1 (or an export that is not what was published):
    the books keep the first message under a number, and the other goes to the quarantine."""
    store = LedgerStore(postgres.conninfo)
    store.write([message(1, type="wager")])
    again = store.write([message(1, type="wager")])
    other = store.write([message(1, type="bank")])
    assert (again.repeated, again.differed) == (1, 0)
    assert (other.rows, other.repeated, other.differed) == (0, 1, 1)
    kinds = store.conn.execute("SELECT kind FROM ledger_messages").fetchall()
    assert kinds == [("event:wager",)]
    (reason,) = store.conn.execute("SELECT reason FROM ledger_quarantine").fetchone() or ("",)
    assert reason == "differs from the message already held under its number"
    store.close()


def test_migrating_twice_applies_nothing_the_second_time(postgres: PostgresServer) -> None:
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        assert migrate(conn) == [m.version for m in MIGRATIONS]
        assert migrate(conn) == []


def test_a_database_from_a_newer_ledger_is_refused(postgres: PostgresServer) -> None:
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        migrate(conn)
        conn.execute("INSERT INTO ledger_migrations (version, what) VALUES (999, 'future')")
        with pytest.raises(SchemaError, match="version 999 by a newer tablectl"):
            migrate(conn)


def test_one_writer_a_database_and_readers_beside_it(postgres: PostgresServer) -> None:
    """A `ledger load` while `ledger run` writes would have each write its own view of the
    received numbers over the other's: the second writer is refused, saying what to do; a
    reader (`ledger gaps`) is not."""
    first = LedgerStore(postgres.conninfo)
    with pytest.raises(LedgerBusy, match="another ledger is writing to this database"):
        LedgerStore(postgres.conninfo)
    reader = LedgerStore(postgres.conninfo, writer=False)
    reader.close()
    first.close()
    LedgerStore(postgres.conninfo).close()  # free again once the first has gone


def test_a_message_twice_in_one_batch_is_one_row(postgres: PostgresServer) -> None:
    store = LedgerStore(postgres.conninfo)
    done = store.write([message(1, type="wager"), message(1, type="wager"), message(2)])
    assert (done.rows, done.counted, done.repeated, done.differed) == (2, 2, 1, 0)
    store.close()


def _tables(conninfo: str) -> set[str]:
    with psycopg.connect(conninfo, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {str(r[0]) for r in rows}


def test_a_reader_never_creates_or_migrates_the_books_and_says_who_does(
    postgres: PostgresServer,
) -> None:
    """`ledger gaps` and `ledger report` read the books, perhaps from accounting's machine with
    another tablectl than the running ledger: they change no schema (DDL beside a ledger of
    another version could break its writes), and say what to do instead."""
    with pytest.raises(SchemaError, match="holds no books yet: the ledger creates them"):
        LedgerStore(postgres.conninfo, writer=False)
    assert _tables(postgres.conninfo) == set()  # nothing was created
    LedgerStore(postgres.conninfo).close()  # the writer creates them
    reader = LedgerStore(postgres.conninfo, writer=False)
    assert reader.tables == {}
    reader.close()
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        conn.execute("DELETE FROM ledger_migrations WHERE version = %s", (MIGRATIONS[-1].version,))
    with pytest.raises(SchemaError, match=r"lack version .* upgrade the ledger"):
        LedgerStore(postgres.conninfo, writer=False)
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO ledger_migrations (version, what) VALUES (%s, 'back'), (999, 'future')",
            (MIGRATIONS[-1].version,),
        )
    newer = r"version 999 by a newer tablectl.*upgrade this tablectl"
    with pytest.raises(SchemaError, match=newer):
        LedgerStore(postgres.conninfo, writer=False)


def test_the_readers_read_a_hot_standby_the_old_migrating_reader_could_not(
    postgres: PostgresServer,
) -> None:
    """docs/operations.md: reports off a replica, a hot standby `ledger report` and `gaps`
    read. A reader that migrated (as readers did) fails there, the standby refusing any DDL;
    one that only checks the schema reads it."""
    writer = LedgerStore(postgres.conninfo)
    writer.close()
    standby = PostgresServer()
    try:
        standby.init_standby(postgres)
        standby.start()
        with psycopg.connect(standby.conninfo, autocommit=True) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                migrate(conn)
        reader = LedgerStore(standby.conninfo, writer=False)
        assert reader.gaps() == {}
        reader.close()
    finally:
        if standby.running:
            standby.stop("immediate")
        standby.remove()
