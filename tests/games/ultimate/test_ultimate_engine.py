"""Ultimate Texas Hold'em through `Table.apply`: wagers, the deal, the streets, settlement, reveal.

Every expected figure is worked by hand from 003 "Ultimate Texas Hold'em",
004 "Ultimate Texas Hold'em" (Trips only), RULINGS.md (R1-R5, R35) and DESIGN.md contracts 1-3,
never read back from the code. Hands are written as the two hole cards and the five community cards;
each hand's best five is worked out in the comment beside it.

The table: six places (003 "Ultimate Texas Hold'em: Description of Table Used and Total Number of
Seated Positions"), the player-dealer at seat 4 unless said otherwise. Stacks go to the seats with
an Ante and Blind from the house dealer's left (seat 1 up, 003 "Ultimate Texas Hold'em: Dealing
Procedures and Round of Play"), then to the player-dealer, then the board (003 "Ultimate Texas
Hold'em: Dealing Procedures and Round of Play"). Payouts go seat by seat from the player-dealer's
left, 5, 6, 1, 2, 3 (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"). Fees: 003
schedule option 1 (lines 3635-3639): action $5-$50 $1, $51-$100 $2, $101-$200 $3, $201-$300 $6,
$301+ $9.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig
from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tests.helpers import (
    BASE,
    CLOSE,
    bank,
    feed,
    make_config,
    payload,
    payloads,
    play,
    topics,
    wager,
)

D = Decimal

# 003 "Ultimate Texas Hold'em: Collection Rates Schedule", schedule option 1: limit per spot
# $5-$300, player collection $0.
OPTION_1 = {
    "option": 1,
    "table_min": "5",
    "table_max": "300",
    "brackets": [
        {"from": "5", "fee": "1"},
        {"from": "51", "fee": "2"},
        {"from": "101", "fee": "3"},
        {"from": "201", "fee": "6"},
        {"from": "301", "fee": "9"},
    ],
}


def ut_config(tmp_path: Path, **game: Any) -> LoadedConfig:
    """The 003 table (Blind, Trips and Bad Beat tables of 003), six places, option 1."""
    settings: dict[str, Any] = {
        "id": "ultimate-texas-holdem",
        "decks": None,
        "settlement_order": "by-seat",
        "banker_push_on_dragon7": None,
        "bet_timer_seconds": None,
        "blind_table": "BLIND-003",
        "trips_table": "TRIPS-003",
        "bad_beat_table": "BADBEAT-003",
        **game,
    }
    return make_config(
        tmp_path,
        game=settings,
        seats={"count": 6},
        limits={"min": "5", "max": "300"},
        collection={"file": None, "option": None, "schedule": OPTION_1},
    )


def run(tmp_path: Path, events: Sequence[Any], **game: Any) -> tuple[Table, list[OutboxRow]]:
    return play(ut_config(tmp_path, **game), events)


def stack(cards: str, deck: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "shuffler.stack", "cards": cards.split()}
    if deck is not None:
        ev["deck"] = deck
    return ev


def deal(*stacks: str, deck: str | None = None) -> list[dict[str, Any]]:
    """Stacks in dispense order: each seat's two cards, the player-dealer's two, the board."""
    return [stack(s, deck) for s in stacks]


def decide(
    seat: int, action: str, multiple: int | None = None, amount: str | None = None
) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "seat": seat, "action": action}
    if multiple is not None:
        ev["multiple"] = multiple
    if amount is not None:
        ev["amount"] = amount
    return ev


def ante_blind(seat: int, amount: str) -> list[dict[str, Any]]:
    return [wager(seat, "ante", amount), wager(seat, "blind", amount)]


def only_result(rows: Iterable[OutboxRow]) -> dict[str, Any]:
    results = payloads(rows, "round/result")
    assert len(results) == 1
    return results[0]


def settled(result: dict[str, Any]) -> list[tuple[int, str, str, Decimal]]:
    """(seat, spot, status, net) of each settlement, in the order published."""
    return [(s["seat"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]]


def balanced(result: dict[str, Any]) -> None:
    """R1 / contract 3: the sum of all net plus the bank's change is zero."""
    change = D(result["bank"]["end"]) - D(result["bank"]["start"])
    assert sum(D(s["net"]) for s in result["settlements"]) + change == 0


def assert_rejected(
    table: Table, event: Any, *, rule: str | None = None, reason_has: str = ""
) -> dict[str, Any]:
    """Exactly one `alert` (kind rejected), the rule named, and the table's state unchanged."""
    before, seq_before = table.state, table.seq
    rows = feed(table, event)
    assert topics(rows) == ["alert"], topics(rows)
    alert = payload(rows[0])
    assert alert["kind"] == "rejected" and alert["reason"]
    assert reason_has in alert["reason"], alert["reason"]
    if rule is not None:
        assert alert["rule"] == rule, alert
    assert table.state == before
    assert table.seq == seq_before + 1
    return alert


def shown(rows: Iterable[OutboxRow], card: str) -> list[str]:
    """The topics of the rows whose payload names `card` (as a JSON string or list item)."""
    pattern = re.compile(rf'"{card}"')
    return [r.topic.removeprefix(BASE + "/") for r in rows if pattern.search(r.payload.decode())]


def last_state(rows: Iterable[OutboxRow]) -> dict[str, Any]:
    return payloads(rows, "state")[-1]


