"""Contract suite for shufflers and hand dispensers: what any device on those drivers must do.

Runs against SimulatedDispenser on a pty by default, and against a real device when
`TABLECTL_HIL_DISPENSER_PORT` names its port (`TABLECTL_HIL_DISPENSER_BAUD`, default 9600).
`TABLECTL_HIL_DISPENSER_DRIVER` picks the driver (`shuffler`, the default, or `hand-dispenser`)
and `TABLECTL_HIL_DISPENSER_OPTIONS` its options as JSON (e.g. `{"stack_size": [2, 5]}`). On
hardware the dispensing tests ask the person at the rig (`TABLECTL_HIL_INTERACTIVE=1`) or are
skipped; the line-noise and unplug tests need the emulator and are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from drivers.dispenser.device import DISCONNECTED, WRONG_COUNT, DispenserDriver
from drivers.dispenser.messages import DECK_COLOUR
from drivers.registry import load_driver
from drivers.sim import RecordingSink, StatusReport
from drivers.sim.dispenser import SimulatedDispenser
from hil.contracts.rig import Rig, rig_for, until_available
from tablectl.cards import parse_card

pytestmark = pytest.mark.integration

TIMEOUT = 5.0
"""Seconds to wait for an emulator, or for a real device to do what it does by itself."""
PERSON = 120.0
"""Seconds to wait for the person at the rig to do what they were asked."""
DRIVER_NAME = os.environ.get("TABLECTL_HIL_DISPENSER_DRIVER", "shuffler")
OPTIONS: dict[str, Any] = json.loads(os.environ.get("TABLECTL_HIL_DISPENSER_OPTIONS", "{}"))


def driver_class() -> type[DispenserDriver]:
    cls = load_driver(DRIVER_NAME)
    assert isinstance(cls, type) and issubclass(cls, DispenserDriver), (
        f"{DRIVER_NAME!r} is not a shuffler / hand dispenser driver"
    )
    return cls


def make_emulator() -> SimulatedDispenser:
    """The emulated device, configured like the driver under test, with a shuffled deck in it."""
    options = driver_class()("emulator", "-", 9600, OPTIONS).options
    emulator = SimulatedDispenser(
        stack_size=options.stack_sizes[-1], joker=options.joker, shuffle_seed=40
    )
    emulator.shuffle(announce=False)
    return emulator


@pytest.fixture
def rig() -> Iterator[Rig]:
    with rig_for("dispenser", make_emulator) as the_rig:
        yield the_rig


@pytest.fixture
async def device(rig: Rig) -> AsyncIterator[tuple[DispenserDriver, RecordingSink]]:
    """The real driver on the rig's port, running until the test ends, once it is available."""
    sink = RecordingSink()
    driver = driver_class()(DRIVER_NAME, rig.port, rig.baud, {**OPTIONS, "status_interval": 0})
    task = asyncio.create_task(driver.run(sink))
    try:
        await until_available(sink, DRIVER_NAME, rig.port, TIMEOUT)
        yield driver, sink
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)


def last(sink: RecordingSink) -> StatusReport:
    """The latest status (a never-reporting driver counts as unavailable)."""
    return sink.last_status or StatusReport(False, None)


def stack_events(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e.get("type") == "shuffler.stack"]


def patience(rig: Rig) -> float:
    return PERSON if rig.real else TIMEOUT


async def test_it_connects_and_reports_itself_available(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    driver, sink = device
    status = last(sink)
    assert status.available
    assert status.fault != DISCONNECTED
    assert status.detail["port"] == rig.port
    assert driver.stats["opens"] == 1


async def test_a_stack_arrives_as_one_event_with_the_right_number_of_cards(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    driver, sink = device
    rig.stimulus("dispense one stack", lambda emu: emu.dispense())
    await sink.wait_for(lambda: bool(stack_events(sink)), patience(rig))
    [event] = stack_events(sink)
    assert len(event["cards"]) in driver.options.stack_sizes
    assert all(str(parse_card(c)) == c for c in event["cards"])  # canonical cards
    assert len(set(event["cards"])) == len(event["cards"])  # one deck: no card twice
    assert last(sink).fault != WRONG_COUNT
    assert driver.stats["bad_frames"] == 0  # everything it sent decoded


async def test_a_shuffle_sets_the_deck_colour_of_the_stacks_after_it(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    _, sink = device

    def emulate(emu: SimulatedDispenser) -> None:
        emu.shuffle("blue")
        emu.dispense()

    rig.stimulus("run a shuffle, then dispense one stack", emulate)
    await sink.wait_for(lambda: bool(stack_events(sink)), patience(rig))
    deck = last(sink).detail["deck"]
    assert deck is not None, "the device said no deck colour in its shuffle-done (SHF)"
    assert DECK_COLOUR.fullmatch(deck)
    assert stack_events(sink)[-1]["deck"] == deck
    if not rig.real:
        assert deck == "blue"


async def test_line_noise_is_survived(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("line noise cannot be ordered from a real device")
    _, sink = device
    emu.write_raw(b"\x00\xff noise \r\n")
    emu.write_raw(b"$STK,9,3,Ah,Kd*40\r\n")  # a well-formed frame whose count is wrong
    cards = emu.dispense()
    await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    await sink.wait_for(lambda: len(stack_events(sink)) == 1, TIMEOUT)
    assert stack_events(sink)[0]["cards"] == cards
    status = last(sink)
    assert status.available and status.fault is None
    assert "Kd" not in json.dumps(status.detail)  # no card of a bad frame is published


async def test_unplug_is_reported(rig: Rig, device: tuple[DispenserDriver, RecordingSink]) -> None:
    emu = rig.emulated_only("a real device cannot be unplugged by the suite")
    _, sink = device
    emu.close()
    await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    status = last(sink)
    assert status.available is False
    assert status.detail["error"].startswith(f"lost {rig.port}")
