"""The stud games as the daemon plays them: the shipped configs built into a
`Table`, fed console inputs, checked on what is published. Every amount and every first bettor
worked by hand from document 003 in the test's comments."""

from __future__ import annotations

from typing import Any

import pytest

from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tests.games.poker.test_poker_hands import act, alerts, play, rows_by, table_of
from tests.helpers import feed


def seats_1_3_5(table: Table, stack: str = "100") -> None:
    """Seats 1, 3 and 5; the first hand's button on seat 1: dealt 3, 5, 1; seat 3 posts the $1
    small blind, seat 5 the $2 big blind, seat 1 (left of the big blind) acts first."""
    for seat in (1, 3, 5):
        play(table, {"type": "seat.take", "seat": seat, "stack": stack})
    play(table, {"type": "hand.start", "button": 1})


def up(**cards: str) -> dict[str, Any]:
    """`up.cards` for seats given as s3="9c"."""
    return {
        "type": "up.cards",
        "cards": [{"seat": int(k[1:]), "card": v} for k, v in cards.items()],
    }


def hole(seat: int, *cards: str) -> dict[str, Any]:
    return {"type": "hole.cards", "seat": seat, "cards": list(cards)}


def state(table: Table) -> dict[str, Any]:
    return dict(table.state_payload())


def turn(table: Table) -> int | None:
    hand = state(table)["hand"]
    assert hand is not None
    return int(hand["turn"]) if hand["turn"] is not None else None


def test_the_first_bettor_changes_each_street_and_a_tie_goes_nearest_the_dealers_left_R47() -> None:
    """003 "Seven Card Stud (High)": the first round "started by the player to the left of the big
    blind"; then "the player with the highest card or the highest Poker combination showing. If
    two or more players are tied for highest, the one nearest the dealer's left (that is, the
    one dealt first) is the first bettor"."""
    table = table_of("seven-card-stud-003.toml")
    seats_1_3_5(table)
    assert state(table)["hand"]["phase"] == "deal"  # the door cards come before any action
    refused = feed(table, act(1, "call"))
    assert alerts(refused)[0]["rule"] == '003 "Basic Seven Card Stud Rules" rule 1'
    play(table, up(s3="9c", s5="Kd", s1="Kh"))
    assert turn(table) == 1  # third street: left of the big blind (seat 5)
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))  # $2 each: a $6 pot
    # Fourth street: seat 5 K-7 and seat 1 K-7 tie above seat 3's 9-4: seat 5 was dealt before
    # seat 1 (dealt 3, 5, 1 from the dealer's left), so seat 5 bets first.
    play(table, up(s3="4d", s5="7c", s1="7h"))
    assert turn(table) == 5
    play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    # Fifth street: seat 3 shows a pair of nines (9-4-9), the only pair: seat 3 first.
    play(table, up(s3="9d", s5="5h", s1="2s"))
    assert turn(table) == 3
    play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    # Sixth street: seat 1 shows a pair of kings (K-7-2-K), above seat 3's nines.
    play(table, up(s3="3s", s5="6h", s1="Ks"))
    assert turn(table) == 1
    play(table, act(1, "check"), act(3, "check"), act(5, "check"))
    # Seventh street, face down: the boards are as they were, seat 1 first again.
    out = play(table, {"type": "down.cards"})
    assert turn(table) == 1
    assert rows_by(out, "event")[0]["street"] == "seventh"
    play(table, act(1, "check"), act(3, "check"), act(5, "check"))
    assert state(table)["hand"]["phase"] == "showdown"
    # The down cards: seat 1 Kc 8s 8d (kings full of eights), seat 3 Ah Ac 2c (aces and nines),
    # seat 5 Qd Jd Td (king high: K-Q-J-T-7, no straight).
    play(table, hole(3, "Ah", "Ac", "2c"), hole(5, "Qd", "Jd", "Td"))
    out = play(table, hole(1, "Kc", "8s", "8d"))
    (result,) = rows_by(out, "round/result")
    # $6 pot; R44 with three dealt in past third street: the $1 rate (2-4 players); $5 to seat 1.
    assert result["fee"] == {"amount": "1.00", "players": 3, "modified": False}
    assert [(p["amount"], p["high"]) for p in result["pots"]] == [("5.00", [1])]
    assert result["shown"][0]["high"]["name"] == "full-house"
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "103.00", 3: "98.00", 5: "98.00"}


