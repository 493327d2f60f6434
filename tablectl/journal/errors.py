"""The journal's errors: a file that cannot be used, one that cannot be opened now, a record
that cannot be read."""

from __future__ import annotations

from pathlib import Path


class JournalError(Exception):
    """The journal file cannot be used (wrong table, newer schema, not a journal)."""


class JournalUnavailable(JournalError):
    """The journal file cannot be opened now (a full disk, an I/O error, a lock another process
    holds, a folder it cannot open): the file may be sound, and a later start may open it."""


class BadRecord(JournalError):
    """A record the journal holds, or should hold, cannot be read or replayed:
    `seq` names it, `problem` says what is wrong with it."""

    def __init__(self, path: Path, seq: int, problem: str) -> None:
        super().__init__(f"{path}: record {seq}: {problem}")
        self.seq = seq
        self.problem = problem
