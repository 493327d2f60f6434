"""An export's lines read back and proved against the public chain, for `tablectl import`.

`tablectl export` writes each journal record as one JSON line: the record's body, its `ts`,
`source` and `ref`, and its chain head `{"seq", "hash", "key"}` (`Record.jsonl`). A restore must
never launder an edited history, so every line is checked whatever the line
numbers say: its `chain.seq` must be its place among the records, and its `chain.hash` the
SHA-256 of its own contents after the hash of the line before it. A line deleted, inserted,
moved or edited anywhere refuses the whole import, naming the first line that shows it.

What this proves: the export is the chain it claims to be, record after record. What it cannot
prove alone: that the chain is the one the old table wrote (whoever edits an export can
recompute every later hash). That is what the old table's published heads are for:
`tablectl import --against heads.jsonl`, or `verify-journal --against` afterwards
(docs/operations.md, "What each check proves").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tablectl.journal.chain import GENESIS, record_bytes
from tablectl.records import Record

_HEX64 = re.compile(r"[0-9a-f]{64}")
EXPORT_FIELDS = ("ts", "source", "ref", "chain")
"""The keys an export line adds to a record's body (a journaled body never carries them)."""


def export_line(rec: Record) -> str:
    """A journal record as its export line: the contract-2 event line (`Record.jsonl`) with its
    chain head always, marked `"published": false` where the table did not publish it (records
    from before heads): `replay` publishes no head for those, `import` proves them all the same."""
    out: dict[str, Any] = dict(rec.body)
    out["ts"] = rec.ts
    out["source"] = rec.source
    if rec.ref is not None:
        out["ref"] = rec.ref
    out["chain"] = rec.chain if rec.witness else {**rec.chain, "published": False}
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


class ExportError(Exception):
    """An export that cannot be restored: the first line that is not what the chain says."""


@dataclass(frozen=True)
class ExportLine:
    """One record of an export, proved: `seq` its place among the records, `hash` the chain
    hash its contents give (equal to the one the line claims), `key` the chain key the old
    table had in force for it (as the line says), `published` whether the old table published
    its head (a record from before heads were published says `"published": false`)."""

    line: int
    seq: int
    ts: str
    source: str
    ref: str | None
    body: dict[str, Any]
    hash: str
    key: str | None
    published: bool


def _parse(line: int, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ExportError(
            f"line {line}: not JSON ({exc}): not a line tablectl export wrote"
        ) from None
    if not isinstance(data, dict):
        raise ExportError(f"line {line}: not a JSON object: not a line tablectl export wrote")
    return data


def _text_field(line: int, data: dict[str, Any], name: str, *, optional: bool = False) -> Any:
    value = data.pop(name, None)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ExportError(f"line {line}: `{name}` must be text, it is {value!r}")
    return value


def _claim(line: int, chain: Any) -> tuple[int, str, str | None, bool] | None:
    """The chain head a line claims (seq, hash, key, published); None when it carries none."""
    if chain is None:
        return None
    if not isinstance(chain, dict):
        raise ExportError(f"line {line}: `chain` must be an object, it is {chain!r}")
    seq, digest, key = chain.get("seq"), chain.get("hash"), chain.get("key")
    published = chain.get("published", True)
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise ExportError(f"line {line}: `chain.seq` must be a record number, it is {seq!r}")
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise ExportError(f"line {line}: `chain.hash` must be 64 hex digits")
    if key is not None and not isinstance(key, str):
        raise ExportError(f"line {line}: `chain.key` must be a key id or null")
    if not isinstance(published, bool):
        raise ExportError(f"line {line}: `chain.published` must be true or false")
    return seq, digest, key, published


def verified_lines(lines: Iterable[str]) -> Iterator[ExportLine]:
    """Each record of an export, in order, once the chain proves it; ExportError at the first
    line that breaks it. Blank lines are skipped (and counted in line numbers).

    A line without a chain head is taken only before the first line with one (an export
    written before every line carried its head): the first head after them proves them all,
    since each hash covers the one before. Nothing after a line with a head may lack one, and
    the last line must carry one, or part of the export would go unproved."""
    prev, seq, headed, published_from = GENESIS, 0, False, 0
    unproved: list[int] = []  # lines read without a head, waiting for the next head to prove
    for line, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        data = _parse(line, raw)
        claim = _claim(line, data.pop("chain", None))
        if claim is None and headed:  # said first: such a line often lacks more (`ts`...)
            raise ExportError(
                f"line {line}: carries no chain head, after lines that do: a line inserted "
                "(every line tablectl export writes carries one)"
            )
        ts = _text_field(line, data, "ts")
        source = _text_field(line, data, "source")
        ref = _text_field(line, data, "ref", optional=True)
        seq += 1
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(record_bytes(prev, seq, ts, source, ref, text)).hexdigest()
        if claim is None:
            unproved.append(line)
            yield ExportLine(line, seq, ts, source, ref, data, digest, None, False)
            prev = digest
            continue
        claimed_seq, claimed, key, published = claim
        if claimed_seq != seq:
            raise ExportError(
                f"line {line}: says it is record {claimed_seq}, but it is record {seq} of the "
                f"export: {_moved(claimed_seq, seq)}"
            )
        if claimed != digest:
            what = (
                f"lines {unproved[0]}-{line} (no heads before it) were"
                if unproved
                else f"line {line} was"
            )
            raise ExportError(
                f"line {line} (record {seq}): its contents and the record before it give chain "
                f"hash {digest[:16]}..., the line says {claimed[:16]}...: {what} altered"
            )
        if published and not published_from:
            published_from = seq
        elif published_from and not published:
            # `published` is not covered by the hash: it may only turn true once, where the old
            # table began publishing heads (it says how many messages a replay counts).
            raise ExportError(
                f"line {line} (record {seq}): says its head was not published, after record "
                f"{published_from}'s was: the export was altered"
            )
        unproved.clear()
        headed = True
        yield ExportLine(line, seq, ts, source, ref, data, digest, key, published)
        prev = digest
    if unproved:
        raise ExportError(
            f"lines {unproved[0]}-{unproved[-1]} carry no chain head and no line after them "
            "does: they cannot be proved (export the journal again with this version)"
        )


def _moved(claimed: int, position: int) -> str:
    if claimed > position:
        return f"{claimed - position} line(s) before it were deleted"
    return "a line was inserted before it, or lines were moved"
