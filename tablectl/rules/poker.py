"""Poker hand evaluators shared by every poker game: three-card (R29) and best-five high poker.

Ranks are plain tuples that compare with `<`/`max`: the category first, then the card values that
break ties. Values run 2..14 (ace high); an ace counts 1 only in the low straight (A-2-3 for three
cards, A-2-3-4-5 for five), so those are the lowest straights. The non-flush part of a hand depends
only on its multiset of values and the flush part only on the values of one suit, so both are
cached per value tuple: after the first few thousand hands an evaluation is a sort, a suit count
and a dictionary lookup, which is what makes the exhaustive analyses fast in pure Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from typing import Literal

from tablectl_base.cards import RANKS, SUITS, Card

Rank = tuple[int, ...]
Showdown = Literal["win", "lose", "push"]

# Five-card categories, lowest first; the index is the first element of a five-card rank.
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
FIVE_CARD_CATEGORIES = (
    "high-card",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "straight",
    "flush",
    "full-house",
    "four-of-a-kind",
    "straight-flush",
)
ROYAL_FLUSH = "royal-flush"  # the ace-high straight flush, named apart because pay tables do

# Three-card categories (R29), lowest first; the index is the first element of a three-card rank.
THREE_CARD_CATEGORIES = (
    "high-card",
    "pair",
    "flush",
    "straight",
    "three-of-a-kind",
    "straight-flush",
    "mini-royal-flush",
)
_3_HIGH, _3_PAIR, _3_FLUSH, _3_STRAIGHT, _3_TRIPS, _3_SF, _3_MINI_ROYAL = range(7)

ACE = 14


class HandError(ValueError):
    """Cards that do not form a hand the evaluator can rank."""


_VALUE = {r: (ACE if i == 0 else i + 1) for i, r in enumerate(RANKS)}


def card_value(card: Card) -> int:
    """Poker value of a card: 2..13 for 2..K, 14 for the ace."""
    try:
        return _VALUE[card.rank]
    except KeyError:
        raise HandError(
            f"{card} has no poker value here (only Fortune Pai Gow uses the joker)"
        ) from None


def check_cards(cards: Sequence[Card], low: int, high: int, needs: str = "expected") -> None:
    """Refuse a hand of the wrong size or with a card twice (a single deck has each card once);
    `needs` opens the size's reason ("expected 5 cards, got 4")."""
    if not low <= len(cards) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise HandError(f"{needs} {want} cards, got {len(cards)}")
    if len({(c.rank, c.suit) for c in cards}) != len(cards):
        raise HandError(f"a card appears twice in {' '.join(map(str, cards))}")


def _flush_suits(n: int) -> dict[tuple[str, ...], tuple[str, ...]]:
    """For each sorted suit tuple of n cards that holds five of a suit, those suits."""
    table: dict[tuple[str, ...], tuple[str, ...]] = {}
    for combo in combinations_with_replacement(sorted(SUITS), n):
        flush = tuple(s for s in SUITS if combo.count(s) >= 5)
        if flush:
            table[combo] = flush
    return table


_SUITS_IF_FLUSH = {k: v for n in (5, 6, 7) for k, v in _flush_suits(n).items()}


def _straight_high(distinct_desc: Sequence[int], length: int) -> int | None:
    """Top value of the highest run of `length` consecutive values (ace also low), else None."""
    vals = list(distinct_desc)
    if vals and vals[0] == ACE:
        vals.append(1)
    run = 1
    for i in range(1, len(vals)):
        run = run + 1 if vals[i] == vals[i - 1] - 1 else 1
        if run == length:
            return vals[i] + length - 1
    return None


def showdown(player: Rank, dealer: Rank) -> Showdown:
    """A player's hand against the player-dealer's, both ranked by the same evaluator: the
    higher rank wins, an equal rank ("equal in rank and value",
    004 "Three Card Poker 6 Card Bonus: How Each Wager Wins, Loses or Pushes"; "a poker value equal
    to", 003 "Ultimate Texas Hold'em: How Winners are Determined and Paid") pushes. Three Card Poker
    and Ultimate Texas Hold'em both use it."""
    if player > dealer:
        return "win"
    if player < dealer:
        return "lose"
    return "push"


# ---------------------------------------------------------------- five-card high poker


def _run(high: int) -> tuple[int, ...]:
    """The five values of the straight topped by `high` (the wheel ends with the ace as 1)."""
    return tuple(range(high, high - 5, -1))


@cache
def _best_plain(values: tuple[int, ...]) -> Rank:
    """Best five-card rank from 5..7 values (sorted high first), ignoring suits."""
    counts = Counter(values)
    # Values ordered by (count, value) descending: the standard tie-break order.
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    quads = [v for v, n in groups if n >= 4]
    trips = [v for v, n in groups if n == 3]
    pairs = [v for v, n in groups if n == 2]
    if quads:
        q = quads[0]
        kicker = max(v for v in values if v != q)
        return (QUADS, q, q, q, q, kicker)
    if trips and (len(trips) >= 2 or pairs):
        t = trips[0]
        p = max([*trips[1:], *pairs])
        return (FULL_HOUSE, t, t, t, p, p)
    high = _straight_high(sorted(counts, reverse=True), 5)
    if high is not None:
        return (STRAIGHT, *_run(high))
    if trips:
        t = trips[0]
        kickers = [v for v in values if v != t][:2]
        return (TRIPS, t, t, t, *kickers)
    if len(pairs) >= 2:
        a, b = pairs[0], pairs[1]
        kicker = max(v for v in values if v not in (a, b))
        return (TWO_PAIR, a, a, b, b, kicker)
    if pairs:
        p = pairs[0]
        kickers = [v for v in values if v != p][:3]
        return (PAIR, p, p, *kickers)
    return (HIGH_CARD, *values[:5])


