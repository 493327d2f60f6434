"""The draw games as the daemon plays them: the shipped configs built into a
`Table`, fed console inputs, checked on what is published. Amounts worked by hand from document
003 in each test's comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablectl.outputs import OutboxRow
from tablectl.rules.draw import bug_card, lowball_low, seven_or_better
from tablectl.rules.low import describe_low
from tablectl.table import Table
from tablectl_base.cards import parse_card
from tests.games.poker.test_poker_hands import (
    act,
    alerts,
    kill_table,
    play,
    read,
    rows_by,
    table_of,
)
from tests.games.stud.test_stud_hands import hole, state, turn
from tests.helpers import feed


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


def test_the_number_first_asked_for_stands_and_the_draw_goes_in_turn_R48() -> None:
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


class Reader:
    """The card-reading table's placements in one hand, numbered as it counts them."""

    def __init__(self, table: Table) -> None:
        self.table, self.pos = table, 0

    def event(self, zone: str, card: str, seat: int | None = None) -> dict[str, Any]:
        self.pos += 1
        return read(zone, card, self.pos, seat=seat)

    def deal(self, *rows: tuple[int, str]) -> list[OutboxRow]:
        """Cards placed at seats, in the order given: every row published."""
        return play(self.table, *(self.event("seat", card, seat) for seat, card in rows))

    def muck(self, *texts: str) -> list[OutboxRow]:
        return play(self.table, *(self.event("muck", card) for card in texts))

    def refused(self, seat: int, card: str) -> dict[str, Any]:
        """A placement at a seat the rules refuse: its one alert."""
        (alert,) = alerts(feed(self.table, self.event("seat", card, seat)))
        return alert


def deal_around(reader: Reader, hands: dict[int, list[str]], order: tuple[int, ...]) -> None:
    """Five rounds of one card each, in the dealing order."""
    reader.deal(*((seat, hands[seat][i]) for i in range(5) for seat in order))


def test_lowball_the_draw_from_the_reader_four_at_once_the_fifth_after_the_others_burns() -> None:
    """003 "Lowball" rules 16 and 18, as the card-reading table sees them. Rule 18: "When a
    player calls for cards, the dealer 'burns' (discards) top card face down and then fills the
    player's requirements"; rule 16: "only four cards can be given at one time. The fifth card
    will be dealt after the other players have received their requested cards".

    Dealt 3, 5, 1 (button 1). Seat 3 holds Q-Q-J-T-9 and draws five; seat 5 holds 6-5-4-K-K
    and draws two; seat 1 stands pat on 7-5-4-3-2. Seat 3's A-2-3-4 and the bug (the lowest
    card not held: the five, 003 "Lowball") make the wheel, 5-4-3-2-A, below seat 1's
    7-5-4-3-2 and seat 5's 8-7-6-5-4; all three check after the draw, so R45 returns nothing
    (no chip went in after the draw) and seat 3 takes the $6 pot less the $1 fee."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    reader = Reader(table)
    hands = {
        3: ["Qs", "Qh", "Jd", "Tc", "9d"],
        5: ["6c", "5d", "4h", "Ks", "Kh"],
        1: ["7c", "5s", "4s", "3h", "2h"],
    }
    deal_around(reader, hands, (3, 5, 1))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))  # $6
    reader.muck(*hands[3])  # seat 3 throws its five
    play(table, draw(3, 5))
    alert = reader.refused(3, "Ah")  # no burn yet
    assert alert["rule"] == '003 "Lowball" (Lowball Rules, rule 18)'
    assert "burn" in alert["reason"] and "Ah" not in alert["reason"]
    reader.muck("9h")  # the burn
    reader.deal((3, "Ah"), (3, "2d"), (3, "3c"), (3, "4c"))
    alert = reader.refused(3, "JKR")  # a fifth at once
    assert alert["rule"] == '003 "Lowball" (Lowball Rules, rule 16)'
    assert "only four are given at one time" in alert["reason"]
    reader.muck("Ks", "Kh")
    play(table, draw(5, 2), draw(1, 0))
    assert state(table)["hand"]["street"] == "after-draw"
    assert reader.refused(5, "7s")["rule"] == '003 "Lowball" (Lowball Rules, rule 18)'
    reader.muck("Jh")  # seat 5's burn
    reader.deal((5, "7s"))
    assert reader.refused(3, "JKR")["rule"] == '003 "Lowball" (Lowball Rules, rule 16)'
    reader.deal((5, "8h"))
    assert reader.refused(5, "9s")["rule"] == '003 "Lowball" (Lowball Rules, rule 14)'
    out = play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    assert not rows_by(out, "round/result")  # seat 3's hand waits for its fifth card
    (result,) = rows_by(reader.deal((3, "JKR")), "round/result")  # after the others: the fifth
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("5.00", [3])]
    assert result["shown"][0]["cards"] == ["Ah", "2d", "3c", "4c", "JKR"]
    assert result["returned"] == []


def test_six_cards_to_one_player_the_sixth_is_taken_back_to_two_a_misdeal() -> None:
    """003 "Lowball" rule 13: "A misdeal is declared if six cards are dealt to two players".
    One seat with six (our reading, docs/games/draw.md): the last card dealt to it is taken back
    and dead, the seat keeps its first five; a second seat with six voids the hand: the blinds
    back, the button back."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    reader = Reader(table)
    deal_around(
        reader, {3: ["Ah", "2h", "3h", "4h", "5h"], 5: ["As", "2s", "3s", "4s", "5s"]}, (3, 5)
    )
    reader.deal((3, "9c"))  # a sixth to seat 3: taken back, dead
    play(table, *(reader.event("seat", c, 1) for c in ("Ad", "2d", "3d", "4d", "5d")))
    assert "dead" in reader.refused(1, "9c")["reason"]  # the card taken back is in no hand
    out = reader.deal((5, "9d"))  # a sixth to seat 5 too: a misdeal
    (result,) = rows_by(out, "round/result")
    assert result["void"] is True and "six cards were dealt to two players" in result["reason"]
    assert "rule 13" in result["reason"]
    assert {s["stack"] for s in result["stacks"]} == {"100.00"}
    assert state(table)["hand"] is None


