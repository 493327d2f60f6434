"""The scoreboard's views of the banked card games (docs/scoreboard.md): Pure
21.5 Blackjack (screen "blackjack"), Three Card Poker ("three-card-poker"), Fortune Pai Gow
Poker ("pai-gow") and Ultimate Texas Hold'em ("ultimate"), each in a real headless Chromium,
served by a real Mosquitto's websockets listener and fed over MQTT-over-WebSockets by the real
daemon of a shipped config whose devices are emulators on ptys (the shoe, the shuffler, the hand
dispenser, the dice cup).

Each test plays rounds whose cards it chose and, at a few moments of the round, looks at the
page at 1280x720 and at 1920x1080 in one browser (set_window_size): nothing to scroll and no
panel cut off, the round and phase `state` holds on the page, and a screenshot of each size in
tmp_path (`pytest --basetemp=DIR` keeps them). At the end of a round every card its
`round/result` shows is drawn.

No card before the table shows it: tests/integration/banked.py (`Session.check`)."""

from __future__ import annotations

import pytest

from tablectl_base.cards import DeckKind, deck_of
from tablectl_drivers.sim.dice import SimulatedDice
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.integration.banked import seat_text, seats, shoe_deals, spots
from tests.integration.conftest import OpenTable
from tests.integration.floor import events, latest_state

pytestmark = pytest.mark.integration


# -- Pure 21.5 Blackjack ---------------------------------------------------------------------

# config/pure-21.5-blackjack-003-6to5.toml as shipped; the two rounds of
# tests/integration/test_blackjack_e2e.py, worked by hand there. A burn first.
# Round 1: seat 4 banks 500; seat 5 base 40, Red Flex 5, Buster 5; seat 1 base 10. Deal seat 5
# 8h, seat 1 Tc, up card Ah, seat 5 8c, seat 1 7d, hole 6c. Insurance: seat 1 for 5. Seat 5
# splits: hand 1 8h 3d doubles for 40, 9s (20); hand 2 8c 2h Kd (20) stands; seat 1 stands on
# 17, which turns the hole card over; the player-dealer draws 5d 5s: 17. Seat 5 +80 +40, seat 1
# pushes and loses its insurance.
# Round 2: seat 5 base 20, Red Flex 5, Buster 5; seat 1 base 10. Deal seat 5 Js, seat 1 7c, up
# 8h, seat 5 6s, seat 1 4d, hole 8d. Seat 5 hits 9c (bust); seat 1 doubles for 5, 2c, whose echo
# turns the hole card over; the player-dealer draws 8s: 888. Seat 5's bust pushes on 888, seat 1
# wins 15; Red Flex (two red) +10, Buster (a three-card bust) +5.
BJ_BASE = "tablectl/cardroom-1/bj-03"
BJ_BURN = "Jd"
BJ_R1 = ["8h", "Tc", "Ah", "8c", "7d", "6c"]
BJ_R1_PLAY = ["3d", "9s", "2h", "Kd", "5d", "5s"]
BJ_R2 = ["Js", "7c", "8h", "6s", "4d", "8d"]
BJ_R2_PLAY = ["9c", "2c", "8s"]
BJ_LEFT = ["Qh", "3c"]


