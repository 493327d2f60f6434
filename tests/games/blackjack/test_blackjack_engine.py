"""Pure 21.5 Blackjack and Pure Spanish 21.5 through `Table.apply`: deal, peek, play, settlement.

Every expected figure is worked by hand from the documents (000 "Pure 21.5 Blackjack" for Pure 21.5
6 to 5, 003 "Pure 21.5 Blackjack 3 to 2", "Pure 21.5 Blackjack 6 to 5", "Pure Spanish 21.5" for the
3 to 2 / 6 to 5 approvals and Pure Spanish 21.5, 004 "Pure 21.5 Blackjack") and RULINGS.md R1-R5,
R10-R21, never read back from the code; the arithmetic is in the comments. Rounds are written as the
cards in shoe order. The initial deal goes to each seat with a base wager clockwise from the
player-dealer's left, the player-dealer last, twice
(000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), so with the bank at seat 1 and
hands at seats 2 and 3 the first six cards are: s2, s3, up, s2, s3, hole.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig
from tablectl.table import Table
from tests.helpers import (
    BASE,
    CLOSE,
    SHOE_NEW,
    bank,
    cards,
    feed,
    make_config,
    payload,
    payloads,
    play,
    topics,
    wager,
)

D = Decimal

# A small schedule of our own (R4): $1 from $5 of total action, $2 from $101.
SCHEDULE = {
    "option": 1,
    "table_min": "5",
    "table_max": "500",
    "brackets": [{"from": "5", "fee": "1"}, {"from": "101", "fee": "2"}],
}
COLLECTION = {"file": None, "option": None, "schedule": SCHEDULE}
NOT_BACCARAT = {"decks": None, "banker_push_on_dragon7": None, "bet_timer_seconds": None}
# A blackjack table needs its card source (its device_roles, checked by parse_config): the shoe.
CARD_SHOE = [{"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}]


def pure_cfg(tmp_path: Path, **game: Any) -> LoadedConfig:
    """Pure 21.5, 6 decks, 7 seats, limits 5-500, document 000's options unless overridden."""
    base = {
        "id": "pure-21.5-blackjack",
        **NOT_BACCARAT,
        "settlement_order": "by-seat",
        "red_flex_table": "RFB-02",
        "buster_table": "option-5",
        "insurance": True,
        "even_money": True,
    }
    return make_config(
        tmp_path,
        game={**base, **game},
        collection=COLLECTION,
        seats={"count": 7},
        devices=CARD_SHOE,
    )


def spanish_cfg(tmp_path: Path, **game: Any) -> LoadedConfig:
    """Pure Spanish 21.5, 6 decks, 7 seats, Match the Dealer (MATCH-003) unless overridden."""
    base = {
        "id": "pure-spanish-21.5",
        **NOT_BACCARAT,
        "settlement_order": "by-seat",
        "match_dealer_table": "MATCH-003",
        "double_double": True,
    }
    return make_config(
        tmp_path,
        game={**base, **game},
        collection=COLLECTION,
        seats={"count": 7},
        devices=CARD_SHOE,
    )


def decide(seat: int, action: str, **extra: Any) -> dict[str, Any]:
    return {"type": "decision", "seat": seat, "action": action, **extra}


def stand(seat: int, hand: int | None = None) -> dict[str, Any]:
    return decide(seat, "stand") if hand is None else decide(seat, "stand", hand=hand)


def result_of(rows: list[Any]) -> dict[str, Any]:
    results = payloads(rows, "round/result")
    assert len(results) == 1, [r.topic for r in rows]
    return results[0]


def nets(result: dict[str, Any]) -> list[tuple[int, str, str, str, D]]:
    """(seat, player, spot, status, net) of each settlement, in the order published."""
    return [
        (s["seat"], s["player"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]
    ]


def bank_change(result: dict[str, Any]) -> D:
    return D(result["bank"]["end"]) - D(result["bank"]["start"])


def conserved(result: dict[str, Any]) -> bool:
    """R1: the sum of every net plus the bank's change is zero."""
    return sum((D(s["net"]) for s in result["settlements"]), D(0)) + bank_change(result) == 0


def state_of(table: Table) -> dict[str, Any]:
    return table.state_payload()


def assert_rejected(
    table: Table, event: Any, *, rule: str, reason_has: str = "", kind: str = "rejected"
) -> str:
    """Exactly one `alert` of `kind` naming `rule`, and the engine state unchanged. A dealer
    error (R15: a decision against Chart 1A; a card drawn when no hand may draw) is kind
    "dealer-error", every other refusal "rejected" (docs/mqtt.md)."""
    before = table.state
    rows = feed(table, event)
    # A dealer error waits for a person: it opens on `alerts/open` too.
    opens = ["alerts/open"] if kind == "dealer-error" else []
    assert topics(rows) == ["alert", *opens], topics(rows)
    alert = payload(rows[0])
    assert alert["kind"] == kind, alert
    assert alert.get("rule") == rule, alert
    assert reason_has in alert["reason"], alert["reason"]
    assert table.state == before
    reason: str = alert["reason"]
    return reason


# Two seats, bank at seat 1 ($500): seat 2 base $10, seat 3 base $20 plus a $5 Buster.
OPENING = [bank(1, "500"), wager(2, "base", "10"), wager(3, "base", "20"), wager(3, "buster", "5")]


# -- the deal and what is shown (contract 3) -------------------------------------------------------
# 000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"


def test_deal_goes_clockwise_from_player_dealer_left_hole_card_never_shown_000_line_53(
    tmp_path: Path,
) -> None:
    # Bank at seat 3 of 7: from its left the seats are 4, 5, 6, 7, 1, 2; bases at 5, 6 and 1.
    events = [
        bank(3, "500"),
        wager(1, "base", "10"),
        wager(5, "base", "10"),
        wager(6, "base", "10"),
    ]
    # s5 9h, s6 9d, s1 9s, up 5c, s5 Kh, s6 Kd, s1 Ks, hole Qc (the only queen of clubs here)
    table, rows = play(pure_cfg(tmp_path), [*events, *cards("9h 9d 9s 5c Kh Kd Ks Qc")])
    echoes = [payload(r) for r in rows if r.topic == f"{BASE}/event" and "to" in payload(r)]
    assert [e["to"] for e in echoes] == [
        {"seat": 5, "hand": 1},
        {"seat": 6, "hand": 1},
        {"seat": 1, "hand": 1},
        "player-dealer",
        {"seat": 5, "hand": 1},
        {"seat": 6, "hand": 1},
        {"seat": 1, "hand": 1},
        "player-dealer",
    ]
    # the hole card: its echo carries no card, and nothing published so far names it
    assert "card" not in echoes[-1] and echoes[-1]["face_down"] is True
    assert all("Qc" not in r.payload.decode() for r in rows)
    state = state_of(table)
    assert state["phase"] == "playing"
    assert state["player_dealer"]["cards"] == ["5c"] and state["player_dealer"]["hole_card_down"]
    # the first hand to act is the first seat from the player-dealer's left
    # (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")
    assert state["turn"] == {"seat": 5, "hand": 1}
    # hard 19 must stand (R15): no hit, no double; surrender is open on the first two cards
    assert state["legal"] == ["stand", "surrender"]


def test_plain_round_hits_stands_and_player_dealer_busts_R1_R2_R4_R14(tmp_path: Path) -> None:
    # s2 9h 5s = 14, s3 7c Kd = 17; up 6d, hole 2c (no peek: neither an ace nor a bonus card)
    events = [*OPENING, CLOSE, *cards("9h 7c 6d 5s Kd 2c")]
    events += [*cards("4h"), stand(2), stand(3)]  # s2 hits 4h -> 18 and stands; s3 stands on 17
    # player-dealer 6+2 = 8 hits 8s -> 16, hits 9d -> 25: bust (Chart 1B, R14)
    table, rows = play(pure_cfg(tmp_path), [*events, *cards("8s 9d")])
    result = result_of(rows)
    assert result["outcome"]["player_dealer"]["cards"] == ["6d", "2c", "8s", "9d"]
    assert result["outcome"]["player_dealer"]["rank"] == "bust"
    # R2: the hole card 2c counts 2 seats clockwise from seat 1 skipping the player-dealer's
    # seat 1: seat 2, seat 3 -> the action seat is 3; settlement seat by seat from there (R3)
    assert result["action_seat"] == 3
    # seat 3: base 20 wins 1:1; Buster 5 on a 4-card bust pays 3 to 1 (option-5) = 15;
    # seat 2: 18 beats a busted player-dealer, 10 wins 1:1
    assert nets(result) == [
        (3, "p3", "base", "win", D(20)),
        (3, "p3", "buster", "win", D(15)),
        (2, "p2", "base", "win", D(10)),
    ]
    assert result["bank"] == {"seat": 1, "start": "500.00", "end": "455.00", "turn": 1}
    assert conserved(result)
    # R4: total action 10 + 20 + 5 = 35 -> the $5 bracket, $1 from the player-dealer
    assert result["fees"] == [
        {
            "payer": "player-dealer",
            "seat": 1,
            "amount": "1.00",
            "schedule": 1,
            "total_action": "35.00",
        }
    ]
    assert state_of(table)["round"] == 2 and state_of(table)["bank_offer_seat"] == 1


def test_hole_card_is_published_only_when_turned_up_000_line_59(tmp_path: Path) -> None:
    events = [*OPENING, CLOSE, *cards("9h 7c 6d 5s Kd 2c"), stand(2)]
    table, rows = play(pure_cfg(tmp_path), events)
    assert all("2c" not in r.payload.decode() for r in rows)
    rows = feed(table, stand(3))  # the last hand has acted: the down card is turned up
    echo = payload(rows[0])
    assert echo["type"] == "decision" and echo["hole_card"] == "2c"
    assert state_of(table)["player_dealer"]["cards"] == ["6d", "2c"]
    assert state_of(table)["phase"] == "player-dealer"


# -- 888 (R13) and busts ---------------------------------------------------------------------------


def test_888_pushes_every_busted_hand_and_surrender_still_loses_half_R13(tmp_path: Path) -> None:
    events = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(3, "base", "20"),
        wager(4, "base", "30"),
        wager(4, "buster", "5"),
        CLOSE,
    ]
    # s2 Th 6c = 16, s3 Ts 7c = 17, s4 9h 7d = 16; up 8d, hole 8c = 16
    events += cards("Th Ts 9h 8d 6c 7c 7d 8c")
    events += [*cards("Kc"), stand(3), decide(4, "surrender")]  # s2 hits Kc -> 26 bust
    # player-dealer 8+8 = 16 hits 8h -> 888, a bust of 24 (R13)
    _table, rows = play(pure_cfg(tmp_path), [*events, *cards("8h")])
    result = result_of(rows)
    assert result["outcome"]["player_dealer"]["rank"] == "888"
    assert result["outcome"]["player_dealer"]["eight_eight_eight"] is True
    # hole 8c: 8 seats counted from seat 1 skipping seat 1 (2..7 then 2, 3) -> seat 3
    assert result["action_seat"] == 3
    # s3 17 beats a bust: +20; s4 surrendered 30: loses half, 15; Buster 5 on a 3-card bust
    # (888 is a bust for Buster, R19) pays 1 to 1 = 5; s2 busted 26: pushes on 888 (R13)
    assert nets(result) == [
        (3, "p3", "base", "win", D(20)),
        (4, "p4", "base", "lose", D(-15)),
        (4, "p4", "buster", "win", D(5)),
        (2, "p2", "base", "push", D(0)),
    ]
    assert result["settlements"][1]["result"] == "surrender"
    assert result["settlements"][1]["staked"] == "30.00"
    assert bank_change(result) == D(-10) and conserved(result)  # -20 + 15 - 5 = -10


