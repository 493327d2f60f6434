"""`tablectl upgrade-check`: before a table switches to a new release, the new
release replays the journal's recent rounds and compares every message it would publish with the
one the running release stored in the outbox for the same record.

It runs from the new release's venv against the live journal, read-only, while the old release
runs on (scripts/install runs it before it switches /opt/tablectl/current). What it replays: the
live file from its start (from the snapshot a month's file opens with, or the first record) and,
when that holds fewer than the last `rounds` finished rounds (1,000) or not the whole of the last
shoe, the closed monthly segment before it too, and so on: at least the last shoe or the last
1,000 rounds, whichever is more. What it compares: every message the outbox still holds for the
records replayed (published ones stay `[journal] outbox_hours`, 24 h by default; the newest
retained message of each topic and anything unsent stay always), byte for byte, under the same
`seq`, for the same record. A message the replay makes that the outbox no longer holds cannot be
compared and is counted as such; one the outbox holds that the replay does not make, or makes
under another seq, topic or record, is a difference.

It also says what the new release makes of the file itself: the journal schema it would rewrite
the file to at its first start (which a rollback cannot undo), and whether it can read the stored
snapshots (if not, its first start replays from the records, slower but the same table).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablectl import __version__, snapshot
from tablectl.chainkey import ChainKey
from tablectl.config import LoadedConfig
from tablectl.journal import Journal
from tablectl.journal.schema import SCHEMA_VERSION, SCHEMAS
from tablectl.journal.segments import History
from tablectl.outputs import OutboxRow
from tablectl.table import Table

WINDOW_ROUNDS = 1000
"""At least this many of the newest finished rounds are replayed (with the whole last shoe)."""

SHOWN = 20
"""The differences listed one by one; the rest are counted."""


@dataclass(frozen=True)
class Finished:
    """A round the replay finished: its record, number, shoe (None: a game without one) and
    whether the outbox still held its `round/result` (compared) or had dropped it."""

    record: int
    round: Any
    shoe: Any
    compared: bool


@dataclass
class Replay:
    """One replay of the journal from record `start + 1` to `last`, compared as it went."""

    start: int
    last: int = 0
    records: int = 0
    files: int = 0
    same: int = 0
    not_stored: int = 0
    differing: int = 0
    differences: list[str] = field(default_factory=list)
    results: list[Finished] = field(default_factory=list)

    def differs(self, text: str) -> None:
        self.differing += 1
        if len(self.differences) < SHOWN:
            self.differences.append(text)


@dataclass
class Report:
    """What `upgrade-check` says: lines to print, and whether a message differs (exit 1)."""

    lines: list[str] = field(default_factory=list)
    differs: bool = False


def check(
    cfg: LoadedConfig,
    history: History,
    *,
    rounds: int = WINDOW_ROUNDS,
    keys: Sequence[ChainKey] = (),
) -> Report:
    """Replay the journal's recent rounds with this release and compare (module docstring)."""
    report = Report()
    say = report.lines.append
    live = history.live
    say(f"this release: tablectl {__version__}, against {live.path} (read-only)")
    say(_schema_line(live))
    say(_snapshot_line(live))
    if history.last_seq == 0:
        say("the journal holds no record yet: nothing to replay, nothing can differ")
        say("ok: nothing to compare")
        return report
    base = cfg.table.base_topic + "/"
    stored = {row.seq: (record, row) for record, row in live.stored_outputs()}
    files = history.files
    i = len(files) - 1
    while True:
        replay = _replay(cfg, files, i, stored, base, keys)
        if i == 0 or _covers(replay, rounds):
            break
        i -= 1  # the window reaches back past this file's start: from the file before it too
    report.lines += _describe(replay, rounds, files, cfg)
    report.differs = replay.differing > 0
    return report


def _schema_line(live: Journal) -> str:
    schema = live.meta("schema")
    reads = f"this release reads schemas {', '.join(SCHEMAS)} and writes {SCHEMA_VERSION}"
    if schema == SCHEMA_VERSION:
        return f"journal: schema {schema} ({reads}): nothing to rewrite"
    return (
        f"journal: schema {schema} ({reads}): its first start REWRITES the journal to schema "
        f"{SCHEMA_VERSION}, which a rollback cannot undo: a release that reads only schema "
        f"{schema} refuses the file after that (back the journal up before the switch)"
    )


