"""Disk full: a journal that cannot be written stops the table, never the daemon.

No new input is applied while the journal cannot take it (so no round starts or moves on), the
floor hears of it from memory (an `alert` and the retained `journal/status`, which cannot go
through the outbox: it is in the journal), a command is refused at once and not journaled, the
inputs behind the one that met the full disk wait in order, and the daemon carries on by itself
when there is room again, each input journaled once and nothing recorded before touched.

The disk fills at SQLite's lowest level: `PRAGMA max_page_count` on the daemon's own journal
connection, at the pages the file has (`Disk`). SQLite then fails every write that needs another
page with SQLITE_FULL, "database or disk is full", exactly as when the file system has no room;
lifting the limit is the room coming back. `Filling` picks which write meets the full disk first
(the append, or the outputs after it) by letting the disk fill right before it.
tests/integration/test_disk_full_e2e.py fills a real (tmpfs) file system under `tablectl run`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import json
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from structlog.testing import capture_logs

from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.inputs import unwritable_reason
from tablectl.daemon.recovery import SEGMENT_RETRY_RECORDS
from tablectl.daemon.state import Input
from tablectl.journal import Journal, JournalError, segments
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl.relay import Relay
from tablectl.table import Table
from tests.conftest import MosquittoBroker, TcpProxy
from tests.helpers import BASE, SHOE_NEW, bank, cards, wager, write_config

RETRY = 0.02  # Daemon.journal_retry_seconds in these tests (5 s in service)
TIMEOUT = 10.0
_ids = itertools.count(1)


# -- the disk ----------------------------------------------------------------------------------


class Disk:
    """The journal's room, set at SQLite's lowest level on the daemon's own connection."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.unlimited = self._one("PRAGMA max_page_count")

    def _one(self, sql: str) -> int:
        value: int = self.daemon.journal.db.execute(sql).fetchone()[0]
        return value

    def full(self) -> None:
        """No page beyond those the file has: the next write needing one fails."""
        self._one(f"PRAGMA max_page_count = {self._one('PRAGMA page_count')}")

    def room(self) -> None:
        self._one(f"PRAGMA max_page_count = {self.unlimited}")


class Filling:
    """The disk fills right before one kind of write, every time, until `stop()` (the room comes
    back): `at="append"`, after each record's outputs are stored, so the first write to fail is
    an append; `at="outputs"`, after each append, so it is the write of a record's outputs. The
    room comes back before the other kind (around the engine's `apply`, between the two)."""

    def __init__(self, daemon: Daemon, at: str) -> None:
        assert at in ("append", "outputs")
        self.daemon = daemon
        self.disk = Disk(daemon)
        self.at = at
        self.table = daemon.table
        real_apply = self.table.apply_lazily  # what the daemon applies a record with

        def apply(rec: Record) -> Iterator[OutboxRow]:
            if at == "append":
                self.disk.room()
                yield from real_apply(rec)
                return
            rows = list(real_apply(rec))
            self.disk.full()
            yield from rows

        def after_outputs(_rec: Record, _rows: list[OutboxRow]) -> None:
            if at == "append":
                self.disk.full()
            else:
                self.disk.room()

        self._apply = apply
        self._listener = after_outputs

    def start(self) -> None:
        self.table.apply_lazily = self._apply  # type: ignore[method-assign]
        self.daemon.listeners.append(self._listener)
        if self.at == "append":
            self.disk.full()

    def stop(self) -> None:
        """The room comes back, for good."""
        del self.table.apply_lazily
        self.daemon.listeners.remove(self._listener)
        self.disk.room()


# -- helpers -----------------------------------------------------------------------------------


async def until(predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.005)


def snapshot_of(journal: Journal) -> list[tuple[Any, ...]]:
    """Every record as stored: seq, time, source, ref, body, chain hash, key."""
    return [(r.seq, r.ts, r.source, r.ref, r.body, r.hash, r.key) for r in journal.records()]


def outputs_of(journal: Journal, seq: int) -> int:
    return int(
        journal.db.execute("SELECT count(*) FROM outbox WHERE journal_seq = ?", (seq,)).fetchone()[
            0
        ]
    )


def table_config(tmp_path: Path, broker: MosquittoBroker | None = None) -> Path:
    if broker is None:
        return write_config(tmp_path, mqtt={"enabled": False})
    return write_config(tmp_path, mqtt={"host": broker.host, "port": broker.port, "keepalive": 5})


