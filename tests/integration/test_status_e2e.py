"""`tablectl status` against real `tablectl run` processes: a simulated shoe on
a real pty, a real SQLite journal, the locked Mosquitto where a round is played (the dealer's
commands come over MQTT). Each way a table can stand gives its exit code: running and clear 0;
a round held on the shoe's fault, a device fault between rounds, a journal the table cannot
replay 1; never started, killed with SIGKILL (its socket left behind), stopped 3. `--json`
has the report's shape and `--watch` prints a block per change until Ctrl-C.

The status command runs in this process (`tablectl.cli.main`), reading the daemon's socket
like any technician's shell would; `--watch` runs as its own process, stopped with SIGINT."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hil.journal_faults import KINDS, build
from tablectl.cli import main as cli
from tablectl.config import load_config
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import REPO, TIMEOUT, Console, DaemonProcess, write_config

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def without_mqtt(config: Path) -> Path:
    """The table at `config` with MQTT off: `status` needs no broker, and a device fault needs
    no round."""
    text = config.read_text()
    config.write_text(text.replace("\n[mqtt]\n", "\n[mqtt]\nenabled = false\n"))
    return config


def status(config: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    """`tablectl status --config <config> <flags>`: its exit code and what it printed."""
    code = cli(["status", "--config", str(config), *flags])
    return code, capsys.readouterr().out


def report(config: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out = status(config, capsys, "--json")
    shown: dict[str, Any] = json.loads(out)
    assert shown["exit"] == code
    return shown


def wait_report(
    config: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    cond: Callable[[dict[str, Any]], bool],
) -> dict[str, Any]:
    """Ask every 0.1 s until the report satisfies `cond` (TIMEOUT at most)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        shown = report(config, capsys)
        if cond(shown):
            return shown
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last: {shown}")
        time.sleep(0.1)


def shoe_open(shown: dict[str, Any]) -> bool:
    return shown["running"] and shown["devices"][0]["available"] is True