def _snapshot_line(live: Journal) -> str:
    snaps = live.snapshots()
    if not snaps:
        return "snapshots: none in the live file (a start replays its records)"
    formats = sorted({s.format for s in snaps})
    made_by = ", ".join(sorted({s.made_by for s in snaps}))
    shown = ", ".join(str(f) for f in formats)
    if snapshot.FORMAT in formats:
        return f"snapshots: format {shown} (made by tablectl {made_by}); this release reads it"
    return (
        f"snapshots: format {shown} (made by tablectl {made_by}); this release reads format "
        f"{snapshot.FORMAT} only: its first start replays the records instead (a longer start, "
        "the same table), and writes format "
        f"{snapshot.FORMAT} snapshots the release before skips after a rollback"
    )


def _replay(
    cfg: LoadedConfig,
    files: Sequence[Journal],
    i: int,
    stored: dict[int, tuple[int, OutboxRow]],
    base: str,
    keys: Sequence[ChainKey],
) -> Replay:
    """Replay files[i:] from the start of files[i] (the table before it rebuilt from the
    snapshot it opens with), comparing every message with the stored one of the same seq."""
    first = files[i].first_seq
    if first == 1:
        table = Table(cfg)
    else:
        table, _ = snapshot.rebuild(cfg, files[: i + 1], upto=first - 1, keys=keys)
    replay = Replay(table.position, last=table.position, files=len(files) - i)
    made: set[int] = set()  # the stored messages the replay made again
    for rec in _records(files[i:], table.position):
        rows = table.apply(rec)
        replay.records += 1
        replay.last = rec.seq
        for row in rows:
            found = stored.get(row.seq)
            if found is None:
                replay.not_stored += 1
            else:
                made.add(row.seq)  # the stored ones only: a month's seqs need not be kept
                why = _difference(found[0], found[1], rec.seq, row, base)
                if why is None:
                    replay.same += 1
                else:
                    replay.differs(why)
            if row.topic.endswith("/round/result"):
                payload = json.loads(row.payload)
                replay.results.append(
                    Finished(rec.seq, payload.get("round"), payload.get("shoe"), found is not None)
                )
    for seq, (record, row) in stored.items():
        if replay.start < record <= replay.last and seq not in made:
            replay.differs(
                f"message {seq} ({_short(row.topic, base)}, record {record}): stored, and this "
                "release does not publish it"
            )
    return replay


def _records(files: Sequence[Journal], after: int) -> Iterator[Any]:
    for f in files:
        if f.last_seq > after:
            yield from f.records(after=max(after, f.first_seq - 1))


def _covers(replay: Replay, rounds: int) -> bool:
    """Whether the replay holds the last `rounds` finished rounds and the whole last shoe (a
    round of an earlier shoe before it); a replay from the first record covers whatever is."""
    if replay.start == 0:
        return True
    results = replay.results
    if len(results) < rounds:
        return False
    shoe = results[-1].shoe
    return shoe is None or any(r.shoe != shoe for r in results)


def _window(results: Sequence[Finished], rounds: int) -> list[Finished]:
    """The newest `rounds` finished rounds, or the last shoe's if that is more."""
    if not results:
        return []
    shoe = results[-1].shoe
    same_shoe = 0
    if shoe is not None:
        for r in reversed(results):
            if r.shoe != shoe:
                break
            same_shoe += 1
    return list(results[-max(rounds, same_shoe) :])


