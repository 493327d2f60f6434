"""A whole Chinese Poker table end to end, as test_stud_table_e2e.py plays a stud
table: the daemon in-process, a real Mosquitto on a free loopback port and MQTT clients. The
shipped config/chinese-poker-003.toml (a $5 point, collection option 2: $2 from the player
holding the action and dealer buttons, $1 from each other player dealt in; no device: the
dealer's console enters every setting), with the test broker and a journal in the test's folder.

Five seated, four dealt in each round from the buttons' holder clockwise. Three rounds:

1. The buttons named on seat 1: seats 1-4 dealt in, seat 5 waits. Seat 2 declares a clean sweep
   (three flushes), seat 4 sets its hand out of order (a foul), seats 1 and 3 set fronts that
   tie, which the buttons' holder wins.
2. The buttons move to seat 2: seats 2-5 dealt in, seat 1 waits. Seat 4, short after round 1,
   cannot pay everything it owes: the walk stops each payment at the stack it started with. The
   daemon is stopped (cleanly, as SIGTERM would) after two hands are in and started again on the
   same journal: the round goes on exactly where it was and settles as worked below.
3. Seat 4 (nothing left) leaves; the buttons move to seat 3; the round is voided (a misdeal):
   the fees come back and the buttons go back to seat 2.

The dealer's console sends every input (`cmd/seat.take`, `cmd/hand.start`, `cmd/chinese.set`,
`cmd/chinese.sweep`, `cmd/seat.leave`, `cmd/round.void`); every reply is ok. A third client
subscribes to `#` on the (open: `mosquitto_factory(locked=False)`, as in the flop and stud tests)
broker for the whole session, across the restart: no card of any hand appears in any payload the
table publishes but the round's `round/result` (which shows all 52), and the only inbound topics
that name cards are the console's own `cmd/chinese.set` and `cmd/chinese.sweep`. Every point,
payment and stack is worked by hand in the comments and compared with what the floor received.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tablectl_base.cards import standard_deck
from tests.conftest import MosquittoFactory
from tests.integration.floor import (
    CONFIG,
    Payload,
    assert_no_refusals,
    latest_state,
    round_result,
    running_table,
    wait_subscribed,
)
from tests.integration.harness import Console
from tests.integration.test_poker_table_e2e import EveryTopic, cards_named, stacks, wait_state

pytestmark = pytest.mark.integration

BASE = "tablectl/cardroom-1/chinese-01"


def chinese_003_config(folder: Path, *, mqtt_port: int) -> Path:
    """config/chinese-poker-003.toml as shipped (no device), with the test broker (its port, an
    open broker: no username or password file) and a journal in `folder`."""
    text = (CONFIG / "chinese-poker-003.toml").read_text()
    swaps = {
        "port = 1883\n": f"port = {mqtt_port}\nkeepalive = 5\n",
        'username = "table-cardroom-1-chinese-01"': "",
        'password_file = "/etc/tablectl/mqtt-password"': "",
        'path = "/var/lib/tablectl/chinese-01.db"': f'path = "{folder}/journal.db"',
    }
    for old, new in swaps.items():
        assert text.count(old) == 1, f"expected one {old!r} in the shipped config"
        text = text.replace(old, new)
    assert "[[devices]]" not in text
    path = folder / "chinese-poker-003.toml"
    path.write_text(text)
    return path


# -- the hands ---------------------------------------------------------------------------------
#
# Each round's four hands are one whole deck (checked below), so the `round/result` names every
# card and a card named anywhere else is a hand leaking.

Setting = tuple[str, str, str]
HANDS: dict[int, dict[int, Setting | tuple[str, str]]] = {
    1: {
        # pair of kings | sevens full of fours (a full house: 2 in the middle) | Q-high straight
        # flush (5 in the back)
        1: ("Ks Kh 2s", "7s 7h 7c 4s 4h", "8s 9s Ts Js Qs"),
        # three flushes: hearts 2-5-9, clubs 3-6-8-T-Q, diamonds 4-7-9-J-Q (a clean sweep, 3)
        2: ("three-flushes", "2h 5h 9h 3c 6c 8c Tc Qc 4d 7d 9d Jd Qd"),
        # pair of kings with a 2 (seat 1's front exactly) | threes full of fives | four aces
        3: ("Kc Kd 2d", "3s 3h 3d 5s 5c", "As Ah Ac Ad 6s"),
        # a pair of jacks in front over a pair of sixes in the middle: fouled
        4: ("Jh Jc Qh", "6h 6d 2c 4c 9c", "8h 8d Th Td 5d"),
    },
    2: {
        # pair of queens | nines full of fives (2) | 6-high straight flush (5)
        2: ("Qs Qh 3c", "9s 9h 9d 5c 5d", "2s 3s 4s 5s 6s"),
        # A-K-7 | tens and eights | aces full of sevens (no bonus in the back)
        3: ("As Kd 7c", "Th Td 8c 8d 4h", "Ah Ad Ac 7h 7d"),
        # J-4-2 | a pair of threes | a pair of jacks
        4: ("Jc 2d 4c", "3h 3d 6c Tc Kc", "Js Jd 8h 6d 2c"),
        # K-9-4 | a pair of queens | a king-high heart flush
        5: ("Ks 9c 4d", "Qd Qc Ts 8s 7s", "Kh Jh 6h 5h 2h"),
    },
}


def thirteen(hand: Setting | tuple[str, str]) -> list[str]:
    """A hand's thirteen cards as the console enters them."""
    return " ".join(hand[-1:] if len(hand) == 2 else hand).split()


