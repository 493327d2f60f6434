"""`tablectl replay` in worker processes: the records in blocks, each worker rendering every
`jobs`-th block and only advancing the table through the others (`Table.advance`: the state and
the message count move exactly as `apply` moves them, without a message rendered), this process
writing the blocks in order. A block's lines are the bytes one process prints for it, so the
output is the same; each worker holds one block's lines at a time.

Rendering is about half of a replay's time and advancing the other half, so two workers print
about 1.3 times as fast as one process, on two CPUs (docs/performance.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tablectl.cli.common import open_text
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
_LINES, _FAILED, _END = 0, 1, 2
"""Frames a worker writes: a block's lines; the lines its block had made before an error, then
that error's traceback; the end of the records."""


class WorkerFailed(RuntimeError):
    """A worker stopped on an error: the lines before the record that raised are printed, as one
    process prints them, and this says what the worker said (its traceback) or how it ended."""


def usable_jobs(requested: int | None, events: Path) -> int:
    """How many workers a replay of `events` runs in: `requested`, or (None) two when the
    process may use two CPUs or more; one (this process) for standard input or anything else
    that is not a file, which cannot be read once per worker."""
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
        """The next frame the worker wrote (for the block from record `first`): its kind and
        what it holds."""
        kind, length = _HEAD.unpack(self._exactly(_HEAD.size, first))
        return kind, self._exactly(length, first)

    def failure(self, first: int) -> WorkerFailed:
        """What stopped the worker, from the traceback frame after its last lines."""
        return WorkerFailed(self.frame(first)[1].decode("utf-8", "replace").rstrip())

    def stop(self) -> None:
        """The worker's process ended (killed if it runs yet) and reaped; its pipe closed."""
        os.close(self.fd)
        if not self.reaped:
            os.kill(self.pid, signal.SIGKILL)  # one done has exited, a zombie until reaped
            self.reap()

    def reap(self) -> int:
        """Wait for the worker's process to end; its wait status."""
        _, status = os.waitpid(self.pid, 0)
        self.reaped = True
        return status

    def _exactly(self, size: int, first: int) -> bytes:
        buf = bytearray(size)
        view = memoryview(buf)
        got = 0
        while got < size:
            n = os.readv(self.fd, [view[got:]])
            if n == 0:  # the process ended, or is ending: its pipe is closed
                status = self.reap()
                how = (
                    f"killed by signal {os.WTERMSIG(status)}"
                    if os.WIFSIGNALED(status)
                    else f"exit status {os.waitstatus_to_exitcode(status)}"
                )
                raise WorkerFailed(
                    f"a replay worker stopped without a word in the block of records from "
                    f"{first} ({how})"
                )
            got += n
        return bytes(buf)


def print_in_workers(
    table: Table, events: Path, read: Read, jobs: int, write: Callable[[bytes], object]
) -> None:
    """Replay the records `read` makes of `events` on copies of `table` in `jobs` forked
    workers, handing `write` the UTF-8 lines of every message in order (a whole block at a
    time); WorkerFailed when a worker met an error, after the lines before it."""
    share = (jobs, BLOCK_RECORDS)
    sys.stdout.flush()  # nothing buffered here is written again by a worker
    sys.stderr.flush()
    workers: list[_Worker] = []
    try:
        for index in range(jobs):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read_end)
                for other in workers:
                    os.close(other.fd)
                _work(table, events, read, (index, *share), write_end)
            os.close(write_end)
            workers.append(_Worker(pid, read_end))
        _gather(workers, write, BLOCK_RECORDS)
    finally:
        for worker in workers:
            worker.stop()


def _gather(workers: list[_Worker], write: Callable[[bytes], object], records: int) -> None:
    """The blocks (of `records` records) from the workers in order, block n from worker
    n % jobs, until the records end; WorkerFailed, after the lines before it, when a worker met
    an error."""
    block = 0
    while True:
        worker, first = workers[block % len(workers)], block * records + 1
        kind, data = worker.frame(first)
        if kind == _END:
            break
        if data:
            write(data)
        if kind == _FAILED:
            raise worker.failure(first)
        block += 1
    for other in workers:  # every other worker ends where this one ended
        if other is not worker and other.frame(first)[0] == _FAILED:
            raise other.failure(first)


def _work(table: Table, events: Path, read: Read, share: tuple[int, int, int], out: int) -> None:
    """A worker: every record of `events` through `table`, the lines of its share of the blocks
    (`share`: its index, the workers, the records a block holds; it renders blocks index,
    index + jobs, ...) written to `out` as frames; then the end, or the error that stopped it.
    Leaves the process with os._exit: nothing of the parent's (its buffers, its exit handlers)
    runs here."""
    index, jobs, block = share
    code = 0
    batch: list[bytes] = []
    try:
        os.nice(WORKER_NICENESS)
        with open_text(events, "the events file") as stream:
            for position, rec in enumerate(read(stream)):
                if (position // block) % jobs != index:
                    table.advance(rec)
                    continue
                lines_into(table.apply(rec), batch)
                if (position + 1) % block == 0:
                    _send(out, _LINES, b"".join(batch))
                    batch.clear()
        if batch:  # the records ended within a block of this worker's
            _send(out, _LINES, b"".join(batch))
        _send(out, _END, b"")
    except BaseException:
        code = 1
        with contextlib.suppress(BaseException):  # a parent gone: nobody left to tell
            _send(out, _FAILED, b"".join(batch))
            _send(out, _FAILED, traceback.format_exc().encode("utf-8", "replace"))
    finally:
        os._exit(code)


def _send(fd: int, kind: int, data: bytes) -> None:
    """One frame: its head, then `data`."""
    for part in (_HEAD.pack(kind, len(data)), data):
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view) :]