def _describe(
    replay: Replay, rounds: int, files: Sequence[Journal], cfg: LoadedConfig
) -> list[str]:
    lines = []
    in_files = f" in {replay.files} files" if replay.files > 1 else ""
    lines.append(
        f"replayed: records {replay.start + 1}-{replay.last}{in_files}, "
        f"{len(replay.results)} finished rounds"
    )
    window = _window(replay.results, rounds)
    if window:
        shoe = window[-1].shoe
        shoe_text = ""
        if shoe is not None:
            whole = replay.start == 0 or any(r.shoe != shoe for r in replay.results)
            shoe_text = f", the last shoe (shoe {shoe}) " + (
                "whole" if whole else "from its first round here only: it began before"
            )
        short = ""
        if len(window) < rounds and replay.start > 0:
            short = (
                f" (only {len(window)} of the {rounds} rounds asked for: the records before "
                f"{files[0].first_seq} are not here; give --archive DIR)"
            )
        elif len(window) < rounds:
            short = f" (the journal holds {len(window)} finished rounds)"
        kept = sum(1 for r in window if r.compared)
        lines.append(
            f"window: the last {len(window)} rounds (rounds {window[0].round}-{window[-1].round})"
            f"{shoe_text}{short}; the outbox still holds the result of {kept} of them"
        )
        if kept < len(window):
            lines.append(
                f"note: the messages of {len(window) - kept} of the window's rounds were dropped "
                f"from the outbox ([journal] outbox_hours = {cfg.table.journal.outbox_hours}): "
                "they are replayed but cannot be compared"
            )
    else:
        lines.append("window: no round finished in the records replayed")
    lines.append(
        f"compared: {replay.same + replay.differing} messages the outbox holds for these "
        f"records; {replay.not_stored} more the outbox no longer holds (not compared)"
    )
    for text in replay.differences:
        lines.append(f"DIFFERS: {text}")
    if replay.differing > len(replay.differences):
        lines.append(f"DIFFERS: ... and {replay.differing - len(replay.differences)} more")
    if replay.differing:
        lines.append(
            f"NOT OK: messages that differ from what the running release published for the "
            f"same records: {replay.differing}; do not switch to this release "
            "(docs/operations.md 'Upgrading a table')"
        )
    elif replay.same == 0:
        lines.append("ok: nothing differs, but nothing could be compared either")
    else:
        lines.append(f"ok: every one of {replay.same} messages compared is the same")
    return lines


def _short(topic: str, base: str) -> str:
    return topic.removeprefix(base)


def _difference(
    record: int, old: OutboxRow, now_record: int, new: OutboxRow, base: str
) -> str | None:
    """Why the message stored under `new.seq` (from `record`) is not the one this release
    makes (from `now_record`), or None when it is the same, byte for byte."""
    if (record, old.topic, old.payload, old.qos, old.retain) == (
        now_record,
        new.topic,
        new.payload,
        new.qos,
        new.retain,
    ):
        return None
    where = f"message {new.seq} ({_short(old.topic, base)}, record {record})"
    if record != now_record:
        return (
            f"{where}: this release publishes message {new.seq} for record {now_record} "
            f"({_short(new.topic, base)}): the messages are numbered differently from here on"
        )
    if old.topic != new.topic:
        return f"{where}: this release publishes it on {_short(new.topic, base)}"
    parts = []
    if old.qos != new.qos:
        parts.append(f"qos {old.qos} stored, {new.qos} now")
    if old.retain != new.retain:
        parts.append(f"retain {old.retain} stored, {new.retain} now")
    if old.payload != new.payload:
        parts.append(_payload_difference(old.payload, new.payload))
    return f"{where}: " + "; ".join(parts)


def _payload_difference(old: bytes, new: bytes) -> str:
    """The first few places two payloads differ, `path: stored X, now Y`."""
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        return "the payload differs (not JSON)"
    found: list[str] = []
    _paths(a, b, "", found)
    if not found:  # the same values written otherwise (key order, spacing)
        return "the payload's bytes differ (the same values, written otherwise)"
    more = " ..." if len(found) > 3 else ""
    return "payload " + "; ".join(found[:3]) + more


def _paths(a: Any, b: Any, at: str, found: list[str]) -> None:
    if len(found) > 3:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            where = f"{at}.{key}" if at else str(key)
            if key not in b:
                found.append(f"{where}: stored {_cut(a[key])}, now absent")
            elif key not in a:
                found.append(f"{where}: absent stored, now {_cut(b[key])}")
            else:
                _paths(a[key], b[key], where, found)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b, strict=True)):
            _paths(x, y, f"{at}[{n}]", found)
        return
    if a != b or type(a) is not type(b):
        found.append(f"{at or 'payload'}: stored {_cut(a)}, now {_cut(b)}")


def _cut(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
