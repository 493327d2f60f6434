"""EZ Baccarat Panda 8 through `Table.apply`: deal order, settlement, bank, wagers, fees, EZTRAK.

Every expected figure is worked by hand from 003 "EZ Baccarat Panda 8",
RULINGS.md (R1-R5, R25-R28) and DESIGN.md contracts 1-3, never read back from the code. Coups are
written as the cards in shoe order: Player, Banker, Player, Banker, then third cards (R25).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.records import Record, replay_ts
from tablectl.table import Table
from tests.helpers import (
    BASE,
    CLOSE,
    SHOE_NEW,
    bank,
    burn,
    cards,
    feed,
    make_config,
    payload,
    payloads,
    play,
    record,
    records,
    topics,
    wager,
)

D = Decimal

# -- coups (cards in draw order) -------------------------------------------------------------------

# P 2h+3c = 5 hits, 3d -> 2+3+3 = 8 (three cards); B Kd+7s = 7 stands: player 8-7, Panda 8.
PANDA = "2h Kd 3c 7s 3d"
# P Kh+6c = 6 stands; B 2d+2s = 4 hits (player stood, 5 or less), 3h -> 7: banker 7-6, Dragon 7.
DRAGON = "Kh 2d 6c 2s 3h"
# P Kh+7c = 7, B Qd+7s = 7: both stand, tie 7-7.
TIE = "Kh Qd 7c 7s"
# P 9h+Kd = natural 9; B 2c+3s = 5: nobody draws on a natural, player 9-5.
PLAYER_NATURAL = "9h 2c Kd 3s"
# P Kh+6c = 6 stands, B Kd+7s = 7 stands: banker 7-6 with two cards (no Dragon 7).
BANKER_TWO_CARD_7 = "Kh Kd 6c 7s"
# P Kh+7c = 7 stands; B 2d+2s = 4 hits, 3h -> 7: a three-card banker 7 that only ties.
TIE_ON_THREE_CARD_7 = "Kh 2d 7c 2s 3h"
# P 2h+3c = 5 hits, 3d -> 8 (three cards); B 2d+Ks = 2 hits, 6h -> 8: tie 8-8, no Panda 8.
TIE_ON_THREE_CARD_8 = "2h 2d 3c Ks 3d 6h"
# P Kh+2c = 2; B Kd+8s = natural 8: nobody draws, banker 8-2.
BANKER_NATURAL = "Kh Kd 2c 8s"


def rows_for(rows: list[Any], suffix: str) -> list[Any]:
    return [r for r in rows if r.topic == f"{BASE}/{suffix}"]


def settled(result: dict[str, Any]) -> list[tuple[int, str, str, Decimal]]:
    """(seat, spot, status, net) of each settlement, in the order published."""
    return [(s["seat"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]]


def only_result(rows: list[Any]) -> dict[str, Any]:
    results = payloads(rows, "round/result")
    assert len(results) == 1
    return results[0]


def assert_rejected(
    table: Table, event: Any, *, rule: str | None = None, reason_has: str = ""
) -> dict[str, Any]:
    """Exactly one `alert` (kind rejected, with a reason), and the table's state unchanged."""
    before, seq_before = table.state, table.seq
    rows = feed(table, event)
    assert topics(rows) == ["alert"], topics(rows)
    alert = payload(rows[0])
    assert alert["kind"] == "rejected"
    assert alert["reason"]
    assert reason_has in alert["reason"]
    if rule is not None:  # None: the alert need not name a rule
        assert alert["rule"] == rule
    assert alert["seq"] == seq_before + 1
    assert table.state == before
    return alert


def run(tmp_path: Path, events: list[Any], **overrides: Any) -> tuple[Table, list[Any]]:
    return play(make_config(tmp_path, **overrides), events)


# -- R25: deal order -------------------------------------------------------------------------------


def test_cards_go_player_banker_player_banker_then_thirds_R25(tmp_path: Path) -> None:
    # P 2h+2c = 4 hits, 5s -> 9; B 3d+Kd = 3 with player's third 5 -> H (chart row 3), 4h -> 7.
    table, rows = run(tmp_path, [bank(3, "100"), wager(4, "player", "10"), CLOSE])
    state = payloads(rows, "state")[-1]
    assert state["phase"] == "dealing" and state["next_card"] == "player"
    tos, nexts = [], []
    for ev in cards("2h 3d 2c Kd 5s 4h"):
        out = feed(table, ev)
        tos.append(payloads(out, "event")[0]["to"])
        nexts.append(payloads(out, "state")[-1]["next_card"])
    assert tos == ["player", "banker", "player", "banker", "player", "banker"]
    # after the sixth card the coup is over and the next round is betting: no next card
    assert nexts == ["banker", "player", "banker", "player", "banker", None]


def test_result_lists_cards_per_hand_and_dealt_order_R25(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [bank(3, "100"), wager(4, "player", "10"), *cards("2h 3d 2c Kd 5s 4h")])
    result = only_result(rows)
    # P 2+2+5 = 9, B 3+0+4 = 7: player wins 9-7
    assert result["outcome"]["player"] == {
        "cards": ["2h", "2c", "5s"],
        "total": 9,
        "natural": False,
    }
    assert result["outcome"]["banker"]["cards"] == ["3d", "Kd", "4h"]
    assert result["outcome"]["banker"]["total"] == 7
    assert result["outcome"]["winner"] == "player"
    assert [d["to"] for d in result["dealt"]] == ["player", "banker"] * 3


