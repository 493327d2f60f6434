"""The journal's timestamp form (tablectl/records.py): `format_ts`, quicker than strftime since
a card's time is taken on its way to the journal, still writes strftime's documented form
("%Y-%m-%dT%H:%M:%S.%fZ" in UTC) for every time it can be given."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from tablectl.records import format_ts, now_ts, parse_ts

TS_FORM = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


@given(st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=-8))])))
def test_the_timestamp_is_strftimes_form_to_the_microsecond(moment: datetime) -> None:
    expected = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert format_ts(moment) == expected


def test_now_is_in_the_journal_form_and_reads_back_as_utc() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    text = now_ts()
    assert TS_FORM.fullmatch(text), text
    assert before <= parse_ts(text) <= datetime.now(UTC)


def test_a_whole_second_keeps_its_six_zeros() -> None:
    assert format_ts(datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)) == "2026-11-29T20:00:00.000000Z"
