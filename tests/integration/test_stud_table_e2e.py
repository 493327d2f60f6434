"""A whole Seven Card Stud table end to end, as test_poker_table_e2e.py plays a
flop table: the daemon in-process, a real Mosquitto on a free loopback port and MQTT clients. A
$2-$4 fixed-limit Seven Card Stud table under document 003 (config/seven-card-stud-003.toml:
blinds $1/$2, $1 chips, its collection schedule "2-4 players: $1") plays two hands.

The dealer's console sends every input: `cmd/seat.take`, `cmd/hand.start`, `cmd/up.cards` for the
door cards and fourth to sixth street, `cmd/down.cards` for seventh, `cmd/decision`, and
`cmd/hole.cards` for the down cards the showdown needs. The daemon is stopped (cleanly, as
SIGTERM would: the flop test has no restart, so this one leaves `running_table` and enters it
again) in the middle of the first hand's fourth-street betting and started again on the same
journal: the hand goes on from exactly where it was. The console publishes the down cards it
enters on `cmd/hole.cards` and `cmd/down.cards` (the inputs; a locked broker lets no floor or
display read `cmd/`): those two are the only inbound topics that name them. Every amount and
every first bettor is worked by hand in the comments and compared with what the floor received.

A third client subscribes to `#` on the (open: `mosquitto_factory(locked=False)`, as in the flop
test) broker for the whole session, across the restart. No down card of either hand (the two
dealt with the door card, the seventh street's) appears in any payload the table publishes, except
the winners' in their hand's `round/result` `shown` (R46).

A second test deals a hand with the card-reading poker table (the simulated table on a real pty
and the real PokerTableDriver): each card a `table.card` with zone "seat", its face the deal's.
(It found the engine refusing every third-street card the reader placed; fixed.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl_drivers.poker_table.frames import seat_zone
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
from tests.integration.test_poker_table_e2e import (
    EveryTopic,
    act,
    cards_named,
    in_hand,
    pots,
    stacks,
    start_hand,
    wait_state,
)

pytestmark = pytest.mark.integration

BASE = "tablectl/cardroom-1/stud-01"


def stud_003_config(folder: Path, *, mqtt_port: int, reader_port: str | None = None) -> Path:
    """config/seven-card-stud-003.toml with the test broker and a journal in `folder`; with
    `reader_port`, its card-reading table on the emulator's pty, else no device (the dealer's
    console enters every card, as the shipped config's comment says)."""
    reader = (
        ""
        if reader_port is None
        else f"""
[[devices]]
name = "reader"
driver = "poker-table"
port = "{reader_port}"
baud = 9600
emulator = true
"""
    )
    path = folder / "seven-card-stud-003.toml"
    path.write_text(
        f"""site = "cardroom-1"
table = "stud-01"
log_level = "debug"

[game]
id = "seven-card-stud"
document = "003"
structure = "fixed-limit"
stakes = ["2", "4"]
blinds = ["1", "2"]
chip = "1"

[game.collection.schedule]
option = 1
per = "hand"
modified_fee = "1"
rates = [
  {{ from = 2, to = 4, fee = "1" }},
  {{ from = 5, to = 6, fee = "2" }},
  {{ from = 7, fee = "3" }},
]

[seats]
count = 7
{reader}
[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5

[journal]
path = "{folder}/journal.db"
"""
    )
    return path


# -- the cards ---------------------------------------------------------------------------------
#
# Every card of the session once: no down card of either hand is an up card of either hand, so a
# down card named in any payload is that card leaking, never an up card's echo.

