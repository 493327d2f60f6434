"""The showdowns of every hole-card deal on board classes, counted with numpy.

A board class (`ultimate.board_classes`) is a rank multiset plus the value indices held by the
one suit with three or more board cards (if any), weighted by its number of boards. Within a
class the remaining cards fall into *types*: a value, off the board's flush suit (or of any suit
when there is none) or in it (`_flush_types`). Every hole pair of the same two types has the same
seven-card rank, so a class is a T x T matrix R of rank codes (`holdem_ranks`) over its types
(T = 13 without a flush suit, 23 with one), with `avail[t]` cards of type t left.

For a player pair of types {a, b} and rank r, the player-dealer pairs that beat it and share no
card with it number G(r) - H_a(r) - H_b(r) (inclusion-exclusion on the two cards): G(r) counts
the pairs ranked above r and H_c(r) those holding one given card of type c. The ties number
E(r) - E_a(r) - E_b(r) + 1 (the +1 is the pair itself), E the same counts at rank r. Summed over
the player pairs of one category:

- sum N_e G(r_e) over the T(T+1)/2 type pairs e (N_e pairs each): one sort of a class's entries;
- sum N_e (H_a + H_b)(r_e) = sum over the ordered (a, b) of M[a,b] H_a(R[a,b]), where
  H_a(r) = sum over b' of W[a,b'] [R[a,b'] > r], W[a,b'] = avail[b'] - [a = b'] the pairs holding
  one given card of type a, and M[a,b] = avail[a] W[a,b] (a pair of two cards of type a counts
  H_a twice): one sort of each row of R.

Nothing loops over a pair in Python: a chunk of classes is a few array sorts and cumulative sums.
Counts are 64-bit integers; the sums by category run in float64 (numpy's bincount) over
nonnegative integers and are refused unless their total is below 2**53, so every partial sum was
an exact integer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb

import numpy as np
from numpy.typing import NDArray

from tablectl.analysis.holdem_ranks import CATEGORIES, RankTables

IntArray = NDArray[np.int64]
Int32Array = NDArray[np.int32]

CHUNK = 256
"""Board classes counted together: arrays of 256 x 23 x 23 entries, small enough to stay in a
core's cache (256 counted the full deck in 0.7 s of CPU here, 2,048 in 1.1 s)."""

_EXACT = 2**53


def _runs(codes: Int32Array, weights: Int32Array, bits: int) -> tuple[IntArray, ...]:
    """The runs of equal codes in each row of `codes` (last axis), rows flattened in order.

    For each run: its code plus one (0 for the -1 of an impossible hand), its row, the summed
    `weights` (each below 2**bits) of its entries, and the weight of the row's entries ranked
    strictly above it. The rows are sorted with the weight in the sort key's low bits, and the
    run sums are differences of one cumulative sum over the whole chunk, taken at each run's
    last entry, so nothing is gathered per entry.
    """
    width = codes.shape[-1]
    keys = np.sort(((codes + 1) << bits) | weights, axis=-1).reshape(-1, width)
    ranked = keys >> bits
    last = np.ones(ranked.shape, dtype=bool)
    last[:, :-1] = ranked[:, 1:] != ranked[:, :-1]
    cum = np.cumsum(keys & ((1 << bits) - 1), dtype=np.int64)
    ends = np.flatnonzero(last)
    at_end = cum[ends]
    run = np.diff(at_end, prepend=0)
    row = ends // width
    above = cum[row * width + width - 1] - at_end
    return ranked.ravel()[ends], row, run, above


def _per_category(cats: IntArray, amounts: IntArray) -> IntArray:
    """Sum `amounts` (nonnegative integers) by category (`cats`, one per amount), exactly.

    The sum runs in float64 (numpy's bincount): every amount is nonnegative, so each partial sum
    is at most the final total, and a total below 2**53 means every addition was exact.
    """
    sums = np.bincount(cats, weights=amounts, minlength=len(CATEGORIES) + 1)
    if float(sums.sum()) >= _EXACT:
        raise ArithmeticError("a category sum could leave float64's exact integers")
    return sums.astype(np.int64)[: len(CATEGORIES)]


