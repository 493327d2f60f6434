"""Ace-to-five low hands (tablectl.rules.low), worked by hand from the documents.

The low is defined in 003 "Omaha (High-Low Split)", "Seven Card Stud (High-Low Split)", "Razz (Seven
Card Stud, Low Only)", "Lowball", 003 "Crazy Pineapple High-Low Split: Card Values and Hand
Rankings" and 004 "Omaha High/Low Split: Card Values and Hand Rankings"; R42 for the games with no
qualifier. The property tests compare the module with references written here from that prose: a
brute force over every five cards, and for a qualified low the closed form "the five lowest
different values at or under the qualifier".
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.rules.low import (
    WHEEL,
    best_low,
    best_low_five,
    describe_low,
    low_category,
    low_key,
    qualifies,
)
from tablectl.rules.poker import HandError
from tablectl_base.cards import Card, parse_card, standard_deck


def hand(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def key(text: str) -> tuple[int, ...]:
    return low_key(hand(text))


# ---------------------------------------------------------------- the order of lows


def test_wheel_is_the_best_low_straights_and_flushes_do_not_count_003_004() -> None:
    """003 "Omaha (High-Low Split)": "The best low hand possible is A-2-3-4-5"; rule 6:
    "straights and flushes do not count against the low hand"; 003 "Lowball": "regardless of
    suits". 004: "The lowest possible five-card poker hand is 5, 4, 3, 2, and an Ace"."""
    wheel = key("Ah 2c 3d 4s 5h")
    assert wheel == WHEEL
    assert key("Ah 2h 3h 4h 5h") == wheel  # a straight flush is still the wheel
    # The next best lows, worked by hand: 6-4-3-2-A and 6-5-3-2-A, both above the wheel.
    assert wheel < key("6c 4d 3h 2s Ah") < key("6c 5d 3h 2s Ah")
    assert describe_low(wheel) == "5-4-3-2-A"
    assert low_category(wheel) == "no-pair"


def test_lowest_highest_card_wins_the_documents_example_003_004() -> None:
    """004 and 003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings": "A hand of 7,
    6, 4, 3, and a 2 is lower than an 8, 6, 5, 3, and an Ace, even though the second hand has the
    lowest card." 7 < 8 at the top card decides."""
    assert key("7c 6d 4h 3s 2c") < key("8c 6d 5h 3s Ac")


def test_equal_highest_cards_go_to_the_next_card_R42() -> None:
    """R42's example: 7-5-4-2-A beats 8-6-4-3-2 (7 < 8). With equal top cards the documents stop;
    the next card down decides (8-6-4-3-2 vs 8-7-3-2-A: 8 = 8, then 6 < 7), down to the last card
    (8-6-4-3-A beats 8-6-4-3-2), and only equal values in every place tie whatever the suits."""
    assert key("7h 5d 4c 2s Ac") < key("8h 6d 4c 3s 2c")
    assert key("8h 6d 4c 3s 2c") < key("8c 7d 3h 2h Ah")
    assert key("8h 6d 4c 3s Ac") < key("8h 6d 4c 3s 2c")
    assert key("7h 5d 4c 2s Ac") == key("7c 5c 4c 2c Ad")


def test_ace_is_the_lowest_card_003_004() -> None:
    """004 "Omaha High/Low Split: Card Values and Hand Rankings": low card values "King, Queen,
    Jack, 10, 9, 8, 7, 6, 5, 4, 3, 2 and then Ace". With the upper four cards equal, the last card
    decides: 6-5-4-3-A beats 6-5-4-3-2 and K-Q-J-T-A beats K-Q-J-T-2, the ace being below the 2."""
    assert key("6c 5d 4h 3s Ac") < key("6c 5d 4h 3s 2c")
    assert key("Kc Qd Jh Ts Ac") < key("Kc Qd Jh Ts 2c")


