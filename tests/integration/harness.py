"""Real parts for whole-daemon tests: the daemon as a child process or in-process on its own
thread, a paho subscriber that also sends console commands, a table config wired to a simulated
shoe on a real pty, and a driver plugin that reads a USB device through the simulated pyusb
backend.

On a locked broker (tests/integration/conftest.py) a table config gets its daemon's broker user
and password file, and the broker the users and ACL `tablectl broker-acl` makes for the table;
a `Console` connects with the credentials of its role (the dealer console by default)."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hil.die_with_parent import die_with_parent
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl_drivers.connect import connect
from tablectl_drivers.link import ProtocolFactory
from tablectl_drivers.shoe.device import ShoeDriver
from tests.conftest import MosquittoBroker, broker_on, password_for

REPO = Path(__file__).resolve().parents[2]
SCHEDULES = REPO / "config" / "schedules" / "ez-baccarat-panda8.toml"
TIMEOUT = 20.0


def write_config(folder: Path, *, shoe_port: str, mqtt_port: int, table: str = "t1") -> Path:
    """A baccarat table config in `folder` whose shoe is at `shoe_port`: a simulator's
    pseudo-terminal (`emulator = true` says so, as a pty port needs) or a stand-in path."""
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
emulator = true
port = "{shoe_port}"
[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5
[journal]
path = "journal.db"
"""
    )
    broker = broker_on(mqtt_port)
    if broker is not None and broker.locked:
        lock_table(path, broker, f"table-it-{table}")
    return path


SHOE_ON_DEV_NULL = (
    '[[devices]]\nname = "shoe"\ndriver = "shoe"\nemulator = true\nport = "/dev/null"\n'
)
"""The shoe of a `write_config(..., shoe_port="/dev/null")` table, as written."""


def without_shoe(path: Path) -> Path:
    """The `write_config(..., shoe_port="/dev/null")` table at `path` without its shoe: the cards
    come in as inputs the test submits, which the config says as a table whose dealer keys the
    cards at the console must (`manual_entry`)."""
    text = path.read_text()
    assert text.count(SHOE_ON_DEV_NULL) == 1, f"{path}: expected the shoe on /dev/null"
    path.write_text("manual_entry = true\n" + text.replace(SHOE_ON_DEV_NULL, ""))
    return path


def lock_table(path: Path, broker: MosquittoBroker, user: str) -> None:
    """Give the table config at `path` broker user `user` and a password file beside it, and the
    locked `broker` the users and ACL for that table (`tablectl broker-acl`)."""
    secret = path.parent / "mqtt-password"
    secret.write_text(password_for(user) + "\n")
    text = path.read_text()
    assert text.count("\n[mqtt]\n") == 1, f"{path}: expected one [mqtt] table"
    mqtt_keys = f'username = "{user}"\npassword_file = "{secret}"\n'
    path.write_text(text.replace("\n[mqtt]\n", f"\n[mqtt]\n{mqtt_keys}"))
    broker.lock_for(path)


class DaemonProcess:
    """`tablectl run` in a child process, killable for real."""

    def __init__(
        self,
        config: Path,
        env: dict[str, str] | None = None,
        *,
        command: Sequence[str] = ("run",),
        log: str = "daemon.log",
    ) -> None:
        self.config = config
        self.env = env or {}
        self.command = tuple(command)  # `("ledger", "run")` runs the ledger the same way
        self.log = config.parent / log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = dict(os.environ)
        env.pop("NOTIFY_SOCKET", None)
        env.update(self.env)
        argv = [sys.executable, "-m", "tablectl.cli", *self.command, "--config", str(self.config)]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                die_with_parent(argv),
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
    """A subscriber on `<base>/#` that sends `cmd/<verb>` like a dealer console. On a locked
    broker it connects as `role`'s user (tablectl/broker.py): ``console`` (the default) reads the
    table's topics and may send commands, ``floor`` reads all but the commands and sends none,
    ``pit``, ``display`` and ``table`` as their names say. ``subscribed`` is set once the broker
    has granted the subscription (its SUBACK)."""

    def __init__(
        self,
        port: int,
        base: str,
        *,
        client_id: str = "it-console",
        persistent: bool = False,
        role: str = "console",
    ) -> None:
        self.base = base
        self.messages: list[Message] = []
        self.subscribed = threading.Event()
        self._connected_at: list[int] = []  # len(messages) at each of this client's connects
        self._cond = threading.Condition()
        self._ids = 0
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent
        )
        broker = broker_on(port)
        credentials = broker.credentials(role, base) if broker is not None else None
        if credentials is not None:
            self.client.username_pw_set(*credentials)
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        # paho annotates the delays as int, but they are seconds it adds to time.monotonic():
        # fractions work, and the tests need a reconnect well under a second.
        self.client.reconnect_delay_set(0.1, 0.5)  # type: ignore[arg-type]
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, *_: Any) -> None:
        if not reason.is_failure:
            with self._cond:
                self._connected_at.append(len(self.messages))
            client.subscribe(f"{self.base}/#", qos=1)

    def _on_subscribe(self, _c: mqtt.Client, _u: Any, _mid: int, reasons: Any, *_: Any) -> None:
        if reasons and not any(r.is_failure for r in reasons):
            self.subscribed.set()

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            payload = msg.payload.decode(errors="replace")
        with self._cond:
            self.messages.append(Message(msg.topic, payload, bool(msg.retain)))
            self._cond.notify_all()

    def close(self) -> None:
        self.client.disconnect()  # first, while the loop still runs: it sends DISCONNECT at once
        self.client.loop_stop()

    def on(self, suffix: str) -> list[Any]:
        with self._cond:
            return [m.payload for m in self.messages if m.topic == f"{self.base}/{suffix}"]

    def times_online(self) -> int:
        """How many times this subscriber saw the table come online: its first `online`, each
        one after an `offline`, and the first after this subscriber connected again (a broker
        restart ends the table's connection too). Not the number of `online` messages: the
        table says `online` again every `[mqtt] heartbeat_seconds` (docs/mqtt.md `status`)."""
        times, last = 0, None
        with self._cond:
            for n, m in enumerate(self.messages):
                if n in self._connected_at:
                    last = None
                if m.topic == f"{self.base}/status":
                    if m.payload == "online" and last != "online":
                        times += 1
                    last = m.payload
        return times

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


