"""Every device class end to end: emulator -> real driver -> daemon -> real Mosquitto -> subscriber.

issue 5, "Done when": each device class runs end to end in tests. Each test plays one short round
of the game the device serves, from a shipped config in config/ (only the ports, the broker port,
the journal path and the schedule file's folder are changed): the daemon runs in-process with MQTT
enabled (harness.DaemonThread), a dealer console sends `cmd/bank`, `cmd/wager`, `cmd/decision`
over MQTT, and a separate floor subscriber on `<base>/#` records what the table published.

- Three Card Poker: the stack-of-three shuffler (SimulatedDispenser on a real pty); - Fortune Pai
Gow: the dice cup (SimulatedDice) and the 7-card hand dispenser with the joker; - Ultimate Texas
Hold'em: the hand dispenser dealing 2-card hands and the 5-card board; - EZ Baccarat: a card-reading
shoe that is a plain USB device, through the simulated pyusb backend
(tablectl_drivers/sim/usb_backend.py; pyusb's own code runs) and tablectl_drivers/connect.py. The
daemon builds every driver from its config alone, so the backend reaches it through a driver plugin
registered under the `tablectl.drivers` entry-point group (harness.SimUsbPlugin).

Every emulator is loaded with known cards, so each settlement below is worked by hand from the
rule documents (the shared seeds) and the rulings, and compared with the `round/result` the
floor received. Each test also checks, by `seq`, that no card appeared on any topic before the
table showed it, and that the cards nobody sees (folded and discarded hands, cards left in the
device) never appeared at all. Every wait is for a condition, bounded by a timeout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl_base.cards import DeckKind, deck_of
from tablectl_drivers.sim.dice import SimulatedDice
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.shoe import ShoeModel
from tablectl_drivers.sim.usb_backend import SimUsbBackend, SimUsbDevice
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
)
from tests.integration.harness import (
    SIM_USB_BACKENDS,
    SIM_USB_SHOE,
    SimUsbPlugin,
    write_config,
)

pytestmark = pytest.mark.integration


# -- Three Card Poker 6 Card Bonus: the stack-of-three shuffler ------------------------------------

TCP_SEAT_1 = ["7s", "7d", "3c"]  # a pair of sevens
TCP_SEAT_2 = ["Kh", "Jd", "Ts"]  # king-high; this seat folds
TCP_DEALER = ["Ac", "Qc", "5d"]  # ace-high; Ac, first out, is the face-up card
TCP_LEFT_IN_SHUFFLER = ["2h", "3h", "4h"]


def test_three_card_poker_shuffler_round_one_plays_one_folds_R29_R1_R2_R4(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """config/three-card-poker-6cb-004.toml (TCB-6B2, PP-MR200, schedule 1). Seat 4 banks $500;
    seat 1: Ante 10, Pair Plus 5; seat 2: Ante 20, 6 Card Bonus 5; seat 1 plays, seat 2 folds.

    Stacks go to the Ante seats clockwise from the player-dealer's left, its own last (R29):
    seat 1 7s 7d 3c, seat 2 Kh Jd Ts, seat 4 Ac Qc 5d. The first card out, Ac, is the face-up
    bottom card (004 "Three Card Poker 6 Card Bonus: Dealing procedures", R29). Ac = 1 counts one
    seat from seat 1 (R2): action at seat 1.
    The player-dealer's A-Q-5 is ace-high, above queen-high: it qualifies
    (004 "Three Card Poker 6 Card Bonus: Round of Play").

    Seat 1 (by seat, Ante, Play, Pair Plus, 6CB: 004 "Three Card Poker 6 Card Bonus: Method Used to
    Determine Action and Distribution of Cards"), the bank walk of R1 from $500:
      Ante 10: a pair beats ace-high, 1:1                          +10  funds 490
        (004 "Three Card Poker 6 Card Bonus: How Each Wager Wins, Loses or Pushes")
      Play 10: the same                                            +10  funds 480
      Pair Plus 5: one pair 1:1                                     +5  funds 475
        (004 "Three Card Poker 6 Card Bonus: Pair Plus Wager")
    Seat 2 folded (004 "Three Card Poker 6 Card Bonus: Round of Play"):
      Ante 20: forfeited by the fold                               -20  funds 495
      6 Card Bonus 5: stays in action (004 "Three Card Poker 6 Card Bonus: Round of Play"); best
        five of Kh Jd Ts + Ac Qc 5d is A-K-Q-J-T, a straight, 10:1 on TCB-6B2
        (004 "Three Card Poker 6 Card Bonus: 6 Card Bonus")        +50  funds 445
    Bank 500.00 -> 445.00: the nets 10+10+5-20+50 = +55 and the bank's change -55 sum to zero.
    Fee (R4): total action = antes and bonus bets before the deal = 10+5+20+5 = 40, in the
    $5-$45 bracket: the player-dealer pays $0.50
    (004 "Three Card Poker 6 Card Bonus: Wagering Limits and Collection Fees"); players pay $0."""
    base = "tablectl/cardroom-1/tcp-04"
    with SimulatedDispenser(stack_size=3) as shuffler:
        cfg = shipped_config(
            tmp_path,
            "three-card-poker-6cb-004.toml",
            ports={"/dev/tablectl-shuffler": shuffler.port},
            mqtt_port=mosquitto.port,
        )
        with running_table(cfg, mosquitto, base, ["shuffler"]) as (console, floor):
            shuffler.load(TCP_SEAT_1 + TCP_SEAT_2 + TCP_DEALER + TCP_LEFT_IN_SHUFFLER, "red")
            console.ok("bank", {"seat": 4, "amount": "500"})
            console.ok("wager", {"seat": 1, "spot": "ante", "amount": "10"})
            console.ok("wager", {"seat": 1, "spot": "pair-plus", "amount": "5"})
            console.ok("wager", {"seat": 2, "spot": "ante", "amount": "20"})
            console.ok("wager", {"seat": 2, "spot": "six-card-bonus", "amount": "5"})
            console.ok("bets.close", {})
            for _ in range(3):
                shuffler.dispense()
            floor.wait_for("the decisions", lambda: latest_state(floor)["phase"] == "deciding")
            console.ok("decision", {"seat": 1, "action": "play"})
            console.ok("decision", {"seat": 2, "action": "fold"})
            result = round_result(floor, 1)

    assert settled(result) == [
        (1, "ante", "10.00", "win", "10.00"),
        (1, "play", "10.00", "win", "10.00"),
        (1, "pair-plus", "5.00", "win", "5.00"),
        (2, "ante", "20.00", "lose", "-20.00"),
        (2, "six-card-bonus", "5.00", "win", "50.00"),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "445.00", "turn": 1}
    assert_bank_balances(result)
    assert result["action_seat"] == 1
    assert result["fees"] == [dealer_fee(4, "0.50", 1, "40.00")]
    dealer = result["outcome"]["player_dealer"]
    assert (dealer["cards"], dealer["face_up"], dealer["qualified"]) == (TCP_DEALER, "Ac", True)
    assert result["devices"] == [{"name": "shuffler", "serial": None}]  # a pty has no by-id name
    # the stacks are the shuffler's stacks 1-3 of its shuffle 1 (the simulator's first)
    assert result["positions"] == [{"device": "shuffler", "run": "1", "pos": [1, 2, 3]}]
    assert "entered_by_hand" not in result
    assert_no_refusals(floor)

    # Only the player-dealer's bottom card shows before the result: in its stack's echo.
    (dealer_stack,) = [e for e in events(floor, "shuffler.stack") if e["hand"] == "player-dealer"]
    assert dealer_stack["face_up"] == "Ac"
    shown = {card: result["seq"] for card in TCP_SEAT_1 + TCP_DEALER[1:]}
    shown["Ac"] = dealer_stack["seq"]
    assert_cards_hidden_until_shown(floor, shown, never=TCP_SEAT_2 + TCP_LEFT_IN_SHUFFLER)


# -- Fortune Pai Gow Poker: the dice cup and the 7-card hand dispenser with the joker --------------

PGP_SEAT_5 = ["Ah", "Qc", "Td", "8s", "6h", "4c", "3d"]  # no pair; set by the house way
PGP_SEAT_2 = ["JKR", "As", "Ac", "9d", "8c", "6s", "4h"]  # three aces (the joker is an ace)
PGP_DEALER = ["Kc", "Kd", "9s", "7h", "5c", "3h", "2s"]  # one pair of kings


def pai_gow_deal() -> tuple[list[list[str]], list[str]]:
    """The seven hands in dispense order from the dice's position (seats 5 6 7 1 2 3 4) and the
    four cards left in the dispenser
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"). Seats 6, 7, 1, 3 have no
    wager: their hands are the rest of the 53-card deck in its canonical order."""
    used = set(PGP_SEAT_5 + PGP_SEAT_2 + PGP_DEALER)
    rest = [str(c) for c in deck_of(DeckKind.JOKER_53) if str(c) not in used]
    assert len(rest) == 53 - 21
    unplayed = [rest[i : i + 7] for i in range(0, 28, 7)]  # seats 6, 7, 1, 3
    hands = [PGP_SEAT_5, *unplayed[:3], PGP_SEAT_2, unplayed[3], PGP_DEALER]
    return hands, rest[28:]


def test_fortune_pai_gow_dice_cup_and_hand_dispenser_round_R30_R31_R1_R4(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """config/fortune-pai-gow-003.toml (003 house way, FORTUNE-003, schedule 7). Seat 4 banks
    $500; seat 5: base 10; seat 2: base 10, Fortune 5. The cup reads 2+3+4 = 9.

    R30 (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"): the player-dealer (seat
    4) is position 1, 8 and 15; 9 is the seat after it, seat 5, which gets the first hand and the
    Action button; the hands go on clockwise to all seven positions
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"): seats 5 6 7 1 2 3 4. Seat 5
    asks for the house way, seat 2 sets its own hand: A-9 in front, JKR-A-8-6-4 (a pair of aces)
    behind (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play").

    House way (003 "Fortune Pai Gow Poker House Way", docs/games/fortune-pai-gow.md; no straight or
    flush can be made, so the golden rule, line 1447, changes nothing):
      player-dealer, one pair (line 1431): the pair behind, the two highest others in front:
        K-K-5-3-2 behind, 9-7 in front;
      seat 5, no pair (line 1430): the 2nd and 3rd highest in front: Q-T; A-8-6-4-3 behind.
    Game wagers (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid"):
      seat 5: ace-high behind < a pair of kings; Q-T > 9-7 in front: push;
      seat 2: aces > kings behind; A-9 > 9-7 in front: win, 1 to 1.
    Fortune (003 "Fortune Pai Gow Poker: Fortune Bonus Bet", "Bonus Bet Paytable"): seat 2's seven
    cards make three aces, 3 to 1. Seat 2's Fortune of $5 earns an Envy button (R32), but no other
    hand with a Fortune wager has four of a kind or better, so it pays nothing.
    Bank walk from the button clockwise, each seat: base, Fortune, Envy
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play", R1):
      seat 5 base 10: push                           0   funds 500
      seat 2 base 10: win                          +10   funds 490
      seat 2 Fortune 5: three of a kind 3 to 1     +15   funds 475
    Bank 500.00 -> 475.00. Fee (R4): total action 10+10+5 = 25, in the $5-$100 bracket: the
    player-dealer pays $1 (003 "Fortune Pai Gow Poker: Collection Fees"); players pay $0."""
    base = "tablectl/cardroom-1/pgp-01"
    hands, left_in_dispenser = pai_gow_deal()
    with SimulatedDice() as cup, SimulatedDispenser(stack_size=7, joker=True) as dispenser:
        cfg = shipped_config(
            tmp_path,
            "fortune-pai-gow-003.toml",
            ports={"/dev/tablectl-dice-cup": cup.port, "/dev/tablectl-dispenser": dispenser.port},
            mqtt_port=mosquitto.port,
        )
        with running_table(cfg, mosquitto, base, ["dice", "dispenser"]) as (console, floor):
            dispenser.load([card for hand in hands for card in hand] + left_in_dispenser, "red")
            console.ok("bank", {"seat": 4, "amount": "500"})
            console.ok("wager", {"seat": 5, "spot": "base", "amount": "10"})
            console.ok("wager", {"seat": 2, "spot": "base", "amount": "10"})
            console.ok("wager", {"seat": 2, "spot": "fortune", "amount": "5"})
            cup.shake([2, 3, 4])
            floor.wait_for("the dice", lambda: bool(events(floor, "dice.roll")))
            for _ in range(7):
                dispenser.dispense()
            floor.wait_for("the settings", lambda: latest_state(floor)["phase"] == "setting")
            console.ok("decision", {"seat": 5, "action": "house-way"})
            console.ok("decision", {"seat": 2, "action": "set", "low": ["Ac", "9d"]})
            result = round_result(floor, 1)

    (roll,) = events(floor, "dice.roll")
    assert (roll["dice"], roll["total"], roll["first_seat"], roll["button_seat"]) == (
        [2, 3, 4],
        9,
        5,
        5,
    )
    assert [e["to"] for e in events(floor, "shuffler.stack")] == [5, 6, 7, 1, 2, 3, 4]
    assert settled(result) == [
        (5, "base", "10.00", "push", "0.00"),
        (2, "base", "10.00", "win", "10.00"),
        (2, "fortune", "5.00", "win", "15.00"),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "475.00", "turn": 1}
    assert_bank_balances(result)
    assert result["action_seat"] == 5
    assert result["fees"] == [dealer_fee(4, "1.00", 7, "25.00")]
    outcome = result["outcome"]
    dealer = outcome["player_dealer"]
    assert (dealer["set_by"], dealer["house_way_row"]) == ("house-way", "one-pair")
    assert sorted(dealer["low"]["cards"]) == sorted(["9s", "7h"])
    by_seat = {h["seat"]: h for h in outcome["hands"]}
    assert [h["seat"] for h in outcome["hands"]] == [5, 2]
    assert by_seat[5]["set_by"] == "house-way"
    assert sorted(by_seat[5]["low"]["cards"]) == sorted(["Qc", "Td"])
    assert (by_seat[5]["result"], by_seat[2]["result"]) == ("push", "win")
    assert by_seat[2]["fortune"] == "three-of-a-kind"
    assert outcome["envy_hands"] == []
    assert result["devices"] == [
        {"name": "dice", "serial": None},
        {"name": "dispenser", "serial": None},
    ]
    # the cup's roll 1 (its count has no runs) and the dispenser's stacks 1-7 of its
    # shuffle 1
    assert result["positions"] == [
        {"device": "dice", "run": None, "pos": [1]},
        {"device": "dispenser", "run": "1", "pos": [1, 2, 3, 4, 5, 6, 7]},
    ]
    assert_no_refusals(floor)

    # No card at all before the showdown (003 "Fortune Pai Gow Poker: Dealing Procedures and Round
    # of Play": the piles are face down); the hands of the seats without a wager (003 "Fortune Pai
    # Gow Poker: Dealing Procedures and Round of Play") and the four cards left never appear.
    shown = {card: result["seq"] for card in PGP_SEAT_5 + PGP_SEAT_2 + PGP_DEALER}
    unplayed = [card for hand in [*hands[1:4], hands[5]] for card in hand]
    assert_cards_hidden_until_shown(floor, shown, never=unplayed + left_in_dispenser)


# -- Ultimate Texas Hold'em: the hand dispenser dealing 2-card hands and the 5-card board ----------

UTH_SEAT_1 = ["Ah", "Qh"]
UTH_DEALER = ["Kc", "Kd"]
UTH_BOARD = ["Kh", "9h", "4h", "7s", "2c"]
UTH_LEFT_IN_DISPENSER = ["3d", "5d"]


def test_ultimate_texas_holdem_hand_dispenser_round_bet_4x_preflop_R35_R1_R4(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """config/ultimate-texas-holdem-003.toml (BLIND-003, TRIPS-003, BADBEAT-003, schedule 1).
    Seat 4 banks $500; seat 1: Ante 10, Blind 10, Trips 5, Bad Beat 5; seat 1 bets 4x pre-flop.

    The automatic shuffler deals two cards to each Ante-and-Blind seat, two to the
    player-dealer, then the five community cards (003 "Ultimate Texas Hold'em: Dealing Procedures
    and Round of Play"): seat 1 Ah Qh, seat 4 Kc Kd, board Kh 9h 4h 7s 2c. The 4x Play (003
    "Ultimate Texas Hold'em: Dealing Procedures and Round of Play") is 40; nobody is left to decide,
    so the whole board is turned over and the round settles.
    Seat 1: Ah Qh Kh 9h 4h, an ace-high flush. The player-dealer: Kc Kd Kh, three kings, which
    qualifies (pair or better: 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid",
    R35) and loses to the flush.
    Bank walk, seat by seat from the player-dealer's left, Ante, Play, Blind, Trips, Bad Beat
    (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play", R1):
      Ante 10: win 1 to 1                                                  +10  funds 490
        (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid")
      Play 40: win 1 to 1                                                  +40  funds 450
      Blind 10: a win with a flush, 3 to 2                                 +15  funds 435
        (003 "Ultimate Texas Hold'em: Blind Wager Payout Table")
      Trips 5: flush 6 to 1                                                +30  funds 405
        (003 "Ultimate Texas Hold'em: Trips Bonus Bet Payout Table")
      Bad Beat 5: the beaten hand, three kings, 9 to 1                     +45  funds 360
        (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", "Bad Beat Bonus Bet Payout Table")
    Bank 500.00 -> 360.00. Fee (R4): total action before the deal = 10+10+5+5 = 30 (never the
    Play, 003 "Ultimate Texas Hold'em: Collection Rates Schedule"), in the $5-$50 bracket: the
    player-dealer pays $1 (003 "Ultimate Texas Hold'em: Collection Rates Schedule")."""
    base = "tablectl/cardroom-1/uth-01"
    with SimulatedDispenser(stack_size=2) as dispenser:
        cfg = shipped_config(
            tmp_path,
            "ultimate-texas-holdem-003.toml",
            ports={"/dev/tablectl-dispenser": dispenser.port},
            mqtt_port=mosquitto.port,
        )
        with running_table(cfg, mosquitto, base, ["dispenser"]) as (console, floor):
            dispenser.load(UTH_SEAT_1 + UTH_DEALER + UTH_BOARD + UTH_LEFT_IN_DISPENSER, "red")
            console.ok("bank", {"seat": 4, "amount": "500"})
            for spot in ("ante", "blind"):
                console.ok("wager", {"seat": 1, "spot": spot, "amount": "10"})
            for spot in ("trips", "bad-beat"):
                console.ok("wager", {"seat": 1, "spot": spot, "amount": "5"})
            console.ok("bets.close", {})
            for size in (2, 2, 5):
                dispenser.dispense(size)
            floor.wait_for("pre-flop", lambda: latest_state(floor)["phase"] == "preflop")
            assert latest_state(floor)["board"] == []  # nothing turned over yet
            console.ok("decision", {"seat": 1, "action": "bet", "multiple": 4})
            result = round_result(floor, 1)

    assert settled(result) == [
        (1, "ante", "10.00", "win", "10.00"),
        (1, "play", "40.00", "win", "40.00"),
        (1, "blind", "10.00", "win", "15.00"),
        (1, "trips", "5.00", "win", "30.00"),
        (1, "bad-beat", "5.00", "win", "45.00"),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "360.00", "turn": 1}
    assert_bank_balances(result)
    assert result["fees"] == [dealer_fee(4, "1.00", 1, "30.00")]
    outcome = result["outcome"]
    assert outcome["board"] == UTH_BOARD
    assert (outcome["player_dealer"]["cards"], outcome["player_dealer"]["rank"]) == (
        UTH_DEALER,
        "three-of-a-kind",
    )
    (hand,) = outcome["hands"]
    assert (hand["cards"], hand["rank"], hand["result"]) == (UTH_SEAT_1, "flush", "win")
    assert result["devices"] == [{"name": "dispenser", "serial": None}]
    assert result["positions"] == [{"device": "dispenser", "run": "1", "pos": [1, 2, 3]}]
    assert_no_refusals(floor)

    # The board shows when the last pre-flop decision turns it over (its echo's `revealed`); the
    # hole cards only in the result
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play").
    (bet,) = events(floor, "decision")
    revealed = bet["revealed"]
    assert [*revealed["flop"], revealed["turn"], revealed["river"]] == UTH_BOARD
    shown = {card: result["seq"] for card in UTH_SEAT_1 + UTH_DEALER}
    shown |= {card: bet["seq"] for card in UTH_BOARD}
    assert_cards_hidden_until_shown(floor, shown, never=UTH_LEFT_IN_DISPENSER)


# -- EZ Baccarat Panda 8: a card-reading shoe on USB, through the simulated pyusb backend ----------

BAC_DEALT = ["4h", "Kd", "2c", "3s", "5s"]  # P 4h, B Kd, P 2c, B 3s, B's third 5s
BAC_LEFT_IN_SHOE = ["9d", "9c"]
USB_SHOE_SERIAL = "SHOE0001"


def test_usb_shoe_baccarat_round_through_the_simulated_pyusb_backend_R25_R1_R4(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """EZ Baccarat Panda 8 (harness.write_config: 8 decks, schedule option 3) with the shoe on
    `usb:16c0:05dc:SHOE0001`. Seat 4 banks $500; seat 1: Player 25; seat 3: Banker 50.

    Cards P, B, P, B (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play", R25): Player
    4h 2c = 6, Banker Kd 3s = 3. The Player stands on 6
    (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play"); the Banker, with the Player
    standing, hits on 5 or less (line 1145):
    5s, Banker 3 + 5 = 8. Banker 8 beats Player 6.
    Bank walk from the player-dealer's left, all player-line wagers, then all banker-line
    wagers (003 "EZ Baccarat Panda 8: Method used to Determine Action and Distribution of Cards",
    R1-R3):
      seat 1 Player 25: loses                                 -25  funds 525
        (003 "EZ Baccarat Panda 8: How Each Wager Wins, Loses, or Pushes")
      seat 3 Banker 50: wins 1 to 1                           +50  funds 475
        (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play", "How Each Wager
        Wins, Loses, or Pushes")
    Bank 500.00 -> 475.00. Fee (R4): total action 25+50 = 75, in the $5-$200 bracket: the
    player-dealer pays $1 (003 "EZ Baccarat Panda 8: Collection Fee Schedule")."""
    base = "tablectl/it/t1"
    port = f"usb:16c0:05dc:{USB_SHOE_SERIAL}"
    device = SimUsbDevice(
        0x16C0, 0x05DC, serial=USB_SHOE_SERIAL, manufacturer="Acme", product="Shoe", max_packet=16
    )
    shoe = ShoeModel(device.feed)  # the shoe's frames go out over its IN endpoint
    cfg = write_config(tmp_path, shoe_port=port, mqtt_port=mosquitto.port)
    cfg.write_text(cfg.read_text().replace('driver = "shoe"', f'driver = "{SIM_USB_SHOE}"'))
    SIM_USB_BACKENDS[port] = SimUsbBackend(device)
    try:
        with (
            SimUsbPlugin(tmp_path),
            running_table(cfg, mosquitto, base, ["shoe"]) as (console, floor),
        ):
            shoe.load(BAC_DEALT + BAC_LEFT_IN_SHOE)
            floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
            console.ok("bank", {"seat": 4, "amount": "500"})
            console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
            console.ok("wager", {"seat": 3, "spot": "banker", "amount": "50"})
            drawn = [shoe.draw() for _ in BAC_DEALT]
            result = round_result(floor, 1)
    finally:
        del SIM_USB_BACKENDS[port]

    assert drawn == BAC_DEALT
    outcome = result["outcome"]
    assert outcome["winner"] == "banker"
    assert (outcome["player"]["cards"], outcome["player"]["total"]) == (["4h", "2c"], 6)
    assert (outcome["banker"]["cards"], outcome["banker"]["total"]) == (["Kd", "3s", "5s"], 8)
    assert settled(result) == [
        (1, "player", "25.00", "lose", "-25.00"),
        (3, "banker", "50.00", "win", "50.00"),
    ]
    assert result["bank"] == {"seat": 4, "start": "500.00", "end": "475.00", "turn": 1}
    assert_bank_balances(result)
    assert result["fees"] == [dealer_fee(4, "1.00", 3, "75.00")]
    assert result["devices"] == [{"name": "shoe", "serial": USB_SHOE_SERIAL}]  # the usb: serial
    assert_no_refusals(floor)

    # Baccarat deals face up (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play"): each
    # card shows with its own `shoe.card` echo, and no sooner; the cards still in the shoe never
    # show.
    cards = events(floor, "shoe.card")
    assert [e["card"] for e in cards] == BAC_DEALT
    shown = {e["card"]: e["seq"] for e in cards}
    assert_cards_hidden_until_shown(floor, shown, never=BAC_LEFT_IN_SHOE)