@pytest.mark.parametrize(
    ("shoe", "n_cards", "winner"),
    [
        # P 2h+2c = 4 hits 5s -> 9; B 6d+Kd = 6, player's third 5 -> S (row 6 hits only on 6, 7)
        ("2h 6d 2c Kd 5s", 5, "player"),
        # P 2h+2c = 4 hits 8s -> 2; B 3d+Kd = 3, player's third 8 -> S: banker 3-2
        ("2h 3d 2c Kd 8s", 5, "banker"),
        # P Kh+5c = 5 hits 6s -> 1; B 6d+Kc = 6, player's third 6 -> H, 2h -> 8: banker 8-1
        ("Kh 6d 5c Kc 6s 2h", 6, "banker"),
        # P Kh+6c = 6 stands; B Kd+5s = 5 hits (player stood, 5 or less), 4h -> 9: banker 9-6
        ("Kh Kd 6c 5s 4h", 5, "banker"),
        # P 9h+Kd natural: nobody draws
        (PLAYER_NATURAL, 4, "player"),
        # B natural 8 stops the player's draw on 2
        (BANKER_NATURAL, 4, "banker"),
    ],
)
def test_third_cards_by_the_chart_end_the_coup_R25(
    tmp_path: Path, shoe: str, n_cards: int, winner: str
) -> None:
    table, rows = run(tmp_path, [bank(3, "100"), *cards(shoe)])
    result = only_result(rows)
    assert len(result["dealt"]) == n_cards
    assert result["outcome"]["winner"] == winner
    # the coup is over: one more card is refused (the next round has no bank yet)
    assert_rejected(table, cards("5d")[0], rule="R1")


def test_burn_is_never_dealt_R25(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [SHOE_NEW, burn("Qs"), bank(3, "100"), burn("Jd")])
    burns = [p for p in payloads(rows, "event") if p["type"] == "shoe.burn"]
    assert len(burns) == 2
    # burned cards are face down: no topic shows them (contract 3, card exposure)
    assert all("card" not in b and "to" not in b for b in burns)
    assert all("Qs" not in r.payload.decode() and "Jd" not in r.payload.decode() for r in rows)
    out: list[Any] = []
    for ev in cards(PLAYER_NATURAL):
        out += feed(table, ev)
    assert [d["card"] for d in only_result(out)["dealt"]] == ["9h", "2c", "Kd", "3s"]