def bring_in(console: Console, number: int, seat: int) -> None:
    """`cmd/chinese.set` (a setting) or `cmd/chinese.sweep` (a clean sweep), accepted."""
    hand = HANDS[number][seat]
    if len(hand) == 2:
        console.ok("chinese.sweep", {"seat": seat, "sweep": hand[0], "cards": thirteen(hand)})
    else:
        front, middle, back = (part.split() for part in hand)
        console.ok("chinese.set", {"seat": seat, "front": front, "middle": middle, "back": back})


def in_round(state: Payload) -> Payload:
    found: Payload | None = state.get("round")
    return found or {}


def wait_set(floor: Console, number: int, seats: list[int]) -> Payload:
    """The `state` showing round `number` with exactly `seats`' hands in."""
    return wait_state(
        floor,
        f"round {number} with seats {seats} set",
        lambda st: in_round(st).get("round") == number and in_round(st).get("set") == seats,
    )


def start_round(console: Console, floor: Console, number: int, body: dict[str, Any]) -> Payload:
    """`cmd/hand.start`; its `event` echo once the `state` shows round `number` in play."""
    console.ok("hand.start", body)
    wait_set(floor, number, [])
    (echo,) = [e for e in floor.on("event") if e["type"] == "hand.start" and e["round"] == number]
    return dict(echo)


def fees(payload: Payload) -> list[tuple[int, str]]:
    return [(f["seat"], f["amount"]) for f in payload["fees"]]


def points(result: Payload) -> dict[tuple[int, int], int]:
    """(first, second) -> the points the second pays the first."""
    return {(p["seats"][0], p["seats"][1]): p["points"] for p in result["points"]}


def payments(result: Payload) -> list[tuple[int, int, str, str, str]]:
    """(payer, payee, owed, amount, what for) of each payment, in the walk's order."""
    return [(p["from"], p["to"], p["owed"], p["amount"], p["for"]) for p in result["payments"]]


def seat_stacks(state: Payload) -> dict[int, str]:
    return {s["seat"]: s["stack"] for s in state["seats"]}


