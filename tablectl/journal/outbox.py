"""The outbox: each record's outputs, numbered, waiting for the broker in the journal's file.

Outputs go to the outbox together with the journal position they derive from (`applied`), so
after a crash the daemon knows exactly which records still need their outputs written; a message
stays until the broker acknowledged it (`mark_sent`), and sent ones are pruned after a while.
`Journal` (tablectl/journal/store.py) holds the records and this outbox in one SQLite file.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Sequence

from tablectl.journal.errors import JournalError
from tablectl.journal.file import Transaction
from tablectl.outputs import OutboxRow
from tablectl.records import Record

HELD_FROM_ROWS = 256
"""Oldest outbox rows `held_from` reads: more than a table has retained topics."""


class Outbox:
    """The outbox half of `Journal`, which inherits it: the attributes below are set by the
    records' half (the connection, and the first and last record the file holds)."""

    db: sqlite3.Connection
    first_seq: int
    _last_seq: int
    _stored_top: int | None = None  # the highest message seq stored (`holds_none_of`)
    _sent_unstored: frozenset[int] = frozenset()  # acknowledged before they were stored

    def forget_sent_unstored(self) -> None:
        """Rows acknowledged before they were stored are stored unsent after all: the relay's
        new connection published older retained rows again, and these must go after them."""
        self._sent_unstored = frozenset()

    def holds_none_of(self, rows: Sequence[OutboxRow]) -> bool:
        """Whether none of `rows` (in seq order) can be stored already: each is numbered past
        every message this outbox has held. Then nothing stored can differ from them, and the
        daemon may hand them to the broker before it stores them (`Inputs._apply_and_hand_on`)."""
        top = self._stored_top
        return top is not None and bool(rows) and rows[0].seq > top

    def _read_stored_top(self) -> None:
        """The highest message seq stored (`holds_none_of`), read once as the file opens, not
        in the middle of applying a record."""
        top = self.db.execute("SELECT coalesce(max(seq), 0) FROM outbox").fetchone()[0]
        self._stored_top = int(top)

    def applied(self) -> int:
        """The last journal record whose outputs are in the outbox."""
        row = self.db.execute("SELECT journal_seq FROM applied WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def write_outputs(self, rec: Record, rows: Sequence[OutboxRow]) -> None:
        """Store a record's outputs and mark it applied, in one transaction.

        Only the journal needs fsync: outputs are a pure function of it. If a power cut loses
        this commit, the restart replays the record and stores the very same rows under the very
        same seqs, so nothing is lost and nothing gets a new seq."""
        with Transaction(self.db, durable=False):
            cur = self.db.executemany(
                "INSERT OR IGNORE INTO outbox (seq, journal_seq, topic, payload, qos, retain) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(r.seq, rec.seq, r.topic, r.payload, r.qos, int(r.retain)) for r in rows],
            )
            if cur.rowcount != len(rows):
                self._same_as_stored(rows)
            acked = [(r.seq,) for r in rows if r.seq in self._sent_unstored]
            if acked:  # handed on before they were stored, and the broker took them meanwhile
                self.db.executemany("UPDATE outbox SET sent = 1 WHERE seq = ?", acked)
            self.db.execute(
                "INSERT INTO applied (id, journal_seq, hash) VALUES (1, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET journal_seq = excluded.journal_seq, "
                "hash = excluded.hash",
                (rec.seq, rec.hash),
            )
        if rows and self._stored_top is not None:
            self._stored_top = max(self._stored_top, rows[-1].seq)
        if acked:
            self._sent_unstored = self._sent_unstored - {seq for (seq,) in acked}

    def _same_as_stored(self, rows: Sequence[OutboxRow]) -> None:
        """A seq already in the outbox must hold the very same message: anything else means the
        engine no longer reproduces the journal, and publishing on would lose or garble rounds."""
        for r in rows:
            got = self.db.execute(
                "SELECT topic, payload FROM outbox WHERE seq = ?", (r.seq,)
            ).fetchone()
            if got is not None and (got[0], bytes(got[1])) != (r.topic, r.payload):
                raise JournalError(
                    f"outbox message {r.seq} differs from what the journal now produces "
                    f"({got[0]} vs {r.topic}): the journal cannot be replayed consistently"
                )

    def pending(self, limit: int) -> list[OutboxRow]:
        cur = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE sent = 0 "
            "ORDER BY seq LIMIT ?",
            (limit,),
        )
        return [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]

    def mark_sent(self, seqs: Sequence[int]) -> None:
        """Record acknowledged messages. Not fsync'd: a mark lost in a crash only means the
        message is published again under the same seq, which consumers de-duplicate. A message
        handed on before it was stored (`holds_none_of`), whose store failed and is tried again,
        is marked as it is stored."""
        top = self._stored_top
        if top is not None and seqs and max(seqs) > top:
            self._sent_unstored = self._sent_unstored | {s for s in seqs if s > top}
        with Transaction(self.db, durable=False):
            self.db.executemany("UPDATE outbox SET sent = 1 WHERE seq = ?", [(s,) for s in seqs])

    def outbox(self, *, topic_suffix: str | None = None) -> list[OutboxRow]:
        """Every stored output (sent or not), optionally only one topic's, in seq order."""
        cur = self.db.execute("SELECT seq, topic, payload, qos, retain FROM outbox ORDER BY seq")
        rows = [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]
        if topic_suffix is None:
            return rows
        return [r for r in rows if r.topic.endswith("/" + topic_suffix)]

    def outbox_between(self, first: int, last: int) -> list[OutboxRow]:
        """The stored outputs numbered `first` to `last` (sent or not), in seq order: what a
        `cmd/history` answer carries (tablectl/history_answers.py)."""
        cur = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE seq BETWEEN ? AND ? "
            "ORDER BY seq",
            (first, last),
        )
        return [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]

    def held_from(self) -> int:
        """The first number of the unbroken run of outputs the outbox holds up to its newest:
        every message from it on is here; below it, pruning left only the newest retained
        message of each topic (`prune_outbox` deletes whole records' outputs up to a cut, and
        seq grows with the record). So the holes are all among the first rows, at most one
        past each retained topic's survivor: the run begins after the last hole among the
        oldest HELD_FROM_ROWS rows (one per retained topic is a handful). 1 when nothing was
        ever pruned. An index walk of a few hundred rows, never the day's outbox."""
        seqs = [
            int(r[0])
            for r in self.db.execute(
                "SELECT seq FROM outbox ORDER BY seq LIMIT ?", (HELD_FROM_ROWS,)
            )
        ]
        if not seqs:
            return 1
        start = seqs[0]
        for before, seq in itertools.pairwise(seqs):
            if seq != before + 1:
                start = seq
        return start

    def stored_outputs(self) -> Iterator[tuple[int, OutboxRow]]:
        """Every stored output (sent or not) with the record it came from, in seq order: what
        `tablectl upgrade-check` compares a new release's replay with."""
        cur = self.db.execute(
            "SELECT journal_seq, seq, topic, payload, qos, retain FROM outbox ORDER BY seq"
        )
        for j, s, t, p, q, r in cur:
            # bytes as the journal writes them; text where someone edited the row in SQL
            data = p.encode("utf-8", "replace") if isinstance(p, str) else bytes(p)
            yield int(j), OutboxRow(s, t, data, q, bool(r))

    def latest_retained(self) -> list[OutboxRow]:
        """The newest retained message of each topic, in seq order: what the broker should
        hold, and what a restarted table draws its displays from."""
        cur = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE seq IN "
            "(SELECT max(seq) FROM outbox WHERE retain = 1 GROUP BY topic) ORDER BY seq"
        )
        return [OutboxRow(s, t, bytes(p), q, bool(r)) for s, t, p, q, r in cur]

    def last_output(self, topic: str) -> OutboxRow | None:
        """The newest stored message of `topic` (sent or not), or None when the outbox holds
        none (never one, or pruned): `tablectl status` shows the last `round/result` from it
        after a restart."""
        row = self.db.execute(
            "SELECT seq, topic, payload, qos, retain FROM outbox WHERE topic = ? "
            "ORDER BY seq DESC LIMIT 1",
            (topic,),
        ).fetchone()
        if row is None:
            return None
        s, t, p, q, r = row
        return OutboxRow(s, t, bytes(p), q, bool(r))

    def prune_outbox(self, before: str) -> int:
        """Drop sent messages of records journaled before `before` (a journal timestamp),
        except the newest retained message of each topic; never an unsent one. Returns how many
        were dropped."""
        cut = self._last_before(before)
        if cut is None:
            return 0
        with Transaction(self.db, durable=False):
            cur = self.db.execute(
                "DELETE FROM outbox WHERE sent = 1 AND journal_seq <= ? AND seq NOT IN "
                "(SELECT max(seq) FROM outbox WHERE retain = 1 GROUP BY topic)",
                (cut,),
            )
        return int(cur.rowcount)

    def _last_before(self, ts: str) -> int | None:
        """The last record journaled before `ts` (records are in time order: a binary search
        over seq, not a scan of a year of records); None if there is none."""
        lo, hi = self.first_seq, self._last_seq
        found = None
        while lo <= hi:
            mid = (lo + hi) // 2
            row = self.db.execute("SELECT ts FROM journal WHERE seq = ?", (mid,)).fetchone()
            if row is None:
                return found
            if str(row[0]) < ts:
                found, lo = mid, mid + 1
            else:
                hi = mid - 1
        return found

    def unsent_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0])
