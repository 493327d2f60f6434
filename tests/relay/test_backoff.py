"""The shared reconnect backoff: capped exponential ceilings, equal jitter below each, and no
two tables in lockstep. Draws are injected, so every figure here is exact."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from tablectl_base.backoff import Backoff, RandomFn, equal_jitter


def draws(values: Iterable[float]) -> RandomFn:
    """A random source that returns `values` in turn."""
    return iter(values).__next__


def sequence(backoff: Backoff, n: int) -> list[float]:
    return [backoff.next_delay() for _ in range(n)]


def test_each_delay_is_half_the_ceiling_plus_the_draw_times_the_other_half() -> None:
    backoff = Backoff(0.5, 30.0, random=draws([0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 1.0, 0.5]))
    # ceilings 0.5 1 2 4 8 16 30 30
    assert sequence(backoff, 8) == [0.25, 1.0, 1.5, 2.5, 8.0, 8.0, 30.0, 22.5]


def test_reset_starts_again_from_the_initial_ceiling() -> None:
    backoff = Backoff(0.5, 30.0, random=draws([1.0] * 5))
    assert sequence(backoff, 4) == [0.5, 1.0, 2.0, 4.0]
    backoff.reset()
    assert backoff.next_delay() == 0.5


async def test_wait_sleeps_the_jittered_delay_through_the_injected_sleep() -> None:
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    backoff = Backoff(0.5, 5.0, sleep=sleep, random=draws([0.5, 0.0]))
    assert [await backoff.wait(), await backoff.wait()] == [0.375, 0.5]
    assert slept == [0.375, 0.5]


def test_two_tables_backoff_sequences_differ_and_stay_within_the_cap() -> None:
    """Two tables that lost the same broker at the same instant: their retries do not fall
    together at any step, and none waits longer than the cap or less than half its ceiling."""
    ceilings = [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30]
    table_a = sequence(Backoff(0.5, 30.0, random=random.Random(1).random), len(ceilings))
    table_b = sequence(Backoff(0.5, 30.0, random=random.Random(2).random), len(ceilings))
    assert all(a != b for a, b in zip(table_a, table_b, strict=True))
    for delays in (table_a, table_b):
        assert all(c / 2 <= d <= c <= 30.0 for d, c in zip(delays, ceilings, strict=True))


def test_a_floor_of_tables_spreads_its_first_retry_over_half_the_ceiling() -> None:
    """140 tables (one Los Angeles room's EZ Baccarat floor): 140 distinct first-retry instants,
    spread over most of [ceiling/2, ceiling] rather than bunched at one."""
    first = [
        Backoff(0.5, 30.0, random=random.Random(seed).random).next_delay() for seed in range(140)
    ]
    assert len(set(first)) == 140
    assert min(first) >= 0.25 and max(first) <= 0.5
    assert max(first) - min(first) > 0.9 * 0.25


def test_default_sources_are_independent_per_backoff() -> None:
    """Without an injected source each Backoff seeds its own generator from the OS, so two
    tables started from the same image never share a sequence (equal sequences would need
    eight identical 53-bit draws)."""
    assert sequence(Backoff(0.5, 30.0), 8) != sequence(Backoff(0.5, 30.0), 8)


def test_a_draw_outside_zero_to_one_is_refused_not_clamped() -> None:
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        equal_jitter(4.0, 1.5)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        Backoff(0.5, 30.0, random=draws([-0.1])).next_delay()


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        Backoff(0, 1)
    with pytest.raises(ValueError):
        Backoff(2, 1)
    with pytest.raises(ValueError):
        Backoff(1, 2, factor=0.5)
