"""Pure 21.5 Blackjack end to end: card-reading shoe -> real driver -> daemon -> real Mosquitto.

issue 3: the player's decisions are "entered at the dealer console (`decision` events and
`cmd/decision`)". The table is config/pure-21.5-blackjack-003-6to5.toml as shipped (document
003 "Pure 21.5 Blackjack 6 to 5": 6 to 5, Red Flex RFB-12, Buster option 1, insurance, the action
from the player-dealer's left, settled by wager type; collection schedule option 5), with only the
shoe's port, the broker's port, the journal path and the schedule file's folder changed, as
tests/integration/test_device_classes_e2e.py does. The simulated shoe (SimulatedShoe, a real pty) is
loaded with known cards; the daemon runs in-process with MQTT on; a dealer console sends `cmd/bank`,
`cmd/wager`, `cmd/bets.close` and `cmd/decision` and a floor subscriber records everything under the
base topic. Two rounds are played, each worked by hand in its docstring from the documents and
RULINGS.md, and the hole card is checked against every topic by `seq`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.floor import (
    assert_bank_balances,
    assert_cards_hidden_until_shown,
    assert_no_refusals,
    dealer_fee,
    events,
    latest_state,
    round_result,
    running_table,
    settled,
    shipped_config,
    table_outputs,
)
from tests.integration.harness import Console

pytestmark = pytest.mark.integration

CONFIG_NAME = "pure-21.5-blackjack-003-6to5.toml"
BASE = "tablectl/cardroom-1/bj-03"  # site and table of the shipped config
SHOE_PORT = "/dev/tablectl-shoe"
Payload = dict[str, Any]

# Seat 4 is the player-dealer both rounds (R5: two hands per turn). Seats 5 and 1 play; the deal
# goes clockwise from the player-dealer's left, seat 5 then seat 1, the player-dealer last, twice,
# its second card face down (003 "Pure 21.5 Blackjack 6 to 5: Round of Play").
R1_DEAL = ["8h", "Tc", "Ah", "8c", "7d", "6c"]
R1_HOLE = "6c"
R2_DEAL = ["Js", "7c", "8h", "6s", "4d", "8d"]
R2_HOLE = "8d"
LEFT_IN_SHOE = ["Qh", "3c"]  # never drawn: no topic may ever name them


def test_blackjack_split_double_chart_1b_round_then_888_round_R13_R14_R15_R16_R17_R19_R1_R4(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Two rounds through the live path, then every published message checked for the hole cards.

    Round 1, seat 4 banks $500 (turn 1). Seat 5: base 40, Red Flex 5, Buster 5; seat 1: base 10.
    Deal: seat 5 8h, seat 1 Tc, player-dealer Ah up, seat 5 8c, seat 1 7d, hole card 6c.
      Ace up: insurance is offered (003 "Pure 21.5 Blackjack 6 to 5: Insurance and Even Money",
      R17); seat 1 insures for 5 (half its 10), seat 5 declines and bets.close ends the offer. The
      hole card is checked (003 "Pure 21.5 Blackjack 6 to 5: Game Rules", R12):
      Ah 6c is no Pure 21.5, so the hands play and the hole card stays down.
      Seat 5 splits its eights for an equal 40 (003 "Pure 21.5 Blackjack 6 to 5: Double-Down, Split,
      and Surrender", R16): hand 1 8h gets 3d, hard 11, and doubles for the full 40 after the split
      (003 "Pure 21.5 Blackjack 6 to 5: Double-Down, Split, and Surrender"): one card, 9s, 20.
      Hand 2 8c gets 2h, hard 10: a stand here is against Chart 1A ("Must Hit on Hard 11 or
      less", 003 "Pure 21.5 Blackjack 6 to 5: Chart 1A", R15) and is refused as a dealer error,
      nothing changed; it hits Kd, 20, and stands. Seat 1 stands on hard 17 (an option,
      003 "Pure 21.5 Blackjack 6 to 5: Chart 1A"); that was the last hand, so the hole card is
      turned up (003 "Pure 21.5 Blackjack 6 to 5: Round of Play") in the stand's echo.
      Player-dealer by Chart 1B (003 "Pure 21.5 Blackjack 6 to 5: Chart 1B", R14): Ah 6c is soft 17,
      must hit: 5d makes A+6+5 = hard 12 (the ace at 11 would be 22), hit: 5s, hard 17, stand.
      Seat 5: 20 and 20 beat 17 (003 "Pure 21.5 Blackjack 6 to 5: Game Rules"); seat 1: 17 = 17,
      push (003 "Pure 21.5 Blackjack 6 to 5: Game Rules").
      Red Flex: Ah red, 6c black: the first two are not both red, it loses
      (003 "Pure 21.5 Blackjack 6 to 5: Red Flex Bet", R18).
      Buster: 17 is no bust, it loses (003 "Pure 21.5 Blackjack 6 to 5: Buster Blackjack Bonus Bet",
      R19). Insurance: the hole card is no bonus card, it loses (R17).
      Bank walk (R1): insurance first, then by wager type from the player-dealer's left, seat 5
      then seat 1 (003 "Pure 21.5 Blackjack 6 to 5: Round of Play", R2, R3):
        seat 1 insurance 5: lose                          -5   funds 505
        seat 5 base hand 1, 40 + 40 doubled: win 1 to 1   +80   funds 425
        seat 5 base hand 2, 40 (the split): win           +40   funds 385
        seat 1 base 10: push                               0   funds 385
        seat 5 Red Flex 5: lose                           -5   funds 390
        seat 5 Buster 5: lose                             -5   funds 395
      Bank 500.00 -> 395.00. Fee (R4, 003 "Pure 21.5 Blackjack 6 to 5: Wagering Limits and
      Collection Fees"): total table action counts the wagers before the deal only, 40+5+5+10 = 60
      (not the split, the double or insurance), in the $51-$100 bracket of option 5: the
      player-dealer pays $1 (003 "Pure 21.5 Blackjack 6 to 5: Wagering Limits and Collection Fees");
      players pay $0 (line 810).

    Round 2, seat 4 banks $500 again (turn 2). Seat 5: base 20, Red Flex 5, Buster 5; seat 1:
    base 10. Deal: seat 5 Js, seat 1 7c, player-dealer 8h up, seat 5 6s, seat 1 4d, hole 8d.
      8 up: no insurance, no peek (R12, R17). Seat 5 holds hard 16 (an option) and hits 9c: 25,
      bust. Seat 1 holds hard 11 and doubles for less, 5
      (003 "Pure 21.5 Blackjack 6 to 5: Double-Down, Split, and Surrender": "equal to or less than
      the player's original wager"): one card, 2c, 13. The last hand is done: the hole card is
      turned in the echo of 2c. Player-dealer: 8h 8d is hard 16, must hit (R14): 8s, 888.
      888 (003 "Pure 21.5 Blackjack 6 to 5: Game Rules", R13): seat 5's busted hand pushes. 888 is a
      bust (24): seat 1's 13 wins 1 to 1 on 10 + 5 (003 "Pure 21.5 Blackjack 6 to 5: Game Rules").
      Red Flex: 8h 8d red, 8s black ends the run: two red cards, 2 to 1 (003 "Pure 21.5 Blackjack 6
      to 5: Red Flex Bet", R18). Buster: a three-card bust, 888 included, 1 to 1 (003 "Pure 21.5
      Blackjack 6 to 5: Buster Blackjack Bonus Bet Pay Table", R19).
        seat 5 base 20: push                               0   funds 500
        seat 1 base 10 + 5 doubled: win                   +15   funds 485
        seat 5 Red Flex 5: 2 to 1                         +10   funds 475
        seat 5 Buster 5: 1 to 1                            +5   funds 470
      Bank 500.00 -> 470.00. Fee: total action 20+5+5+10 = 40, in the $5-$50 bracket: $0.50
      (003 "Pure 21.5 Blackjack 6 to 5: Wagering Limits and Collection Fees")."""
    with SimulatedShoe() as shoe:
        cfg = shipped_config(
            tmp_path, CONFIG_NAME, ports={SHOE_PORT: shoe.port}, mqtt_port=mosquitto.port
        )
        with running_table(cfg, mosquitto, BASE, ["shoe"]) as (console, floor):
            shoe.load(_all_cards())
            floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
            rejected = play_round_1(shoe, console, floor)
            first = round_result(floor, 1)
            play_round_2(shoe, console, floor)
            second = round_result(floor, 2)

    assert_round_1(first)
    assert_round_2(second)
    assert_chart_1a_dealer_error(floor, rejected)
    assert_no_refusals(floor)
    assert_hole_cards_hidden(floor, first, second)