# -- R35: the Blind --------------------------------------------------------------------------------
# 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid", "Blind Wager Payout Table"


def test_blind_pushes_on_a_win_below_a_straight_R35(tmp_path: Path) -> None:
    # seat 1 As Ad + Kc 7h 4d 9s 2c = pair of aces (A A K 9 7); the player-dealer Qh Qs = pair of
    # queens (Q Q K 9 7), qualifies. Aces win, but with less than a straight: the Blind pushes.
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
            decide(1, "bet", 4),  # 4 x 10 = 40 pre-flop
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        # 1 to 1 (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid")
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(40)),
        # 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"
        (1, "blind", "push", D(0)),
    ]
    assert result["bank"]["end"] == "950.00"  # 1000 - 10 - 40
    balanced(result)


def test_blind_pays_a_straight_1_to_1_R35(tmp_path: Path) -> None:
    # seat 1 8h 9c + Tc Jd Qs 2h 3c = straight 8-9-T-J-Q; the player-dealer Kh Kd = pair of kings
    # (no 9 or ace for a straight). Straight wins: Blind 1 to 1
    # (003 "Ultimate Texas Hold'em: Blind Wager Payout Table").
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            *deal("8h 9c", "Kh Kd", "Tc Jd Qs 2h 3c"),
            decide(1, "check"),
            decide(1, "bet", 2),  # flop: 2 x 10 = 20
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(20)),
        (1, "blind", "win", D(10)),
    ]
    assert result["bank"]["end"] == "960.00"  # 1000 - 40
    assert result["outcome"]["hands"][0]["rank"] == "straight"
    balanced(result)


def test_blind_pays_a_flush_3_to_2_rounded_down_to_the_cent_R35(tmp_path: Path) -> None:
    # seat 1 2h 7h + Ah Kh 4h 9c Jd = flush A-K-7-4-2 of hearts; the player-dealer Qs Qc = pair of
    # queens (A K Q J without a ten: no straight). Blind 5.25 at 3 to 2
    # (003 "Ultimate Texas Hold'em: Blind Wager Payout Table") = 7.875, paid 7.87
    # (tablectl.rules.paytables.winnings: to the cent below).
    _, rows = run(
        tmp_path,
        [
            bank(4, "100"),
            *ante_blind(1, "5.25"),
            *deal("2h 7h", "Qs Qc", "Ah Kh 4h 9c Jd"),
            decide(1, "check"),
            decide(1, "check"),
            decide(1, "bet", 1),  # river: 1 x 5.25
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "win", D("5.25")),
        (1, "play", "win", D("5.25")),
        (1, "blind", "win", D("7.87")),
    ]
    assert result["bank"]["end"] == "81.63"  # 100 - (5.25 + 5.25 + 7.87 = 18.37)
    assert result["outcome"]["hands"][0]["rank"] == "flush"
    assert set(result["outcome"]["hands"][0]["best_five"]) == {"Ah", "Kh", "7h", "4h", "2h"}
    balanced(result)


def test_tie_pushes_ante_play_blind_and_loses_the_bad_beat_R35(tmp_path: Path) -> None:
    # The board Ah Kd Qc Js Th is a straight to the ace; seat 1 2c 3d and the player-dealer 4h 5s
    # both play it: equal hands push (003 "Ultimate Texas Hold'em: How Winners are Determined and
    # Paid"), the Blind pushes on a tie (R35), the Trips pays the straight 5 to 1 (003 "Ultimate
    # Texas Hold'em: Trips Bonus Bet Payout Table") and the Bad Beat loses (003 "Ultimate Texas
    # Hold'em: Bad Beat Bonus Bet").
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            wager(1, "trips", "5"),
            wager(1, "bad-beat", "5"),
            *deal("2c 3d", "4h 5s", "Ah Kd Qc Js Th"),
            decide(1, "bet", 3),
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "push", D(0)),
        (1, "play", "push", D(0)),
        (1, "blind", "push", D(0)),
        (1, "trips", "win", D(25)),  # 5 x 5
        (1, "bad-beat", "lose", D(-5)),
    ]
    assert result["bank"]["end"] == "980.00"  # 1000 - 25 + 5
    assert result["outcome"]["hands"][0]["result"] == "push"
    balanced(result)


# -- R35: the Trips, folded or not -----------------------------------------------------------------
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play",
# "How Winners are Determined and Paid"


def test_trips_pays_a_folded_hand_and_the_fold_loses_the_rest_R35(tmp_path: Path) -> None:
    # seat 1 5c 5d + 5h Ks 9d 2c 7s = three fives; the player folds at the river anyway. The
    # fold loses the Ante, the Blind and the Bad Beat (003 "Ultimate Texas Hold'em: Dealing
    # Procedures and Round of Play"); the Trips pays three of a kind 3 to 1 "even if the player
    # folds" (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"): 5 x 3 = 15.
    _, rows = run(
        tmp_path,
        [
            bank(4, "100"),
            *ante_blind(1, "10"),
            wager(1, "trips", "5"),
            wager(1, "bad-beat", "5"),
            *deal("5c 5d", "Ah Kh", "5h Ks 9d 2c 7s"),
            decide(1, "check"),
            decide(1, "check"),
            decide(1, "fold"),
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "lose", D(-10)),
        (1, "blind", "lose", D(-10)),
        (1, "trips", "win", D(15)),
        (1, "bad-beat", "lose", D(-5)),
    ]
    assert result["bank"]["end"] == "110.00"  # 100 + 10 + 10 - 15 + 5
    balanced(result)
    # a folded hand is never exposed (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of
    # Play": spread "face down"), and with nobody left the player-dealer's cards are not turned over
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    for card in ("5c", "5d", "Ah", "Kh"):
        assert shown(rows, card) == [], card
    assert result["outcome"]["hands"] == [
        {"seat": 1, "player": "p1", "folded": True, "result": "fold"}
    ]
    assert result["outcome"]["player_dealer"] is None
    assert result["dealt"] == [{"to": "board", "cards": ["5h", "Ks", "9d", "2c", "7s"]}]


