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
from typing import Any

import psycopg
import structlog

from tablectl.ledger.messages import Received
from tablectl.ledger.schema import check_schema, migrate
from tablectl.ledger.seqs import SeqRanges, Span

log = structlog.get_logger("tablectl.ledger")

TableKey = tuple[str, str]
"""(site, table id)."""


@dataclass(frozen=True)
class Presence:
    """A table's `status` as the ledger received it: `online` or `offline` (its Last Will)."""

    site: str
    table: str
    at: datetime
    status: str


WRITER_LOCK = 0x6C656467  # "ledg": the advisory lock the one writer of a database holds


class LedgerBusy(RuntimeError):
    """Another process holds the database's writer lock; the message says what to do."""


@dataclass(frozen=True)
class Written:
    """What one batch did: rows inserted (new), numbers newly counted, redeliveries, numbers
    held already with another payload, and messages the database refused (both quarantined)."""

    rows: int
    counted: int
    repeated: int
    differed: int = 0
    quarantined: int = 0


INSERT_MESSAGE = """WITH new AS (
    INSERT INTO ledger_messages (site, table_id, seq, topic, kind, ts, payload)
    VALUES (%(site)s, %(table)s, %(seq)s, %(topic)s, %(kind)s, %(ts)s, %(text)s::jsonb)
    ON CONFLICT (site, table_id, seq) DO NOTHING RETURNING 1
)
SELECT (SELECT count(*) FROM new),
    (SELECT payload IS DISTINCT FROM %(text)s::jsonb FROM ledger_messages
     WHERE site = %(site)s AND table_id = %(table)s AND seq = %(seq)s)"""
"""One message in: whether it was new, and, where its number was held already, whether the
payload held differs (the row just inserted is not in the statement's snapshot: NULL then)."""


INSERT_BATCH = """INSERT INTO ledger_messages (site, table_id, seq, topic, kind, ts, payload)
SELECT site, table_id, seq, topic, kind, ts::timestamptz, payload::jsonb
FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::text[], %s::text[], %s::text[], %s::text[])
    AS t(site, table_id, seq, topic, kind, ts, payload)
ON CONFLICT (site, table_id, seq) DO NOTHING
RETURNING site, table_id, seq"""
"""A batch's messages in one statement, column by column: the numbers it inserted come back;
the rest were held already (a redelivery, or another payload: `_held_differs`)."""


def _columns(kept: Sequence[Received]) -> tuple[list[Any], ...]:
    return (
        [m.site for m in kept],
        [m.table for m in kept],
        [m.seq for m in kept],
        [m.topic for m in kept],
        [m.kind for m in kept],
        [m.ts for m in kept],
        [m.text for m in kept],
    )


def _params(m: Received) -> dict[str, object]:
    return {
        "site": m.site,
        "table": m.table,
        "seq": m.seq,
        "topic": m.topic,
        "kind": m.kind,
        "ts": m.ts,
        "text": m.text,
    }


