"""Cards per DESIGN contract 1, and deck compositions with the checks a shoe's contents allow."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

RANKS = "A23456789TJQK"
SUITS = "shdc"
JOKER = "JKR"
RED_SUITS = frozenset("hd")


class CardError(ValueError):
    """Text that is not a card of contract 1."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card: rank in A23456789TJQK and suit in shdc, or the joker (rank and suit "JKR"/"")."""

    rank: str
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def rank_index(self) -> int:
        """A=1 ... K=13; the joker has none."""
        if self.is_joker:
            raise CardError("the joker has no rank index")
        return RANKS.index(self.rank) + 1

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return JOKER if self.is_joker else f"{self.rank}{self.suit}"


def parse_card(text: object) -> Card:
    """Parse a card case-insensitively ("ah", "AH", "Td", "10d" is not accepted, "jkr")."""
    if type(text) is str:
        known = _CANONICAL.get(text)
        if known is not None:  # the usual case: a card as tablectl writes it
            return known
    if not isinstance(text, str):
        raise CardError(f'a card is a string like "Ah", not {text!r}')
    t = text.strip()
    if t.upper() == JOKER:
        return Card(JOKER, "")
    if len(t) != 2:
        raise CardError(f'{text!r} is not a card: expected rank and suit like "Ah", "Td" or "JKR"')
    rank, suit = t[0].upper(), t[1].lower()
    if rank not in RANKS:
        raise CardError(f"{text!r} is not a card: rank {t[0]!r} is not one of {RANKS}")
    if suit not in SUITS:
        raise CardError(f"{text!r} is not a card: suit {t[1]!r} is not one of {SUITS}")
    return Card(rank, suit)


_CANONICAL: dict[str, Card] = {f"{r}{s}": Card(r, s) for r in RANKS for s in SUITS} | {
    JOKER: Card(JOKER, "")
}
"""Each card by its own name ("Ah", "JKR"): cards are immutable, so one object serves every
parse of that name."""


def standard_deck() -> tuple[Card, ...]:
    """The 52-card deck in a fixed order (rank-major)."""
    return tuple(Card(r, s) for r in RANKS for s in SUITS)


class DeckKind(StrEnum):
    """The deck compositions the rule documents use."""

    STANDARD_52 = "standard-52"  # baccarat, Three Card Poker, Ultimate Texas Hold'em
    PURE_21_5 = "pure-21.5"  # 52 cards; T J Q K are the "bonus" cards
    SPANISH_48 = "spanish-48"  # no tens
    JOKER_53 = "joker-53"  # Fortune Pai Gow Poker


def deck_of(kind: DeckKind) -> tuple[Card, ...]:
    """The cards of one deck of the given kind."""
    std = standard_deck()
    if kind in (DeckKind.STANDARD_52, DeckKind.PURE_21_5):
        return std
    if kind is DeckKind.SPANISH_48:
        return tuple(c for c in std if c.rank != "T")
    return (*std, Card(JOKER, ""))


@dataclass(frozen=True)
class ShoeComposition:
    """What a shoe of `decks` decks of `kind` can hold: each card at most `decks` times."""

    kind: DeckKind
    decks: int
    _allowed: frozenset[Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError("a shoe holds at least one deck")
        object.__setattr__(self, "_allowed", frozenset(deck_of(self.kind)))

    def why_not(self, card: Card, seen: Mapping[Card, int]) -> str | None:
        """The reason `card` cannot come out of this shoe after `seen`, or None if it can."""
        if card not in self._allowed:
            return f"{card} is not in a {self.kind.value} deck"
        if seen.get(card, 0) >= self.decks:
            return (
                f"{card} cannot be drawn again: a {self.decks}-deck shoe holds {self.decks} "
                f"and {seen.get(card, 0)} have been drawn since the shoe was put in"
            )
        return None

    def full_counts(self) -> Counter[Card]:
        """Every card of the shoe with its multiplicity."""
        return Counter({c: self.decks for c in self._allowed})


def count_cards(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)
