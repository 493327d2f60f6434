"""Loopback ports for the servers tests and benches start, and for connects where none listens.

Linux gives a connecting socket a port of its own from the ephemeral range
(/proc/sys/net/ipv4/ip_local_port_range, 32768-60999 by default). A port of that range that is
merely free is open to two accidents: any connect on the machine may take it as its own before
the server binds it (mosquitto then fails "Unable to create websockets listener"), and a client
connecting to it while nothing listens may be given that very port, whereupon TCP's
simultaneous open joins the socket to itself (paho reads its own CONNECT, "Unrecognised
command 16", and waits out its timeout). So `free_port` picks below that range, where no
connect's own port comes from; a port that must refuse connects is held bound (`RefusedPort`);
and a poll for a server does not count a connection to itself (`accepts_connections`).
"""

from __future__ import annotations

import random
import socket
import subprocess
import time
from pathlib import Path

LOWEST = 10_000
"""The lowest port `free_port` picks: above the well-known and most registered services'."""

_pick = random.SystemRandom()


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range of ports for connecting sockets (Linux's default when unreadable)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing is bound to now, for a server about to start: picked at random below the
    ephemeral range (module doc), so no connect takes it meanwhile. Where that range leaves too
    little room below it, the kernel's own pick (a bind to port 0)."""
    below = ephemeral_range()[0]
    for _ in range(200 if below - LOWEST >= 1000 else 0):
        port = _pick.randrange(LOWEST, below)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))  # no SO_REUSEADDR: fails for a port any socket holds
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class RefusedPort:
    """A loopback port held bound but not listening, so every connect to it is refused at once
    and no connecting socket is given it as its own (module doc). The hold is SO_REUSEADDR, as
    a server's listener is, so a server may listen on the port while it is held (a broker that
    stops leaves it refusing again); `release` frees it."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self._sock: socket.socket | None = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._sock.bind((host, port))
        except OSError:
            self.release()
            raise
        self.port: int = self._sock.getsockname()[1]

    def release(self) -> None:
        """Free the port (idempotent)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def accepts_connections(port: int, host: str = "127.0.0.1", timeout: float = 0.2) -> bool:
    """Whether a server accepts a connection on ``host:port`` now; a connect that met no server
    but the client itself (module doc) does not count."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            return bool(sock.getsockname() != sock.getpeername())
    except OSError:
        return False


def wait_port(
    port: int,
    timeout: float = 10.0,
    proc: subprocess.Popen[bytes] | None = None,
    *,
    host: str = "127.0.0.1",
) -> None:
    """Return once a server accepts connections on ``host:port``; raise if ``proc`` (the
    server's process, when given) exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not accepts_connections(port, host):
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server for port {port} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing accepted connections on port {port} in {timeout} s")
        time.sleep(0.02)  # poll interval, bounded by the deadline above