@contextlib.asynccontextmanager
async def running(path: Path) -> AsyncIterator[tuple[Daemon, asyncio.Task[None]]]:
    """A daemon running in this loop on the config at `path`, stopped cleanly at the end (and
    checked not to have failed)."""
    daemon = Daemon(load_config(path))
    daemon.journal_retry_seconds = RETRY
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: bool(daemon._tasks), "the daemon started")
        yield daemon, runner
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)
    assert not daemon.failed


async def feed_until_full(
    daemon: Daemon, inputs: Iterator[tuple[str, dict[str, Any]]]
) -> tuple[asyncio.Task[Record], list[Record]]:
    """Submit inputs one by one until one meets the full disk: (its pending submission, the
    records of those journaled before it)."""
    done: list[Record] = []
    for source, event in inputs:
        task = asyncio.ensure_future(daemon.submit(source, event))
        await until(
            lambda: task.done() or daemon.journal_trouble is not None,  # noqa: B023
            f"{event} journaled, or the disk full",
        )
        if not task.done():
            return task, done
        done.append(task.result())
    raise AssertionError("the disk never filled")


def play() -> Iterator[tuple[str, dict[str, Any]]]:
    """A baccarat shoe's inputs, as the shoe and the console send them: rounds of a bank,
    wagers, the close and the cards (naturals: four cards a round)."""
    yield "device/shoe", SHOE_NEW
    coups = ["9h 2c Kd 3s", "8d 2h Jc 5s", "Td 9c Jd Ks", "7c 8h 2d Qs"]
    for i in itertools.count():
        yield "cmd/bank", bank(1 + i % 7, "1000")
        yield "cmd/wager", wager(2 + (i + 1) % 5, "player", "20")
        yield "cmd/wager", wager(2 + (i + 2) % 5, "banker", "25")
        yield "cmd/bets.close", {"type": "bets.close"}
        for card in cards(coups[i % len(coups)]):
            yield "device/shoe", card


def replayed(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[str]]:
    """A new daemon on the journal at `path`: its outbox, the outbox a full replay of every
    record from the first produces, and what verify finds."""
    again = Daemon(load_config(path), mqtt=False)
    try:
        again.recover()
        stored = [(r.seq, r.topic, r.payload, r.qos, r.retain) for r in again.journal.outbox()]
        table = Table(again.cfg)
        replay = [
            (r.seq, r.topic, r.payload, r.qos, r.retain)
            for rec in again.journal.records()
            for r in table.apply(rec)
        ]
        return stored, replay, again.journal.verify()
    finally:
        again.journal.close()


def writable(floor: Floor) -> list[bool]:
    """The `writable` of each journal/status the floor heard, a repeat left out (a new unsent
    count is told with the same `writable`)."""
    said: list[bool] = []
    for status in floor.on("journal/status"):
        if not said or said[-1] != status["writable"]:
            said.append(status["writable"])
    return said


def decoded(topic: str, payload: bytes) -> Any:
    """A payload as the contract has it: `status` is the bare word (text), the rest JSON."""
    if topic == f"{BASE}/status":
        return payload.decode("ascii")
    return json.loads(payload) if payload else None


