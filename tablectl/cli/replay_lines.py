"""The lines `tablectl replay` prints: each message as a JSON line of its topic, payload, qos and
retain flag, the payload as the message's own bytes (not decoded and encoded again)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import TextIO

from tablectl.outputs import OutboxRow

OUTPUT_BATCH_PIECES = 3 * 2048
"""Pieces of output (three a line: about a megabyte) gathered before they are written as bytes."""


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
