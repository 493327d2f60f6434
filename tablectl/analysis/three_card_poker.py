"""Exact Three Card Poker bonus-wager analysis: 6 Card Bonus over C(52,6), Pair Plus over C(52,3).

The 6 Card Bonus sees six cards of one deck (the player's three and the player-dealer's three),
so every one of the C(52,6) = 20,358,520 sets is counted, grouped into classes that the evaluator
cannot tell apart: a rank multiset, plus which ranks hold a card of a five-card flush suit. Each
class is weighted by its exact number of suit assignments and ranked once by
`tablectl.rules.poker` on a representative hand, so the analysis and the engines share one
evaluator. Pair Plus sees the player's three cards; its 22,100 hands are simply all evaluated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb, prod
from types import MappingProxyType
from typing import Any

from tablectl.analysis import in_steps, wager_paytable
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.paytables import DEFAULT_PATH, PayTable, payout
from tablectl.rules.poker import rank_category, rank_unchecked, three_card_category
from tablectl_base.cards import RANKS, Card, standard_deck

GAME = "three-card-poker-6cb"  # DESIGN contract 4 game id
# The wagers analyzed here: the two bonus wagers, settled on the cards alone by a pay table.
# Ante and Play (contract 4's other spots) depend on the player's play-or-fold decision.
WAGERS = ("six-card-bonus", "pair-plus")

_FLUSH_SUIT = "s"
_OTHER_SUITS = "hdc"


def _multisets(n: int, rank: int = 0) -> Iterator[tuple[int, ...]]:
    """Every way to hold n cards as counts (0..4) over the ranks from `rank` to the king."""
    if rank == len(RANKS) - 1:
        if n <= 4:
            yield (n,)
        return
    for k in range(min(n, 4) + 1):
        for rest in _multisets(n - k, rank + 1):
            yield (k, *rest)


def _plain_hand(counts: tuple[int, ...]) -> list[Card]:
    """A hand with these rank counts and no five cards of a suit (suits dealt round robin)."""
    cards: list[Card] = []
    for r, k in enumerate(counts):
        for _ in range(k):
            cards.append(Card(RANKS[r], "shdc"[len(cards) % 4]))
    return cards


def _flush_hand(counts: tuple[int, ...], suited: frozenset[int]) -> list[Card]:
    """A hand with these rank counts whose flush suit holds exactly the ranks in `suited`."""
    cards: list[Card] = []
    for r, k in enumerate(counts):
        others = iter(_OTHER_SUITS)
        for i in range(k):
            suit = _FLUSH_SUIT if r in suited and i == 0 else next(others)
            cards.append(Card(RANKS[r], suit))
    return cards


@cache
def best_five_category_counts(n: int) -> Mapping[str, int]:
    """How many n-card sets of one deck (5 <= n <= 7) have each best-five category, exactly.

    With at most 7 cards at most one suit can hold five, so the flush classes of the four suits
    are disjoint and each is counted once for the spade suit and multiplied by 4.
    """
    if not 5 <= n <= 7:
        raise ValueError(f"the class count covers 5 to 7 cards, not {n}")
    counts: Counter[str] = Counter()
    for ms in in_steps(list(_multisets(n))):
        total = prod(comb(4, k) for k in ms)
        present = [r for r, k in enumerate(ms) if k]
        flushes = 0
        for size in range(5, len(present) + 1):
            for subset in combinations(present, size):
                suited = frozenset(subset)
                ways = 4 * prod(
                    comb(3, k - 1) if r in suited else comb(3, k) for r, k in enumerate(ms) if k
                )
                if ways:
                    flushes += ways
                    counts[rank_category(rank_unchecked(_flush_hand(ms, suited)))] += ways
        counts[rank_category(rank_unchecked(_plain_hand(ms)))] += total - flushes
    if sum(counts.values()) != comb(52, n):
        raise AssertionError(f"the classes do not cover all C(52,{n}) hands")
    return MappingProxyType(dict(counts))


@cache
def three_card_category_counts() -> Mapping[str, int]:
    """How many of the C(52,3) = 22,100 three-card hands fall in each Pair Plus category."""
    counts = Counter(three_card_category(h) for h in combinations(standard_deck(), 3))
    return MappingProxyType(dict(counts))


def check_wager(wager: str) -> None:
    """Refuse a wager this module does not analyze, naming the ones it does (before any pay
    table is looked at, so `--wager ante` is not answered with a pay table mismatch)."""
    if wager not in WAGERS:
        raise ValueError(
            f"{wager!r} is not an analyzed {GAME} wager: analyzed are {', '.join(WAGERS)}"
        )


def category_counts(wager: str) -> Mapping[str, int]:
    """Exact category counts of the hands a wager is settled on."""
    check_wager(wager)
    if wager == "six-card-bonus":
        return best_five_category_counts(6)
    return three_card_category_counts()


def exact_figures(wager: str, table: PayTable) -> tuple[Fraction, Fraction]:
    """Exact hit frequency and house edge (player's expected loss per unit) of a wager."""
    check_wager(wager)
    if table.wager != wager:
        raise ValueError(f"pay table {table.name} is for {table.wager}, not {wager}")
    counts = category_counts(wager)
    hands = sum(counts.values())
    hits = sum(k for c, k in counts.items() if payout(table, c))
    paid = sum(k * payout(table, c) for c, k in counts.items())
    return Fraction(hits, hands), Fraction(hands - hits - paid, hands)


def analyze(wager: str, paytable: PayTable | str) -> dict[str, Any]:
    """Hit frequency, house edge and category probabilities of a bonus wager, exact."""
    check_wager(wager)
    table = wager_paytable(paytable, wager, DEFAULT_PATH) if isinstance(paytable, str) else paytable
    hit, edge = exact_figures(wager, table)
    counts = category_counts(wager)
    hands = sum(counts.values())
    # Any: a report of many shapes, printed as JSON and read by key (not a published payload)
    result: dict[str, Any] = {
        "game": GAME,
        "wager": wager,
        "paytable": table.name,
        "pays": {c: f"{p} to 1" for c, p in table.pays.items()},
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "method": "exact",
        "hands": hands,
        "counts": dict(counts),
        "probabilities": {c: k / hands for c, k in counts.items()},
    }
    if table.stated_house_advantage or table.stated_hit_frequency:
        result["stated"] = {
            "house_advantage": table.stated_house_advantage,
            "hit_frequency": table.stated_hit_frequency,
        }
    return result


def analyze_request(request: AnalyzeRequest) -> Analysis:
    """Exact odds of a bonus wager: the game's analyzer (its GameSpec names it)."""
    default = "TCB-6B2" if request.wager == "six-card-bonus" else "PP-MR200"
    table = request.paytable or default
    result = analyze(request.wager, table)
    return Analysis(f"{request.game} {request.wager} ({table})", result)
