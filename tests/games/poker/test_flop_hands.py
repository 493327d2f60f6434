"""Showdown hands of the flop games (tablectl.rules.flop_hands), worked by hand from the documents.

Texas Hold'em: 003 "Texas Hold-Em (High)", 004 "Texas Hold'em: Object of the Game". Omaha:
003 "Omaha (High)", "Omaha (High-Low Split)", 004 "Omaha High/Low Split". Crazy Pineapple:
003 "Crazy Pineapple High-Low Split". The property tests compare the evaluators with a brute force
written here (every legal five cards, ranked by the documents' hand-ranking prose) and the high
hands with treys (an independent evaluator from PyPI; `PLOEvaluator` is its Omaha, two and three).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card as TCard
from treys import Evaluator, PLOEvaluator

from tablectl.rules.flop_hands import (
    crazy_pineapple_high,
    crazy_pineapple_keep,
    crazy_pineapple_low,
    holdem_high,
    omaha_high,
    omaha_low,
)
from tablectl.rules.low import describe_low, low_key
from tablectl.rules.poker import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    ROYAL_FLUSH,
    STRAIGHT_FLUSH,
    TRIPS,
    HandError,
    five_card_rank,
    rank_category,
)
from tablectl_base.cards import Card, parse_card, standard_deck


def hand(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def names(cards: Sequence[Card]) -> list[str]:
    return sorted(map(str, cards))


# ---------------------------------------------------------------- Omaha high: two and three


def test_omaha_documents_example_full_house_wins_003() -> None:
    """003 "Omaha (High)" example, board 6c 8c 6d 3h 6s:
    2s 4c Jd 9h "Three 6s, Jack high" LOSE: the board's three sixes and J 9 from the hand;
    Tc 5c Qc Ah "Three 6s, Ace high" LOSE: three clubs in the hand but only two on the board, so
    no flush; the sixes with A Q;
    Kh Kd 7h Jh "Full House, 6s over Kings" WINNER: K K from the hand with the three sixes."""
    board = hand("6c 8c 6d 3h 6s")
    jack, ace, kings = (
        omaha_high(hand(h), board) for h in ("2s 4c Jd 9h", "Tc 5c Qc Ah", "Kh Kd 7h Jh")
    )
    assert jack[0] == (TRIPS, 6, 6, 6, 11, 9)
    assert ace[0] == (TRIPS, 6, 6, 6, 14, 12)
    assert kings[0] == (FULL_HOUSE, 6, 6, 6, 13, 13)
    assert names(kings[1]) == ["6c", "6d", "6s", "Kd", "Kh"]
    assert kings[0] > ace[0] > jack[0]


def test_omaha_four_hearts_on_board_and_one_in_hand_make_no_flush_003_004() -> None:
    """003 "Omaha (High)" rule 3, 004 "Omaha High/Low Split: Object of the Game": two hole cards
    and three board cards. Board Kh Qh 7h 4h 2c, hand Ah As 9d 8c: the one heart in the hand needs
    four from the board, so no flush; the best is the aces with K Q 7 from the board. In Hold'em the
    same ace of hearts makes the ace-high flush. With two hearts in the hand (Ah 3h) the flush
    is A-K-Q-7-3."""
    board = hand("Kh Qh 7h 4h 2c")
    rank, five = omaha_high(hand("Ah As 9d 8c"), board)
    assert rank == (PAIR, 14, 14, 13, 12, 7)
    assert names(five) == ["7h", "Ah", "As", "Kh", "Qh"]
    assert holdem_high(hand("Ah As"), board)[0] == (FLUSH, 14, 13, 12, 7, 4)
    assert omaha_high(hand("Ah 3h 9d 8c"), board)[0] == (FLUSH, 14, 13, 12, 7, 3)


def test_omaha_cannot_play_the_board_003() -> None:
    """003 "Omaha (High)" rule 3: "must use two of the hole cards". A royal flush on the board
    with 2c 3d 4s 5d in the hand: two hole cards and three of A K Q J T, no pair, no straight
    (A-2-3-4-5 would need four hole cards), no flush: A-K-Q with 5-4, high card."""
    rank, five = omaha_high(hand("2c 3d 4s 5d"), hand("Ah Kh Qh Jh Th"))
    assert rank == (HIGH_CARD, 14, 13, 12, 5, 4)
    assert names(five) == ["4s", "5d", "Ah", "Kh", "Qh"]


def test_omaha_three_of_a_kind_in_the_hand_plays_as_a_pair_003() -> None:
    """003 "Omaha (High)" rule 3: "Don't get terribly excited about being dealt three or four of a
    kind!" Ks Kh Kd 2c on Ac 8d 7s 4h Jc: only two kings play, with A J 8 from the board."""
    assert omaha_high(hand("Ks Kh Kd 2c"), hand("Ac 8d 7s 4h Jc"))[0] == (PAIR, 13, 13, 14, 11, 8)


