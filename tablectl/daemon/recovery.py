"""Start-up and recovery: the journal opened, the table rebuilt from its snapshots and replayed,
the config's rules journaled, and the table held on a journal it cannot open or replay.

A journal the daemon cannot open or replay (a record that cannot be read, a gap, outputs the
replay no longer gives, an import that did not finish) holds the table instead of failing the
start: `READY=1`, the watchdog fed, the fault on the retained `journal/status` and an `alert`
(tablectl/daemon/journal_fault.py), every command refused, no device read, nothing journaled.
Under systemd's `Restart=` that is one start, not a loop (docs/operations.md "A journal the
table cannot replay"). Snapshots and the month's close into its segment are taken here too: both
are what the next start replays from.
"""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import structlog

from tablectl import sdnotify, snapshot
from tablectl.chainkey import ChainKey, load_key
from tablectl.config import LoadedConfig
from tablectl.daemon.inputs import JournalUnwritable, unwritable_reason
from tablectl.daemon.journal_fault import JournalFault
from tablectl.daemon.state import DaemonState, Input
from tablectl.journal import BadRecord, Journal, JournalError, JournalUnavailable, segments
from tablectl.journal.segments import History
from tablectl.records import format_ts, now_ts
from tablectl.table import Table

log = structlog.get_logger("tablectl.daemon")

RECOVERY_NOTE_SECONDS = 2.0
"""How often a long recovery tells systemd how far it got."""
RECOVERY_EXTEND_SECONDS = 30.0
"""How much more time each of those notes asks systemd for (EXTEND_TIMEOUT_USEC)."""
SNAPSHOT_EVERY_RECORDS = 1000
"""Records applied between snapshots, taken at the next round boundary (about 70 rounds of a
game dealt from a shoe): a start replays at most this many records, plus the round in progress."""
SNAPSHOT_MOST_RECORDS = 5000
"""A snapshot in the middle of a round once this many records were applied since the last."""
SNAPSHOT_RETRY_RECORDS = 100
"""Records applied after a snapshot that found no room before the next is tried."""
SEGMENT_RETRY_RECORDS = 100
"""Records applied after a month's close that found no room before it is tried again (at the
next round boundary after them)."""


def open_journal(cfg: LoadedConfig) -> Journal:
    """The table's journal, with its chain key when the config names one (a key file that is
    missing, or that others could read, stops the daemon: KeyFileError). A journal an import
    left part way is refused: run on, the daemon would publish its history again and fork it."""
    key = load_key(cfg.key_path) if cfg.key_path is not None else None
    journal = Journal(cfg.journal_path, table=cfg.table.table, key=key)
    if journal.meta("importing") is not None:
        journal.close()
        raise JournalError(
            f"{cfg.journal_path}: an import did not finish: move it away and import again"
        )
    if key is None:
        log.warning(
            "journal.unkeyed",
            journal=str(cfg.journal_path),
            detail="no [journal] key_file: a rewrite of the journal that recomputes its chain "
            "can only be caught against published heads (docs/operations.md)",
        )
    elif journal.key_change is not None:
        before, after, first = journal.key_change
        log.warning("journal.key", key=after, previous=before, from_record=first)
    return journal


