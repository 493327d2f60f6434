"""A whole poker table end to end ("Done when"): the poker-table emulator on a real pty,
the real PokerTableDriver, the daemon in-process, a real Mosquitto and MQTT clients. A $4-$8
fixed-limit Texas Hold'em table under document 004 plays a session of three hands: the first
hand names the button and it moves clockwise after; the short stack goes all-in so a side pot
forms; a tie splits a pot with an odd chip; a six-player hand pays the higher collection; every hand
reaches the showdown, where the cards the table read speak (003 "Texas Hold-Em (High)" rule 5).

The dealer's console sends `cmd/seat.take`, `cmd/hand.start` and `cmd/decision`; every card comes
from the table's antennas: the hole cards to the seat zones (one at a time, clockwise from the
button's left, twice around), a burn to the muck before each street, the flop, turn and river to
the board, a folded hand to the muck. Every amount below is worked by hand in the comments and
compared with the `round/result` the floor received.

A third client subscribes to `#` on the broker for the whole session. The broker is open
(`mosquitto_factory(locked=False)`): on a locked one no user may read every topic, and the point is
to see every topic anyone publishes. No hole card of a hand not shown at the showdown, and no
burn, appears in any payload on any topic; the hole cards of the hands shown appear only in their
hand's `round/result` `shown` (R46), never in an `event`, a `state` or a reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablectl_drivers.poker_table.frames import BOARD, MUCK, seat_zone
from tablectl_drivers.sim.poker_table import SimulatedPokerTable
from tests.conftest import MosquittoFactory
from tests.integration.floor import (
    Payload,
    assert_no_refusals,
    latest_state,
    round_result,
    running_table,
    wait_subscribed,
)
from tests.integration.harness import Console

pytestmark = pytest.mark.integration

BASE = "tablectl/cardroom-1/holdem-04"


def holdem_004_config(folder: Path, *, reader_port: str, mqtt_port: int) -> Path:
    """config/texas-holdem-004.toml with the emulator's pty, the test broker and a journal in
    `folder`: 004, $4-$8 fixed limit, blinds $2/$4, $1 chips, collection options 1 and 2."""
    path = folder / "texas-holdem-004.toml"
    path.write_text(
        f"""site = "cardroom-1"
table = "holdem-04"
log_level = "debug"

[game]
id = "texas-holdem"
document = "004"
structure = "fixed-limit"
stakes = ["4", "8"]
blinds = ["2", "4"]
chip = "1"

[game.collection]
options = [1, 2]

[seats]
count = 9

[[devices]]
name = "reader"
driver = "poker-table"
port = "{reader_port}"
baud = 9600
emulator = true

