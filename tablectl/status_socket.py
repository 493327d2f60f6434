"""The daemon's local status socket: how `tablectl status` reads the running table without an
MQTT client, even while the disk is full or the table held.

The daemon listens on a unix stream socket beside its journal (`socket_path`: the journal's path
and `.sock`, e.g. /var/lib/tablectl/bac-01.db.sock). Whoever connects gets one JSON object, the
status report (tablectl/daemon/status_report.py), and a newline; the daemon then closes the
connection. It reads nothing from the client: the socket can only tell, never change, the table.

Why a socket and not a status file refreshed every second (docs/operations.md "Is the table
running?"): the table must say "held, the journal cannot be written" exactly when its disk is
full, and a file beside the journal cannot be rewritten then (a new file needs a block); a
socket needs no disk after it is bound. It writes nothing every second (no wear, no stale
copy), its answer is the daemon's memory at that moment, and "not running" needs no guessing
from a pid and a file's age: no socket (a clean stop removes it), a socket nobody answers on
(the daemon was killed, or crashed), or no answer in ANSWER_SECONDS (its event loop is stuck,
which systemd's watchdog ends).

The socket is mode 0660: the service user and its group (add a technician to group
`tablectl`, or use sudo); its folder is the journal's (the unit's state directory, 0750).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

from tablectl.paths import kind

log = structlog.get_logger("tablectl.status")

SOCKET_SUFFIX = ".sock"
SOCKET_MODE = 0o660
ANSWER_SECONDS = 3.0
"""How long `tablectl status` waits for the daemon's answer, and the daemon for a slow reader."""
MAX_PATH_BYTES = 107
"""The longest path a unix socket can be bound at on Linux (sun_path, less its final NUL)."""
MAX_ANSWER_BYTES = 1 << 20
"""The most `read_status` reads: a report is a few hundred bytes a device."""


def socket_path(journal: Path) -> Path:
    """Where the daemon of the journal at `journal` listens: beside it, its name and `.sock`."""
    return Path(f"{journal}{SOCKET_SUFFIX}")


