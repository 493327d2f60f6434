"""Scenario runner: play recorded traffic into the table's ports, run the daemon, and compare the
MQTT messages it publishes with the scenario's expected file.

A scenario is a folder with:
    table.toml      the table config; `{port:NAME}` stands for device NAME's port (the traffic
                    file writes into it), `{emulator:KIND}` for the port of an output device's
                    emulator the runner starts (KIND in EMULATORS: `eztrak`), and `{schedules}`
                    for the shipped schedules folder (the runner fills them in, and puts the
                    journal and the broker port in a scratch folder)
    traffic.jsonl   recorded device bytes and console commands (hil/traffic.py)
    expected.jsonl  the messages that must come out, one {"topic","payload","retain"} a line,
                    with the run's volatile parts (timestamps, ports) left out; last, for each
                    emulator, what it shows at the end as topic `emulator/KIND/screen`

By default each device gets a pseudo-terminal; `--port NAME=PATH` writes NAME's traffic into a
real port instead (a rig's loopback cable), with `--daemon-port NAME=PATH` the other end the
daemon opens. Exit status 0 when the messages match, 1 with a diff when they do not.

usage: python -m hil.runner SCENARIO [--update] [--port NAME=PATH --daemon-port NAME=PATH]
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from contextlib import ExitStack
from importlib import import_module
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hil.die_with_parent import die_with_parent
from hil.ports import free_port, wait_port
from hil.traffic import Command, DeviceWrite, read

REPO = Path(__file__).resolve().parents[1]
SCHEDULES = REPO / "config" / "schedules"
QUIET = 0.4  # seconds without a new message: the daemon has finished with the last input
QUIET_AFTER = 0.15  # the same once it has answered the input (a message came after it went in)
TIMEOUT = 20.0
_PORT = re.compile(r"\{port:([A-Za-z0-9_.-]+)\}")
_EMULATOR = re.compile(r"\{emulator:([a-z-]+)\}")
# Output devices the runner can stand in for: the daemon writes to them, they answer as the device
# does (an EZTRAK ACKs each screen), and the runner reports what they show in the end.
EMULATORS: dict[str, str] = {"eztrak": "tablectl_drivers.sim.eztrak:SimulatedEztrak"}


def find_mosquitto() -> str:
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if not found:
        raise SystemExit("mosquitto is not installed: apt-get install mosquitto")
    return found


def open_broker(conf: Path, port: int, *settings: str) -> list[str]:
    """Write the config of an open Mosquitto on loopback `port` (`settings`: lines more) to
    `conf`; the argv that runs it, dying with this process (hil/die_with_parent.py). As root it
    stays root: it would drop to the mosquitto user, and a change of user clears the tether."""
    lines = [f"listener {port} 127.0.0.1", "allow_anonymous true", *settings]
    if os.geteuid() == 0:
        lines.append("user root")
    conf.write_text("".join(f"{line}\n" for line in lines))
    return die_with_parent([find_mosquitto(), "-c", str(conf)])


def normalise(topic: str, payload: Any, retain: bool) -> dict[str, Any]:
    """What a scenario compares: no timestamps or seq; a device status only by availability and
    fault (its counters, port path and how often it reports belong to the run)."""
    if topic.split("/")[-1] == "status" and "/device/" in topic and isinstance(payload, dict):
        payload = {k: payload.get(k) for k in ("table", "seq", "device", "available", "fault")}
    return {"topic": topic, "payload": _drop_ts(payload), "retain": retain}


FROM_MEMORY = ("/journal/status", "/info", "/journal/start", "/journal/segment")
"""Topics the daemon publishes from memory, not from the journal: when they come is timing."""


def comparable(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages once each by seq, checked in seq order, seq dropped. Device statuses are taken
    out of the stream and listed after it, per device in topic order, each device's changes only
    (and `journal/status`, `info` and the anchors `journal/start` and `journal/segment`, which the
    daemon publishes from memory, are left out, and so is a table `status` that repeats the one
    before it, the heartbeat's `online` every `[mqtt] heartbeat_seconds`):
    when two drivers report relative to each other and to the game's messages is timing, not
    behaviour, and a driver may report an unchanged status again (e.g. with new counters)."""
    seen: set[int] = set()
    said: dict[str, Any] = {}  # status topic -> the word it last said
    out: list[dict[str, Any]] = []
    devices: dict[str, list[dict[str, Any]]] = {}
    last_seq = 0
    for m in messages:
        if m["topic"].endswith(FROM_MEMORY):
            continue  # from memory, not the journal (docs/mqtt.md): when it comes is timing
        p = m["payload"]
        if m["topic"].endswith("/status") and "/device/" not in m["topic"]:
            if said.get(m["topic"]) == p:
                continue  # the heartbeat: how many come is timing
            said[m["topic"]] = p
        seq = p.get("seq") if isinstance(p, dict) else None
        if isinstance(seq, int):
            if seq in seen:
                continue  # a redelivery: consumers de-duplicate by (table, seq)
            if seq < last_seq:
                raise SystemExit(f"seq {seq} arrived after {last_seq}")
            seen.add(seq)
            last_seq = seq
            p = {k: v for k, v in p.items() if k != "seq"}
        m = {**m, "payload": p}
        if "/device/" in m["topic"]:
            changes = devices.setdefault(m["topic"], [])
            if not changes or changes[-1] != m:
                changes.append(m)
            continue
        out.append(m)
    return out + [m for topic in sorted(devices) for m in devices[topic]]


