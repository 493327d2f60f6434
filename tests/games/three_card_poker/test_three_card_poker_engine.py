"""Three Card Poker 6 Card Bonus through `Table.apply`: stacks, decisions, settlement, refusals.

Every expected figure is worked by hand from the documents (line numbers are document 004's,
`004_dad8fc1ada8336f9.txt`, unless another is named), RULINGS.md (R1-R5, R29) and DESIGN.md
contracts 1-3, never read back from the code. Unless a test says otherwise the table is document
000's: seven seats, 6 Card Bonus table TCB-6B4 (000 "Three Card Poker 6 Card Bonus: 6 Card Bonus":
royal 1000, straight flush 200, quads 100, full house 20, flush 15, straight 10, trips 7), Pair Plus
(000 "Three Card Poker 6 Card Bonus: Pair Plus Wager": Mini Royal 200, straight flush 40, trips 30,
straight 6, flush 3, pair 1), collection schedule option 1 of 000
(000 "Three Card Poker 6 Card Bonus: Wagering Limits and Collection Fees": $5-$50 $.50, $51-$100 $1,
$101-$300 $2, $301-$500 $4, $501+ $5).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig
from tablectl.games.seating import action_button_seat
from tablectl.games.three_card_poker.engine import ThreeCardPokerEngine
from tablectl.table import Table
from tablectl_base.cards import parse_card
from tests.helpers import (
    BASE,
    CLOSE,
    REPO,
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

# 000 option 1 (lines 435-439), written inline so the test does not depend on a schedules file.
SCHEDULE_000_1 = {
    "option": 1,
    "table_min": "5",
    "table_max": "500",
    "brackets": [
        {"from": "5", "fee": "0.50"},
        {"from": "51", "fee": "1.00"},
        {"from": "101", "fee": "2.00"},
        {"from": "301", "fee": "4.00"},
        {"from": "501", "fee": "5.00"},
    ],
}


SHUFFLER = [{"name": "shuffler", "driver": "shuffler", "port": "/dev/tablectl-test-shuffler"}]
"""The table's shuffler, on a port that is not there (a warning): a table with its reader."""


def tcp_config(
    tmp_path: Path, seats: int = 7, *, with_reader: bool = False, **game: Any
) -> LoadedConfig:
    """Document 000's table (7 seats, TCB-6B4) unless `game` / `seats` say otherwise; with its
    shuffler (`with_reader`: the console may only fill its gaps, R39), else the stacks keyed at
    the console (`manual_entry`, R55)."""
    reader: dict[str, Any] = {"manual_entry": None, "devices": SHUFFLER} if with_reader else {}
    return make_config(
        tmp_path,
        **reader,
        game={
            "id": "three-card-poker-6cb",
            "decks": None,
            "banker_push_on_dragon7": None,
            "bet_timer_seconds": None,
            "settlement_order": "by-seat",
            "six_card_bonus_table": "TCB-6B4",
            **game,
        },
        seats={"count": seats},
        collection={"file": None, "option": None, "schedule": SCHEDULE_000_1},
    )


def stack(text: str, deck: str | None = "red") -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "shuffler.stack", "cards": text.split()}
    if deck is not None:
        ev["deck"] = deck
    return ev


def decide(seat: int, action: str, amount: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "seat": seat, "action": action}
    if amount is not None:
        ev["amount"] = amount
    return ev


def run(tmp_path: Path, events: list[Any], **game: Any) -> tuple[Table, list[Any]]:
    return play(tcp_config(tmp_path, **game), events)


def only_result(rows: list[Any]) -> dict[str, Any]:
    results = payloads(rows, "round/result")
    assert len(results) == 1
    return results[0]