def test_trips_loses_without_three_of_a_kind_even_on_a_winning_hand_003_3583(
    tmp_path: Path,
) -> None:
    # seat 1 As Ad + Kc 7h 4d 9s 2c = pair of aces beats the player-dealer's Qh Qs pair: the
    # Trips needs three of a kind or better (003 "Ultimate Texas Hold'em: Trips Bonus Bet") and is
    # collected (line 3583).
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            wager(1, "trips", "5"),
            *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
            decide(1, "bet", 3),
        ],
    )
    assert settled(only_result(rows))[-1] == (1, "trips", "lose", D(-5))


# -- R35: the Bad Beat, both sides -----------------------------------------------------------------
# 003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet" to "Bad Beat Bonus Bet Payout Table"


def test_bad_beat_pays_the_players_beaten_three_of_a_kind_9_to_1_R35(tmp_path: Path) -> None:
    # seat 1 9s 9h + 9d 4d 7d Kc 2s = three nines (9 9 9 K 7; three diamonds only, no flush);
    # the player-dealer Ad Jd = flush A-J-9-7-4 of diamonds. The player loses with three of a
    # kind: Ante, Play, Blind lose; Trips 3 to 1 = 15; Bad Beat by the hand beaten, three of a
    # kind, 9 to 1 = 45
    # (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", "Bad Beat Bonus Bet Payout Table").
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            wager(1, "trips", "5"),
            wager(1, "bad-beat", "5"),
            *deal("9s 9h", "Ad Jd", "9d 4d 7d Kc 2s"),
            decide(1, "bet", 3),  # 30
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "lose", D(-10)),
        (1, "play", "lose", D(-30)),
        (1, "blind", "lose", D(-10)),
        (1, "trips", "win", D(15)),
        (1, "bad-beat", "win", D(45)),
    ]
    assert result["bank"]["end"] == "990.00"  # 1000 + 50 - 60
    assert result["outcome"]["player_dealer"]["rank"] == "flush"
    assert result["outcome"]["hands"][0]["result"] == "lose"
    balanced(result)


def test_bad_beat_pays_when_the_player_dealers_three_of_a_kind_is_beaten_R35(
    tmp_path: Path,
) -> None:
    # the player-dealer 7h Kd + 7c 7d 8s 9h 2c = three sevens (7 7 7 K 9); seat 1 Ts Jc =
    # straight 7-8-9-T-J. The straight wins: Ante 10, Play 40, Blind 1 to 1 = 10, Trips straight
    # 5 to 1 = 25, Bad Beat by the beaten three of a kind 9 to 1 = 45
    # (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet").
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            wager(1, "trips", "5"),
            wager(1, "bad-beat", "5"),
            *deal("Ts Jc", "7h Kd", "7c 7d 8s 9h 2c"),
            decide(1, "bet", 4),
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(40)),
        (1, "blind", "win", D(10)),
        (1, "trips", "win", D(25)),
        (1, "bad-beat", "win", D(45)),
    ]
    assert result["bank"]["end"] == "870.00"  # 1000 - 130
    balanced(result)


def test_bad_beat_loses_when_the_beaten_hand_is_below_three_of_a_kind_003_3604(
    tmp_path: Path,
) -> None:
    # seat 1 As Ad (pair of aces) beats the player-dealer's Qh Qs (pair of queens): the beaten
    # hand is a pair, below three of a kind, so the Bad Beat loses.
    _, rows = run(
        tmp_path,
        [
            bank(4, "1000"),
            *ante_blind(1, "10"),
            wager(1, "bad-beat", "5"),
            *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
            decide(1, "bet", 3),
        ],
    )
    assert settled(only_result(rows))[-1] == (1, "bad-beat", "lose", D(-5))


# -- R35: the player-dealer does not qualify -------------------------------------------------------
# 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"


def test_dealer_not_qualifying_pushes_the_ante_and_plays_the_rest_R35(tmp_path: Path) -> None:
    # board 2c 5d 9h Js 3s; the player-dealer Kc 8d = K-J-9-8-5, no pair: does not qualify.
    # seat 1 Ah Qc = A-Q-J-9-5 beats it: Ante pushes
    # (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"), Play 1 to 1, Blind pushes
    # (a win below a straight). seat 2 Tc 7d = J-T-9-7-5 loses to K-high: Ante still pushes, Play
    # and Blind lose (line 3524 "normally"). No straight anywhere (2 3 5 9 J + A/Q/K/8/T/7).
    _, rows = run(
        tmp_path,
        [
            bank(4, "500"),
            *ante_blind(1, "10"),
            *ante_blind(2, "10"),
            *deal("Ah Qc", "Tc 7d", "Kc 8d", "2c 5d 9h Js 3s"),
            decide(1, "check"),
            decide(2, "check"),
            decide(1, "check"),
            decide(2, "check"),
            decide(1, "bet", 1),  # 10
            decide(2, "bet", 1),  # 10
        ],
    )
    result = only_result(rows)
    assert settled(result) == [
        (1, "ante", "push", D(0)),
        (1, "play", "win", D(10)),
        (1, "blind", "push", D(0)),
        (2, "ante", "push", D(0)),
        (2, "play", "lose", D(-10)),
        (2, "blind", "lose", D(-10)),
    ]
    assert result["bank"]["end"] == "510.00"  # 500 - 10 + 10 + 10
    assert result["outcome"]["player_dealer"]["qualifies"] is False
    assert result["outcome"]["player_dealer"]["rank"] == "high-card"
    balanced(result)