def _flush_types(
    tables: RankTables, plain: Int32Array, counts: IntArray, suited: IntArray
) -> tuple[IntArray, Int32Array]:
    """The types of board classes with a three-or-more suit: cards left and the rank code of each
    type pair (the larger of the non-flush and the flush code).

    Types 0..n-1 are value i off the flush suit; types n.. are the values the board's flush suit
    does not hold (at most n - 3, the suit holding three or more), one card each, in that suit.
    A class whose suit holds more than three has its last in-suit types empty (no cards).
    """
    size, n = counts.shape
    values = np.arange(n, dtype=np.int64)
    in_suit = np.argsort(suited, axis=1, kind="stable")[:, : n - 3]  # values not in the suit first
    type_value = np.concatenate([np.broadcast_to(values, (size, n)), in_suit], axis=1)
    on = np.concatenate([np.zeros(n, dtype=np.int64), np.ones(n - 3, dtype=np.int64)])
    avail = np.concatenate(
        [3 - (counts - suited), 1 - np.take_along_axis(suited, in_suit, axis=1)], axis=1
    )
    t = type_value.shape[1]
    flat = (type_value[:, :, None] * n + type_value[:, None, :]).reshape(size, t * t)
    codes = np.take_along_axis(plain.reshape(size, n * n), flat, axis=1).reshape(size, t, t)
    bits = (on[None, :] << type_value).astype(np.int32)
    board_mask = (suited @ (np.int64(1) << values)).astype(np.int32)
    masks = board_mask[:, None, None] | bits[:, :, None] | bits[:, None, :]
    return avail, np.maximum(codes, tables.flush_codes[masks])


def _row_sums(
    categories: IntArray, codes: Int32Array, w: Int32Array, multiplier: IntArray
) -> tuple[IntArray, IntArray]:
    """Sum over the rows' entries (a, b) of M[a,b] H_a(R[a,b]) and of M[a,b] E_a(R[a,b]) by
    category, M = multiplier[a] W[a,b]: `codes` and `w` are (classes, rows, entries) and
    `multiplier` (classes, rows), the boards of the class times the cards of row a's type."""
    ranked, row, run, above = _runs(codes, w, 3)
    cats = categories[ranked]
    m = multiplier.ravel()[row] * run
    return _per_category(cats, m * above), _per_category(cats, m * run)


def _pair_sums(
    categories: IntArray, codes: Int32Array, pairs: IntArray, weights: IntArray
) -> tuple[IntArray, IntArray, IntArray]:
    """Sums by category of N_e G(r_e), N_e (E(r_e) + 1) and N_e over the type pairs e of each
    class (`codes`, `pairs`: classes x type pairs), times the class's boards."""
    ranked, row, run, above = _runs(codes, pairs.astype(np.int32), 5)
    cats = categories[ranked]
    m = weights[row] * run
    return (
        _per_category(cats, m * above),
        _per_category(cats, m * (run + 1)),
        _per_category(cats, m),
    )


def _tally(
    n: int, rows: Sequence[tuple[IntArray, IntArray]], pairs: tuple[IntArray, ...]
) -> IntArray:
    """(win, tie, lose) by category from the row sums (H and E) and the pair sums (G, E, N)."""
    above, level, dealt = pairs
    lose = above - sum(lose for lose, _ in rows)
    tie = level - sum(tie for _, tie in rows)
    dealt = dealt * comb(4 * n - 7, 2)
    return np.stack([dealt - lose - tie, tie, lose])


