"""The driver interface every device driver implements, and the backoff helper drivers share.

A driver turns a device's bytes into DESIGN contract-2 input events and availability/fault
status; it never knows the game. The daemon constructs it as `cls(name, port, baud, options)` and
awaits `run(sink)` until it cancels the task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

SleepFn = Callable[[float], Awaitable[None]]
"""How a driver waits: `asyncio.sleep` in production, injectable so tests fire retries at once."""


class DriverSink(Protocol):
    """Where a driver delivers what it reads; the daemon journals both kinds of call."""

    async def event(self, event: dict[str, Any]) -> None:
        """One contract-2 input event, e.g. `{"type": "shoe.card", "card": "Ah"}`."""
        ...

    async def status(self, available: bool, fault: str | None, detail: dict[str, Any]) -> None:
        """The device's availability and fault (None when healthy); `detail` is JSON-able."""
        ...


class Driver(Protocol):
    """A device driver: runs until cancelled, reconnects by itself, never raises for line noise."""

    name: str

    def __init__(self, name: str, port: str, baud: int, options: Mapping[str, Any]) -> None: ...

    async def run(self, sink: DriverSink) -> None:
        """Open the port, read, emit events and status; on loss, report it and reconnect."""
        ...


class Backoff:
    """Capped exponential delays (0.2, 0.4, ... up to 5 s by default) between reconnect attempts.

    `next_delay()` returns the delay to use now and advances; `reset()` after a success starts over.
    `wait()` sleeps through the injectable `sleep` so tests can release retries without waiting.
    """

    def __init__(
        self,
        initial: float = 0.2,
        cap: float = 5.0,
        factor: float = 2.0,
        *,
        sleep: SleepFn | None = None,
    ) -> None:
        if initial <= 0 or cap < initial or factor < 1:
            raise ValueError(
                f"backoff needs 0 < initial <= cap and factor >= 1 "
                f"(got initial={initial}, cap={cap}, factor={factor})"
            )
        self.initial = initial
        self.cap = cap
        self.factor = factor
        self._sleep = sleep
        self._next = initial

    def next_delay(self) -> float:
        """The delay before the next attempt; each call doubles the following one up to the cap."""
        delay = self._next
        self._next = min(self._next * self.factor, self.cap)
        return delay

    def reset(self) -> None:
        """Start again from the initial delay (call after a successful connection)."""
        self._next = self.initial

    async def wait(self) -> float:
        """Sleep for `next_delay()` seconds and return how long that was."""
        delay = self.next_delay()
        await (self._sleep or asyncio.sleep)(delay)
        return delay
