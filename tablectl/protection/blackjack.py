"""The 21.5 games' side bets on the player-dealer's hand and Match the Dealer, exactly, from the
composition left in the shoe; and the Hi-Lo count.

The player-dealer's hand (up card, hole card, then hits by Chart 1B until it stands, R14) is a
path of card values whose every proper prefix still draws; its chance depends only on its
multiset: k(m) valid orderings of the multiset m, each of weight prod_v n_v (n_v - 1) ... (n_v -
m_v + 1) out of N (N - 1) ... (N - |m| + 1) when n_v cards of value v are left. The multisets and
their orderings are counted once per process (`_hands`) from `tablectl.rules.blackjack`'s own
`dealer_must_hit` and `is_pure` (what the engine deals by); a composition's Buster and Red Flex
figures are then sums of falling-factorial products. The players' cards come out between the
player-dealer's second card and its hits, but whether a player draws depends only on cards already
seen, so the player-dealer's cards are distributed as the next cards of the shoe
(tablectl/analysis/blackjack.py makes and tests the same argument).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from tablectl.analysis.blackjack import hand_of_values
from tablectl.protection.products import ProductPlan, falling
from tablectl.rules.blackjack import (
    buster_cards,
    buster_category,
    dealer_must_hit,
    is_pure,
    match_dealer,
    match_dealer_category,
    red_flex_category,
)
from tablectl.rules.paytables import PayTable, payout
from tablectl_base.cards import RANKS, SUITS, Card

# a rank's value 1..10, by RANKS "A23456789TJQK" (R10: ace 1, bonus cards 10)
RANK_VALUE: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
RED = frozenset(i for i, s in enumerate(SUITS) if s in "hd")  # red: hearts and diamonds (R18)
# Hi-Lo tags by RANKS: 2-6 count +1, 7-9 nothing, tens, pictures and aces -1
HI_LO: tuple[int, ...] = (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1)

Multiset = tuple[int, ...]  # cards of each value 1..10


def _stops(m: Multiset) -> bool:
    """Whether a player-dealer hand of these values is complete (R14: Chart 1B; a Pure 21.5 is
    never completed)."""
    cards = hand_of_values([v + 1 for v, k in enumerate(m) for _ in range(k)])
    return len(cards) >= 2 and (is_pure(cards, split=False) or not dealer_must_hit(cards))


@dataclass(frozen=True, slots=True)
class _Hands:
    """Every player-dealer hand as a multiset of values, with its valid orderings.

    `drawing`: hands that still draw (two cards or more, or fewer than two) and how many orders
    reach them with every prefix drawing; `complete`: hands that stand or bust, and how many
    orders reach them so. Each as (multiset, orderings) pairs.
    """

    drawing: tuple[tuple[Multiset, int], ...]
    complete: tuple[tuple[Multiset, int], ...]


@cache
def _hands() -> _Hands:
    """Count the player-dealer's hands once: a forward pass over multisets, card by card."""
    drawing: dict[Multiset, int] = {}
    complete: dict[Multiset, int] = {}
    layer: dict[Multiset, int] = {(0,) * 10: 1}
    while layer:
        drawing.update(layer)
        nxt: dict[Multiset, int] = {}
        for m, ways in layer.items():
            for v in range(10):
                grown = (*m[:v], m[v] + 1, *m[v + 1 :])
                into = complete if _stops(grown) else nxt
                into[grown] = into.get(grown, 0) + ways
        layer = nxt
    return _Hands(tuple(drawing.items()), tuple(complete.items()))


@dataclass(frozen=True, slots=True)
class _Plan:
    """The hands and one product plan over them all (drawing hands first, then complete)."""

    hands: _Hands
    plan: ProductPlan
    sizes: tuple[int, ...]  # each hand's cards, in the plan's order


@cache
def _plan() -> _Plan:
    hands = _hands()
    every = [m for m, _ in hands.drawing] + [m for m, _ in hands.complete]
    return _Plan(hands, ProductPlan.of(every), tuple(sum(m) for m in every))


def _over(numerators: Mapping[int, int], n: int) -> Fraction:
    """sum_j numerators[j] / (n (n - 1) ... (n - j + 1)), on one denominator."""
    used = [j for j, x in numerators.items() if x]
    if not used:
        return Fraction(0)
    top = max(used)
    return Fraction(
        sum(x * falling(n - j, top - j) for j, x in numerators.items() if x), falling(n, top)
    )


def value_counts(counts: Sequence[int]) -> tuple[int, ...]:
    """Cards left of each value 1..10 from the 13 rank counts."""
    values = [0] * 10
    for rank_count, v in zip(counts, RANK_VALUE, strict=True):
        values[v - 1] += rank_count
    return tuple(values)


