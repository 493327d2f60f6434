"""`tablectl replay` in worker processes: the records in blocks, each worker rendering every
`jobs`-th block and only advancing the table through the others (`Table.advance`: the state and
the message count move exactly as `apply` moves them, without a message rendered), this process
writing the blocks in order. A block's lines are the bytes one process prints for it, so the
output is the same; each worker holds one block's lines at a time.

Reading and advancing a record costs less than half of reading and rendering it, so each of two
workers does about 0.7 of one process's work: 1.3 times as fast with a second CPU free, slower
than one process when the second CPU is busy (docs/performance.md).
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import struct
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tablectl.cli.replay_lines import lines_into
from tablectl.records import Record
from tablectl.table import Table

BLOCK_RECORDS = 4096
"""Records in a block: a worker renders one block (a few megabytes of lines) and hands it on
whole, then advances through the blocks of the others while they render theirs."""

WORKER_NICENESS = 10
"""How much lower the workers' priority is than the command's: on the PC beside a live table,
its daemon takes a CPU from them at once when it needs one (the workers use every CPU they may
have); on an idle machine it costs them nothing."""

Read = Callable[[TextIO], Iterator[Record]]
"""How a file's lines become records (`replay.replay_records`)."""

_HEAD = struct.Struct("!BQ")  # a frame's kind and the length of what follows
_COUNT = struct.Struct("!Q")
_LINES, _FAILED, _END = 0, 1, 2
"""Frames a worker writes: a block's lines; the lines its block had made before an error, then
that error's traceback; the end of the records, with how many there were."""


class WorkersUnavailable(RuntimeError):
    """No worker could be started (a process limit, memory, descriptors): nothing was printed,
    and the replay can go on in this process."""


class WorkerFailed(RuntimeError):
    """A worker stopped on an error: the lines before the record that raised are printed, as one
    process prints them, and this says what the worker said (its traceback) or how it ended."""


def usable_jobs(requested: int | None, events: Path) -> int:
    """How many workers a replay of `events` runs in: `requested`, or (None) two when the
    process may use two CPUs or more; one (this process) for standard input or anything else
    that is not a regular file (a pipe), which cannot be read once per worker."""
    if str(events) == "-" or not events.is_file():
        return 1
    if requested is not None:
        return requested
    return 2 if len(os.sched_getaffinity(0)) >= 2 else 1


@dataclass
class _Worker:
    """A forked worker: its process id, the read end of the pipe it writes its frames to, and
    whether its process was reaped (its id may then be another process's)."""

    pid: int
    fd: int
    reaped: bool = False

    def frame(self, first: int) -> tuple[int, bytes]:
        """The next frame the worker wrote (the parent waits for the block from record `first`):
        its kind and what it holds."""
        kind, length = _HEAD.unpack(self._exactly(_HEAD.size, first))
        return kind, self._exactly(length, first)

    def failure(self, first: int) -> WorkerFailed:
        """What stopped the worker, from the traceback frame after its last lines."""
        return WorkerFailed(self.frame(first)[1].decode("utf-8", "replace").rstrip())

    def _exactly(self, size: int, first: int) -> bytes:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            n = os.readv(self.fd, [view[got:]])
            if n == 0:  # the process ended, or is ending: its pipe is closed
                _, status = os.waitpid(self.pid, 0)
                self.reaped = True
                how = (
                    f"killed by signal {os.WTERMSIG(status)}"
                    if os.WIFSIGNALED(status)
                    else f"exit status {os.waitstatus_to_exitcode(status)}"
                )
                raise WorkerFailed(
                    f"a replay worker stopped without a word ({how}) before it handed on the "
                    f"block of records from {first}"
                )
            got += n
        return bytes(buf)


def print_in_workers(
    table: Table, events: TextIO, read: Read, jobs: int, write: Callable[[bytes], object]
) -> None:
    """Replay the records `read` makes of the file open as `events` (as it is now: its length
    taken here) on copies of `table` in `jobs` forked workers, handing `write` the UTF-8 lines
    of every message in order (a whole block at a time); WorkerFailed when a worker met an
    error, after the lines before it."""
    fd = events.fileno()
    share = (jobs, BLOCK_RECORDS, fd, os.fstat(fd).st_size)
    sys.stdout.flush()  # nothing buffered here is written again by a worker
    sys.stderr.flush()
    workers: list[_Worker] = []
    try:
        for index in range(jobs):
            read_end, write_end = _pipe()
            try:
                pid = os.fork()
            except OSError as exc:  # no process to be had (a limit, memory): nothing written yet
                os.close(read_end)
                os.close(write_end)
                raise WorkersUnavailable(f"cannot start a worker: {exc.strerror or exc}") from exc
            if pid == 0:  # the worker, which never returns
                try:
                    os.close(read_end)
                    for other in workers:
                        os.close(other.fd)
                    _work(table, read, (index, *share), write_end)
                finally:
                    os._exit(1)  # `_work` exits itself; this is for anything before it
            workers.append(_Worker(pid, read_end))
            os.close(write_end)
        _gather(workers, write, BLOCK_RECORDS)
    finally:
        _stop(workers)


