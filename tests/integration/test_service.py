"""The daemon as systemd runs it: Type=notify READY, watchdog pings, a clean stop on SIGTERM;
and the EZTRAK bet timer (R28) closing betting by itself."""

from __future__ import annotations

import asyncio
import socket
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon
from tablectl.journal import Journal
from tablectl.records import parse_ts
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import DaemonProcess, without_shoe, write_config

pytestmark = pytest.mark.integration


def test_sd_notify_ready_watchdog_and_stopping(tmp_path: Path, mosquitto: MosquittoBroker) -> None:
    sock_path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(sock_path))
    sock.settimeout(20)
    with SimulatedShoe() as shoe:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
        daemon = DaemonProcess(
            cfg, env={"NOTIFY_SOCKET": str(sock_path), "WATCHDOG_USEC": "200000"}
        )
        daemon.start()
        try:
            got: list[str] = []
            while not ("READY=1" in got and got.count("WATCHDOG=1") >= 2):
                got += sock.recv(4096).decode().split("\n")
            assert daemon.terminate() == 0, daemon.log_text()
            while "STOPPING=1" not in got:
                got += sock.recv(4096).decode().split("\n")
        finally:
            daemon.stop_quietly()
            sock.close()


def timed_table(tmp_path: Path, seconds: int) -> LoadedConfig:
    """The harness's baccarat table with a bet timer of `seconds` (R28), no device, MQTT off."""
    cfg_path = without_shoe(write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1))
    text = cfg_path.read_text().replace("decks = 8", f"decks = 8\nbet_timer_seconds = {seconds}")
    cfg_path.write_text(text.replace("[mqtt]", "[mqtt]\nenabled = false"))
    return load_config(cfg_path)


async def until_dealing(daemon: Daemon) -> None:
    """Wait (10 s at most) for betting to close."""
    deadline = time.monotonic() + 10
    while daemon.table.state_payload()["phase"] != "dealing":
        assert time.monotonic() < deadline, "the bet timer never closed betting"
        await asyncio.sleep(0.02)


async def test_bet_timer_closes_betting_R28(tmp_path: Path) -> None:
    cfg = timed_table(tmp_path, 1)
    daemon = Daemon(cfg)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await daemon.submit("console", {"type": "bank", "seat": 1, "amount": "100"})
        await daemon.submit("console", {"type": "wager", "seat": 2, "spot": "tie", "amount": "5"})
        await until_dealing(daemon)
    finally:
        daemon.stop()
        await runner
    journal = Journal(cfg.journal_path, table="t1")
    sources = [(r.source, r.body["type"]) for r in journal.records()]
    journal.close()
    assert sources[-1] == ("timer", "bets.close")


async def test_a_restart_during_betting_closes_it_when_state_said_not_a_timer_later_R28(
    tmp_path: Path,
) -> None:
    """`state.bets_close_at` is the first wager's record time plus the timer; a daemon started
    after that moment closes betting at once (the old one restarted the whole timer)."""
    timer = 3
    cfg = timed_table(tmp_path, timer)
    first = Daemon(cfg)
    runner = asyncio.create_task(first.run(install_signals=False))
    try:
        await first.submit("console", {"type": "bank", "seat": 1, "amount": "100"})
        placed = await first.submit(
            "console", {"type": "wager", "seat": 2, "spot": "tie", "amount": "5"}
        )
        closes = first.table.state_payload()["bets_close_at"]
    finally:
        first.stop()
        await runner
    assert parse_ts(closes) == parse_ts(placed.ts) + timedelta(seconds=timer)
    await asyncio.sleep(max(0.0, (parse_ts(closes) - datetime.now(UTC)).total_seconds()) + 0.1)
    second = Daemon(cfg)
    started = datetime.now(UTC)
    runner = asyncio.create_task(second.run(install_signals=False))
    try:
        await until_dealing(second)
    finally:
        second.stop()
        await runner
    journal = Journal(cfg.journal_path, table="t1")
    (closed,) = [r for r in journal.records() if r.source == "timer"]
    journal.close()
    assert parse_ts(closed.ts) >= parse_ts(closes)  # never before the moment state showed
    # at once, not a whole timer after the restart (3 s against the few ms a start takes here)
    assert parse_ts(closed.ts) - started < timedelta(seconds=timer)


async def test_a_failing_driver_is_reported_and_the_table_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg_path = write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1)
    text = cfg_path.read_text().replace("[mqtt]", "[mqtt]\nenabled = false")
    cfg_path.write_text(text)
    cfg = load_config(cfg_path)
    daemon = Daemon(cfg)

    def boom(*_: object) -> None:
        raise OSError("the driver blew up")

    monkeypatch.setattr("tablectl.daemon.devices.load_driver", boom)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        deadline = time.monotonic() + 10
        while not any(r.body.get("fault") == "DRIVER-ERROR" for r in daemon.journal.records()):
            assert time.monotonic() < deadline, "the driver failure was never reported"
            await asyncio.sleep(0.05)
        # the table still takes input
        await daemon.submit("console", {"type": "bank", "seat": 1, "amount": "100"})
        assert daemon.table.state_payload()["player_dealer"]["seat"] == 1
    finally:
        daemon.stop()
        await runner
    assert not daemon.failed


async def test_a_journal_that_cannot_be_written_stops_the_daemon_as_failed(
    tmp_path: Path,
) -> None:
    cfg_path = without_shoe(write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1))
    text = cfg_path.read_text()
    cfg_path.write_text(text.replace("[mqtt]", "[mqtt]\nenabled = false"))
    daemon = Daemon(load_config(cfg_path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    await daemon.submit("console", {"type": "bank", "seat": 1, "amount": "100"})
    daemon.journal.db.close()  # the disk is gone
    with pytest.raises(Exception, match="closed"):
        await daemon.submit("console", {"type": "bets.close"})
    await asyncio.wait_for(runner, 10)  # it stops by itself, and does not hang
    assert daemon.failed  # so `tablectl run` exits 1 and systemd restarts it
