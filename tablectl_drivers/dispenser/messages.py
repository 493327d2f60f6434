"""The shuffler / hand dispenser messages (docs/protocols/dispenser.md) on the envelope; pure.

Framing, checksum, SEQ and FLT/CLR/HBT are the envelope's (tablectl_drivers/envelope.py,
tablectl_drivers/messages.py); RSB/RSE, the device's answer to a resend request, are
tablectl_drivers/resend.py's. This module adds the family's own three messages: `STK`, one stack
dispensed, with its position (the stack's number since the shuffle) and the number of its first card
since the shuffle, then its cards in dispense order; `SHF`, a shuffle finished, with its id (the run
the stack numbers count in) and the colour of the deck's backs; `CNT`, how many cards are left to
dispense.

Error reasons never quote a card field: a bad frame's reason is published in the device status,
and a stack's cards are hole cards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from tablectl_base.cards import Card, CardError, parse_card
from tablectl_drivers.envelope import FrameError
from tablectl_drivers.messages import (
    Fault,
    FaultCleared,
    FieldError,
    Heartbeat,
    Message,
    MessageSet,
)
from tablectl_drivers.resend import (
    ResendBegin,
    ResendEnd,
    check_run,
    position_field,
    read_position,
    read_run,
)

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

MAX_STACK_CARDS = 10
"""Most cards one `STK` may carry: what fits in an 80-byte frame at the worst case, a 4-digit
SEQ, 9-digit stack number and first card index, and every card `JKR` (37 + 4 x 10 = 77 bytes; 11
cards could need 81). A 7-card Pai Gow hand fits with room to spare; so do two hands of 3 or 5
stuck together."""
MAX_REMAINING = 9999
"""Largest `CNT` value (four digits)."""
DECK_COLOUR = re.compile(r"[a-z]{1,16}")
"""What a deck colour looks like on the wire and in events: 1-16 lowercase letters."""

FAULT_CODES: dict[str, str] = {
    "JAM": "a card is stuck in the feed or the exit; dispensing stopped",
    "MISREAD": "a card of the stack could not be recognised; the stack was not reported (its "
    "stack number is used: the driver reports it as a gap the device cannot fill)",
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
    """`STK`: one stack dispensed: its position `pos` (the stack's number since the shuffle, 1
    for the first), `first` (the number of its first card since the shuffle, 1 for the first
    card out), then its card count and its cards, first out first.

    Any number of cards 1..MAX_STACK_CARDS is a valid frame: whether it is the number the table
    wants, and whether `first` follows on from the stack before, is the driver's and the
    engine's business, not the wire's.
    """

    TYPE: ClassVar[str] = "STK"
    pos: int
    first: int
    cards: tuple[Card, ...]

    def to_fields(self) -> tuple[str, ...]:
        if not 1 <= len(self.cards) <= MAX_STACK_CARDS:
            raise FrameError(f"a stack holds 1..{MAX_STACK_CARDS} cards, not {len(self.cards)}")
        return (
            position_field(self.pos, "stack number"),
            position_field(self.first, "first card index"),
            str(len(self.cards)),
            *(str(c) for c in self.cards),
        )

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) < 3:
            raise FieldError(
                "STK takes a stack number, a first card index, a card count and that many cards"
            )
        pos_text, first_text, count_text, *texts = fields
        pos = read_position(pos_text, "STK stack number")
        first = read_position(first_text, "STK first card index")
        if not (1 <= len(count_text) <= 2 and count_text.isdigit()):
            raise FieldError(f"STK card count is not a number 1..{MAX_STACK_CARDS}")
        count = int(count_text)
        if not 1 <= count <= MAX_STACK_CARDS:
            raise FieldError(f"STK card count {count} is not 1..{MAX_STACK_CARDS}")
        if count != len(texts):
            raise FieldError(f"STK says {count} cards but carries {len(texts)}")
        return cls(seq, pos, first, tuple(_card(t, i) for i, t in enumerate(texts, 1)))


@dataclass(frozen=True, slots=True)
class ShuffleDone(Message):
    """`SHF`: a shuffle finished. `shuffle` is its id (1-8 letters or digits, a new one each
    shuffle): the run its stacks are numbered in. `deck` is the colour of the backs (None if
    the device can't tell)."""

    TYPE: ClassVar[str] = "SHF"
    shuffle: str
    deck: str | None = None

    def to_fields(self) -> tuple[str, ...]:
        check_run(self.shuffle, "shuffle id")
        if self.deck is None:
            return (self.shuffle,)
        if not DECK_COLOUR.fullmatch(self.deck):
            raise FrameError(f"deck colour {self.deck!r} must be 1-16 lowercase letters")
        return (self.shuffle, self.deck)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if not 1 <= len(fields) <= 2:
            raise FieldError("SHF takes a shuffle id and at most a deck colour")
        shuffle = read_run(fields[0], "SHF shuffle id")
        if len(fields) == 1:
            return cls(seq, shuffle, None)
        if not DECK_COLOUR.fullmatch(fields[1]):
            raise FieldError(f"SHF deck colour {fields[1]!r} is not 1-16 lowercase letters")
        return cls(seq, shuffle, fields[1])


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


DispenserMessage = Stack | ShuffleDone | CardCount | ResendBegin | ResendEnd
"""The family's own messages (what DispenserDriver.on_frame receives), the resend replies
included."""
Frame = DispenserMessage | Fault | FaultCleared | Heartbeat
"""Every message a shuffler or hand dispenser sends."""

MESSAGES: MessageSet[DispenserMessage] = MessageSet(
    Stack, ShuffleDone, CardCount, ResendBegin, ResendEnd
)
"""The shuffler / hand dispenser protocol: STK, SHF, CNT, the resend replies RSB and RSE, plus
the common FLT, CLR, HBT."""
