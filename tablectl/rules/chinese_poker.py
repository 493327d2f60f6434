"""Chinese Poker's rules, pure (document 003 "Chinese Poker"): the 3-5-5 setting and its foul,
the segments compared, the bonus hands, the clean sweeps, the points between two players, and
the settlement walk that pays them within each player's stack.

Each player sets 13 cards into a front of three, a middle of five and a back of five; "The front
hand may not rank higher than the middle hand; the middle hand may not rank higher than the
back". Segment against segment, the higher hand wins one point ("Ace-2-3-4-5 is the smallest
Straight"); a tie pushes, "except ties between a player in possession of the action and dealer
buttons and another player, in which case the player with both button wins all ties". A front of
three cards ranks by three of a kind, a pair or no pair (a straight or a flush needs five cards:
docs/games/chinese-poker.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Final, Literal

from tablectl.rules.poker import (
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STRAIGHT_FLUSH,
    TRIPS,
    Rank,
    card_value,
    check_cards,
    rank_unchecked,
)
from tablectl_base.cards import Card
from tablectl_base.money import ZERO

RULE: Final = '003 "Chinese Poker"'
SEGMENTS: Final = ("front", "middle", "back")
SIZES: Final = (3, 5, 5)

Sweep = Literal["dragon", "six-pairs", "three-straights", "three-flushes"]
SWEEPS: Final[Mapping[Sweep, int]] = {
    "dragon": 13,
    "six-pairs": 3,
    "three-straights": 3,
    "three-flushes": 3,
}
"""The clean sweep hands, highest first, and their points (003 "Chinese Poker", Clean Sweep)."""

BONUS: Final[Mapping[tuple[str, int], int]] = {
    ("front", TRIPS): 3,
    ("middle", FULL_HOUSE): 2,
    ("middle", QUADS): 8,
    ("middle", STRAIGHT_FLUSH): 10,
    ("back", QUADS): 4,
    ("back", STRAIGHT_FLUSH): 5,
}
"""Bonus points for a hand in a segment its player wins (003 "Chinese Poker", Bonus System)."""

FOUL_POINTS: Final = 3 * len(SEGMENTS)
"""A fouled hand pays each player "3 points for each segment" (003 "Chinese Poker", Game Rules
5): three segments, nine points (docs/games/chinese-poker.md)."""


def front_rank(cards: Sequence[Card]) -> Rank:
    """A front of three cards as a rank in the five-card ranks' order: three of a kind, a pair
    (its kicker after), or no pair (its three values), so a front compares with a middle."""
    check_cards(cards, 3, 3, needs="a front hand is")
    values = sorted((card_value(c) for c in cards), reverse=True)
    counts = Counter(values)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    top, n = groups[0]
    if n == 3:
        return (TRIPS, top, top, top)
    if n == 2:
        return (PAIR, top, top, groups[1][0])
    return (HIGH_CARD, *values)


def segment_rank(segment: str, cards: Sequence[Card]) -> Rank:
    """The rank of one segment's cards: the front by `front_rank`, the others as five cards."""
    if segment == "front":
        return front_rank(cards)
    check_cards(cards, 5, 5, needs=f"a {segment} hand is")
    return rank_unchecked(cards)


@dataclass(frozen=True)
class Setting:
    """A player's 13 cards as set: front, middle, back, each segment's rank, and whether it is
    fouled (a segment above the one behind it, 003 "Chinese Poker", Game Rules 5)."""

    front: tuple[Card, ...]
    middle: tuple[Card, ...]
    back: tuple[Card, ...]

    @property
    def ranks(self) -> tuple[Rank, Rank, Rank]:
        return (
            segment_rank("front", self.front),
            segment_rank("middle", self.middle),
            segment_rank("back", self.back),
        )

    @property
    def fouled(self) -> bool:
        front, middle, back = self.ranks
        return front > middle or middle > back

    def bonus(self, segment: int) -> int:
        """The bonus points of the hand in `segment` (0 front .. 2 back), if any."""
        return BONUS.get((SEGMENTS[segment], self.ranks[segment][0]), 0)


def setting(front: Sequence[Card], middle: Sequence[Card], back: Sequence[Card]) -> Setting:
    """A 3-5-5 setting of thirteen distinct cards (ValueError naming what is wrong)."""
    for name, cards, size in zip(SEGMENTS, (front, middle, back), SIZES, strict=True):
        if len(cards) != size:
            raise ValueError(f"the {name} hand is {size} cards, not {len(cards)} (3-5-5)")
    every = [*front, *middle, *back]
    if len(set(every)) != len(every):
        raise ValueError("a card appears twice in the setting")
    if any(c.is_joker for c in every):
        raise ValueError("Chinese Poker is played with no joker")
    return Setting(tuple(front), tuple(middle), tuple(back))


# ---------------------------------------------------------------- clean sweeps


def _is_straight(cards: Sequence[Card]) -> bool:
    """Distinct consecutive values (the ace high or low): three or five cards."""
    values = sorted({card_value(c) for c in cards})
    if len(values) != len(cards):
        return False
    runs = [values, sorted(1 if v == 14 else v for v in values)]
    return any(r[-1] - r[0] == len(r) - 1 for r in runs)


