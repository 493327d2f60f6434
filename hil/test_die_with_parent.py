"""The tether that keeps a test's brokers and daemons from outliving a worker that dies."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from hil.die_with_parent import die_with_parent
from hil.runner import REPO

# A parent that starts a long sleep through the tether, says its pid, and ends as pytest-timeout
# ends a worker: os._exit, no clean-up.
PARENT = """
import os, subprocess, sys, time
from hil.die_with_parent import die_with_parent
child = subprocess.Popen(die_with_parent(["sleep", "300"]))
print(child.pid, flush=True)
time.sleep(0.5)  # the tether has exec'd sleep by now
os._exit(1)
"""


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for its new parent to reap it is not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def test_a_tethered_child_is_killed_when_its_parent_exits_without_clean_up() -> None:
    parent = subprocess.run(
        [sys.executable, "-c", PARENT], cwd=REPO, capture_output=True, text=True, timeout=30
    )
    assert parent.returncode == 1, parent.stderr
    child = int(parent.stdout)
    deadline = time.monotonic() + 10
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(child)


def test_a_tethered_child_keeps_its_pid_and_runs_the_command() -> None:
    child = subprocess.Popen(
        die_with_parent([sys.executable, "-c", "import os; print(os.getpid())"]),
        stdout=subprocess.PIPE,
        text=True,
    )
    out, _ = child.communicate(timeout=30)
    assert child.returncode == 0 and int(out) == child.pid
    assert os.getpid() != child.pid