def red_value_counts(by_card: Sequence[int]) -> tuple[int, ...]:
    """Red cards left of each value 1..10 from the 52 counts by card (rank-major)."""
    values = [0] * 10
    for i, k in enumerate(by_card):
        if i % len(SUITS) in RED:
            values[RANK_VALUE[i // len(SUITS)] - 1] += k
    return tuple(values)


@cache
def _complete_busts() -> tuple[int | None, ...]:
    """`buster_cards` of each complete hand (its cards if busted or 888, R19), in plan order."""
    return tuple(
        buster_cards(hand_of_values([v + 1 for v, k in enumerate(m) for _ in range(k)]))
        for m, _ in _hands().complete
    )


def dealer_completes(values: Sequence[int]) -> bool:
    """Whether the shoe always holds enough cards for the player-dealer's hand to complete."""
    p = _plan()
    products = p.plan.products(values)
    start = len(p.hands.drawing)
    by_size: dict[int, int] = {}
    for i, (_, ways) in enumerate(p.hands.complete):
        size = p.sizes[start + i]
        by_size[size] = by_size.get(size, 0) + ways * products[p.plan.places[start + i]]
    return _over(by_size, sum(values)) == 1


def buster_expectation(values: Sequence[int], table: PayTable) -> Fraction:
    """Buster's expected net per unit (R19, `table`'s pays) for the next player-dealer hand.

    `values`: cards left of each value 1..10; the shoe must hold enough for any hand
    (`dealer_completes`).
    """
    p = _plan()
    products = p.plan.products(values)
    start = len(p.hands.drawing)
    busts = _complete_busts()
    pays: dict[int | None, Fraction] = {}
    net: dict[Fraction, dict[int, int]] = {}
    for i, (_, ways) in enumerate(p.hands.complete):
        cards = busts[i]
        if cards not in pays:
            row = buster_category(cards, table)
            pays[cards] = Fraction(-1) if row is None else payout(table, row)
        size = p.sizes[start + i]
        per = net.setdefault(pays[cards], {})
        per[size] = per.get(size, 0) + ways * products[p.plan.places[start + i]]
    n = sum(values)
    return sum((pay * _over(by_size, n) for pay, by_size in net.items()), Fraction(0))


def red_flex_expectation(values: Sequence[int], red: Sequence[int], table: PayTable) -> Fraction:
    """Red Flex's expected net per unit (R18, `table`'s pays) for the next player-dealer hand.

    The run of red cards from the first card (`red_flex_count`) is k >= 2 when the first k cards
    are red and either the hand is then complete or it still draws and the next card is black.
    `values`, `red`: all cards and red cards left of each value 1..10.
    """
    p = _plan()
    products = p.plan.products(red)
    n = sum(values)
    black = n - sum(red)
    runs: dict[int, dict[int, int]] = {}  # run -> denominator cards -> numerator
    for i, (_, ways) in enumerate((*p.hands.drawing, *p.hands.complete)):
        size = p.sizes[i]
        if size < 2:
            continue
        weight = ways * products[p.plan.places[i]]
        if not weight:
            continue
        per = runs.setdefault(size, {})
        if i < len(p.hands.drawing):  # still drawing: a black card next ends the run
            per[size + 1] = per.get(size + 1, 0) + weight * black
        else:
            per[size] = per.get(size, 0) + weight
    hit = Fraction(0)
    ev = Fraction(0)
    for run, by_size in runs.items():
        row = red_flex_category(run, table)
        if row is None:
            continue
        chance = _over(by_size, n)
        hit += chance
        ev += chance * payout(table, row)
    return ev - (1 - hit)


def _pair(up: Card, suited: int, unsuited: int) -> list[Card]:
    """Two player cards with that many suited and unsuited matches of `up` (the rest no match)."""
    other_suit = "s" if up.suit != "s" else "h"
    other_rank = "2" if up.rank != "2" else "3"
    pair = [up] * suited + [Card(up.rank, other_suit)] * unsuited
    return pair + [Card(other_rank, up.suit)] * (2 - len(pair))


def match_expectation(by_card: Sequence[int], table: PayTable) -> Fraction:
    """Match the Dealer's expected net per unit (R21, `table`'s pays) for the next round: the
    up card and the player's two initial cards are three unseen cards of the shoe.

    For an up card held m times, the other N - 1 cards hold m - 1 suited matches, r unsuited (same
    rank, other suits) and the rest; every category is a product of binomials, out of
    N * C(N - 1, 2) (as tablectl/analysis/blackjack.py counts a full shoe). At least three cards.
    """
    n = sum(by_card)
    if n < 3:
        raise ValueError(f"Match the Dealer needs three cards and the shoe holds {n}")
    per_rank = [sum(by_card[r * len(SUITS) : (r + 1) * len(SUITS)]) for r in range(len(RANKS))]
    pays = _match_pays(table)
    net = Fraction(0)
    matched = 0
    for i, m in enumerate(by_card):
        if not m:
            continue
        s = m - 1
        r = per_rank[i // len(SUITS)] - m
        o = n - 1 - s - r
        ways = {(2, 0): comb(s, 2), (1, 1): s * r, (1, 0): s * o, (0, 2): comb(r, 2), (0, 1): r * o}
        for key, k in ways.items():
            matched += m * k
            net += m * k * pays[key]
    total = n * comb(n - 1, 2)
    return (net - (total - matched)) / Fraction(total)


def _match_pays(table: PayTable) -> dict[tuple[int, int], Fraction]:
    """Each (suited, unsuited) match's net per unit on `table` (-1: the row loses, R21)."""
    out: dict[tuple[int, int], Fraction] = {}
    up = Card("7", "h")
    for key in ((2, 0), (1, 1), (1, 0), (0, 2), (0, 1)):
        row = match_dealer_category(match_dealer(_pair(up, *key), up), table)
        out[key] = Fraction(-1) if row is None else payout(table, row)
    return out


def hi_lo(full: Sequence[int], left: Sequence[int]) -> int:
    """The Hi-Lo running count: the tags of every card dealt since the shoe was put in (2-6 +1,
    7-9 0, tens, pictures and aces -1), from the full shoe's and the remaining rank counts."""
    return sum(t * (f - k) for t, f, k in zip(HI_LO, full, left, strict=True))
