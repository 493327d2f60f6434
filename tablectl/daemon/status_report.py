"""What the running daemon tells about itself: the report `tablectl status` reads, and the
gauges and listeners of the Prometheus metrics.

The daemon builds the report (`StatusReport.status_report`) from what it holds in memory, and
hands it over its local status socket (tablectl/status_socket.py) to whoever asks, so a
technician sees a held or stuck table without an MQTT client; it is never published. The
helpers below the class make the parts that need more than a field copied: each device's line,
the journal's size and its next month's close, and the last result in one line.

Nothing in the report names a card. The last result line is made from the `round/result` the
table published (which shows only what the table has shown), and even of that it keeps the
verdict, the totals and the money, never a card: a technician's terminal is no place to repeat a
hand. The hold reasons are those `state` and `journal/status` already publish.

The report's fields (version REPORT_VERSION; docs/operations.md "Is the table running?"):

- `v`, `site`, `table`, `game`, `pid`, `started` (the daemon's start), `at` (when answered);
- `round`, `phase`: the game's (None while held on a journal fault: the table was never rebuilt);
- `holds`: a list of `{"kind", "reason", ...}`, kinds `journal-fault`, `journal-unwritable`,
  `round-held` (with `inputs`, how many inputs wait for the resume);
- `devices`: `{"name", "driver", "read", "available", "fault", "frame_age"}` per configured
  device (`read` false while the table reads no device: held on a journal fault);
- `broker`: the relay's state (`connected`, `connecting`, `backoff`, `disconnected`) or `off`;
- `unsent`: outbox messages the broker has not acknowledged;
- `journal`: `path`, `bytes`, `wal_bytes`, `month` (the live file's), `closes_after` (the
  first instant of the next UTC month: the first record after it, at a round boundary, closes
  the month into its segment), `close_due` (the month is over and its close waits);
- `last_result`: `{"ts", "round", "line"}` of the last `round/result`, or None.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import structlog

from tablectl.daemon.state import DaemonState
from tablectl.games.registry import available, spec_of
from tablectl.games.spec import load
from tablectl.journal import JournalError, segments
from tablectl.outputs import OutboxRow
from tablectl.records import Record, now_ts
from tablectl.relay import RelayState
from tablectl_base.money import fmt
from tablectl_drivers.base import FrameClock

log = structlog.get_logger("tablectl.daemon")

REPORT_VERSION = 1
"""The report's version (`v`): a field removed or changed in meaning makes it 2."""


class StatusReport(DaemonState):
    """The status report and the metrics' gauges, from the daemon's memory."""

    def status_report(self) -> dict[str, Any]:
        """What `tablectl status` shows (the module's docstring has the fields): from memory,
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


def device_entry(
    name: str,
    driver: str,
    *,
    read: bool,
    available: bool,
    fault: str | None,
    frame_age: float | None,
) -> dict[str, Any]:
    """One configured device as the report shows it; `frame_age` to a tenth of a second."""
    return {
        "name": name,
        "driver": driver,
        "read": read,
        "available": available,
        "fault": fault,
        "frame_age": None if frame_age is None else round(frame_age, 1),
    }


def next_month(month: str) -> str:
    """The first instant of the UTC month after `month` ("2026-12" -> "2027-01-01T00:00:00Z")."""
    year, number = int(month[:4]), int(month[5:7])
    year, number = (year + 1, 1) if number == 12 else (year, number + 1)
    return f"{year:04d}-{number:02d}-01T00:00:00Z"


def file_bytes(path: Path) -> int | None:
    """The size of the file at `path`, or None when there is none (a -wal after a clean stop)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None


def journal_entry(path: Path, month: str | None, *, close_due: bool) -> dict[str, Any]:
    """The journal's part: its file and -wal sizes (looked at now), the live file's month and
    when the next month's close can come."""
    return {
        "path": str(path),
        "bytes": file_bytes(path),
        "wal_bytes": file_bytes(Path(f"{path}-wal")),
        "month": month,
        "closes_after": None if month is None else next_month(month),
        "close_due": close_due,
    }


def result_entry(ts: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The report's `last_result`: when, which round, and `result_line`."""
    return {"ts": ts, "round": payload.get("round"), "line": result_line(payload)}


def result_line(r: Mapping[str, Any]) -> str:
    """A `round/result` payload in one line, with no card in it: a void and its reason; a
    pot game's pots and who was paid; the payments between hands of a game settled by
    payments; the game's verdict on its outcome (its spec's `result_summary`: winner and
    totals, say); and for a banked game the wagers settled and the players' net. A payload of a
    shape it does not know (a game from another distribution) still gives its round and what it
    can count."""
    head = f"{'hand' if 'pots' in r else 'round'} {r.get('round', '?')}"
    if r.get("void"):
        return f"{head} void: {r.get('reason') or 'misdeal'}"
    if isinstance(r.get("pots"), list):
        return f"{head}: {_pots(r['pots'])}"
    if isinstance(r.get("payments"), list):
        return f"{head}: {len(r['payments'])} payment(s) between {len(r.get('hands') or [])} hands"
    parts = []
    verdict = _verdict(r)
    if verdict:
        parts.append(verdict)
    settlements = r.get("settlements")
    if isinstance(settlements, list):
        net = _total(s.get("net") for s in settlements if isinstance(s, Mapping))
        money = "" if net is None else f", players net {'+' if net > 0 else ''}{fmt(net)}"
        parts.append(f"{len(settlements)} wager(s) settled{money}")
    return f"{head}: {'; '.join(parts)}" if parts else f"{head} finished"


def _verdict(r: Mapping[str, Any]) -> str | None:
    """The game's verdict on the round's `outcome` (its spec's `result_summary`), else None: a
    game that gives none, or one not known here."""
    game = r.get("game")
    if not isinstance(game, str) or game not in available():
        return None
    summary = spec_of(game).result_summary
    if summary is None:
        return None
    verdict: str | None = load(summary)(r.get("outcome"))
    return verdict


def _pots(pots: Sequence[Any]) -> str:
    """Each pot and the seats it paid ("pot 120.00 to seat 3; pot 40.00 to seats 2, 5")."""
    out = []
    for pot in pots:
        if not isinstance(pot, Mapping):
            continue
        seats = [str(p.get("seat")) for p in pot.get("paid") or [] if isinstance(p, Mapping)]
        whom = f"seat {seats[0]}" if len(seats) == 1 else f"seats {', '.join(seats)}"
        out.append(f"pot {pot.get('amount', '?')} to {whom}" if seats else "pot returned")
    return "; ".join(out) or "no pot"


def _total(amounts: Any) -> Decimal | None:
    """The sum of money strings (a net may be negative), or None if one is not a number."""
    total = Decimal(0)
    for amount in amounts:
        try:
            total += Decimal(str(amount))
        except InvalidOperation:
            return None
    return total
