"""Ultimate Texas Hold'em rules: pay tables as printed, the qualifier, the Blind, Trips, Bad Beat.

Every hand below was worked out by hand from the cards; the comments give the best five cards.
Document lines are 003_778c6ed4843c4815.txt ("003") and 004_dad8fc1ada8336f9.txt ("004").
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.rules.paytables import load_paytables, payout, winnings
from tablectl.rules.poker import PAIR, STRAIGHT, HandError, Rank, best_rank, rank_category
from tablectl.rules.ultimate import (
    DEFAULT_PAYTABLES,
    PAYTABLE_PATH,
    bad_beat_category,
    blind_result,
    dealer_qualifies,
    paytable,
    showdown,
    three_or_better,
    trips_category,
)
from tablectl_base.cards import Card, parse_card, standard_deck


def cards(text: str) -> list[Card]:
    """Cards written like "7h 7d 2c 9s Tc"."""
    return [parse_card(c) for c in text.split()]


def rank(board: str, hole: str) -> Rank:
    """Best rank of the five board cards and two hole cards."""
    return best_rank(cards(f"{board} {hole}"))


# ---------------------------------------------------------------- pay tables as printed


def test_paytables_load_with_003_pays() -> None:
    """003 "Ultimate Texas Hold'em: Blind Wager Payout Table" (Blind), 3588-3597 (Trips), 3614-3622
    (Bad Beat, by hand beaten)."""
    tables = load_paytables(PAYTABLE_PATH)
    assert dict(tables["BLIND-003"].pays) == {
        "royal-flush": 500,
        "straight-flush": 50,
        "four-of-a-kind": 10,
        "full-house": 3,
        "flush": Fraction(3, 2),
        "straight": 1,
    }
    assert dict(tables["TRIPS-003"].pays) == {
        "royal-flush": 50,
        "straight-flush": 40,
        "four-of-a-kind": 30,
        "full-house": 8,
        "flush": 6,
        "straight": 5,
        "three-of-a-kind": 3,
    }
    assert dict(tables["BADBEAT-003"].pays) == {
        "straight-flush": 7500,
        "four-of-a-kind": 500,
        "full-house": 50,
        "flush": 30,
        "straight": 20,
        "three-of-a-kind": 9,
    }
    assert {t.wager for t in tables.values()} == {"blind", "trips", "bad-beat"}


def test_paytables_load_with_004_pays() -> None:
    """004 "Ultimate Texas Hold'em Paytable": Trips Bonus 50/40/30/9/7/4/3, Blind 500/50/10/3/"3 :
    2"/1."""
    trips = paytable("TRIPS-004")
    assert dict(trips.pays) == {
        "royal-flush": 50,
        "straight-flush": 40,
        "four-of-a-kind": 30,
        "full-house": 9,
        "flush": 7,
        "straight": 4,
        "three-of-a-kind": 3,
    }
    assert dict(paytable("BLIND-004").pays) == dict(paytable("BLIND-003").pays)


def test_blind_flush_pays_3_to_2_003_line_3568() -> None:
    """ "Flush 3 to 2": a $10 Blind is paid $15, a $5.25 Blind $7.87 (the cent below $7.875)."""
    odds = payout(paytable("BLIND-003"), "flush")
    assert odds == Fraction(3, 2)
    assert winnings(Decimal("10"), odds) == Decimal("15.00")
    assert winnings(Decimal("5.25"), odds) == Decimal("7.87")


def test_blind_004_flush_is_the_pay_table_3_to_2_not_the_layout_2_to_2() -> None:
    """004 "Ultimate Texas Hold'em Paytable" prints "3 : 2"; the layout at line 1126 "2 to 2" is
    read as a misprint."""
    assert payout(paytable("BLIND-004"), "flush") == Fraction(3, 2)


def test_bad_beat_has_no_royal_flush_row_003_line_3617() -> None:
    """A royal flush can tie but never be beaten, so the table starts at the straight flush."""
    assert payout(paytable("BADBEAT-003"), "royal-flush") == 0


def test_default_tables_are_003s() -> None:
    """The engine and the CLI default to 003's tables, the only document with a Bad Beat."""
    assert dict(DEFAULT_PAYTABLES) == {
        "blind": "BLIND-003",
        "trips": "TRIPS-003",
        "bad-beat": "BADBEAT-003",
    }


# ---------------------------------------------------------------- the qualifier (R35)


