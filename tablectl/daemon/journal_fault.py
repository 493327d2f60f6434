"""A journal the table cannot replay: the held `journal-fault` state.

R40 holds a round on an input the engine cannot apply; a journal the daemon cannot even read or
replay (a record that is not JSON, a gap in the seqs, outputs the replay no longer gives, an
import that did not finish...) would otherwise stop every start with an error, and systemd's
`Restart=` would start it again for ever. Instead the daemon starts held: it tells systemd it is
ready, keeps the watchdog fed, tells the floor what is wrong and where (a retained
`journal/status` with `fault`, an `alert` of kind `journal-fault`), refuses every command and
reads no device, and journals nothing: the file stays exactly as it was found, for the
technician (docs/operations.md "A journal the table cannot replay").

Pure data: the daemon (tablectl/daemon/recovery.py) decides when, this module says what.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablectl.journal import BadRecord, JournalError
from tablectl.snapshot import SnapshotError
from tablectl.table import mask_cards

REASON_CHARS = 600
"""The most of a fault's reason that is published (a path and SQLite's or Python's message fit
easily; a pathological exception text is cut)."""

WAY_OUT = "docs/operations.md 'A journal the table cannot replay'"


@dataclass(frozen=True)
class JournalFault:
    """Why the table is held on its journal: the `record` it stops at (None when the file
    itself cannot be used), the `reason`, and `since` when (a journal timestamp)."""

    record: int | None
    reason: str
    since: str

    @classmethod
    def of(cls, exc: BaseException, since: str) -> JournalFault:
        """The fault an error met while opening or replaying the journal stands for: a record
        named by BadRecord, the message of a JournalError or SnapshotError, else the error's
        type and message (a defect met on the way, not a refusal: its traceback is logged)."""
        record = exc.seq if isinstance(exc, BadRecord) else None
        if isinstance(exc, (JournalError, SnapshotError)):
            reason = str(exc)
        else:
            reason = f"{type(exc).__name__}: {exc}"
        # Published on retained topics the floor reads: a record's text quoted in a reason may
        # hold a card the table never showed (a hole card, a burn), so no card is named.
        return cls(record, mask_cards(reason)[:REASON_CHARS], since)

    def where(self) -> str:
        """The record it stops at, for a line a person reads."""
        return "the journal file" if self.record is None else f"record {self.record}"

    def status_fields(self) -> dict[str, Any]:
        """The retained `journal/status` while held (with `unsent` added by the daemon): the
        journal is not written (`writable` false) and `fault` says where and why."""
        return {
            "writable": False,
            "reason": f"journal fault at {self.where()}: the table is held",
            "since": self.since,
            "fault": {"record": self.record, "reason": self.reason},
        }

    def alert_fields(self) -> dict[str, Any]:
        """The `alert` of kind `journal-fault`, from memory (no `seq`, `journaled` false)."""
        return {
            "kind": "journal-fault",
            "reason": f"the table is held: {self.where()} cannot be replayed ({self.reason}); "
            f"see {WAY_OUT}",
            "record": self.record,
            "journaled": False,
            "ts": self.since,
        }

    def refusal(self) -> str:
        """A command's `reason` while held: nothing is recorded."""
        return (
            f"the table is held on a journal fault at {self.where()} ({self.reason}): not recorded"
        )

    def status_line(self) -> str:
        """What `systemctl status` shows first while held."""
        return f"JOURNAL FAULT at {self.where()}: {self.reason}"
