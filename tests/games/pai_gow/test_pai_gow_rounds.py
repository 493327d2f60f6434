"""Three whole Fortune Pai Gow Poker rounds worked by hand from the documents, through the table.

Each round is played through `Table.apply` (tests/helpers.play) the way the console and the
devices feed it, and every figure below is worked in the comments from 003 "Fortune Pai Gow Poker",
004 "Fortune Pai Gow Poker", RULINGS.md (R1, R4, R30-R32) and DESIGN.md contract 3, never read back
from the code: the house way from the chart's printed row, the game wager from
003 "Fortune Pai Gow Poker: How Winners are Determined and Paid", the Fortune from the pay table
(003 "Fortune Pai Gow Poker: Bonus Bet Paytable"), the Envy from R32, the walk from R1's text and
the fees from the schedule's rows.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from tablectl.config import LoadedConfig
from tests.games.pai_gow.test_pai_gow_engine import (
    config,
    house,
    only_result,
    roll,
    set_low,
    settled,
    stacks,
)
from tests.helpers import BASE, bank, payloads, play, wager

D = Decimal
ROOT = Path(__file__).resolve().parents[3]


def cmd(event: dict[str, Any], verb: str, ref: str) -> dict[str, Any]:
    """`event` as the console sends it on cmd/<verb> with request id `ref` (it gets a reply)."""
    return {**event, "source": f"cmd/{verb}", "ref": ref}


def device(event: dict[str, Any], name: str) -> dict[str, Any]:
    """`event` as the device `name` reports it."""
    return {**event, "source": f"device/{name}"}


# -- round 1: 003, bank seat 6, dice 15, the bank runs out at the last seat ---------------------
#
# Dice 6+6+3 = 15: the player-dealer's position (1, 8, 15; R30), so seat 6 receives the first
# hand and the Action button goes to its left, seat 7
# (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). Hands 6, 7, 1, 2, 3, 4, 5;
# settlement from seat 7 clockwise: 7, 1, 2, (3), 4, (5).
#
# Player-dealer (seat 6) Qc Qd 9s 6h 5d 4c 2h: one pair, no straight (2-4-5-6 lacks the 3), no
# flush. "One Pair: Pair behind. 2 highest unpaired cards in front"
# (003 "Fortune Pai Gow Poker House Way"): low 9s 6h, high Qc Qd 5d 4c 2h.
ROUND_1_HANDS = {
    6: "Qc Qd 9s 6h 5d 4c 2h",
    # a straight 4-5-6-7-8; set badly, 5-4 in front: K-high behind loses to queens, 5-4 loses to
    # 9-6: the game wager loses; the Fortune straight pays 2 to 1 all the same
    # (003 "Fortune Pai Gow Poker: Fortune Bonus Bet")
    7: "8c 7d 6s 5h 4s Kd Qh",
    # 9-6 in front copies the player-dealer's 9-6 (003 "Fortune Pai Gow Poker: How Winners are
    # Determined and Paid": the copy is the player- dealer's); aces behind beat queens: a push
    1: "9c 6c Ah Ad Kh Tc 3s",
    # house way, two pairs with kings big: "Put the small pair in front" (003 "Fortune Pai Gow Poker
    # House Way"): low 8s 8h beats 9-6, high Ks Kc Ts 7c 3h beats queens: a win
    2: "Ks Kc 8s 8h Ts 7c 3h",
    # house way, four jacks: "Play four of a kind in back if you can put at least a king up
    # front" (003 "Fortune Pai Gow Poker House Way"): Ac 9h in front, four jacks behind: a win; four
    # of a kind for the Fortune (25 to 1) and for every other Envy button ($5, R32)
    4: "Js Jh Jd Jc Ac 9h 2s",
}
ROUND_1 = [
    cmd(bank(6, "400"), "bank", "b"),
    cmd(wager(7, "base", "25"), "wager", "w1"),
    cmd(wager(7, "fortune", "5"), "wager", "w2"),  # $5: an Envy button (R32)
    cmd(wager(1, "base", "50"), "wager", "w3"),
    cmd(wager(2, "base", "20"), "wager", "w4"),
    cmd(wager(2, "fortune", "10"), "wager", "w5"),  # an Envy button
    cmd(wager(4, "base", "100"), "wager", "w6"),
    # backline
    # (003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players")
    cmd(wager(4, "base", "10", player="b4"), "wager", "w7"),
    cmd(wager(4, "fortune", "25", player="b4"), "wager", "w8"),  # backline: no button
    device(roll(15), "dice"),
    *(device(ev, "dispenser") for ev in stacks(6, 15, ROUND_1_HANDS)),
    cmd(set_low(7, "5h 4s"), "decision", "d1"),
    cmd(set_low(1, "9c 6c"), "decision", "d2"),
    cmd(house(2), "decision", "d3"),
    cmd(house(4), "decision", "d4"),
]


def test_round_1_copy_push_win_fortune_on_a_loss_and_the_bank_running_out_R1_R30_R31_R32(
    tmp_path: Path,
) -> None:
    result = only_result(play(config(tmp_path), ROUND_1)[1])
    out = result["outcome"]
    assert (out["first_seat"], out["button_seat"], result["action_seat"]) == (6, 7, 7)
    dealer = out["player_dealer"]
    assert sorted(dealer["low"]["cards"]) == sorted(["9s", "6h"])
    assert dealer["house_way_row"] == "one-pair"
    by_seat = {h["seat"]: h for h in out["hands"]}
    assert [h["seat"] for h in out["hands"]] == [7, 1, 2, 4]
    assert sorted(by_seat[2]["low"]["cards"]) == sorted(["8s", "8h"])
    assert sorted(by_seat[4]["low"]["cards"]) == sorted(["Ac", "9h"])
    assert [by_seat[s]["fortune"] for s in (7, 1, 2, 4)] == [
        "straight",
        None,
        None,
        "four-of-a-kind",
    ]
    assert out["envy_hands"] == [4]
    # R1 with a bank of 400, from the button (funds; the bank's net):
    assert settled(result) == [
        (7, "p7", "base", "lose", D(-25)),  # 425; +25
        (7, "p7", "fortune", "win", D(10)),  # 5 x 2: 415; +15
        (7, "p7", "envy", "win", D(5)),  # seat 4's four jacks: 410; +10
        (1, "p1", "base", "push", D(0)),  # the copied 9-6 is the player-dealer's
        (2, "p2", "base", "win", D(20)),  # 390; -10
        (2, "p2", "fortune", "lose", D(-10)),  # two pairs pay nothing: 400; 0
        (2, "p2", "envy", "win", D(5)),  # 395; -5
        (4, "p4", "base", "win", D(100)),  # 295; -105
        (4, "b4", "base", "win", D(10)),  # 285; -115
        (4, "b4", "fortune", "partial", D(285)),  # owed 25 x 25 = 625: the last 285; 0; -400
    ]
    assert result["bank"] == {"seat": 6, "start": "400.00", "end": "0.00", "turn": 1}
    # R4, 003 schedule option 7: total action 25+5+50+20+10+100+10+25 = 245, "$201-$300 $3"
    assert [(f["payer"], f["seat"], f["amount"]) for f in result["fees"]] == [
        ("player-dealer", 6, "3.00")
    ]


def test_round_1_shows_no_card_on_any_topic_before_the_showdown_contract3(tmp_path: Path) -> None:
    """State, events, alerts and command replies carry no card until the result (contract 3),
    and the hands dealt to seats 3 and 5, which have no wager, never appear
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). A foul setting refused on
    the way adds an alert and a reply that show none either: seat 7's K-8 in front of Q-7-6-5-4
    (queen high) fouls (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
    foul = cmd(set_low(7, "Kd 8c"), "decision", "foul")
    _, rows = play(config(tmp_path), [*ROUND_1[:-4], foul, *ROUND_1[-4:]])
    (last,) = [i for i, r in enumerate(rows) if r.topic == f"{BASE}/round/result"]
    deck = [r + s for r in "AKQJT98765432" for s in "shdc"] + ["JKR"]
    for row in rows[:last]:
        for card in deck:
            assert json.dumps(card).encode() not in row.payload, (row.topic, card)
    alerts = payloads(rows[:last], "alert")
    assert [(a["rule"], a["source"]) for a in alerts] == [("R31", "cmd/decision")]
    replies = payloads(rows[:last], "cmd/decision/reply")
    assert [(r["id"], r["ok"]) for r in replies] == [
        ("foul", False),
        ("d1", True),
        ("d2", True),
        ("d3", True),
    ]
    # the result shows the 35 cards of the hands in play and the player-dealer's; the 14 dealt
    # to seats 3 and 5 (and the 4 left over) appear on no topic, before or after
    shown = {c for r in rows for c in deck if json.dumps(c).encode() in r.payload}
    assert shown == {c for h in ROUND_1_HANDS.values() for c in h.split()}


# -- round 2: 004's house way and collection schedule ------------------------------------------
#
# Bank seat 2, dice 15: seat 2 (the player-dealer) gets the first hand, seat 3 the button.
# Player-dealer 8s 8h 8d 8c Qh 5d 2c: four 8s. 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House
# Way'": "Four 8's, 7's, or 6's are put in back if the player-dealer can put a king or higher in
# front, otherwise, split": the best of Q-5-2 is queen-high, so split: low two 8s, high 8-8-Q-5-2 (a
# pair of 8s). (003 "Fortune Pai Gow Poker House Way" would keep them behind: "8's, 7's or 6's: ...
# at least a queen up front".)
ROUND_2_HANDS = {
    2: "8s 8h 8d 8c Qh 5d 2c",
    # set 9-9 in front: trips kings behind beat the 8s, 9-9 beats 8-8: a win; a full house for
    # the Fortune, 5 to 1 (004 "Fortune Pai Gow Poker: Fortune and Envy Bonus Bet Paytable")
    3: "Ks Kd Kc 9h 9s 4d 3c",
    # house way, no pairs: "Put 2nd and 3rd highest cards in front" (004 "Fortune Pai Gow Poker: Pai
    # Gow Poker 'House Way'"): T-7 in front (< 8-8), J-6-4-3-2 behind (< 8-8-Q): a loss
    5: "Jh Td 7s 6c 4h 3s 2d",
    # house way, two pairs with aces big: "puts the small pair in front and the higher pair in
    # back" (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'"): 7-7 in front loses to 8-8,
    # aces behind beat the 8s: a push
    6: "Ac Ad 7h 7c 5s 4c 3h",
}


def config_004(tmp_path: Path, house_way: str = "004") -> LoadedConfig:
    """The 004 table: its house way, limits $10-$500 and its one collection schedule
    (004 "Fortune Pai Gow Poker: Collection Rates": player-dealer by total action, each player by
    the wager's size)."""
    schedules = ROOT / "config" / "schedules" / "fortune-pai-gow-004.toml"
    return config(
        tmp_path,
        game={"house_way": house_way},
        limits={"min": "10", "max": "500"},
        collection={"file": str(schedules), "option": 1, "schedule": None},
    )


ROUND_2 = [
    bank(2, "1000"),
    wager(3, "base", "50"),
    wager(3, "fortune", "10"),
    wager(5, "base", "100"),
    wager(6, "base", "20", player="b6"),  # only a backline player at seat 6: it plays
    roll(15),
    *stacks(2, 15, ROUND_2_HANDS),
    set_low(3, "9h 9s"),
    house(5),
    house(6),
]


def test_round_2_under_004_splits_four_eights_and_charges_004s_fees_R1_R4_R31(
    tmp_path: Path,
) -> None:
    result = only_result(play(config_004(tmp_path), ROUND_2)[1])
    out = result["outcome"]
    assert (out["first_seat"], out["button_seat"]) == (2, 3)
    dealer = out["player_dealer"]
    assert [c[0] for c in dealer["low"]["cards"]] == ["8", "8"]
    assert (dealer["high"]["rank"], dealer["low"]["rank"]) == ("pair", "pair")
    by_seat = {h["seat"]: h for h in out["hands"]}
    assert sorted(by_seat[5]["low"]["cards"]) == sorted(["Td", "7s"])
    assert sorted(by_seat[6]["low"]["cards"]) == sorted(["7h", "7c"])
    assert settled(result) == [
        (3, "p3", "base", "win", D(50)),
        (3, "p3", "fortune", "win", D(50)),  # 10 x 5
        (5, "p5", "base", "lose", D(-100)),
        (6, "b6", "base", "push", D(0)),
    ]
    assert result["bank"]["end"] == "1000.00"  # -50 - 50 + 100
    # 004 "Fortune Pai Gow Poker: Collection Rates": total action 50+10+100+20 = 180 is in "$150 -
    # $400": $1.00; each wager by its size: $50 "$50 - $100" $1.00, $10 and $20 "$10 - $49" $0.50,
    # $100 $1.00
    assert [(f["payer"], f["seat"], f["amount"]) for f in result["fees"]] == [
        ("player-dealer", 2, "1.00"),
        ("player", 3, "1.00"),
        ("player", 3, "0.50"),
        ("player", 5, "1.00"),
        ("player", 6, "0.50"),
    ]


def test_round_2_under_003_keeps_the_four_eights_behind_R31(tmp_path: Path) -> None:
    """The same cards with 003's chart (003 "Fortune Pai Gow Poker House Way": "at least a queen up
    front"): Q-5 in front, four 8s behind. Seat 3: trips < four 8s, 9-9 > Q-5: push. Seat 5: J-high
    < four 8s, T-7 < Q-5: lose. Seat 6: 7-7 in front (its own chart row is the same in
    003 "Fortune Pai Gow Poker House Way") > Q-5, aces < four 8s: push. The Fortune is the seven
    cards' whatever the setting: +50."""
    result = only_result(play(config_004(tmp_path, house_way="003"), ROUND_2)[1])
    dealer = result["outcome"]["player_dealer"]
    assert sorted(dealer["low"]["cards"]) == sorted(["Qh", "5d"])
    assert dealer["high"]["rank"] == "four-of-a-kind"
    assert settled(result) == [
        (3, "p3", "base", "push", D(0)),
        (3, "p3", "fortune", "win", D(50)),
        (5, "p5", "base", "lose", D(-100)),
        (6, "b6", "base", "push", D(0)),
    ]
    assert result["bank"]["end"] == "1050.00"


# -- round 3: three Envy hands at once, settled wager type by wager type (R3) --------------------
#
# Bank seat 1 $700, dice 1+1+1 = 3: position 3 is seat 3, which gets the first hand and the
# button; settlement 3, 4, 5, 6, 7, 2. `settlement_order = "by-spot"` (R3): every game wager,
# then every Fortune, then every Envy.
#
# Player-dealer Kc 9h 8h 5s 4c 3d 2h: no pair, no straight (2-3-4-5 lacks the A and the 6), no
# flush. "No Pair: Put the 2nd and 3rd highest cards in front"
# (003 "Fortune Pai Gow Poker House Way"): low 9h 8h, high K-5-4-3-2.
ROUND_3_HANDS = {
    1: "Kc 9h 8h 5s 4c 3d 2h",
    # five aces, house way "Put pair of aces in front" (003 "Fortune Pai Gow Poker House Way"): A-A
    # beats 9-8, three aces beat king-high: win; Fortune 400 to 1; Envy $250 to every other button
    3: "As Ah Ad Ac JKR 8s 6d",
    # four 7s, "8's, 7's or 6's: ... at least a queen up front" (003 "Fortune Pai Gow Poker House
    # Way"): Q-J in front (> 9-8), four 7s behind: win; Fortune 25 to 1; Envy $5
    5: "7c 7d 7s 7h Qh Jh 2c",
    # queen-high straight flush, no pair: the only complete hand is the five diamonds, so 4-3
    # goes in front (003 "Fortune Pai Gow Poker House Way"): 4-3 < 9-8, the straight flush >
    # king-high: push;
    # Fortune 50 to 1; Envy $20
    6: "Qd Jd Td 9d 8d 4s 3h",
    # no pair: Q-J in front (> 9-8), K-9-6-4-2 behind (> K-5-4-3-2): win
    7: "Kh Qc Js 9c 6c 4d 2s",
    # no pair: T-8 in front (> 9-8), J-6-5-3-2 behind (< king-high): push; nothing for the
    # Fortune (four clubs, no straight)
    2: "Tc 8c 5d 3c Jc 2d 6s",
}
ROUND_3 = [
    bank(1, "700"),
    wager(3, "base", "10"),
    wager(3, "fortune", "10"),
    wager(5, "base", "10"),
    wager(5, "fortune", "5"),
    wager(6, "base", "20"),
    wager(6, "fortune", "5"),
    wager(7, "base", "10"),
    wager(2, "base", "10"),
    wager(2, "fortune", "10"),
    roll(3),
    *stacks(1, 3, ROUND_3_HANDS),
    *(house(s) for s in (3, 5, 6, 7, 2)),
]


def test_round_3_three_envy_hands_at_once_by_spot_R3_R32(tmp_path: Path) -> None:
    cfg = config(tmp_path, game={"settlement_order": "by-spot"})
    result = only_result(play(cfg, ROUND_3)[1])
    out = result["outcome"]
    assert out["envy_hands"] == [3, 5, 6]
    by_seat = {h["seat"]: h for h in out["hands"]}
    assert [by_seat[s]["result"] for s in (3, 5, 6, 7, 2)] == ["win", "win", "push", "win", "push"]
    assert sorted(by_seat[6]["low"]["cards"]) == sorted(["4s", "3h"])
    # Bank 700 (funds; the bank's net). Buttons: p3, p5, p6, p2 (all $5 or more, all seated).
    assert settled(result) == [
        (3, "p3", "base", "win", D(10)),  # 690; -10
        (5, "p5", "base", "win", D(10)),  # 680; -20
        (6, "p6", "base", "push", D(0)),
        (7, "p7", "base", "win", D(10)),  # 670; -30
        (2, "p2", "base", "push", D(0)),
        (3, "p3", "fortune", "partial", D(670)),  # owed 4000: 0; -700
        (5, "p5", "fortune", "returned", D(0)),  # owed 125
        (6, "p6", "fortune", "returned", D(0)),  # owed 250
        (2, "p2", "fortune", "lose", D(-10)),  # 10; -690
        (3, "p3", "envy", "win", D(5)),  # seat 5's four 7s: 5; -695
        (3, "p3", "envy", "partial", D(5)),  # seat 6's straight flush, owed 20: 0; -700
        (5, "p5", "envy", "returned", D(0)),  # seat 3's five aces, $250
        (5, "p5", "envy", "returned", D(0)),  # seat 6, $20
        (6, "p6", "envy", "returned", D(0)),  # seat 3
        (6, "p6", "envy", "returned", D(0)),  # seat 5
        (2, "p2", "envy", "returned", D(0)),  # seat 3
        (2, "p2", "envy", "returned", D(0)),  # seat 5
        (2, "p2", "envy", "returned", D(0)),  # seat 6
    ]
    envy = [(s["seat"], s["for_seat"]) for s in result["settlements"] if s["spot"] == "envy"]
    assert envy == [(3, 5), (3, 6), (5, 3), (5, 6), (6, 3), (6, 5), (2, 3), (2, 5), (2, 6)]
    assert result["bank"]["end"] == "0.00"
    # R4: base 60 + Fortune 30 = 90, "$5-$100 $1" (003 "Fortune Pai Gow Poker: Collection Fees")
    assert [f["amount"] for f in result["fees"]] == ["1.00"]
