"""Helpers the driver test files share: simulators closed at the end, a driver run as the daemon
runs it, and waits on what it reported."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from tablectl_drivers.sim import RecordingSink, StatusReport

TIMEOUT = 5.0
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
    count stands (issue 9)."""
    await until_open(driver, sink)
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)


@contextlib.asynccontextmanager
async def synced(driver: Any, sink: RecordingSink) -> AsyncIterator[asyncio.Task[None]]:
    """`running`, once the driver is synced with its device."""
    async with running(driver, sink) as task:
        await until_synced(driver, sink)
        yield task
