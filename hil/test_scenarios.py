"""Every recorded scenario under hil/scenarios, played against the emulated ports (pseudo-
terminals) through the real daemon and a real Mosquitto; the published messages must match the
scenario's expected file. On a rig, `python -m hil.runner SCENARIO --port ...` plays the same
traffic into real ports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def _expected(name: str) -> list[dict[str, Any]]:
    path = Path(__file__).parent / "scenarios" / name / "expected.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_three_card_poker_scenario_settles_as_worked_by_hand_R1_R2_R29() -> None:
    """004 rules. Player-dealer seat 4 holds 5d Qc Js: queen high, qualifies (R29). Face-up 5d
    counts seats 1, 2, 3, 5, 6 (the player-dealer's seat skipped): the action button is at seat 6
    (R2). Seat 6 K-Q-2 beats Q-J-5: Ante and Play +10 each; its 6 Card Bonus (Kh Qh 2c 5d Qc Js:
    a pair of queens) loses 5 on TCB-6B2. Seat 1 pair of sevens wins Ante and Play +10 each, Pair
    Plus pair 1 to 1 +5, 6 Card Bonus (pair) -5. Seat 2 folds: Ante -20. Bank 500 - 15 = 485.
    Fee: total action 10+5+5+20+10+5 = 55, in 004 schedule 1's "$50-$95" row: $1."""
    messages = _expected("three-card-poker-one-round")
    (result,) = [m["payload"] for m in messages if m["topic"].endswith("/round/result")]
    assert result["action_seat"] == 6
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "485.00", "turn": 1}
    assert [(s["seat"], s["spot"], s["status"], s["net"]) for s in result["settlements"]] == [
        (6, "ante", "win", "10.00"),
        (6, "play", "win", "10.00"),
        (6, "six-card-bonus", "lose", "-5.00"),
        (1, "ante", "win", "10.00"),
        (1, "play", "win", "10.00"),
        (1, "pair-plus", "win", "5.00"),
        (1, "six-card-bonus", "lose", "-5.00"),
        (2, "ante", "lose", "-20.00"),
    ]
    assert [(f["payer"], f["amount"]) for f in result["fees"]] == [("player-dealer", "1.00")]


def test_three_card_poker_scenario_shows_no_card_before_the_table_does_contract3() -> None:
    """Until the showdown only the player-dealer's face-up 5d may appear on any topic; seat 2's
    folded 9c 8d 4h never appears at all."""
    messages = _expected("three-card-poker-one-round")
    first_result = next(i for i, m in enumerate(messages) if m["topic"].endswith("/round/result"))
    hidden = ["Kh", "Qh", "2c", "7s", "7d", "3c", "Qc", "Js"]
    before = json.dumps(messages[:first_result])
    assert not [c for c in hidden if f'"{c}"' in before]
    assert '"5d"' in before
    everything = json.dumps(messages)
    assert not [c for c in ("9c", "8d", "4h") if f'"{c}"' in everything]


def test_fortune_pai_gow_scenario_settles_as_worked_by_hand_R30_R31_R32() -> None:
    """003 rules. Dice 2+3+4 = 9; the player-dealer (seat 3) is position 1 and 8, so 9 is seat 4
    (R30): it gets the first hand and, though it has no wager, the Action button; settlement
    starts at the first wagering seat from it, seat 5.
    Player-dealer, house way (one pair, joker as an ace, 003 "Fortune Pai Gow Poker House Way"):
    Q-Q-6-5-3 behind, A(joker)-9 in front.
    Seat 5, house way (four kings split, 003 "Fortune Pai Gow Poker House Way"): K-K-9-4-2 beats
    Q-Q, K-K beats A-9:
    base +50; Fortune four of a kind 25 to 1 on $10: +250.
    Seat 6 sets 7-7 in front: A-A-Q-5-3 beats Q-Q, 7-7 beats A-9: +20; Fortune (two pair) -5;
    its Envy button pays $5 for seat 5's four of a kind (R32).
    Seat 1, house way (full house: the pair in front, 003 "Fortune Pai Gow Poker House Way"):
    T-T-T-8-4 and J-J both win:
    +30. Bank 1000 - 350 = 650.
    Fee: total action 50+10+20+5+30 = 115, schedule 7's "$101-$200" row
    (003 "Fortune Pai Gow Poker: Collection Fees"): $2."""
    messages = _expected("fortune-pai-gow-one-round")
    (result,) = [m["payload"] for m in messages if m["topic"].endswith("/round/result")]
    outcome = result["outcome"]
    assert (outcome["total"], outcome["first_seat"], outcome["button_seat"]) == (9, 4, 4)
    assert result["action_seat"] == 5
    assert outcome["player_dealer"]["high"]["cards"] == ["Qd", "Qs", "6s", "5h", "3h"]
    assert sorted(outcome["player_dealer"]["low"]["cards"]) == ["9s", "JKR"]
    assert result["bank"] == {"seat": 3, "start": "1000.00", "end": "650.00", "turn": 1}
    assert [(s["seat"], s["spot"], s["status"], s["net"]) for s in result["settlements"]] == [
        (5, "base", "win", "50.00"),
        (5, "fortune", "win", "250.00"),
        (6, "base", "win", "20.00"),
        (6, "fortune", "lose", "-5.00"),
        (6, "envy", "win", "5.00"),
        (1, "base", "win", "30.00"),
    ]
    assert [(f["payer"], f["amount"]) for f in result["fees"]] == [("player-dealer", "2.00")]


def test_fortune_pai_gow_scenario_shows_no_hand_before_the_showdown_contract3() -> None:
    """No card of any hand appears before the result; the hands of seats without a wager (4, 7
    and 2) never appear at all."""
    messages = _expected("fortune-pai-gow-one-round")
    first_result = next(i for i, m in enumerate(messages) if m["topic"].endswith("/round/result"))
    before = json.dumps(messages[:first_result])
    assert not [c for c in ("Kc", "Ah", "7s", "Tc", "Qd", "JKR") if f'"{c}"' in before]
    everything = json.dumps(messages)
    for unseen in ("2c 3d 4h 5s 7c 8d 9h", "6c 6d Td Jd 8s 2d 3c", "9d 5d 6h 4c 2s 8h Jh"):
        assert not [c for c in unseen.split() if f'"{c}"' in everything]
