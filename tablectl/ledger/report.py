"""A shift's report, per table and per site, from the books: rounds, collections by schedule
option and payer, voided and held rounds with their reasons, device faults, the player-dealer's
rotations (R5) and banks, and which tables had gaps or were offline (docs/operations.md "Shift
reports").

`build_report` reads the database; everything after it is pure (`TableReport.add` takes one
stored message at a time), so a report is the same whatever order the rows come in."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

import psycopg

from tablectl.ledger.seqs import SeqRanges, Span

ZERO = Decimal("0.00")
HELD_ALERTS = ("round-held", "position-conflict", "engine-error")
"""Alert kinds that hold a round for a person (docs/mqtt.md `alert`)."""


@dataclass(frozen=True)
class Shift:
    """The hours a report covers, [start, end), in UTC; `name` as the room calls it."""

    name: str
    start: datetime
    end: datetime


@dataclass(frozen=True, order=True)
class CollectionKey:
    """Who paid a collection and under what: `payer` is `player-dealer`, `player` (the
    schedule's player fee), `pot` (poker's collection from the pot) or `time` (poker's time
    collection, R44); `schedule` the collection option number, when the result names one."""

    payer: str
    schedule: int | None


@dataclass
class Note:
    """One line of a report's lists: when, what, why."""

    ts: str
    what: str
    why: str


@dataclass
class Bank:
    """One player-dealer turn (R5): the seat, its turn number, the bank at its first round and
    after its last, and the rounds it banked in the shift."""

    seat: int
    turn: int
    start: str
    end: str
    rounds: int = 0


@dataclass
class TableReport:
    """Everything one table did in the shift."""

    site: str
    table: str
    games: set[str] = field(default_factory=set)
    rounds: int = 0
    collections: dict[CollectionKey, Decimal] = field(default_factory=dict)
    voided: list[Note] = field(default_factory=list)
    held: list[Note] = field(default_factory=list)
    device_faults: list[Note] = field(default_factory=list)
    banks: list[Bank] = field(default_factory=list)
    gaps: list[Span] = field(default_factory=list)
    offline: list[Note] = field(default_factory=list)
    silent: bool = True  # no message in the shift

    @property
    def collected(self) -> Decimal:
        return sum(self.collections.values(), ZERO)

    def add(self, kind: str, ts: str, payload: Mapping[str, Any]) -> None:
        """One stored message of this table, in seq order."""
        self.silent = False
        if kind == "round-result":
            self._result(ts, payload)
        elif kind == "event:time.collect":
            self._collect(CollectionKey("time", None), payload.get("total"))
        elif kind.startswith("alert:"):
            alert = kind.removeprefix("alert:")
            if alert in HELD_ALERTS:
                self.held.append(Note(ts, alert, str(payload.get("reason", ""))))
            elif alert == "device-fault":
                device = str(payload.get("device", "?"))
                self.device_faults.append(Note(ts, device, str(payload.get("reason", ""))))

    def _result(self, ts: str, r: Mapping[str, Any]) -> None:
        self.rounds += 1
        if r.get("game"):
            self.games.add(str(r["game"]))
        if r.get("void"):
            what = f"round {r.get('round')}"
            self.voided.append(Note(ts, what, str(r.get("reason", ""))))
        for fee in r.get("fees") or []:
            schedule = fee.get("schedule")
            key = CollectionKey(str(fee.get("payer")), None if schedule is None else int(schedule))
            self._collect(key, fee.get("amount"))
        pot_fee = r.get("fee")
        if isinstance(pot_fee, Mapping):
            self._collect(CollectionKey("pot", None), pot_fee.get("amount"))
        bank = r.get("bank")
        if isinstance(bank, Mapping) and bank.get("seat") is not None:
            seat, turn = int(bank["seat"]), int(bank.get("turn") or 0)
            if not self.banks or (self.banks[-1].seat, self.banks[-1].turn) != (seat, turn):
                self.banks.append(Bank(seat, turn, str(bank.get("start")), str(bank.get("end"))))
            self.banks[-1].end = str(bank.get("end"))
            self.banks[-1].rounds += 1

    def _collect(self, key: CollectionKey, amount: object) -> None:
        if amount is None:
            return
        value = Decimal(str(amount))
        if value:
            self.collections[key] = self.collections.get(key, ZERO) + value


@dataclass
class ShiftReport:
    """Every table's report for one shift, with the totals per site."""

    shift: Shift
    generated: str
    tables: list[TableReport]
    pits: dict[str, list[str]] = field(default_factory=dict)  # pit -> its "site/table"s

    def sites(self) -> list[str]:
        return sorted({t.site for t in self.tables})

    def site_totals(self, site: str) -> TableReport:
        """The site's tables added up (rounds and collections; the lists stay per table)."""
        return _added(TableReport(site, "(all tables)"), [t for t in self.tables if t.site == site])

    def pit_totals(self, pit: str) -> TableReport:
        """A pit's tables (the ledger config's `[ledger.pits]`) added up."""
        names = set(self.pits.get(pit, ()))
        return _added(
            TableReport("", f"pit {pit}"),
            [t for t in self.tables if f"{t.site}/{t.table}" in names],
        )


