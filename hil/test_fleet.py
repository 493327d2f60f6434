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
