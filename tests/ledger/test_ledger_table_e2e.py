"""The ledger and a real table daemon (a simulated shoe on a pty) on a real Mosquitto and
PostgreSQL: the ledger starts after the table has played, so the broker never queued the first
rounds for it; it finds the gap below the first numbers it receives (the retained messages),
asks the table for them with `cmd/history`, and ends holding the table's whole session: its
round results equal to those the table's journal gives (`tablectl export` replayed). The
shift's report from those books collects exactly the journal's fees, read back from the page
in a real headless Chromium, and prints to PDF."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from selenium.webdriver.common.by import By

from hil.postgres import PostgresServer
from tablectl.cli import main as cli
from tablectl.ledger.pdf import print_pdf
from tablectl.ledger.report import Shift, build_report
from tablectl.ledger.report_formats import to_html
from tablectl.ledger.service import Ledger
from tablectl.ledger.settings import LedgerBroker, LedgerSection
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.pages import CHROMIUM, Browser
from tests.integration.test_daemon_e2e import finish_round, open_round, wait_ready

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
TIMEOUT = 60.0


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def journal_results(
    cfg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, Any]]:
    """The round results the table's journal gives: its export replayed."""
    export = tmp_path / "export.jsonl"
    capsys.readouterr()
    assert cli(["export", "--config", str(cfg)]) == 0
    export.write_text(capsys.readouterr().out, encoding="utf-8")
    assert cli(["replay", "--config", str(cfg), str(export)]) == 0
    lines = capsys.readouterr().out.splitlines()
    return [
        json.loads(line)["payload"]
        for line in lines
        if json.loads(line)["topic"] == f"{BASE}/round/result"
    ]


async def test_a_gap_older_than_the_brokers_queue_is_filled_from_the_table(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    postgres: PostgresServer,
    shoe: SimulatedShoe,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(cfg)
    ledger = Ledger(
        LedgerSection(
            sites=["it"],
            database=postgres.conninfo,
            batch_ms=20,
            gap_grace_seconds=1,
            history_timeout_seconds=5,
            broker=LedgerBroker(host=mosquitto.host, port=mosquitto.port, client_id="ledger-it"),
        ),
        tmp_path / "ledger.toml",
    )
    task: asyncio.Task[None] | None = None
    try:
        daemon.start()
        await asyncio.to_thread(wait_ready, console, 1)
        shoe.new_shoe(8, seed=11)
        for rnd in (1, 2):  # before the ledger exists
            await asyncio.to_thread(open_round, console, 4)
            await asyncio.to_thread(finish_round, console, shoe, rnd, [])
        task = asyncio.create_task(ledger.run())
        await asyncio.wait_for(ledger.ready.wait(), TIMEOUT)
        await asyncio.to_thread(open_round, console, 6)  # R5: seat 4 banked two running
        await asyncio.to_thread(finish_round, console, shoe, 3, [])
        highest = max(p["seq"] for topic in ("event", "state") for p in console.on(topic))

        loop = asyncio.get_running_loop()
        end = loop.time() + TIMEOUT
        key = ("it", "t1")
        while not (
            ledger._store is not None
            and key in ledger._store.tables
            and ledger._store.tables[key].through >= highest
        ):
            assert loop.time() < end, f"the gap was not filled: {ledger.counts}"
            await asyncio.sleep(0.1)
        assert ledger.counts.filled > 0  # the first rounds came from cmd/history
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        ledger.close()
        daemon.stop_quietly()
        console.close()

    with psycopg.connect(postgres.conninfo) as conn:
        rows = conn.execute(
            "SELECT payload FROM ledger_messages WHERE kind = 'round-result' ORDER BY seq"
        ).fetchall()
    books = [r[0] for r in rows]
    assert [r["round"] for r in books] == [1, 2, 3]
    results = journal_results(cfg, tmp_path, capsys)
    assert books == results

    # The shift's report: its collections are the fees the journal's results took.
    fees = sum((Decimal(f["amount"]) for r in results for f in r["fees"]), Decimal(0))
    assert fees > 0
    everything = Shift("all", datetime(2026, 1, 1, tzinfo=UTC), datetime.now(UTC) + timedelta(1))
    with psycopg.connect(postgres.conninfo) as conn:
        report = build_report(conn, ["it"], everything, "now")
    (table,) = report.tables
    assert (table.rounds, table.collected, table.gaps, table.offline) == (3, fees, [], [])
    assert report.site_totals("it").collected == fees

    page = tmp_path / "report.html"
    page.write_text(to_html(report), encoding="utf-8")
    with Browser(tmp_path, monkeypatch) as driver:
        driver.get(page.as_uri())
        shown = driver.find_element(By.ID, "completeness").text
        collected = driver.find_elements(By.CSS_SELECTOR, "section.table td.collected")
        assert shown.startswith("Complete")
        assert [c.text for c in collected] == [f"{fees:.2f}"]
    pdf = tmp_path / "report.pdf"
    print_pdf(to_html(report), pdf, CHROMIUM)
    assert pdf.read_bytes().startswith(b"%PDF-")