class Floor:
    """A floor system and a dealer console on the broker: everything under the table's base
    topic (payloads decoded, the retain flag kept), and commands sent with a fresh id."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.broker = broker
        self.messages: list[tuple[str, Any, bool]] = []
        self._task: asyncio.Task[None] | None = None
        self.client = aiomqtt.Client(broker.host, broker.port, identifier=f"floor-{next(_ids)}")

    async def __aenter__(self) -> Floor:
        await asyncio.wait_for(self.client.__aenter__(), 5)
        await self.client.subscribe(f"{BASE}/#", qos=1)
        self._task = asyncio.create_task(self._collect())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        with contextlib.suppress(aiomqtt.MqttError):
            await asyncio.wait_for(self.client.__aexit__(None, None, None), 5)

    async def _collect(self) -> None:
        async for m in self.client.messages:
            self.messages.append(
                (m.topic.value, decoded(m.topic.value, bytes(m.payload)), m.retain)
            )

    def on(self, suffix: str) -> list[Any]:
        return [p for t, p, _ in self.messages if t == f"{BASE}/{suffix}"]

    def retained(self, suffix: str) -> list[Any]:
        return [p for t, p, r in self.messages if t == f"{BASE}/{suffix}" and r]

    async def send(self, verb: str, body: dict[str, Any]) -> str:
        ref = f"c-{next(_ids)}"
        await self.client.publish(f"{BASE}/cmd/{verb}", json.dumps({"id": ref, **body}), qos=1)
        return ref

    def reply(self, verb: str, ref: str) -> list[dict[str, Any]]:
        return [p for p in self.on(f"cmd/{verb}/reply") if p.get("id") == ref]

    async def command(self, verb: str, body: dict[str, Any]) -> dict[str, Any]:
        ref = await self.send(verb, body)
        await until(lambda: bool(self.reply(verb, ref)), f"the reply to {verb} {body}")
        return self.reply(verb, ref)[0]


# -- (a) an append the disk cannot take --------------------------------------------------------


@pytest.mark.integration
async def test_an_append_the_disk_cannot_take_records_nothing_and_the_table_resumes_in_order(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """Over a real Mosquitto: the wager that meets the full disk is not journaled or applied,
    the floor gets the alert and the retained journal/status from memory, a command meanwhile
    is refused at once (not queued, not journaled), a card the shoe reads meanwhile waits;
    when the room comes back the wager, then the card, are journaled once each, in order, and
    every record from before is unchanged."""
    path = table_config(tmp_path, mosquitto)
    async with Floor(mosquitto) as floor, running(path) as (daemon, runner):
        await until(lambda: floor.on("status")[-1:] == ["online"], "the table online")
        await daemon.submit("device/shoe", SHOE_NEW)
        assert (await floor.command("bank", {"seat": 3, "amount": "500"}))["ok"]
        filling = Filling(daemon, at="append")
        filling.start()
        trigger = ""
        for seat in itertools.cycle([1, 2, 4, 5, 6, 7]):
            trigger = await floor.send("wager", {"seat": seat, "spot": "tie", "amount": "5"})
            await until(
                lambda ref=trigger: (
                    bool(floor.reply("wager", ref))  # type: ignore[misc]
                    or daemon.journal_trouble is not None
                ),
                "a wager journaled, or the disk full",
            )
            if daemon.journal_trouble is not None:
                break
        before = snapshot_of(daemon.journal)
        state = daemon.table.state_payload()
        assert daemon.journal_trouble == "database or disk is full"
        assert daemon.status_line().startswith("JOURNAL UNWRITABLE: database or disk is full; ")

        # The floor hears it from memory: no seq, the alert says it is not journaled. (Between
        # the words, journal/status may also tell a new unsent count: the same `writable`.)
        await until(lambda: False in writable(floor), "journal/status")
        unwritable = floor.on("journal/status")
        assert writable(floor) == [True, False]  # the start's word, then
        assert unwritable[-1]["reason"] == "database or disk is full"
        assert "seq" not in unwritable[-1] and unwritable[-1]["table"] == "t1"
        await until(lambda: bool(floor.on("alert")), "the alert")
        alert = floor.on("alert")[-1]
        assert alert["kind"] == "journal-unwritable" and alert["journaled"] is False
        assert alert["reason"] == "database or disk is full" and "seq" not in alert
        async with Floor(mosquitto) as late:  # retained: a floor system connecting now sees it
            await until(lambda: bool(late.retained("journal/status")), "retained status")
            assert late.retained("journal/status")[-1]["writable"] is False

        # A command is answered at once, from memory, and not journaled.
        asked = time.monotonic()
        refused = await floor.command("wager", {"seat": 6, "spot": "player", "amount": "50"})
        assert time.monotonic() - asked < 2.0
        assert refused["ok"] is False and refused["journaled"] is False and "seq" not in refused
        assert refused["reason"] == (
            "the journal cannot be written (database or disk is full): not recorded; "
            "try again when it is"
        )
        # The shoe reads a card: it waits, like the wager that met the full disk.
        card = asyncio.ensure_future(daemon.submit("device/shoe", cards("9h")[0]))
        await asyncio.sleep(20 * RETRY)  # tried again and again meanwhile
        assert snapshot_of(daemon.journal) == before  # nothing new, nothing changed
        assert daemon.table.state_payload() == state  # nothing applied: no card, no new round
        assert state["phase"] == "betting"
        assert not card.done() and not floor.reply("wager", trigger)
        assert not runner.done() and not daemon.failed

        filling.stop()  # the room comes back
        await asyncio.wait_for(card, TIMEOUT)
        # The trouble itself is journaled once it can be, after what waited.
        await until(
            lambda: len(snapshot_of(daemon.journal)) == len(before) + 3, "the trouble journaled"
        )
        after = snapshot_of(daemon.journal)
        assert after[: len(before)] == before
        added = after[len(before) :]
        assert [(source, ref, body["type"]) for _, _, source, ref, body, _, _ in added] == [
            ("cmd/wager", trigger, "wager"),
            ("device/shoe", None, "shoe.card"),
            ("journal", None, "journal.trouble"),
        ]
        trouble = added[-1][4]
        assert (
            trouble["reason"] == "database or disk is full" and trouble["since"] < trouble["until"]
        )
        assert [a.kind for a in daemon.table.open_alerts.items] == ["journal-trouble"]
        assert daemon.journal.verify() == []
        assert daemon.journal_trouble is None
        assert not daemon.status_line().startswith("JOURNAL")
        assert daemon.table.state_payload()["phase"] == "dealing"  # the card, applied once
        await until(lambda: bool(floor.reply("wager", trigger)), "the wager's own reply")
        answered = floor.reply("wager", trigger)
        assert len(answered) == 1 and answered[0]["ok"] is True and "seq" in answered[0]
        await until(lambda: writable(floor) == [True, False, True], "journal/status again")
        assert floor.on("journal/status")[-1]["writable"] is True
        await until(lambda: len(floor.on("alert")) >= 2, "the all-clear")
        assert [a["kind"] for a in floor.on("alert") if "seq" not in a] == [
            "journal-unwritable",
            "journal-writable",
        ]
    # The refused command left no trace in the journal.
    journal = Journal(path.parent / "journal.db", table="t1", readonly=True)
    try:
        assert refused["id"] not in {r.ref for r in journal.records()}
        assert journal.verify() == []
    finally:
        journal.close()


# -- (b) outputs the disk cannot take, after the append ----------------------------------------


async def test_outputs_the_disk_cannot_take_are_written_once_with_the_seqs_a_replay_gives(
    tmp_path: Path,
) -> None:
    """The append succeeded, the outputs did not: the record is journaled and applied, and
    trying again writes only its outputs (never a second record, never a second apply). After
    the room comes back every record exists once and the outbox is exactly what a replay of
    the whole journal produces."""
    path = table_config(tmp_path)
    async with running(path) as (daemon, _runner):
        filling = Filling(daemon, at="outputs")
        filling.start()
        inputs = play()
        stuck, done = await feed_until_full(daemon, inputs)
        seq = daemon.journal.last_seq
        assert seq == done[-1].seq + 1  # the record is in the journal...
        assert daemon.table.position == seq  # ...and applied...
        assert daemon.journal.applied() == seq - 1 and outputs_of(daemon.journal, seq) == 0
        before = snapshot_of(daemon.journal)
        waiting = asyncio.ensure_future(daemon.submit(*next(inputs)))
        await asyncio.sleep(20 * RETRY)
        assert snapshot_of(daemon.journal) == before  # ...once, however often it is tried
        assert daemon.table.position == seq
        assert not waiting.done()
        filling.stop()
        rec = await asyncio.wait_for(stuck, TIMEOUT)
        await asyncio.wait_for(waiting, TIMEOUT)
        await until(lambda: daemon.journal.applied() == seq + 2, "the trouble journaled")
        assert rec.seq == seq and daemon.journal.last_seq == seq + 2  # the input, the trouble
        assert outputs_of(daemon.journal, seq) > 0
    stored, replay, problems = replayed(path)
    assert problems == []
    assert stored == replay  # each output once, under the seq the replay gives it
    assert [s for s, *_ in stored] == list(range(1, len(stored) + 1))


async def test_a_stop_while_outputs_wait_leaves_them_to_the_next_start(tmp_path: Path) -> None:
    """Stopped while a journaled record's outputs wait for room: the next start writes them,
    under the seqs a replay gives, and the record is not journaled again."""
    path = table_config(tmp_path)
    async with running(path) as (daemon, _runner):
        filling = Filling(daemon, at="outputs")
        filling.start()
        stuck, _ = await feed_until_full(daemon, play())
        seq = daemon.journal.last_seq
        assert daemon.journal.applied() == seq - 1
        before = snapshot_of(daemon.journal)
    stuck.cancel()  # nobody answers it: the consumer is gone (its record is in)
    stored, replay, problems = replayed(path)
    assert problems == [] and stored == replay
    journal = Journal(path.parent / "journal.db", table="t1", readonly=True)
    try:
        assert snapshot_of(journal) == before
        assert journal.applied() == seq and outputs_of(journal, seq) > 0
    finally:
        journal.close()


# -- (c) the daemon stays up ----------------------------------------------------------------------


async def test_the_daemon_keeps_running_while_the_disk_stays_full_and_stops_when_told(
    tmp_path: Path,
) -> None:
    """Before, the consumer task died, the daemon exited 1 and systemd restarted it for as long
    as the disk stayed full. Now it tries the same input again and again, logs the trouble once,
    and a stop during it is prompt (it does not wait for inputs the journal cannot take): the
    next start finds every record as it was."""
    path = table_config(tmp_path)
    with capture_logs() as logs:
        async with running(path) as (daemon, runner):
            filling = Filling(daemon, at="append")
            filling.start()
            inputs = play()
            stuck, _ = await feed_until_full(daemon, inputs)
            behind = asyncio.ensure_future(daemon.submit(*next(inputs)))
            before = snapshot_of(daemon.journal)
            await asyncio.sleep(50 * RETRY)  # some fifty tries
            assert not runner.done() and not daemon.failed
            assert not stuck.done() and not behind.done()
            assert daemon.status_line().startswith("JOURNAL UNWRITABLE")
            stopping = time.monotonic()
        assert time.monotonic() - stopping < 5.0
    events = [e["event"] for e in logs]
    assert events.count("journal.unwritable") == 1
    assert "task failed" not in events
    lost = [e for e in logs if e["event"] == "inputs not journaled"]
    assert lost[0]["count"] == 2 and lost[0]["reason"] == "database or disk is full"
    stuck.cancel()  # submissions nobody will answer: the consumer is gone
    behind.cancel()
    journal = Journal(path.parent / "journal.db", table="t1")
    try:
        assert snapshot_of(journal) == before and journal.verify() == []
    finally:
        journal.close()


# -- what counts as a journal that cannot be written -------------------------------------------


def sqlite_full() -> sqlite3.OperationalError:
    """The error SQLite itself raises when a write needs a page the file may not have."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (x)")
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    try:
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        db.close()
    raise AssertionError("no error")


