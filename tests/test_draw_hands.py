"""The draw games (issue 13 item 2) as the daemon plays them: the shipped configs built into a
`Table`, fed console inputs, checked on what is published. Amounts worked by hand from document
003 in each test's comments."""

from __future__ import annotations

from typing import Any

import pytest

from tablectl.rules.draw import bug_card, lowball_low, seven_or_better
from tablectl.rules.low import describe_low
from tablectl.table import Table
from tablectl_base.cards import parse_card
from tests.helpers import feed
from tests.test_poker_hands import act, alerts, play, rows_by, table_of
from tests.test_stud_hands import hole, state, turn


def seats_1_3_5(table: Table, stack: str = "100", **start: Any) -> None:
    """Seats 1, 3 and 5; the first hand's button on seat 1: dealt 3, 5, 1; seat 3 posts the $1
    small blind, seat 5 the $2 big blind, seat 1 (left of the big blind) acts first."""
    for seat in (1, 3, 5):
        play(table, {"type": "seat.take", "seat": seat, "stack": stack})
    play(table, {"type": "hand.start", "button": 1, **start})


def draw(seat: int, count: int, **known: list[str]) -> dict[str, Any]:
    return {"type": "draw", "seat": seat, "count": count, **known}


def cards(*texts: str) -> list[Any]:
    return [parse_card(t) for t in texts]


def test_the_bug_is_the_lowest_card_not_held_and_completes_a_wheel() -> None:
    """003 "Lowball": the joker "represents the lowest card not actually held in the hand";
    A-2-3-4 and the joker is A-2-3-4-5, the wheel, the best hand there is."""
    assert str(bug_card(cards("Ah", "2d", "3c", "4s"))) == "5s"
    assert str(bug_card(cards("2h", "3d", "4c", "5s"))) == "As"  # the ace, lowest of all
    assert str(bug_card(cards("Ah", "Ad", "3c", "Ks"))) == "2s"  # "without pairing"
    wheel, _ = lowball_low(cards("Ah", "2d", "3c", "4s", "JKR"))
    six, _ = lowball_low(cards("6h", "4d", "3c", "2s", "Ac"))
    assert describe_low(wheel) == "5-4-3-2-A" and wheel < six
    assert seven_or_better(lowball_low(cards("7h", "5d", "4c", "3s", "2c"))[0])
    assert not seven_or_better(lowball_low(cards("8h", "5d", "4c", "3s", "2c"))[0])
    assert not seven_or_better(lowball_low(cards("2h", "2d", "4c", "3s", "Ac"))[0])  # a pair


def test_lowball_a_wheel_made_with_the_bug_takes_the_pot() -> None:
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    # Before the draw: seat 1 calls $2, seat 3 completes ($1 more), seat 5 checks its option:
    # $6. (Pass and out: a check is the big blind's option only, its blind being its bet.)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    assert state(table)["hand"]["phase"] == "draw"
    play(table, draw(3, 1), draw(5, 2), draw(1, 0))
    assert state(table)["hand"]["street"] == "after-draw"
    assert turn(table) == 3  # after the draw the first seat left of the dealer
    play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    play(table, hole(1, "6h", "4d", "3c", "2s", "Ac"), hole(5, "8h", "7d", "6c", "5s", "4c"))
    out = play(table, hole(3, "Ah", "2d", "3s", "4s", "JKR"))
    (result,) = rows_by(out, "round/result")
    # Seat 3's A-2-3-4 and the bug is the wheel: it takes $6 less the $1 fee.
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("5.00", [3])]
    assert result["shown"][0]["low"]["name"] == "5-4-3-2-A"