UP: dict[int, list[dict[int, str]]] = {  # hand -> streets (third .. sixth) -> seat -> up card
    1: [
        {3: "9c", 5: "Kd", 7: "4h", 1: "Qs"},  # dealt from the button's (seat 1's) left
        {5: "7c", 7: "8h", 1: "Js"},  # seat 3 folded on third street
        {5: "5h", 7: "8s", 1: "2d"},
        {5: "Kh", 7: "3c", 1: "Tc"},
    ],
    2: [
        {5: "Jh", 7: "Ts", 1: "9s", 3: "Ac"},  # the button on seat 3: seat 5 dealt first
        {7: "Qh", 1: "4d", 3: "2h"},  # seat 5 folded on third street
        {7: "7h", 1: "9h", 3: "Kc"},
        {7: "6h", 1: "3d", 3: "Qc"},
    ],
}
DOWN: dict[int, dict[int, tuple[str, ...]]] = {  # hand -> seat -> its down cards, as dealt
    1: {3: ("2c", "6d"), 5: ("Ah", "7d", "5c"), 1: ("Qd", "9d", "8d")},
    2: {1: ("4s", "3h", "2s"), 3: ("Jc", "8c", "5s")},
}
SHOWN = {1: 1, 2: 3}  # the one seat each hand whose hand is shown: the winner (R46)


# -- the dealer --------------------------------------------------------------------------------


def up_cards(console: Console, floor: Console, number: int, street: int, turn: int) -> Payload:
    """`cmd/up.cards`: the street's face-up card to every seat still in, in the order dealt;
    wait until the table shows them with `turn` (the best board showing) to act."""
    dealt = UP[number][street]
    console.ok("up.cards", {"cards": [{"seat": s, "card": c} for s, c in dealt.items()]})
    return wait_state(
        floor,
        f"hand {number}'s street {street + 3}",
        lambda st: (
            in_hand(st).get("round") == number
            and all(ups(st)[s][-1:] == [c] for s, c in dealt.items())
            and in_hand(st).get("turn") == turn
        ),
    )


def hole(console: Console, seat: int, *cards: str) -> None:
    """`cmd/hole.cards`: a seat's down cards (journaled only)."""
    console.ok("hole.cards", {"seat": seat, "cards": list(cards)})


def ups(state: Payload) -> dict[int, list[str]]:
    """Each seat's `up` cards as the `state` shows them."""
    return {s["seat"]: s["up"] for s in state["seats"]}


def wait_turn(floor: Console, seat: int) -> Payload:
    return wait_state(floor, f"seat {seat}'s turn", lambda st: in_hand(st).get("turn") == seat)


