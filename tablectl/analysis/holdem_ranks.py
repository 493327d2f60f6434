"""Seven-card high-poker ranks as small integers, tabulated once from `tablectl.rules.poker`.

The vectorised showdown count (`ultimate_showdowns`) compares hands as integers. A hand's *code*
is the position of its `tablectl.rules.poker` rank among the sorted ranks these tables hold, so
codes compare exactly as the ranks do and `ranks[code]` gives the rank back. The tables are built
from the project's evaluator (`rank_unchecked`), never by a second poker evaluator, and split a
seven-card rank the way the evaluator does:

- the non-flush part depends on the hand's multiset of values only: `plain_codes[i]` is the rank
  of the multiset whose key is `plain_keys[i]` (sorted), the key being the sum of
  count * 5**index over the value indices (at most 4 of a value, so the digits never carry);
- the flush part depends on the values held in a suit holding five or more: `flush_codes[mask]`
  for the bit set of those value indices, -1 below five values.

The rank of seven cards is the larger code of the two (`seven_card_code`), as in `rank_unchecked`.
About 11,000 evaluator calls for the 13 values of a full deck (a tenth of a second).
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


def multisets(n: int, size: int) -> NDArray[np.int64]:
    """Every multiset of `size` value indices below n holding no index more than four times (a
    hand of four suits), one row each, indices ascending."""
    rows = np.array(list(combinations_with_replacement(range(n), size)), dtype=np.int64)
    rows = rows.reshape(-1, size)
    if size > 4:
        rows = rows[~(rows[:, :-4] == rows[:, 4:]).any(axis=1)]
    return rows


def build_rank_tables(values: Sequence[int]) -> RankTables:
    """Every seven-card multiset of `values` and every suited set of five to seven of them,
    ranked from `rank_unchecked` and coded.

    The evaluator ranks every five-value multiset (suits dealt round robin, so no flush: 6,175
    of them for 13 values) and every suited set; a seven-value multiset's non-flush rank is the
    best of its 21 five-value parts, which is what "best five" means (the tests hold it equal to
    `rank_unchecked` on all 49,205 seven-value multisets)."""
    vals = tuple(values)
    n = len(vals)
    plain_cards = [[Card(rank_char(v), s) for s in _PLAIN_SUITS] for v in vals]
    flush_cards = [Card(rank_char(v), _FLUSH_SUIT) for v in vals]
    digits = np.array([5**i for i in range(n)], dtype=np.int64)
    fives = multisets(n, 5)
    five_ranks = [
        rank_unchecked([plain_cards[i][j % 4] for j, i in enumerate(row)]) for row in fives.tolist()
    ]
    flush: dict[int, Rank] = {}
    for size in range(5, min(HAND, n) + 1):
        for subset in combinations(range(n), size):
            flush[sum(1 << i for i in subset)] = rank_unchecked([flush_cards[i] for i in subset])
    every = sorted(set(five_ranks) | set(flush.values()))
    code = {rank: c for c, rank in enumerate(every)}
    five_keys = digits[fives].sum(axis=1)
    order = np.argsort(five_keys)
    five_keys = five_keys[order]
    five_codes = np.array([code[r] for r in five_ranks], dtype=np.int64)[order]
    sevens = multisets(n, HAND)
    parts = np.array(list(combinations(range(HAND), 5)), dtype=np.int64)
    part_keys = digits[sevens[:, parts]].sum(axis=2)
    plain = five_codes[np.searchsorted(five_keys, part_keys)].max(axis=1, initial=-1)
    flush_codes = np.full(1 << n, -1, dtype=np.int64)
    for mask, rank in flush.items():
        flush_codes[mask] = code[rank]
    # number only the ranks seven cards can have: 4,824 of the 7,462 five-card ranks
    used = np.unique(np.concatenate([plain, flush_codes[flush_codes >= 0]]))
    renumber = np.full(len(every) + 1, -1, dtype=np.int32)  # the last entry maps -1 to -1
    renumber[used] = np.arange(len(used), dtype=np.int32)
    ranks = tuple(every[c] for c in used.tolist())
    seven_keys = digits[sevens].sum(axis=1)
    order = np.argsort(seven_keys)
    return RankTables(
        values=vals,
        ranks=ranks,
        categories=np.array([CATEGORIES.index(rank_category(r)) for r in ranks], dtype=np.int64),
        plain_keys=seven_keys[order],
        plain_codes=renumber[plain[order]],
        flush_codes=renumber[flush_codes],
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