def _all_cards() -> list[str]:
    """Every card the shoe holds, in draw order: both rounds, then the two never drawn."""
    round_1 = [*R1_DEAL, "3d", "9s", "2h", "Kd", "5d", "5s"]
    round_2 = [*R2_DEAL, "9c", "2c", "8s"]
    return [*round_1, *round_2, *LEFT_IN_SHOE]


# -- driving the table -----------------------------------------------------------------------------


def draw(shoe: SimulatedShoe, floor: Console, *cards: str) -> None:
    """Draw `cards` one at a time, each checked against the shoe, waiting after each until the
    daemon has published its echo and the `state` after it (a card's last output)."""
    for card in cards:
        before = len(events(floor, "shoe.card"))
        assert shoe.draw() == card
        floor.wait_for(f"the echo of {card}", functools.partial(echoed, floor, before + 1))
        seq = events(floor, "shoe.card")[-1]["seq"]
        floor.wait_for(f"the state after {card}", functools.partial(state_after, floor, seq))


def echoed(floor: Console, count: int) -> bool:
    """At least `count` `shoe.card` echoes have arrived."""
    return len(events(floor, "shoe.card")) >= count


def state_after(floor: Console, seq: int) -> bool:
    """A `state` newer than `seq` has arrived."""
    return any(s["seq"] > seq for s in floor.on("state"))


