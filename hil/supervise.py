"""A stand-in for systemd running `tablectl run` as systemd/tablectl.service says: `Type=notify`
(a unit is up once it says READY=1), `WatchdogSec=` (a daemon that stops pinging is killed with
SIGABRT), `TimeoutStartSec=` (one that never says READY=1 is killed), `Restart=always` with
`RestartSec=` (whatever way it ended, it is started again that much later). Each daemon gets a
notify socket of its own; what it said and how often it was started are kept, so a test or a
technician sees at once whether a table loops (a journal the table cannot
replay must hold it, started once, never restarted for ever).

    python -m hil.supervise --seconds 60 /etc/tablectl/table.toml [MORE.toml ...]

prints, for each config, how often it started and how it ended each time, whether it said
READY=1, its watchdog pings and its last STATUS= line; exit status 1 when any started more than
once. tests/integration/test_journal_fault_e2e.py runs ten held tables under it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RESTART_SECONDS = 2.0
"""`RestartSec=2` in systemd/tablectl.service."""
WATCHDOG_SECONDS = 30.0
"""`WatchdogSec=30`: the daemon pings every half of it."""
START_TIMEOUT_SECONDS = 90.0
"""`TimeoutStartSec=90` (a recovery may extend it; this stand-in does not need to)."""
POLL_SECONDS = 0.05


@dataclass
class Supervised:
    """One `tablectl run --config CONFIG` under the stand-in: started again `restart` seconds
    after it ends, killed (SIGABRT) when it stops feeding its watchdog or never says READY=1."""

    config: Path
    folder: Path  # its log and its notify sockets (a unix socket's path is short: keep it so)
    name: str = "table"
    restart: float = RESTART_SECONDS
    watchdog: float = WATCHDOG_SECONDS
    start_timeout: float = START_TIMEOUT_SECONDS
    python: str = sys.executable
    starts: int = 0
    ends: list[str] = field(default_factory=list)  # how each life ended: "exit 1", "SIGABRT"...
    said: list[str] = field(default_factory=list)  # every notification line, in order
    proc: subprocess.Popen[bytes] | None = None
    _sock: socket.socket | None = None
    _started_at: float = 0.0
    _pinged_at: float | None = None  # None: not READY yet in this life
    _restart_at: float | None = None

    @property
    def log(self) -> Path:
        return self.folder / f"{self.name}.log"

    @property
    def ready(self) -> int:
        """READY=1 notifications, over every life."""
        return self.said.count("READY=1")

    @property
    def pings(self) -> int:
        return self.said.count("WATCHDOG=1")

    @property
    def status(self) -> str | None:
        """The last STATUS= line (what `systemctl status` would show)."""
        lines = [s.removeprefix("STATUS=") for s in self.said if s.startswith("STATUS=")]
        return lines[-1] if lines else None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start a life: a fresh notify socket, the daemon with systemd's variables."""
        self._close_socket()
        path = self.folder / f"{self.name}-{self.starts}.notify"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(str(path))
        sock.setblocking(False)
        self._sock = sock
        env = dict(os.environ)
        env.pop("WATCHDOG_PID", None)
        env["NOTIFY_SOCKET"] = str(path)
        env["WATCHDOG_USEC"] = str(round(self.watchdog * 1_000_000))
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [self.python, "-m", "tablectl.cli", "run", "--config", str(self.config)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        self.starts += 1
        self._started_at = time.monotonic()
        self._pinged_at = None
        self._restart_at = None

    def poll(self, now: float) -> None:
        """One look: read what it said, kill it where systemd would, restart it when due."""
        self._read(now)
        if self.proc is None:
            return
        code = self.proc.poll()
        if code is None:
            self._enforce(now)
            return
        if self._restart_at is None:
            self.ends.append(f"signal {signal.Signals(-code).name}" if code < 0 else f"exit {code}")
            self._restart_at = now + self.restart
        elif now >= self._restart_at:
            self.start()

    def _read(self, now: float) -> None:
        if self._sock is None:
            return
        with contextlib.suppress(BlockingIOError):
            while True:
                lines = self._sock.recv(65536).decode("utf-8", "replace").split("\n")
                self.said += [line for line in lines if line]
                if "READY=1" in lines or "WATCHDOG=1" in lines:
                    self._pinged_at = now

    def _enforce(self, now: float) -> None:
        """SIGABRT, as systemd sends it, to a daemon whose watchdog ran out or that never said
        READY=1 in time."""
        assert self.proc is not None
        late = (
            now - self._started_at > self.start_timeout
            if self._pinged_at is None
            else now - self._pinged_at > self.watchdog
        )
        if late:
            self.proc.send_signal(signal.SIGABRT)

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM and wait (systemctl stop): its exit status, None if it was not running."""
        code = None
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._read(time.monotonic())
        self._close_socket()
        return code

    def _close_socket(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def summary(self) -> str:
        ends = ", ".join(self.ends) or "none"
        return (
            f"{self.config}: started {self.starts}x (ended: {ends}), READY=1 {self.ready}x, "
            f"{self.pings} watchdog pings, status: {self.status}"
        )


def supervise(units: list[Supervised], seconds: float) -> None:
    """Start every unit and keep them as systemd would for `seconds` (they stay running)."""
    for unit in units:
        unit.start()
    deadline = time.monotonic() + seconds
    while (now := time.monotonic()) < deadline:
        for unit in units:
            unit.poll(now)
        time.sleep(POLL_SECONDS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+", type=Path, help="table configs to run")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to watch them")
    parser.add_argument("--restart-sec", type=float, default=RESTART_SECONDS)
    parser.add_argument("--watchdog-sec", type=float, default=WATCHDOG_SECONDS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tablectl-supervise-") as tmp:
        units = [
            Supervised(c, Path(tmp), f"t{i}", restart=args.restart_sec, watchdog=args.watchdog_sec)
            for i, c in enumerate(args.configs)
        ]
        try:
            supervise(units, args.seconds)
        finally:
            for unit in units:
                unit.stop()
        for unit in units:
            print(unit.summary())
    return 1 if any(unit.starts > 1 for unit in units) else 0


if __name__ == "__main__":
    sys.exit(main())
