"""The driver interface every device driver implements, and the backoff helper drivers share.

A driver turns a device's bytes into DESIGN contract-2 input events and availability/fault
status; it never knows the game. The daemon constructs it as `cls(name, port, baud, options)` and
awaits `run(sink)` until it cancels the task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from tablectl_base.backoff import Backoff, SleepFn

__all__ = ["Backoff", "DisplayDriver", "Driver", "DriverSink", "FrameClock", "SleepFn"]
"""How a driver waits: `asyncio.sleep` in production, injectable so tests fire retries at once."""


class DriverSink(Protocol):
    """Where a driver delivers what it reads; the daemon journals both kinds of call."""

    async def event(self, event: dict[str, Any]) -> None:
        """One contract-2 input event, e.g. `{"type": "shoe.card", "card": "Ah"}`."""
        ...

    async def status(self, available: bool, fault: str | None, detail: dict[str, Any]) -> None:
        """The device's availability and fault (None when healthy); `detail` is JSON-able."""
        ...

    def cursor(self) -> dict[str, Any] | None:
        """Where the journal says this device's count stands (`run`, `pos`, `seq`), or None:
        a positioned driver asks the device to resend from there on every (re)connect."""
        ...


class Driver(Protocol):
    """A device driver: runs until cancelled, reconnects by itself, never raises for line noise."""

    name: str

    def __init__(self, name: str, port: str, baud: int, options: Mapping[str, Any]) -> None: ...

    async def run(self, sink: DriverSink) -> None:
        """Open the port, read, emit events and status; on loss, report it and reconnect."""
        ...


@runtime_checkable
class DisplayDriver(Driver, Protocol):
    """A driver for an output device that shows `display/<view>` payloads (the EZTRAK, R28).

    The daemon hands it every `display/<view>` message, and the latest of each again after a
    restart; `update` only stores and must never block, drawing is the driver's own business.
    """

    views: tuple[str, ...]
    """The display views it shows; `update` ignores the others."""

    def update(self, view: str, payload: Mapping[str, Any]) -> None:
        """The latest payload of `view`; synchronous, never blocks, never raises."""
        ...


@runtime_checkable
class FrameClock(Protocol):
    """A driver that can say how long ago its device last sent something it could read: `tablectl
    status` shows each device's age of last frame (docs/operations.md "Is the table running?"),
    which tells a silent device from a quiet table. Optional: a driver without it shows no age."""

    def frame_age(self) -> float | None:
        """Seconds since the last valid frame (a line, for a line device) came from the device,
        by the driver's own clock; None while none has come since the driver started."""
        ...