def test_razz_the_lowest_board_bets_first_a_fold_turns_up_cards_down_and_a_pair_wins_R47() -> None:
    """003 "Razz (Seven Card Stud, Low Only)": "a pair can win for low if it is the lowest hand.
    There is no qualifier"; the lowest board showing bets first (R47); a player
    who drops "must immediately turn down all of his or her face-up cards" (003 "Basic Seven Card
    Stud Rules" rule 2, R46)."""
    table = table_of("razz-003.toml")
    seats_1_3_5(table)
    play(table, up(s3="2h", s5="Kc", s1="6s"))
    # Third street: seat 1 raises to $4, seat 3 calls ($3 more), seat 5 folds its $2: pot $10.
    play(table, act(1, "call"))  # seat 1 first (left of the big blind): calls $2
    play(table, {"type": "decision", "seat": 3, "action": "raise", "amount": "4"})
    play(table, act(5, "fold"), act(1, "call"))
    seats = {s["seat"]: s for s in state(table)["seats"]}
    assert seats[5]["up"] == []  # turned down: the Kc is never shown again
    assert seats[3]["up"] == ["2h"] and seats[1]["up"] == ["6s"]
    # Fourth street: seat 3 shows 2-3, seat 1 a pair of sixes: seat 3 (lower) bets first.
    play(table, up(s3="3h", s1="6d"))
    assert turn(table) == 3
    play(table, act(3, "check"), act(1, "check"))
    # Fifth: seat 3 pairs its deuce (2-3-2), seat 1 6-6-7: a pair of twos is lower, seat 3 first.
    play(table, up(s3="2d", s1="7c"))
    assert turn(table) == 3
    play(table, act(3, "check"), act(1, "check"))
    # Sixth: seat 3 shows two pairs (2-3-2-3), seat 1 one pair (6-6-7-8): seat 1 is lower.
    play(table, up(s3="3c", s1="8h"))
    assert turn(table) == 1
    play(table, act(1, "check"), act(3, "check"))
    play(table, {"type": "down.cards"}, act(1, "check"), act(3, "check"))
    # Seat 3: 4h 5h 4c down, 2h 3h 2d 3c up: 2-2-3-3-4-4-5 has four ranks, its best five a pair
    # of twos (5-4-3-2-2). Seat 1: 9s 9d 7d down, 6s 6d 7c 8h up: a pair of sixes (9-8-7-6-6).
    # The pair of twos is the lower hand: seat 3 takes the $10 pot less the $1 fee.
    play(table, hole(1, "9s", "9d", "7d"))
    out = play(table, hole(3, "4h", "5h", "4c"))
    (result,) = rows_by(out, "round/result")
    assert [(p["amount"], p["high"], p["low"]) for p in result["pots"]] == [("9.00", [], [3])]
    (shown,) = result["shown"]
    assert shown["seat"] == 3 and shown["high"] is None
    assert shown["low"]["name"] == "2-2-5-4-3"  # the pair of twos, then 5-4-3 (rules/low.py)
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "96.00", 3: "105.00", 5: "98.00"}


def test_stud_high_low_odd_chip_goes_to_the_high_hand() -> None:
    """003 "Basic Seven Card Stud Rules" rule 6: "The high hand gets the odd chip if the pot does
    not divide equally" (R41). A $9 pot (after the $1 fee from $10) halves into $4 and $4 with
    a $1 odd chip: the high hand takes $5, the low $4."""
    table = table_of("seven-card-stud-hi-lo-003.toml")
    seats_1_3_5(table)
    play(table, up(s3="Ah", s5="Kc", s1="Qs"))
    play(table, act(1, "call"))
    play(table, {"type": "decision", "seat": 3, "action": "raise", "amount": "4"})
    play(table, act(5, "fold"), act(1, "call"))  # $4 + $4 + seat 5's $2: a $10 pot
    for cards in ({"s3": "2h", "s1": "Qd"}, {"s3": "3h", "s1": "Kd"}, {"s3": "4d", "s1": "Ks"}):
        play(table, up(**cards))
        first = turn(table)
        other = 1 if first == 3 else 3
        play(table, act(first or 0, "check"), act(other, "check"))
    play(table, {"type": "down.cards"})
    play(table, act(turn(table) or 0, "check"), act(3 if turn(table) == 1 else 1, "check"))
    # Seat 1: Q-Q-K-K up with Qh Jc Tc down: queens full of kings wins high; no low (no five
    # cards 8 or below). Seat 3: A-2-3-4 up with 9c 8d 7s down: 8-4-3-2-A qualifies for low.
    play(table, hole(1, "Qh", "Jc", "Tc"))
    out = play(table, hole(3, "9c", "8d", "7s"))
    (result,) = rows_by(out, "round/result")
    (pot,) = result["pots"]
    assert (pot["amount"], pot["high"], pot["low"]) == ("9.00", [1], [3])
    assert {p["seat"]: p["amount"] for p in pot["paid"]} == {1: "5.00", 3: "4.00"}


