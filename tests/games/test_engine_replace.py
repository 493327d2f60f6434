"""tablectl.games.common.replace: the engines' cheap `dataclasses.replace`, the same result."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.config import load_config
from tablectl.games.blackjack.state import Hand
from tablectl.games.common import PlacedWager, replace
from tablectl.games.registry import make_engine

CONFIGS = sorted((Path(__file__).parents[2] / "config").glob("*.toml"))
VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.tuples(st.integers()))


def states() -> list[Any]:
    """Every game's initial state (one per shipped config), a blackjack hand, a placed wager."""
    found = [make_engine(load_config(path).rules).initial() for path in CONFIGS]
    return [
        *found,
        Hand(seat=1, player="p1", stake=Decimal(5)),
        PlacedWager(1, "p1", "base", Decimal(5)),
    ]


@pytest.mark.parametrize("state", states(), ids=lambda s: type(s).__name__)
@settings(deadline=None)  # a loaded CI machine is no verdict on the engine
@given(data=st.data())
def test_replace_equals_dataclasses_replace_for_every_engine_state(state: Any, data: Any) -> None:
    names = [f.name for f in dataclasses.fields(state)]
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True))
    changes = {name: data.draw(VALUES) for name in chosen}
    ours, theirs = replace(state, **changes), dataclasses.replace(state, **changes)
    assert type(ours) is type(theirs)
    assert vars(ours) == vars(theirs)
    assert list(vars(ours)) == list(vars(theirs))  # the same fields in the same order
    assert ours == theirs and repr(ours) == repr(theirs)
    assert vars(state) == vars(dataclasses.replace(state))  # the original is untouched


@dataclass(frozen=True)
class Derived:
    a: int
    double: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "double", 2 * self.a)


def test_replace_of_a_dataclass_with_post_init_runs_it() -> None:
    assert replace(Derived(1), a=5).double == 10


def test_replace_of_an_unknown_field_is_refused_as_dataclasses_replace_refuses_it() -> None:
    with pytest.raises(TypeError):
        replace(PlacedWager(1, "p1", "base", Decimal(5)), colour="red")
