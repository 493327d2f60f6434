"""An unplugged emulator's /dev/pts number is not the next pseudo-terminal's for a while
(tablectl_drivers/sim/pty_numbers.py): a driver still retrying the old path finds nothing there,
never another emulator or somebody's shell. Once seen in the suite: a daemon whose emulator had
gone opened the pseudo-terminal a test beside it had just made, read its frames and answered
its resends, and that test's table saw frames lost and waited for stacks that never came."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.pty_numbers import PtyNumbers


def number(path: str) -> int:
    return int(path.rsplit("/", 1)[1])


@contextmanager
def new_ptys_up_to(n: int) -> Iterator[set[int]]:
    """The numbers of new pseudo-terminals made until one is numbered above `n`: Linux gives the
    lowest free number, so by then every free number up to `n` was given out."""
    made: list[tuple[int, int]] = []
    try:
        while not made or number(os.ttyname(made[-1][1])) <= n:
            assert len(made) < 500, "pseudo-terminals keep coming below the number"
            made.append(os.openpty())
        yield {number(os.ttyname(slave)) for _, slave in made}
    finally:
        for master, slave in made:
            os.close(master)
            os.close(slave)


def test_an_unplugged_emulators_path_is_gone_and_its_number_goes_to_no_new_pty() -> None:
    sim = SimulatedDispenser()
    old = sim.port
    sim.unplug()
    assert not os.path.exists(old)  # a driver retrying it is told ENOENT
    with new_ptys_up_to(number(old)) as given:
        assert number(old) not in given
    assert sim.replug() != old
    sim.close()


def test_a_held_number_is_freed_once_its_time_is_up() -> None:
    held = PtyNumbers(hold_seconds=60)
    master, slave = os.openpty()
    name = os.ttyname(slave)
    os.close(master)
    now = time.monotonic()
    held.hold(slave, now=now)
    held.release_expired(now=now + 59)
    assert len(held) == 1
    with new_ptys_up_to(number(name)) as given:
        assert number(name) not in given
    assert os.readlink(f"/proc/self/fd/{slave}").startswith(name)  # open ("... (deleted)")
    held.release_expired(now=now + 61)
    assert len(held) == 0
    with contextlib.suppress(FileNotFoundError):  # closed: gone, or reused for some other file
        assert not os.readlink(f"/proc/self/fd/{slave}").startswith(name)
