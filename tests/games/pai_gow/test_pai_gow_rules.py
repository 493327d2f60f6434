"""Fortune Pai Gow Poker rules: hand ranks with the joker, fouls, every house-way row, copies,
the Fortune categories and the Envy (003 "Fortune Pai Gow Poker", 004 "Fortune Pai Gow Poker",
R30-R32).

Every expected setting below is worked by hand from the house-way table
(003 "Fortune Pai Gow Poker House Way");
the property tests compare the joker evaluator with a brute-force reference written here from
the document's words ("may be used as an ace or to complete a straight or flush",
003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used") on top of the
joker-free evaluator `tablectl.rules.poker.best_rank`.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.rules.pai_gow import (
    FIVE_ACES_RANK,
    SettingError,
    best_high_rank,
    compare,
    envy_qualifies,
    fortune_category,
    fortune_paytable,
    high_hand_name,
    high_hand_rank,
    house_way,
    house_way_row,
    low_hand_name,
    low_hand_rank,
    verify_setting,
)
from tablectl.rules.poker import HandError, best_rank, rank_category
from tablectl_base.cards import JOKER, Card, DeckKind, deck_of, parse_card, standard_deck

JKR = Card(JOKER, "")


def hand(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def names(cards: tuple[Card, ...]) -> set[str]:
    return {str(c) for c in cards}


def setting_of(text: str, way: str = "003") -> tuple[set[str], set[str]]:
    high, low = house_way(hand(text), way=way)  # type: ignore[arg-type]
    return names(high), names(low)


# ---------------------------------------------------------------- hand ranking
# (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings")


def test_five_aces_is_the_best_five_card_hand_above_the_royal_flush_003_1381() -> None:
    """003 lists Five Aces above the Royal Flush
    (003 "Fortune Pai Gow Poker: Card Values and Hand Rankings");
    004 "Fortune Pai Gow Poker Hand Rankings" too."""
    five_aces = high_hand_rank(hand("As Ah Ad Ac JKR"))
    assert five_aces == FIVE_ACES_RANK
    assert five_aces > high_hand_rank(hand("As Ks Qs Js Ts"))
    assert high_hand_name(hand("As Ah Ad Ac JKR")) == "five-aces"


def test_royal_flush_above_every_straight_flush_003_1382() -> None:
    assert high_hand_rank(hand("As Ks Qs Js Ts")) > high_hand_rank(hand("Kh Qh Jh Th 9h"))
    assert high_hand_name(hand("As Ks Qs Js Ts")) == "royal-flush"


def test_wheel_is_the_lowest_straight_and_straight_flush_003_1391() -> None:
    """003 "Fortune Pai Gow Poker: Card Values and Hand Rankings": "5, 4, 3, 2 and ace is the lowest
    ranked Straight"; line 1387 for the straight flush. (Many pai gow rules rank it second; the
    document does not.)"""
    assert high_hand_rank(hand("Ah 2d 3c 4s 5h")) < high_hand_rank(hand("2d 3c 4s 5h 6c"))
    assert high_hand_rank(hand("Ah 2h 3h 4h 5h")) < high_hand_rank(hand("2c 3c 4c 5c 6c"))
    assert high_hand_name(hand("Ah 2d 3c 4s 5h")) == "straight"


def test_category_ladder_003_1377() -> None:
    ladder = [
        "Ah Kd 8c 5s 2h",  # high card
        "9h 9d Kc 5s 2h",  # one pair
        "9h 9d 5c 5s 2h",  # two pairs
        "9h 9d 9c 5s 2h",  # three of a kind
        "Ah 2d 3c 4s 5h",  # straight (the lowest)
        "7h 5h 4h 3h 2h",  # flush (the lowest, line 1390)
        "2h 2d 2c 3s 3h",  # full house (the lowest, line 1389)
        "2h 2d 2c 2s 3h",  # four of a kind
        "Ah 2h 3h 4h 5h",  # straight flush (the lowest)
        "As Ks Qs Js Ts",  # royal flush
        "As Ah Ad Ac JKR",  # five aces
    ]
    ranks = [high_hand_rank(hand(h)) for h in ladder]
    assert ranks == sorted(ranks)
    assert len(set(ranks)) == len(ranks)


# ---------------------------------------------------------------- the joker (R31,
# 003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used")


def test_joker_is_an_ace_R31() -> None:
    assert high_hand_rank(hand("JKR Kd 8c 5s 2h")) == high_hand_rank(hand("Ah Kd 8c 5s 2h"))
    assert high_hand_rank(hand("JKR Ad 8c 5s 2h")) == high_hand_rank(hand("Ac Ad 8c 5s 2h"))
    assert high_hand_rank(hand("JKR Ad Ac 5s 2h")) == high_hand_rank(hand("Ah Ad Ac 5s 2h"))
    assert high_hand_name(hand("JKR Ad Ac As 2h")) == "four-of-a-kind"


def test_joker_is_never_a_wild_card_for_pairs_R31() -> None:
    """K-K-K with the joker is three kings and an ace, not four kings (the joker is an ace)."""
    assert high_hand_rank(hand("JKR Kd Kc Ks 2h")) == high_hand_rank(hand("Ah Kd Kc Ks 2h"))
    assert high_hand_rank(hand("JKR 7d 7c 2s 2h")) == high_hand_rank(hand("Ah 7d 7c 2s 2h"))


def test_joker_completes_straight_R31() -> None:
    assert high_hand_rank(hand("JKR 9d 8c 6s 5h")) == high_hand_rank(hand("9d 8c 7s 6s 5h"))
    # open-ended: the joker takes the top end (6-high), not the wheel
    assert high_hand_rank(hand("JKR 2d 3c 4s 5h")) == high_hand_rank(hand("2d 3c 4s 5h 6c"))
    assert high_hand_rank(hand("JKR Kd Qc Js Th")) == high_hand_rank(hand("Ad Kd Qc Js Th"))
    assert high_hand_rank(hand("JKR Ad 2c 3s 4h")) == high_hand_rank(hand("Ad 2c 3s 4h 5h"))


def test_joker_completes_flush_as_the_ace_R31() -> None:
    assert high_hand_rank(hand("JKR Kh 9h 5h 2h")) == high_hand_rank(hand("Ah Kh 9h 5h 2h"))


def test_joker_in_a_flush_holding_the_ace_is_the_best_card_the_suit_lacks_R31() -> None:
    """Our reading (module docstring): the joker stands for a card the hand lacks; with the ace
    of hearts present it is the king of hearts."""
    assert high_hand_rank(hand("JKR Ah 9h 5h 2h")) == high_hand_rank(hand("Ah Kh 9h 5h 2h"))
    assert high_hand_rank(hand("JKR Ah Kh 5h 2h")) == high_hand_rank(hand("Ah Kh Qh 5h 2h"))


def test_joker_in_a_straight_flush_R31() -> None:
    assert high_hand_rank(hand("JKR 8s 7s 5s 4s")) == high_hand_rank(hand("8s 7s 6s 5s 4s"))
    assert high_hand_name(hand("JKR Ks Qs Js Ts")) == "royal-flush"
    assert high_hand_name(hand("JKR As Qs Js Ts")) == "royal-flush"
    # a straight flush beats the four aces the joker could otherwise not make anyway
    assert high_hand_name(hand("JKR 2c 3c 4c 5c")) == "straight-flush"


def test_low_hand_joker_is_an_ace_R31() -> None:
    assert low_hand_rank(hand("JKR Kd")) == low_hand_rank(hand("Ah Kd"))
    assert low_hand_rank(hand("JKR Ad")) == low_hand_rank(hand("Ah Ad"))
    assert low_hand_name(hand("JKR Ad")) == "pair"
    assert low_hand_name(hand("Kh 2d")) == "high-card"


def test_two_card_ranking_pair_above_high_cards_003_1394() -> None:
    assert low_hand_rank(hand("2c 2d")) > low_hand_rank(hand("Ah Kd"))
    assert low_hand_rank(hand("3c 3d")) > low_hand_rank(hand("2c 2d"))
    assert low_hand_rank(hand("Ah 3d")) > low_hand_rank(hand("Kh Qd"))
    assert low_hand_rank(hand("Ah 3d")) < low_hand_rank(hand("Ac 4d"))


def test_hands_of_the_wrong_size_or_with_a_card_twice_are_refused() -> None:
    with pytest.raises(HandError):
        high_hand_rank(hand("As Ks Qs Js"))
    with pytest.raises(HandError):
        high_hand_rank(hand("As As Qs Js Ts"))
    with pytest.raises(HandError):
        low_hand_rank(hand("JKR JKR"))


# ---------------------------------------------------------------- fouls
# (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play", R31)


def test_setting_returns_high_five_and_low_two_003_1425() -> None:
    high, low = verify_setting(hand("As Ah Ks Kh 7c 5d 2c"), hand("Kh 7c"))
    assert names(high) == {"As", "Ah", "Ks", "5d", "2c"}
    assert names(low) == {"Kh", "7c"}


def test_foul_pair_in_front_over_a_smaller_pair_behind_is_refused_R31() -> None:
    with pytest.raises(SettingError, match="foul"):
        verify_setting(hand("Ks Kh Qc Qd 7c 5d 2c"), hand("Ks Kh"))


def test_foul_high_cards_in_front_over_a_lower_five_card_hand_is_refused_R31() -> None:
    with pytest.raises(SettingError, match="foul"):
        verify_setting(hand("As Kh Qc 9d 7c 5d 2c"), hand("As Kh"))


def test_foul_pair_in_front_over_high_cards_behind_is_refused_R31() -> None:
    with pytest.raises(SettingError, match="foul"):
        verify_setting(hand("2s 2h Ac Kd 9c 7d 4c"), hand("2s 2h"))


def test_same_pair_behind_with_kickers_is_legal_003_1444() -> None:
    """Splitting four aces two and two is the house way's own "otherwise split"."""
    _, low = verify_setting(hand("As Ah Ad Ac Kh 7c 2d"), hand("As Ah"))
    assert names(low) == {"As", "Ah"}
    # and the same two high cards in front of five high cards: the five-card hand has more
    verify_setting(hand("Ah Kd Ac Ks 7c 5d 3h"), hand("Ah Kd"))