def test_a_checked_seven_loses_the_action_after_the_draw_R45() -> None:
    """003 "Lowball" rule 2: "if a player checks his or her hand that is a seven or better, then
    the player loses all bets placed after the draw" (R45: the pot as it stood at the draw, the
    chips put in after it back to whoever put them in)."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    play(table, {"type": "decision", "seat": 1, "action": "raise", "amount": "4"})
    play(table, act(3, "call"), act(5, "call"))  # $4 each: $12 when the draw ends
    play(table, draw(3, 1), draw(5, 2), draw(1, 0))
    # After the draw (the big bet, $4): seat 3 checks 7-5-4-3-2, seat 5 bets $4, seat 1
    # folds, seat 3 calls.
    play(table, act(3, "check"))
    play(table, {"type": "decision", "seat": 5, "action": "bet", "amount": "4"})
    play(table, act(1, "fold"), act(3, "call"))
    play(table, hole(5, "8h", "6d", "4c", "3s", "2c"))
    out = play(table, hole(3, "7h", "5d", "4s", "3c", "2d"))
    (result,) = rows_by(out, "round/result")
    # Seat 3's seven is the lower hand, but it was checked: seat 3 keeps the $12 pot of the
    # draw less the $1 fee ($11); the $4 each put in after the draw go back to seats 3 and 5.
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("11.00", [3])]
    assert result["returned"] == [{"seat": 3, "amount": "4.00"}, {"seat": 5, "amount": "4.00"}]
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "96.00", 3: "107.00", 5: "96.00"}


def test_a_bet_seven_keeps_the_action_after_the_draw_R45() -> None:
    """The same hand with seat 3 betting its seven: no rule takes the action away."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    play(table, {"type": "decision", "seat": 1, "action": "raise", "amount": "4"})
    play(table, act(3, "call"), act(5, "call"))
    play(table, draw(3, 1), draw(5, 2), draw(1, 0))
    play(table, {"type": "decision", "seat": 3, "action": "bet", "amount": "4"})
    play(table, act(5, "call"), act(1, "fold"))
    play(table, hole(5, "8h", "6d", "4c", "3s", "2c"))
    out = play(table, hole(3, "7h", "5d", "4s", "3c", "2d"))
    (result,) = rows_by(out, "round/result")
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("19.00", [3])]  # $20 - $1


def test_the_number_first_asked_for_stands_and_the_draw_goes_in_turn() -> None:
    """003 "Lowball" rule 14: "Player must take number of cards requested"; the draw goes "in
    turn, beginning at the dealer's left" (003 "Five Card Draw")."""
    table = table_of("five-card-draw-003.toml")
    seats_1_3_5(table)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    assert "seat 3 draws first" in alerts(feed(table, draw(5, 2)))[0]["reason"]
    play(table, draw(3, 2))
    refused = feed(table, draw(3, 3))
    assert alerts(refused)[0]["rule"] == '003 "Lowball" (Lowball Rules, rule 14)'
    assert state(table)["hand"]["phase"] == "draw"
    seats = {s["seat"]: s for s in state(table)["seats"]}
    assert seats[3]["drew"] == 2 and seats[5]["drew"] is None


def test_lowball_straddles_double_the_blind_and_at_most_half_the_chips() -> None:
    """003 "Lowball" rule 5: "Straddles are permitted ... Must be double the blind or the
    previous straddle and must be no more than half your chips"."""
    table = table_of("lowball-003.toml")
    for seat in (1, 3, 5, 7):
        play(table, {"type": "seat.take", "seat": seat, "stack": "100"})
    refused = feed(table, {"type": "hand.start", "button": 1, "straddles": ["3"]})
    assert "must be double" in alerts(refused)[0]["reason"]
    # Dealt 3, 5, 7, 1: blinds by 3 and 5, seat 7 straddles $4; seat 1 acts first.
    out = play(table, {"type": "hand.start", "button": 1, "straddles": ["4"]})
    posted = rows_by(out, "event")[0]["posted"]
    assert posted[-1] == {"seat": 7, "post": "straddle", "amount": "4.00"}
    assert turn(table) == 1
    draw_table = table_of("five-card-draw-003.toml")
    for seat in (1, 3, 5, 7):
        play(draw_table, {"type": "seat.take", "seat": seat, "stack": "100"})
    refused = feed(draw_table, {"type": "hand.start", "button": 1, "straddles": ["4"]})
    assert "without straddles" in alerts(refused)[0]["reason"]