def _drop_ts(value: Any) -> Any:
    # `chain` (the journal head a round result publishes) hashes the record's timestamp too
    if isinstance(value, dict):
        return {k: _drop_ts(v) for k, v in value.items() if k not in ("ts", "chain")}
    if isinstance(value, list):
        return [_drop_ts(v) for v in value]
    return value


class Floor:
    """A subscriber on the table's base topic that also sends console commands."""

    def __init__(self, port: int, base: str) -> None:
        self.base = base
        self.messages: list[dict[str, Any]] = []
        self.last_at = time.monotonic()
        self._cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hil-floor")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"{base}/#", qos=1)
        self.client.loop_start()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            payload = msg.payload.decode(errors="replace")
        with self._cond:
            if not msg.topic.startswith(f"{self.base}/cmd/") or msg.topic.endswith("/reply"):
                self.messages.append(normalise(msg.topic, payload, bool(msg.retain)))
            self.last_at = time.monotonic()
            self._cond.notify_all()

    def wait_for(self, what: str, cond: Callable[[], bool]) -> None:
        deadline = time.monotonic() + TIMEOUT
        with self._cond:
            while not cond():
                if not self._cond.wait(max(0.0, deadline - time.monotonic())):
                    raise SystemExit(f"timed out waiting for {what}")

    def quiet(self, since: float = 0.0) -> None:
        """Wait until nothing has arrived for QUIET seconds, counted from `since` at the least
        (the moment the last input went in); QUIET_AFTER once a message has come after it (the
        daemon publishes a record's messages together, so the input has been taken)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            last = self.last_at
            window = QUIET_AFTER if since and last > since else QUIET
            if time.monotonic() - max(last, since) >= window:
                return
            if time.monotonic() > deadline:
                raise SystemExit("the daemon never went quiet")
            time.sleep(0.02)

    def command(self, n: int, verb: str, payload: dict[str, Any]) -> None:
        ref = f"hil-{n}"
        self.client.publish(f"{self.base}/cmd/{verb}", json.dumps({"id": ref, **payload}), 1)

        def replied() -> bool:
            return any(
                m["topic"] == f"{self.base}/cmd/{verb}/reply" and m["payload"].get("id") == ref
                for m in self.messages
            )

        self.wait_for(f"the reply to cmd/{verb} {payload}", replied)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


_HEAD = re.compile(rb"\$([A-Z]{3}),([0-9]{1,4})((?:,[^*\r\n]*)?)\*")
RUN_STARTS = (b"NEW", b"SHF")
POSITIONS = {b"CRD": 1, b"BRN": 1, b"STK": 0, b"DIC": 0}
"""Which field (after SEQ) of a frame type is its position in the device's count."""


