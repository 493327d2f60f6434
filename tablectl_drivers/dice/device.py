"""DiceCupDriver: reads a dice-cup sensor (docs/protocols/dice.md) and emits `dice.roll` events.

Connection, framing, SEQ, FLT/CLR and status are tablectl_drivers/framed.py's; positions, resends
and gaps are tablectl_drivers/positioned.py's (the cup has no runs: its roll number never restarts).
This module decides what a reading becomes: a fully read one is passed on as read with its place
(`at`: roll number, SEQ; the game engine, not the driver, refuses a wrong number of dice), one with
an unreadable die is no roll (it holds no position) and is withheld and shown as fault UNREADABLE
until the roll that takes its number; the cup's position is status detail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tablectl_drivers.base import DriverSink
from tablectl_drivers.dice.messages import MESSAGES, CupMoved, DiceMessage, DiceReading
from tablectl_drivers.framed import DISCONNECTED, FRAMES_LOST, SILENT, FramedOptions
from tablectl_drivers.positioned import PositionedDriver, PositionedOptions

__all__ = [
    "DISCONNECTED",
    "FRAMES_LOST",
    "MAX_DICE",
    "SILENT",
    "UNREADABLE",
    "DiceCupDriver",
    "DiceOptions",
]

UNREADABLE = "UNREADABLE"
"""Fault from a reading with an unreadable die until the roll that takes its number is read
(the dealer re-shakes)."""
MAX_DICE = 5
"""Most dice a cup may be configured for."""


@dataclass(frozen=True)
class DiceOptions(PositionedOptions):
    """The positioned device's options plus `dice`: how many dice the table's cup holds (Fortune
    Pai Gow: 3)."""

    dice: int = 3
    """Readings with another number of dice are still emitted, and counted as `wrong_count`."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "dice":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DICE:
                raise ValueError(f"option 'dice' must be an integer 1..{MAX_DICE}, not {value!r}")
            return value
        return super().check_option(key, value)


class DiceCupDriver(PositionedDriver[DiceMessage]):
    """Driver for dice-cup sensors: readings as `dice.roll` events with their roll numbers, cup
    and misreads as status.

    `detail.cup` is "lifted", "closed" or None (not yet told); `detail.unreadable` and
    `detail.wrong_count` count withheld readings and rolls with the wrong number of dice.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "dice"
    options_class: ClassVar[type[FramedOptions]] = DiceOptions
    options: DiceOptions
    has_runs: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cup: str | None = None
        self._unreadable_at: int | None = None  # the roll number an unreadable reading awaits
        self._unreadable_count = 0
        self._wrong_count = 0
        self._last_roll: int | None = None  # the furthest roll number passed on

    def position_of(self, frame: DiceMessage) -> int | None:
        """A fully read roll's number; an unreadable reading has no position."""
        if isinstance(frame, DiceReading) and frame.values is not None:
            return frame.pos
        return None

    async def emit(self, frame: DiceMessage, at: dict[str, Any], sink: DriverSink) -> None:
        """A fully read DIC becomes `dice.roll` with `at` (roll number, SEQ)."""
        if not isinstance(frame, DiceReading) or frame.values is None:
            return
        values = frame.values
        pos = at["pos"]
        if self._unreadable_at is not None and pos >= self._unreadable_at:
            self._unreadable_at = None  # the re-shake that takes the unreadable one's number
        if self._last_roll is None or pos > self._last_roll:  # not a repeat of one passed on
            self._last_roll = pos
            if len(values) != self.options.dice:
                self._wrong_count += 1
                self._log.warning(
                    f"{self.log_prefix}.wrong_count",
                    seq=frame.seq,
                    pos=pos,
                    expected=self.options.dice,
                    dice=list(values),
                )
        await sink.event({"type": "dice.roll", "dice": list(values), "at": at})

    async def on_other(self, frame: DiceMessage, sink: DriverSink) -> None:
        """A reading with an unreadable die is withheld (UNREADABLE until the roll that takes
        its number); CUP updates the cup's state."""
        if isinstance(frame, DiceReading):
            self._unreadable_at = frame.pos
            self._unreadable_count += 1
            shown = ",".join("?" if d is None else str(d) for d in frame.dice)
            self._log.warning(
                f"{self.log_prefix}.unreadable", seq=frame.seq, pos=frame.pos, dice=shown
            )
        elif isinstance(frame, CupMoved):
            self._cup = "lifted" if frame.lifted else "closed"

    def device_fault(self) -> str | None:
        return UNREADABLE if self._unreadable_at is not None else None

    def extra_detail(self) -> dict[str, Any]:
        return {
            "cup": self._cup,
            "unreadable": self._unreadable_count,
            "wrong_count": self._wrong_count,
            **super().extra_detail(),
        }


if TYPE_CHECKING:
    from tablectl_drivers.base import Driver

    _conforms: type[Driver] = DiceCupDriver
