"""The Blind and Bad Beat over every deal of the 52-card deck: the figures `analyze` gives, held.

The counts below are the full count's (every board, player pair and player-dealer pair, ordered:
C(52,5) * C(47,2) * C(45,2) = 2,781,381,002,400 deals), checked three ways that do not come from
the counting code:

- by category, wins + ties + losses are the published best-five counts of the C(52,7) seven-card
  sets (test_ultimate_analysis.SEVEN and the pair, two-pair and high-card counts below) times the
  C(7,2) = 21 ways to split seven cards into board and hole pair and the C(45,2) = 990 player-dealer
  pairs: the player's seven cards are a uniform seven-card set;
- wins equal losses in all (swapping the two hole pairs);
- the beaten hands and the pushes are the "UTH 2-Way Bad Beat Bonus" table Stephen How published
  (discountgambling.net, 2012-06-08, "Bad Beat Bonus @ Ultimate Texas Hold'Em") for the same pay
  table as BADBEAT-003: each side's losses by category, both sides together, and the 14.7868% edge.

The Blind's figures follow from the counts by hand (its pay table times the wins); they are the
figures the slow count gave before the counting was vectorised, kept here so no rewrite moves them.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from fractions import Fraction

import pytest

from tablectl.analysis.ultimate import FULL_DECK_VALUES, analyze, showdown_counts
from tablectl.cli import main

DEALS = 2_781_381_002_400

WIN = {
    "high-card": 76_626_795_600,
    "pair": 496_857_988_764,
    "two-pair": 419_896_266_012,
    "three-of-a-kind": 97_664_829_948,
    "straight": 103_685_076_072,
    "flush": 71_523_195_288,
    "full-house": 62_810_500_464,
    "four-of-a-kind": 4_240_864_800,
    "straight-flush": 734_237_144,
    "royal-flush": 85_615_200,
}
TIE = {
    "high-card": 11_681_317_560,
    "pair": 38_757_694_752,
    "two-pair": 34_054_545_168,
    "three-of-a-kind": 4_647_370_128,
    "straight": 15_662_001_240,
    "flush": 2_910_219_176,
    "full-house": 5_179_382_208,
    "four-of-a-kind": 198_204_864,
    "straight-flush": 35_247_960,
    "royal-flush": 4_280_760,
}
LOSE = {
    "high-card": 395_983_710_240,
    "pair": 683_256_278_484,
    "two-pair": 199_549_574_820,
    "three-of-a-kind": 32_024_879_724,
    "straight": 9_135_538_488,
    "flush": 9_717_104_296,
    "full-house": 4_217_612_688,
    "four-of-a-kind": 235_520_256,
    "straight-flush": 5_150_296,
}

# Best five of the C(52,7) = 133,784,560 seven-card sets, every category (the published counts).
SEVEN_CARD_SETS = {
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

# Stephen How's 2-way Bad Beat table: deals in which either hand of this category loses.
HOW_BEATEN = {
    "straight-flush": 10_300_592,
    "four-of-a-kind": 471_040_512,
    "full-house": 8_435_225_376,
    "flush": 19_434_208_592,
    "straight": 18_271_076_976,
    "three-of-a-kind": 64_049_759_448,
}
HOW_PUSHES = 113_130_263_816


@pytest.fixture(scope="module")
def counts() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    full = showdown_counts(FULL_DECK_VALUES)
    return dict(full.win), dict(full.tie), dict(full.lose)


def test_full_deck_counts_held(counts: tuple[dict[str, int], ...]) -> None:
    assert counts == (WIN, TIE, LOSE)


def test_held_counts_are_the_seven_card_sets_and_symmetric() -> None:
    """Per category, wins + ties + losses = seven-card sets * 21 * 990; losses = wins."""
    assert sum(SEVEN_CARD_SETS.values()) == 133_784_560
    for category, sets in SEVEN_CARD_SETS.items():
        dealt = WIN[category] + TIE[category] + LOSE.get(category, 0)
        assert dealt == sets * 21 * 990, category
    assert sum(WIN.values()) == sum(LOSE.values())
    assert 2 * sum(WIN.values()) + sum(TIE.values()) == DEALS == 2_598_960 * 1_081 * 990


def test_held_counts_are_the_published_bad_beat_table() -> None:
    """How's beaten hands are both sides' losses: twice the player's; his pushes are our ties."""
    assert {c: 2 * LOSE[c] for c in HOW_BEATEN} == HOW_BEATEN
    assert sum(TIE.values()) == HOW_PUSHES


