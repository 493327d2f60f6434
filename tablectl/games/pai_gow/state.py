"""What a Fortune Pai Gow Poker table knows: the round's state (immutable, replaced on every
accepted input) and its hands as set, the game's fixed sizes and spots, and where the dice put
the first hand and the Action button (R30)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from tablectl.games.common import PlacedWager
from tablectl.rules.rotation import Rotation
from tablectl_base.cards import Card, DeckKind, ShoeComposition

GAME_ID = "fortune-pai-gow"
# 003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players": "a
# maximum of seven players including the player-dealer position"
POSITIONS = 7
# 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play": "seven piles of seven cards"
STACK_SIZE = 7
# 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play": "a dice cup containing three
# standard dice"
DICE = 3
# 003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used": "one standard 52
# card deck including a Joker for a total of 53 cards".
DECK = ShoeComposition(DeckKind.JOKER_53, 1)
# 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play": "settled from seat to seat in
# the following order: the Fortune Pai Gow Poker game wager, then the Fortune Bonus Bet wager, and
# then the Envy Bonus".
SETTLEMENT_SPOTS = ("base", "fortune", "envy")
WAGER_SPOTS = ("base", "fortune")  # R32: the Envy is a button a Fortune wager earns, not a wager
ACTIONS = ("set", "house-way")  # DESIGN contract 2: Pai Gow decisions

Phase = Literal["betting", "closed", "dealing", "setting"]
SetBy = Literal["player", "house-way"]


@dataclass(frozen=True)
class Setting:
    """One seat's hand as set: the five-card high hand behind, the two-card low hand in front."""

    seat: int
    high: tuple[Card, ...]
    low: tuple[Card, ...]
    by: SetBy


@dataclass(frozen=True)
class PaiGowState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()
    dice: tuple[int, ...] = ()
    first_seat: int | None = None  # R30: the seat that receives the first hand
    hands: tuple[tuple[int, tuple[Card, ...]], ...] = ()  # (seat, seven cards) in dispense order
    deck: str | None = None  # the colour of this round's deck, if the dispenser named it
    last_deck: str | None = None  # the colour of the last round's deck, if named
    settings: tuple[Setting, ...] = ()

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The seven cards dealt to `seat` this round (empty before its stack)."""
        return next((cards for s, cards in self.hands if s == seat), ())

    def setting(self, seat: int) -> Setting | None:
        """How `seat` set its hand, or None while it has not."""
        return next((s for s in self.settings if s.seat == seat), None)


def position_seat(total: int, bank_seat: int, seats: int = POSITIONS) -> int:
    """R30: the seat at dice position `total`; the player-dealer is 1, 8 and 15, the other seats
    count on clockwise (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
    return (bank_seat - 1 + total - 1) % seats + 1


def button_seat(first_seat: int, bank_seat: int, seats: int = POSITIONS) -> int:
    """R30: the Action button is on the first hand's seat, or the player-dealer's left when the
    player-dealer receives the first hand
    (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")."""
    return bank_seat % seats + 1 if first_seat == bank_seat else first_seat
