"""A short kill campaign in the suite (the full one is `python -m hil.campaign`, 110 kills):
the daemon SIGKILLed during play while the shoe keeps dealing, with wire faults, ends with the
journal equal to the shoe's own log and every round's result equal to the coup dealt."""

from __future__ import annotations

import pytest

from hil.campaign import FAILING, campaign


@pytest.mark.integration
def test_a_short_kill_campaign_loses_and_doubles_nothing_issue9() -> None:
    # Up 2-3 s a life: a start takes about a second before the first card is journaled, so
    # with 1-2 s some runs dealt no round at all on a busy machine (the check below is what
    # keeps the campaign from passing on nothing).
    figures = campaign(kills=5, seed=7, up=(2.0, 3.0), down=0.3, faults=0.15)
    assert figures["kills"] == 5
    assert figures["rounds_dealt"] >= 3 and figures["cards_drawn"] >= 15
    assert figures["wire_faults"] > 0
    assert {k: figures[k] for k in FAILING} == dict.fromkeys(FAILING, 0)
    assert figures["chain_intact"] is True