def test_setting_must_use_two_of_the_seven_cards() -> None:
    seven = hand("As Ah Ks Kh 7c 5d 2c")
    with pytest.raises(SettingError, match="not among"):
        verify_setting(seven, hand("Qd 7c"))
    with pytest.raises(SettingError, match="two cards"):
        verify_setting(seven, hand("7c"))
    with pytest.raises(SettingError, match="twice"):
        verify_setting(seven, [parse_card("7c"), parse_card("7c")])
    with pytest.raises(SettingError):
        verify_setting(hand("As Ah Ks Kh 7c 5d"), hand("7c 5d"))


# ---------------------------------------------------------------- house way,
# 003 "Fortune Pai Gow Poker House Way"


def test_house_way_no_pair_puts_2nd_and_3rd_highest_in_front_003_1430() -> None:
    assert setting_of("Kh Jd 9c 7s 5h 3d 2c") == (
        {"Kh", "7s", "5h", "3d", "2c"},
        {"Jd", "9c"},
    )
    assert house_way_row(hand("Kh Jd 9c 7s 5h 3d 2c")) == "no-pair"


def test_house_way_no_pair_with_joker_keeps_the_joker_ace_behind_003_1430() -> None:
    assert setting_of("JKR Kd 9c 7s 5h 3d 2c")[1] == {"Kd", "9c"}


