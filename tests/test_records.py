"""The journal's timestamp form (tablectl/records.py): the quick form a card's time is taken in
(`now_ts`, `utc_ts`) is the documented one (`format_ts`) for every time it can be given."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from tablectl.records import format_ts, now_ts, parse_ts, utc_ts

TS_FORM = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


@given(st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)))
def test_the_quick_timestamp_is_format_ts_to_the_microsecond(moment: datetime) -> None:
    assert utc_ts(moment) == format_ts(moment)


def test_now_is_in_the_journal_form_and_reads_back_as_utc() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    text = now_ts()
    assert TS_FORM.fullmatch(text), text
    assert before <= parse_ts(text) <= datetime.now(UTC)


def test_a_whole_second_keeps_its_six_zeros() -> None:
    assert utc_ts(datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)) == "2026-11-29T20:00:00.000000Z"
