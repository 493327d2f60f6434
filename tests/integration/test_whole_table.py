"""A whole EZ Baccarat table (R28): the card-reading shoe and the EZTRAK display, both emulated on
real pseudo-terminals, through the real drivers and the daemon. The display ends up showing the
statistics of the rounds the shoe dealt."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.journal import Journal
from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.eztrak import SimulatedEztrak
from tablectl_drivers.sim.shoe import SimulatedShoe
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
            f'[[devices]]\nname = "eztrak"\ndriver = "eztrak"\nport = "{display.port}"\n'
            "emulator = true\n\n[mqtt]",
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

            # While held nothing is played: the engine's state stays as the fault left it.
            state = daemon.table.state
            assert daemon.table.state_payload()["held_inputs"] == 0

            # The dealer frees the card; the shoe reports the fault cleared; the operator resumes.
            shoe.clear()
            await wait("the fault to clear", lambda: "shoe" not in daemon.table.faults)
            await daemon.submit("console", {"type": "round.resume"})
            assert daemon.table.held is None and daemon.table.state == state
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
    # the result names the shoe's positions it used; the hold lost none of them
    assert result["positions"] == [{"device": "shoe", "run": "1", "pos": [1, 2, 3, 4]}]
    alerts = [
        json.loads(r.payload)["kind"] for r in daemon_rows(cfg_path) if r.topic.endswith("/alert")
    ]
    assert alerts == ["device-fault", "round-held"]


def daemon_rows(cfg_path: Path) -> list[OutboxRow]:
    """Everything the daemon's journal says was published, rebuilt by replaying it."""
    cfg = load_config(cfg_path)
    journal = Journal(cfg.journal_path, table=cfg.table.table, readonly=True)
    try:
        table = Table(cfg)
        return [row for rec in journal.records() for row in table.apply(rec)]
    finally:
        journal.close()


SCHEDULES = Path(__file__).resolve().parents[2] / "config" / "schedules"


def tcp_config(folder: Path, port: Path) -> Path:
    """A Three Card Poker 6 Card Bonus table (004 rules) whose shuffler is behind `port`."""
    path = folder / "tcp.toml"
    path.write_text(
        f"""site = "it"
table = "tcp"

[game]
id = "three-card-poker-6cb"

[seats]
count = 7

[limits]
min = "5"
max = "500"

[collection]
file = "{SCHEDULES / "three-card-poker-6cb-004.toml"}"
option = 1

[[devices]]
name = "shuffler"
driver = "shuffler"
port = "{port}"
emulator = true

[devices.options]
stack_size = 3
backoff_initial = 0.01
backoff_max = 0.05

[mqtt]
enabled = false

[journal]
path = "{folder / "tcp.db"}"
"""
    )
    return path


async def test_shuffler_unplugged_mid_round_garbage_and_a_repeated_frame_lose_and_invent_nothing(
    tmp_path: Path,
) -> None:
    """Three Card Poker through the real shuffler driver and the daemon: the shuffler is unplugged
    after the first stack (the round is held: no result from a half-dealt round), garbage arrives
    between frames, the device comes back behind the same name, a stack's frame is repeated
    byte for byte; after `round.resume` the round finishes with exactly the stacks dispensed,
    each once, and the document's result (R29: Q-high qualifies; 9-high loses, pair wins)."""
    cards = ["7s", "7d", "3c", "9c", "8d", "4h", "5d", "Qc", "Js"]
    link = tmp_path / "shuffler0"
    with SimulatedDispenser(stack_size=3, link=link) as sim:
        daemon = Daemon(load_config(tcp_config(tmp_path, link)))
        runner = asyncio.create_task(daemon.run(install_signals=False))
        try:
            await wait("the shuffler", lambda: "shuffler" in daemon.table.serials)
            sim.load(cards, "red")
            for event in (
                {"type": "bank", "seat": 4, "amount": "500"},
                {"type": "wager", "seat": 1, "spot": "ante", "amount": "10"},
                {"type": "wager", "seat": 2, "spot": "ante", "amount": "20"},
                {"type": "bets.close"},
            ):
                await daemon.submit("console", event)
            sim.dispense()  # seat 1: 7s 7d 3c, stack 1
            await wait("the first stack", lambda: len(daemon.table.state.stacks) == 1)
            sim.write_raw(b"\x00\xffnoise$STK,9*00\r\n")  # garbage and a bad checksum
            await asyncio.sleep(0.1)
            sim.unplug()  # unplugged mid-round: the port and its name vanish
            await wait("the hold", lambda: daemon.table.held is not None)
            state = daemon.table.state
            await daemon.submit("console", {"type": "round.resume"})  # refused: still unplugged
            assert daemon.table.held is not None and daemon.table.state == state
            # The same device comes back behind the same name, the rest of its deck still in
            # it, its SEQ and its stack numbers carrying on; the driver asks it to resend from
            # the journal's cursor (stack 1), which brings nothing new.
            sim.replug()
            await wait("the replug", lambda: "shuffler" not in daemon.table.unavailable)
            await daemon.submit("console", {"type": "round.resume"})
            assert daemon.table.held is None
            sim.dispense()  # seat 2: 9c 8d 4h, stack 2
            sim.duplicate_last()  # the same frame again: the driver drops it by its SEQ
            await wait("the second stack", lambda: len(daemon.table.state.stacks) == 2)
            sim.dispense()  # the player-dealer: 5d (face up) Qc Js, stack 3
            await wait("the deciding phase", lambda: daemon.table.state.phase == "deciding")
            await daemon.submit("console", {"type": "decision", "seat": 1, "action": "play"})
            await daemon.submit("console", {"type": "decision", "seat": 2, "action": "play"})
            await wait("the next round", lambda: daemon.table.state.round == 2)
        finally:
            daemon.stop()
            await runner
    rows = daemon_rows(tcp_config(tmp_path, link))
    (result,) = [json.loads(r.payload) for r in rows if r.topic.endswith("/round/result")]
    assert [d["cards"] for d in result["dealt"]] == [cards[0:3], cards[3:6], cards[6:9]]
    assert [(s["seat"], s["spot"], s["net"]) for s in result["settlements"]] == [
        (1, "ante", "10.00"),  # pair of sevens beats Q-J-5
        (1, "play", "10.00"),
        (2, "ante", "-20.00"),  # 9-high loses to a qualifying Q-J-5
        (2, "play", "-20.00"),
    ]
    assert result["positions"] == [{"device": "shuffler", "run": "1", "pos": [1, 2, 3]}]
    kinds = [json.loads(r.payload)["kind"] for r in rows if r.topic.endswith("/alert")]
    assert "round-held" in kinds
    assert kinds.count("rejected") == 1  # the early resume; the repeated frame never arrived
    assert "position-repeated" not in kinds and "gap" not in kinds