def test_bad_beat_003_full_deck_by_hand_R35() -> None:
    """BADBEAT-003 pays 7,500/500/50/30/20/9 (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet
    Payout Table"). From How's counts: hits 10,300,592 + 471,040,512 + 8,435,225,376 +
    19,434,208,592 + 18,271,076,976 + 64,049,759,448 = 110,671,611,496; paid 77,254,440,000 +
    235,520,256,000 + 421,761,268,800 + 583,026,257,760 + 365,421,539,520 + 576,447,835,032 =
    2,259,431,597,112; edge (2,781,381,002,400 - 110,671,611,496 - 2,259,431,597,112) /
    2,781,381,002,400 = 411,277,793,792 / 2,781,381,002,400 (14.7868%)."""
    result = analyze("bad-beat", "BADBEAT-003")
    assert result["deals"] == DEALS
    assert Fraction(result["exact"]["hit_frequency"]) == Fraction(110_671_611_496, DEALS)
    assert Fraction(result["exact"]["house_edge"]) == Fraction(411_277_793_792, DEALS)
    assert f"{result['house_edge']:.4%}" == "14.7868%"


@pytest.mark.parametrize("table", ["BLIND-003", "BLIND-004"])
def test_blind_full_deck_by_hand_R35(table: str) -> None:
    """BLIND-003 = BLIND-004 pay 500/50/10/3/3:2/1 on a win with a straight or better
    (003 "Ultimate Texas Hold'em: Blind Wager Payout Table", 004 "Ultimate Texas Hold'em
    Paytable"), push any other win. Hits 85,615,200 + 734,237,144 + 4,240,864,800 +
    62,810,500,464 + 71,523,195,288 + 103,685,076,072 = 243,079,488,968; paid 42,807,600,000 +
    36,711,857,200 + 42,408,648,000 + 188,431,501,392 + 107,284,792,932 + 103,685,076,072 =
    521,329,475,596; losses 1,334,125,369,292; pushes 2,781,381,002,400 - 243,079,488,968 -
    1,334,125,369,292 = 1,204,176,144,140; edge (1,334,125,369,292 - 521,329,475,596) / deals =
    812,795,893,696 / 2,781,381,002,400 (29.2227%)."""
    result = analyze("blind", table)
    exact = {name: Fraction(x) for name, x in result["exact"].items()}
    assert exact == {
        "hit_frequency": Fraction(243_079_488_968, DEALS),
        "push_frequency": Fraction(1_204_176_144_140, DEALS),
        "lose_frequency": Fraction(1_334_125_369_292, DEALS),
        "house_edge": Fraction(812_795_893_696, DEALS),
    }
    assert f"{result['house_edge']:.4%}" == "29.2227%"


def test_cli_analyze_bad_beat_json_figures() -> None:
    """`tablectl analyze --game ultimate-texas-holdem --wager bad-beat --json`, the 003 table."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["analyze", "--game", "ultimate-texas-holdem", "--wager", "bad-beat", "--json"])
    assert code == 0
    result = json.loads(out.getvalue())
    assert result["exact"] == {
        "hit_frequency": "13833951437/347672625300",
        "house_edge": "12852431056/86918156325",
    }
    assert result["player_counts"] == {"win": WIN, "tie": TIE, "lose": LOSE}