class DaemonThread:
    """`Daemon(load_config(path)).run(install_signals=False)` in-process, on its own event loop in
    a thread, so a synchronous test (and paho's network thread) can drive it over MQTT while the
    test also drives the emulators. Use as a context manager; leaving it stops the daemon cleanly
    and re-raises anything the daemon raised."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.daemon: Daemon | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="it-daemon", daemon=True)

    def _main(self) -> None:
        async def run() -> None:
            self._loop = asyncio.get_running_loop()
            self.daemon = Daemon(load_config(self.config))  # its SQLite lives in this thread
            self._started.set()
            await self.daemon.run(install_signals=False)

        try:
            asyncio.run(run())
        except BaseException as exc:  # handed to the test thread by stop()
            self._error = exc
        finally:
            self._started.set()

    def __enter__(self) -> DaemonThread:
        self._thread.start()
        if not self._started.wait(TIMEOUT) or self.daemon is None:
            raise AssertionError(f"the daemon did not start: {self._error!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the daemon (as SIGTERM would) and wait for its clean shutdown."""
        assert self._loop is not None and self.daemon is not None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self.daemon.stop)
            self._thread.join(TIMEOUT)
            assert not self._thread.is_alive(), "the daemon did not stop"
        if self._error is not None:
            raise AssertionError("the daemon raised") from self._error
        assert not self.daemon.failed, "a daemon task failed (see the log)"


# -- a USB device behind the daemon: the simulated pyusb backend through a driver plugin -----------

SIM_USB_BACKENDS: dict[str, Any] = {}
"""`usb:` port -> the pyusb backend object (drivers.sim.usb_backend.SimUsbBackend) serving it."""


class SimUsbShoeDriver(ShoeDriver):
    """The real ShoeDriver, opening its `usb:` port through tablectl_drivers/connect.py with the
    simulated pyusb backend registered for that port in SIM_USB_BACKENDS. The daemon builds a driver
    from its four positional arguments only, so a plugin is the one way to hand it a backend."""

    def __init__(self, name: str, port: str, baud: int, options: Mapping[str, Any]) -> None:
        backend = SIM_USB_BACKENDS[port]

        async def via_sim(
            factory: ProtocolFactory, url: str, rate: int
        ) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
            return await connect(factory, url, rate, usb_backend=backend)

        super().__init__(name, port, baud, options, connect=via_sim)


SIM_USB_SHOE = "it-sim-usb-shoe"
"""The driver name SimUsbPlugin registers SimUsbShoeDriver under."""


class SimUsbPlugin:
    """Installs SimUsbShoeDriver as a vendor driver plugin the way a package would: a dist-info
    folder on sys.path with a `tablectl.drivers` entry point (tablectl_drivers/registry.py finds it
    through importlib.metadata, as it finds any plugin). Context manager; leaving it uninstalls
    it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "site"

    def __enter__(self) -> SimUsbPlugin:
        info = self.folder / "tablectl_it_sim_usb-0.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: tablectl-it-sim-usb\nVersion: 0.0\n"
        )
        (info / "entry_points.txt").write_text(
            f"[tablectl.drivers]\n{SIM_USB_SHOE} = {__name__}:SimUsbShoeDriver\n"
        )
        sys.path.insert(0, str(self.folder))
        importlib.invalidate_caches()
        return self

    def __exit__(self, *exc: object) -> None:
        sys.path.remove(str(self.folder))
