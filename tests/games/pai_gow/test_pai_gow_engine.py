"""Fortune Pai Gow Poker through `Table.apply`: dice, dealing, setting, settlement, refusals.

Every expected figure is worked by hand from seed 003 ("Fortune Pai Gow Poker", lines 1355-1540),
RULINGS.md (R1-R5, R30-R32) and DESIGN.md contracts 1-3, never read back from the code. Hands are
written as seven cards; the player-dealer's hand is set by the house way chart of
003 "Fortune Pai Gow Poker House Way", worked by hand in each comment.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig
from tablectl.table import Table
from tests.helpers import CLOSE, bank, feed, make_config, payload, payloads, play, topics, wager

D = Decimal
GAME: dict[str, Any] = {
    "id": "fortune-pai-gow",
    "decks": None,
    "banker_push_on_dragon7": None,
    "bet_timer_seconds": None,
    "settlement_order": "by-seat",
    "fortune_table": "FORTUNE-003",
}
# 003 schedule option 7 (lines 1579-1583): table limit $5-$500; total table action $5-$100 $1,
# $101-$200 $2, $201-$300 $3, $301-$500 $5, $501+ $10; no player collection (line 1543).
SCHEDULE_7: dict[str, Any] = {
    "option": 7,
    "table_min": "5",
    "table_max": "500",
    "brackets": [
        {"from": "5", "fee": "1"},
        {"from": "101", "fee": "2"},
        {"from": "201", "fee": "3"},
        {"from": "301", "fee": "5"},
        {"from": "501", "fee": "10"},
    ],
}
FULL_DECK = [r + s for r in "AKQJT98765432" for s in "shdc"] + ["JKR"]


def config(tmp_path: Path, game: dict[str, Any] | None = None, **over: Any) -> LoadedConfig:
    """A seven-seat Fortune Pai Gow table, limits $5-$500, 003 schedule option 7."""
    collection = {
        "file": None,
        "option": None,
        "schedule": SCHEDULE_7,
        **over.pop("collection", {}),
    }
    return make_config(tmp_path, game={**GAME, **(game or {})}, collection=collection, **over)


def ring(bank_seat: int) -> list[int]:
    """The seats clockwise starting at the player-dealer (R30: the player-dealer is position 1)."""
    return [(bank_seat - 1 + i) % 7 + 1 for i in range(7)]


def roll(total: int) -> dict[str, Any]:
    """A `dice.roll` of three dice 1-6 adding up to `total` (3..18)."""
    a = min(6, total - 2)
    b = min(6, total - a - 1)
    return {"type": "dice.roll", "dice": [a, b, total - a - b]}


def stacks(
    bank_seat: int, total: int, hands: dict[int, str], deck: str | None = None
) -> list[dict[str, Any]]:
    """The seven `shuffler.stack`s in dispense order: the first to dice position `total` counted
    clockwise from the player-dealer as 1 (R30), then clockwise. Seats not in `hands` get cards
    nobody else holds."""
    seats = ring(bank_seat)
    first = seats[(total - 1) % 7]
    order = seats[seats.index(first) :] + seats[: seats.index(first)]
    used = {c for h in hands.values() for c in h.split()}
    spare = [c for c in FULL_DECK if c not in used]
    out = []
    for seat in order:
        if seat in hands:
            cards = hands[seat].split()
        else:
            cards, spare = spare[:7], spare[7:]
        ev: dict[str, Any] = {"type": "shuffler.stack", "cards": cards}
        if deck is not None:
            ev["deck"] = deck
        out.append(ev)
    return out


def set_low(seat: int, low: str) -> dict[str, Any]:
    return {"type": "decision", "seat": seat, "action": "set", "low": low.split()}


def house(seat: int) -> dict[str, Any]:
    return {"type": "decision", "seat": seat, "action": "house-way"}


def settled(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    """(seat, player, spot, status, net) of each settlement, in the order published."""
    return [
        (s["seat"], s["player"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]
    ]


def only_result(rows: list[Any]) -> dict[str, Any]:
    results = payloads(rows, "round/result")
    assert len(results) == 1
    return results[0]


def assert_rejected(table: Table, event: Any, rule: str, reason_has: str = "") -> dict[str, Any]:
    """Exactly one `alert` naming `rule`, and the table's state unchanged."""
    before, seq_before = table.state, table.seq
    rows = feed(table, event)
    assert topics(rows) == ["alert"], topics(rows)
    alert = payload(rows[0])
    assert alert["kind"] == "rejected" and alert["reason"]
    assert reason_has in alert["reason"], alert["reason"]
    assert alert["rule"] == rule
    assert table.state == before and table.seq == seq_before + 1
    return alert


# -- scenario 1: win, lose, push -------------------------------------------------------------------
# 003 "Fortune Pai Gow Poker: How Winners are Determined and Paid"