# -- the streets: bet sizes and refusals -----------------------------------------------------------
# 003 "Ultimate Texas Hold'em: Object of the Game", "Dealing Procedures and Round of Play"

TWO_PLAYERS = [
    bank(4, "1000"),
    *ante_blind(1, "10"),
    *ante_blind(2, "10"),
    # seat 1 As Ad, seat 2 Kc Qc, the player-dealer 7h 2d, the board Ah Kh 4d 9s 2c
    *deal("As Ad", "Kc Qc", "7h 2d", "Ah Kh 4d 9s 2c"),
]


@pytest.mark.parametrize(("multiple", "amount"), [(3, "30.00"), (4, "40.00")])
def test_preflop_play_is_three_or_four_times_the_ante_003_3496(
    tmp_path: Path, multiple: int, amount: str
) -> None:
    table, _ = run(tmp_path, TWO_PLAYERS)
    rows = feed(table, decide(1, "bet", multiple))
    echo = payloads(rows, "event")[0]
    assert (echo["street"], echo["amount"]) == ("preflop", amount)  # 10 x multiple
    assert last_state(rows)["plays"] == [
        {"seat": 1, "player": "p1", "street": "preflop", "multiple": multiple, "amount": amount}
    ]


def test_each_street_refuses_the_wrong_size_and_the_wrong_action_003_3496_3498_3500(
    tmp_path: Path,
) -> None:
    table, _ = run(tmp_path, TWO_PLAYERS)
    # pre-flop: 3x or 4x, or check; no fold
    for multiple in (1, 2, 5):
        assert_rejected(table, decide(1, "bet", multiple), rule="003 line 3496")
    assert_rejected(table, decide(1, "bet"), rule="003 line 3496", reason_has="multiple")
    assert_rejected(table, decide(1, "fold"), rule="003 line 3496")
    assert_rejected(table, decide(1, "bet", 3, amount="40"), rule="003 line 3496")  # 3x10 = 30
    assert_rejected(table, decide(1, "check", 3), rule="003 line 3496")
    assert_rejected(table, decide(1, "stand"), rule="contract 2")
    feed(table, decide(1, "check"))
    feed(table, decide(2, "check"))
    # the flop: 2x or check
    for multiple in (1, 3, 4):
        assert_rejected(table, decide(1, "bet", multiple), rule="003 line 3498")
    assert_rejected(table, decide(1, "fold"), rule="003 line 3498")
    feed(table, decide(1, "check"))
    feed(table, decide(2, "check"))
    # the river: 1x or fold; no check
    for multiple in (2, 3, 4):
        assert_rejected(table, decide(1, "bet", multiple), rule="003 line 3500")
    assert_rejected(table, decide(1, "check"), rule="003 line 3500")
    rows = feed(table, decide(1, "bet", 1, amount="10"))
    assert payloads(rows, "event")[0]["amount"] == "10.00"
    rows = feed(table, decide(2, "fold"))
    result = only_result(rows)
    # seat 1 As Ad + Ah = three aces beats the player-dealer's pair of twos (7h 2d + 2c): Blind
    # pushes (below a straight); seat 2 folded: Ante and Blind lose
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play").
    assert settled(result) == [
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(10)),
        (1, "blind", "push", D(0)),
        (2, "ante", "lose", D(-10)),
        (2, "blind", "lose", D(-10)),
    ]
    balanced(result)


def test_a_second_bet_is_refused_003_3496(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [*TWO_PLAYERS, decide(1, "bet", 3), decide(2, "check")])
    assert last_state(rows)["phase"] == "flop"
    assert_rejected(table, decide(1, "bet", 2), rule="003 line 3496", reason_has="cannot bet")
    assert_rejected(table, decide(1, "check"), rule="003 line 3496")


def test_decisions_go_in_seat_order_from_the_house_dealers_left_003_3483(tmp_path: Path) -> None:
    table, rows = run(tmp_path, TWO_PLAYERS)
    assert last_state(rows)["to_act"] == 1
    assert_rejected(table, decide(2, "check"), rule="003 line 3483", reason_has="out of turn")
    assert last_state(feed(table, decide(1, "check")))["to_act"] == 2
    assert_rejected(table, decide(1, "check"), rule="003 line 3483")


