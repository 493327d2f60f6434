"""ShoeDriver: reads a card-reading shoe (docs/protocols/shoe.md) and emits contract-2 events.

Connection, framing, SEQ, faults and status are drivers/framed.py's; this module only turns the
shoe's own messages (drivers/shoe/frames.py) into events and tracks whether the shoe is empty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from drivers.base import DriverSink
from drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedDriver,
    FramedOptions,
    withhold_fields,
)
from drivers.shoe.frames import MESSAGES, CardBurned, CardDrawn, NewShoe, ShoeEmpty, ShoeMessage

__all__ = ["DISCONNECTED", "FRAMES_LOST", "SILENT", "ShoeDriver", "ShoeOptions"]

ShoeOptions = FramedOptions
"""The `options` table of a shoe device: the shoe adds none to the common ones."""


class ShoeDriver(FramedDriver[ShoeMessage]):
    """Driver for card-reading shoes: cards, burns, new shoe as events; faults and loss as status.

    `detail.empty` is true from EMP until the next NEW; NEW also clears FRAMES_LOST.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "shoe"
    _empty = False

    def shown_bad_frame(self, raw: bytes) -> str:
        """Only `$TYPE,SEQ`: a garbled frame may hold a hole card (Pure 21.5), and status is
        published."""
        return withhold_fields(raw)

    async def on_frame(self, frame: ShoeMessage, sink: DriverSink) -> None:
        """CRD and BRN become events; NEW resets the shoe's state; EMP marks it empty."""
        if isinstance(frame, CardDrawn):
            await sink.event({"type": "shoe.card", "card": str(frame.card)})
        elif isinstance(frame, CardBurned):
            await sink.event({"type": "shoe.burn", "card": str(frame.card)})
        elif isinstance(frame, NewShoe):
            self._empty = False
            self.clear_frames_lost()
            await sink.event({"type": "shoe.new"})
            await self.report_status(sink, force=True)
        else:
            assert isinstance(frame, ShoeEmpty)
            self._empty = True

    def extra_detail(self) -> dict[str, Any]:
        return {"empty": self._empty}


if TYPE_CHECKING:
    from drivers.base import Driver

    _conforms: type[Driver] = ShoeDriver
