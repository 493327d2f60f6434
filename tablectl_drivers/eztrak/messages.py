"""The EZTRAK display's messages (docs/protocols/eztrak.md) on the shared envelope; pure, no I/O.

Unlike the input devices, the host does most of the talking: it sends a screen as `SHO` (which
starts it), `LIM`, `TMR`, `STA`, `PRV` and `RDS` frames, then `END` to commit it
(`HOST_MESSAGES`). The display answers `ACK` or `NAK` per screen, says `RDY` when it starts
blank, and sends the common `FLT`/`CLR`/`HBT` (`MESSAGES`, what the driver reads).
Every message checks its own values, so a bad one can neither be built nor received.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Literal, Self

from tablectl_drivers.messages import FieldError, Message, MessageSet

__all__ = [
    "BLOCKS",
    "HOST_MESSAGES",
    "MESSAGES",
    "ROAD_CODES",
    "Ack",
    "Commit",
    "DisplayMessage",
    "HostMessage",
    "Limit",
    "Nak",
    "PreviousShoe",
    "Ready",
    "RoadColumns",
    "ScreenStart",
    "Statistic",
    "Timer",
]

MAX_NUMBER = 999_999
"""Largest count, shoe number or hand number a frame carries (six digits)."""
MAX_TIMER = 9_999
"""Largest bet timer in seconds."""
BLOCKS: dict[str, str] = {"C": "current", "P": "previous"}
"""`STA` block letters: this shoe's statistics, or the previous shoe's."""
ROAD_CODES: dict[str, str] = {
    "bead_plate": "BP",
    "big_road": "BR",
    "big_eye_boy": "BE",
    "small_road": "SR",
    "cockroach_pig": "CP",
}
"""Each scoreboard road's two-letter code on the wire, in display order."""

_DIGITS = re.compile(r"[0-9]{1,6}")
_NAME = re.compile(r"[a-z0-9_]{1,16}")
_PCT = re.compile(r"100\.0|[1-9]?[0-9]\.[0-9]")
_REASON = re.compile(r"[A-Z0-9_]{1,16}")
_CRC = re.compile(r"[0-9A-Fa-f]{4}")
BIG_ROAD_TOKEN = re.compile(r"([PBpb])([0-9]*)")
"""One big-road cell: winner (lowercase when a natural was dealt), then its tie count if any."""
_CELLS: dict[str, re.Pattern[str]] = {
    "BP": re.compile(r"[PBT]+"),
    "BR": re.compile(r"(?:[PBpb][0-9]*)+"),
    "BE": re.compile(r"[RB]+"),
    "SR": re.compile(r"[RB]+"),
    "CP": re.compile(r"[RB]+"),
}


def _number(text: str, what: str, top: int = MAX_NUMBER) -> int:
    """A decimal field of 1-6 digits no larger than `top`; FieldError otherwise."""
    if not _DIGITS.fullmatch(text) or int(text) > top:
        raise FieldError(f"{what} {text!r} must be a whole number 0..{top}")
    return int(text)


def _check_number(value: int, what: str, top: int = MAX_NUMBER) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
        raise FieldError(f"{what} {value!r} must be a whole number 0..{top}")


def _check(pattern: re.Pattern[str], value: str, what: str) -> None:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise FieldError(f"{what} {value!r} is not valid")


def _check_limit_value(value: str) -> None:
    """1-16 printable ASCII characters without `$ * ,` and without spaces at either end."""
    ok = (
        isinstance(value, str)
        and 1 <= len(value) <= 16
        and value == value.strip()
        and all(" " <= c <= "~" and c not in "$*," for c in value)
    )
    if not ok:
        raise FieldError(f"limit value {value!r} must be 1-16 printable characters without $ * ,")


def _arity(cls: type[Message], fields: tuple[str, ...], n: int) -> None:
    if len(fields) != n:
        raise FieldError(f"{cls.TYPE} takes {n} field{'s' if n != 1 else ''}, not {len(fields)}")


# -- host -> display: one screen ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScreenStart(Message):
    """`SHO,shoe,hands`: starts a new screen (dropping any unfinished one) for this shoe."""

    TYPE: ClassVar[str] = "SHO"
    shoe: int
    hands: int

    def __post_init__(self) -> None:
        _check_number(self.shoe, "shoe number")
        _check_number(self.hands, "hands")

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.shoe), str(self.hands))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 2)
        return cls(seq, _number(fields[0], "shoe number"), _number(fields[1], "hands"))


@dataclass(frozen=True, slots=True)
class Limit(Message):
    """`LIM,name,value`: one table limit, e.g. `LIM,7,min,5.00`; one frame per limit."""

    TYPE: ClassVar[str] = "LIM"
    name: str
    value: str

    def __post_init__(self) -> None:
        _check(_NAME, self.name, "limit name")
        _check_limit_value(self.value)

    def to_fields(self) -> tuple[str, ...]:
        return (self.name, self.value)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 2)
        return cls(seq, fields[0], fields[1])


@dataclass(frozen=True, slots=True)
class Timer(Message):
    """`TMR,seconds` or `TMR,OFF`: the optional bet timer that closes betting by itself."""

    TYPE: ClassVar[str] = "TMR"
    seconds: int | None

    def __post_init__(self) -> None:
        if self.seconds is not None:
            _check_number(self.seconds, "bet timer", MAX_TIMER)

    def to_fields(self) -> tuple[str, ...]:
        return ("OFF" if self.seconds is None else str(self.seconds),)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 1)
        if fields[0] == "OFF":
            return cls(seq, None)
        return cls(seq, _number(fields[0], "bet timer", MAX_TIMER))