def test_five_card_draw_high_low_splits_with_the_odd_chip_to_high() -> None:
    """003 "Five Card Draw (High-Low Split)": "the pot is split with the odd chip going to the
    high hand", the low five cards 8 or below without pairing."""
    table = table_of("five-card-draw-hi-lo-003.toml")
    seats_1_3_5(table)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))  # $6
    play(table, draw(3, 0), draw(5, 1), draw(1, 0))
    play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    play(table, hole(1, "Kh", "Kd", "Ks", "9c", "9d"))  # a full house: high
    play(table, hole(3, "Qh", "Jd", "8s", "7c", "2d"))  # nothing
    out = play(table, hole(5, "8h", "6d", "4c", "3s", "2c"))  # 8-6-4-3-2: the low
    (result,) = rows_by(out, "round/result")
    (pot,) = result["pots"]
    # $6 less the $1 fee is $5: halves of $2, the odd $1 to the high hand.
    assert (pot["high"], pot["low"]) == ([1], [5])
    assert {p["seat"]: p["amount"] for p in pot["paid"]} == {1: "3.00", 5: "2.00"}


@pytest.mark.parametrize(
    ("config", "event", "why"),
    [
        ("five-card-draw-003.toml", hole(3, "Ah", "Kd", "Qs", "Jc"), "five cards, not 4"),
        ("five-card-draw-003.toml", hole(3, "Ah", "Kd", "Qs", "Jc", "JKR"), "without the joker"),
        ("lowball-003.toml", {"type": "board.cards", "cards": ["2h", "3h", "4h"]}, "no board"),
        ("lowball-003.toml", draw(3, 1), "once the first betting round is over"),
    ],
)
def test_a_draw_hand_entered_wrong_is_refused_and_changes_nothing(
    config: str, event: dict[str, Any], why: str
) -> None:
    table = table_of(config)
    seats_1_3_5(table)
    before = table.state
    refused = feed(table, event)
    assert why in alerts(refused)[0]["reason"]
    assert table.state == before


def test_no_card_of_a_draw_hand_is_published_before_the_showdown() -> None:
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    out = play(table, hole(3, "Ah", "2d", "3s", "4s", "Kc"))
    out += play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    out += play(table, draw(3, 1, discard=["Kc"], cards=["JKR"]))
    text = b"".join(r.payload for r in out).decode()
    assert all(c not in text for c in ("Ah", "2d", "3s", "4s", "Kc", "JKR"))


def flash(seat: int, card: str, when: str) -> dict[str, Any]:
    return {"type": "card.flashed", "seat": seat, "card": card, "when": when}


def test_a_flashed_six_on_the_deal_is_replaced_and_a_four_kept() -> None:
    """003 "Lowball" rule 6: "Flashed card on the deal must be kept by the player if it is a five
    or lower. If the card is a six or higher it will be replaced after last player is dealt."
    The flashed card is public: everyone saw it."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    out = play(table, flash(3, "6h", "deal"))
    echo = rows_by(out, "event")[0]
    assert (echo["card"], echo["kept"]) == ("6h", False)
    # The six is dead: seat 3's five are others, and no one may hold it.
    refused = feed(table, hole(3, "6h", "2d", "3s", "4s", "5c"))
    assert "dead" in alerts(refused)[0]["reason"]
    play(table, hole(3, "Ah", "2d", "3s", "4s", "7c"))


def test_a_flashed_card_of_five_or_lower_is_kept_by_its_seat() -> None:
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    out = play(table, flash(5, "4d", "deal"))
    assert rows_by(out, "event")[0]["kept"] is True
    refused = feed(table, hole(5, "Ah", "2d", "3s", "7s", "8c"))
    assert "keeps the card flashed" in alerts(refused)[0]["reason"]
    play(table, hole(5, "Ah", "2d", "3s", "4d", "8c"))


def test_two_cards_exposed_on_the_deal_are_a_misdeal() -> None:
    """003 "Lowball" rule 13: "A misdeal is declared if ... dealer exposes more than one card
    face up": the hand is void, every chip (the blinds) back, the button back."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    play(table, flash(3, "Kh", "deal"))
    out = play(table, flash(1, "2c", "deal"))
    (result,) = rows_by(out, "round/result")
    assert result["void"] is True and "rule 13" in result["reason"]
    assert {s["stack"] for s in result["stacks"]} == {"100.00"}
    assert state(table)["hand"] is None


