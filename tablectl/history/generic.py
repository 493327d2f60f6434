"""What every history writer is, as python-can's `can.io.generic` says what a log writer is: one
format's writer on a text stream, given the finished rounds (`RoundWriter`) or the journal's
records (`RecordWriter`) in order, then finished (a format may keep its output until then)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple, TextIO

from tablectl.records import Record


class FinishedRound(NamedTuple):
    """A finished round as the journal holds it: when it finished (its last record's time), its
    `round/result` payload, and the inputs that dealt and played it, each with its journal `seq`
    (tablectl/history/rounds.py)."""

    ts: str
    result: dict[str, Any]
    inputs: list[dict[str, Any]]


class HistoryWriter(ABC):  # noqa: B024 (its kinds say what they write: RoundWriter, RecordWriter)
    """A history format's writer on `out`; `table` is the table's id, for a format that names
    it. `written` counts what it wrote (or noted it left out)."""

    def __init__(self, out: TextIO, *, table: str | None = None) -> None:
        self.out = out
        self.table = table
        self.written = 0

    def finish(self) -> None:  # noqa: B027 (most formats write as they go: nothing to finish)
        """Write what the format keeps until every item is in (nothing, unless it says so)."""


class RoundWriter(HistoryWriter):
    """A writer of finished rounds (`recall`, a game's own format for `export --format`: the
    game's writer is registered as one, tablectl/history/__init__.py)."""

    @abstractmethod
    def write_round(self, finished: FinishedRound) -> None:
        """Write (or keep) one finished round; ValueError, naming the round, for one the format
        cannot write."""


class RecordWriter(HistoryWriter):
    """A writer of the journal's records, every one in order (`export --format jsonl`)."""

    @abstractmethod
    def write_record(self, record: Record) -> None:
        """Write one journal record."""
