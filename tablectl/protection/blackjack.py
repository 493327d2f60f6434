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
from operator import mul
from typing import Any

from tablectl.analysis.blackjack import hand_of_values
from tablectl.protection.products import Picker, ProductPlan, falling, picker
from tablectl.rules.blackjack import (
    buster_cards,
    buster_category,
    card_value,
    dealer_must_hit,
    is_pure,
    match_dealer,
    match_dealer_category,
    red_flex_category,
)
from tablectl.rules.paytables import PayTable, payout
from tablectl_base.cards import RANKS, SUITS, Card

# each rank's value 1..10, by RANKS, read from `card_value` (R10: ace 1, bonus cards 10)
RANK_VALUE: tuple[int, ...] = tuple(card_value(Card(rank, "s")) for rank in RANKS)
# the red suits' places in SUITS (hearts and diamonds, R18: `Card.is_red`)
RED = frozenset(i for i, suit in enumerate(SUITS) if Card("A", suit).is_red)
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


Sum = tuple[Picker, tuple[int, ...]]  # products to pick, and the orderings to weigh each by


def _sum(products: Sequence[int], term: Sum) -> int:
    pick, ways = term
    return sum(map(mul, ways, pick(products)))


@dataclass(frozen=True, slots=True)
class _Plan:
    """One product plan over every hand, and the sums a composition's chances are made of.

    `busts[(cards, size)]`: the complete hands of `size` cards whose `buster_cards` is `cards`
    (None: not busted). `runs[(run, denominator)]`: the all-red hands giving a Red Flex count
    `run`, over N (N - 1) ... to `denominator` factors: complete hands of `run` cards (the
    denominator `run`), and hands still drawing after `run` cards, to be followed by a black card
    (the denominator `run` + 1, the numerator times the black cards left).
    """

    plan: ProductPlan
    busts: Mapping[tuple[int | None, int], Sum]
    runs: Mapping[tuple[int, int], Sum]


def _grouped(entries: list[tuple[object, int, int]]) -> dict[Any, Sum]:
    """(key, place, orderings) entries as one picker and orderings tuple per key."""
    by_key: dict[Any, list[tuple[int, int]]] = {}
    for key, place, ways in entries:
        by_key.setdefault(key, []).append((place, ways))
    return {
        key: (picker([p for p, _ in found]), tuple(w for _, w in found))
        for key, found in by_key.items()
    }


@cache
def _plan() -> _Plan:
    """Count the hands and lay out their sums once per process."""
    hands = _hands()
    every = [m for m, _ in hands.drawing] + [m for m, _ in hands.complete]
    plan = ProductPlan.of(every)
    drawn = len(hands.drawing)
    busts: list[tuple[object, int, int]] = []
    runs: list[tuple[object, int, int]] = []
    for i, (m, ways) in enumerate((*hands.drawing, *hands.complete)):
        size = sum(m)
        place = plan.places[i]
        if i >= drawn:
            cards = buster_cards(hand_of_values([v + 1 for v, k in enumerate(m) for _ in range(k)]))
            busts.append(((cards, size), place, ways))
        if size >= 2:
            runs.append(((size, size + 1 if i < drawn else size), place, ways))
    return _Plan(plan, _grouped(busts), _grouped(runs))


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


@dataclass(frozen=True, slots=True)
class DealerChances:
    """The exact chances of the player-dealer's next hand from a composition.

    `busts[cards]`: the hand's `buster_cards` is `cards` (None: it stands, R19); `runs[k]`: its
    Red Flex count is k >= 2 (R18; empty when the colours are not known).
    """

    busts: Mapping[int | None, Fraction]
    runs: Mapping[int, Fraction]


def dealer_chances(values: Sequence[int], red: Sequence[int] | None) -> DealerChances | None:
    """The player-dealer's hand's chances from `values` cards left of each value 1..10 (and
    `red` red cards of each, for Red Flex); None when the shoe may run out before the hand is
    complete (the chances of the complete hands then add up to less than one)."""
    p = _plan()
    n = sum(values)
    products = p.plan.products(values)
    by_cards: dict[int | None, dict[int, int]] = {}
    for (cards, size), term in p.busts.items():
        per = by_cards.setdefault(cards, {})
        per[size] = per.get(size, 0) + _sum(products, term)
    busts = {cards: _over(per, n) for cards, per in by_cards.items()}
    if sum(busts.values()) != 1:
        return None
    runs: dict[int, Fraction] = {}
    if red is not None:
        black = n - sum(red)
        red_products = p.plan.products(red)
        by_run: dict[int, dict[int, int]] = {}
        for (run, denominator), term in p.runs.items():
            x = _sum(red_products, term) * (black if denominator > run else 1)
            per = by_run.setdefault(run, {})
            per[denominator] = per.get(denominator, 0) + x
        runs = {run: _over(per, n) for run, per in by_run.items()}
    return DealerChances(busts, runs)


def buster_expectation(chances: DealerChances, table: PayTable) -> Fraction:
    """Buster's expected net per unit (R19, `table`'s pays) on the next player-dealer hand."""
    ev = Fraction(0)
    for cards, chance in chances.busts.items():
        row = buster_category(cards, table)
        ev += chance * (-1 if row is None else payout(table, row))
    return ev


def red_flex_expectation(chances: DealerChances, table: PayTable) -> Fraction:
    """Red Flex's expected net per unit (R18, `table`'s pays) on the next player-dealer hand.

    The run of red cards from the first card (`red_flex_count`) is k >= 2 when the first k cards
    are red and either the hand is then complete or it still draws and the next card is black;
    any other hand loses.
    """
    hit = Fraction(0)
    ev = Fraction(0)
    for run, chance in chances.runs.items():
        row = red_flex_category(run, table)
        if row is not None:
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
