"""Poker evaluators: R29 three-card order, five-card high poker, best five of 5-7 cards.

Expected orders come from the documents' hand-ranking prose (000 "Three Card Poker 6 Card Bonus:
Card Values and Hand Rankings", 001 "Ranking of Hands", 004 "Three Card Poker 6 Card Bonus: Card
Values and Hand Rankings") and R29; the property test compares `best_five` with a brute-force
reference written here from the same prose, not from the module under test.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.rules.poker import (
    HandError,
    best_five,
    best_rank,
    five_card_category,
    five_card_rank,
    three_card_category,
    three_card_rank,
)
from tablectl_base.cards import Card, parse_card, standard_deck


def hand(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


# ---------------------------------------------------------------- three cards (R29)


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("Ah Kh Qh", "mini-royal-flush"),  # 000:300 "ace, king, and queen of the same suit"
        ("Kh Qh Jh", "straight-flush"),
        ("Ah 2h 3h", "straight-flush"),
        ("7c 7d 7s", "three-of-a-kind"),
        ("Ah Kd Qh", "straight"),
        ("Ah 2d 3c", "straight"),
        ("Ah Kh Jh", "flush"),
        ("5s 3s 2s", "flush"),
        ("2c 2d Ah", "pair"),
        ("Ah Kd Jc", "high-card"),
        ("Ah Kd 2c", "high-card"),  # K-A-2 does not wrap around
    ],
)
def test_r29_three_card_categories(cards: str, category: str) -> None:
    assert three_card_category(hand(cards)) == category


def test_r29_order_of_categories() -> None:
    """R29: Mini Royal > straight flush > trips > straight > flush > pair > high card."""
    ladder = ["Ah Kd Jc", "2c 2d Ah", "5s 3s 2s", "Ah 2d 3c", "2c 2d 2h", "Ah 2h 3h", "Ah Kh Qh"]
    ranks = [three_card_rank(hand(h)) for h in ladder]
    assert ranks == sorted(ranks)
    assert len(set(ranks)) == len(ranks)


def test_r29_a23_is_the_lowest_straight_and_straight_flush() -> None:
    """R29 (000 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings", 004): A-2-3 lowest;
    001's "4-3-2 lowest" yields."""
    assert three_card_rank(hand("Ah 2h 3h")) < three_card_rank(hand("2c 3c 4c"))
    assert three_card_rank(hand("Ah 2d 3c")) < three_card_rank(hand("2c 3d 4s"))
    # but A-2-3 is still a straight, above every flush and pair
    assert three_card_rank(hand("Ah 2d 3c")) > three_card_rank(hand("Ah Kh Jh"))


def test_r29_mini_royal_above_every_straight_flush() -> None:
    mini = three_card_rank(hand("As Ks Qs"))
    assert mini > three_card_rank(hand("Kd Qd Jd"))  # the highest ordinary straight flush
    assert three_card_rank(hand("As Kd Qs")) < three_card_rank(hand("2c 3c 4c"))  # AKQ offsuit


def test_three_card_ties_and_kickers() -> None:
    assert three_card_rank(hand("Ah Kd Qh")) == three_card_rank(hand("Ac Ks Qd"))
    assert three_card_rank(hand("9c 9d Kh")) > three_card_rank(hand("9h 9s Qh"))
    assert three_card_rank(hand("Ah Kd 9c")) > three_card_rank(hand("Ah Qd Jc"))


def test_three_card_refuses_wrong_hands() -> None:
    with pytest.raises(HandError):
        three_card_rank(hand("Ah Kd"))
    with pytest.raises(HandError):
        three_card_rank(hand("Ah Ah Kd"))
    with pytest.raises(HandError):
        three_card_rank([*hand("Ah Kd"), parse_card("JKR")])


# ---------------------------------------------------------------- five cards


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("Ah Kh Qh Jh Th", "royal-flush"),
        ("9s 8s 7s 6s 5s", "straight-flush"),
        ("5d 4d 3d 2d Ad", "straight-flush"),
        ("7c 7d 7h 7s 2c", "four-of-a-kind"),
        ("7c 7d 7h 2s 2c", "full-house"),
        ("Ah Jh 9h 4h 2h", "flush"),
        ("Ah Kd Qc Js Th", "straight"),
        ("5h 4d 3c 2s Ah", "straight"),
        ("Qc Qd Qh 9s 2c", "three-of-a-kind"),
        ("Qc Qd 9h 9s 2c", "two-pair"),
        ("Qc Qd 9h 8s 2c", "pair"),
        ("Ac Qd 9h 8s 2c", "high-card"),
        ("Qh Kd Ac 2s 3h", "high-card"),  # no wrap-around straight
    ],
)
def test_five_card_categories(cards: str, category: str) -> None:
    assert five_card_category(hand(cards)) == category