def test_burn_refused_mid_coup_R25(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100"), *cards("9h 2c")])
    assert_rejected(table, burn("5d"), rule="R25")


def test_first_card_closes_betting_003(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [bank(3, "100"), wager(4, "player", "10"), *cards("9h")])
    assert payloads(rows, "state")[-1]["phase"] == "dealing"
    alert = assert_rejected(table, wager(5, "player", "10"), rule="003")
    assert "no more bets" in alert["reason"]


# -- R26, R27: the full round with every wager type ------------------------------------------------

SEATED = [
    bank(3, "2000"),
    wager(4, "player", "100"),
    wager(4, "panda8", "10"),
    wager(4, "dragon7", "10"),
    wager(5, "banker", "50"),
    wager(5, "tie", "20"),
    wager(7, "banker", "40"),
    wager(7, "dragon7", "5"),
    wager(7, "panda8", "5"),
    wager(1, "tie", "15"),  # a Tie Bet alone is allowed (003)
]


@pytest.mark.parametrize(
    ("shoe", "expected", "end"),
    [
        pytest.param(
            PANDA,
            [
                (4, "player", "win", D(100)),  # 100 x 1
                (5, "banker", "lose", D(-50)),
                (7, "banker", "lose", D(-40)),
                (5, "tie", "lose", D(-20)),
                (1, "tie", "lose", D(-15)),
                (4, "panda8", "win", D(250)),  # 10 x 25
                (7, "panda8", "win", D(125)),  # 5 x 25
                (4, "dragon7", "lose", D(-10)),
                (7, "dragon7", "lose", D(-5)),
            ],
            D(1665),  # 2000 - (100 - 50 - 40 - 20 - 15 + 250 + 125 - 10 - 5 = 335)
            id="panda8_pays_25_to_1_R27",
        ),
        pytest.param(
            DRAGON,
            [
                (4, "player", "lose", D(-100)),
                (5, "banker", "win", D(50)),  # banker line 1:1 on a Dragon 7, no commission
                (7, "banker", "win", D(40)),
                (5, "tie", "lose", D(-20)),
                (1, "tie", "lose", D(-15)),
                (4, "panda8", "lose", D(-10)),
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "win", D(400)),  # 10 x 40
                (7, "dragon7", "win", D(200)),  # 5 x 40
            ],
            D(1460),  # 2000 - (-100 + 50 + 40 - 20 - 15 - 10 - 5 + 400 + 200 = 540)
            id="dragon7_pays_40_to_1_banker_wins_1_to_1_R26_R27",
        ),
        pytest.param(
            TIE,
            [
                (4, "player", "push", D(0)),
                (5, "banker", "push", D(0)),
                (7, "banker", "push", D(0)),
                (5, "tie", "win", D(160)),  # 20 x 8
                (1, "tie", "win", D(120)),  # 15 x 8
                (4, "panda8", "lose", D(-10)),
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "lose", D(-10)),
                (7, "dragon7", "lose", D(-5)),
            ],
            D(1750),  # 2000 - (160 + 120 - 30 = 250)
            id="tie_pays_8_to_1_and_pushes_both_lines_R26_R27",
        ),
        pytest.param(
            PLAYER_NATURAL,
            [
                (4, "player", "win", D(100)),
                (5, "banker", "lose", D(-50)),
                (7, "banker", "lose", D(-40)),
                (5, "tie", "lose", D(-20)),
                (1, "tie", "lose", D(-15)),
                (4, "panda8", "lose", D(-10)),  # a natural 9 is not a three-card 8
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "lose", D(-10)),
                (7, "dragon7", "lose", D(-5)),
            ],
            D(2055),  # 2000 - (100 - 155 = -55)
            id="player_line_pays_1_to_1_side_bets_lose_R26",
        ),
        pytest.param(
            BANKER_TWO_CARD_7,
            [
                (4, "player", "lose", D(-100)),
                (5, "banker", "win", D(50)),
                (7, "banker", "win", D(40)),
                (5, "tie", "lose", D(-20)),
                (1, "tie", "lose", D(-15)),
                (4, "panda8", "lose", D(-10)),
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "lose", D(-10)),  # a two-card 7 is no Dragon 7
                (7, "dragon7", "lose", D(-5)),
            ],
            D(2075),  # 2000 - (-100 + 90 - 35 - 15 - 15 = -75)
            id="banker_line_pays_1_to_1_no_commission_R26",
        ),
        pytest.param(
            TIE_ON_THREE_CARD_7,
            [
                (4, "player", "push", D(0)),
                (5, "banker", "push", D(0)),
                (7, "banker", "push", D(0)),
                (5, "tie", "win", D(160)),
                (1, "tie", "win", D(120)),
                (4, "panda8", "lose", D(-10)),
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "lose", D(-10)),  # three-card 7 against a player 7: no Dragon 7
                (7, "dragon7", "lose", D(-5)),
            ],
            D(1750),  # 2000 - (280 - 30 = 250)
            id="dragon7_loses_when_player_has_7_R27",
        ),
        pytest.param(
            TIE_ON_THREE_CARD_8,
            [
                (4, "player", "push", D(0)),
                (5, "banker", "push", D(0)),
                (7, "banker", "push", D(0)),
                (5, "tie", "win", D(160)),
                (1, "tie", "win", D(120)),
                (4, "panda8", "lose", D(-10)),  # three-card 8 against a banker 8: no Panda 8
                (7, "panda8", "lose", D(-5)),
                (4, "dragon7", "lose", D(-10)),
                (7, "dragon7", "lose", D(-5)),
            ],
            D(1750),  # 2000 - (280 - 30 = 250)
            id="panda8_loses_when_banker_has_8_R27",
        ),
    ],
)
def test_full_round_every_wager_R26_R27(
    tmp_path: Path, shoe: str, expected: list[tuple[int, str, str, Decimal]], end: Decimal
) -> None:
    _, rows = run(tmp_path, [*SEATED, *cards(shoe)])
    result = only_result(rows)
    assert settled(result) == expected
    assert result["bank"]["seat"] == 3
    assert D(result["bank"]["start"]) == D(2000)
    assert D(result["bank"]["end"]) == end
    assert sum(n for *_, n in settled(result)) + end - D(2000) == 0  # R1 / contract 3


def test_outcome_flags_R27(tmp_path: Path) -> None:
    flags = {}
    for name, shoe in [("panda", PANDA), ("dragon", DRAGON), ("tie7", TIE_ON_THREE_CARD_7)]:
        _, rows = run(tmp_path, [bank(3, "100"), *cards(shoe)])
        o = only_result(rows)["outcome"]
        flags[name] = (o["winner"], o["dragon7"], o["panda8"], o["natural"])
    assert flags == {
        "panda": ("player", False, True, False),
        "dragon": ("banker", True, False, False),
        "tie7": ("tie", False, False, False),
    }


def test_banker_pushes_on_dragon7_when_configured_R26(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [*SEATED, *cards(DRAGON)], game={"banker_push_on_dragon7": True})
    result = only_result(rows)
    assert settled(result)[1:3] == [(5, "banker", "push", D(0)), (7, "banker", "push", D(0))]
    # the Dragon 7 wagers still pay 40:1
    assert settled(result)[-2:] == [(4, "dragon7", "win", D(400)), (7, "dragon7", "win", D(200))]
    assert D(result["bank"]["end"]) == D(1550)  # 2000 - (540 - 50 - 40 = 450)


def test_banker_push_option_only_on_dragon7_R26(tmp_path: Path) -> None:
    _, rows = run(
        tmp_path, [*SEATED, *cards(BANKER_TWO_CARD_7)], game={"banker_push_on_dragon7": True}
    )
    assert settled(only_result(rows))[1:3] == [
        (5, "banker", "win", D(50)),
        (7, "banker", "win", D(40)),
    ]


