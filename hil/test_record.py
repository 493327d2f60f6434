"""The recorder writes what a device sends on a real pty, and what the console publishes on a real
Mosquitto, in the scenario format (hil/traffic.py); the runner's reader reads it back.

Wanted: "a command that records a rig's real traffic into that format". The console
commands are `cmd/<verb>` (DESIGN contract 3); the traffic line is `{"t", "cmd", "payload"}`
without the request's `id` (hil/traffic.py), which the runner adds again when it plays it.
"""

from __future__ import annotations

import io
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hil.ports import free_port, wait_port
from hil.record import Recorder, record_commands, record_port
from hil.runner import open_broker
from hil.traffic import Command, DeviceWrite, parse
from tablectl_base.cards import parse_card
from tablectl_drivers.shoe.frames import CardDrawn, NewShoe, decode

REPO = Path(__file__).resolve().parent.parent
BASE = "tablectl/rig/t1"
TIMEOUT = 30.0  # a bound against a hang, not a timing claim: a loaded CI machine is slow


def test_recorded_bytes_read_back_identically() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    out = io.StringIO()
    rec = Recorder(out)
    stop, opened = threading.Event(), threading.Event()
    reader = threading.Thread(
        target=record_port, args=(rec, "shoe", os.ttyname(slave), 9600, stop, opened), daemon=True
    )
    reader.start()
    try:
        assert opened.wait(5)
        # positioned frames: NEW,1 was 0x41, ",1" adds 0x2C ^ 0x31; CRD,2,9h was 0x36, likewise
        frames = [b"$NEW,1,1*5C\r\n", b"\x00garbage", b"$CRD,2,9h,1*2B\r\n"]
        assert decode(frames[0])[1] == NewShoe(1, "1")  # real shoe frames, not just bytes
        assert decode(frames[2])[1] == CardDrawn(2, parse_card("9h"), 1)
        for f in frames:
            os.write(master, f)
        deadline = threading.Event()
        for _ in range(100):
            got = b"".join(
                i.data for i in parse(out.getvalue().splitlines()) if isinstance(i, DeviceWrite)
            )
            if got == b"".join(frames):
                break
            deadline.wait(0.05)
        assert got == b"".join(frames)
        times = [i.t for i in parse(out.getvalue().splitlines())]
        assert times == sorted(times)
    finally:
        stop.set()
        reader.join(2)
        os.close(master)
        os.close(slave)


# -- console commands over a real Mosquitto ------------------------------------------------------


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[int]:
    """A real Mosquitto on a free loopback port (as hil/runner.py starts one); its port."""
    port = free_port()
    proc = subprocess.Popen(
        open_broker(tmp_path / "mosquitto.conf", port, "persistence false"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_port(port, TIMEOUT, proc)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(TIMEOUT)
        if proc.stderr is not None:
            proc.stderr.close()


class Console:
    """The dealer console's side: a paho client publishing commands (QoS 1, as docs/mqtt.md)."""

    def __init__(self, port: int) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="test-console")
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def publish(self, suffix: str, payload: bytes | str) -> None:
        """Publish under the table's base topic and wait for the broker's PUBACK."""
        self.client.publish(f"{BASE}/{suffix}", payload, qos=1).wait_for_publish(TIMEOUT)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def commands(text: str) -> list[Command]:
    return [i for i in parse(text.splitlines()) if isinstance(i, Command)]


def test_console_commands_are_recorded_without_their_id_issue5_item6(broker: int) -> None:
    out = io.StringIO()
    rec = Recorder(out)
    stop, subscribed = threading.Event(), threading.Event()
    args = (rec, "127.0.0.1", broker, BASE, stop, subscribed)
    thread = threading.Thread(target=record_commands, args=args, daemon=True)
    thread.start()
    console = Console(broker)
    try:
        assert subscribed.wait(TIMEOUT), "the recorder never subscribed"
        wager = {"id": "c-1", "seat": 4, "spot": "player", "amount": "25"}
        console.publish("cmd/wager", json.dumps(wager))
        console.publish("cmd/wager/reply", json.dumps({"id": "c-1", "ok": True}))  # a reply
        console.publish("state", json.dumps({"phase": "betting"}))  # not a command
        console.publish("cmd/bank", b"not json")  # skipped, said on stderr
        console.publish("cmd/bank", json.dumps({"id": "c-2", "seat": 3, "amount": "500"}))
        deadline = time.monotonic() + TIMEOUT
        while len(commands(out.getvalue())) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # poll interval, bounded by the deadline
    finally:
        console.close()
        stop.set()
        thread.join(TIMEOUT)
    assert not thread.is_alive()
    got = commands(out.getvalue())
    assert [(c.verb, c.payload) for c in got] == [
        ("wager", {"seat": 4, "spot": "player", "amount": "25"}),
        ("bank", {"seat": 3, "amount": "500"}),
    ]
    assert 0 <= got[0].t <= got[1].t
    assert rec.count == 2  # nothing else was written


def _lines(stream: IO[str]) -> queue.Queue[str | None]:
    """A pipe's lines as they come (None at its end), read on a thread so waits can time out."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _next(lines: queue.Queue[str | None], what: str) -> str:
    line = lines.get(timeout=TIMEOUT)
    assert line is not None, f"the recorder ended before {what}"
    return line


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_record_command_writes_each_console_command_as_a_traffic_line(broker: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hil.record", "--mqtt", f"127.0.0.1:{broker}", "--base", BASE],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal even when the tests run in the background, where the shell
        # starts them with SIGINT ignored (and Python then installs no KeyboardInterrupt).
        preexec_fn=_sigint_default,
    )
    assert proc.stdout is not None and proc.stderr is not None
    console: Console | None = None
    try:
        out, err = _lines(proc.stdout), _lines(proc.stderr)
        assert _next(err, "subscribing") == f"record: recording commands on {BASE}/cmd/+"
        console = Console(broker)
        console.publish("cmd/decision", json.dumps({"id": "d-9", "seat": 2, "action": "fold"}))
        line: dict[str, Any] = json.loads(_next(out, "recording the command"))
        assert set(line) == {"t", "cmd", "payload"}
        assert line["cmd"] == "decision"
        assert line["payload"] == {"seat": 2, "action": "fold"}
        assert line["t"] >= 0
        proc.send_signal(signal.SIGINT)  # Ctrl-C ends a recording
        assert proc.wait(TIMEOUT) == 0
        assert _next(err, "counting") == "record: 1 items"
    finally:
        if console is not None:
            console.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(TIMEOUT)
        proc.stdout.close()
        proc.stderr.close()
