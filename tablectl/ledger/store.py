"""Writing received messages to the ledger's database: idempotent, one transaction a batch.

A batch's kept messages go in with `ON CONFLICT DO NOTHING` on (site, table, seq), so a message
delivered twice (the broker's redelivery, a gap filled from the table's journal after it came
after all) changes nothing; every message's number, kept or not, is counted in its table's
received ranges in the same transaction, so the gaps the ledger knows after a crash are exactly
those of what it committed."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import psycopg

from tablectl.ledger.messages import Received
from tablectl.ledger.schema import migrate
from tablectl.ledger.seqs import SeqRanges, Span

TableKey = tuple[str, str]
"""(site, table id)."""


@dataclass(frozen=True)
class Presence:
    """A table's `status` as the ledger received it: `online` or `offline` (its Last Will)."""

    site: str
    table: str
    at: datetime
    status: str


@dataclass(frozen=True)
class Written:
    """What one batch did: rows inserted (new), numbers newly counted, redeliveries."""

    rows: int
    counted: int
    repeated: int


class LedgerStore:
    """The ledger's database connection and each table's received numbers (loaded once, kept
    in step with what each transaction committed)."""

    def __init__(self, conninfo: str) -> None:
        self.conn = psycopg.connect(conninfo, autocommit=True)
        migrate(self.conn)
        self.tables: dict[TableKey, SeqRanges] = {}
        for site, table, through, above in self.conn.execute(
            "SELECT site, table_id, through, above FROM ledger_tables"
        ).fetchall():
            spans = [(int(lo), int(hi)) for lo, hi in _json_list(above)]
            self.tables[(str(site), str(table))] = SeqRanges(int(str(through)), spans)

    def close(self) -> None:
        self.conn.close()

    def write(self, batch: Sequence[Received], presence: Sequence[Presence] = ()) -> Written:
        """Store `batch` (and the tables' `status` changes seen with it) in one transaction;
        the in-memory ranges move only once it committed."""
        changed: dict[TableKey, SeqRanges] = {}
        counted = 0
        for msg in batch:
            key = (msg.site, msg.table)
            ranges = changed.get(key)
            if ranges is None:
                ranges = changed[key] = copy.deepcopy(self.tables.get(key, SeqRanges()))
            counted += ranges.add(msg.seq)
        kept = [m for m in batch if m.kept]
        with self.conn.transaction(), self.conn.cursor() as cur:
            rows = 0
            if kept:
                cur.executemany(
                    """INSERT INTO ledger_messages (site, table_id, seq, topic, kind, ts, payload)
                    VALUES (%s, %s, %s, %s, %s, %s, %s::jsonb)
                    ON CONFLICT (site, table_id, seq) DO NOTHING""",
                    [(m.site, m.table, m.seq, m.topic, m.kind, m.ts, m.text) for m in kept],
                    returning=False,
                )
                rows = max(cur.rowcount, 0)
            cur.executemany(
                """INSERT INTO ledger_tables (site, table_id, through, above, last_seen)
                VALUES (%s, %s, %s, %s::jsonb, now())
                ON CONFLICT (site, table_id) DO UPDATE SET through = EXCLUDED.through,
                    above = EXCLUDED.above, last_seen = now()""",
                [
                    (site, table, r.through, json.dumps(list(r.spans())))
                    for (site, table), r in changed.items()
                ],
            )
            if presence:
                cur.executemany(
                    """INSERT INTO ledger_presence (site, table_id, at, status)
                    VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING""",
                    [(p.site, p.table, p.at, p.status) for p in presence],
                )
        self.tables.update(changed)
        return Written(rows, counted, len(batch) - counted)

    def gaps(self) -> dict[TableKey, list[Span]]:
        """Each table's missing message numbers below the highest it received."""
        return {key: r.gaps() for key, r in self.tables.items() if r.gaps()}


def _json_list(value: object) -> list[list[int]]:
    """A jsonb array psycopg gave back (already decoded), or its text."""
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, list):
        raise ValueError(f"ledger_tables.above holds {data!r}, not a list of spans")
    return data