def test_busted_hand_loses_even_when_the_player_dealer_busts_R13(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 Th 6c = 16; up 9d, hole 7c = 16; s2 hits Kc -> 26 bust; dealer hits 9s -> 25 bust
    _table, rows = play(pure_cfg(tmp_path), [*events, *cards("Th 9d 6c 7c Kc 9s")])
    result = result_of(rows)
    assert nets(result) == [(2, "p2", "base", "lose", D(-10))]


# -- Pure 21.5 (R10, R11) and the peek (R12) -------------------------------------------------------


@pytest.mark.parametrize(
    ("pays", "stake", "won"),
    [("6 to 5", "25", D(30)), ("3 to 2", "25", D("37.50")), ("3 to 2", "15", D("22.50"))],
)
def test_pure_pays_6_to_5_or_3_to_2_and_is_put_away_R11(
    tmp_path: Path, pays: str, stake: str, won: D
) -> None:
    # 6 to 5 on 25 = 30; 3 to 2 on 25 = 37.50; 3 to 2 on 15 = 22.50
    events = [bank(1, "500"), wager(2, "base", stake), wager(3, "base", "10"), CLOSE]
    # s2 Ah Kd: a Pure 21.5; s3 9c 8c = 17; up 7s, hole Ts = 17 (no peek on a 7)
    table, rows = play(pure_cfg(tmp_path, pure_pays=pays), [*events, *cards("Ah 9c 7s Kd 8c Ts")])
    assert state_of(table)["turn"] == {"seat": 3, "hand": 1}  # the pure hand does not act
    rows = feed(table, stand(3))  # 17 against 17 pushes; the dealer stands on hard 17
    result = result_of(rows)
    # hole Ts = 10: counted seats 2..7 (skipping seat 1), the 10th is seat 5, empty; the next
    # seat with a wager clockwise is 2
    assert result["action_seat"] == 2
    assert nets(result) == [
        (2, "p2", "base", "win", won),
        (3, "p3", "base", "push", D(0)),
    ]
    assert next(h for h in result["outcome"]["hands"] if h["seat"] == 2)["rank"] == "pure-21.5"


def test_pure_against_pure_pushes_and_other_hands_lose_base_only_R11_R12(tmp_path: Path) -> None:
    events = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(2, "red-flex", "5"),
        wager(3, "base", "20"),
        wager(3, "buster", "5"),
    ]
    # s2 As Qs pure; s3 9s 9c = 18; up Kh (a bonus card: peek), hole Ad: the player-dealer has a
    # Pure 21.5, the round ends at the peek before anyone draws (R12)
    _table, rows = play(pure_cfg(tmp_path), [*events, *cards("As 9s Kh Qs 9c Ad")])
    result = result_of(rows)
    assert result["outcome"]["player_dealer"]["rank"] == "pure-21.5"
    assert result["outcome"]["peek"] is True
    # hole Ad = 1: seat 2 is the action seat. s2 pure against pure pushes (R11); Red Flex: Kh
    # and Ad both red, a run of 2 pays 1 to 1 (RFB-02) = 5; s3 loses its base only (R12); the
    # Buster loses (no bust)
    assert nets(result) == [
        (2, "p2", "base", "push", D(0)),
        (2, "p2", "red-flex", "win", D(5)),
        (3, "p3", "base", "lose", D(-20)),
        (3, "p3", "buster", "lose", D(-5)),
    ]
    assert conserved(result)
    assert payloads(rows, "event")[-1]["hole_card"] == "Ad"  # turned over at once


def test_pure_against_pure_pushes_at_3_to_2_too_R11(tmp_path: Path) -> None:
    # 003 "Pure 21.5 Blackjack 3 to 2: Game Rules" (the 3 to 2 approval): both pure "is a push or
    # tie"; s3 Ts 8s = 18 loses its base only at the peek (R12). s2 Ah Kd pure; up Qh (peek), hole
    # Ac: a Pure 21.5.
    events = [bank(1, "500"), wager(2, "base", "20"), wager(3, "base", "10")]
    cfg = pure_cfg(tmp_path, pure_pays="3 to 2", action_start="player-dealer-left")
    _table, rows = play(cfg, [*events, *cards("Ah Ts Qh Kd 8s Ac")])
    assert nets(result_of(rows)) == [
        (2, "p2", "base", "push", D(0)),
        (3, "p3", "base", "lose", D(-10)),
    ]


