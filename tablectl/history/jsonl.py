"""The JSON lines formats: `jsonl`, every journal record as an export line (tablectl/exports.py:
what `replay` and `import` read), and `rounds`, each finished round's result payload with the
inputs that played it (`recall --json`)."""

from __future__ import annotations

import json

from tablectl.exports import export_line
from tablectl.history.generic import FinishedRound, RecordWriter, RoundWriter
from tablectl.records import Record


class JsonlWriter(RecordWriter):
    """`jsonl`: every journal record, one export line each (`tablectl export`)."""

    def write_record(self, record: Record) -> None:
        self.out.write(export_line(record) + "\n")
        self.written += 1


class RoundsWriter(RoundWriter):
    """`rounds`: each finished round's `round/result` payload, its journaled inputs under
    `journal`, one compact JSON line a round (`tablectl recall --json`)."""

    def write_round(self, finished: FinishedRound) -> None:
        line = json.dumps({**finished.result, "journal": finished.inputs}, separators=(",", ":"))
        self.out.write(line + "\n")
        self.written += 1
