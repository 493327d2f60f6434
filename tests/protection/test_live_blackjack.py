"""The 21.5 games' live figures (tablectl/protection/live.py): at a full shoe `analyze`'s exact
figures; on a few cards left worked out by hand; on random small shoes the brute force's; the
Hi-Lo count."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.analysis.blackjack import exact_full_shoe, match_dealer_figures
from tablectl.protection import blackjack
from tablectl.protection.live import LiveFigures, live_figures, live_game
from tablectl.protection.shoe import ShoeLeft
from tablectl.rules.blackjack import paytable
from tablectl_base.cards import Card, parse_card
from tests.protection import brute_force
from tests.protection.brute_force import KINDS
from tests.protection.tables import blackjack_rules

PURE = "pure-21.5-blackjack"
SPANISH = "pure-spanish-21.5"


def _by_wager(figures: LiveFigures) -> dict[str, Fraction]:
    return {w.wager: w.expectation for w in figures.wagers}


def _shoe(cards: str) -> ShoeLeft:
    return ShoeLeft.of(parse_card(c) for c in cards.split())


@pytest.mark.parametrize(("red_flex", "buster"), [("RFB-02", "option-5"), ("RFB-12", "option-1")])
@pytest.mark.parametrize("decks", [1, 6])
def test_pure_figures_of_a_full_shoe_are_analyzes(
    tmp_path: Path, decks: int, red_flex: str, buster: str
) -> None:
    """`analyze`'s exact Red Flex and Buster house edges (the player-dealer's hand from a full
    shoe) are minus the live expectations at a full shoe, and both wagers the table offers are
    there in R3's order (Red Flex, Buster)."""
    rules = blackjack_rules(
        tmp_path, PURE, decks=decks, red_flex_table=red_flex, buster_table=buster
    )
    assert live_game(rules)
    figures = live_figures(rules, ShoeLeft.full(decks))
    assert [w.wager for w in figures.wagers] == ["red-flex", "buster"]
    for w, table in zip(figures.wagers, (red_flex, buster), strict=True):
        exact = exact_full_shoe(PURE, w.wager, decks, paytable(table))
        assert w.expectation == -Fraction(exact["exact"]["house_edge"])
        assert w.full_shoe == w.expectation
    assert figures.cards_left == 52 * decks
    assert figures.running_count == 0
    assert figures.true_count == 0


@pytest.mark.parametrize("decks", [4, 8])
def test_spanish_match_the_dealer_of_a_full_shoe_is_analyzes(tmp_path: Path, decks: int) -> None:
    rules = blackjack_rules(tmp_path, SPANISH, decks=decks)
    figures = live_figures(rules, ShoeLeft.full(decks, spanish=True))
    exact = match_dealer_figures(SPANISH, decks, paytable("MATCH-003"))
    assert _by_wager(figures) == {"match-dealer": -Fraction(exact["exact"]["house_edge"])}
    assert figures.cards_left == 48 * decks


def test_a_side_bet_the_table_does_not_offer_has_no_figure(tmp_path: Path) -> None:
    """A side bet is offered only when its pay table is named (000 "Pure 21.5 Blackjack: Red Flex
    Bet"): Buster alone here."""
    rules = blackjack_rules(tmp_path, PURE, red_flex_table=None)
    assert [w.wager for w in live_figures(rules, ShoeLeft.full(6)).wagers] == ["buster"]


def test_buster_on_two_kings_and_two_sixes(tmp_path: Path) -> None:
    """Ks Kh 6s 6h. The first two cards: K K (chance 2/4 x 1/3 = 1/6) is 20, stands (Chart 1B);
    6 6 (1/6) is 12, hits a king: 22, busted with 3 cards; a king and a six (4/6) is 16, hits the
    other king or six: 26 or 22, busted with 3. Option 5 pays 3 cards 1 to 1 (R19): 5/6 x 1 - 1/6
    = 2/3."""
    figures = live_figures(blackjack_rules(tmp_path, PURE), _shoe("Ks Kh 6s 6h"))
    assert _by_wager(figures)["buster"] == Fraction(2, 3)