def test_five_card_stud_deals_one_down_four_up_and_the_best_board_bets_after_the_first_round() -> (
    None
):
    """003 "Five Card Stud": one face-down card and one face-up card, a betting interval begun
    "to the left of the dealer and not on a blind", then three face-up rounds, the best board
    first; a fifth card to a seat is refused."""
    table = table_of("five-card-stud-003.toml")
    seats_1_3_5(table)
    play(table, up(s3="4c", s5="9h", s1="Jd"))
    assert turn(table) == 1
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    play(table, up(s3="4s", s5="Ah", s1="2d"))  # seat 3's pair of fours beats A-9 and J-2
    assert turn(table) == 3
    assert state(table)["hand"]["street"] == "third"
    play(table, act(3, "check"), act(5, "check"), act(1, "check"))
    play(table, up(s3="7c", s5="Ad", s1="3d"))  # seat 5 pairs its aces: A-9-A beats 4-4-7
    assert turn(table) == 5
    play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    refused = feed(table, {"type": "down.cards"})
    assert "up.cards" in alerts(refused)[0]["reason"]  # every Five Card Stud street is up
    play(table, up(s3="Kc", s5="5s", s1="6d"))
    play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    refused = feed(table, hole(1, "Qs", "Qh"))
    assert alerts(refused)[0]["rule"] == '003 "Five Card Stud"'  # one down card, not two
    play(table, hole(1, "Qs"), hole(3, "4h"))
    # Seat 5: aces with 9-5 and Ts down; seat 3: three fours (4-4-4-7-K) wins.
    out = play(table, hole(5, "Ts"))
    (result,) = rows_by(out, "round/result")
    assert [p["high"] for p in result["pots"]] == [[3]]
    assert result["shown"][0]["high"]["name"] == "three-of-a-kind"


@pytest.mark.parametrize(
    ("event", "why"),
    [
        (up(s3="9c", s5="Kd"), "one card to each seat still in"),
        (up(s3="9c", s5="9c", s1="Kh"), "a card appears twice"),
        ({"type": "board.cards", "cards": ["9c", "Kd", "Kh"]}, "takes no board.cards"),
        ({"type": "down.cards"}, "dealt with up.cards"),
        (hole(3, "Ah", "Ac", "Ad"), "dealt 2 down cards"),
    ],
)
def test_a_street_dealt_wrong_is_refused_and_changes_nothing(
    event: dict[str, Any], why: str
) -> None:
    table = table_of("seven-card-stud-003.toml")
    seats_1_3_5(table)
    before = table.state
    refused = feed(table, event)
    assert why in alerts(refused)[0]["reason"]
    assert table.state == before


def test_no_down_card_is_published_and_up_cards_are_as_they_fall() -> None:
    """R46: down cards (the seventh street's, and every hole.cards) are journaled only; up cards
    are public as they fall."""
    table = table_of("seven-card-stud-003.toml")
    seats_1_3_5(table)
    out: list[OutboxRow] = []
    out += play(table, up(s3="9c", s5="Kd", s1="Kh"), hole(3, "Ah", "Ac"))
    echo = rows_by(out, "event")
    assert echo[0]["cards"] == [
        {"seat": 3, "card": "9c"},
        {"seat": 5, "card": "Kd"},
        {"seat": 1, "card": "Kh"},
    ]
    text = b"".join(r.payload for r in out).decode()
    assert "Ah" not in text and "Ac" not in text
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    for street in (("4d", "7c", "7h"), ("9d", "5h", "2s"), ("3s", "6h", "Ks")):
        play(table, up(s3=street[0], s5=street[1], s1=street[2]))
        first = turn(table)
        order = [3, 5, 1]
        i = order.index(first or 0)
        play(table, *(act(s, "check") for s in order[i:] + order[:i]))
    out = play(
        table,
        {
            "type": "down.cards",
            "cards": [
                {"seat": 3, "card": "2c"},
                {"seat": 5, "card": "Td"},
                {"seat": 1, "card": "8d"},
            ],
        },
    )
    text = b"".join(r.payload for r in out).decode()
    assert all(c not in text for c in ("2c", "Td", "8d"))


