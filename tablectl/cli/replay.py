"""`tablectl replay`: a file of input events (JSON lines) through the table's engine, every
message it would publish printed as a JSON line."""

from __future__ import annotations

import argparse
import codecs
import gc
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO, cast

from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    UnreadableInput,
    add_command,
    config_arg,
    open_text,
    positive,
)
from tablectl.cli.replay_lines import OUTPUT_BATCH_PIECES, lines_into, print_rows, rows_text
from tablectl.cli.replay_workers import (
    WorkerFailed,
    WorkersUnavailable,
    print_in_workers,
    usable_jobs,
)
from tablectl.config import LoadedConfig, load_config
from tablectl.records import Record, replay_ts
from tablectl.table import Table, journal_body, journal_input
from tablectl_base.events import InputEvent, json_problem


def add_parser(sub: Any) -> None:
    replay = add_command(
        sub,
        "replay",
        "run a JSONL event file through the engine",
        "Run a file of input events (JSON lines, e.g. from `export`) through the table's\n"
        "engine and print every MQTT message it would publish, one JSON line each.",
        [
            "tablectl replay --config table.toml events.jsonl",
            "tablectl export --config table.toml | tablectl replay --config table.toml -",
        ],
    )
    config_arg(replay)
    replay.add_argument("events", type=Path, help="JSON lines; '-' reads standard input")
    replay.add_argument(
        "--surveillance",
        action="store_true",
        help="print the surveillance feed's messages (surveillance/odds and surveillance/alert, "
        "docs/surveillance.md) instead of the table's: the same bytes the daemon published",
    )
    replay.add_argument(
        "--jobs",
        type=positive,
        metavar="N",
        help="worker processes that render the messages, each every N-th block of records and "
        "only advancing through the others (the same bytes, in order); 1 renders in this "
        "process. Default: 2 when two CPUs or more may be used, else 1; always 1 for what is not "
        "a regular file (standard input, a pipe) and for --surveillance. On a machine whose "
        "other CPUs are busy (beside a live table on a small PC), 1 is faster and leaves them "
        "be",
    )
    replay.set_defaults(func=cmd_replay)


def replay_records(lines: Iterator[str]) -> Iterator[Record]:
    """JSON lines as journal records, the way the daemon would have journaled them."""
    parsed: dict[tuple[tuple[str, Any], ...], tuple[dict[str, Any], InputEvent]] = {}
    for seq, line in enumerate((ln for ln in lines if ln.strip()), start=1):
        ts: str | None = None
        source, ref, chain = "replay", None, None
        event: InputEvent | None = None
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            body = journal_body(line.rstrip("\n"), f"not JSON: {exc.msg} at column {exc.colno}")
        except RecursionError:
            body = journal_body(line[:512], "not JSON: nested too deeply")
        except ValueError as exc:  # an integer of more digits than Python converts (4300)
            body = journal_body(line[:512], f"not JSON: {json_problem(exc)}")
        else:
            if isinstance(data, dict):
                given = data.pop("ts", None)
                ts = str(given) if given else None
                source = str(data.pop("source", source))
                raw_ref = data.pop("ref", None)
                ref = None if raw_ref is None else str(raw_ref)
                chain = data.pop("chain", None)
            body, event = _journaled(data, parsed)
        digest, key = _chain_head(chain, seq)
        rec: Record = _new_record(Record)  # Record(...) at under half its cost, as rows.py does
        rec.__dict__.update(
            seq=seq,
            ts=replay_ts(seq) if ts is None else ts,
            source=source,
            ref=ref,
            body=body,
            prev_hash="",
            hash="" if digest is None else digest,
            key=key,
            witness=digest is not None,
            text=None,
            event=event,
        )
        yield rec


_new_record = object.__new__


PARSED_KEPT = 1024
"""Inputs of plain fields remembered with their journaled body and event (`_journaled`)."""


def _journaled(
    data: Any, parsed: dict[tuple[tuple[str, Any], ...], tuple[dict[str, Any], InputEvent]]
) -> tuple[dict[str, Any], InputEvent | None]:
    """`journal_input(data)`, an input of plain fields (text and whole numbers: a wager, a
    bank, bets.close) parsed once: a replay meets the same ones again and again, and body and
    event are the same for the same fields."""
    key: tuple[tuple[str, Any], ...] | None = None
    if isinstance(data, dict) and all(type(v) is str or type(v) is int for v in data.values()):
        key = tuple(data.items())
        known = parsed.get(key)
        if known is not None:
            return dict(known[0]), known[1]
    body, event = journal_input(data)
    if event is None:
        return body, None
    if key is not None:
        if len(parsed) >= PARSED_KEPT:
            parsed.clear()
        parsed[key] = (dict(body), event)
    return body, event


