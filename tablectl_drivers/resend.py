"""The resend exchange every positioned device speaks (docs/protocols/envelope.md, "Positions
and resend"); pure, no I/O.

A card-reading shoe, a dispenser and a dice cup keep a history of what they reported (the
current and previous shoe or shuffle, the latest rolls). The host asks `RSN,<seq>,<run>,<from>`:
"send again everything from position <from> of run <run> on" (`-` for a device without runs, or
for "tell me where you are" with <from> 0). The device answers `RSB,<seq>,OK|LOST` (LOST: it has
no record that far back), the frames again in their original order with fresh SEQs and their
original positions, then `RSE,<seq>,<run>,<last>`: the run it is in and its last position now,
then its fault state (`FLT` or `CLR`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Self

from tablectl_drivers.envelope import FrameError
from tablectl_drivers.messages import FieldError, Message, MessageSet

__all__ = [
    "HOST_MESSAGES",
    "MAX_POSITION",
    "NO_RUN",
    "RUN_ID",
    "ResendBegin",
    "ResendEnd",
    "ResendRequest",
    "check_run",
    "position_field",
    "read_position",
    "read_run",
]

MAX_POSITION = 999_999_999
"""Highest position on the wire: nine digits."""
RUN_ID = re.compile(r"[A-Za-z0-9]{1,8}")
"""What a run (a shoe, a shuffle) is called on the wire: 1-8 letters and digits."""
NO_RUN = "-"
"""The run field of a device without runs (the dice cup), or of a host that knows none yet."""
_DIGITS = re.compile(r"[0-9]{1,9}")


def check_run(run: str, what: str = "run") -> None:
    """FrameError unless `run` is a run id."""
    if not RUN_ID.fullmatch(run):
        raise FrameError(f"{what} {run!r} must be 1-8 letters or digits")


def read_run(text: str, what: str = "run") -> str:
    """A received run id; FieldError if it is not one."""
    if not RUN_ID.fullmatch(text):
        raise FieldError(f"{what} is not 1-8 letters or digits")
    return text


def position_field(pos: int, what: str = "position", *, zero_ok: bool = False) -> str:
    """A position as its wire field; FrameError outside 1..MAX_POSITION (0 if `zero_ok`)."""
    low = 0 if zero_ok else 1
    if isinstance(pos, bool) or not isinstance(pos, int) or not low <= pos <= MAX_POSITION:
        raise FrameError(f"{what} must be {low}..{MAX_POSITION}, not {pos!r}")
    return str(pos)


def read_position(text: str, what: str = "position", *, zero_ok: bool = False) -> int:
    """A received position; FieldError unless it is 1-9 digits within range."""
    if not _DIGITS.fullmatch(text):
        raise FieldError(f"{what} is not 1-9 digits")
    pos = int(text)
    if pos < (0 if zero_ok else 1):
        raise FieldError(f"{what} must be at least {0 if zero_ok else 1}")
    return pos


@dataclass(frozen=True, slots=True)
class ResendRequest(Message):
    """`RSN` (host to device): send again from position `start` of `run` (None: no run, or
    unknown). `start` 0 replays nothing: the device only says where it is."""

    TYPE: ClassVar[str] = "RSN"
    run: str | None
    start: int

    def to_fields(self) -> tuple[str, ...]:
        if self.run is not None:
            check_run(self.run)
        return (self.run or NO_RUN, position_field(self.start, "resend start", zero_ok=True))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 2:
            raise FieldError("RSN takes a run and a position")
        run = None if fields[0] == NO_RUN else read_run(fields[0])
        return cls(seq, run, read_position(fields[1], "resend start", zero_ok=True))


@dataclass(frozen=True, slots=True)
class ResendBegin(Message):
    """`RSB`: the replay that follows starts where asked (`lost` false), or the device has no
    record that far back (`lost` true) and replays what it has."""

    TYPE: ClassVar[str] = "RSB"
    lost: bool

    def to_fields(self) -> tuple[str, ...]:
        return ("LOST" if self.lost else "OK",)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if fields not in (("OK",), ("LOST",)):
            raise FieldError("RSB takes OK or LOST")
        return cls(seq, fields == ("LOST",))


@dataclass(frozen=True, slots=True)
class ResendEnd(Message):
    """`RSE`: the replay is over; the device is in `run` (None: no run) at position `last`
    (0: nothing reported in it yet)."""

    TYPE: ClassVar[str] = "RSE"
    run: str | None
    last: int

    def to_fields(self) -> tuple[str, ...]:
        if self.run is not None:
            check_run(self.run)
        return (self.run or NO_RUN, position_field(self.last, "last position", zero_ok=True))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) != 2:
            raise FieldError("RSE takes a run and a position")
        run = None if fields[0] == NO_RUN else read_run(fields[0])
        return cls(seq, run, read_position(fields[1], "last position", zero_ok=True))


HOST_MESSAGES: MessageSet[ResendRequest] = MessageSet(ResendRequest)
"""What the host sends a positioned device: RSN (plus the common messages, which it never
sends)."""
