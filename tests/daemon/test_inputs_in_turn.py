"""An input that finds the journal's queue empty and its consumer waiting is journaled and
applied in its sender's own turn (`Inputs.submit`), and everything else about it is as if it
had been queued: an input already waiting goes first, one the journal cannot take waits in the
queue and is journaled once, a journal fault holds the table and a defect stops the daemon, and
the consumer stops with them, so nothing queued after is journaled.

The daemons here run in the test's loop without a broker or devices (`mqtt=False`, no shoe):
the test is the only sender, so the queue is empty unless the test fills it."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import sqlite3
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon
from tablectl.daemon.inputs import JournalHeld
from tablectl.journal import JournalError
from tablectl.records import Record
from tablectl.table import Table
from tests.daemon.test_journal_fault import until
from tests.integration.harness import without_shoe, write_config
from tests.journal.test_disk_full import Disk

TIMEOUT = 10.0
BANK = {"type": "bank", "seat": 4, "amount": "200"}
CLOSE = {"type": "bets.close"}
# An input refused (a field no bank has) whose record, holding it whole, needs more room than
# the pages a journal file has: the next page is what a full disk refuses (`Disk`).
LARGE = {**BANK, "note": "x" * 20_000}


def config(tmp_path: Path) -> LoadedConfig:
    return load_config(without_shoe(write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1)))


@contextlib.asynccontextmanager
async def running(cfg: LoadedConfig) -> AsyncIterator[tuple[Daemon, asyncio.Task[None]]]:
    """A daemon running in this loop, its journal's consumer waiting; stopped at the end."""
    daemon = Daemon(cfg, mqtt=False)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: daemon._consumer_waiting, "the journal's consumer waits")
        yield daemon, runner
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)


def journaled(daemon: Daemon) -> list[tuple[str, str]]:
    """(source, type) of every record after the start's own (`config`)."""
    return [(r.source, r.body["type"]) for r in daemon.journal.records() if r.source != "config"]


def consumer(daemon: Daemon) -> asyncio.Task[None]:
    return next(t for t in daemon._tasks if t.get_name() == "journal")


def step(coro: Coroutine[Any, Any, Record]) -> Record | None:
    """Run `coro` without the event loop up to its first wait for something (a future): its
    result if it finished without one, else None (and it is closed: what it queued stays
    queued). A bare yield (`asyncio.sleep(0)`: a turn given to the others) is passed over."""
    try:
        while coro.send(None) is None:
            pass
    except StopIteration as done:
        rec: Record = done.value
        return rec
    coro.close()
    return None


def raising(exc: Exception) -> Any:
    """A stand-in for a method, raising `exc` (a defect, or a journal fault) when called."""

    def method(*_: Any) -> Any:
        raise exc

    return method


def journaled_in(path: Path) -> list[tuple[str, str]]:
    """`journaled`, read from the file once the daemon has closed it."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT source, body FROM journal ORDER BY seq").fetchall()
    return [(source, json.loads(body)["type"]) for source, body in rows if source != "config"]


async def test_an_input_with_nothing_queued_is_journaled_and_applied_in_its_senders_turn(
    tmp_path: Path,
) -> None:
    async with running(config(tmp_path)) as (daemon, _):
        before = daemon.table.seq
        rec = step(daemon.submit("console", BANK))
        assert rec is not None, "submit waited for a turn of the loop"
        assert journaled(daemon) == [("console", "bank")]
        assert daemon.table.position == rec.seq
        assert daemon.table.seq > before  # applied: its messages numbered
        assert daemon.queue.empty() and daemon._consumer_waiting


async def test_an_input_behind_one_already_queued_waits_its_turn_in_order(tmp_path: Path) -> None:
    async with running(config(tmp_path)) as (daemon, _):
        daemon.submit_nowait("console", BANK)  # queued: the consumer has not taken it yet
        assert step(daemon.submit("console", CLOSE)) is None  # so this one queues behind it
        await until(lambda: len(journaled(daemon)) == 2, "both journaled")
        assert journaled(daemon) == [("console", "bank"), ("console", "bets.close")]


async def test_an_input_sent_from_an_exception_handler_is_queued(tmp_path: Path) -> None:
    """A driver reporting its port gone does so in its `except`: an error met journaling in that
    turn would carry the port's error as its context, and the port's EIO would read as the
    journal's (`unwritable_reason`). So such an input goes to the consumer, as ever."""
    async with running(config(tmp_path)) as (daemon, _):
        try:
            raise OSError(errno.EIO, "Input/output error", "/dev/ttyUSB0")
        except OSError:
            assert step(daemon.submit("console", BANK)) is None
        await until(lambda: len(journaled(daemon)) == 1, "journaled by the consumer")


async def test_an_input_sent_while_the_consumer_holds_one_is_queued_not_taken_at_once(
    tmp_path: Path,
) -> None:
    """The consumer took an input and waits out a journal it cannot write: the queue is
    empty, but an input sent now must wait behind the one in the consumer's hands."""
    async with running(config(tmp_path)) as (daemon, _):
        daemon.journal_retry_seconds = 0.02
        disk = Disk(daemon)
        disk.full()
        daemon.submit_nowait("console", LARGE)
        await until(lambda: daemon.journal_trouble is not None, "the journal is unwritable")
        assert daemon.queue.empty() and not daemon._consumer_waiting
        assert step(daemon.submit("console", CLOSE)) is None  # queued behind the bank
        disk.room()
        await until(lambda: len(journaled(daemon)) == 3, "all journaled")
        assert journaled(daemon) == [  # the trouble is queued once it is over: behind it
            ("console", "input.invalid"),
            ("console", "bets.close"),
            ("journal", "journal.trouble"),
        ]


