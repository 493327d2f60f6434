"""Inputs: one asyncio task owns the journal and the table; every input (a device's event, a
command, a timer's) goes through its queue, so the order inputs are journaled in is the order
the engine sees them. Each is journaled, applied and its outputs stored (`_ingest`). A device's
input that finds the queue empty and its consumer waiting is taken in the driver's own turn
instead (`submit`): nothing can be before it, and a card is not kept for a turn of the loop.

A journal that cannot be written (a full disk, an I/O error: `JournalUnwritable`) stops the
table, not the daemon: the input that met it is tried again every JOURNAL_RETRY_SECONDS, those
behind it wait in the queue, commands are refused from memory, and the floor hears of it from
memory too (`alert`, retained `journal/status`; docs/operations.md "Disk full").
"""

from __future__ import annotations

import asyncio
import errno
import sqlite3
import sys
import time
from datetime import UTC, datetime
from typing import Any

import structlog

from tablectl.daemon.state import DaemonState, Input
from tablectl.journal import JournalError
from tablectl.outputs import OutboxRow
from tablectl.records import Record, now_ts, parse_ts
from tablectl.table import journal_input

log = structlog.get_logger("tablectl.daemon")


class JournalHeld(Exception):
    """An input that arrived, or waited, while the table is held on a journal fault: it was not
    journaled (tablectl/daemon/journal_fault.py); or (`journaled` True) the input whose record
    showed the fault: journaled, its outputs not stored, the table held from it on."""

    def __init__(self, reason: str, *, journaled: bool = False) -> None:
        super().__init__(reason)
        self.journaled = journaled


class JournalUnwritable(Exception):
    """The journal file cannot be written now: a full disk, an I/O error, a read-only file
    system. Nothing recorded was touched, and the write that met it can be tried again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# What says the file cannot be written, as opposed to a journal that is wrong (JournalError) or
# a defect: SQLite's result codes (Python 3.11+ names them), its messages for them, and what the
# operating system says when the segment close (journal/segments.py) writes a file of its own.
_UNWRITABLE_CODES = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY")
_UNWRITABLE_MESSAGES = (
    "database or disk is full",
    "disk i/o error",
    "unable to open",
    "readonly database",
)
_UNWRITABLE_ERRNOS = frozenset({errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EROFS})


def unwritable_reason(exc: BaseException) -> str | None:
    """Why `exc` means the journal cannot be written (SQLite's or the system's own words), or
    None when it means something else, which stays fatal. The error and those it was raised
    from, or while handling, are looked at: a ROLLBACK that fails after a full disk, or a
    JournalError wrapping SQLite's error, is the full disk."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sqlite3.Error):
            code = getattr(current, "sqlite_errorname", None) or ""
            text = str(current)
            if code.startswith(_UNWRITABLE_CODES) or any(
                m in text.lower() for m in _UNWRITABLE_MESSAGES
            ):
                return text or code
        elif isinstance(current, OSError) and current.errno in _UNWRITABLE_ERRNOS:
            return str(current)
        current = current.__cause__ or current.__context__
    return None