# -- R1, R2, R3: settlement order and the bank -----------------------------------------------------

# Placed out of table order on purpose; the bank (seat 3) is too small to cover everything.
SMALL_BANK = [
    bank(3, "100"),
    wager(1, "player", "30"),
    wager(6, "player", "40"),
    wager(6, "dragon7", "5"),
    wager(2, "player", "20"),
    wager(4, "player", "50"),
    wager(4, "panda8", "5"),
]


def test_by_spot_order_from_player_dealers_left_exhausts_bank_R1_R2_R3(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [*SMALL_BANK, *cards(PANDA)])
    result = only_result(rows)
    # seats from the player-dealer's left: 4, 5, 6, 7, 1, 2; all player line, then panda8, dragon7
    assert settled(result) == [
        (4, "player", "win", D(50)),  # funds 100 - 50 = 50
        (6, "player", "win", D(40)),  # funds 50 - 40 = 10
        (1, "player", "partial", D(10)),  # owed 30, funds cover 10 -> 0
        (2, "player", "returned", D(0)),  # funds 0: stake back, nothing paid
        (4, "panda8", "returned", D(0)),  # owed 5 x 25 = 125, funds 0
        (6, "dragon7", "lose", D(-5)),  # collected: funds 0 + 5 = 5
    ]
    assert result["bank"] == {"seat": 3, "start": "100.00", "end": "5.00", "turn": 1}
    assert result["action_seat"] == 4


def test_by_seat_order_changes_who_is_covered_R1_R3(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [*SMALL_BANK, *cards(PANDA)], game={"settlement_order": "by-seat"})
    result = only_result(rows)
    assert settled(result) == [
        (4, "player", "win", D(50)),  # funds 100 - 50 = 50
        (4, "panda8", "partial", D(50)),  # owed 125, funds cover 50 -> 0
        (6, "player", "returned", D(0)),  # funds 0
        (6, "dragon7", "lose", D(-5)),  # funds 0 + 5 = 5
        (1, "player", "partial", D(5)),  # owed 30, funds cover 5 -> 0
        (2, "player", "returned", D(0)),
    ]
    assert D(result["bank"]["end"]) == 0  # 100 - (50 + 50 - 5 + 5 = 100)
    assert result["action_seat"] == 4


def test_bank_wins_at_most_its_own_amount_R1(tmp_path: Path) -> None:
    # bank seat 5 of 10; banker natural: order 6, 7, 1. Seat 6's 20 is collected only up to 10
    # (bank net 10 = B), seat 7's 15 is returned, seat 1's banker 5 is paid from funds 20.
    _, rows = run(
        tmp_path,
        [
            bank(5, "10"),
            wager(1, "banker", "5"),
            wager(7, "player", "15"),
            wager(6, "player", "20"),
            *cards(BANKER_NATURAL),
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (6, "player", "partial", D(-10)),
        (7, "player", "returned", D(0)),
        (1, "banker", "win", D(5)),
    ]
    assert D(result["bank"]["end"]) == D(15)  # 10 + 10 - 5
    assert result["action_seat"] == 6


def test_action_order_wraps_past_the_last_seat_R2(tmp_path: Path) -> None:
    # bank at seat 7: action starts at seat 1, seats 1..6 in turn
    _, rows = run(
        tmp_path,
        [
            bank(7, "1000"),
            wager(6, "player", "10"),
            wager(2, "player", "10"),
            wager(1, "player", "10"),
            *cards(PLAYER_NATURAL),
        ],
    )
    result = only_result(rows)
    assert [s["seat"] for s in result["settlements"]] == [1, 2, 6]
    assert result["action_seat"] == 1


def test_action_seat_is_first_seat_with_any_wager_R2(tmp_path: Path) -> None:
    # bank seat 3: seat 4 (banker line only) is on the player-dealer's left; seat 5 bets player
    _, rows = run(
        tmp_path,
        [
            bank(3, "1000"),
            wager(5, "player", "10"),
            wager(4, "banker", "10"),
            *cards(PLAYER_NATURAL),
        ],
    )
    result = only_result(rows)
    # settlement still goes all player line first (R3) ...
    assert [(s["seat"], s["spot"]) for s in result["settlements"]] == [
        (5, "player"),
        (4, "banker"),
    ]
    # ... but the action begins at seat 4, the first seat left of seat 3 with a wager (R2)
    assert result["action_seat"] == 4


def test_round_without_wagers_settles_nothing_R1_R4(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [bank(3, "100"), CLOSE, *cards(PLAYER_NATURAL)])
    result = only_result(rows)
    assert result["settlements"] == []
    assert result["bank"]["start"] == result["bank"]["end"] == "100.00"
    assert result["fees"] == []  # no action, no fee (R4)


# -- R1, R5: who banks -----------------------------------------------------------------------------


def test_wager_needs_a_bank_R1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [])
    assert_rejected(table, wager(4, "player", "10"), rule="R1")


@pytest.mark.parametrize("amount", ["0", "0.00"])
def test_bank_must_be_more_than_zero_R1(tmp_path: Path, amount: str) -> None:
    table, _ = run(tmp_path, [])
    assert_rejected(table, bank(3, amount), rule="R1")


