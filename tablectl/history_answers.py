"""`cmd/history`: the ledger asks a table again for messages it missed, by number, and the table
answers from its outbox on `<base>/history`, each message with the very bytes it published
(docs/mqtt.md "cmd/history").

Read-only and outside the journal: a request changes nothing at the table and takes no `seq`,
so asking never moves the numbers the ledger is counting. An answer carries at most
MAX_HISTORY messages, all in one MQTT message (a burst of small ones could overflow the queue
of messages published from memory). A number the outbox no longer holds (sent, and older than
`[journal] outbox_hours`) is listed as `pruned`: the ledger loads such rounds from the table's
export (`tablectl export`), which holds every record."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from tablectl.outputs import PAYLOAD_VERSION, OutboxRow

HISTORY_VERB = "history"
"""`<base>/cmd/history`: the request (only the ledger role may publish it)."""
HISTORY_TOPIC = "history"
"""`<base>/history`: the answers (only the ledger role may read them)."""
MAX_HISTORY = 200
"""Messages an answer carries at most: some 120 KB of a banked game's messages."""
MAX_REQUEST_BYTES = 1024


class HistoryRequestError(ValueError):
    """A request the table cannot answer with messages; `ref` is its id when it had one."""

    def __init__(self, reason: str, ref: str | None) -> None:
        super().__init__(reason)
        self.ref = ref


@dataclass(frozen=True, slots=True)
class HistoryRequest:
    """Messages `first` to `last` (both included), asked under the id `ref`."""

    ref: str
    first: int
    last: int


def read_request(payload: bytes) -> HistoryRequest:
    """`{"id": "...", "from": N, "to": M}`; HistoryRequestError naming what is wrong."""
    if len(payload) > MAX_REQUEST_BYTES:
        raise HistoryRequestError(f"a request is at most {MAX_REQUEST_BYTES} bytes", None)
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise HistoryRequestError("the request is not JSON", None) from None
    if not isinstance(data, dict):
        raise HistoryRequestError("the request is not a JSON object", None)
    ref = data.get("id")
    if not isinstance(ref, str) or not 1 <= len(ref) <= 128:
        raise HistoryRequestError("id must be text of 1 to 128 characters", None)
    first, last = data.get("from"), data.get("to")
    if type(first) is not int or type(last) is not int or not 1 <= first <= last:
        raise HistoryRequestError("from and to must be whole numbers, 1 <= from <= to", ref)
    if last - first + 1 > MAX_HISTORY:
        raise HistoryRequestError(f"at most {MAX_HISTORY} messages a request", ref)
    unknown = sorted(set(data) - {"id", "from", "to"})
    if unknown:
        raise HistoryRequestError(f"unknown keys: {', '.join(unknown)}", ref)
    return HistoryRequest(ref, first, last)


def answer_payload(
    table: str,
    ts: str,
    base: str,
    req: HistoryRequest,
    rows: Sequence[OutboxRow],
    highest: int,
    held_from: int | None,
) -> bytes:
    """The answer: each row the outbox held in the range, its payload spliced in as the bytes
    it was published with; `pruned` the numbers up to `highest` (the last message the outbox
    stored) it no longer holds, as [lo, hi] spans, and then `held_from`, from which on it holds
    every message (so a ledger asks for nothing older again); numbers above `highest` are not
    yet stored."""
    prefix = base + "/"
    held = {r.seq for r in rows}
    pruned: list[list[int]] = []
    for n in range(req.first, min(req.last, highest) + 1):
        if n in held:
            continue
        if pruned and pruned[-1][1] == n - 1:
            pruned[-1][1] = n
        else:
            pruned.append([n, n])
    head = _compact({"table": table, "ts": ts, "v": PAYLOAD_VERSION, "id": req.ref, "ok": True})[
        :-1
    ]
    parts = [
        _compact({"seq": r.seq, "topic": r.topic.removeprefix(prefix), "retain": r.retain})[:-1]
        + ',"payload":'
        + r.payload.decode("utf-8")
        + "}"
        for r in sorted(rows, key=lambda r: r.seq)
    ]
    tail = _compact(
        {
            "from": req.first,
            "to": req.last,
            "highest": highest,
            "pruned": pruned,
            "held_from": held_from if pruned else None,
        }
    )
    return (head + ',"messages":[' + ",".join(parts) + "]," + tail[1:]).encode("utf-8")


def refusal_payload(table: str, ts: str, ref: str | None, reason: str) -> bytes:
    """A request refused, with why."""
    fields = {"table": table, "ts": ts, "v": PAYLOAD_VERSION, "id": ref, "ok": False}
    return _compact({**fields, "reason": reason}).encode("utf-8")


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