def test_decision_order_follows_the_player_dealers_left_when_configured_003_3483(
    tmp_path: Path,
) -> None:
    # deal_from = "player-dealer-left": with the player-dealer at 4, seat 5 is dealt and decides
    # before seat 1.
    events = [
        bank(4, "1000"),
        *ante_blind(1, "10"),
        *ante_blind(5, "10"),
        *deal("As Ad", "Kc Qc", "7h 2d", "Ah Kh 4d 9s 2c"),
    ]
    table, rows = run(tmp_path, events, deal_from="player-dealer-left")
    echoes = [p for p in payloads(rows, "event") if p["type"] == "shuffler.stack"]
    assert [(e["to"], e.get("seat")) for e in echoes] == [
        ("seat", 5),
        ("seat", 1),
        ("player-dealer", 4),
        ("board", None),
    ]
    assert last_state(rows)["to_act"] == 5
    assert_rejected(table, decide(1, "check"), rule="003 line 3483")


def test_decision_needs_a_dealt_hand_003_3490(tmp_path: Path) -> None:
    table, _ = run(tmp_path, TWO_PLAYERS)
    assert_rejected(table, decide(3, "check"), rule="003 line 3490", reason_has="no hand")
    assert_rejected(table, decide(4, "check"), rule="003 line 3490")  # the player-dealer
    assert_rejected(table, decide(9, "check"), rule="config seats")


def test_decision_before_the_deal_is_refused_003_3496(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000"), *ante_blind(1, "10"), CLOSE, stack("As Ad")])
    assert_rejected(table, decide(1, "check"), rule="003 line 3496")


def test_the_board_is_turned_street_by_street_and_never_before_003_3497_3499(
    tmp_path: Path,
) -> None:
    table, rows = run(tmp_path, TWO_PLAYERS)
    board = ["Ah", "Kh", "4d", "9s", "2c"]
    hidden = ["As", "Ad", "Kc", "Qc", "7h", "2d"]
    # every stack went face down
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    for card in board + hidden:
        assert shown(rows, card) == [], card
    echoes = [p for p in payloads(rows, "event") if p["type"] == "shuffler.stack"]
    assert all("cards" not in e for e in echoes)
    assert [e["size"] for e in echoes] == [2, 2, 2, 5]
    assert last_state(rows)["board"] == []
    out = feed(table, decide(1, "check"))
    assert "revealed" not in payloads(out, "event")[0]
    out = feed(table, decide(2, "bet", 4))
    assert payloads(out, "event")[0]["revealed"] == {"flop": board[:3]}
    assert last_state(out)["board"] == board[:3]
    assert last_state(out)["phase"] == "flop"
    assert shown(out, "9s") == [] and shown(out, "2c") == []
    out = feed(table, decide(1, "check"))  # seat 2 has bet: only seat 1 decides on the flop
    assert payloads(out, "event")[0]["revealed"] == {"turn": "9s", "river": "2c"}
    assert last_state(out)["board"] == board
    for card in hidden:
        assert shown(out, card) == [], card
    out = feed(table, decide(1, "bet", 1))
    result = only_result(out)
    # seat 1 As Ad + Ah = three aces; seat 2 Kc Qc + Kh = pair of kings; the player-dealer 7h 2d
    # + 2c = pair of twos, qualifies. Both win below a straight: Blinds push.
    assert settled(result) == [
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(10)),
        (1, "blind", "push", D(0)),
        (2, "ante", "win", D(10)),
        (2, "play", "win", D(40)),
        (2, "blind", "push", D(0)),
    ]
    assert result["bank"]["end"] == "930.00"  # 1000 - 70
    # R4: the fee is on the pre-deal action 40 ($5-$50: $1), never on the Play (40 + 50 = 90)
    assert result["fees"] == [
        {
            "payer": "player-dealer",
            "seat": 4,
            "amount": "1.00",
            "schedule": 1,
            "total_action": "40.00",
        }
    ]
    dealer = result["outcome"]["player_dealer"]
    # 7h 2d + Ah Kh 4d 9s 2c: 2-2 with A, K, 9 (the order of the five is not a rule)
    assert set(dealer.pop("best_five")) == {"2d", "2c", "Ah", "Kh", "9s"}
    assert dealer == {"seat": 4, "cards": ["7h", "2d"], "rank": "pair", "qualifies": True}
    assert [h["rank"] for h in result["outcome"]["hands"]] == ["three-of-a-kind", "pair"]
    assert result["dealt"] == [
        {"to": "seat", "seat": 1, "cards": ["As", "Ad"]},
        {"to": "seat", "seat": 2, "cards": ["Kc", "Qc"]},
        {"to": "player-dealer", "seat": 4, "cards": ["7h", "2d"]},
        {"to": "board", "cards": board},
    ]


def test_everyone_bets_preflop_and_the_round_settles_at_once_003_3497_3508(
    tmp_path: Path,
) -> None:
    table, _ = run(tmp_path, [*TWO_PLAYERS, decide(1, "bet", 3)])
    out = feed(table, decide(2, "bet", 4))
    assert payloads(out, "event")[0]["revealed"] == {
        "flop": ["Ah", "Kh", "4d"],
        "turn": "9s",
        "river": "2c",
    }
    assert topics(out) == ["event", "round/result", "state"]
    assert last_state(out)["phase"] == "betting" and last_state(out)["round"] == 2