class ResendAnswer:
    """What a positioned device says when the driver asks it to resend (tablectl_drivers/resend.py),
    for a recorded device: a recording holds what the device sent, not its answers, so the
    runner answers "nothing to resend" from where the recorded frames put the device, under
    the SEQs just before the next recorded frame's, so the recording's own SEQs run on."""

    def __init__(self, master: int, upcoming: list[bytes]) -> None:
        self.master = master
        self.lock = threading.Lock()
        self.run: str | None = None
        self.last = 0
        self.last_seq: int | None = None
        self._upcoming = b"".join(upcoming)
        threading.Thread(target=self._listen, name="hil-resend", daemon=True).start()

    def write(self, data: bytes) -> None:
        """A recorded write: put on the line, and where it leaves the device noted."""
        with self.lock:
            os.write(self.master, data)
            self._upcoming = self._upcoming[len(data) :]
            for kind, seq, fields in _HEAD.findall(data):
                self.last_seq = int(seq)
                values = fields.decode("ascii", "replace").split(",")[1:]
                if kind in RUN_STARTS and values:
                    self.run, self.last = values[0], 0
                elif kind in POSITIONS and len(values) > POSITIONS[kind]:
                    with contextlib.suppress(ValueError):
                        self.last = int(values[POSITIONS[kind]])

    def _listen(self) -> None:
        from tablectl_drivers.sim.history import nothing_to_resend, resend_requests

        for _ in resend_requests(self.master):
            with self.lock:
                nxt = _HEAD.search(self._upcoming)
                if nxt is not None:  # just before the next recorded frame's SEQ
                    first = int(nxt.group(2)) - 3
                else:
                    first = 0 if self.last_seq is None else self.last_seq + 1
                    self.last_seq = (first + 2) % 10000
                os.write(self.master, nothing_to_resend(first, self.run, self.last))