def wrapped(inner: BaseException) -> JournalError:
    """A JournalError raised `from None` while handling `inner` (as Journal() does)."""
    try:
        try:
            raise inner
        except BaseException:
            raise JournalError("x.tmp is not a tablectl journal") from None
    except JournalError as exc:
        return exc


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (sqlite_full, "database or disk is full"),
        (lambda: sqlite3.OperationalError("disk I/O error"), "disk I/O error"),
        (lambda: sqlite3.OperationalError("unable to open database file"), "unable to open"),
        (lambda: sqlite3.OperationalError("attempt to write a readonly database"), "readonly"),
        (lambda: OSError(errno.ENOSPC, "No space left on device"), "No space left"),
        (lambda: OSError(errno.EIO, "Input/output error"), "Input/output error"),
        (lambda: OSError(errno.EDQUOT, "Disk quota exceeded"), "quota"),
        (lambda: OSError(errno.EROFS, "Read-only file system"), "Read-only"),
        (lambda: wrapped(sqlite_full()), "database or disk is full"),
    ],
)
def test_a_full_or_failing_disk_is_unwritable(
    make: Callable[[], BaseException], reason: str
) -> None:
    found = unwritable_reason(make())
    assert found is not None and reason in found


@pytest.mark.parametrize(
    "make",
    [
        lambda: JournalError("outbox message 7 differs from what the journal now produces"),
        lambda: sqlite3.ProgrammingError("Cannot operate on a closed database."),
        lambda: sqlite3.IntegrityError("UNIQUE constraint failed: journal.seq"),
        lambda: OSError("power cut"),
        lambda: OSError(errno.ENOENT, "No such file or directory"),
        lambda: ValueError("a defect"),
    ],
)
def test_anything_else_stays_fatal(make: Callable[[], BaseException]) -> None:
    assert unwritable_reason(make()) is None