def test_chinese_poker_three_rounds_restart_mid_round_and_no_card_before_the_showdown(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """Seats 1-4 with $200, seat 5 with $100 (twenty points, the least buy-in). One point $5.

    Round 1, the buttons named on seat 1: dealt in 1, 2, 3, 4 (four at most, from the buttons'
    holder clockwise: seat 5 waits). Fees before the deal: seat 1 $2, seats 2-4 $1 ($5).
    In play: 1 198, 2 199, 3 199, 4 199.
      Clean sweeps: seat 2's three flushes, 3 points from each other player.
      (1,2) -3: the sweep; a sweep's hand is not compared segment by segment.
      (1,3) +10: fronts K-K-2 and K-K-2 tie: the buttons' seat 1 wins it (+1); sevens full
            over threes full (+1, and the middle full house's 2); the straight flush over four
            aces (+1, and the back's straight flush 5).
      (1,4) +16: seat 4 fouled pays 9 and seat 1's bonus hands (2 + 5).
      (2,3) +3, (2,4) +3: the sweep (seat 4's foul does not excuse it).
      (3,4) +15: the foul's 9 and seat 3's bonus hands (threes full in the middle 2, four aces
            in the back 4).
      Seats: 1 -3+10+16 = +23; 2 +9; 3 -10-3+15 = +2; 4 -16-3-15 = -34 (sum 0).
      The walk, sweeps first, in the order (1,2) (1,3) (1,4) (2,3) (2,4) (3,4), $5 a point:
        1 -> 2 $15, 3 -> 2 $15, 4 -> 2 $15; then 3 -> 1 $50, 4 -> 1 $80, 4 -> 3 $75.
      Nobody runs out (seat 4 exchanges 15 + 80 + 75 = 170 of its 199).
      Stacks: 1 198-15+50+80 = 313; 2 199+45 = 244; 3 199-15-50+75 = 209; 4 199-170 = 29;
      5 100. 895 + the $5 of fees = 900, as seated.

    Round 2: the buttons move to seat 2: dealt in 2, 3, 4, 5 (seat 1 waits). Fees: seat 2 $2,
    seats 3-5 $1 ($5). In play: 2 242, 3 208, 4 28, 5 99. No sweep, no foul.
      (2,3) +10: queens over A-K-7 (+1); nines full over two pair (+1+2); the straight flush
            over aces full (+1+5).
      (2,4) +10: queens over J-4-2 (+1); nines full over threes (+3); straight flush over
            jacks (+6).
      (2,5) +10: queens over K-9-4 (+1); nines full over queens (+3); straight flush over a
            flush (+6).
      (3,4) +3: A-K-7 over J-4-2, two pair over a pair, aces full over jacks (no bonus).
      (3,5) +3: A-K-7 over K-9-4, two pair over a pair of queens, a full house over a flush.
      (4,5) -3: seat 5's K-9-4, queens and flush each beat seat 4's.
      Seats: 2 +30; 3 -10+3+3 = -4; 4 -10-3-3 = -16; 5 -10-3+3 = -10 (sum 0).
      The walk (2,3) (2,4) (2,5) (3,4) (3,5) (4,5), each bounded by what the payer and the payee
      have left of the stack they started the round with:
        3 -> 2 $50 (3 has 208: 158 left; 2 192 left);
        4 -> 2 owes $50, pays $28: all it started with (4 has 0 left; 2 164);
        5 -> 2 $50 (5 49 left; 2 114);
        4 -> 3 owes $15, pays $0 (4 has nothing left);
        5 -> 3 $15 (5 34 left);
        4 -> 5 owes $15, pays $0.
      Stacks: 1 313; 2 242+50+28+50 = 370; 3 208-50+15 = 173; 4 28-28 = 0; 5 99-50-15 = 34.
      890 + $10 of fees = 900.

    Round 3: seat 4 leaves with its $0. The buttons move to seat 3: dealt in 3, 5, 1, 2 (fees $2,
    $1, $1, $1), then the round is voided (a misdeal, 003 Game Rules 7): the fees come back,
    nothing is exchanged, the buttons go back to seat 2.
    """
    for number, hands in HANDS.items():
        dealt = [card for hand in hands.values() for card in thirteen(hand)]
        assert sorted(dealt) == sorted(map(str, standard_deck())), f"round {number}: one deck"

    broker = mosquitto_factory(locked=False)  # see the module's docstring: `#` sees everything
    everything = EveryTopic(broker.port, BASE, client_id="it-everything")
    try:
        wait_subscribed(everything)
        cfg = chinese_003_config(tmp_path, mqtt_port=broker.port)
        with running_table(cfg, broker, BASE, []) as (console, floor):
            for seat, stack in ((1, "200"), (2, "200"), (3, "200"), (4, "200"), (5, "100")):
                console.ok("seat.take", {"seat": seat, "stack": stack})

            # -- round 1 -------------------------------------------------------------------
            echo = start_round(console, floor, 1, {"button": 1})
            assert (echo["button"], echo["dealt_in"]) == (1, [1, 2, 3, 4])
            assert fees(echo) == [(1, "2.00"), (2, "1.00"), (3, "1.00"), (4, "1.00")]
            state = latest_state(floor)
            assert state["button"] == 1 and state["point"] == "5.00"
            assert seat_stacks(state) == {
                1: "198.00",
                2: "199.00",
                3: "199.00",
                4: "199.00",
                5: "100.00",
            }
            for k, seat in enumerate((1, 2, 3), start=1):
                bring_in(console, 1, seat)
                wait_set(floor, 1, [1, 2, 3][:k])
            assert not floor.on("round/result")  # nothing settles before the last hand
            bring_in(console, 1, 4)
            first = round_result(floor, 1)

            # -- round 2, up to two hands in -----------------------------------------------
            echo = start_round(console, floor, 2, {})  # the buttons move by themselves
            assert (echo["button"], echo["dealt_in"]) == (2, [2, 3, 4, 5])
            assert fees(echo) == [(2, "2.00"), (3, "1.00"), (4, "1.00"), (5, "1.00")]
            bring_in(console, 2, 2)
            bring_in(console, 2, 3)
            before = wait_set(floor, 2, [2, 3])
            assert before["button"] == 2
            assert seat_stacks(before) == {
                1: "313.00",
                2: "242.00",
                3: "208.00",
                4: "28.00",
                5: "99.00",
            }
            assert_no_refusals(floor)
        # -- the daemon stops mid-round (cleanly, as SIGTERM) and starts on the same journal ----
        with running_table(cfg, broker, BASE, []) as (console, floor):
            # the new floor client gets the retained `state`: the round exactly as it was
            after = wait_state(floor, "the retained state", lambda st: bool(st))
            assert after == before
            # the two hands set before the restart are in the journal: the round needs two more
            bring_in(console, 2, 4)
            wait_set(floor, 2, [2, 3, 4])
            bring_in(console, 2, 5)
            second = round_result(floor, 2)
            end = wait_state(floor, "round 2's end", lambda st: st.get("round") is None)

            # -- round 3: a misdeal --------------------------------------------------------
            console.ok("seat.leave", {"seat": 4})
            echo = start_round(console, floor, 3, {})
            assert (echo["button"], echo["dealt_in"]) == (3, [3, 5, 1, 2])
            assert fees(echo) == [(3, "2.00"), (5, "1.00"), (1, "1.00"), (2, "1.00")]
            console.ok("round.void", {"reason": "two hands of fourteen"})
            third = round_result(floor, 3)
            last_state = wait_state(floor, "round 3 voided", lambda st: st.get("round") is None)
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

    # -- round 1 ------------------------------------------------------------------------------
    assert first["button"] == 1 and first["point"] == "5.00" and not first.get("void")
    assert fees(first) == [(1, "2.00"), (2, "1.00"), (3, "1.00"), (4, "1.00")]
    assert points(first) == {(1, 2): -3, (1, 3): 10, (1, 4): 16, (2, 3): 3, (2, 4): 3, (3, 4): 15}
    assert payments(first) == [
        (1, 2, "15.00", "15.00", "sweep"),
        (3, 2, "15.00", "15.00", "sweep"),
        (4, 2, "15.00", "15.00", "sweep"),
        (3, 1, "50.00", "50.00", "segments"),
        (4, 1, "80.00", "80.00", "segments"),
        (4, 3, "75.00", "75.00", "segments"),
    ]
    assert stacks(first) == {1: "313.00", 2: "244.00", 3: "209.00", 4: "29.00", 5: "100.00"}
    shown = {h["seat"]: h for h in first["hands"]}
    assert list(shown) == [1, 2, 3, 4]
    assert (shown[2]["sweep"], shown[2]["fouled"]) == ("three-flushes", False)
    assert shown[4]["fouled"] is True and not shown[1]["fouled"] and not shown[3]["fouled"]
    assert shown[1]["names"] == ["pair", "full-house", "straight-flush"]
    assert shown[3]["names"] == ["pair", "full-house", "four-of-a-kind"]
    assert shown[1]["front"] == ["Ks", "Kh", "2s"] and shown[3]["front"] == ["Kc", "Kd", "2d"]

    # -- round 2 ------------------------------------------------------------------------------
    assert second["button"] == 2 and not second.get("void")
    assert fees(second) == [(2, "2.00"), (3, "1.00"), (4, "1.00"), (5, "1.00")]
    assert points(second) == {
        (2, 3): 10,
        (2, 4): 10,
        (2, 5): 10,
        (3, 4): 3,
        (3, 5): 3,
        (4, 5): -3,
    }
    assert payments(second) == [
        (3, 2, "50.00", "50.00", "segments"),
        (4, 2, "50.00", "28.00", "segments"),  # all seat 4 started the round with
        (5, 2, "50.00", "50.00", "segments"),
        (4, 3, "15.00", "0.00", "segments"),
        (5, 3, "15.00", "15.00", "segments"),
        (4, 5, "15.00", "0.00", "segments"),
    ]
    assert stacks(second) == {1: "313.00", 2: "370.00", 3: "173.00", 4: "0.00", 5: "34.00"}
    assert [h["seat"] for h in second["hands"]] == [2, 3, 4, 5]
    assert not any(h["fouled"] or h["sweep"] for h in second["hands"])
    assert [h["names"] for h in second["hands"]] == [
        ["pair", "full-house", "straight-flush"],
        ["high-card", "two-pair", "full-house"],
        ["high-card", "pair", "pair"],
        ["high-card", "pair", "flush"],
    ]
    assert end["button"] == 2
    assert seat_stacks(end) == stacks(second)

    # -- round 3 ------------------------------------------------------------------------------
    assert third["void"] is True and third["button"] == 3
    assert third["fees"] == [] and third["payments"] == [] and third["hands"] == []
    assert stacks(third) == {1: "313.00", 2: "370.00", 3: "173.00", 5: "34.00"}
    assert last_state["button"] == 2  # the buttons go back with the misdeal
    assert seat_stacks(last_state) == stacks(third)

    # -- every reply ok, on either side of the restart -----------------------------------------
    replies = [m.payload for m in everything.messages if m.topic.endswith("/reply")]
    verbs = {m.topic.split("/cmd/")[1] for m in everything.messages if m.topic.endswith("/reply")}
    assert verbs == {
        "seat.take/reply",
        "hand.start/reply",
        "chinese.set/reply",
        "chinese.sweep/reply",
        "seat.leave/reply",
        "round.void/reply",
    }
    assert len(replies) == 5 + 3 + 8 + 1 + 1  # seats, rounds, hands, the leave, the void
    assert all(r["ok"] for r in replies), replies

    # -- no card of any hand on any topic but its round's result -------------------------------
    deck = {str(c) for c in standard_deck()}
    topics = {m.topic.removeprefix(BASE + "/") for m in everything.messages}
    assert {"state", "event", "round/result", "cmd/chinese.set", "cmd/chinese.sweep"} <= topics
    results: dict[int, Payload] = {}
    for m in everything.messages:
        if m.topic == f"{BASE}/round/result":
            number = m.payload["round"]
            assert number not in results  # one result a round
            results[number] = m.payload
            named = cards_named(m.payload)
            assert named == (deck if number in HANDS else set()), (number, named ^ deck)
        elif "/cmd/" in m.topic and not m.topic.endswith("/reply"):
            # the dealer console's own commands, the table's inputs: only the two that enter a
            # hand name cards (a locked broker lets no floor or display read cmd/)
            if cards_named(m.payload):
                assert m.topic in (f"{BASE}/cmd/chinese.set", f"{BASE}/cmd/chinese.sweep"), m
        else:
            assert not cards_named(m.payload), (m.topic, m.payload)
    assert sorted(results) == [1, 2, 3]
    for number, result in results.items():
        if number in HANDS:
            for hand in result["hands"]:
                assert hand["cards"] == thirteen(HANDS[number][hand["seat"]])
    # the scan has teeth: what the console entered names every card of both rounds
    entered = [
        cards_named(m.payload)
        for m in everything.messages
        if re.fullmatch(rf"{BASE}/cmd/chinese\.(set|sweep)", m.topic)
    ]
    assert len(entered) == 8 and all(len(e) == 13 for e in entered)
    # and every hand's `event` echo named its seat only
    echoes = [
        m.payload
        for m in everything.messages
        if m.topic == f"{BASE}/event" and m.payload["type"].startswith("chinese.")
    ]
    assert sorted(e["seat"] for e in echoes) == [1, 2, 2, 3, 3, 4, 4, 5]
    envelope = {"table", "seq", "ts", "v", "type", "seat", "sweep"}
    assert all(set(e) <= envelope for e in echoes), echoes