def test_wheel_is_the_lowest_straight() -> None:
    assert five_card_rank(hand("5h 4d 3c 2s Ah")) < five_card_rank(hand("6h 5d 4c 3s 2h"))
    assert five_card_rank(hand("5d 4d 3d 2d Ad")) < five_card_rank(hand("6c 5c 4c 3c 2c"))
    assert five_card_rank(hand("5h 4d 3c 2s Ah")) > five_card_rank(hand("Ah Ad Ac Kd Qs"))


def test_best_five_of_six_and_seven() -> None:
    rank, five = best_five(hand("Ah Kh Qh Jh Th 9h"))
    assert five_card_category(five) == "royal-flush"
    assert five_card_rank(five) == rank
    rank, five = best_five(hand("Ah 2d 3c 4s 5h Kd Kc"))  # wheel beats the pair of kings
    assert five_card_category(five) == "straight"
    assert sorted(str(c) for c in five) == ["2d", "3c", "4s", "5h", "Ah"]
    rank, five = best_five(hand("9c 9d 9h 4s 4h 4c 2d"))  # two trips: nines full of fours
    assert rank == five_card_rank(hand("9c 9d 9h 4s 4h"))


def test_five_card_refuses_wrong_sizes() -> None:
    with pytest.raises(HandError):
        five_card_rank(hand("Ah Kh Qh Jh"))
    with pytest.raises(HandError):
        best_five(hand("Ah Kh Qh Jh Th 9h 8h 7h"))


# ---------------------------------------------------------------- brute-force reference

_REF_VALUES = {r: i for i, r in enumerate("23456789TJQKA", start=2)}


def _reference_five(cards: tuple[Card, ...]) -> tuple[int, list[int]]:
    """Straight from the hand-ranking prose: category 0..8, then values by count then value."""
    values = [_REF_VALUES[c.rank] for c in cards]
    flush = len({c.suit for c in cards}) == 1
    distinct = sorted(set(values))
    straight_top = None
    if len(distinct) == 5 and distinct[4] - distinct[0] == 4:
        straight_top = distinct[4]
    elif distinct == [2, 3, 4, 5, 14]:
        straight_top = 5  # the wheel: the ace plays low
    counts = Counter(values)
    shape = sorted(counts.values(), reverse=True)
    order = sorted(values, key=lambda v: (counts[v], v), reverse=True)
    if straight_top is not None:
        order = [straight_top]
    if straight_top is not None and flush:
        cat = 8
    elif shape == [4, 1]:
        cat = 7
    elif shape == [3, 2]:
        cat = 6
    elif flush:
        cat = 5
    elif straight_top is not None:
        cat = 4
    elif shape == [3, 1, 1]:
        cat = 3
    elif shape == [2, 2, 1]:
        cat = 2
    elif shape == [2, 1, 1, 1]:
        cat = 1
    else:
        cat = 0
    return cat, order


def _reference_best(cards: list[Card]) -> tuple[int, list[int]]:
    return max(_reference_five(five) for five in combinations(cards, 5))


@settings(max_examples=400, deadline=None)
@given(st.integers(5, 7).flatmap(lambda n: st.permutations(standard_deck()).map(lambda d: d[:n])))
def test_best_five_matches_brute_force_reference(cards: list[Card]) -> None:
    rank, five = best_five(cards)
    assert rank == best_rank(cards)
    assert set(five) <= set(cards) and len(set(five)) == 5
    assert five_card_rank(five) == rank
    ref = _reference_best(cards)
    assert rank[0] == ref[0]
    assert _reference_five(five) == ref


@settings(max_examples=300, deadline=None)
@given(
    st.permutations(standard_deck()).map(lambda d: d[:5]),
    st.permutations(standard_deck()).map(lambda d: d[:5]),
)
def test_five_card_order_matches_reference(a: list[Card], b: list[Card]) -> None:
    ra, rb = five_card_rank(a), five_card_rank(b)
    fa, fb = _reference_five(tuple(a)), _reference_five(tuple(b))
    assert (ra > rb) == (fa > fb) and (ra == rb) == (fa == fb)
