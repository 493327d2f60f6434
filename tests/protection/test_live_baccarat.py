"""Baccarat's live figures (tablectl/protection/live.py): at a full shoe they are `analyze`'s; on
a few cards left they are worked out by hand; on random small shoes they are the brute force's."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.analysis.baccarat import exact_house_edge
from tablectl.protection.live import LiveFigures, live_figures, live_game
from tablectl.protection.shoe import ShoeLeft
from tablectl_base.cards import RANKS, parse_card
from tests.protection import brute_force
from tests.protection.tables import baccarat_rules, three_card_poker_rules

SPOTS = ["player", "banker", "tie", "dragon7", "panda8"]


def _by_spot(figures: LiveFigures) -> dict[str, Fraction]:
    return {w.wager: w.expectation for w in figures.wagers}


def _shoe(cards: str) -> ShoeLeft:
    return ShoeLeft.of(parse_card(c) for c in cards.split())


@pytest.mark.parametrize("push", [False, True])
@pytest.mark.parametrize("decks", [3, 6, 8])
def test_the_figures_of_a_full_shoe_are_analyzes(tmp_path: Path, decks: int, push: bool) -> None:
    """`tablectl analyze`'s exact house edge is minus the player's expectation, R26 and R27 pays,
    with and without the banker pushing on a Dragon 7."""
    rules = baccarat_rules(tmp_path, decks=decks, push=push)
    assert live_game(rules)
    figures = live_figures(rules, ShoeLeft.full(decks))
    assert figures.cards_left == 52 * decks
    assert [w.wager for w in figures.wagers] == SPOTS
    for w in figures.wagers:
        edge = exact_house_edge(w.wager, decks, banker_push_on_dragon7=push)
        assert w.expectation == -edge
        assert w.full_shoe == -edge
    assert figures.running_count is None
    assert figures.true_count is None


def test_six_tens_always_tie(tmp_path: Path) -> None:
    """Six tens: player 0 (two cards) draws (R25: hits on 0-5) a ten, 0; banker 0, the player's
    third card a 0, hits (chart row 0) a ten, 0. Every coup is a 0-0 tie: the tie pays 8 (R26),
    player and banker push, Dragon 7 and Panda 8 lose (R27)."""
    figures = live_figures(baccarat_rules(tmp_path), _shoe("Ks Kh Qd Jc Ts Th"))
    assert _by_spot(figures) == {"player": 0, "banker": 0, "tie": 8, "dragon7": -1, "panda8": -1}
    assert figures.cards_left == 6


@pytest.mark.parametrize(
    ("push", "banker"), [(False, Fraction(0)), (True, Fraction(-1, 6))], ids=["wins", "pushes"]
)
def test_five_tens_and_a_seven(tmp_path: Path, push: bool, banker: Fraction) -> None:
    """Five tens and a 7; the 7 is each of the six cards a coup can deal with chance 1/6 (R25
    order P1 B1 P2 B2, player's third, banker's third).

    - 7 as P1 or P2: player 7 stands; banker 0 hits (the player stood: 0-5 hit) a ten, 0:
      player wins.
    - 7 as B1 or B2: banker 7; player 0 hits a ten; banker 7 stands (chart row 7): banker wins
      with two cards (no Dragon 7).
    - 7 as the player's third card: player 7; banker 0 hits (row 0, third card 7) a ten: player
      wins.
    - 7 as the banker's third card: player 0 (drew a ten); banker 0 + 7 = three-card 7 against 0:
      Dragon 7 (R27).

    Player: wins 3/6, loses 3/6: 0. Banker: wins 3/6 (0), or with the push wins 2/6, pushes 1/6,
    loses 3/6: -1/6. Tie: never, -1. Dragon 7: 40 x 1/6 - 5/6 = 35/6. Panda 8: -1.
    """
    figures = live_figures(baccarat_rules(tmp_path, push=push), _shoe("Ks Kh Qd Jc Ts 7h"))
    assert _by_spot(figures) == {
        "player": 0,
        "banker": banker,
        "tie": -1,
        "dragon7": Fraction(35, 6),
        "panda8": -1,
    }


def test_five_tens_and_an_eight(tmp_path: Path) -> None:
    """Five tens and an 8, each position 1/6 (R25).

    - 8 as P1 or P2: a player natural 8, nobody draws: player wins (two cards, no Panda 8).
    - 8 as B1 or B2: a banker natural: banker wins.
    - 8 as the player's third card: player 8 with three cards; banker 0 hits a ten: player wins
      with a three-card 8 against 0: Panda 8 (R27).
    - 8 as the banker's third card: player 0; banker 0 + 8: banker wins (an 8 is no Dragon 7).

    Player and banker each win 3/6: 0. Tie -1, Dragon 7 -1, Panda 8: 25 x 1/6 - 5/6 = 10/3.
    """
    figures = live_figures(baccarat_rules(tmp_path), _shoe("Ks Kh Qd Jc Ts 8d"))
    assert _by_spot(figures) == {
        "player": 0,
        "banker": 0,
        "tie": -1,
        "dragon7": -1,
        "panda8": Fraction(10, 3),
    }


def test_a_shoe_too_short_for_a_coup_gives_no_figures(tmp_path: Path) -> None:
    """A coup may deal six cards (R25): with five left the next coup may not be dealt."""
    figures = live_figures(baccarat_rules(tmp_path), _shoe("Ks Kh Qd Jc Ts"))
    assert figures.wagers == ()
    assert figures.cards_left == 5


def test_a_game_without_live_figures_is_refused(tmp_path: Path) -> None:
    rules = three_card_poker_rules(tmp_path)
    assert not live_game(rules)
    with pytest.raises(ValueError, match="three-card-poker-6cb has no live figures"):
        live_figures(rules, ShoeLeft.full(1))


@settings(max_examples=25, deadline=None)
@given(
    ranks=st.lists(st.sampled_from(RANKS), min_size=6, max_size=11),
    push=st.booleans(),
)
def test_the_figures_are_the_brute_forces_on_small_shoes(ranks: list[str], push: bool) -> None:
    """Any composition of six to eleven cards: every spot's figure equals the card-by-card
    enumeration of tests/protection/brute_force.py."""
    from tablectl.protection.baccarat import class_counts, expectations

    shoe = ShoeLeft(tuple(ranks.count(r) for r in RANKS))
    live = expectations(class_counts(shoe.counts), banker_push_on_dragon7=push)
    assert live == brute_force.baccarat(shoe, banker_push_on_dragon7=push)


def test_the_figures_are_the_brute_forces_on_a_mixed_shoe(tmp_path: Path) -> None:
    """One composition with every rank, through `live_figures`."""
    shoe = ShoeLeft((1,) * 13)
    figures = _by_spot(live_figures(baccarat_rules(tmp_path), shoe))
    assert figures == brute_force.baccarat(shoe, banker_push_on_dragon7=False)


def test_a_game_without_live_figures_has_no_full_shoe(tmp_path: Path) -> None:
    from tablectl.protection.live import full_shoe, prepare

    rules = three_card_poker_rules(tmp_path)
    for call in (full_shoe, prepare):
        with pytest.raises(ValueError, match="no live figures"):
            call(rules)
    assert full_shoe(baccarat_rules(tmp_path, decks=6)) == ShoeLeft.full(6)