def test_seven_card_stud_two_hands_restart_mid_hand_and_no_down_card_on_any_topic(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """Seats 1, 3, 5 and 7, $100 each; $2-$4 fixed limit (third and fourth street $2, fifth to
    seventh $4), blinds $1 and $2; the fee 003's stud tables' config gives: $1 for 2-4 players
    dealt in once the second street (fourth) is dealt, from the main pot (R44).

    Hand 1, button on seat 1 (named): dealt 3, 5, 7, 1; seat 3 posts the $1 small blind, seat 5
    the $2 big blind; third street is begun left of the big blind by seat 7 (003 "Seven Card Stud
    (High)"), later streets by the best board showing.
      third  (door 3 9c, 5 Kd, 7 4h, 1 Qs): 7 raises to 4, 1 calls 4, 3 folds (its 1 stays),
             5 calls (+2).                                          4 + 4 + 1 + 4 = 13
      fourth (5 K-7, 7 4-8, 1 Q-J: king high first, seat 5): 5 bets 2, 7 calls,
             -- the daemon restarts -- 1 calls.                     13 + 6 = 19
      fifth  (5 K-7-5, 7 4-8-8, 1 Q-J-2: the pair of eights, seat 7): 7 bets 4, 1 and 5 call.
                                                                    19 + 12 = 31
      sixth  (5 K-7-5-K, a pair of kings, first): checked around.
      seventh (down.cards, the boards as they were: seat 5): 5 checks, 7 checks, 1 bets 4,
             5 calls, 7 folds.                                      31 + 8 = 39
    In: 1 4+2+4+4 = 14; 3 1; 5 14; 7 4+2+4 = 10 (39). Fee $1 (4 dealt in): 39 - 1 = 38.
    Seat 1: Qd 9d 8d down, Qs Js 2d Tc up: Q-J-T-9-8, a straight. Seat 5: Ah 7d 5c down,
    Kd 7c 5h Kh up: kings and sevens. 38 to seat 1. Stacks: 1: 100 - 14 + 38 = 124; 3: 99;
    5: 86; 7: 90 (399 = 400 - 1). Shown: seat 1; seat 5's hand is mucked.

    Hand 2: the button moves clockwise to seat 3: dealt 5, 7, 1, 3; seat 5 the small blind,
    seat 7 the big blind, seat 1 first.
      third  (door 5 Jh, 7 Ts, 1 9s, 3 Ac): 1 calls 2, 3 raises to 4, 5 folds (its 1 stays),
             7 calls (+2), 1 calls (+2).                            4 + 4 + 1 + 4 = 13
      fourth (7 T-Q, 1 9-4, 3 A-2: ace high, seat 3): 3 bets 2, 7 and 1 call.   13 + 6 = 19
      fifth  (7 T-Q-7, 1 9-4-9, 3 A-2-K: the nines, seat 1): checked around.
      sixth  (7 T-Q-7-6, 1 9-4-9-3, 3 A-2-K-Q: seat 1): 1 bets 4, 3 calls, 7 folds.   27
      seventh (down.cards with its cards, journaled only: seat 1): 1 checks, 3 bets 4,
             1 calls.                                               27 + 8 = 35
    In: 1 4+2+4+4 = 14; 3 14; 5 1; 7 4+2 = 6 (35). Fee $1 (4 dealt in): 35 - 1 = 34.
    Seat 3: Jc 8c 5s down, Ac 2h Kc Qc up: A-K-Q-J-8 of clubs, a flush. Seat 1: 4s 3h 2s down,
    9s 4d 9h 3d up: nines and fours. 34 to seat 3. Stacks: 1: 124 - 14 = 110;
    3: 99 - 14 + 34 = 119; 5: 86 - 1 = 85; 7: 90 - 6 = 84 (398 = 400 - 2).
    """
    broker = mosquitto_factory(locked=False)  # see the module's docstring: `#` sees everything
    everything = EveryTopic(broker.port, BASE, client_id="it-everything")
    replies: list[Payload] = []
    try:
        wait_subscribed(everything)
        cfg = stud_003_config(tmp_path, mqtt_port=broker.port)
        with running_table(cfg, broker, BASE, []) as (console, floor):
            for seat in (1, 3, 5, 7):
                console.ok("seat.take", {"seat": seat, "stack": "100"})

            # -- hand 1, up to the middle of fourth street ---------------------------------
            state = start_hand(console, floor, 1, {"button": 1})
            assert state["button"] == 1
            assert in_hand(state)["phase"] == "deal"  # the door cards come before any action
            blinds = {s["seat"]: s["in_round"] for s in state["seats"]}
            assert blinds == {1: "0.00", 3: "1.00", 5: "2.00", 7: "0.00"}
            hole(console, 3, *DOWN[1][3])  # the console may enter down cards any time
            hole(console, 5, *DOWN[1][5][:2])  # the two dealt so far; the seventh later
            state = up_cards(console, floor, 1, 0, turn=7)  # left of the big blind
            assert in_hand(state)["street"] == "third"
            assert ups(state) == {3: ["9c"], 5: ["Kd"], 7: ["4h"], 1: ["Qs"]}
            act(console, 7, "raise", "4")
            act(console, 1, "call")
            act(console, 3, "fold")
            act(console, 5, "call")
            state = up_cards(console, floor, 1, 1, turn=5)  # K-7 the best board
            assert ups(state)[3] == []  # the folded seat's door card is turned down
            assert ups(state) == {1: ["Qs", "Js"], 3: [], 5: ["Kd", "7c"], 7: ["4h", "8h"]}
            act(console, 5, "bet", "2")
            act(console, 7, "call")
            before = wait_turn(floor, 1)
            assert_no_refusals(floor)
        # -- the daemon stops mid-hand (cleanly, as SIGTERM) and starts on the same journal -------
        with running_table(cfg, broker, BASE, []) as (console, floor):
            # the new floor client gets the retained `state`: the hand exactly as it was
            after = wait_state(floor, "the retained state", lambda st: bool(st))
            assert after == before
            assert in_hand(after)["turn"] == 1 and in_hand(after)["to_call"] == "2.00"
            assert in_hand(after)["pot"] == "17.00"  # 13 + seat 5's 2 + seat 7's 2
            act(console, 1, "call")  # the restarted table takes the next action where it was
            state = up_cards(console, floor, 1, 2, turn=7)  # the pair of eights showing
            assert in_hand(state)["pot"] == "19.00"
            assert in_hand(state)["street"] == "fifth"
            act(console, 7, "bet", "4")
            act(console, 1, "call")
            act(console, 5, "call")
            state = up_cards(console, floor, 1, 3, turn=5)  # the pair of kings showing
            for seat in (5, 7, 1):
                act(console, seat, "check")
            console.ok("down.cards", {})  # seventh street, face down; its cards not entered
            state = wait_state(
                floor,
                "hand 1's seventh street",
                lambda st: in_hand(st).get("street") == "seventh" and in_hand(st)["turn"] == 5,
            )
            assert in_hand(state)["pot"] == "31.00"
            act(console, 5, "check")
            act(console, 7, "check")
            act(console, 1, "bet", "4")
            act(console, 5, "call")
            act(console, 7, "fold")
            state = wait_state(floor, "the showdown", lambda st: in_hand(st)["phase"] == "showdown")
            assert ups(state) == {
                1: ["Qs", "Js", "2d", "Tc"],
                3: [],
                5: ["Kd", "7c", "5h", "Kh"],
                7: [],  # folded on seventh street: turned down
            }
            # seat 5's seventh card: with the two entered before the restart (kept in the
            # journal), its three; the showdown waits for every hand still in to be whole
            hole(console, 5, DOWN[1][5][2])
            hole(console, 1, *DOWN[1][1])  # its three: the last the showdown waited for
            first = round_result(floor, 1)

            # -- hand 2: the button to seat 3 --------------------------------------------
            state = start_hand(console, floor, 2, {})
            assert state["button"] == 3
            state = up_cards(console, floor, 2, 0, turn=1)  # left of the big blind (seat 7)
            act(console, 1, "call")
            act(console, 3, "raise", "4")
            act(console, 5, "fold")
            act(console, 7, "call")
            act(console, 1, "call")
            state = up_cards(console, floor, 2, 1, turn=3)  # A-2, ace high
            assert ups(state)[5] == []
            act(console, 3, "bet", "2")
            act(console, 7, "call")
            act(console, 1, "call")
            up_cards(console, floor, 2, 2, turn=1)  # 9-4-9, the pair
            for seat in (1, 3, 7):
                act(console, seat, "check")
            up_cards(console, floor, 2, 3, turn=1)
            act(console, 1, "bet", "4")
            act(console, 3, "call")
            act(console, 7, "fold")
            seventh = [{"seat": s, "card": DOWN[2][s][2]} for s in (1, 3)]
            console.ok("down.cards", {"cards": seventh})
            wait_state(
                floor,
                "hand 2's seventh street",
                lambda st: in_hand(st).get("street") == "seventh" and in_hand(st)["turn"] == 1,
            )
            act(console, 1, "check")
            act(console, 3, "bet", "4")
            act(console, 1, "call")
            hole(console, 1, *DOWN[2][1][:2])
            hole(console, 3, *DOWN[2][3][:2])
            second = round_result(floor, 2)
            end = wait_state(floor, "the hand's end", lambda st: st.get("hand") is None)
            assert_no_refusals(floor)
            replies = [m.payload for m in floor.messages if m.topic.endswith("/reply")]
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
    assert first["button"] == 1 and first["showdown"] is True
    assert pots(first) == [("38.00", [1, 5], [1], {1: "38.00"})]
    assert first["fee"] == {"amount": "1.00", "players": 4, "modified": False}
    assert stacks(first) == {1: "124.00", 3: "99.00", 5: "86.00", 7: "90.00"}
    ((seat, cards, name),) = [(h["seat"], h["cards"], h["high"]["name"]) for h in first["shown"]]
    assert (seat, name) == (1, "straight")
    assert sorted(cards) == sorted([*DOWN[1][1], "Qs", "Js", "2d", "Tc"])

    # -- hand 2 -------------------------------------------------------------------------------
    assert second["button"] == 3 and second["showdown"] is True
    assert pots(second) == [("34.00", [1, 3], [3], {3: "34.00"})]
    assert second["fee"] == {"amount": "1.00", "players": 4, "modified": False}
    assert stacks(second) == {1: "110.00", 3: "119.00", 5: "85.00", 7: "84.00"}
    ((seat, cards, name),) = [(h["seat"], h["cards"], h["high"]["name"]) for h in second["shown"]]
    assert (seat, name) == (3, "flush")
    assert sorted(cards) == sorted([*DOWN[2][3], "Ac", "2h", "Kc", "Qc"])
    assert [s["stack"] for s in end["seats"]] == ["110.00", "119.00", "85.00", "84.00"]

    # -- what the floor saw of the up cards: each street's echo carries its cards ------------
    assert replies and all(r["ok"] for r in replies)
    echoes = sorted(
        (
            m.payload
            for m in everything.messages
            if m.topic == f"{BASE}/event" and m.payload["type"] == "up.cards"
        ),
        key=lambda e: e["seq"],
    )
    echoed = [
        (e["round"], e["street"], [(c["seat"], c["card"]) for c in e["cards"]]) for e in echoes
    ]
    assert echoed == [
        (n, name, list(street.items()))
        for n in (1, 2)
        for name, street in zip(("third", "fourth", "fifth", "sixth"), UP[n], strict=True)
    ]

    # -- R46 on every topic -------------------------------------------------------------------
    hidden = {card for hand in DOWN.values() for cards in hand.values() for card in cards}
    assert not hidden & {c for hand in UP.values() for st in hand for c in st.values()}
    topics = {m.topic.removeprefix(BASE + "/") for m in everything.messages}
    assert {"state", "event", "round/result", "cmd/hole.cards", "cmd/down.cards/reply"} <= topics
    results = 0
    entered: set[str] = set()
    for m in everything.messages:
        if m.topic == f"{BASE}/round/result":
            results += 1
            number = m.payload["round"]
            rest = {k: v for k, v in m.payload.items() if k != "shown"}
            assert not cards_named(rest) & hidden, (m.topic, m.payload)
            shown_ok = set(DOWN[number][SHOWN[number]])
            assert cards_named(m.payload["shown"]) & hidden == shown_ok, (m.topic, m.payload)
        elif "/cmd/" in m.topic and not m.topic.endswith("/reply"):
            # the dealer console's own commands, the table's inputs: only the two that enter
            # down cards name them (a locked broker lets no floor or display read cmd/, R46)
            entered |= cards_named(m.payload) & hidden
            if cards_named(m.payload) & hidden:
                assert m.topic in (f"{BASE}/cmd/hole.cards", f"{BASE}/cmd/down.cards"), m
        else:
            assert not cards_named(m.payload) & hidden, (m.topic, m.payload)
    assert results == 2
    # the scan sees the down cards where the console entered them: every one but the seventh
    # street's of hand 1 (its down.cards had no cards)
    assert entered == hidden
    # the scan has teeth: it finds every up card in the `event` echoes as they fall
    echoed_cards = set().union(
        *(cards_named(m.payload) for m in everything.messages if m.topic == f"{BASE}/event")
    )
    assert {c for hand in UP.values() for st in hand for c in st.values()} <= echoed_cards


# -- the card-reading table --------------------------------------------------------------------

READER_HAND: list[dict[int, tuple[str, ...]]] = [  # street -> seat -> its cards, as dealt
    {3: ("Ah", "Ad", "9s"), 5: ("2c", "3c", "Kh"), 1: ("Kd", "Qd", "7h")},  # down, down, up
    {3: ("Jc",), 1: ("8h",)},  # seat 5 folded on third street
    {3: ("Ts",), 1: ("6h",)},
    {3: ("2s",), 1: ("5h",)},
    {3: ("As",), 1: ("4d",)},  # seventh street, face down
]
READER_DOWN = {3: ("Ah", "Ad", "As"), 5: ("2c", "3c"), 1: ("Kd", "Qd", "4d")}


def refusals(floor: Console) -> list[Payload]:
    """The alerts assert_no_refusals looks for, to say what was refused."""
    return [a for a in floor.on("alert") if a["kind"] in ("rejected", "invalid-input", "invalid")]


def deal_street(
    reader: SimulatedPokerTable, floor: Console, street: int, turn: int | None
) -> Payload:
    """The street's cards onto the seat antennas: the first street once around for each card
    (down, down, then the door card up), a later street's one card each; wait until the table
    has them, with `turn` to act (or until anything is refused: assert_no_refusals says what)."""
    cards = READER_HAND[street]
    for i in range(len(next(iter(cards.values())))):
        for seat, dealt in cards.items():  # listed in dealing order
            reader.put(seat_zone(seat), dealt[i])
    ups = {s: [c for st in READER_HAND[: street + 1] for c in st.get(s, ())] for s in cards}
    ups = {s: [c for c in cs if c not in READER_DOWN[s]] for s, cs in ups.items()}
    floor.wait_for(
        f"street {street + 3} read",
        lambda: (
            bool(refusals(floor))
            or (
                all(seat_up(latest_state(floor), s) == u for s, u in ups.items())
                and in_hand(latest_state(floor)).get("street") == STREETS[street]
                and in_hand(latest_state(floor)).get("turn") == turn
            )
        ),
    )
    assert not refusals(floor), refusals(floor)
    assert_no_refusals(floor)
    return latest_state(floor)


STREETS = ("third", "fourth", "fifth", "sixth", "seventh")


def seat_up(state: Payload, seat: int) -> list[str] | None:
    return {s["seat"]: s.get("up") for s in state.get("seats", [])}.get(seat)


def test_seven_card_stud_hand_read_by_the_card_reading_table(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """Seats 1, 3 and 5, $100 each; the button on seat 1: dealt 3, 5, 1; seat 3 the $1 small
    blind, seat 5 the $2 big blind, seat 1 first on third street. Every card is the reader's:
    the k-th card to a seat is down or up by the deal (down, down, up, up, up, up, down).
      third  (door 3 9s, 5 Kh, 1 7h): 1 raises to 4, 3 calls (+3), 5 folds (its 2 stays; its
             cards go to the muck).                                  4 + 4 + 2 = 10
      fourth (3 9-J, 1 7-8: seat 3): 3 checks, 1 bets 2, 3 calls.   10 + 4 = 14
      fifth  (3 9-J-T, 1 7-8-6: seat 3): checked.
      sixth  (3 9-J-T-2, 1 7-8-6-5: jack high, seat 3): 3 bets 4, 1 calls.   14 + 8 = 22
      seventh (face down; seat 3): 3 bets 4, 1 raises to 8, 3 calls.   22 + 16 = 38
    In: 1 4+2+4+8 = 18; 3 18; 5 2 (38). Fee $1 (3 dealt in, past third street): 38 - 1 = 37.
    Seat 1: Kd Qd 4d down, 7h 8h 6h 5h up: 8-7-6-5-4, a straight (no fifth heart). Seat 3:
    Ah Ad As down: three aces. 37 to seat 1. Stacks: 1: 100 - 18 + 37 = 119; 3: 82; 5: 98
    (299 = 300 - 1). Placements: 9 on third street, seat 5's 3 to the muck, 2 on each of the
    four streets after: positions 1..20."""
    broker = mosquitto_factory(locked=False)
    everything = EveryTopic(broker.port, BASE, client_id="it-everything")
    try:
        wait_subscribed(everything)
        with SimulatedPokerTable(seats=10) as reader:
            cfg = stud_003_config(tmp_path, mqtt_port=broker.port, reader_port=reader.port)
            with running_table(cfg, broker, BASE, ["reader"]) as (console, floor):
                for seat in (1, 3, 5):
                    console.ok("seat.take", {"seat": seat, "stack": "100"})
                start_hand(console, floor, 1, {"button": 1})
                reader.new_hand()
                state = deal_street(reader, floor, 0, turn=1)
                assert in_hand(state)["to_call"] == "2.00"
                act(console, 1, "raise", "4")
                act(console, 3, "call")
                act(console, 5, "fold")
                reader.fold(5)
                state = deal_street(reader, floor, 1, turn=3)
                assert seat_up(state, 5) == []
                act(console, 3, "check")
                act(console, 1, "bet", "2")
                act(console, 3, "call")
                deal_street(reader, floor, 2, turn=3)
                act(console, 3, "check")
                act(console, 1, "check")
                deal_street(reader, floor, 3, turn=3)
                act(console, 3, "bet", "4")
                act(console, 1, "call")
                state = deal_street(reader, floor, 4, turn=3)
                assert in_hand(state)["pot"] == "22.00"
                act(console, 3, "bet", "4")
                act(console, 1, "raise", "8")
                act(console, 3, "call")  # the cards the table read speak
                result = round_result(floor, 1)
                reader.collect()
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

    assert result["showdown"] is True
    assert pots(result) == [("37.00", [1, 3], [1], {1: "37.00"})]
    assert result["fee"] == {"amount": "1.00", "players": 3, "modified": False}
    assert stacks(result) == {1: "119.00", 3: "82.00", 5: "98.00"}
    assert result["positions"] == [{"device": "reader", "run": "1", "pos": list(range(1, 21))}]
    ((seat, cards, name),) = [(h["seat"], h["cards"], h["high"]["name"]) for h in result["shown"]]
    assert (seat, name) == (1, "straight")
    assert sorted(cards) == sorted(["Kd", "Qd", "4d", "7h", "8h", "6h", "5h"])

    # each placement's echo: an up card carries its card, a down card (and the muck) does not
    reads = [
        m.payload
        for m in everything.messages
        if m.topic == f"{BASE}/event" and m.payload["type"] == "table.card"
    ]
    up = [(e["seat"], e["card"]) for e in reads if e.get("face") == "up"]
    assert up == [
        (3, "9s"),
        (5, "Kh"),
        (1, "7h"),  # third street's door cards
        (3, "Jc"),
        (1, "8h"),
        (3, "Ts"),
        (1, "6h"),
        (3, "2s"),
        (1, "5h"),
    ]
    assert all("card" not in e for e in reads if e.get("face") != "up")

    # R46: no down card on any topic, but the winner's in its result's `shown`
    hidden = {c for cards in READER_DOWN.values() for c in cards}
    for m in everything.messages:
        if m.topic == f"{BASE}/round/result":
            rest = {k: v for k, v in m.payload.items() if k != "shown"}
            assert not cards_named(rest) & hidden, (m.topic, m.payload)
            assert cards_named(m.payload["shown"]) & hidden == set(READER_DOWN[1])
        else:
            assert not cards_named(m.payload) & hidden, (m.topic, m.payload)
