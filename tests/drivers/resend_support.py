"""Helpers for driver tests of positioned devices (tablectl_drivers/positioned.py): a null modem
whose device end hears the host's resend request and answers it, and a wait for a resend's answer to
have been read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.history import HistoryModel
from tablectl_drivers.sim.nullmodem import Fragmenter, NullModem
from tests.drivers.support import TIMEOUT

M = TypeVar("M", bound=HistoryModel)


class AnsweringModem(NullModem, Generic[M]):
    """A NullModem with a simulated device at its far end that hears what the host writes (the
    driver's RSN) and answers, as a device on a real cable does.

    `make(write)` builds the device model on the modem's `write`; it is `self.model`, kept
    across unplug and plug (the same device on the same cable).
    """

    def __init__(
        self,
        make: Callable[[Callable[[bytes], None]], M],
        *,
        fragment: Fragmenter | None = None,
    ) -> None:
        super().__init__(fragment=fragment)
        self.model = make(self.write)

    async def connect(
        self, factory: Callable[[], asyncio.Protocol], url: str, baud: int
    ) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
        opened = await super().connect(factory, url, baud)
        end = self.device_end
        model = self.model

        def heard(data: bytes) -> None:
            end.received += data
            model.receive(data)

        end.data_received = heard  # type: ignore[method-assign]
        return opened


async def until_answered(sink: RecordingSink, resends: int = 1) -> None:
    """Until a status says the driver's `resends`-th RSN is over: its RSE read (or the resend
    given up). The driver reports `resending` going false, a status the sink sees, unlike the
    driver's own flags, so the wait wakes when it comes."""

    def answered() -> bool:
        status = sink.last_status
        return (
            status is not None
            and status.detail.get("resends", 0) >= resends
            and status.detail.get("resending") is False
        )

    await sink.wait_for(answered, TIMEOUT)