# Player-dealer at seat 1. No pair, no straight (5-4-3-2 lacks an A or a 6), no flush: house way
# "No Pair: Put the 2nd and 3rd highest cards in front" (003 "Fortune Pai Gow Poker House Way"): low
# 9d 7h, high Kc 5s 4c 3d 2h (king high).
DEALER_NO_PAIR = "Kc 9d 7h 5s 4c 3d 2h"
SCENARIO_1 = {
    1: DEALER_NO_PAIR,
    2: "As Ah Qd Jc 8s 6h 2c",  # low Q-J > 9-7; high pair of aces > king high: win
    3: "Jd Td 8d 6c 4s 3h 2s",  # low 3-2 < 9-7; high J-high < K-high: lose
    4: "Ks Kd 9c 5d 4h 3c 2d",  # low 3-2 < 9-7; high pair of kings > K-high: push
}
SETS_1 = [set_low(2, "Qd Jc"), set_low(3, "3h 2s"), set_low(4, "3c 2d")]
# Dice total 3: position 3 counted clockwise from the player-dealer (seat 1) as 1 is seat 3,
# which gets the first hand and the Action button (R30); hands go 3, 4, 5, 6, 7, 1, 2.
ROUND_1 = [
    bank(1, "500"),
    wager(2, "base", "10"),
    wager(3, "base", "20"),
    wager(4, "base", "30"),
    CLOSE,
    roll(3),
    *stacks(1, 3, SCENARIO_1),
    *SETS_1,
]


def test_win_lose_push_settled_from_the_action_button_003_1457_R30(tmp_path: Path) -> None:
    _, rows = play(config(tmp_path), ROUND_1)
    result = only_result(rows)
    assert result["game"] == "fortune-pai-gow"
    assert result["action_seat"] == 3
    assert result["outcome"]["button_seat"] == 3 and result["outcome"]["first_seat"] == 3
    # from the button clockwise: seat 3, 4, then 2
    # (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")
    assert settled(result) == [
        (3, "p3", "base", "lose", D(-20)),
        (4, "p4", "base", "push", D(0)),
        # paid 1 to 1 (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid")
        (2, "p2", "base", "win", D(10)),
    ]
    assert result["bank"] == {"seat": 1, "start": "500.00", "end": "510.00", "turn": 1}
    # R4: total action 10 + 20 + 30 = 60 is in $5-$100: the player-dealer pays $1
    assert [(f["payer"], f["seat"], f["amount"]) for f in result["fees"]] == [
        ("player-dealer", 1, "1.00")
    ]


def test_showdown_shows_each_setting_and_the_house_way_of_the_player_dealer_R31(
    tmp_path: Path,
) -> None:
    _, rows = play(config(tmp_path), ROUND_1)
    out = only_result(rows)["outcome"]
    dealer = out["player_dealer"]
    assert dealer["seat"] == 1 and dealer["set_by"] == "house-way"
    assert dealer["cards"] == DEALER_NO_PAIR.split()
    assert sorted(dealer["low"]["cards"]) == sorted(["9d", "7h"])
    assert sorted(dealer["high"]["cards"]) == sorted(["Kc", "5s", "4c", "3d", "2h"])
    assert (dealer["high"]["rank"], dealer["low"]["rank"]) == ("high-card", "high-card")
    by_seat = {h["seat"]: h for h in out["hands"]}
    assert [h["seat"] for h in out["hands"]] == [3, 4, 2]
    assert by_seat[2]["high"]["rank"] == "pair" and by_seat[2]["low"]["cards"] == ["Qd", "Jc"]
    assert by_seat[2]["set_by"] == "player" and by_seat[2]["result"] == "win"
    assert by_seat[3]["result"] == "lose" and by_seat[4]["result"] == "push"


# -- copies (R31, 003 "Fortune Pai Gow Poker: How Winners are Determined and Paid") ----------------

COPIES = {
    1: DEALER_NO_PAIR,  # high Kc 5s 4c 3d 2h, low 9d 7h
    # set K-2 in front: high K-5-4-3-2 copies the dealer's, low K-2 beats 9-7: push (a low A-Q
    # would foul: it outranks a king-high hand)
    2: "Ks 5d 4h 3c 2d Kh 2s",
    3: "9c 7d Js Jh 8c 6s Qd",  # high pair of jacks wins; low 9-7 copies: push
    4: "Kd 5h 4s 3h 2c 9s 7c",  # both hands copy: the player-dealer wins both: lose
}


def test_copies_go_to_the_player_dealer_R31(tmp_path: Path) -> None:
    events = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(3, "base", "10"),
        wager(4, "base", "10"),
        roll(3),  # the roll closes betting; first hand and button at seat 3
        *stacks(1, 3, COPIES),
        set_low(2, "Kh 2s"),
        set_low(3, "9c 7d"),
        set_low(4, "9s 7c"),
    ]
    result = only_result(play(config(tmp_path), events)[1])
    assert settled(result) == [
        (3, "p3", "base", "push", D(0)),
        (4, "p4", "base", "lose", D(-10)),
        (2, "p2", "base", "push", D(0)),
    ]
    assert result["bank"]["end"] == "510.00"


