"""A pulled emulator's pseudo-terminal number, kept from the next pseudo-terminal for a while.

Linux gives a new pseudo-terminal the lowest free number, so /dev/pts/N of an emulator just
unplugged is, a moment later, the port of whatever opens a pseudo-terminal next: another
emulator (a test running beside, the next demo) or somebody's shell. A driver still pointed at
the old path, retrying it as it does for a device that vanished, would then open that one, read
its frames and answer for it. The number stays taken while any descriptor of the slave is open,
and the path is gone as soon as the master is closed; so `unplug` closes the master and hands
the slave here, where it is held `HOLD_SECONDS` before it is closed (lazily: at a later hand-in,
or at the process's exit).
"""

from __future__ import annotations

import collections
import os
import threading
import time

__all__ = ["HOLD_SECONDS", "held_count", "hold_number", "release_expired"]

HOLD_SECONDS = 120.0
"""How long a pulled pseudo-terminal's number stays taken: longer than a daemon or driver of a
test, a rig or a demo goes on retrying a device's path after the device is gone."""

_held: collections.deque[tuple[float, int]] = collections.deque()  # (release at, slave fd)
_lock = threading.Lock()


def hold_number(slave_fd: int, *, now: float | None = None) -> None:
    """Keep `slave_fd` (whose master is closed) open for `HOLD_SECONDS`, and close the ones held
    long enough."""
    at = time.monotonic() if now is None else now
    with _lock:
        _held.append((at + HOLD_SECONDS, slave_fd))
    release_expired(now=at)


def release_expired(*, now: float | None = None) -> None:
    """Close the held slaves whose time is up; their numbers are free again."""
    at = time.monotonic() if now is None else now
    while True:
        with _lock:
            if not _held or _held[0][0] > at:
                return
            _, fd = _held.popleft()
        os.close(fd)  # held here alone: nothing else closes it


def held_count() -> int:
    """How many pulled pseudo-terminals' numbers are held now."""
    with _lock:
        return len(_held)