def test_spanish_pure_against_pure_player_wins_6_to_5_R11(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10")]
    # s2 Ac Jc pure; up Qd (peek), hole Ah: both pure, the player wins
    # (003 "Pure Spanish 21.5: Dealing Procedures and Round of Play") 6 to 5
    _table, rows = play(spanish_cfg(tmp_path), [*events, *cards("Ac Qd Jc Ah")])
    assert nets(result_of(rows)) == [(2, "p2", "base", "win", D(12))]


def test_peek_with_a_bonus_card_up_ends_the_round_on_a_pure_R12(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 Th Td = 20; up Jc (bonus: peek), hole As: Pure 21.5, s2 loses its 10 at once
    table, rows = play(pure_cfg(tmp_path), [*events, *cards("Th Jc Td As")])
    assert nets(result_of(rows)) == [(2, "p2", "base", "lose", D(-10))]
    assert state_of(table)["round"] == 2
    # the round is over: a decision or a card for it is refused
    assert_rejected(table, stand(2), rule="000 line 54")


def test_peek_without_a_pure_lets_the_hands_play_hole_still_hidden_R12(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 Th 5d = 15; up Jc (peek), hole 7h: no pure, play goes on, nothing shows the 7h
    table, rows = play(pure_cfg(tmp_path), [*events, *cards("Th Jc 5d 7h")])
    state = state_of(table)
    assert state["peeked"] is True and state["phase"] == "playing"
    assert state["player_dealer"]["cards"] == ["Jc"]
    assert all("7h" not in r.payload.decode() for r in rows)


# -- splits, doubles, surrender (R16) --------------------------------------------------------------


def test_splits_into_four_hands_and_no_fourth_split_R16(tmp_path: Path) -> None:
    table, _ = play(
        pure_cfg(tmp_path),
        # s2 8s 8h; up 6c, hole Tc = 16 (no peek on a 6)
        [bank(1, "500"), wager(2, "base", "10"), CLOSE, *cards("8s 6c 8h Tc")],
    )
    feed(table, decide(2, "split"))  # hands [8s] [8h]
    feed(table, cards("8d")[0])  # hand 1 [8s 8d]
    feed(table, decide(2, "split", hand=1))  # [8s] [8d] [8h]
    feed(table, cards("8c")[0])  # hand 1 [8s 8c]
    feed(table, decide(2, "split"))  # [8s] [8c] [8d] [8h]: four hands
    feed(table, cards("8s")[0])  # hand 1 [8s 8s]
    assert [h["cards"] for h in state_of(table)["hands"]] == [
        ["8s", "8s"],
        ["8c"],
        ["8d"],
        ["8h"],
    ]
    assert "split" not in state_of(table)["legal"]
    assert_rejected(table, decide(2, "split"), rule="R16", reason_has="three splits")
    feed(table, stand(2))  # hand 1: 16 stands
    feed(table, cards("2c")[0])  # hand 2 [8c 2c] = hard 10: must hit, so standing is refused
    assert_rejected(table, stand(2, hand=2), rule="R15", kind="dealer-error")
    feed(table, decide(2, "double", hand=2))  # double after split: 10 more, one card
    feed(table, cards("9h")[0])  # hand 2 [8c 2c 9h] = 19, complete
    feed(table, cards("Kc")[0])  # hand 3 [8d Kc] = 18
    feed(table, stand(2, hand=3))
    feed(table, cards("5d")[0])  # hand 4 [8h 5d] = 13
    rows = feed(table, stand(2, hand=4))
    rows += feed(table, cards("7s")[0])  # player-dealer 6+10 = 16 hits 7s -> 23 bust
    result = result_of(rows)
    # every hand beats a bust: 10 + 20 (doubled) + 10 + 10 = 50
    assert nets(result) == [(2, "p2", "base", "win", D(n)) for n in (10, 20, 10, 10)]
    assert [s["hand"] for s in result["settlements"]] == [1, 2, 3, 4]
    assert bank_change(result) == D(-50)
    # R4: the total action is the one 10 wager placed before the deal, never splits or doubles
    assert result["fees"][0]["total_action"] == "10.00"


def test_four_hands_with_a_double_after_split_against_888_R13_R16_R19(tmp_path: Path) -> None:
    """A worked hand: one seat splits 8s into four hands, doubles one after the split, and the
    player-dealer makes 888 (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes",
    "Double-Down, Split, and Surrender"; R13, R16, R19)."""
    events = [bank(1, "500"), wager(2, "base", "10"), wager(2, "buster", "5"), CLOSE]
    # s2 8s 8h; up 8d, hole 8c = 16 (no peek on an 8)
    events += cards("8s 8d 8h 8c")
    events += [decide(2, "split"), *cards("8s")]  # [8s 8s] [8h]
    events += [decide(2, "split"), *cards("8d")]  # [8s 8d] [8s] [8h]
    events += [decide(2, "split")]  # [8s] [8d] [8s] [8h]: four hands, no more splits
    events += [*cards("3c"), decide(2, "double"), *cards("Kd")]  # hand 1: 8+3 = 11, +10, 21
    events += cards("9c Tc")  # hand 2: 8+9 = 17, hits Tc: 27, bust
    events += [*cards("2c Kc"), stand(2)]  # hand 3: 8+2 = hard 10 must hit, Kc: 20
    events += cards("5c Kh")  # hand 4: 8+5 = 13, hits Kh: 23, bust
    table, rows = play(pure_cfg(tmp_path), events)
    assert state_of(table)["phase"] == "player-dealer"  # 8d 8c = 16 must hit (Chart 1B)
    rows = feed(table, cards("8h")[0])  # 8 8 8: 888 (R13)
    result = result_of(rows)
    assert result["outcome"]["player_dealer"]["rank"] == "888"
    # R2: hole 8c counts 8 seats from seat 1 skipping seat 1: 2..7, 2, 3 -> seat 3, empty; the
    # next seat clockwise with a wager is 2 (4, 5, 6, 7 empty, 1 the player-dealer).
    assert result["action_seat"] == 2
    # hand 1: 21 with 10 + 10 doubled beats a bust: +20. Hands 2 and 4 busted: push on 888 (R13).
    # Hand 3: 20 beats a bust: +10. Buster: 888 is a three-card bust (R19), option-5 1 to 1: +5.
    assert nets(result) == [
        (2, "p2", "base", "win", D(20)),
        (2, "p2", "base", "push", D(0)),
        (2, "p2", "base", "win", D(10)),
        (2, "p2", "base", "push", D(0)),
        (2, "p2", "buster", "win", D(5)),
    ]
    assert [s.get("hand") for s in result["settlements"]] == [1, 2, 3, 4, None]
    assert bank_change(result) == D(-35) and conserved(result)
    # R4: the action is the 10 and the 5 placed before the deal; splits and doubles are not
    assert result["fees"][0]["total_action"] == "15.00"


def test_two_bonus_cards_split_but_not_a_mixed_pair_R16_000_line_115(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), wager(3, "base", "10"), CLOSE]
    # s2 Kc Td: two bonus cards; s3 9h 8h: no pair; up 6h, hole 5h
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("Kc 9h 6h Td 8h 5h")])
    assert "split" in state_of(table)["legal"]
    feed(table, stand(2))
    assert_rejected(table, decide(3, "split"), rule="R16", reason_has="not a pair")


