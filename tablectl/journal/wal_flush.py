"""The journal's derived writes put on disk in the background, so that the next input's commit
writes only itself.

Outputs and "sent" marks commit without fsync (tablectl/journal/outbox.py: they are a function of
the journal). Their pages stay in the write-ahead log's page cache until something makes them
durable, which was the next input's commit: its fsync (`synchronous=FULL`) wrote the previous
card's outputs and marks too, a few pages more than the input's own, on the path of every card.
`WalFlusher` writes them (fdatasync of the write-ahead log) from a thread of its own once the
broker has acknowledged the rows (`Outbox.mark_sent`), while the table waits for the next card.

Nothing here makes anything durable that was not before, or less so: the input's own commit
still fsyncs, and a flush that fails only leaves the pages to that commit, as before. The thread
never touches the SQLite connection: it holds its own descriptor of the write-ahead log, open
until the journal is closed (closing a descriptor of a file SQLite has open is what drops a
process's POSIX locks on it, so it is never opened and closed per flush), and the same file stays
the log for as long as the connection is open.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import structlog

log = structlog.get_logger("tablectl.journal")

CLOSE_WAIT_SECONDS = 5.0
"""How long closing waits for a flush under way (a stalled disk) before leaving it to finish."""


class WalFlusher:
    """A thread that fdatasyncs the journal's write-ahead log each time it is asked (requests
    that come while one runs make one more), until `close`."""

    def __init__(self, wal: Path) -> None:
        """Open `wal` (the journal's `-wal` file, which must exist) and start the thread;
        OSError when it cannot be opened."""
        self.wal = wal
        self.flushes = 0  # completed, for the tests and `tablectl status`-like questions
        self._fd = os.open(wal, os.O_RDONLY | os.O_CLOEXEC)
        self._wanted = threading.Event()
        self._closing = False
        self._failing = False  # the last flush failed (logged once until one succeeds)
        self._thread = threading.Thread(target=self._run, name="journal-wal-flush", daemon=True)
        self._thread.start()

    def request(self) -> None:
        """Flush soon (cheap: sets an event; callable from the event loop)."""
        self._wanted.set()

    def close(self) -> None:
        """Stop the thread and close the descriptor (left open if a flush is still under way
        after CLOSE_WAIT_SECONDS: the thread is a daemon thread, and the process is ending)."""
        self._closing = True
        self._wanted.set()
        self._thread.join(CLOSE_WAIT_SECONDS)
        if self._thread.is_alive():
            log.warning("journal.wal_flush_still_running", wal=str(self.wal))
            return
        os.close(self._fd)

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._closing:
                return
            try:
                os.fdatasync(self._fd)
            except OSError as exc:
                # The pages stay for the next input's commit to write, as before: nothing is lost.
                if not self._failing:
                    log.warning(
                        "journal.wal_flush_failed",
                        wal=str(self.wal),
                        error=str(exc),
                        detail="outputs and sent marks are written by the next input's commit",
                    )
                self._failing = True
            else:
                if self._failing:
                    log.info("journal.wal_flush_recovered", wal=str(self.wal))
                self._failing = False
                self.flushes += 1