def test_house_way_one_pair_pair_behind_two_highest_unpaired_in_front_003_1431() -> None:
    assert setting_of("8h 8d Kc Qs 5h 3d 2c") == (
        {"8h", "8d", "5h", "3d", "2c"},
        {"Kc", "Qs"},
    )


def test_house_way_two_pairs_aces_kings_queens_small_pair_in_front_003_1435() -> None:
    assert setting_of("Ks Kh 4c 4d Ah 9s 2c")[1] == {"4c", "4d"}
    assert setting_of("As Ah Qc Qd Kh 9s 2c")[1] == {"Qc", "Qd"}


def test_house_way_two_pairs_jacks_with_ace_keeps_both_behind_003_1435() -> None:
    assert setting_of("Js Jh 4c 4d Ah 9s 2c") == (
        {"Js", "Jh", "4c", "4d", "2c"},
        {"Ah", "9s"},
    )


def test_house_way_two_pairs_tens_with_joker_keeps_both_behind_003_1435() -> None:
    assert setting_of("Ts Th 4c 4d JKR 9s 2c")[1] == {"JKR", "9s"}


def test_house_way_two_pairs_nines_without_ace_splits_003_1435() -> None:
    assert setting_of("9s 9h 4c 4d Kh Qs 2c") == (
        {"9s", "9h", "Kh", "Qs", "2c"},
        {"4c", "4d"},
    )


def test_house_way_two_pairs_eights_with_king_keeps_both_behind_003_1435() -> None:
    assert setting_of("8s 8h 3c 3d Kh 5s 2c")[1] == {"Kh", "5s"}


def test_house_way_two_pairs_sixes_with_queen_only_splits_003_1435() -> None:
    assert setting_of("6s 6h 3c 3d Qh 5s 2c")[1] == {"3c", "3d"}


def test_house_way_two_pairs_fives_with_queen_keeps_both_behind_003_1435() -> None:
    assert setting_of("5s 5h 3c 3d Qh 9s 2c")[1] == {"Qh", "9s"}


def test_house_way_two_pairs_fives_with_jack_only_splits_003_1435() -> None:
    assert setting_of("5s 5h 3c 3d Jh 9s 2c")[1] == {"3c", "3d"}


def test_house_way_three_pairs_highest_pair_in_front_003_1436() -> None:
    assert setting_of("Qs Qh 7c 7d 4h 4s Ac") == (
        {"7c", "7d", "4h", "4s", "Ac"},
        {"Qs", "Qh"},
    )


def test_house_way_three_aces_ace_and_next_highest_in_front_003_1437() -> None:
    assert setting_of("As Ah Ad Kc 9s 5h 2d")[1] in ({"As", "Kc"}, {"Ah", "Kc"}, {"Ad", "Kc"})
    high, low = house_way(hand("As Ah Ad Kc 9s 5h 2d"))
    assert high_hand_name(high) == "pair"
    assert low_hand_rank(low) == (0, 14, 13)


def test_house_way_three_aces_made_with_the_joker_003_1437() -> None:
    high, low = house_way(hand("As Ah JKR Kc 9s 5h 2d"))
    assert low_hand_rank(low) == (0, 14, 13)  # an ace and the king
    assert high_hand_rank(high)[:3] == (1, 14, 14)  # a pair of aces behind


def test_house_way_three_kings_and_below_trips_behind_003_1437() -> None:
    assert setting_of("7s 7h 7d Kc 9s 5h 2d") == (
        {"7s", "7h", "7d", "5h", "2d"},
        {"Kc", "9s"},
    )


def test_house_way_three_of_a_kind_x2_pair_from_higher_set_in_front_003_1438() -> None:
    high, low = setting_of("9s 9h 9d 4c 4s 4h Kd")
    assert len(low) == 2 and low <= {"9s", "9h", "9d"}
    assert {"4c", "4s", "4h", "Kd"} <= high


def test_house_way_straight_no_pair_two_highest_cards_leaving_the_straight_003_1439() -> None:
    assert setting_of("4h 5c 6d 7s 8h Kc Qd")[1] == {"Kc", "Qd"}
    # a seven-card straight: the 9 and 8 go in front, 3-4-5-6-7 stays a straight behind
    assert setting_of("3h 4c 5d 6s 7h 8c 9d")[1] == {"9d", "8c"}


def test_house_way_flush_no_pair_best_front_that_leaves_the_flush_003_1439() -> None:
    """Six spades: A-K in front would break the flush; A-Q (the queen of hearts) does not."""
    assert setting_of("As Ks 9s 7s 4s 2s Qh") == (
        {"Ks", "9s", "7s", "4s", "2s"},
        {"As", "Qh"},
    )


def test_house_way_straight_with_joker_no_pair_003_1439() -> None:
    assert setting_of("JKR Ks Qd Jh Tc 5d 2s")[1] == {"5d", "2s"}


