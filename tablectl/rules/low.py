"""Ace-to-five low hands: the low half of the split games and the low-only games.

The documents rank a low hand with the ace as the lowest card ("king, queen, jack, 10, 9, 8, 7, 6,
5, 4, 3, 2 and then ace", 003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings",
004 "Omaha High/Low Split: Card Values and Hand Rankings"); straights and flushes do not count
against a low hand (003 "Omaha (High-Low Split)" rule 6, "Seven Card Stud (High-Low Split)",
"Razz (Seven Card Stud, Low Only)"), so the best low is the wheel A-2-3-4-5 (the "bicycle" of 003
"Lowball"). Two lows are compared by their highest card first, the lower winning: 7-6-4-3-2 beats
8-6-5-3-A (the example of both documents' "Card Values and Hand Rankings"); equal highest cards
go on to the next card down (the documents stop at the highest card; R42 splits a low only
between equal hands, so the rest must decide).

Pairs count against a low: where there is no qualifier (Razz, Option Alley, R42) a paired hand can
still win if it is the lowest ("a pair can win for low if it is the lowest hand", 003 "Razz (Seven
Card Stud, Low Only)"). Paired hands keep the order of the documents' hand rankings (high card
below one pair below two pairs below three of a kind below full house below four of a kind), with
the ace as the lowest rank ("two aces are the lowest pair", 003 "Lowball"), and the lowest wins.

A key is a plain tuple, smaller is better: the category 0..5, then the five values (ace 1 .. king
13) grouped as high poker groups them (most copies first, then the higher value first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations
from typing import Final

from tablectl.rules.poker import HandError, check_cards
from tablectl_base.cards import RANKS, Card

LowKey = tuple[int, ...]

# Low categories, best first; the index is the first element of a key.
NO_PAIR, ONE_PAIR, TWO_PAIRS, THREE_OF_A_KIND, FULL_HOUSE, FOUR_OF_A_KIND = range(6)
LOW_CATEGORIES: Final = (
    "no-pair",
    "pair",
    "two-pair",
    "three-of-a-kind",
    "full-house",
    "four-of-a-kind",
)
# The category of each shape (the copies of each value, most first).
_SHAPES: Final = {
    (1, 1, 1, 1, 1): NO_PAIR,
    (2, 1, 1, 1): ONE_PAIR,
    (2, 2, 1): TWO_PAIRS,
    (3, 1, 1): THREE_OF_A_KIND,
    (3, 2): FULL_HOUSE,
    (4, 1): FOUR_OF_A_KIND,
}

# "8 or better": Omaha High-Low Split (003 "Omaha (High-Low Split)", 004 "Omaha High/Low Split:
# Card Values and Hand Rankings"), and 003's stud and draw high-low games.
EIGHT_OR_BETTER: Final = 8
# "9 high or better": 003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings".
NINE_OR_BETTER: Final = 9
QUALIFIERS: Final = (EIGHT_OR_BETTER, NINE_OR_BETTER)

WHEEL: Final[LowKey] = (NO_PAIR, 5, 4, 3, 2, 1)  # A-2-3-4-5, the best low

# Low value of each rank: ace 1, 2..9, ten 10, jack 11, queen 12, king 13.
_LOW_VALUE: Final = {r: i for i, r in enumerate(RANKS, start=1)}


def low_value(card: Card) -> int:
    """A card's value in a low hand: 1 for the ace up to 13 for the king."""
    try:
        return _LOW_VALUE[card.rank]
    except KeyError:
        raise HandError(
            f"{card} has no low value (Lowball's joker, the bug, is not handled here)"
        ) from None


def _check(cards: Sequence[Card], low: int, high: int) -> None:
    """Refuse a hand of the wrong size, with a card twice, or with the joker."""
    check_cards(cards, low, high, needs="a low hand is made from")
    for card in cards:
        low_value(card)


def check_qualifier(qualifier: int | None) -> None:
    """Refuse a qualifier the documents do not post: 8, 9, or None for none (R42)."""
    if qualifier is not None and (type(qualifier) is not int or qualifier not in QUALIFIERS):
        raise HandError(
            f"low qualifier {qualifier!r} is not posted: 8 (8 or better), 9 (9 or better) "
            "or None (no qualifier, R42)"
        )


@cache
def _key_of(values: tuple[int, ...]) -> LowKey:
    """Key of five low values sorted high first."""
    counts = Counter(values)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    return (_SHAPES[shape], *(v for v, n in groups for _ in range(n)))


def low_key_unchecked(five: Sequence[Card]) -> LowKey:
    """`low_key` of five cards without the checks (the flop-game evaluators check first)."""
    return _key_of(tuple(sorted((_LOW_VALUE[c.rank] for c in five), reverse=True)))


def low_key(five: Sequence[Card]) -> LowKey:
    """Comparable low key of exactly five cards; smaller is the better low."""
    _check(five, 5, 5)
    return low_key_unchecked(five)


def qualifies(key: LowKey, qualifier: int | None) -> bool:
    """Whether a low qualifies: with a qualifier, five unpaired cards none above it
    ("five cards 8 or below without pairing", 003 "Omaha (High-Low Split)"; "9 high or better",
    003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings"); any hand without one."""
    check_qualifier(qualifier)
    return qualifier is None or (key[0] == NO_PAIR and key[1] <= qualifier)


def best_low_of(
    fives: Iterable[Sequence[Card]], qualifier: int | None
) -> tuple[LowKey, tuple[Card, ...]] | None:
    """The best low among candidate five-card hands and its cards, or None if it does not qualify.

    The best candidate is the only one that can qualify: a qualifying low is unpaired with its top
    card at most the qualifier, and the best hand is at least as low in both.
    """
    best: tuple[LowKey, tuple[Card, ...]] | None = None
    for five in fives:
        key = low_key_unchecked(five)
        if best is None or key < best[0]:
            best = (key, tuple(five))
    if best is None or not qualifies(best[0], qualifier):
        return None
    return best


def best_low_five(
    cards: Sequence[Card], qualifier: int | None
) -> tuple[LowKey, tuple[Card, ...]] | None:
    """The best low of any five of 5 to 7 cards and the five used, or None if none qualifies."""
    _check(cards, 5, 7)
    check_qualifier(qualifier)
    if qualifier is not None:
        # A card above the qualifier can be in no qualifying low.
        cards = [c for c in cards if _LOW_VALUE[c.rank] <= qualifier]
    return best_low_of(combinations(cards, 5), qualifier)


def best_low(cards: Sequence[Card], qualifier: int | None) -> LowKey | None:
    """Key of the best low of any five of 5 to 7 cards, or None when no low qualifies."""
    found = best_low_five(cards, qualifier)
    return None if found is None else found[0]


def low_category(key: LowKey) -> str:
    """Name of a low key's category: "no-pair", "pair", ... "four-of-a-kind"."""
    return LOW_CATEGORIES[key[0]]


def describe_low(key: LowKey) -> str:
    """A low as a floor person reads it, highest card first: "8-6-5-3-A"."""
    return "-".join("A" if v == 1 else RANKS[v - 1] for v in key[1:])