def settled(result: dict[str, Any]) -> list[tuple[int, str, str, Decimal]]:
    """(seat, spot, status, net) of each settlement, in the order published."""
    return [(s["seat"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]]


def assert_rejected(table: Table, event: Any, rule: str) -> dict[str, Any]:
    """Exactly one `alert` naming `rule`, and the table's state unchanged."""
    before, seq_before = table.state, table.seq
    rows = feed(table, event)
    assert topics(rows) == ["alert"], topics(rows)
    alert = payload(rows[0])
    assert alert["kind"] == "rejected" and alert["reason"]
    assert alert["rule"] == rule, alert
    assert table.state == before
    assert table.seq == seq_before + 1
    return alert


def assert_balanced(result: dict[str, Any]) -> None:
    """R1 / contract 3: the sum of every net plus the bank's change is zero."""
    nets = sum((D(s["net"]) for s in result["settlements"]), D(0))
    assert nets + D(result["bank"]["end"]) - D(result["bank"]["start"]) == 0


# -- a qualifying round (R29; lines 566-569) ------------------------------------------------------

# Seat 4 banks; antes at seats 5, 7 and 2, so the stacks go 5, 7, 2, then the player-dealer (R29).
QUALIFY_BETS = [
    bank(4, "1000"),
    wager(5, "ante", "10"),
    wager(5, "pair-plus", "5"),
    wager(7, "ante", "20"),
    wager(7, "six-card-bonus", "5"),
    wager(2, "ante", "15"),
    CLOSE,
]
QUALIFY_STACKS = [
    stack("Ah Ad 7c"),  # seat 5: a pair of aces
    stack("Ks 9s 4h"),  # seat 7: king-high
    stack("Qs 5d 2h"),  # seat 2: Q-5-2, the same rank and values as the player-dealer's
    stack("Qh 5c 2d"),  # player-dealer: Q-5-2, queen-high, qualifies; Qh (first out) face up
]
QUALIFY_PLAYS = [decide(5, "play"), decide(7, "play"), decide(2, "play")]


def test_qualifying_player_dealer_settles_ante_and_play_by_rank_R29(tmp_path: Path) -> None:
    _, rows = run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS)
    result = only_result(rows)
    # R2: Qh = 12 counts seats 1, 2, 3, 5, 6, 7 (the player-dealer's 4 skipped): (12-1) mod 6 = 5
    # -> the sixth, seat 7, which has a wager: action seat 7, then 1, 2, ..., 6.
    assert result["action_seat"] == 7
    assert settled(result) == [
        (7, "ante", "win", D(20)),  # K-9-4 beats Q-5-2: Ante and Play win even money (line 567)
        (7, "play", "win", D(20)),
        # 6 Card Bonus over Ks 9s 4h Qh 5c 2d: no pair, no five of a suit, no run: loses
        (7, "six-card-bonus", "lose", D(-5)),
        (2, "ante", "push", D(0)),  # Q-5-2 against Q-5-2: equal rank and value push (line 569)
        (2, "play", "push", D(0)),
        (5, "ante", "win", D(10)),  # a pair beats queen-high
        (5, "play", "win", D(10)),
        # a pair pays 1:1 (000 "Three Card Poker 6 Card Bonus: Pair Plus Wager")
        (5, "pair-plus", "win", D(5)),
    ]
    # the bank pays 20 + 20 + 10 + 10 + 5 and collects 5: 1000 - 60 = 940
    assert result["bank"] == {"seat": 4, "start": "1000.00", "end": "940.00", "turn": 1}
    assert_balanced(result)
    outcome = result["outcome"]
    assert outcome["player_dealer"] == {
        "seat": 4,
        "cards": ["Qh", "5c", "2d"],
        "face_up": "Qh",
        "rank": "high-card",
        "qualified": True,
    }
    assert [(h["seat"], h["decision"], h["rank"], h["showdown"]) for h in outcome["hands"]] == [
        (5, "play", "pair", "win"),
        (7, "play", "high-card", "win"),
        (2, "play", "high-card", "tie"),
    ]
    assert outcome["hands"][1]["six_card_bonus"]["rank"] == "high-card"
    assert result["dealt"] == [
        {"seat": 5, "hand": "player", "cards": ["Ah", "Ad", "7c"]},
        {"seat": 7, "hand": "player", "cards": ["Ks", "9s", "4h"]},
        {"seat": 2, "hand": "player", "cards": ["Qs", "5d", "2h"]},
        {"seat": 4, "hand": "player-dealer", "cards": ["Qh", "5c", "2d"]},
    ]
    # R4: total table action 10 + 5 + 20 + 5 + 15 = 55 -> "$51-$100 $1.00"
    # (000 "Three Card Poker 6 Card Bonus: Wagering Limits and Collection Fees")
    assert result["fees"] == [
        {
            "payer": "player-dealer",
            "seat": 4,
            "amount": "1.00",
            "schedule": 1,
            "total_action": "55.00",
        }
    ]


def test_stacks_go_clockwise_from_player_dealers_left_player_dealer_last_R29(
    tmp_path: Path,
) -> None:
    table, _ = run(tmp_path, QUALIFY_BETS)
    tos = []
    for ev in QUALIFY_STACKS:
        echo = payloads(feed(table, ev), "event")[0]
        tos.append((echo["to"], echo["hand"]))
    # seat 4 banks: seats 5, 6, 7, 1, 2, 3 from its left; 5, 7 and 2 have an Ante (line 524)
    assert tos == [(5, "player"), (7, "player"), (2, "player"), (4, "player-dealer")]


