"""Chinese Poker (document 003 "Chinese Poker") as the daemon plays it: the
shipped config built into a `Table`, fed console inputs; and its rules (tablectl/rules/
chinese_poker.py). Every point and payment worked by hand from the document in the comments."""

from __future__ import annotations

from typing import Any

import pytest

from tablectl.rules.chinese_poker import setting, sweep_holds
from tablectl.table import Table
from tablectl_base.cards import parse_card
from tests.games.poker.test_poker_hands import alerts, play, rows_by, table_of
from tests.games.stud.test_stud_hands import state
from tests.helpers import feed


def cards(text: str) -> list[Any]:
    return [parse_card(t) for t in text.split()]


def chinese_set(seat: int, front: str, middle: str, back: str) -> dict[str, Any]:
    return {
        "type": "chinese.set",
        "seat": seat,
        "front": front.split(),
        "middle": middle.split(),
        "back": back.split(),
    }


def sweep(seat: int, kind: str, text: str) -> dict[str, Any]:
    return {"type": "chinese.sweep", "seat": seat, "sweep": kind, "cards": text.split()}


def four_seated(table: Table, stacks: tuple[str, ...] = ("200", "200", "200", "200")) -> None:
    for seat, stack in enumerate(stacks, start=1):
        play(table, {"type": "seat.take", "seat": seat, "stack": stack})


SEAT_1 = ("As Ks 9h", "Jh Jd 4h 5h 6h", "Qh Qd Qs 8h 8d")  # A-K-9 | jacks | queens full
SEAT_2 = ("Ah Ac Kh", "Kc Qc Jc 9c 2s", "Js Ts 4s 3s 7h")  # aces in front over king high: foul
SEAT_3 = "2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c"  # six pairs: a clean sweep
SEAT_4 = ("Ad Kd 9d", "Tc Td Th 2h 3h", "9s 8s 7s 6s 5s")  # A-K-9 | trip tens | straight flush


def test_a_round_with_a_foul_a_sweep_and_a_tie_the_buttons_win() -> None:
    """A $5 point, collection option 2 ($2 from the buttons' holder, $1 from each other). Seats
    1-4 dealt in, seat 1 holds the action and dealer buttons."""
    table = table_of("chinese-poker-003.toml")
    four_seated(table)
    out = play(table, {"type": "hand.start", "button": 1})
    echo = rows_by(out, "event")[0]
    assert echo["dealt_in"] == [1, 2, 3, 4]
    assert [f["amount"] for f in echo["fees"]] == ["2.00", "1.00", "1.00", "1.00"]
    out = play(
        table, chinese_set(1, *SEAT_1), chinese_set(2, *SEAT_2), sweep(3, "six-pairs", SEAT_3)
    )
    assert not rows_by(out, "round/result")
    assert "Qh" not in b"".join(r.payload for r in out).decode()  # nothing shown before all are in
    out = play(table, chinese_set(4, *SEAT_4))
    (result,) = rows_by(out, "round/result")
    points = {tuple(p["seats"]): p["points"] for p in result["points"]}
    # Clean sweeps first: seat 3's six pairs (3 points) from each of the others.
    # (1,2): seat 2 fouled: it pays seat 1 "3 points for each segment" (9) and seat 1's bonus
    #   hands (none: a full house in the back earns nothing).
    # (1,4): fronts tie A-K-9 to A-K-9: the buttons' holder, seat 1, wins it (+1); seat 4's trip
    #   tens beat the jacks (-1) and its straight flush the full house (-1) with the back's
    #   straight flush bonus (-5): seat 1 pays 6.
    # (2,4): seat 2 fouled: 9 and seat 4's straight flush bonus in the back (5): 14.
    assert points == {(1, 2): 9, (1, 3): -3, (1, 4): -6, (2, 3): -3, (2, 4): -14, (3, 4): 3}
    assert [(p["from"], p["to"], p["amount"], p["for"]) for p in result["payments"]] == [
        (1, 3, "15.00", "sweep"),
        (2, 3, "15.00", "sweep"),
        (4, 3, "15.00", "sweep"),
        (2, 1, "45.00", "segments"),
        (1, 4, "30.00", "segments"),
        (2, 4, "70.00", "segments"),
    ]
    hands = {h["seat"]: h for h in result["hands"]}
    assert hands[2]["fouled"] and hands[3]["sweep"] == "six-pairs"
    assert hands[4]["names"] == ["high-card", "three-of-a-kind", "straight-flush"]
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    # 200 less the fee, then: seat 1 -15 +45 -30; seat 2 -15 -45 -70; seat 3 +45; seat 4
    # -15 +30 +70. With the $5 of fees: $800, as seated.
    assert stacks == {1: "198.00", 2: "69.00", 3: "244.00", 4: "284.00"}
    assert state(table)["button"] == 1