def test_house_way_straight_and_one_pair_pair_cannot_go_in_front_003_1440() -> None:
    """5-6-7-8-9 needs one 9; the other 9 and the king go in front."""
    assert setting_of("5c 6d 7h 8s 9c 9d Kh")[1] in ({"9c", "Kh"}, {"9d", "Kh"})


def test_house_way_flush_and_one_pair_golden_rule_pair_in_front_003_1440_1447() -> None:
    assert setting_of("As Ks 9s 7s 4s 2s 2h") == (
        {"As", "Ks", "9s", "7s", "4s"},
        {"2s", "2h"},
    )


def test_house_way_straight_with_two_pairs_set_by_the_two_pair_strategy_003_1441() -> None:
    """Pairs of 9s and 8s with 5-6-7-8-9: big pair 9s and no ace or joker, so split."""
    assert setting_of("5c 6d 7h 8s 9c 9d 8h") == (
        {"9c", "9d", "5c", "6d", "7h"},
        {"8s", "8h"},
    )


def test_house_way_straight_with_trips_pair_in_front_straight_behind_003_1442() -> None:
    high, low = setting_of("5c 6d 7h 8s 9c 9d 9h")
    assert len(low) == 2 and low <= {"9c", "9d", "9h"}
    assert {"5c", "6d", "7h", "8s"} <= high


def test_house_way_full_house_pair_in_front_003_1443() -> None:
    assert setting_of("Ks Kh Kd 4c 4d 9s 2h") == (
        {"Ks", "Kh", "Kd", "9s", "2h"},
        {"4c", "4d"},
    )


def test_house_way_full_house_with_two_pairs_highest_pair_in_front_003_1443() -> None:
    assert setting_of("4s 4h 4d Jc Jd 7s 7h") == (
        {"4s", "4h", "4d", "7s", "7h"},
        {"Jc", "Jd"},
    )


def test_house_way_four_queens_with_a_pair_quads_behind_003_1444() -> None:
    assert setting_of("Qs Qh Qd Qc 5s 5h 2c")[1] == {"5s", "5h"}


def test_house_way_four_kings_without_a_pair_split_003_1444() -> None:
    high, low = setting_of("Ks Kh Kd Kc Ah 7s 2c")
    assert len(low) == 2 and low <= {"Ks", "Kh", "Kd", "Kc"}
    assert {"Ah", "7s", "2c"} <= high


def test_house_way_four_tens_with_a_king_quads_behind_003_1444() -> None:
    assert setting_of("Ts Th Td Tc Kh 7s 2c")[1] == {"Kh", "7s"}


def test_house_way_four_jacks_with_queen_only_split_003_1444() -> None:
    assert setting_of("Js Jh Jd Jc Qh 7s 2c")[1] <= {"Js", "Jh", "Jd", "Jc"}


def test_house_way_four_sevens_with_a_queen_quads_behind_003_1444() -> None:
    assert setting_of("7s 7h 7d 7c Qh 3s 2c")[1] == {"Qh", "3s"}


def test_house_way_four_eights_with_jack_only_split_003_1444() -> None:
    assert setting_of("8s 8h 8d 8c Jh 3s 2c")[1] <= {"8s", "8h", "8d", "8c"}


def test_house_way_four_fours_never_split_003_1444() -> None:
    assert setting_of("4s 4h 4d 4c 9h 3s 2c")[1] == {"9h", "3s"}


def test_house_way_five_aces_pair_of_aces_in_front_003_1445() -> None:
    high, low = house_way(hand("As Ah Ad Ac JKR 9h 2c"))
    assert low_hand_rank(low) == (1, 14, 14)
    assert high_hand_rank(high)[:4] == (3, 14, 14, 14)  # three aces (one the joker) behind
    high, low = house_way(hand("As Ah Ad Ac JKR Kh Kc"))
    assert low_hand_rank(low) == (1, 14, 14)
    assert high_hand_name(high) == "full-house"


def test_house_way_golden_rule_pair_in_front_with_royal_behind_003_1447() -> None:
    assert setting_of("Ah Kh Qh Jh Th 2c 2d")[1] == {"2c", "2d"}
    assert setting_of("9c Th Js Qd Kh 3c 3d")[1] == {"3c", "3d"}


def test_house_way_golden_rule_overrides_the_full_house_row_003_1447() -> None:
    """A-joker is a pair of aces beside three queens: the Full House row (line 1443) would put
    the aces in front and leave three queens behind, but the joker can instead complete a heart
    flush (Ah Kh-as-joker Qh 9h 8h) behind a pair of queens, and the golden rule says do that."""
    seven = hand("Ah Qh 8h Qc Qd 9h JKR")
    assert setting_of("Ah Qh 8h Qc Qd 9h JKR") == (
        {"Ah", "JKR", "Qh", "9h", "8h"},
        {"Qc", "Qd"},
    )
    assert house_way_row(seven) == "golden-rule"
    assert house_way_row(seven, way="004") == "full-house"  # 004 prints no golden rule
    assert setting_of("Ah Qh 8h Qc Qd 9h JKR", "004")[1] == {"Ah", "JKR"}


def test_house_way_004_four_kings_always_split_004_803() -> None:
    """004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'" splits four kings even with a pair;
    003 "Fortune Pai Gow Poker House Way" keeps them behind."""
    assert setting_of("Ks Kh Kd Kc 5h 5s 2c", "004")[1] <= {"Ks", "Kh", "Kd", "Kc"}
    assert setting_of("Ks Kh Kd Kc 5h 5s 2c", "003")[1] == {"5h", "5s"}


