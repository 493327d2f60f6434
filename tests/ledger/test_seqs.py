"""The ledger's count of each table's message numbers, and its gaps (tablectl/ledger/seqs.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.ledger.seqs import SeqRanges


def test_numbers_in_order_move_through_and_leave_no_gap() -> None:
    r = SeqRanges()
    assert [r.add(s) for s in (1, 2, 3)] == [True, True, True]
    assert (r.through, r.highest, r.gaps()) == (3, 3, [])


def test_a_redelivered_number_is_not_new() -> None:
    r = SeqRanges()
    r.add_all([1, 2, 5])
    assert r.add(2) is False and r.add(5) is False


def test_a_missing_run_is_one_gap_until_it_arrives() -> None:
    """Received 1-3 and 7-8: 4, 5 and 6 are missing (three numbers, one gap); once they come,
    everything through 8 is held."""
    r = SeqRanges()
    r.add_all([1, 2, 3, 7, 8])
    assert (r.gaps(), r.missing(), r.highest) == ([(4, 6)], 3, 8)
    r.add_all([5, 4])
    assert r.gaps() == [(6, 6)]
    r.add(6)
    assert (r.through, r.gaps()) == (8, [])


def test_numbers_start_at_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        SeqRanges().add(0)


def test_stored_ranges_load_back_the_same() -> None:
    r = SeqRanges()
    r.add_all([1, 2, 9, 10, 12])
    again = SeqRanges(r.through, list(r.spans()))
    assert (again.through, again.gaps(), again.highest) == (2, [(3, 8), (11, 11)], 12)


@given(st.lists(st.integers(min_value=1, max_value=60), max_size=120))
def test_ranges_agree_with_a_set_of_numbers(seqs: list[int]) -> None:
    """Whatever order and repeats the numbers come in: `through` is the longest run from 1, the
    gaps are exactly the numbers below the highest never received, and `add` says new exactly
    the first time."""
    r = SeqRanges()
    seen: set[int] = set()
    for s in seqs:
        assert r.add(s) == (s not in seen)
        seen.add(s)
    through = 0
    while through + 1 in seen:
        through += 1
    assert r.through == through
    assert r.highest == max(seen, default=0)
    missing = {n for lo, hi in r.gaps() for n in range(lo, hi + 1)}
    assert missing == set(range(1, r.highest + 1)) - seen
