"""`ShoeLeft`: a shoe's composition as cards are dealt from it, and the refusals naming the card."""

from __future__ import annotations

import pytest

from tablectl.protection.shoe import ShoeLeft, card_index
from tablectl_base.cards import Card


def test_a_full_shoe_holds_four_of_each_rank_a_deck() -> None:
    shoe = ShoeLeft.full(8)
    assert shoe.counts == (32,) * 13
    assert shoe.cards == 416
    assert shoe.by_card == (8,) * 52


def test_a_spanish_shoe_has_no_pip_tens() -> None:
    """003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used": 48-card decks,
    the tens removed."""
    shoe = ShoeLeft.full(6, spanish=True)
    assert shoe.counts[9] == 0
    assert shoe.cards == 6 * 48
    assert shoe.by_card is not None
    assert shoe.by_card[card_index(Card("T", "h"))] == 0


def test_a_card_dealt_leaves_the_shoe_by_rank_and_by_card() -> None:
    shoe = ShoeLeft.full(1).without(Card("Q", "h")).without(Card("Q", "s"))
    assert shoe.counts[11] == 2
    assert shoe.cards == 50
    assert shoe.by_card is not None
    assert shoe.by_card[card_index(Card("Q", "h"))] == 0
    assert shoe.by_card[card_index(Card("Q", "d"))] == 1


def test_a_card_none_of_which_is_left_is_refused_naming_it() -> None:
    shoe = ShoeLeft.full(1).without(Card("7", "d"))
    with pytest.raises(ValueError, match="7d"):
        shoe.without(Card("7", "d"))


def test_a_pip_ten_from_a_spanish_shoe_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="Tc"):
        ShoeLeft.full(4, spanish=True).without(Card("T", "c"))


def test_the_joker_is_refused() -> None:
    with pytest.raises(ValueError, match="JKR"):
        ShoeLeft.full(1).without(Card("JKR", ""))


def test_a_composition_by_rank_alone_refuses_a_rank_none_of_which_is_left() -> None:
    shoe = ShoeLeft((0,) * 12 + (1,))
    assert shoe.without(Card("K", "c")).cards == 0
    with pytest.raises(ValueError, match="Ac"):
        shoe.without(Card("A", "c"))


def test_counts_by_card_must_add_up_to_the_counts_by_rank() -> None:
    with pytest.raises(ValueError, match="add up"):
        ShoeLeft((1,) + (0,) * 12, (0,) * 52)
    with pytest.raises(ValueError, match="13 counts"):
        ShoeLeft((1, 2))


def test_a_composition_of_given_cards() -> None:
    shoe = ShoeLeft.of([Card("7", "h"), Card("7", "h"), Card("K", "s")])
    assert shoe.cards == 3
    assert shoe.counts[6] == 2
    assert shoe.counts[12] == 1
    assert shoe.by_card is not None
    assert shoe.by_card[card_index(Card("7", "h"))] == 2
    assert shoe == ShoeLeft.of([Card("K", "s"), Card("7", "h"), Card("7", "h")])
