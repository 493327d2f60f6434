"""The relay's messages from memory (`Notice`): kept while there is no connection, the newest
retained one of each topic published again after every connect, the heartbeat's ``online``
among them. Not outbox rows: no ``seq``, nothing marks them sent, best effort."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Any

from paho.mqtt.reasoncodes import ReasonCode

from tablectl.relay.client import AckedClient, reason_text

MAX_NOTICES = 100
"""Notices kept for the next connection while there is none; beyond that the oldest are dropped."""


@dataclass(frozen=True)
class Notice:
    """A message from memory (`Relay.notice`): not in the outbox, no ``seq``."""

    topic: str
    payload: bytes
    retain: bool


NoticesFlying = dict[asyncio.Future[ReasonCode | None], Notice]
"""The notices handed to paho on the current connection, by the broker's answer to each
(`AckedClient.start_publish`)."""


class Notices:
    """The notices waiting for a connection (`waiting`, oldest first), the latest retained one of
    each topic (`retained`), and the heartbeat: `beat`, queued every `heartbeat` seconds while
    connected (None: off), `beats` counting those handed on (for a test and the log)."""

    def __init__(self, beat: Notice, heartbeat: float | None, log: Any) -> None:
        self.waiting: deque[Notice] = deque(maxlen=MAX_NOTICES)  # not yet handed to a client
        self.retained: dict[str, Notice] = {}  # topic -> the latest retained notice
        self.beat = beat
        self.heartbeat = heartbeat
        self.beats = 0
        self._log = log

    def add(self, note: Notice) -> None:
        """Queue `note` (and keep it as its topic's latest when it is retained)."""
        if note.retain:
            self.retained[note.topic] = note
        self.waiting.append(note)

    def requeue_after_connect(self) -> None:
        """On a new connection: the latest retained notices again (each topic's newest), then the
        others waiting."""
        waiting_notices = [n for n in self.waiting if not n.retain]
        self.waiting.clear()
        self.waiting.extend([*self.retained.values(), *waiting_notices])

    def beat_if_due(self, beat_at: float | None, notes: NoticesFlying, now: float) -> float | None:
        """Queue the heartbeat's ``online`` (from memory: no outbox row, no seq) when it is due
        at `now`, unless the last one still waits to go or for its PUBACK; returns when the
        next is due (None: no heartbeat). Queued ahead of the outbox rows like every notice."""
        if beat_at is None or self.heartbeat is None or now < beat_at:
            return beat_at
        waiting = self.beat in self.waiting or self.beat in notes.values()
        if not waiting:
            self.waiting.append(self.beat)
            self.beats += 1
        return now + self.heartbeat

    def issue(
        self, client: AckedClient, notes: NoticesFlying, rows_flying: int, window: int
    ) -> None:
        """Hand the waiting notices to paho, oldest first, before any outbox row of this turn,
        as many as the `window` has room for beside the `rows_flying` (the others next turn)."""
        while self.waiting and len(notes) + rows_flying < window:
            note = self.waiting.popleft()
            answer = client.start_publish(note.topic, note.payload, qos=1, retain=note.retain)
            notes[answer] = note

    def settle(self, notes: NoticesFlying) -> None:
        """Forget acknowledged notices; a failed one fails the connection, like a failed row
        (a retained notice is published again on the next; another is lost). One the broker
        refused is logged and dropped: a notice is best effort, and its retained kind is
        published again after the next connect anyway."""
        for task in [t for t in notes if t.done()]:
            note = notes.pop(task)
            if task.cancelled():
                continue
            if (exc := task.exception()) is not None:
                self._log.warning("relay.notice_failed", topic=note.topic, retain=note.retain)
                raise exc
            code = task.result()
            if code is not None and code.is_failure:
                self._log.warning(
                    "relay.notice_refused",
                    topic=note.topic,
                    retain=note.retain,
                    reason=reason_text(code),
                )

    @staticmethod
    def drop(notes: NoticesFlying) -> None:
        """The connection ends: what was not acknowledged is not sent again (`Relay.notice`)."""
        for task in notes:
            if not task.done():
                task.cancel()
            elif not task.cancelled():
                task.exception()  # retrieved (unreported): the connection ends anyway
