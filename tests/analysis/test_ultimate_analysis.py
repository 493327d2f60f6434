"""Exact Trips, Blind and Bad Beat figures: hand counts, brute force on boards and small decks.

The counting the full Blind and Bad Beat count (every deal of 52 cards,
test_ultimate_full_deck.py) uses is checked against brute force here: every hole-card deal on
chosen full-deck boards, on random boards of a 28-card deck, and every deal of a 12-card deck,
plus the board-class weights against every board of a 24-card deck.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stdout
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.analysis import ultimate_showdowns
from tablectl.analysis.ultimate import (
    FULL_DECK_VALUES,
    ShowdownCounts,
    all_board_classes,
    analyze,
    bad_beat_figures,
    blind_figures,
    board_counts,
    board_key,
    class_arrays,
    rank_tables,
    showdown_counts,
    trips_figures,
)
from tablectl.analysis.ultimate_showdowns import count_all_types, count_three_suited, plain_codes
from tablectl.cli import main
from tablectl.rules.paytables import payout
from tablectl.rules.poker import best_rank, rank_category
from tablectl.rules.ultimate import bad_beat_category, blind_result, paytable
from tablectl_base.cards import RANKS, Card, parse_card


def deck(values: tuple[int, ...]) -> list[Card]:
    """Four suits of the given poker values (14 is the ace)."""
    return [Card(RANKS[0] if v == 14 else RANKS[v - 1], s) for v in values for s in "shdc"]


def cards(text: str) -> list[Card]:
    """Cards written like "Ts Js Qs Ks As"."""
    return [parse_card(c) for c in text.split()]


def brute_board(board: list[Card], values: tuple[int, ...]) -> ShowdownCounts:
    """Every ordered (player, player-dealer) pair of disjoint hole pairs on `board`, one by one."""
    rest = [c for c in deck(values) if c not in board]
    pairs = list(combinations(range(len(rest)), 2))
    masks = [(1 << i) | (1 << j) for i, j in pairs]
    ranks = [best_rank([*board, rest[i], rest[j]]) for i, j in pairs]
    win, tie, lose = Counter[str](), Counter[str](), Counter[str]()
    for pm, pr in zip(masks, ranks, strict=True):
        category = rank_category(pr)
        for dm, dr in zip(masks, ranks, strict=True):
            if pm & dm:
                continue
            if pr > dr:
                win[category] += 1
            elif pr < dr:
                lose[category] += 1
            else:
                tie[category] += 1
    return ShowdownCounts(dict(win), dict(tie), dict(lose))


def as_dicts(counts: ShowdownCounts) -> tuple[dict[str, int], ...]:
    return dict(counts.win), dict(counts.tie), dict(counts.lose)


# ---------------------------------------------------------------- Trips (003 "Ultimate Texas
# Hold'em: Trips Bonus Bet Payout Table", 004 "Ultimate Texas Hold'em Paytable")

# Best-five categories of the C(52,7) = 133,784,560 seven-card sets (the published counts).
SEVEN = {
    "royal-flush": 4_324,
    "straight-flush": 37_260,
    "four-of-a-kind": 224_848,
    "full-house": 3_473_184,
    "flush": 4_047_644,
    "straight": 6_180_020,
    "three-of-a-kind": 6_461_620,
}
HANDS = 133_784_560


def test_trips_003_figures_by_hand_R35() -> None:
    """Hits 4,324 + 37,260 + 224,848 + 3,473,184 + 4,047,644 + 6,180,020 + 6,461,620 =
    20,428,900. Paid at 50/40/30/8/6/5/3 (003 "Ultimate Texas Hold'em: Trips Bonus Bet Payout
    Table"): 216,200 + 1,490,400 + 6,745,440 + 27,785,472 + 24,285,864 + 30,900,100 + 19,384,860 =
    110,808,336. The player loses 133,784,560 - 20,428,900 = 113,355,660 stakes, so the house edge
    is (113,355,660 - 110,808,336) / 133,784,560 = 2,547,324 / 133,784,560 (1.904%)."""
    assert sum(SEVEN.values()) == 20_428_900
    hit, edge = trips_figures(paytable("TRIPS-003"))
    assert hit == Fraction(20_428_900, HANDS)
    assert edge == Fraction(2_547_324, HANDS)
    assert f"{float(edge):.4%}" == "1.9040%"


def test_trips_004_figures_by_hand() -> None:
    """004 "Ultimate Texas Hold'em Paytable" pay 50/40/30/9/7/4/3: 216,200 + 1,490,400 + 6,745,440 +
    31,258,656 + 28,333,508 + 24,720,080 + 19,384,860 = 112,149,144 paid, so the edge is
    (113,355,660 - 112,149,144) / 133,784,560 = 1,206,516 / 133,784,560 (0.902%)."""
    hit, edge = trips_figures(paytable("TRIPS-004"))
    assert hit == Fraction(20_428_900, HANDS)
    assert edge == Fraction(1_206_516, HANDS)


def test_trips_analyze_result() -> None:
    result = analyze("trips", "TRIPS-003")
    assert result["game"] == "ultimate-texas-holdem"
    assert result["wager"] == "trips"
    assert result["paytable"] == "TRIPS-003"
    assert result["method"] == "exact"
    assert result["hands"] == HANDS
    assert result["hit_frequency"] == pytest.approx(20_428_900 / HANDS)
    assert result["house_edge"] == pytest.approx(2_547_324 / HANDS)
    assert {c: result["counts"][c] for c in SEVEN} == SEVEN


def test_cli_analyze_trips_prints_only_json_R35() -> None:
    """`tablectl analyze --game ultimate-texas-holdem --wager trips --json` defaults to 003."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["analyze", "--game", "ultimate-texas-holdem", "--wager", "trips", "--json"])
    assert code == 0
    result = json.loads(out.getvalue())
    assert result["paytable"] == "TRIPS-003"
    assert result["house_edge"] == pytest.approx(2_547_324 / HANDS)


def test_analyze_refuses_a_table_of_another_wager() -> None:
    # the refusal lists the Trips tables only (003 and 004 each print one)
    message = (
        "BLIND-003 is a blind table, not a trips table: the trips pay tables are TRIPS-003, "
        "TRIPS-004"
    )
    with pytest.raises(ValueError, match=f"^{message}$"):
        analyze("trips", "BLIND-003")
    with pytest.raises(ValueError, match="'ante' is not an analyzed"):
        analyze("ante")


# ---------------------------------------------------------------- boards worked by hand


def test_royal_flush_board_ties_every_deal() -> None:
    """On Ts Js Qs Ks As both hands play the board: 1,081 player pairs x 990 dealer pairs tie."""
    counts = board_counts(cards("Ts Js Qs Ks As"))
    assert as_dicts(counts) == ({}, {"royal-flush": 1081 * 990}, {})


def test_four_aces_board_by_hand() -> None:
    """As Ah Ad Ac Qs: a king in the hole makes the kicker K, anything else plays the Q.
    172 player pairs hold one king (4 x 43) and beat the C(42,2) = 861 dealer pairs with none;
    6 hold two kings and beat C(43,2) = 903; the other 903 lose to the 990 - C(41,2) = 170 dealer
    pairs holding a king. Wins 172*861 + 6*903 = 153,510 = losses 903*170; the rest tie."""
    counts = board_counts(cards("As Ah Ad Ac Qs"))
    assert as_dicts(counts) == (
        {"four-of-a-kind": 153_510},
        {"four-of-a-kind": 1081 * 990 - 2 * 153_510},
        {"four-of-a-kind": 153_510},
    )
    # Every loss is a beaten four of a kind: the Bad Beat's 500 to 1
    # (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet Payout Table"), both sides.
    figures = bad_beat_figures(paytable("BADBEAT-003"), counts)
    assert figures["hit_frequency"] == Fraction(2 * 153_510, 1081 * 990)


@pytest.mark.parametrize(
    "board",
    [
        "2h 3h 4h 4s 5d",  # three hearts, a pair, the wheel and straight flush draws
        "2h 3h 4h 5h 5d",  # four hearts: one heart in the hole makes a flush
        "Ks 9s 6h Kd Ac",  # two suits of two: no flush for anyone
        "As Ks 2s 7d 7h",  # exactly three spades and a pair: flushes need two spades in the hole
        "9h Th Jh Qd Kc",  # three hearts in a run: straight flushes, straights, flushes
    ],
)
def test_counting_matches_brute_force_on_full_deck_boards(board: str) -> None:
    """The inclusion-exclusion count equals every one of the 1,081 x 990 deals, one by one."""
    b = cards(board)
    assert as_dicts(board_counts(b)) == as_dicts(brute_board(b, FULL_DECK_VALUES))


@settings(max_examples=4, deadline=None)
@given(st.permutations(deck(FULL_DECK_VALUES)).map(lambda d: d[:5]))
def test_counting_matches_brute_force_on_random_full_deck_boards(board: list[Card]) -> None:
    """A board's class (its rank counts and three-or-more suit) counted with the rank codes
    equals its 1,081 x 990 deals one by one, each ranked by the evaluator."""
    assert as_dicts(board_counts(board)) == as_dicts(brute_board(board, FULL_DECK_VALUES))


SMALL = tuple(range(8, 15))  # 8 9 T J Q K A: 28 cards, straights T-A, 9-K, 8-Q and flushes


@settings(max_examples=25, deadline=None)
@given(st.permutations(deck(SMALL)).map(lambda d: d[:5]))
def test_counting_matches_brute_force_on_random_boards(board: list[Card]) -> None:
    assert as_dicts(board_counts(board, SMALL)) == as_dicts(brute_board(board, SMALL))


# ---------------------------------------------------------------- board classes


def test_board_classes_weigh_every_board_of_a_24_card_deck() -> None:
    """Rank counts plus the three-or-more suit's ranks: the weights are the boards, exactly."""
    values = tuple(range(9, 15))
    seen = Counter(board_key(list(b), values) for b in combinations(deck(values), 5))
    weighed = {(counts, suited): boards for counts, suited, boards in all_board_classes(values)}
    assert weighed == dict(seen)


def test_board_classes_cover_the_52_card_deck() -> None:
    """All C(52,5) = 2,598,960 boards; those with three or more of a suit number
    4 * (C(13,3) * C(39,2) + C(13,4) * 39 + C(13,5)) = 4 * (211,926 + 27,885 + 1,287) = 964,392."""
    total = flush = 0
    for _, suited, boards in all_board_classes():
        total += boards
        flush += boards if suited else 0
    assert total == 2_598_960
    assert flush == 964_392


# ---------------------------------------------------------------- whole small decks


QKA = (12, 13, 14)  # 12 cards: C(12,5) * C(7,2) * C(5,2) = 792 * 21 * 10 = 166,320 deals


def brute_deck(values: tuple[int, ...]) -> dict[str, Fraction]:
    """Blind and Bad Beat returns summed over every deal of the deck, settled one by one by the
    engine's rules (tablectl.rules.ultimate), and the deal count."""
    blind, bad_beat = paytable("BLIND-003"), paytable("BADBEAT-003")
    cards_ = deck(values)
    totals = {"deals": Fraction(0), "blind": Fraction(0), "bad-beat": Fraction(0)}
    for board in combinations(cards_, 5):
        rest = [c for c in cards_ if c not in board]
        hands = [
            ((1 << i) | (1 << j), best_rank([*board, rest[i], rest[j]]))
            for i, j in combinations(range(len(rest)), 2)
        ]
        for pm, pr in hands:
            for dm, dr in hands:
                if pm & dm:
                    continue
                totals["deals"] += 1
                verdict, category = blind_result(pr, dr)
                if verdict == "win" and category is not None:
                    totals["blind"] += payout(blind, category)
                elif verdict == "lose":
                    totals["blind"] -= 1
                beaten = bad_beat_category(pr, dr)
                totals["bad-beat"] += payout(bad_beat, beaten) if beaten else -1
    return totals


def test_whole_12_card_deck_matches_brute_force() -> None:
    """Every deal of Q, K, A in four suits; house edge = minus the average return."""
    brute = brute_deck(QKA)
    assert brute["deals"] == 166_320
    counts = showdown_counts(QKA)
    assert counts.deals == 166_320
    assert sum(counts.win.values()) == sum(counts.lose.values())  # swapping the hole pairs
    assert blind_figures(paytable("BLIND-003"), counts)["house_edge"] == -brute["blind"] / 166_320
    bad_beat = bad_beat_figures(paytable("BADBEAT-003"), counts)
    assert bad_beat["house_edge"] == -brute["bad-beat"] / 166_320


def test_analyze_blind_and_bad_beat_on_a_small_deck() -> None:
    result = analyze("bad-beat", values=QKA)
    assert result["method"] == "exact"
    assert result["paytable"] == "BADBEAT-003"
    assert result["deals"] == 166_320
    assert "never folds" in result["assumes"]
    blind = analyze("blind", "BLIND-004", values=QKA)
    assert blind["paytable"] == "BLIND-004"
    total = blind["hit_frequency"] + blind["push_frequency"] + blind["lose_frequency"]
    assert total == pytest.approx(1.0)


def test_three_suited_classes_merged_count_as_with_every_type() -> None:
    """Every full-deck class whose flush suit holds exactly three board cards (26,026 of them),
    counted with the off- and in-suit cards of a rank merged, equals the count with all 23
    types apart (the path of the classes whose suit holds more)."""
    values = FULL_DECK_VALUES
    classes = [c for c in all_board_classes(values) if len(c[1]) == 3]
    assert len(classes) == 26_026
    counts, suited, weights = class_arrays(values, classes)
    tables = rank_tables(values)
    args = (tables, plain_codes(tables, counts), counts, suited, weights)
    merged = count_three_suited(*args)
    apart = count_all_types(*args, True)
    assert merged.tolist() == apart.tolist()


def test_the_count_does_not_depend_on_its_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The classes are counted CHUNK (256) at a time; 7 at a time gives the same counts."""
    whole = showdown_counts(SMALL)
    monkeypatch.setattr(ultimate_showdowns, "CHUNK", 7)
    assert showdown_counts.__wrapped__(SMALL) == whole


# ---------------------------------------------------------------- figures from counts


def test_blind_and_bad_beat_figures_from_counts_by_hand() -> None:
    """40 deals: the player wins 10 with a straight and 5 with a pair, ties 3 with a pair, loses
    2 with three of a kind and 20 with high card. Blind (BLIND-003): 10 paid 1 to 1, 22 lost,
    8 pushed: edge (22 - 10) / 40 = 3/10. Bad Beat (BADBEAT-003): the 2 beaten trips and, by
    swapping the hands, 2 more, each paid 9 to 1: 4 hits, 36 paid, 36 lost: edge 0."""
    counts = ShowdownCounts(
        win={"straight": 10, "pair": 5},
        tie={"pair": 3},
        lose={"three-of-a-kind": 2, "high-card": 20},
    )
    blind = blind_figures(paytable("BLIND-003"), counts)
    assert blind == {
        "hit_frequency": Fraction(10, 40),
        "push_frequency": Fraction(8, 40),
        "lose_frequency": Fraction(22, 40),
        "house_edge": Fraction(3, 10),
    }
    assert bad_beat_figures(paytable("BADBEAT-003"), counts) == {
        "hit_frequency": Fraction(4, 40),
        "house_edge": Fraction(0),
    }