def test_split_aces_take_one_card_each_and_21_is_not_pure_R10_R16(tmp_path: Path) -> None:
    table, _ = play(
        pure_cfg(tmp_path),
        # s2 As Ad; up 9s, hole 8d = 17
        [bank(1, "500"), wager(2, "base", "10"), CLOSE, *cards("As 9s Ad 8d")],
    )
    feed(table, decide(2, "split"))
    feed(table, cards("Kh")[0])  # hand 1 [As Kh] = 21, one card only: done
    assert state_of(table)["turn"] == {"seat": 2, "hand": 2}
    assert state_of(table)["legal"] == ["hit"]  # the second ace is owed its one card
    rows = feed(table, cards("5c")[0])  # hand 2 [Ad 5c] = soft 16, done; dealer 17 stands
    result = result_of(rows)
    # 21 after a split is not a Pure 21.5 (R10): even money, 10; soft 16 loses to 17
    assert nets(result) == [
        (2, "p2", "base", "win", D(10)),
        (2, "p2", "base", "lose", D(-10)),
    ]
    assert result["outcome"]["hands"][0]["rank"] == "soft 21"


def test_double_for_less_takes_one_card_R16(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "20"), CLOSE]
    # s2 5h 6s = 11; up 7d, hole Th = 17; double for 10 (less than the 20 wager), one card 9c
    events += [*cards("5h 7d 6s Th"), decide(2, "double", amount="10"), *cards("9c")]
    _table, rows = play(pure_cfg(tmp_path), events)
    result = result_of(rows)  # 20 against 17: the 30 staked wins 30
    assert nets(result) == [(2, "p2", "base", "win", D(30))]


def test_bad_doubles_are_refused_R16(tmp_path: Path) -> None:
    table, _ = play(
        pure_cfg(tmp_path),
        [bank(1, "500"), wager(2, "base", "20"), CLOSE, *cards("5h 7d 6s Th")],
    )
    assert_rejected(table, decide(2, "double", amount="25"), rule="R16", reason_has="more than")
    feed(table, cards("2c")[0])  # a hit: 5+6+2 = 13
    assert_rejected(table, decide(2, "double"), rule="R16", reason_has="first two cards")
    assert_rejected(table, decide(2, "surrender"), rule="R16")  # three cards


def test_surrender_loses_half_and_is_refused_once_the_hole_card_is_up_R16(
    tmp_path: Path,
) -> None:
    events = [bank(1, "500"), wager(2, "base", "15"), wager(3, "base", "10"), CLOSE]
    # s2 Th 6c = 16, s3 Tc 9d = 19; up 9h, hole 8s = 17
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("Th Tc 9h 6c 9d 8s")])
    feed(table, decide(2, "surrender"))  # half of 15 = 7.50 lost
    rows = feed(table, stand(3))  # dealer 17 stands at once: the round ends
    result = result_of(rows)
    # hole 8s: 8 seats counted from seat 2 (skip seat 1): 2..7, 2, 3 -> seat 3 first
    assert nets(result) == [
        (3, "p3", "base", "win", D(10)),
        (2, "p2", "base", "lose", D("-7.50")),
    ]
    # a surrender after the down card is turned up: a hand the dealer must still hit
    events = [bank(1, "500"), wager(2, "base", "15"), CLOSE, *cards("Th 9h 9d 5s"), stand(2)]
    table, _ = play(pure_cfg(tmp_path / "b"), events)  # dealer 14 must draw: hole is up
    assert state_of(table)["phase"] == "player-dealer"
    assert_rejected(table, decide(2, "surrender"), rule="000 line 116")


@pytest.mark.parametrize("variant", ["pure", "spanish"])
def test_split_for_a_different_amount_is_refused_equal_wager_R16(
    tmp_path: Path, variant: str
) -> None:
    # R16 "equal wager": 000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender" "a second
    # wager equal to the original wager";
    # 003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender" "There
    # is no splitting for less". s2 8s 8h on 10; up 6c, hole 9s = 15 (no peek)
    cfg = pure_cfg(tmp_path) if variant == "pure" else spanish_cfg(tmp_path)
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE, *cards("8s 6c 8h 9s")]
    table, _ = play(cfg, events)
    assert "split" in state_of(table)["legal"]
    for amount in ("5", "9.99", "10.01", "20"):  # less, a cent either side, more
        assert_rejected(table, decide(2, "split", amount=amount), rule="R16", reason_has="equal")
    rows = feed(table, decide(2, "split", amount="10"))  # exactly the wager: accepted
    assert payload(rows[0])["amount"] == "10.00"
    assert [(h["cards"], h["stake"]) for h in state_of(table)["hands"]] == [
        (["8s"], "10.00"),
        (["8h"], "10.00"),
    ]


def test_double_of_zero_or_less_is_refused_R16(tmp_path: Path) -> None:
    # R16: a double is "a second wager ... equal to or less than the player's original wager"
    # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"): a wager of something. s2 5h 6s
    # = 11 on 20; up 7d, hole Th = 17
    events = [bank(1, "500"), wager(2, "base", "20"), CLOSE, *cards("5h 7d 6s Th")]
    table, _ = play(pure_cfg(tmp_path), events)
    assert_rejected(table, decide(2, "double", amount="0"), rule="R16", reason_has="above zero")
    assert_rejected(table, decide(2, "double", amount="0.00"), rule="R16", reason_has="above zero")
    # a negative amount is not money at all (contract 2): refused before the engine sees it
    before = table.state
    rows = feed(table, decide(2, "double", amount="-5"))
    assert topics(rows) == ["alert"]
    assert payload(rows[0])["kind"] == "invalid-input" and "negative" in payload(rows[0])["reason"]
    assert table.state == before
    assert "double" in state_of(table)["legal"]  # the hand may still double


# -- Chart 1A (R15) and turns ----------------------------------------------------------------------


def test_chart_1a_is_enforced_as_a_dealer_error_R15(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), wager(3, "base", "10"), CLOSE]
    # s2 Tc 9c = hard 19 (must stand), s3 5d 4d = hard 9 (must hit); up 7s, hole 9s
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("Tc 5d 7s 9c 4d 9s")])
    assert_rejected(table, cards("2h")[0], rule="R15", reason_has="must stand", kind="dealer-error")
    assert_rejected(
        table, decide(2, "double"), rule="R15", reason_has="must stand", kind="dealer-error"
    )
    # out of turn is a plain refusal, not a Chart 1A dealer error
    assert_rejected(table, stand(3), rule="000 line 54", reason_has="out of turn")
    feed(table, stand(2))
    assert_rejected(table, stand(3), rule="R15", reason_has="must hit", kind="dealer-error")
    feed(table, cards("2h")[0])  # 5 + 4 + 2 = hard 11: still must hit, and three cards
    assert state_of(table)["legal"] == ["hit"]


def test_spanish_chart_1a_must_stand_on_hard_17_R15(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 Kc 7c = hard 17: Spanish must stand (003 "Pure Spanish 21.5: Chart 1A"); up 6h, hole 5h
    table, _ = play(spanish_cfg(tmp_path), [*events, *cards("Kc 6h 7c 5h")])
    assert_rejected(table, cards("2d")[0], rule="R15", kind="dealer-error")
    assert state_of(table)["legal"] == ["stand", "surrender"]


def test_chart_1a_alert_is_kind_dealer_error_with_state_unchanged_R15(tmp_path: Path) -> None:
    # R15: "A decision against the chart is rejected with an alert (it is a dealer error), and
    # the state does not change." s2 Tc 9c = hard 19 must stand; up 7s, hole 9s
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE, *cards("Tc 7s 9c 9s")]
    table, _ = play(pure_cfg(tmp_path), events)
    before, seq = table.state, table.seq
    rows = feed(table, decide(2, "double"), source="cmd/decision", ref="r1")
    assert topics(rows) == ["alert", "cmd/decision/reply", "alerts/open"]
    alert = payload(rows[0])
    assert alert["kind"] == "dealer-error"
    assert alert["rule"] == "R15" and alert["reason"].startswith("dealer error")
    assert alert["source"] == "cmd/decision"
    assert alert["input"] == {"type": "decision", "seat": 2, "action": "double"}
    assert payload(rows[1])["ok"] is False and payload(rows[1])["rule"] == "R15"
    assert table.state == before and table.seq == seq + 3  # alert, reply, alerts/open
    # a card drawn to the hand that must stand is the same dealer error (R15)
    assert_rejected(table, cards("2h")[0], rule="R15", kind="dealer-error")
    # a refusal the rules do not call a dealer error keeps kind "rejected": a split of no pair
    # (R16), rescue at a Pure 21.5 table (R20), insurance without an ace up (R17)
    assert_rejected(table, decide(2, "split"), rule="R16")
    assert_rejected(table, decide(2, "rescue"), rule="R20")
    assert_rejected(table, decide(2, "insurance"), rule="R17")


