"""A device fault while a hand is being read holds the round (no result from a half-read hand)
until the operator resumes or voids it; every result names the devices that fed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import WITH_SHOE, bank, cards, feed, make_config, payloads, play, wager


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


def test_fault_mid_deal_holds_the_round_and_keeps_every_input_for_the_resume(
    tmp_path: Path,
) -> None:
    cfg = make_config(tmp_path, **WITH_SHOE)  # a table with its reader: console cards fill gaps
    table, rows = play(cfg, [*start(tmp_path), status(True, "JAM")])
    assert [a["kind"] for a in payloads(rows, "alert")] == ["device-fault", "round-held"]
    assert payloads(rows, "state")[-1]["held"] == "device shoe: JAM"
    before = table.state
    # A card the shoe reads during the hold is kept, unplayed and unshown, for round.resume.
    out = feed(table, cards("Kd")[0], source="device/shoe")
    (kept,) = payloads(out, "alert")
    assert kept["kind"] == "input-held" and "Kd" not in str(kept)
    assert payloads(out, "state")[-1]["held_inputs"] == 1
    assert table.state == before
    # What the console sends is kept too, in the same queue: no result comes out of a hold.
    out = feed(table, {"type": "bets.close"}, source="cmd/bets.close", ref="c1")
    assert [a["kind"] for a in payloads(out, "alert")] == ["input-held"]
    assert payloads(out, "state")[-1]["held_inputs"] == 2
    assert table.state == before
    assert payloads(out, "round/result") == []
    # A card typed at the console without a position is refused, not kept (R39): the console
    # may only fill a gap its device could not (tests/table/test_positions.py).
    out = feed(table, cards("3s")[0], source="cmd/shoe.card", ref="c2")
    assert [a["rule"] for a in payloads(out, "alert")] == ["R39"]
    assert payloads(out, "cmd/shoe.card/reply")[0]["ok"] is False


def test_a_card_read_during_the_hold_is_played_at_resume_neither_lost_nor_misdealt(
    tmp_path: Path,
) -> None:
    """R25: P 9h, B 2c dealt; the shoe jams; Kd is read after the fault clears but before the
    operator resumes; then 3s. Kept inputs are played at the resume in arrival order. The coup
    is P 9h Kd = 9 natural v B 2c 3s = 5: had Kd been lost, 3s would have gone to the player
    and the coup would be another."""
    table, _ = play(make_config(tmp_path), [*start(tmp_path), status(True, "JAM")])
    feed(table, cards("Kd")[0], source="device/shoe")  # kept
    # Resuming while the jam still stands is refused: clear it first, or void.
    refused = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert payloads(refused, "cmd/round.resume/reply")[0]["ok"] is False
    assert "JAM" in payloads(refused, "alert")[0]["reason"]
    cleared = status(True, None, serial="SH-0042")
    del cleared["source"]
    out = feed(table, cleared, source="device/shoe")
    assert payloads(out, "alert") == []
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r2")
    assert payloads(out, "cmd/round.resume/reply")[0]["ok"] is True
    assert [e["card"] for e in payloads(out, "event") if e["type"] == "shoe.card"] == ["Kd"]
    out = feed(table, cards("3s")[0], source="device/shoe")
    result = payloads(out, "round/result")[0]
    assert result["outcome"]["player"]["cards"] == ["9h", "Kd"]
    assert result["outcome"]["banker"]["cards"] == ["2c", "3s"]
    assert result["outcome"]["winner"] == "player"


def test_void_after_a_hold_says_what_was_kept_and_not_played(tmp_path: Path) -> None:
    table, _ = play(make_config(tmp_path), [*start(tmp_path), status(True, "JAM")])
    kept = feed(table, cards("Kd")[0], source="device/shoe")
    seq = table.position
    out = feed(table, {"type": "round.void", "reason": "misdeal"}, source="cmd/round.void")
    assert payloads(out, "round/result")[0]["void"] is True
    (note,) = [a for a in payloads(out, "alert") if a["kind"] == "held-inputs-discarded"]
    assert note["records"] == [seq] and kept


def test_a_standing_fault_is_alerted_once_not_on_every_report(tmp_path: Path) -> None:
    _, rows = play(
        make_config(tmp_path),
        [
            status(True, "FRAMES_LOST", bad_frames=1),
            status(True, "FRAMES_LOST", bad_frames=2),
            status(True, "FRAMES_LOST", bad_frames=3),
            status(True, None),
            status(True, "FRAMES_LOST", bad_frames=4),
        ],
    )
    assert [a["kind"] for a in payloads(rows, "alert")] == ["device-fault", "device-fault"]


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
    (alert,) = payloads(rows, "alert")
    assert alert["reason"] == "no round is in progress to void"
    assert alert["rule"] == "round.void"
