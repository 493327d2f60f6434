"""sd_notify over a real unix datagram socket, as systemd would receive it."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl import sdnotify


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No systemd variables leak in from the environment running the tests."""
    for name in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def notify_socket(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[socket.socket]:
    """A bound datagram socket at a path, announced in $NOTIFY_SOCKET like systemd does."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.settimeout(2)
        clean_env.setenv("NOTIFY_SOCKET", str(path))
        yield sock


def receive(sock: socket.socket) -> bytes:
    return sock.recv(4096)


def test_not_under_systemd_is_a_quiet_no(clean_env: pytest.MonkeyPatch) -> None:
    assert sdnotify.notify("READY=1") is False
    assert sdnotify.ready() is False
    assert sdnotify.watchdog() is False


def test_helpers_send_the_protocol_lines(notify_socket: socket.socket) -> None:
    assert sdnotify.ready() is True
    assert receive(notify_socket) == b"READY=1"
    assert sdnotify.watchdog() is True
    assert receive(notify_socket) == b"WATCHDOG=1"
    assert sdnotify.stopping() is True
    assert receive(notify_socket) == b"STOPPING=1"
    assert sdnotify.status("round 57\nbanker wins") is True
    assert receive(notify_socket) == b"STATUS=round 57 banker wins"
    assert sdnotify.notify("READY=1\nSTATUS=ok") is True
    assert receive(notify_socket) == b"READY=1\nSTATUS=ok"


def test_abstract_namespace_socket(clean_env: pytest.MonkeyPatch) -> None:
    name = f"tablectl-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        clean_env.setenv("NOTIFY_SOCKET", "@" + name)
        assert sdnotify.ready() is True
        assert receive(sock) == b"READY=1"


def test_socket_gone_returns_false(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert sdnotify.watchdog() is False


def test_unsupported_address_returns_false(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("NOTIFY_SOCKET", "vsock:2:1234")
    assert sdnotify.ready() is False


@pytest.mark.parametrize(
    ("usec", "pid", "expected"),
    [
        (None, None, None),
        ("30000000", None, 15.0),  # WatchdogSec=30 -> ping every 15 s
        ("30000000", "self", 15.0),
        ("30000000", "other", None),  # someone else's watchdog
        ("0", None, None),
        ("-5", None, None),
        ("soon", None, None),
        ("30000000", "not-a-pid", None),
    ],
)
def test_watchdog_interval(
    clean_env: pytest.MonkeyPatch, usec: str | None, pid: str | None, expected: float | None
) -> None:
    if usec is not None:
        clean_env.setenv("WATCHDOG_USEC", usec)
    if pid == "self":
        clean_env.setenv("WATCHDOG_PID", str(os.getpid()))
    elif pid == "other":
        clean_env.setenv("WATCHDOG_PID", str(os.getpid() + 1))
    elif pid is not None:
        clean_env.setenv("WATCHDOG_PID", pid)
    assert sdnotify.watchdog_interval() == expected


def test_extend_timeout_is_in_microseconds(notify_socket: socket.socket) -> None:
    assert sdnotify.extend_timeout(30) is True
    assert receive(notify_socket) == b"EXTEND_TIMEOUT_USEC=30000000"


def test_a_recovery_tells_systemd_how_far_it_got_and_asks_for_more_time(
    notify_socket: socket.socket, tmp_path: Path
) -> None:
    """A recovery longer than a note's interval sends STATUS= with the record
    it reached and EXTEND_TIMEOUT_USEC=, so TimeoutStartSec bounds progress, not history."""
    from tablectl.config import load_config
    from tablectl.daemon import Daemon
    from tablectl.daemon.state import Input
    from tests.helpers import bank, wager, write_config

    path = write_config(tmp_path)
    first = Daemon(load_config(path), mqtt=False)
    first.recover()
    # Few records: each sends two notes, and a datagram socket queues only 10 by default
    # (net.unix.max_dgram_qlen), so a busy machine must not drop any before the reader runs.
    for event in [bank(3, "500"), wager(4, "player", "20")]:
        first._ingest(Input("test", event))
    first.journal.close()
    notify_socket.settimeout(0.05)
    with pytest.raises(TimeoutError):
        while True:  # drop what the first daemon said
            receive(notify_socket)
    said: list[str] = []

    def listen() -> None:  # systemd reads as the notes come
        with contextlib.suppress(TimeoutError):
            while True:
                said.append(receive(notify_socket).decode())

    notify_socket.settimeout(1.0)
    reader = threading.Thread(target=listen)
    reader.start()
    again = Daemon(load_config(path), mqtt=False)
    records = again.recover(progress_every=0.0)
    again.journal.close()
    reader.join()
    assert said[0] == f"STATUS=recovering {records} journal records"
    assert said.count("EXTEND_TIMEOUT_USEC=30000000") == records
    assert f"STATUS=recovering: record {records} of {records}" in said


async def test_a_running_table_keeps_systemds_status_line_current(
    notify_socket: socket.socket, tmp_path: Path
) -> None:
    """`systemctl status` shows the round and its phase, a hold, the broker and the unsent
    count; a new line is sent when any of it changes."""
    import asyncio

    from tablectl.config import load_config
    from tablectl.daemon import Daemon
    from tests.helpers import write_config

    daemon = Daemon(load_config(write_config(tmp_path)), mqtt=False)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    said: list[str] = []
    notify_socket.setblocking(False)
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(5):
            while not any(s.startswith("STATUS=round") for s in said):
                said.append((await loop.sock_recv(notify_socket, 4096)).decode())
        await daemon.submit("cmd/bank", {"type": "bank", "seat": 3, "amount": "500"})
        async with asyncio.timeout(5):
            while daemon.table.state_payload().get("player_dealer") is None:
                await asyncio.sleep(0.01)
    finally:
        daemon.stop()
        await runner
    status = [s for s in said if s.startswith("STATUS=round")]
    # mqtt off: the messages of the journal's config record wait unsent, and say so
    assert re.fullmatch(r"STATUS=round 1 betting; mqtt off; [0-9]+ unsent", status[0])
    assert "READY=1" in said
