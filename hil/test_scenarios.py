"""Every recorded scenario under hil/scenarios, played against the emulated ports (pseudo-
terminals) through the real daemon and a real Mosquitto; the published messages must match the
scenario's expected file. On a rig, `python -m hil.runner SCENARIO --port ...` plays the same
traffic into real ports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hil.runner import compare, run

SCENARIOS = sorted(p for p in (Path(__file__).parent / "scenarios").iterdir() if p.is_dir())


@pytest.mark.integration
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario_publishes_what_was_recorded(scenario: Path) -> None:
    expected = [
        json.loads(line)
        for line in (scenario / "expected.jsonl").read_text().splitlines()
        if line.strip()
    ]
    assert compare(expected, run(scenario)) == []


def test_two_round_scenario_settles_as_worked_by_hand_R1_R2_R27() -> None:
    """The expected file itself is checked against the document, not just against a past run."""
    path = Path(__file__).parent / "scenarios" / "ez-baccarat-two-rounds" / "expected.jsonl"
    results = [
        m["payload"]
        for m in map(json.loads, path.read_text().splitlines())
        if m["topic"].endswith("/round/result")
    ]
    first, second = results
    # Round 1: P 9h Kd natural 9 v B 2c 3s = 5. Bank seat 4; action from seat 5 clockwise, so
    # seat 6 acts first (R2). Seat 1 player +25; seat 6 banker -100, tie -10: bank 500-25+100+10.
    assert first["action_seat"] == 6
    assert first["bank"]["end"] == "585.00"
    # Round 2: P 2h 3d 3h = 8 (three cards) v B Kc 4s 2c = 6: Panda 8 pays 25:1 (R27).
    # Seat 2 player +50 and panda8 10 x 25 = +250; seat 7 banker -40, dragon7 -5:
    # bank 500-50+40-250+5 = 245. Total action 105 -> schedule 3 fee $1 (R4).
    assert second["outcome"]["panda8"] is True
    assert second["bank"] == {"seat": 4, "start": "500.00", "end": "245.00", "turn": 2}
    assert [f["amount"] for f in second["fees"]] == ["1.00"]


def test_eztrak_scenario_display_ends_showing_both_rounds_R28() -> None:
    """What the emulated EZTRAK shows at the end, checked against the document: round 1 a player
    natural 9 v 5, round 2 a player Panda 8 (three-card 8 v 6): two player wins, one natural, one
    Panda 8 (R27, R28); the bead plate holds two P."""
    path = Path(__file__).parent / "scenarios" / "ez-baccarat-eztrak" / "expected.jsonl"
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["topic"] == "emulator/eztrak/screen"
    screen = last["payload"]
    assert screen["hands"] == 2
    assert screen["stats"]["player"] == {"count": 2, "pct": "100.0"}
    assert screen["stats"]["panda8"] == {"count": 1, "pct": "50.0"}
    assert screen["stats"]["naturals"] == {"count": 1, "pct": "50.0"}
    assert screen["roads"]["bead_plate"] == [["P", "P"]]
