"""Contract suite for card-reading shoes (docs/protocols/shoe.md): the real ShoeDriver against the
emulator by default, or against a real shoe when TABLECTL_HIL_SHOE_PORT names its port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest

from drivers.shoe.device import ShoeDriver
from drivers.sim import RecordingSink
from drivers.sim.shoe import SimulatedShoe
from hil.contracts.rig import Rig, rig_for, until_available

pytestmark = pytest.mark.integration


@pytest.fixture
def rig() -> Iterator[Rig]:
    with rig_for("shoe", SimulatedShoe) as r:
        yield r


TIMEOUT = 5.0
"""Seconds to wait for the driver to report the shoe available (emulated or real)."""


@pytest.fixture
async def sink(rig: Rig) -> AsyncIterator[RecordingSink]:
    """The real driver on the rig's port, running until the test ends, once it is available;
    a port that never comes up fails the test with the port's error, as the other suites do."""
    recorded = RecordingSink()
    driver = ShoeDriver("shoe", rig.port, rig.baud, {})
    task = asyncio.create_task(driver.run(recorded))
    try:
        await until_available(recorded, "shoe", rig.port, TIMEOUT)
        yield recorded
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)


async def test_connects_and_reports_available(sink: RecordingSink) -> None:
    assert sink.statuses[-1].available


async def test_new_shoe_then_cards_in_draw_order(rig: Rig, sink: RecordingSink) -> None:
    drawn: list[str] = []

    def deal(shoe: SimulatedShoe) -> None:
        shoe.new_shoe(8, seed=3)
        drawn.extend(shoe.draw() for _ in range(4))

    rig.stimulus("put in a new shoe and draw four cards", deal)
    await sink.wait_for(lambda: len(sink.cards) >= 4, timeout=60)
    assert sink.events[0] == {"type": "shoe.new"}
    if drawn:
        assert sink.cards == drawn


async def test_burn_is_not_a_dealt_card(rig: Rig, sink: RecordingSink) -> None:
    rig.stimulus("burn one card", lambda shoe: (shoe.new_shoe(8, seed=4), shoe.burn()))
    await sink.wait_for(lambda: any(e["type"] == "shoe.burn" for e in sink.events), timeout=60)
    assert sink.cards == []


async def test_garbage_between_frames_is_survived(rig: Rig, sink: RecordingSink) -> None:
    shoe = rig.emulated_only("line noise cannot be asked of a real shoe")
    shoe.new_shoe(8, seed=5)
    shoe.write_raw(b"\x00\xff noise \r\n$CRD,9*00\r\n")
    card = shoe.draw()
    await sink.wait_for(lambda: sink.cards == [card])
    await sink.wait_for(lambda: (sink.statuses[-1].detail.get("bad_frames") or 0) >= 1)


async def test_unplug_is_reported(rig: Rig, sink: RecordingSink) -> None:
    shoe = rig.emulated_only("unplugging needs a person; the emulator's port vanishes")
    shoe.close()
    await sink.wait_for(lambda: not sink.statuses[-1].available)
    assert sink.statuses[-1].fault == "DISCONNECTED"
