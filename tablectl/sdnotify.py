"""systemd's service notification protocol (sd_notify), spoken directly over the socket.

systemd passes a unix datagram socket in ``$NOTIFY_SOCKET`` (a path, or an abstract-namespace
name written with a leading ``@``); each datagram is newline-separated ``KEY=VALUE`` lines. With
``Type=notify`` the unit becomes active on ``READY=1``; with ``WatchdogSec=`` the service must
send ``WATCHDOG=1`` more often than ``$WATCHDOG_USEC``. Outside systemd every call is a cheap
no-op returning False, so the daemon can call these unconditionally. No dependency needed.
"""

from __future__ import annotations

import os
import socket

import structlog

log = structlog.get_logger(__name__)


def _socket_address() -> str | None:
    """``$NOTIFY_SOCKET`` as an ``AF_UNIX`` address, or None when there is none we can use."""
    address = os.environ.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        return "\0" + address[1:]  # abstract namespace
    if address.startswith("/"):
        return address
    return None  # unset, or a transport we do not speak (e.g. systemd's "vsock:")


def notify_socket_set() -> bool:
    """Whether systemd (or a test standing in for it) listens for notifications."""
    return _socket_address() is not None


def notify(message: str) -> bool:
    """Send one notification datagram; True if it was sent, False when not under systemd.

    A send error (the manager went away, the socket is gone) is logged and returns False:
    a missed notification must never take the table down.
    """
    address = _socket_address()
    if address is None:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            # never wait on a manager that is not reading: a note must not stall the table
            sock.sendto(message.encode("utf-8"), socket.MSG_DONTWAIT, address)
    except OSError as exc:
        log.warning("sdnotify.failed", message=message, error=str(exc))
        return False
    return True


def ready() -> bool:
    """Startup finished: the unit becomes active."""
    return notify("READY=1")


def stopping() -> bool:
    """Shutdown has begun."""
    return notify("STOPPING=1")


def watchdog() -> bool:
    """Keep-alive ping for ``WatchdogSec=``."""
    return notify("WATCHDOG=1")


def status(text: str) -> bool:
    """Free-form status line shown by ``systemctl status`` (one line: newlines become spaces)."""
    return notify("STATUS=" + " ".join(text.splitlines()))


def extend_timeout(seconds: float) -> bool:
    """Ask for `seconds` more before the start (or stop) times out: sent during a long recovery,
    so `TimeoutStartSec=` bounds each stretch of progress, not the journal's age."""
    return notify(f"EXTEND_TIMEOUT_USEC={max(1, round(seconds * 1_000_000))}")


def watchdog_interval() -> float | None:
    """Seconds between watchdog pings, or None when the watchdog is not enabled for us.

    Half of ``$WATCHDOG_USEC``, as sd_watchdog_enabled(3) recommends. None when the variable is
    unset or invalid, or when ``$WATCHDOG_PID`` names another process (the watchdog is then
    that process's job, e.g. ours is a child that inherited the environment).
    """
    pid = os.environ.get("WATCHDOG_PID")
    if pid:
        try:
            if int(pid) != os.getpid():
                return None
        except ValueError:
            return None
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    if usec <= 0:
        return None
    return usec / 1_000_000 / 2
