"""The live figures run in the table's daemon (the surveillance feed calls them): they load no
numpy, no I/O and nothing of the daemon, checked in a fresh interpreter."""

from __future__ import annotations

from tests.test_layers import IO, STORAGE_AND_LOOP, top_level_modules_after_importing


def test_the_live_figures_load_no_numpy_io_storage_or_loop() -> None:
    loaded = top_level_modules_after_importing("tablectl.protection")
    forbidden = {"numpy", *IO, *STORAGE_AND_LOOP}
    assert loaded.isdisjoint(forbidden), sorted(loaded & forbidden)