def test_dealer_qualifies_with_a_pair_R35() -> None:
    """003 "Ultimate Texas Hold'em: How Winners are Determined and Paid": "a poker value of a pair
    or higher"; 2h 7d with 2c on board: pair of 2s."""
    assert dealer_qualifies(rank("2c 5d 9h Jc Ks", "2h 7d"))


def test_dealer_with_ace_high_does_not_qualify_R35() -> None:
    """A K J 9 5 with no pair (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"):
    the Ante pushes, the rest settles normally."""
    assert not dealer_qualifies(rank("2c 5d 9h Jc Ks", "3h Ad"))


def test_board_pair_qualifies_the_dealer_R35() -> None:
    """The best five of seven cards: a pair on the board is the player-dealer's pair too."""
    assert dealer_qualifies(rank("2c 2d 9h Jc Ks", "3h 7d"))


# ---------------------------------------------------------------- showdown and Blind (R35)


def test_showdown_higher_wins_equal_pushes_003_line_3534() -> None:
    board = "9h 9d 9c 2s 3h"
    assert showdown(rank(board, "Ac Kd"), rank(board, "Ad Qc")) == "win"  # 999AK > 999AQ
    assert showdown(rank(board, "Ad Qc"), rank(board, "Ac Kd")) == "lose"
    assert showdown(rank(board, "Ac Kd"), rank(board, "As Kh")) == "push"  # 999AK each


def test_blind_pays_a_winning_straight_R35() -> None:
    """Jh 8c makes 7-8-9-T-J, beating three 7s (7s Kd): the Blind is paid 1 to 1
    (003 "Ultimate Texas Hold'em: Blind Wager Payout Table")."""
    board = "7h 7d 2c 9s Tc"
    assert blind_result(rank(board, "Jh 8c"), rank(board, "7s Kd")) == ("win", "straight")
    assert payout(paytable("BLIND-003"), "straight") == 1


def test_blind_pays_a_winning_flush_3_to_2_R35() -> None:
    """Kh 3h with Ah 9h 4h makes an ace-high flush over aces and nines (As 9c)."""
    board = "Ah 9h 4h 4c 2s"
    assert blind_result(rank(board, "Kh 3h"), rank(board, "As 9c")) == ("win", "flush")


def test_blind_pushes_on_a_win_below_a_straight_003_line_3541() -> None:
    """Aces and nines (As 9c) beat a pair of fours (Kd Qc): a win with less than a straight."""
    board = "Ah 9h 4h 4c 2s"
    assert blind_result(rank(board, "As 9c"), rank(board, "Kd Qc")) == ("push", None)


def test_blind_pushes_on_a_tie_R35() -> None:
    board = "9h 9d 9c 2s 3h"
    assert blind_result(rank(board, "Ac Kd"), rank(board, "As Kh")) == ("push", None)


def test_blind_loses_when_the_player_loses_003_line_3543() -> None:
    """A straight flush is no help against a higher one (4h Ac: 4-8 vs 9h Kd: 5-9)."""
    board = "5h 6h 7h 8h 2c"
    assert blind_result(rank(board, "4h Ac"), rank(board, "9h Kd")) == ("lose", None)


def test_blind_pays_when_the_dealer_does_not_qualify_R35() -> None:
    """003 "Ultimate Texas Hold'em: How Winners are Determined and Paid": the Blind resolves
    "normally"; Qh Td makes 9-T-J-Q-K over K-J-9-7-5."""
    board = "2c 5d 9h Jc Ks"
    dealer = rank(board, "3h 7d")
    assert not dealer_qualifies(dealer)
    assert blind_result(rank(board, "Qh Td"), dealer) == ("win", "straight")


# ---------------------------------------------------------------- Trips (R35)


def test_trips_pays_three_of_a_kind_R35() -> None:
    """7s Kd on 7h 7d 2c 9s Tc: three 7s, paid 3 to 1 on TRIPS-003 even when the hand loses."""
    seven = cards("7h 7d 2c 9s Tc 7s Kd")
    assert trips_category(seven) == "three-of-a-kind"
    assert payout(paytable("TRIPS-003"), "three-of-a-kind") == 3


def test_trips_loses_on_two_pair_003_line_3583() -> None:
    seven = cards("Ah 9h 4h 4c 2s As 9c")
    assert trips_category(seven) is None


def test_trips_pays_the_royal_flush_003_line_3591() -> None:
    seven = cards("Ts Js Qs 2d 3c As Ks")
    assert trips_category(seven) == "royal-flush"
    assert payout(paytable("TRIPS-003"), "royal-flush") == 50


