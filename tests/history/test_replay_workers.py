"""`tablectl replay --jobs N`: worker processes each render every N-th block of records and only
advance through the others; what is printed is the very bytes one process prints (the recorded
histories' hashes of test_replay_golden.py), an error stops it after the same lines, and no
worker outlives the command."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hil.synthetic import baccarat_history
from tablectl.cli import main, replay_workers
from tablectl.cli.replay_workers import usable_jobs
from tablectl.records import Record
from tablectl.table import Table
from tests.history.test_replay_golden import (
    EXPECTED,
    HISTORIES,
    SYNTHETIC,
    SYNTHETIC_EXPECTED,
    _config,
    digest,
)

REPO = Path(__file__).resolve().parents[2]

SPLITS = [(1, 4096), (2, 1), (3, 7)]  # (workers, records a block holds)
"""One process; two workers taking every other record; three taking turns in blocks of seven."""


def _printed(capsys: pytest.CaptureFixture[str], config: Path, events: Path, jobs: int) -> str:
    argv = ["replay", "--jobs", str(jobs), "--config", str(config), str(events)]
    assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("jobs", "block"), SPLITS)
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_workers_print_the_bytes_one_process_prints(
    name: str,
    jobs: int,
    block: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", block)
    folder = HISTORIES / name
    config = _config(tmp_path, folder / "table.toml")
    out = _printed(capsys, config, folder / "events.jsonl", jobs)
    assert digest(out) == EXPECTED[name]


@pytest.mark.parametrize("block", [97, 4096])
def test_two_workers_print_the_seeded_shoe_as_one_process_does(
    block: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", block)
    config = _config(tmp_path, HISTORIES / "synthetic-baccarat.toml")
    events = tmp_path / "events.jsonl"
    rounds, seed = SYNTHETIC
    events.write_text("".join(line + "\n" for line in baccarat_history(rounds, seed, config)))
    assert digest(_printed(capsys, config, events, 2)) == SYNTHETIC_EXPECTED


def _fail_at(monkeypatch: pytest.MonkeyPatch, seq: int, fail: Any) -> None:
    """Record `seq` makes the table call `fail` (its apply and its advance alike: whichever
    worker meets the record)."""
    apply, advance = Table.apply, Table.advance

    def applied(self: Table, rec: Record) -> Any:
        if rec.seq == seq:
            fail()
        return apply(self, rec)

    def advanced(self: Table, rec: Record) -> None:
        if rec.seq == seq:
            fail()
        advance(self, rec)

    monkeypatch.setattr(Table, "apply", applied)
    monkeypatch.setattr(Table, "advance", advanced)


def _raise() -> None:
    raise RuntimeError("record 30 cannot be played")


def test_an_error_stops_the_workers_after_the_lines_one_process_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = HISTORIES / "texas-holdem"  # 55 records
    config = _config(tmp_path, folder / "table.toml")
    events = folder / "events.jsonl"
    _fail_at(monkeypatch, 30, _raise)
    argv = ["replay", "--config", str(config), str(events)]
    with pytest.raises(RuntimeError, match="record 30 cannot be played"):
        main([*argv, "--jobs", "1"])
    alone = capsys.readouterr().out
    assert alone.count("\n") > 20  # records 1-29 printed their lines
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", 4)  # record 30: the 8th block, worker 2's
    with _no_worker_left():
        assert main([*argv, "--jobs", "2"]) == 1
    out, err = capsys.readouterr()
    assert out == alone
    assert err.startswith("tablectl: replay stopped: Traceback")  # from the worker, where it rose
    assert "RuntimeError: record 30 cannot be played" in err


def test_a_worker_that_dies_is_named_with_how_it_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = HISTORIES / "texas-holdem"  # 55 records
    config = _config(tmp_path, folder / "table.toml")
    whole = _printed(capsys, config, folder / "events.jsonl", 1).splitlines(keepends=True)
    here = os.getpid()

    def die() -> None:  # whichever worker meets record 30; never this process
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)

    _fail_at(monkeypatch, 30, die)
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", 4)  # records 29-32: worker 2's
    with _no_worker_left():
        assert (
            main(["replay", "--jobs", "2", "--config", str(config), str(folder / "events.jsonl")])
            == 1
        )
    out, err = capsys.readouterr()
    assert "(killed by signal 9) before it handed on the block of records from 29" in err
    lines = out.splitlines(keepends=True)
    assert lines == whole[: len(lines)]  # the blocks before it, whole
    assert len(lines) > 20


def test_the_workers_yield_a_cpu_to_the_table_beside_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the PC of a live table the daemon (at the command's priority) goes first."""
    folder = HISTORIES / "texas-holdem"  # 55 records
    config = _config(tmp_path, folder / "table.toml")

    def tell_niceness() -> None:
        raise RuntimeError(f"niceness {os.nice(0)}")

    _fail_at(monkeypatch, 3, tell_niceness)
    expected = min(19, os.nice(0) + replay_workers.WORKER_NICENESS)  # 19: the lowest
    assert (
        main(["replay", "--jobs", "2", "--config", str(config), str(folder / "events.jsonl")]) == 1
    )
    assert f"RuntimeError: niceness {expected}\n" in capsys.readouterr().err


