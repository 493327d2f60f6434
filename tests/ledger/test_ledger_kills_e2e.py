"""The ledger as systemd runs it (`tablectl ledger run`, a process of its own) against a real
table daemon, Mosquitto and PostgreSQL: killed (SIGKILL) 20 times during play and the broker
restarted 10 times (it keeps no session across a restart: persistence off), the books end with
every round of the table once, equal to its journal's, and no gap."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from hil.postgres import PostgresServer
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.test_daemon_e2e import finish_round, open_round, wait_ready
from tests.ledger.test_ledger_table_e2e import journal_results

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
ROUNDS = 20
TIMEOUT = 90.0


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def ledger_config(folder: Path, broker: MosquittoBroker, pg: PostgresServer) -> Path:
    path = folder / "ledger.toml"
    path.write_text(
        f"""[ledger]
sites = ["it"]
database = "{pg.conninfo}"
batch_ms = 20
gap_grace_seconds = 1
history_timeout_seconds = 3
[ledger.broker]
host = "{broker.host}"
port = {broker.port}
client_id = "ledger-it"
keepalive = 5
""",
        encoding="utf-8",
    )
    return path


def books(pg: PostgresServer) -> tuple[int, list[object]]:
    """What the books hold of t1: every number received through, and the round results (none
    before the ledger's first start created its tables)."""
    with psycopg.connect(pg.conninfo) as conn:
        made = conn.execute("SELECT to_regclass('ledger_tables')").fetchone()
        if made is None or made[0] is None:
            return 0, []
        through = conn.execute(
            "SELECT coalesce(max(through), 0) FROM ledger_tables WHERE table_id = 't1'"
        ).fetchone()
        rows = conn.execute(
            "SELECT payload FROM ledger_messages WHERE table_id = 't1' AND kind = 'round-result' "
            "ORDER BY seq"
        ).fetchall()
    return (int(through[0]) if through else 0), [r[0] for r in rows]


def subscribed(ledger: DaemonProcess, starts: int) -> None:
    """Wait until the ledger's `starts`-th process has subscribed (its log says so)."""
    end = time.monotonic() + TIMEOUT
    while (
        ledger.log_text().count('"subscribed"') + ledger.log_text().count(" subscribed ") < starts
    ):
        assert time.monotonic() < end, "the ledger did not subscribe:\n" + ledger.log_text()
        time.sleep(0.05)


def test_killed_twenty_times_and_the_broker_restarted_ten_every_round_is_kept_once(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    postgres: PostgresServer,
    shoe: SimulatedShoe,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(cfg)
    ledger = DaemonProcess(
        ledger_config(tmp_path, mosquitto, postgres), command=("ledger", "run"), log="ledger.log"
    )
    kills = restarts = 0
    try:
        daemon.start()
        wait_ready(console, 1)
        ledger.start()
        shoe.new_shoe(8, seed=23)
        banker = 4
        for rnd in range(1, ROUNDS + 1):
            if rnd % 2 == 1:  # R5: a seat banks at most two hands running
                banker = 4 if banker != 4 else 6
            subscribed(ledger, kills + 1)
            open_round(console, banker)
            ledger.kill()  # SIGKILL mid-round: whatever it had not committed is lost to it
            kills += 1
            ledger.start()
            finish_round(console, shoe, rnd, [])
            if rnd % 2 == 0:
                mosquitto.stop()  # the ledger's session and queue go with it
                mosquitto.start()
                restarts += 1
                wait_ready(console, 1 + restarts)
        highest = max(
            p["seq"] for m in console.messages if isinstance(p := m.payload, dict) and "seq" in p
        )
        end = time.monotonic() + TIMEOUT
        while books(postgres)[0] < highest:
            assert time.monotonic() < end, (
                f"books through {books(postgres)[0]} of {highest}:\\n" + ledger.log_text()[-3000:]
            )
            time.sleep(0.2)
        assert ledger.terminate() == 0, ledger.log_text()[-3000:]
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        ledger.stop_quietly()
        daemon.stop_quietly()
        console.close()
    assert (kills, restarts) == (20, 10)
    _, kept = books(postgres)
    assert [json.loads(json.dumps(r))["round"] for r in kept] == list(range(1, ROUNDS + 1))
    assert kept == journal_results(cfg, tmp_path, capsys)