class Recovery(DaemonState):
    """Start-up and recovery: opening and replaying the journal, snapshots, the month's close,
    the config's rules, and the hold on a journal fault."""

    def _open_journal_or_hold(self) -> None:
        """The journal opened at construction, or the table held on one that cannot be used."""
        try:
            self._journal = open_journal(self.cfg)
        except JournalUnavailable:
            raise  # a full disk or a lock: a later start may open it (docs/operations.md)
        except JournalError as exc:
            self._hold(exc)

    def recover(self, *, progress_every: float = RECOVERY_NOTE_SECONDS) -> int:
        """Rebuild the table from the journal; store outputs of records not yet applied.

        Every `progress_every` seconds of it, systemd hears how far it got (STATUS=) and is
        asked for RECOVERY_EXTEND_SECONDS more (EXTEND_TIMEOUT_USEC=), so a long journal makes a
        slow start, never a start killed by `TimeoutStartSec=` and restarted for ever.

        BadRecord names the record a journal that cannot be replayed stops at (`run` holds the
        table on it); an error that says the file cannot be written propagates as it is.
        """
        self._replaying = None
        try:
            return self._replay(progress_every)
        except BadRecord:
            raise
        except Exception as exc:
            if unwritable_reason(exc) is not None or self._replaying is None:
                raise
            what = str(exc) if isinstance(exc, JournalError) else f"{type(exc).__name__}: {exc}"
            raise BadRecord(
                self.journal.path, self._replaying, f"replaying it failed: {what}"
            ) from exc

    def _replay(self, progress_every: float) -> int:
        """`recover`'s work; `_replaying` is the record being replayed, for its errors."""
        applied = self.journal.applied()
        total = self.journal.last_seq
        ends = self.journal.end_problems(total, self.journal.hash_at(total) or "")
        if ends:  # the end was cut off, or its last record replaced: the first names the record
            raise BadRecord(self.journal.path, *ends[0])
        count = 0
        last_note = time.monotonic()
        sdnotify.status(f"recovering {total} journal records")
        restored, notes = snapshot.newest_usable(
            self.cfg, self.journal, upto=applied, keys=self._keys()
        )
        for note in notes:  # damaged or unreadable: never a wrong state, only a longer replay
            log.warning("snapshot.skipped", detail=note)
        if restored is not None:
            self.table = restored
        elif self.journal.first_seq > 1:
            self.table = self._from_segments()
        start = self.table.position
        self._snapshot_at = start
        # The displays' latest views (a view retained before the snapshot is not replayed).
        self._to_displays(self.journal.latest_retained())
        for rec in self.journal.records(after=start):
            self._replaying = rec.seq
            if rec.seq <= applied:  # its messages are in the outbox (or were, and were sent)
                self.table.advance(rec)
            else:
                rows = self.table.apply(rec)
                self.journal.write_outputs(rec, rows)
                self._show(self.table.take_displayed())  # the latest view after a restart
                if self.metrics is not None:  # messages made now: their rounds count now
                    self.metrics.outputs(rows)
            count += 1
            self._replaying = None
            if time.monotonic() - last_note >= progress_every:
                last_note = time.monotonic()
                sdnotify.extend_timeout(RECOVERY_EXTEND_SECONDS)
                sdnotify.status(f"recovering: record {rec.seq} of {total}")
        log.info(
            "recovered",
            records=count,
            from_snapshot=start,
            applied=applied,
            unsent=self.unsent_count(),
        )
        if count >= SNAPSHOT_EVERY_RECORDS:
            self._checkpoint_if_room()  # the next start need not replay all that again
        self._journal_rules()
        return count

    def _from_segments(self) -> Table:
        """The table before the live journal's first record, rebuilt from its closed segments
        (their snapshots, else their records) when the live file has no sound snapshot."""
        first = self.journal.first_seq
        history = History.open(self.journal.path, self.cfg.table.table, self._archive_dir())
        try:
            table, notes = snapshot.rebuild(
                self.cfg, history.files[:-1], upto=first - 1, keys=self._keys()
            )
        except snapshot.SnapshotError as exc:
            raise BadRecord(
                self.journal.path,
                first,
                "the journal starts here and holds no sound snapshot; its closed segments cannot "
                f"rebuild the table before it either ({exc}): put them back beside it or in "
                "[journal] archive_dir (docs/operations.md)",
            ) from None
        finally:
            history.close()
        for note in notes:
            log.warning("snapshot.skipped", detail=note)
        return table

    def _keys(self) -> list[ChainKey]:
        """The key a snapshot must be signed with to be trusted (none: an unkeyed journal)."""
        key = self.journal.signing_key
        return [] if key is None else [key]

    def _archive_dir(self) -> Path | None:
        return self.cfg.archive_path

    def _checkpoint(self) -> None:
        """Store a snapshot of the table now, and drop sent messages older than the outbox
        window (docs/operations.md "Storage")."""
        snapshot.take(self.table, self.journal)
        self._snapshot_at = self.table.position
        window = timedelta(hours=self.cfg.table.journal.outbox_hours)
        cut = format_ts(datetime.now(UTC) - window)
        dropped = self.journal.prune_outbox(cut)
        log.debug("checkpoint", record=self._snapshot_at, outbox_dropped=dropped)

    def _close_month(self, now: str) -> None:
        """Before the first record of a new month, between rounds: the live journal's records
        go into their month's segment (after a snapshot, which the live file replays from).

        A close the disk cannot take (a copy of the month, where a record needs a few hundred
        bytes) does not stop the table: it is logged and put off, the input is journaled as
        usual, and the close is tried again at a round boundary SEGMENT_RETRY_RECORDS later."""
        if not segments.due(self.journal, now):
            return
        if not self.table.engine.between_rounds(self.table.state) or self.table.held is not None:
            return  # a round is never split between two files
        if self._close_tried and self.table.position - self._close_tried < SEGMENT_RETRY_RECORDS:
            return
        month = self.journal.month
        try:
            if self._snapshot_at != self.table.position:
                self._checkpoint()  # the segment opens with it
            closed = segments.close_month(self.journal, now)
        except Exception as exc:
            reason = unwritable_reason(exc)
            in_the_way = isinstance(exc, segments.SegmentPathError)
            if in_the_way:  # something else under the segment's name: put off, as a full disk
                reason = str(exc)
            if reason is None:
                raise
            self.journal.reset_after_failure()
            if month is not None and not in_the_way:
                # The half-written segment gives its room back; the next try writes it whole.
                tmp = segments.segment_path(self.journal.path, month)
                for part in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        Path(f"{tmp}.tmp{part}").unlink(missing_ok=True)
            self._close_tried = self.table.position
            log.warning(
                "journal.segment.failed",
                reason=reason,
                month=month,
                record=self.table.position,
                retry_after_records=SEGMENT_RETRY_RECORDS,
                detail="the month stays in the live file, which takes records as before; "
                "free space (docs/operations.md, Disk full)",
            )
            return
        self._close_tried = 0
        log.info("journal.segment", closed=str(closed), next_record=self.journal.first_seq)

    def _maybe_checkpoint(self) -> None:
        """A snapshot at a round boundary once SNAPSHOT_EVERY_RECORDS were applied since the
        last, or at SNAPSHOT_MOST_RECORDS whatever the round (a round held for hours); after
        one that found no room, not before SNAPSHOT_RETRY_RECORDS more."""
        since = self.table.position - self._snapshot_at
        if self._snapshot_tried and self.table.position - self._snapshot_tried < (
            SNAPSHOT_RETRY_RECORDS
        ):
            return
        if since >= SNAPSHOT_MOST_RECORDS or (
            since >= SNAPSHOT_EVERY_RECORDS and self.table.engine.between_rounds(self.table.state)
        ):
            self._checkpoint_if_room()

    def _checkpoint_if_room(self) -> None:
        """A checkpoint, or a warning when the journal cannot take it: a snapshot is optional
        (the next start replays longer), so a full disk does not stop the table here."""
        try:
            self._checkpoint()
        except Exception as exc:
            reason = unwritable_reason(exc)
            if reason is None:
                raise
            self.journal.reset_after_failure()
            self._snapshot_tried = self.table.position
            log.warning("checkpoint.skipped", record=self.table.position, reason=reason)
        else:
            self._snapshot_tried = 0

    def _journal_rules(self) -> None:
        """Journal the config file's rules when they are not yet the journal's, between rounds
        only: a round is always played out, and replayed, under the rules it began with."""
        wanted = self.cfg.rules
        if self.table.rules_journaled and self.table.rules == wanted:
            return
        if not self.table.engine.between_rounds(self.table.state):
            log.warning("rules change waits for the end of the round")
            return
        item = Input("config", {"type": "config", "rules": wanted.to_json()})
        try:
            self._ingest(item)
        except JournalUnwritable as exc:  # journaled before the next input (_ingest)
            self._rules_pending = item
            log.warning("rules change waits for the journal", reason=exc.reason)

    def _recover_or_hold(self) -> None:
        """`recover`, or the table held on what stopped it. A journal that cannot be written
        (a full disk) still fails the start: a later one may find room."""
        try:
            self.recover()
        except Exception as exc:
            if unwritable_reason(exc) is not None:
                raise
            self._hold(self._at_unstored(exc))

    def _at_unstored(self, exc: Exception) -> Exception:
        """A JournalError met storing the outputs of the record `_ingest` journaled (the
        config's rules at a start, an input) as BadRecord naming that record; else `exc`."""
        if self._unstored is None or isinstance(exc, BadRecord):
            return exc
        if not isinstance(exc, JournalError):
            return exc
        return BadRecord(self.journal.path, self._unstored[0].seq, str(exc))

    def _hold(self, exc: BaseException) -> None:
        """Hold the table on a journal it cannot open or replay (journal_fault.py): logged
        once with the record and the reason (with the traceback when it is a defect rather
        than a journal the code refuses); `run` then starts only the relay and the watchdog."""
        self.fault = fault = JournalFault.of(exc, now_ts())
        if self.metrics is not None:
            self.metrics.held("journal-fault", True)
            self.metrics.alert("journal-fault")
        known = isinstance(exc, (JournalError, snapshot.SnapshotError))
        log.error(
            "journal.fault",
            record=fault.record,
            reason=fault.reason,
            journal=str(self.cfg.journal_path),
            detail="the table is held: commands are refused, devices are not read, nothing is "
            "journaled; docs/operations.md 'A journal the table cannot replay'",
            exc_info=None if known else exc,
        )
