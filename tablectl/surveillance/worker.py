"""The surveillance feed in the daemon, off the hot path: each journal record's played inputs are
queued (`add`, called after the record's own messages were stored and offered to the relay), and
one task hands them, in order, to the feed in a process of its own, whose messages it publishes
from memory at QoS 1 (best effort, as the delayed broadcast feed's), while the relay is
connected: what the feed makes while the broker is away is not kept.

Why a process and not a thread: the figures after a card are pure Python for some milliseconds,
and a thread computing them would hold the interpreter's lock the event loop needs to journal and
publish the next card (the loop waits up to the switch interval, 5 ms, each time it wants it
back). In a process of its own the feed shares nothing with the table's loop but a pipe; the
table's card goes out as fast with the feed on as off.

What a restart loses: the feed's state (the shoe, the counter's samples) lives in the worker and
is not kept: after a start the daemon publishes nothing until the next `shoe.new`, and a
message made while the broker was away, or one the broker never took, is not sent again.
`tablectl replay --surveillance` of the journal (an export) and `tablectl recall --shoe` compute
every one of them again, byte for byte.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

import structlog

from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl.surveillance.feed import feed_inputs

if TYPE_CHECKING:
    from tablectl.config.sections import Protection
    from tablectl.games.table_rules import Rules
    from tablectl.relay import Relay
    from tablectl.surveillance.feed import Message, SurveillanceFeed

log = structlog.get_logger("tablectl.surveillance")

_feed: SurveillanceFeed | None = None
"""The worker process's feed (`_start`); none in the daemon's own process."""
_rules: Rules | None = None
"""The rules the worker was last given: sent again only when they change."""


WORKER_STARTS = 3
"""How many times in a row the worker process is started after it died, before the feed stops."""
QUEUE_MAX = 10_000
"""Records waiting for the worker at most (hours of play): past it the feed stops, logged."""
WORKER_NICENESS = 10
"""How much lower the worker's CPU priority is than the daemon's: on a two-core table PC the
figures wait for a free core rather than take one from the table's own loop."""


def _start(protection: Protection, table: str) -> None:
    """The worker's start: its feed, at a lower CPU priority. Ctrl-C is the daemon's to handle
    (it stops the worker)."""
    global _feed
    from tablectl.surveillance.feed import SurveillanceFeed

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(WORKER_NICENESS)
    except OSError as exc:  # a sandbox without setpriority: the feed runs, at the same priority
        log.warning("surveillance.worker_priority", error=str(exc))
    _feed = SurveillanceFeed(protection, table)


def _add(record: int, ts: str, echoes: list[dict[str, Any]], rules: Rules | None) -> list[Message]:
    """In the worker: one record through its feed (`rules` None: the ones given before)."""
    global _rules
    if rules is not None:
        from tablectl.protection.live import live_game, prepare

        if live_game(rules):
            prepare(rules)  # the tables every card reads, built before a card needs them
        _rules = rules
    assert _feed is not None and _rules is not None
    return _feed.add(record, ts, echoes, _rules)


class SurveillanceWorker:
    """The queue of records for the feed, and the task that runs them through it (`run`)."""

    def __init__(self, protection: Protection, table: str, relay: Relay) -> None:
        self.protection = protection
        self.table = table
        self.relay = relay
        self.queue: asyncio.Queue[tuple[int, str, list[dict[str, Any]], Rules]] = asyncio.Queue(
            QUEUE_MAX
        )
        self.stopped = False  # the feed gave up (logged): nothing more is queued

    def add(
        self, rec: Record, rows: list[OutboxRow], whole: list[dict[str, Any]], rules: Rules
    ) -> None:
        """Queue a journaled record's played inputs and voids (`feed_inputs`; cheap: the hot
        path calls it)."""
        if self.stopped:
            return
        echoes = feed_inputs(whole, rows)
        if not echoes:
            return
        try:
            self.queue.put_nowait((rec.seq, rec.ts, echoes, rules))
        except asyncio.QueueFull:
            # The worker has fallen hopelessly behind (hung, or the machine starved): the
            # figures would be stale anyway. Stop rather than hold the table's memory.
            self.stopped = True
            log.error("surveillance.stopped", record=rec.seq, reason="its queue is full")

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=(self.protection, self.table),
        )

    async def run(self) -> None:
        """Until stopped: the next queued record through the worker's feed, its messages
        published. A feed that fails on a record is logged and goes on with the next; a worker
        that died is started again (it knows no shoe until the next `shoe.new`), up to
        WORKER_STARTS times in a row, after which the feed stops, logged (the table plays on)."""
        loop = asyncio.get_running_loop()
        pool = self._pool()
        sent: Rules | None = None
        died = 0
        try:
            while True:
                record, ts, echoes, rules = await self.queue.get()
                given = None if rules is sent else rules
                try:
                    messages = await loop.run_in_executor(pool, _add, record, ts, echoes, given)
                except BrokenProcessPool as exc:
                    died += 1
                    log.error("surveillance.worker_died", record=record, times=died, exc_info=exc)
                    pool.shutdown(wait=False, cancel_futures=True)
                    if died >= WORKER_STARTS:
                        self.stopped = True
                        log.error("surveillance.stopped", record=record, reason="worker died")
                        return
                    pool, sent = self._pool(), None
                    continue
                except Exception as exc:  # a defect: the table plays on, the log says so
                    log.error("surveillance.feed_failed", record=record, exc_info=exc)
                    sent = None
                    continue
                sent, died = rules, 0
                self._publish(messages)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _publish(self, messages: list[Message]) -> None:
        """From memory at QoS 1, while the relay is connected; dropped while it is not (the
        relay keeps at most MAX_NOTICES messages from memory for the next connection, and a
        shoe's figures would push out the table's own alerts)."""
        from tablectl.relay import RelayState

        if self.relay.state is not RelayState.CONNECTED:
            return
        for message in messages:
            self.relay.notice(message.suffix, message.payload)
