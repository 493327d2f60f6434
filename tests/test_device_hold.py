"""A device fault while a hand is being read holds the round (no result from a half-read hand)
until the operator resumes or voids it; every result names the devices that fed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import bank, cards, feed, make_config, payloads, play, wager


def shoe(event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "source": "device/shoe"}


def status(available: bool, fault: str | None, **detail: Any) -> dict[str, Any]:
    body = {"type": "device.status", "device": "shoe", "available": available, "fault": fault}
    return shoe({**body, "detail": detail})


def start(tmp_path: Path) -> list[dict[str, Any]]:
    return [
        status(True, None, serial="SH-0042"),
        bank(3, "500"),
        wager(4, "player", "20"),
        wager(5, "banker", "30"),
        shoe(cards("9h")[0]),
        shoe(cards("2c")[0]),
    ]


def test_fault_mid_deal_holds_the_round_and_refuses_cards(tmp_path: Path) -> None:
    table, rows = play(make_config(tmp_path), [*start(tmp_path), status(True, "JAM")])
    assert [a["kind"] for a in payloads(rows, "alert")] == ["device-fault", "round-held"]
    assert payloads(rows, "state")[-1]["held"] == "device shoe: JAM"
    before = table.state
    out = feed(table, cards("Kd")[0], source="device/shoe")
    assert [a["rule"] for a in payloads(out, "alert")] == ["device fault"]
    assert table.state == before
    assert payloads(out, "round/result") == []


def test_resume_refused_while_unplugged_then_play_goes_on(tmp_path: Path) -> None:
    table, _ = play(make_config(tmp_path), [*start(tmp_path), status(False, "DISCONNECTED")])
    refused = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert payloads(refused, "cmd/round.resume/reply")[0]["ok"] is False
    back = status(True, None, serial="SH-0042")
    del back["source"]
    feed(table, back, source="device/shoe")
    ok = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r2")
    assert payloads(ok, "cmd/round.resume/reply")[0]["ok"] is True
    out: list[Any] = []
    for ev in cards("Kd 3s"):  # P 9h Kd = 9, B 2c 3s = 5: player natural, no third cards
        out += feed(table, ev, source="device/shoe")
    result = payloads(out, "round/result")[0]
    assert result["outcome"]["winner"] == "player"
    assert result["devices"] == [{"name": "shoe", "serial": "SH-0042"}]


def test_void_returns_every_wager_and_charges_nothing(tmp_path: Path) -> None:
    table, _ = play(make_config(tmp_path), [*start(tmp_path), status(True, "FRAMES_LOST")])
    out = feed(table, {"type": "round.void", "reason": "cards lost"}, source="cmd/round.void")
    result = payloads(out, "round/result")[0]
    assert result["void"] is True and result["reason"] == "cards lost"
    assert [(s["seat"], s["status"], s["net"]) for s in result["settlements"]] == [
        (4, "returned", "0.00"),
        (5, "returned", "0.00"),
    ]
    assert result["bank"]["start"] == result["bank"]["end"] == "500.00"
    assert result["fees"] == []
    assert table.held is None
    state = payloads(out, "state")[-1]
    assert state["round"] == 2 and state["phase"] == "betting"
    # A voided hand does not count as one of the player-dealer's two (R5): seat 3 may bank
    # twice more.
    assert state["bank_offer_seat"] is None


def test_fault_between_rounds_holds_nothing(tmp_path: Path) -> None:
    table, rows = play(make_config(tmp_path), [status(True, "JAM")])
    assert [a["kind"] for a in payloads(rows, "alert")] == ["device-fault"]
    assert table.held is None


def test_void_without_a_round_is_refused(tmp_path: Path) -> None:
    _, rows = play(make_config(tmp_path), [{"type": "round.void"}])
    assert payloads(rows, "alert")[0]["reason"] == "no round is in progress to void"