def command(console: Console, floor: Console, verb: str, body: Payload) -> Payload:
    """Send `cmd/<verb>` from the console and return its reply once the floor has it too, so
    the floor also holds every output before it (its `event`, `state` or `alert`: the relay
    publishes in seq order)."""
    reply = console.send(verb, body)
    floor.wait_for(f"the reply to {verb} {body}", functools.partial(replied, floor, verb, reply))
    return reply


def ok(console: Console, floor: Console, verb: str, body: Payload) -> None:
    """`command`, which the table must accept."""
    reply = command(console, floor, verb, body)
    assert reply["ok"], reply


def replied(floor: Console, verb: str, reply: Payload) -> bool:
    """`reply` (to `cmd/<verb>`) has reached the floor."""
    return any(r["seq"] == reply["seq"] for r in floor.on(f"cmd/{verb}/reply"))


def open_round(console: Console, floor: Console, base: str) -> None:
    """Seat 4 banks $500; seat 5 bets `base` with Red Flex 5 and Buster 5, seat 1 bets 10; no
    more bets."""
    ok(console, floor, "bank", {"seat": 4, "amount": "500"})
    ok(console, floor, "wager", {"seat": 5, "spot": "base", "amount": base})
    ok(console, floor, "wager", {"seat": 5, "spot": "red-flex", "amount": "5"})
    ok(console, floor, "wager", {"seat": 5, "spot": "buster", "amount": "5"})
    ok(console, floor, "wager", {"seat": 1, "spot": "base", "amount": "10"})
    ok(console, floor, "bets.close", {})


