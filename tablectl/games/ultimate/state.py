"""What an Ultimate Texas Hold'em table knows: the round's state (immutable, replaced on every
accepted input), its stacks and Play wagers, and the game's fixed sizes, streets and spots
(003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Literal

from tablectl.game_records import JsonValue
from tablectl.games.common import PlacedWager
from tablectl.rules.rotation import Rotation
from tablectl_base.cards import Card, DeckKind, ShoeComposition
from tablectl_base.money import fmt

GAME_ID = "ultimate-texas-holdem"
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": "Ante wager, Play wager, Blind
# wager, Trips Bonus Bet, and then the Bad Beat".
SETTLEMENT_SPOTS = ("ante", "play", "blind", "trips", "bad-beat")
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"
PRE_DEAL_SPOTS = ("ante", "blind", "trips", "bad-beat")
# need the Ante and Blind first
# (003 "Ultimate Texas Hold'em: Trips Bonus Bet", "Bad Beat Bonus Bet")
BONUS_SPOTS = ("trips", "bad-beat")
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": "Two cards at a time to each
# wagering area"
HAND_SIZE = 2
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": "Five community cards"
BOARD_SIZE = 5
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": "the first three community
# cards"
FLOP_SIZE = 3

Street = Literal["preflop", "flop", "river"]
Phase = Literal["betting", "dealing", "preflop", "flop", "river"]
To = Literal["seat", "player-dealer", "board"]
STREETS: tuple[Street, ...] = ("preflop", "flop", "river")
# The Play wager's size, as multiples of the Ante, on each street
# (003 "Ultimate Texas Hold'em: Object of the Game", "Dealing Procedures and Round of Play").
MULTIPLES: Mapping[Street, tuple[int, ...]] = MappingProxyType(
    {"preflop": (3, 4), "flop": (2,), "river": (1,)}
)
# What a player may do on each street: check before the river, fold only at it (same lines).
ACTIONS: Mapping[Street, tuple[str, ...]] = MappingProxyType(
    {"preflop": ("bet", "check"), "flop": ("bet", "check"), "river": ("bet", "fold")}
)
STREET_LINE: Mapping[Street, str] = MappingProxyType(
    {"preflop": "003 line 3496", "flop": "003 line 3498", "river": "003 line 3500"}
)
BOARD_SHOWN: Mapping[Phase, int] = MappingProxyType(
    {"betting": 0, "dealing": 0, "preflop": 0, "flop": FLOP_SIZE, "river": BOARD_SIZE}
)
# 003 "Ultimate Texas Hold'em: Description of the Deck and Number of Decks Used": one 52-card deck a
# round
ONE_DECK = ShoeComposition(DeckKind.STANDARD_52, 1)


@dataclass(frozen=True)
class Stack:
    """One dispensed stack and where it went: a seat's two cards, the player-dealer's, the board."""

    to: To
    seat: int | None
    cards: tuple[Card, ...]

    def payload(self) -> dict[str, JsonValue]:
        """The stack as `round/result` shows it once exposed."""
        out: dict[str, JsonValue] = {"to": self.to}
        if self.seat is not None:
            out["seat"] = self.seat
        out["cards"] = [str(c) for c in self.cards]
        return out


@dataclass(frozen=True)
class Play:
    """A Play wager made by a `bet` decision: its street and multiple of the Ante
    (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")."""

    seat: int
    player: str
    street: Street
    multiple: int
    amount: Decimal

    def wager(self) -> PlacedWager:
        """The Play as a wager on the layout, for settlement (never for fees, R4)."""
        return PlacedWager(self.seat, self.player, "play", self.amount)

    def payload(self) -> dict[str, JsonValue]:
        """The Play as `state` and `round/result` show it."""
        return {
            "seat": self.seat,
            "player": self.player,
            "street": self.street,
            "multiple": self.multiple,
            "amount": fmt(self.amount),
        }


@dataclass(frozen=True)
class UltimateState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()  # the pre-deal wagers, as placed
    hands_for: tuple[int, ...] = ()  # seats dealt a hand, in deal order (fixed at no more bets)
    stacks: tuple[Stack, ...] = ()  # this round's stacks in dispense order
    deck: str | None = None  # this round's deck colour, when the dispenser reported it
    last_deck: str | None = None  # the colour the previous round was dealt from
    plays: tuple[Play, ...] = ()
    acted: tuple[int, ...] = ()  # seats that have checked on the current street
    folded: tuple[int, ...] = ()

    def dealt(self) -> tuple[Card, ...]:
        """This round's cards so far, in dispense order (one deck: each card at most once)."""
        return tuple(c for s in self.stacks for c in s.cards)

    def stack_of(self, to: To, seat: int | None = None) -> Stack | None:
        """The stack dealt to `to` (and `seat`), if it has been dispensed."""
        return next((s for s in self.stacks if s.to == to and s.seat == seat), None)

    def board(self) -> tuple[Card, ...]:
        """The five community cards, or () before they are dispensed."""
        stack = self.stack_of("board")
        return stack.cards if stack else ()

    def play_of(self, seat: int) -> Play | None:
        """The seat's Play wager, if it has bet."""
        return next((p for p in self.plays if p.seat == seat), None)


def street_of(phase: Phase) -> Street | None:
    """The betting street a phase is, or None before the decisions begin."""
    if phase == "preflop" or phase == "flop" or phase == "river":
        return phase
    return None
