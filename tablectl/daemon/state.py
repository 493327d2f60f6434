"""The daemon's state, shared by its jobs: what one running table holds in memory, set up once.

`DaemonState` makes every attribute the job classes of this package read and write (start-up
and recovery, inputs, commands, the MQTT link, devices, the status report, supervision), and
declares the methods one job calls on another; `Daemon` (tablectl/daemon/supervision.py) joins
the jobs into one object, so each job's code stays in its own module.
"""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablectl.config import LoadedConfig
from tablectl.daemon.journal_fault import JournalFault
from tablectl.games.table_rules import Rules
from tablectl.journal import Journal, JournalError
from tablectl.metrics import MetricsServer, TableMetrics
from tablectl.outputs import OutboxRow
from tablectl.records import Record, now_ts
from tablectl.relay import Relay
from tablectl.status_socket import StatusServer
from tablectl.table import Table
from tablectl_drivers.base import DisplayDriver, Driver

STATUS_NOTE_SECONDS = 1.0
"""How often the STATUS= line and the unsent count are checked for a change while running."""
UNSENT_NOTE_SECONDS = 5.0
"""The least time between two retained `journal/status` told for a new unsent count alone: a
backlog of thousands draining is told in a message every 5 s, not one a row; a backlog that
reached 0 is told at once (`UnsentNotes`, docs/mqtt.md)."""
JOURNAL_RETRY_SECONDS = 5.0
"""How often an input the journal could not take is tried again (`Daemon.journal_retry_seconds`)."""

Listener = Callable[[Record, list[OutboxRow]], None]


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


class DaemonState(ABC):
    """What one running table holds, and the methods its jobs call on one another."""

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
        self._open_journal_or_hold()
        self.table = Table(cfg)
        self.queue: asyncio.Queue[tuple[Input, asyncio.Future[Record] | None]] = asyncio.Queue()
        # Whether the queue's consumer waits for an input, nothing in hand: `submit` then
        # journals and applies the input in its own turn (tablectl/daemon/inputs.py).
        self._consumer_waiting = False
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
        # A record journaled and applied whose messages are not stored yet: its rows, and
        # whether they went to the broker already (`Inputs._ingest`).
        self._unstored: tuple[Record, list[OutboxRow], bool] | None = None
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

    # What one job calls on another, each implemented in its job's module; `Daemon` has them all.

    # start-up and recovery (recovery.py)

    @abstractmethod
    def _open_journal_or_hold(self) -> None: ...

    @abstractmethod
    def _hold(self, exc: BaseException) -> None: ...

    @abstractmethod
    def _at_unstored(self, exc: Exception) -> Exception: ...

    @abstractmethod
    def _close_month(self, now: str) -> None: ...

    @abstractmethod
    def _maybe_checkpoint(self) -> None: ...

    @abstractmethod
    def _journal_rules(self) -> None: ...

    @abstractmethod
    def _archive_dir(self) -> Path | None: ...

    # inputs (inputs.py)

    @abstractmethod
    async def submit(
        self,
        source: str,
        data: Any,
        *,
        ref: str | None = None,
        error: str | None = None,
        received: float | None = None,
    ) -> Record: ...

    @abstractmethod
    def _ingest(self, item: Input) -> Record: ...

    # commands (commands.py)

    @abstractmethod
    async def on_command(self, verb: str, payload: bytes, retained: bool = False) -> None: ...

    # MQTT (mqtt_link.py)

    @abstractmethod
    def unsent_count(self) -> int: ...

    @abstractmethod
    def _journal_status(
        self,
        fields: dict[str, Any] | None = None,
        *,
        count: int | None = None,
        now: float | None = None,
    ) -> None: ...

    @abstractmethod
    def _notice(self, suffix: str, fields: dict[str, Any], *, retain: bool = False) -> None: ...

    @abstractmethod
    def _publish_anchors(self) -> None: ...

    @abstractmethod
    def _info_if_rules_changed(self) -> None: ...

    # devices (devices.py)

    @abstractmethod
    def _to_displays(self, rows: list[OutboxRow]) -> None: ...

    @abstractmethod
    def _show(self, views: dict[str, dict[str, Any]]) -> None: ...

    # supervision (supervision.py)

    @abstractmethod
    def _task_failed(self, name: str, exc: BaseException) -> None: ...

    # the status report and the metrics (status_report.py)

    @abstractmethod
    def _journal_bytes(self) -> int: ...

    @abstractmethod
    def _broker_connected(self) -> bool | None: ...