# -- the dice (R30, 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play") -------------

# Player-dealer at seat 4: positions 1, 8, 15 are seat 4; 2, 9, 16 seat 5; 3, 10, 17 seat 6;
# 4, 11, 18 seat 7; 5, 12 seat 1; 6, 13 seat 2; 7, 14 seat 3.
FIRST_SEAT_BANK_4 = {
    3: 6, 4: 7, 5: 1, 6: 2, 7: 3, 8: 4, 9: 5, 10: 6,
    11: 7, 12: 1, 13: 2, 14: 3, 15: 4, 16: 5, 17: 6, 18: 7,
}  # fmt: skip


@pytest.mark.parametrize("total", range(3, 19))
def test_dice_sum_names_the_first_position_player_dealer_1_8_15_R30(
    tmp_path: Path, total: int
) -> None:
    first = FIRST_SEAT_BANK_4[total]
    # the button: the first hand's seat, or the seat on the player-dealer's left (5) at 8 and 15
    button = 5 if total in (8, 15) else first
    table, _ = play(config(tmp_path), [bank(4, "100"), wager(1, "base", "10"), CLOSE])
    echo = payloads(feed(table, roll(total)), "event")[0]
    assert (echo["total"], echo["first_seat"], echo["button_seat"]) == (total, first, button)
    tos = []
    for ev in stacks(4, total, {}):
        tos.append(payloads(feed(table, ev), "event")[0]["to"])
    # then clockwise to all seven positions (R30,
    # 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")
    assert tos == [(first - 1 + i) % 7 + 1 for i in range(7)]


def test_action_button_left_of_player_dealer_when_it_gets_the_first_hand_R30(
    tmp_path: Path,
) -> None:
    # Player-dealer at seat 7, dice 8: position 8 is the player-dealer, who gets the first hand;
    # the button goes to its left, seat 1 (wrapping around), and settlement starts there.
    hands = {7: DEALER_NO_PAIR, 1: SCENARIO_1[2], 6: SCENARIO_1[3]}
    events = [
        bank(7, "500"),
        wager(6, "base", "20"),
        wager(1, "base", "10"),
        CLOSE,
        roll(8),
        *stacks(7, 8, hands),
        set_low(6, "3h 2s"),
        set_low(1, "Qd Jc"),
    ]
    _, rows = play(config(tmp_path), events)
    echoes = [p for p in payloads(rows, "event") if p["type"] == "shuffler.stack"]
    assert echoes[0]["to"] == 7  # the player-dealer gets the first hand
    result = only_result(rows)
    assert result["outcome"]["first_seat"] == 7 and result["outcome"]["button_seat"] == 1
    assert result["action_seat"] == 1
    assert settled(result) == [
        (1, "p1", "base", "win", D(10)),
        (6, "p6", "base", "lose", D(-20)),
    ]


# -- the Fortune Bonus (003 "Fortune Pai Gow Poker: Fortune Bonus Bet") ----------------------------

# Two pairs, aces and kings: "A's, K's or Q's: Put the small pair in front"
# (003 "Fortune Pai Gow Poker House Way"); no straight or flush is possible, so the golden rule
# (line 1447) does not apply: low Kc Kd, high Ac Ad Qs 9h 5c (pair of aces).
DEALER_ACES_KINGS = "Ac Ad Kc Kd Qs 9h 5c"


def test_fortune_pays_on_a_losing_base_wager_003_1499(tmp_path: Path) -> None:
    hands = {
        5: DEALER_ACES_KINGS,
        # three 3s; set with T-3 in front: high pair of 3s < pair of aces, low T-3 < K-K: lose.
        2: "3c 3d 3h 8s 6d 4c Th",
        # one pair of 2s; house way "Pair behind. 2 highest unpaired cards in front" (line 1431):
        # low J-9, high pair of 2s: both lose. Seven cards: no Fortune hand.
        3: "Js 9c 7d 6h 4s 2d 2c",
    }
    # Player-dealer at seat 5, dice 10: positions 5=1, 6=2, 7=3: position 10 is seat 7.
    events = [
        bank(5, "500"),
        wager(2, "base", "10"),
        wager(2, "fortune", "10"),
        wager(3, "base", "20"),
        wager(3, "fortune", "5"),
        CLOSE,
        roll(10),
        *stacks(5, 10, hands),
        set_low(2, "Th 3c"),
        house(3),
    ]
    result = only_result(play(config(tmp_path), events)[1])
    assert result["outcome"]["button_seat"] == 7
    assert settled(result) == [
        (2, "p2", "base", "lose", D(-10)),
        # three of a kind: 3 to 1 (003 "Fortune Pai Gow Poker: Bonus Bet Paytable")
        (2, "p2", "fortune", "win", D(30)),
        (3, "p3", "base", "lose", D(-20)),
        (3, "p3", "fortune", "lose", D(-5)),  # a pair is no Fortune hand
    ]
    by_seat = {h["seat"]: h for h in result["outcome"]["hands"]}
    assert by_seat[2]["fortune"] == "three-of-a-kind" and by_seat[3]["fortune"] is None
    assert by_seat[3]["set_by"] == "house-way"
    assert sorted(by_seat[3]["low"]["cards"]) == sorted(["Js", "9c"])
    assert result["bank"]["end"] == "505.00"  # 500 + 10 - 30 + 20 + 5
    # R4: total action 10 + 10 + 20 + 5 = 45, base and Fortune alike: $1
    assert [f["amount"] for f in result["fees"]] == ["1.00"]


