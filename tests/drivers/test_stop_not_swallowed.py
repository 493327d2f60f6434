"""A driver stops when it is cancelled, even when input arrives in the same loop turn.

Python 3.11's `asyncio.wait_for` returns the inner result instead of raising when a
cancellation arrives just as the inner awaitable completes (CPython gh-86296, fixed in 3.12 by
rewriting it on `asyncio.timeout`). A driver that waited that way kept running after the
daemon's stop, and the daemon's shutdown then waited on it for ever (the hang an audit saw in
tests/integration/test_whole_table.py::test_shoe_and_eztrak_display_R28). DESIGN shape 5: the
shell "shuts down cleanly on SIGTERM", which needs every driver to end when cancelled.

Each test makes the input and the cancellation land in the same loop turn, for several
interleavings, over the in-memory null modem (real Link, real driver code). Every positioned
device's driver is held to it in test_device_contract.py; here are the EZTRAK talker, the line
driver and a talker that swallows its first cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tablectl.games.baccarat.eztrak import display_payload
from tablectl_drivers.eztrak.device import EztrakDisplayDriver
from tablectl_drivers.line.device import LineDriver
from tablectl_drivers.link import open_link
from tablectl_drivers.shoe.device import ShoeDriver
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.nullmodem import NullModem

STOP = 2.0
"""Seconds a cancelled driver may take to end (it needs a few loop turns, not seconds)."""
LIMITS = {"min": "5.00", "max": "500.00"}


async def ended_by_cancel(task: asyncio.Task[None]) -> bool:
    """Whether `task`, cancelled, ends within STOP seconds as cancelled."""
    done, _ = await asyncio.wait([task], timeout=STOP)
    if not done:
        task.cancel()  # the bug's task swallowed one cancel; end it for the next case
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, STOP)
        return False
    return task.cancelled()


@pytest.mark.parametrize("turns", [0, 1, 2])
async def test_the_eztrak_talker_stops_when_an_update_arrives_as_it_is_cancelled(
    turns: int,
) -> None:
    """`while_connected` is cancelled when the connection ends (tablectl_drivers/framed.py); an
    update landing as it waits for the display's answer must not keep it sending."""
    modem = NullModem()
    driver = EztrakDisplayDriver("eztrak", "null", 9600, {"ack_timeout": 30}, connect=modem.connect)
    link = await open_link("null", 9600, modem.connect)
    first = display_payload([], None, LIMITS, None, 1)
    driver.update("eztrak", first)
    talker = asyncio.create_task(driver.while_connected(link, RecordingSink()))
    while not modem.device_end.received:  # the screen is out: it now waits for the answer
        await asyncio.sleep(0)
    for _ in range(turns):
        await asyncio.sleep(0)
    driver.update("eztrak", display_payload([], None, LIMITS, 25, 2))
    talker.cancel()
    try:
        assert await ended_by_cancel(talker), f"the talker ran on after its stop ({turns} turns)"
    finally:
        await link.aclose()


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_the_line_driver_stops_when_a_line_arrives_as_it_is_cancelled(turns: int) -> None:
    """The line driver's timed wait (an unmatched line's report is due) meets a good line."""
    modem = NullModem()
    sink = RecordingSink()
    options = {"messages": [{"pattern": "^SHUFFLE$", "event": "shoe.new"}]}
    driver = LineDriver("shoe", "null", 9600, options, connect=modem.connect)
    task = asyncio.create_task(driver.run(sink))
    await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
    modem.write(b"junk\r\n")  # its report waits for the status interval: a timed read
    while driver.stats["unmatched"] == 0:
        await asyncio.sleep(0)
    modem.write(b"SHUFFLE\r\n")
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    assert await ended_by_cancel(task), f"the line driver ran on after its stop ({turns} turns)"


class _StubbornTalker(ShoeDriver):
    """A driver whose `while_connected` swallows its first cancellation and takes a while to end
    (a vendor driver doing cleanup), to see the connection never outlives it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.talker_ended = asyncio.Event()

    async def while_connected(self, link: object, sink: object) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)  # swallowed: cleanup that ignores the stop
        finally:
            self.talker_ended.set()


async def test_a_driver_cancelled_twice_still_waits_for_its_talker_to_end() -> None:
    """The daemon cancels a driver, then again while the driver waits for its talker (the
    daemon's own re-cancel, tablectl/daemon/supervision.py `_cancel_and_wait`): the driver
    still lets its talker end before it stops, so no talker outlives the daemon's shutdown."""
    modem = NullModem()
    sink = RecordingSink()
    driver = _StubbornTalker("shoe", "null", 9600, {}, connect=modem.connect)
    task = asyncio.create_task(driver.run(sink))
    await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
    task.cancel()
    await asyncio.sleep(0.05)
    task.cancel()  # the second stop arrives while the driver waits for the talker
    done, _ = await asyncio.wait([task], timeout=STOP)
    assert done and task.cancelled()
    assert driver.talker_ended.is_set()
