"""Commands: the request ids the table remembers to refuse a command handled twice (R54), and the
replies it sends on `cmd/<verb>/reply`."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from tablectl.records import REPLAY_EPOCH, Record, parse_ts
from tablectl.table_messages import CommandReply, Message

COMMAND_ID_WINDOW = timedelta(hours=24)
"""How long a command's (verb, id) is remembered, in the journal's record times: a command
again with the same (verb, id) within it is refused as a duplicate (R54). It outlasts every way
a command can reach the table twice: a sender's retry with the same id, a QoS 1 resend after a
reconnect, a broker or bridge queue kept across a restart (docs/mqtt.md "Duplicate ids")."""
MICROSECOND = timedelta(microseconds=1)
WINDOW_MICROS = COMMAND_ID_WINDOW // MICROSECOND


class CommandIds:
    """The (verb/id) of every command the table has handled, each with its record's time, in
    journal order: a command whose (verb, id) is here is refused as a duplicate (R54).

    An id is forgotten once a command record at least COMMAND_ID_WINDOW later (by the records'
    own times) is checked against it, never earlier: only records move this clock, so an idle
    table forgets nothing, a replay forgets exactly what the live table forgot, and the memory
    is a function of the journal alone. Ids are forgotten oldest first in journal order, so
    after the clock stepped back an older id waits behind a newer one with a later time: a
    step back only makes ids remembered longer. An id whose record's time cannot be read (a
    replayed line's own text) takes the time of the id before it (1970 when there is none).

    Times are whole microseconds since 1970 (UTC), exact at the window's edge. A dict by id
    beside the order, so a lookup does not scan a day of ids per command."""

    def __init__(self, items: Iterable[tuple[str, int]] = ()) -> None:
        self._times: dict[str, int] = {}
        self._order: deque[str] = deque()
        self._read: tuple[str, int | None] = ("", None)  # the last record time read, as read
        for key, when in items:
            self._times[key] = when
            self._order.append(key)

    def __contains__(self, key: object) -> bool:
        return key in self._times

    def __iter__(self) -> Iterator[tuple[str, int]]:
        """(id, time) oldest first: what a snapshot keeps."""
        times = self._times
        return ((key, times[key]) for key in self._order)

    def __len__(self) -> int:
        return len(self._order)

    def known(self, key: str, ts: str) -> bool:
        """Whether `key` is remembered at a command record of time `ts`, after forgetting what
        that record's time puts outside the window."""
        now = self._micros(ts)
        if now is not None:
            cutoff = now - WINDOW_MICROS
            order, times = self._order, self._times
            while order and times[order[0]] <= cutoff:
                del times[order.popleft()]
        return key in self._times

    def add(self, key: str, ts: str) -> None:
        """Remember `key` (not already known, `known` asked just before) from a record of time
        `ts`."""
        when = self._micros(ts)
        if when is None:
            when = self._times[self._order[-1]] if self._order else 0
        self._times[key] = when
        self._order.append(key)

    def _micros(self, ts: str) -> int | None:
        """A record time in microseconds since 1970, None if it is not a time; the last one read
        is kept (`known` and `add` read the same record's time in turn)."""
        text, micros = self._read
        if ts is text:
            return micros
        try:
            micros = (parse_ts(ts) - REPLAY_EPOCH) // MICROSECOND
        except ValueError:
            micros = None
        self._read = (ts, micros)
        return micros


def is_retained_refusal(rec: Record) -> bool:
    """Whether `rec` is a command refused because it came with the retain flag (R54): its id is
    neither checked nor remembered (it was not handled; what to do is clear it at the broker)."""
    body: Any = rec.body  # (an edited journal's body may be any JSON value)
    return (
        isinstance(body, dict)
        and body.get("retained") is True
        and body.get("type") == "input.invalid"
    )


COUNTED_REPLY = CommandReply("", None, True)
"""The stand-in for a command's ok reply that `advance` counts and never sends."""


def maybe_reply(
    verb: str | None, ref: str | None, ok: bool, reason: str | None, rule: str | None = None
) -> list[Message]:
    """The reply to a record that is a command (`verb`: its source's); none to any other."""
    return [] if verb is None else [CommandReply(verb, ref, ok, reason, rule)]
