"""The seven-card rank codes against the evaluator and against a brute force of five-card hands.

The codes are built from `tablectl.rules.poker.rank_unchecked`; these tests hold them equal to it
on every seven-value multiset and every suited set, and hold that splitting a hand into its value
multiset and its five-or-more suit gives back the evaluator's rank for any seven cards (every hand
of a 20-card deck, a fixed sample of 20,000 full-deck hands, hypothesis), and that the evaluator's
seven-card rank is the best of its 21 five-card hands (brute force).
"""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.analysis.holdem_ranks import (
    CATEGORIES,
    build_rank_tables,
    multisets,
    seven_card_code,
)
from tablectl.analysis.ultimate import FULL_DECK_VALUES, rank_tables
from tablectl.rules.poker import best_rank, five_card_rank, rank_category, rank_unchecked
from tablectl_base.cards import RANKS, Card

FULL = [Card(RANKS[0] if v == 14 else RANKS[v - 1], s) for v in FULL_DECK_VALUES for s in "shdc"]


def brute_force(cards: list[Card]) -> tuple[int, ...]:
    """The best of every five-card hand among the cards, each ranked alone."""
    return max(five_card_rank(list(five)) for five in combinations(cards, 5))


def test_codes_order_the_ranks() -> None:
    """Codes are positions in the sorted ranks, so they compare as the ranks do; categories
    follow the ranks. Seven cards have 4,824 distinct best-five values, the known count (of the
    7,462 five-card values, the lowest, such as 7-5-4-3-2 high, are never the best five of
    seven cards)."""
    tables = rank_tables(FULL_DECK_VALUES)
    assert list(tables.ranks) == sorted(set(tables.ranks))
    assert len(tables.ranks) == 4_824
    assert [CATEGORIES[c] for c in tables.categories] == [rank_category(r) for r in tables.ranks]
    assert int(tables.flush_codes.max()) == len(tables.ranks) - 1  # the royal flush
    assert int((tables.flush_codes >= 0).sum()) == 1_287 + 1_716 + 1_716  # C(13, 5..7)


def test_every_seven_value_multiset_is_the_evaluators() -> None:
    """The non-flush code of each of the 49,205 seven-value multisets of four suits (built as the
    best of its 21 five-value parts) is `rank_unchecked` of those seven cards, suits round robin,
    and every flush code is the evaluator's rank of its cards in one suit."""
    tables = rank_tables(FULL_DECK_VALUES)
    sevens = multisets(13, 7)
    assert len(sevens) == 49_205
    codes = tables.plain_code(tables.digits[sevens].sum(axis=1))
    for row, code in zip(sevens.tolist(), codes.tolist(), strict=True):
        hand = [FULL[4 * i + j % 4] for j, i in enumerate(row)]
        assert tables.ranks[code] == rank_unchecked(hand), hand
    for mask, code in enumerate(tables.flush_codes.tolist()):
        if code >= 0:
            suited = [FULL[4 * i] for i in range(13) if mask >> i & 1]
            assert tables.ranks[code] == rank_unchecked(suited), suited


def test_every_hand_of_a_20_card_deck() -> None:
    """T J Q K A in four suits: all C(20,7) = 77,520 hands, straights, flushes, quads."""
    values = (10, 11, 12, 13, 14)
    tables = build_rank_tables(values)
    deck = [Card(RANKS[0] if v == 14 else RANKS[v - 1], s) for v in values for s in "shdc"]
    seen = 0
    for hand in combinations(deck, 7):
        assert tables.ranks[seven_card_code(tables, hand)] == best_rank(hand)
        seen += 1
    assert seen == 77_520


def test_a_sample_of_full_deck_hands() -> None:
    """20,000 seven-card hands drawn with a fixed seed, and the first 500 also by brute force."""
    tables = rank_tables(FULL_DECK_VALUES)
    rng = random.Random(20261129)
    for i in range(20_000):
        hand = rng.sample(FULL, 7)
        rank = tables.ranks[seven_card_code(tables, hand)]
        assert rank == best_rank(hand)
        if i < 500:
            assert rank == brute_force(hand)


@settings(max_examples=300, deadline=None)
@given(st.permutations(FULL).map(lambda d: d[:7]))
def test_codes_equal_the_evaluator_and_the_brute_force(hand: list[Card]) -> None:
    tables = rank_tables(FULL_DECK_VALUES)
    rank = tables.ranks[seven_card_code(tables, hand)]
    assert rank == best_rank(hand) == brute_force(hand)


def test_plain_codes_refuse_a_value_five_times() -> None:
    """Keys of multisets that four suits cannot hold find no code (-1)."""
    tables = rank_tables(FULL_DECK_VALUES)
    five_deuces = 5 * 5**0 + 1 * 5**1 + 1 * 5**2
    four_deuces = 4 * 5**0 + 2 * 5**1 + 1 * 5**2
    codes = tables.plain_code(np.array([five_deuces, four_deuces], dtype=np.int64))
    assert int(codes[0]) == -1
    assert tables.ranks[int(codes[1])] == (7, 2, 2, 2, 2, 4)  # four deuces, a four kicker