def test_player_dealer_seat_cannot_wager_R1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100")])
    assert_rejected(table, wager(3, "player", "10"), rule="R1")
    assert_rejected(table, wager(3, "tie", "10", player="backer"), rule="R1")


def test_bank_cannot_change_once_wagers_are_down_R1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100"), wager(4, "player", "10")])
    assert_rejected(table, bank(3, "500"), rule="R1")
    assert_rejected(table, bank(5, "500"), rule="R1")


def test_bank_refused_during_the_deal_R1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100"), CLOSE])
    assert_rejected(table, bank(3, "100"), rule="R1")


def one_round(seat: int, shoe: str = PLAYER_NATURAL) -> list[Any]:
    return [bank(seat, "100"), wager(seat % 7 + 1, "player", "10"), *cards(shoe)]


def test_bank_rotates_after_two_hands_R5(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [bank(3, "100")])
    assert payloads(rows, "state")[-1]["player_dealer"] == {"seat": 3, "bank": "100.00", "turn": 1}
    rows = []
    for ev in [wager(4, "player", "10"), *cards(PLAYER_NATURAL)]:
        rows += feed(table, ev)
    assert only_result(rows)["bank"]["turn"] == 1
    assert payloads(rows, "state")[-1]["bank_offer_seat"] == 3  # one hand banked: offer stays
    second = feed(table, bank(3, "100"))
    assert payloads(second, "state")[-1]["player_dealer"]["turn"] == 2
    rows = []
    for ev in [wager(4, "player", "10"), *cards(BANKER_TWO_CARD_7)]:
        rows += feed(table, ev)
    assert only_result(rows)["bank"]["turn"] == 2
    assert payloads(rows, "state")[-1]["bank_offer_seat"] == 4  # two hands: clockwise to seat 4
    assert_rejected(table, bank(3, "100"), rule="R5")  # a third hand running
    third = feed(table, bank(4, "100"))
    assert payloads(third, "state")[-1]["player_dealer"] == {"seat": 4, "bank": "100.00", "turn": 1}


def test_bank_offer_wraps_to_seat_1_R5(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [*one_round(7), *one_round(7, BANKER_TWO_CARD_7)])
    assert payloads(rows, "state")[-1]["bank_offer_seat"] == 1  # 7 banked twice: next is 1


def test_seat_may_bank_again_after_another_seat_R5(tmp_path: Path) -> None:
    events = [*one_round(3), *one_round(3, BANKER_TWO_CARD_7), *one_round(4, TIE), bank(3, "50")]
    _, rows = run(tmp_path, events)
    assert payloads(rows, "state")[-1]["player_dealer"]["turn"] == 1
    assert payloads(rows, "alert") == []


# -- wager rules (003, limits) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "event", "rule", "reason_has"),
    [
        pytest.param([bank(3, "100")], wager(4, "dragon7", "5"), "003", "Dragon 7", id="d7-alone"),
        pytest.param([bank(3, "100")], wager(4, "panda8", "5"), "003", "Panda 8", id="p8-alone"),
        pytest.param(
            [bank(3, "100"), wager(4, "tie", "5")],
            wager(4, "panda8", "5"),
            "003",
            "Panda 8",
            id="p8-with-tie-only",
        ),
        pytest.param(
            [bank(3, "100"), wager(5, "player", "5")],
            wager(4, "dragon7", "5"),
            "003",
            "Dragon 7",
            id="d7-line-at-another-seat",
        ),
        pytest.param(
            [bank(3, "100"), wager(4, "player", "10")],
            wager(4, "dragon7", "5", player="backer"),
            "003",
            "Dragon 7",
            id="d7-backline-without-own-line",
        ),
        pytest.param([bank(3, "100")], wager(4, "player", "4.99"), "limits", "minimum", id="min"),
        pytest.param([bank(3, "100")], wager(4, "player", "0"), "limits", "", id="zero"),
        pytest.param([bank(3, "100")], wager(4, "banker", "500.01"), "limits", "max", id="max"),
        pytest.param(
            [bank(3, "100"), wager(4, "banker", "300"), wager(4, "banker", "200")],
            wager(4, "banker", "5"),  # 300 + 200 + 5 = 505 > 500
            "limits",
            "505.00",
            id="accumulated-over-max",
        ),
        pytest.param([bank(3, "100")], wager(4, "big", "10"), "003", "big", id="unknown-spot"),
        pytest.param([bank(3, "100")], wager(4, "Player", "10"), "003", "", id="spot-case"),
        pytest.param([bank(3, "100")], wager(8, "player", "10"), None, "seat 8", id="seat-8"),
        pytest.param([], bank(8, "100"), None, "seat 8", id="bank-seat-8"),
        pytest.param(
            [bank(3, "100"), CLOSE], wager(4, "player", "10"), "003", "no more bets", id="closed"
        ),
        pytest.param([bank(3, "100"), CLOSE], CLOSE, "003", "", id="close-twice"),
        pytest.param([], CLOSE, "R1", "", id="close-without-bank"),
        pytest.param([], cards("9h")[0], "R1", "", id="card-without-bank"),
        pytest.param([bank(3, "100"), *cards("9h")], SHOE_NEW, "R28", "", id="shoe-new-mid-coup"),
        pytest.param(
            [bank(3, "100")],
            {"type": "decision", "seat": 4, "action": "stand"},
            "003",
            "decision",
            id="decision",
        ),
        pytest.param(
            [bank(3, "100")],
            {"type": "dice.roll", "dice": [1, 2, 3]},
            "003",
            "dice.roll",
            id="dice",
        ),
    ],
)
def test_rejected_input_alerts_and_keeps_state_contract2(
    tmp_path: Path, setup: list[Any], event: Any, rule: str | None, reason_has: str
) -> None:
    table, rows = run(tmp_path, setup)
    assert payloads(rows, "alert") == []
    assert_rejected(table, event, rule=rule, reason_has=reason_has)


