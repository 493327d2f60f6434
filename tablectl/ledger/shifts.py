"""A named shift on a date, in the room's clock, as the UTC hours a report covers."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from tablectl.ledger.report import Shift


def shift_on(name: str, day: date, shifts: dict[str, str], zone: str) -> Shift:
    """Shift `name` starting on `day`: from its start to the next shift's start (the next day's
    first for the last one), in `zone`'s clock (a change to or from daylight time makes that
    night's shift an hour shorter or longer, as the clock on the wall says). ValueError naming
    the shifts known for an unknown name."""
    if name not in shifts:
        raise ValueError(f"no shift {name!r}; the config names {', '.join(sorted(shifts))}")
    starts = sorted((time.fromisoformat(t), n) for n, t in shifts.items())
    i = next(k for k, (_, n) in enumerate(starts) if n == name)
    tz = ZoneInfo(zone)
    begin = datetime.combine(day, starts[i][0], tz)
    if i + 1 < len(starts):
        end = datetime.combine(day, starts[i + 1][0], tz)
    else:
        end = datetime.combine(day + timedelta(days=1), starts[0][0], tz)
    label = f"{name} {day.isoformat()} ({zone})"
    return Shift(label, begin.astimezone(UTC), end.astimezone(UTC))


def hours(start: str, end: str) -> Shift:
    """The hours from `start` to `end` (ISO 8601 with an offset, or UTC when none)."""
    a, b = _utc(start), _utc(end)
    if b <= a:
        raise ValueError(f"--to {end} is not after --from {start}")
    return Shift(f"{a.isoformat()} to {b.isoformat()}", a, b)


def _utc(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a time (2026-11-29T06:00-08:00)") from None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
