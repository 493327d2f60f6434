"""A whole EZ Baccarat table (R28): the card-reading shoe and the EZTRAK display, both emulated on
real pseudo-terminals, through the real drivers and the daemon. The display ends up showing the
statistics of the rounds the shoe dealt."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from drivers.sim.eztrak import SimulatedEztrak
from drivers.sim.shoe import SimulatedShoe
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.journal import Journal
from tablectl.relay import OutboxRow
from tablectl.table import Table
from tests.integration.harness import write_config

pytestmark = pytest.mark.integration


async def wait(what: str, cond: object, timeout: float = 10.0) -> None:
    assert callable(cond)
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_shoe_and_eztrak_display_R28(tmp_path: Path) -> None:
    with SimulatedShoe() as shoe, SimulatedEztrak() as display:
        cfg_path = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=1)
        text = cfg_path.read_text().replace("[mqtt]", "[mqtt]\nenabled = false")
        text = text.replace(
            "[mqtt]",
            f'[[devices]]\nname = "eztrak"\ndriver = "eztrak"\nport = "{display.port}"\n\n[mqtt]',
        )
        cfg_path.write_text(text)
        daemon = Daemon(load_config(cfg_path))
        runner = asyncio.create_task(daemon.run(install_signals=False))
        try:
            await wait("both devices", lambda: len(daemon.table.serials) == 2)
            shoe.load(["9h", "2c", "Kd", "3s"])  # P 9h Kd = 9 natural v B 2c 3s = 5
            await daemon.submit("console", {"type": "bank", "seat": 4, "amount": "500"})
            await daemon.submit(
                "console", {"type": "wager", "seat": 1, "spot": "player", "amount": "25"}
            )
            for _ in range(4):
                before = daemon.table.position
                shoe.draw()
                await wait("the card", lambda b=before: daemon.table.position > b)
            await wait(
                "the display to show one hand",
                lambda: (display.screen or {}).get("hands") == 1,
            )
        finally:
            daemon.stop()
            await runner
        screen = display.screen
        assert screen is not None
        stats = screen["stats"]
        assert stats["player"]["count"] == 1 and stats["player"]["pct"] == "100.0"
        assert stats["naturals"]["count"] == 1
        assert screen["limits"] == {"min": "5.00", "max": "500.00"}


async def test_shoe_jam_mid_round_holds_it_until_resumed_then_it_finishes(tmp_path: Path) -> None:
    """A jam reported by the shoe (FLT JAM) while a coup is being read holds the round: cards are
    refused while held, the operator clears the jam and resumes, and the coup finishes with the
    cards the shoe deals next (R25). Real driver, real pty, the daemon's own journal."""
    with SimulatedShoe() as shoe:
        cfg_path = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=1)
        text = cfg_path.read_text().replace("[mqtt]", "[mqtt]\nenabled = false")
        cfg_path.write_text(text)
        daemon = Daemon(load_config(cfg_path))
        runner = asyncio.create_task(daemon.run(install_signals=False))
        try:
            await wait("the shoe", lambda: "shoe" in daemon.table.serials)
            shoe.load(["9h", "2c", "Kd", "3s"])  # P 9h Kd = 9 natural v B 2c 3s = 5
            await daemon.submit("console", {"type": "bank", "seat": 4, "amount": "500"})
            await daemon.submit(
                "console", {"type": "wager", "seat": 1, "spot": "player", "amount": "25"}
            )
            for _ in range(2):
                before = daemon.table.position
                shoe.draw()
                await wait("the card", lambda b=before: daemon.table.position > b)
            shoe.fault("JAM", "card stuck in the reader")
            await wait("the hold", lambda: daemon.table.held is not None)
            assert "JAM" in (daemon.table.held or "")

            # While held, a card (here typed at the console) is refused and changes nothing.
            state = daemon.table.state
            await daemon.submit("console", {"type": "shoe.card", "card": "Kd"})
            assert daemon.table.state == state

            # The dealer frees the card; the shoe reports the fault cleared; the operator resumes.
            shoe.clear()
            await wait("the fault to clear", lambda: "shoe" not in daemon.table.faults)
            await daemon.submit("console", {"type": "round.resume"})
            assert daemon.table.held is None
            for _ in range(2):
                before = daemon.table.position
                shoe.draw()
                await wait("the card", lambda b=before: daemon.table.position > b)
            await wait("the next round", lambda: daemon.table.state.round == 2)
        finally:
            daemon.stop()
            await runner
    results = [
        json.loads(r.payload) for r in daemon_rows(cfg_path) if r.topic.endswith("/round/result")
    ]
    (result,) = results
    assert result["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert result["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert result["settlements"][0]["status"] == "win"
    assert result["devices"][0]["name"] == "shoe"
    alerts = [
        json.loads(r.payload)["kind"] for r in daemon_rows(cfg_path) if r.topic.endswith("/alert")
    ]
    assert alerts[:3] == ["device-fault", "round-held", "rejected"]


def daemon_rows(cfg_path: Path) -> list[OutboxRow]:
    """Everything the daemon's journal says was published, rebuilt by replaying it."""
    cfg = load_config(cfg_path)
    journal = Journal(cfg.journal_path, table=cfg.table.table, readonly=True)
    try:
        table = Table(cfg)
        return [row for rec in journal.records() for row in table.apply(rec)]
    finally:
        journal.close()