class Inputs(DaemonState):
    """The journal's consumer: inputs queued, journaled, applied, their outputs stored; a
    journal that cannot be written waited out; the bet timer's input."""

    async def submit(
        self,
        source: str,
        data: Any,
        *,
        ref: str | None = None,
        error: str | None = None,
        received: float | None = None,
    ) -> Record:
        """Journal and apply an input, and return its record: in this turn when nothing is
        before it (`_ingest_in_turn`), else through the queue, waited for. JournalHeld while
        the table is held on a journal fault (nothing is journaled then). `received`: when a
        device input reached the daemon (time.perf_counter), for the metrics."""
        if self.fault is not None:
            raise JournalHeld(self.fault.refusal())
        item = Input(source, data, ref, error, received=received)
        # Taken in this turn only outside an exception handler: an error met in `_ingest` would
        # carry the caller's exception as its context, which `unwritable_reason` reads.
        if self._consumer_waiting and self.queue.empty() and sys.exc_info()[1] is None:
            try:
                rec = self._ingest_in_turn(item)
            except JournalHeld:
                # A driver's task, cancelled by the hold, ends here cancelled, as it did when it
                # waited for the consumer.
                await asyncio.sleep(0)
                raise
            if rec is not None:
                # The loop's other tasks get a turn between one input and the next, as when
                # each waited for the consumer (a driver may hand on a burst of them).
                await asyncio.sleep(0)
                return rec
        fut: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((item, fut))  # (an unwritable journal: still first, no wait between)
        return await fut

    def _ingest_in_turn(self, item: Input) -> Record | None:
        """`_ingest` in the caller's turn, as the consumer would have taken the input had it been
        queued: the queue is empty and the consumer waits, and `_ingest` never yields, so no
        input can come between. None when the journal cannot take it now: the floor is told, as
        after any failed try (`_journal_unwritable`), and the caller queues it (still first);
        the consumer tries it again after `journal_retry_seconds`. A journal that no longer
        reproduces itself holds the table, any other error stops the daemon, and the consumer
        stops in both, as when it meets them itself (`_consume`)."""
        try:
            return self._ingest(item)
        except JournalUnwritable as exc:
            self._journal_unwritable(exc.reason)
            return None
        except JournalError as exc:
            self._stop_consumer_task()
            self._hold_running(exc)
            raise JournalHeld(self._held_after_journaling(), journaled=True) from exc
        except Exception as exc:
            self._stop_consumer_task()
            self._task_failed("journal", exc)
            raise

    def _stop_consumer_task(self) -> None:
        """The queue's consumer cancelled: the table is held, or the daemon stops; nothing
        queued after is journaled."""
        consumer = self._consumer_task()
        if consumer is not None:
            consumer.cancel()
        self._consumer_waiting = False

    def _consumer_task(self) -> asyncio.Task[None] | None:
        """The queue's consumer (`_consume`, the task named "journal"), once started."""
        return next((t for t in self._tasks if t.get_name() == "journal"), None)

    def _held_after_journaling(self) -> str:
        """Why the input whose record showed a journal fault is not applied (its command is
        answered so)."""
        assert self.fault is not None
        return (
            "journaled, not applied: the table is now held on a journal fault "
            f"at {self.fault.where()} ({self.fault.reason})"
        )

    def submit_nowait(self, source: str, data: Any, *, ref: str | None = None) -> None:
        """Queue an input without waiting for it (a timer's, the journal's trouble); while the
        table is held on a journal fault it is not journaled, and the log says so."""
        if self.fault is not None:
            log.warning("input.not_journaled", source=source, reason=self.fault.refusal())
            return
        self.queue.put_nowait((Input(source, data, ref), None))

    async def _consume(self) -> None:
        """Journal and apply the queued inputs one by one. A journal that no longer reproduces
        itself (JournalError: e.g. a record's outputs differ from those stored for it) holds
        the table, as it would at the next start (`_hold_running`); any other error is fatal."""
        while True:
            self._consumer_waiting = True
            try:
                item, fut = await self.queue.get()
            finally:
                self._consumer_waiting = False
            try:
                rec = await self._ingest_until_journaled(item)
            except Exception as exc:
                self.queue.task_done()
                if isinstance(exc, JournalError):
                    self._hold_running(exc)
                    if fut is not None and not fut.done():  # its command is answered
                        held = JournalHeld(self._held_after_journaling(), journaled=True)
                        fut.set_exception(held)
                    return
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
                raise
            if fut is not None and not fut.done():
                fut.set_result(rec)
            self.queue.task_done()

    def _hold_running(self, exc: JournalError) -> None:
        """A running table whose journal turned out not to reproduce itself: held as a start on
        that journal would be (the record just journaled is named), the devices stopped, every
        input still queued refused (JournalHeld; a command answered from memory)."""
        self._hold(self._at_unstored(exc))
        if self._bet_timer is not None:
            self._bet_timer.cancel()
        for task in self._tasks:
            if task.get_name().startswith("driver "):
                task.cancel()
        assert self.fault is not None
        while not self.queue.empty():
            _, fut = self.queue.get_nowait()
            self.queue.task_done()
            if fut is not None and not fut.done():
                fut.set_exception(JournalHeld(self.fault.refusal()))
        if self.relay is not None:
            self._journal_status(self.fault.status_fields())
            self._notice("alert", self.fault.alert_fields())

    async def _ingest_until_journaled(self, item: Input) -> Record:
        """`_ingest`, tried again every `journal_retry_seconds` while the journal cannot be
        written (the inputs behind it wait in the queue, in order), the floor told when it
        cannot and when it can again."""
        while True:
            if self.journal_trouble is not None:  # the last try failed (here, or in a turn)
                await asyncio.sleep(self.journal_retry_seconds)
            try:
                rec = self._ingest(item)
            except JournalUnwritable as exc:
                self._journal_unwritable(exc.reason)
                continue
            if self.journal_trouble is not None:
                self._journal_writable()
            return rec

    def _ingest(self, item: Input) -> Record:
        """Journal an input, apply it, store its outputs; then what follows a record (rules
        that waited for the end of a round, the bet timer, a checkpoint).

        JournalUnwritable when the journal cannot be written: call again with the same input,
        and it goes on from where it stopped. A failed append recorded nothing (its transaction
        rolled back), so the record is appended then; once the append succeeded the record is
        journaled and applied (`_unstored`), and only its outputs are written again: an input
        is never journaled or applied twice.
        """
        if self._rules_pending is not None and self._rules_pending is not item:
            self._ingest(self._rules_pending)  # the rules the journal could not take, first
            self._rules_pending = None
        stored_again = self._unstored is not None  # its outputs met a failed store before
        if self._unstored is None:
            body, event = journal_input(item.data, item.error, retained=item.retained)
            ts = now_ts()
            try:
                self._close_month(ts)
                rec = self.journal.append(ts, item.source, item.ref, body, event)
            except Exception as exc:
                self._raise_if_unwritable(exc)
                raise
            committed = time.perf_counter() if item.received is not None else 0.0
            self._unstored = (rec, *self._apply_and_hand_on(rec))
            if item.received is not None and self.metrics is not None:  # timed once, at commit
                self.metrics.device_input(item.source, body.get("type"), committed - item.received)
        rec, rows, handed_on = self._unstored
        try:
            self.journal.write_outputs(rec, rows)
        except Exception as exc:
            self._raise_if_unwritable(exc)
            raise
        self._unstored = None
        if rec.seq == self.journal.first_seq:  # the journal's, or a new month file's, first
            self._publish_anchors()
        if self.relay is not None and not handed_on:  # journaled and stored: its turn, now
            self.relay.offer(rows)
        elif self.relay is not None and stored_again:  # any that did not go out, now
            self.relay.wake()
        for listener in self.listeners:
            listener(rec, rows)
        self._show(self.table.take_displayed())
        self._info_if_rules_changed()
        if item.source != "config":
            self._journal_rules()
        self._arm_bet_timer()
        self._maybe_checkpoint()
        return rec

    def _apply_and_hand_on(self, rec: Record) -> tuple[list[OutboxRow], bool]:
        """Apply a journaled record; its messages, and whether they went to the broker already.

        The record is committed (with fsync): its messages may go. Each goes to the broker as
        soon as it is rendered, a card's event before the state after it is built, when
        nothing stored can differ from them (a store that meets different rows holds the
        table and publishes nothing): they are stored after, in the same turn, so no broker's
        acknowledgment comes before the rows are there to be marked sent, and a store that
        fails (a full disk) stores them on its next try. Otherwise (or a journal's first
        record, which publishes its anchors first) they go once stored."""
        relay = self.relay
        rows: list[OutboxRow] = []
        early = relay is not None and rec.seq != self.journal.first_seq
        for row in self.table.apply_lazily(rec):
            if not rows:
                early = early and self.journal.holds_none_of([row])
            rows.append(row)
            if early and relay is not None:
                relay.offer([row])
        return rows, early

    def _raise_if_unwritable(self, exc: Exception) -> None:
        """For an error met writing the journal: JournalUnwritable when it says the file cannot
        be written (the connection made ready for the next try); else nothing, and the caller
        lets `exc` go on. (Not a context manager: this is on every card's way.)"""
        reason = unwritable_reason(exc)
        if reason is not None:
            self.journal.reset_after_failure()
            raise JournalUnwritable(reason) from exc

    # -- a journal that cannot be written ----------------------------------------------------

    def _journal_unwritable(self, reason: str) -> None:
        """The journal could not take an input: logged once, and the floor told from memory
        (the outbox is in the journal): an `alert` and the retained `journal/status`."""
        if self.journal_trouble is not None:
            self.journal_trouble = reason  # the latest word, for the status line
            return
        self.journal_trouble = reason
        self._trouble_since = since = now_ts()
        self._trouble_began.set()
        if self.metrics is not None:
            self.metrics.held("journal-unwritable", True)
            self.metrics.alert("journal-unwritable")
        log.error(
            "journal.unwritable",
            reason=reason,
            journal=str(self.journal.path),
            retry_seconds=self.journal_retry_seconds,
            detail="no input is journaled or applied until the journal can be written: inputs "
            "wait in order, commands are refused; free space (docs/operations.md, Disk full)",
        )
        self._notice(
            "alert",
            {"kind": "journal-unwritable", "reason": reason, "journaled": False, "ts": since},
        )
        self._journal_status({"writable": False, "reason": reason, "since": since})

    def _journal_writable(self) -> None:
        """The input the journal could not take is in: the floor hears so, and the queue runs."""
        since = now_ts()
        log.info(
            "journal.writable",
            was=self.journal_trouble,
            unwritable_since=self._trouble_since,
            waiting=self.queue.qsize(),
        )
        reason = f"the journal can be written again (unwritable since {self._trouble_since})"
        # The trouble goes into the journal now that it can, after what waited, so that it
        # stays on `alerts/open` until a person acknowledges it (`alert.ack`).
        trouble = {
            "type": "journal.trouble",
            "reason": (self.journal_trouble or "unknown")[:300],
            "since": self._trouble_since or since,
            "until": since,
        }
        self.submit_nowait("journal", trouble)
        self.journal_trouble = self._trouble_since = None
        self._trouble_began.clear()
        if self.metrics is not None:
            self.metrics.held("journal-unwritable", False)
            self.metrics.alert("journal-writable")
        self._journal_status({"writable": True, "since": since})
        self._notice(
            "alert",
            {"kind": "journal-writable", "reason": reason, "journaled": False, "ts": since},
        )

    # -- the bet timer's input -----------------------------------------------------------------

    def _arm_bet_timer(self) -> None:
        """R28: the optional bet timer closes betting by itself at the time `state` shows
        (`bets_close_at`: the round's first wager's record time plus the timer), so a restart
        during betting closes it when it would have closed anyway, not a full timer later."""
        clock = self.table.bet_clock
        if clock is None:
            return
        rnd, closes = clock
        if self._bet_timer is not None and self._bet_timer_round == rnd:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, (parse_ts(closes) - datetime.now(UTC)).total_seconds())

        def fire() -> None:
            self._bet_timer = None
            now = self.table.state_view()
            if now.round == rnd and now.phase == "betting":
                self.submit_nowait("timer", {"type": "bets.close"})

        self._bet_timer = loop.call_later(delay, fire)
        self._bet_timer_round = rnd
