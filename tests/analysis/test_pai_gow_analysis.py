"""Exact Fortune Bonus figures over all C(53,7) seven-card hands, against hand counts, published
counts, and a hand-by-hand pass over reduced decks.

The documents print no house advantage or hit frequency for the Fortune Bonus (003 "Fortune Pai Gow
Poker: Bonus Bet Paytable", 004 "Fortune Pai Gow Poker: Fortune and Envy Bonus Bet Paytable"), so
the figures are pinned through counts: the ones worked by hand below, the joker-free part against
the published 7-card poker frequencies, and the whole deck against the Wizard of Odds' published
seven-card counts for the same 154,143,080 hands (its "Pai Gow Mania - Seven Card Hand" table,
wizardofodds.com/games/pai-gow-poker/appendix/5/). The full pass takes about ten seconds and is
cached per process.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

from tablectl import cli
from tablectl.analysis.pai_gow import (
    NONE,
    analyze,
    category_counts,
    envy_per_other_hand,
    exact_figures,
    fortune_counts,
)
from tablectl.rules.pai_gow import PAYTABLE_PATH, fortune_category, fortune_paytable
from tablectl.rules.paytables import PayTable, load_paytables
from tablectl_base.cards import JOKER, SUITS, Card

HANDS = comb(53, 7)
JKR = Card(JOKER, "")


# ---------------------------------------------------------------- the pay table
# (003 "Fortune Pai Gow Poker: Bonus Bet Paytable")


def test_fortune_table_is_the_one_the_documents_print_003_1521_004_883() -> None:
    """003 "Fortune Pai Gow Poker: Bonus Bet Paytable", 003 "Fortune Pai Gow Poker: Table
    Dimensions" and 004 "Fortune Pai Gow Poker: Fortune and Envy Bonus Bet Paytable" print the same
    pays and Envy amounts; the documents give the table no name, "FORTUNE-003" is ours."""
    tables = load_paytables(PAYTABLE_PATH)
    assert list(tables) == ["FORTUNE-003"]
    table = tables["FORTUNE-003"]
    assert table.wager == "fortune"
    assert {c: int(p) for c, p in table.pays.items()} == {
        "seven-card-straight-flush": 5000,
        "royal-flush-royal-match": 2000,
        "seven-card-straight-flush-joker": 1000,
        "five-aces": 400,
        "royal-flush": 150,
        "straight-flush": 50,
        "four-of-a-kind": 25,
        "full-house": 5,
        "flush": 4,
        "three-of-a-kind": 3,
        "straight": 2,
    }
    assert {c: str(a) for c, a in table.envy.items()} == {
        "seven-card-straight-flush": "5000.00",
        "royal-flush-royal-match": "1000.00",
        "seven-card-straight-flush-joker": "500.00",
        "five-aces": "250.00",
        "royal-flush": "50.00",
        "straight-flush": "20.00",
        "four-of-a-kind": "5.00",
    }


# ---------------------------------------------------------------- counts worked by hand


def test_every_one_of_the_c53_7_hands_is_counted_once() -> None:
    counts = fortune_counts()
    assert sum(counts.values()) == HANDS == 154_143_080
    assert sum(category_counts(False).values()) == comb(52, 7)
    assert sum(category_counts(True).values()) == comb(52, 6)


def test_seven_card_straight_flush_without_joker_is_32_hands_003_1378() -> None:
    """Four suits x eight runs, A-7 (the lowest, line 1378) up to 8-A (the highest)."""
    assert fortune_counts()["seven-card-straight-flush"] == 4 * 8 == 32


def test_royal_flush_with_royal_match_is_72_hands_003_1379() -> None:
    """Without the joker: 4 royal-flush suits x 3 suits for the K-Q = 12. With it (line 1497):
    the joker stands for one of the five royal cards, 4 x 5 x 3 = 60."""
    assert category_counts(False)["royal-flush-royal-match"] == 4 * 3 == 12
    assert category_counts(True)["royal-flush-royal-match"] == 4 * 5 * 3 == 60


def test_seven_card_straight_flush_with_joker_is_196_hands_003_1380() -> None:
    """Six cards of one suit inside one of the eight seven-card runs: 8 runs x 7 missing cards,
    less the 7 six-card runs (2-7 ... 8-K) that sit in two runs at once: 49 a suit, 196."""
    assert fortune_counts()["seven-card-straight-flush-joker"] == 4 * (8 * 7 - 7) == 196


def test_five_aces_is_four_aces_and_the_joker_with_any_two_others_003_1381() -> None:
    assert fortune_counts()["five-aces"] == comb(48, 2) == 1128


def test_trips_with_a_straight_counted_as_three_of_a_kind_by_hand_003_1534() -> None:
    """Without the joker, seven cards holding both a straight and three of a kind (and no
    flush) have exactly the five ranks of one straight with one of them three times: 10 runs x
    5 ranks x 4 ways for the three x 4^4 for the rest = 51,200, less the 600 whose five ranks
    also share a suit (a straight flush: 10 x 5 x 3 x 4). The 50,600 move from the straight's
    published count to three of a kind (the pay-table order, pai_gow.fortune_category)."""
    moved = 10 * 5 * 4 * 4**4 - 10 * 5 * 3 * 4
    assert moved == 50_600
    no_joker = category_counts(False)
    assert no_joker["three-of-a-kind"] == 6_461_620 + moved
    assert no_joker["straight"] == 6_180_020 - moved


def test_joker_free_part_matches_the_published_seven_card_poker_counts() -> None:
    """Seven of the 52 cards: straight flushes 41,584 (royal flushes among them 4,324), four of a
    kind 224,848, full house 3,473,184, flush 4,047,644, straight 6,180,020, three of a kind
    6,461,620 (Wikipedia "Poker probability", 7-card table). The Fortune categories regroup the
    straight flushes: 12 royal matches and the 4 ace-high and 28 other natural seven-card
    straight flushes come out of them."""
    c = category_counts(False)
    assert c["royal-flush"] == 4_324 - 12 - 4
    assert c["straight-flush"] == 41_584 - 4_324 - 28
    assert c["four-of-a-kind"] == 224_848
    assert c["full-house"] == 3_473_184
    assert c["flush"] == 4_047_644
    assert c["three-of-a-kind"] + c["straight"] == 6_461_620 + 6_180_020
    assert c.get("five-aces", 0) == 0 and c.get("seven-card-straight-flush-joker", 0) == 0


# Wizard of Odds, "Pai Gow Mania - Seven Card Hand": the best poker hand of seven cards of the
# 53-card deck (the joker an ace or completing a straight or flush), with three of a kind paid
# above a straight. It has no seven-card categories, so its royal flushes and straight flushes
# hold ours.
PUBLISHED = {
    "five-aces": 1_128,
    "royal-flush": 26_132,
    "straight-flush": 184_832,
    "four-of-a-kind": 307_472,
    "full-house": 4_188_528,
    "flush": 6_172_088,
    "three-of-a-kind": 7_672_500,
    "straight": 11_034_204,
    NONE: 124_556_196,
}


def test_whole_deck_matches_the_published_seven_card_counts() -> None:
    """Regrouping by hand: of the 196 joker seven-card straight flushes, 36 hold a royal flush (a
    suit's six-card sets in the run 8-A, 7, and 7-9-T-J-Q-K, 7-8-T-J-Q-K with the joker as the
    ace, 2); of the 32 natural ones, 4 (8-A). Royal matches are royal flushes."""
    c = fortune_counts()
    assert c["royal-flush"] + 72 + 4 + 36 == PUBLISHED["royal-flush"]
    assert c["straight-flush"] + 28 + (196 - 36) == PUBLISHED["straight-flush"]
    for category in (
        "five-aces",
        "four-of-a-kind",
        "full-house",
        "flush",
        "three-of-a-kind",
        "straight",
        NONE,
    ):
        assert c[category] == PUBLISHED[category], category


def test_fortune_003_hit_frequency_and_house_edge_exact() -> None:
    """From the published counts and the table of 003 "Fortune Pai Gow Poker: Bonus Bet Paytable",
    worked here: the wager wins on every hand but the 124,556,196 below a straight; the player's
    expected loss is what those lose less what the others are paid."""
    pays = {
        "seven-card-straight-flush": (32, 5000),
        "royal-flush-royal-match": (72, 2000),
        "seven-card-straight-flush-joker": (196, 1000),
        "five-aces": (1_128, 400),
        "royal-flush": (26_132 - 72 - 4 - 36, 150),
        "straight-flush": (184_832 - 28 - 160, 50),
        "four-of-a-kind": (307_472, 25),
        "full-house": (4_188_528, 5),
        "flush": (6_172_088, 4),
        "three-of-a-kind": (7_672_500, 3),
        "straight": (11_034_204, 2),
    }
    paid = sum(n * p for n, p in pays.values())
    hit, edge = exact_figures(fortune_paytable("FORTUNE-003"))
    assert hit == Fraction(HANDS - 124_556_196, HANDS)
    assert edge == Fraction(124_556_196 - paid, HANDS)
    assert f"{float(hit):.4%}" == "19.1944%"
    assert f"{float(edge):.2%}" == "7.83%"  # the third-party write-ups quote "7.8 percent"


def test_envy_per_other_hand_R32() -> None:
    """One Envy button's average win from one other Fortune hand: the Envy dollars
    (003 "Fortune Pai Gow Poker: Bonus Bet Paytable") weighted by the chance of each hand; about
    $0.0463, 0.93% of a $5 wager."""
    dollars = (
        32 * 5000 + 72 * 1000 + 196 * 500 + 1_128 * 250 + 26_020 * 50 + 184_644 * 20 + 307_472 * 5
    )
    assert envy_per_other_hand(fortune_paytable()) == Fraction(dollars, HANDS)


# ---------------------------------------------------------------- the counting, hand by hand


def _deck(ranks: str) -> list[Card]:
    return [Card(r, s) for r in ranks for s in SUITS]


def test_class_counting_matches_every_hand_of_a_four_rank_deck() -> None:
    """Every seven cards of J-Q-K-A in four suits and the joker (17 cards): five aces, fours of a
    kind, full houses, royal flushes and royal matches only with the joker as the ten."""
    deck = [*_deck("JQKA"), JKR]
    by_hand = Counter(fortune_category(h) or NONE for h in combinations(deck, 7))
    counted = Counter(category_counts(False, "JQKA"))
    counted.update(category_counts(True, "JQKA"))
    assert +counted == +by_hand
    assert sum(by_hand.values()) == comb(17, 7)
    assert by_hand["royal-flush-royal-match"] == 4 * 3  # A-K-Q-J suited, the joker, K-Q suited


def test_class_counting_matches_every_joker_hand_of_a_six_rank_deck() -> None:
    """The joker with every six of 9-T-J-Q-K-A: flushes that are no straight, seven-card
    straight flushes with the joker, royal matches."""
    reals = _deck("9TJQKA")
    by_hand = Counter(fortune_category([*h, JKR]) or NONE for h in combinations(reals, 6))
    assert +Counter(category_counts(True, "9TJQKA")) == +by_hand
    assert by_hand["seven-card-straight-flush-joker"] == 4  # 9-A suited, the joker as the 8
    assert by_hand["flush"] > 0


# ---------------------------------------------------------------- analyze and the CLI


def test_analyze_reports_the_exact_figures() -> None:
    result = analyze("fortune")
    assert result["game"] == "fortune-pai-gow"
    assert result["wager"] == "fortune"
    assert result["paytable"] == "FORTUNE-003"
    assert result["method"] == "exact"
    assert result["hands"] == HANDS
    assert result["counts"]["five-aces"] == 1128
    assert sum(result["counts"].values()) == HANDS
    hit, edge = exact_figures(fortune_paytable())
    assert (result["hit_frequency"], result["house_edge"]) == (float(hit), float(edge))
    assert result["envy"]["amounts"]["four-of-a-kind"] == "5.00"


def test_analyze_refuses_other_wagers_and_tables() -> None:
    with pytest.raises(ValueError, match="'envy' is not a Fortune Pai Gow wager"):
        analyze("envy")
    other = PayTable(name="X", wager="trips", pays={"straight": 1})
    with pytest.raises(ValueError, match="not fortune"):
        analyze("fortune", other)


def test_cli_analyze_fortune_pai_gow(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["analyze", "--game", "fortune-pai-gow", "--wager", "fortune", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)
    assert result["paytable"] == "FORTUNE-003"
    assert result["method"] == "exact"
    assert f"{result['house_edge']:.2%}" == "7.83%"
