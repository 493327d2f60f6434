"""The dice-cup sensor's messages (docs/protocols/dice.md) on the shared envelope; pure, no I/O.

Framing, checksum, SEQ and FLT/CLR/HBT are the envelope's (tablectl_drivers/envelope.py,
tablectl_drivers/messages.py); RSB/RSE, the cup's answer to a resend request, are
tablectl_drivers/resend.py's. This module adds the cup's own two messages: `DIC`, what the sensor
read after a shake, with the roll's number (the count of rolls the cup has read since it was made:
its position, which never restarts) and each die a digit 1-6, or `?` for a die it could not read;
and `CUP`, the cup lifted off the dice or closed over them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from tablectl_drivers.envelope import FrameError
from tablectl_drivers.messages import (
    Fault,
    FaultCleared,
    FieldError,
    Heartbeat,
    Message,
    MessageSet,
)
from tablectl_drivers.resend import ResendBegin, ResendEnd, position_field, read_position

__all__ = [
    "FACES",
    "MESSAGES",
    "UNREAD",
    "CupMoved",
    "DiceMessage",
    "DiceReading",
    "Frame",
]

FACES = range(1, 7)
"""The values a die can show."""
UNREAD = "?"
"""The wire field for a die the sensor saw but could not read."""


def _die_field(value: int | None) -> str:
    """One die as its wire field; FrameError for a value no die can show."""
    if value is None:
        return UNREAD
    if isinstance(value, bool) or not isinstance(value, int) or value not in FACES:
        raise FrameError(f"a die shows 1..6, not {value!r}")
    return str(value)


@dataclass(frozen=True, slots=True)
class DiceReading(Message):
    """`DIC`: what the sensor read after one shake, die by die; None is a die it could not read.

    `pos` is the roll's number: how many rolls the cup has read since it was made, this one
    included (a counter kept through power cycles, so it never restarts). A reading with an
    unreadable die is no roll: it carries the number the next reading will take, and that
    reading, once every die is read, takes it.

    The number of dice is what the sensor saw, which need not be what the table uses: the driver
    passes a readable reading on as read and the game engine judges it.
    """

    TYPE: ClassVar[str] = "DIC"
    pos: int
    dice: tuple[int | None, ...]

    @property
    def values(self) -> tuple[int, ...] | None:
        """Every die's value, or None if any die could not be read."""
        if any(d is None for d in self.dice):
            return None
        return tuple(d for d in self.dice if d is not None)

    def to_fields(self) -> tuple[str, ...]:
        if not self.dice:
            raise FrameError("DIC carries at least one die")
        return (position_field(self.pos, "roll number"), *(_die_field(d) for d in self.dice))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) < 2:
            raise FieldError("DIC takes a roll number and one or more dice")
        pos = read_position(fields[0], "DIC roll number")
        dice: list[int | None] = []
        for text in fields[1:]:
            if text == UNREAD:
                dice.append(None)
            elif len(text) == 1 and text in "123456":
                dice.append(int(text))
            else:
                raise FieldError(f"DIC die {text!r} is not 1-6 or {UNREAD}")
        return cls(seq, pos, tuple(dice))


@dataclass(frozen=True, slots=True)
class CupMoved(Message):
    """`CUP`: the cup was lifted off the dice (`LIFTED`) or closed over them (`CLOSED`)."""

    TYPE: ClassVar[str] = "CUP"
    lifted: bool

    def to_fields(self) -> tuple[str, ...]:
        return ("LIFTED" if self.lifted else "CLOSED",)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if fields not in (("LIFTED",), ("CLOSED",)):
            raise FieldError("CUP takes LIFTED or CLOSED")
        return cls(seq, fields == ("LIFTED",))


DiceMessage = DiceReading | CupMoved | ResendBegin | ResendEnd
"""The cup's own messages (what DiceCupDriver.on_frame receives), the resend replies included."""
Frame = DiceMessage | Fault | FaultCleared | Heartbeat
"""Every message a dice cup sends."""

MESSAGES: MessageSet[DiceMessage] = MessageSet(DiceReading, CupMoved, ResendBegin, ResendEnd)
"""The dice-cup protocol: DIC, CUP, the resend replies RSB and RSE, plus the common FLT, CLR,
HBT."""
