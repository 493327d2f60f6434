"""The fleet simulator at a toy size: tables through pit brokers bridged to a
central one, and every table straight on the central one, each through its drills; every
message reaches the floor subscriber, none lost. The 500-table figures are the benchmark's
(`python hil/fleet.py`, docs/performance.md)."""

from __future__ import annotations

import pytest

from hil.fleet import Options, run


@pytest.mark.parametrize(
    ("pits", "drills"),
    [(2, ("central-restart", "pit-down")), (0, ("central-restart",))],
    ids=["pits-bridged", "all-on-central"],
)
def test_a_small_floor_loses_no_message_through_its_drills(
    pits: int, drills: tuple[str, ...]
) -> None:
    opts = Options(
        tables=8,
        pits=pits,
        daemons=1,
        round_s=1.0,
        play_s=5.0,
        warmup_s=1.5,
        drills=drills,
        down_s=1.0,
        pit_down_s=1.5,
        drain_timeout_s=30.0,
    )
    result = run(opts)
    assert [d["drill"] for d in result["drills"]] == list(drills)
    assert all(d["drained"] for d in result["drills"]), result["drills"]
    assert result["gaps"] == 0, result["gap_tables"]
    assert result["published"] > 7 * 30  # every replayed table played rounds
    assert result["daemon_messages"] > 0  # and the real daemon published through its pit
    assert result["delivered"] >= result["published"] + result["daemon_messages"]
    assert result["delivery_ms"]["p50"] > 0


def test_a_small_floor_with_the_books_attached_keeps_every_number_through_the_ledgers_stop() -> (
    None
):
    """`--ledger` at a toy size: the ledger stopped for 2 s while play goes on catches up (the
    central broker kept its session), and the figures the benchmark prints are there."""
    opts = Options(
        tables=6,
        pits=0,
        daemons=1,
        round_s=1.0,
        play_s=6.0,
        warmup_s=1.5,
        drills=("ledger-down",),
        drain_timeout_s=60.0,
        ledger=True,
        ledger_down_s=2.0,
    )
    result = run(opts)
    (drill,) = result["drills"]
    assert drill["drill"] == "ledger-down" and drill["caught_up"], drill
    books = result["ledger"]
    assert books["caught_up"] and books["rows"] > 0 and books["rounds_kept"] > 0
    assert books["publish_to_row_ms"]["n"] > 0 and books["publish_to_row_ms"]["p50"] > 0
    assert books["db_bytes_per_round"] > 0
