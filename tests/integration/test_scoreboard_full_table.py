"""The banked games' scoreboard views at a full table (docs/scoreboard.md "A full table"): every
seat of the shipped config in play (the player-dealer's included), in a real headless Chromium
served by a real Mosquitto's websockets listener and fed by the real daemon of the shipped
config with its devices emulated on ptys, as test_scoreboard_banked.py drives them.

Pure 21.5 Blackjack with all seven players (a split hand with a double, a double), Three Card
Poker 6 Card Bonus with six, Fortune Pai Gow Poker with six and Ultimate Texas Hold'em with five
(each shipped config's seats less the player-dealer's). At a moment of the round and at its
result, in one browser resized between 1280x720 and 1920x1080 (`Session.look`): nothing to
scroll, no panel cut off, every seat whole inside its panel and the window, no text under 20
px, every card at least 80 px high at 1080 lines (53 at 720) and all of one height, and what
the table posts whole over its pages, each page as whole. The cards' height and the posted
pages at each size are printed (`-s`). Over the whole session no card reached the page before
the table showed it (`Session.check`)."""

from __future__ import annotations

import pytest

from tablectl_base.cards import DeckKind, deck_of
from tablectl_drivers.sim.dice import SimulatedDice
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.integration.banked import Look, seats, shoe_deals
from tests.integration.conftest import OpenTable
from tests.integration.floor import events, latest_state

pytestmark = pytest.mark.integration


def report(name: str, seen: dict[int, Look]) -> None:
    """How the page looked at each size, for the record (`pytest -s`)."""
    sizes = "; ".join(
        f"{h} lines: cards {look.card:.1f} px, {look.layout} layout"
        f"{f', {look.cols} columns' if look.layout != 'wide' else ''}, posted {look.pages} page(s)"
        for h, look in sorted(seen.items())
    )
    print(f"{name}: {sizes}")


# -- Pure 21.5 Blackjack: seven players --------------------------------------------------------

# config/pure-21.5-blackjack-003-6to5.toml as shipped (eight seats). Seat 4 banks 500; seats 5 6
# 7 8 1 2 3 (clockwise from its left) base 10 each, seats 5 7 1 3 Red Flex 5 and Buster 5 too.
# The deal: 8h 5c Tc 9d Ts 7c Qd, the up card 6h, 8c 5d 7s 8s 9c Jh 6s, the hole card Kc. Seat 5
# splits its eights: hand 1 3d doubles for 10, 9h (20); hand 2 2s, must hit 10, Kh (20), stands.
# Seat 6 doubles its 10 for 10, 9s (19). Seats 7 8 1 2 stand on 17 17 19 17; seat 3 hits 16,
# 4c (20), and its stand turns the hole card over: 16, the player-dealer draws 2d, 18.
BJ_BASE = "tablectl/cardroom-1/bj-03"
BJ_SEATS = (5, 6, 7, 8, 1, 2, 3)
BJ_DEAL = ["8h", "5c", "Tc", "9d", "Ts", "7c", "Qd", "6h"]
BJ_DEAL += ["8c", "5d", "7s", "8s", "9c", "Jh", "6s", "Kc"]
BJ_HOLE = "Kc"
BJ_LEFT = ["Qh", "3c"]


