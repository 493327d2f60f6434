"""The background flush of the journal's derived writes (tablectl/journal/wal_flush.py): after
the broker's acknowledgment the outputs and sent marks are written to disk by a thread, not by
the next input's commit; it stops with the journal, and a flush that fails is logged once and
changes nothing else. Real SQLite files and real fdatasync."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from tablectl.journal import Journal
from tablectl.journal.wal_flush import WalFlusher
from tests.journal.test_journal import fill


def until(predicate: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def flush_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "journal-wal-flush"]


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "t1.db", table="t1")
    yield j
    j.close()


def test_without_it_a_mark_starts_no_thread(journal: Journal) -> None:
    fill(journal, 2)
    journal.mark_sent([1, 2])
    assert journal._wal_flusher is None
    assert flush_threads() == []


def test_each_mark_is_followed_by_a_flush_of_the_write_ahead_log(journal: Journal) -> None:
    fill(journal, 3)  # rows 1 to 6
    journal.flush_in_background()
    flusher = journal._wal_flusher
    assert flusher is not None
    assert flusher.wal == Path(f"{journal.path}-wal")
    assert flusher.flushes == 0  # nothing asked yet: appends and outputs do not ask
    journal.mark_sent([1, 2])
    until(lambda: flusher.flushes >= 1, "the first flush")
    journal.mark_sent([3, 4, 5, 6])
    until(lambda: flusher.flushes >= 2, "the second flush")
    assert [r.seq for r in journal.pending(10)] == []


def test_asked_twice_it_runs_one_thread(journal: Journal) -> None:
    journal.flush_in_background()
    first = journal._wal_flusher
    journal.flush_in_background()
    assert journal._wal_flusher is first
    assert len(flush_threads()) == 1


def test_the_thread_ends_and_its_descriptor_closes_with_the_journal(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t1.db", table="t1")
    journal.flush_in_background()
    flusher = journal._wal_flusher
    assert flusher is not None
    fd = flusher._fd
    journal.close()
    assert flush_threads() == []
    with pytest.raises(OSError):
        os.fstat(fd)


def test_a_flush_that_fails_is_logged_once_and_the_next_good_one_says_so(tmp_path: Path) -> None:
    """A descriptor that stops working (here: closed under the thread; on a table, an I/O error)
    makes the flush fail: logged once however often it fails, the journal untouched."""
    journal = Journal(tmp_path / "t1.db", table="t1")
    fill(journal, 2)
    flusher = WalFlusher(Path(f"{journal.path}-wal"))
    good = flusher._fd
    flusher._fd = os.open(os.devnull, os.O_RDONLY)  # fdatasync on /dev/null: EINVAL
    with capture_logs() as logs:
        for _ in range(3):
            flusher.request()
            time.sleep(0.05)
        until(lambda: any(e["event"] == "journal.wal_flush_failed" for e in logs), "the warning")
        os.close(flusher._fd)
        flusher._fd = good
        flusher.request()
        until(lambda: flusher.flushes == 1, "a good flush")
    failed = [e for e in logs if e["event"] == "journal.wal_flush_failed"]
    assert len(failed) == 1
    assert [e["event"] for e in logs][-1] == "journal.wal_flush_recovered"
    flusher.close()
    journal.close()
    again = Journal(tmp_path / "t1.db", table="t1")
    try:
        assert [r.seq for r in again.records()] == [1, 2]
    finally:
        again.close()