def test_a_sixth_card_at_one_seat_leaves_its_first_five_to_play() -> None:
    """The seat that was dealt six keeps the five dealt first: they win the showdown."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    reader = Reader(table)
    hands = {
        3: ["Ah", "2h", "3h", "4h", "6h"],  # 6-4-3-2-A
        5: ["As", "2s", "3s", "4s", "7s"],  # 7-4-3-2-A
        1: ["Ad", "2d", "3d", "4d", "8d"],  # 8-4-3-2-A
    }
    deal_around(reader, hands, (3, 5, 1))
    reader.deal((3, "5c"))  # a sixth: had it counted, seat 3 would hold a wheel
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    play(table, draw(3, 0), draw(5, 0), draw(1, 0))
    out = play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    (result,) = rows_by(out, "round/result")
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("5.00", [3])]
    assert result["shown"][0]["low"]["name"] == "6-4-3-2-A"


def test_a_boxed_card_is_dead_even_a_five_and_is_not_the_dealers_exposure() -> None:
    """003 "Lowball" rule 9: "A card faced in deck, which is a boxed card, is also dead": unlike
    a five flashed by the dealer (rule 6), a boxed five is not kept; and it is not the dealer
    exposing a card, so with one card flashed besides it there is no misdeal (rule 13)."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    reader = Reader(table)
    reader.deal((3, "Ah"), (5, "5c"))
    out = play(table, {**flash(5, "5c", "deal"), "boxed": True})
    (echo,) = rows_by(out, "event")
    assert (echo["card"], echo["boxed"], echo["kept"]) == ("5c", True, False)
    play(table, flash(3, "Ah", "deal"))  # the dealer's one exposure: kept, no misdeal
    assert state(table)["hand"] is not None
    assert "dead" in reader.refused(1, "5c")["reason"]
    reader.deal((5, "2c"))  # the boxed card's replacement: seat 5 holds one card


def test_a_card_flashed_on_the_draw_is_replaced_after_the_others_from_the_reader() -> None:
    """003 "Lowball" rules 7 and 8: a card "faced by dealer after the draw is dead and player
    receives additional card after all players receive their cards"."""
    table = table_of("lowball-003.toml")
    seats_1_3_5(table)
    reader = Reader(table)
    hands = {
        3: ["Ah", "2h", "3h", "Kc", "Kd"],
        5: ["As", "2s", "3s", "4s", "Qs"],
        1: ["Ad", "2d", "3d", "4d", "8d"],
    }
    deal_around(reader, hands, (3, 5, 1))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    reader.muck("Kc", "Kd", "9c")  # seat 3's discards, then the burn
    play(table, draw(3, 2))
    reader.deal((3, "4c"))
    play(table, flash(3, "5c", "draw"))  # the second card, faced: dead
    rule = reader.refused(3, "6c")["rule"]  # its replacement may not come yet
    assert rule == '003 "Lowball" (Lowball Rules, rule 16)'
    reader.muck("Qs", "9s")
    play(table, draw(5, 1))
    reader.deal((5, "5s"))  # seat 5: A-2-3-4-5, the wheel
    play(table, draw(1, 0))
    reader.deal((3, "6c"))  # now: 6-4-3-2-A
    out = play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    (result,) = rows_by(out, "round/result")
    assert [(p["amount"], p["low"]) for p in result["pots"]] == [("5.00", [5])]


def test_a_lowball_kill_pot_takes_no_straddles_and_its_kill_blind_is_paid(tmp_path: Path) -> None:
    """003 "Betting Limits", Kill Rules ("The kill blind must be paid") with 003 "Lowball" rule 5
    ("Straddles are permitted"): where a hand is a kill pot, the kill blind is its last blind
    and no straddle follows it (our reading, docs/games/draw.md). Seat 5 wins hands 1 and 2
    (every other seat folds), so hand 3 is a half-kill pot at $3-$6: a straddle is refused, and
    without one seat 5 posts the $3 kill blind."""
    table = kill_table(tmp_path, "half", game="lowball", seats=8)
    seats_1_3_5(table)  # button 1: 3 small, 5 big
    play(table, act(1, "fold"), act(3, "fold"))  # seat 5 wins, takes the kill button
    play(table, {"type": "hand.start"}, act(3, "fold"))  # button 3: 5 small, 1 big
    raise_to_4 = {"type": "decision", "seat": 5, "action": "raise", "amount": "4"}
    play(table, raise_to_4, act(1, "fold"))  # seat 5 wins the very next pot
    (alert,) = alerts(feed(table, {"type": "hand.start", "straddles": ["6"]}))
    assert alert["rule"] == '003 "Betting Limits" (Kill Rules)'
    assert "no straddles" in alert["reason"]
    (start,) = rows_by(play(table, {"type": "hand.start"}), "event")
    assert start["posted"][-1] == {"seat": 5, "post": "kill", "amount": "3.00"}