def test_house_way_004_four_fours_split_without_a_queen_004_803() -> None:
    assert setting_of("4s 4h 4d 4c Jh 3s 2c", "004")[1] <= {"4s", "4h", "4d", "4c"}
    assert setting_of("4s 4h 4d 4c Qh 3s 2c", "004")[1] == {"Qh", "3s"}
    assert setting_of("Js Jh Jd Jc Kh 3s 2c", "004")[1] <= {"Js", "Jh", "Jd", "Jc"}
    assert setting_of("Js Jh Jd Jc Ah 3s 2c", "004")[1] == {"Ah", "3s"}


# ---------------------------------------------------------------- more rows, worked by hand


def test_house_way_straight_flush_no_pair_best_front_leaving_a_complete_hand_003_1439() -> None:
    """Six hearts in a row and an ace: A-T in front leaves the 9-high straight flush behind; any
    other two (A-5 under the T-high straight flush, A-9 under a heart flush) are lower."""
    seven = "Th 9h 8h 7h 6h 5h Ac"
    assert setting_of(seven) == ({"9h", "8h", "7h", "6h", "5h"}, {"Th", "Ac"})
    assert house_way_row(hand(seven)) == "straight-flush-no-pair"


def test_house_way_straight_flush_and_one_pair_keeps_the_straight_flush_003_1440() -> None:
    """K-5 is the highest front that leaves a complete hand (the pair cannot go in front: the
    straight flush needs one 5). With the 5c in front the straight flush stays behind; with the
    5h there, only a straight: the better five-card hand is kept."""
    assert setting_of("9h 8h 7h 6h 5h 5c Kd") == ({"9h", "8h", "7h", "6h", "5h"}, {"5c", "Kd"})


def test_house_way_straight_flush_and_a_free_pair_pair_in_front_003_1440_1447() -> None:
    assert setting_of("9h 8h 7h 6h 5h Kc Kd") == ({"9h", "8h", "7h", "6h", "5h"}, {"Kc", "Kd"})
    # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'"
    assert setting_of("9h 8h 7h 6h 5h Kc Kd", "004")[1] == {"Kc", "Kd"}


def test_house_way_flush_with_two_pairs_set_by_the_two_pair_strategy_003_1441() -> None:
    """Kings and 4s with a heart flush (K-9-7-4-2): big pair kings, "Put the small pair in
    front" (line 1435); the flush is given up."""
    assert setting_of("Kh Kc 4h 4c 9h 7h 2h") == ({"Kh", "Kc", "9h", "7h", "2h"}, {"4h", "4c"})
    assert house_way_row(hand("Kh Kc 4h 4c 9h 7h 2h")) == "two-pairs"


def test_house_way_straight_flush_with_two_pairs_split_by_two_pair_rule_003_1441() -> None:
    """5-6-7-8-9 of hearts with the 5 and 9 of clubs: "Set according to the 2 pair strategy"
    (003 "Fortune Pai Gow Poker House Way", 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'").
    Big pair 9s, no ace or joker for the front: "otherwise split", the small pair (5-5) in front,
    9-9-8-7-6 behind. No pair can go in front of the straight flush (it needs one 5 and one 9), so
    the golden rule does not apply."""
    for way in ("003", "004"):
        assert setting_of("5h 6h 7h 8h 9h 5c 9c", way) == (
            {"9h", "9c", "8h", "7h", "6h"},
            {"5h", "5c"},
        )


def test_house_way_flush_with_trips_pair_in_front_flush_behind_003_1442() -> None:
    assert setting_of("2h 5h 7h 9h Jh 2c 2d") == ({"2h", "5h", "7h", "9h", "Jh"}, {"2c", "2d"})
    assert house_way_row(hand("2h 5h 7h 9h Jh 2c 2d")) == "straight-flush-trips"


def test_house_way_straight_flush_with_trips_pair_in_front_003_1442() -> None:
    assert setting_of("9h Th Jh Qh Kh 9c 9d") == ({"9h", "Th", "Jh", "Qh", "Kh"}, {"9c", "9d"})


def test_house_way_two_pairs_eights_with_the_joker_keeps_both_behind_003_1435() -> None:
    """8s and 3s: "Put both pairs in back if you can put a king or higher in front"; the joker is
    an ace (003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used"), so it
    goes in front with the 5."""
    assert setting_of("8s 8h 3c 3d JKR 5s 2c") == ({"8s", "8h", "3c", "3d", "2c"}, {"JKR", "5s"})


def test_house_way_two_pairs_aces_made_with_the_joker_small_pair_in_front_003_1435() -> None:
    """The joker and the ace of spades are a pair of aces (R31): the big pair is aces, so the
    kings go in front."""
    assert setting_of("JKR As Kc Kd 7h 5s 2c") == ({"JKR", "As", "7h", "5s", "2c"}, {"Kc", "Kd"})


def test_house_way_three_pairs_with_the_joker_ace_pair_in_front_003_1436() -> None:
    """Joker-A, 9-9, 5-5: the highest pair, the aces, goes in front. The joker could instead
    complete a heart flush (A-K-9-5 and the joker), but then the front is 9-5 with no pair, so
    the golden rule (line 1447) cannot apply and the three-pairs row stands."""
    seven = "JKR Ah 5h 5c 9h 9c Kh"
    assert setting_of(seven) == ({"5h", "5c", "9h", "9c", "Kh"}, {"JKR", "Ah"})
    assert house_way_row(hand(seven)) == "three-pairs"