def test_tie_alone_and_side_bets_after_a_line_are_accepted_003(tmp_path: Path) -> None:
    table, rows = run(
        tmp_path,
        [
            bank(3, "100"),
            wager(1, "tie", "5"),
            wager(4, "banker", "10"),
            wager(4, "dragon7", "5"),
            wager(4, "panda8", "5"),
            wager(5, "player", "10", player="backer"),
            wager(5, "panda8", "5", player="backer"),
        ],
    )
    assert payloads(rows, "alert") == []
    assert [(w.seat, w.player, w.spot) for w in table.state.wagers] == [
        (1, "p1", "tie"),
        (4, "p4", "banker"),
        (4, "p4", "dragon7"),
        (4, "p4", "panda8"),
        (5, "backer", "player"),
        (5, "backer", "panda8"),
    ]


def test_per_spot_limit_override_003(tmp_path: Path) -> None:
    table, rows = run(
        tmp_path,
        [bank(3, "5000"), wager(4, "player", "500"), wager(4, "panda8", "100")],
        limits={"spots": {"panda8": {"min": "5", "max": "100"}}},
    )
    assert payloads(rows, "alert") == []
    # panda8 max is 100 here: 100 already down, 1 more makes 101
    assert_rejected(table, wager(4, "panda8", "1"), rule="limits", reason_has="100.00")
    # other spots keep the table's 5-500
    feed(table, wager(5, "banker", "500"))
    assert_rejected(table, wager(6, "banker", "501"), rule="limits")


def test_repeated_wagers_accumulate_and_settle_together_003(tmp_path: Path) -> None:
    _, rows = run(
        tmp_path,
        [
            bank(3, "1000"),
            wager(4, "player", "300"),
            wager(4, "player", "200"),  # 300 + 200 = 500, the max: accepted
            *cards(PLAYER_NATURAL),
        ],
    )
    assert payloads(rows, "alert") == []
    result = only_result(rows)
    assert sum(D(s["net"]) for s in result["settlements"]) == D(500)  # 500 x 1
    assert D(result["bank"]["end"]) == D(500)  # 1000 - 500
    assert result["fees"][0]["amount"] == "3.00"  # total action 500: option 3 "$301-$500 $3"


# -- R4: collection fees ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wagers", "fee"),
    [
        ([wager(4, "player", "100"), wager(5, "banker", "25")], "1.00"),  # 125: "$5-$200 $1"
        ([wager(4, "player", "200"), wager(5, "banker", "50")], "2.00"),  # 250: "$201-$300 $2"
        ([wager(4, "player", "200"), wager(5, "tie", "101")], "3.00"),  # 301: "$301-$500 $3"
        ([wager(4, "player", "500"), wager(5, "banker", "499")], "5.00"),  # 999: "$501-$1000 $5"
        ([wager(4, "player", "500"), wager(5, "banker", "500")], "8.00"),  # 1000: "$1000+ $8"
        (
            [wager(4, "player", "200"), wager(4, "panda8", "5"), wager(4, "dragon7", "5")],
            "2.00",  # 200 + 5 + 5 = 210, side bets count: "$201-$300 $2"
        ),
    ],
)
def test_player_dealer_fee_from_total_action_R4(
    tmp_path: Path, wagers: list[Any], fee: str
) -> None:
    _, rows = run(tmp_path, [bank(3, "5000"), *wagers, *cards(PLAYER_NATURAL)])
    result = only_result(rows)
    keys = ("payer", "seat", "amount", "schedule")
    assert [{k: f[k] for k in keys} for f in result["fees"]] == [
        {"payer": "player-dealer", "seat": 3, "amount": fee, "schedule": 3}
    ]
    # fees are reported apart: settlements and the bank alone still balance (contract 3)
    nets = sum(D(s["net"]) for s in result["settlements"])
    assert nets + D(result["bank"]["end"]) - D(result["bank"]["start"]) == 0


def test_fee_follows_the_schedule_in_use_R4(tmp_path: Path) -> None:
    # option 5: "$51-$100 $1"; total action 60
    _, rows = run(
        tmp_path,
        [bank(3, "500"), wager(4, "player", "60"), *cards(PLAYER_NATURAL)],
        collection={"option": 5},
    )
    fees = only_result(rows)["fees"]
    assert [(f["amount"], f["schedule"]) for f in fees] == [("1.00", 5)]


# -- contract 1: what the shoe can hold ------------------------------------------------------------


