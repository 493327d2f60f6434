"""Reading the records' stored rows back: a body's JSON text as an object (fast for the compact
JSON the journal writes), why a row cannot be read, and a `Record` made at under half the cost
of its class's `__init__` (a replay reads every record)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tablectl.records import Record
from tablectl_base.events import json_problem

BODIES_KEPT = 1024  # flat bodies a replay remembers, parsed (`Journal.records`)

_loads = json.JSONDecoder().decode
"""json.loads(text) for a str (what SQLite gives for a TEXT column), without its per-call checks."""

_scan: Callable[[str, int], tuple[Any, int]]
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # (typeshed lacks it)
"""The decoder's scanner: (the value at an index, the index after it), or StopIteration."""


def _load_body(text: str) -> Any:
    """`_loads(text)` for a record's body: a journal holds compact JSON, which the decoder's C
    scanner reads at once; anything else (leading or trailing whitespace, not JSON) goes through
    `_loads`, so its value or its error is the same."""
    if type(text) is str:
        try:
            value, end = _scan(text, 0)
        except StopIteration:
            return _loads(text)
        if end == len(text):
            return value
    return _loads(text)


_new_record = object.__new__


def record_from_row(
    seq: int,
    ts: str,
    source: str,
    ref: str | None,
    body: dict[str, Any],
    prev_hash: str,
    hash: str,
    key: str | None,
    witness: bool,
    text: str,
) -> Record:
    """`Record(seq, ts, source, ref, body, prev_hash, hash, key, witness, text)` at under half
    its cost, for `Journal.records` (a replay reads every record): the same instance, its fields
    set directly rather than one `object.__setattr__` at a time by the frozen class's
    `__init__`."""
    rec: Record = _new_record(Record)
    rec.__dict__.update(
        seq=seq,
        ts=ts,
        source=source,
        ref=ref,
        body=body,
        prev_hash=prev_hash,
        hash=hash,
        key=key,
        witness=witness,
        text=text,
    )
    return rec


def misplaced(expect: int, found: int) -> str:
    """Why a record is not where the journal's seqs say it should be."""
    if found > expect:
        gone = f"records {expect}-{found - 1} are" if found - 1 > expect else "it is"
        return f"{gone} missing (removed): record {found} follows record {expect - 1}"
    return f"out of order: record {found} follows record {expect - 1}"


def field_problem(ts: Any, source: Any, ref: Any, body: Any) -> str | None:
    """Why a record's stored fields are not what every record holds (text, and a ref that is
    text or NULL), or None: an edited row can hold a BLOB where the journal writes text."""
    for name, value in (("ts", ts), ("source", source), ("body", body)):
        if type(value) is not str:
            return f"its {name} is {_sql_kind(value)}, not text"
    if ref is not None and type(ref) is not str:
        return f"its ref is {_sql_kind(ref)}, not text"
    return None


def read_body(text: str) -> dict[str, Any]:
    """A record's body from its stored JSON text; ValueError saying why when it is not a JSON
    object (the journal only ever writes objects: `tablectl.table.journal_body`)."""
    try:
        body = _load_body(text)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"its body is not JSON: {json_problem(exc)}") from None
    if type(body) is not dict:
        raise ValueError(f"its body is JSON but not an object ({type(body).__name__})")
    return body


def body_problem(text: str) -> str | None:
    """Why `read_body` refuses a record's body text, or None."""
    try:
        read_body(text)
    except ValueError as exc:
        return str(exc)
    return None


def _sql_kind(value: Any) -> str:
    """What SQLite stored, for a reason line."""
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return f"a BLOB of {len(value)} bytes"
    return f"a {type(value).__name__}"
