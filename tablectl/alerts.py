"""Alerts a person must act on: which stay open until someone acknowledges
them, and the table's pace against the band the rules set.

Pure data, derived from the journal alone: an alert is opened by the record whose messages
carry it, closed by a journaled `alert.ack`, and the pace is measured on the records' own
times, so a replay, a snapshot and the live table always agree on what is open
(docs/mqtt.md "alerts/open").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tablectl_base.frozen import quick_init

NEEDS_A_PERSON: frozenset[str] = frozenset(
    {
        "device-fault",  # a device offline or faulted: someone reseats, replaces, restarts it
        "round-held",  # play waits for a person: resume or void (R39, R40)
        "dealer-error",  # R15: the dealer did something the rules do not allow
        "engine-error",  # R40: an input the code could not apply
        "pace",  # rounds an hour outside the band the rules set
        "journal-trouble",  # the journal could not be written for a while (journaled after)
        "retained-command",  # R54: a command retained at the broker, until someone clears it
    }
)
"""The alert kinds that stay open until acknowledged. The others (a refused wager, a card read
twice, a gap filled) report something already handled."""

OPENED_ONCE: frozenset[str] = frozenset({"retained-command"})
"""Kinds whose alert does not open again while one of the same kind and reason is open: the
broker delivers a retained command again on every (re)subscribe, and each delivery is refused
and told, but one open alert is what a person has to act on (R54)."""

OPEN_KEPT = 50
"""Open alerts listed at most; older ones unacknowledged beyond it are counted (`overflow`), so
a table nobody watches does not grow its retained payload for years."""

HOUR = timedelta(hours=1)


def _moment(ts: str) -> datetime | None:
    """A record's time (ISO-8601; UTC when it names no zone), None if it is not one (a replayed
    line may carry any text: its round is then not timed)."""
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@quick_init
@dataclass(frozen=True)
class OpenAlert:
    """One alert waiting for a person: `id` is the `seq` of the alert message itself."""

    id: int
    kind: str
    reason: str
    since: str  # the journal time of the record that raised it

    def payload(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "reason": self.reason, "since": self.since}


@quick_init
@dataclass(frozen=True)
class OpenAlerts:
    """The open alerts, oldest first, and how many older ones fell off the list unacknowledged."""

    items: tuple[OpenAlert, ...] = ()
    overflow: int = 0

    def opened(self, alert: OpenAlert) -> OpenAlerts:
        items = (*self.items, alert)
        if len(items) <= OPEN_KEPT:
            return OpenAlerts(items, self.overflow)
        return OpenAlerts(items[1:], self.overflow + 1)

    def holds(self, kind: str, reason: str) -> bool:
        """Whether an alert of `kind` with this `reason` is open."""
        return any(a.kind == kind and a.reason == reason for a in self.items)

    def find(self, alert_id: int) -> OpenAlert | None:
        return next((a for a in self.items if a.id == alert_id), None)

    def acknowledged(self, alert_id: int) -> OpenAlerts:
        return OpenAlerts(tuple(a for a in self.items if a.id != alert_id), self.overflow)

    def payload(self) -> dict[str, Any]:
        """`alerts/open`: every open alert, oldest first."""
        return {"open": [a.payload() for a in self.items], "overflow": self.overflow}


@quick_init
@dataclass(frozen=True)
class Pace:
    """Rounds finished in the last hour (their record times), since when the table has dealt
    without an hour's pause, and which side of the band it was last found on."""

    recent: tuple[str, ...] = ()
    session_start: str | None = None
    status: str = "ok"  # "ok", "slow" or "fast"

    def after_round(
        self, ts: str, low: int | None, high: int | None
    ) -> tuple[Pace, dict[str, Any] | None]:
        """The pace after a round finished at `ts`, and the alert's fields if the table has
        just gone outside [low, high] rounds an hour (once per excursion). Slow is judged only
        once the table has dealt for an hour without an hour's pause (a table opening, or
        reopening after a break, is not slow)."""
        now = _moment(ts)
        if now is None:
            return self, None
        recent = tuple(t for t in self.recent if now - _when(t) < HOUR)
        start = self.session_start if recent and self.session_start is not None else ts
        recent = (*recent, ts)
        count = len(recent)
        status = "ok"
        if high is not None and count > high:
            status = "fast"
        elif low is not None and count < low and now - _when(start) >= HOUR:
            status = "slow"
        kept = recent[-(high + 1) :] if high is not None and count > high + 1 else recent
        new = Pace(kept, start, status)
        if status == "ok" or status == self.status:
            return new, None
        band = f"{low if low is not None else 0}-{high if high is not None else 'any'}"
        word = "fast" if status == "fast" else "slow"
        return new, {
            "kind": "pace",
            "reason": f"the table is playing {word}: {count} rounds in the last hour, "
            f"outside the band of {band} rounds an hour",
            "pace": status,
            "rounds_last_hour": count,
            "band": {"min": low, "max": high},
        }


def _when(ts: str) -> datetime:
    """A time `Pace` kept (it keeps only times `_moment` read)."""
    moment = _moment(ts)
    assert moment is not None
    return moment
