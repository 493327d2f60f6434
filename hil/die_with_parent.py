"""A command prefix that makes a test's child process die with the process that started it.

pytest-timeout ends a hung test's worker with `os._exit` (its thread method: no `finally`, no
fixture teardown), and a worker that dies any other way skips them too. A broker or daemon the
test started would then run on for the rest of the suite, holding its port and CPU and making
later tests time out one after another. Started through `DIE_WITH_PARENT`, the child asks the
kernel (Linux `PR_SET_PDEATHSIG`) for SIGKILL when the thread that started it ends, then execs
the command: same pid, so `Popen.kill`, `wait` and the pid files work as before.
"""

from __future__ import annotations

import sys

# Run by `python -S -c` (no site: the tether costs a bare interpreter start, ~10 ms). Checks the
# parent is still the one that forked it after asking, or a parent that died in between would
# leave it running.
_TETHER = """
import ctypes, os, signal, sys
parent = int(sys.argv[1])
if ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) != 0:
    sys.exit(f"die_with_parent: prctl(PR_SET_PDEATHSIG) failed: {os.strerror(ctypes.get_errno())}")
if os.getppid() != parent:
    sys.exit("die_with_parent: the parent ended before the child started")
os.execvp(sys.argv[2], sys.argv[2:])
"""


def die_with_parent(command: list[str]) -> list[str]:
    """`command` as argv for Popen, killed by the kernel if this process ends first."""
    import os

    return [sys.executable, "-S", "-c", _TETHER, str(os.getpid()), *command]
