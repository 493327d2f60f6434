"""The shuffler / hand dispenser messages (docs/protocols/dispenser.md) on the envelope; pure.

Framing, checksum, SEQ and FLT/CLR/HBT are the envelope's (drivers/envelope.py,
drivers/messages.py). This module adds the family's own three messages: `STK`, one stack
dispensed, its cards in dispense order; `SHF`, a shuffle finished, with the colour of the deck's
backs; `CNT`, how many cards are left to dispense.

Error reasons never quote a card field: a bad frame's reason is published in the device status,
and a stack's cards are hole cards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from drivers.envelope import FrameError
from drivers.messages import (
    Fault,
    FaultCleared,
    FieldError,
    Heartbeat,
    Message,
    MessageSet,
)
from tablectl.cards import Card, CardError, parse_card

__all__ = [
    "DECK_COLOUR",
    "FAULT_CODES",
    "MAX_REMAINING",
    "MAX_STACK_CARDS",
    "MESSAGES",
    "CardCount",
    "DispenserMessage",
    "Frame",
    "ShuffleDone",
    "Stack",
]

MAX_STACK_CARDS = 20
"""Most cards one `STK` may carry: what fits in a frame, so no stack the device forms is refused."""
MAX_REMAINING = 9999
"""Largest `CNT` value (four digits)."""
DECK_COLOUR = re.compile(r"[a-z]{1,16}")
"""What a deck colour looks like on the wire and in events: 1-16 lowercase letters."""

FAULT_CODES: dict[str, str] = {
    "JAM": "a card is stuck in the feed or the exit; dispensing stopped",
    "MISREAD": "a card of the stack could not be recognised; the stack was not reported",
    "WRONG_COUNT": "the device's own counter says a stack has the wrong number of cards",
    "HOPPER_EMPTY": "not enough cards left to form the next stack",
    "DOOR_OPEN": "the device's door or lid is open",
}
"""The fault codes this family's devices send in `FLT`, with their meaning (others pass through)."""


def _card(text: str, position: int) -> Card:
    """The card in STK field `position` (1-based); the reason never repeats the text."""
    if text != text.strip():
        raise FieldError(f"STK card {position} has spaces")
    try:
        return parse_card(text)
    except CardError:
        raise FieldError(f"STK card {position} is not a card") from None


@dataclass(frozen=True, slots=True)
class Stack(Message):
    """`STK`: one stack dispensed; its card count, then its cards, first out first.

    Any number of cards 1..MAX_STACK_CARDS is a valid frame: whether it is the number the table
    wants is the driver's and the engine's business, not the wire's.
    """

    TYPE: ClassVar[str] = "STK"
    cards: tuple[Card, ...]

    def to_fields(self) -> tuple[str, ...]:
        if not 1 <= len(self.cards) <= MAX_STACK_CARDS:
            raise FrameError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {len(self.cards)}")
        return (str(len(self.cards)), *(str(c) for c in self.cards))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if not fields:
            raise FieldError("STK takes a card count and that many cards")
        count_text, *texts = fields
        if not (1 <= len(count_text) <= 2 and count_text.isdigit()):
            raise FieldError(f"STK card count is not a number 1..{MAX_STACK_CARDS}")
        count = int(count_text)
        if not 1 <= count <= MAX_STACK_CARDS:
            raise FieldError(f"STK card count {count} is not 1..{MAX_STACK_CARDS}")
        if count != len(texts):
            raise FieldError(f"STK says {count} cards but carries {len(texts)}")
        return cls(seq, tuple(_card(t, i) for i, t in enumerate(texts, 1)))


@dataclass(frozen=True, slots=True)
class ShuffleDone(Message):
    """`SHF`: a shuffle finished; `deck` is the colour of the backs (None if the device can't tell).

    A fresh deck is in play: the driver takes it as the device starting afresh.
    """

    TYPE: ClassVar[str] = "SHF"
    deck: str | None = None

    def to_fields(self) -> tuple[str, ...]:
        if self.deck is None:
            return ()
        if not DECK_COLOUR.fullmatch(self.deck):
            raise FrameError(f"deck colour {self.deck!r} must be 1-16 lowercase letters")
        return (self.deck,)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if not fields:
            return cls(seq, None)
        if len(fields) > 1:
            raise FieldError("SHF takes at most one field, the deck colour")
        if not DECK_COLOUR.fullmatch(fields[0]):
            raise FieldError(f"SHF deck colour {fields[0]!r} is not 1-16 lowercase letters")
        return cls(seq, fields[0])


@dataclass(frozen=True, slots=True)
class CardCount(Message):
    """`CNT`: how many cards the device has left to dispense (in its hopper or shuffled stack)."""

    TYPE: ClassVar[str] = "CNT"
    remaining: int

    def to_fields(self) -> tuple[str, ...]:
        r = self.remaining
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r <= MAX_REMAINING:
            raise FrameError(f"a card count is 0..{MAX_REMAINING}, not {r!r}")
        return (str(r),)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 1 or not (1 <= len(fields[0]) <= 4 and fields[0].isdigit()):
            raise FieldError("CNT takes one field, the cards left (1-4 digits)")
        return cls(seq, int(fields[0]))


DispenserMessage = Stack | ShuffleDone | CardCount
"""The family's own messages (what DispenserDriver.on_frame receives)."""
Frame = DispenserMessage | Fault | FaultCleared | Heartbeat
"""Every message a shuffler or hand dispenser sends."""

MESSAGES: MessageSet[DispenserMessage] = MessageSet(Stack, ShuffleDone, CardCount)
"""The shuffler / hand dispenser protocol: STK, SHF, CNT plus the common FLT, CLR, HBT."""
