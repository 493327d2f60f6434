"""DiceCupDriver: reads a dice-cup sensor (docs/protocols/dice.md) and emits `dice.roll` events.

Connection, framing, SEQ, FLT/CLR and status are drivers/framed.py's. This module decides what a
reading becomes: a fully read one is passed on as read (the game engine, not the driver, refuses
a wrong number of dice), one with an unreadable die is withheld and shown as fault UNREADABLE
until the next readable roll; the cup's position is status detail, and closing it clears
FRAMES_LOST.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from drivers.base import DriverSink
from drivers.dice.messages import MESSAGES, CupMoved, DiceMessage, DiceReading
from drivers.framed import DISCONNECTED, FRAMES_LOST, SILENT, FramedDriver, FramedOptions

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
"""Fault from a reading with an unreadable die until the next fully read one (dealer re-shakes)."""
MAX_DICE = 5
"""Most dice a cup may be configured for."""


@dataclass(frozen=True)
class DiceOptions(FramedOptions):
    """The common options plus `dice`: how many dice the table's cup holds (Fortune Pai Gow: 3)."""

    dice: int = 3
    """Readings with another number of dice are still emitted, and counted as `wrong_count`."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "dice":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DICE:
                raise ValueError(f"option 'dice' must be an integer 1..{MAX_DICE}, not {value!r}")
            return value
        return super().check_option(key, value)


class DiceCupDriver(FramedDriver[DiceMessage]):
    """Driver for dice-cup sensors: readings as `dice.roll` events, cup and misreads as status.

    `detail.cup` is "lifted", "closed" or None (not yet told); `detail.unreadable` and
    `detail.wrong_count` count withheld readings and readings with the wrong number of dice.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "dice"
    options_class: ClassVar[type[FramedOptions]] = DiceOptions
    options: DiceOptions

    _cup: str | None = None
    _unreadable_now = False
    _unreadable_count = 0
    _wrong_count = 0

    async def on_frame(self, frame: DiceMessage, sink: DriverSink) -> None:
        """DIC becomes a `dice.roll` event if every die was read; CUP updates the cup's state."""
        if isinstance(frame, DiceReading):
            values = frame.values
            if values is None:
                self._unreadable_now = True
                self._unreadable_count += 1
                shown = ",".join("?" if d is None else str(d) for d in frame.dice)
                self._log.warning(f"{self.log_prefix}.unreadable", seq=frame.seq, dice=shown)
                return
            self._unreadable_now = False
            if len(values) != self.options.dice:
                self._wrong_count += 1
                self._log.warning(
                    f"{self.log_prefix}.wrong_count",
                    seq=frame.seq,
                    expected=self.options.dice,
                    dice=list(values),
                )
            await sink.event({"type": "dice.roll", "dice": list(values)})
        else:
            assert isinstance(frame, CupMoved)
            self._cup = "lifted" if frame.lifted else "closed"
            if not frame.lifted:
                self.clear_frames_lost()  # a closed cup starts a fresh shake: nothing is missing

    def device_fault(self) -> str | None:
        return UNREADABLE if self._unreadable_now else None

    def extra_detail(self) -> dict[str, Any]:
        return {
            "cup": self._cup,
            "unreadable": self._unreadable_count,
            "wrong_count": self._wrong_count,
        }


if TYPE_CHECKING:
    from drivers.base import Driver

    _conforms: type[Driver] = DiceCupDriver
