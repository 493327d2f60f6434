"""The table's history in files, shaped like python-can's `can.io`: finished rounds read back
from the journal (tablectl/history/rounds.py), and one writer a format, found by its name in
`WRITERS`: `text` and `rounds` (`recall`), `jsonl` and each game's own formats (its spec's
`round_formats`) (`export --format`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, TextIO

from tablectl.games.registry import game_ids, spec_of
from tablectl.games.spec import load
from tablectl.history.generic import FinishedRound, HistoryWriter, RecordWriter, RoundWriter
from tablectl.history.jsonl import JsonlWriter, RoundsWriter
from tablectl.history.text import TextWriter


def _game_formats() -> dict[str, type[HistoryWriter]]:
    """The formats the games write their own rounds in (`GameSpec.round_formats`), each once,
    in the registry's order; each writer is registered as a `RoundWriter` (it has its members
    but, being the game's, does not import the history)."""
    found: dict[str, type[HistoryWriter]] = {}
    for gid in game_ids():
        for name, path in spec_of(gid).round_formats.items():
            if name not in found:
                writer = load(path)
                RoundWriter.register(writer)
                found[name] = writer
    return found


GAME_FORMATS: Final[Mapping[str, type[HistoryWriter]]] = _game_formats()
"""A game's own format name -> its writer."""

WRITERS: Final[Mapping[str, type[HistoryWriter]]] = {
    "text": TextWriter,
    "rounds": RoundsWriter,
    "jsonl": JsonlWriter,
    **GAME_FORMATS,
}
"""Format name -> its writer."""

EXPORT_FORMATS: Final = ("jsonl", *GAME_FORMATS)
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