def test_pairs_count_against_a_low_razz_and_lowball_003() -> None:
    """003 "Razz (Seven Card Stud, Low Only)": "a pair can win for low if it is the lowest hand";
    003 "Lowball": "two aces are the lowest pair". The documents' hand ranking puts one pair above
    high card, two pairs above one pair, and so on, so each is a worse low: any unpaired hand, even
    K-Q-J-T-9, beats A-A-4-3-2; A-A-4-3-2 beats 2-2-4-3-A (the pair first: aces below deuces);
    one pair beats two pairs, two pairs beat three of a kind, three of a kind beats a full house,
    which beats four of a kind."""
    ladder = [
        "Kc Qd Jh Ts 9c",  # no pair, king high: still beats every paired hand
        "Ac Ad 4h 3s 2c",  # a pair of aces, the lowest pair
        "2c 2d 4h 3s Ac",  # a pair of deuces
        "Kc Kd Qh Js Tc",  # a pair of kings, the highest pair
        "2c 2d Ah As 3c",  # two pairs
        "Ac Ad Ah 2s 3c",  # three of a kind
        "Ac Ad Ah 2s 2c",  # full house
        "Ac Ad Ah As 2c",  # four of a kind
    ]
    keys = [key(h) for h in ladder]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert [low_category(k) for k in keys] == [
        "no-pair",
        "pair",
        "pair",
        "pair",
        "two-pair",
        "three-of-a-kind",
        "full-house",
        "four-of-a-kind",
    ]
    # Within one pair, equal pairs go on to the side cards, highest first: A-A-5-3-2 > A-A-4-3-2.
    assert key("Ac Ad 4h 3s 2c") < key("Ac Ad 5h 3s 2c")


# ---------------------------------------------------------------- the qualifiers


def test_8_7_6_5_4_qualifies_for_8_or_better_and_9_high_does_not_003() -> None:
    """003 "Omaha (High-Low Split)": "A player must have five cards 8 or below without pairing to
    qualify for low. The highest cards that can make a low hand are 8-7-6-5-4." A 9 high hand is
    above it: it does not qualify for 8 or better."""
    assert best_low(hand("8c 7d 6h 5s 4c"), 8) == key("8c 7d 6h 5s 4c")
    assert best_low(hand("9c 4d 3h 2s Ac"), 8) is None
    assert best_low(hand("9c 7d 6h 5s 4c"), 8) is None


def test_9_high_qualifies_for_crazy_pineapple_ten_high_does_not_003() -> None:
    """003 "Crazy Pineapple High-Low Split: Card Values and Hand Rankings": "a 9 high or better
    (lower), meaning that the player cannot have a hand that contains a card with a value of 10 or
    higher"."""
    assert best_low(hand("9c 8d 7h 6s 5c"), 9) == key("9c 8d 7h 6s 5c")
    assert best_low(hand("Tc 4d 3h 2s Ac"), 9) is None


def test_a_pair_never_qualifies_004() -> None:
    """004 "Omaha High/Low Split: Card Values and Hand Rankings": "if the player has a pair or
    higher in their low hand, the hand does not qualify, even if the cards have a value of 8 or
    lower". Seven cards A A 2 3 4 K Q hold only four different values at 8 or under: no low. Add a
    5 for the king and the wheel is there."""
    assert best_low(hand("Ac Ad 2h 3s 4c Kd Qh"), 8) is None
    assert best_low(hand("Ac Ad 2h 3s 4c Kd Qh"), 9) is None
    assert best_low(hand("Ac Ad 2h 3s 4c 5d Qh"), 8) == WHEEL
    assert not qualifies(key("Ac Ad 4h 3s 2c"), 8)


def test_no_qualifier_the_lowest_hand_takes_the_low_even_paired_R42() -> None:
    """R42: Option Alley and Razz have no qualifier (003 "Razz (Seven Card Stud, Low Only)": "There
    is no qualifier"). Razz seven cards K 9 9 5 4 3 2: the best five is 9-5-4-3-2 (unpaired, one
    nine and the king left out). A A 2 2 3 3 K holds four values, A 2 3 K, so every five pairs:
    one pair beats two pairs, so the best is the lowest pair, aces, with K-3-2 (the king has to
    play), ahead of the two pairs A-A-2-2-3."""
    assert best_low(hand("Kc 9d 9h 5s 4c 3d 2h"), None) == key("9d 5s 4c 3d 2h")
    assert best_low(hand("Kc 9d 9h 5s 4c 3d 2h"), 8) is None  # only 5-4-3-2 under the 8
    assert best_low(hand("Ac Ad 2h 2s 3c 3d Kh"), None) == key("Ac Ad Kh 3c 2h")
    assert key("Ac Ad Kh 3c 2h") < key("Ac Ad 2h 2s 3c")


def test_best_low_five_returns_the_five_cards_used_003() -> None:
    """003 "Seven Card Stud (High-Low Split)": "any five cards as his or her low hand": from
    Kc 8d 7h 5s 4c 2d Ah the low is 7-5-4-2-A (the 8 and the king left out)."""
    found = best_low_five(hand("Kc 8d 7h 5s 4c 2d Ah"), 8)
    assert found is not None
    low, five = found
    assert low == key("7h 5s 4c 2d Ah")
    assert sorted(map(str, five)) == ["2d", "4c", "5s", "7h", "Ah"]


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("Ac 2d 3h 4s", "from 5 cards, got 4"),
        ("Ac 2d 3h 4s 4s", "appears twice"),
        ("Ac 2d 3h 4s JKR", "no low value"),
    ],
)
def test_low_key_refuses_what_is_not_five_cards(cards: str, message: str) -> None:
    with pytest.raises(HandError, match=message):
        key(cards)


