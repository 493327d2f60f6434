"""Exact EZ Baccarat Panda 8 analysis (R25, R26, R27) against widely published figures.

Reference numbers are the standard published baccarat and EZ Baccarat results for an 8-deck shoe
(e.g. Wizard of Odds, "Baccarat" and "EZ Baccarat" pages; the same values appear in Shackleford's
and other analysts' tables): player win 0.446247, banker win 0.458597, tie 0.095156; Dragon 7
probability 0.022534 (house edge 7.61% at 40:1); Panda 8 probability 0.034543 (10.19% at 25:1);
Tie at 8:1 14.36%; the EZ banker line that pushes on a Dragon 7 1.02%. They are typed in here, not
taken from the code.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tablectl.analysis.baccarat import (
    analyze,
    coup_distribution,
    exact_house_edge,
    wager_distribution,
)

TOL = 1e-5


def test_eight_deck_main_outcomes_match_published_R25() -> None:
    """Player 0.446246, banker 0.458597, tie 0.095156: the standard 8-deck baccarat figures."""
    out = analyze("player", 8)["outcomes"]
    assert out["player"] == pytest.approx(0.446246, abs=TOL)
    assert out["banker"] == pytest.approx(0.458597, abs=TOL)
    assert out["tie"] == pytest.approx(0.095156, abs=TOL)
    assert round(out["player"], 5) == 0.44625
    assert round(out["banker"], 5) == 0.4586
    assert round(out["tie"], 5) == 0.09516


def test_eight_deck_dragon7_matches_published_R27() -> None:
    """Dragon 7: probability 0.022534, house edge 7.61% at 40 to 1 (published EZ Baccarat)."""
    r = analyze("dragon7", 8)
    assert r["hit_frequency"] == pytest.approx(0.022534, abs=TOL)
    assert r["house_edge"] == pytest.approx(0.0761, abs=5e-5)
    assert r["probabilities"]["push"] == 0.0


def test_eight_deck_panda8_matches_published_R27() -> None:
    """Panda 8: probability 0.034543, house edge 10.19% at 25 to 1 (published EZ Baccarat)."""
    r = analyze("panda8", 8)
    assert r["hit_frequency"] == pytest.approx(0.034543, abs=TOL)
    assert r["house_edge"] == pytest.approx(0.1019, abs=5e-5)


def test_eight_deck_tie_edge_at_8_to_1_R27() -> None:
    """The Tie Bet at 8 to 1 off 8 decks: house edge 14.36%."""
    r = analyze("tie", 8)
    assert r["hit_frequency"] == pytest.approx(0.095156, abs=TOL)
    assert r["house_edge"] == pytest.approx(0.1436, abs=5e-5)


def test_line_wagers_edges_R26() -> None:
    """Player line: 1.235% to the player-dealer; banker 1:1 no commission is the mirror image.

    With the banker pushing on a Dragon 7 (the option), the banker line is the classic EZ Baccarat
    1.02% (the published figure); ties push both lines.
    """
    player = analyze("player", 8)
    banker = analyze("banker", 8)
    assert player["house_edge"] == pytest.approx(0.458597 - 0.446247, abs=2 * TOL)
    assert banker["house_edge"] == pytest.approx(-(0.458597 - 0.446247), abs=2 * TOL)
    assert player["probabilities"]["push"] == pytest.approx(0.095156, abs=TOL)
    ez = analyze("banker", 8, banker_push_on_dragon7=True)
    assert ez["house_edge"] == pytest.approx(0.0102, abs=5e-5)
    assert ez["probabilities"]["push"] == pytest.approx(0.095156 + 0.022534, abs=2 * TOL)


@pytest.mark.parametrize("decks", range(3, 9))
def test_probabilities_sum_to_exactly_one_R25(decks: int) -> None:
    """Every coup of a 3- to 8-deck shoe is counted once: the Fractions sum to exactly 1."""
    dist = coup_distribution(decks)
    assert all(isinstance(p, Fraction) and p > 0 for p in dist.values())
    assert sum(dist.values(), Fraction(0)) == 1
    for wager in ("player", "banker", "tie", "dragon7", "panda8"):
        assert sum(wager_distribution(wager, decks).values(), Fraction(0)) == 1


def test_exact_edges_are_fractions_R26() -> None:
    """The exact edge is a Fraction and agrees with the float the report prints."""
    edge = exact_house_edge("dragon7", 8)
    assert isinstance(edge, Fraction)
    assert float(edge) == analyze("dragon7", 8)["house_edge"]


def test_fewer_decks_move_the_figures_slightly_R25() -> None:
    """Removal effects are real but small: 3-deck figures differ from 8-deck ones by < 0.5%."""
    for wager in ("player", "banker", "tie", "dragon7", "panda8"):
        a, b = analyze(wager, 3), analyze(wager, 8)
        assert a["hit_frequency"] != b["hit_frequency"]
        assert abs(a["hit_frequency"] - b["hit_frequency"]) < 0.005


def test_report_shape_per_contract_4() -> None:
    """The report carries the fields `tablectl analyze --json` prints."""
    r = analyze("panda8", 6)
    assert r["game"] == "ez-baccarat-panda8"
    assert r["wager"] == "panda8" and r["decks"] == 6 and r["method"] == "exact"
    assert isinstance(r["hit_frequency"], float) and isinstance(r["house_edge"], float)
    assert set(r["probabilities"]) == {"win", "push", "lose"}


@pytest.mark.parametrize("decks", [2, 9, 0, -1, True, 8.0, "8"])
def test_deck_count_outside_3_to_8_is_refused(decks: object) -> None:
    """The document allows three to eight decks; anything else is a clear error."""
    with pytest.raises(ValueError, match="3 to 8 decks"):
        analyze("player", decks)  # type: ignore[arg-type]


@pytest.mark.parametrize("wager", ["pair", "Player", "", "dragon-7"])
def test_unknown_wager_is_refused(wager: str) -> None:
    """Only the five spot ids of DESIGN contract 4 are analysed."""
    with pytest.raises(ValueError, match="not an EZ Baccarat Panda 8 wager"):
        analyze(wager, 8)