def _pipe() -> tuple[int, int]:
    """A pipe for a worker's frames; WorkersUnavailable when no descriptor is left for one."""
    try:
        return os.pipe()
    except OSError as exc:
        raise WorkersUnavailable(f"cannot open a pipe to a worker: {exc.strerror or exc}") from exc


def _gather(workers: list[_Worker], write: Callable[[bytes], object], records: int) -> None:
    """The blocks (of `records` records) from the workers in order, block n from worker
    n % jobs, until the records end; WorkerFailed, after the lines before it, when a worker met
    an error."""
    block = 0
    while True:
        worker, first = workers[block % len(workers)], block * records + 1
        kind, data = worker.frame(first)
        if kind == _END:
            count = data
            break
        if data:
            write(data)
        if kind == _FAILED:
            raise worker.failure(first)
        block += 1
    for other in workers:  # every other worker ends where this one ended, at the same record
        if other is worker:
            continue
        kind, data = other.frame(first)
        if kind == _FAILED:
            raise other.failure(first)
        if kind != _END or data != count:  # cannot be: they read the very same bytes
            raise WorkerFailed("the replay workers read different records")


def _stop(workers: list[_Worker]) -> None:
    """Every worker's process ended (killed if it runs yet: a failure, a reader gone) and
    reaped, its pipe closed."""
    for worker in workers:
        os.close(worker.fd)
        if not worker.reaped:
            with contextlib.suppress(ProcessLookupError):  # exited already: a zombie, not gone
                os.kill(worker.pid, signal.SIGKILL)
    for worker in workers:
        if not worker.reaped:
            os.waitpid(worker.pid, 0)
            worker.reaped = True


def _work(table: Table, read: Read, share: tuple[int, int, int, int, int], out: int) -> None:
    """A worker: every record of the events file through `table`, the lines of its share of
    the blocks written to `out` as frames; then the end, or the error that stopped it. `share`:
    its index, the workers, the records a block holds (it renders blocks index, index + jobs,
    ...), the file's descriptor and length. Leaves the process with os._exit: nothing of the
    parent's (its buffers, its exit handlers) runs here."""
    index, jobs, block, fd, length = share
    frames = _Frames(out)
    batch: list[bytes] = []
    code = 1
    try:
        os.nice(WORKER_NICENESS)
        # The command's standard streams stay its own: a reader of its output sees the end
        # when the command ends, whatever became of a worker.
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        position = -1
        for position, rec in enumerate(read(_file_as_it_was(fd, length))):
            if (position // block) % jobs != index:
                table.advance(rec)
                continue
            lines_into(table.apply(rec), batch)
            if (position + 1) % block == 0:
                frames.send(_LINES, b"".join(batch))
                batch.clear()
        if batch:  # the records ended within a block of this worker's
            frames.send(_LINES, b"".join(batch))
        frames.send(_END, _COUNT.pack(position + 1))
        code = 0
    except BaseException:
        if not frames.broken:  # a frame cut short leaves nothing more to say
            with contextlib.suppress(BaseException):  # a parent gone: nobody left to tell
                frames.send(_FAILED, b"".join(batch))
                frames.send(_FAILED, traceback.format_exc().encode("utf-8", "replace"))
    finally:
        os._exit(code)


class _Frames:
    """A worker's frames to its pipe; `broken` once a frame was cut short (an error or a
    signal in the middle of one), after which nothing more can be read right."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.broken = False

    def send(self, kind: int, data: bytes) -> None:
        self.broken = True
        for part in (_HEAD.pack(kind, len(data)), data):
            view = memoryview(part)
            while view:
                view = view[os.write(self.fd, view) :]
        self.broken = False


def _file_as_it_was(fd: int, length: int) -> TextIO:
    """The first `length` bytes of the file open as `fd`, read as the command reads it (UTF-8,
    undecodable bytes as U+FFFD, any newline as "\\n"), at offsets of its own (`os.pread`):
    every worker reads the very bytes the others read, even of a file written to meanwhile."""
    raw = _Prefix(fd, length)
    return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace")


class _Prefix(io.RawIOBase):
    """The first `length` bytes of the file open as `fd`, read without moving its offset (which
    the parent and every worker share)."""

    def __init__(self, fd: int, length: int) -> None:
        super().__init__()
        self._fd, self._length, self._at = fd, length, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = os.pread(self._fd, min(len(buffer), self._length - self._at), self._at)
        buffer[: len(data)] = data
        self._at += len(data)
        return len(data)