def test_house_way_two_sets_of_trips_with_the_joker_003_1438() -> None:
    """Three aces (one the joker) and three 9s: a pair of aces in front, the 9s behind."""
    high, low = setting_of("As Ah JKR 9c 9d 9h 2c")
    assert len(low) == 2 and low < {"As", "Ah", "JKR"}
    assert {"9c", "9d", "9h", "2c"} < high


def test_house_way_four_aces_made_with_the_joker_003_1444() -> None:
    """Three aces and the joker are four aces: "A's ...: Play four of a kind in back if you can
    put at least a pair in front, otherwise split"."""
    assert setting_of("As Ah Ad JKR Kc Kh 2d") == ({"As", "Ah", "Ad", "JKR", "2d"}, {"Kc", "Kh"})
    high, low = setting_of("As Ah Ad JKR Kc 7h 2d")
    assert len(low) == 2 and low < {"As", "Ah", "Ad", "JKR"}
    assert {"Kc", "7h", "2d"} < high


@pytest.mark.parametrize(
    ("seven", "low_003", "low_004"),
    [
        # 8s: 003 "at least a queen up front" keeps them behind with Q-5; 004 "a king or
        # higher" splits them
        ("8s 8h 8d 8c Qh 5h 2d", {"Qh", "5h"}, "split"),
        ("8s 8h 8d 8c Kh 5h 2d", {"Kh", "5h"}, {"Kh", "5h"}),
        ("7s 7h 7d 7c Qh 3s 2c", {"Qh", "3s"}, "split"),
        # queens with a pair: 003 behind, 004 "always split"
        ("Qs Qh Qd Qc 5s 5h 2c", {"5s", "5h"}, "split"),
        # tens with the joker: "an ace or joker in front" (004), "at least a king" (003)
        ("Ts Th Td Tc JKR 3s 2c", {"JKR", "3s"}, {"JKR", "3s"}),
        # four aces made with the joker: 004 always splits them
        ("As Ah Ad JKR Kc Kh 2d", {"Kc", "Kh"}, "split"),
        # jacks with a pair of fives: 003 keeps them behind ("at least a king", a pair is more);
        # 004 "if the player-dealer can put an ace or joker in front": no ace, no joker: split
        ("Js Jh Jd Jc 5h 5s 2c", {"5h", "5s"}, "split"),
        ("Js Jh Jd Jc Ah 5s 2c", {"Ah", "5s"}, {"Ah", "5s"}),
        # fours with a pair of nines: 004 "a queen or higher in front": a pair is higher
        ("4s 4h 4d 4c 9h 9s 2c", {"9h", "9s"}, {"9h", "9s"}),
    ],
)
def test_house_way_four_of_a_kind_rows_of_003_and_004_003_1444_004_803(
    seven: str, low_003: set[str], low_004: set[str] | str
) -> None:
    assert setting_of(seven, "003")[1] == low_003
    high, low = setting_of(seven, "004")
    if low_004 == "split":
        quad = next(r for r in "AKQJT98765432" if sum(c[0] == r for c in seven.split()) >= 3)
        assert len(low) == 2 and all(c[0] == quad or c == "JKR" for c in low)
        assert high_hand_name(hand(" ".join(high))) in ("two-pair", "pair", "full-house")
    else:
        assert low == low_004


@pytest.mark.parametrize(
    ("seven", "low"),
    [
        # no pairs (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("Kh Jd 9c 7s 5h 3d 2c", {"Jd", "9c"}),
        # one pair (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("8h 8d Kc Qs 5h 3d 2c", {"Kc", "Qs"}),
        # two pairs, kings big (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("Ks Kh 4c 4d Ah 9s 2c", {"4c", "4d"}),
        ("Js Jh 4c 4d Ah 9s 2c", {"Ah", "9s"}),  # jacks, an ace to put in front
        ("9s 9h 4c 4d Kh Qs 2c", {"4c", "4d"}),  # nines, no ace or joker: split
        ("8s 8h 3c 3d Kh 5s 2c", {"Kh", "5s"}),  # eights, a king
        ("6s 6h 3c 3d Qh 5s 2c", {"3c", "3d"}),  # sixes, only a queen: split
        ("5s 5h 3c 3d Qh 9s 2c", {"Qh", "9s"}),  # fives, a queen
        # three pairs (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("Qs Qh 7c 7d 4h 4s Ac", {"Qs", "Qh"}),
        # three 7s: behind (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("7s 7h 7d Kc 9s 5h 2d", {"Kc", "9s"}),
        # full house (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("Ks Kh Kd 4c 4d 9s 2h", {"4c", "4d"}),
        # a flush, no pair (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("As Ks 9s 7s 4s 2s Qh", {"As", "Qh"}),
    ],
)
def test_house_way_004_rows_set_as_004_prints_them_004_793(seven: str, low: set[str]) -> None:
    """004's chart (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'") words these rows as
    003's does; each worked from 004's row."""
    assert setting_of(seven, "004")[1] == low


