"""`hil/fleet.py --ledger`: the card room's books attached to the simulated floor.

A real PostgreSQL (hil/postgres.py) and `tablectl ledger run` as its own process, subscribed to
the central broker like any floor system. Measured: rows written a second over the play,
publish-to-row latency (a replayed table's publish to the row's insert in the books) p50/p99
outside the ledger's drill, the catch-up after the ledger was stopped (`ledger-down`: the time
from its start again to every number published so far being in the books), and the database's
bytes per round (tables and indexes over the round results kept)."""

from __future__ import annotations

import asyncio
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

from hil.die_with_parent import die_with_parent
from hil.postgres import PostgresServer

SAMPLE_ROWS = 50_000
"""Rows whose publish-to-row latency is taken (the newest of the run outside the drill)."""


class FleetLedger:
    """The database and the ledger process of one fleet run."""

    def __init__(self, folder: Path, central_port: int, sites: list[str]) -> None:
        self.folder = folder
        self.pg = PostgresServer(durable=True)
        self.pg.init()
        self.pg.start()
        self.config = folder / "ledger.toml"
        self.config.write_text(
            f"[ledger]\nsites = {sites!r}\n".replace("'", '"')
            + f'database = "{self.pg.conninfo}"\n'
            + "gap_grace_seconds = 30\n[ledger.broker]\n"
            + f'port = {central_port}\nclient_id = "fleet-ledger"\n',
            encoding="utf-8",
        )
        self.log = folder / "ledger.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = time.time()

    def start(self) -> None:
        with self.log.open("ab") as log:
            ledger_run = [sys.executable, "-m", "tablectl.cli", "ledger", "run"]
            self.proc = subprocess.Popen(
                die_with_parent([*ledger_run, "--config", str(self.config)]),
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def stop(self) -> None:
        """SIGTERM, as systemd stops it (its DISCONNECT sent: the broker keeps its session)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self) -> None:
        self.stop()
        self.pg.stop("fast")
        self.pg.remove()

    def through(self) -> dict[str, int]:
        """Each table's number the books hold every message up to."""
        with psycopg.connect(self.pg.conninfo) as conn:
            if conn.execute("SELECT to_regclass('ledger_tables')").fetchone() == (None,):
                return {}
            rows = conn.execute("SELECT table_id, through FROM ledger_tables").fetchall()
        return {str(t): int(n) for t, n in rows}

    def caught_up(self, highest: dict[str, int]) -> bool:
        """Whether the books hold every number up to `highest` of each table."""
        held = self.through()
        return all(held.get(t, 0) >= n for t, n in highest.items() if n)

    async def wait_caught_up(self, highest: dict[str, int], timeout_s: float) -> bool:
        """Poll, once a second, until the books hold every number up to `highest` or
        `timeout_s` has passed; whether they do."""
        deadline = time.monotonic() + timeout_s
        while not await asyncio.to_thread(self.caught_up, highest):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(1.0)
        return True

    def figures(
        self, published_wall: dict[tuple[str, int], float], exclude: list[tuple[float, float]]
    ) -> dict[str, Any]:
        """Rows, their rate, publish-to-row p50/p99 (rows published outside `exclude`'s wall
        time windows) and bytes per round."""
        with psycopg.connect(self.pg.conninfo) as conn:
            rows, first, last = conn.execute(
                "SELECT count(*), extract(epoch FROM min(received)), "
                "extract(epoch FROM max(received)) FROM ledger_messages"
            ).fetchone() or (0, None, None)
            rounds = conn.execute(
                "SELECT count(*) FROM ledger_messages WHERE kind = 'round-result'"
            ).fetchone()
            size = conn.execute(
                "SELECT pg_total_relation_size('ledger_messages') "
                "+ pg_total_relation_size('ledger_tables') "
                "+ pg_total_relation_size('ledger_presence')"
            ).fetchone()
            sample = conn.execute(
                "SELECT table_id, seq, extract(epoch FROM received) FROM ledger_messages "
                "ORDER BY received DESC LIMIT %s",
                (SAMPLE_ROWS,),
            ).fetchall()
        took = sorted(
            float(at) - published_wall[(str(t), int(s))]
            for t, s, at in sample
            if (str(t), int(s)) in published_wall
            and not any(a <= published_wall[(str(t), int(s))] <= b for a, b in exclude)
        )
        span = float(last or 0) - float(first or 0)
        n_rounds = int(rounds[0]) if rounds else 0
        return {
            "rows": int(rows or 0),
            "rows_per_s": round(int(rows or 0) / span, 1) if span > 0 else 0.0,
            "publish_to_row_ms": {"p50": _ms(took, 50), "p99": _ms(took, 99), "n": len(took)},
            "db_bytes": int(size[0]) if size else 0,
            "db_bytes_per_round": round(int(size[0]) / n_rounds) if size and n_rounds else None,
            "rounds_kept": n_rounds,
        }


def _ms(values: list[float], p: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return round(values[0] * 1000, 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[p - 1] * 1000, 1)
