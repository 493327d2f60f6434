"""Contract suite for card-reading poker tables (docs/protocols/poker-table.md): the real
PokerTableDriver against the emulator by default, or against a real table when
TABLECTL_HIL_POKER_TABLE_PORT names its port (TABLECTL_HIL_POKER_TABLE_BAUD, default 9600).

A table numbers its placements from each HND and answers the driver's resend request (RSN): the
driver asks on connect, so a table that does not answer fails the first tests. On hardware the
tests that need cards moved ask the person at the rig (TABLECTL_HIL_INTERACTIVE=1) or are
skipped; the line-noise, unplug and lost-frame tests need the emulator and are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

from hil.contracts.rig import Rig, rig_for, until_available
from tablectl_base.events import InputEvent, TableCard
from tablectl_drivers.poker_table.device import DISCONNECTED, FRAMES_LOST, PokerTableDriver
from tablectl_drivers.poker_table.frames import BOARD, seat_zone
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.poker_table import SimulatedPokerTable

pytestmark = pytest.mark.integration

TIMEOUT = 5.0
"""Seconds to wait for the driver to report the table available (emulated or real)."""
PERSON = 120.0
"""Seconds to wait for the person at the rig to do what they were asked."""


@pytest.fixture
def rig() -> Iterator[Rig]:
    with rig_for("poker_table", lambda: SimulatedPokerTable(deck_seed=1)) as r:
        yield r


@pytest.fixture
async def sink(rig: Rig) -> AsyncIterator[RecordingSink]:
    """The real driver on the rig's port, running until the test ends, once it is available."""
    recorded = RecordingSink()
    driver = PokerTableDriver("poker-table", rig.port, rig.baud, {"resend_timeout": 1.0})
    task = asyncio.create_task(driver.run(recorded))
    try:
        await until_available(recorded, "poker table", rig.port, TIMEOUT)
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
    """Wait until the table has answered the resend asked on connect, and return where the
    driver's count stands then."""
    await sink.wait_for(lambda: position(sink)["pos"] is not None, TIMEOUT)
    return position(sink)


def placements(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "table.card"]


async def test_connects_and_reports_available(sink: RecordingSink) -> None:
    assert sink.statuses[-1].available


async def test_answers_the_resend_asked_on_connect_with_where_it_is(sink: RecordingSink) -> None:
    """`RSN,<seq>,-,0` on connect; the table answers RSB, RSE with its hand and last position,
    and its fault state, within `resend_timeout`."""
    place = await until_placed(sink)
    assert isinstance(place["pos"], int) and place["pos"] >= 0
    status = sink.statuses[-1]
    assert status.detail["resends"] >= 1 and status.detail["resending"] is False
    assert status.fault != FRAMES_LOST
    assert status.detail["bad_frames"] == 0


async def test_a_new_hand_numbers_its_placements_from_one(rig: Rig, sink: RecordingSink) -> None:
    """Two hole cards at seat 1 and one board card: three `table.card` events in the order they
    were placed, at positions 1, 2, 3 of one hand, each a valid contract-2 input."""
    await until_placed(sink)
    dealt: list[str] = []

    def play(table: SimulatedPokerTable) -> None:
        table.new_hand()
        dealt.extend(table.deal(seat_zone(1), 2))
        dealt.extend(table.deal(BOARD))

    rig.stimulus("start a new hand, put two cards at seat 1, then one card on the board", play)
    await sink.wait_for(lambda: len(placements(sink)) >= 3, timeout=PERSON)
    first = placements(sink)[:3]
    assert [e["at"]["pos"] for e in first] == [1, 2, 3]
    assert len({e["at"]["run"] for e in first}) == 1
    assert [(e["zone"], e.get("seat")) for e in first] == [
        ("seat", 1),
        ("seat", 1),
        ("board", None),
    ]
    adapter = TypeAdapter(InputEvent)
    assert all(isinstance(adapter.validate_python(e), TableCard) for e in first)
    if dealt:
        assert [e["card"] for e in first] == dealt
        assert first[0]["at"]["run"] == "1"  # the emulator numbers its hands 1, 2, ...


async def test_lifting_cards_and_putting_them_back_is_no_placement(
    rig: Rig, sink: RecordingSink
) -> None:
    """A look at the hole cards (RMV, RTN) reaches no game: the next event is the next card
    placed, at the next position."""
    await until_placed(sink)

    def play(table: SimulatedPokerTable) -> None:
        table.new_hand()
        table.deal(seat_zone(2), 2)
        table.peek(2)
        table.deal(BOARD)

    rig.stimulus(
        "start a new hand, put two cards at seat 2, lift them and put them back, then put one "
        "card on the board",
        play,
    )
    await sink.wait_for(lambda: len(placements(sink)) >= 3, timeout=PERSON)
    got = placements(sink)[:3]
    assert [(e["zone"], e["at"]["pos"]) for e in got] == [("seat", 1), ("seat", 2), ("board", 3)]


async def test_garbage_between_frames_is_survived(rig: Rig, sink: RecordingSink) -> None:
    table = rig.emulated_only("line noise cannot be asked of a real table")
    await until_placed(sink)
    table.new_hand()
    table.write_raw(b"\x00\xff noise \r\n$PLC,9,1,S1,Ah*00\r\n")  # the second: a bad checksum
    [card] = table.deal(BOARD)
    await sink.wait_for(lambda: [e["card"] for e in placements(sink)] == [card])
    await sink.wait_for(lambda: (sink.statuses[-1].detail.get("bad_frames") or 0) >= 1)


async def test_unplug_is_reported(rig: Rig, sink: RecordingSink) -> None:
    table = rig.emulated_only("unplugging needs a person; the emulator's port vanishes")
    table.close()
    await sink.wait_for(lambda: not sink.statuses[-1].available)
    assert sink.statuses[-1].fault == DISCONNECTED


async def test_a_lost_placement_is_resent_at_its_position(rig: Rig, sink: RecordingSink) -> None:
    table = rig.emulated_only("losing a frame on the wire cannot be asked of a real table")
    await until_placed(sink)
    table.new_hand()
    first = table.deal(seat_zone(3))
    table.drop_next()
    lost = table.deal(seat_zone(3))
    third = table.deal(BOARD)
    await sink.wait_for(lambda: len(placements(sink)) == 3)
    got = [(e["card"], e["at"]["pos"]) for e in placements(sink)]
    assert got == [(first[0], 1), (lost[0], 2), (third[0], 3)]
    assert sink.statuses[-1].fault != FRAMES_LOST