@cache
def _best_flush(values: tuple[int, ...]) -> Rank:
    """Best five-card rank from 5..7 distinct values of one suit (sorted high first)."""
    high = _straight_high(values, 5)
    if high is not None:
        return (STRAIGHT_FLUSH, *_run(high))
    return (FLUSH, *values[:5])


def best_rank(cards: Sequence[Card]) -> Rank:
    """Rank of the best five-card high hand among 5 to 7 cards (faster than `best_five`)."""
    check_cards(cards, 5, 7)
    return rank_unchecked(cards)


def rank_unchecked(cards: Sequence[Card]) -> Rank:
    """`best_rank` of 5 to 7 cards without the size and duplicate checks (exhaustive analyses)."""
    try:
        values = sorted([_VALUE[c.rank] for c in cards], reverse=True)
    except KeyError:
        raise HandError(
            "the joker has no poker value here (only Fortune Pai Gow uses it)"
        ) from None
    rank = _best_plain(tuple(values))
    suits = [c.suit for c in cards]
    for suit in _SUITS_IF_FLUSH.get(tuple(sorted(suits)), ()):
        suited = sorted([_VALUE[c.rank] for c in cards if c.suit == suit], reverse=True)
        rank = max(rank, _best_flush(tuple(suited)))
    return rank


def five_card_rank(cards: Sequence[Card]) -> Rank:
    """Comparable rank of exactly five cards; the wheel A-2-3-4-5 is the lowest straight."""
    check_cards(cards, 5, 5)
    return rank_unchecked(cards)


def best_five(cards: Sequence[Card]) -> tuple[Rank, tuple[Card, ...]]:
    """The best five of 5 to 7 cards (6 Card Bonus, Hold'em): its rank and the five cards used."""
    rank = best_rank(cards)
    return rank, _cards_for(rank, cards)


def _cards_for(rank: Rank, cards: Sequence[Card]) -> tuple[Card, ...]:
    """Five of `cards` whose rank is `rank` (which must be their best rank)."""
    pool = list(cards)
    if rank[0] in (FLUSH, STRAIGHT_FLUSH):
        suits = [c.suit for c in pool]
        suit = max(SUITS, key=suits.count)
        pool = [c for c in pool if c.suit == suit]
    by_value: dict[int, list[Card]] = {}
    for c in pool:
        by_value.setdefault(_VALUE[c.rank], []).append(c)
    return tuple(by_value[ACE if v == 1 else v].pop() for v in rank[1:])


def rank_category(rank: Rank) -> str:
    """Pay-table name of a five-card rank; the ace-high straight flush is a royal flush."""
    if rank[0] == STRAIGHT_FLUSH and rank[1] == ACE:
        return ROYAL_FLUSH
    return FIVE_CARD_CATEGORIES[rank[0]]


def five_card_category(cards: Sequence[Card]) -> str:
    """Pay-table name of the best five-card hand among 5 to 7 cards."""
    return rank_category(best_rank(cards))


# ---------------------------------------------------------------- Three Card Poker (R29)


@cache
def _three_card(values: tuple[int, ...], suited: bool) -> Rank:
    """Three-card rank of values (sorted high first), all of one suit or not (R29 order)."""
    a, b, c = values
    if a == b == c:
        return (_3_TRIPS, a, b, c)
    high = _straight_high(values, 3) if len(set(values)) == 3 else None
    if high is not None:
        run = (high, high - 1, high - 2)
        if suited:
            return (_3_MINI_ROYAL if high == ACE else _3_SF, *run)
        return (_3_STRAIGHT, *run)
    if suited:
        return (_3_FLUSH, a, b, c)
    if a == b or b == c:
        p, k = (a, c) if a == b else (b, a)
        return (_3_PAIR, p, p, k)
    return (_3_HIGH, a, b, c)


def three_card_rank(cards: Sequence[Card]) -> Rank:
    """Comparable Three Card Poker rank (R29): Mini Royal > straight flush > trips > straight >
    flush > pair > high card; A-2-3 is the lowest straight and straight flush."""
    check_cards(cards, 3, 3)
    values = tuple(sorted((card_value(c) for c in cards), reverse=True))
    return _three_card(values, len({c.suit for c in cards}) == 1)


def three_card_category(cards: Sequence[Card]) -> str:
    """Pay-table name of a three-card hand (Pair Plus): "mini-royal-flush", "pair", ..."""
    return THREE_CARD_CATEGORIES[three_card_rank(cards)[0]]
