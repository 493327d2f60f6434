"""Exact Ultimate Texas Hold'em analysis of the Trips, the Blind and the Bad Beat.

Trips is settled on the player's seven cards alone, so its figures come from the exact best-five
category counts of all C(52,7) seven-card sets (`three_card_poker.best_five_category_counts`).

The Blind and the Bad Beat compare the player's hand with the player-dealer's, so they are counted
over every deal of one deck: board (5 cards), player (2), player-dealer (2), ordered, that is
C(52,5) * C(47,2) * C(45,2) deals. Both assume the player never folds (see ASSUMES). The count:

- Boards are grouped into classes the hands cannot tell apart: a rank multiset, plus which ranks
  the one suit holding three or more board cards (if any) holds; no other suit can ever make a
  flush. Each class is weighted by its exact number of boards (the scheme of
  `three_card_poker.best_five_category_counts`): 42,783 classes instead of 2,598,960 boards.
- Within a class the 47 remaining cards fall into types: a rank, and whether the card is of the
  board's three-or-more suit. Every hole pair of the same two types has the same seven-card rank,
  computed once by `tablectl.rules.poker.rank_unchecked`.
- The hole-pair types are sorted by rank. For a given player pair {a, b} of rank r, the dealer
  pairs that beat it and share no card with it number G(r) - H_a(r) - H_b(r), where G(r) counts
  all pairs ranked above r and H_c(r) those holding card c; the ties number
  E(r) - E_a(r) - E_b(r) + 1 (the +1 is the pair {a, b} itself). So no (player, dealer) pair is
  looped over, and each class costs one sort of at most 351 type pairs.

Swapping the two hole pairs of a deal is a bijection of the deals, so "the player-dealer's hand of
category c loses" happens exactly as often as "the player's hand of category c loses": the Bad
Beat's total is twice the player-side count (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", R35).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, prod
from types import MappingProxyType
from typing import Any

from tablectl.analysis import progress, wager_paytable
from tablectl.analysis.three_card_poker import best_five_category_counts
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.paytables import PayTable, odds_text, payout
from tablectl.rules.poker import (
    FIVE_CARD_CATEGORIES,
    ROYAL_FLUSH,
    Rank,
    rank_category,
    rank_unchecked,
)
from tablectl.rules.ultimate import DEFAULT_PAYTABLES, GAME, PAYTABLE_PATH
from tablectl_base.cards import RANKS, Card

WAGERS = ("trips", "blind", "bad-beat")
FULL_DECK_VALUES = tuple(range(2, 15))  # 2..A, poker values
CATEGORIES = (*FIVE_CARD_CATEGORIES, ROYAL_FLUSH)  # lowest first; index 9 is the royal flush

ASSUMES = (
    "the player never folds and plays every hand to the showdown (a fold loses the Blind and "
    "the Bad Beat whatever the cards, 003 \"Ultimate Texas Hold'em: Dealing Procedures and "
    'Round of Play"); every deal of one 52-card deck (board 5, player 2, player-dealer 2) is '
    "equally likely"
)

_FLUSH_SUIT = "s"
_PLAIN_SUITS = "shdc"
_CATEGORY_INDEX = {name: i for i, name in enumerate(CATEGORIES)}

Counts = list[int]  # one integer per CATEGORIES index


@dataclass(frozen=True)
class ShowdownCounts:
    """Ordered (player, player-dealer) deals by the player's hand category and the showdown."""

    win: Mapping[str, int]
    tie: Mapping[str, int]
    lose: Mapping[str, int]

    @property
    def deals(self) -> int:
        """Every deal counted: wins, ties and losses together."""
        return sum(self.win.values()) + sum(self.tie.values()) + sum(self.lose.values())

    @staticmethod
    def of(win: Counts, tie: Counts, lose: Counts) -> ShowdownCounts:
        """Named, read-only counts from the per-index lists the counting builds."""

        def named(xs: Counts) -> Mapping[str, int]:
            return MappingProxyType({CATEGORIES[i]: x for i, x in enumerate(xs) if x})

        return ShowdownCounts(named(win), named(tie), named(lose))


# ---------------------------------------------------------------- board classes


def _char(value: int) -> str:
    """The contract-1 rank character of a poker value (14 is the ace)."""
    return RANKS[0] if value == 14 else RANKS[value - 1]


def _multisets(values: Sequence[int], n: int) -> Iterator[tuple[int, ...]]:
    """Every way to hold n cards as counts (0..4) over `values`, one count per value."""
    if len(values) == 1:
        if n <= 4:
            yield (n,)
        return
    for k in range(min(n, 4) + 1):
        for rest in _multisets(values[1:], n - k):
            yield (k, *rest)


