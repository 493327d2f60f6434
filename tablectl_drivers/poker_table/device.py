"""PokerTableDriver: reads a card-reading poker table (docs/protocols/poker-table.md).

Connection, framing, SEQ, FLT/CLR and status are tablectl_drivers/framed.py's; positions,
resends and gaps are tablectl_drivers/positioned.py's (a hand is a run, a placement's number
since the hand began its position), as for the shuffler. This module only decides what the
table's own messages become: each placement the input event `table.card` with its zone, its
seat for a hole card, the card and its place (`at`); a new hand no event (the table takes the
first placement of a new hand as its start, as it does a shuffler's first stack); removals and
returns nothing but a log line and a counter. A placement at a seat past option `seats` is
still emitted (the game engine refuses it) and shown as fault UNKNOWN_SEAT until the next hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tablectl_drivers.base import DriverSink
from tablectl_drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedOptions,
    withhold_fields,
)
from tablectl_drivers.poker_table.frames import (
    MAX_SEATS,
    MESSAGES,
    CardPlaced,
    CardRemoved,
    CardReturned,
    NewHand,
    PokerTableMessage,
)
from tablectl_drivers.positioned import PositionedDriver, PositionedOptions

__all__ = [
    "DISCONNECTED",
    "FRAMES_LOST",
    "SILENT",
    "UNKNOWN_SEAT",
    "PokerTableDriver",
    "PokerTableOptions",
]

UNKNOWN_SEAT = "UNKNOWN_SEAT"
"""Fault from a placement at a seat past option `seats` until the next hand (HND)."""


@dataclass(frozen=True)
class PokerTableOptions(PositionedOptions):
    """The positioned device's options plus `seats`, the seats the table in the config has."""

    seats: int = MAX_SEATS
    """Seats in play, 1..MAX_SEATS: a hole card read at a seat past them is UNKNOWN_SEAT."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "seats":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEATS:
                raise ValueError(f"option 'seats' must be an integer 1..{MAX_SEATS}, not {value!r}")
            return value
        return super().check_option(key, value)


class PokerTableDriver(PositionedDriver[PokerTableMessage]):
    """Driver for card-reading poker tables: placements as `table.card` events with their
    positions; removals logged; faults and loss as status.

    `detail.unknown_seat` counts placements at a seat past option `seats` (since the driver
    started) and `detail.last_unknown_seat` is `{"hand", "pos", "seat"}` of the latest one.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "poker_table"
    options_class: ClassVar[type[FramedOptions]] = PokerTableOptions
    options: PokerTableOptions

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unknown_now = False
        self._last_unknown: dict[str, Any] | None = None
        self._judged: set[tuple[str | None, int]] = set()  # placements judged this hand
        for key in ("unknown_seat", "removed", "returned"):
            self.stats[key] = 0

    def run_started(self, frame: PokerTableMessage) -> str | None:
        return frame.hand if isinstance(frame, NewHand) else None

    def position_of(self, frame: PokerTableMessage) -> int | None:
        return frame.pos if isinstance(frame, CardPlaced) else None

    async def emit(self, frame: PokerTableMessage, at: dict[str, Any], sink: DriverSink) -> None:
        """PLC becomes `table.card`; HND is no event (contract 2 has none: the hand travels on
        the placements' `at.run`): it ends UNKNOWN_SEAT and makes one status report, as a
        shoe's NEW does, so the status says which hand the table is in."""
        if isinstance(frame, NewHand):
            self._unknown_now = False
            self._judged = set()
            self._log.info(f"{self.log_prefix}.hand", hand=frame.hand, seq=frame.seq)
            await self.report_status(sink, force=True)  # `position` shows the new hand at 0
        elif isinstance(frame, CardPlaced):
            self._judge(frame, at)
            event: dict[str, Any] = {"type": "table.card", "zone": frame.zone.kind}
            if frame.zone.seat is not None:
                event["seat"] = frame.zone.seat
            event["card"] = str(frame.card)
            event["at"] = at
            await sink.event(event)

    def _judge(self, frame: CardPlaced, at: dict[str, Any]) -> None:
        """A hole card at a seat the table does not have: shown as UNKNOWN_SEAT, once per
        placement (a repeat of one already judged changes nothing)."""
        run, pos = at.get("run"), at["pos"]
        if (run, pos) in self._judged:
            return
        self._judged.add((run, pos))
        seat = frame.zone.seat
        self._unknown_now = seat is not None and seat > self.options.seats
        if self._unknown_now:
            self.stats["unknown_seat"] += 1
            self._last_unknown = {"hand": run, "pos": pos, "seat": seat}
            self._log.warning(
                f"{self.log_prefix}.unknown_seat",
                seq=frame.seq,
                seats=self.options.seats,
                **self._last_unknown,
            )

    async def on_other(self, frame: PokerTableMessage, sink: DriverSink) -> None:
        """RMV and RTN carry no position and are no input: logged (without the card, which may
        be a hole card) and counted, never journaled."""
        if isinstance(frame, CardRemoved | CardReturned):
            what = "removed" if isinstance(frame, CardRemoved) else "returned"
            self.stats[what] += 1
            self._log.info(
                f"{self.log_prefix}.{what}", zone=frame.zone.field, hand=self._run, seq=frame.seq
            )

    def device_fault(self) -> str | None:
        return UNKNOWN_SEAT if self._unknown_now else None

    def extra_detail(self) -> dict[str, Any]:
        detail: dict[str, Any] = {"unknown_seat": self.stats["unknown_seat"]}
        if self._last_unknown is not None:
            detail["last_unknown_seat"] = dict(self._last_unknown)
        return {**detail, **super().extra_detail()}

    def shown_bad_frame(self, raw: bytes) -> str:
        """Only `$TYPE,SEQ` of a bad frame: the rest may be a hole card, and status is public."""
        return withhold_fields(raw)


if TYPE_CHECKING:
    from tablectl_drivers.base import Driver

    _conforms: type[Driver] = PokerTableDriver