def test_a_folded_hand_is_never_exposed_003_3506(tmp_path: Path) -> None:
    # seat 1 folds 3c 8d at the river; seat 2 Kc Qc stays, so the player-dealer's cards turn over.
    events = [
        bank(4, "1000"),
        *ante_blind(1, "10"),
        *ante_blind(2, "10"),
        *deal("3c 8d", "Kc Qc", "7h 2d", "Ah Kh 4d 9s 2c"),
        decide(1, "check"),
        decide(2, "check"),
        decide(1, "check"),
        decide(2, "check"),
        decide(1, "fold"),
        decide(2, "bet", 1),
    ]
    _, rows = run(tmp_path, events)
    assert shown(rows, "3c") == [] and shown(rows, "8d") == []
    result = only_result(rows)
    assert shown(rows, "Kc") == ["round/result"]
    assert shown(rows, "7h") == ["round/result"]
    assert result["outcome"]["hands"][0] == {
        "seat": 1,
        "player": "p1",
        "folded": True,
        "result": "fold",
    }
    assert [d.get("seat") for d in result["dealt"]] == [2, 4, None]


# -- wagers ----------------------------------------------------------------------------------------
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play", "Trips Bonus Bet",
# "Bad Beat Bonus Bet"; 004 "Ultimate Texas Hold'em: Object of the Game"