@pytest.mark.parametrize(
    ("seven", "front_ranks"),
    [
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": "If three aces, put one ace and
        # the highest card in front and the pair of aces in the back."
        ("As Ah Ad Kc 9s 5h 2d", ["A", "K"]),
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": "Three of a Kind - Two Sets: Put
        # the highest pair in front and put the lower three of a kind in the back."
        ("Ks Kh Kd 7c 7d 7h 2s", ["K", "K"]),
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": "Five Aces: Put a pair of aces in
        # front and three aces in back." (the joker is the fifth ace)
        ("As Ah Ad Ac JKR 9s 2d", ["A", "A"]),
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": a straight with one pair: the
        # straight 9-8-7-6-5 behind and "the two highest remaining cards (pair or no pair) in
        # front": K and the other 5
        ("9s 8h 7d 6c 5s 5h Kd", ["K", "5"]),
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": a straight with two pairs (9-9,
        # 5-5) is set by the Two Pairs row: nines, no ace or joker for the front, so "the small pair
        # in front" (004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'")
        ("9s 9h 8d 7c 6s 5h 5d", ["5", "5"]),
        # 004 "Fortune Pai Gow Poker: Pai Gow Poker 'House Way'": a straight with three of a kind:
        # "a pair in the front and a complete hand in the back" (8-8 in front, 8-7-6-5-4 behind)
        ("8s 8h 8d 7c 6s 5h 4d", ["8", "8"]),
    ],
)
def test_house_way_004_remaining_rows_004_800_to_811(seven: str, front_ranks: list[str]) -> None:
    """The rows of 004's chart not pinned above, each worked from 004's own words."""
    high, low = house_way(hand(seven), way="004")
    ranks = sorted(("A" if c.is_joker else c.rank) for c in low)
    assert ranks == sorted(front_ranks)
    assert len(high) == 5 and {str(c) for c in (*high, *low)} == set(seven.split())


def test_house_way_refuses_an_unknown_way() -> None:
    with pytest.raises(ValueError, match="house way"):
        house_way(hand("Kh Jd 9c 7s 5h 3d 2c"), way="005")  # type: ignore[arg-type]


# ---------------------------------------------------------------- copies
# (003 "Fortune Pai Gow Poker: How Winners are Determined and Paid", R31)


P_HIGH, P_LOW = hand("Ks Kh 9c 7d 2s"), hand("Qd Jc")


def test_player_wins_only_when_both_hands_outrank_003_1457() -> None:
    assert compare((P_HIGH, P_LOW), (hand("Qs Qh 9d 7c 2c"), hand("Td 8c"))) == "win"
    assert compare((P_HIGH, P_LOW), (hand("As Ah 9d 7c 2c"), hand("Ad 8c"))) == "lose"


def test_one_won_one_lost_is_a_push_003_1461() -> None:
    assert compare((P_HIGH, P_LOW), (hand("As Ah 9d 7c 2c"), hand("Td 8c"))) == "push"
    assert compare((P_HIGH, P_LOW), (hand("Qs Qh 9d 7c 2c"), hand("Ad 8c"))) == "push"


def test_copies_go_to_the_player_dealer_R31() -> None:
    """003 "Fortune Pai Gow Poker: How Winners are Determined and Paid": "The player-dealer wins all
    copy hands." Suits do not break ties."""
    copy_high, copy_low = hand("Kc Kd 9h 7s 2d"), hand("Qh Jd")
    assert compare((P_HIGH, P_LOW), (copy_high, copy_low)) == "lose"
    assert compare((P_HIGH, P_LOW), (copy_high, hand("Td 8c"))) == "push"
    assert compare((P_HIGH, P_LOW), (hand("Qs Qh 9d 7c 2c"), copy_low)) == "push"


def test_joker_ace_copies_a_real_ace_R31() -> None:
    assert compare((P_HIGH, hand("JKR Kd")), (hand("Qs Qh 9d 7c 2c"), hand("Ah Kc"))) == "push"


# ---------------------------------------------------------------- Fortune Bonus
# (003 "Fortune Pai Gow Poker: Fortune Bonus Bet" to "Bonus Bet Paytable")


@pytest.mark.parametrize(
    ("seven", "category"),
    [
        # the lowest, 003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"
        ("7s 6s 5s 4s 3s 2s As", "seven-card-straight-flush"),
        ("As Ks Qs Js Ts 9s 8s", "seven-card-straight-flush"),  # the highest
        # 003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"
        ("As Ks Qs Js Ts Kh Qh", "royal-flush-royal-match"),
        ("JKR Ks Qs Js Ts Kh Qh", "royal-flush-royal-match"),  # joker as the ace, line 1497
        ("As JKR Qs Js Ts Kd Qd", "royal-flush-royal-match"),  # joker as the king
        ("Ah Kh Qh Jh Th 9h JKR", "seven-card-straight-flush-joker"),  # joker as the 8
        ("7d 6d 4d 3d 2d Ad JKR", "seven-card-straight-flush-joker"),  # joker as the 5
        # 003 "Fortune Pai Gow Poker: Card Values and Hand Rankings"
        ("As Ad Ah Ac JKR 2c 3d", "five-aces"),
        ("As Ks Qs Js Ts 2c 3d", "royal-flush"),
        ("As Ks Qs Js Ts Kh JKR", "royal-flush"),  # the joker is no king for the match
        ("As Ks Qs Js Ts Kh Qd", "royal-flush"),  # K-Q not suited
        ("9h 8h 7h 6h 5h Kc 2d", "straight-flush"),
        ("9h 8h JKR 6h 5h Kc 2d", "straight-flush"),
        ("9h 9d 9c 9s 5h Kc 2d", "four-of-a-kind"),
        ("Ah Ad Ac JKR 5h Kc 2d", "four-of-a-kind"),  # the joker as the fourth ace
        ("9h 9d 9c 5s 5h Kc 2d", "full-house"),
        ("Kh 9h 7h 4h 2h Kc 2d", "flush"),
        ("JKR 9h 7h 4h 2h Kc 2d", "flush"),
        ("9h 9d 9c 5s 4h Kc 2d", "three-of-a-kind"),
        ("Ah Ad JKR 9c 7s 5h 2d", "three-of-a-kind"),  # the joker as the third ace
        ("9h 8d 7c 6s 5h Kc 2d", "straight"),
        ("9h 8d JKR 6s 5h Kc 2d", "straight"),
        ("9h 9d 5c 5s 4h Kc 2d", None),  # two pairs: below the table
        ("JKR Kd 9c 7s 5h 3d 2c", None),
    ],
)
def test_fortune_categories_003_1525(seven: str, category: str | None) -> None:
    assert fortune_category(hand(seven)) == category