def _added(total: TableReport, tables: Sequence[TableReport]) -> TableReport:
    """`tables`' rounds and collections added into `total`."""
    total.silent = False
    for t in tables:
        total.rounds += t.rounds
        total.games |= t.games
        for key, value in t.collections.items():
            total.collections[key] = total.collections.get(key, ZERO) + value
    return total


def build_report(
    conn: psycopg.Connection[tuple[Any, ...]],
    sites: Sequence[str],
    shift: Shift,
    generated: str,
    pits: Mapping[str, Sequence[str]] | None = None,
) -> ShiftReport:
    """The report of `shift` for the tables of `sites` the books know, with the totals of each
    pit (`pits`: pit -> its tables as "site/table")."""
    tables: dict[tuple[str, str], TableReport] = {}
    known = conn.execute(
        "SELECT site, table_id, through, above FROM ledger_tables WHERE site = ANY(%s) "
        "ORDER BY site, table_id",
        (list(sites),),
    ).fetchall()
    for site, table, through, above in known:
        report = tables[(site, table)] = TableReport(site, table)
        spans = [(int(lo), int(hi)) for lo, hi in _spans(above)]
        report.gaps = _gaps_in_shift(conn, site, table, SeqRanges(int(through), spans), shift)
    rows = conn.execute(
        "SELECT site, table_id, kind, ts, payload FROM ledger_messages "
        "WHERE site = ANY(%s) AND ts >= %s AND ts < %s ORDER BY site, table_id, seq",
        (list(sites), shift.start, shift.end),
    )
    for site, table, kind, ts, payload in rows:
        report = tables.setdefault((site, table), TableReport(site, table))
        report.add(str(kind), _ts(ts), payload)
    for report in tables.values():
        report.offline = _offline(conn, report.site, report.table, shift)
    chosen = {pit: list(names) for pit, names in (pits or {}).items()}
    return ShiftReport(shift, generated, [tables[k] for k in sorted(tables)], chosen)


def _spans(value: object) -> list[list[int]]:
    data = json.loads(value) if isinstance(value, str) else value
    return list(data) if isinstance(data, list) else []


def _ts(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _gaps_in_shift(
    conn: psycopg.Connection[tuple[Any, ...]],
    site: str,
    table: str,
    ranges: SeqRanges,
    shift: Shift,
) -> list[Span]:
    """The table's gaps that may hold messages of the shift: the kept message just before the
    gap is older than the shift's end and the one just after it newer than its start (a gap at
    either end of what the books hold counts where its one neighbour says)."""
    out = []
    for lo, hi in ranges.gaps():
        # the neighbours by number, found on the primary key (not a scan of the table's rows)
        before = conn.execute(
            "SELECT ts FROM ledger_messages WHERE site = %s AND table_id = %s AND seq < %s "
            "ORDER BY seq DESC LIMIT 1",
            (site, table, lo),
        ).fetchone()
        after = conn.execute(
            "SELECT ts FROM ledger_messages WHERE site = %s AND table_id = %s AND seq > %s "
            "ORDER BY seq LIMIT 1",
            (site, table, hi),
        ).fetchone()
        starts = before[0] if before else None
        ends = after[0] if after else None
        if (starts is None or starts < shift.end) and (ends is None or ends >= shift.start):
            out.append((lo, hi))
    return out


def _offline(
    conn: psycopg.Connection[tuple[Any, ...]], site: str, table: str, shift: Shift
) -> list[Note]:
    """When the table was offline during the shift (its Last Will), as the ledger saw it: from
    the status it was in at the shift's start and every change within it."""
    last = conn.execute(
        "SELECT at, status FROM ledger_presence WHERE site = %s AND table_id = %s AND at < %s "
        "ORDER BY at DESC LIMIT 1",
        (site, table, shift.start),
    ).fetchone()
    changes: Iterable[tuple[Any, ...]] = conn.execute(
        "SELECT at, status FROM ledger_presence WHERE site = %s AND table_id = %s "
        "AND at >= %s AND at < %s ORDER BY at",
        (site, table, shift.start, shift.end),
    ).fetchall()
    notes = []
    if last is not None and last[1] == "offline":
        notes.append(Note(_ts(shift.start), "offline", f"since {_ts(last[0])}"))
    for at, status in changes:
        if status == "offline":
            notes.append(Note(_ts(at), "offline", "its broker link dropped (Last Will)"))
        elif notes and notes[-1].what == "offline":
            notes[-1].why += f"; online again at {_ts(at)}"
    return notes