def test_ninth_ace_of_spades_refused_in_8_deck_shoe_contract1(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [SHOE_NEW, *[burn("As")] * 8])  # burns count toward the shoe
    assert payloads(rows, "alert") == []
    assert_rejected(table, burn("As"), rule="contract 1", reason_has="As")
    feed(table, bank(3, "100"))
    assert_rejected(table, cards("As")[0], rule="contract 1", reason_has="As")
    rows = feed(table, SHOE_NEW)  # a fresh shoe: counts start again
    assert payloads(rows, "alert") == []
    assert payloads(feed(table, cards("As")[0]), "event")[0]["to"] == "player"


def test_dealt_cards_and_burns_count_in_a_3_deck_shoe_contract1(tmp_path: Path) -> None:
    table, rows = run(
        tmp_path,
        # two burned As, a third dealt (P As+Kc = 1, B 9d+Kh natural 9)
        [SHOE_NEW, burn("As"), burn("as"), bank(3, "100"), *cards("As 9d Kc Kh")],
        game={"decks": 3},
    )
    assert payloads(rows, "alert") == []
    feed(table, bank(3, "100"))
    assert_rejected(table, cards("AS")[0], rule="contract 1", reason_has="As")


def test_joker_refused_contract1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100")])
    assert_rejected(table, cards("JKR")[0], rule="contract 1", reason_has="JKR")
    assert_rejected(table, burn("jkr"), rule="contract 1", reason_has="JKR")


def test_card_events_are_canonical_contract1(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [bank(3, "100"), *cards("9H 2C kd 3s")])
    assert [p["card"] for p in payloads(rows, "event") if p["type"] == "shoe.card"] == [
        "9h",
        "2c",
        "Kd",
        "3s",
    ]


# -- input that is not an event --------------------------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [
        {"type": "wager", "seat": 4, "spot": "player", "amount": "-5"},
        {"type": "wager", "seat": 4, "spot": "player", "amount": 5.5},
        {"type": "wager", "seat": 0, "spot": "player", "amount": "5"},
        {"type": "bank", "seat": 3},
        {"type": "shoe.card", "card": "10d"},
        {"type": "nonsense"},
        ["not", "an", "object"],
    ],
)
def test_unparsable_input_is_an_invalid_input_alert_contract2(tmp_path: Path, event: Any) -> None:
    table, _ = run(tmp_path, [bank(3, "100")])
    before = table.state
    rows = feed(table, event)
    assert topics(rows) == ["alert"]
    alert = payload(rows[0])
    assert alert["kind"] == "invalid-input" and alert["reason"]
    assert table.state == before


# -- commands through the Table --------------------------------------------------------------------