def test_blind_must_equal_the_ante_003_3478(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000")])
    assert_rejected(table, wager(1, "blind", "10"), rule="003 line 3478")  # no Ante yet
    feed(table, wager(1, "ante", "10"))
    assert_rejected(table, wager(1, "blind", "15"), rule="003 line 3478", reason_has="equal")
    assert_rejected(table, wager(1, "blind", "5"), rule="003 line 3478")
    feed(table, wager(1, "blind", "10"))
    feed(table, wager(1, "ante", "5"))  # the Ante grows to 15: no deal until the Blind does
    assert_rejected(table, CLOSE, rule="003 line 3478")
    assert_rejected(table, stack("As Ad"), rule="003 line 3478")
    feed(table, wager(1, "blind", "5"))
    assert last_state(feed(table, CLOSE))["phase"] == "dealing"


def test_an_ante_alone_cannot_be_dealt_003_3478(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000"), wager(2, "ante", "10")])
    assert_rejected(table, CLOSE, rule="003 line 3478")


def test_bonus_bets_need_the_ante_and_blind_first_003_3581_3602(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000"), wager(1, "ante", "10")])
    assert_rejected(table, wager(1, "trips", "5"), rule="003 line 3581")
    assert_rejected(table, wager(1, "bad-beat", "5"), rule="003 line 3602")
    feed(table, wager(1, "blind", "10"))
    assert topics(feed(table, wager(1, "trips", "5"))) == ["event", "state"]
    assert topics(feed(table, wager(1, "bad-beat", "300"))) == ["event", "state"]


def test_no_bad_beat_at_a_trips_only_table_004_947(tmp_path: Path) -> None:
    table, _ = run(
        tmp_path,
        [bank(4, "1000"), *ante_blind(1, "10")],
        blind_table="BLIND-004",
        trips_table="TRIPS-004",
        bad_beat_table=None,
    )
    assert_rejected(table, wager(1, "bad-beat", "5"), rule="004 line 947")
    assert topics(feed(table, wager(1, "trips", "5"))) == ["event", "state"]


def test_backline_betting_is_not_permitted_003_3476(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000")])
    assert_rejected(table, wager(1, "ante", "10", player="p7"), rule="003 line 3476")
    assert topics(feed(table, wager(1, "ante", "10", player="p1"))) == ["event", "state"]


def test_play_is_not_a_pre_deal_wager_and_the_player_dealer_does_not_wager_R1(
    tmp_path: Path,
) -> None:
    table, _ = run(tmp_path, [bank(4, "1000")])
    assert_rejected(table, wager(1, "play", "30"), rule="003 line 3496")
    assert_rejected(table, wager(4, "ante", "10"), rule="R1")
    assert_rejected(table, wager(1, "ante", "301"), rule="limits")
    assert_rejected(table, wager(1, "pair-plus", "5"), rule="003 line 3477")


def test_no_more_bets_after_the_first_stack_003_3482(tmp_path: Path) -> None:
    table, rows = run(tmp_path, [bank(4, "1000"), *ante_blind(1, "10"), stack("As Ad")])
    assert last_state(rows)["phase"] == "dealing"
    assert_rejected(table, wager(2, "ante", "10"), rule="003 line 3482")
    assert_rejected(table, CLOSE, rule="003 line 3482")


# -- stacks ----------------------------------------------------------------------------------------
# 003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used",
# "Dealing Procedures and Round of Play"


def test_stacks_go_to_each_seat_then_the_player_dealer_then_the_board_003_3490(
    tmp_path: Path,
) -> None:
    table, rows = run(
        tmp_path,
        [bank(4, "1000"), *ante_blind(6, "10"), *ante_blind(2, "10"), CLOSE],
    )
    assert last_state(rows)["next_stack"] == {"to": "seat", "seat": 2, "size": 2}
    out = feed(table, stack("As Ad"))
    assert (payloads(out, "event")[0]["to"], payloads(out, "event")[0]["seat"]) == ("seat", 2)
    assert last_state(out)["next_stack"] == {"to": "seat", "seat": 6, "size": 2}
    assert last_state(out)["hands"] == [2]
    assert_rejected(table, stack("Kc Qc Jc Tc 9c"), rule="003 line 3490", reason_has="takes 2")
    feed(table, stack("Kc Qc"))
    assert last_state(feed(table, stack("7h 2d")))["next_stack"] == {
        "to": "board",
        "seat": None,
        "size": 5,
    }
    assert_rejected(table, stack("Ah Kh"), rule="003 line 3492", reason_has="takes 5")
    feed(table, stack("Ah Kh 4d 9s 2c"))
    assert_rejected(table, stack("3s 3h"), rule="003 line 3489")


def test_a_card_twice_in_one_round_is_refused_003_3424(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "1000"), *ante_blind(1, "10"), *ante_blind(2, "10")])
    feed(table, stack("As Kd"))
    # the alert masks card names: a refused stack may hold someone's hole card
    assert_rejected(table, stack("As 3c"), rule="003 line 3424", reason_has="twice")
    assert_rejected(table, stack("3c 3c"), rule="003 line 3424")
    assert_rejected(table, stack("JKR 3c"), rule="003 line 3423")


def test_decks_alternate_and_one_deck_deals_a_round_003_3428(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c", deck="red"),
        decide(1, "bet", 4),
        bank(4, "1000"),
        *ante_blind(1, "10"),
    ]
    table, rows = run(tmp_path, events)
    assert only_result(rows)["deck"] == "red"
    assert_rejected(table, stack("As Ad", "red"), rule="003 line 3428", reason_has="last round")
    feed(table, stack("As Ad", "blue"))
    assert_rejected(table, stack("Qh Qs", "red"), rule="003 line 3428")
    assert topics(feed(table, stack("Qh Qs"))) == ["event", "state"]  # colour unknown: fine


# -- R1, R2, R3: settlement order and the bank -----------------------------------------------------


def test_a_round_of_unknown_deck_colour_does_not_carry_the_older_colour_forward_003_3428(
    tmp_path: Path,
) -> None:
    # Round 1 is dealt from red; the dispenser names no colour in round 2. The two decks alternate,
    # "each deck being used for every other round of play"
    # (003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used"), so round 2
    # was dealt from blue and round 3 comes from red again: it must be accepted.
    one_round = [
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c", deck="red"),
        decide(1, "bet", 4),
    ]
    unknown = [
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
        decide(1, "bet", 4),
    ]
    table, _ = run(tmp_path, [bank(4, "1000"), *one_round, bank(4, "1000"), *unknown])
    feed(table, bank(5, "1000"))  # seat 4 has banked its two hands (R5)
    feed(table, wager(1, "ante", "10"))
    feed(table, wager(1, "blind", "10"))
    assert topics(feed(table, stack("As Ad", "red"))) == ["event", "state"]


def test_a_voided_deal_of_unknown_colour_does_not_carry_the_older_colour_forward_003_3428(
    tmp_path: Path,
) -> None:
    # As above, with round 2 dealt (colour unknown) and then voided: a dealt round used its deck.
    events = [
        bank(4, "1000"),
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c", deck="red"),
        decide(1, "bet", 4),
        bank(4, "1000"),
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs"),
        {"type": "round.void", "reason": "misdeal"},
        bank(4, "1000"),
        *ante_blind(1, "10"),
    ]
    table, _ = run(tmp_path, events)
    assert topics(feed(table, stack("As Ad", "red"))) == ["event", "state"]


def test_void_with_no_round_in_progress_is_refused_naming_the_rule(tmp_path: Path) -> None:
    # events.md: round.void "voids the round in progress"; with none, nothing changes
    table = Table(ut_config(tmp_path))
    assert_rejected(table, {"type": "round.void", "reason": "misdeal"}, rule="round.void")


def test_payouts_start_left_of_the_player_dealer_seat_by_seat_until_the_bank_runs_out_R1_R2(
    tmp_path: Path,
) -> None:
    # board Kc 7h 4d 9s 2c; seat 1 As Ad = pair of aces, seat 5 Ks Kd = three kings, the
    # player-dealer Qh Qs = pair of queens: both win, Blinds push (below a straight). Bank 50:
    # seat 5 comes first (left of seat 4): Ante 10 (funds 40), Play 40 (funds 0); then seat 1's
    # winners find no funds and are returned (R1).
    events = [
        bank(4, "50"),
        *ante_blind(1, "10"),
        *ante_blind(5, "10"),
        *deal("As Ad", "Ks Kd", "Qh Qs", "Kc 7h 4d 9s 2c"),  # seat 1 first (house's left)
        decide(1, "bet", 4),
        decide(5, "bet", 4),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    assert settled(result) == [
        (5, "ante", "win", D(10)),
        (5, "play", "win", D(40)),
        (5, "blind", "push", D(0)),
        (1, "ante", "returned", D(0)),
        (1, "play", "returned", D(0)),
        (1, "blind", "push", D(0)),
    ]
    assert result["bank"] == {"seat": 4, "start": "50.00", "end": "0.00", "turn": 1}
    assert result["action_seat"] == 5
    balanced(result)


def test_by_spot_settlement_when_configured_R3(tmp_path: Path) -> None:
    events = [
        bank(4, "50"),
        *ante_blind(1, "10"),
        *ante_blind(5, "10"),
        *deal("As Ad", "Ks Kd", "Qh Qs", "Kc 7h 4d 9s 2c"),
        decide(1, "bet", 4),
        decide(5, "bet", 4),
    ]
    _, rows = run(tmp_path, events, settlement_order="by-spot")
    # all Antes (5, 1), then all Plays: 10 + 10 leave 30 of the 50 for seat 5's Play of 40
    assert settled(only_result(rows)) == [
        (5, "ante", "win", D(10)),
        (1, "ante", "win", D(10)),
        (5, "play", "partial", D(30)),
        (1, "play", "returned", D(0)),
        (5, "blind", "push", D(0)),
        (1, "blind", "push", D(0)),
    ]


def test_chips_added_to_a_circle_settle_as_one_wager_003_3478(tmp_path: Path) -> None:
    # Ante 5 + 5 and Blind 10: one Ante of 10 settles (and pays) as one wager.
    events = [
        bank(4, "1000"),
        wager(1, "ante", "5"),
        wager(1, "ante", "5"),
        wager(1, "blind", "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
        decide(1, "bet", 3),
    ]
    _, rows = run(tmp_path, events)
    assert settled(only_result(rows)) == [
        (1, "ante", "win", D(10)),
        (1, "play", "win", D(30)),  # 3 x the whole Ante of 10
        (1, "blind", "push", D(0)),
    ]


def test_a_round_without_players_deals_and_settles_nothing_R1_R4(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [bank(4, "100"), *deal("7h 2d", "Ah Kh 4d 9s 2c")])
    result = only_result(rows)
    assert result["settlements"] == [] and result["fees"] == []
    assert result["bank"]["end"] == "100.00"
    # nobody remains: not turned
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    assert result["outcome"]["player_dealer"] is None
    assert shown(rows, "7h") == []


# -- R5 rotation, the misdeal, the device hold -----------------------------------------------------


def test_void_returns_every_wager_with_no_fee_and_no_turn_R5(tmp_path: Path) -> None:
    one_round = [
        *ante_blind(1, "10"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
        decide(1, "bet", 4),
    ]
    events = [
        bank(4, "1000"),
        *one_round,  # round 1: seat 4's first hand
        bank(4, "1000"),
        *ante_blind(1, "10"),
        wager(1, "trips", "5"),
        *deal("As Ad", "Qh Qs", "Kc 7h 4d 9s 2c"),
        decide(1, "check"),  # the flop is turned over, then the round is voided (a misdeal)
    ]
    table, rows = run(tmp_path, [*events, {"type": "round.void", "reason": "misdeal"}])
    result = payloads(rows, "round/result")[-1]
    assert result["void"] is True and result["fees"] == []
    assert settled(result) == [
        (1, "ante", "returned", D(0)),
        (1, "blind", "returned", D(0)),
        (1, "trips", "returned", D(0)),
    ]
    # only what was turned over: the flop; no hole card
    assert result["dealt"] == [{"to": "board", "cards": ["Kc", "7h", "4d"]}]
    for card in ("As", "Ad", "Qh", "Qs", "9s", "2c"):
        assert "round/result" not in shown(rows[-3:], card)
    # the void does not count as seat 4's second hand (R5): it banks again, turn 2, then must pass
    rows = feed(table, bank(4, "1000"))
    assert last_state(rows)["player_dealer"]["turn"] == 2
    for ev in one_round:
        rows = feed(table, ev)
    assert only_result(rows)["bank"]["turn"] == 2
    assert_rejected(table, bank(4, "1000"), rule="R5")


def test_void_returns_the_play_wager_too(tmp_path: Path) -> None:
    events = [
        *TWO_PLAYERS,
        decide(1, "bet", 4),
        {"type": "round.void", "reason": "misdeal"},
    ]
    _, rows = run(tmp_path, events)
    assert [(s, sp, st) for s, sp, st, _ in settled(only_result(rows))] == [
        (1, "ante", "returned"),
        (1, "play", "returned"),
        (1, "blind", "returned"),
        (2, "ante", "returned"),
        (2, "blind", "returned"),
    ]


def test_a_device_fault_holds_the_round_only_while_stacks_are_dealt_contract3(
    tmp_path: Path,
) -> None:
    fault = {"type": "device.status", "device": "dispenser", "available": True, "fault": "JAM"}
    table, _ = run(tmp_path, [bank(4, "1000"), *ante_blind(1, "10"), stack("As Ad")])
    kinds = [p["kind"] for p in payloads(feed(table, fault), "alert")]
    assert kinds == ["device-fault", "round-held"]
    table, _ = run(tmp_path, TWO_PLAYERS)
    kinds = [p["kind"] for p in payloads(feed(table, fault), "alert")]
    assert kinds == ["device-fault"]  # every card is out: decisions go on


def test_result_payload_contract3(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [*TWO_PLAYERS, decide(1, "bet", 3), decide(2, "bet", 3)])
    result = only_result(rows)
    assert {
        "table",
        "seq",
        "round",
        "game",
        "outcome",
        "dealt",
        "bank",
        "action_seat",
        "settlements",
        "fees",
    } <= set(result)
    assert result["game"] == "ultimate-texas-holdem" and result["round"] == 1
    assert result["action_seat"] == 1  # seats 5 and 6 have no wager: seat 1 is first (R2)
    assert set(result["outcome"]) == {"board", "player_dealer", "hands"}
    hand = result["outcome"]["hands"][0]
    assert set(hand.pop("best_five")) == {"As", "Ad", "Ah", "Kh", "9s"}  # A-A-A, K, 9
    assert hand == {
        "seat": 1,
        "player": "p1",
        "folded": False,
        "cards": ["As", "Ad"],
        "rank": "three-of-a-kind",
        "result": "win",
        "play": {"seat": 1, "player": "p1", "street": "preflop", "multiple": 3, "amount": "30.00"},
    }