class LedgerStore:
    """The ledger's database connection and each table's received numbers (loaded once, kept
    in step with what each transaction committed)."""

    def __init__(self, conninfo: str, *, writer: bool = True) -> None:
        self.conn = psycopg.connect(conninfo, autocommit=True)
        self.writer = writer
        if writer:
            # One writer a database: each keeps the received numbers in memory and writes its
            # view of them, so two (a `ledger run` and a `ledger load`) would undo each other's.
            got = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (WRITER_LOCK,)).fetchone()
            if not got or not got[0]:
                self.conn.close()
                raise LedgerBusy(
                    "another ledger is writing to this database (`tablectl ledger run`, or a "
                    "`ledger load`): stop it first (systemctl stop tablectl-ledger)"
                )
        try:
            if writer:
                migrate(self.conn)
            else:
                check_schema(self.conn)
        except BaseException:
            self.conn.close()
            raise
        self.tables: dict[TableKey, SeqRanges] = {}
        for site, table, through, above in self.conn.execute(
            "SELECT site, table_id, through, above FROM ledger_tables"
        ).fetchall():
            spans = [(int(lo), int(hi)) for lo, hi in _json_list(above)]
            self.tables[(str(site), str(table))] = SeqRanges(int(str(through)), spans)

    def close(self, *, failed: bool = False) -> None:
        """Give the writer lock back at once (the server would only when it has seen the
        connection go, a moment later), then close. After a failed write (`failed`) it only
        closes: a connection that stopped answering would hold the unlock until TCP gives up,
        and the server frees the lock with the connection anyway."""
        if self.writer and not failed and not self.conn.closed:
            try:
                self.conn.execute("SELECT pg_advisory_unlock(%s)", (WRITER_LOCK,))
            except psycopg.Error as exc:  # a broken connection: the server frees it as it ends
                log.info("the writer lock goes with the connection", error=str(exc))
        self.conn.close()

    def write(self, batch: Sequence[Received], presence: Sequence[Presence] = ()) -> Written:
        """Store `batch` (and the tables' `status` changes seen with it) in one transaction;
        the in-memory ranges move only once it committed. A message the database refuses (a
        `\\u0000` jsonb cannot hold, say) sends the batch again message by message, that one
        into `ledger_quarantine` with the database's reason: its number is counted all the same,
        and nothing else waits behind it."""
        try:
            return self._write(batch, presence, careful=False)
        except (psycopg.DataError, psycopg.IntegrityError) as exc:
            log.warning(
                "a batch the database refused; writing it message by message", error=str(exc)
            )
            return self._write(batch, presence, careful=True)

    def _write(
        self, batch: Sequence[Received], presence: Sequence[Presence], *, careful: bool
    ) -> Written:
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
            rows, differ, held = self._insert(cur, kept, careful)
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
        return Written(rows, counted, len(batch) - counted, differ, held)

    def _insert(
        self, cur: psycopg.Cursor[tuple[Any, ...]], kept: Sequence[Received], careful: bool
    ) -> tuple[int, int, int]:
        """Insert the kept messages: (new rows, numbers already held with another payload,
        messages quarantined). A number held with the same payload is a redelivery and changes
        nothing; one held with another payload is kept apart in the quarantine and logged (a
        table whose journal began again at 1, an export that does not match what was
        published): the books keep what came first."""
        rows = differ = held = 0
        if careful:
            results: list[tuple[Any, ...] | None] = []
            for m in kept:
                try:
                    with self.conn.transaction():
                        cur.execute(INSERT_MESSAGE, _params(m))
                        results.append(cur.fetchone())
                except (psycopg.DataError, psycopg.IntegrityError) as exc:
                    held += 1
                    self._quarantine(cur, m, f"the database refused it: {exc}".strip())
                    results.append(None)
        else:  # one statement for the batch; the few numbers held already looked at after
            new = set()
            if kept:
                rows_in = cur.execute(INSERT_BATCH, _columns(kept)).fetchall()
                new = {(str(r[0]), str(r[1]), int(r[2])) for r in rows_in}
            results = []
            for m in kept:
                key = (m.site, m.table, m.seq)
                if key in new:
                    new.discard(key)  # a second copy in the same batch is a redelivery
                    results.append((1, None))
                else:
                    results.append(self._held_differs(cur, m))
        for m, result in zip(kept, results, strict=True):
            if result is None:
                continue  # quarantined above
            inserted, differs = result
            if inserted:
                rows += 1
            elif differs:
                differ += 1
                self._quarantine(cur, m, "differs from the message already held under its number")
        return rows, differ, held

    def _held_differs(
        self, cur: psycopg.Cursor[tuple[Any, ...]], m: Received
    ) -> tuple[int, bool | None]:
        """A number held already: whether its payload differs from `m`'s."""
        row = cur.execute(
            "SELECT payload IS DISTINCT FROM %s::jsonb FROM ledger_messages "
            "WHERE site = %s AND table_id = %s AND seq = %s",
            (m.text, m.site, m.table, m.seq),
        ).fetchone()
        return (0, None if row is None else bool(row[0]))

    def _quarantine(self, cur: psycopg.Cursor[tuple[Any, ...]], m: Received, reason: str) -> None:
        log.error(
            "message quarantined",
            table=f"{m.site}/{m.table}",
            seq=m.seq,
            topic=m.topic,
            reason=reason,
        )
        cur.execute(
            "INSERT INTO ledger_quarantine (site, table_id, seq, topic, text, reason) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (m.site, m.table, m.seq, m.topic, m.text.replace("\x00", "\ufffd"), reason),
        )

    def gaps(self) -> dict[TableKey, list[Span]]:
        """Each table's missing message numbers below the highest it received."""
        return {key: r.gaps() for key, r in self.tables.items() if r.gaps()}


def _json_list(value: object) -> list[list[int]]:
    """A jsonb array psycopg gave back (already decoded), or its text."""
    data = json.loads(value) if isinstance(value, str) else value
    if not isinstance(data, list):
        raise ValueError(f"ledger_tables.above holds {data!r}, not a list of spans")
    return data