def _chain_head(chain: Any, seq: int) -> tuple[str | None, str | None]:
    """An exported record's chain head (hash, key id) carried through, so that replay publishes
    the same witness the daemon did; a line without one, with one for another seq, or with one
    the table never published (`"published": false`) publishes none (None, None)."""
    if not isinstance(chain, dict) or chain.get("seq") != seq or chain.get("published") is False:
        return None, None
    digest, key = chain.get("hash"), chain.get("key")
    if not isinstance(digest, str) or not (key is None or isinstance(key, str)):
        return None, None
    return digest, key


def cmd_replay(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    table = Table(cfg)
    # What exists now (the modules, the config, the table) lives as long as the replay: kept out
    # of the collector's reach, each full collection no longer walks it again (a replay makes and
    # drops millions of small objects, and spent a twentieth of its time collecting). Little of
    # what it makes is a cycle: the collector runs a fifth as often (3% of a replay's time).
    # (Put back as they were after: a test runs the command in its own process.)
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        return _replay(args, cfg, table)
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _replay(args: argparse.Namespace, cfg: LoadedConfig, table: Table) -> int:
    """`cmd_replay` once the table is built: the events read and the messages printed."""
    # Undecodable bytes become U+FFFD, so such a line turns into an alert rather than a crash.
    with open_text(args.events, "the events file") as stream:
        first = stream.readline()
        if first.startswith(SQLITE_HEADER):
            raise UnreadableInput(
                f"{args.events} is an SQLite file (a journal?), not JSON lines: replay reads "
                "what `tablectl export` writes"
            )
        records = replay_records(itertools.chain([first], stream))
        if args.surveillance:
            from tablectl.cli.replay_surveillance import replay_surveillance

            replay_surveillance(cfg, table, records, rows_text)
            return EXIT_OK
        buffer = _utf8_buffer(sys.stdout)
        write: Callable[[bytes], object] = (
            # the lines written as text, in the standard output's own encoding
            (lambda data: sys.stdout.write(data.decode("utf-8")))
            if buffer is None
            else buffer.write
        )
        jobs = usable_jobs(args.jobs, args.events)
        try:
            if jobs > 1:
                print_in_workers(table, stream, replay_records, jobs, write)
            else:
                _print_lines(table, records, write)
        except WorkersUnavailable as exc:  # before any line: the same lines from this process
            print(f"tablectl: replay in one process: {exc}", file=sys.stderr)
            _print_lines(table, records, write)
        except WorkerFailed as exc:  # the lines before it are printed, as one process does
            if buffer is not None:
                buffer.flush()
            print(f"tablectl: replay stopped: {exc}", file=sys.stderr)
            return EXIT_FAIL
        if buffer is not None:
            buffer.flush()
    return EXIT_OK


SQLITE_HEADER = "SQLite format 3\x00"
"""How every SQLite database file begins (a journal given where its export was meant)."""


def _utf8_buffer(out: TextIO) -> BinaryIO | None:
    """The bytes under `out` when writing UTF-8 there is what writing text to `out` would do
    (its encoding UTF-8, "\n" written as it is); None otherwise (then text is written)."""
    buffer = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if buffer is None or encoding is None or os.linesep != "\n":
        return None
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return None
    return cast(BinaryIO, buffer) if utf8 else None


def _print_lines(table: Table, records: Iterator[Record], write: Callable[[bytes], object]) -> None:
    """Each record's lines as UTF-8 (the payloads are UTF-8 already: no decoding them to write
    them), handed to `write` a batch of whole lines at a time: written a record at a time, a
    long replay into a pipe spends a sixth of its time in writes of the standard output's 8 KB."""
    sys.stdout.flush()  # anything written as text first goes first
    batch: list[bytes] = []
    try:
        for rec in records:
            lines_into(table.apply(rec), batch)
            if len(batch) >= OUTPUT_BATCH_PIECES:
                write(b"".join(batch))
                batch.clear()
    finally:  # what was made before anything went wrong is printed, as it always was
        write(b"".join(batch))


__all__ = ["lines_into", "print_rows", "replay_records", "rows_text"]
