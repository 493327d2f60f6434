"""The card-reading shoe's messages (docs/protocols/shoe.md) on the shared envelope; pure, no I/O.

The framing, checksum and resync rules are tablectl_drivers/envelope.py's and FLT/CLR/HBT are the
common messages of tablectl_drivers/messages.py; this module adds the shoe's own messages and
`decode`/`encode` for the whole shoe protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from tablectl_base.cards import Card, CardError, parse_card
from tablectl_drivers.envelope import MAX_FRAME, SEQ_MODULO, BadFrame, FrameError, checksum
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
    "MAX_FRAME",
    "MESSAGES",
    "SEQ_MODULO",
    "BadFrame",
    "CardBurned",
    "CardDrawn",
    "Fault",
    "FaultCleared",
    "Frame",
    "FrameError",
    "Heartbeat",
    "NewShoe",
    "ShoeEmpty",
    "ShoeMessage",
    "checksum",
    "decode",
    "encode",
]


@dataclass(frozen=True, slots=True)
class _CardMessage(Message):
    """A card (case-insensitive on the wire, canonical in Python) and its position: the card's
    number since the shoe's NEW, burns included (1 is the first card out)."""

    card: Card
    pos: int

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.card), position_field(self.pos))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 2:
            raise FieldError(f"{cls.TYPE} takes exactly two fields, the card and its position")
        text = fields[0]
        if text != text.strip():
            raise FieldError(f"card {text!r} has spaces")
        try:
            card = parse_card(text)
        except CardError as exc:
            raise FieldError(str(exc)) from None
        return cls(seq, card, read_position(fields[1]))


@dataclass(frozen=True, slots=True)
class CardDrawn(_CardMessage):
    """`CRD`: a card came out of the shoe for play."""

    TYPE: ClassVar[str] = "CRD"


@dataclass(frozen=True, slots=True)
class CardBurned(_CardMessage):
    """`BRN`: a card came out of the shoe and was burned."""

    TYPE: ClassVar[str] = "BRN"


@dataclass(frozen=True, slots=True)
class NewShoe(Message):
    """`NEW`: a freshly shuffled shoe was put in; `shoe` is its id (1-8 letters or digits, a new
    one each shoe), the run the card positions count in."""

    TYPE: ClassVar[str] = "NEW"
    shoe: str

    def to_fields(self) -> tuple[str, ...]:
        check_run(self.shoe, "shoe id")
        return (self.shoe,)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 1:
            raise FieldError("NEW takes exactly one field, the shoe id")
        return cls(seq, read_run(fields[0], "shoe id"))


@dataclass(frozen=True, slots=True)
class ShoeEmpty(Message):
    """`EMP`: the cut card was reached or the shoe ran out of cards."""

    TYPE: ClassVar[str] = "EMP"


ShoeMessage = CardDrawn | CardBurned | NewShoe | ShoeEmpty | ResendBegin | ResendEnd
"""The shoe's own messages (what ShoeDriver.on_frame receives), the resend replies included."""
Frame = ShoeMessage | Fault | FaultCleared | Heartbeat
"""Every message a shoe sends."""

MESSAGES: MessageSet[ShoeMessage] = MessageSet(
    CardDrawn, CardBurned, NewShoe, ShoeEmpty, ResendBegin, ResendEnd
)
"""The shoe protocol: its own messages, the resend replies and the common FLT, CLR, HBT."""


def encode(frame: Frame) -> bytes:
    """The wire bytes of `frame`, checksum and CR LF included; FrameError if it cannot be."""
    return MESSAGES.encode(frame)


def decode(buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
    """Find what starts `buf`: `(consumed, frame)`, `(consumed, BadFrame)` or `(0, None)`.

    `(0, None)` means "need more bytes"; see `tablectl_drivers.envelope.decode` for the resync
    rules.
    """
    return MESSAGES.decode(buf)
