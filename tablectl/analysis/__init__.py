"""Exact analysis of the games: hit frequencies and house edges by enumeration.

A long computation reports its progress (`progress(done, total)`, parts of the work done) to
whoever listens (`progress_to`): `tablectl analyze` shows it on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