# ---------------------------------------------------------------- Omaha low


def test_omaha_low_is_two_hole_and_three_board_cards_004() -> None:
    """004 "Omaha High/Low Split: Card Values and Hand Rankings": the two hole cards used and the
    three community cards used cannot contain a 9 or higher.
    Ah 2h Kc Qd on 3s 4d 5c Jh Tc: A 2 with 3 4 5, the wheel.
    Ah 2h 3c 4d on 5s 6d Kc Qh Jc: four low hole cards but only two low board cards: no low.
    Ah Kc Qd Js on 2s 3d 4c 5h 8c: four low board cards but one low hole card: no low."""
    low = omaha_low(hand("Ah 2h Kc Qd"), hand("3s 4d 5c Jh Tc"))
    assert low is not None and describe_low(low[0]) == "5-4-3-2-A"
    assert names(low[1]) == ["2h", "3s", "4d", "5c", "Ah"]
    assert omaha_low(hand("Ah 2h 3c 4d"), hand("5s 6d Kc Qh Jc")) is None
    assert omaha_low(hand("Ah Kc Qd Js"), hand("2s 3d 4c 5h 8c")) is None


def test_omaha_low_pairing_the_board_counts_against_it_004() -> None:
    """004: "if the player has a pair or higher in their low hand, the hand does not qualify".
    Ah 2c Kd Ks on 2h 3s 8d Qc Jh: the low cards are A 2 in the hand and 2 3 8 on the board; the
    only low board triple has a 2 the hand's 2 pairs: A 2 + 2 3 8 is paired; no low."""
    assert omaha_low(hand("Ah 2c Kd Ks"), hand("2h 3s 8d Qc Jh")) is None


def test_omaha_same_cards_may_win_high_and_low_003() -> None:
    """003 "Omaha (High-Low Split)": "The same cards may even be used for high and low. For
    example, A-2-3-4-5 could win for best high and low hand." Ah 2h Kc Kd on 3h 4h 5h 9c Ks: A 2
    of hearts with 3 4 5 of hearts is the 5-high straight flush and the wheel; the kings' three
    of a kind (K K + K) is below it."""
    hole, board = hand("Ah 2h Kc Kd"), hand("3h 4h 5h 9c Ks")
    high, high_five = omaha_high(hole, board)
    low = omaha_low(hole, board)
    assert high == (STRAIGHT_FLUSH, 5, 4, 3, 2, 1)
    assert low is not None and describe_low(low[0]) == "5-4-3-2-A"
    assert names(high_five) == names(low[1]) == ["2h", "3h", "4h", "5h", "Ah"]


def test_omaha_high_and_low_may_use_different_hole_cards_003_rule_7_004() -> None:
    """003 "Omaha (High-Low Split)" rule 7, 004 "How The Pot Is Awarded": "not required to use the
    same hole cards and community cards". Ks Kd 2c 3d on Kh 7c 4s 8d Qh: the high is K K from the
    hand with the board's K Q 8, three kings (no straight, no flush: no hearts in the hand); the
    low can only use 2 3 from the hand, with 8 7 4: 8-7-4-3-2."""
    hole, board = hand("Ks Kd 2c 3d"), hand("Kh 7c 4s 8d Qh")
    high, high_five = omaha_high(hole, board)
    low = omaha_low(hole, board)
    assert high == (TRIPS, 13, 13, 13, 12, 8)
    assert names(high_five) == ["8d", "Kd", "Kh", "Ks", "Qh"]
    assert low is not None and describe_low(low[0]) == "8-7-4-3-2"
    assert names(low[1]) == ["2c", "3d", "4s", "7c", "8d"]


