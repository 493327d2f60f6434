"""Exact analysis of the games: hit frequencies and house edges by enumeration.

A long computation reports its progress (`progress(done, total)`, parts of the work done) to
whoever listens (`progress_to`): `tablectl analyze` shows it on a terminal. A computation in
chunks (the simulations, Ultimate's showdowns) reports a chunk at a time; one loop over many
small items (the Pai Gow and Three Card Poker classes) goes through `in_steps`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

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