def test_fortune_trips_with_a_straight_is_paid_as_three_of_a_kind_003_1534() -> None:
    """Our reading: the pay table (003 "Fortune Pai Gow Poker: Bonus Bet Paytable") lists 3 of a
    Kind (3 to 1) above the Straight (2 to 1), so seven cards holding both are the better-paid three
    of a kind."""
    assert fortune_category(hand("5c 6d 7h 8s 9c 9d 9h")) == "three-of-a-kind"
    # but a flush with three of a kind is a flush, as both the ranking and the table order it
    assert fortune_category(hand("9s 9d 9h 7s 5s 3s 2s")) == "flush"


def test_envy_pays_for_four_of_a_kind_or_better_R32() -> None:
    table = fortune_paytable()
    assert table.name == "FORTUNE-003"
    assert envy_qualifies("four-of-a-kind", table)
    assert envy_qualifies("seven-card-straight-flush", table)
    assert not envy_qualifies("full-house", table)
    assert not envy_qualifies(None, table)
    # 003 "Fortune Pai Gow Poker: Bonus Bet Paytable" "$250"
    assert str(table.envy["five-aces"]) == "250.00"


# ---------------------------------------------------------------- properties


def _reference_joker_rank(reals: list[Card]) -> tuple[int, ...]:
    """Brute force from 003 "Fortune Pai Gow Poker: Description of the Deck and Number of Decks
    Used": the joker as an ace, or as any card that completes a straight or a flush; four aces and
    the joker are five aces (line 1381)."""
    if sum(1 for c in reals if c.rank == "A") == 4:
        return FIVE_ACES_RANK
    best: tuple[int, ...] = ()
    for card in standard_deck():
        if card in reals:
            continue
        rank = best_rank([*reals, card])
        category = rank_category(rank)
        if card.rank == "A" or category in ("straight", "flush", "straight-flush", "royal-flush"):
            best = max(best, rank)
    return best


REALS = standard_deck()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(REALS), min_size=4, max_size=6, unique=True))
def test_joker_rank_agrees_with_brute_force_reference_R31(reals: list[Card]) -> None:
    assert best_high_rank([*reals, JKR]) == _reference_joker_rank(reals)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(REALS), min_size=4, max_size=4, unique=True))
def test_joker_five_card_rank_agrees_with_brute_force_reference_R31(reals: list[Card]) -> None:
    assert high_hand_rank([*reals, JKR]) == _reference_joker_rank(reals)


@st.composite
def sevens(draw: st.DrawFn) -> list[Card]:
    """Seven cards of the 53-card deck, with the joker about half the time."""
    with_joker = draw(st.booleans())
    reals = draw(st.lists(st.sampled_from(REALS), min_size=7, max_size=7, unique=True))
    cards = [*reals[:6], JKR] if with_joker else reals
    return draw(st.permutations(cards))


def _all_settings(seven: list[Card]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    out = []
    for low in combinations(seven, 2):
        high = [c for c in seven if c not in low]
        out.append((high_hand_rank(high), low_hand_rank(list(low))))
    return out


@settings(max_examples=300, deadline=None)
@given(sevens(), st.sampled_from(["003", "004"]))
def test_house_way_never_fouls_and_uses_exactly_the_seven_cards_R31(
    seven: list[Card], way: str
) -> None:
    high, low = house_way(seven, way=way)  # type: ignore[arg-type]
    assert len(high) == 5 and len(low) == 2
    assert sorted([*high, *low]) == sorted(seven)
    assert verify_setting(seven, low) == (high, low)


@settings(max_examples=300, deadline=None)
@given(sevens())
def test_house_way_obeys_the_golden_rule_when_possible_003_1447(seven: list[Card]) -> None:
    """A pair in front with a straight or better behind, whenever some setting has one."""
    possible = any(lo[0] == 1 and hi[0] >= 4 for hi, lo in _all_settings(seven))
    high, low = house_way(seven)
    assert (low_hand_rank(low)[0] == 1 and high_hand_rank(high)[0] >= 4) == possible


@settings(max_examples=100, deadline=None)
@given(sevens())
def test_house_way_does_not_depend_on_card_order(seven: list[Card]) -> None:
    a_high, a_low = house_way(seven)
    b_high, b_low = house_way(list(reversed(seven)))
    assert (set(a_high), set(a_low)) == (set(b_high), set(b_low))


@settings(max_examples=100, deadline=None)
@given(sevens())
def test_a_hand_copied_exactly_loses_R31(seven: list[Card]) -> None:
    high, low = house_way(seven)
    assert compare((high, low), (high, low)) == "lose"


def test_joker_deck_is_the_53_card_deck_003_1369() -> None:
    deck = deck_of(DeckKind.JOKER_53)
    assert len(deck) == 53 and JKR in deck