def test_the_blackjack_view_shows_every_hand_as_dealt_and_no_hole_card(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedShoe() as shoe,
        open_table("pure-21.5-blackjack-003-6to5.toml", BJ_BASE, shoe=shoe) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        shoe.load([BJ_BURN, *BJ_R1, *BJ_R1_PLAY, *BJ_R2, *BJ_R2_PLAY, *BJ_LEFT])
        floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
        assert shoe.burn() == BJ_BURN
        floor.wait_for("the burn", lambda: bool(events(floor, "shoe.burn")))

        def draw(*cards: str, face_down: str | None = None) -> None:
            shoe_deals(s, shoe, cards, face_down)

        # Round 1: the deal, the up card and the hole card face down; insurance
        def open_round(base: str) -> None:
            console.ok("bank", {"seat": 4, "amount": "500"})
            console.ok("wager", {"seat": 5, "spot": "base", "amount": base})
            console.ok("wager", {"seat": 5, "spot": "red-flex", "amount": "5"})
            console.ok("wager", {"seat": 5, "spot": "buster", "amount": "5"})
            console.ok("wager", {"seat": 1, "spot": "base", "amount": "10"})
            console.ok("bets.close", {})

        open_round("40")
        draw(*BJ_R1, face_down="6c")
        state = s.synced()
        assert state["phase"] == "insurance"
        assert s.dom_cards() == ["Ah", "8h", "8c", "Tc", "7d"]  # dealer, seat 5, seat 1
        assert s.down_cards() == 1
        assert "Insurance open: seat 5, 1" in s.page.text("bj-note")
        s.look("blackjack-insurance", state)
        console.ok("decision", {"seat": 1, "action": "insurance", "amount": "5"})
        console.ok("bets.close", {})
        console.ok("decision", {"seat": 5, "action": "split"})
        draw("3d")
        console.ok("decision", {"seat": 5, "hand": 1, "action": "double", "amount": "40"})
        draw("9s", "2h", "Kd")
        console.ok("decision", {"seat": 5, "hand": 2, "action": "stand"})
        state = s.synced()
        assert state["turn"] == {"seat": 1, "hand": 1}
        drawn = seats(driver)
        assert [h["cards"] for h in drawn["5"]] == [["8h", "3d", "9s"], ["8c", "2h", "Kd"]]
        assert [h["cards"] for h in drawn["1"]] == [["Tc", "7d"]]
        assert drawn["5"][0]["text"].split() == ["20", "split", "doubled", "40.00"]
        assert drawn["5"][1]["text"].split() == ["20", "split", "stand"]
        assert s.dom_cards()[0] == "Ah" and s.down_cards() == 1
        assert "Insurance 5.00" in seat_text(driver, 1)
        s.look("blackjack-split", state)
        s.show("6c")  # seat 1's stand, the last hand, turns the hole card over
        console.ok("decision", {"seat": 1, "action": "stand"})
        draw("5d", "5s")
        state = s.round_over(1)
        assert (state["round"], state["phase"]) == (2, "betting")
        assert s.page.text("bj-title").lower() == "round 1 result"
        assert s.page.text("bj-dealer-total") == "17"
        drawn = seats(driver)
        assert [h["text"].split() for h in drawn["5"]] == [
            ["20", "split", "doubled", "40.00", "win", "+80.00"],
            ["20", "split", "win", "+40.00"],
        ]
        assert drawn["1"][0]["text"].split() == ["17", "push"]
        assert spots(driver, 1) == ["Insurance \u22125.00"]
        assert spots(driver, 5) == ["Red Flex \u22125.00", "Buster \u22125.00"]
        s.look("blackjack-round-1", state)

        # Round 2: 888, and the two side-bet hits
        open_round("20")
        draw(*BJ_R2, face_down="8d")
        draw("9c")
        console.ok("decision", {"seat": 1, "action": "double", "amount": "5"})
        s.show("8d")  # the double's card turns the hole card over
        draw("2c")
        draw("8s")
        state = s.round_over(2)
        assert s.page.text("bj-dealer-total") == "888"
        drawn = seats(driver)
        assert drawn["5"][0]["text"].split() == ["bust", "25", "push"]
        assert drawn["1"][0]["text"].split() == ["13", "doubled", "5.00", "win", "+15.00"]
        assert spots(driver, 5) == ["Red Flex 2 red +10.00", "Buster 3-card bust +5.00"]
        assert s.page.text("bj-hits").splitlines() == [
            "Round 2: seat 5 Red Flex +10.00",
            "Round 2: seat 5 Buster Blackjack +5.00",
        ]
        s.look("blackjack-round-2", state)
        s.check(never=[BJ_BURN, *BJ_LEFT])


# config/pure-spanish-21.5-003.toml as shipped (six 48-card decks, double-double, rescue, Match
# the Dealer MATCH-003). Seat 4 banks 500; seat 5 base 10, Match the Dealer 5; seat 1 base 10.
# Deal: seat 5 7d, seat 1 9c, up card 7h, seat 5 4c, seat 1 8s, hole 9d. Seat 5 doubles its 11
# for 10, gets 5s (16) and rescues: the doubling comes back, the wager is lost, -10 (R20); its
# 7d matches the 7h up card in rank, not suit: Match the Dealer 1 unsuited, 4 to 1, +20 (R21).
# Seat 1 stands on 17, which turns the hole card over; the player-dealer's 16 hits Kh: 26, bust.
# Seat 1 wins 10.
SP_BASE = "tablectl/cardroom-1/sp-01"
SP_DEAL = ["7d", "9c", "7h", "4c", "8s", "9d"]
SP_LEFT = ["2d", "6c"]


def test_the_blackjack_view_at_pure_spanish_21_5_shows_a_rescue_and_match_the_dealer(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedShoe() as shoe,
        open_table("pure-spanish-21.5-003.toml", SP_BASE, shoe=shoe) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        shoe.load([*SP_DEAL, "5s", "Kh", *SP_LEFT])
        floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
        console.ok("bank", {"seat": 4, "amount": "500"})
        console.ok("wager", {"seat": 5, "spot": "base", "amount": "10"})
        console.ok("wager", {"seat": 5, "spot": "match-dealer", "amount": "5"})
        console.ok("wager", {"seat": 1, "spot": "base", "amount": "10"})
        console.ok("bets.close", {})
        shoe_deals(s, shoe, tuple(SP_DEAL), face_down="9d")
        console.ok("decision", {"seat": 5, "action": "double", "amount": "10"})
        shoe_deals(s, shoe, ("5s",))
        console.ok("decision", {"seat": 5, "action": "rescue"})
        state = s.synced()
        assert (state["phase"], state["turn"]) == ("playing", {"seat": 1, "hand": 1})
        assert s.dom_cards() == ["7h", "7d", "4c", "5s", "9c", "8s"]
        assert s.down_cards() == 1
        assert seats(driver)["5"][0]["text"].split() == ["16", "doubled", "10.00", "rescued"]
        s.look("spanish-playing", state)
        s.show("9d")  # seat 1's stand, the last hand, turns the hole card over
        console.ok("decision", {"seat": 1, "action": "stand"})
        shoe_deals(s, shoe, ("Kh",))
        state = s.round_over(1)
        assert s.page.text("bj-dealer-total") == "bust 26"
        drawn = seats(driver)
        assert drawn["5"][0]["text"].split() == [
            "16",
            "doubled",
            "10.00",
            "rescue",
            "\u221210.00",
        ]
        assert drawn["1"][0]["text"].split() == ["17", "win", "+10.00"]
        assert spots(driver, 5) == ["Match the Dealer 1 unsuited +20.00"]
        assert s.page.text("bj-hits") == "Round 1: seat 5 Match the Dealer +20.00"
        s.look("spanish-result", state)
        s.check(never=SP_LEFT)


# -- Three Card Poker 6 Card Bonus -----------------------------------------------------------

# config/three-card-poker-6cb-004.toml as shipped; the round of
# test_device_classes_e2e.py's Three Card Poker test, worked by hand there. Seat 4 banks 500;
# seat 1 Ante 10, Pair Plus 5; seat 2 Ante 20, 6 Card Bonus 5. Stacks: seat 1 7s 7d 3c, seat 2
# Kh Jd Ts, the player-dealer Ac (face up) Qc 5d. Seat 1 plays, seat 2 folds: seat 1's pair
# beats ace-high (+10 +10, Pair Plus +5); seat 2 loses its Ante and its 6 Card Bonus wins on
# A-K-Q-J-T (+50), its cards never shown.
TCP_BASE = "tablectl/cardroom-1/tcp-04"
TCP_SEAT_1 = ["7s", "7d", "3c"]
TCP_SEAT_2 = ["Kh", "Jd", "Ts"]
TCP_DEALER = ["Ac", "Qc", "5d"]
TCP_LEFT = ["2h", "3h", "4h"]


def test_the_three_card_poker_view_shows_the_face_up_card_then_the_played_hands(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedDispenser(stack_size=3) as shuffler,
        open_table("three-card-poker-6cb-004.toml", TCP_BASE, shuffler=shuffler) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        shuffler.load(TCP_SEAT_1 + TCP_SEAT_2 + TCP_DEALER + TCP_LEFT, "red")
        console.ok("bank", {"seat": 4, "amount": "500"})
        console.ok("wager", {"seat": 1, "spot": "ante", "amount": "10"})
        console.ok("wager", {"seat": 1, "spot": "pair-plus", "amount": "5"})
        console.ok("wager", {"seat": 2, "spot": "ante", "amount": "20"})
        console.ok("wager", {"seat": 2, "spot": "six-card-bonus", "amount": "5"})
        console.ok("bets.close", {})
        for n, stack in enumerate((TCP_SEAT_1, TCP_SEAT_2, TCP_DEALER), 1):
            if stack is TCP_DEALER:
                s.show("Ac")  # the player-dealer's first card is turned face up
            assert shuffler.dispense() == stack
            floor.wait_for(f"stack {n}", lambda: len(events(floor, "shuffler.stack")) >= n)  # noqa: B023
        floor.wait_for("the decisions", lambda: latest_state(floor)["phase"] == "deciding")
        console.ok("decision", {"seat": 1, "action": "play"})
        state = s.synced()
        assert (state["phase"], state["next_decision"]) == ("deciding", 2)
        assert s.dom_cards() == ["Ac"]
        assert s.down_cards() == 2 + 3 + 3
        assert seats(driver) == {
            "1": [{"hand": "player", "cards": [None] * 3, "text": "plays"}],
            "2": [{"hand": "player", "cards": [None] * 3, "text": ""}],
        }
        assert s.page.text("tcp-note") == "Seat 2 to play or fold"
        s.look("three-card-poker-deciding", state)
        s.show(*TCP_SEAT_1, *TCP_DEALER[1:])  # seat 2's fold, the last decision, shows them
        console.ok("decision", {"seat": 2, "action": "fold"})
        state = s.round_over(1)
        assert s.page.text("tcp-dealer-rank") == "High card, qualifies"
        assert seats(driver) == {
            "1": [{"hand": "player", "cards": TCP_SEAT_1, "text": "Pair\nwins"}],
            "2": [{"hand": "player", "cards": [], "text": "folded"}],
        }
        assert spots(driver, 1) == ["Ante +10.00", "Play +10.00", "Pair Plus +5.00"]
        assert spots(driver, 2) == ["Ante \u221220.00", "6 Card Bonus +50.00"]
        assert "6 Card Bonus hand: Straight" in seat_text(driver, 2)
        assert s.page.text("tcp-hits").splitlines() == [
            "Round 1: seat 1 Pair Plus +5.00",
            "Round 1: seat 2 6 Card Bonus +50.00",
        ]
        s.look("three-card-poker-result", state)
        s.check(never=TCP_SEAT_2 + TCP_LEFT)


# -- Fortune Pai Gow Poker -------------------------------------------------------------------

# config/fortune-pai-gow-003.toml as shipped; the round of test_device_classes_e2e.py's Pai Gow
# test, worked by hand there. Seat 4 banks 500; seat 5 base 10; seat 2 base 10, Fortune 5. The
# dice 2 3 4 = 9: seat 5 has the first hand and the Action button; the hands go to seats 5 6 7 1
# 2 3 4, those of seats 6 7 1 3 (no wager) are discarded unseen. Seat 5 asks for the house way
# (Q-T in front), seat 2 sets A-9 in front of JKR-A-8-6-4; the player-dealer's K-K-5-3-2 / 9-7.
# Seat 5 pushes, seat 2 wins 10 and its Fortune three aces 15.
PGP_BASE = "tablectl/cardroom-1/pgp-01"
PGP_SEAT_5 = ["Ah", "Qc", "Td", "8s", "6h", "4c", "3d"]
PGP_SEAT_2 = ["JKR", "As", "Ac", "9d", "8c", "6s", "4h"]
PGP_DEALER = ["Kc", "Kd", "9s", "7h", "5c", "3h", "2s"]


def test_the_pai_gow_view_shows_the_dice_the_piles_face_down_then_the_showdown(
    open_table: OpenTable,
) -> None:
    used = set(PGP_SEAT_5 + PGP_SEAT_2 + PGP_DEALER)
    rest = [str(c) for c in deck_of(DeckKind.JOKER_53) if str(c) not in used]
    unplayed = [rest[i : i + 7] for i in range(0, 28, 7)]  # seats 6, 7, 1, 3
    hands = [PGP_SEAT_5, *unplayed[:3], PGP_SEAT_2, unplayed[3], PGP_DEALER]
    with (
        SimulatedDice() as cup,
        SimulatedDispenser(stack_size=7, joker=True) as dispenser,
        open_table("fortune-pai-gow-003.toml", PGP_BASE, dice=cup, dispenser=dispenser) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        dispenser.load([card for hand in hands for card in hand] + rest[28:], "red")
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
        state = s.synced()
        assert state["awaiting_setting"] == [2]
        assert s.dom_cards() == []
        assert s.down_cards() == 3 * 7  # seats 5 and 2 and the player-dealer
        assert " ".join(s.page.text("pg-dice").split()) == (
            "2 3 4 = 9: first hand seat 5, Action button seat 5"
        )
        assert seats(driver) == {
            "5": [{"hand": "player", "cards": [None] * 7, "text": "set"}],
            "2": [{"hand": "player", "cards": [None] * 7, "text": "setting"}],
        }
        assert "Envy button" in seat_text(driver, 2)
        s.look("pai-gow-setting", state)
        s.show(*PGP_SEAT_5, *PGP_SEAT_2, *PGP_DEALER)  # the last setting: the showdown
        console.ok("decision", {"seat": 2, "action": "set", "low": ["Ac", "9d"]})
        state = s.round_over(1)
        drawn = seats(driver)
        assert list(drawn) == ["5", "2"]  # from the Action button
        assert sorted(drawn["5"][0]["cards"][:2]) == ["Qc", "Td"]  # the house way's low
        assert sorted(drawn["5"][0]["cards"]) == sorted(PGP_SEAT_5)
        assert drawn["5"][0]["text"].split() == ["pushes", "house", "way"]
        assert drawn["2"][0]["cards"][:2] == ["Ac", "9d"]
        assert sorted(drawn["2"][0]["cards"]) == sorted(PGP_SEAT_2)
        assert drawn["2"][0]["text"].splitlines() == [
            "wins",
            "set by the player",
            "Fortune: Three of a kind",
        ]
        assert spots(driver, 5) == ["Game 0.00"]
        assert spots(driver, 2) == ["Game +10.00", "Fortune +15.00"]
        assert s.page.text("pg-hits") == "Round 1: seat 2 Fortune +15.00"
        s.look("pai-gow-result", state)
        s.check(never=[card for hand in unplayed for card in hand] + rest[28:])


# -- Ultimate Texas Hold'em ------------------------------------------------------------------

# config/ultimate-texas-holdem-003.toml as shipped. Seat 4 banks 500; seat 1 Ante 10, Blind 10;
# seat 2 Ante 10, Blind 10, Trips 5. Stacks: seat 1 3s 5c, seat 2 Ah Qh, the player-dealer Kc
# Kd, the board Kh 9h 4h 7s 2c. Pre-flop seat 1 checks and seat 2 bets 4x (40), which turns the
# flop over; on the flop seat 1 checks, which turns the turn and the river; on the river seat 1
# folds: its cards are never shown. Seat 2's ace-high flush beats the player-dealer's three
# kings (it qualifies): Ante +10, Play +40, Blind (a flush, 3 to 2) +15, Trips (a flush, 6 to 1)
# +30 (test_device_classes_e2e.py works the same hands); seat 1 loses its Ante and Blind.
UTH_BASE = "tablectl/cardroom-1/uth-01"
UTH_SEAT_1 = ["3s", "5c"]
UTH_SEAT_2 = ["Ah", "Qh"]
UTH_DEALER = ["Kc", "Kd"]
UTH_BOARD = ["Kh", "9h", "4h", "7s", "2c"]
UTH_LEFT = ["3d", "5d"]


def test_the_ultimate_view_turns_the_board_over_street_by_street_and_hides_a_fold(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedDispenser(stack_size=2) as dispenser,
        open_table("ultimate-texas-holdem-003.toml", UTH_BASE, dispenser=dispenser) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        dispenser.load(UTH_SEAT_1 + UTH_SEAT_2 + UTH_DEALER + UTH_BOARD + UTH_LEFT, "red")
        console.ok("bank", {"seat": 4, "amount": "500"})
        for seat in (1, 2):
            for spot in ("ante", "blind"):
                console.ok("wager", {"seat": seat, "spot": spot, "amount": "10"})
        console.ok("wager", {"seat": 2, "spot": "trips", "amount": "5"})
        console.ok("bets.close", {})
        for size in (2, 2, 2, 5):
            dispenser.dispense(size)
        floor.wait_for("pre-flop", lambda: latest_state(floor)["phase"] == "preflop")
        console.ok("decision", {"seat": 1, "action": "check"})
        s.show(*UTH_BOARD[:3])  # seat 2's bet, the last pre-flop decision, turns the flop
        console.ok("decision", {"seat": 2, "action": "bet", "multiple": 4})
        state = s.synced()
        assert (state["phase"], state["to_act"]) == ("flop", 1)
        assert s.dom_cards() == UTH_BOARD[:3]
        assert s.down_cards() == 2 + 2 + 2 + 2  # the board's two, the player-dealer, 2 seats
        assert seats(driver) == {
            "1": [{"hand": "player", "cards": [None, None], "text": ""}],
            "2": [{"hand": "player", "cards": [None, None], "text": "Play 4x 40.00"}],
        }
        assert s.page.text("uth-note") == "Seat 1 to bet 2x or check"
        s.look("ultimate-flop", state)
        s.show(*UTH_BOARD[3:])  # seat 1's check, the last on the flop, turns turn and river
        console.ok("decision", {"seat": 1, "action": "check"})
        state = s.synced()
        assert state["phase"] == "river"
        assert s.dom_cards() == UTH_BOARD
        s.show(*UTH_SEAT_2, *UTH_DEALER)  # seat 1's fold ends the round
        console.ok("decision", {"seat": 1, "action": "fold"})
        state = s.round_over(1)
        assert s.cards_of("uth-board") == UTH_BOARD
        assert s.cards_of("uth-dealer-cards") == UTH_DEALER
        assert s.page.text("uth-dealer-rank") == "Three of a kind, qualifies"
        assert seats(driver) == {
            "1": [{"hand": "player", "cards": [], "text": "folded"}],
            "2": [{"hand": "player", "cards": UTH_SEAT_2, "text": "Flush\nwins"}],
        }
        assert spots(driver, 2) == [
            "Ante +10.00",
            "Play +40.00",
            "Blind +15.00",
            "Trips +30.00",
        ]
        assert spots(driver, 1) == ["Ante \u221210.00", "Blind \u221210.00"]
        assert s.page.text("uth-hits") == "Round 1: seat 2 Trips +30.00"
        s.look("ultimate-result", state)
        s.check(never=UTH_SEAT_1 + UTH_LEFT)
