"""A real PostgreSQL for a test or a benchmark: `initdb` into a temporary folder and `pg_ctl
start` on a free loopback port, as the tests start Mosquitto (tests/conftest.py). The server
runs as the current user, or as Debian's `postgres` user when run as root (PostgreSQL refuses
root). The ledger's tests (tests/ledger/) and `hil/fleet.py --ledger` use it."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from hil.ports import free_port

PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
SUPERUSER = "tablectl"


def find_pg_binary(name: str) -> str:
    """`initdb` or `pg_ctl`: TABLECTL_PG_BIN's, the newest Debian one, or the PATH's; else an
    error saying how to install it (a test fails on it: never a silent skip)."""
    dirs = [os.environ.get("TABLECTL_PG_BIN"), *map(str, PG_BIN_DIRS)]
    for d in dirs:
        if d and (Path(d) / name).is_file():
            return str(Path(d) / name)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(
        f"the ledger tests need PostgreSQL's {name}: install it with `apt-get install "
        "postgresql` (Debian/Ubuntu), or set TABLECTL_PG_BIN to the folder holding it"
    )


class PostgresServer:
    """One PostgreSQL cluster in a folder of its own, listening on 127.0.0.1:`port` only."""

    def __init__(self, *, durable: bool = False) -> None:
        self.durable = durable  # fsync on, as a real database runs (benchmarks); off for tests
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="tablectl-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.running = False
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    @property
    def conninfo(self) -> str:
        return f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres"

    def _run(self, *argv: str) -> None:
        done = subprocess.run([*self._as, *argv], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{argv[0]} failed:\n{done.stdout}{done.stderr}{log}")

    def init(self) -> None:
        self._run(
            find_pg_binary("initdb"), "-D", str(self.data), "-U", SUPERUSER,
            "--auth=trust", "--encoding=UTF8", "--no-sync",
        )  # fmt: skip

    def init_standby(self, primary: PostgresServer) -> None:
        """This cluster as a hot standby of `primary` (streaming replication, read-only once
        started): a base backup of the primary with the standby's settings written (`-R`)."""
        self._run(
            find_pg_binary("pg_basebackup"), "-D", str(self.data), "-h", "127.0.0.1",
            "-p", str(primary.port), "-U", SUPERUSER, "-R", "-X", "stream", "--no-sync",
        )  # fmt: skip

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.dir} -c fsync={'on' if self.durable else 'off'}"
        )
        self._run(
            find_pg_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.log),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        self._run(find_pg_binary("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
        self.running = False

    def remove(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
