"""A pulled emulator's pseudo-terminal number, kept from the next pseudo-terminal for a while.

Linux gives a new pseudo-terminal the lowest free number, so /dev/pts/N of an emulator just
unplugged is, a moment later, the port of whatever opens a pseudo-terminal next: another
emulator (a test running beside, the next demo) or somebody's shell. A driver still pointed at
the old path, retrying it as it does for a device that vanished, would then open that one, read
its frames and answer for it. The number stays taken while any descriptor of the slave is open,
and the path is gone as soon as the master is closed; so `unplug` closes the master and hands
the slave here (`hold_number`), where it is held `HOLD_SECONDS` before it is closed (lazily: at
a later hand-in, or at the process's exit).
"""

from __future__ import annotations

import collections
import os
import threading
import time

__all__ = ["HELD", "HOLD_SECONDS", "PtyNumbers", "hold_number"]

HOLD_SECONDS = 120.0
"""How long a pulled pseudo-terminal's number stays taken: longer than a daemon or driver of a
test, a rig or a demo goes on retrying a device's path after the device is gone."""


class PtyNumbers:
    """Slaves of pulled pseudo-terminals (their masters closed), each held open `hold_seconds`."""

    def __init__(self, hold_seconds: float = HOLD_SECONDS) -> None:
        self.hold_seconds = hold_seconds
        self._held: collections.deque[tuple[float, int]] = collections.deque()  # (until, fd)
        self._lock = threading.Lock()

    def hold(self, slave_fd: int, *, now: float | None = None) -> None:
        """Keep `slave_fd` open for `hold_seconds`, and close the ones held long enough."""
        at = time.monotonic() if now is None else now
        with self._lock:
            self._held.append((at + self.hold_seconds, slave_fd))
        self.release_expired(now=at)

    def release_expired(self, *, now: float | None = None) -> None:
        """Close the held slaves whose time is up; their numbers are free again."""
        at = time.monotonic() if now is None else now
        while True:
            with self._lock:
                if not self._held or self._held[0][0] > at:
                    return
                _, fd = self._held.popleft()
            os.close(fd)  # held here alone: nothing else closes it

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)


HELD = PtyNumbers()
"""The process's held numbers: every SimulatedDevice's unplug hands its slave here."""


def hold_number(slave_fd: int) -> None:
    """`HELD.hold`: keep a pulled pseudo-terminal's number taken for `HOLD_SECONDS`."""
    HELD.hold(slave_fd)
