"""The ledger against a real Mosquitto and a real PostgreSQL: a table's published session kept
whole, once, in order of its numbers, across the ledger being away (tablectl/ledger/service.py).

The table's messages are those a replay of a recorded history makes: the same bytes the daemon
published for those records (tests/history/test_replay_golden.py holds them)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import paho.mqtt.client as mqtt
import psycopg
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hil.postgres import PostgresServer
from tablectl.cli.replay import replay_records
from tablectl.config import load_config
from tablectl.ledger.service import Ledger
from tablectl.ledger.settings import LedgerBroker, LedgerSection
from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tests.conftest import MosquittoBroker

REPO = Path(__file__).resolve().parents[2]
HISTORY = REPO / "tests" / "history" / "replay_histories" / "ez-baccarat-panda8"
TIMEOUT = 30.0


def session_rows(tmp_path: Path) -> list[OutboxRow]:
    """Every message the recorded baccarat session published, in order."""
    config = tmp_path / "table.toml"
    text = (HISTORY / "table.toml").read_text(encoding="utf-8").replace("{repo}", str(REPO))
    config.write_text(text, encoding="utf-8")
    table = Table(load_config(config))
    lines = (HISTORY / "events.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    return [row for rec in replay_records(iter(lines)) for row in table.apply(rec)]


class Publisher:
    """A stand-in for the table's relay: publishes rows at QoS 1, waiting for each PUBACK."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="table-stand-in")
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def publish(self, rows: Sequence[OutboxRow]) -> None:
        for row in rows:
            info = self.client.publish(row.topic, row.payload, qos=1, retain=row.retain)
            info.wait_for_publish(TIMEOUT)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def publisher(mosquitto: MosquittoBroker) -> Iterator[Publisher]:
    p = Publisher(mosquitto)
    yield p
    p.close()


def ledger_for(broker: MosquittoBroker, pg: PostgresServer, tmp_path: Path) -> Ledger:
    site = session_site(tmp_path)
    cfg = LedgerSection(
        sites=[site],
        database=pg.conninfo,
        batch_ms=20,
        broker=LedgerBroker(host=broker.host, port=broker.port, client_id="ledger-test"),
    )
    return Ledger(cfg, tmp_path / "ledger.toml")


def session_site(tmp_path: Path) -> str:
    return load_config(tmp_path / "table.toml").table.site


def kept(rows: Sequence[OutboxRow]) -> list[dict[str, object]]:
    """The payloads the books keep (round results, inputs, alerts, devices), by seq."""
    wanted = ("/round/result", "/event", "/alert")
    out = []
    for row in rows:
        if row.topic.endswith(wanted) or (
            "/device/" in row.topic and row.topic.endswith("/status")
        ):
            out.append(json.loads(row.payload))
    return out


def stored(pg: PostgresServer, kind: str | None = None) -> list[object]:
    """The payloads in the books (of one kind), by seq."""
    with psycopg.connect(pg.conninfo) as conn:
        rows = conn.execute(
            "SELECT payload FROM ledger_messages WHERE %s::text IS NULL OR kind = %s ORDER BY seq",
            (kind, kind),
        )
        return [r[0] for r in rows]