def test_a_card_flashed_on_the_draw_is_replaced() -> None:
    """003 "Lowball" rule 7: "Flashed or boxed cards on draw cannot be kept and will be replaced
    after the last person acts"."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    refused = feed(table, flash(3, "3h", "deal"))
    assert "on the draw after the first round" in alerts(refused)[0]["reason"]
    out = play(table, flash(3, "3h", "draw"))
    assert rows_by(out, "event")[0]["kept"] is False
    refused = feed(table, draw(3, 1, discard=["Kc"], cards=["3h"]))
    assert alerts(refused)  # the dead 3h is given to no one


def test_a_hand_declared_dead_is_out_and_its_chips_stay_in_the_pot() -> None:
    """003 "Lowball" rule 4: "A hand more or less than five cards is dead" (and rules 12, 15,
    17): the floor's `hand.dead`; with one player left the hand is over."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    play(table, act(1, "call"), act(3, "call"))
    play(table, {"type": "hand.dead", "seat": 1, "reason": "six cards"})
    assert turn(table) == 5  # the action goes on: the big blind's option
    play(table, act(5, "check"))
    out = play(table, {"type": "hand.dead", "seat": 3, "reason": "card dropped"})
    (result,) = rows_by(out, "round/result")
    # Seat 5 alone: the $6 pot less the $1 modified fee (the hand ended before the draw).
    assert [(p["amount"], p["low"] or p["high"]) for p in result["pots"]] == [("5.00", [5])]


def test_a_dead_hand_that_was_the_last_to_draw_lets_the_second_round_open() -> None:
    """draw.md, hand.dead: "the action goes on"; once every seat still in has drawn, the second
    round opens (review: the hand stayed stuck)."""
    table = table_of("five-card-draw-003.toml")
    seats_1_3_5(table)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    play(table, draw(3, 1), draw(5, 2))
    play(table, {"type": "hand.dead", "seat": 1, "reason": "six cards"})
    assert state(table)["hand"]["street"] == "after-draw"
    assert turn(table) == 3


def test_a_checked_seven_winning_only_a_side_pot_gives_back_the_chips_after_the_draw_R45() -> None:
    """R45 pot by pot (review): seat 5 all-in with its big blind wins the main pot with a wheel;
    seat 3 checked 7-5-4-3-2 after the draw, then called seat 1's $4: the side pot, all of it
    put in after the draw, goes back to the two who put it in."""
    table = table_of("lowball-003.toml")
    for seat, stack in ((1, "100"), (3, "100"), (5, "2")):
        play(table, {"type": "seat.take", "seat": seat, "stack": stack})
    play(table, {"type": "hand.start", "button": 1})  # seat 5's $2 big blind: all-in
    play(table, act(1, "call"), act(3, "call"))  # $6
    play(table, draw(3, 1), draw(5, 0), draw(1, 1))
    play(table, act(3, "check"), {"type": "decision", "seat": 1, "action": "bet", "amount": "4"})
    play(table, act(3, "call"))
    play(table, hole(1, "8h", "6d", "4c", "3s", "2c"), hole(5, "Ah", "2d", "3c", "4s", "5h"))
    out = play(table, hole(3, "7h", "5d", "4h", "3d", "2h"))
    (result,) = rows_by(out, "round/result")
    returned = sorted(result["returned"], key=lambda r: r["seat"])
    assert returned == [{"seat": 1, "amount": "4.00"}, {"seat": 3, "amount": "4.00"}]
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "98.00", 3: "98.00", 5: "5.00"}  # the $6 main pot less $1 to seat 5