def test_omaha_low_qualifier_is_a_parameter_9_qualifier_003() -> None:
    """003 "Omaha (High-Low Split)" plays 8 or better; 003's "Poker Games Collection Rates" names
    an "Omaha High-Low Split (9 Qualifier)". Ah 2c Kd Ks on 3h 4h 9c Tc Jd: A 2 with 3 4 9 is
    9-4-3-2-A: no low for 8 or better, a low for 9 or better."""
    hole, board = hand("Ah 2c Kd Ks"), hand("3h 4h 9c Tc Jd")
    assert omaha_low(hole, board) is None
    low = omaha_low(hole, board, 9)
    assert low is not None and describe_low(low[0]) == "9-4-3-2-A"


# ---------------------------------------------------------------- Texas Hold'em


def test_holdem_uses_two_one_or_no_hole_cards_003() -> None:
    """003 "Texas Hold-Em (High)" rule 3: "any five of the community cards and one, two, or none of
    their hole cards". A royal flush on the board plays with no hole card; Ah on Kh Qh Jh Th 3c
    uses one; 9c 9d on 9s 4h 4c Kd 2s uses both (nines full of fours)."""
    rank, five = holdem_high(hand("2c 3d"), hand("Ah Kh Qh Jh Th"))
    assert rank_category(rank) == ROYAL_FLUSH and names(five) == ["Ah", "Jh", "Kh", "Qh", "Th"]
    rank, five = holdem_high(hand("Ah 2c"), hand("Kh Qh Jh Th 3c"))
    assert rank_category(rank) == ROYAL_FLUSH and "Ah" in names(five)
    assert holdem_high(hand("9c 9d"), hand("9s 4h 4c Kd 2s"))[0] == (FULL_HOUSE, 9, 9, 9, 4, 4)


# ---------------------------------------------------------------- Crazy Pineapple


def test_crazy_pineapple_keeps_two_of_three_after_the_flop_003() -> None:
    """003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play": three hole
    cards; after the flop each active player discards one, leaving two."""
    assert crazy_pineapple_keep(hand("Ah Kc 7d"), parse_card("Kc")) == tuple(hand("Ah 7d"))
    with pytest.raises(HandError, match="not one of the hole cards"):
        crazy_pineapple_keep(hand("Ah Kc 7d"), parse_card("2c"))
    with pytest.raises(HandError, match="deals 3 different hole cards"):
        crazy_pineapple_keep(hand("Ah Kc"), parse_card("Kc"))
    with pytest.raises(HandError, match="discarded after the flop"):
        crazy_pineapple_high(hand("Ah Kc 7d"), hand("2c 3d 4h 5s 9c"))


def test_crazy_pineapple_with_no_qualifying_9_low_003() -> None:
    """003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes": "If there is
    no qualifying five-card low poker hand ... the entire pot" goes high. Kc Qd on Ah 2s 3d Td Jc:
    at 9 or under only A 2 3; 9c 9d on Ah 2s 3d Kc Qh: A 2 3 9, four values, the nines pair."""
    assert crazy_pineapple_low(hand("Kc Qd"), hand("Ah 2s 3d Td Jc")) is None
    assert crazy_pineapple_low(hand("9c 9d"), hand("Ah 2s 3d Kc Qh")) is None


def test_crazy_pineapple_9_low_qualifies_003() -> None:
    """003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings": "a 9 high or better".
    9c 2d on Ah 3s 4d Kc Qh: 9-4-3-2-A (no low at 8 or better, a low here)."""
    low = crazy_pineapple_low(hand("9c 2d"), hand("Ah 3s 4d Kc Qh"))
    assert low is not None and low[0] == low_key(hand("9c 4d 3s 2d Ah"))


def test_crazy_pineapple_may_play_the_board_for_low_003() -> None:
    """003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes": "zero, one, or
    both hole cards". Kc Kd on Ah 2s 3d 4c 6h: the low is the board, 6-4-3-2-A; the high is the
    kings with A 6 4."""
    low = crazy_pineapple_low(hand("Kc Kd"), hand("Ah 2s 3d 4c 6h"))
    assert low is not None and describe_low(low[0]) == "6-4-3-2-A"
    assert names(low[1]) == ["2s", "3d", "4c", "6h", "Ah"]
    assert crazy_pineapple_high(hand("Kc Kd"), hand("Ah 2s 3d 4c 6h"))[0] == (
        PAIR,
        13,
        13,
        14,
        6,
        4,
    )


