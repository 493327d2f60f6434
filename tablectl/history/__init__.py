"""The table's history in files, shaped like python-can's `can.io`: finished rounds read back
from the journal (tablectl/history/rounds.py), and one writer a format, found by its name in
`WRITERS`: `text` and `rounds` (`recall`), `jsonl` and `phh` (`export --format`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, TextIO

from tablectl.history.generic import FinishedRound, HistoryWriter, RecordWriter, RoundWriter
from tablectl.history.jsonl import JsonlWriter, RoundsWriter
from tablectl.history.phh import PhhWriter
from tablectl.history.text import TextWriter

WRITERS: Final[Mapping[str, type[HistoryWriter]]] = {
    "text": TextWriter,
    "rounds": RoundsWriter,
    "jsonl": JsonlWriter,
    "phh": PhhWriter,
}
"""Format name -> its writer."""

EXPORT_FORMATS: Final = ("jsonl", "phh")
"""The formats `tablectl export --format` writes, the default first."""


def round_writer(name: str, out: TextIO, *, table: str | None = None) -> RoundWriter:
    """The writer of finished rounds in format `name` on `out`."""
    writer = WRITERS[name](out, table=table)
    if not isinstance(writer, RoundWriter):
        raise ValueError(f"{name} does not write rounds")
    return writer


def record_writer(name: str, out: TextIO, *, table: str | None = None) -> RecordWriter:
    """The writer of journal records in format `name` on `out`."""
    writer = WRITERS[name](out, table=table)
    if not isinstance(writer, RecordWriter):
        raise ValueError(f"{name} does not write journal records")
    return writer


__all__ = [
    "EXPORT_FORMATS",
    "WRITERS",
    "FinishedRound",
    "HistoryWriter",
    "RecordWriter",
    "RoundWriter",
    "record_writer",
    "round_writer",
]
