"""Shared fixtures: a real Mosquitto broker on a free loopback port, and a cuttable TCP proxy.

DESIGN ("Real parts, not stand-ins"): integration tests talk to the real ``mosquitto`` binary.

- ``mosquitto``: a running broker for one test (``.host``, ``.port``, ``.stop()``, ``.start()``).
- ``mosquitto_factory``: start more brokers, or one on a chosen port (``factory(port=...)``).

Here the brokers are open (anonymous clients may do anything), for the tests of the relay itself.
tests/integration/conftest.py makes them **locked** for the whole-daemon tests, as a card room's
broker is (docs/operations.md, "The broker"): no anonymous client, a password per user, and the
ACL `tablectl broker-acl` generates (tablectl/broker.py). A locked broker starts with no user at
all; ``broker.lock_for(config)`` adds a table's users (its daemon, its console, the site's pit,
floor and display roles, each with password ``password_for(user)``) and reloads the broker.
``broker_on(port)`` finds the broker a test started on a port, so the harness can give a table
config and a test client the credentials of their role from the port alone.
- ``tcp_proxy_factory``: ``await factory(host, port)`` gives a loopback proxy whose ``cut()``
  kills every connection through it at once, like a pulled cable, while the broker lives on.

Set ``TABLECTL_MOSQUITTO`` to use a broker binary that is not on PATH or in /usr/sbin.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path

import pytest

from hil.die_with_parent import die_with_parent
from hil.ports import RefusedPort, free_port, wait_port
from tablectl.broker import (
    acl_text,
    broadcast_user,
    console_user,
    display_user,
    floor_user,
    ledger_user,
    pit_user,
    room_users,
    surveillance_user,
    table_user,
)
from tablectl.config import TableConfig, load_config
from tests.helpers import MonthClock

pytest_plugins = ["tests.schema_check"]  # every payload against its schema (schemas/)

START_TIMEOUT = 10.0
STOP_TIMEOUT = 5.0


def find_mosquitto() -> str:
    """The mosquitto binary, or fail the test with how to install it (never a silent skip)."""
    candidates = [os.environ.get("TABLECTL_MOSQUITTO"), shutil.which("mosquitto")]
    candidates += ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(
        "the integration tests need the Mosquitto MQTT broker, which is not installed: "
        "install it with `apt-get install mosquitto` (Debian/Ubuntu), or point "
        "TABLECTL_MOSQUITTO at the binary",
        pytrace=False,
    )


def find_mosquitto_passwd() -> str:
    """mosquitto_passwd (in Debian's mosquitto package, beside the broker), or fail the test."""
    candidates = [shutil.which("mosquitto_passwd"), "/usr/bin/mosquitto_passwd"]
    binary = os.environ.get("TABLECTL_MOSQUITTO")
    if binary:
        candidates.insert(0, str(Path(binary).with_name("mosquitto_passwd")))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(
        "the integration tests need mosquitto_passwd, which comes with Mosquitto: install it "
        "with `apt-get install mosquitto`",
        pytrace=False,
    )


def password_for(user: str) -> str:
    """The password every locked test broker gives `user`."""
    return f"{user}-secret"


@pytest.fixture
def refused_port() -> Iterator[RefusedPort]:
    """A loopback port every connect is refused on, until the test releases it."""
    held = RefusedPort()
    try:
        yield held
    finally:
        held.release()


class MosquittoBroker:
    """One mosquitto process with a generated config; restartable on the same port. A locked one
    (``locked=True``) refuses anonymous clients and knows only the users of `lock_for`'s tables,
    with the ACL `tablectl broker-acl` makes for them."""

    def __init__(
        self,
        binary: str,
        workdir: Path,
        port: int,
        host: str = "127.0.0.1",
        *,
        locked: bool = False,
    ) -> None:
        self.binary = binary
        self.workdir = workdir
        self.host = host
        self.port = port
        self.locked = locked
        self.config_path = workdir / "mosquitto.conf"
        self.log_path = workdir / "mosquitto.log"
        self.password_path = workdir / "passwd"
        self.acl_path = workdir / "acl"
        self.tables: dict[str, TableConfig] = {}  # base topic -> the table's config
        self.proc: subprocess.Popen[bytes] | None = None
        # Held from here to the teardown (`release_port`): while the broker is down, tables
        # retrying it are refused at once, never connected to themselves, and no other test's
        # `free_port` picks the port (hil/ports.py). The broker listens on it all the same.
        self._hold: RefusedPort | None = RefusedPort(host, port)
        access = ["allow_anonymous true"]
        if locked:
            access = [
                "allow_anonymous false",
                f"password_file {self.password_path}",
                f"acl_file {self.acl_path}",
            ]
            self.password_path.write_text("")
            self.acl_path.write_text("")
        lines = [
            f"listener {port} {host}",
            *access,
            "persistence false",
            # A test subscriber shares the event loop with the relay and can fall behind; the
            # default queue of 1000 would make the broker drop QoS 1 messages for it.
            "max_queued_messages 0",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
        ]
        if os.geteuid() == 0:
            lines.insert(0, "user root")  # otherwise it tries to drop to the "mosquitto" user
        self.config_path.write_text("\n".join(lines) + "\n")
        _live()[port] = self

    def lock_for(self, *configs: Path) -> None:
        """Give these tables' users (tablectl.broker.room_users) their passwords and the ACL
        `tablectl broker-acl` prints for them, together with the tables already given; a running
        broker reloads both before this returns. A config of a table already given replaces it."""
        assert self.locked, "an open broker has no users"
        for path in configs:
            table = load_config(path).table
            self.tables[table.base_topic] = table
        users = room_users(list(self.tables.values()))
        self.lock_with([u.name for u in users], acl_text(users))

    def lock_with(self, users: Sequence[str], acl: str) -> None:
        """Give these `users` (password ``password_for(user)``) and this ACL file text, in place
        of any before; a running broker reloads both before this returns. For a test that needs
        an ACL `tablectl broker-acl` would not write (`lock_for` writes the generated one)."""
        assert self.locked, "an open broker has no users"
        self.acl_path.write_text(acl)
        self.password_path.write_text("".join(f"{u}:{password_for(u)}\n" for u in users))
        subprocess.run(  # hashes the plain passwords in place, as a technician would
            [find_mosquitto_passwd(), "-U", str(self.password_path)],
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT,
        )
        if self.running:
            self.reload()

    def reload(self) -> None:
        """SIGHUP: the broker rereads its password and ACL files. Returns once it has: the
        reload is logged and done in one step of its loop, before it reads another packet."""
        assert self.proc is not None
        before = self.log_text().count("Reloading config.")
        self.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + START_TIMEOUT
        while self.log_text().count("Reloading config.") <= before:
            if time.monotonic() > deadline:
                raise RuntimeError("mosquitto did not reload its config:\n" + self.log_text())
            time.sleep(0.01)  # poll interval, bounded by the deadline above

    def user_for(self, role: str, base: str) -> str:
        """The broker user of `role` (table console pit floor display broadcast surveillance
        ledger) for the table at `base`."""
        _, site, table = base.split("/")
        if role == "table":
            return table_user(self.tables[base])
        by_role = {
            "console": console_user(site, table),
            "pit": pit_user(site),
            "floor": floor_user(site),
            "display": display_user(site),
            "broadcast": broadcast_user(site),
            "ledger": ledger_user(site),
            "surveillance": surveillance_user(site),
        }
        return by_role[role]

    def credentials(self, role: str, base: str) -> tuple[str, str] | None:
        """(user, password) of `role` for the table at `base` on a locked broker; None on an
        open one, where nobody needs any."""
        if not self.locked:
            return None
        user = self.user_for(role, base)
        return user, password_for(user)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start (or restart) the broker and return once its port accepts connections."""
        if self.running:
            return
        with self.log_path.open("ab") as log_file:
            self.proc = subprocess.Popen(
                die_with_parent([self.binary, "-c", str(self.config_path)]),
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
        try:
            wait_port(self.port, START_TIMEOUT, self.proc, host=self.host)
        except (RuntimeError, TimeoutError) as exc:
            self.stop()
            raise RuntimeError(f"mosquitto: {exc}:\n" + self.log_text()) from None

    def stop(self) -> None:
        """Stop the broker (SIGTERM, then SIGKILL if it lingers); clients see the link drop."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """Kill the broker with SIGKILL: a crash rather than a shutdown."""
        self._end(signal.SIGKILL)

    def _end(self, sig: signal.Signals) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=STOP_TIMEOUT)

    def release_port(self) -> None:
        """Free the port the broker holds from its making (the fixture's teardown calls it)."""
        if self._hold is not None:
            self._hold.release()
            self._hold = None

    def log_text(self) -> str:
        """Everything the broker logged so far (across restarts)."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def __repr__(self) -> str:
        return f"<MosquittoBroker {self.host}:{self.port} running={self.running}>"


MosquittoFactory = Callable[..., MosquittoBroker]


LIVE: dict[int, MosquittoBroker] = {}
"""Port -> the broker a test started there (see `_live`)."""


def _live() -> dict[int, MosquittoBroker]:
    """`LIVE` of the module `tests.conftest`. pytest loads this file as module `conftest`, and
    the tests import it as `tests.conftest`, two copies with a `LIVE` each: every broker is
    registered in the second one, the one `broker_on` (imported from tests.conftest) reads."""
    import tests.conftest

    return tests.conftest.LIVE


def broker_on(port: int) -> MosquittoBroker | None:
    """The broker this test started on `port`, if any."""
    return _live().get(port)


def broker_factory(tmp_path: Path, *, locked: bool) -> Iterator[MosquittoFactory]:
    """``factory(port=None, start=True, locked=<default>)``: a new broker in its own directory;
    all are stopped at teardown. Without ``port`` a free one is picked (retrying if another
    process grabs it). ``locked`` is this fixture's default unless given."""
    binary = find_mosquitto()
    brokers: list[MosquittoBroker] = []
    default_locked = locked

    def factory(
        port: int | None = None, *, start: bool = True, locked: bool | None = None
    ) -> MosquittoBroker:
        attempts = 1 if port is not None else 5
        for attempt in range(attempts):
            workdir = tmp_path / f"mosquitto-{len(brokers)}-{attempt}"
            workdir.mkdir()
            try:
                broker = MosquittoBroker(
                    binary,
                    workdir,
                    port if port is not None else free_port(),
                    locked=default_locked if locked is None else locked,
                )
            except OSError:  # its port's hold: the free port was taken in the meantime
                if attempt == attempts - 1:
                    raise
                continue
            brokers.append(broker)
            if not start:
                return broker
            try:
                broker.start()
            except RuntimeError:
                if attempt == attempts - 1:
                    raise
                continue  # the free port was taken in the meantime; try another one
            return broker
        raise AssertionError("unreachable")

    yield factory
    for broker in brokers:
        broker.kill()
        broker.release_port()
        if _live().get(broker.port) is broker:
            del _live()[broker.port]


@pytest.fixture
def mosquitto_factory(tmp_path: Path) -> Iterator[MosquittoFactory]:
    """Open brokers (anonymous clients allowed); ``factory(locked=True)`` for a locked one."""
    yield from broker_factory(tmp_path, locked=False)


@pytest.fixture
def mosquitto(mosquitto_factory: MosquittoFactory) -> MosquittoBroker:
    """A running broker on a free loopback port, private to the test."""
    return mosquitto_factory()


class TcpProxy:
    """Forwards loopback connections to a target; ``cut()`` resets them all at once."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.host = "127.0.0.1"
        self.port = 0
        self.accepted = 0
        self._server: asyncio.Server | None = None
        self._transports: set[asyncio.WriteTransport] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def connections(self) -> int:
        """How many proxied connections are open now."""
        return len(self._transports) // 2

    def cut(self) -> None:
        """Abort every open connection (RST to both sides, no goodbye from either end)."""
        for transport in list(self._transports):
            transport.abort()
        self._transports.clear()

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.accepted += 1
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(
                    self.target_host, self.target_port
                )
            except OSError:
                writer.transport.abort()
                return
            pair = {writer.transport, up_writer.transport}
            self._transports |= pair
            await asyncio.gather(
                self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
            )
            self._transports -= pair
            for transport in pair:
                transport.close()
        finally:
            self._tasks.discard(task)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copy one direction; pass an orderly close on as a half-close (FIN), so data that
        precedes it (e.g. an MQTT DISCONNECT) is never thrown away by a reset."""
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
        except BaseException:
            writer.transport.abort()
            raise


@pytest.fixture
async def tcp_proxy_factory() -> AsyncIterator[Callable[[str, int], Awaitable[TcpProxy]]]:
    """``await factory(host, port)``: a started `TcpProxy` to host:port, closed at teardown."""
    proxies: list[TcpProxy] = []

    async def factory(host: str, port: int) -> TcpProxy:
        proxy = TcpProxy(host, port)
        await proxy.start()
        proxies.append(proxy)
        return proxy

    yield factory
    for proxy in proxies:
        with contextlib.suppress(Exception):
            await proxy.close()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> MonthClock:
    """The daemon's clock set by the test: records fall in `clock.month` (tests.helpers), and
    so does every time the daemon's modules read (a status, a notice, a month's close)."""
    c = MonthClock()
    for module in DAEMON_CLOCK_READERS:
        monkeypatch.setattr(f"{module}.now_ts", c)
    return c


DAEMON_CLOCK_READERS = tuple(
    f"tablectl.daemon.{name}"
    for name in (
        "commands",
        "inputs",
        "mqtt_link",
        "recovery",
        "state",
        "status_report",
        "supervision",
    )
)
"""The daemon's modules that read the time (`from tablectl.records import now_ts`)."""
