"""The delayed broadcast feed: for a televised or streamed table, every accepted
input with its cards (hole cards included) and every result, published `delay` seconds after the
table journaled them, on `<base>/broadcast/...`, which only the broadcast role may read
(tablectl/broker.py). Off unless the config sets `[broadcast] delay_seconds`.

Pure: the daemon adds each journaled record with its outputs and asks what is due at a time it
gives (tests give the time; nothing here sleeps). Best effort, like every message published from
memory: a restart drops what was still waiting; the journal and `tablectl recall` keep every card.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tablectl.outputs import OutboxRow
from tablectl.records import Record, parse_ts

FEEDS = {"event": "broadcast/event", "round/result": "broadcast/round/result"}
"""What the feed carries (the live topic -> its delayed topic, below the table's base)."""


@dataclass(order=True, frozen=True)
class Delayed:
    """One message waiting for its time: when, in the order the table published it."""

    due: datetime
    seq: int
    topic: str = field(compare=False)  # below the table's base
    payload: bytes = field(compare=False)


class DelayedFeed:
    """The messages waiting for their time, soonest first."""

    def __init__(self, delay_seconds: int, base_topic: str) -> None:
        if delay_seconds <= 0:
            raise ValueError("a delayed feed needs a delay of at least one second")
        self.delay = timedelta(seconds=delay_seconds)
        self.base = base_topic
        self._waiting: list[Delayed] = []
        self._last_due: datetime | None = None  # never sooner than what was queued before

    def add(self, rec: Record, rows: list[OutboxRow], whole: list[dict[str, Any]]) -> None:
        """Queue what `rec` published on the fed topics. `whole` are the echoes of the inputs
        the table played with it (`Table.take_unhidden`: every field, hole cards too; a held
        input played now is one of them, not `rec`), each sent in place of its published echo,
        due the delay after the input was journaled; the rest go as published."""
        by_seq = {echo["seq"]: echo for echo in whole}
        for row in rows:
            suffix = row.topic.removeprefix(self.base + "/")
            topic = FEEDS.get(suffix)
            if topic is None:
                continue
            payload, ts = row.payload, rec.ts
            echo = by_seq.get(row.seq) if suffix == "event" else None
            if echo is not None:
                payload = json.dumps(echo, separators=(",", ":"), ensure_ascii=False).encode()
                ts = str(echo.get("ts", ts))
            due = self._due(ts, rec.ts)
            heapq.heappush(self._waiting, Delayed(due, row.seq, topic, payload))

    def _due(self, ts: str, fallback: str) -> datetime:
        """The delay after `ts` (after the record's own time if `ts` is not a time), and never
        before a message queued earlier: the feed keeps the table's order."""
        try:
            due = parse_ts(ts) + self.delay
        except ValueError:
            due = parse_ts(fallback) + self.delay
        if self._last_due is not None and due < self._last_due:
            due = self._last_due
        self._last_due = due
        return due

    def due(self, now: datetime) -> list[Delayed]:
        """Everything whose time has come by `now`, in the order the table published it."""
        out: list[Delayed] = []
        while self._waiting and self._waiting[0].due <= now:
            out.append(heapq.heappop(self._waiting))
        return out

    def next_due(self) -> datetime | None:
        """When the soonest message is due (None: nothing waits)."""
        return self._waiting[0].due if self._waiting else None

    def __len__(self) -> int:
        return len(self._waiting)
