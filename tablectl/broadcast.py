"""The delayed broadcast feed (issue 12 item 6): for a televised or streamed table, every accepted
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

from tablectl.journal import Record, parse_ts
from tablectl.outputs import OutboxRow

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

    def add(self, rec: Record, rows: list[OutboxRow]) -> None:
        """Queue what `rec` published on the fed topics: an input's echo becomes the input as
        journaled, every card in it, with the echo's `seq`; a result goes as published."""
        due = parse_ts(rec.ts) + self.delay
        for row in rows:
            suffix = row.topic.removeprefix(self.base + "/")
            topic = FEEDS.get(suffix)
            if topic is None:
                continue
            if suffix == "event":
                published = json.loads(row.payload)
                whole = {"table": published["table"], "seq": row.seq, **rec.body, "ts": rec.ts}
                payload = json.dumps(whole, separators=(",", ":"), ensure_ascii=False).encode()
            else:
                payload = row.payload
            heapq.heappush(self._waiting, Delayed(due, row.seq, topic, payload))

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