[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5

[journal]
path = "{folder}/journal.db"
"""
    )
    return path


class EveryTopic(Console):
    """A subscriber on `#`: every message anyone publishes on the broker, whatever its topic."""

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, *_: Any) -> None:
        if not reason.is_failure:
            client.subscribe("#", qos=1)


# -- the cards ---------------------------------------------------------------------------------
#
# Every card of the session once: no hole card or burn of any hand is a board card of any hand,
# so a hole card or burn named in any payload is that card leaking, never a board card's echo.

HOLES: dict[int, dict[int, tuple[str, str]]] = {
    1: {1: ("3d", "3s"), 4: ("8h", "6h"), 7: ("Kd", "Qc")},
    2: {4: ("Tc", "4d"), 7: ("Qd", "Td"), 1: ("Qh", "9c")},
    3: {
        5: ("8s", "2c"),
        7: ("Ac", "Jh"),
        8: ("7c", "3c"),
        9: ("6s", "5s"),
        1: ("Ks", "Jd"),
        4: ("Th", "7h"),
    },
}
BOARDS = {
    1: (("Kc", "8d", "3h"), "2s", "9s"),
    2: (("Ah", "7s", "7d"), "Jc", "2h"),
    3: (("Js", "9h", "4s"), "Kh", "2d"),
}
BURNS = {1: ("4c", "5c", "6c"), 2: ("5d", "6d", "8c"), 3: ("4h", "5h", "9d")}
SHOWN = {1: (1, 7), 2: (7, 1), 3: (1,)}  # the seats whose hands win a contested pot (R46)

CARD = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][shdc])(?![0-9A-Za-z])")


def cards_named(value: object) -> set[str]:
    """Every card a payload names anywhere, inside any string, key or value."""
    text = value if isinstance(value, str) else json.dumps(value)
    return set(CARD.findall(text))


# -- the dealer --------------------------------------------------------------------------------


def act(console: Console, seat: int, action: str, amount: str | None = None) -> None:
    """`cmd/decision`, accepted."""
    body: dict[str, Any] = {"seat": seat, "action": action}
    if amount is not None:
        body["amount"] = amount
    console.ok("decision", body)


def wait_state(floor: Console, what: str, ok: Callable[[Payload], bool]) -> Payload:
    """Wait for the newest `state` to satisfy `ok`; return it."""
    floor.wait_for(what, lambda: ok(latest_state(floor)))
    return latest_state(floor)


def in_hand(state: Payload) -> Payload:
    hand: Payload | None = state.get("hand")
    return hand or {}


def deal_hole_cards(reader: SimulatedPokerTable, floor: Console, number: int) -> Payload:
    """Hand `number`'s hole cards onto the seat antennas one at a time, clockwise from the
    button's left, twice around (004 "Texas Hold'em: Action and Distribution of Cards"); wait
    until the table has every seat's two."""
    holes = HOLES[number]
    for i in range(2):
        for seat, cards in holes.items():  # listed in dealing order
            reader.put(seat_zone(seat), cards[i])
    return wait_state(
        floor,
        f"hand {number}'s hole cards",
        lambda st: (
            in_hand(st).get("round") == number
            and all(s["cards_in"] for s in st["seats"] if s["seat"] in holes)
        ),
    )


def turn_up(
    reader: SimulatedPokerTable, floor: Console, number: int, street: int, turn: int
) -> Payload:
    """Burn one to the muck, then the street's cards to the board (the flop three, the turn and
    the river one); wait until the table shows them with `turn` to act."""
    reader.put(MUCK, BURNS[number][street])
    flop, turn_card, river = BOARDS[number]
    street_cards = (flop, (turn_card,), (river,))[street]
    for card in street_cards:
        reader.put(BOARD, card)
    board = [*flop, turn_card, river][: 3 + street]
    name = ("flop", "turn", "river")[street]
    return wait_state(
        floor,
        f"hand {number}'s {name}",
        lambda st: in_hand(st).get("board") == board and in_hand(st).get("turn") == turn,
    )


def start_hand(console: Console, floor: Console, number: int, body: dict[str, Any]) -> Payload:
    """`cmd/hand.start` (the first names the button, the later ones do not); the `state` that
    shows hand `number` in play."""
    console.ok("hand.start", body)
    return wait_state(floor, f"hand {number}", lambda st: in_hand(st).get("round") == number)


def pots(result: Payload) -> list[tuple[str, list[int], list[int], dict[int, str]]]:
    """(amount, eligible, winners, paid) of each pot, the main pot first."""
    return [
        (p["amount"], p["eligible"], p["high"], {x["seat"]: x["amount"] for x in p["paid"]})
        for p in result["pots"]
    ]


def stacks(result: Payload) -> dict[int, str]:
    return {s["seat"]: s["stack"] for s in result["stacks"]}


def test_limit_holdem_session_button_side_pot_fee_and_no_hole_card_on_any_topic_R41_R44(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """Seats 1 ($10, the short stack), 4 ($100) and 7 ($100); seats 5, 8 and 9 join for hand 3.

    Hand 1, button on seat 7 (named: the high card draw, 004 "Omaha High/Low Split: Dealing
    Procedures and Round of Play"). Clockwise from the button's left: seat 1 posts the $2 small
    blind, seat 4 the $4 big blind, seat 7 acts first (004 "Texas Hold'em: Action and
    Distribution of Cards").
      preflop: 7 raises to 8; 1 all-in for 10 (2 + 8: short of the full raise to 12, R43: it
               reopens nothing); 4 calls 10; 7 calls the 2 more (it may not re-raise: R43).
               In: 1 10 (all-in), 4 10, 7 10.
      flop ($4 bets): 4 bets 4, 7 raises to 8, 4 calls.      4 and 7 in 18 each.
      turn ($8 bets): 4 checks, 7 bets 8, 4 calls.            4 and 7 in 26 each.
      river: 4 checks, 7 checks.
    Pots (R42, each settled on its own): main 3 x 10 = 30, seats 1, 4, 7; side 2 x 16 = 32, seats
    4 and 7. Fee: 3 dealt in, the flop dealt: 004 "Texas Hold'em: Collection Fee Schedule", $4-$8
    option 2 "5 or less": $3, from the main pot (R44): 30 - 3 = 27.
    Board Kc 8d 3h 2s 9s: seat 1 3d 3s, three threes; seat 7 Kd Qc, kings; seat 4 8h 6h, eights.
    Main 27 to seat 1; side 32 to seat 7. Stacks: 1: 0 + 27 = 27; 4: 100 - 26 = 74;
    7: 100 - 26 + 32 = 106 (207 = 210 - 3). Shown: seats 1 and 7; seat 4's hand is mucked.

    Hand 2: the button moves clockwise to the next seat with chips: past seat 7, around to seat 1.
    Seat 4 small blind, seat 7 big blind, seat 1 first.
      preflop: 1 calls 4, 4 completes (+2), 7 checks.          12
      flop: 4 bets 4, 7 calls, 1 calls.                        24
      turn and river checked around.
    Fee $3 (3 dealt in, option 2): 24 - 3 = 21, seats 1, 4, 7.
    Board Ah 7s 7d Jc 2h: seats 7 (Qd Td) and 1 (Qh 9c) both play 7-7-A-Q-J; seat 4 (Tc 4d)
    7-7-A-J-T loses to the queen. 21 split two ways in $1 chips: 10 each, and the odd chip to the
    winner closest to the button's left (R41; 004: seat 1's left is seat 4, then seat 7): seat 7
    11, seat 1 10. Stacks: 1: 27 - 8 + 10 = 29; 4: 74 - 8 = 66; 7: 106 - 8 + 11 = 109 (204).

    Hand 3: seats 5 ($50), 8 ($60) and 9 ($40) sit down; the button moves from seat 1 to seat 4.
    Seat 5 small blind, seat 7 big blind; seats 8 and 9, new to the game and past the blinds,
    each post a $4 big blind, live (the card rooms' usual rule: docs/games/poker-room.md);
    seat 8 first; six dealt in.
      preflop: 8 folds, 9 folds (their 4 each stay in), 1 raises to 8, 4 calls 8, 5 folds (its 2
               stays in), 7 calls.   2 + 4 + 4 + 3 x 8 = 34
      flop: 7 checks, 1 bets 4, 4 folds, 7 calls.              42
      turn: 7 checks, 1 checks. river: 7 bets 8, 1 calls.      58
    One pot, seats 1 and 7 (every level's contenders the same). Fee: 6 dealt in, the flop dealt:
    004 "Texas Hold'em: Collection Fee Schedule", $4-$8 option 1 "6-9": $4 (the rate by the
    players dealt in, not by those left: R44). 58 - 4 = 54.
    Board Js 9h 4s Kh 2d: seat 1 Ks Jd, kings and jacks; seat 7 Ac Jh, jacks. 54 to seat 1.
    Stacks: 1: 29 - 20 + 54 = 63; 4: 66 - 8 = 58; 5: 50 - 2 = 48; 7: 109 - 20 = 89; 8: 56;
    9: 36 (350 = 354 - 4). Collected in the session: 3 + 3 + 4 = 10; 360 in chips = 350 + 10.
    """
    broker = mosquitto_factory(locked=False)  # see the module's docstring: `#` sees everything
    everything = EveryTopic(broker.port, BASE, client_id="it-everything")
    try:
        wait_subscribed(everything)
        with SimulatedPokerTable(seats=10) as reader:
            cfg = holdem_004_config(tmp_path, reader_port=reader.port, mqtt_port=broker.port)
            with running_table(cfg, broker, BASE, ["reader"]) as (console, floor):
                for seat, stack in ((1, "10"), (4, "100"), (7, "100")):
                    console.ok("seat.take", {"seat": seat, "stack": stack})

                # -- hand 1: button 7; the short stack all-in, a side pot ----------------------
                state = start_hand(console, floor, 1, {"button": 7})
                assert state["button"] == 7
                assert in_hand(state)["turn"] == 7
                blinds = {s["seat"]: s["in_round"] for s in state["seats"]}
                assert blinds == {1: "2.00", 4: "4.00", 7: "0.00"}
                reader.new_hand()
                deal_hole_cards(reader, floor, 1)
                act(console, 7, "raise", "8")
                act(console, 1, "all-in")
                act(console, 4, "call")
                state = wait_state(floor, "seat 7's turn", lambda st: in_hand(st)["turn"] == 7)
                # the short all-in reopened nothing (R43): seat 7 owes 2 and may only call or fold
                assert (in_hand(state)["to_call"], in_hand(state)["min_to"]) == ("2.00", None)
                act(console, 7, "call")
                turn_up(reader, floor, 1, 0, turn=4)
                act(console, 4, "bet", "4")
                act(console, 7, "raise", "8")
                act(console, 4, "call")
                state = turn_up(reader, floor, 1, 1, turn=4)
                # the rounds over so far: the main pot of the all-in and the side pot above it
                assert in_hand(state)["pots"] == [
                    {"amount": "30.00", "eligible": [1, 4, 7]},
                    {"amount": "16.00", "eligible": [4, 7]},
                ]
                act(console, 4, "check")
                act(console, 7, "bet", "8")
                act(console, 4, "call")
                turn_up(reader, floor, 1, 2, turn=4)
                act(console, 4, "check")
                act(console, 7, "check")  # the river's betting is over: the cards speak
                first = round_result(floor, 1)
                reader.collect()

                # -- hand 2: the button moves to seat 1; a tie and the odd chip ---------------
                state = start_hand(console, floor, 2, {})
                assert state["button"] == 1
                assert in_hand(state)["turn"] == 1
                reader.new_hand()
                deal_hole_cards(reader, floor, 2)
                act(console, 1, "call")
                act(console, 4, "call")
                act(console, 7, "check")
                turn_up(reader, floor, 2, 0, turn=4)
                act(console, 4, "bet", "4")
                act(console, 7, "call")
                act(console, 1, "call")
                for street in (1, 2):
                    turn_up(reader, floor, 2, street, turn=4)
                    for seat in (4, 7, 1):
                        act(console, seat, "check")
                second = round_result(floor, 2)
                reader.collect()

                # -- hand 3: three more players, the button to seat 4, six dealt in -----------
                for seat, stack in ((5, "50"), (8, "60"), (9, "40")):
                    console.ok("seat.take", {"seat": seat, "stack": stack})
                state = start_hand(console, floor, 3, {})
                assert state["button"] == 4
                assert in_hand(state)["turn"] == 8
                reader.new_hand()
                deal_hole_cards(reader, floor, 3)
                for seat in (8, 9):
                    act(console, seat, "fold")
                    reader.fold(seat)  # the folded hand goes to the muck
                act(console, 1, "raise", "8")
                act(console, 4, "call")
                act(console, 5, "fold")
                reader.fold(5)
                act(console, 7, "call")
                turn_up(reader, floor, 3, 0, turn=7)
                act(console, 7, "check")
                act(console, 1, "bet", "4")
                act(console, 4, "fold")
                reader.fold(4)
                act(console, 7, "call")
                turn_up(reader, floor, 3, 1, turn=7)
                act(console, 7, "check")
                act(console, 1, "check")
                turn_up(reader, floor, 3, 2, turn=7)
                act(console, 7, "bet", "8")
                act(console, 1, "call")
                third = round_result(floor, 3)
                reader.collect()
                after = wait_state(floor, "the hand's end", lambda st: st.get("hand") is None)
                assert after["button"] == 4
                assert_no_refusals(floor)
                last = max(
                    m.payload["seq"]
                    for m in floor.messages
                    if isinstance(m.payload, dict) and "seq" in m.payload
                )
                everything.wait_for(
                    "every message at the `#` subscriber",
                    lambda: any(
                        isinstance(m.payload, dict) and m.payload.get("seq", 0) >= last
                        for m in everything.messages
                    ),
                )
    finally:
        everything.close()

    # -- hand 1 -------------------------------------------------------------------------------
    assert first["button"] == 7 and first["showdown"] is True and first["declared"] is False
    assert first["board"] == ["Kc", "8d", "3h", "2s", "9s"]
    assert pots(first) == [
        ("27.00", [1, 4, 7], [1], {1: "27.00"}),
        ("32.00", [4, 7], [7], {7: "32.00"}),
    ]
    assert first["fee"] == {"amount": "3.00", "players": 3, "modified": False}
    assert first["returned"] == []
    # every placement of the hand reached it: 6 hole cards, 3 burns, 5 board cards
    assert first["positions"] == [{"device": "reader", "run": "1", "pos": list(range(1, 15))}]
    assert stacks(first) == {1: "27.00", 4: "74.00", 7: "106.00"}
    assert [(h["seat"], h["cards"], h["high"]["name"]) for h in first["shown"]] == [
        (1, ["3d", "3s"], "three-of-a-kind"),
        (7, ["Kd", "Qc"], "pair"),
    ]

    # -- hand 2 -------------------------------------------------------------------------------
    assert second["button"] == 1 and second["showdown"] is True
    assert pots(second) == [("21.00", [1, 4, 7], [7, 1], {7: "11.00", 1: "10.00"})]
    assert second["fee"] == {"amount": "3.00", "players": 3, "modified": False}
    assert stacks(second) == {1: "29.00", 4: "66.00", 7: "109.00"}
    assert [(h["seat"], h["cards"]) for h in second["shown"]] == [
        (7, ["Qd", "Td"]),
        (1, ["Qh", "9c"]),
    ]

    # -- hand 3 -------------------------------------------------------------------------------
    assert third["button"] == 4 and third["showdown"] is True
    assert pots(third) == [("54.00", [1, 7], [1], {1: "54.00"})]
    assert third["fee"] == {"amount": "4.00", "players": 6, "modified": False}
    # 12 hole cards, 3 burns, 5 board cards and the 8 cards of the four folded hands in the muck
    assert third["positions"] == [{"device": "reader", "run": "3", "pos": list(range(1, 29))}]
    assert stacks(third) == {
        1: "63.00",
        4: "58.00",
        5: "48.00",
        7: "89.00",
        8: "56.00",
        9: "36.00",
    }
    assert [(h["seat"], h["cards"], h["high"]["name"]) for h in third["shown"]] == [
        (1, ["Ks", "Jd"], "two-pair"),
    ]
    assert [s["stack"] for s in after["seats"]] == [
        "63.00",
        "58.00",
        "48.00",
        "89.00",
        "56.00",
        "36.00",
    ]

    # -- R46 on every topic -------------------------------------------------------------------
    hole = {card for hand in HOLES.values() for cards in hand.values() for card in cards}
    hidden = hole | {card for burns in BURNS.values() for card in burns}
    topics = {m.topic.removeprefix(BASE + "/") for m in everything.messages}
    assert {"state", "event", "round/result", "cmd/decision", "cmd/decision/reply"} <= topics
    assert "device/reader/status" in topics
    results = 0
    for m in everything.messages:
        if m.topic == f"{BASE}/round/result":
            results += 1
            number = m.payload["round"]
            rest = {k: v for k, v in m.payload.items() if k != "shown"}
            assert not cards_named(rest) & hidden, (m.topic, m.payload)
            shown_ok = {c for seat in SHOWN[number] for c in HOLES[number][seat]}
            assert cards_named(m.payload["shown"]) & hidden == shown_ok, (m.topic, m.payload)
        else:
            assert not cards_named(m.payload) & hidden, (m.topic, m.payload)
    assert results == 3
    # the scan has teeth: it finds every board card in the `event` echoes as they fall
    echoed = set().union(
        *(cards_named(m.payload) for m in everything.messages if m.topic == f"{BASE}/event")
    )
    assert {c for flop, turn, river in BOARDS.values() for c in (*flop, turn, river)} <= echoed