# -- a checkpoint and a month's close --------------------------------------------------------------


def test_a_checkpoint_the_disk_cannot_take_is_skipped_and_the_record_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot is optional: one the journal cannot take is a warning (tried again only
    after SNAPSHOT_RETRY_RECORDS), every input is journaled, applied and its outputs stored as
    ever, and the next start only replays longer. A snapshot (under 1 KB here) fits in a page
    the file already has, so SQLite's own refusal stands for the disk: `PRAGMA query_only` from
    each record's outputs on, over what follows a record (the checkpoint), lifted for the next
    input."""
    monkeypatch.setattr("tablectl.daemon.recovery.SNAPSHOT_EVERY_RECORDS", 5)
    path = table_config(tmp_path)
    daemon = Daemon(load_config(path), mqtt=False)
    daemon.recover()
    db = daemon.journal.db

    def read_only(_rec: Record, _rows: list[OutboxRow]) -> None:
        db.execute("PRAGMA query_only = ON")

    daemon.listeners.append(read_only)
    inputs = play()
    with capture_logs() as logs:
        for _ in range(1 + 2 * 8):  # a shoe and two rounds
            db.execute("PRAGMA query_only = OFF")
            daemon._ingest(Input(*next(inputs)))
    db.execute("PRAGMA query_only = OFF")
    skipped = [e for e in logs if e["event"] == "checkpoint.skipped"]
    assert [e["record"] for e in skipped] == [10]  # the first round's end; not again at 18
    assert skipped[0]["reason"] == "attempt to write a readonly database"
    assert daemon.journal.snapshots() == []
    assert daemon.journal.applied() == daemon.journal.last_seq == daemon.table.position == 18
    daemon.journal.close()
    stored, replay, problems = replayed(path)
    assert problems == [] and stored == replay


def test_a_months_close_the_disk_cannot_take_is_put_off_and_the_input_journaled_no_half_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The segment file (written by tablectl/journal/segments.py, not SQLite's journal) meets ENOSPC
    while the journal itself still takes records: the close is logged and put off, the input is
    journaled as usual (the table does not stop), the half-written file gives its room back, and
    the month is closed at a round boundary once SEGMENT_RETRY_RECORDS more records are in."""
    month = {"now": "2026-10"}
    tick = itertools.count()
    monkeypatch.setattr(
        "tablectl.daemon.inputs.now_ts",
        lambda: f"{month['now']}-15T12:00:{next(tick) % 60:02d}.000000Z",
    )
    path = table_config(tmp_path)
    daemon = Daemon(load_config(path), mqtt=False)
    daemon.recover()
    inputs = play()
    for _ in range(9):  # a shoe and a whole round
        daemon._ingest(Input(*next(inputs)))
    assert daemon.table.engine.between_rounds(daemon.table.state)
    before = snapshot_of(daemon.journal)
    month["now"] = "2026-11"
    real_fsync = os.fsync

    def no_room(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_room)
    with capture_logs() as logs:
        rec = daemon._ingest(Input(*next(inputs)))
    assert rec.seq == before[-1][0] + 1 and rec.ts.startswith("2026-11")
    failed = [e for e in logs if e["event"] == "journal.segment.failed"]
    assert len(failed) == 1 and "No space left on device" in failed[0]["reason"]
    assert daemon.journal_trouble is None  # the table did not stop
    live = path.parent / "journal.db"
    assert sorted(p.name for p in path.parent.glob("journal-*")) == []  # nothing half-written
    assert snapshot_of(daemon.journal)[: len(before)] == before
    assert daemon.journal.first_seq == 1  # the month's records are still in the live file
    monkeypatch.setattr(os, "fsync", real_fsync)
    # Room again: the close waits for SEGMENT_RETRY_RECORDS more records and a round boundary.
    failed_at = rec.seq - 1
    while not segments.segment_files(live):
        assert daemon.table.position < failed_at + SEGMENT_RETRY_RECORDS + 20
        last = daemon._ingest(Input(*next(inputs)))
    closed = daemon.journal.first_seq - 1  # the segment's last record
    assert closed >= failed_at + SEGMENT_RETRY_RECORDS and closed == last.seq - 1
    assert [p.name for p in segments.segment_files(live)] == ["journal-2026-10.db"]
    assert sorted(p.name for p in path.parent.glob("journal-*")) == ["journal-2026-10.db"]
    daemon.journal.close()
    history = segments.History.open(live, None)
    try:
        assert history.check().problems == []
        assert [r.seq for r in history.records()] == list(range(1, last.seq + 1))
    finally:
        history.close()


