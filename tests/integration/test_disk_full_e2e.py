"""A real file system fills up under `tablectl run`, as on the table's PC.

The journal lives on a small tmpfs of its own, mounted in a user and mount namespace
(`unshare --user --map-root-user --mount`: no root needed, nothing mounted outside the test's
daemon). A ballast file fills it to the last byte (ENOSPC), so SQLite fails the next write of the
journal's WAL with SQLITE_FULL; deleting the ballast is the room coming back. The daemon is the
real `tablectl run` with the simulated shoe on a real pty and the locked Mosquitto; when it
stops, the same namespace runs `verify-journal` and `export` on what the tmpfs holds.

Skipped, with the reason, where the kernel or the container refuses unprivileged user
namespaces or a tmpfs mount in them: the test needs a real file system that fills, and never
pretends to have one.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import REPO, TIMEOUT, Console, write_config

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
RETRY = 5.0  # JOURNAL_RETRY_SECONDS: the real daemon tries the journal again every 5 s

# Runs in the namespace: the tmpfs, a filler that waits for the test's word (files in OUT), the
# daemon, then verify-journal and export on the journal it left.
WRAPPER = r"""
mount -t tmpfs -o size=2m tmpfs "$FS" || exit 97
(
  while [ ! -e "$OUT/fill" ] && [ ! -e "$OUT/free" ]; do sleep 0.05; done
  if [ ! -e "$OUT/free" ]; then
    cat /dev/zero > "$FS/ballast" 2>/dev/null
    touch "$OUT/filled"
  fi
  while [ ! -e "$OUT/free" ]; do sleep 0.05; done
  rm -f "$FS/ballast"
  touch "$OUT/freed"
) &
filler=$!
"$PY" -m tablectl.cli run --config "$CFG" &
echo $! > "$OUT/pid"
wait $!
rc=$?
kill $filler 2>/dev/null
"$PY" -m tablectl.cli verify-journal --config "$CFG" > "$OUT/verify" 2>&1
echo $? > "$OUT/verify.rc"
"$PY" -m tablectl.cli export --config "$CFG" > "$OUT/export" 2> "$OUT/export.err"
exit $rc
"""


def unshare_tmpfs(folder: Path) -> list[str]:
    """The command prefix that gives a child its own tmpfs; skips the test if none can."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("needs unshare (util-linux) for a small file system of the test's own")
    prefix = [unshare, "--user", "--map-root-user", "--mount"]
    probe = folder / "probe"
    probe.mkdir()
    tried = subprocess.run(
        [*prefix, "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {probe}"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if tried.returncode != 0:
        pytest.skip(
            "no tmpfs can be mounted in an unprivileged user namespace here "
            f"({tried.stderr.strip() or tried.returncode}): the real-file-system variant needs one"
        )
    return prefix


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def wait_file(path: Path, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def card_events(console: Console) -> list[dict[str, Any]]:
    """The cards the table published, each once (consumers de-duplicate by seq)."""
    seen: dict[int, dict[str, Any]] = {}
    for e in console.on("event"):
        if e["type"] == "shoe.card":
            seen.setdefault(e["seq"], e)
    return [seen[s] for s in sorted(seen)]


def memory_alerts(console: Console) -> list[dict[str, Any]]:
    return [a for a in console.on("alert") if "seq" not in a]


def test_a_file_system_that_fills_up_stops_the_table_and_the_daemon_resumes_when_freed(
    tmp_path: Path, mosquitto: MosquittoBroker, shoe: SimulatedShoe
) -> None:
    prefix = unshare_tmpfs(tmp_path)
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    cfg.write_text(cfg.read_text().replace('path = "journal.db"', 'path = "fs/journal.db"'))
    fs, out = tmp_path / "fs", tmp_path / "out"
    fs.mkdir()
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    env.update(FS=str(fs), OUT=str(out), CFG=str(cfg), PY=sys.executable)
    log = tmp_path / "daemon.log"
    console = Console(mosquitto.port, BASE)
    with log.open("ab") as log_file:
        proc = subprocess.Popen(
            [*prefix, "sh", "-c", WRAPPER],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            cwd=REPO,
            env=env,
        )
    try:
        console.wait_for("online", lambda: console.on("status")[-1:] == ["online"])
        console.wait_for("the shoe", console.device_available)
        shoe.new_shoe(8, seed=11)
        console.wait_for(
            "shoe.new", lambda: any(e["type"] == "shoe.new" for e in console.on("event"))
        )
        console.ok("bank", {"seat": 4, "amount": "500"})
        console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
        (out / "fill").touch()
        wait_file(out / "filled", "the file system full")

        first = shoe.draw()  # its journal record meets the full disk
        console.wait_for("the alert", lambda: bool(memory_alerts(console)))
        alert = memory_alerts(console)[-1]
        assert alert["kind"] == "journal-unwritable" and alert["journaled"] is False
        assert alert["reason"] == "database or disk is full"
        console.wait_for(
            "journal/status", lambda: console.on("journal/status")[-1].get("writable") is False
        )
        assert console.on("journal/status")[-1]["reason"] == "database or disk is full"
        asked = time.monotonic()
        refused = console.send("wager", {"seat": 2, "spot": "banker", "amount": "50"})
        assert time.monotonic() - asked < RETRY  # at once, not after the next try
        assert refused["ok"] is False and refused["journaled"] is False
        second = shoe.draw()  # the shoe deals on; the table waits
        time.sleep(RETRY + 1)  # at least one more try, on a disk still full
        assert card_events(console) == []  # nothing applied: the round does not move on
        assert proc.poll() is None  # and the daemon is still there

        (out / "free").touch()  # the room comes back
        console.wait_for("both cards", lambda: len(card_events(console)) >= 2, RETRY + TIMEOUT)
        assert [e["card"] for e in card_events(console)] == [first, second]
        console.wait_for(
            "writable", lambda: console.on("journal/status")[-1].get("writable") is True
        )
        assert [a["kind"] for a in memory_alerts(console)] == [
            "journal-unwritable",
            "journal-writable",
        ]
        pid = int((out / "pid").read_text())
        os.kill(pid, signal.SIGTERM)
        assert proc.wait(timeout=TIMEOUT) == 0, log.read_text(errors="replace")
    finally:
        (out / "free").touch()  # the filler ends whatever happened
        if proc.poll() is None:  # a failed test: the daemon first, or it outlives the wrapper
            with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
                os.kill(int((out / "pid").read_text()), signal.SIGKILL)
            try:
                proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=TIMEOUT)
        console.close()

    assert (out / "verify.rc").read_text().strip() == "0", (out / "verify").read_text()
    records = [json.loads(line) for line in (out / "export").read_text().splitlines()]
    dealt = [r for r in records if r["type"] == "shoe.card"]
    assert [r["card"] for r in dealt] == [first, second]  # in order, each once
    assert refused["id"] not in {r.get("ref") for r in records}  # the refused wager: nowhere
