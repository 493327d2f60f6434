"""What a blackjack table knows: the round's state and its player hands (immutable, replaced on
every accepted input), and the small amounts the rules work in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Literal

from tablectl.games.common import PlacedWager
from tablectl.rules.rotation import Rotation
from tablectl_base.cards import Card
from tablectl_base.money import ZERO

Phase = Literal["betting", "dealing", "insurance", "playing", "player-dealer"]
# Why a hand stopped acting: its own decision, a bust, a Pure 21.5 (paid and put away,
# 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet"), or the one card R16 allows after a double
# (21.5) or on a split ace (21.5).
End = Literal["stand", "bust", "surrender", "rescue", "pure", "doubled", "split-aces"]
Action = Literal["hit", "stand", "double", "split", "surrender", "rescue"]
MAX_HANDS = 4  # "A maximum of three splits is allowed per hand, giving a player up to 4 hands"
# Spanish: "double the total wager up to three times"
# (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender", R20)
MAX_DOUBLES = 3
HALF = Decimal("0.5")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Hand:
    """One player hand: the seat's original hand or one made by splitting it."""

    seat: int
    player: str  # who makes the decisions: the first base wager's player at the seat
    stake: Decimal  # that player's wager on this hand before any double (a split: equal, R16)
    cards: tuple[Card, ...] = ()
    doubles: tuple[Decimal, ...] = ()  # each doubling in order (Spanish: up to three, R20)
    split: bool = False  # made by a split: never a Pure 21.5 (R10)
    owed: bool = False  # a card is due before anything else: a split's second card, a double's
    end: End | None = None

    @property
    def staked(self) -> Decimal:
        """Everything the hand's player has on it: the stake and every double."""
        return self.stake + sum(self.doubles, ZERO)

    @property
    def open(self) -> bool:
        """Whether the hand still acts (or is owed a card)."""
        return self.end is None


@dataclass(frozen=True)
class BlackjackState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()  # pre-deal wagers: base and side bets
    insurance: tuple[PlacedWager, ...] = ()  # R17: placed after the deal, never charged a fee
    even_money: tuple[int, ...] = ()  # seats whose insurance is the even-money choice
    order: tuple[int, ...] = ()  # seats dealt a hand, clockwise from the player-dealer's left
    hands: tuple[Hand, ...] = ()  # in acting order: seat by seat, a seat's split hands in order
    initial: tuple[tuple[int, tuple[Card, ...]], ...] = ()  # each seat's two initial cards
    dealer: tuple[Card, ...] = ()  # the player-dealer's cards in the order received
    dealt: int = 0  # cards dealt in the initial two rounds
    peeked: bool = False  # the hole card was checked for a Pure 21.5 and it was not one (R12)
    hole_shown: bool = False
    shoe_number: int = 0
    shoe_seen: dict[Card, int] = field(default_factory=dict)  # copy-on-write, never mutated

    def hands_of(self, seat: int) -> list[Hand]:
        """The seat's hands, left to right (one, or up to four after splits)."""
        return [h for h in self.hands if h.seat == seat]

    def index_of(self, hand: Hand) -> int:
        """The hand's number at its seat, 1-based, left to right after splits."""
        return next(i for i, h in enumerate(self.hands_of(hand.seat), 1) if h is hand)

    @property
    def current(self) -> Hand | None:
        """The hand whose turn it is (playing phase only)."""
        if self.phase != "playing":
            return None
        return next((h for h in self.hands if h.open), None)

    @property
    def up_card(self) -> Card | None:
        """The player-dealer's face-up card, once dealt."""
        return self.dealer[0] if self.dealer else None


# Journal snapshots name a state's classes by module and qualname (tablectl/snapshot.py), and


def hand_numbers(hands: Sequence[Hand]) -> list[int]:
    """Each hand's number at its seat, in one pass: what `BlackjackState.index_of` gives each
    (the first of its seat's hands that is the same object)."""
    numbers: list[int] = []
    counted: dict[int, int] = {}
    first: dict[int, int] = {}  # id of a hand: its number where it first came
    for h in hands:
        counted[h.seat] = counted.get(h.seat, 0) + 1
        numbers.append(first.setdefault(id(h), counted[h.seat]))
    return numbers


def replace_hand(state: BlackjackState, old: Hand, new: Hand) -> tuple[Hand, ...]:
    """The hands with `old` (found by identity: two hands may hold equal cards) replaced."""
    return tuple(new if h is old else h for h in state.hands)


def half_down(amount: Decimal) -> Decimal:
    """Half an amount to the cent below: the most insurance a wager allows (R17), the half a
    surrender forfeits (R16). The documents print no rounding rule; the player is never charged
    more than half."""
    return (amount * HALF).quantize(CENT, rounding=ROUND_DOWN)