def test_buster_on_three_eights_is_888(tmp_path: Path) -> None:
    """8s 8h 8d: 16 hits an 8: the hand is 888, a bust of 3 cards for Buster (R13, R19): pays 1
    to 1 every time."""
    figures = live_figures(blackjack_rules(tmp_path, PURE), _shoe("8s 8h 8d"))
    assert _by_wager(figures)["buster"] == 1


@pytest.mark.parametrize(
    ("table", "buster", "figure"),
    [("RFB-02", "option-5", Fraction(1)), ("RFB-12", "option-1", Fraction(3, 4))],
)
def test_red_flex_on_three_reds_and_a_black(
    tmp_path: Path, table: str, buster: str, figure: Fraction
) -> None:
    """6h 6d Kh Ks (three red, one black). The first two are red with chance 3/4 x 2/3 = 1/2,
    else the count is 0 and the wager loses (R18).

    - 6h 6d (1/6): 12 hits Kh (1/2): 22, three reds, complete: run 3; or Ks: run 2.
    - a red 6 and Kh in either order (1/3): 16 hits the other red 6 (1/2): run 3; or Ks: run 2.

    Run 3 and run 2 each 1/4. RFB-02 (3 reds 5, 2 reds 1): 5/4 + 1/4 - 1/2 = 1. RFB-12 (3 reds 3,
    2 reds 2): 3/4 + 2/4 - 1/2 = 3/4.
    """
    rules = blackjack_rules(tmp_path, PURE, red_flex_table=table, buster_table=buster)
    assert _by_wager(live_figures(rules, _shoe("6h 6d Kh Ks")))["red-flex"] == figure


@pytest.mark.parametrize(
    ("cards", "figure"), [("7h 7h 7s", Fraction(34, 3)), ("7h 7s 2c", Fraction(7, 3))]
)
def test_match_the_dealer_on_three_cards(tmp_path: Path, cards: str, figure: Fraction) -> None:
    """The up card and the player's two initial cards are the three cards left (R21, MATCH-003).

    7h 7h 7s: up 7h (2/3), the player 7h 7s: one suited, one unsuited, 13 to 1; up 7s (1/3), the
    player 7h 7h: two unsuited, 8 to 1: 26/3 + 8/3 = 34/3.
    7h 7s 2c: up 7h or 7s (2/3): the player holds the other seven, one unsuited, 4 to 1; up 2c
    (1/3): no match, loses: 8/3 - 1/3 = 7/3.
    """
    rules = blackjack_rules(tmp_path, SPANISH, decks=4)
    assert _by_wager(live_figures(rules, _shoe(cards))) == {"match-dealer": figure}


def test_a_shoe_that_may_run_out_gives_no_figure(tmp_path: Path) -> None:
    """2s 3s: the player-dealer's 5 must hit and nothing is left: no Buster, no Red Flex. Two
    cards cannot deal Match the Dealer's three."""
    assert live_figures(blackjack_rules(tmp_path, PURE), _shoe("2s 3s")).wagers == ()
    assert live_figures(blackjack_rules(tmp_path, SPANISH), _shoe("7h 7s")).wagers == ()


def test_a_shoe_known_by_rank_alone_gives_buster_only(tmp_path: Path) -> None:
    """Red Flex reads colours and Match the Dealer suits: without `by_card` neither is given."""
    shoe = ShoeLeft(ShoeLeft.full(6).counts)
    assert [w.wager for w in live_figures(blackjack_rules(tmp_path, PURE), shoe).wagers] == [
        "buster"
    ]
    spanish = ShoeLeft(ShoeLeft.full(6, spanish=True).counts)
    assert live_figures(blackjack_rules(tmp_path, SPANISH), spanish).wagers == ()