def test_trips_needs_the_players_seven_cards() -> None:
    with pytest.raises(HandError, match="7 cards"):
        trips_category(cards("Ah 9h 4h 4c 2s As"))


# ---------------------------------------------------------------- Bad Beat (R35)


def test_bad_beat_player_trips_beaten_by_a_straight_R35() -> None:
    """Player 7s Kd (three 7s) loses to Jh 8c (7-8-9-T-J): the beaten hand is the player's
    three of a kind, 9 to 1
    (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet", "Bad Beat Bonus Bet Payout Table")."""
    board = "7h 7d 2c 9s Tc"
    category = bad_beat_category(rank(board, "7s Kd"), rank(board, "Jh 8c"))
    assert category == "three-of-a-kind"
    assert payout(paytable("BADBEAT-003"), category) == 9


def test_bad_beat_player_straight_flush_beaten_R35() -> None:
    """Player 4h Ac (4-8 of hearts) loses to 9h Kd (5-9 of hearts): 7,500 to 1
    (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet Payout Table")."""
    board = "5h 6h 7h 8h 2c"
    category = bad_beat_category(rank(board, "4h Ac"), rank(board, "9h Kd"))
    assert category == "straight-flush"
    assert payout(paytable("BADBEAT-003"), category) == 7500


def test_bad_beat_dealer_quads_beaten_by_the_player_R35() -> None:
    """Player Kc Ks (four kings) beats 5h 5d (four fives): the beaten hand is the
    player-dealer's four of a kind, 500 to 1
    (003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet Payout Table")."""
    board = "Kh Kd 5c 5s 2h"
    category = bad_beat_category(rank(board, "Kc Ks"), rank(board, "5h 5d"))
    assert category == "four-of-a-kind"
    assert payout(paytable("BADBEAT-003"), category) == 500


def test_bad_beat_dealer_trips_beaten_on_the_kicker_R35() -> None:
    """Board trips: 999AK (Ac Kd) beats 999AQ (Ad Qc); the dealer's three of a kind is beaten."""
    board = "9h 9d 9c 2s 3h"
    assert bad_beat_category(rank(board, "Ac Kd"), rank(board, "Ad Qc")) == "three-of-a-kind"


def test_bad_beat_never_pushes_on_a_tie_003_line_3605() -> None:
    """999AK against 999AK: "There is no opportunity for the Bad Beat Bonus Bet to push"."""
    board = "9h 9d 9c 2s 3h"
    assert bad_beat_category(rank(board, "Ac Kd"), rank(board, "As Kh")) is None


def test_bad_beat_loses_when_the_beaten_hand_is_below_trips_003_line_3604() -> None:
    """Aces and nines (As 9c) lose to an ace-high flush (Kh 3h): a beaten two pair loses."""
    board = "Ah 9h 4h 4c 2s"
    assert bad_beat_category(rank(board, "As 9c"), rank(board, "Kh 3h")) is None
    assert bad_beat_category(rank(board, "Kh 3h"), rank(board, "As 9c")) is None


def test_bad_beat_loses_against_a_dealer_who_does_not_qualify_003_line_3525() -> None:
    """A non-qualifying player-dealer holds less than a pair, so no beaten hand is trips."""
    board = "2c 5d 9h Jc Ks"
    dealer = rank(board, "3h 7d")
    assert not dealer_qualifies(dealer)
    assert bad_beat_category(rank(board, "Kh Kd"), dealer) is None


# ---------------------------------------------------------------- properties


deals = st.permutations(standard_deck()).map(lambda deck: deck[:9])


@settings(max_examples=200, deadline=None)
@given(deals)
def test_bad_beat_pays_the_beaten_hand_whichever_side_R35(dealt: list[Card]) -> None:
    """Swapping the player and the player-dealer pays the same Bad Beat category (the losing
    hand's); the Blind pays only a win with a straight or better."""
    board, mine, theirs = dealt[:5], dealt[5:7], dealt[7:9]
    p = best_rank([*board, *mine])
    d = best_rank([*board, *theirs])
    category = bad_beat_category(p, d)
    assert category == bad_beat_category(d, p)
    if category is not None:
        assert p != d
        assert category == three_or_better(min(p, d))
    if p > d and p[0] >= STRAIGHT:  # R35: a win with a straight or better is paid
        assert blind_result(p, d) == ("win", rank_category(p))
    elif p < d:
        assert blind_result(p, d) == ("lose", None)
    else:  # any other win, or a tie
        assert blind_result(p, d) == ("push", None)
    assert dealer_qualifies(d) == (d[0] >= PAIR)