def test_a_player_wins_no_more_than_the_stack_it_started_with() -> None:
    """003 Game Rules 2: "You can only win up to the amount of money in your stack at the start
    of the hand"; 3: "The all-in player's payoff will end when the total wager exchanged is
    equal to the amount that was in front to that player at the beginning of the hand"."""
    table = table_of("chinese-poker-003.toml")
    four_seated(table, ("100", "200"))
    play(table, {"type": "hand.start", "button": 1})  # seat 1 pays $2: $98 in play
    play(table, chinese_set(1, "Ah Kd Qc", "7s 7h 7d 7c 2s", "9h Th Jh Qh Kh"))
    out = play(table, chinese_set(2, "Ac Ad As", "3s 4s 5s 6s 8d", "2h 3h 4h 5h 8h"))
    (result,) = rows_by(out, "round/result")
    # Seat 2's trip aces in front over a flush in the middle: fouled. It owes seat 1 nine
    # points and seat 1's bonuses (four of a kind in the middle 8, straight flush in the back
    # 5): 22 points, $110; seat 1 started with $98, so $98 changes hands.
    ((first, second, n),) = [(*p["seats"], p["points"]) for p in result["points"]]
    assert (first, second, n) == (1, 2, 22)
    (payment,) = result["payments"]
    assert (payment["owed"], payment["amount"]) == ("110.00", "98.00")
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "196.00", 2: "101.00"}


def test_a_misdeal_returns_the_fees_and_the_round_is_dealt_again_from_the_same_buttons() -> None:
    table = table_of("chinese-poker-003.toml")
    four_seated(table, ("200", "200"))
    play(table, {"type": "hand.start", "button": 1})
    # A round played: fronts tie (the buttons' seat 1 +1), trips and a straight flush beat seat
    # 1's middle and back (-1, -1 - 5): seat 1 pays 6 points, $30. Fees $2 and $1.
    play(table, chinese_set(1, *SEAT_1), chinese_set(2, *SEAT_4))
    out = play(table, {"type": "hand.start"})  # the buttons move to seat 2
    assert rows_by(out, "event")[0]["button"] == 2
    out = play(table, {"type": "round.void", "reason": "five cards exposed"})
    (result,) = rows_by(out, "round/result")
    assert result["void"] is True and result["fees"] == [] and result["payments"] == []
    before = {s["seat"]: s["stack"] for s in result["stacks"]}
    out = play(table, {"type": "hand.start"})
    echo = rows_by(out, "event")[0]
    assert echo["button"] == 2  # dealt again from the same buttons
    # The fees of the voided round came back: the stacks before it are the stacks after it.
    assert {f["seat"]: f["amount"] for f in echo["fees"]} == {2: "2.00", 1: "1.00"}
    assert before == {1: "168.00", 2: "229.00"}  # 200 - 2 - 30, 200 - 1 + 30


def test_five_seated_four_dealt_in_and_the_fifth_plays_the_next_round() -> None:
    """003: "in a 5 handed game, only four players will receive a hand ... The fifth player will
    become eligible during the next round of play when the action button and dealer button
    rotates"."""
    table = table_of("chinese-poker-003.toml")
    four_seated(table, ("200",) * 5)
    out = play(table, {"type": "hand.start", "button": 1})
    assert rows_by(out, "event")[0]["dealt_in"] == [1, 2, 3, 4]
    play(table, {"type": "round.void", "reason": "test"})
    play(table, {"type": "hand.start"})
    play(table, {"type": "round.void", "reason": "test"})
    # The void puts the buttons back on seat 1; a played round would move them to seat 2:
    # 2, 3, 4, 5 dealt in. Sitting out lets the fifth play at once.
    play(table, {"type": "seat.away", "seat": 4})
    out = play(table, {"type": "hand.start"})
    assert rows_by(out, "event")[0]["dealt_in"] == [1, 2, 3, 5]


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (chinese_set(1, "As Ks", "Jh Jd 4h 5h 6h 7d", "Qh Qd Qs 8h 8d"), "front hand is 3 cards"),
        (chinese_set(1, "As Ks 9h", "Jh Jd 4h 5h 6h", "Qh Qd Qs 8h 8h"), "thirteen different"),
        (chinese_set(5, *SEAT_1), "not dealt in"),
    ],
)
def test_a_hand_brought_in_wrong_is_refused(event: dict[str, Any], why: str) -> None:
    table = table_of("chinese-poker-003.toml")
    four_seated(table)
    play(table, {"type": "hand.start", "button": 1})
    refused = feed(table, event)
    assert why in alerts(refused)[0]["reason"]


