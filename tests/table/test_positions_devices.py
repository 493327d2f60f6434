"""Every stack and every roll knows its place at the table: the shuffler's stacks carry
their shuffle and stack number, the dice cup's rolls their roll number (the cup has no runs).

The rounds are the hand-worked ones of tests/games/three_card_poker/test_three_card_poker_engine.py
(the qualifying
round: 004 "Three Card Poker 6 Card Bonus: How Each Wager Wins, Loses or Pushes", R29, R2, R4) and
tests/games/pai_gow/test_pai_gow_rounds.py (round 1: 003, R1, R30-R32); each is played here as the
devices report
it with positions, through a fault, and must come out exactly as worked there: a stack the shuffler
could not report holds the round until the dealer enters it at the console (R39), and a roll the cup
reported twice is used once.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.games.pai_gow.test_pai_gow_engine import config as pai_gow_config
from tests.games.pai_gow.test_pai_gow_rounds import ROUND_1
from tests.games.three_card_poker.test_three_card_poker_engine import (
    QUALIFY_BETS,
    QUALIFY_PLAYS,
    QUALIFY_STACKS,
    settled,
    tcp_config,
)
from tests.helpers import feed, payloads, play

D = Decimal
SHUFFLER = "device/shuffler"


def placed(event: dict[str, Any], **at: Any) -> dict[str, Any]:
    """`event` as its device reports it with a position (`at`), keeping its source."""
    return {**event, "at": at}


def kinds(rows: Any) -> list[str]:
    return [a["kind"] for a in payloads(rows, "alert")]


def reply(rows: Any, verb: str) -> dict[str, Any]:
    (answer,) = payloads(rows, f"cmd/{verb}/reply")
    return answer


def without_positions(result: dict[str, Any]) -> dict[str, Any]:
    """A round's result without what only positions add, to compare with the same round
    played without them."""
    return {
        k: v
        for k, v in result.items()
        if k not in ("positions", "entered_by_hand", "seq", "ts", "devices")
    }


# -- Three Card Poker: a stack the shuffler could not report, entered at the console (R39) ------

# Shuffle S7, stacks of three: stack n starts at card 3n - 2. Stack 2 (seat 7's Ks 9s 4h) left
# the shuffler unreported (a card it could not read): its number is a gap it cannot fill.
TCP_STACKS = [
    placed({**ev, "source": SHUFFLER}, run="S7", pos=n, seq=10 + n, first=3 * n - 2)
    for n, ev in enumerate(QUALIFY_STACKS, 1)
]
TCP_GAP = {
    "type": "device.gap",
    "device": "shuffler",
    "run": "S7",
    "after": 1,
    "missing": [2],
    "reason": "the device did not resend them",
    "source": SHUFFLER,
}


def test_a_stack_the_shuffler_could_not_report_holds_the_round_until_entered_by_hand_R39(
    tmp_path: Path,
) -> None:
    events = [*QUALIFY_BETS, TCP_STACKS[0], TCP_GAP, TCP_STACKS[2], TCP_STACKS[3]]
    table, rows = play(tcp_config(tmp_path, with_reader=True), events)
    # the gap, the hold, and stack 3 waiting behind the gap (stack 4 waits without a word)
    assert kinds(rows) == ["gap", "round-held", "gap"]
    assert "position(s) 2 of S7 missing" in payloads(rows, "alert")[1]["reason"]
    assert "position 3 waits for them" in payloads(rows, "alert")[2]["reason"]
    assert table.state.stacks and len(table.state.stacks) == 1  # 3 and 4 wait behind the gap
    assert table.ledgers["shuffler"].missing() == (2,)
    # The round cannot go on, and the console may enter a stack only into the gap.
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert "position(s) 2 of S7 missing" in reply(out, "round.resume")["reason"]
    wrong = {"type": "shuffler.stack", "cards": ["Ks", "9s", "4h"], "at": {"pos": 3}}
    out = feed(table, wrong, source="cmd/shuffler.stack", ref="s1")
    assert reply(out, "shuffler.stack")["ok"] is False
    unplaced = {"type": "shuffler.stack", "cards": ["Ks", "9s", "4h"]}
    out = feed(table, unplaced, source="cmd/shuffler.stack", ref="s2")
    assert reply(out, "shuffler.stack")["ok"] is False
    # The dealer reads seat 7's stack off the table and enters it as stack 2.
    entry = {"type": "shuffler.stack", "cards": ["Ks", "9s", "4h"], "at": {"pos": 2}}
    out = feed(table, entry, source="cmd/shuffler.stack", ref="s3")
    assert reply(out, "shuffler.stack")["ok"] is True
    assert "gap-filled" in kinds(out)
    cursor = table.ledgers["shuffler"].cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("S7", 4)
    assert len(table.state.stacks) == 1  # 2, 3 and 4 are in, in order, kept for the resume
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r2")
    assert reply(out, "round.resume")["ok"] is True
    assert len(table.state.stacks) == 4
    rows = []
    for decision in QUALIFY_PLAYS:
        rows += feed(table, decision)
    (result,) = payloads(rows, "round/result")
    # As worked in test_qualifying_player_dealer_settles_ante_and_play_by_rank_R29: Qh = 12
    # counts to seat 7 (R2); K-9-4 and a pair of aces beat Q-5-2, Q-5-2 pushes
    # (004 "Three Card Poker 6 Card Bonus: How Each Wager Wins, Loses or Pushes").
    assert result["action_seat"] == 7
    assert settled(result) == [
        (7, "ante", "win", D(20)),
        (7, "play", "win", D(20)),
        (7, "six-card-bonus", "lose", D(-5)),
        (2, "ante", "push", D(0)),
        (2, "play", "push", D(0)),
        (5, "ante", "win", D(10)),
        (5, "play", "win", D(10)),
        (5, "pair-plus", "win", D(5)),
    ]
    assert result["bank"] == {"seat": 4, "start": "1000.00", "end": "940.00", "turn": 1}
    assert [d["cards"] for d in result["dealt"]] == [ev["cards"] for ev in QUALIFY_STACKS]
    assert result["positions"] == [{"device": "shuffler", "run": "S7", "pos": [1, 2, 3, 4]}]
    assert result["entered_by_hand"] == [{"device": "shuffler", "run": "S7", "pos": 2}]
    # and it is the round played without positions, but for them
    (plain,) = payloads(
        play(tcp_config(tmp_path / "plain"), [*QUALIFY_BETS, *QUALIFY_STACKS, *QUALIFY_PLAYS])[1],
        "round/result",
    )
    assert without_positions(result) == without_positions(plain)


def test_a_stack_withheld_for_a_joker_holds_the_round_and_a_void_returns_the_wagers(
    tmp_path: Path,
) -> None:
    """The driver withholds a stack holding a joker on a joker-free deck and reports its number
    as a gap, with UNEXPECTED_JOKER standing: the round cannot be resumed while the wrong deck is
    in, and the dealer voids it; the count carries on after the withheld stack."""
    joker_gap = {
        **TCP_GAP,
        "missing": [2],
        "reason": "stack 2 held a joker, which this deck has not: it was withheld",
    }
    status = {
        "type": "device.status",
        "device": "shuffler",
        "available": True,
        "fault": "UNEXPECTED_JOKER",
        "detail": {},
        "source": SHUFFLER,
    }
    events = [*QUALIFY_BETS, TCP_STACKS[0], joker_gap, status, TCP_STACKS[2]]
    table, rows = play(tcp_config(tmp_path), events)
    assert kinds(rows)[:2] == ["gap", "round-held"]
    assert "held a joker" in payloads(rows, "alert")[0]["reason"]
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert reply(out, "round.resume")["ok"] is False
    assert "still faulted: shuffler UNEXPECTED_JOKER" in reply(out, "round.resume")["reason"]
    out = feed(table, {"type": "round.void"}, source="cmd/round.void", ref="v1")
    assert reply(out, "round.void")["ok"] is True
    (result,) = payloads(out, "round/result")
    assert result["void"] is True
    assert all(s["net"] == "0.00" for s in result["settlements"])
    assert table.held is None
    cursor = table.ledgers["shuffler"].cursor()  # the count carries on after stack 3
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("S7", 3)


# -- Fortune Pai Gow: a roll the cup reported twice is used once ---------------------------------

# Round 1 of tests/games/pai_gow/test_pai_gow_rounds.py: 0 bank, 1-8 wagers, 9 the dice (15), 10-16
# the seven
# stacks, 17-20 the settings. The cup has read 40 rolls before: this roll is number 41; the
# dispenser's shuffle D3 deals stacks 1-7 of seven cards.
DICE_AT = {"pos": 41, "seq": 7}
ROUND_1_STACKS = [
    placed(ev, run="D3", pos=n, seq=20 + n, first=7 * n - 6)
    for n, ev in enumerate(ROUND_1[10:17], 1)
]


def test_a_roll_the_cup_reported_twice_is_used_once_R30(tmp_path: Path) -> None:
    """Without positions the second report of roll 15 reached the engine, which refused it as a
    second roll of the round (R30). With them the table sees roll 41 again, says so, and never
    passes it to the game: the round is round 1 exactly, dealt from the first report."""
    roll = placed(ROUND_1[9], **DICE_AT)
    again = placed(ROUND_1[9], pos=41, seq=8)  # the same roll, reported again (a new SEQ)
    events = [*ROUND_1[:9], roll, again, *ROUND_1_STACKS, *ROUND_1[17:]]
    _, rows = play(pai_gow_config(tmp_path), events)
    assert kinds(rows) == ["position-repeated"]
    repeated = payloads(rows, "alert")[0]
    assert "position 41 read again; not dealt twice" in repeated["reason"]
    (result,) = payloads(rows, "round/result")
    out = result["outcome"]
    assert (out["first_seat"], out["button_seat"], result["action_seat"]) == (6, 7, 7)
    assert result["bank"] == {"seat": 6, "start": "400.00", "end": "0.00", "turn": 1}
    assert result["positions"] == [
        {"device": "dice", "run": None, "pos": [41]},
        {"device": "dispenser", "run": "D3", "pos": [1, 2, 3, 4, 5, 6, 7]},
    ]
    _, plain_rows = play(pai_gow_config(tmp_path / "plain"), ROUND_1)
    (plain,) = payloads(plain_rows, "round/result")
    assert without_positions(result) == without_positions(plain)
    # the same double report without positions: the engine had to refuse it (R30)
    doubled = [*ROUND_1[:10], ROUND_1[9], *ROUND_1[10:]]
    _, rows = play(pai_gow_config(tmp_path / "doubled"), doubled)
    assert [(a["kind"], a.get("rule")) for a in payloads(rows, "alert")] == [("rejected", "R30")]


def test_a_different_roll_at_a_used_number_holds_the_round(tmp_path: Path) -> None:
    """Two readings claim roll 41: one of them is wrong, and the dice decide who gets the first
    hand (R30), so the round is held for the dealer rather than dealt on a guess."""
    other = placed({**ROUND_1[9], "dice": [1, 1, 1]}, pos=41, seq=8)
    events = [*ROUND_1[:9], placed(ROUND_1[9], **DICE_AT), other, *ROUND_1_STACKS[:2]]
    table, rows = play(pai_gow_config(tmp_path), events)
    assert kinds(rows)[:2] == ["position-conflict", "round-held"]
    assert table.held is not None and "position 41" in table.held
    assert payloads(rows, "round/result") == []


def test_a_roll_the_cup_never_reported_is_entered_at_the_console_R39(tmp_path: Path) -> None:
    """The cup counted roll 41 but its report was lost inside it: the driver reports the gap,
    the table holds; the dispenser deals meanwhile (its stacks are kept); the dealer enters the
    dice seen on the table at roll 41, and round 1 plays as worked."""
    gap = {
        "type": "device.gap",
        "device": "dice",
        "after": 40,
        "missing": [41],
        "reason": "the device did not resend them",
        "source": "device/dice",
    }
    events = [*ROUND_1[:9], gap, *ROUND_1_STACKS[:3]]
    table, rows = play(pai_gow_config(tmp_path), events)
    # the stacks dispensed meanwhile are kept, unplayed, in their order
    assert kinds(rows) == ["gap", "round-held", "input-held", "input-held", "input-held"]
    assert "position(s) 41 missing" in payloads(rows, "alert")[1]["reason"]
    entry = {"type": "dice.roll", "dice": ROUND_1[9]["dice"], "at": {"pos": 41}}
    out = feed(table, entry, source="cmd/dice.roll", ref="d1")
    assert reply(out, "dice.roll")["ok"] is True
    assert "gap-filled" in kinds(out)
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert reply(out, "round.resume")["ok"] is True
    rows = []
    for ev in [*ROUND_1_STACKS[3:], *ROUND_1[17:]]:
        body = {k: v for k, v in ev.items() if k not in ("source", "ref")}
        rows += feed(table, body, source=ev.get("source", "test"), ref=ev.get("ref"))
    (result,) = payloads(rows, "round/result")
    assert result["bank"] == {"seat": 6, "start": "400.00", "end": "0.00", "turn": 1}
    assert result["entered_by_hand"] == [{"device": "dice", "run": None, "pos": 41}]
    _, plain_rows = play(pai_gow_config(tmp_path / "plain"), ROUND_1)
    (plain,) = payloads(plain_rows, "round/result")
    assert without_positions(result) == without_positions(plain)


def test_the_cursor_names_the_seq_of_the_last_position_it_counts(tmp_path: Path) -> None:
    events = [*QUALIFY_BETS, TCP_STACKS[0], TCP_STACKS[2], TCP_STACKS[1]]  # 3 waits for 2
    table, _ = play(tcp_config(tmp_path), events)
    assert table.ledgers["shuffler"].cursor() == {"run": "S7", "pos": 3, "seq": 13}
