"""ShoeDriver: reads a card-reading shoe (docs/protocols/shoe.md) and emits contract-2 events.

Connection, framing, SEQ, faults and status are tablectl_drivers/framed.py's; this module only turns
the shoe's own messages (tablectl_drivers/shoe/frames.py) into events and tracks whether the shoe is
empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from tablectl_drivers.base import DriverSink
from tablectl_drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedOptions,
    withhold_fields,
)
from tablectl_drivers.positioned import PositionedDriver, PositionedOptions
from tablectl_drivers.shoe.frames import (
    MESSAGES,
    CardBurned,
    CardDrawn,
    NewShoe,
    ShoeEmpty,
    ShoeMessage,
)

__all__ = ["DISCONNECTED", "FRAMES_LOST", "SILENT", "ShoeDriver", "ShoeOptions"]

ShoeOptions = PositionedOptions
"""The `options` table of a shoe device: the shoe adds none to the positioned device's."""


class ShoeDriver(PositionedDriver[ShoeMessage]):
    """Driver for card-reading shoes: cards, burns, new shoes as events with their positions;
    faults and loss as status.

    `detail.empty` is true from EMP until the next NEW.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "shoe"
    options_class: ClassVar[type[FramedOptions]] = PositionedOptions
    _empty = False

    def shown_bad_frame(self, raw: bytes) -> str:
        """Only `$TYPE,SEQ`: a garbled frame may hold a hole card (Pure 21.5), and status is
        published."""
        return withhold_fields(raw)

    def run_started(self, frame: ShoeMessage) -> str | None:
        return frame.shoe if isinstance(frame, NewShoe) else None

    def position_of(self, frame: ShoeMessage) -> int | None:
        return frame.pos if isinstance(frame, CardDrawn | CardBurned) else None

    async def emit(self, frame: ShoeMessage, at: dict[str, Any], sink: DriverSink) -> None:
        """CRD and BRN become `shoe.card` and `shoe.burn`, NEW `shoe.new`, each with `at`."""
        if isinstance(frame, CardDrawn):
            await sink.event({"type": "shoe.card", "card": str(frame.card), "at": at})
        elif isinstance(frame, CardBurned):
            await sink.event({"type": "shoe.burn", "card": str(frame.card), "at": at})
        elif isinstance(frame, NewShoe):
            self._empty = False
            await sink.event({"type": "shoe.new", "at": at})
            await self.report_status(sink, force=True)

    async def on_other(self, frame: ShoeMessage, sink: DriverSink) -> None:
        """EMP marks the shoe empty until the next NEW."""
        if isinstance(frame, ShoeEmpty):
            self._empty = True

    def extra_detail(self) -> dict[str, Any]:
        return {"empty": self._empty, **super().extra_detail()}


if TYPE_CHECKING:
    from tablectl_drivers.base import Driver

    _conforms: type[Driver] = ShoeDriver
