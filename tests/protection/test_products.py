"""`ProductPlan`: each multiset's falling-factorial product, formed level by level, is the product
written out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.protection.products import ProductPlan, falling, picker


def test_falling_factorials_by_hand() -> None:
    """5 x 4 x 3 = 60; drawing 3 of 2 cannot be done: 0; drawing none: 1."""
    assert falling(5, 3) == 60
    assert falling(2, 3) == 0
    assert falling(7, 0) == 1


def test_a_plan_by_hand() -> None:
    """Classes (a, b) with 4 and 3 cards left: {a a b} is 4 x 3 x 3 = 36, {b b} 3 x 2 = 6, {a} 4."""
    plan = ProductPlan.of([(2, 1), (0, 2), (1, 0)])
    products = plan.products((4, 3))
    assert [products[p] for p in plan.places] == [36, 6, 4]


multisets = st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=30)


@given(wanted=multisets, counts=st.lists(st.integers(0, 6), min_size=4, max_size=4))
def test_every_product_is_the_product_written_out(
    wanted: list[list[int]], counts: list[int]
) -> None:
    plan = ProductPlan.of(wanted)
    products = plan.products(counts)
    for m, place in zip(wanted, plan.places, strict=True):
        expected = 1
        for n, k in zip(counts, m, strict=True):
            expected *= falling(n, k)
        assert products[place] == expected


def test_a_picker_returns_a_tuple_for_one_place_too() -> None:
    assert picker([2])([5, 6, 7]) == (7,)
    assert picker([0, 2])([5, 6, 7]) == (5, 7)


def test_a_composition_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="2 classes"):
        ProductPlan.of([(1, 0)]).products((1, 2, 3))