def play_round_1(shoe: SimulatedShoe, console: Console, floor: Console) -> Payload:
    """Round 1 as its docstring says; returns the refused stand's reply, with the `state` just
    before it (`"before"`) and the newest `state` once it was answered (`"after"`)."""
    open_round(console, floor, "40")
    draw(shoe, floor, *R1_DEAL)
    state = latest_state(floor)
    assert state["phase"] == "insurance"  # an ace up (R17)
    assert state["insurance"]["pending"] == [5, 1]
    ok(console, floor, "decision", {"seat": 1, "action": "insurance", "amount": "5"})
    # seat 5 declines: bets.close ends the offer and the hole card is checked (R12)
    ok(console, floor, "bets.close", {})
    state = latest_state(floor)
    assert (state["phase"], state["peeked"]) == ("playing", True)
    assert state["player_dealer"]["cards"] == ["Ah"]
    assert state["player_dealer"]["hole_card_down"] is True
    assert state["turn"] == {"seat": 5, "hand": 1}
    ok(console, floor, "decision", {"seat": 5, "action": "split"})
    draw(shoe, floor, "3d")  # hand 1: 8h 3d, hard 11
    ok(console, floor, "decision", {"seat": 5, "hand": 1, "action": "double", "amount": "40"})
    draw(shoe, floor, "9s", "2h")  # hand 1's one double card; hand 2's second card: 8c 2h
    before = latest_state(floor)
    assert before["turn"] == {"seat": 5, "hand": 2}
    assert before["legal"] == ["hit", "double"]  # hard 10: no stand (R15), no surrender (R16)
    reply = command(console, floor, "decision", {"seat": 5, "hand": 2, "action": "stand"})
    rejected = {**reply, "before": before, "after": latest_state(floor)}
    draw(shoe, floor, "Kd")
    assert [e["to"] for e in events(floor, "shoe.card")][-1] == {"seat": 5, "hand": 2}
    ok(console, floor, "decision", {"seat": 5, "hand": 2, "action": "stand"})
    # seat 1's is the last hand: its stand turns the hole card over
    # (003 "Pure 21.5 Blackjack 6 to 5: Round of Play")
    ok(console, floor, "decision", {"seat": 1, "action": "stand"})
    state = latest_state(floor)
    assert state["player_dealer"]["cards"] == ["Ah", R1_HOLE]
    assert state["next_card"] == "player-dealer"  # soft 17 hits (R14)
    draw(shoe, floor, "5d", "5s")
    return rejected


def play_round_2(shoe: SimulatedShoe, console: Console, floor: Console) -> None:
    """Round 2 as the test's docstring says."""
    open_round(console, floor, "20")
    draw(shoe, floor, *R2_DEAL)
    state = latest_state(floor)
    assert (state["phase"], state["peeked"], state["insurance"]) == ("playing", False, None)
    assert state["turn"] == {"seat": 5, "hand": 1}
    draw(shoe, floor, "9c")  # seat 5 hits hard 16: 25, bust; the turn passes to seat 1
    assert latest_state(floor)["turn"] == {"seat": 1, "hand": 1}
    ok(console, floor, "decision", {"seat": 1, "action": "double", "amount": "5"})
    draw(shoe, floor, "2c", "8s")  # seat 1's double card turns the hole card; the 888 hit


# -- what the floor received -----------------------------------------------------------------------


def assert_round_1(result: Payload) -> None:
    """Round 1's settlements, bank, fee and hands, as worked in the test's docstring."""
    assert settled(result) == [
        (1, "insurance", "5.00", "lose", "-5.00"),
        (5, "base", "80.00", "win", "80.00"),
        (5, "base", "40.00", "win", "40.00"),
        (1, "base", "10.00", "push", "0.00"),
        (5, "red-flex", "5.00", "lose", "-5.00"),
        (5, "buster", "5.00", "lose", "-5.00"),
    ]
    assert [(s.get("hand"), s.get("result")) for s in result["settlements"]] == [
        (None, None),
        (1, "win"),
        (2, "win"),
        (1, "push"),
        (None, None),
        (None, None),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "395.00", "turn": 1}
    assert_bank_balances(result)
    assert result["action_seat"] == 5
    assert result["fees"] == [dealer_fee(4, "1.00", 5, "60.00")]
    outcome = result["outcome"]
    dealer = outcome["player_dealer"]
    assert dealer["cards"] == ["Ah", R1_HOLE, "5d", "5s"]
    assert (dealer["up_card"], dealer["hole_card"]) == ("Ah", R1_HOLE)
    assert (dealer["total"], dealer["soft"], dealer["rank"]) == (17, False, "hard 17")
    assert dealer["eight_eight_eight"] is False
    assert outcome["peek"] is True
    hands = [(h["seat"], h["hand"], h["cards"], h["total"], h["end"]) for h in outcome["hands"]]
    assert hands == [
        (5, 1, ["8h", "3d", "9s"], 20, "doubled"),
        (5, 2, ["8c", "2h", "Kd"], 20, "stand"),
        (1, 1, ["Tc", "7d"], 17, "stand"),
    ]
    assert [h["split"] for h in outcome["hands"]] == [True, True, False]
    assert [h["doubles"] for h in outcome["hands"]] == [["40.00"], [], []]
    assert outcome["red_flex"] == {"count": 0, "category": None}
    assert outcome["buster"] == {"cards": None, "category": None}