def test_crazy_pineapple_high_and_low_need_not_use_the_same_cards_003() -> None:
    """003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes": "They do not
    have to use the same cards". Ah Kd on Kh 2c 3s 7d 9c: high is the kings with A 9 7; low is
    A 2 3 7 9, 9-7-3-2-A (the king out, the ace in both)."""
    hole, board = hand("Ah Kd"), hand("Kh 2c 3s 7d 9c")
    high, high_five = crazy_pineapple_high(hole, board)
    low = crazy_pineapple_low(hole, board)
    assert high == (PAIR, 13, 13, 14, 9, 7)
    assert low is not None and describe_low(low[0]) == "9-7-3-2-A"
    assert set(high_five) != set(low[1])


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "hole", "board", "message"),
    [
        (omaha_high, "Ah 2h Kc", "3s 4d 5c Jh Tc", "Omaha shows down 4 hole cards, got 3"),
        (omaha_low, "Ah 2h Kc Qd", "3s 4d 5c Jh", "board holds 5 community cards, got 4"),
        (holdem_high, "Ah 2h Kc", "3s 4d 5c Jh Tc", "Texas Hold'em shows down 2 hole cards"),
        (holdem_high, "Ah 2h", "Ah 4d 5c Jh Tc", "appears twice"),
        (crazy_pineapple_low, "Ah JKR", "3s 4d 5c Jh Tc", "joker"),
    ],
)
def test_showdown_hands_refuse_wrong_cards(
    call: object, hole: str, board: str, message: str
) -> None:
    assert callable(call)
    with pytest.raises(HandError, match=message):
        call(hand(hole), hand(board))


def test_omaha_low_refuses_an_unposted_qualifier() -> None:
    with pytest.raises(HandError, match="qualifier 7 is not posted"):
        omaha_low(hand("Ah 2h Kc Qd"), hand("3s 4d 5c Jh Tc"), 7)


# ---------------------------------------------------------------- references

_HIGH = {r: v for v, r in enumerate("23456789TJQKA", start=2)}
_LOW = {r: v for v, r in enumerate("A23456789TJQK", start=1)}


def _ref_high(five: Sequence[Card]) -> tuple[int, list[int]]:
    """A five-card high hand from the documents' ranking table (004 "Omaha High/Low Split: Card
    Values and Hand Rankings"): category 0 (high card) .. 8 (straight flush), then the values that
    break ties, most copies first; the wheel's ace counts as 1."""
    values = sorted((_HIGH[c.rank] for c in five), reverse=True)
    if values == [14, 5, 4, 3, 2]:
        values = [5, 4, 3, 2, 1]
    counts = Counter(values)
    shape = sorted(counts.values(), reverse=True)
    order = sorted(values, key=lambda v: (counts[v], v), reverse=True)
    straight = len(counts) == 5 and values[0] - values[4] == 4
    flush = len({c.suit for c in five}) == 1
    by_shape = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}
    if straight and flush:
        return 8, order
    if tuple(shape) in ((4, 1), (3, 2)):
        return by_shape[tuple(shape)], order
    if flush:
        return 5, order
    if straight:
        return 4, order
    return by_shape.get(tuple(shape), 0), order


def _ref_low(five: Sequence[Card]) -> tuple[list[int], list[int]]:
    """A low: the high ranking read with the ace low and straights and flushes not counted,
    smaller better (003 "Omaha (High-Low Split)" rule 6)."""
    values = [_LOW[c.rank] for c in five]
    counts = Counter(values)
    return sorted(counts.values(), reverse=True), sorted(
        values, key=lambda v: (counts[v], v), reverse=True
    )


def _ref_qualifies(five: Sequence[Card], qualifier: int) -> bool:
    """Five different values, none above the qualifier."""
    values = {_LOW[c.rank] for c in five}
    return len(values) == 5 and max(values) <= qualifier


