"""sd_notify over a real unix datagram socket, as systemd would receive it."""

from __future__ import annotations

import os
import socket
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
