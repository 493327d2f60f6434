"""Contract suite for card-reading shoes (docs/protocols/shoe.md): the real ShoeDriver against the
emulator by default, or against a real shoe when TABLECTL_HIL_SHOE_PORT names its port.

A shoe numbers its cards from NEW and answers the driver's resend request (RSN):
every suite's driver asks on connect, so a shoe that does not answer fails the first test.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from hil.contracts.rig import Rig, rig_for, until_available
from tablectl_drivers.shoe.device import FRAMES_LOST, ShoeDriver
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.shoe import SimulatedShoe

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


def position(sink: RecordingSink) -> dict[str, Any]:
    """Where the driver's count stands, as its latest status says."""
    status = sink.last_status
    assert status is not None
    found: dict[str, Any] = status.detail["position"]
    return found


async def until_placed(sink: RecordingSink) -> dict[str, Any]:
    """Wait until the shoe has answered the resend asked on connect (the driver's count has a
    position), and return that position."""
    await sink.wait_for(lambda: position(sink)["pos"] is not None, TIMEOUT)
    return position(sink)


async def test_connects_and_reports_available(sink: RecordingSink) -> None:
    assert sink.statuses[-1].available


async def test_answers_the_resend_asked_on_connect_with_where_it_is(sink: RecordingSink) -> None:
    """On connect the driver sends `RSN,<seq>,-,0` ("where are you?"); the shoe answers RSB,
    RSE with its shoe and last position, and its fault state, within `resend_timeout`."""
    place = await until_placed(sink)
    assert isinstance(place["pos"], int) and place["pos"] >= 0
    status = sink.statuses[-1]
    assert status.detail["resends"] >= 1 and status.detail["resending"] is False
    assert status.fault != FRAMES_LOST
    assert status.detail["bad_frames"] == 0


async def test_new_shoe_then_cards_in_draw_order(rig: Rig, sink: RecordingSink) -> None:
    drawn: list[str] = []
    await until_placed(sink)

    def deal(shoe: SimulatedShoe) -> None:
        shoe.new_shoe(8, seed=3)
        drawn.extend(shoe.draw() for _ in range(4))

    rig.stimulus("put in a new shoe and draw four cards", deal)
    await sink.wait_for(lambda: len(sink.cards) >= 4, timeout=60)
    new = sink.events[0]
    assert new["type"] == "shoe.new" and new["at"]["pos"] == 0  # NEW starts the count
    cards = [e for e in sink.events if e["type"] == "shoe.card"]
    assert [e["at"]["pos"] for e in cards[:4]] == [1, 2, 3, 4]  # numbered from NEW
    assert all(e["at"]["run"] == new["at"]["run"] for e in cards)  # in the shoe NEW named
    if drawn:
        assert sink.cards == drawn
        assert new["at"]["run"] == "1"  # the emulator numbers its shoes 1, 2, ...


async def test_burn_is_not_a_dealt_card(rig: Rig, sink: RecordingSink) -> None:
    rig.stimulus("burn one card", lambda shoe: (shoe.new_shoe(8, seed=4), shoe.burn()))
    await sink.wait_for(lambda: any(e["type"] == "shoe.burn" for e in sink.events), timeout=60)
    assert sink.cards == []
    if not rig.real:  # a burn takes its position like any card
        [burn] = [e for e in sink.events if e["type"] == "shoe.burn"]
        assert burn["at"]["pos"] == 1


async def test_garbage_between_frames_is_survived(rig: Rig, sink: RecordingSink) -> None:
    shoe = rig.emulated_only("line noise cannot be asked of a real shoe")
    shoe.new_shoe(8, seed=5)
    shoe.write_raw(b"\x00\xff noise \r\n$CRD,9,Ah,1*00\r\n")  # the second: a bad checksum
    card = shoe.draw()
    await sink.wait_for(lambda: sink.cards == [card])
    await sink.wait_for(lambda: (sink.statuses[-1].detail.get("bad_frames") or 0) >= 1)


async def test_unplug_is_reported(rig: Rig, sink: RecordingSink) -> None:
    shoe = rig.emulated_only("unplugging needs a person; the emulator's port vanishes")
    shoe.close()
    await sink.wait_for(lambda: not sink.statuses[-1].available)
    assert sink.statuses[-1].fault == "DISCONNECTED"


async def test_a_lost_card_frame_is_resent_at_its_position(rig: Rig, sink: RecordingSink) -> None:
    shoe = rig.emulated_only("losing a frame on the wire cannot be asked of a real shoe")
    await until_placed(sink)
    shoe.new_shoe(8, seed=6)
    first = shoe.draw()
    shoe.drop_next()
    lost = shoe.draw()
    third = shoe.draw()
    await sink.wait_for(lambda: len(sink.cards) == 3)
    cards = [e for e in sink.events if e["type"] == "shoe.card"]
    assert [(e["card"], e["at"]["pos"]) for e in cards] == [(first, 1), (lost, 2), (third, 3)]
    assert sink.statuses[-1].fault != FRAMES_LOST