def test_five_aces_pays_400_to_1_and_is_set_aces_in_front_R31(tmp_path: Path) -> None:
    hands = {1: DEALER_NO_PAIR, 2: "As Ah Ad Ac JKR 9s 4d"}
    events = [
        bank(1, "5000"),
        wager(2, "base", "5"),
        wager(2, "fortune", "5"),
        roll(3),
        *stacks(1, 3, hands),
        house(2),
    ]
    result = only_result(play(config(tmp_path), events)[1])
    (hand,) = result["outcome"]["hands"]
    assert hand["fortune"] == "five-aces"
    # "Five Aces: Put pair of aces in front" (003 "Fortune Pai Gow Poker House Way"): a pair of aces
    # (the joker is an ace) in front, three aces behind: both beat K-high and 9-7.
    assert hand["low"]["rank"] == "pair" and hand["high"]["rank"] == "three-of-a-kind"
    assert settled(result) == [
        (2, "p2", "base", "win", D(5)),
        # 5 x 400 (003 "Fortune Pai Gow Poker: Bonus Bet Paytable")
        (2, "p2", "fortune", "win", D(2000)),
    ]
    assert result["bank"]["end"] == "2995.00"


# -- the Envy Bonus (R32, 003 "Fortune Pai Gow Poker: Envy Bonus") ---------------------------------

# Player-dealer at seat 1 with four 9s and K, 6, 2: "J's, 10's or 9's: Play four of a kind in back
# if you can put at least a king up front" (003 "Fortune Pai Gow Poker House Way"): low Kc 6c, high
# 9-9-9-9-2h. Its four of a kind earns no Envy: "A player cannot win an Envy Bonus ... for the
# player-dealer's hand" (line 1481).
ENVY_HANDS = {
    1: "9c 9d 9h 9s Kc 6c 2h",
    2: "7c 7d 7h 7s Qd 4c 2c",  # four 7s (Fortune 25 to 1, Envy $5); set Q-4: both lose
    3: "As Ah Ad Ac JKR 8s 3d",  # five aces (400 to 1, Envy $250); A-A in front wins: push
    4: "Kd Qh Jc 6s 4h 3c 2s",  # nothing; set 3-2: both lose
    5: "5c 5h 5s 5d Ks Th 6d",  # four 5s but no Fortune wager: no Envy for anyone
    6: "Qc Jd Tc 8h 4d 3h 2d",  # nothing; set 3-2: both lose
}
ENVY_ROUND = [
    wager(2, "base", "10"),
    wager(2, "fortune", "5"),  # an Envy button: $5 or more (R32)
    wager(3, "base", "10"),
    wager(3, "fortune", "10"),  # an Envy button
    wager(4, "base", "10"),
    wager(4, "fortune", "5"),  # an Envy button
    wager(5, "base", "10"),
    wager(6, "base", "10"),
    # backline
    # (003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players")
    wager(6, "base", "10", player="b6"),
    # backline: no Envy button (003 "Fortune Pai Gow Poker: Envy Bonus")
    wager(6, "fortune", "25", player="b6"),
    CLOSE,
    roll(3),  # button and first hand at seat 3: settlement 3, 4, 5, 6, 7, then 2
    *stacks(1, 3, ENVY_HANDS),
    set_low(2, "Qd 4c"),  # high four 7s < four 9s; Q-4 < K-6: lose
    set_low(3, "Ac JKR"),  # high three aces < four 9s; A-A > K-6: push
    set_low(4, "3c 2s"),  # K-high < four 9s; 3-2 < K-6: lose
    set_low(5, "Ks Th"),  # four 5s < four 9s; K-T > K-6: push
    set_low(6, "3h 2d"),  # Q-high; 3-2: lose
]


