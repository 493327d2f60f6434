"""Exact 6 Card Bonus and Pair Plus figures against the documents and published counts.

The whole C(52,6) pass takes about a second (class counting) and is cached per process.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from tablectl.analysis.three_card_poker import (
    analyze,
    best_five_category_counts,
    category_counts,
    exact_figures,
)
from tablectl.rules.paytables import (
    PayTable,
    PayTableError,
    get_paytable,
    load_paytables,
    payout,
)


def test_r29_tcb_6b2_reproduces_the_approved_figures_of_004() -> None:
    """004 "Three Card Poker 6 Card Bonus: 6 Card Bonus" print "House Advantage 15.28%" and "Hit
    Frequency 7.2798%"."""
    table = get_paytable("TCB-6B2")
    assert table.stated_house_advantage == "15.28%"
    assert table.stated_hit_frequency == "7.2798%"
    hit, edge = exact_figures("six-card-bonus", table)
    assert f"{float(hit) * 100:.4f}%" == "7.2798%"
    assert f"{float(edge) * 100:.2f}%" == "15.28%"
    result = analyze("six-card-bonus", "TCB-6B2")
    assert result["method"] == "exact"
    assert result["hands"] == comb(52, 6) == 20_358_520
    assert result["stated"] == {"house_advantage": "15.28%", "hit_frequency": "7.2798%"}


def test_r29_all_three_six_card_tables_hit_the_same_hands() -> None:
    """R29's three tables pay the same categories (three of a kind or better), so one hit rate."""
    hits = {
        exact_figures("six-card-bonus", get_paytable(n))[0]
        for n in ("TCB-6B2", "TCB-6B4", "TCB-001")
    }
    assert len(hits) == 1


def test_six_card_probabilities_sum_to_one_exactly() -> None:
    counts = category_counts("six-card-bonus")
    total = sum(Fraction(k, comb(52, 6)) for k in counts.values())
    assert total == 1


def test_five_and_seven_card_counts_match_published_tables() -> None:
    """Counts from Wikipedia "Poker probability" (5-card and 7-card frequency tables): the same
    class counting that gives the 6 Card Bonus must reproduce them exactly."""
    assert dict(best_five_category_counts(5)) == {
        "royal-flush": 4,
        "straight-flush": 36,
        "four-of-a-kind": 624,
        "full-house": 3_744,
        "flush": 5_108,
        "straight": 10_200,
        "three-of-a-kind": 54_912,
        "two-pair": 123_552,
        "pair": 1_098_240,
        "high-card": 1_302_540,
    }
    assert dict(best_five_category_counts(7)) == {
        "royal-flush": 4_324,
        "straight-flush": 37_260,
        "four-of-a-kind": 224_848,
        "full-house": 3_473_184,
        "flush": 4_047_644,
        "straight": 6_180_020,
        "three-of-a-kind": 6_461_620,
        "two-pair": 31_433_400,
        "pair": 58_627_800,
        "high-card": 23_294_460,
    }


def test_pair_plus_counts_are_the_textbook_three_card_counts() -> None:
    """Of C(52,3) = 22,100 hands: 48 straight flushes (4 of them A-K-Q, the Mini Royal), 52 trips,
    720 straights, 1,096 flushes, 3,744 pairs, 16,440 high cards (standard combinatorics,
    e.g. Wizard of Odds "Three Card Poker")."""
    assert dict(category_counts("pair-plus")) == {
        "mini-royal-flush": 4,
        "straight-flush": 44,
        "three-of-a-kind": 52,
        "straight": 720,
        "flush": 1_096,
        "pair": 3_744,
        "high-card": 16_440,
    }


