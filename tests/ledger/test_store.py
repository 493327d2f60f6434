"""The ledger's database on a real PostgreSQL (tests/ledger/postgres.py): schema, idempotent
writes keyed by (site, table, seq), the received numbers surviving a restart of the ledger."""

from __future__ import annotations

import json

import psycopg
import pytest

from hil.postgres import PostgresServer
from tablectl.ledger.messages import Received, read_message
from tablectl.ledger.schema import MIGRATIONS, SchemaError, migrate
from tablectl.ledger.store import LedgerStore


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


def test_a_batch_that_fails_leaves_neither_rows_nor_counted_numbers(
    postgres: PostgresServer,
) -> None:
    """A message the database refuses (a time PostgreSQL cannot read) rolls the whole batch
    back: its other messages are neither stored nor counted, so they are not a gap hidden."""
    store = LedgerStore(postgres.conninfo)
    bad = message(2)
    bad = Received(bad.site, bad.table, bad.seq, bad.topic, "not a time", bad.payload, bad.text)
    with pytest.raises(psycopg.Error):
        store.write([message(1), bad])
    assert store.tables == {}
    assert store.conn.execute("SELECT count(*) FROM ledger_messages").fetchone() == (0,)
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