def test_a_card_to_a_doubled_hand_is_a_dealer_error_R16(tmp_path: Path) -> None:
    # Spanish without double-double: a double takes one card
    # (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender"), then
    # the player stands or rescues (R20): a second card for it is drawn when no hand may draw.
    # s2 5h 6s = 11 doubles for 5, takes 2c: 13; up 7d, hole 9c
    events = [bank(1, "500"), wager(2, "base", "20"), CLOSE, *cards("5h 7d 6s 9c")]
    events += [decide(2, "double", amount="5"), *cards("2c")]
    table, _ = play(spanish_cfg(tmp_path, double_double=False), events)
    assert state_of(table)["legal"] == ["stand", "rescue"]
    assert_rejected(table, cards("3d")[0], rule="R16", reason_has="one card", kind="dealer-error")


# -- insurance and even money (R17) ----------------------------------------------------------------


def test_insurance_pays_2_to_1_and_even_money_parts_are_separate_R17(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "20"), wager(3, "base", "10"), CLOSE]
    # s2 9c 8c = 17, s3 Ac Kc pure; up Ah: insurance is offered before the peek
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("9c Ac Ah 8c Kc Qh")])
    assert state_of(table)["phase"] == "insurance"
    feed(table, decide(2, "insurance"))  # half of 20 = 10
    rows = feed(table, decide(3, "even-money"))  # insurance of 5; every hand answered: peek
    result = result_of(rows)  # hole Qh: the player-dealer has a Pure 21.5
    # hole Qh = 12: counted seats 2..7 then 2..7: 12th is seat 7 -> first with a wager: 2.
    # Insurance first (R17): s2 10 wins 20, s3 5 wins 10; then s2's 17 loses 20, s3's pure
    # pushes against the pure (R11): s2 nets 0, s3 nets +10 (even money)
    assert nets(result) == [
        (2, "p2", "insurance", "win", D(20)),
        (3, "p3", "insurance", "win", D(10)),
        (2, "p2", "base", "lose", D(-20)),
        (3, "p3", "base", "push", D(0)),
    ]
    assert [s.get("even_money") for s in result["settlements"][:2]] == [False, True]
    assert result["fees"][0]["total_action"] == "30.00"  # never the insurance (R4)


def test_even_money_at_6_to_5_nets_seven_tenths_when_no_pure_R17(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(3, "base", "10"), CLOSE]
    # s3 Ac Kc pure; up Ah, hole 7d (no pure; soft 18 stands): even money is an insurance of 5
    # that loses, and the pure is paid 6 to 5 = 12: 12 - 5 = +7 (R17 "nets +0.7x"). The one
    # hand has answered the offer, so it closes without bets.close.
    events += [*cards("Ac Ah Kc 7d"), decide(3, "even-money")]
    _table, rows = play(pure_cfg(tmp_path), events)
    result = result_of(rows)
    assert sorted(nets(result)) == [
        (3, "p3", "base", "win", D(12)),
        (3, "p3", "insurance", "lose", D(-5)),
    ]


@pytest.mark.parametrize(
    ("hole", "parts"),
    [
        # no player-dealer pure: the insurance of 5 loses, the pure is paid 3 to 2 = 15: +10
        ("7d", [(3, "p3", "base", "win", D(15)), (3, "p3", "insurance", "lose", D(-5))]),
        # a player-dealer pure: the insurance of 5 wins 2 to 1 = 10, the pure pushes: +10
        ("Kd", [(3, "p3", "base", "push", D(0)), (3, "p3", "insurance", "win", D(10))]),
    ],
)
def test_even_money_at_3_to_2_nets_the_wager_either_way_R17(
    tmp_path: Path, hole: str, parts: list[tuple[int, str, str, str, D]]
) -> None:
    # R17: "At 3 to 2 that nets +1x either way"; s3 Ac Kc pure, up Ah, base 10
    events = [bank(1, "500"), wager(3, "base", "10"), CLOSE]
    events += [*cards(f"Ac Ah Kc {hole}"), decide(3, "even-money")]
    _table, rows = play(pure_cfg(tmp_path, pure_pays="3 to 2"), events)
    result = result_of(rows)
    assert sorted(nets(result)) == parts
    assert sum((n for *_, n in parts), D(0)) == D(10)


def test_even_money_refused_where_the_approval_offers_none_R17_000(tmp_path: Path) -> None:
    """Document 000 offers insurance (line 95) but prints no even money
    (003 "Pure 21.5 Blackjack 3 to 2: Insurance and Even Money" and
    004 "Pure 21.5 Blackjack: Double-Down, Split, Surrender, Insurance, and Even Money" do), so its
    table has `even_money = false` (config/pure-21.5-blackjack-000.toml)."""
    events = [bank(1, "500"), wager(3, "base", "10"), CLOSE]
    # s3 Ac Kc: a Pure 21.5; up Ah: insurance is offered (R17); hole 7d
    table, _ = play(pure_cfg(tmp_path, even_money=False), [*events, *cards("Ac Ah Kc 7d")])
    assert state_of(table)["phase"] == "insurance"
    assert state_of(table)["insurance"]["even_money"] == []  # the console offers none
    assert_rejected(table, decide(3, "even-money"), rule="R17", reason_has="no even money")
    # insurance itself is still offered, up to half of 10 = 5; the one hand has answered, so the
    # hole card is checked: 7d is no Pure 21.5, Ah 7d = soft 18 stands (R14)
    rows = feed(table, decide(3, "insurance", amount="5"))
    result = result_of(rows)
    # the pure is paid 6 to 5 on 10 = 12; the insurance of 5 loses; not an even-money wager
    assert sorted(nets(result)) == [
        (3, "p3", "base", "win", D(12)),
        (3, "p3", "insurance", "lose", D(-5)),
    ]
    assert [s.get("even_money") for s in result["settlements"] if s["spot"] == "insurance"] == [
        False
    ]


def test_insurance_refusals_R17(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "20"), wager(3, "base", "10"), CLOSE]
    # s2 9c 8c = 17, s3 9d 8d = 17; up Ah, hole 6s: no Pure 21.5
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("9c 9d Ah 8c 8d 6s")])
    assert_rejected(table, decide(2, "insurance", amount="10.01"), rule="R17", reason_has="half")
    assert_rejected(table, decide(2, "even-money"), rule="R17", reason_has="Pure 21.5")
    # nobody draws before the peek: a card now is a dealer error
    assert_rejected(table, cards("2s")[0], rule="R12", kind="dealer-error")
    assert_rejected(table, stand(2), rule="R17")
    feed(table, decide(2, "insurance", amount="4"))
    assert_rejected(table, decide(2, "insurance"), rule="R17", reason_has="already")
    feed(table, CLOSE)  # seat 3 declines by silence: the offer closes, the hole card is checked
    state = state_of(table)
    assert (state["phase"], state["peeked"], state["turn"]) == (
        "playing",
        True,
        {"seat": 2, "hand": 1},
    )
    assert_rejected(table, decide(3, "insurance"), rule="R17")
    # without an ace up there is no insurance
    events = [bank(1, "500"), wager(2, "base", "20"), CLOSE, *cards("9c 7h 8c 6d")]
    table, _ = play(pure_cfg(tmp_path / "b"), events)
    assert_rejected(table, decide(2, "insurance"), rule="R17", reason_has="ace up")