def _type_pairs(avail: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """The unordered type pairs (a <= b) and the hole pairs of each: C(avail[a], 2) or
    avail[a] avail[b]."""
    ia, ib = np.triu_indices(avail.shape[1])
    pairs = np.where(ia == ib, avail[:, ia] * (avail[:, ia] - 1) // 2, avail[:, ia] * avail[:, ib])
    return ia, ib, pairs


def count_all_types(
    tables: RankTables,
    plain: Int32Array,
    counts: IntArray,
    suited: IntArray,
    weights: IntArray,
    flush: bool,
) -> IntArray:
    """(win, tie, lose) by the player's category over one chunk of board classes, all with a
    three-or-more suit (`flush`) or all without; `plain[k, i, j]` is class k's non-flush code
    with hole values i and j."""
    if flush:
        avail, codes = _flush_types(tables, plain, counts, suited)
    else:
        avail, codes = 4 - counts, plain
    t = avail.shape[1]
    categories = _shifted(tables)
    # rows: H_a and E_a for each ordered (a, b); M = avail[a] W within row a, times the boards
    w_row = np.maximum(avail[:, None, :] - np.eye(t, dtype=np.int64), 0).astype(np.int32)
    rows = _row_sums(categories, codes, w_row, avail * weights[:, None])
    ia, ib, pairs = _type_pairs(avail)
    return _tally(counts.shape[1], [rows], _pair_sums(categories, codes[:, ia, ib], pairs, weights))


def count_three_suited(
    tables: RankTables, plain: Int32Array, counts: IntArray, suited: IntArray, weights: IntArray
) -> IntArray:
    """`count_all_types` for classes whose flush suit holds exactly three board cards, with fewer
    entries: only two hole cards both of that suit can make a flush.

    So a card of value v off the suit and one in it rank alike against every partner but the
    other in-suit cards, and the in-suit cards' pairs are the only ones whose code is not the
    non-flush code: the type pairs are the n(n+1)/2 value pairs (off-and-in-suit cards merged,
    the in-suit pairs left out) plus the C(n-3, 2) in-suit pairs; an off-suit card's row is its
    value's merged row (W = merged cards left, less itself); an in-suit card's row is its value's
    codes against the off-suit cards plus its flush codes against the other in-suit cards.
    """
    size, n = counts.shape
    values = np.arange(n, dtype=np.int64)
    categories = _shifted(tables)
    merged = 4 - counts
    off = 3 - (counts - suited)
    on = np.argsort(suited, axis=1, kind="stable")[:, : n - 3]  # the values not in the suit
    board_mask = (suited @ (np.int64(1) << values)).astype(np.int32)
    bits = (np.int32(1) << on).astype(np.int32)
    masks = board_mask[:, None, None] | bits[:, :, None] | bits[:, None, :]
    on_plain = np.take_along_axis(
        np.take_along_axis(plain, on[:, :, None], axis=1), on[:, None, :], axis=2
    )
    flush = np.maximum(on_plain, tables.flush_codes[masks])  # in-suit pair codes
    # rows of the off-suit cards: merged by value
    w_off = np.maximum(merged[:, None, :] - np.eye(n, dtype=np.int64), 0).astype(np.int32)
    off_rows = _row_sums(categories, plain, w_off, off * weights[:, None])
    # rows of the in-suit cards (one card each): the off-suit cards, then the other in-suit cards
    on_codes = np.concatenate([np.take_along_axis(plain, on[:, :, None], axis=1), flush], axis=2)
    w_on = np.concatenate(
        [
            np.broadcast_to(off[:, None, :], (size, n - 3, n)),
            np.broadcast_to(1 - np.eye(n - 3, dtype=np.int64), (size, n - 3, n - 3)),
        ],
        axis=2,
    ).astype(np.int32)
    on_rows = _row_sums(categories, on_codes, w_on, np.broadcast_to(weights[:, None], on.shape))
    # the pairs: value pairs (less the in-suit pairs) and in-suit pairs
    ia, ib, pairs = _type_pairs(merged)
    in_suit = 1 - suited
    pairs = pairs - np.where(ia == ib, 0, in_suit[:, ia] * in_suit[:, ib])
    ja, jb = np.triu_indices(n - 3, k=1)
    codes = np.concatenate([plain[:, ia, ib], flush[:, ja, jb]], axis=1)
    pairs = np.concatenate([pairs, np.ones((size, len(ja)), dtype=np.int64)], axis=1)
    return _tally(n, [off_rows, on_rows], _pair_sums(categories, codes, pairs, weights))


def _shifted(tables: RankTables) -> IntArray:
    """Category by code plus one: the impossible hand (code -1, shifted to 0, always weighted 0)
    counted as high card."""
    return np.concatenate([np.zeros(1, dtype=np.int64), tables.categories])


def _plain_by_multiset(tables: RankTables, counts: IntArray) -> tuple[Int32Array, IntArray]:
    """The non-flush code with hole values i and j of each distinct rank multiset, [multiset,
    i, j] (-1 where four suits cannot hold the seven cards), and each class's multiset."""
    keys, board = np.unique(counts @ tables.digits, return_inverse=True)
    digits = tables.digits
    return tables.plain_code(keys[:, None, None] + digits[:, None] + digits[None, :]), board


def plain_codes(tables: RankTables, counts: IntArray) -> Int32Array:
    """Each class's non-flush code with hole values i and j, [class, i, j]."""
    by_multiset, board = _plain_by_multiset(tables, counts)
    return by_multiset[board]


def chunks(suited: IntArray) -> list[IntArray]:
    """The classes (row numbers) counted together: those without a three-or-more suit, those
    whose suit holds three, those whose suit holds more, CHUNK at a time."""
    held = np.minimum(suited.sum(axis=1), 4)
    out: list[IntArray] = []
    for kind in (0, 3, 4):
        rows = np.flatnonzero(held == kind)
        out += [rows[at : at + CHUNK] for at in range(0, len(rows), CHUNK)]
    return out


def count_showdowns(
    tables: RankTables, counts: IntArray, suited: IntArray, weights: IntArray
) -> Iterator[IntArray]:
    """(win, tie, lose) by the player's category (CATEGORIES order) over every deal on the given
    board classes, one (3, 10) array per chunk (`chunks`), so a caller can report progress: rank
    counts and suited value indices (0/1), one row a class, and each class's boards."""
    plain, board = _plain_by_multiset(tables, counts)
    for rows in chunks(suited):
        held = int(suited[rows[0]].sum())
        args = (tables, plain[board[rows]], counts[rows], suited[rows], weights[rows])
        yield count_three_suited(*args) if held == 3 else count_all_types(*args, held > 0)
