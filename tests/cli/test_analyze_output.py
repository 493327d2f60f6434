"""`tablectl analyze` output: every figure a percent, in the text and beside each
fraction in `--json`; an unknown `--paytable` names only that wager's own pay tables.

Figures are worked by hand from the documents' decks (R10, R17, R21)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tablectl.analysis import blackjack as bj
from tablectl.analysis import blackjack_sim, with_percents
from tablectl.cli import main

PURE, SPANISH = bj.PURE_GAME, bj.SPANISH_GAME


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["analyze", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- every figure a percent


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        # Insurance, 8 decks: 128 bonus cards among the 415 other than the ace up (R17, 2 to 1):
        # hit 128/415 = 30.8434%, edge (287 - 2 * 128)/415 = 31/415 = 7.4699%
        (
            ["--game", PURE, "--wager", "insurance", "--decks", "8"],
            "pure-21.5-blackjack insurance (2 to 1, 8 decks): hit frequency 30.8434%, "
            "house edge 7.4699% (exact)",
        ),
        # Match the Dealer, 6 decks of 48 (R21): hit 6325/41041 = 15.4114%, edge 1254/41041 =
        # 3.0555% (tests/analysis/test_blackjack_analysis.py works both out)
        (
            ["--game", SPANISH, "--wager", "match-dealer", "--decks", "6"],
            "pure-spanish-21.5 match-dealer (MATCH-003, 6 decks): hit frequency 15.4114%, "
            "house edge 3.0555% (exact)",
        ),
    ],
    ids=["insurance", "match-dealer"],
)
def test_text_prints_the_hit_frequency_as_a_percent_like_the_edge(
    argv: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [line]


def test_json_has_each_figures_percent_beside_the_unchanged_fraction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        ["--game", SPANISH, "--wager", "match-dealer", "--decks", "6", "--json"], capsys
    )
    assert code == 0
    result = json.loads(out)
    # the fractions tools read are as they were
    assert result["hit_frequency"] == pytest.approx(6325 / 41041, rel=1e-12)
    assert result["house_edge"] == pytest.approx(1254 / 41041, rel=1e-12)
    assert result["exact"] == {"hit_frequency": "575/3731", "house_edge": "114/3731"}
    # and each has its percent next to it
    assert result["hit_frequency_pct"] == pytest.approx(632500 / 41041, rel=1e-12)
    assert result["house_edge_pct"] == pytest.approx(125400 / 41041, rel=1e-12)
    assert result["probabilities_pct"]["no-match"] == pytest.approx(3471600 / 41041, rel=1e-12)
    assert result["probabilities_pct"]["2-suited"] == pytest.approx(1000 / 41041, rel=1e-12)
    keys = list(result)
    assert keys.index("hit_frequency_pct") == keys.index("hit_frequency") + 1
    assert keys.index("house_edge_pct") == keys.index("house_edge") + 1
    assert "exact_pct" not in result and "counts_pct" not in result  # not chances


def test_json_cross_check_figures_have_percents_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = blackjack_sim.simulate

    def simulate(game: str, decks: int, hands: int, **kw: Any) -> Any:
        return real(game, decks, 10_000, **{**kw, "workers": 1})

    monkeypatch.setattr(blackjack_sim, "simulate", simulate)
    code, out, _ = run(["--game", PURE, "--wager", "red-flex", "--decks", "8", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    # R18: the Red Flex wins when the first two cards are red: 208/416 * 207/415 = 207/830
    assert result["hit_frequency_pct"] == pytest.approx(20700 / 830, rel=1e-12)
    sim = result["simulation"]
    for key in ("hit_frequency", "house_edge"):
        assert sim[f"{key}_pct"] == pytest.approx(100 * sim[key], rel=1e-12)
    for key in ("ci95", "hit_frequency_ci95"):
        assert sim[f"{key}_pct"] == pytest.approx([100 * v for v in sim[key]], rel=1e-12)
    assert sim["probabilities_pct"] == pytest.approx(
        {row: 100 * p for row, p in sim["probabilities"].items()}, rel=1e-12
    )
    assert "z_pct" not in sim and "p_value_pct" not in sim  # a distance and a chance of it


def test_with_percents_adds_a_twin_after_each_figure_and_leaves_the_rest() -> None:
    result = {
        "hit_frequency": 0.25,
        "house_edge": 0.0125,
        "exact": {"hit_frequency": "1/4", "house_edge": "1/80"},
        "stated": {"hit_frequency": "7.2798%"},
        "probabilities": {"a": 0.173191},
        "hands": 22100,
        "simulation": {"house_edge": 0.054167, "ci95": [0.0488, 0.0596], "hands": 1000},
    }
    assert with_percents(result) == {
        "hit_frequency": 0.25,
        "hit_frequency_pct": 25.0,
        "house_edge": 0.0125,
        "house_edge_pct": 1.25,
        "exact": {"hit_frequency": "1/4", "house_edge": "1/80"},
        "stated": {"hit_frequency": "7.2798%"},
        "probabilities": {"a": 0.173191},
        "probabilities_pct": {"a": 17.3191},  # not 17.319100000000002
        "hands": 22100,
        "simulation": {
            "house_edge": 0.054167,
            "house_edge_pct": 5.4167,
            "ci95": [0.0488, 0.0596],
            "ci95_pct": [4.88, 5.96],
            "hands": 1000,
        },
    }


# ---------------------------------------------------------------- --paytable names the wager's own


@pytest.mark.parametrize(
    ("game", "wager", "name", "message"),
    [
        # the Red Flex tables: RFB-02 (000), RFB-12 (003); not the Buster's nor Match the Dealer's
        (
            PURE,
            "red-flex",
            "RFB-2",
            "no red-flex pay table 'RFB-2': the red-flex pay tables are RFB-02, RFB-12",
        ),
        # the Buster tables: payout option 5 (000) and option 1 (003, 004)
        (
            PURE,
            "buster",
            "RFB-02",
            "RFB-02 is a red-flex table, not a buster table: the buster "
            "pay tables are option-1, option-5",
        ),
        (
            SPANISH,
            "match-dealer",
            "RFB-12",
            "RFB-12 is a red-flex table, not a match-dealer "
            "table: the match-dealer pay tables are MATCH-003",
        ),
        # Three Card Poker: the 6 Card Bonus tables of 004, 000 and 001; the one Pair Plus table
        (
            "three-card-poker-6cb",
            "six-card-bonus",
            "TCB-6B3",
            "no six-card-bonus pay table "
            "'TCB-6B3': the six-card-bonus pay tables are TCB-6B2, TCB-6B4, TCB-001",
        ),
        (
            "three-card-poker-6cb",
            "pair-plus",
            "TCB-6B2",
            "TCB-6B2 is a six-card-bonus table, not "
            "a pair-plus table: the pair-plus pay tables are PP-MR200",
        ),
        (
            "fortune-pai-gow",
            "fortune",
            "FORTUNE-004",
            "no fortune pay table 'FORTUNE-004': the fortune pay tables are FORTUNE-003",
        ),
        (
            "ultimate-texas-holdem",
            "blind",
            "TRIPS-003",
            "TRIPS-003 is a trips table, not a blind "
            "table: the blind pay tables are BLIND-003, BLIND-004",
        ),
        # baccarat pays fixed odds (R26, R27): no table to name
        (
            "ez-baccarat-panda8",
            "dragon7",
            "RFB-02",
            "ez-baccarat-panda8 dragon7 has no pay "
            "table: baccarat's wagers pay fixed odds (R26, R27)",
        ),
    ],
    ids=["unknown", "another wager's", "spanish", "6cb", "pair plus", "fortune", "blind", "bacc"],
)
def test_an_unknown_paytable_names_only_the_wagers_own(
    game: str, wager: str, name: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--game", game, "--wager", wager, "--paytable", name], capsys)
    assert (code, out) == (2, "")
    assert err == f"tablectl: {message}\n"
