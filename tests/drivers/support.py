"""Helpers the driver test files share: simulators closed at the end, a driver run as the daemon
runs it, waits on what it reported, and a sleep the test releases (for the reconnect backoff)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from tablectl_drivers.sim import RecordingSink, StatusReport

TIMEOUT = 5.0
QUICK = {"resend_timeout": 0.5, "backoff_initial": 0.05, "backoff_max": 0.2}
"""Driver options for tests: a resend given up, and a lost port retried, quickly."""
T = TypeVar("T")


def simulators(cls: Callable[..., T]) -> Iterator[Callable[..., T]]:
    """For a fixture: build simulated devices of `cls`, all unplugged when the test ends."""
    made: list[Any] = []

    def make(**kwargs: Any) -> T:
        sim = cls(**kwargs)
        made.append(sim)
        return sim

    yield make
    for sim in made:
        sim.close()


@contextlib.asynccontextmanager
async def running(driver: Any, sink: RecordingSink) -> AsyncIterator[asyncio.Task[None]]:
    """Run the driver as the daemon would, and cancel it cleanly at the end."""
    task = asyncio.create_task(driver.run(sink))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
        assert task.cancelled(), "run() must only end by cancellation"


def last(sink: RecordingSink) -> StatusReport:
    """The latest status call (there must be one)."""
    status = sink.last_status
    assert status is not None
    return status


async def until_open(driver: Any, sink: RecordingSink, opens: int = 1) -> None:
    """Wait until the driver has opened the port `opens` times and said it is available."""

    def ready() -> bool:
        status = sink.last_status
        return driver.stats["opens"] >= opens and status is not None and status.available

    await sink.wait_for(ready, TIMEOUT)


async def until_synced(driver: Any, sink: RecordingSink) -> None:
    """Open, and the resend asked on connect answered: the driver knows where the device's
    count stands (docs/protocols/envelope.md, "Positions and resend")."""
    await until_open(driver, sink)
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)


@contextlib.asynccontextmanager
async def synced(driver: Any, sink: RecordingSink) -> AsyncIterator[asyncio.Task[None]]:
    """`running`, once the driver is synced with its device."""
    async with running(driver, sink) as task:
        await until_synced(driver, sink)
        yield task


def jittered(delays: list[float], ceilings: list[float]) -> bool:
    """Each reconnect delay is in [ceiling/2, ceiling] (equal jitter, tablectl_base.backoff)."""
    return len(delays) == len(ceilings) and all(
        c / 2 <= d <= c for d, c in zip(delays, ceilings, strict=True)
    )


class ManualSleep:
    """An injected sleep: records each delay and returns only when the test releases it."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self._permits = asyncio.Semaphore(0)
        self._changed = asyncio.Event()

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        self._changed.set()
        await self._permits.acquire()

    def release(self) -> None:
        self._permits.release()

    async def wait_calls(self, n: int) -> None:
        async def until() -> None:
            while len(self.delays) < n:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(until(), TIMEOUT)