# -- Red Flex (R18) and Buster (R19) ---------------------------------------------------------------

# The player-dealer's cards in order (up, hole, hits), each hand completed by Chart 1B (R14), and
# the RFB-02 pay on 5 (000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options"): 2 reds 1 to 1, 3:
# 5, 4: 10, 5: 50, 6: 100, 7+: 200.
RED_FLEX = [
    ("2c 2h 2d 2s 9h", 0),  # black first: 2,4,6,8,17
    ("2h 2c 2d 2s 9h", 0),  # broken at the second card: loses
    ("2h 2d 2c 2s 9h", 5),  # broken at the 3rd: run of 2, 1 to 1
    ("2h 2d 2h 2c 9s", 25),  # broken at the 4th: run of 3, 5 to 1
    ("2h 2d 2h 2d 3c 6s", 50),  # broken at the 5th: 2,4,6,8,11,17, run of 4, 10 to 1
    ("2h 2d 2h 2d 3h 5c 3s", 250),  # broken at the 6th: ...,11,16,19, run of 5, 50 to 1
    ("2h 2d 2h 2d 3h 3d 4c", 500),  # broken at the 7th: ...,14,18, run of 6, 100 to 1
    ("2h 2d 2h 2d 3h 3d 2h 2d", 1000),  # eight reds, 2..18: 7 or more pays 200 to 1
]


@pytest.mark.parametrize(("dealer", "net"), RED_FLEX)
def test_red_flex_run_broken_at_each_position_R18(tmp_path: Path, dealer: str, net: int) -> None:
    up, hole, *hits = dealer.split()
    events = [bank(1, "5000"), wager(2, "base", "10"), wager(2, "red-flex", "5"), CLOSE]
    # s2 Tc 8c = 18 stands
    table, rows = play(pure_cfg(tmp_path), [*events, *cards(f"Tc {up} 8c {hole}"), stand(2)])
    for hit in hits:
        rows = feed(table, {"type": "shoe.card", "card": hit})
    red = next(s for s in result_of(rows)["settlements"] if s["spot"] == "red-flex")
    assert D(red["net"]) == (D(net) if net else D(-5))


# Busted player-dealer hands of 3 to 9 cards, Buster option-5 on 5
# (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"):
# 3: 1 to 1, 4: 3, 5: 6, 6: 25, 7: 100, 8 or more: 250.
BUSTER = [
    ("Ts 6h Kd", 5),  # 10, 16, 26
    ("2s 4h Ts Kd", 15),  # 2, 6, 16, 26
    ("2s 2h 3d 9c Kd", 30),  # 2, 4, 7, 16, 26
    ("2s 2h 2d 3c 6s Kd", 125),  # 2, 4, 6, 9, 15, 25
    ("2s 2h 2d 2c 3s 4h Kd", 500),  # 2, 4, 6, 8, 11, 15, 25
    ("2s 2h 2d 2c 3s 3h 2s Kd", 1250),  # 2, ..., 14, 16, 26
    ("2s 2h 2d 2c 3s 3h Ah Ad Kd", 1250),  # 14, 15 (ace 1), 16, 26: nine cards, 8 or more
]


@pytest.mark.parametrize(("dealer", "net"), BUSTER)
def test_buster_pays_by_cards_in_the_busted_hand_3_to_8_or_more_R19(
    tmp_path: Path, dealer: str, net: int
) -> None:
    up, hole, *hits = dealer.split()
    events = [bank(1, "5000"), wager(2, "base", "10"), wager(2, "buster", "5"), CLOSE]
    # s2 Tc 9c = 19 stands (a bonus card up is only checked for a pure: Ts + 6h is none)
    table, rows = play(pure_cfg(tmp_path), [*events, *cards(f"Tc {up} 9c {hole}"), stand(2)])
    for hit in hits:
        rows = feed(table, {"type": "shoe.card", "card": hit})
    buster = next(s for s in result_of(rows)["settlements"] if s["spot"] == "buster")
    assert D(buster["net"]) == D(net)


def test_buster_stays_in_action_when_the_player_busts_R19(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), wager(2, "buster", "5"), CLOSE]
    # s2 Th 6c = 16 hits Kc: bust; up 9d, hole 7c = 16 hits 9s: 25, a three-card bust 1 to 1
    _table, rows = play(pure_cfg(tmp_path), [*events, *cards("Th 9d 6c 7c Kc 9s")])
    assert nets(result_of(rows)) == [
        (2, "p2", "base", "lose", D(-10)),
        (2, "p2", "buster", "win", D(5)),
    ]


# -- Spanish 21.5 (R20) and Match the Dealer (R21) -------------------------------------------------


