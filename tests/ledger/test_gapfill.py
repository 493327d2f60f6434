"""When the ledger asks a table again for what it missed (tablectl/ledger/gapfill.py): the time
is given, never slept."""

from __future__ import annotations

from tablectl.history_answers import MAX_HISTORY
from tablectl.ledger.gapfill import GapFiller
from tablectl.ledger.seqs import SeqRanges

T = ("room-1", "bac-1")


def received(*spans: tuple[int, int]) -> dict[tuple[str, str], SeqRanges]:
    r = SeqRanges()
    for lo, hi in spans:
        r.add_span(lo, hi)
    return {T: r}


def test_a_gap_is_asked_for_only_once_it_is_older_than_the_grace() -> None:
    filler = GapFiller(grace=10, timeout=30)
    tables = received((1, 3), (7, 9))
    assert filler.due(100.0, tables) == []
    assert filler.due(109.0, tables) == []
    (ask,) = filler.due(110.0, tables)
    assert (ask.table, ask.first, ask.last) == (T, 4, 6)


def test_one_request_a_table_at_a_time_until_answered_or_timed_out() -> None:
    filler = GapFiller(grace=0, timeout=30)
    tables = received((1, 3), (7, 9), (12, 12))
    (first,) = filler.due(0.0, tables)
    assert filler.due(29.0, tables) == []
    (again,) = filler.due(30.0, tables)  # no answer in 30 s: asked again, a new id
    assert (again.first, again.last) == (4, 6) and again.ref != first.ref
    assert filler.answered(T, again.ref, [], None)
    tables[T].add_span(4, 6)
    (nxt,) = filler.due(31.0, tables)
    assert (nxt.first, nxt.last) == (10, 11)


def test_a_long_gap_is_asked_for_MAX_HISTORY_numbers_at_a_time() -> None:
    filler = GapFiller(grace=0)
    (ask,) = filler.due(0.0, received((1, 1), (1000, 1000)))
    assert (ask.first, ask.last) == (2, 1 + MAX_HISTORY)


def test_numbers_the_table_pruned_are_not_asked_again() -> None:
    """The table answered 2-201 with 2-150 pruned and its outbox whole from 180 on: nothing
    below 180 is asked again; the next request starts at 180 (151-179 were in the answer's
    messages or also pruned below held_from)."""
    filler = GapFiller(grace=0)
    tables = received((1, 1), (1000, 1000))
    (ask,) = filler.due(0.0, tables)
    assert filler.answered(T, ask.ref, [(2, 150)], 180)
    (nxt,) = filler.due(1.0, tables)
    assert (nxt.first, nxt.last) == (180, 179 + MAX_HISTORY)


def test_an_answer_to_a_request_not_ours_changes_nothing() -> None:
    filler = GapFiller(grace=0)
    (ask,) = filler.due(0.0, received((1, 1), (5, 5)))
    assert not filler.answered(T, "someone-else", [(2, 4)], None)
    assert not filler.answered(("room-1", "other"), ask.ref, [], None)
    assert filler.answered(T, ask.ref, [], None)


def test_a_gap_partly_filled_keeps_its_age_and_is_asked_on_at_once() -> None:
    """1-3 and 1000 held: the gap 4-999 is asked 4-203 after the grace; once those came, what
    is left of the same gap (204-999) is asked at the next tick, not after a new grace."""
    filler = GapFiller(grace=10, timeout=30)
    tables = received((1, 3), (1000, 1000))
    assert filler.due(0.0, tables) == []
    (ask,) = filler.due(10.0, tables)
    assert (ask.first, ask.last) == (4, 3 + MAX_HISTORY)
    assert filler.answered(T, ask.ref, [], None)
    tables[T].add_span(4, 3 + MAX_HISTORY)
    (nxt,) = filler.due(11.0, tables)
    assert (nxt.first, nxt.last) == (4 + MAX_HISTORY, 3 + 2 * MAX_HISTORY)