async def until(what: str, done: object, timeout: float = TIMEOUT) -> None:
    """Wait (polling) until `done()` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not done():  # type: ignore[operator]
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def test_a_tables_session_is_kept_whole_and_once(
    mosquitto: MosquittoBroker, postgres: PostgresServer, publisher: Publisher, tmp_path: Path
) -> None:
    """Every message the session published is counted (no gap), the books hold exactly the
    kept ones, byte for byte as JSON values, and the round results are the session's results;
    publishing the session again (a redelivery of everything) adds no row."""
    rows = session_rows(tmp_path)
    ledger = ledger_for(mosquitto, postgres, tmp_path)
    task = asyncio.create_task(ledger.run())
    try:
        await asyncio.wait_for(ledger.ready.wait(), TIMEOUT)
        await asyncio.to_thread(publisher.publish, rows)
        last = rows[-1].seq
        await until(
            "every number counted",
            lambda: (
                ledger._store is not None
                and any(r.through == last for r in ledger._store.tables.values())
            ),
        )
        assert stored(postgres) == kept(rows)
        results = [json.loads(r.payload) for r in rows if r.topic.endswith("/round/result")]
        assert len(results) >= 2  # the session has rounds, and the books hold each once
        assert stored(postgres, "round-result") == results
        await asyncio.to_thread(publisher.publish, rows)
        await until("the repeat received", lambda: ledger.counts.repeated >= len(rows) - 1)
        assert stored(postgres) == kept(rows)
        assert ledger._store is not None and ledger._store.gaps() == {}
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        ledger.close()


async def test_messages_published_while_the_ledger_is_away_reach_it_on_return(
    mosquitto: MosquittoBroker, postgres: PostgresServer, publisher: Publisher, tmp_path: Path
) -> None:
    """The broker keeps the ledger's session (clean start off, a session expiry): what the
    table published while the ledger was stopped arrives when it comes back, leaving no gap."""
    rows = session_rows(tmp_path)
    half = len(rows) // 2
    first = ledger_for(mosquitto, postgres, tmp_path)
    task = asyncio.create_task(first.run())
    await asyncio.wait_for(first.ready.wait(), TIMEOUT)
    await asyncio.to_thread(publisher.publish, rows[:half])
    await until("the first half", lambda: first.counts.received >= half)
    await until("the first half written", lambda: not first._pending)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    first.close()

    await asyncio.to_thread(publisher.publish, rows[half:])  # the ledger is away
    second = ledger_for(mosquitto, postgres, tmp_path)
    task = asyncio.create_task(second.run())
    try:
        last = rows[-1].seq
        await until(
            "every number counted",
            lambda: (
                second._store is not None
                and any(r.through == last for r in second._store.tables.values())
            ),
        )
        assert stored(postgres) == kept(rows)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        second.close()


def test_a_ledger_run_against_books_a_newer_tablectl_migrated_ends_in_a_line(
    mosquitto: MosquittoBroker,
    postgres: PostgresServer,
    publisher: Publisher,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`tablectl ledger run` that meets books migrated by a newer version (a downgrade, or an
    upgrade done on one machine of two) stops at its first write with exit 2 and one line
    saying what to do, not a traceback of its task group (what it could not store are gaps a
    ledger that can write asks the tables for); its unit does not start it again on 2."""
    from tablectl.cli import main as cli
    from tablectl.ledger.schema import migrate

    rows = session_rows(tmp_path)
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        migrate(conn)
        conn.execute("INSERT INTO ledger_migrations (version, what) VALUES (999, 'future')")
    config = tmp_path / "ledger.toml"
    config.write_text(
        f'[ledger]\nsites = ["{session_site(tmp_path)}"]\ndatabase = "{postgres.conninfo}"\n'
        f'batch_ms = 20\n[ledger.broker]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n',
        encoding="utf-8",
    )
    stop = threading.Event()

    def keep_publishing() -> None:  # until the ledger has subscribed and met a message
        while not stop.wait(0.2):
            publisher.publish(rows[:3])

    thread = threading.Thread(target=keep_publishing, daemon=True)
    thread.start()
    try:
        assert cli(["ledger", "run", "--config", str(config)]) == 2  # here: its signal handlers
    finally:
        stop.set()
        thread.join(TIMEOUT)
    err = capsys.readouterr().err
    assert "tablectl ledger run: the database: the database was migrated to version 999" in err
    assert "upgrade this ledger" in err and "Traceback" not in err
    unit = (REPO / "systemd" / "tablectl-ledger.service").read_text(encoding="utf-8")
    assert "\nRestartPreventExitStatus=2\n" in unit
