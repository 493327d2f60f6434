"""Stud poker's own rules, pure: which of a seat's cards are dealt face up, whose board showing
opens each later betting round, and a stud hand at the showdown.

003 "Basic Seven Card Stud Rules" rule 1: two cards down, four up, the seventh down; 003 "Five
Card Stud": one down, then four up. After the first round, "the first bettor in each additional
betting interval is the player with the highest card or the highest Poker combination showing.
If two or more players are tied for highest, the one nearest the dealer's left (that is, the one
dealt first) is the first bettor" (003 "Seven Card Stud (High)", "Five Card Stud"); in Razz, the
low-only game, the lowest board showing (R47). Up to four up cards make no
straight or flush, so a board showing is ranked by its pairs, trips and fours, then its cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final, Literal

from tablectl.rules.flop_hands import HighHand, LowHand
from tablectl.rules.low import EIGHT_OR_BETTER, best_low_five, low_value
from tablectl.rules.poker import best_five, card_value
from tablectl_base.cards import Card

Face = Literal["up", "down"]

SEVEN_CARD_STUD: Final[tuple[tuple[Face, ...], ...]] = (
    ("down", "down", "up"),
    ("up",),
    ("up",),
    ("up",),
    ("down",),
)
"""Seven Card Stud's streets, each its cards to every seat still in, a betting round after each
(003 "Basic Seven Card Stud Rules" rule 1; "Seven Card Stud (High)")."""

FIVE_CARD_STUD: Final[tuple[tuple[Face, ...], ...]] = (("down", "up"), ("up",), ("up",), ("up",))
"""Five Card Stud's streets (003 "Five Card Stud": "a face-down card and then ... a face-up card",
then three rounds of one face-up card)."""

DEAL_RULE = '003 "Basic Seven Card Stud Rules" rule 1'
DECK = 52
"""Stud is dealt from one standard deck without the joker."""


def cards_each(streets: tuple[tuple[Face, ...], ...], bought: int = 0) -> int:
    """The most cards one player is dealt: every street's, and any bought (Option Alley)."""
    return sum(len(street) for street in streets) + bought


def most_seats(streets: tuple[tuple[Face, ...], ...], bought: int = 0) -> int:
    """How many players a stud game can deal every card to from one deck: no document says
    what happens when the deck runs out, so a table never seats more (docs/games/stud.md)."""
    return DECK // cards_each(streets, bought)


FIRST_BETTOR = '003 "Seven Card Stud (High)"; 003 "Five Card Stud"'


def showing_high(up: Sequence[Card]) -> tuple[int, ...]:
    """How high a board showing ranks (bigger is higher): four of a kind, three of a kind, two
    pairs, a pair, then no pair; within one, its groups' values, most copies first, the ace
    high."""
    return _grouped([card_value(c) for c in up])


def showing_low(up: Sequence[Card]) -> tuple[int, ...]:
    """How low a board showing ranks in Razz (smaller is lower): no pair below a pair below two
    pairs below three and four of a kind; within one, its values highest first, the ace low
    ("two aces are the lowest pair", 003 "Lowball"), the lower winning."""
    return _grouped([low_value(c) for c in up])


_SHOWING: Final[Mapping[tuple[int, ...], int]] = {
    (1,): 0,
    (1, 1): 0,
    (1, 1, 1): 0,
    (1, 1, 1, 1): 0,
    (2,): 1,
    (2, 1): 1,
    (2, 1, 1): 1,
    (2, 2): 2,
    (3,): 3,
    (3, 1): 3,
    (4,): 4,
}
"""A showing's shape (the copies of each value, most first) -> its rank: no pair, a pair, two
pairs, three of a kind, four of a kind."""


def _grouped(values: list[int]) -> tuple[int, ...]:
    """A showing's rank and its values grouped as poker groups them: most copies first, then
    the higher value first."""
    if not 1 <= len(values) <= 4:
        raise ValueError(f"a board showing is one to four up cards, not {len(values)}")
    counts = Counter(values)
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    return (_SHOWING[shape], *(v for v, n in groups for _ in range(n)))


def first_bettor(order: Sequence[int], up: Mapping[int, Sequence[Card]], *, low: bool) -> int:
    """The seat that bets first in a later round: among `order` (the seats still in, dealt
    order from the dealer's left), the highest board showing, or in Razz (`low`) the lowest; a
    tie goes to the seat nearest the dealer's left, the one dealt first."""
    if not order:
        raise ValueError("no seat is still in the hand")
    if low:
        return min(order, key=lambda s: (showing_low(up.get(s, ())), order.index(s)))
    return max(order, key=lambda s: (showing_high(up.get(s, ())), -order.index(s)))


def stud_high(down: Sequence[Card], up: Sequence[Card]) -> HighHand:
    """A stud hand's best high five of all its cards, down and up ("each player in the showdown
    may select any five of his or her cards", 003 "Seven Card Stud (High-Low Split)")."""
    return best_five([*down, *up])


def stud_low_eight(down: Sequence[Card], up: Sequence[Card]) -> LowHand | None:
    """Seven Card Stud high-low's low: five cards 8 or below without pairing, or None (003
    "Seven Card Stud (High-Low Split)")."""
    return best_low_five([*down, *up], EIGHT_OR_BETTER)


def razz_low(down: Sequence[Card], up: Sequence[Card]) -> LowHand | None:
    """The lowest five, no qualifier, a pair counting against it but able to win: Razz's hand
    (003 "Razz (Seven Card Stud, Low Only)") and Option Alley's low ("there is no qualifier so a
    pair could win for low", 003 "Option Alley")."""
    return best_low_five([*down, *up], None)