def test_rescue_after_double_double_takes_back_the_last_doubling_R20(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 5h 6s = 11; up 7d, hole 9c = 16
    events += [*cards("5h 7d 6s 9c"), decide(2, "double"), *cards("2c")]  # 10 more: 13
    table, _ = play(spanish_cfg(tmp_path), events)
    assert state_of(table)["legal"] == ["stand", "double", "rescue"]
    # with double-double there is no doubling for less: the second double is the total, 20
    assert_rejected(table, decide(2, "double", amount="10"), rule="003 line 1928")
    feed(table, decide(2, "double"))  # 20 more: 40 in all
    feed(table, cards("3d")[0])  # 16
    rows = feed(table, decide(2, "rescue"))  # take back the 20, forfeit 10 + 10
    rows += feed(table, cards("Kh")[0])  # the player-dealer 16 hits Kh: 26
    result = result_of(rows)
    assert nets(result) == [(2, "p2", "base", "lose", D(-20))]
    assert result["settlements"][0]["staked"] == "40.00"
    assert result["outcome"]["hands"][0]["doubles"] == ["10.00", "20.00"]


def test_spanish_player_21_beats_player_dealer_21_R20(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 7h 7c = 14 hits 7d -> 21; up 9h, hole 2c = 11 hits Kd -> 21: the player wins
    events += [*cards("7h 9h 7c 2c 7d"), stand(2), *cards("Kd")]
    _table, rows = play(spanish_cfg(tmp_path), events)
    assert nets(result_of(rows)) == [(2, "p2", "base", "win", D(10))]


def test_pure_21_5_player_21_against_21_pushes_R20_is_spanish_only(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    events += [*cards("7h 9h 7c 2c 7d"), stand(2), *cards("Kd")]
    _table, rows = play(pure_cfg(tmp_path), events)
    assert nets(result_of(rows)) == [(2, "p2", "base", "push", D(0))]


def test_spanish_surrender_against_888_still_loses_half_R13(tmp_path: Path) -> None:
    # R13 is shared by Pure Spanish 21.5
    # (003 "Pure Spanish 21.5: How Winners Are Determined and Paid": 888 pushes every busted hand)
    events = [bank(1, "500"), wager(2, "base", "20"), wager(3, "base", "10"), CLOSE]
    # s2 Kh 6c = 16 surrenders; s3 Qs 5d = 15 hits Jc: 25, bust; up 8d, hole 8c; dealer hits 8h
    events += [*cards("Kh Qs 8d 6c 5d 8c"), decide(2, "surrender"), *cards("Jc 8h")]
    _table, rows = play(spanish_cfg(tmp_path), events)
    result = result_of(rows)
    assert result["outcome"]["player_dealer"]["rank"] == "888"
    # from the player-dealer's left (003 "Pure Spanish 21.5: Dealing Procedures and Round of Play"):
    # s2 loses half of 20, s3's bust pushes
    assert nets(result) == [
        (2, "p2", "base", "lose", D(-10)),
        (3, "p3", "base", "push", D(0)),
    ]


def test_spanish_splits_equal_values_and_refuses_a_ten_R20_contract_1(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 Kc Qd: two bonus cards of equal value; up 6h, hole 5h
    table, _ = play(spanish_cfg(tmp_path), [*events, *cards("Kc 6h Qd 5h")])
    assert "split" in state_of(table)["legal"]
    assert_rejected(table, cards("Td")[0], rule="contract 1")  # no tens in a Spanish deck
    feed(table, decide(2, "split"))
    assert len(state_of(table)["hands"]) == 2


def test_spanish_without_double_double_doubles_for_less_and_rescues_R20(
    tmp_path: Path,
) -> None:
    events = [bank(1, "500"), wager(2, "base", "20"), CLOSE]
    events += [*cards("5h 7d 6s 9c"), decide(2, "double", amount="5"), *cards("2c")]
    table, _ = play(spanish_cfg(tmp_path, double_double=False), events)
    assert state_of(table)["legal"] == ["stand", "rescue"]  # no second double
    rows = feed(table, decide(2, "rescue"))  # takes back the 5, forfeits the 20
    rows += feed(table, cards("Kh")[0])  # player-dealer 16 hits: 26
    assert nets(result_of(rows)) == [(2, "p2", "base", "lose", D(-20))]


def test_match_the_dealer_settles_on_the_initial_two_cards_R21(tmp_path: Path) -> None:
    events = [
        bank(1, "1000"),
        wager(2, "base", "10"),
        wager(2, "match-dealer", "5"),
        wager(3, "base", "10"),
        wager(3, "match-dealer", "5"),
        wager(4, "base", "10"),
        wager(4, "match-dealer", "5"),
        CLOSE,
    ]
    # s2 7h 7h (two suited matches of the up 7h), s3 7h 7c (one suited, one unsuited), s4 Kc 2c
    # (no match); up 7h, hole Qs = 17
    events += cards("7h 7h Kc 7h 7h 7c 2c Qs")
    events += [stand(2), stand(3), *cards("5d"), stand(4)]  # s4 12 hits 5d: 17
    _table, rows = play(spanish_cfg(tmp_path), events)
    result = result_of(rows)
    match = {s["seat"]: D(s["net"]) for s in result["settlements"] if s["spot"] == "match-dealer"}
    # MATCH-003: 2 suited 18 to 1 = 90; 1 suited + 1 unsuited 13 to 1 = 65; no match loses 5
    assert match == {2: D(90), 3: D(65), 4: D(-5)}
    # seat by seat (003 "Pure Spanish 21.5: Match the Dealer Up Card Bonus Bet"): base, then Match
    # the Dealer, from the player-dealer's left
    assert [(s["seat"], s["spot"]) for s in result["settlements"]] == [
        (2, "base"),
        (2, "match-dealer"),
        (3, "base"),
        (3, "match-dealer"),
        (4, "base"),
        (4, "match-dealer"),
    ]


def test_match_the_dealer_after_a_split_settles_on_the_initial_two_cards_R21(
    tmp_path: Path,
) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), wager(2, "match-dealer", "5"), CLOSE]
    # s2 7h 7c; up 7h, hole 9s = 16 (no peek on a 7). s2 splits (R20: equal values): hand 1
    # [7h Qs] = 17, hand 2 [7c Jd] = 17, both stand (Spanish Chart 1A: must stand on hard 17,
    # R15); the player-dealer 16 hits 8c: 24, bust
    events += [*cards("7h 7h 7c 9s"), decide(2, "split"), *cards("Qs"), stand(2)]
    events += [*cards("Jd"), stand(2, hand=2), *cards("8c")]
    _table, rows = play(spanish_cfg(tmp_path), events)
    result = result_of(rows)
    # R21 on the initial 7h 7c against the up 7h: 7h is a suited match, 7c an unsuited one:
    # "1 suited + 1 unsuited" 13 to 1 on 5 = 65 (MATCH-003,
    # 003 "Pure Spanish 21.5: Match the Dealer Card Bonus Bet Pay Tables"). (Hand 1 alone would be 1
    # suited, 9 to 1; hand 2 alone 1 unsuited, 4 to 1.) Both 17s beat the bust: +10 each.
    assert result["outcome"]["match_dealer"] == [
        {"seat": 2, "cards": ["7h", "7c"], "category": "1-suited-1-unsuited"}
    ]
    assert nets(result) == [
        (2, "p2", "base", "win", D(10)),
        (2, "p2", "base", "win", D(10)),
        (2, "p2", "match-dealer", "win", D(65)),
    ]
    assert bank_change(result) == D(-85) and conserved(result)


# -- the bank (R1), the action button (R2), settlement order (R3), backline (000, 003, 004) --------


def test_bank_exhausted_part_way_action_button_on_an_empty_seat_R1_R2(tmp_path: Path) -> None:
    events = [
        bank(4, "30"),
        wager(1, "base", "20"),
        wager(2, "base", "20"),
        wager(6, "base", "20"),
        CLOSE,
    ]
    # from seat 4's left: 5, 6, 7, 1, 2, 3 -> hands at 6, 1, 2; up Tc (peek: no pure), hole 4d
    events += cards("Kc Ks Kh Tc Qc Qs Qh 4d")
    events += [stand(6), stand(1), stand(2), *cards("Ts")]  # 20s stand; dealer 14 + 10 = 24
    _table, rows = play(pure_cfg(tmp_path), events)
    result = result_of(rows)
    # R2: hole 4d counts 4 seats from seat 1 skipping seat 4: 1, 2, 3, 5 -> seat 5, empty;
    # the next seat clockwise with a wager is 6. Every 20 wins 20 against a bank of 30 (R1):
    # seat 6 paid 20 (10 left), seat 1 paid 10 of 20 (partial), seat 2 returned
    assert result["action_seat"] == 6
    assert nets(result) == [
        (6, "p6", "base", "win", D(20)),
        (1, "p1", "base", "partial", D(10)),
        (2, "p2", "base", "returned", D(0)),
    ]
    assert result["bank"]["end"] == "0.00" and conserved(result)


def test_settlement_by_spot_from_player_dealer_left_R2_R3_003(tmp_path: Path) -> None:
    cfg = pure_cfg(
        tmp_path,
        settlement_order="by-spot",
        action_start="player-dealer-left",
        red_flex_table="RFB-12",
        buster_table="option-1",
    )
    events = [
        bank(3, "500"),
        wager(1, "base", "10"),
        wager(1, "buster", "5"),
        wager(5, "base", "10"),
        wager(5, "red-flex", "5"),
        CLOSE,
    ]
    # from seat 3's left: 4..7, 1, 2 -> hands at 5 and 1; s5 Th 8h, s1 Tc 9c; up 9d, hole 8d
    events += [*cards("Th Tc 9d 8h 9c 8d"), stand(5), stand(1)]
    _table, rows = play(cfg, events)
    result = result_of(rows)
    # 003 "Pure 21.5 Blackjack 3 to 2: Round of Play": all game wagers, then all Red Flex, then all
    # Buster, from seat 4 clockwise.
    # s5 18 vs 17 wins 10; s1 19 wins 10; Red Flex 9d 8d both red, run of 2: RFB-12 pays 2 to 1
    # = 10; Buster: 17 is no bust, loses 5
    assert nets(result) == [
        (5, "p5", "base", "win", D(10)),
        (1, "p1", "base", "win", D(10)),
        (5, "p5", "red-flex", "win", D(10)),
        (1, "p1", "buster", "lose", D(-5)),
    ]
    assert result["action_seat"] == 5


def test_backline_rides_the_seat_first_hand_undoubled_000_line_109(tmp_path: Path) -> None:
    events = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(2, "base", "25", player="p9"),  # a backline bettor behind seat 2
        CLOSE,
    ]
    # s2 5h 6s = 11 doubles (its own 10), 9c -> 20; up 7d, hole Th = 17
    events += [*cards("5h 7d 6s Th"), decide(2, "double"), *cards("9c")]
    _table, rows = play(pure_cfg(tmp_path), events)
    result = result_of(rows)
    # p2's 20 (10 + double 10) wins 20; p9's 25 wins 25 on the same hand
    assert nets(result) == [
        (2, "p2", "base", "win", D(20)),
        (2, "p9", "base", "win", D(25)),
    ]


def test_seated_player_plays_the_hand_whatever_the_wager_order_backline_000_line_109(
    tmp_path: Path,
) -> None:
    """A backline wager (contract 2: a `player` other than the seat's own) rides behind the seated
    player's hand (004 "Pure 21.5 Blackjack: How Winners are Determined and Paid": "to the right of
    the seated players' wagers"); the seated player makes the decisions and puts up the double, even
    when the backline bettor bet first."""
    events = [
        bank(1, "500"),
        wager(2, "base", "25", player="p9"),  # the backline bettor is quicker than the seat
        wager(2, "base", "10"),  # p2, the seated player
        CLOSE,
    ]
    # s2 5h 6s = 11; up 7d, hole Th = 17
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("5h 7d 6s Th")])
    hand = state_of(table)["hands"][0]
    assert (hand["player"], hand["stake"]) == ("p2", "10.00")
    # a double without an amount is the seated player's original wager, 10
    # (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")
    rows = feed(table, decide(2, "double"))
    assert payload(rows[0])["amount"] == "10.00"
    rows = feed(table, cards("9c")[0])  # 20 against 17
    # p2's 10 + 10 wins 20; p9's 25 rides undoubled and wins 25
    assert nets(result_of(rows)) == [
        (2, "p2", "base", "win", D(20)),
        (2, "p9", "base", "win", D(25)),
    ]