@dataclass(frozen=True, slots=True)
class PreviousShoe(Message):
    """`PRV,hands`: the previous shoe's block follows, with this many hands; absent if none."""

    TYPE: ClassVar[str] = "PRV"
    hands: int

    def __post_init__(self) -> None:
        _check_number(self.hands, "hands")

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.hands),)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 1)
        return cls(seq, _number(fields[0], "hands"))


@dataclass(frozen=True, slots=True)
class Statistic(Message):
    """`STA,block,name,count,pct`: one statistic, e.g. `STA,9,C,banker,5,45.5` (R28).

    `block` is `C` for this shoe or `P` for the previous one; `pct` is the percentage of the
    block's hands with one decimal, as tablectl.games.baccarat.eztrak.percent writes it.
    """

    TYPE: ClassVar[str] = "STA"
    block: Literal["C", "P"]
    name: str
    count: int
    pct: str

    def __post_init__(self) -> None:
        if self.block not in BLOCKS:
            raise FieldError(f"statistic block {self.block!r} must be C or P")
        _check(_NAME, self.name, "statistic name")
        _check_number(self.count, "count")
        _check(_PCT, self.pct, "percentage")

    def to_fields(self) -> tuple[str, ...]:
        return (self.block, self.name, str(self.count), self.pct)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 4)
        block: Literal["C", "P"]
        if fields[0] == "C":
            block = "C"
        elif fields[0] == "P":
            block = "P"
        else:
            raise FieldError(f"statistic block {fields[0]!r} must be C or P")
        return cls(seq, block, fields[1], _number(fields[2], "count"), fields[3])


@dataclass(frozen=True, slots=True)
class RoadColumns(Message):
    """`RDS,road,col,cells[,cells...]`: columns of one road, `col` being the first one's index.

    If `col` is the index of the road's last column so far, the first `cells` continue it (a
    column too long for one frame); every further field starts the next column. Cells are one
    letter each (`P B T` on the bead plate, `R B` on the derived roads), or on the big road a
    winner letter, lowercase for a natural, followed by its tie count when not zero (`Pp2B`).
    """

    TYPE: ClassVar[str] = "RDS"
    road: str
    col: int
    cells: tuple[str, ...]

    def __post_init__(self) -> None:
        pattern = _CELLS.get(self.road)
        if pattern is None:
            raise FieldError(f"road {self.road!r} must be one of {', '.join(_CELLS)}")
        _check_number(self.col, "column")
        if not self.cells:
            raise FieldError("RDS needs at least one column of cells")
        for cells in self.cells:
            _check(pattern, cells, f"{self.road} cells")

    def to_fields(self) -> tuple[str, ...]:
        return (self.road, str(self.col), *self.cells)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if len(fields) < 3:
            raise FieldError("RDS takes a road, a column and one or more columns of cells")
        return cls(seq, fields[0], _number(fields[1], "column"), tuple(fields[2:]))


@dataclass(frozen=True, slots=True)
class Commit(Message):
    """`END,count,crc`: the screen is complete; `count` frames from `SHO` on, CRC-16 over them.

    The display shows the new screen only if they all arrived; its answer names this frame's
    SEQ, which is therefore the screen's number.
    """

    TYPE: ClassVar[str] = "END"
    count: int
    crc: int

    def __post_init__(self) -> None:
        _check_number(self.count, "frame count")
        if (
            isinstance(self.crc, bool)
            or not isinstance(self.crc, int)
            or not 0 <= self.crc < 1 << 16
        ):
            raise FieldError(f"crc {self.crc!r} must be 0..FFFF")

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.count), f"{self.crc:04X}")

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 2)
        _check(_CRC, fields[1], "crc")
        return cls(seq, _number(fields[0], "frame count"), int(fields[1], 16))


HostMessage = ScreenStart | Limit | Timer | PreviousShoe | Statistic | RoadColumns | Commit
"""What the host sends the display."""
HOST_MESSAGES: MessageSet[HostMessage] = MessageSet(
    ScreenStart, Limit, Timer, PreviousShoe, Statistic, RoadColumns, Commit
)
"""The host's side of the protocol (what the display, or its simulator, decodes)."""


# -- display -> host --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """`ACK,screen`: the screen whose `END` had SEQ `screen` is complete and now shown."""

    TYPE: ClassVar[str] = "ACK"
    screen: int

    def __post_init__(self) -> None:
        _check_number(self.screen, "screen", 9_999)

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.screen),)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 1)
        return cls(seq, _number(fields[0], "screen", 9_999))


@dataclass(frozen=True, slots=True)
class Nak(Message):
    """`NAK,screen,reason`: the screen was refused (the old one stays up); the host resends.

    Reasons: `NOSTART` (END with no SHO), `GAP` (a frame missing), `COUNT`, `CRC`, `CONTENT`
    (the frames do not make a screen), `BUSY`; others are passed through.
    """

    TYPE: ClassVar[str] = "NAK"
    screen: int
    reason: str

    def __post_init__(self) -> None:
        _check_number(self.screen, "screen", 9_999)
        _check(_REASON, self.reason, "NAK reason")

    def to_fields(self) -> tuple[str, ...]:
        return (str(self.screen), self.reason)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        _arity(cls, fields, 2)
        return cls(seq, _number(fields[0], "screen", 9_999), fields[1])


@dataclass(frozen=True, slots=True)
class Ready(Message):
    """`RDY`: the display (re)started with a blank screen and wants the current one."""

    TYPE: ClassVar[str] = "RDY"


DisplayMessage = Ack | Nak | Ready
"""The display's own messages (what EztrakDisplayDriver.on_frame receives)."""
MESSAGES: MessageSet[DisplayMessage] = MessageSet(Ack, Nak, Ready)
"""The display's side of the protocol plus the common FLT, CLR, HBT (what the driver decodes)."""
