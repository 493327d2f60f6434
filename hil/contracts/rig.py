"""What a contract suite runs against: the device class's emulator on a pseudo-terminal, or a
real device when `TABLECTL_HIL_<CLASS>_PORT` names its port (python-can style).

On real hardware a test that needs the device to do something (draw a card, dispense a stack,
shake the dice) asks the person at the rig when `TABLECTL_HIL_INTERACTIVE=1`, and is skipped
with that reason otherwise; the passive tests (it connects, it reports itself available, what it
sends decodes) always run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from tablectl_drivers.sim import RecordingSink

INTERACTIVE = os.environ.get("TABLECTL_HIL_INTERACTIVE") == "1"


@dataclass
class Rig:
    """One device under test: its port, its baud, and the emulator behind it when emulated."""

    device_class: str
    port: str
    baud: int
    emulator: Any | None

    @property
    def real(self) -> bool:
        return self.emulator is None

    def stimulus(self, instruction: str, emulate: Callable[[Any], object]) -> None:
        """Make the device act: the emulator does it at once; a real one needs a person."""
        if self.emulator is not None:
            emulate(self.emulator)
            return
        if not INTERACTIVE:
            pytest.skip(
                f"needs a person at the {self.device_class} ({instruction}); "
                "set TABLECTL_HIL_INTERACTIVE=1 to be asked"
            )
        print(f"\n>>> {self.device_class}: {instruction}", file=sys.__stderr__, flush=True)

    def emulated_only(self, why: str) -> Any:
        """The emulator, for faults a real device cannot be asked for; skipped on hardware."""
        if self.emulator is None:
            pytest.skip(f"emulator only: {why}")
        return self.emulator


@contextmanager
def rig_for(device_class: str, make_emulator: Callable[[], Any], baud: int = 9600) -> Iterator[Rig]:
    """A Rig for `device_class`: real when `TABLECTL_HIL_<CLASS>_PORT` is set, else emulated."""
    env = f"TABLECTL_HIL_{device_class.upper()}_PORT"
    port = os.environ.get(env)
    if port:
        real_baud = int(os.environ.get(f"TABLECTL_HIL_{device_class.upper()}_BAUD", baud))
        print(f"hil: {device_class} contract suite on real hardware at {port}", file=sys.__stderr__)
        yield Rig(device_class, port, real_baud, None)
        return
    emulator = make_emulator()
    try:
        yield Rig(device_class, emulator.port, baud, emulator)
    finally:
        emulator.close()


async def until_available(sink: RecordingSink, what: str, port: str, timeout: float) -> None:
    """Wait for the driver under test to report the device available; if it never does, fail
    the test with the port's error (why it could not be opened), not a bare TimeoutError."""
    try:
        await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available, timeout)
    except TimeoutError:
        pass  # failed below, outside the handler, so the report is the reason alone
    else:
        return
    last = sink.last_status
    why = last.detail.get("error", "no status reported") if last else "no status reported"
    pytest.fail(f"the {what} at {port} is not available: {why}", pytrace=False)