def assert_round_2(result: Payload) -> None:
    """Round 2's settlements, bank, fee and hands: 888 (R13, R19)."""
    assert settled(result) == [
        (5, "base", "20.00", "push", "0.00"),
        (1, "base", "15.00", "win", "15.00"),
        (5, "red-flex", "5.00", "win", "10.00"),
        (5, "buster", "5.00", "win", "5.00"),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "470.00", "turn": 2}
    assert_bank_balances(result)
    assert result["action_seat"] == 5
    assert result["fees"] == [dealer_fee(4, "0.50", 5, "40.00")]
    outcome = result["outcome"]
    dealer = outcome["player_dealer"]
    assert dealer["cards"] == ["8h", R2_HOLE, "8s"]
    assert (dealer["total"], dealer["rank"], dealer["eight_eight_eight"]) == (24, "888", True)
    assert outcome["peek"] is False
    hands = [(h["seat"], h["cards"], h["total"], h["end"]) for h in outcome["hands"]]
    assert hands == [(5, ["Js", "6s", "9c"], 25, "bust"), (1, ["7c", "4d", "2c"], 13, "doubled")]
    assert outcome["red_flex"] == {"count": 2, "category": "red-2"}
    assert outcome["buster"] == {"cards": 3, "category": "cards-3"}


def assert_chart_1a_dealer_error(floor: Console, rejected: Payload) -> None:
    """R15: a stand on hard 10 against Chart 1A ("Must Hit on Hard 11 or less",
    003 "Pure 21.5 Blackjack 6 to 5: Chart 1A") is answered ok:false, raises a `dealer-error` alert
    naming no card, and changes nothing: no `state` is published for it and the newest `state` is
    the one before it."""
    assert rejected["ok"] is False
    assert rejected["rule"] == "R15"
    (alert,) = [a for a in floor.on("alert") if a["kind"] == "dealer-error"]
    assert (alert["rule"], alert["source"]) == ("R15", "cmd/decision")
    assert alert["input"] == {"type": "decision", "seat": 5, "action": "stand", "hand": 2}
    assert alert["seq"] < rejected["seq"]
    before, after = rejected["before"], rejected["after"]
    assert after == before
    between = [s["seq"] for s in floor.on("state") if before["seq"] < s["seq"] < rejected["seq"]]
    assert between == []


def assert_hole_cards_hidden(floor: Console, first: Payload, second: Payload) -> None:
    """DESIGN contract 3, 003 "Pure 21.5 Blackjack 6 to 5: Round of Play": each hole card is echoed
    face down without its card and first named by the echo of the input that turns it over (round 1
    the last hand's stand, round 2 the last hand's double card); no message with a lower seq on any
    topic (echoes, `state`, replies, alerts) names it. The cards left in the shoe never appear."""
    down = [e for e in events(floor, "shoe.card") if e.get("face_down")]
    assert [("card" in e, e["round"], e["to"]) for e in down] == [
        (False, 1, "player-dealer"),
        (False, 2, "player-dealer"),
    ]
    turned = [e for e in floor.on("event") if "hole_card" in e]
    turned.sort(key=lambda e: e["seq"])
    assert [(e["type"], e["round"], e["hole_card"]) for e in turned] == [
        ("decision", 1, R1_HOLE),
        ("shoe.card", 2, R2_HOLE),
    ]
    assert (turned[0]["seat"], turned[0]["action"]) == (1, "stand")
    assert turned[1]["card"] == "2c"
    assert turned[0]["seq"] < first["seq"] < turned[1]["seq"] < second["seq"]
    shown = {R1_HOLE: turned[0]["seq"], R2_HOLE: turned[1]["seq"]}
    assert_cards_hidden_until_shown(floor, shown, never=LEFT_IN_SHOE)
    outputs = table_outputs(floor.messages)
    for card, seq in shown.items():  # and the turning echo is indeed the first to name it
        assert min(s for s, text in outputs if json.dumps(card) in text) == seq
