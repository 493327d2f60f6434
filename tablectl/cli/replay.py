"""`tablectl replay`: a file of input events (JSON lines) through the table's engine, every
message it would publish printed as a JSON line."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from tablectl.cli.common import EXIT_OK, add_command, config_arg
from tablectl.config import load_config
from tablectl.outputs import OutboxRow
from tablectl.records import Record, replay_ts
from tablectl.table import Table, journal_body
from tablectl_base.events import json_problem


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
    for seq, line in enumerate((ln for ln in lines if ln.strip()), start=1):
        ts: str | None = None
        source, ref, chain = "replay", None, None
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
            body = journal_body(data)
        digest, key = _chain_head(chain, seq)
        yield Record(
            seq,
            replay_ts(seq) if ts is None else ts,
            source,
            ref,
            body,
            "",
            "" if digest is None else digest,
            key,
            witness=digest is not None,
        )


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
    exactly those bytes."""
    for r in rows:
        topic, qos, retain = _compact(r.topic), _compact(r.qos), _compact(r.retain)
        payload = r.payload.decode("utf-8")
        out.write(f'{{"topic":{topic},"payload":{payload},"qos":{qos},"retain":{retain}}}\n')


@functools.lru_cache(maxsize=1024, typed=True)
def _compact(value: str | int | bool) -> str:
    """json.dumps(value, separators=(",", ":"), ensure_ascii=False), remembered: a replay
    writes the same few topics, qos and retain flags on every line."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def cmd_replay(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    table = Table(cfg)
    # Undecodable bytes become U+FFFD, so such a line turns into an alert rather than a crash.
    if str(args.events) == "-":
        reconfigure = getattr(sys.stdin, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
        stream: TextIO = sys.stdin
    else:
        stream = args.events.open(encoding="utf-8", errors="replace")
    with stream:
        for rec in replay_records(iter(stream)):
            print_rows(table.apply(rec), sys.stdout)
    return EXIT_OK