def test_best_low_refuses_bad_sizes_and_unposted_qualifiers() -> None:
    with pytest.raises(HandError, match="5 to 7 cards, got 8"):
        best_low(hand("Ac 2d 3h 4s 5c 6d 7h 8s"), 8)
    for bad in (7, 10, True, "8"):
        with pytest.raises(HandError, match="qualifier"):
            best_low(hand("Ac 2d 3h 4s 5c"), bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- references


def _ref_value(card: Card) -> int:
    """The documents' low card values: ace 1, then 2 to 10, jack 11, queen 12, king 13."""
    return "A23456789TJQK".index(card.rank) + 1


def _ref_five(cards: tuple[Card, ...]) -> tuple[list[int], list[int]]:
    """A low as the documents' high ranking read with the ace low and straights and flushes not
    counted: the shape (copies of each value, most first) orders the categories, then the values
    by copies and value, highest first. Smaller is the better low."""
    values = [_ref_value(c) for c in cards]
    counts = Counter(values)
    shape = sorted(counts.values(), reverse=True)
    return shape, sorted(values, key=lambda v: (counts[v], v), reverse=True)


def _ref_qualifies(cards: tuple[Card, ...], qualifier: int | None) -> bool:
    """ "five cards 8 or below without pairing" (003 "Omaha (High-Low Split)"); any hand with no
    qualifier (R42)."""
    values = {_ref_value(c) for c in cards}
    return qualifier is None or (len(values) == 5 and max(values) <= qualifier)


def _ref_best(
    cards: list[Card], qualifier: int | None
) -> tuple[tuple[list[int], list[int]], tuple[Card, ...]] | None:
    """Every five of the cards that qualifies, the lowest by `_ref_five`."""
    legal = [f for f in combinations(cards, 5) if _ref_qualifies(f, qualifier)]
    if not legal:
        return None
    best = min(legal, key=_ref_five)
    return _ref_five(best), best


def dealt(deck: list[Card], low: int, high: int) -> st.SearchStrategy[list[Card]]:
    """low to high different cards of `deck`."""
    return st.lists(st.sampled_from(deck), min_size=low, max_size=high, unique=True)


cards_5_to_7 = dealt(list(standard_deck()), 5, 7)
# Low-heavy deals, so that qualifying lows and pairs both come up often.
low_deck = [c for c in standard_deck() if c.rank in "A23456789"]
low_cards_5_to_7 = dealt(low_deck, 5, 7)
qualifier_or_none = st.sampled_from([8, 9, None])


@settings(max_examples=300, deadline=None)
@given(st.one_of(cards_5_to_7, low_cards_5_to_7), qualifier_or_none)
def test_best_low_equals_a_brute_force_reference(cards: list[Card], qualifier: int | None) -> None:
    ours = best_low_five(cards, qualifier)
    ref = _ref_best(cards, qualifier)
    if ref is None:
        assert ours is None
        return
    assert ours is not None
    low, five = ours
    assert set(five) <= set(cards) and len(set(five)) == 5
    assert low == low_key(five)
    assert _ref_five(five) == ref[0]


@settings(max_examples=300, deadline=None)
@given(st.one_of(cards_5_to_7, low_cards_5_to_7), st.sampled_from([8, 9]))
def test_a_qualified_low_is_the_five_lowest_different_values(
    cards: list[Card], qualifier: int
) -> None:
    """Closed form of a qualified low: the five lowest different values at or under the qualifier
    (the lowest top card first, 004's rule, then each next card as low as it can be)."""
    under = sorted({_ref_value(c) for c in cards if _ref_value(c) <= qualifier})
    low = best_low(cards, qualifier)
    if len(under) < 5:
        assert low is None
    else:
        assert low is not None and list(low[1:]) == sorted(under[:5], reverse=True)


@settings(max_examples=300, deadline=None)
@given(dealt(list(standard_deck()), 5, 5), dealt(low_deck, 5, 5))
def test_low_key_orders_as_the_reference(a: list[Card], b: list[Card]) -> None:
    ka, kb = low_key(a), low_key(b)
    ra, rb = _ref_five(tuple(a)), _ref_five(tuple(b))
    assert (ka < kb) == (ra < rb) and (ka == kb) == (ra == rb)
