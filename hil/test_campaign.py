"""A short kill campaign in the suite (the full one is `python -m hil.campaign`, 110 kills):
the daemon SIGKILLed during play while the shoe keeps dealing, with wire faults, ends with the
journal equal to the shoe's own log and every round's result equal to the coup dealt."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hil.campaign import FAILING, Dealer, campaign


@pytest.mark.integration
def test_a_short_kill_campaign_loses_and_doubles_nothing(tmp_path: Path) -> None:
    # Up 2-3 s a life: a start takes about a second before the first card is journaled, so
    # with 1-2 s some runs dealt no round at all on a busy machine (the check below is what
    # keeps the campaign from passing on nothing).
    # Each wait for the table 20 s at most: a campaign that goes wrong ends with its reason well
    # inside the suite's 120 s a test (a cut-off worker says nothing of why); the folder, with
    # the daemon's log and journal, is kept by pytest.
    # And the shoe's cable pulled in a fifth of the deals: the table holds those rounds, the
    # dealer resumes them.
    figures = campaign(
        kills=5,
        seed=7,
        up=(2.0, 3.0),
        down=0.3,
        faults=0.15,
        result_wait=20.0,
        folder=tmp_path,
        unplugs=0.2,
    )
    assert figures["kills"] == 5
    assert figures["rounds_dealt"] >= 3 and figures["cards_drawn"] >= 15
    assert figures["wire_faults"] > 0
    assert {k: figures[k] for k in FAILING} == dict.fromkeys(FAILING, 0), figures
    assert figures["chain_intact"] is True


@pytest.mark.integration
def test_the_tamper_pass_catches_every_kind_with_the_check_the_docs_name() -> None:
    """Every kind of tampering of docs/operations.md's table, twice at random places: each
    caught by the check that table says catches it, and (the pass is no fake) the public chain
    alone misses the ones it says it misses."""
    from hil.tamper_pass import tamper_pass

    figures = tamper_pass(trials=2, seed=3, rounds=12, others=50)
    rows = {row["kind"]: row for row in figures["kinds"]}
    assert figures["passed"], rows
    assert rows["record edited, chain recomputed"]["chain"] == 0
    assert rows["record edited by a key holder"]["key"] == 0
    assert rows["front cut, start signed by a key holder"]["key"] == 0
    assert rows["export: line edited, chain recomputed"]["chain"] == 0
    assert all(row["trials"] == 2 for row in rows.values())
    defences = {row["kind"]: row for row in figures["defences"]}
    assert len([k for k in defences if k.startswith("journal: ")]) == 10
    assert all(row["caught"] == row["trials"] >= 1 for row in defences.values()), defences


class _HeldFloor:
    """A floor whose table holds the round until a `round.resume` is taken."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def wait_results(self, count: int, timeout: float) -> bool:
        return "round.resume" in self.sent

    def round_held(self) -> bool:
        return "round.resume" not in self.sent

    def command(
        self, verb: str, body: dict[str, Any], ref: str, give_up: Callable[[], bool]
    ) -> bool:
        self.sent.append(verb)
        return True


def test_the_dealer_resumes_a_round_held_while_the_campaign_stops() -> None:
    """A round dealt just before the last kill, held by the shoe's fault, is played out: its
    cards are out of the shoe (the campaign once stopped sending resumes with the dealer, and
    the round ended without a result)."""
    floor = _HeldFloor()
    dealer = Dealer(None, floor, random.Random(1), result_wait=5.0)  # type: ignore[arg-type]
    dealer.stop.set()
    assert dealer._wait_result(1) is True
    assert floor.sent == ["round.resume"] and dealer.resumes == 1
