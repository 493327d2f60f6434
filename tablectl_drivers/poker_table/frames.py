"""The card-reading poker table's messages (docs/protocols/poker-table.md) on the envelope; pure.

Framing, checksum, SEQ and FLT/CLR/HBT are the envelope's (tablectl_drivers/envelope.py,
tablectl_drivers/messages.py); RSB/RSE, the answer to a resend request, are
tablectl_drivers/resend.py's. This module adds the table's own four messages: `HND`, a new hand
(the run its placements count in); `PLC`, a card placed in a zone with its position (its number
since the hand began); `RMV` and `RTN`, a card lifted from a zone and put back in one it was
already placed in this hand, which carry no position.

Error reasons never quote a card field: a bad frame's reason is published in the device status,
and a card at a seat is a hole card (R46).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal, Self

from tablectl_base.cards import Card, CardError, parse_card
from tablectl_drivers.envelope import BadFrame
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
    "BOARD",
    "FAULT_CODES",
    "MAX_SEATS",
    "MESSAGES",
    "MUCK",
    "CardPlaced",
    "CardRemoved",
    "CardReturned",
    "Frame",
    "NewHand",
    "PokerTableMessage",
    "Zone",
    "decode",
    "encode",
    "seat_zone",
]

MAX_SEATS = 10
"""Most seats a table has, each with its own hole-card antenna: `S1`..`S10` on the wire."""

FAULT_CODES: dict[str, str] = {
    "ANTENNA": "an antenna does not answer (the text names it, e.g. S4 or BOARD); nothing placed "
    "there is read until CLR",
    "MISREAD": "a card was placed but its tag could not be read; its position is used and "
    "nothing is reported for it (the driver reports a gap the device cannot fill)",
    "COLLISION": "more tags over one antenna than it can tell apart (cards stacked too high)",
    "FOREIGN_TAG": "a tag that is no card of the deck (a chip, a card of another deck)",
    "READER": "the reader itself is failing (power, firmware)",
}
"""The fault codes the table sends in `FLT`, with their meaning (others pass through)."""

ZoneKind = Literal["seat", "board", "muck"]
_SEAT_FIELD = re.compile(r"S([1-9][0-9]?)")


@dataclass(frozen=True, slots=True)
class Zone:
    """Where a card lies: a seat's hole-card antenna (`seat` 1..MAX_SEATS), the board, or the
    muck. On the wire `S<seat>` (no leading zero), `BOARD` or `MUCK`."""

    kind: ZoneKind
    seat: int | None = None

    def __post_init__(self) -> None:
        if (self.kind == "seat") != (self.seat is not None):
            raise ValueError("a seat zone names its seat; the board and the muck name none")
        seat = self.seat
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= MAX_SEATS
        ):
            raise ValueError(f"a seat is 1..{MAX_SEATS}, not {seat!r}")

    @property
    def field(self) -> str:
        """The zone as its wire field."""
        return f"S{self.seat}" if self.kind == "seat" else self.kind.upper()

    @classmethod
    def read(cls, text: str, what: str) -> Zone:
        """A received zone field; FieldError (naming `what`) if it is none."""
        if text == "BOARD":
            return BOARD
        if text == "MUCK":
            return MUCK
        found = _SEAT_FIELD.fullmatch(text)
        if found is None or not 1 <= int(found.group(1)) <= MAX_SEATS:
            raise FieldError(f"{what} zone is not S1..S{MAX_SEATS}, BOARD or MUCK")
        return cls("seat", int(found.group(1)))

    def __str__(self) -> str:
        return self.field


BOARD = Zone("board")
"""The community cards' zone."""
MUCK = Zone("muck")
"""The discards' zone (folded hands, burns, a Crazy Pineapple discard)."""


def seat_zone(seat: int) -> Zone:
    """The hole-card zone of `seat` (1..MAX_SEATS); ValueError otherwise."""
    return Zone("seat", seat)


def _read_card(text: str, what: str) -> Card:
    """The card in a field; the reason never repeats the text (it may be a hole card)."""
    if text != text.strip():
        raise FieldError(f"{what} card has spaces")
    try:
        return parse_card(text)
    except CardError:
        raise FieldError(f"{what} card is not a card") from None


@dataclass(frozen=True, slots=True)
class NewHand(Message):
    """`HND`: a new hand begins; `hand` is its id (1-8 letters or digits, a new one each hand),
    the run its placements are numbered in, from 1 again."""

    TYPE: ClassVar[str] = "HND"
    hand: str

    def to_fields(self) -> tuple[str, ...]:
        check_run(self.hand, "hand id")
        return (self.hand,)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 1:
            raise FieldError("HND takes exactly one field, the hand id")
        return cls(seq, read_run(fields[0], "HND hand id"))


@dataclass(frozen=True, slots=True)
class CardPlaced(Message):
    """`PLC`: a card came to rest in a zone for the first time this hand; `pos` is the
    placement's number since the hand's HND (1 for the first)."""

    TYPE: ClassVar[str] = "PLC"
    pos: int
    zone: Zone
    card: Card

    def to_fields(self) -> tuple[str, ...]:
        return (position_field(self.pos), self.zone.field, str(self.card))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 3:
            raise FieldError("PLC takes exactly three fields, the position, the zone and the card")
        pos = read_position(fields[0], "PLC position")
        return cls(seq, pos, Zone.read(fields[1], "PLC"), _read_card(fields[2], "PLC"))


@dataclass(frozen=True, slots=True)
class _Unpositioned(Message):
    """A card and the zone it left or came back to: no position, never kept or resent."""

    zone: Zone
    card: Card

    def to_fields(self) -> tuple[str, ...]:
        return (self.zone.field, str(self.card))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 2:
            raise FieldError(f"{cls.TYPE} takes exactly two fields, the zone and the card")
        return cls(seq, Zone.read(fields[0], cls.TYPE), _read_card(fields[1], cls.TYPE))


@dataclass(frozen=True, slots=True)
class CardRemoved(_Unpositioned):
    """`RMV`: a card was lifted from a zone (a player looking at the hole cards, a fold on its
    way to the muck, the board collected)."""

    TYPE: ClassVar[str] = "RMV"


@dataclass(frozen=True, slots=True)
class CardReturned(_Unpositioned):
    """`RTN`: a card was put back in a zone it was already placed in this hand (the hole cards
    after a look): no new placement, so no position."""

    TYPE: ClassVar[str] = "RTN"


PokerTableMessage = NewHand | CardPlaced | CardRemoved | CardReturned | ResendBegin | ResendEnd
"""The table's own messages (what PokerTableDriver.on_frame receives), the resend replies
included."""
Frame = PokerTableMessage | Fault | FaultCleared | Heartbeat
"""Every message a card-reading poker table sends."""

MESSAGES: MessageSet[PokerTableMessage] = MessageSet(
    NewHand, CardPlaced, CardRemoved, CardReturned, ResendBegin, ResendEnd
)
"""The poker table protocol: HND, PLC, RMV, RTN, the resend replies RSB and RSE, plus the common
FLT, CLR, HBT."""


def encode(frame: Frame) -> bytes:
    """The wire bytes of `frame`, checksum and CR LF included; FrameError if it cannot be."""
    return MESSAGES.encode(frame)


def decode(buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
    """Find what starts `buf`: `(consumed, frame)`, `(consumed, BadFrame)` or `(0, None)`
    ("need more bytes"); the resync rules are `tablectl_drivers.envelope.decode`'s."""
    return MESSAGES.decode(buf)