def test_hi_lo_counts_the_cards_dealt(tmp_path: Path) -> None:
    """Hi-Lo: 2-6 +1, 7-9 0, tens, pictures and aces -1. From one deck, 2c 3d Kh 7s 5h dealt:
    +1 +1 -1 +0 +1 = 2; 47 cards left, 47/52 of a deck: true count 2 x 52 / 47 = 104/47."""
    shoe = ShoeLeft.full(1)
    for card in ["2c", "3d", "Kh", "7s", "5h"]:
        shoe = shoe.without(parse_card(card))
    figures = live_figures(blackjack_rules(tmp_path, PURE, decks=1), shoe)
    assert figures.running_count == 2
    assert figures.true_count == Fraction(104, 47)


def test_hi_lo_on_a_spanish_shoe_counts_decks_of_48(tmp_path: Path) -> None:
    """Four 48-card decks, 4c 5c Ad dealt: +1 +1 -1 = 1; 189 cards left: 1 x 48 / 189."""
    shoe = ShoeLeft.full(4, spanish=True)
    for card in ["4c", "5c", "Ad"]:
        shoe = shoe.without(parse_card(card))
    figures = live_figures(blackjack_rules(tmp_path, SPANISH, decks=4), shoe)
    assert figures.running_count == 1
    assert figures.true_count == Fraction(48, 189)


small_shoes = st.lists(st.sampled_from(KINDS), min_size=2, max_size=7).map(ShoeLeft.of)


@settings(max_examples=40, deadline=None)
@given(shoe=small_shoes, buster=st.sampled_from(["option-1", "option-5"]))
def test_buster_is_the_brute_forces(shoe: ShoeLeft, buster: str) -> None:
    """On any few cards, Buster is the card-by-card enumeration's, and the shoe holds enough for
    the player-dealer's hand exactly when the enumeration never runs out."""
    chances = blackjack.dealer_chances(blackjack.value_counts(shoe.counts), None)
    table = paytable(buster)
    if chances is None:
        with pytest.raises(ValueError, match="ran out"):
            brute_force.buster(shoe, table)
        return
    assert blackjack.buster_expectation(chances, table) == brute_force.buster(shoe, table)


@settings(max_examples=40, deadline=None)
@given(shoe=small_shoes, red_flex=st.sampled_from(["RFB-02", "RFB-12"]))
def test_red_flex_is_the_brute_forces(shoe: ShoeLeft, red_flex: str) -> None:
    assert shoe.by_card is not None
    red = blackjack.red_value_counts(shoe.by_card)
    chances = blackjack.dealer_chances(blackjack.value_counts(shoe.counts), red)
    if chances is None:
        return
    table = paytable(red_flex)
    assert blackjack.red_flex_expectation(chances, table) == brute_force.red_flex(shoe, table)


@settings(max_examples=40, deadline=None)
@given(shoe=st.lists(st.sampled_from(KINDS), min_size=3, max_size=8).map(ShoeLeft.of))
def test_match_the_dealer_is_the_brute_forces(shoe: ShoeLeft) -> None:
    assert shoe.by_card is not None
    table = paytable("MATCH-003")
    assert blackjack.match_expectation(shoe.by_card, table) == brute_force.match_dealer(shoe, table)


def test_every_kind_of_card_is_a_kind_of_the_brute_force() -> None:
    assert len(KINDS) == 52 and len(set(KINDS)) == 52 and Card("T", "h") in KINDS


def test_the_shoe_a_table_puts_in(tmp_path: Path) -> None:
    """`full_shoe`: the rules' decks of the game's deck; a Spanish deck has no pip tens (003)."""
    from tablectl.protection.live import full_shoe, prepare

    spanish = blackjack_rules(tmp_path, SPANISH, decks=5)
    assert full_shoe(spanish) == ShoeLeft.full(5, spanish=True)
    assert full_shoe(blackjack_rules(tmp_path, PURE, decks=2)) == ShoeLeft.full(2)
    prepare(spanish)  # builds the tables; nothing to see but that it runs