def test_a_full_blackjack_table_shows_every_seat_and_hand(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedShoe() as shoe,
        open_table("pure-21.5-blackjack-003-6to5.toml", BJ_BASE, shoe=shoe) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        play = ["3d", "9h", "2s", "Kh", "9s", "4c", "2d"]
        shoe.load(["Jd", *BJ_DEAL, *play, *BJ_LEFT])
        floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
        assert shoe.burn() == "Jd"
        floor.wait_for("the burn", lambda: bool(events(floor, "shoe.burn")))
        console.ok("bank", {"seat": 4, "amount": "500"})
        for seat in BJ_SEATS:
            console.ok("wager", {"seat": seat, "spot": "base", "amount": "10"})
            if seat in (5, 7, 1, 3):
                for spot in ("red-flex", "buster"):
                    console.ok("wager", {"seat": seat, "spot": spot, "amount": "5"})
        console.ok("bets.close", {})
        shoe_deals(s, shoe, tuple(BJ_DEAL), face_down=BJ_HOLE)
        console.ok("decision", {"seat": 5, "action": "split"})
        shoe_deals(s, shoe, ("3d",))
        console.ok("decision", {"seat": 5, "hand": 1, "action": "double", "amount": "10"})
        shoe_deals(s, shoe, ("9h", "2s", "Kh"))
        console.ok("decision", {"seat": 5, "hand": 2, "action": "stand"})
        console.ok("decision", {"seat": 6, "action": "double", "amount": "10"})
        shoe_deals(s, shoe, ("9s",))
        state = s.synced()
        assert (state["phase"], state["turn"]) == ("playing", {"seat": 7, "hand": 1})
        drawn = seats(driver)
        assert list(drawn) == [str(seat) for seat in BJ_SEATS]
        assert [h["cards"] for h in drawn["5"]] == [["8h", "3d", "9h"], ["8c", "2s", "Kh"]]
        assert s.down_cards() == 1
        report("blackjack, seven seats, playing", s.look("blackjack-full-playing", state))
        for seat in (7, 8, 1, 2):
            console.ok("decision", {"seat": seat, "action": "stand"})
        shoe_deals(s, shoe, ("4c",))
        s.show(BJ_HOLE)  # seat 3's stand, the last hand, turns the hole card over
        console.ok("decision", {"seat": 3, "action": "stand"})
        shoe_deals(s, shoe, ("2d",))
        state = s.round_over(1)
        assert s.page.text("bj-dealer-total") == "18"
        drawn = seats(driver)
        assert list(drawn) == [str(seat) for seat in BJ_SEATS]
        assert [h["text"].split()[-2:] for h in drawn["5"]] == [
            ["win", "+20.00"],
            ["win", "+10.00"],
        ]
        report("blackjack, seven seats, result", s.look("blackjack-full-result", state))
        s.check(never=["Jd", *BJ_LEFT])


# -- Three Card Poker 6 Card Bonus: six players ------------------------------------------------

# config/three-card-poker-6cb-004.toml as shipped (seven seats). Seat 4 banks 500; seats 5 6 7 1
# 2 3 Ante 10 each, seats 5 1 2 Pair Plus 5, seats 6 3 6 Card Bonus 5. Seats 7 and 3 fold: their
# cards are never shown; the others play against the player-dealer's A-Q-5 (it qualifies).
TCP_BASE = "tablectl/cardroom-1/tcp-04"
TCP_HANDS = {
    5: ["7s", "7d", "3c"],
    6: ["Kh", "Jd", "Ts"],
    7: ["2c", "5h", "9s"],
    1: ["Ah", "Ad", "4s"],
    2: ["6c", "7c", "8c"],
    3: ["Qs", "Js", "4d"],
}
TCP_DEALER = ["Ac", "Qc", "5d"]
TCP_LEFT = ["2h", "3h", "4h"]
TCP_FOLD = (7, 3)


def test_a_full_three_card_poker_table_shows_every_seat(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedDispenser(stack_size=3) as shuffler,
        open_table("three-card-poker-6cb-004.toml", TCP_BASE, shuffler=shuffler) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        stacks = [*TCP_HANDS.values(), TCP_DEALER]
        shuffler.load([card for stack in stacks for card in stack] + TCP_LEFT, "red")
        console.ok("bank", {"seat": 4, "amount": "500"})
        for seat in TCP_HANDS:
            console.ok("wager", {"seat": seat, "spot": "ante", "amount": "10"})
            side = "pair-plus" if seat in (5, 1, 2) else "six-card-bonus" if seat in (6, 3) else ""
            if side:
                console.ok("wager", {"seat": seat, "spot": side, "amount": "5"})
        console.ok("bets.close", {})
        for n, stack in enumerate(stacks, 1):
            if stack is TCP_DEALER:
                s.show(TCP_DEALER[0])  # the player-dealer's first card is turned face up
            assert shuffler.dispense() == stack
            floor.wait_for(f"stack {n}", lambda: len(events(floor, "shuffler.stack")) >= n)  # noqa: B023
        floor.wait_for("the decisions", lambda: latest_state(floor)["phase"] == "deciding")
        seats_in_order = list(TCP_HANDS)
        for seat in seats_in_order[:3]:
            action = "fold" if seat in TCP_FOLD else "play"
            console.ok("decision", {"seat": seat, "action": action})
        state = s.synced()
        assert (state["phase"], state["next_decision"]) == ("deciding", 1)
        assert list(seats(driver)) == [str(seat) for seat in seats_in_order]
        assert s.dom_cards() == TCP_DEALER[:1]
        report("three card poker, six seats, deciding", s.look("tcp-full-deciding", state))
        played = [c for seat, hand in TCP_HANDS.items() if seat not in TCP_FOLD for c in hand]
        for seat in seats_in_order[3:]:
            if seat == seats_in_order[-1]:
                s.show(*played, *TCP_DEALER[1:])  # the last decision shows them
            action = "fold" if seat in TCP_FOLD else "play"
            console.ok("decision", {"seat": seat, "action": action})
        state = s.round_over(1)
        assert list(seats(driver)) == [str(seat) for seat in seats_in_order]
        report("three card poker, six seats, result", s.look("tcp-full-result", state))
        folded = [c for seat in TCP_FOLD for c in TCP_HANDS[seat]]
        s.check(never=folded + TCP_LEFT)


# -- Fortune Pai Gow Poker: six players --------------------------------------------------------

# config/fortune-pai-gow-003.toml as shipped (seven seats: no pile is discarded). Seat 4 banks
# 500; seats 5 6 7 1 2 3 base 10 each, seats 7 1 2 Fortune 5 too (an Envy button each). The dice
# 2 3 4 = 9: the hands go to seats 5 6 7 1 2 3 and the player-dealer. Every seat asks for the
# house way but seat 2, which sets A-9 in front, the last: the showdown.
PGP_BASE = "tablectl/cardroom-1/pgp-01"
PGP_HANDS = {
    5: ["Ah", "Qc", "Td", "8s", "6h", "4c", "3d"],
    6: ["Ks", "Kh", "7d", "7c", "5s", "2d", "9c"],
    7: ["Qs", "Js", "Ts", "9h", "8d", "3c", "2h"],
    1: ["Jh", "Jd", "Jc", "4s", "5h", "Th", "2c"],
    2: ["JKR", "As", "Ac", "9d", "8c", "6s", "4h"],
    3: ["Ad", "Qh", "Qd", "8h", "5d", "3s", "4d"],
}
PGP_DEALER = ["Kc", "Kd", "9s", "7h", "5c", "3h", "2s"]


def test_a_full_pai_gow_table_shows_every_seat(
    open_table: OpenTable,
) -> None:
    hands = [*PGP_HANDS.values(), PGP_DEALER]
    used = {card for hand in hands for card in hand}
    left = [str(c) for c in deck_of(DeckKind.JOKER_53) if str(c) not in used]
    with (
        SimulatedDice() as cup,
        SimulatedDispenser(stack_size=7, joker=True) as dispenser,
        open_table("fortune-pai-gow-003.toml", PGP_BASE, dice=cup, dispenser=dispenser) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        dispenser.load([card for hand in hands for card in hand] + left, "red")
        console.ok("bank", {"seat": 4, "amount": "500"})
        for seat in PGP_HANDS:
            console.ok("wager", {"seat": seat, "spot": "base", "amount": "10"})
            if seat in (7, 1, 2):
                console.ok("wager", {"seat": seat, "spot": "fortune", "amount": "5"})
        cup.shake([2, 3, 4])
        floor.wait_for("the dice", lambda: bool(events(floor, "dice.roll")))
        for _ in range(7):
            dispenser.dispense()
        floor.wait_for("the settings", lambda: latest_state(floor)["phase"] == "setting")
        for seat in (5, 6, 7):
            console.ok("decision", {"seat": seat, "action": "house-way"})
        state = s.synced()
        assert state["awaiting_setting"] == [1, 2, 3]
        assert list(seats(driver)) == [str(seat) for seat in PGP_HANDS]
        assert s.dom_cards() == []
        assert s.down_cards() == 7 * 7
        report("pai gow, six seats, setting", s.look("pai-gow-full-setting", state))
        for seat in (1, 3):
            console.ok("decision", {"seat": seat, "action": "house-way"})
        s.show(*used)  # the last setting: the showdown
        console.ok("decision", {"seat": 2, "action": "set", "low": ["Ac", "9d"]})
        state = s.round_over(1)
        assert list(seats(driver)) == [str(seat) for seat in PGP_HANDS]
        report("pai gow, six seats, result", s.look("pai-gow-full-result", state))
        s.check(never=left)


# -- Ultimate Texas Hold'em: five players ------------------------------------------------------

# config/ultimate-texas-holdem-003.toml as shipped (six seats, dealt from the house dealer's
# left). Seat 4 banks 500; seats 1 2 3 5 6 Ante 10 and Blind 10 each, seats 1 5 Trips 5, seats 2
# 6 Bad Beat 5. Pre-flop seat 1 bets 4x, seat 3 3x, the others check: the flop; on the flop seat
# 2 bets 2x, 5 and 6 check: the turn and the river; on the river seat 5 bets 1x and seat 6 folds
# (its cards are never shown).
UTH_BASE = "tablectl/cardroom-1/uth-01"
UTH_HANDS = {1: ["As", "Ks"], 2: ["Qd", "Qs"], 3: ["3s", "5c"], 5: ["Ah", "Jh"], 6: ["7d", "2d"]}
UTH_DEALER = ["Kc", "Kd"]
UTH_BOARD = ["Kh", "9h", "4h", "7s", "2c"]
UTH_LEFT = ["3d", "5d"]


def test_a_full_ultimate_table_shows_every_seat(
    open_table: OpenTable,
) -> None:
    with (
        SimulatedDispenser(stack_size=2) as dispenser,
        open_table("ultimate-texas-holdem-003.toml", UTH_BASE, dispenser=dispenser) as s,
    ):
        console, floor, driver = s.console, s.floor, s.driver
        stacks = [*UTH_HANDS.values(), UTH_DEALER, UTH_BOARD]
        dispenser.load([card for stack in stacks for card in stack] + UTH_LEFT, "red")
        console.ok("bank", {"seat": 4, "amount": "500"})
        for seat in UTH_HANDS:
            for spot in ("ante", "blind"):
                console.ok("wager", {"seat": seat, "spot": spot, "amount": "10"})
            side = "trips" if seat in (1, 5) else "bad-beat"
            console.ok("wager", {"seat": seat, "spot": side, "amount": "5"})
        console.ok("bets.close", {})
        for stack in stacks:
            dispenser.dispense(len(stack))
        floor.wait_for("pre-flop", lambda: latest_state(floor)["phase"] == "preflop")
        console.ok("decision", {"seat": 1, "action": "bet", "multiple": 4})
        console.ok("decision", {"seat": 2, "action": "check"})
        console.ok("decision", {"seat": 3, "action": "bet", "multiple": 3})
        console.ok("decision", {"seat": 5, "action": "check"})
        s.show(*UTH_BOARD[:3])  # seat 6's check, the last pre-flop decision, turns the flop
        console.ok("decision", {"seat": 6, "action": "check"})
        console.ok("decision", {"seat": 2, "action": "bet", "multiple": 2})
        state = s.synced()
        assert (state["phase"], state["to_act"]) == ("flop", 5)
        assert set(seats(driver)) == {str(seat) for seat in UTH_HANDS}
        assert s.dom_cards() == UTH_BOARD[:3]
        report("ultimate, five seats, flop", s.look("ultimate-full-flop", state))
        console.ok("decision", {"seat": 5, "action": "check"})
        s.show(*UTH_BOARD[3:])  # seat 6's check, the last on the flop, turns turn and river
        console.ok("decision", {"seat": 6, "action": "check"})
        console.ok("decision", {"seat": 5, "action": "bet", "multiple": 1})
        played = [c for seat, hand in UTH_HANDS.items() if seat != 6 for c in hand]
        s.show(*played, *UTH_DEALER)  # seat 6's fold ends the round
        console.ok("decision", {"seat": 6, "action": "fold"})
        state = s.round_over(1)
        assert set(seats(driver)) == {str(seat) for seat in UTH_HANDS}
        report("ultimate, five seats, result", s.look("ultimate-full-result", state))
        s.check(never=UTH_HANDS[6] + UTH_LEFT)