def test_command_replies_and_duplicates_contract3(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100")])
    ok = feed(table, wager(4, "player", "10"), source="cmd/wager", ref="abc")
    assert topics(ok) == ["event", "state", "cmd/wager/reply"]
    reply = payload(ok[-1])
    assert {k: reply[k] for k in ("id", "ok")} == {"id": "abc", "ok": True}
    assert "reason" not in reply

    before = table.state
    dup = feed(table, wager(4, "player", "10"), source="cmd/wager", ref="abc")
    assert topics(dup) == ["cmd/wager/reply"]
    assert payload(dup[0])["ok"] is False and "duplicate" in payload(dup[0])["reason"]
    assert table.state == before
    assert len(table.state.wagers) == 1  # not placed twice

    bad = feed(table, wager(3, "player", "10"), source="cmd/wager", ref="def")
    assert topics(bad) == ["alert", "cmd/wager/reply"]
    alert, reply = payload(bad[0]), payload(bad[1])
    assert alert["kind"] == "rejected" and alert["rule"] == "R1"
    assert (reply["id"], reply["ok"], reply["reason"]) == ("def", False, alert["reason"])
    assert table.state == before

    invalid = feed(table, {"type": "wager", "seat": "four"}, source="cmd/wager", ref="ghi")
    assert topics(invalid) == ["alert", "cmd/wager/reply"]
    assert payload(invalid[0])["kind"] == "invalid-input"
    assert payload(invalid[1])["id"] == "ghi" and payload(invalid[1])["ok"] is False
    assert table.state == before


def test_records_carry_command_source_and_ref_contract3(tmp_path: Path) -> None:
    recs = records([bank(3, "100"), {**CLOSE, "source": "cmd/bets.close", "ref": "x1"}])
    assert [(r.seq, r.source, r.ref) for r in recs] == [
        (1, "test", None),
        (2, "cmd/bets.close", "x1"),
    ]
    table = Table(make_config(tmp_path))
    rows = [row for r in recs for row in table.apply(r)]
    assert payloads(rows, "cmd/bets.close/reply") == [
        {"table": "t1", "seq": len(rows), "ts": recs[1].ts, "v": 1, "id": "x1", "ok": True}
    ]


def test_records_out_of_order_are_refused_journal(tmp_path: Path) -> None:
    table = Table(make_config(tmp_path))
    with pytest.raises(ValueError):
        table.apply(record(2, bank(3, "100")))


# -- R28: EZTRAK -----------------------------------------------------------------------------------


def test_eztrak_retained_each_round_and_rolled_on_new_shoe_R28(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [SHOE_NEW])
    shown = rows_for(rows, "display/eztrak")
    assert len(shown) == 1 and shown[0].retain
    first = payload(shown[0])
    assert (first["shoe"], first["hands"], first["previous"]) == (1, 0, None)

    hands = []
    for seat, shoe in ((3, PLAYER_NATURAL), (3, DRAGON), (4, TIE)):  # R5: two hands each
        out: list[Any] = []
        for ev in [bank(seat, "100"), *cards(shoe)]:
            out += feed(table, ev)
        shown = rows_for(out, "display/eztrak")
        assert len(shown) == 1 and shown[0].retain
        hands.append(payload(shown[0])["hands"])
    assert hands == [1, 2, 3]
    stats = payload(shown[0])["stats"]
    counts = {k: stats[k]["count"] for k in ("player", "banker", "tie", "dragon7", "panda8")}
    assert counts == {"player": 1, "banker": 1, "tie": 1, "dragon7": 1, "panda8": 0}
    assert stats["naturals"]["count"] == 1  # only the 9h Kd natural

    rolled = rows_for(feed(table, SHOE_NEW), "display/eztrak")
    assert len(rolled) == 1 and rolled[0].retain
    shown_now = payload(rolled[0])
    assert (shown_now["shoe"], shown_now["hands"]) == (2, 0)
    assert shown_now["previous"]["hands"] == 3
    assert shown_now["previous"]["dragon7"]["count"] == 1
    assert shown_now["limits"] == {"min": "5.00", "max": "500.00"}


# -- contract 3: the result payload and numbering --------------------------------------------------


def test_result_payload_contract3(tmp_path: Path) -> None:
    table, rows = run(
        tmp_path,
        [
            SHOE_NEW,
            bank(3, "500"),
            wager(4, "player", "25"),
            wager(5, "banker", "100"),
            *cards(DRAGON),
        ],
    )
    result = only_result(rows)
    assert {
        "table",
        "seq",
        "round",
        "game",
        "outcome",
        "bank",
        "action_seat",
        "settlements",
        "fees",
    } <= set(result)
    assert (result["table"], result["round"], result["game"]) == ("t1", 1, "ez-baccarat-panda8")
    assert result["outcome"] | {"player": None, "banker": None} == {
        "winner": "banker",
        "player": None,
        "banker": None,
        "natural": False,
        "dragon7": True,
        "panda8": False,
    }
    assert {k: result["outcome"]["player"][k] for k in ("cards", "total")} == {
        "cards": ["Kh", "6c"],
        "total": 6,
    }
    assert {k: result["outcome"]["banker"][k] for k in ("cards", "total")} == {
        "cards": ["2d", "2s", "3h"],
        "total": 7,
    }
    # banker line wins 1:1 (+100), player line loses 25: bank 500 - 75 = 425
    assert {k: result["bank"][k] for k in ("seat", "start", "end")} == {
        "seat": 3,
        "start": "500.00",
        "end": "425.00",
    }
    assert result["action_seat"] == 4
    assert result["settlements"] == [
        {
            "seat": 4,
            "player": "p4",
            "spot": "player",
            "amount": "25.00",
            "status": "lose",
            "net": "-25.00",
        },
        {
            "seat": 5,
            "player": "p5",
            "spot": "banker",
            "amount": "100.00",
            "status": "win",
            "net": "100.00",
        },
    ]
    assert [(f["payer"], f["seat"], f["amount"], f["schedule"]) for f in result["fees"]] == [
        ("player-dealer", 3, "1.00", 3)  # total action 125: "$5-$200 $1"
    ]
    assert table.state.round == 2


def test_seq_strictly_increasing_across_all_messages_contract3(tmp_path: Path) -> None:
    _, rows = run(
        tmp_path,
        [
            SHOE_NEW,
            bank(3, "100"),
            wager(3, "player", "10"),  # rejected: an alert is numbered too
            wager(4, "player", "10"),
            *cards(PANDA),
            {"type": "nonsense"},
            bank(5, "100"),
            *cards(TIE),
        ],
    )
    seqs = [json.loads(r.payload)["seq"] for r in rows]
    assert seqs == list(range(1, len(rows) + 1))
    assert [r.seq for r in rows] == seqs
    assert all(json.loads(r.payload)["table"] == "t1" for r in rows)
    assert len(payloads(rows, "round/result")) == 2
    assert [p["round"] for p in payloads(rows, "round/result")] == [1, 2]


# -- money the engine cannot represent -------------------------------------------------------------


def test_absurd_amount_is_an_alert_not_a_crash_contract2(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(3, "100")])
    rows = table.apply(
        record_raw(
            table.position + 1, {"type": "wager", "seat": 4, "spot": "player", "amount": "1e30"}
        )
    )
    assert topics(rows) == ["alert"]


def test_huge_bank_settles_or_is_refused_R1(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [bank(3, "99999999999999999999999999"), wager(4, "banker", "10")])
    accepted = payloads(rows, "alert") == []
    out: list[Any] = []
    for ev in cards(PLAYER_NATURAL):
        out += feed(table, ev)
    if accepted:
        assert len(payloads(out, "round/result")) == 1


def record_raw(seq: int, body: dict[str, Any]) -> Record:
    """A record whose body is used as given (as a journal written elsewhere would hold it)."""
    return Record(seq, replay_ts(seq), "test", None, body, "", "")