def test_pair_plus_published_pay_tables() -> None:
    """Wizard of Odds, Three Card Poker: Pair Plus 40-30-6-4-1 has a 2.32% house edge and
    40-30-6-3-1 7.28%. Neither is in the documents; they check the arithmetic."""
    for flush, expected in ((4, "2.32%"), (3, "7.28%")):
        table = PayTable(
            name="published",
            wager="pair-plus",
            pays={
                "mini-royal-flush": 40,
                "straight-flush": 40,
                "three-of-a-kind": 30,
                "straight": 6,
                "flush": flush,
                "pair": 1,
            },
        )
        assert f"{float(exact_figures('pair-plus', table)[1]) * 100:.2f}%" == expected


def test_pair_plus_documents_table() -> None:
    """000/001/003/004 add a 200:1 Mini Royal to 40-30-6-3-1: the 4 A-K-Q suited hands gain
    160 units each over the 7.28% table, so the edge is (1,608 - 640) / 22,100 exactly."""
    hit, edge = exact_figures("pair-plus", get_paytable("PP-MR200"))
    assert hit == Fraction(4 + 44 + 52 + 720 + 1_096 + 3_744, 22_100)
    assert edge == Fraction(1_608 - 640, 22_100)
    assert sum(analyze("pair-plus", "PP-MR200")["probabilities"].values()) == pytest.approx(1)


def test_paytables_load_by_document_name() -> None:
    tables = load_paytables()
    assert set(tables) == {"TCB-6B2", "TCB-6B4", "TCB-001", "PP-MR200"}
    # 000 "Three Card Poker 6 Card Bonus: 6 Card Bonus": "Four of a Kind 100:1";
    # 004 "Three Card Poker 6 Card Bonus: 6 Card Bonus": "Four of a Kind 50:1"
    assert payout(tables["TCB-6B4"], "four-of-a-kind") == 100
    assert payout(tables["TCB-6B2"], "four-of-a-kind") == 50
    # 001 "6 Card Bonus": straight 9:1, trips 8:1 (R29)
    assert payout(tables["TCB-001"], "straight") == 9
    assert payout(tables["TCB-001"], "three-of-a-kind") == 8
    assert payout(tables["TCB-6B2"], "two-pair") == 0
    with pytest.raises(PayTableError):
        payout(tables["TCB-6B2"], "mini-royal-flush")


def test_paytable_errors_name_table_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text('[X]\nwager = "pair-plus"\n[X.pays]\nroyal-flush = 5\n')
    with pytest.raises(PayTableError, match=r"X: .*pays\.royal-flush"):
        load_paytables(bad)
    bad.write_text('[Y]\nwager = "six-card-bonus"\npays = { flush = 0 }\n')
    with pytest.raises(PayTableError, match="positive"):
        load_paytables(bad)
    with pytest.raises(PayTableError, match="TCB-6B2"):
        get_paytable("TCB-9")
    with pytest.raises(ValueError, match="pair-plus"):
        exact_figures("six-card-bonus", get_paytable("PP-MR200"))


def test_cli_analyze_reproduces_the_approved_tcb_6b2_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """004 states TCB-6B2's hit frequency 7.2798% and house advantage 15.28% (R29)."""
    from tablectl.cli import main

    code = main(
        [
            "analyze",
            "--game",
            "three-card-poker-6cb",
            "--wager",
            "six-card-bonus",
            "--paytable",
            "TCB-6B2",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert round(100 * out["hit_frequency"], 4) == 7.2798
    assert round(100 * out["house_edge"], 2) == 15.28
    assert out["method"] == "exact"
    assert out["game"] == "three-card-poker-6cb"


@pytest.mark.parametrize("wager", ["ante", "play"])
def test_cli_analyze_names_the_analyzed_wagers_for_ante_and_play(
    wager: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Contract 4 lists `ante play pair-plus six-card-bonus`; analyze computes the two bonus
    wagers only, and must say so rather than blame the default Pair Plus pay table."""
    from tablectl.cli import main

    code = main(["analyze", "--game", "three-card-poker-6cb", "--wager", wager])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err == (
        f"tablectl: {wager!r} is not an analyzed three-card-poker-6cb wager: "
        "analyzed are six-card-bonus, pair-plus\n"
    )
    assert "PP-MR200" not in captured.err