def run(
    scenario: Path,
    *,
    write_ports: dict[str, str] | None = None,
    daemon_ports: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Play the scenario's traffic and return the normalised messages the daemon published."""
    write_ports = write_ports or {}
    daemon_ports = daemon_ports or {}
    traffic = read(scenario / "traffic.jsonl")
    template = (scenario / "table.toml").read_text()
    names = sorted(set(_PORT.findall(template)))
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hil-")))
        writers: dict[str, int] = {}
        answers: dict[str, ResendAnswer] = {}
        ports: dict[str, str] = {}
        for name in names:
            if name in write_ports:
                fd = os.open(write_ports[name], os.O_WRONLY | os.O_NOCTTY)
                stack.callback(os.close, fd)
                writers[name], ports[name] = fd, daemon_ports[name]
            else:
                master, slave = os.openpty()
                tty.setraw(slave)
                stack.callback(os.close, master)
                stack.callback(os.close, slave)
                writers[name], ports[name] = master, os.ttyname(slave)
                upcoming = [
                    i.data for i in traffic if isinstance(i, DeviceWrite) and i.device == name
                ]
                answers[name] = ResendAnswer(master, upcoming)
        emulators: dict[str, Any] = {}
        for kind in sorted(set(_EMULATOR.findall(template))):
            if kind not in EMULATORS:
                raise SystemExit(f"no emulator {kind!r}; known: {', '.join(EMULATORS)}")
            module, cls = EMULATORS[kind].split(":")
            emulators[kind] = stack.enter_context(getattr(import_module(module), cls)())
        broker_port = free_port()
        broker = subprocess.Popen(
            open_broker(work / "mosquitto.conf", broker_port),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        stack.callback(_end, broker)
        wait_port(broker_port)
        text = _PORT.sub(lambda m: ports[m.group(1)], template).replace(
            "{schedules}", str(SCHEDULES)
        )
        text = _EMULATOR.sub(lambda m: str(emulators[m.group(1)].port), text)
        # the pseudo-terminals the runner serves, said to be an emulator's as the config must
        served = [ports[n] for n in names if n not in write_ports]
        for path in served + [str(e.port) for e in emulators.values()]:
            text = text.replace(f'port = "{path}"', f'port = "{path}"\nemulator = true')
        cfg = work / "table.toml"
        cfg.write_text(
            text
            + f'\n[mqtt]\nhost = "127.0.0.1"\nport = {broker_port}\n\n'
            + f'[journal]\npath = "{work / "journal.db"}"\n'
        )
        base, devices = _base_topic(cfg), _device_names(cfg)
        floor = Floor(broker_port, base)
        stack.callback(floor.close)
        daemon = subprocess.Popen(
            die_with_parent([sys.executable, "-m", "tablectl.cli", "run", "--config", str(cfg)]),
            stdout=subprocess.DEVNULL,
            stderr=(work / "daemon.log").open("wb"),
            cwd=REPO,
        )
        stack.callback(_end, daemon)
        floor.wait_for(
            "every device to be available",
            lambda: all(
                any(
                    m["topic"] == f"{base}/device/{n}/status" and m["payload"]["available"]
                    for m in floor.messages
                )
                for n in devices
            ),
        )
        floor.quiet()
        for n, item in enumerate(traffic, start=1):
            sent_at = time.monotonic()
            if isinstance(item, DeviceWrite):
                if item.device in answers:
                    answers[item.device].write(item.data)
                else:
                    os.write(writers[item.device], item.data)
            else:
                assert isinstance(item, Command)
                floor.command(n, item.verb, item.payload)
            floor.quiet(since=sent_at)
        daemon.terminate()
        daemon.wait(TIMEOUT)
        floor.quiet()
        screens = [
            {"topic": f"emulator/{kind}/screen", "payload": _drop_ts(em.screen), "retain": False}
            for kind, em in sorted(emulators.items())
        ]
        return comparable(floor.messages) + screens


def _end(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _base_topic(cfg: Path) -> str:
    from tablectl.config import load_config

    return load_config(cfg).table.base_topic


def _device_names(cfg: Path) -> list[str]:
    from tablectl.config import load_config

    return [d.name for d in load_config(cfg).table.devices]


def compare(expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    """A unified diff of the two message lists (empty when they are equal)."""
    a = [json.dumps(m, sort_keys=True) for m in expected]
    b = [json.dumps(m, sort_keys=True) for m in got]
    return list(difflib.unified_diff(a, b, "expected", "published", lineterm=""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hil.runner", description=__doc__.splitlines()[0])
    ap.add_argument("scenario", type=Path)
    ap.add_argument("--update", action="store_true", help="write expected.jsonl from this run")
    ap.add_argument("--port", action="append", default=[], metavar="NAME=PATH")
    ap.add_argument("--daemon-port", action="append", default=[], metavar="NAME=PATH")
    a = ap.parse_args(argv)
    write_ports = dict(p.split("=", 1) for p in a.port)
    daemon_ports = dict(p.split("=", 1) for p in a.daemon_port)
    if set(write_ports) != set(daemon_ports):
        ap.error("every --port NAME=PATH needs a --daemon-port NAME=PATH")
    got = run(a.scenario, write_ports=write_ports, daemon_ports=daemon_ports)
    expected_path = a.scenario / "expected.jsonl"
    if a.update:
        expected_path.write_text("".join(json.dumps(m) + "\n" for m in got))
        print(f"{expected_path}: {len(got)} messages written")
        return 0
    expected = [json.loads(line) for line in expected_path.read_text().splitlines() if line]
    diff = compare(expected, got)
    if diff:
        print("\n".join(diff))
        print(f"{a.scenario}: published messages differ from expected.jsonl")
        return 1
    print(f"{a.scenario}: ok, {len(got)} messages as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