async def test_an_input_the_journal_cannot_take_in_turn_waits_in_the_queue_and_goes_in_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running(config(tmp_path)) as (daemon, _):
        daemon.journal_retry_seconds = 0.2
        append = daemon.journal.append
        tries: list[str] = []

        def counted(*args: Any) -> Record:
            tries.append(args[1])
            return append(*args)

        monkeypatch.setattr(daemon.journal, "append", counted)
        disk = Disk(daemon)
        disk.full()
        sent = daemon.submit("console", LARGE)
        assert step(sent) is None  # tried in this turn, and queued
        assert daemon.journal_trouble is not None  # the floor told at once, as after any try
        assert journaled(daemon) == [] and daemon.queue.qsize() == 1
        await asyncio.sleep(0.05)  # the consumer waits out the retry time before its own try
        assert tries == ["console"] and journaled(daemon) == []
        disk.room()
        await until(lambda: daemon.journal_trouble is None, "the journal is writable again")
        # The trouble is journaled once it could be, after the input that met it.
        assert journaled(daemon) == [("console", "input.invalid"), ("journal", "journal.trouble")]
        assert daemon.queue.empty()


async def test_outputs_the_journal_cannot_store_in_turn_are_stored_once_the_input_journaled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The append went in, the outputs met a full disk (SQLite's own error, raised once here;
    tests/journal/test_disk_full.py fills the disk itself): the consumer stores the outputs on
    its try, and neither the input nor its outputs are written twice."""
    async with running(config(tmp_path)) as (daemon, _):
        daemon.journal_retry_seconds = 0.02
        store = daemon.journal.write_outputs
        failed: list[int] = []

        def full_once(rec: Record, rows: Any) -> None:
            if not failed:
                failed.append(rec.seq)
                raise sqlite3.OperationalError("database or disk is full")
            store(rec, rows)

        monkeypatch.setattr(daemon.journal, "write_outputs", full_once)
        assert step(daemon.submit("console", BANK)) is None  # journaled, its outputs not stored
        assert journaled(daemon) == [("console", "bank")]
        await until(lambda: daemon.journal_trouble is None, "the outputs stored")
        assert journaled(daemon) == [("console", "bank"), ("journal", "journal.trouble")]
        table = Table(daemon.cfg)
        replayed = [row for rec in daemon.journal.records() for row in table.apply(rec)]
        assert daemon.journal.outbox() == replayed  # each once, numbered as a replay numbers


async def test_a_journal_fault_met_in_a_drivers_turn_ends_the_driver_and_holds_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the daemon's own driver supervision (`_run_driver`): the hold cancels the
    driver whose turn met the fault, which ends cancelled, not failed (a failed task would
    stop the daemon, and systemd would restart a table that is meant to stay held)."""

    class OneInput:
        def __init__(self, *_: Any) -> None:
            pass

        async def run(self, sink: Any) -> None:
            await sink.event(BANK)
            await asyncio.Event().wait()

    monkeypatch.setattr("tablectl.daemon.devices.load_driver", lambda _: OneInput)
    async with running(config(tmp_path)) as (daemon, runner):
        fault = JournalError("record 2: its messages differ from those stored")
        monkeypatch.setattr(daemon.journal, "write_outputs", raising(fault))
        daemon._spawn(daemon._run_driver("x", "one-input", "/dev/null", 9600, {}), "driver x")
        driver = daemon._tasks[-1]
        await until(driver.done, "the driver ended")
        assert driver.cancelled()
        assert daemon.fault is not None and not daemon.failed and not runner.done()
        assert journaled(daemon) == [("device/x", "bank")]
    assert not daemon.failed


async def test_a_journal_fault_met_in_turn_holds_the_table_and_stops_the_consumer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running(config(tmp_path)) as (daemon, runner):
        fault = JournalError("record 2: its messages differ from those stored")
        with monkeypatch.context() as patch:
            patch.setattr(daemon.journal, "write_outputs", raising(fault))
            with pytest.raises(JournalHeld, match="journaled, not applied") as held:
                step(daemon.submit("console", BANK))
        assert held.value.journaled is True
        assert daemon.fault is not None
        await asyncio.sleep(0)
        assert consumer(daemon).cancelled()
        assert not runner.done()  # held, not stopped: the floor can still ask why
        assert journaled(daemon) == [("console", "bank")]
    assert not daemon.failed


async def test_a_defect_met_in_turn_stops_the_daemon_as_the_consumers_own_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config(tmp_path)
    daemon = Daemon(cfg, mqtt=False)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    await until(lambda: daemon._consumer_waiting, "the journal's consumer waits")
    monkeypatch.setattr(daemon.table, "apply_lazily", raising(RuntimeError("a defect")))
    with capture_logs() as logs:
        with pytest.raises(RuntimeError, match="a defect"):
            step(daemon.submit("console", BANK))
        assert not daemon._consumer_waiting
        daemon.submit_nowait("console", CLOSE)  # after it: never journaled
        await asyncio.wait_for(runner, TIMEOUT)
    assert daemon.failed
    assert consumer(daemon).cancelled()
    failed = [e for e in logs if e["event"] == "task failed"]
    assert [e["task"] for e in failed] == ["journal"]
    assert journaled_in(cfg.journal_path) == [("console", "bank")]