def test_a_standard_output_of_text_gets_the_same_lines_from_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An output that takes text, not bytes (no UTF-8 buffer under it): each block decoded."""
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", 3)
    folder = HISTORIES / "dealers-choice"
    config = _config(tmp_path, folder / "table.toml")
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert (
        main(["replay", "--jobs", "2", "--config", str(config), str(folder / "events.jsonl")]) == 0
    )
    assert digest(out.getvalue()) == EXPECTED["dealers-choice"]


def test_the_workers_read_the_file_as_it_was_when_the_replay_began(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file still being written (an export into it running): every worker reads the bytes it
    held at the start, never a worker more than another (a hole in the output)."""
    monkeypatch.setattr(replay_workers, "BLOCK_RECORDS", 4)
    folder = HISTORIES / "texas-holdem"
    config = _config(tmp_path, folder / "table.toml")
    events = tmp_path / "events.jsonl"
    events.write_bytes((folder / "events.jsonl").read_bytes())
    fork = os.fork

    def fork_then_grow() -> int:  # the second worker starts after the file grew
        pid = fork()
        if pid:
            with events.open("a", encoding="utf-8") as more:
                more.write((folder / "events.jsonl").read_text(encoding="utf-8"))
        return pid

    monkeypatch.setattr(os, "fork", fork_then_grow)
    with _no_worker_left():
        out = _printed(capsys, config, events, 2)
    assert digest(out) == EXPECTED["texas-holdem"]


@pytest.mark.parametrize("started", [0, 1])
def test_a_worker_that_cannot_be_started_leaves_the_replay_to_this_process(
    started: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No process to be had for a worker (a limit, memory): nothing was printed yet, so the
    replay goes on in this process, the same bytes, and says so; any worker started is
    stopped."""
    folder = HISTORIES / "texas-holdem"
    config = _config(tmp_path, folder / "table.toml")
    fork, forks = os.fork, [0]

    def fork_until_none_is_left() -> int:
        forks[0] += 1
        if forks[0] > started:
            raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        return fork()

    monkeypatch.setattr(os, "fork", fork_until_none_is_left)
    argv = ["replay", "--jobs", "2", "--config", str(config), str(folder / "events.jsonl")]
    with _no_worker_left():
        assert main(argv) == 0
    out, err = capsys.readouterr()
    assert digest(out) == EXPECTED["texas-holdem"]
    assert err == (
        "tablectl: replay in one process: cannot start a worker: Resource temporarily unavailable\n"
    )


def test_standard_input_and_what_is_not_a_file_replay_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert usable_jobs(3, Path("-")) == 1
    assert usable_jobs(3, fifo) == 1
    assert usable_jobs(3, events) == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    assert usable_jobs(None, events) == 1  # one CPU: the replay stays in this process
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3})
    assert usable_jobs(None, events) == 2


def test_jobs_below_one_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, HISTORIES / "ez-baccarat-panda8" / "table.toml")
    assert main(["replay", "--jobs", "0", "--config", str(config), "-"]) == 2
    assert "--jobs: 0 is not a positive number" in capsys.readouterr().err


def test_a_reader_that_stops_reading_ends_the_command_and_its_workers(tmp_path: Path) -> None:
    """`tablectl replay ... | head`: the command ends (exit 0, as it does in one process) and
    takes its workers with it."""
    config = _config(tmp_path, HISTORIES / "synthetic-baccarat.toml")
    events = tmp_path / "events-for-the-reader-test.jsonl"
    events.write_text("".join(line + "\n" for line in baccarat_history(700, 3, config)))
    argv = [sys.executable, "-m", "tablectl.cli", "replay", "--jobs", "2"]
    proc = subprocess.Popen(
        [*argv, "--config", str(config), str(events)], cwd=REPO, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(b'{"topic":')
    proc.stdout.close()
    assert proc.wait(60) == 0
    assert not [pid for pid in _processes_naming(str(events))]


@contextlib.contextmanager
def _no_worker_left() -> Iterator[None]:
    """The block leaves no child process of this one (not even a zombie) and no descriptor
    open."""
    children, fds = _children(), len(os.listdir("/proc/self/fd"))
    yield
    assert _children() == children
    assert len(os.listdir("/proc/self/fd")) == fds


def _children() -> set[int]:
    """This process's children, zombies included (/proc/PID/stat: the fourth field)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.add(int(entry.name))
    return found


def _processes_naming(text: str) -> list[int]:
    """The processes whose command line holds `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # gone meanwhile
                continue
            if text.encode() in cmdline:
                found.append(int(entry.name))
    return found