def test_envy_pays_every_button_once_per_other_fortune_hand_R32(tmp_path: Path) -> None:
    result = only_result(play(config(tmp_path), [bank(1, "10000"), *ENVY_ROUND])[1])
    assert result["outcome"]["envy_hands"] == [3, 2]  # in settlement order from the button
    assert settled(result) == [
        (3, "p3", "base", "push", D(0)),
        (3, "p3", "fortune", "win", D(4000)),  # 10 x 400
        (3, "p3", "envy", "win", D(5)),  # for seat 2's four 7s, never its own five aces
        (4, "p4", "base", "lose", D(-10)),
        (4, "p4", "fortune", "lose", D(-5)),
        (4, "p4", "envy", "win", D(250)),  # for seat 3's five aces
        (4, "p4", "envy", "win", D(5)),  # for seat 2's four 7s: one payout per hand (line 1480)
        (5, "p5", "base", "push", D(0)),  # its four 5s had no Fortune wager: no Envy from it
        (6, "p6", "base", "lose", D(-10)),
        (6, "b6", "base", "lose", D(-10)),
        (6, "b6", "fortune", "lose", D(-25)),  # and no Envy row: a backline player has no button
        (2, "p2", "base", "lose", D(-10)),
        (2, "p2", "fortune", "win", D(125)),  # 5 x 25
        (2, "p2", "envy", "win", D(250)),  # for seat 3's five aces, never its own four 7s
    ]
    envy = [s for s in result["settlements"] if s["spot"] == "envy"]
    assert [(s["seat"], s["for_seat"], s["amount"]) for s in envy] == [
        (3, 2, "0.00"),
        (4, 3, "0.00"),
        (4, 2, "0.00"),
        (2, 3, "0.00"),
    ]
    # 4000 + 5 + 240 + 0 - 45 + 365 = 4565 paid out of 10000
    assert result["bank"]["end"] == "5435.00"
    # R4: base 60 + Fortune 5 + 10 + 5 + 25 = 105: the $101-$200 bracket, $2 (no Envy in it)
    assert [f["amount"] for f in result["fees"]] == ["2.00"]


def test_envy_and_fortune_are_paid_only_as_far_as_the_bank_covers_R1_R32(tmp_path: Path) -> None:
    # Bank $300 (R1: funds 300, the bank's net may not pass +300):
    result = only_result(play(config(tmp_path), [bank(1, "300"), *ENVY_ROUND])[1])
    assert settled(result) == [
        (3, "p3", "base", "push", D(0)),
        (3, "p3", "fortune", "partial", D(300)),  # owed 4000; funds 300 -> 0, net -300
        (3, "p3", "envy", "returned", D(0)),  # owed 5; funds 0
        (4, "p4", "base", "lose", D(-10)),  # funds 10
        (4, "p4", "fortune", "lose", D(-5)),  # funds 15
        (4, "p4", "envy", "partial", D(15)),  # owed 250; funds 0
        (4, "p4", "envy", "returned", D(0)),
        (5, "p5", "base", "push", D(0)),
        (6, "p6", "base", "lose", D(-10)),  # funds 10
        (6, "b6", "base", "lose", D(-10)),  # funds 20
        (6, "b6", "fortune", "lose", D(-25)),  # funds 45
        (2, "p2", "base", "lose", D(-10)),  # funds 55
        (2, "p2", "fortune", "partial", D(55)),  # owed 125; funds 0
        (2, "p2", "envy", "returned", D(0)),
    ]
    assert result["bank"]["end"] == "0.00"


def test_envy_button_needs_the_envy_minimum_R32(tmp_path: Path) -> None:
    # With a $3 table minimum (003 schedule option 1 is $3-$200), a $3 Fortune earns no button.
    cfg = config(
        tmp_path,
        limits={"min": "3", "max": "200"},
        collection={"schedule": {**SCHEDULE_7, "table_min": "3", "table_max": "200"}},
    )
    hands = {1: ENVY_HANDS[1], 2: ENVY_HANDS[2], 3: ENVY_HANDS[4], 4: ENVY_HANDS[6]}
    events = [
        bank(1, "1000"),
        wager(2, "base", "10"),
        wager(2, "fortune", "5"),  # four 7s
        wager(3, "base", "10"),
        wager(3, "fortune", "3"),  # below $5: no Envy button
        wager(4, "base", "10"),
        wager(4, "fortune", "5"),  # an Envy button
        roll(3),
        *stacks(1, 3, hands),
        set_low(2, "Qd 4c"),
        set_low(3, "3c 2s"),
        set_low(4, "3h 2d"),
    ]
    table, rows = play(cfg, events[:7])
    state = payloads(rows, "state")[-1]
    assert state["envy_buttons"] == [{"seat": 2, "player": "p2"}, {"seat": 4, "player": "p4"}]
    for ev in events[7:]:
        rows = feed(table, ev)
    result = only_result(rows)
    assert [
        (s["seat"], s.get("for_seat"), s["net"])
        for s in result["settlements"]
        if s["spot"] == "envy"
    ] == [(4, 2, "5.00")]


# -- betting ---------------------------------------------------------------------------------------
# 003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players",
# "Fortune Bonus Bet"; R1, R32


