"""Record times the table writes: now, and the stand-in time of a replayed line that has none."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tablectl.journal import format_ts

REPLAY_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now_ts() -> str:
    """Now, in the journal's timestamp form (journal.format_ts)."""
    return format_ts(datetime.now(UTC))


def replay_ts(seq: int) -> str:
    """Timestamp of a replayed event that has none: a fixed epoch plus its sequence number."""
    return format_ts(REPLAY_EPOCH + timedelta(seconds=seq))
