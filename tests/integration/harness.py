"""Real parts for whole-daemon tests: the daemon as a child process, a paho subscriber that also
sends console commands, and a table config wired to a simulated shoe on a real pty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

REPO = Path(__file__).resolve().parents[2]
SCHEDULES = REPO / "config" / "schedules" / "ez-baccarat-panda8.toml"
TIMEOUT = 20.0


def write_config(folder: Path, *, shoe_port: str, mqtt_port: int, table: str = "t1") -> Path:
    path = folder / "table.toml"
    path.write_text(
        f"""site = "it"
table = "{table}"
log_level = "debug"
[game]
id = "ez-baccarat-panda8"
decks = 8
[seats]
count = 7
[limits]
min = "5"
max = "500"
[collection]
file = "{SCHEDULES}"
option = 3
[[devices]]
name = "shoe"
driver = "shoe"
port = "{shoe_port}"
[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5
[journal]
path = "journal.db"
"""
    )
    return path


class DaemonProcess:
    """`tablectl run` in a child process, killable for real."""

    def __init__(self, config: Path, env: dict[str, str] | None = None) -> None:
        self.config = config
        self.env = env or {}
        self.log = config.parent / "daemon.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = dict(os.environ)
        env.pop("NOTIFY_SOCKET", None)
        env.update(self.env)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tablectl.cli", "run", "--config", str(self.config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=REPO,
                env=env,
            )

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=TIMEOUT)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=TIMEOUT)

    def stop_quietly(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=TIMEOUT)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@dataclass(frozen=True)
class Message:
    topic: str
    payload: Any
    retain: bool


class Console:
    """A floor-system subscriber on `<base>/#` that sends `cmd/<verb>` like a dealer console."""

    def __init__(
        self, port: int, base: str, *, client_id: str = "it-console", persistent: bool = False
    ) -> None:
        self.base = base
        self.messages: list[Message] = []
        self._cond = threading.Condition()
        self._ids = 0
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent
        )
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *_: Any) -> None:
        client.subscribe(f"{self.base}/#", qos=1)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            payload = msg.payload.decode(errors="replace")
        with self._cond:
            self.messages.append(Message(msg.topic, payload, bool(msg.retain)))
            self._cond.notify_all()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()

    def on(self, suffix: str) -> list[Any]:
        with self._cond:
            return [m.payload for m in self.messages if m.topic == f"{self.base}/{suffix}"]

    def wait_for(self, what: str, cond: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not cond():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self._cond.wait(left)

    def send(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        """Publish a command and wait for its reply; returns the reply payload."""
        self._ids += 1
        ref = f"c{self._ids}-{time.monotonic_ns()}"
        self.client.publish(f"{self.base}/cmd/{verb}", json.dumps({"id": ref, **body}), qos=1)
        found: list[dict[str, Any]] = []

        def replied() -> bool:
            found[:] = [p for p in self.on(f"cmd/{verb}/reply") if p.get("id") == ref]
            return bool(found)

        self.wait_for(f"reply to cmd/{verb} {body}", replied)
        return found[0]

    def ok(self, verb: str, body: dict[str, Any]) -> None:
        reply = self.send(verb, body)
        assert reply["ok"], reply

    def device_available(self) -> bool:
        st = self.on("device/shoe/status")
        return bool(st) and st[-1].get("available") is True