class StatusServer:
    """The listening socket: `start` binds it (or logs why it cannot, and the table runs on
    without it), each connection gets `report()` as JSON, `close` removes it."""

    def __init__(self, path: Path, report: Callable[[], dict[str, Any]]) -> None:
        self.path = path
        self._report = report
        self._server: asyncio.Server | None = None
        self._inode: int | None = None

    async def start(self) -> bool:
        """Listen at `path`; False (logged) when it cannot: a path too long, something that is
        not a socket in its place, another daemon answering there, a bind the system refuses.
        A socket left by a daemon that was killed (nobody answers on it) is replaced."""
        problem = await self._in_the_way()
        if problem is not None:
            log.error(
                "status.socket_unavailable",
                socket=str(self.path),
                reason=problem,
                detail="the table runs; `tablectl status` cannot reach it",
            )
            return False
        try:
            # Made with its mode by the umask (never a chmod after it, which would follow a link
            # someone put in its place onto a file tablectl did not make); the bind is
            # synchronous inside start_unix_server, before its first await returns to the loop.
            umask = os.umask(0o777 & ~SOCKET_MODE)
            try:
                self._server = await asyncio.start_unix_server(self._answer, path=str(self.path))
            finally:
                os.umask(umask)
            self._inode = os.lstat(self.path).st_ino
        except OSError as exc:
            log.error(
                "status.socket_unavailable",
                socket=str(self.path),
                reason=str(exc),
                detail="the table runs; `tablectl status` cannot reach it",
            )
            await self.close()
            return False
        log.info("status.socket", socket=str(self.path))
        return True

    async def _in_the_way(self) -> str | None:
        """Why the socket cannot be bound at `path` now, or None (a stale socket of a daemon
        that is gone is no reason: `asyncio.start_unix_server` replaces it)."""
        if len(os.fsencode(self.path)) > MAX_PATH_BYTES:
            return (
                f"the path is {len(os.fsencode(self.path))} bytes; a unix socket's is at most "
                f"{MAX_PATH_BYTES}: give the journal a shorter path"
            )
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return None
        if not stat.S_ISSOCK(st.st_mode):
            return f"{self.path} is {kind(st.st_mode)}, not a socket: move it away"
        try:
            async with asyncio.timeout(ANSWER_SECONDS):
                _, writer = await asyncio.open_unix_connection(str(self.path))
        except (OSError, TimeoutError):
            return None  # nobody answers: the socket of a daemon that was killed
        writer.close()
        return f"another daemon answers at {self.path} (the same journal, or a copy of its path)"

    async def _answer(self, _reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client: the report as one JSON line, then the connection closed. A report that
        fails is logged with its traceback and answered with its error, never taking the
        table down; a client that leaves early is no matter."""
        try:
            body = self._report()
        except Exception as exc:
            log.error("status.report_failed", exc_info=exc)
            body = {"error": f"the daemon could not make its report: {type(exc).__name__}: {exc}"}
        writer.write(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
        try:
            async with asyncio.timeout(ANSWER_SECONDS):
                await writer.drain()
        except (OSError, TimeoutError) as exc:
            log.debug("status.reader_gone", error=repr(exc))
        finally:
            writer.close()

    async def close(self) -> None:
        """Stop listening and remove the socket, if it is still the one this server bound."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await server.wait_closed()
        if self._inode is not None:
            with contextlib.suppress(FileNotFoundError):  # removed by hand: nothing left to do
                if os.lstat(self.path).st_ino == self._inode:
                    os.unlink(self.path)
            self._inode = None


class NotRunning(Exception):
    """No daemon answered at the socket with a report: the message says what was found."""


class StatusUnreadable(Exception):
    """The socket cannot be asked by this user (its mode is 0660) or at this path (too long for
    a unix socket): a usage or config error, not a table that is not running."""


def read_status(path: Path, timeout: float = ANSWER_SECONDS) -> dict[str, Any]:
    """The report of the daemon listening at `path`; NotRunning saying why when none answers,
    StatusUnreadable when this user may not ask."""
    size = len(os.fsencode(path))
    if size > MAX_PATH_BYTES:
        raise StatusUnreadable(
            f"{path} is {size} bytes, longer than a unix socket's {MAX_PATH_BYTES}: this table "
            "has no status socket; give its journal a shorter path"
        )
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(os.fspath(path))
        except FileNotFoundError:
            raise NotRunning(
                f"no status socket at {path}: the daemon is not running (or runs with another "
                "journal path)"
            ) from None
        except ConnectionRefusedError:
            raise NotRunning(
                f"nothing answers at {path}: the daemon stopped without removing it "
                "(killed, or it crashed)"
            ) from None
        except PermissionError as exc:
            raise StatusUnreadable(
                f"{path}: {exc.strerror}: ask as the service user (sudo -u tablectl tablectl "
                "status) or as root (docs/operations.md 'Is the table running?')"
            ) from None
        except TimeoutError:
            raise NotRunning(_silent(path, timeout)) from None
        except OSError as exc:  # a folder on the way that is not one, a loop of links
            raise NotRunning(f"cannot connect to {path}: {exc.strerror or exc}") from None
        data = bytearray()
        try:
            while len(data) < MAX_ANSWER_BYTES:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except TimeoutError:
            raise NotRunning(_silent(path, timeout)) from None
        except OSError as exc:
            raise NotRunning(f"the daemon at {path} broke off its answer: {exc}") from None
    try:
        report = json.loads(data)
    except ValueError as exc:
        raise NotRunning(f"the daemon at {path} answered no status report ({exc})") from None
    if not isinstance(report, dict):
        raise NotRunning(f"the daemon at {path} answered no status report (not an object)")
    if "error" in report:
        raise NotRunning(f"the daemon at {path} answered: {report['error']}")
    return report


def _silent(path: Path, timeout: float) -> str:
    return (
        f"the daemon at {path} did not answer within {timeout:g} s (its event loop is stuck; "
        "systemd's watchdog restarts it)"
    )
