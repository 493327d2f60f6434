"""Capped exponential backoff, shared by the device drivers and the MQTT relay."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

SleepFn = Callable[[float], Awaitable[None]]


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
