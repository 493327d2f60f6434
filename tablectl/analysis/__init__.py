"""Exact analysis of the games: hit frequencies and house edges by enumeration.

A long computation reports its progress (`progress(done, total)`, parts of the work done) to
whoever listens (`progress_to`): `tablectl analyze` shows it on a terminal. A computation in
chunks (the simulations, Ultimate's showdowns) reports a chunk at a time; one loop over many
small items (the Pai Gow and Three Card Poker classes) goes through `in_steps`.

`wager_paytable` finds the pay table `analyze --paytable` names, among that wager's own tables;
`with_percents` adds the percent of every figure to an analysis's JSON."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from tablectl.rules.paytables import PayTable, load_paytables

T = TypeVar("T")

Progress = Callable[[int, int], None]
"""A listener told (parts done, parts in all) as a long analysis goes."""

_listeners: list[Progress] = []


@contextmanager
def progress_to(listener: Progress) -> Iterator[None]:
    """Tell `listener` the progress of the analyses run inside the block."""
    _listeners.append(listener)
    try:
        yield
    finally:
        _listeners.remove(listener)


def progress(done: int, total: int) -> None:
    """Report that `done` of `total` parts of the running analysis are done."""
    for listener in tuple(_listeners):
        listener(done, total)


STEPS = 50
"""How many times `in_steps` reports one part of an analysis."""


def in_steps(items: Sequence[T], *, part: int = 0, parts: int = 1) -> Iterator[T]:
    """`items`, one by one, reporting progress STEPS times as they go: the items are part `part`
    (from 0) of `parts` equal parts of the analysis, so the counts run on across the parts
    (`done` of `parts * STEPS`). Reports once a step, not once an item: a listener may write to
    a terminal each time."""
    n = len(items)
    every = max(1, -(-n // STEPS))  # items a step, rounded up: at most STEPS steps
    base, total = part * STEPS, parts * STEPS
    for i, item in enumerate(items):
        if i and i % every == 0:
            progress(base + i // every, total)
        yield item
    progress(base + STEPS, total)


def wager_paytable(name: str, wager: str, path: Path) -> PayTable:
    """The pay table `name` of `wager` from the pay-table file `path`.

    A name the file does not hold, or a table of another wager, is a ValueError that lists only
    `wager`'s own tables (the file also holds other wagers' tables, which `wager` cannot use).
    """
    tables = load_paytables(path)
    own = ", ".join(n for n, t in tables.items() if t.wager == wager) or "none"
    table = tables.get(name)
    if table is None:
        raise ValueError(f"no {wager} pay table {name!r}: the {wager} pay tables are {own}")
    if table.wager != wager:
        raise ValueError(
            f"{name} is a {table.wager} table, not a {wager} table: "
            f"the {wager} pay tables are {own}"
        )
    return table


PERCENT_FIGURES = (
    "hit_frequency",
    "push_frequency",
    "lose_frequency",
    "house_edge",
    "ci95",
    "hit_frequency_ci95",
    "probabilities",
    "outcomes",
)
"""An analysis's figures that are chances or edges (fractions of one): `with_percents` gives
each a `<name>_pct` twin in percent. Counts, money, exact fractions (`exact`) and figures the
documents state as text (`stated`) have none."""
NESTED = ("simulation",)
"""Keys of a result whose value is a result of its own (the exact figure's cross-check)."""


def with_percents(result: Mapping[str, Any]) -> dict[str, Any]:
    """`result` with every figure of PERCENT_FIGURES followed by its percent, `<name>_pct`: a
    number times 100 (to 15 significant digits), a list or a mapping of them likewise; nested
    results (the cross-check under "simulation") too. The fraction fields stay as they are, for
    the tools that read them.
    """
    out: dict[str, Any] = {}
    for key, value in result.items():
        if key in NESTED and isinstance(value, Mapping):
            value = with_percents(value)
        out[key] = value
        if key in PERCENT_FIGURES:
            out[f"{key}_pct"] = _percent(value)
    return out


def _percent(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _percent(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_percent(v) for v in value]
    # 15 significant digits: a double's own precision, without 17.319100000000002's tail
    return float(f"{100 * float(value):.15g}")
