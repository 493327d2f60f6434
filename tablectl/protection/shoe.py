"""The exact composition of the cards still in a shoe (`ShoeLeft`), card by card.

A card-reading shoe reports every card it deals, burns included, so after the shoe is put in
(`ShoeLeft.full`) each card dealt is taken out (`ShoeLeft.without`) and what is left is known
exactly: by rank (`counts`, what baccarat's points and blackjack's values read) and by rank and
suit (`by_card`, what Match the Dealer's suited matches and Red Flex's colours read).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tablectl_base.cards import RANKS, SUITS, Card

__all__ = ["RANKS", "SUITS", "ShoeLeft"]

_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}
_SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}


def card_index(card: Card) -> int:
    """The card's place in `ShoeLeft.by_card`: rank-major (RANKS), then suit (SUITS)."""
    return _RANK_INDEX[card.rank] * len(SUITS) + _SUIT_INDEX[card.suit]


@dataclass(frozen=True, slots=True)
class ShoeLeft:
    """The exact composition of the cards still in the shoe.

    `counts`: 13 counts by RANKS ("A23456789TJQK"). `by_card`: 52 counts by rank then suit
    (`card_index`), kept by `full` and `without`; None when only the ranks are known (a
    composition built from `counts` alone), when the figures that read suits are not given.
    """

    counts: tuple[int, ...]
    by_card: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.counts) != len(RANKS) or any(k < 0 for k in self.counts):
            raise ValueError(f"a shoe's composition is 13 counts of 0 or more, not {self.counts}")
        if self.by_card is None:
            return
        if len(self.by_card) != len(RANKS) * len(SUITS) or any(k < 0 for k in self.by_card):
            raise ValueError("a shoe's composition by card is 52 counts of 0 or more")
        per_rank = tuple(
            sum(self.by_card[r * len(SUITS) : (r + 1) * len(SUITS)]) for r in range(len(RANKS))
        )
        if per_rank != self.counts:
            raise ValueError(f"the counts by card add up to {per_rank}, not {self.counts}")

    @classmethod
    def full(cls, decks: int, *, spanish: bool = False) -> ShoeLeft:
        """A shoe of `decks` decks just put in; `spanish`: the pip tens removed (a Spanish deck,
        003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used")."""
        if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
            raise ValueError(f"a shoe holds one deck or more, not {decks!r}")
        counts = tuple(0 if spanish and rank == "T" else 4 * decks for rank in RANKS)
        by_card = tuple(0 if spanish and rank == "T" else decks for rank in RANKS for _ in SUITS)
        return cls(counts, by_card)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> ShoeLeft:
        """The composition of exactly these cards (a shoe late in its life, a test's)."""
        by_card = [0] * (len(RANKS) * len(SUITS))
        for card in cards:
            if card.is_joker or card.rank not in _RANK_INDEX or card.suit not in _SUIT_INDEX:
                raise ValueError(f"{card} is not a card of a shoe's decks")
            by_card[card_index(card)] += 1
        counts = tuple(
            sum(by_card[r * len(SUITS) : (r + 1) * len(SUITS)]) for r in range(len(RANKS))
        )
        return cls(counts, tuple(by_card))

    def without(self, card: Card) -> ShoeLeft:
        """The shoe after `card` is dealt; ValueError naming the card if none of it is left."""
        if card.is_joker or card.rank not in _RANK_INDEX or card.suit not in _SUIT_INDEX:
            raise ValueError(f"{card} cannot come out of this shoe: it holds no such card")
        r = _RANK_INDEX[card.rank]
        counts = self.counts
        if self.by_card is None:
            if counts[r] == 0:
                raise ValueError(f"{card} cannot come out of the shoe: no {card.rank} is left")
            return ShoeLeft((*counts[:r], counts[r] - 1, *counts[r + 1 :]))
        i = card_index(card)
        if self.by_card[i] == 0:
            raise ValueError(f"{card} cannot come out of the shoe: none is left")
        by_card = (*self.by_card[:i], self.by_card[i] - 1, *self.by_card[i + 1 :])
        return ShoeLeft((*counts[:r], counts[r] - 1, *counts[r + 1 :]), by_card)

    @property
    def cards(self) -> int:
        """How many cards are left."""
        return sum(self.counts)