def board_classes(
    counts: tuple[int, ...],
) -> Iterator[tuple[frozenset[int], int]]:
    """The classes of 5-card boards with these rank counts: (suited value indices, boards).

    A suited set S (three or more indices) is the board's cards of the one suit holding three or
    more, any of the 4 suits; the empty set collects the boards with at most two of each suit.
    """
    total = prod(comb(4, k) for k in counts)
    present = [i for i, k in enumerate(counts) if k]
    flush_boards = 0
    for size in range(3, len(present) + 1):
        for subset in combinations(present, size):
            suited = frozenset(subset)
            ways = 4 * prod(
                comb(3, k - 1) if i in suited else comb(3, k) for i, k in enumerate(counts)
            )
            if ways:
                flush_boards += ways
                yield suited, ways
    if total > flush_boards:
        yield frozenset(), total - flush_boards


def all_board_classes(
    values: Sequence[int] = FULL_DECK_VALUES,
) -> Iterator[tuple[tuple[int, ...], frozenset[int], int]]:
    """Every board class of a deck of four suits of `values`: (rank counts, suited, boards)."""
    for counts in _multisets(values, 5):
        for suited, boards in board_classes(counts):
            yield counts, suited, boards


def board_key(
    board: Sequence[Card], values: Sequence[int]
) -> tuple[tuple[int, ...], frozenset[int]]:
    """The class of a concrete board: its rank counts and its three-or-more suit's indices."""
    index = {_char(v): i for i, v in enumerate(values)}
    counts = [0] * len(values)
    for card in board:
        counts[index[card.rank]] += 1
    suited: frozenset[int] = frozenset()
    for suit in _PLAIN_SUITS:
        of_suit = [index[c.rank] for c in board if c.suit == suit]
        if len(of_suit) >= 3:
            suited = frozenset(of_suit)
    return tuple(counts), suited


# ---------------------------------------------------------------- ranks of hole-pair types


@cache
def _plain_rank(values7: tuple[int, ...]) -> Rank:
    """Best five of seven values when no suit holds five (suits dealt round robin)."""
    return rank_unchecked([Card(_char(v), _PLAIN_SUITS[i % 4]) for i, v in enumerate(values7)])


@cache
def _flush_rank(suited: tuple[int, ...]) -> Rank:
    """Best five of five to seven distinct values all of one suit (a flush or straight flush)."""
    return rank_unchecked([Card(_char(v), _FLUSH_SUIT) for v in suited])


