"""Contract suite for the EZTRAK display: what any display on the `eztrak` driver must do.

Runs against SimulatedEztrak on a pty by default, and against a real display when
`TABLECTL_HIL_EZTRAK_PORT` names its port (`TABLECTL_HIL_EZTRAK_BAUD`, default 9600). On
hardware the checks are that it connects and ACKs a screen; whether it shows the screen right
is asked of the person at the rig (`TABLECTL_HIL_INTERACTIVE=1`, answered on the terminal) or
skipped. NAK, silence, line noise and unplugging need the emulator and are skipped on hardware.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from hil.contracts.rig import Rig, rig_for, until_available
from tablectl.games.baccarat.eztrak import Coup, display_payload
from tablectl_drivers.eztrak.device import DISCONNECTED, NO_ACK, EztrakDisplayDriver
from tablectl_drivers.eztrak.render import SCREEN_KEYS
from tablectl_drivers.sim import RecordingSink, StatusReport
from tablectl_drivers.sim.eztrak import SimulatedEztrak

TIMEOUT = 5.0
"""Seconds to wait for an emulator, or for a real display to answer."""
PERSON = 120.0
"""Seconds to wait for the person at the rig to answer."""
OPTIONS = {"status_interval": 0, "ack_timeout": 0.5, "backoff_initial": 0.05, "backoff_max": 0.5}


def make_emulator() -> SimulatedEztrak:
    """The emulated display."""
    return SimulatedEztrak()


def scoreboard(hands: int = 5, shoe: int = 7) -> dict[str, Any]:
    """A recognisable payload: `hands` hands of Banker 6 - Player 3, then a tie; 5.00-500.00;
    a 25-second bet timer; no previous shoe."""
    banker = Coup("banker", 3, 6, False, False, False, False)
    tie = Coup("tie", 4, 4, False, False, False, False)
    coups = [banker] * (hands - 1) + [tie]
    return display_payload(coups, None, {"min": "5.00", "max": "500.00"}, 25, shoe)


def shown(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: payload[key] for key in SCREEN_KEYS}


@pytest.fixture
def rig() -> Iterator[Rig]:
    with rig_for("eztrak", make_emulator) as the_rig:
        yield the_rig


@pytest.fixture
async def display(rig: Rig) -> AsyncIterator[tuple[EztrakDisplayDriver, RecordingSink]]:
    """The real driver on the rig's port, running until the test ends, once it is available."""
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", rig.port, rig.baud, OPTIONS)
    task = asyncio.create_task(driver.run(sink))
    try:
        await until_available(sink, "display", rig.port, TIMEOUT)
        yield driver, sink
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)


def last(sink: RecordingSink) -> StatusReport:
    """The latest status (a never-reporting driver counts as unavailable)."""
    return sink.last_status or StatusReport(False, None)


async def acked(sink: RecordingSink, n: int, timeout: float = TIMEOUT) -> None:
    await sink.wait_for(lambda: last(sink).detail.get("acked", 0) >= n, timeout)


async def confirm(rig: Rig, question: str, emulate: Any) -> None:
    """Check what the display shows: the emulator's screen, or the person's yes on hardware."""
    rig.stimulus(f"{question} Answer y or n on this terminal.", emulate)
    if rig.real:

        def ask() -> str:
            with open("/dev/tty") as tty:
                return tty.readline()

        answer = await asyncio.wait_for(asyncio.to_thread(ask), PERSON)
        assert answer.strip().lower().startswith("y"), f"the person at the rig said: {answer!r}"


async def test_it_connects_and_reports_itself_available(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    driver, sink = display
    status = last(sink)
    assert status.available
    assert status.fault != DISCONNECTED
    assert status.detail["port"] == rig.port
    assert driver.stats["opens"] == 1


async def test_a_screen_is_acked(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    driver, sink = display
    driver.update("eztrak", scoreboard())
    await acked(sink, 1)
    status = last(sink)
    assert status.fault is None
    assert status.detail["naks"] == 0
    assert status.detail["last_ack_seq"] is not None
    assert driver.stats["bad_frames"] == 0  # everything it sent decoded


async def test_it_shows_the_scoreboard(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    driver, sink = display
    payload = scoreboard(hands=5, shoe=7)
    driver.update("eztrak", payload)
    await acked(sink, 1)

    def emulate(emu: SimulatedEztrak) -> None:
        assert emu.screen == shown(payload)

    await confirm(
        rig,
        "does the display show shoe 7 with 5 hands, limits 5.00 and 500.00, a 25 s bet timer, "
        "Banker 4 (80.0%), Tie 1 (20.0%), and a bead plate of B B B B T?",
        emulate,
    )


async def test_a_newer_screen_replaces_the_old_one(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    driver, sink = display
    driver.update("eztrak", scoreboard(hands=5, shoe=7))
    driver.update("eztrak", scoreboard(hands=9, shoe=8))
    await acked(sink, 1)
    newest = shown(scoreboard(hands=9, shoe=8))
    if rig.emulator is not None:
        emu: SimulatedEztrak = rig.emulator
        assert await asyncio.to_thread(emu.wait_for, lambda: emu.screen == newest, TIMEOUT)

    def emulate(emu: SimulatedEztrak) -> None:
        assert emu.screen == newest

    await confirm(rig, "does the display now show shoe 8 with 9 hands?", emulate)


async def test_a_nak_is_followed_by_a_resend(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("a real display cannot be told to refuse a screen")
    driver, sink = display
    emu.nak_next("BUSY")
    payload = scoreboard()
    driver.update("eztrak", payload)
    await acked(sink, 1)
    assert last(sink).detail["naks"] == 1
    assert emu.screens == [shown(payload)]


async def test_silence_is_no_ack_until_it_answers_again(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("a real display cannot be told to stop answering")
    driver, sink = display
    emu.acking = False
    driver.update("eztrak", scoreboard())
    await sink.wait_for(lambda: last(sink).fault == NO_ACK, TIMEOUT)
    emu.acking = True
    await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)


async def test_line_noise_is_survived(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("line noise cannot be ordered from a real display")
    driver, sink = display
    emu.write_raw(b"\x00\xff noise \r\n")
    emu.write_raw(b"$NAK,5,1,BUSY*00\r\n")  # a bad checksum
    driver.update("eztrak", scoreboard())
    await acked(sink, 1)
    await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    status = last(sink)
    assert status.available and status.fault is None


async def test_unplug_is_reported(
    rig: Rig, display: tuple[EztrakDisplayDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("a real display cannot be unplugged by the suite")
    _, sink = display
    emu.close()
    await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    status = last(sink)
    assert status.available is False
    assert status.detail["error"].startswith(f"lost {rig.port}")