# -- the relay's notices ---------------------------------------------------------------------------


class NoOutbox:
    def __init__(self, fail: bool = False) -> None:
        self.rows: list[OutboxRow] = []
        self.fail = fail

    def pending(self, limit: int) -> list[OutboxRow]:
        return self.rows[:limit]

    def mark_sent(self, seqs: Any) -> None:
        if self.fail:
            raise sqlite3.OperationalError("database or disk is full")
        self.rows = [r for r in self.rows if r.seq not in set(seqs)]

    def latest_retained(self) -> list[OutboxRow]:
        newest = {r.topic: r for r in self.rows if r.retain}
        return sorted(newest.values(), key=lambda r: r.seq)


@pytest.mark.integration
async def test_a_retained_notice_is_published_again_after_every_reconnect(
    mosquitto: MosquittoBroker, tcp_proxy_factory: Callable[[str, int], Any]
) -> None:
    proxy: TcpProxy = await tcp_proxy_factory(mosquitto.host, mosquitto.port)
    relay = Relay(
        NoOutbox(),
        host=proxy.host,
        port=proxy.port,
        base_topic=BASE,
        client_id="notice-test",
        backoff_initial=0.05,
        backoff_max=0.1,
    )
    runner = asyncio.create_task(relay.run())
    try:
        async with Floor(mosquitto) as floor:
            await until(lambda: floor.on("status")[-1:] == ["online"], "online")
            relay.notice("journal/status", b'{"writable":false}', retain=True)
            relay.notice("alert", b'{"kind":"journal-unwritable"}')
            await until(lambda: bool(floor.on("alert")), "the alert")
            await until(lambda: bool(floor.on("journal/status")), "the status")
            proxy.cut()
            await until(lambda: floor.on("status").count("online") >= 2, "online again")
            await until(lambda: len(floor.on("journal/status")) >= 2, "the status again")
            assert floor.on("journal/status") == [{"writable": False}] * 2
            assert floor.on("alert") == [{"kind": "journal-unwritable"}]  # not again
            relay.notice("journal/status", b'{"writable":true}', retain=True)
            await until(lambda: len(floor.on("journal/status")) >= 3, "the latest status")
        async with Floor(mosquitto) as late:
            await until(lambda: bool(late.retained("journal/status")), "the retained status")
            assert late.retained("journal/status") == [{"writable": True}]
    finally:
        await relay.stop()
        await asyncio.wait_for(runner, TIMEOUT)


