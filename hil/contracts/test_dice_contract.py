"""Contract suite for the dice-cup sensor: what any cup on the `dice-cup` driver must do.

Runs against SimulatedDice on a pty by default, and against a real cup when
`TABLECTL_HIL_DICE_PORT` names its port (`TABLECTL_HIL_DICE_BAUD`, default 9600). On hardware the
shake and cup tests ask the person at the rig (`TABLECTL_HIL_INTERACTIVE=1`) or are skipped;
the line-noise and unplug tests need the emulator and are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator

import pytest

from hil.contracts.rig import Rig, rig_for, until_available
from tablectl_drivers.dice.device import DISCONNECTED, FRAMES_LOST, DiceCupDriver
from tablectl_drivers.sim import RecordingSink, StatusReport
from tablectl_drivers.sim.dice import SimulatedDice

TIMEOUT = 5.0
"""Seconds to wait for an emulator, or for a real device to do what it does by itself."""
PERSON = 120.0
"""Seconds to wait for the person at the rig to do what they were asked."""


def make_emulator() -> SimulatedDice:
    """The emulated cup: three dice, reproducible rolls."""
    return SimulatedDice(dice=3, roll_seed=30)


@pytest.fixture
def rig() -> Iterator[Rig]:
    with rig_for("dice", make_emulator) as the_rig:
        yield the_rig


@pytest.fixture
async def cup(rig: Rig) -> AsyncIterator[tuple[DiceCupDriver, RecordingSink]]:
    """The real driver on the rig's port, running until the test ends, once it is available."""
    sink = RecordingSink()
    driver = DiceCupDriver("dice", rig.port, rig.baud, {"status_interval": 0})
    task = asyncio.create_task(driver.run(sink))
    try:
        await until_available(sink, "dice cup", rig.port, TIMEOUT)
        yield driver, sink
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)


def last(sink: RecordingSink) -> StatusReport:
    """The latest status (a never-reporting driver counts as unavailable)."""
    return sink.last_status or StatusReport(False, None)


def rolls(sink: RecordingSink) -> list[list[int]]:
    return [e["dice"] for e in sink.events if e.get("type") == "dice.roll"]


def patience(rig: Rig) -> float:
    return PERSON if rig.real else TIMEOUT


async def test_it_connects_and_reports_itself_available(
    rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]
) -> None:
    driver, sink = cup
    status = last(sink)
    assert status.available
    assert status.fault != DISCONNECTED
    assert status.detail["port"] == rig.port
    assert driver.stats["opens"] == 1


async def test_it_answers_the_resend_asked_on_connect_with_its_roll_count(
    rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]
) -> None:
    """On connect the driver asks `RSN,<seq>,-,0` ("where are you?"); the cup must
    answer RSB, RSE with `-` and the number of the last roll it read, and its fault state, in
    time, or the driver stands FRAMES_LOST."""
    driver, sink = cup
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)
    position = last(sink).detail["position"]
    assert position["run"] is None  # a cup has no runs
    assert isinstance(position["pos"], int) and position["pos"] >= 0
    assert driver.stats["resends"] >= 1
    assert last(sink).fault != FRAMES_LOST
    assert driver.stats["bad_frames"] == 0


async def test_a_shake_yields_one_roll_of_three_dice_with_the_next_roll_number(
    rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]
) -> None:
    driver, sink = cup
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)
    before = last(sink).detail["position"]["pos"]

    def emulate(emu: SimulatedDice) -> None:
        emu.close_cup()
        emu.shake()
        emu.lift()

    rig.stimulus("close the cup, shake it once, then lift it", emulate)
    await sink.wait_for(
        lambda: bool(rolls(sink)) and last(sink).detail["cup"] == "lifted", patience(rig)
    )
    [dice] = rolls(sink)
    assert len(dice) == 3
    assert all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
    [event] = [e for e in sink.events if e.get("type") == "dice.roll"]
    assert event["at"]["pos"] == before + 1 and "run" not in event["at"]
    assert driver.stats["bad_frames"] == 0  # everything it sent decoded


async def test_the_cup_lifted_and_closed_shows_in_status(
    rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]
) -> None:
    _, sink = cup
    rig.stimulus("lift the cup", lambda emu: emu.lift())
    await sink.wait_for(lambda: last(sink).detail["cup"] == "lifted", patience(rig))
    rig.stimulus("put the cup down, closed", lambda emu: emu.close_cup())
    await sink.wait_for(lambda: last(sink).detail["cup"] == "closed", patience(rig))
    assert last(sink).available


async def test_line_noise_is_survived(rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]) -> None:
    emu = rig.emulated_only("line noise cannot be ordered from a real cup")
    _, sink = cup
    emu.write_raw(b"\x00\xff noise \r\n")
    emu.write_raw(b"$DIC,8,17,3,7,6*6E\r\n")  # a well-formed frame with a die no die can show
    dice = emu.shake()
    await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    await sink.wait_for(lambda: len(rolls(sink)) == 1, TIMEOUT)
    assert rolls(sink) == [list(dice)]
    status = last(sink)
    assert status.available and status.fault is None


async def test_unplug_is_reported(rig: Rig, cup: tuple[DiceCupDriver, RecordingSink]) -> None:
    emu = rig.emulated_only("a real cup cannot be unplugged by the suite")
    _, sink = cup
    emu.close()
    await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    status = last(sink)
    assert status.available is False
    assert status.detail["error"].startswith(f"lost {rig.port}")