def test_fortune_needs_the_same_players_base_wager_003_1491(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(3, "base", "10", player="b3")])
    assert_rejected(table, wager(2, "fortune", "5"), "003 line 1491")
    # the backline player's base wager is not the seated player's
    assert_rejected(table, wager(3, "fortune", "5"), "003 line 1491")
    # backline betting
    # (003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players")
    feed(table, wager(3, "fortune", "5", player="b3"))
    assert [w["player"] for w in table.state_payload()["wagers"]] == ["b3", "b3"]


def test_envy_is_no_wager_R32(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10")])
    assert_rejected(table, wager(2, "envy", "5"), "R32", "Envy")
    assert_rejected(table, wager(2, "player", "5"), "003 line 1421")


def test_player_dealer_cannot_wager_and_bets_close_before_the_deal_R1(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10")])
    assert_rejected(table, wager(1, "base", "10"), "R1")
    feed(table, CLOSE)
    assert_rejected(table, wager(3, "base", "10"), "003 line 1491", "no more bets")


def test_more_on_the_same_spot_adds_to_one_wager_003_1491(tmp_path: Path) -> None:
    table, _ = play(
        config(tmp_path),
        [bank(1, "500"), wager(2, "base", "10"), wager(2, "base", "15")],
    )
    assert table.state_payload()["wagers"] == [
        {"seat": 2, "player": "p2", "spot": "base", "amount": "25.00"}
    ]
    assert_rejected(table, wager(2, "base", "480"), "limits")  # 25 + 480 > 500


# -- refused dice and stacks -----------------------------------------------------------------------
# R30; 003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used",
# "Dealing Procedures and Round of Play", "How Winners are Determined and Paid"


@pytest.mark.parametrize("dice", [[3, 4], [1, 2, 3, 4], [0, 3, 3], [7, 1, 1], []])
def test_dice_reading_must_be_three_dice_1_to_6_R30(tmp_path: Path, dice: list[int]) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10"), CLOSE])
    assert_rejected(table, {"type": "dice.roll", "dice": dice}, "R30")


def test_dice_once_and_stacks_only_after_the_dice_R30(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10"), CLOSE])
    first = stacks(1, 3, SCENARIO_1)
    assert_rejected(table, first[0], "R30", "roll the dice first")
    feed(table, roll(3))
    assert_rejected(table, roll(5), "R30")


def test_dice_need_a_bank_R1(tmp_path: Path) -> None:
    table = Table(config(tmp_path))
    assert_rejected(table, roll(9), "R1")


@pytest.mark.parametrize("size", [6, 8])
def test_stack_of_the_wrong_size_is_refused_003_1409(tmp_path: Path, size: int) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10"), roll(3)])
    cards = FULL_DECK[:size]
    assert_rejected(table, {"type": "shuffler.stack", "cards": cards}, "003 line 1409")


def test_card_seen_twice_in_the_round_is_refused_003_1369(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10"), roll(3)])
    twice_in_stack = ["As", "Kd", "Qh", "Jc", "Ts", "9d", "As"]
    assert_rejected(table, {"type": "shuffler.stack", "cards": twice_in_stack}, "003 line 1369")
    feed(table, {"type": "shuffler.stack", "cards": ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"]})
    again = ["2c", "3c", "4c", "5c", "6c", "7c", "Kd"]  # Kd went to the first hand
    assert_rejected(table, {"type": "shuffler.stack", "cards": again}, "003 line 1369")


def test_eighth_stack_is_refused_003_1409(tmp_path: Path) -> None:
    # seats 2 and 3 wager, so the round waits for their settings after the seventh stack
    table, _ = play(
        config(tmp_path),
        [bank(1, "500"), wager(2, "base", "10"), roll(3), *stacks(1, 3, SCENARIO_1)],
    )
    assert_rejected(table, {"type": "shuffler.stack", "cards": FULL_DECK[-7:]}, "003 line 1409")


def test_one_deck_every_round_the_same_colour_is_dealt_again_003_1369(tmp_path: Path) -> None:
    """Fortune Pai Gow is played with one 53-card deck (003 "Fortune Pai Gow Poker: Description of
    the Deck and Number of Decks Used"), reshuffled every round (line 1485): unlike Three Card Poker
    and Ultimate Texas Hold'em, whose two decks alternate, the same colour comes back every round;
    within a round every stack is of that one deck."""
    round_red = [
        bank(1, "500"),
        wager(2, "base", "10"),
        roll(3),
        *stacks(1, 3, SCENARIO_1, deck="red"),
        set_low(2, "Qd Jc"),
    ]
    table, rows = play(config(tmp_path), round_red)
    assert len(payloads(rows, "round/result")) == 1
    for ev in [bank(1, "500"), wager(2, "base", "10"), roll(3)]:
        feed(table, ev)
    red_again = stacks(1, 3, SCENARIO_1, deck="red")
    assert payloads(feed(table, red_again[0]), "event")[0]["deck"] == "red"
    blue = stacks(1, 3, SCENARIO_1, deck="blue")
    # one round, one deck
    # (003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used")
    assert_rejected(table, blue[1], "003 line 1369")
    assert payloads(feed(table, red_again[1]), "event")[0]["deck"] == "red"


# -- refused settings (R31; 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play") -----


def dealt_round(tmp_path: Path) -> Table:
    """Scenario 1 dealt, nobody set yet."""
    table, _ = play(config(tmp_path), ROUND_1[: -len(SETS_1)])
    return table


def test_foul_setting_is_refused_R31(tmp_path: Path) -> None:
    table = dealt_round(tmp_path)
    # seat 2: A-A in front leaves Q-J-8-6-2 (queen high) behind: the two-card hand outranks
    # the five-card hand (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")
    alert = assert_rejected(table, set_low(2, "As Ah"), "R31", "fouls")
    assert "As" not in json.dumps(alert) and "Ah" not in json.dumps(alert)


@pytest.mark.parametrize(
    "low",
    [
        ["Qd"],  # one card
        ["Qd", "Jc", "8s"],  # three cards
        ["Qd", "Qd"],  # the same card twice
        ["Qd", "Kc"],  # Kc is the player-dealer's, not seat 2's
    ],
)
def test_low_hand_must_be_two_of_the_seats_seven_003_1425(tmp_path: Path, low: list[str]) -> None:
    table = dealt_round(tmp_path)
    assert_rejected(
        table, {"type": "decision", "seat": 2, "action": "set", "low": low}, "003 line 1425"
    )


def test_decision_out_of_turn_or_without_a_hand_is_refused_003_1419_1425(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), ROUND_1[:7])  # one hand of seven dealt
    assert_rejected(table, set_low(2, "Qd Jc"), "003 line 1425", "all seven hands")
    table = dealt_round(tmp_path)
    assert_rejected(table, house(5), "003 line 1419", "no hand")  # no wager: discarded
    assert_rejected(table, house(1), "R31")  # the player-dealer's hand: house way, last
    assert_rejected(table, {"type": "decision", "seat": 2, "action": "fold"}, "003 line 1425")
    assert_rejected(
        table, {"type": "decision", "seat": 2, "action": "house-way", "low": ["Qd", "Jc"]},
        "003 line 1425",
    )  # fmt: skip
    assert_rejected(table, {"type": "decision", "seat": 2, "action": "set"}, "003 line 1425")
    feed(table, set_low(2, "Qd Jc"))
    assert_rejected(table, house(2), "003 line 1425", "already set")


def test_shoe_inputs_are_refused_003_1407(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500")])
    assert_rejected(table, {"type": "shoe.card", "card": "As"}, "003 line 1407")


# -- nothing is published before the showdown ------------------------------------------------------
# contract 3; 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"


def quoted(card: str) -> bytes:
    return json.dumps(card).encode()


def test_hands_are_never_published_before_the_showdown_contract3(tmp_path: Path) -> None:
    table, before = play(config(tmp_path), ROUND_1[:-1])
    dealt = {c for ev in ROUND_1 if ev["type"] == "shuffler.stack" for c in ev["cards"]}
    assert len(dealt) == 49
    for row in before:
        for card in dealt:
            assert quoted(card) not in row.payload, (row.topic, card)
    # the stack echo says where a hand went, not what it holds
    echoes = [p for p in payloads(before, "event") if p["type"] == "shuffler.stack"]
    assert [e["to"] for e in echoes] == [3, 4, 5, 6, 7, 1, 2]
    assert all("cards" not in e for e in echoes)
    # a setting's echo hides the low hand
    decisions = [p for p in payloads(before, "event") if p["type"] == "decision"]
    assert decisions and all("low" not in d for d in decisions)
    last = feed(table, ROUND_1[-1])
    result = only_result(last)
    # the showdown shows the hands in play and the player-dealer's; the three discarded hands
    # (seats 5, 6, 7: no wager, 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")
    # never appear on any topic
    assert [d["to"] for d in result["dealt"]] == [3, 4, 1, 2]
    discarded = dealt - {c for h in SCENARIO_1.values() for c in h.split()}
    assert len(discarded) == 21
    for row in before + last:
        for card in discarded:
            assert quoted(card) not in row.payload, (row.topic, card)


def test_a_round_with_no_wagers_ends_at_the_last_stack_unseen_003_1419(tmp_path: Path) -> None:
    events = [bank(1, "500"), roll(3), *stacks(1, 3, {1: DEALER_NO_PAIR})]
    _, rows = play(config(tmp_path), events)
    result = only_result(rows)
    assert result["settlements"] == [] and result["fees"] == []
    assert result["outcome"]["hands"] == []
    assert [d["to"] for d in result["dealt"]] == [1]  # only the player-dealer's is exposed


# -- rotation and the misdeal (R5; contract: void) ----------------------------------------------


def test_bank_turn_advances_on_a_finished_round_not_on_a_void_R5(tmp_path: Path) -> None:
    table, rows = play(config(tmp_path), ROUND_1)
    assert payloads(rows, "state")[-1]["bank_offer_seat"] == 1
    for ev in [bank(1, "500"), wager(2, "base", "10"), wager(2, "fortune", "5"), roll(3)]:
        feed(table, ev)
    feed(table, stacks(1, 3, SCENARIO_1)[0])
    out = feed(table, {"type": "round.void", "reason": "misdeal"})
    void = only_result(out)
    assert void["void"] is True and void["fees"] == [] and void["dealt"] == []
    assert settled(void) == [
        (2, "p2", "base", "returned", D(0)),
        (2, "p2", "fortune", "returned", D(0)),
    ]
    for card in SCENARIO_1[3].split():  # seat 3's hand was dispensed, never exposed
        assert all(quoted(card) not in r.payload for r in out)
    # the void does not count: seat 1 banks its second hand now, then must pass the bank on
    rows = feed(table, bank(1, "500"))
    assert payloads(rows, "state")[-1]["player_dealer"]["turn"] == 2


def test_in_deal_from_bets_close_to_the_last_stack(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10")])
    engine = table.engine
    assert not engine.in_deal(table.state) and not engine.between_rounds(table.state)
    feed(table, CLOSE)
    assert engine.in_deal(table.state)  # the dice are due
    for ev in [roll(3), *stacks(1, 3, SCENARIO_1)[:6]]:
        feed(table, ev)
        assert engine.in_deal(table.state)  # hands are being dispensed
    feed(table, stacks(1, 3, SCENARIO_1)[6])
    assert not engine.in_deal(table.state)  # settings come from the console
    feed(table, set_low(2, "Qd Jc"))
    assert not engine.in_deal(table.state) and engine.between_rounds(table.state)


# -- the house way of the configured document (R31) -----------------------------------------------

# Four kings with 7-7-2. 003 "Fortune Pai Gow Poker House Way": "A's, K's or Q's: Play four of a
# kind in back if you can put at least a pair in front": low 7c 7d, high K-K-K-K-2h.
# 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": "Four aces, kings, or queens are always
# split": low K-K, high K-K-7-7-2h (two pairs).
DEALER_FOUR_KINGS = "Kc Kd Kh Ks 7c 7d 2h"


@pytest.mark.parametrize(
    ("way", "dealer_high", "status", "net"),
    [
        # trips 5s < four kings, A-Q < 7-7: both lose
        ("003", "four-of-a-kind", "lose", D(-10)),
        # trips 5s > kings and sevens, A-Q < K-K: push
        ("004", "two-pair", "push", D(0)),
    ],
)
def test_house_way_follows_the_configured_document_R31(
    tmp_path: Path, way: str, dealer_high: str, status: str, net: Decimal
) -> None:
    hands = {1: DEALER_FOUR_KINGS, 2: "5c 5d 5h As Qd 9s 3h"}
    events = [bank(1, "500"), wager(2, "base", "10"), roll(3), *stacks(1, 3, hands)]
    events.append(set_low(2, "As Qd"))
    result = only_result(play(config(tmp_path, game={"house_way": way}), events)[1])
    dealer = result["outcome"]["player_dealer"]
    assert (dealer["high"]["rank"], dealer["low"]["rank"]) == (dealer_high, "pair")
    assert settled(result) == [(2, "p2", "base", status, net)]


def test_device_fault_while_dispensing_holds_the_round(tmp_path: Path) -> None:
    table, _ = play(config(tmp_path), [bank(1, "500"), wager(2, "base", "10"), roll(3)])
    fault = {"type": "device.status", "device": "dispenser", "available": True, "fault": "JAM"}
    rows = feed(table, fault)
    assert [p["kind"] for p in payloads(rows, "alert")] == ["device-fault", "round-held"]
    # A stack dispensed during the hold is kept for round.resume, not played (docs/mqtt.md).
    before = table.state
    kept = feed(table, stacks(1, 3, SCENARIO_1)[0])
    assert [p["kind"] for p in payloads(kept, "alert")] == ["input-held"]
    assert table.state == before


def test_void_with_no_round_in_progress_is_refused_naming_the_rule_round_void(
    tmp_path: Path,
) -> None:
    """docs/events.md: `round.void` voids the round in progress; with none, the refusal names the
    rule like every other (DESIGN contract 3: an alert for every rejected input)."""
    table = Table(config(tmp_path))
    assert_rejected(table, {"type": "round.void"}, "round.void", "no round is in progress")
    table, _ = play(config(tmp_path), ROUND_1)  # a finished round leaves none in progress
    assert_rejected(table, {"type": "round.void"}, "round.void", "no round is in progress")