def test_a_card_another_player_holds_is_refused() -> None:
    table = table_of("chinese-poker-003.toml")
    four_seated(table)
    play(table, {"type": "hand.start", "button": 1}, chinese_set(1, *SEAT_1))
    refused = feed(table, chinese_set(2, "As Ac Kh", "Kc Qc Jc 9c 2s", "Js Ts 4s 3s 7h"))
    assert "another player's" in alerts(refused)[0]["reason"]


def test_the_clean_sweeps_are_found_in_the_thirteen_cards() -> None:
    """003 "Chinese Poker", Clean Sweep: "all 13 cards are considered and are not required to be
    set a particular way"."""
    assert sweep_holds("dragon", cards("Ah 2c 3d 4s 5h 6c 7d 8s 9h Tc Jd Qs Kh"))
    assert not sweep_holds("dragon", cards("Ah 2c 3d 4s 5h 6c 7d 8s 9h Tc Jd Qs Qh"))
    assert sweep_holds("six-pairs", cards("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c"))
    assert sweep_holds("six-pairs", cards("2c 2d 2h 2s 4c 4d 5c 5d 6c 6d 7c 7d 8c"))  # quads
    assert sweep_holds("three-straights", cards("Ah 2c 3d 4s 5h 6c 7d 8s 9h Tc Jd Qs Kh"))
    assert sweep_holds("three-straights", cards("Qh Kc Ad 2s 3h 4c 5d 6s 7h 8c 9d Ts Jh"))
    assert not sweep_holds("three-straights", cards("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c"))
    assert sweep_holds("three-flushes", cards("2h 3h 4h 2c 3c 4c 5c 6c 2d 3d 4d 5d 7d"))
    assert not sweep_holds("three-flushes", cards("2h 3h 4s 2c 3c 4c 5c 6c 2d 3d 4d 5d 7d"))


def test_a_sweep_that_is_not_held_is_a_fouled_hand() -> None:
    """003 Game Rules 6: "If a player declares a 'Clean Sweep' hand but cannot produce it, the
    player has a fouled hand"."""
    table = table_of("chinese-poker-003.toml")
    four_seated(table, ("200", "200"))
    play(table, {"type": "hand.start", "button": 1})
    play(table, sweep(1, "dragon", "2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c"))
    out = play(table, chinese_set(2, "As Ks 9h", "Jh Jd 4h 5h 6h", "Qh Qd Qs 8h 8d"))
    (result,) = rows_by(out, "round/result")
    hands = {h["seat"]: h for h in result["hands"]}
    assert hands[1]["fouled"] and hands[1]["sweep"] is None
    assert [(p["from"], p["to"], p["amount"]) for p in result["payments"]] == [(1, 2, "45.00")]


def test_a_setting_out_of_order_is_fouled() -> None:
    assert setting(cards("Ah Ac Kh"), cards("Kc Qc Jc 9c 2s"), cards("Js Ts 4s 3s 7h")).fouled
    assert not setting(cards("As Ks 9h"), cards("Jh Jd 4h 5h 6h"), cards("Qh Qd Qs 8h 8d")).fouled
    # A front pair of kings with a 2 against a middle pair of kings with Q-5-3: not above it.
    assert not setting(cards("Kh Kd 2c"), cards("Ks Kc Qh 5d 3s"), cards("Ah Ad Ac 4h 4d")).fouled


def test_a_seat_the_walk_left_without_chips_is_not_dealt_in() -> None:
    """A player with no chips cannot pay the fee nor play: the next round deals in the others
    ("up to four players are dealt in", docs/games/chinese-poker.md)."""
    table = table_of("chinese-poker-003.toml")
    four_seated(table, ("100", "200", "200"))
    play(table, {"type": "seat.away", "seat": 3}, {"type": "hand.start", "button": 1})
    # Seat 1 ($98 after its $2 fee) fouls against quads and a straight flush: 22 points, $110.
    play(table, chinese_set(1, "Ac Ad As", "3s 4s 5s 6s 8d", "2h 3h 4h 5h 8h"))
    out = play(table, chinese_set(2, "Ah Kd Qc", "7s 7h 7d 7c 2s", "9h Th Jh Qh Kh"))
    stacks = {s["seat"]: s["stack"] for s in rows_by(out, "round/result")[0]["stacks"]}
    assert stacks[1] == "0.00"
    play(table, {"type": "seat.back", "seat": 3})
    echo = rows_by(play(table, {"type": "hand.start"}), "event")[0]
    assert echo["dealt_in"] == [2, 3] and echo["button"] == 2