def _omaha_legal(hole: Sequence[Card], board: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every five of the nine cards with exactly two from the hand."""
    return [f for f in combinations([*hole, *board], 5) if len(set(f) & set(hole)) == 2]


def _omaha_deal(players: int) -> st.SearchStrategy[list[Card]]:
    """Five board cards then four hole cards for each player, all different."""
    n = 5 + 4 * players
    return st.lists(st.sampled_from(standard_deck()), min_size=n, max_size=n, unique=True)


low_deck = [c for c in standard_deck() if c.rank in "A2345678"] + hand("9c Tc Kd Qh")


@settings(max_examples=150, deadline=None)
@given(_omaha_deal(1))
def test_omaha_high_equals_brute_force_over_two_and_three(cards: list[Card]) -> None:
    board, hole = cards[:5], cards[5:]
    rank, five = omaha_high(hole, board)
    assert rank == five_card_rank(five)
    assert len(set(five) & set(hole)) == 2 and len(set(five) & set(board)) == 3
    assert _ref_high(five) == max(_ref_high(f) for f in _omaha_legal(hole, board))


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        _omaha_deal(1),
        st.lists(st.sampled_from(low_deck), min_size=9, max_size=9, unique=True),
    ),
    st.sampled_from([8, 9]),
)
def test_omaha_low_equals_brute_force_over_two_and_three(cards: list[Card], qualifier: int) -> None:
    board, hole = cards[:5], cards[5:]
    ours = omaha_low(hole, board, qualifier)
    legal = [f for f in _omaha_legal(hole, board) if _ref_qualifies(f, qualifier)]
    if not legal:
        assert ours is None
        return
    assert ours is not None
    key, five = ours
    assert len(set(five) & set(hole)) == 2 and len(set(five) & set(board)) == 3
    assert key == low_key(five) and _ref_qualifies(five, qualifier)
    assert _ref_low(five) == min(_ref_low(f) for f in legal)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(low_deck), min_size=7, max_size=7, unique=True))
def test_crazy_pineapple_low_equals_brute_force_over_any_five(cards: list[Card]) -> None:
    board, hole = cards[:5], cards[5:]
    ours = crazy_pineapple_low(hole, board)
    legal = [f for f in combinations(cards, 5) if _ref_qualifies(f, 9)]
    if not legal:
        assert ours is None
        return
    assert ours is not None and _ref_low(ours[1]) == min(_ref_low(f) for f in legal)


def _sign(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """1, 0 or -1: a is larger, equal or smaller."""
    return (a > b) - (a < b)


TREYS = Evaluator()
TREYS_OMAHA = PLOEvaluator()


def _treys(evaluator: Evaluator, hole: Sequence[Card], board: Sequence[Card]) -> tuple[int]:
    """treys' score of a hand, negated so that larger is better as in ours."""
    score = evaluator.evaluate(
        [TCard.new(str(c)) for c in hole], [TCard.new(str(c)) for c in board]
    )
    return (-int(score),)


@settings(max_examples=150, deadline=None)
@given(_omaha_deal(2))
def test_omaha_high_orders_hands_as_treys(cards: list[Card]) -> None:
    """Two Omaha hands on one board: ours and treys' Omaha (lower is better there) agree."""
    board, a, b = cards[:5], cards[5:9], cards[9:13]
    ours = _sign(omaha_high(a, board)[0], omaha_high(b, board)[0])
    theirs = _sign(_treys(TREYS_OMAHA, a, board), _treys(TREYS_OMAHA, b, board))
    assert ours == theirs


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(standard_deck()), min_size=9, max_size=9, unique=True))
def test_holdem_and_crazy_pineapple_high_order_hands_as_treys(cards: list[Card]) -> None:
    """Two hands of two hole cards on one board: best five of seven, as treys ranks it."""
    board, a, b = cards[:5], cards[5:7], cards[7:9]
    ours = _sign(holdem_high(a, board)[0], holdem_high(b, board)[0])
    theirs = _sign(_treys(TREYS, a, board), _treys(TREYS, b, board))
    assert ours == theirs
    assert crazy_pineapple_high(a, board) == holdem_high(a, board)
    rank, five = holdem_high(a, board)
    assert rank == five_card_rank(five)
    assert _ref_high(five) == max(_ref_high(f) for f in combinations([*a, *board], 5))
