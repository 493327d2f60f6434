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
  an integer code read from tables built once from `tablectl.rules.poker.rank_unchecked`
  (`holdem_ranks`).
- For a given player pair {a, b} of rank r, the dealer pairs that beat it and share no card with
  it number G(r) - H_a(r) - H_b(r), where G(r) counts all pairs ranked above r and H_c(r) those
  holding card c; the ties number E(r) - E_a(r) - E_b(r) + 1 (the +1 is the pair {a, b} itself).
  So no (player, dealer) pair is looped over: `ultimate_showdowns` sorts the type pairs of
  hundreds of classes at once with numpy.

Swapping the two hole pairs of a deal is a bijection of the deals, so "the player-dealer's hand of
category c loses" happens exactly as often as "the player's hand of category c loses": the Bad
Beat's total is twice the player-side count (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", R35).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, prod
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tablectl.analysis import progress, wager_paytable
from tablectl.analysis.three_card_poker import best_five_category_counts
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.paytables import PayTable, odds_text, payout
from tablectl.rules.ultimate import DEFAULT_PAYTABLES, GAME, PAYTABLE_PATH
from tablectl_base.cards import Card

if TYPE_CHECKING:  # numpy and the rank tables load only when a count runs: the parser of every
    # `tablectl` command names this module's WAGERS, and a table's daemon never needs numpy
    from tablectl.analysis.holdem_ranks import RankTables
    from tablectl.analysis.ultimate_showdowns import IntArray

WAGERS = ("trips", "blind", "bad-beat")
FULL_DECK_VALUES = tuple(range(2, 15))  # 2..A, poker values

ASSUMES = (
    "the player never folds and plays every hand to the showdown (a fold loses the Blind and "
    "the Bad Beat whatever the cards, 003 \"Ultimate Texas Hold'em: Dealing Procedures and "
    'Round of Play"); every deal of one 52-card deck (board 5, player 2, player-dealer 2) is '
    "equally likely"
)

_PLAIN_SUITS = "shdc"

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
        from tablectl.analysis.holdem_ranks import CATEGORIES

        def named(xs: Counts) -> Mapping[str, int]:
            return MappingProxyType({CATEGORIES[i]: x for i, x in enumerate(xs) if x})

        return ShowdownCounts(named(win), named(tie), named(lose))


# ---------------------------------------------------------------- board classes


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
    present = [i for i, k in enumerate(counts) if k]  # a value not on the board adds a factor 1
    flush_boards = 0
    for size in range(3, len(present) + 1):
        for subset in combinations(present, size):
            suited = frozenset(subset)
            ways = 4 * prod(
                comb(3, counts[i] - 1) if i in suited else comb(3, counts[i]) for i in present
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
    from tablectl.analysis.holdem_ranks import rank_char

    index = {rank_char(v): i for i, v in enumerate(values)}
    counts = [0] * len(values)
    for card in board:
        counts[index[card.rank]] += 1
    suited: frozenset[int] = frozenset()
    for suit in _PLAIN_SUITS:
        of_suit = [index[c.rank] for c in board if c.suit == suit]
        if len(of_suit) >= 3:
            suited = frozenset(of_suit)
    return tuple(counts), suited


# ---------------------------------------------------------------- counting the showdowns


@cache
def rank_tables(values: tuple[int, ...]) -> RankTables:
    """The seven-card rank codes of a deck of four suits of `values`, built once a process."""
    from tablectl.analysis.holdem_ranks import build_rank_tables

    return build_rank_tables(values)


def class_arrays(
    values: tuple[int, ...], classes: Sequence[tuple[tuple[int, ...], frozenset[int], int]]
) -> tuple[IntArray, IntArray, IntArray]:
    """Board classes as arrays: rank counts, suited value indices (0/1) and boards, a row each."""
    import numpy as np

    counts = np.array([c for c, _, _ in classes], dtype=np.int64).reshape(-1, len(values))
    masks = np.array([sum(1 << i for i in s) for _, s, _ in classes], dtype=np.int64)
    suited = (masks[:, None] >> np.arange(len(values))) & 1
    weights = np.array([w for _, _, w in classes], dtype=np.int64)
    return counts, suited, weights


def _count(
    values: tuple[int, ...], classes: Sequence[tuple[tuple[int, ...], frozenset[int], int]]
) -> ShowdownCounts:
    """Every (player, player-dealer) hole-card deal on the given board classes, weighted by
    their boards, reporting progress a chunk at a time (`ultimate_showdowns`)."""
    import numpy as np

    from tablectl.analysis.holdem_ranks import CATEGORIES
    from tablectl.analysis.ultimate_showdowns import chunks, count_showdowns

    counts, suited, weights = class_arrays(values, classes)
    total = np.zeros((3, len(CATEGORIES)), dtype=np.int64)
    parts = len(chunks(suited))
    for done, part in enumerate(count_showdowns(rank_tables(values), counts, suited, weights), 1):
        total += part
        progress(done, parts)
    win, tie, lose = ([int(x) for x in row] for row in total)
    return ShowdownCounts.of(win, tie, lose)


def board_counts(board: Sequence[Card], values: Sequence[int] = FULL_DECK_VALUES) -> ShowdownCounts:
    """Every (player, player-dealer) hole-card deal on one concrete board, by category and result.

    The deck is four suits of `values` (poker values, 14 the ace); tests use reduced decks.
    """
    vals = tuple(values)
    counts, suited = board_key(board, vals)
    return _count(vals, [(counts, suited, 1)])


@cache
def showdown_counts(values: tuple[int, ...] = FULL_DECK_VALUES) -> ShowdownCounts:
    """Every deal (board, player, player-dealer) of a deck of four suits of `values`, exactly.

    Kept in memory for the process (the Blind and the Bad Beat share it); nothing is written.
    """
    result = _count(values, list(all_board_classes(values)))
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


def analyze(
    wager: str,
    paytable: PayTable | str | None = None,
    *,
    values: tuple[int, ...] = FULL_DECK_VALUES,
) -> dict[str, Any]:
    """Hit frequency and house edge of the Trips, Blind or Bad Beat, exact (default: 003 tables).

    The Blind and Bad Beat count every deal of one deck (a few seconds of one CPU, shared by
    both within a process); the Trips takes a few seconds. `values` reduces the
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
    showdowns = showdown_counts(values)
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
