"""The imperative shell: drivers and commands in, journal, engine, outbox, MQTT relay out.

One asyncio task owns the journal and the table; every input goes through its queue, so the
order inputs are journaled in is the order the engine sees them. A restart replays the journal,
writes the outputs of any record whose outputs were not yet stored, and carries on.

A journal that cannot be written (a full disk, an I/O error: `JournalUnwritable`) stops the
table, not the daemon: the input that met it is tried again every JOURNAL_RETRY_SECONDS, those
behind it wait in the queue, commands are refused from memory, and the floor hears of it from
memory too (`alert`, retained `journal/status`; docs/operations.md "Disk full").

The retained `journal/status` also says how many outbox rows the broker has not acknowledged
(`unsent`, the count the STATUS= line shows): at start, after every connect when it changed, and
as it changes, at most every UNSENT_NOTE_SECONDS (`UnsentNotes`).

A journal the daemon cannot open or replay (issue 24 item 4: a record that cannot be read, a gap,
outputs the replay no longer gives, an import that did not finish) holds the table instead of
failing the start: `READY=1`, the watchdog fed, the fault on the retained `journal/status` and an
`alert` (tablectl/fault.py), every command refused, no device read, nothing journaled. Under
systemd's `Restart=` that is one start, not a loop (docs/operations.md "A journal the table
cannot replay").

`tablectl status` reads the table from the daemon's memory over a local socket beside the
journal (tablectl/status_socket.py, `status_report`): round, holds, devices with the age of
their last frame, broker, backlog, journal, last result; open from start to stop, held too.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import math
import os
import signal
import sqlite3
import ssl
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import structlog

from tablectl import sdnotify, segments, snapshot
from tablectl.broadcast import DelayedFeed
from tablectl.chainkey import ChainKey, load_key
from tablectl.commands import COMMAND_VERBS as COMMAND_VERBS  # (re-exported)
from tablectl.config import BrokerSetupError, LoadedConfig, Rules, resolve
from tablectl.discovery import discovery_messages
from tablectl.fault import JournalFault
from tablectl.info import info_payload, rules_digest
from tablectl.journal import (
    BadRecord,
    Journal,
    JournalError,
    JournalUnavailable,
    Record,
    format_ts,
    parse_ts,
)
from tablectl.logs import log_unhandled
from tablectl.metrics import MetricsServer, TableMetrics
from tablectl.outputs import PAYLOAD_VERSION, OutboxRow
from tablectl.relay import Refusal, Relay, RelayState
from tablectl.segments import History
from tablectl.status_report import (
    REPORT_VERSION,
    device_entry,
    file_bytes,
    journal_entry,
    result_entry,
)
from tablectl.status_socket import StatusServer, socket_path
from tablectl.table import Table, journal_body, now_ts
from tablectl.witness import anchors
from tablectl_base.events import json_problem
from tablectl_drivers.base import Backoff, DisplayDriver, Driver, FrameClock
from tablectl_drivers.connect import port_serial
from tablectl_drivers.registry import load_driver

log = structlog.get_logger("tablectl.daemon")

RECOVERY_NOTE_SECONDS = 2.0
"""How often a long recovery tells systemd how far it got."""
RECOVERY_EXTEND_SECONDS = 30.0
"""How much more time each of those notes asks systemd for (EXTEND_TIMEOUT_USEC)."""
STATUS_NOTE_SECONDS = 1.0
"""How often the STATUS= line and the unsent count are checked for a change while running."""
UNSENT_NOTE_SECONDS = 5.0
"""The least time between two retained `journal/status` told for a new unsent count alone: a
backlog of thousands draining is told in a message every 5 s, not one a row; a backlog that
reached 0 is told at once (`UnsentNotes`, docs/mqtt.md)."""
SNAPSHOT_EVERY_RECORDS = 1000
"""Records applied between snapshots, taken at the next round boundary (about 70 baccarat
rounds): a start replays at most this many records, plus the round in progress."""
SNAPSHOT_MOST_RECORDS = 5000
"""A snapshot in the middle of a round once this many records were applied since the last."""
SNAPSHOT_RETRY_RECORDS = 100
"""Records applied after a snapshot that found no room before the next is tried."""
SEGMENT_RETRY_RECORDS = 100
"""Records applied after a month's close that found no room before it is tried again (at the
next round boundary after them)."""
BROADCAST_IDLE_SECONDS = 0.5
"""How often the delayed broadcast feed looks for what came due while nothing waited."""
JOURNAL_RETRY_SECONDS = 5.0
"""How often an input the journal could not take is tried again (`Daemon.journal_retry_seconds`)."""

# Command payload limits (docs/mqtt.md "Commands"). A command is a small flat object (the
# longest, a decision with a pai gow low hand, is under 200 bytes); whatever breaks a limit is
# journaled as input.invalid with the reason and answered, like any other refused command.
MAX_COMMAND_BYTES = 4096  # larger payloads are refused before they are decoded
RAW_KEPT_BYTES = 512  # what the journal keeps of an oversize payload: its first bytes
MAX_COMMAND_DEPTH = 8  # arrays and objects nested deeper than this are refused
MAX_REF_CHARS = 128  # a longer `id` is refused
MAX_VERB_CHARS = 64  # a longer topic level is no verb: journaled under "cmd", no reply

Listener = Callable[[Record, list[OutboxRow]], None]


class JournalHeld(Exception):
    """An input that arrived, or waited, while the table is held on a journal fault: it was not
    journaled (tablectl/fault.py); or (`journaled` True) the input whose record showed the
    fault: journaled, its outputs not stored, the table held from it on."""

    def __init__(self, reason: str, *, journaled: bool = False) -> None:
        super().__init__(reason)
        self.journaled = journaled


class _NoOutbox:
    """The relay's outbox while the journal could not even be opened: nothing to publish from
    it, only the messages from memory (the held table's `journal/status` and `alert`)."""

    def pending(self, limit: int) -> list[OutboxRow]:
        return []

    def mark_sent(self, seqs: Sequence[int]) -> None:
        return None

    def latest_retained(self) -> list[OutboxRow]:
        return []


class JournalUnwritable(Exception):
    """The journal file cannot be written now: a full disk, an I/O error, a read-only file
    system. Nothing recorded was touched, and the write that met it can be tried again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# What says the file cannot be written, as opposed to a journal that is wrong (JournalError) or
# a defect: SQLite's result codes (Python 3.11+ names them), its messages for them, and what the
# operating system says when the segment close (tablectl/segments.py) writes a file of its own.
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


@dataclass(frozen=True)
class Input:
    """Something to journal: a decoded event object (or the raw text that failed to decode)."""

    source: str
    data: Any
    ref: str | None = None
    error: str | None = None  # set when the input could not even be decoded
    retained: bool = False  # a command refused for its retain flag alone (R54)
    # When a device input reached the daemon (time.perf_counter), with [metrics] on: its
    # record's commit is timed from it (tablectl_device_input_journal_seconds)
    received: float | None = None


def _open_journal(cfg: LoadedConfig) -> Journal:
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


@dataclass
class UnsentNotes:
    """When the retained `journal/status` tells the unsent count anew (docs/mqtt.md): on a check
    that finds a count other than the one last told, seen on the check before too (a healthy
    table's messages are unacknowledged for a few milliseconds: a count caught on one check only
    is not told), and at least `every` seconds after the last told; a backlog that reached 0 at
    once. Pure: the daemon's checks give the count and the (monotonic) time."""

    every: float
    told: int | None = None  # the count the retained journal/status carries (None: none yet)
    told_at: float = -math.inf
    seen: int = 0  # the count found by the check before

    def due(self, count: int, now: float) -> bool:
        """Whether a check that found `count` at `now` should tell it."""
        before, self.seen = self.seen, count
        if count == self.told:
            return False
        if count == 0:
            return True
        return before != 0 and now - self.told_at >= self.every

    def said(self, count: int, now: float) -> None:
        """`count` was told at `now` (a check's, the start's or a connect's)."""
        self.told, self.told_at = count, now


def notice_payload(table: str, fields: dict[str, Any]) -> bytes:
    """A message published from memory (no `seq`): the envelope (`table`, `ts`, `v`) and
    `fields`; `ts` is the time the fields give, else now (docs/mqtt.md)."""
    payload = {"table": table, "ts": now_ts(), "v": PAYLOAD_VERSION, **fields}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Daemon:
    """Runs one table until stopped."""

    def __init__(self, cfg: LoadedConfig, *, mqtt: bool | None = None) -> None:
        self.cfg = cfg
        # The Prometheus metrics ([metrics]; None: off, nothing counted): tablectl/metrics.py.
        self.metrics: TableMetrics | None = None
        self._metrics_server: MetricsServer | None = None
        if cfg.table.metrics is not None:
            self.metrics = TableMetrics(
                site=cfg.table.site,
                table=cfg.table.table,
                game=cfg.table.game.id,
                base_topic=cfg.table.base_topic,
                unsent=self.unsent_count,
                journal_bytes=self._journal_bytes,
                broker_connected=self._broker_connected,
            )
        # Why the table is held on its journal (None: it is not): see `_hold`.
        self.fault: JournalFault | None = None
        self._journal: Journal | None = None
        try:
            self._journal = _open_journal(cfg)
        except JournalUnavailable:
            raise  # a full disk or a lock: a later start may open it (docs/operations.md)
        except JournalError as exc:
            self._hold(exc)
        self.table = Table(cfg)
        self.queue: asyncio.Queue[tuple[Input, asyncio.Future[Record] | None]] = asyncio.Queue()
        self.listeners: list[Listener] = []
        self.mqtt_enabled = cfg.table.mqtt.enabled if mqtt is None else mqtt
        self.relay: Relay | None = None
        self._stop = asyncio.Event()
        self.failed = False  # a task died: `tablectl run` exits non-zero so systemd restarts it
        self._tasks: list[asyncio.Task[None]] = []
        self._bet_timer: asyncio.TimerHandle | None = None
        self._displays: dict[str, DisplayDriver] = {}  # device name -> display driver
        self._display_latest: dict[str, dict[str, Any]] = {}
        self._bet_timer_round: int | None = None
        self._replaying: int | None = None  # the record `recover` is replaying, for its errors
        self._snapshot_at = 0  # the record the newest snapshot was taken after
        self._snapshot_tried = 0  # the record a snapshot found no room after (0: none did)
        self._close_tried = 0  # the record a month's close found no room after (0: none did)
        # The journal cannot be written (why, and since when): see _ingest_until_journaled.
        self.journal_trouble: str | None = None
        self.journal_retry_seconds = JOURNAL_RETRY_SECONDS
        self._trouble_since: str | None = None
        self._trouble_began = asyncio.Event()  # set while journal_trouble is
        # A record journaled and applied whose outputs could not be stored yet: _ingest stores
        # them when the same input is tried again (never appending or applying it twice).
        self._unstored: tuple[Record, list[OutboxRow]] | None = None
        # The config's rules, due to be journaled when the journal could not take them: they
        # go in before the next input.
        self._rules_pending: Input | None = None
        # The rules the retained `info` was last made for (None: not yet made), and its digest.
        self._info_rules: Rules | None = None
        self._info_digest: str | None = None
        # The retained journal/status: whether the journal can be written (the last word, told
        # again with each new unsent count), and when the unsent count is told anew.
        self._journal_fields: dict[str, Any] = {"writable": True, "since": now_ts()}
        self.unsent_notes = UnsentNotes(UNSENT_NOTE_SECONDS)
        self.status_note_seconds = STATUS_NOTE_SECONDS
        self._unsent_known = 0  # the last count the journal gave (unsent_count)
        self._unsent_unreadable = False  # the last try to count failed (logged once)
        self._status_said = ""  # the last STATUS= line sent to systemd
        # `tablectl status` (status_report): when this start began, the drivers running now
        # (device name -> driver, for the age of their last frame), the last round/result.
        self.started = now_ts()
        self._drivers: dict[str, Driver] = {}
        self._last_result: dict[str, Any] | None = None
        self._status_server: StatusServer | None = None

    @property
    def journal(self) -> Journal:
        """The table's journal; JournalError when it could not be opened (the table is held)."""
        if self._journal is None:
            raise JournalError(self.fault.reason if self.fault else "the journal is not open")
        return self._journal

    # -- start-up ----------------------------------------------------------------------------

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
        noted = time.monotonic()
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
            if time.monotonic() - noted >= progress_every:
                noted = time.monotonic()
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
        for warning in self.cfg.warnings:  # e.g. a vendor plugin that cannot load (issue 5)
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
        if self.fault is None:
            log.info("running", table=self.cfg.table.table, game=self.cfg.table.game.id)
        try:
            await self._stop.wait()
        finally:
            await self._shutdown()

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
        """Hold the table on a journal it cannot open or replay (tablectl/fault.py): logged
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
            if delay:
                feed = DelayedFeed(delay, self.cfg.table.base_topic)
                self.table.unhidden = []
                self.listeners.append(
                    lambda rec, rows: feed.add(rec, rows, self.table.take_unhidden())
                )
                self._spawn(self._broadcast(feed, relay), "broadcast")
        for dev in self.cfg.table.devices:
            self._spawn(
                self._run_driver(dev.name, dev.driver, dev.port, dev.baud, dev.options),
                f"driver {dev.name}",
            )

    def stop(self) -> None:
        self._stop.set()

    async def _broadcast(self, feed: DelayedFeed, relay: Relay) -> None:
        """Publish the delayed feed's messages as they come due (from memory: best effort)."""
        while True:
            for item in feed.due(datetime.now(UTC)):
                relay.notice(item.topic, item.payload)
            due = feed.next_due()
            wait = BROADCAST_IDLE_SECONDS
            if due is not None:
                wait = min(wait, max(0.0, (due - datetime.now(UTC)).total_seconds()))
            await asyncio.sleep(wait)

    async def _shutdown(self) -> None:
        sdnotify.stopping()
        log.info("stopping")
        if self._status_server is not None:  # from now on `tablectl status` says not running
            await self._status_server.close()
        if self._metrics_server is not None:
            await self._metrics_server.close()
        if self._bet_timer:
            self._bet_timer.cancel()
        consumer = next((t for t in self._tasks if t.get_name() == "journal"), None)
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
            log.error("task failed", task=task.get_name(), exc_info=exc)
            self.failed = True
            self.stop()  # let systemd restart us rather than run half a daemon

    # -- inputs ------------------------------------------------------------------------------

    async def submit(
        self,
        source: str,
        data: Any,
        *,
        ref: str | None = None,
        error: str | None = None,
        received: float | None = None,
    ) -> Record:
        """Queue an input and wait until it is journaled and applied; JournalHeld while the
        table is held on a journal fault (nothing is journaled then). `received`: when a device
        input reached the daemon (time.perf_counter), for the metrics."""
        if self.fault is not None:
            raise JournalHeld(self.fault.refusal())
        fut: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
        await self.queue.put((Input(source, data, ref, error, received=received), fut))
        return await fut

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
            item, fut = await self.queue.get()
            try:
                rec = await self._ingest_until_journaled(item)
            except Exception as exc:
                self.queue.task_done()
                if isinstance(exc, JournalError):
                    self._hold_running(exc)
                    if fut is not None and not fut.done():  # its command is answered
                        assert self.fault is not None
                        reason = (
                            "journaled, not applied: the table is now held on a journal fault "
                            f"at {self.fault.where()} ({self.fault.reason})"
                        )
                        fut.set_exception(JournalHeld(reason, journaled=True))
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
            try:
                rec = self._ingest(item)
            except JournalUnwritable as exc:
                self._journal_unwritable(exc.reason)
                await asyncio.sleep(self.journal_retry_seconds)
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
        if self._unstored is None:
            body = journal_body(item.data, item.error, retained=item.retained)
            ts = now_ts()
            with self._writing():
                self._close_month(ts)
                rec = self.journal.append(ts, item.source, item.ref, body)
            committed = time.perf_counter() if item.received is not None else 0.0
            self._unstored = (rec, self.table.apply(rec))
            if self.relay is not None:  # journaled: its messages may go now (Relay.offer)
                self.relay.offer(self._unstored[1])
            if item.received is not None and self.metrics is not None:  # timed once, at commit
                self.metrics.device_input(item.source, body.get("type"), committed - item.received)
        rec, rows = self._unstored
        with self._writing():
            self.journal.write_outputs(rec, rows)
        self._unstored = None
        if rec.seq == self.journal.first_seq:  # the journal's, or a new month file's, first
            self._publish_anchors()
        if self.relay is not None:
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

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Journal writes: an error that says the file cannot be written becomes
        JournalUnwritable (the connection made ready for the next try); any other propagates."""
        try:
            yield
        except Exception as exc:
            reason = unwritable_reason(exc)
            if reason is None:
                raise
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
        # Issue 14: the trouble goes into the journal now that it can, after what waited, so
        # that it stays on `alerts/open` until a person acknowledges it.
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

    def _journal_status(
        self,
        fields: dict[str, Any] | None = None,
        *,
        count: int | None = None,
        now: float | None = None,
    ) -> None:
        """The retained `journal/status` (docs/mqtt.md): whether the journal can be written
        (`fields`, kept for the next, else the last word again) and the unsent `count` (else
        counted now), told at `now` (monotonic; else now). The relay keeps the newest and
        publishes it again after every connect."""
        if fields is not None:
            self._journal_fields = fields
        if count is None:
            count = self.unsent_count()
        self._notice("journal/status", {**self._journal_fields, "unsent": count}, retain=True)
        self.unsent_notes.said(count, time.monotonic() if now is None else now)

    def unsent_count(self) -> int:
        """The outbox rows the broker has not acknowledged: the one count both the STATUS= line
        and the retained `journal/status` give. A journal that cannot even be read for it gives
        the last count it gave (logged once), rather than stop the table's status."""
        if self._journal is None:  # held on a file that would not open: it has no outbox
            return 0
        try:
            self._unsent_known = self._journal.unsent_count()
        except sqlite3.Error as exc:
            if not self._unsent_unreadable:
                log.warning("journal.unsent_unreadable", error=str(exc), last=self._unsent_known)
            self._unsent_unreadable = True
        else:
            self._unsent_unreadable = False
        return self._unsent_known

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

    def _on_connect(self) -> None:
        """The relay connected (`Relay(on_connect=...)`): the unsent count now, when the retained
        `journal/status` kept from before says another, so the relay publishes this one."""
        count = self.unsent_count()
        if count != self.unsent_notes.told:
            self._journal_status(count=count)
        if self.fault is not None:  # told at every connect, not only on the retained status
            self._notice("alert", self.fault.alert_fields())

    def _on_refusal(self, refusal: Refusal) -> None:
        """The broker refused an outbox row, which the relay now holds, or took the held row at
        last (`Relay(on_refusal=...)`): an `alert` from memory, since the outbox is what waits
        (`publish-refused`, `publish-accepted`; docs/mqtt.md). The unsent count on
        `journal/status` tells the backlog behind it."""
        topic = refusal.topic.removeprefix(f"{self.cfg.table.base_topic}/")
        row = f"{topic} (outbox seq {refusal.seq})"
        if refusal.accepted:
            kind = "publish-accepted"
            times = "once" if refusal.refusals == 1 else f"{refusal.refusals} times"
            reason = f"the broker took {row}, refused {times} ({refusal.reason}): the rest go on"
        else:
            kind = "publish-refused"
            reason = (
                f"the broker refused {row}: {refusal.reason}; it and every message after it wait "
                "unsent, tried again until the broker takes it (is the broker's ACL "
                "`tablectl broker-acl` of this release?)"
            )
        fields = {"topic": topic, "outbox_seq": refusal.seq, "refusals": refusal.refusals}
        if self.metrics is not None:
            self.metrics.alert(kind)
        self._notice(
            "alert", {"kind": kind, "reason": reason, **fields, "journaled": False, "ts": now_ts()}
        )

    def _publish_info(self) -> None:
        """The retained `info` (tablectl/info.py) for the rules in force now. The relay keeps
        the newest and publishes it again after every connect."""
        self._info_rules = self.table.rules
        self._info_digest = rules_digest(self.table.rules)
        payload = info_payload(self.cfg, self.table.rules, ts=now_ts(), serial_of=port_serial)
        self._notice("info", payload, retain=True)

    def _publish_anchors(self) -> None:
        """The retained anchors (issue 24 item 2, `witness.anchors`): `journal/start`, where the
        journal begins, and `journal/segment`, where the live month's file begins. Heads alone
        cannot tell a journal whose front was cut off; these can (`verify-journal --against`).
        Published at start, when a file's first record is journaled, and again after every
        connect (the relay keeps them)."""
        if self.relay is None:
            return
        if self.journal.origin() is None and self.journal.first_seq > 1:
            self._find_origin()
        for suffix, fields in anchors(self.journal):
            self._notice(suffix, fields, retain=True)

    def _find_origin(self) -> None:
        """Record 1's head, for a live file whose first months went into segments before the
        anchors existed: read from the oldest segment (beside the journal or archived) and kept
        in the live file. Not there (segments moved off the PC): `journal/start` is not
        published, which `verify-journal --against` notes."""
        try:
            history = History.open(self.journal.path, self.cfg.table.table, self._archive_dir())
        except JournalError as exc:  # a segment that cannot be read: the table plays on
            log.warning("journal.origin_unknown", detail=str(exc))
            return
        try:
            head = history.files[0].head_at(1)
        finally:
            history.close()
        if head is None:
            log.warning("journal.origin_unknown", detail="record 1 is in no segment found here")
            return
        self.journal.keep_origin(head)

    def _info_if_rules_changed(self) -> None:
        """After a record: when a `config` record put other rules in force, `info` anew (a
        record with the same rules again changes nothing). Cheap when nothing changed: the
        table keeps the same rules object until a `config` record is applied."""
        if self.relay is None or self.table.rules is self._info_rules:
            return
        if rules_digest(self.table.rules) == self._info_digest:
            self._info_rules = self.table.rules
            return
        self._publish_info()

    def _notice(self, suffix: str, fields: dict[str, Any], *, retain: bool = False) -> None:
        """Publish from memory, not through the outbox (Relay.notice): no `seq`."""
        if self.relay is None:
            return  # MQTT off: the log says it
        self.relay.notice(suffix, notice_payload(self.cfg.table.table, fields), retain=retain)

    def _refuse_unjournaled(
        self, verb: str, ref: str | None, reason: str, *, journaled: bool = False
    ) -> None:
        """A command while the journal cannot be written, or while the table is held on a
        journal fault: answered at once from memory with `reason`, not queued (a dealer must
        not believe a wager was taken), not journaled (`journaled` True: the one command whose
        record showed the fault, journaled but not applied)."""
        if not journaled:
            log.warning("command.not_journaled", verb=verb[:MAX_VERB_CHARS], id=ref)
        if _verb_problem(verb) is not None:
            return  # no reply topic can carry it
        self._notice(
            f"cmd/{verb}/reply",
            {"id": ref, "ok": False, "reason": reason, "journaled": journaled},
        )

    # -- MQTT commands -----------------------------------------------------------------------

    async def on_command(self, verb: str, payload: bytes, retained: bool = False) -> None:
        """An inbound `cmd/<verb>`: validated like any other input, answered on `.../reply`.

        A command that came with the retain flag (`retained`: as the broker delivers a retained
        message on every subscribe, and with MQTT 5's retain-as-published live too) is refused
        for that alone, whatever it says (R54): journaled as `input.invalid` marked `retained`
        with its first RAW_KEPT_BYTES and its `id` when one can be read, answered `ok: false`,
        and its alert (`retained-command`) stays open until someone acknowledges it. A
        technician clears it at the broker; until then each delivery is refused the same way.
        The clearing (an empty retained message) reaches a subscribed table too, with the flag
        under MQTT 5's retain-as-published: no command, it is refused as any empty payload.

        Every payload is journaled, as its event or as `input.invalid` with the reason, and
        answered (the table replies with `id` null when none could be read): one larger than
        MAX_COMMAND_BYTES (only its first RAW_KEPT_BYTES kept), not UTF-8, not JSON (a number
        of more digits than Python converts, too), nested deeper than MAX_COMMAND_DEPTH, with
        a lone surrogate escape ("\\ud800", which no UTF-8 journal can hold), an `id` over
        MAX_REF_CHARS, an unknown verb or a type that is not the verb's. A topic level that no
        reply topic can carry is journaled under source "cmd" and not answered.

        While the journal cannot be written, a command is answered at once from memory, with
        `"journaled": false`, and neither queued nor journaled (`_refuse_unjournaled`); so is
        every command while the table is held on a journal fault (tablectl/fault.py).
        """
        if self.fault is not None:
            self._refuse_unjournaled(verb, _command_id(payload), self.fault.refusal())
            return
        if self.journal_trouble is not None:
            reason = (
                f"the journal cannot be written ({self.journal_trouble}): not recorded; "
                "try again when it is"
            )
            self._refuse_unjournaled(verb, _command_id(payload), reason)
            return
        bad_verb = _verb_problem(verb)
        if bad_verb is not None:
            await self._submit_command("cmd", _head(payload), error=bad_verb)
            return
        source = f"cmd/{verb}"
        if retained and payload:  # (an empty one is the broker's way to clear one: below)
            await self._submit_command(
                source,
                _head(payload),
                ref=_command_id(payload),
                error=retained_reason(f"{self.cfg.table.base_topic}/{source}"),
                retained=True,
            )
            return
        if len(payload) > MAX_COMMAND_BYTES:
            size = f"payload is {len(payload)} bytes; a command is at most {MAX_COMMAND_BYTES}"
            await self._submit_command(source, _head(payload), error=size)
            return
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            await self._submit_command(
                source,
                payload.decode("utf-8", "replace"),
                error=f"payload is not UTF-8 text: {exc.reason} at byte {exc.start}",
            )
            return
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # not only JSONDecodeError: see json_problem
            await self._submit_command(
                source, text, error=f"payload is not JSON: {json_problem(exc)}"
            )
            return
        bad_shape = _shape_problem(data)
        if bad_shape is not None:
            await self._submit_command(source, text, error=bad_shape)
            return
        ref = None
        if isinstance(data, dict):
            raw_id = data.pop("id", None)
            problem = id_problem(raw_id)
            if problem is not None:
                await self._submit_command(source, data, error=problem)
                return
            ref = None if raw_id is None else str(raw_id)
        if verb not in COMMAND_VERBS:
            await self._submit_command(
                source,
                data,
                ref=ref,
                error=f"unknown command {verb!r}; known: {', '.join(COMMAND_VERBS)}",
            )
            return
        if not isinstance(data, dict):
            await self._submit_command(source, data, ref=ref, error="payload must be a JSON object")
            return
        typ = data.setdefault("type", COMMAND_VERBS[verb])
        if typ != COMMAND_VERBS[verb]:
            await self._submit_command(
                source, data, ref=ref, error=f"cmd/{verb} carries type {typ!r}"
            )
            return
        await self._submit_command(source, data, ref=ref)

    async def _submit_command(
        self,
        source: str,
        data: Any,
        *,
        ref: str | None = None,
        error: str | None = None,
        retained: bool = False,
    ) -> None:
        """`submit` for a command, whose wait also ends when the journal turns out unwritable:
        the command stays queued (journaled, and answered through the outbox, once it can be),
        and the relay hands on the commands behind it, answered from memory meanwhile, rather
        than holding them until the disk has room."""
        fut: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
        await self.queue.put((Input(source, data, ref, error, retained), fut))
        trouble = asyncio.ensure_future(self._trouble_began.wait())
        waiting: set[asyncio.Future[Any]] = {fut, trouble}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            trouble.cancel()
        if not fut.done():
            fut.add_done_callback(_retrieve)
            return
        try:
            fut.result()  # a defect fails the command, as it fails the daemon
        except JournalHeld as exc:  # it waited in the queue when the table went held
            if source.startswith("cmd/"):  # (a payload under no verb gets no reply)
                verb = source.removeprefix("cmd/")
                self._refuse_unjournaled(verb, ref, str(exc), journaled=exc.journaled)

    def _make_relay(self) -> Relay:
        """The MQTT relay with the config's credentials; BrokerSetupError naming the key and the
        file when a password or TLS file cannot be read (before anything has started)."""
        m = self.cfg.table.mqtt
        password = None
        where = "mqtt.password_file"
        try:
            if m.password_file:
                password = resolve(self.cfg.path, m.password_file).read_text().strip()
            tls = None
            if m.tls is not None:
                where = "mqtt.tls"
                tls = ssl.create_default_context(cafile=str(resolve(self.cfg.path, m.tls.ca)))
                if m.tls.cert:
                    tls.load_cert_chain(
                        str(resolve(self.cfg.path, m.tls.cert)),
                        str(resolve(self.cfg.path, m.tls.key)) if m.tls.key else None,
                    )
        except (OSError, ssl.SSLError, UnicodeDecodeError) as exc:
            raise BrokerSetupError(f"{self.cfg.path}: {where}: {exc}") from None
        return Relay(
            self._journal if self._journal is not None else _NoOutbox(),
            host=m.host,
            port=m.port,
            base_topic=self.cfg.table.base_topic,
            client_id=self.cfg.table.client_id,
            username=m.username,
            password=password,
            tls=tls,
            on_command=self.on_command,
            on_connect=self._on_connect,
            on_refusal=self._on_refusal,
            keepalive=m.keepalive,
            heartbeat=m.heartbeat_seconds or None,  # 0: online only after each connect
        )

    # -- devices -----------------------------------------------------------------------------

    async def _run_driver(
        self, name: str, driver: str, port: str, baud: int, options: Mapping[str, Any]
    ) -> None:
        """Run one driver, restarting it with capped backoff if it fails; the failure is logged
        with its traceback and reported on the device's status, and the table runs on."""
        sink = _Sink(self, name, port)
        backoff = Backoff(initial=1.0, cap=60.0)
        while True:
            try:
                cls = load_driver(driver)
                instance = cls(name, port, baud, options)
                self._drivers[name] = instance
                if isinstance(instance, DisplayDriver):
                    self._displays[name] = instance
                    for view, payload in self._display_latest.items():
                        instance.update(view, payload)
                await instance.run(sink)
                raise RuntimeError("the driver stopped by itself")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("driver failed", device=name, driver=driver, exc_info=exc)
                error = f"{type(exc).__name__}: {exc}"
                await sink.status(False, "DRIVER-ERROR", {"error": error})
                await backoff.wait()
            finally:
                self._displays.pop(name, None)
                self._drivers.pop(name, None)

    def _to_displays(self, rows: list[OutboxRow]) -> None:
        """The display views retained in the outbox (what the displays showed before a
        restart), handed to the display devices."""
        prefix = f"{self.cfg.table.base_topic}/display/"
        self._show(
            {
                row.topic.removeprefix(prefix): json.loads(row.payload)
                for row in rows
                if row.topic.startswith(prefix)
            }
        )

    def _show(self, views: dict[str, dict[str, Any]]) -> None:
        """Hand `display/<view>` views (EZTRAK, R28) to the display devices: each keeps only
        the latest view and draws it when it can, so a slow display never holds up the table."""
        for view, payload in views.items():
            self._display_latest[view] = payload
            for display in self._displays.values():
                display.update(view, payload)

    # -- timers ------------------------------------------------------------------------------

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

    def status_report(self) -> dict[str, Any]:
        """What `tablectl status` shows (tablectl/status_report.py has the fields): from memory,
        the journal's sizes looked at now; no card in it. Answered on the local status socket,
        never published."""
        t = self.cfg.table
        holds: list[dict[str, Any]] = []
        rnd: int | None = None
        phase: str | None = None
        if self.fault is not None:
            holds.append({"kind": "journal-fault", "reason": self.fault.status_line()})
        if self.journal_trouble is not None:
            holds.append(
                {
                    "kind": "journal-unwritable",
                    "reason": self.journal_trouble,
                    "since": self._trouble_since,
                }
            )
        if self.fault is None:  # held on its journal, the table's state was never rebuilt
            st = self.table.state_view()
            rnd, phase = st.round, st.phase
            if self.table.held is not None:
                holds.append(
                    {
                        "kind": "round-held",
                        "reason": self.table.held,
                        "inputs": len(self.table.held_inputs),
                    }
                )
        devices = [
            device_entry(
                dev.name,
                dev.driver,
                read=self.fault is None,
                available=dev.name not in self.table.unavailable,
                fault=self.table.faults.get(dev.name),
                frame_age=self._frame_age(dev.name),
            )
            for dev in t.devices
        ]
        month: str | None = None
        close_due = False
        if self._journal is not None:
            try:
                month = self._journal.month
                # a table held on its journal closes no month: nothing is journaled
                close_due = self.fault is None and segments.due(self._journal, now_ts())
            except (sqlite3.Error, JournalError) as exc:  # the rest of the status still stands
                log.warning("status.journal_month_unreadable", error=str(exc))
        return {
            "v": REPORT_VERSION,
            "site": t.site,
            "table": t.table,
            "game": t.game.id,
            "pid": os.getpid(),
            "started": self.started,
            "at": now_ts(),
            "round": rnd,
            "phase": phase,
            "holds": holds,
            "devices": devices,
            "broker": self.relay.state.value if self.relay is not None else "off",
            "unsent": self.unsent_count(),
            "journal": journal_entry(self.cfg.journal_path, month, close_due=close_due),
            "last_result": self._last_result,
        }

    def _frame_age(self, device: str) -> float | None:
        """The age of the last frame the device's driver read (`FrameClock`), None when its
        driver cannot say; a vendor driver whose `frame_age` fails is logged, and the status
        shows no age rather than no status."""
        driver = self._drivers.get(device)
        if not isinstance(driver, FrameClock):
            return None
        try:
            return driver.frame_age()
        except Exception as exc:
            log.warning("status.frame_age_failed", device=device, exc_info=exc)
            return None

    def _stored_result(self) -> dict[str, Any] | None:
        """The last `round/result` the outbox still holds (a restart's last result), else None."""
        try:
            row = self.journal.last_output(f"{self.cfg.table.base_topic}/round/result")
            if row is None:
                return None
            payload = json.loads(row.payload)
            return result_entry(str(payload.get("ts") or ""), payload)
        except (ValueError, AttributeError, TypeError, KeyError, sqlite3.Error) as exc:
            # An outbox row that is not a result any more (an edited file): the table plays on,
            # `tablectl status` shows no last result until the next one.
            log.warning("status.last_result_unreadable", error=repr(exc))
            return None

    def _metered(self, rec: Record, rows: list[OutboxRow]) -> None:
        """A listener with [metrics] on: the record's rounds and alerts, and the round's hold."""
        assert self.metrics is not None
        self.metrics.outputs(rows)
        self.metrics.held("round", self.table.held is not None)

    def _journal_bytes(self) -> int:
        """The live journal's file and -wal, in bytes (for the metrics)."""
        path = self.cfg.journal_path
        return (file_bytes(path) or 0) + (file_bytes(Path(f"{path}-wal")) or 0)

    def _broker_connected(self) -> bool | None:
        """Whether the relay is connected to the broker; None with MQTT off."""
        if not self.mqtt_enabled:
            return None
        return self.relay is not None and self.relay.state is RelayState.CONNECTED

    def _note_result(self, rec: Record, rows: list[OutboxRow]) -> None:
        """A listener: the last `round/result` among a record's messages, for `status_report`."""
        topic = f"{self.cfg.table.base_topic}/round/result"
        for row in rows:
            if row.topic == topic:
                self._last_result = result_entry(rec.ts, json.loads(row.payload))

    async def _status_notes(self) -> None:
        """`note_status` every `status_note_seconds`: STATUS= to systemd whenever the status line
        changes, the unsent count on the retained `journal/status` as it changes."""
        while True:
            self.note_status()
            await asyncio.sleep(self.status_note_seconds)


RECANCEL_SECONDS = 1.0
"""How long a cancelled task may take to end before it is cancelled again."""


async def _cancel_and_wait(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel `tasks` and wait until every one has ended, so a stop is never lost.

    A task still running RECANCEL_SECONDS after its cancellation swallowed it: a vendor driver
    catching CancelledError, or Python 3.11's `asyncio.wait_for` returning its result when the
    cancellation arrives as its awaitable completes (CPython gh-86296). That is logged as an
    error and the task is cancelled again, rather than the shutdown waiting for ever (DESIGN
    shape 5: the shell "shuts down cleanly on SIGTERM"). Failures were already logged by
    `Daemon._task_done`.
    """
    pending = set(tasks)
    for task in pending:
        task.cancel()
    while pending:
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
        for task in pending:
            log.error("task ignored its cancellation", task=task.get_name())
            task.cancel()


def retained_reason(topic: str) -> str:
    """Why a command that came with the retain flag is refused (R54), and how to clear it."""
    return (
        f"{topic} came retained: a retained command is delivered again on every subscribe, so "
        f"it is never applied; clear it at the broker (mosquitto_pub -r -n -t {topic})"
    )


def _verb_problem(verb: str) -> str | None:
    """Why a `cmd/<verb>` topic level cannot be answered on `cmd/<verb>/reply`, or None."""
    shown = repr(verb[:MAX_VERB_CHARS])
    if not verb:
        return "command topic has no verb"
    if len(verb) > MAX_VERB_CHARS:
        return f"command verb {shown}... is {len(verb)} characters; at most {MAX_VERB_CHARS}"
    if any(ch in verb for ch in "/+#\0") or not _is_unicode(verb):
        return f"command verb {shown} is not a topic level a reply can be published on"
    return None


def _retrieve(fut: asyncio.Future[Record]) -> None:
    """Done-callback of a future nobody awaits any more: its failure was logged elsewhere."""
    if not fut.cancelled():
        fut.exception()


def _command_id(payload: bytes) -> str | None:
    """A command's `id` as its reply gives it, read without journaling anything; None when
    none can be read (the reply's `id` is then null, as for any refused payload)."""
    if len(payload) > MAX_COMMAND_BYTES:
        return None
    try:
        data = json.loads(payload.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    raw = data.get("id") if isinstance(data, dict) else None
    if raw is None or id_problem(raw) is not None:
        return None
    return str(raw) if _is_unicode(str(raw)) else None


def id_problem(raw: Any) -> str | None:
    """Why a command's decoded `id` cannot be its request id, or None: text or a whole number
    of at most MAX_REF_CHARS characters, or null (no id), as schemas/cmd.json allows."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        return f"id must be text or a whole number, not {_json_kind(raw)}"
    chars = len(str(raw))
    return f"id is {chars} characters; at most {MAX_REF_CHARS}" if chars > MAX_REF_CHARS else None


def _json_kind(value: Any) -> str:
    """What JSON calls a decoded value's kind, for a reason a person reads."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _head(payload: bytes) -> str:
    """What is journaled of a payload that is refused unread: its first RAW_KEPT_BYTES."""
    return payload[:RAW_KEPT_BYTES].decode("utf-8", "replace")


def _is_unicode(text: str) -> bool:
    """False for a str holding a lone surrogate (JSON's "\\ud800" decodes to one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shape_problem(data: Any) -> str | None:
    """Why a decoded payload cannot be journaled as it is (nesting, non-Unicode text), or None."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()  # depth: how many arrays and objects hold this value
        if isinstance(value, (dict, list)) and depth >= MAX_COMMAND_DEPTH:
            return f"payload is nested deeper than {MAX_COMMAND_DEPTH} levels"
        if isinstance(value, dict):
            for key, item in value.items():
                if not _is_unicode(key):
                    return "payload has a key that is not Unicode text (a lone surrogate escape)"
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str) and not _is_unicode(value):
            return "payload has text that is not Unicode (a lone surrogate escape)"
    return None


class _Sink:
    """Where a driver's events and status go: into the journal queue, tagged with the device."""

    def __init__(self, daemon: Daemon, name: str, port: str) -> None:
        self.daemon = daemon
        self.name = name
        self.port = port

    async def event(self, event: dict[str, Any]) -> None:
        # The moment the input reached the daemon, with [metrics] on (its journal latency)
        received = time.perf_counter() if self.daemon.metrics is not None else None
        await self.daemon.submit(f"device/{self.name}", event, received=received)

    def cursor(self) -> dict[str, Any] | None:
        """Where the journal says this device's count stands: its driver asks the device to
        resend from there on every (re)connect (issue 9 item 2)."""
        return self.daemon.table.cursor(self.name)

    async def status(self, available: bool, fault: str | None, detail: dict[str, Any]) -> None:
        if "serial" not in detail:  # results name the devices and serials that fed a round
            detail = {**detail, "serial": port_serial(self.port)}
        body = {
            "type": "device.status",
            "device": self.name,
            "available": available,
            "fault": fault,
            "detail": detail,
        }
        await self.daemon.submit(f"device/{self.name}", body)
