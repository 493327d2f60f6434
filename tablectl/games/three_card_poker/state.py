"""What a Three Card Poker 6 Card Bonus table knows: the round's state (immutable, replaced on
every accepted input), the game's spots, stack size and settlement orders, and the
player-dealer's qualifying hand (R29)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from tablectl.games.common import PlacedWager
from tablectl.rules.poker import Rank
from tablectl.rules.rotation import Rotation
from tablectl_base.cards import Card, DeckKind, ShoeComposition

GAME_ID = "three-card-poker-6cb"
STACK_SIZE = 3  # "the device shall dispense cards in stacks of three" (line 542)
# "a single deck automatic card shuffling device", "standard decks of 52 cards. No jokers"
# (lines 485-486): a round's cards come from one 52-card deck.
ONE_DECK = ShoeComposition(DeckKind.STANDARD_52, 1)
PRE_DEAL_SPOTS = ("ante", "pair-plus", "six-card-bonus")  # placed before the deal (lines 536-537)
BONUS_SPOTS = ("pair-plus", "six-card-bonus")  # each needs an Ante by the same player (line 537)
# R3: each seat's wagers in settlement order.
# 004 "Three Card Poker 6 Card Bonus: Method Used to Determine Action and Distribution of Cards" and
# 003 "Three Card Poker 6 Card Bonus: Round of Play" settle the Ante first;
# 000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
# Positions" the Play first (config `wager_order`).
WAGER_ORDERS: dict[str, tuple[str, ...]] = {
    "ante-first": ("ante", "play", "pair-plus", "six-card-bonus"),
    "play-first": ("play", "ante", "pair-plus", "six-card-bonus"),
}
QUEEN = 12  # "The player-dealer must qualify to play with a minimum of queen-high" (line 559)

Phase = Literal["betting", "dealing", "deciding"]
Action = Literal["play", "fold"]
ACTIONS: tuple[Action, ...] = ("play", "fold")


@dataclass(frozen=True)
class ThreeCardPokerState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()  # the pre-deal wagers: ante, pair-plus, six-card-bonus
    order: tuple[int, ...] = ()  # seats dealt a stack, in delivery order, the player-dealer last
    stacks: tuple[tuple[Card, ...], ...] = ()  # the stacks received, in the same order
    deck: str | None = None  # this round's deck colour, once a stack has named it
    last_deck: str | None = None  # the deck colour of the last round that was dealt
    decisions: tuple[tuple[int, Action], ...] = ()  # (seat, action) in the order they came
    plays: tuple[PlacedWager, ...] = ()  # Play wagers placed by `play` decisions

    @property
    def player_seats(self) -> tuple[int, ...]:
        """The seats with a hand, in the order they act (the player-dealer's seat is last)."""
        return self.order[:-1]

    def hand_of(self, seat: int) -> tuple[Card, ...] | None:
        """The cards dealt to `seat` this round, if its stack has come."""
        for s, cards in zip(self.order, self.stacks, strict=False):
            if s == seat:
                return cards
        return None

    @property
    def player_dealer_hand(self) -> tuple[Card, ...] | None:
        """The player-dealer's three cards once its stack (the last) has come."""
        return self.stacks[-1] if self.order and len(self.stacks) == len(self.order) else None

    @property
    def face_up(self) -> Card | None:
        """The player-dealer's face-up card: the bottom card of its stack (line 543), which
        tablectl reads as the first card dispensed (docs/games/three-card-poker-6cb.md)."""
        hand = self.player_dealer_hand
        return hand[0] if hand else None

    def decision_of(self, seat: int) -> Action | None:
        """What `seat` decided this round, or None while it has not."""
        return next((a for s, a in self.decisions if s == seat), None)


def qualifies(rank: Rank) -> bool:
    """Whether a player-dealer's three-card rank is queen-high or better (R29, line 559)."""
    return rank[0] > 0 or rank[1] >= QUEEN