def test_option_alley_a_hole_card_bought_face_down_an_up_card_face_up_then_a_round() -> None:
    """003 "Option Alley": after "a normal one card down, four cards up game, each player gets to
    discard one card and buy a new one from the dealer. If the hole card is discarded, the
    player gets a down card back. Otherwise the new card is dealt face up"; "The buy card is
    obtained through an additional round of betting"; high-low with no low qualifier."""
    table = table_of("option-alley-003.toml")
    seats_1_3_5(table)
    play(table, up(s3="5c", s5="Kd", s1="2h"), hole(1, "Kc"))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))  # $2 each: $6
    for cards in (
        {"s3": "6c", "s5": "Kh", "s1": "3h"},  # seat 5's pair of kings bets first
        {"s3": "7c", "s5": "9s", "s1": "4h"},
        {"s3": "Qd", "s5": "9d", "s1": "Jc"},  # seat 5: K-K-9-9
    ):
        play(table, up(**cards))
        assert turn(table) == 5
        play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    assert state(table)["hand"]["phase"] == "buy"
    refused = feed(table, {"type": "option.buy", "seat": 5})
    assert "seat 3 buys first" in alerts(refused)[0]["reason"]  # in turn from the dealer's left
    out = play(table, {"type": "option.buy", "seat": 3, "discard": "Qd", "card": "Qs"})
    assert rows_by(out, "event")[0]["card"] == "Qs"  # an up card bought is shown
    play(table, {"type": "option.buy", "seat": 5})  # stands pat
    out = play(table, {"type": "option.buy", "seat": 1, "discard": "hole", "card": "Ad"})
    echo = rows_by(out, "event")[0]
    assert echo["discard"] == "hole" and "card" not in echo  # the new hole card is not shown
    assert "Ad" not in b"".join(r.payload for r in out).decode()
    seats = {s["seat"]: s["up"] for s in state(table)["seats"]}
    assert seats[3] == ["5c", "6c", "7c", "Qs"]
    assert state(table)["hand"]["street"] == "buy"
    assert turn(table) == 5  # the buy's round: K-K-9-9 is the best board showing
    play(table, {"type": "decision", "seat": 5, "action": "bet", "amount": "4"})
    play(table, act(1, "call"), act(3, "fold"))  # $6 + $4 + $4 = $14
    out = play(table, hole(5, "2c"))
    (result,) = rows_by(out, "round/result")
    # Seat 5: kings and nines (high). Seat 1 bought the Ad for its Kc: A-2-3-4-J is the lowest
    # (seat 5's low is two pairs). $14 less the $1 fee is $13: halves of $6, the odd $1 to high.
    (pot,) = result["pots"]
    assert (pot["amount"], pot["high"], pot["low"]) == ("13.00", [5], [1])
    assert {p["seat"]: p["amount"] for p in pot["paid"]} == {5: "7.00", 1: "6.00"}
    stacks = {s["seat"]: s["stack"] for s in result["stacks"]}
    assert stacks == {1: "100.00", 3: "98.00", 5: "101.00"}


def test_option_alley_a_dead_hand_last_to_buy_lets_the_buy_round_open() -> None:
    table = table_of("option-alley-003.toml")
    seats_1_3_5(table)
    play(table, up(s3="5c", s5="Kd", s1="2h"))
    play(table, act(1, "call"), act(3, "call"), act(5, "check"))
    for cards in (
        {"s3": "6c", "s5": "Kh", "s1": "3h"},
        {"s3": "7c", "s5": "9s", "s1": "4h"},
        {"s3": "Qd", "s5": "9d", "s1": "Jc"},
    ):
        play(table, up(**cards))
        play(table, act(5, "check"), act(1, "check"), act(3, "check"))
    play(table, {"type": "option.buy", "seat": 3}, {"type": "option.buy", "seat": 5})
    play(table, {"type": "hand.dead", "seat": 1, "reason": "fouled"})
    assert state(table)["hand"]["street"] == "buy" and turn(table) == 5
