"""Seven-card high-poker ranks as small integers, tabulated once from `tablectl.rules.poker`.

The vectorised showdown count (`ultimate_showdowns`) compares hands as integers. A hand's *code*
is the position of its `tablectl.rules.poker` rank among the sorted ranks these tables hold, so
codes compare exactly as the ranks do and `ranks[code]` gives the rank back. The tables are built
by calling the project's evaluator (`rank_unchecked`), never by a second poker evaluator, and
split a seven-card rank the way the evaluator does:

- the non-flush part depends on the hand's multiset of values only: `plain_codes[i]` is the rank
  of the multiset whose key is `plain_keys[i]` (sorted), the key being the sum of
  count * 5**index over the value indices (at most 4 of a value, so the digits never carry);
- the flush part depends on the values held in a suit holding five or more: `flush_codes[mask]`
  for the bit set of those value indices, -1 below five values.

The rank of seven cards is the larger code of the two (`seven_card_code`), as in `rank_unchecked`.
About 50,000 evaluator calls for the 13 values of a full deck (under half a second).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from tablectl.rules.poker import (
    FIVE_CARD_CATEGORIES,
    ROYAL_FLUSH,
    Rank,
    rank_category,
    rank_unchecked,
)
from tablectl_base.cards import RANKS, Card

CATEGORIES = (*FIVE_CARD_CATEGORIES, ROYAL_FLUSH)
"""Category names by index, lowest first; index 9 is the royal flush."""

_PLAIN_SUITS = "shdc"
_FLUSH_SUIT = "s"
HAND = 7


def rank_char(value: int) -> str:
    """The contract-1 rank character of a poker value (14 is the ace)."""
    return RANKS[0] if value == 14 else RANKS[value - 1]


@dataclass(frozen=True)
class RankTables:
    """Codes of every seven-card rank of a deck of four suits of `values` (poker values)."""

    values: tuple[int, ...]
    ranks: tuple[Rank, ...]  # by code, ascending
    categories: NDArray[np.int64]  # CATEGORIES index by code
    plain_keys: NDArray[np.int64]  # sorted multiset keys
    plain_codes: NDArray[np.int32]  # code by plain_keys position
    flush_codes: NDArray[np.int32]  # code by bit mask of value indices, -1 below five

    @property
    def digits(self) -> NDArray[np.int64]:
        """5**index of each value index: a multiset's key is its counts times these."""
        return np.array([5**i for i in range(len(self.values))], dtype=np.int64)

    def plain_code(self, keys: NDArray[np.int64]) -> NDArray[np.int32]:
        """The non-flush code of each multiset key; -1 where the key is no seven-card multiset
        (a value held five times or more)."""
        at = np.searchsorted(self.plain_keys, keys)
        at = np.minimum(at, len(self.plain_keys) - 1)
        found = self.plain_keys[at] == keys
        return np.where(found, self.plain_codes[at], np.int32(-1))


def build_rank_tables(values: Sequence[int]) -> RankTables:
    """Every seven-card multiset of `values` and every suited set of five to seven of them,
    ranked by `rank_unchecked` and coded."""
    vals = tuple(values)
    n = len(vals)
    plain_cards = [[Card(rank_char(v), s) for s in _PLAIN_SUITS] for v in vals]
    flush_cards = [Card(rank_char(v), _FLUSH_SUIT) for v in vals]
    digits = [5**i for i in range(n)]
    plain: dict[int, Rank] = {}
    for combo in combinations_with_replacement(range(n), HAND):
        if any(combo[j] == combo[j + 4] for j in range(HAND - 4)):
            continue  # a value five times or more: no such hand in four suits
        # suits dealt round robin: no suit holds five, so this is the non-flush part
        hand = [plain_cards[i][j % 4] for j, i in enumerate(combo)]
        plain[sum(digits[i] for i in combo)] = rank_unchecked(hand)
    flush: dict[int, Rank] = {}
    for size in range(5, min(HAND, n) + 1):
        for subset in combinations(range(n), size):
            mask = sum(1 << i for i in subset)
            flush[mask] = rank_unchecked([flush_cards[i] for i in subset])
    ranks = tuple(sorted(set(plain.values()) | set(flush.values())))
    code = {rank: c for c, rank in enumerate(ranks)}
    keys = sorted(plain)
    flush_codes = np.full(1 << n, -1, dtype=np.int32)
    for mask, rank in flush.items():
        flush_codes[mask] = code[rank]
    return RankTables(
        values=vals,
        ranks=ranks,
        categories=np.array([CATEGORIES.index(rank_category(r)) for r in ranks], dtype=np.int64),
        plain_keys=np.array(keys, dtype=np.int64),
        plain_codes=np.array([code[plain[k]] for k in keys], dtype=np.int32),
        flush_codes=flush_codes,
    )


def seven_card_code(tables: RankTables, cards: Sequence[Card]) -> int:
    """The code of seven cards' best five (tests compare `ranks[code]` with the evaluator)."""
    index = {rank_char(v): i for i, v in enumerate(tables.values)}
    counts = [0] * len(tables.values)
    masks = dict.fromkeys(_PLAIN_SUITS, 0)
    for card in cards:
        i = index[card.rank]
        counts[i] += 1
        masks[card.suit] |= 1 << i
    key = np.array([sum(k * 5**i for i, k in enumerate(counts))], dtype=np.int64)
    code = int(tables.plain_code(key)[0])
    return max([code, *(int(tables.flush_codes[m]) for m in masks.values())])
