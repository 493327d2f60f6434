"""Issue 9 through the whole daemon (real Mosquitto, the shoe emulator on a real pty): the round
completes with the true deal after a resend, or is held with an alert and resumed once the gap
is filled; FRAMES_LOST no longer needs a new shoe.

The coup in each test is R25's: P 9h, B 2c, P Kd, B 3s, the player's natural 9 against the
banker's 5. What is asserted is the deal each result records against what the shoe dealt; the
settlement of that coup is tested at table level (tests/table/test_device_hold.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import Console, DaemonProcess, write_config

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
COUP = ["9h", "2c", "Kd", "3s"]


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[SimulatedShoe]:
    with SimulatedShoe(link=tmp_path / "shoe0") as s:
        yield s


@pytest.fixture
def table(
    tmp_path: Path, shoe: SimulatedShoe, mosquitto: MosquittoBroker
) -> Iterator[tuple[Console, DaemonProcess]]:
    config = write_config(tmp_path, shoe_port=str(tmp_path / "shoe0"), mqtt_port=mosquitto.port)
    text = config.read_text().replace(
        'port = "' + str(tmp_path / "shoe0") + '"\n',
        'port = "'
        + str(tmp_path / "shoe0")
        + '"\n[devices.options]\nresend_timeout = 0.5\nresend_retry = 0.5\n',
    )
    config.write_text(text)
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(config)
    daemon.start()
    try:
        console.wait_for("shoe available", console.device_available)
        yield console, daemon
    finally:
        daemon.stop_quietly()
        console.close()


def bets(console: Console) -> None:
    console.ok("bank", {"seat": 3, "amount": "500"})
    console.ok("wager", {"seat": 4, "spot": "player", "amount": "20"})
    console.ok("bets.close", {})


def alerts(console: Console) -> list[str]:
    return [a["kind"] for a in console.on("alert")]


def result(console: Console) -> dict[str, Any]:
    console.wait_for("a round result", lambda: bool(console.on("round/result")))
    found: dict[str, Any] = console.on("round/result")[-1]
    return found


def test_a_lost_card_frame_is_resent_and_the_round_completes_unheld(
    table: tuple[Console, DaemonProcess], shoe: SimulatedShoe
) -> None:
    console, _ = table
    shoe.load(COUP)
    bets(console)
    shoe.draw()
    shoe.drop_next()
    shoe.draw()  # 2c never reaches the driver on the first try
    shoe.draw()
    shoe.draw()
    r = result(console)
    assert r["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert r["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert r["positions"] == [{"device": "shoe", "run": "1", "pos": [1, 2, 3, 4]}]
    assert "round-held" not in alerts(console)


def test_a_misread_card_holds_the_round_until_the_dealer_enters_it_R39(
    table: tuple[Console, DaemonProcess], shoe: SimulatedShoe
) -> None:
    console, _ = table
    shoe.load(COUP)
    bets(console)
    shoe.draw()
    assert shoe.misread() == "2c"  # the card left the shoe unread: only the dealer knows it
    shoe.draw()
    shoe.draw()
    console.wait_for("the hold", lambda: "round-held" in alerts(console))
    gap = next(a for a in console.on("alert") if a["kind"] == "gap")
    assert "position(s) 2 of 1 missing" in gap["reason"]
    refused = console.send("round.resume", {})
    assert refused["ok"] is False and "missing" in refused["reason"]
    console.ok("shoe.card", {"card": "2c", "at": {"pos": 2}})
    console.wait_for("gap filled", lambda: "gap-filled" in alerts(console))
    console.ok("round.resume", {})
    r = result(console)
    assert r["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert r["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert r["entered_by_hand"] == [{"device": "shoe", "run": "1", "pos": 2}]


def test_frames_lost_clears_with_a_resend_and_the_round_resumes_without_a_new_shoe(
    table: tuple[Console, DaemonProcess], shoe: SimulatedShoe
) -> None:
    """The shoe stops answering resends while a frame is lost: FRAMES_LOST holds the round.
    Once it answers again the resend comes back whole, the fault clears, and round.resume plays
    on in the same shoe (it used to need a new shoe, so every such round was voided)."""
    console, _ = table
    shoe.load(COUP)
    bets(console)
    shoe.answer_resends = False
    shoe.draw()
    shoe.drop_next()
    shoe.draw()
    shoe.draw()
    console.wait_for("the hold", lambda: "round-held" in alerts(console))
    assert console.on("device/shoe/status")[-1]["fault"] == "FRAMES_LOST"
    shoe.answer_resends = True
    console.wait_for("fault cleared", lambda: console.on("device/shoe/status")[-1]["fault"] is None)
    shoe.draw()
    console.ok("round.resume", {})
    r = result(console)
    assert r["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert r["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert "entered_by_hand" not in r


def test_a_card_read_twice_is_told_and_dealt_once(
    table: tuple[Console, DaemonProcess], shoe: SimulatedShoe
) -> None:
    console, _ = table
    shoe.load(COUP)
    bets(console)
    shoe.draw()
    shoe.draw()
    shoe.repeat_last()  # 2c read twice: without positions it went to the player
    shoe.draw()
    shoe.draw()
    r = result(console)
    assert r["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert r["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert "position-repeated" in alerts(console)


def test_a_jam_mid_coup_holds_and_the_round_resumes_with_the_card_read_meanwhile(
    table: tuple[Console, DaemonProcess], shoe: SimulatedShoe
) -> None:
    console, _ = table
    shoe.load(COUP)
    bets(console)
    shoe.draw()
    shoe.draw()
    shoe.fault("JAM", "card stuck at exit")
    console.wait_for("the hold", lambda: "round-held" in alerts(console))
    shoe.draw()  # read after the jam, before anyone resumed: kept, not dealt
    console.wait_for("kept", lambda: "input-held" in alerts(console))
    refused = console.send("round.resume", {})
    assert refused["ok"] is False and "JAM" in refused["reason"]
    shoe.clear()
    console.wait_for("jam cleared", lambda: console.on("device/shoe/status")[-1]["fault"] is None)
    console.ok("round.resume", {})
    shoe.draw()
    r = result(console)
    assert r["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert r["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert r["positions"] == [{"device": "shoe", "run": "1", "pos": [1, 2, 3, 4]}]