def test_a_running_clear_table_exits_0_with_its_round_devices_link_and_last_result(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    shoe: SimulatedShoe,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(config)
    try:
        daemon.start()
        wait_report(
            config,
            capsys,
            "shoe and broker",
            lambda r: shoe_open(r) and (r["broker"] == "connected"),
        )
        # Player 9h Kc = 9, a natural; banker 2d 5s = 7: seat 1's 25 on player wins 25.
        shoe.load(["9h", "2d", "Kc", "5s"])
        console.ok("bank", {"seat": 4, "amount": "500"})
        console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
        console.ok("bets.close", {})
        for _ in range(4):
            shoe.draw()
        console.wait_for("round 1's result", lambda: bool(console.on("round/result")))
        shown = wait_report(config, capsys, "the result", lambda r: r["last_result"] is not None)
        wait_report(config, capsys, "nothing unsent", lambda r: r["unsent"] == 0)

        code, out = status(config, capsys)
        assert code == 0
        lines = out.splitlines()
        assert lines[0] == "it/t1 (ez-baccarat-panda8): running (exit 0)"
        assert lines[2] == "  round:   2 betting"
        assert lines[3].startswith("  device:  shoe [shoe] available, last frame ")
        assert lines[4] == "  broker:  connected, 0 unsent"
        assert lines[5].startswith(f"  journal: {tmp_path / 'journal.db'} ")
        assert lines[6].startswith(
            "  last:    round 1: player wins 9-7 [natural]; 1 wager(s) settled, "
            "players net +25.00 ("
        )
        assert not any(card in out for card in ("9h", "2d", "Kc", "5s"))  # no card, ever

        # --json: the report's shape (docs/operations.md "Is the table running?").
        shown = report(config, capsys)
        assert set(shown) == {
            "running", "v", "site", "table", "game", "pid", "started", "at", "round", "phase",
            "holds", "devices", "broker", "unsent", "journal", "last_result", "exit", "state",
        }  # fmt: skip
        assert (shown["running"], shown["exit"], shown["state"], shown["v"]) == (
            True, 0, "running", 1,
        )  # fmt: skip
        assert daemon.proc is not None and shown["pid"] == daemon.proc.pid
        assert (shown["site"], shown["table"], shown["game"]) == ("it", "t1", "ez-baccarat-panda8")
        assert (shown["round"], shown["phase"], shown["holds"]) == (2, "betting", [])
        (device,) = shown["devices"]
        assert {k: device[k] for k in ("name", "driver", "read", "available", "fault")} == {
            "name": "shoe", "driver": "shoe", "read": True, "available": True, "fault": None,
        }  # fmt: skip
        assert 0 <= device["frame_age"] < TIMEOUT
        journal = shown["journal"]
        month = shown["at"][:7]
        assert journal["path"] == str(tmp_path / "journal.db") and journal["bytes"] > 0
        assert (journal["month"], journal["close_due"]) == (month, False)
        assert journal["closes_after"] > month and journal["closes_after"].endswith("-01T00:00:00Z")
        last = shown["last_result"]
        assert last["round"] == 1 and last["ts"] == console.on("round/result")[0]["ts"]
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()
        console.close()


def test_a_round_held_on_the_shoes_fault_exits_1_and_says_why(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    shoe: SimulatedShoe,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(config)
    try:
        daemon.start()
        wait_report(
            config,
            capsys,
            "shoe and broker",
            lambda r: shoe_open(r) and (r["broker"] == "connected"),
        )
        shoe.load(["9h", "2d", "Kc", "5s"])
        console.ok("bank", {"seat": 4, "amount": "500"})
        console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
        console.ok("bets.close", {})
        shoe.draw()
        shoe.draw()
        shoe.fault(
            "JAM"
        )  # mid-deal: no result from a half-read hand (tests/table/test_device_hold.py)
        shown = wait_report(config, capsys, "the hold", lambda r: bool(r["holds"]))
        assert (shown["exit"], shown["state"]) == (1, "HELD")
        assert shown["holds"] == [{"kind": "round-held", "reason": "device shoe: JAM", "inputs": 0}]
        assert shown["devices"][0]["fault"] == "JAM"
        code, out = status(config, capsys)
        assert code == 1
        assert out.splitlines()[0] == "it/t1 (ez-baccarat-panda8): HELD (exit 1)"
        assert "  hold:    round-held: device shoe: JAM" in out.splitlines()
        assert "  last:    no result" in out.splitlines()
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()
        console.close()


def test_a_device_fault_between_rounds_holds_nothing_and_exits_1(
    tmp_path: Path, shoe: SimulatedShoe, capsys: pytest.CaptureFixture[str]
) -> None:
    config = without_mqtt(write_config(tmp_path, shoe_port=shoe.port, mqtt_port=1))
    daemon = DaemonProcess(config)
    try:
        daemon.start()
        wait_report(config, capsys, "the shoe", shoe_open)
        assert report(config, capsys)["exit"] == 0
        shoe.fault("JAM")
        shown = wait_report(config, capsys, "the fault", lambda r: r["exit"] != 0)
        assert (shown["exit"], shown["state"], shown["holds"]) == (1, "DEVICE FAULT", [])
        assert shown["broker"] == "off"
        code, out = status(config, capsys)
        assert code == 1
        assert "  device:  shoe [shoe] available, fault JAM, last frame " in out
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()


def test_a_journal_the_table_cannot_replay_holds_it_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = without_mqtt(write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1))
    KINDS["body-not-json"].doctor(build(load_config(config)))  # record 12 is no JSON
    daemon = DaemonProcess(config)
    try:
        daemon.start()
        shown = wait_report(config, capsys, "the held table", lambda r: r["running"])
        assert (shown["exit"], shown["state"]) == (1, "HELD")
        (hold,) = shown["holds"]
        assert hold["kind"] == "journal-fault"
        assert hold["reason"].startswith("JOURNAL FAULT at record 12: ")
        assert (shown["round"], shown["phase"], shown["last_result"]) == (None, None, None)
        assert shown["devices"][0]["read"] is False
        # hil's session is dated 2026-11-26; a held table closes no month, due or not
        assert (shown["journal"]["month"], shown["journal"]["close_due"]) == ("2026-11", False)
        code, out = status(config, capsys)
        assert code == 1
        assert "  device:  shoe [shoe] not read (the table is held on its journal)" in out
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()


def test_not_running_exits_3_never_started_killed_and_stopped(
    tmp_path: Path, shoe: SimulatedShoe, capsys: pytest.CaptureFixture[str]
) -> None:
    config = without_mqtt(write_config(tmp_path, shoe_port=shoe.port, mqtt_port=1))
    sock = tmp_path / "journal.db.sock"
    code, out = status(config, capsys)
    assert (code, out) == (
        3,
        f"it/t1: NOT RUNNING (exit 3)\n  no status socket at {sock}: the daemon is not "
        "running (or runs with another journal path)\n",
    )
    daemon = DaemonProcess(config)
    try:
        daemon.start()
        wait_report(config, capsys, "the daemon", lambda r: r["running"])
        daemon.kill()  # SIGKILL: the socket stays, nobody answers on it
        assert sock.is_socket()
        shown = report(config, capsys)
        assert (shown["running"], shown["exit"], shown["state"]) == (False, 3, "NOT RUNNING")
        assert shown["reason"].startswith(f"nothing answers at {sock}: ")
        assert status(config, capsys)[0] == 3
        daemon.start()  # the next start replaces the dead socket
        wait_report(config, capsys, "the restart", lambda r: r["running"])
        assert daemon.terminate() == 0, daemon.log_text()
        assert not sock.exists()  # a clean stop removes it
        code, out = status(config, capsys)
        assert code == 3 and "no status socket at" in out
    finally:
        daemon.stop_quietly()


def lines_of(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The lines `proc` prints, as they come (a thread reads them: the test bounds its waits)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return lines


def next_block(lines: queue.Queue[str]) -> list[str]:
    """One block `--watch` printed off a terminal: lines up to a blank one."""
    block: list[str] = []
    while True:
        line = lines.get(timeout=TIMEOUT)
        if not line:
            return block
        block.append(line)


def test_watch_prints_a_block_per_change_until_ctrl_c(
    tmp_path: Path, shoe: SimulatedShoe, capsys: pytest.CaptureFixture[str]
) -> None:
    config = without_mqtt(write_config(tmp_path, shoe_port=shoe.port, mqtt_port=1))
    daemon = DaemonProcess(config)
    watcher = None
    try:
        daemon.start()
        wait_report(config, capsys, "the shoe", shoe_open)
        watcher = subprocess.Popen(
            [sys.executable, "-m", "tablectl.cli", "status", "--watch", "--config", str(config)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        lines = lines_of(watcher)
        first = next_block(lines)
        assert first[0] == "it/t1 (ez-baccarat-panda8): running (exit 0)"
        time.sleep(1.5)  # another asking, nothing changed (the frame's age is no change)
        assert lines.empty()
        shoe.fault("JAM")
        second = next_block(lines)
        assert second[0] == "it/t1 (ez-baccarat-panda8): DEVICE FAULT (exit 1)"
        daemon.kill()
        third = next_block(lines)
        assert third[0] == "it/t1: NOT RUNNING (exit 3)"
        watcher.send_signal(signal.SIGINT)  # Ctrl-C: the code of the last block
        assert watcher.wait(timeout=TIMEOUT) == 3
    finally:
        if watcher is not None and watcher.poll() is None:
            watcher.kill()
            watcher.wait(timeout=TIMEOUT)
        daemon.stop_quietly()