def _class_entries(
    values: Sequence[int],
    counts: tuple[int, ...],
    suited: frozenset[int],
    plain: Mapping[tuple[int, int], Rank],
) -> tuple[list[tuple[Rank, int, int, int]], list[int]]:
    """The hole-pair types of one board class: (rank, type a, type b, pairs) and each type's size.

    Type 2i is value i off the board's flush suit (or any suit when there is none), 2i+1 value i
    in that suit; without a three-or-more suit the odd types are empty.
    """
    avail = [0] * (2 * len(values))
    for i, k in enumerate(counts):
        if suited:
            on = i in suited
            avail[2 * i] = 3 - (k - on)
            avail[2 * i + 1] = 1 - on
        else:
            avail[2 * i] = 4 - k
    types = [t for t, n in enumerate(avail) if n]
    entries: list[tuple[Rank, int, int, int]] = []
    board_suited = [values[i] for i in suited]
    for x, a in enumerate(types):
        for b in types[x:]:
            pairs = comb(avail[a], 2) if a == b else avail[a] * avail[b]
            if not pairs:
                continue
            rank = plain[a // 2, b // 2]
            in_suit = [values[t // 2] for t in (a, b) if t % 2]
            if len(board_suited) + len(in_suit) >= 5:
                rank = max(rank, _flush_rank(tuple(sorted(board_suited + in_suit, reverse=True))))
            entries.append((rank, a, b, pairs))
    return entries, avail


def _plain_table(values: Sequence[int], counts: tuple[int, ...]) -> dict[tuple[int, int], Rank]:
    """Seven-card non-flush rank for every two value indices the remaining cards can supply."""
    board = [v for v, k in zip(values, counts, strict=True) for _ in range(k)]
    table: dict[tuple[int, int], Rank] = {}
    left = [4 - k for k in counts]
    for i in range(len(values)):
        for j in range(i, len(values)):
            if (left[i] < 2) if i == j else (not left[i] or not left[j]):
                continue
            rank = _plain_rank(tuple(sorted((*board, values[i], values[j]), reverse=True)))
            table[i, j] = table[j, i] = rank
    return table


# ---------------------------------------------------------------- counting one class


def _count_class(
    entries: list[tuple[Rank, int, int, int]],
    avail: Sequence[int],
    others: int,
    weight: int,
    out: tuple[Counts, Counts, Counts],
) -> None:
    """Add one board class's player wins, ties and losses by category, times `weight` boards.

    `others` is the number of dealer pairs disjoint from a player pair (C(45,2) = 990 for one
    deck). Inclusion-exclusion on the two shared cards, as the module docstring says.
    """
    win, tie, lose = out
    entries.sort(reverse=True)
    above = 0  # pairs ranked above the current rank
    above_with = [0] * len(avail)  # of those, the pairs holding one given card of each type
    i, n = 0, len(entries)
    while i < n:
        rank = entries[i][0]
        j = i
        while j < n and entries[j][0] == rank:
            j += 1
        level = 0
        level_with: dict[int, int] = {}
        for _, a, b, pairs in entries[i:j]:
            level += pairs
            if a == b:
                level_with[a] = level_with.get(a, 0) + avail[a] - 1
            else:
                level_with[a] = level_with.get(a, 0) + avail[b]
                level_with[b] = level_with.get(b, 0) + avail[a]
        beaten = tied = 0
        for _, a, b, pairs in entries[i:j]:
            beaten += pairs * (above - above_with[a] - above_with[b])
            tied += pairs * (level - level_with.get(a, 0) - level_with.get(b, 0) + 1)
        c = _CATEGORY_INDEX[rank_category(rank)]
        lose[c] += weight * beaten
        tie[c] += weight * tied
        win[c] += weight * (level * others - beaten - tied)
        above += level
        for t, k in level_with.items():
            above_with[t] += k
        i = j


def _count_multisets(
    values: tuple[int, ...], multisets: Sequence[tuple[int, ...]]
) -> tuple[Counts, Counts, Counts]:
    """Wins, ties and losses by the player's category over every board with these rank counts."""
    others = comb(4 * len(values) - 7, 2)
    out: tuple[Counts, Counts, Counts] = ([0] * 10, [0] * 10, [0] * 10)
    for counts in multisets:
        plain = _plain_table(values, counts)
        for suited, weight in board_classes(counts):
            entries, avail = _class_entries(values, counts, suited, plain)
            _count_class(entries, avail, others, weight, out)
    return out


def board_counts(board: Sequence[Card], values: Sequence[int] = FULL_DECK_VALUES) -> ShowdownCounts:
    """Every (player, player-dealer) hole-card deal on one concrete board, by category and result.

    The deck is four suits of `values` (poker values, 14 the ace); tests use reduced decks.
    """
    vals = tuple(values)
    counts, suited = board_key(board, vals)
    out: tuple[Counts, Counts, Counts] = ([0] * 10, [0] * 10, [0] * 10)
    entries, avail = _class_entries(vals, counts, suited, _plain_table(vals, counts))
    _count_class(entries, avail, comb(4 * len(vals) - 7, 2), 1, out)
    return ShowdownCounts.of(*out)


@cache
def showdown_counts(values: tuple[int, ...] = FULL_DECK_VALUES, workers: int = 1) -> ShowdownCounts:
    """Every deal (board, player, player-dealer) of a deck of four suits of `values`, exactly.

    Kept in memory for the process (the Blind and the Bad Beat share it); nothing is written.
    With `workers` > 1 the rank multisets are shared round robin among that many processes.
    """
    multisets = list(_multisets(values, 5))
    if workers <= 1:
        out = _count_multisets(values, multisets)
    else:
        chunks = [multisets[k :: workers * 8] for k in range(workers * 8)]
        out = ([0] * 10, [0] * 10, [0] * 10)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = pool.map(_count_multisets, [values] * len(chunks), chunks)
            for done, part in enumerate(parts, start=1):
                for total, add in zip(out, part, strict=True):
                    for c, x in enumerate(add):
                        total[c] += x
                progress(done, len(chunks))
    result = ShowdownCounts.of(*out)
    n = 4 * len(values)
    if result.deals != comb(n, 5) * comb(n - 5, 2) * comb(n - 7, 2):
        raise AssertionError("the board classes do not cover every deal")
    return result


# ---------------------------------------------------------------- the wagers


def _table(wager: str, paytable: PayTable | str) -> PayTable:
    """The pay table object, checked to be one for `wager` (a name: among `wager`'s own)."""
    if isinstance(paytable, str):
        return wager_paytable(paytable, wager, PAYTABLE_PATH)
    table = paytable
    if table.wager != wager:
        raise ValueError(f"pay table {table.name} is for {table.wager}, not {wager}")
    return table


def trips_figures(table: PayTable) -> tuple[Fraction, Fraction]:
    """Exact hit frequency and house edge of the Trips: the player's seven cards only
    (003 "Ultimate Texas Hold'em: Trips Bonus Bet")."""
    counts = best_five_category_counts(7)
    hands = sum(counts.values())
    hits = sum(k for c, k in counts.items() if payout(table, c))
    paid = sum(k * payout(table, c) for c, k in counts.items())
    return Fraction(hits, hands), Fraction(hands - hits - paid, hands)


def blind_figures(table: PayTable, counts: ShowdownCounts) -> dict[str, Fraction]:
    """Exact Blind win (paid), push and loss frequencies and house edge, no fold
    (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid", R35)."""
    deals = counts.deals
    paid = sum((k * payout(table, c) for c, k in counts.win.items()), Fraction(0))
    hits = sum(k for c, k in counts.win.items() if payout(table, c))
    losses = sum(counts.lose.values())
    return {
        "hit_frequency": Fraction(hits, deals),
        "push_frequency": Fraction(deals - hits - losses, deals),
        "lose_frequency": Fraction(losses, deals),
        "house_edge": (losses - paid) / deals,
    }


def bad_beat_figures(table: PayTable, counts: ShowdownCounts) -> dict[str, Fraction]:
    """Exact Bad Beat hit frequency and house edge, paying by the beaten hand
    (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", R35).

    A beaten hand of category c is the player's in `counts.lose[c]` deals and, by swapping the two
    hole pairs, the player-dealer's in as many others.
    """
    deals = counts.deals
    hits = 2 * sum(k for c, k in counts.lose.items() if payout(table, c))
    paid = 2 * sum((k * payout(table, c) for c, k in counts.lose.items()), Fraction(0))
    return {"hit_frequency": Fraction(hits, deals), "house_edge": (deals - hits - paid) / deals}


def _workers() -> int:
    """Processes for the full count: the CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def analyze(
    wager: str,
    paytable: PayTable | str | None = None,
    *,
    workers: int | None = None,
    values: tuple[int, ...] = FULL_DECK_VALUES,
) -> dict[str, Any]:
    """Hit frequency and house edge of the Trips, Blind or Bad Beat, exact (default: 003 tables).

    The Blind and Bad Beat count every deal of one deck (under a minute of CPU, spread over
    `workers` processes, default all CPUs); the Trips takes a few seconds. `values` reduces the
    deck for the Blind and Bad Beat (four suits of those poker values), which the tests check
    against brute force; the Trips is always the 52-card deck.
    """
    if wager not in WAGERS:
        raise ValueError(f"{wager!r} is not an analyzed {GAME} wager: expected one of {WAGERS}")
    table = _table(wager, paytable if paytable is not None else DEFAULT_PAYTABLES[wager])
    # Any: a report of many shapes, printed as JSON and read by key (not a published payload)
    result: dict[str, Any] = {
        "game": GAME,
        "wager": wager,
        "paytable": table.name,
        "source": table.source,
        "pays": {c: odds_text(p) for c, p in table.pays.items()},
        "method": "exact",
    }
    if wager == "trips":
        hit, edge = trips_figures(table)
        counts = best_five_category_counts(7)
        hands = sum(counts.values())
        result |= {
            "hit_frequency": float(hit),
            "house_edge": float(edge),
            "hands": hands,
            "counts": dict(counts),
            "probabilities": {c: k / hands for c, k in counts.items()},
        }
        return result
    showdowns = showdown_counts(values, workers or _workers())
    figures = (
        blind_figures(table, showdowns) if wager == "blind" else bad_beat_figures(table, showdowns)
    )
    result |= {name: float(x) for name, x in figures.items()}
    result |= {
        "exact": {name: str(x) for name, x in figures.items()},
        "deals": showdowns.deals,
        "assumes": ASSUMES,
        "player_counts": {
            "win": dict(showdowns.win),
            "tie": dict(showdowns.tie),
            "lose": dict(showdowns.lose),
        },
    }
    return result


def analyze_request(request: AnalyzeRequest) -> Analysis:
    """Exact odds of a wager, --paytable defaulting to the 003 table of the wager: the game's
    analyzer (its GameSpec names it)."""
    result = analyze(request.wager, request.paytable)
    return Analysis(f"{request.game} {request.wager} ({result['paytable']})", result)
