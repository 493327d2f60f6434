"""`tablectl replay`: a file of input events (JSON lines) through the table's engine, every
message it would publish printed as a JSON line."""

from __future__ import annotations

import argparse
import codecs
import functools
import gc
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO, cast

from tablectl.cli.common import EXIT_OK, add_command, config_arg
from tablectl.config import load_config
from tablectl.outputs import OutboxRow
from tablectl.records import Record, replay_ts
from tablectl.table import Table, journal_body
from tablectl_base.events import EventError, InputEvent, event_dict, json_problem, parse_event


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
    """`journal_body(data)`, and the event the table would parse from that body when it is
    certain without parsing it again: when the body equals `data` (an exported line is already
    canonical), parsing the body is parsing `data`, which gave this event. An input of plain
    fields (text and whole numbers: a wager, a bank, bets.close) is parsed once: a replay meets
    the same ones again and again, and body and event are the same for the same fields."""
    key: tuple[tuple[str, Any], ...] | None = None
    if isinstance(data, dict) and all(type(v) is str or type(v) is int for v in data.values()):
        key = tuple(data.items())
        known = parsed.get(key)
        if known is not None:
            return dict(known[0]), known[1]
    try:
        event = parse_event(data)
    except EventError:
        return journal_body(data), None
    body = event_dict(event)
    if body != data:
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


def print_rows(rows: Sequence[OutboxRow], out: TextIO) -> None:
    """Each row as a JSON line: topic, payload, qos, retain. The payload goes out as the row's
    own bytes, not decoded and encoded again: they are compact JSON written with these same
    separators and ensure_ascii=False from a dict with string keys, so the round trip gave back
    exactly those bytes. One record's lines are written at once."""
    if rows:
        out.write(rows_text(rows))


def rows_text(rows: Sequence[OutboxRow]) -> str:
    """The lines `print_rows` writes for `rows`."""
    return "".join([_framed(r) for r in rows])


def _framed(row: OutboxRow) -> str:
    """One row's line: its payload between the JSON around it (`_frame`)."""
    head, tail = _frame(row.topic, row.qos, row.retain)
    return head + row.payload.decode("utf-8") + tail


@functools.lru_cache(maxsize=1024, typed=True)
def _frame(topic: str, qos: int, retain: bool) -> tuple[str, str]:
    """The text of a line before and after its payload: json.dumps(value, separators=(",",
    ":"), ensure_ascii=False) of topic, qos and retain, remembered (a replay writes the same
    few topics, qos and retain flags on every line)."""
    return (
        f'{{"topic":{_compact(topic)},"payload":',
        f',"qos":{_compact(qos)},"retain":{_compact(retain)}}}\n',
    )


def _compact(value: str | int | bool) -> str:
    """json.dumps(value, separators=(",", ":"), ensure_ascii=False)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def lines_into(rows: Sequence[OutboxRow], out: list[bytes]) -> None:
    """The UTF-8 bytes of the lines `print_rows` writes for `rows`, appended to `out` in
    pieces (each payload as the row's own bytes, between its frame's)."""
    frames = _frames
    for row in rows:
        topic = row.topic
        frame = frames.get(topic)
        if frame is None or frame[0] != row.qos or frame[1] is not row.retain:
            head, tail = _frame(topic, row.qos, row.retain)
            if len(frames) >= FRAMES_KEPT:
                frames.clear()
            frame = frames[topic] = (row.qos, row.retain, head.encode(), tail.encode())
        out += (frame[2], row.payload, frame[3])


FRAMES_KEPT = 1024
_frames: dict[str, tuple[int, bool, bytes, bytes]] = {}
"""`_frame` as UTF-8 by topic, with the qos and retain flag it was made for (`lines_into`)."""


def cmd_replay(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    table = Table(cfg)
    # What exists now (the modules, the config, the table) lives as long as the replay: kept out
    # of the collector's reach, each full collection no longer walks it again (a replay makes and
    # drops millions of small objects, and spent a twentieth of its time collecting).
    gc.freeze()
    # Undecodable bytes become U+FFFD, so such a line turns into an alert rather than a crash.
    if str(args.events) == "-":
        reconfigure = getattr(sys.stdin, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
        stream: TextIO = sys.stdin
    else:
        stream = args.events.open(encoding="utf-8", errors="replace")
    with stream:
        records = replay_records(iter(stream))
        buffer = _utf8_buffer(sys.stdout)
        if buffer is None:
            _print_text(table, records)
        else:
            _print_bytes(table, records, buffer)
    return EXIT_OK


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


def _print_bytes(table: Table, records: Iterator[Record], buffer: BinaryIO) -> None:
    """Each record's lines as UTF-8 straight to `buffer` (the payloads are UTF-8 already: no
    decoding them to write them as text), a batch at a time: written a record at a time, a long
    replay into a pipe spends a sixth of its time in writes of the standard output's 8 KB."""
    sys.stdout.flush()  # anything written as text first goes first
    batch: list[bytes] = []
    try:
        for rec in records:
            lines_into(table.apply(rec), batch)
            if len(batch) >= OUTPUT_BATCH_PIECES:
                buffer.write(b"".join(batch))
                batch.clear()
    finally:  # what was made before anything went wrong is printed, as it always was
        buffer.write(b"".join(batch))
        buffer.flush()


def _print_text(table: Table, records: Iterator[Record]) -> None:
    """Each record's lines written as text to the standard output, a batch at a time."""
    batch: list[str] = []
    size = 0
    try:
        for rec in records:
            text = rows_text(table.apply(rec))
            batch.append(text)
            size += len(text)
            if size >= OUTPUT_BATCH:
                sys.stdout.write("".join(batch))
                batch.clear()
                size = 0
    finally:  # what was made before anything went wrong is printed, as it always was
        sys.stdout.write("".join(batch))


OUTPUT_BATCH = 1 << 20
"""Characters of output `tablectl replay` gathers before writing them as text."""
OUTPUT_BATCH_PIECES = 3 * 2048
"""Pieces of output (three a line: about a megabyte) it gathers before writing them as bytes."""
