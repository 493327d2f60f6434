"""Capped exponential backoff with equal jitter, shared by the device drivers, the daemon's
driver restarts and the MQTT relay.

Jitter matters for the relay: after a broker outage every table of a floor would otherwise
retry at the same instants (0.5 s, 1 s, 2 s, ... after the link dropped), a reconnect storm in
lockstep. Equal jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015) draws
each delay from [ceiling/2, ceiling], where the ceiling is the capped exponential: the tables
spread over half of each step, a delay never exceeds the cap, and never falls below half the
ceiling, so a failing peer is never retried in a tight loop (full jitter may draw ~0).
"""

from __future__ import annotations

import asyncio
import random as _random
from collections.abc import Awaitable, Callable

SleepFn = Callable[[float], Awaitable[None]]
RandomFn = Callable[[], float]
"""A source of numbers in [0, 1]: `random.Random().random` by default, a fixed one in tests."""


def equal_jitter(ceiling: float, draw: float) -> float:
    """The delay for `ceiling` and a draw in [0, 1]: ceiling/2 + draw * ceiling/2.

    A draw outside [0, 1] is a broken random source, not a delay to clamp: ValueError.
    """
    if not 0.0 <= draw <= 1.0:
        raise ValueError(f"a backoff draw must be in [0, 1] (got {draw!r})")
    half = ceiling / 2
    return half + draw * half


class Backoff:
    """Capped exponential delays with equal jitter between reconnect attempts.

    The ceilings go initial, initial*factor, ... up to `cap` (0.2, 0.4, ... 5 s by default); each
    delay is drawn from [ceiling/2, ceiling] (`equal_jitter`). `next_delay()` returns the delay
    to use now and advances; `reset()` after a success starts over. `wait()` sleeps through the
    injectable `sleep` so tests can release retries without waiting. `random` is the injectable
    draw: by default each Backoff has its own `random.Random()`, seeded from the OS, so two
    processes (two tables) never share a sequence.
    """

    def __init__(
        self,
        initial: float = 0.2,
        cap: float = 5.0,
        factor: float = 2.0,
        *,
        sleep: SleepFn | None = None,
        random: RandomFn | None = None,
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
        self._random = random if random is not None else _random.Random().random
        self._next = initial

    def next_delay(self) -> float:
        """The delay before the next attempt, drawn below the current ceiling; each call
        doubles the following ceiling up to the cap."""
        ceiling = self._next
        self._next = min(self._next * self.factor, self.cap)
        return equal_jitter(ceiling, self._random())

    def reset(self) -> None:
        """Start again from the initial ceiling (call after a successful connection)."""
        self._next = self.initial

    async def wait(self) -> float:
        """Sleep for `next_delay()` seconds and return how long that was."""
        delay = self.next_delay()
        await (self._sleep or asyncio.sleep)(delay)
        return delay
