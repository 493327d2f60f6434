"""The port helpers of hil/ports.py: why each exists is in its module doc (a relay once sat in
``connecting`` in CI, connected to itself on a free ephemeral port where nothing listened)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from hil import ports
from hil.ports import (
    LOWEST,
    RefusedPort,
    accepts_connections,
    ephemeral_range,
    free_port,
    wait_port,
)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A loopback server socket, listening."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


def test_a_free_port_is_below_the_ephemeral_range_and_bindable() -> None:
    low, high = ephemeral_range()
    assert low < high
    for _ in range(50):
        port = free_port()
        assert LOWEST <= port < low  # never a connecting socket's own
        with socket.socket() as server:
            server.bind(("127.0.0.1", port))


def test_a_free_port_is_never_one_a_socket_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pick that something holds (here a RefusedPort, as a stopped test broker holds its port)
    is passed over for the next."""
    held, spare = RefusedPort(port=free_port()), free_port()
    picks = iter([held.port, spare])
    monkeypatch.setattr(ports, "_pick", SimpleNamespace(randrange=lambda *_: next(picks)))
    try:
        assert free_port() == spare
    finally:
        held.release()


def test_the_refused_port_refuses_a_connect_and_no_client_can_take_it_as_its_own() -> None:
    """Held, every connect is refused at once, and the port cannot be a client's own: binding it
    fails, as the kernel's pick of a client's port skips it. Released, a server may take it."""
    held = RefusedPort()
    try:
        with socket.socket() as client, pytest.raises(ConnectionRefusedError):
            client.connect((held.host, held.port))
        with socket.socket() as client, pytest.raises(OSError, match="in use"):
            client.bind((held.host, held.port))
        held.release()
        with socket.socket() as server:
            server.bind((held.host, held.port))
    finally:
        held.release()


def test_a_server_listens_on_a_held_port_and_it_refuses_again_once_the_server_is_gone() -> None:
    held = RefusedPort()
    try:
        with socket.socket() as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as mosquitto's
            server.bind((held.host, held.port))
            server.listen()
            assert accepts_connections(held.port)
        assert not accepts_connections(held.port)
    finally:
        held.release()


def test_a_connection_to_itself_is_not_a_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kernel joins a socket bound to port P and connecting to P to itself (simultaneous
    open): the connect succeeds with no server anywhere."""
    port = free_port()
    itself = socket.socket()
    itself.bind(("127.0.0.1", port))
    itself.connect(("127.0.0.1", port))
    assert itself.getpeername() == itself.getsockname()
    monkeypatch.setattr(socket, "create_connection", lambda *_a, **_k: itself)
    assert not accepts_connections(port)


def test_wait_port_returns_for_a_server_and_names_what_went_wrong_otherwise(
    listener: socket.socket,
) -> None:
    wait_port(listener.getsockname()[1], timeout=5)
    held = RefusedPort()
    try:
        with pytest.raises(TimeoutError, match=f"port {held.port}"):
            wait_port(held.port, timeout=0.1)
        gone = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
        gone.wait()
        with pytest.raises(RuntimeError, match="exited with 3"):
            wait_port(held.port, timeout=5, proc=gone)
    finally:
        held.release()