@pytest.mark.integration
async def test_marks_the_disk_cannot_take_do_not_stop_publishing(
    mosquitto: MosquittoBroker,
) -> None:
    """`mark_sent` failing (a full disk) is a warning: the rows stay unsent in the outbox, to be
    published again under the same seqs, and the connection carries on."""
    outbox = NoOutbox(fail=True)
    payload = b'{"table":"t1","seq":%d}'
    relay = Relay(outbox, host=mosquitto.host, port=mosquitto.port, base_topic=BASE, client_id="m")
    runner = asyncio.create_task(relay.run())
    try:
        with capture_logs() as logs:
            async with Floor(mosquitto) as floor:
                await until(lambda: floor.on("status")[-1:] == ["online"], "online")
                for seq in (1, 2, 3):
                    outbox.rows.append(OutboxRow(seq, f"{BASE}/event", payload % seq, 1, False))
                    relay.wake()
                    await until(lambda: len(floor.on("event")) == seq, f"row {seq}")  # noqa: B023
                assert floor.on("status") == ["online"]  # one connection throughout
        assert [e["event"] for e in logs].count("relay.mark_sent_failed") == 1
        assert [r.seq for r in outbox.rows] == [1, 2, 3]  # still unsent
    finally:
        await relay.stop()
        await asyncio.wait_for(runner, TIMEOUT)