def _is_flush(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1


def _three_of(cards: Sequence[Card], test: Callable[[Sequence[Card]], bool]) -> bool:
    """Whether the 13 cards split into a front of three and two fives each passing `test`."""
    for front in combinations(cards, 3):
        if not test(front):
            continue
        rest = [c for c in cards if c not in front]
        for middle in combinations(rest, 5):
            if test(middle) and test([c for c in rest if c not in middle]):
                return True
    return False


def sweep_holds(sweep: Sweep, cards: Sequence[Card]) -> bool:
    """Whether the 13 cards make the clean sweep declared ("The 13 cards that make a clean
    sweep hand must be contained in the 13 cards")."""
    check_cards(cards, 13, 13, needs="a clean sweep is")
    values = Counter(card_value(c) for c in cards)
    if sweep == "dragon":  # "Ace through King, Any Suit"
        return len(values) == 13
    if sweep == "six-pairs":  # "4 of a kind may be used as 2 pairs"
        return sum(n // 2 for n in values.values()) >= 6
    if sweep == "three-straights":
        return _three_of(cards, _is_straight)
    return _three_of(cards, _is_flush)


# ---------------------------------------------------------------- points between two players


@dataclass(frozen=True)
class Hand:
    """What a player brought to the showdown: a setting, a clean sweep declared (and held), or
    a fouled hand (a setting out of order, or a sweep it could not produce)."""

    setting: Setting | None = None
    sweep: Sweep | None = None

    @property
    def fouled(self) -> bool:
        return self.sweep is None and (self.setting is None or self.setting.fouled)


def sweep_points(a: Hand, b: Hand) -> int:
    """Points `b` pays `a` for clean sweeps (negative: `a` pays): a sweep is paid its value by a
    player without one, or with a lower one ("the point value for the lower ranking 'Clean
    Sweep' hand will not be subtracted"); equal sweeps push."""
    va = SWEEPS[a.sweep] if a.sweep else 0
    vb = SWEEPS[b.sweep] if b.sweep else 0
    if va > vb:
        return va
    if vb > va:
        return -vb
    return 0


def segment_points(a: Hand, b: Hand, button: Literal["a", "b"] | None) -> int:
    """Points `b` pays `a` for the segments, bonuses and fouls (negative: `a` pays), between two
    players neither of whom declared a sweep (sweeps are paid apart, `sweep_points`): each
    segment won is a point and its bonus hand's points; a tie goes to the button's holder;
    a fouled hand pays a set one the foul's points and every bonus hand it set; two fouled hands
    push."""
    if a.sweep or b.sweep:
        return 0
    if a.fouled and b.fouled:
        return 0
    if a.fouled or b.fouled:
        clean = b if a.fouled else a
        assert clean.setting is not None
        owed = FOUL_POINTS + sum(clean.setting.bonus(i) for i in range(len(SEGMENTS)))
        return -owed if a.fouled else owed
    assert a.setting is not None and b.setting is not None
    points = 0
    for i, (ra, rb) in enumerate(zip(a.setting.ranks, b.setting.ranks, strict=True)):
        if ra > rb or (ra == rb and button == "a"):
            points += 1 + a.setting.bonus(i)
        elif rb > ra or (ra == rb and button == "b"):
            points -= 1 + b.setting.bonus(i)
    return points


# ---------------------------------------------------------------- the settlement walk


Reason = Literal["sweep", "segments"]


@dataclass(frozen=True)
class Transfer:
    """One payment of the walk: `payer` to `payee`, `amount` of the `owed` (less when a stack
    ran out: "You can only win up to the amount of money in your stack")."""

    payer: int
    payee: int
    owed: Decimal
    amount: Decimal
    reason: Reason


def settlement_order(order: Sequence[int]) -> list[tuple[int, int]]:
    """The pairs in the order they settle: the button's holder (`order[0]`) against the 2nd,
    3rd and 4th positions, then the 2nd against the 3rd and 4th, then the 3rd against the 4th
    (003 "Chinese Poker", "The settlement of wagers will be conducted in the following
    fashion")."""
    return [(order[i], order[j]) for i in range(len(order)) for j in range(i + 1, len(order))]


def walk(
    order: Sequence[int],
    stacks: Mapping[int, Decimal],
    sweeps: Mapping[tuple[int, int], int],
    segments: Mapping[tuple[int, int], int],
    point: Decimal,
) -> list[Transfer]:
    """Every payment, clean sweeps first then the segments, each pair in `settlement_order`:
    points the second pays the first in each (negative: the first pays) times the point's
    value. Each player's stack at the start of the hand bounds everything it exchanges ("The
    all-in player's payoff will end when the total wager exchanged is equal to the amount that
    was in front to that player at the beginning of the hand")."""
    room = {seat: stacks[seat] for seat in order}
    out: list[Transfer] = []
    phases: tuple[tuple[Reason, Mapping[tuple[int, int], int]], ...] = (
        ("sweep", sweeps),
        ("segments", segments),
    )
    for reason, points in phases:
        for first, second in settlement_order(order):
            n = points.get((first, second), 0)
            if n == 0:
                continue
            payee, payer = (first, second) if n > 0 else (second, first)
            owed = abs(n) * point
            amount = max(ZERO, min(owed, room[payer], room[payee]))
            room[payer] -= amount
            room[payee] -= amount
            out.append(Transfer(payer, payee, owed, amount, reason))
    return out
