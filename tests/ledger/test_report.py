"""A shift report's figures from hand-made messages (tablectl/ledger/report.py), its written
forms (report_formats.py) and the shifts' hours (shifts.py)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from tablectl.ledger.report import CollectionKey, Shift, ShiftReport, TableReport
from tablectl.ledger.report_formats import digest, to_csv, to_html
from tablectl.ledger.shifts import hours, shift_on

TS = "2026-11-29T15:00:00+00:00"


def result(rnd: int, bank: tuple[int, int, str, str], **extra: object) -> dict[str, object]:
    seat, turn, start, end = bank
    return {
        "round": rnd,
        "game": "ez-baccarat-panda8",
        "bank": {"seat": seat, "turn": turn, "start": start, "end": end},
        **extra,
    }


def baccarat_table() -> TableReport:
    """Three rounds: seat 4 banks two (turns 1), seat 6 one; option 3's fees 1.00 and 2.00 paid
    by the player-dealer, a player fee of 0.25; round 3 voided; a shoe fault holding round 2."""
    t = TableReport("room-1", "bac-1")
    fee = {"payer": "player-dealer", "seat": 4, "schedule": 3}
    t.add(
        "round-result", TS, result(1, (4, 1, "500.00", "520.00"), fees=[{**fee, "amount": "1.00"}])
    )
    t.add("alert:device-fault", TS, {"device": "shoe", "reason": "device shoe: DISCONNECTED"})
    t.add("alert:round-held", TS, {"device": "shoe", "reason": "the shoe faulted mid-round"})
    t.add("alert:rejected", TS, {"reason": "no bank"})  # a refusal is no hold
    t.add(
        "round-result",
        TS,
        result(
            2,
            (4, 1, "520.00", "470.00"),
            fees=[{**fee, "amount": "2.00"}, {"payer": "player", "player": "p5", "amount": "0.25"}],
        ),
    )
    t.add(
        "round-result",
        TS,
        result(3, (6, 2, "800.00", "800.00"), void=True, reason="misdeal", fees=[]),
    )
    return t


def test_collections_are_summed_by_payer_and_schedule_option() -> None:
    t = baccarat_table()
    assert t.collections == {
        CollectionKey("player-dealer", 3): Decimal("3.00"),
        CollectionKey("player", None): Decimal("0.25"),
    }
    assert t.collected == Decimal("3.25") and t.rounds == 3


def test_voids_holds_and_faults_are_listed_with_their_reasons() -> None:
    t = baccarat_table()
    assert [(n.what, n.why) for n in t.voided] == [("round 3", "misdeal")]
    assert [(n.what, n.why) for n in t.held] == [("round-held", "the shoe faulted mid-round")]
    assert [(n.what, n.why) for n in t.device_faults] == [("shoe", "device shoe: DISCONNECTED")]


def test_each_player_dealer_turn_is_one_bank_from_its_first_round_to_its_last_R5() -> None:
    banks = [(b.seat, b.turn, b.start, b.end, b.rounds) for b in baccarat_table().banks]
    assert banks == [(4, 1, "500.00", "470.00", 2), (6, 2, "800.00", "800.00", 1)]


def test_poker_collections_from_the_pot_and_by_time() -> None:
    t = TableReport("room-1", "poker-1")
    t.add("round-result", TS, {"round": 1, "game": "texas-holdem", "fee": {"amount": "3.00"}})
    t.add("round-result", TS, {"round": 2, "game": "texas-holdem", "fee": {"amount": "0.00"}})
    t.add("event:time.collect", TS, {"type": "time.collect", "total": "12.00"})
    assert t.collections == {
        CollectionKey("pot", None): Decimal("3.00"),
        CollectionKey("time", None): Decimal("12.00"),
    }


def report() -> ShiftReport:
    shift = Shift(
        "day", datetime(2026, 11, 29, 14, tzinfo=UTC), datetime(2026, 11, 29, 22, tzinfo=UTC)
    )
    other = TableReport("room-1", "bac-2")
    other.add(
        "round-result",
        TS,
        result(
            1,
            (1, 1, "100.00", "90.00"),
            fees=[{"payer": "player-dealer", "schedule": 3, "amount": "1.00"}],
        ),
    )
    other.gaps = [(40, 44)]
    return ShiftReport(shift, "2026-11-29T22:05:00+00:00", [baccarat_table(), other])


def test_each_pit_adds_up_its_own_tables() -> None:
    """Pit A holds both tables (4 rounds, 3.25 + 1.00 collected), pit B only bac-2 (1 round,
    1.00): the tables a pit names, and only those."""
    r = report()
    r.pits = {"A": ["room-1/bac-1", "room-1/bac-2"], "B": ["room-1/bac-2"]}
    a, b = r.pit_totals("A"), r.pit_totals("B")
    assert (a.rounds, a.collected, b.rounds, b.collected) == (
        4,
        Decimal("4.25"),
        1,
        Decimal("1.00"),
    )
    rows = list(csv.reader(io.StringIO(to_csv(r))))
    assert ["pit-collected", "", "B", "total", "", "1.00", "", ""] in rows
    assert "Pit A: totals" in to_html(r)


def test_the_site_totals_add_up_the_tables() -> None:
    total = report().site_totals("room-1")
    assert (total.rounds, total.collected) == (4, Decimal("4.25"))
    assert total.collections[CollectionKey("player-dealer", 3)] == Decimal("4.00")


def test_the_csv_holds_every_figure_and_its_digest() -> None:
    r = report()
    rows = list(csv.reader(io.StringIO(to_csv(r))))
    assert ["collected", "room-1", "bac-1", "total", "", "3.25", "", ""] in rows
    assert ["site-collected", "room-1", "", "total", "", "4.25", "", ""] in rows
    assert ["gap", "room-1", "bac-2", "40-44", "", "5", "", "messages missing"] in rows
    assert rows[-1][:5] == ["digest", "", "", "sha256", digest(r)]


def test_the_html_says_first_which_tables_are_not_complete() -> None:
    page = to_html(report())
    assert page.index('id="completeness"') < page.index("Site room-1")
    assert "room-1/bac-2: 5 messages missing (40-44)" in page
    assert digest(report()) in page and "Reviewed by" in page


def test_a_shift_runs_to_the_next_ones_start_in_the_rooms_clock() -> None:
    shifts = {"day": "06:00", "swing": "14:00", "grave": "22:00"}
    day = shift_on("day", date(2026, 11, 29), shifts, "America/Los_Angeles")
    assert (day.start, day.end) == (
        datetime(2026, 11, 29, 14, tzinfo=UTC),  # 06:00 PST is 14:00 UTC
        datetime(2026, 11, 29, 22, tzinfo=UTC),
    )
    grave = shift_on("grave", date(2026, 10, 31), shifts, "America/Los_Angeles")
    # the night the clocks go back (1 November 2026, 02:00 PDT -> 01:00 PST): nine hours
    assert grave.end - grave.start == (datetime(2026, 1, 1, 9) - datetime(2026, 1, 1, 0))
    with pytest.raises(ValueError, match="no shift 'night'; the config names day, grave, swing"):
        shift_on("night", date(2026, 11, 29), shifts, "America/Los_Angeles")


def test_hours_are_taken_as_utc_unless_they_say_otherwise() -> None:
    s = hours("2026-11-29T06:00-08:00", "2026-11-29T22:00")
    assert (s.start, s.end) == (
        datetime(2026, 11, 29, 14, tzinfo=UTC),
        datetime(2026, 11, 29, 22, tzinfo=UTC),
    )
    with pytest.raises(ValueError, match="is not after"):
        hours("2026-11-29T22:00", "2026-11-29T06:00")