def test_backline_rides_only_the_first_hand_when_the_seat_splits_000_line_109(
    tmp_path: Path,
) -> None:
    """docs/games/blackjack.md: a backline base wager "rides the seat's first hand at its own
    amount, without its doubles or splits" (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or
    Pushes", 004 "Pure 21.5 Blackjack: How Winners are Determined and Paid": behind the seated
    player's wager)."""
    events = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(2, "base", "25", player="p9"),
        CLOSE,
    ]
    # s2 8s 8h; up 6c, hole Tc = 16 (no peek on a 6). p2 splits: hand 1 [8s 9c] = 17 stands;
    # hand 2 [8h 3d] = hard 11 must hit (R15), Kd: 21, stands. The player-dealer 16 hits 2d: 18.
    events += [*cards("8s 6c 8h Tc"), decide(2, "split"), *cards("9c"), stand(2)]
    events += [*cards("3d Kd"), stand(2, hand=2), *cards("2d")]
    _table, rows = play(pure_cfg(tmp_path), events)
    result = result_of(rows)
    # hand 1: 17 loses to 18: p2 -10 and p9's 25 riding it -25; hand 2: 21 beats 18: p2 +10 and
    # nothing for p9 (its wager was not split)
    assert nets(result) == [
        (2, "p2", "base", "lose", D(-10)),
        (2, "p9", "base", "lose", D(-25)),
        (2, "p2", "base", "win", D(10)),
    ]
    assert [s["hand"] for s in result["settlements"]] == [1, 1, 2]
    assert bank_change(result) == D(25) and conserved(result)
    # R4: total action is the 10 and the 25 placed before the deal, never the split's 10
    assert result["fees"][0]["total_action"] == "35.00"


def test_insurance_is_the_seated_players_half_not_the_backline_R17(tmp_path: Path) -> None:
    events = [
        bank(1, "500"),
        wager(2, "base", "40", player="p9"),
        wager(2, "base", "20"),
        CLOSE,
    ]
    # s2 9c 8c = 17; up Ah: insurance is offered to the seated player, up to half of 20 = 10
    table, _ = play(pure_cfg(tmp_path), [*events, *cards("9c Ah 8c 6s")])
    assert_rejected(table, decide(2, "insurance", amount="20"), rule="R17", reason_has="half")
    rows = feed(table, decide(2, "insurance"))
    assert (payload(rows[0])["player"], payload(rows[0])["amount"]) == ("p2", "10.00")


def test_backline_only_where_the_approval_allows_it_003_line_461(tmp_path: Path) -> None:
    cfg = pure_cfg(tmp_path, backline_spots=["base"])
    table, _ = play(cfg, [bank(1, "500"), wager(2, "base", "10", player="p9")])
    assert_rejected(
        table, wager(2, "red-flex", "5", player="p9"), rule="config game.backline_spots"
    )


# -- wagers and bad input --------------------------------------------------------------------------


def test_wager_refusals_000_line_129_R1_R17(tmp_path: Path) -> None:
    table, _ = play(pure_cfg(tmp_path), [bank(1, "500")])
    assert_rejected(table, wager(2, "buster", "5"), rule="000 line 129")
    assert_rejected(table, wager(2, "insurance", "5"), rule="R17")
    assert_rejected(table, wager(1, "base", "5"), rule="R1")
    assert_rejected(table, wager(2, "match-dealer", "5"), rule="config game")
    feed(table, wager(2, "base", "10"))
    feed(table, CLOSE)
    assert_rejected(table, wager(3, "base", "10"), rule="000 line 130")


def test_bets_close_needs_a_base_wager_000_line_53(tmp_path: Path) -> None:
    table, _ = play(pure_cfg(tmp_path), [bank(1, "500")])
    assert_rejected(table, CLOSE, rule="000 line 53")
    # a card with no hand to deal to: the dealer drew when no hand may draw
    assert_rejected(table, cards("2h")[0], rule="000 line 53", kind="dealer-error")


def test_a_card_the_shoe_cannot_hold_is_refused_without_naming_it_contract_1(
    tmp_path: Path,
) -> None:
    # one deck: the As once per shoe
    cfg = pure_cfg(tmp_path, decks=1)
    table, _ = play(cfg, [SHOE_NEW, bank(1, "500"), wager(2, "base", "10"), *cards("As")])
    reason = assert_rejected(table, cards("As")[0], rule="contract 1")
    assert "As" not in reason
    assert_rejected(table, {"type": "shoe.card", "card": "JKR"}, rule="contract 1")


def test_a_card_when_no_hand_may_draw_is_refused_R15_R16(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE]
    # s2 5h 6s doubles: one card (9c), then the hand is complete; next is the player-dealer
    events += [*cards("5h 7d 6s Th"), decide(2, "double"), *cards("9c")]
    table, _rows = play(pure_cfg(tmp_path), events)
    assert state_of(table)["round"] == 2  # dealer 17 stood: the round is over
    events = [bank(1, "500"), wager(2, "base", "10"), CLOSE, *cards("Tc 7d 9c Th")]
    table, _ = play(pure_cfg(tmp_path / "b"), events)  # s2 19 must stand
    assert_rejected(table, cards("2h")[0], rule="R15", kind="dealer-error")


def test_void_returns_every_wager_with_doubles_and_keeps_rotation_R5(tmp_path: Path) -> None:
    events = [bank(1, "500"), wager(2, "base", "10"), wager(2, "buster", "5"), CLOSE]
    events += [*cards("5h 7d 6s Th"), decide(2, "double", amount="10")]
    table, _ = play(pure_cfg(tmp_path), events)
    rows = feed(table, {"type": "round.void", "reason": "misdeal"})
    result = result_of(rows)
    # the hand's 10 + 10 double, and the Buster 5: all returned, no fee; the hole card Th stays
    # hidden (only the up card is listed)
    assert [(s["spot"], s["amount"], s["status"]) for s in result["settlements"]] == [
        ("base", "20.00", "returned"),
        ("buster", "5.00", "returned"),
    ]
    assert result["fees"] == []
    assert "Th" not in json.dumps(result)
    assert state_of(table)["bank_offer_seat"] is None  # no finished round: rotation unchanged


def test_void_with_no_round_in_progress_is_refused_naming_the_rule_events_md(
    tmp_path: Path,
) -> None:
    # docs/events.md: `round.void` "voids the round in progress"; between rounds there is none
    table, _ = play(pure_cfg(tmp_path), [])
    assert_rejected(table, {"type": "round.void", "reason": "misdeal"}, rule="round.void")
