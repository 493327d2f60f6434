"""Supervision: `Daemon` joins the jobs of this package into one object and runs the table from
start to stop: its tasks spawned and watched (one that dies stops the daemon, for systemd to
restart), systemd told (READY=1, the watchdog, the STATUS= line), the status socket and the
metrics endpoint bound, and a clean shutdown on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from tablectl import sdnotify
from tablectl.broadcast import DelayedFeed
from tablectl.daemon.commands import Commands
from tablectl.daemon.devices import Devices
from tablectl.daemon.inputs import Inputs
from tablectl.daemon.mqtt_link import MqttLink
from tablectl.daemon.recovery import Recovery
from tablectl.daemon.status_report import StatusReport
from tablectl.discovery import discovery_messages
from tablectl.logs import log_unhandled
from tablectl.metrics import MetricsServer
from tablectl.outputs import OutboxRow
from tablectl.records import Record, now_ts
from tablectl.relay import Relay, RelayState
from tablectl.status_socket import StatusServer, socket_path
from tablectl.table import Table

log = structlog.get_logger("tablectl.daemon")


class Daemon(Recovery, Inputs, Commands, MqttLink, Devices, StatusReport):
    """Runs one table until stopped."""

    async def run(self, *, install_signals: bool = True) -> None:
        """Recover, start everything, run until `stop()` (or SIGTERM/SIGINT), shut down cleanly."""
        try:
            relay = self._make_relay() if self.mqtt_enabled else None  # a bad password file: now
        except BaseException:
            if self._journal is not None:  # the file (and its one-writer lock) given back
                self._journal.close()
            raise
        loop = asyncio.get_running_loop()
        # Whatever no code of ours caught reaches the log as one event in its format, not as
        # asyncio's "Exception in callback" text (tablectl/logs.py, log_unhandled).
        handler_before = loop.get_exception_handler()
        loop.set_exception_handler(log_unhandled)
        try:
            await self._run(loop, relay, install_signals=install_signals)
        finally:
            loop.set_exception_handler(handler_before)

    async def _run(
        self, loop: asyncio.AbstractEventLoop, relay: Relay | None, *, install_signals: bool
    ) -> None:
        """`run` itself, under its exception handler."""
        if install_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop)
        for warning in self.cfg.warnings:  # e.g. a vendor plugin that cannot load
            log.warning("config warning", warning=warning)
        if self.fault is None:
            self._recover_or_hold()
        # `tablectl status` from here (not during the replay, which holds the loop): bound
        # before anything is spawned, so nothing runs before READY=1 that did not before.
        self._status_server = StatusServer(socket_path(self.cfg.journal_path), self.status_report)
        await self._status_server.start()  # one that cannot be bound is logged: the table runs
        if self.metrics is not None and self.cfg.table.metrics is not None:  # held too
            host, port = self.cfg.table.metrics.address
            self._metrics_server = MetricsServer(self.metrics, host, port)
            await self._metrics_server.start()  # as the status socket: logged, the table runs
        if self.fault is None:
            self._start_table(relay)
        elif relay is not None:
            self.relay = relay  # the fault is told at every connect (`_on_connect`)
            self._journal_status(self.fault.status_fields())
            self._spawn(relay.run(), "relay")
        interval = sdnotify.watchdog_interval()
        if interval:
            self._spawn(self._watchdog(interval), "watchdog")
        if relay is not None or sdnotify.notify_socket_set():
            self._spawn(self._status_notes(), "status")
        sdnotify.ready()  # held too: a journal fault is one start, never a restart loop
        if install_signals:  # the process is the daemon's own (`tablectl run`, not a test's)
            # What the start built (modules, config, the replayed table) lives as long as the
            # process: collected once, then kept out of the collector's reach, so a full
            # collection during play walks only what play made (8-10 ms for what a start
            # holds, on the card that meets it; well under 1 ms after the freeze).
            gc.collect()
            gc.freeze()
        if self.fault is None:
            log.info("running", table=self.cfg.table.table, game=self.cfg.table.game.id)
        try:
            await self._stop.wait()
        finally:
            await self._shutdown()

    def _start_table(self, relay: Relay | None) -> None:
        """Everything a table that replayed its journal runs: the journal's consumer, the
        relay with the start's `journal/status` and `info`, the broadcast feed, the devices."""
        if self._rules_pending is not None:  # the journal could not take them: the first input
            self.queue.put_nowait((self._rules_pending, None))
            self._rules_pending = None
        self._arm_bet_timer()  # a restart during betting keeps the bet timer running (R28)
        self._last_result = self._stored_result()
        self.listeners.append(self._note_result)
        if self.metrics is not None:
            self.metrics.held("round", self.table.held is not None)  # as the replay left it
            self.listeners.append(self._metered)
        self._spawn(self._consume(), "journal")
        if relay is not None:
            self.relay = relay
            # This start's word, in place of any the broker still holds from before it.
            self._journal_status({"writable": True, "since": now_ts()})
            self._publish_info()
            self._publish_anchors()
            if self.cfg.table.mqtt.discovery:
                for topic, payload in discovery_messages(
                    self.cfg, self.cfg.table.mqtt.discovery_prefix
                ):
                    relay.notice_at(topic, payload, retain=True)
            self._spawn(relay.run(), "relay")
            delay = self.cfg.table.broadcast.delay_seconds
            fed: list[Fed] = []  # what reads the played inputs whole (each record's once)
            if delay:
                feed = DelayedFeed(delay, self.cfg.table.base_topic)
                fed.append(feed.add)
                self._spawn(self._broadcast(feed, relay), "broadcast")
            protection = self.cfg.table.protection
            if protection.enabled:  # the surveillance feed, off the hot path
                # loaded only for a table that has it on (it brings multiprocessing)
                from tablectl.surveillance.worker import SurveillanceWorker

                watch = SurveillanceWorker(protection, self.cfg.table.table, relay)
                fed.append(lambda rec, rows, whole: watch.add(rec, rows, whole, self.table.rules))
                self._spawn(watch.run(), "surveillance")
            if fed:
                self.table.unhidden = []
                self.listeners.append(lambda rec, rows: _feed_all(fed, rec, rows, self.table))
        for dev in self.cfg.table.devices:
            self._spawn(
                self._run_driver(dev.name, dev.driver, dev.port, dev.baud, dev.options),
                f"driver {dev.name}",
            )

    def stop(self) -> None:
        self._stop.set()

    async def _shutdown(self) -> None:
        sdnotify.stopping()
        log.info("stopping")
        if self._status_server is not None:  # from now on `tablectl status` says not running
            await self._status_server.close()
        if self._metrics_server is not None:
            await self._metrics_server.close()
        if self._bet_timer:
            self._bet_timer.cancel()
        consumer = self._consumer_task()
        await _cancel_and_wait([t for t in self._tasks if t.get_name() not in ("journal", "relay")])
        if consumer is not None:
            await self._stop_consumer(consumer)
        if self.relay is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):  # not wait_for: see _cancel_and_wait
                    await self._drain_outbox()
            await self.relay.stop()
            await _cancel_and_wait([t for t in self._tasks if t.get_name() == "relay"])
        if self.fault is None and self.table.position > self._snapshot_at:
            try:
                self._checkpoint()  # the next start replays nothing
            except Exception as exc:  # e.g. a full disk: the next start only replays longer
                log.error("checkpoint failed", exc_info=exc)
        if self._journal is not None:
            self._journal.close()
        log.info("stopped")

    async def _stop_consumer(self, consumer: asyncio.Task[None]) -> None:
        """The journal's consumer stopped: what was received is journaled first, unless the
        journal cannot take it (then what is left is logged as not journaled)."""
        if not consumer.done():
            # Everything already received is journaled before we go, unless the journal
            # cannot be written: then waiting would only hold up the stop.
            await self._drained_or_unwritable()
        if consumer.done() or self.journal_trouble is not None:
            # The journal failed: these inputs were never recorded (the one being tried again
            # too, unless only its outputs were missing: the next start writes those).
            count = self.queue.qsize()
            if self.journal_trouble is not None and self._unstored is None:
                count += 1
            if count:
                log.error("inputs not journaled", count=count, reason=self.journal_trouble)
        self._consumer_waiting = False  # from now on an input is queued, never taken in a turn
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)

    async def _drained_or_unwritable(self) -> None:
        """Until every queued input is journaled, or the journal cannot be written."""
        drained = asyncio.ensure_future(self.queue.join())
        trouble = asyncio.ensure_future(self._trouble_began.wait())
        try:
            await asyncio.wait({drained, trouble}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (drained, trouble):
                task.cancel()
            await asyncio.gather(drained, trouble, return_exceptions=True)

    async def _drain_outbox(self) -> None:
        while self._journal is not None and self._journal.unsent_count():
            await asyncio.sleep(0.05)

    def _spawn(self, coro: Awaitable[None], name: str) -> None:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        task.add_done_callback(self._task_done)
        self._tasks.append(task)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self._task_failed(task.get_name(), exc)

    def _task_failed(self, name: str, exc: BaseException) -> None:
        """A task of the daemon died of `exc` (or, for the journal's, its work did in another
        task's turn: `Inputs.submit`): logged, and the daemon stops."""
        log.error("task failed", task=name, exc_info=exc)
        self.failed = True
        self.stop()  # let systemd restart us rather than run half a daemon

    def note_status(self, now: float | None = None) -> None:
        """One check of the status loop (`now`: the monotonic time, for a test's own clock):
        the unsent count once, for the STATUS= line to systemd when it changed and for the
        retained `journal/status` when `UnsentNotes` says so. While the relay is not connected
        the count is not told (it could not reach anyone, and the relay would keep it among the
        notices waiting); the relay's connect hook (`_on_connect`) tells the count of then."""
        count = self.unsent_count()
        if sdnotify.notify_socket_set():
            line = self.status_line(count)
            if line != self._status_said:
                sdnotify.status(line)
                self._status_said = line
        now = time.monotonic() if now is None else now
        due = self.unsent_notes.due(count, now)
        if due and self.relay is not None and self.relay.state is RelayState.CONNECTED:
            self._journal_status(count=count, now=now)

    async def _watchdog(self, interval: float) -> None:
        while True:
            sdnotify.watchdog()
            await asyncio.sleep(interval)

    def status_line(self, unsent: int | None = None) -> str:
        """What `systemctl status` shows: a journal that cannot be written first, the round and
        its phase, any hold, the broker, and how many messages wait to be published (`unsent`,
        else `unsent_count()` now)."""
        parts = []
        if self.fault is not None:  # the table's state was never rebuilt: the fault alone
            parts.append(self.fault.status_line())
            return "; ".join([*parts, *self._link_parts(unsent)])
        st = self.table.state_view()
        if self.journal_trouble is not None:
            parts.append(f"JOURNAL UNWRITABLE: {self.journal_trouble}")
        parts.append(f"round {st.round} {st.phase}")
        if self.table.held is not None:
            parts.append(f"HELD: {self.table.held}")
        return "; ".join([*parts, *self._link_parts(unsent)])

    def _link_parts(self, unsent: int | None) -> list[str]:
        """The status line's end: the broker, and the messages waiting to be published."""
        broker = f"broker {self.relay.state.value}" if self.relay is not None else "mqtt off"
        return [broker, f"{self.unsent_count() if unsent is None else unsent} unsent"]

    async def _status_notes(self) -> None:
        """`note_status` every `status_note_seconds`: STATUS= to systemd whenever the status line
        changes, the unsent count on the retained `journal/status` as it changes."""
        while True:
            self.note_status()
            await asyncio.sleep(self.status_note_seconds)


Fed = Callable[[Record, list[OutboxRow], list[dict[str, Any]]], None]
"""A feed of the played inputs whole: the delayed broadcast feed, the surveillance feed."""


def _feed_all(fed: list[Fed], rec: Record, rows: list[OutboxRow], table: Table) -> None:
    """Each feed given the record, its messages and its played inputs whole (taken once)."""
    whole = table.take_unhidden()
    for feed in fed:
        feed(rec, rows, whole)


RECANCEL_SECONDS = 1.0
"""How long a cancelled task may take to end before it is cancelled again."""


async def _cancel_and_wait(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel `tasks` and wait until every one has ended, so a stop is never lost.

    A task still running RECANCEL_SECONDS after its cancellation swallowed it: a vendor driver
    catching CancelledError, or Python 3.11's `asyncio.wait_for` returning its result when the
    cancellation arrives as its awaitable completes (CPython gh-86296). That is logged as an
    error and the task is cancelled again, rather than the shutdown waiting for ever (DESIGN
    shape 5: the shell "shuts down cleanly on SIGTERM"). Failures were already logged by
    `_task_done`.
    """
    pending = set(tasks)
    for task in pending:
        task.cancel()
    while pending:
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
        for task in pending:
            log.error("task ignored its cancellation", task=task.get_name())
            task.cancel()