def test_player_dealer_not_qualifying_pays_ante_returns_play_R29(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        wager(5, "pair-plus", "5"),
        wager(7, "ante", "20"),
        wager(7, "six-card-bonus", "5"),
        CLOSE,
        stack("7s 5h 3c"),  # seat 5: 7-high, below the player-dealer's jack-high
        stack("Ks 9s 4h"),  # seat 7
        stack("Jh 9c 4d"),  # player-dealer: jack-high does not qualify (line 563)
        decide(5, "play"),
        decide(7, "fold"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # Jh = 11 counts seats 1, 2, 3, 5, 6, 7: (11-1) mod 6 = 4 -> seat 6, which has no wager, so
    # the action starts at seat 7 (R2).
    assert result["action_seat"] == 7
    assert settled(result) == [
        (7, "ante", "lose", D(-20)),  # folded: the Ante is forfeited (line 550)
        # 6 Card Bonus over Ks 9s 4h Jh 9c 4d: nines and fours, two pair, not on the table
        (7, "six-card-bonus", "lose", D(-5)),
        (5, "ante", "win", D(10)),  # "automatically pay each Ante ... even money" (line 565)
        (5, "play", "push", D(0)),  # "The Play Bet receives no action" (line 564)
        (5, "pair-plus", "lose", D(-5)),  # 7-5-3 offsuit is no Pair Plus hand
    ]
    # 1000 + 20 + 5 - 10 + 5 = 1020
    assert result["bank"]["end"] == "1020.00"
    assert result["outcome"]["player_dealer"]["qualified"] is False
    assert result["outcome"]["hands"][0]["showdown"] is None
    assert_balanced(result)


def test_fold_forfeits_ante_and_pair_plus_six_card_bonus_stays_R29(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        wager(5, "pair-plus", "5"),
        wager(5, "six-card-bonus", "5"),
        CLOSE,
        stack("9h 9d 2c"),  # seat 5: a pair of nines, folded anyway
        stack("9s Kc 4d"),  # player-dealer: king-high, qualifies
        decide(5, "fold"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # 9s = 9 counts seats 1, 2, 3, 5, 6, 7: (9-1) mod 6 = 2 -> seat 3, no wager -> seat 5 (R2)
    assert result["action_seat"] == 5
    assert settled(result) == [
        (5, "ante", "lose", D(-10)),  # line 550
        (5, "pair-plus", "lose", D(-5)),  # a pair would pay 1:1, but the fold forfeits it (556)
        # 9h 9d 9s Kc 4d from the six: three of a kind, 7:1 on TCB-6B4 -> 35 (line 557)
        (5, "six-card-bonus", "win", D(35)),
    ]
    assert result["bank"]["end"] == "980.00"  # 1000 + 10 + 5 - 35
    # the folded hand is never exposed: only the 6 Card Bonus's paying rank is named
    assert result["outcome"]["hands"] == [
        {"seat": 5, "decision": "fold", "six_card_bonus": {"rank": "three-of-a-kind"}}
    ]
    assert result["dealt"] == [{"seat": 4, "hand": "player-dealer", "cards": ["9s", "Kc", "4d"]}]
    for card in ("9h", "9d", "2c"):
        assert all(f'"{card}"' not in r.payload.decode() for r in rows), card


def test_hidden_cards_never_published_before_the_reveal_contract3(tmp_path: Path) -> None:
    table = Table(tcp_config(tmp_path))
    rows: list[Any] = []
    for ev in QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS:
        rows += feed(table, ev)
    texts = [r.payload.decode() for r in rows]
    reveal = next(i for i, r in enumerate(rows) if r.topic == f"{BASE}/round/result")
    face_up_at = next(
        i for i, t in enumerate(texts) if '"hand":"player-dealer"' in t and '"type"' in t
    )
    players = ["Ah", "Ad", "7c", "Ks", "9s", "4h", "Qs", "5d", "2h"]
    hole = ["5c", "2d"]  # the player-dealer's face-down cards
    for i, text in enumerate(texts[:reveal]):
        for card in players + hole:
            assert f'"{card}"' not in text, (i, card, text)
        # the face-up card is published when its stack is delivered (line 543), not before
        if i < face_up_at:
            assert '"Qh"' not in text, (i, text)
        elif rows[i].topic == f"{BASE}/state":
            assert json.loads(text)["player_dealer"]["face_up"] == "Qh"
    echo = json.loads(texts[face_up_at])
    assert echo["face_up"] == "Qh" and "cards" not in echo
    states = payloads(rows[:reveal], "state")
    assert states[-1]["player_dealer"]["face_up"] == "Qh"


def test_played_hands_revealed_at_the_end_with_rank_names_R29(tmp_path: Path) -> None:
    _, rows = run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS)
    result = only_result(rows)
    hands = {h["seat"]: h["cards"] for h in result["outcome"]["hands"]}
    assert hands == {5: ["Ah", "Ad", "7c"], 7: ["Ks", "9s", "4h"], 2: ["Qs", "5d", "2h"]}


# -- R29 hand order: A-2-3 lowest straight, Mini Royal ---------------------------------------------


def test_a23_is_the_lowest_straight_and_loses_to_234_R29(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        CLOSE,
        # A-2-3, the lowest straight
        # (004 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings", R29)
        stack("As 2d 3c"),
        stack("2h 3s 4d"),  # player-dealer: 2-3-4 straight, qualifies
        decide(5, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    assert settled(result) == [(5, "ante", "lose", D(-10)), (5, "play", "lose", D(-10))]
    assert [h["rank"] for h in result["outcome"]["hands"]] == ["straight"]


def test_mini_royal_pays_pair_plus_200_to_1_R29(tmp_path: Path) -> None:
    events = [
        bank(4, "5000"),
        wager(5, "ante", "10"),
        wager(5, "pair-plus", "5"),
        CLOSE,
        stack("Ah Kh Qh"),  # A-K-Q suited: the Mini Royal (line 498)
        stack("2c 3d 5s"),  # player-dealer: 5-high, does not qualify
        decide(5, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # Ante even money (line 565), Play no action (564), Pair Plus 200:1 on 5 = 1000 (line 593)
    assert settled(result) == [
        (5, "ante", "win", D(10)),
        (5, "play", "push", D(0)),
        (5, "pair-plus", "win", D(1000)),
    ]
    assert result["outcome"]["hands"][0]["rank"] == "mini-royal-flush"


def test_six_card_bonus_uses_best_five_of_six_royal_flush_R29(tmp_path: Path) -> None:
    events = [
        bank(4, "10000"),
        wager(5, "ante", "10"),
        wager(5, "six-card-bonus", "5"),
        CLOSE,
        stack("Ah Kh 2c"),
        stack("Qh Jh Th"),  # player-dealer: Q-J-T suited, a straight flush
        decide(5, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # A-K-2 loses to the straight flush; Ah Kh Qh Jh Th is a royal flush: 1000:1 on 5 = 5000
    assert settled(result) == [
        (5, "ante", "lose", D(-10)),
        (5, "play", "lose", D(-10)),
        (5, "six-card-bonus", "win", D(5000)),
    ]
    six = result["outcome"]["hands"][0]["six_card_bonus"]
    assert six["rank"] == "royal-flush"
    assert sorted(six["cards"]) == sorted(["Ah", "Kh", "Qh", "Jh", "Th"])


@pytest.mark.parametrize(
    ("table_name", "net"),
    [
        ("TCB-6B4", "50.00"),  # straight 10:1 (000 "Three Card Poker 6 Card Bonus: 6 Card Bonus")
        ("TCB-001", "45.00"),  # straight 9:1 (001 "6 Card Bonus")
        ("TCB-6B2", "50.00"),  # straight 10:1 (004 "Three Card Poker 6 Card Bonus: 6 Card Bonus")
    ],
)
def test_six_card_bonus_pays_by_the_configured_table_R29(
    tmp_path: Path, table_name: str, net: str
) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        wager(5, "six-card-bonus", "5"),
        CLOSE,
        stack("9c 8d 2s"),
        stack("7h 6c 5d"),  # player-dealer: a straight; 9-8-7-6-5 from the six
        decide(5, "fold"),
    ]
    _, rows = run(tmp_path, events, six_card_bonus_table=table_name)
    result = only_result(rows)
    assert result["settlements"][-1]["spot"] == "six-card-bonus"
    assert result["settlements"][-1]["net"] == net


# -- the action button and settlement order (R3) ---------------------------------------------------
# R2; 000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
# Positions", 001 "Round of Play"


@pytest.mark.parametrize(
    ("face_up", "bank_seat", "seats", "button"),
    [
        ("4h", 3, 7, 5),  # 1, 2, 4, 5: the player-dealer's seat 3 is not counted
        ("Kc", 3, 7, 1),  # 13 over six seats wraps twice: (13-1) mod 6 = 0 -> seat 1
        ("9d", 3, 7, 4),  # 1, 2, 4, 5, 6, 7, 1, 2, 4
        ("2s", 2, 7, 3),  # 1, 3: seat 2 is skipped
        ("As", 5, 8, 1),  # an ace is one
        ("Td", 5, 8, 3),  # ten is 10: 1, 2, 3, 4, 6, 7, 8, 1, 2, 3
        ("Qd", 8, 8, 5),  # queen 12 over seats 1-7: (12-1) mod 7 = 4 -> seat 5
        ("Jc", 1, 7, 6),  # jack 11 over seats 2-7: (11-1) mod 6 = 4 -> seat 6
    ],
)
def test_action_button_counts_face_up_card_skipping_player_dealer_R2(
    face_up: str, bank_seat: int, seats: int, button: int
) -> None:
    assert action_button_seat(parse_card(face_up), bank_seat, seats) == button


def test_action_starts_at_next_wagered_seat_and_settles_from_there_R2_R3(tmp_path: Path) -> None:
    events = [
        bank(3, "1000"),
        wager(1, "ante", "10"),
        wager(6, "ante", "20"),
        CLOSE,
        stack("Kd Qd 2c"),  # seat 6 (stacks from seat 4, the player-dealer's left: 6, then 1)
        stack("8s 6d 3c"),  # seat 1
        stack("4h Jc 9s"),  # player-dealer: 4h face up, J-high does not qualify
        decide(6, "play"),
        decide(1, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # 4h counts 1, 2, 4, 5 -> the button is at seat 5, which has no wager: action at seat 6 (R2),
    # and settlement goes 6, 7, 1, 2 seat by seat (R3)
    assert result["action_seat"] == 6
    assert [(s["seat"], s["spot"]) for s in result["settlements"]] == [
        (6, "ante"),
        (6, "play"),
        (1, "ante"),
        (1, "play"),
    ]


def test_player_dealer_left_action_start_003(tmp_path: Path) -> None:
    events = [*QUALIFY_BETS, *QUALIFY_STACKS, *QUALIFY_PLAYS]
    _, rows = run(tmp_path, events, action_start="player-dealer-left")
    result = only_result(rows)
    # 003 "Three Card Poker 6 Card Bonus: Round of Play": "always begin with the player to the left
    # of the player-dealer": seat 5
    assert result["action_seat"] == 5
    assert [s["seat"] for s in result["settlements"]] == [5, 5, 5, 7, 7, 7, 2, 2]


def test_play_settles_before_ante_when_configured_000(tmp_path: Path) -> None:
    _, rows = run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS, wager_order="play-first")
    result = only_result(rows)
    # 000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
    # Positions": "the Play wager, then the Ante wager, then the Pair Plus wager ..., and then the 6
    # Card Bonus wager"
    assert [(s["seat"], s["spot"]) for s in result["settlements"]] == [
        (7, "play"),
        (7, "ante"),
        (7, "six-card-bonus"),
        (2, "play"),
        (2, "ante"),
        (5, "play"),
        (5, "ante"),
        (5, "pair-plus"),
    ]


# -- R1: the bank ---------------------------------------------------------------------------------

BANK_STACKS = [
    stack("5h 6d 7c"),  # seat 2: a straight
    stack("8s 3d 2h"),  # seat 3: 8-high
    stack("Kd Qc 4s"),  # player-dealer (seat 1): K-high qualifies; Kd = 13 -> seats 2-7:
    # (13-1) mod 6 = 0 -> seat 2, the action seat
]


def test_bank_exhausted_pays_partially_then_collects_R1(tmp_path: Path) -> None:
    events = [
        bank(1, "30"),
        wager(2, "ante", "10"),
        wager(2, "pair-plus", "10"),
        wager(3, "ante", "25"),
        CLOSE,
        *BANK_STACKS,
        decide(2, "play"),
        decide(3, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # funds 30: seat 2 Ante +10 (20), Play +10 (10), Pair Plus straight 6:1 = 60 owed, 10 left
    # -> partial +10 (0); seat 3 loses 25 + 25, collected while the bank's net stays <= 30:
    # net so far -30, so both in full (funds 25, then 50).
    assert settled(result) == [
        (2, "ante", "win", D(10)),
        (2, "play", "win", D(10)),
        (2, "pair-plus", "partial", D(10)),
        (3, "ante", "lose", D(-25)),
        (3, "play", "lose", D(-25)),
    ]
    assert (result["bank"]["start"], result["bank"]["end"]) == ("30.00", "50.00")
    assert_balanced(result)


def test_winning_wagers_after_the_bank_is_empty_are_returned_R1(tmp_path: Path) -> None:
    events = [
        bank(1, "10"),
        wager(2, "ante", "10"),
        wager(2, "pair-plus", "10"),
        CLOSE,
        BANK_STACKS[0],
        BANK_STACKS[2],
        decide(2, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # funds 10: the Ante's 10 empties it; the Play and the Pair Plus come back unpaid
    assert settled(result) == [
        (2, "ante", "win", D(10)),
        (2, "play", "returned", D(0)),
        (2, "pair-plus", "returned", D(0)),
    ]
    assert result["bank"]["end"] == "0.00"


def test_bank_wins_at_most_its_own_amount_R1(tmp_path: Path) -> None:
    events = [
        bank(1, "30"),
        wager(3, "ante", "25"),
        CLOSE,
        BANK_STACKS[1],
        BANK_STACKS[2],
        decide(3, "play"),
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    # 8-high loses: Ante 25 collected (net 25), Play: only 5 more keeps the bank's net <= 30
    assert settled(result) == [(3, "ante", "lose", D(-25)), (3, "play", "partial", D(-5))]
    assert result["bank"]["end"] == "60.00"


# -- R4: fees over the pre-deal wagers only --------------------------------------------------------


def test_fee_counts_ante_and_bonuses_never_play_R4(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "30"),
        wager(5, "pair-plus", "10"),
        wager(5, "six-card-bonus", "5"),
        CLOSE,
        stack("Ah Ad 7c"),
        stack("Qh 5c 2d"),
        decide(5, "play"),
    ]
    _, rows = run(tmp_path, events)
    fees = only_result(rows)["fees"]
    # 30 + 10 + 5 = 45 -> "$5-$50 $.50" (000 "Three Card Poker 6 Card Bonus: Wagering Limits and
    # Collection Fees"); with the Play's 30 it would be $1.00
    assert [(f["amount"], f["total_action"]) for f in fees] == [("0.50", "45.00")]


# 003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13", options 2 and 5 of the game's own
# schedule list (config/schedules): option 2 "$5-$200", player-dealer "$5-$50 $0.50 / $51-$100 $1 /
# ...", player "$1.00" "taken per hand" on the Ante only; option 5 "$5-$1,000", player-dealer
# "$5-$100 $1 / $101-$300 $2 / ...", player fee "based on each individual player's ante": "$5-$100
# $1 / $101-$300 $1 / ...".
SCHEDULES_003 = REPO / "config" / "schedules" / "three-card-poker-6cb-003.toml"


def tcp_003_config(tmp_path: Path, option: int, max_limit: str) -> LoadedConfig:
    """Document 003's schedule `option` from the shipped file, limits $5-`max_limit`."""
    return make_config(
        tmp_path,
        game={
            "id": "three-card-poker-6cb",
            "decks": None,
            "banker_push_on_dragon7": None,
            "bet_timer_seconds": None,
            "settlement_order": "by-seat",
            "six_card_bonus_table": "TCB-6B4",
            "action_start": "player-dealer-left",
        },
        seats={"count": 8},
        limits={"min": "5", "max": max_limit},
        collection={"file": str(SCHEDULES_003), "option": option},
    )


ANTE_IN_TWO_PARTS = [
    bank(8, "1000"),
    wager(1, "ante", "10"),
    wager(1, "ante", "10"),  # chips added to the same Ante circle: one Ante of 20 (line 536)
    wager(1, "pair-plus", "5"),
    wager(3, "ante", "15"),
    CLOSE,
    stack("Jd Jh 4c"),  # seat 1
    stack("7c 7s 2d"),  # seat 3
    stack("7h 7d Kc"),  # player-dealer (seat 8)
    decide(1, "play"),
    decide(3, "fold"),
]


def test_player_fee_per_hand_charges_an_ante_placed_in_two_parts_once_R4_003_1015(
    tmp_path: Path,
) -> None:
    _, rows = play(tcp_003_config(tmp_path, 2, "200"), ANTE_IN_TWO_PARTS)
    # total action 10 + 10 + 5 + 15 = 45 -> "$5-$50 $0.50" (003 "Three Card Poker 6 Card Bonus:
    # Schedule Options 1-13"); "the player collection fee is taken per hand" on the Ante (line
    # 1015): $1.00 for seat 1's one hand, however many chips made its Ante, and $1.00 for seat 3's.
    assert [(f["payer"], f.get("player"), f["amount"]) for f in only_result(rows)["fees"]] == [
        ("player-dealer", None, "0.50"),
        ("player", "p1", "1.00"),
        ("player", "p3", "1.00"),
    ]


def test_player_fee_by_ante_size_prices_the_whole_ante_R4_003_1040(tmp_path: Path) -> None:
    events = [
        bank(8, "1000"),
        wager(1, "ante", "60"),
        wager(1, "ante", "60"),  # one Ante of 120
        CLOSE,
        stack("Jd Jh 4c"),
        stack("7h 7d Kc"),
        decide(1, "fold"),
    ]
    _, rows = play(tcp_003_config(tmp_path, 5, "1000"), events)
    # option 5: total action 120 -> "$101-$300 $2" for the player-dealer
    # (003 "Three Card Poker 6 Card Bonus: Schedule Options 1-13"); the player's fee is "based on
    # each individual player's ante" (line 1015): an Ante of 120 is in "$101-$300 $1" (line 1040),
    # one dollar, not "$5-$100 $1" twice.
    assert [(f["payer"], f["amount"]) for f in only_result(rows)["fees"]] == [
        ("player-dealer", "2.00"),
        ("player", "1.00"),
    ]


# -- rounds without hands, rotation (R5), misdeal -------------------------------------------------


def test_round_with_no_ante_deals_only_the_player_dealer_R29(tmp_path: Path) -> None:
    _, rows = run(tmp_path, [bank(4, "100"), CLOSE, stack("Qh 5c 2d")])
    result = only_result(rows)
    assert result["settlements"] == [] and result["fees"] == []
    assert result["outcome"]["hands"] == []
    assert payloads(rows, "state")[-1]["round"] == 2


def test_bank_rotates_after_two_finished_rounds_not_after_a_void_R5(tmp_path: Path) -> None:
    one = [bank(4, "100"), CLOSE, stack("Qh 5c 2d", deck="red")]
    two = [bank(4, "100"), CLOSE, stack("Kh 5c 2d", deck="blue")]
    table, rows = run(tmp_path, one + two)
    assert payloads(rows, "state")[-1]["bank_offer_seat"] == 5  # two hands banked: offer on
    assert_rejected(table, bank(4, "100"), rule="R5")

    table, _ = run(tmp_path, [*one, bank(4, "100"), CLOSE])
    void_rows = feed(table, {"type": "round.void", "reason": "misdeal"})
    assert payloads(void_rows, "state")[-1]["bank_offer_seat"] == 4  # the void did not count
    feed(table, bank(4, "100"))  # so seat 4 may bank its second hand
    assert table.state.bank_seat == 4


def test_void_returns_every_wager_and_shows_no_hole_card(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        wager(5, "six-card-bonus", "5"),
        wager(7, "ante", "20"),
        CLOSE,
        stack("Ah Ad 7c"),
        stack("Ks 9s 4h"),
        stack("Qh 5c 2d"),
        decide(5, "play"),
    ]
    table, _ = run(tmp_path, events)
    rows = feed(table, {"type": "round.void", "reason": "misdeal"})
    result = only_result(rows)
    assert result["void"] is True and result["fees"] == []
    # every wager, the Play too, comes back
    assert sorted((s["seat"], s["spot"], s["status"], s["net"]) for s in result["settlements"]) == [
        (5, "ante", "returned", "0.00"),
        (5, "play", "returned", "0.00"),
        (5, "six-card-bonus", "returned", "0.00"),
        (7, "ante", "returned", "0.00"),
    ]
    # only the face-up card was ever shown
    assert result["dealt"] == [{"seat": 4, "hand": "player-dealer", "cards": ["Qh"]}]
    text = rows[0].payload.decode()
    for card in ("Ah", "Ad", "7c", "Ks", "9s", "4h", "5c", "2d"):
        assert f'"{card}"' not in text


def test_in_deal_and_between_rounds_follow_the_round(tmp_path: Path) -> None:
    engine = ThreeCardPokerEngine(tcp_config(tmp_path).rules)
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10")])
    assert not engine.in_deal(table.state) and not engine.between_rounds(table.state)
    feed(table, CLOSE)
    assert engine.in_deal(table.state)
    feed(table, stack("Ah Ad 7c"))
    feed(table, stack("Qh 5c 2d"))
    assert engine.in_deal(table.state)  # the hands are being played
    feed(table, decide(5, "fold"))
    assert engine.between_rounds(table.state) and not engine.in_deal(table.state)


# -- refusals (contract 2): an alert naming the rule, the state unchanged --------------------------


@pytest.mark.parametrize("cards", ["Ah Kd", "Ah Kd 7c 2s"])
def test_stack_of_wrong_size_refused_line_542(tmp_path: Path, cards: str) -> None:
    table, _ = run(tmp_path, QUALIFY_BETS)
    alert = assert_rejected(table, stack(cards), rule="004 line 542")
    assert "Ah" not in alert["reason"] and "Kd" not in alert["reason"]


def test_card_seen_twice_in_a_round_refused_line_485(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, stack("Ah Ad 7c")])
    alert = assert_rejected(table, stack("Ks Ah 4h"), rule="004 line 485")
    assert "Ah" not in json.dumps(alert)  # an alert never quotes a card (contract 3)
    assert_rejected(table, stack("Ks Ks 4h"), rule="004 line 485")


def test_joker_refused_line_486(tmp_path: Path) -> None:
    table, _ = run(tmp_path, QUALIFY_BETS)
    assert_rejected(table, stack("Ks JKR 4h"), rule="004 line 486")


def test_same_deck_two_rounds_running_refused_line_490(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), CLOSE, stack("Qh 5c 2d", deck="red"), bank(4, "100")])
    assert_rejected(table, stack("Kh 5c 2d", deck="red"), rule="004 line 490")
    feed(table, stack("Kh 5c 2d", deck="blue"))  # the other deck is fine
    assert table.state.round == 3


def test_unknown_or_mixed_deck_colour_refused_lines_488_489(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10")])
    assert_rejected(table, stack("Ah Ad 7c", deck="green"), rule="004 line 488")
    feed(table, stack("Ah Ad 7c", deck="blue"))
    assert_rejected(table, stack("Qh 5c 2d", deck="red"), rule="004 line 489")
    feed(table, stack("Qh 5c 2d", deck=None))  # a stack without a colour is not checked
    assert table.state.phase == "deciding"


def test_voided_round_uses_up_its_deck_line_490(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10"), stack("Ah Ad 7c", "blue")])
    feed(table, {"type": "round.void", "reason": "misdeal"})
    feed(table, bank(4, "100"))
    assert_rejected(table, stack("Qh 5c 2d", deck="blue"), rule="004 line 490")


def test_a_round_of_unknown_deck_colour_leaves_the_alternation_unknown_line_490(
    tmp_path: Path,
) -> None:
    # Round 1 is dealt from red; round 2's shuffler names no colour. The decks alternate, "each
    # deck being used for every other round of play" (line 490), so round 2 was the blue deck and
    # round 3 may be dealt from red again: the table must not remember red from two rounds ago.
    one = [bank(4, "100"), CLOSE, stack("Qh 5c 2d", deck="red")]
    two = [bank(4, "100"), CLOSE, stack("Kh 5c 2d", deck=None)]
    table, _ = run(tmp_path, [*one, *two, bank(5, "100"), CLOSE])
    rows = feed(table, stack("Ah 5c 2d", deck="red"))
    assert "alert" not in topics(rows)
    assert only_result(rows)["deck"] == "red"


def test_void_with_no_round_in_progress_is_refused_naming_the_rule(tmp_path: Path) -> None:
    # events.md: round.void "voids the round in progress"; with none, nothing changes (contract 2)
    table = Table(tcp_config(tmp_path))
    assert_rejected(table, {"type": "round.void", "reason": "misdeal"}, rule="round.void")


def test_stack_after_every_hand_is_dealt_refused_R29(tmp_path: Path) -> None:
    table, _ = run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS)
    assert_rejected(table, stack("3c 3d 3h"), rule="R29")


def test_stack_needs_a_bank_R1(tmp_path: Path) -> None:
    table = Table(tcp_config(tmp_path))
    assert_rejected(table, stack("Ah Ad 7c"), rule="R1")


def test_first_stack_closes_betting_line_538(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10"), stack("Ah Ad 7c")])
    assert_rejected(table, wager(6, "ante", "10"), rule="004 line 538")


@pytest.mark.parametrize("spot", ["pair-plus", "six-card-bonus"])
def test_bonus_wager_needs_ante_by_same_player_line_537(tmp_path: Path, spot: str) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10")])
    assert_rejected(table, wager(6, spot, "5"), rule="004 line 537")
    assert_rejected(table, wager(5, spot, "5", player="backer"), rule="004 line 537")
    feed(table, wager(5, spot, "5"))
    assert len(table.state.wagers) == 2


def test_play_is_not_a_pre_deal_wager_line_536(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100"), wager(5, "ante", "10")])
    assert_rejected(table, wager(5, "play", "10"), rule="004 line 536")
    assert_rejected(table, wager(5, "bogus", "10"), rule="004 line 517")


def test_play_of_the_wrong_size_refused_line_536(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, *QUALIFY_STACKS])
    assert_rejected(table, decide(5, "play", "20"), rule="004 line 536")
    rows = feed(table, decide(5, "play", "10"))  # equal to the Ante
    assert payloads(rows, "event")[0]["play"] == "10.00"


def test_backline_ante_gets_its_own_play_line_536(tmp_path: Path) -> None:
    events = [
        bank(4, "1000"),
        wager(5, "ante", "10"),
        wager(5, "ante", "15", player="backer"),
        CLOSE,
        stack("Ah Ad 7c"),
        stack("Qh 5c 2d"),
        decide(5, "play", "25"),  # the seat's Play: 10 + 15, each equal to its Ante
    ]
    _, rows = run(tmp_path, events)
    result = only_result(rows)
    assert sorted((s["player"], s["spot"], s["net"]) for s in result["settlements"]) == [
        ("backer", "ante", "15.00"),
        ("backer", "play", "15.00"),
        ("p5", "ante", "10.00"),
        ("p5", "play", "10.00"),
    ]


def test_decision_out_of_turn_refused_line_554(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, *QUALIFY_STACKS])
    # seat 4 banks: seat 5 decides first, then 7, then 2
    assert_rejected(table, decide(7, "play"), rule="004 line 554")
    feed(table, decide(5, "fold"))
    assert_rejected(table, decide(2, "play"), rule="004 line 554")
    assert_rejected(table, decide(5, "play"), rule="004 line 550")  # seat 5 has already decided


def test_decision_by_a_seat_without_a_hand_refused_line_550(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, *QUALIFY_STACKS])
    assert_rejected(table, decide(6, "play"), rule="004 line 550")
    assert_rejected(table, decide(4, "fold"), rule="004 line 550")  # the player-dealer
    assert_rejected(table, decide(5, "fold", "10"), rule="004 line 550")  # a fold places nothing


def test_decision_before_the_deal_is_complete_refused_line_548(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, QUALIFY_STACKS[0]])
    assert_rejected(table, decide(5, "play"), rule="004 line 548")


@pytest.mark.parametrize(
    "event",
    [
        decide(5, "stand"),
        {"type": "decision", "seat": 5, "action": "play", "multiple": 2},
        {"type": "decision", "seat": 5, "action": "play", "hand": 2},
    ],
)
def test_decision_that_is_not_play_or_fold_refused_contract2(
    tmp_path: Path, event: dict[str, Any]
) -> None:
    table, _ = run(tmp_path, [*QUALIFY_BETS, *QUALIFY_STACKS])
    assert_rejected(table, event, rule="contract 2")


def test_shoe_card_is_not_a_three_card_poker_input_line_542(tmp_path: Path) -> None:
    table, _ = run(tmp_path, QUALIFY_BETS)
    assert_rejected(table, {"type": "shoe.card", "card": "As"}, rule="004 line 542")


def test_player_dealer_cannot_wager_R1(tmp_path: Path) -> None:
    table, _ = run(tmp_path, [bank(4, "100")])
    assert_rejected(table, wager(4, "ante", "10"), rule="R1")


def test_bonus_limits_apply_per_spot_000(tmp_path: Path) -> None:
    cfg = make_config(
        tmp_path,
        game={
            "id": "three-card-poker-6cb",
            "decks": None,
            "banker_push_on_dragon7": None,
            "bet_timer_seconds": None,
            "settlement_order": "by-seat",
        },
        collection={"file": None, "option": None, "schedule": SCHEDULE_000_1},
        # 000 "Three Card Poker 6 Card Bonus: Wagering Limits and Collection Fees": Pair Plus at
        # most $50, 6 Card Bonus at most $25
        limits={"spots": {"six-card-bonus": {"min": "5", "max": "25"}}},
    )
    table, _ = play(cfg, [bank(4, "100"), wager(5, "ante", "10")])
    assert_rejected(table, wager(5, "six-card-bonus", "30"), rule="limits")
