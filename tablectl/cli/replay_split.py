"""`tablectl replay` of a long file on two processors: this process renders and prints the first
part of the records while a second one (forked) moves its own copy of the table through that part
without rendering a message (`Table.advance`: the same state and message count as `apply`, at
under half the cost) and renders the rest into a spill file, printed after the first part. The
output is the one process's, line for line: the second process only starts where the first
stops, with the very table the first would have there. Should the second process fail, this one
goes on alone from where it stopped, as a replay without the split would.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import BinaryIO, NoReturn

from tablectl.cli.replay_lines import OUTPUT_BATCH_PIECES, lines_into
from tablectl.records import Record
from tablectl.table import Table

SPLIT_RECORDS = 4000
"""Records (lines) of a file from which a replay splits its work with a second process: below,
the fork and the spill cost more than they save."""

SPLIT_SHARE = 0.62
"""The share of the records this process renders: the second process advances through them
(parsing and playing, about 0.4 of rendering and printing one: 20,000 rounds, 2026-11-29) before
rendering the rest, so both finish together when this share is 1 / (2 - 0.4)."""

SPILL_PIECES = 3 * 2048
"""Pieces of output (three a line) the second process gathers before writing them."""


def processors() -> int:
    """How many processors this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def worth_splitting(records: int) -> bool:
    """Whether a replay of `records` lines is split (long enough, two processors, a fork)."""
    return records >= SPLIT_RECORDS and hasattr(os, "fork") and processors() >= 2


def print_split(
    table: Table,
    records: Iterator[Record],
    again: Callable[[], Iterator[Record]],
    cut: int,
    buffer: BinaryIO,
) -> None:
    """Print the lines of `records` (as `lines_into` makes them) to `buffer`: this process
    those of the records up to seq `cut`, a second process those after it, reading them again
    (`again()`: the same records from the start). `table` has applied none of them yet."""
    sys.stdout.flush()
    buffer.flush()
    with tempfile.TemporaryFile() as spill:
        pid = os.fork()
        if pid == 0:
            _render_after(table, again, cut, spill)
        batch: list[bytes] = []
        rest: Record | None = None
        done = reaped = False
        try:
            for rec in records:
                if rec.seq > cut:
                    rest = rec
                    break
                lines_into(table.apply(rec), batch)
                if len(batch) >= OUTPUT_BATCH_PIECES:
                    buffer.write(b"".join(batch))
                    batch.clear()
            buffer.write(b"".join(batch))
            batch.clear()
            done, reaped = _finished(pid), True
        finally:  # what was made before anything went wrong is printed, as it always was
            if not reaped:
                _stop(pid)
            buffer.write(b"".join(batch))
        if done:
            spill.seek(0)
            shutil.copyfileobj(spill, buffer, 1 << 20)
            buffer.flush()
            return
    if rest is None:
        return
    print("tablectl replay: the second process stopped; this one goes on alone", file=sys.stderr)
    try:
        for rec in itertools.chain([rest], records):
            lines_into(table.apply(rec), batch)
            if len(batch) >= OUTPUT_BATCH_PIECES:
                buffer.write(b"".join(batch))
                batch.clear()
    finally:
        buffer.write(b"".join(batch))
        buffer.flush()


def _render_after(
    table: Table, again: Callable[[], Iterator[Record]], cut: int, spill: BinaryIO
) -> NoReturn:
    """The second process: advance through the records up to seq `cut`, render the rest into
    `spill`; exit 0 when all are there, 1 otherwise (the first process then renders them)."""
    status = 1
    try:
        batch: list[bytes] = []
        for rec in again():
            if rec.seq <= cut:
                table.advance(rec)
                continue
            lines_into(table.apply(rec), batch)
            if len(batch) >= SPILL_PIECES:
                spill.write(b"".join(batch))
                batch.clear()
        spill.write(b"".join(batch))
        spill.flush()
        status = 0
    except BaseException as exc:  # told, not swallowed: the first process replays it again
        what = f"{type(exc).__name__}: {exc}"
        print(f"tablectl replay: second process: {what}", file=sys.stderr, flush=True)
    finally:
        os._exit(status)  # no clean-up of what the first process still uses (its output)


def _finished(pid: int) -> bool:
    """Wait for the second process; whether it rendered every record after the cut."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _stop(pid: int) -> None:
    """Stop the second process, not reaped yet (so `pid` is still its), and reap it: this one
    failed before it was done."""
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
