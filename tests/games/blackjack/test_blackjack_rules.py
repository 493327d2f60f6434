"""Pure 21.5 / Spanish 21.5 hand rules (R10-R21), each outcome worked out by hand from the text."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.rules.blackjack import (
    INSURANCE_ODDS,
    PURE_ODDS,
    Total,
    buster_cards,
    buster_category,
    card_value,
    chart_1a,
    dealer_must_hit,
    hand_total,
    is_888,
    is_bust,
    is_pure,
    match_dealer,
    match_dealer_category,
    paytable,
    red_flex_category,
    red_flex_count,
)
from tablectl.rules.paytables import CATEGORIES, PayTable, PayTableError, payout
from tablectl_base.cards import JOKER, Card, parse_card, standard_deck


def h(text: str) -> list[Card]:
    """Cards from "Ah Kd 5c"."""
    return [parse_card(t) for t in text.split()]


# ---------------------------------------------------------------- R10 values and totals


def test_card_values_R10() -> None:
    """000 "Pure 21.5 Blackjack: Card Values and Hand Rankings": ace 1 (or 11 in a total), 2-9 face
    value, bonus cards 10."""
    assert [card_value(c) for c in h("As 2h 5d 9c Ts Jh Qd Kc")] == [1, 2, 5, 9, 10, 10, 10, 10]
    with pytest.raises(ValueError, match="joker"):
        card_value(Card(JOKER, ""))


@pytest.mark.parametrize(
    ("cards", "total"),
    [
        ("Ts 7h", Total(17, soft=False)),  # 10 + 7
        ("Ah 6d", Total(17, soft=True)),  # 11 + 6
        ("Ah 6d Kc", Total(17, soft=False)),  # 1 + 6 + 10: the ace must count 1
        ("Ah Ad", Total(12, soft=True)),  # 11 + 1
        ("Ah Ad 9c", Total(21, soft=True)),  # 11 + 1 + 9
        ("Ah Ad 9c 5s", Total(16, soft=False)),  # 1 + 1 + 9 + 5
        ("5h 6d", Total(11, soft=False)),
        ("Kh Qd 5s", Total(25, soft=False)),  # bust
        ("Ah Kd", Total(21, soft=True)),  # a pure is 21 here; is_pure says it is 21.5
        ("", Total(0, soft=False)),
    ],
)
def test_hand_total_soft_and_hard_R10(cards: str, total: Total) -> None:
    assert hand_total(h(cards)) == total


def _reference_total(cards: list[Card]) -> Total:
    """Brute force: try every ace as 1 or 11; best total <= 21, else the smallest."""
    aces = sum(c.rank == "A" for c in cards)
    base = sum(10 if c.rank in "TJQK" else 1 if c.rank == "A" else int(c.rank) for c in cards)
    options = [(base + 10 * sum(choice), any(choice)) for choice in product((0, 1), repeat=aces)]
    good = [o for o in options if o[0] <= 21]
    value, soft = max(good) if good else min(options)
    return Total(value, soft=soft)


@given(st.lists(st.sampled_from(standard_deck()), min_size=0, max_size=12))
def test_hand_total_equals_brute_force_over_ace_values_R10(cards: list[Card]) -> None:
    assert hand_total(cards) == _reference_total(cards)


# ---------------------------------------------------------------- R10 pure 21.5


@pytest.mark.parametrize("cards", ["Ah Kd", "Kd Ah", "As Ts", "Jc Ad", "Qh Ah"])
def test_ace_and_bonus_card_on_the_initial_deal_is_pure_R10(cards: str) -> None:
    assert is_pure(h(cards), split=False)


@pytest.mark.parametrize("cards", ["Ah 9d", "Kd Qh", "Ah Ad", "Ah 5d 5c", "Ah", "5h 6d Kc"])
def test_other_hands_are_not_pure_R10(cards: str) -> None:
    """Only exactly two cards, one ace and one bonus card
    (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings")."""
    assert not is_pure(h(cards), split=False)


def test_ace_and_bonus_card_after_a_split_is_not_pure_R10() -> None:
    """R10: "never after a split" (the documents say "on the initial deal")."""
    assert not is_pure(h("Ah Kd"), split=True)
    assert hand_total(h("Ah Kd")) == Total(21, soft=True)


def test_pure_pays_6_to_5_or_3_to_2_and_insurance_2_to_1_R11_R17() -> None:
    """000 "Pure 21.5 Blackjack: Card Values and Hand Rankings" "pays 6 to 5",
    003 "Pure 21.5 Blackjack 3 to 2: Value of the Cards" "pays 3 to 2";
    000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes" insurance 2 to 1."""
    assert dict(PURE_ODDS) == {"6 to 5": Fraction(6, 5), "3 to 2": Fraction(3, 2)}
    assert INSURANCE_ODDS == 2


# ---------------------------------------------------------------- bust and 888 (R10, R13)


def test_bust_is_over_21_R10() -> None:
    assert is_bust(h("Kh Qd 2c"))  # 22
    assert not is_bust(h("Kh Qd Ac"))  # 21: the ace counts 1
    assert not is_bust(h("Ah Kd"))


def test_888_is_exactly_three_eights_R13() -> None:
    assert is_888(h("8h 8d 8c"))
    assert is_bust(h("8h 8d 8c"))  # 24
    assert not is_888(h("8h 8d"))
    assert not is_888(h("8h 8d 8c 8s"))
    assert not is_888(h("8h 8d 9c"))
    assert not is_888(h("8h 5d 3c 8s"))  # 24 in four cards is a bust, not 888


# ---------------------------------------------------------------- Chart 1B (R14)


@pytest.mark.parametrize(
    ("cards", "hit"),
    [
        ("Ah 6d", True),  # soft 17: "Must Hit on Soft 17 or less"
        ("Ah 3d 3c", True),  # soft 17 in three cards
        ("Ah Ad 5c", True),  # soft 17 again (11 + 1 + 5)
        ("Th 6d", True),  # hard 16
        ("Ah 5d", True),  # soft 16
        ("Th 7d", False),  # hard 17, two cards (R14)
        ("Th 5d 2c", False),  # hard 17, three cards
        ("Ah 6d Kc", False),  # hard 17 with the ace at 1
        ("Ah 7d", False),  # soft 18 (R14)
        ("Ah 8d", False),  # soft 19
        ("Ah Kd", False),  # a pure is never completed (R14)
        ("Th 6d 8c", False),  # bust
    ],
)
def test_chart_1b_hits_soft_17_stands_hard_17_and_soft_18_R14(cards: str, hit: bool) -> None:
    assert dealer_must_hit(h(cards)) is hit


# ---------------------------------------------------------------- Chart 1A (R15)


@pytest.mark.parametrize(
    ("cards", "force"),
    [
        ("Th 9d", "must-stand"),  # hard 19
        ("7h 7d 7c", "must-stand"),  # hard 21
        ("Ah 8d Kc", "must-stand"),  # hard 19: the ace counts 1
        ("Th 6d 8c", "must-stand"),  # bust (hard 24): nothing more to draw
        ("Th 8d", None),  # hard 18: option
        ("Th 2d", None),  # hard 12: option
        ("5h 6d", "must-hit"),  # hard 11
        ("2h 3d", "must-hit"),  # hard 5
        ("Ah 8d", None),  # soft 19: the chart forces nothing on soft hands
        ("Ah 2d", None),  # soft 13
        ("Ah Ad", None),  # soft 12
    ],
)
def test_chart_1a_pure_stands_hard_19_hits_hard_11_R15(cards: str, force: str | None) -> None:
    """000 "Pure 21.5 Blackjack: Chart 1A": "Hard 19 or more | Hard 11 or less | All other
    counts"."""
    assert chart_1a(h(cards), "pure-21.5") == force


@pytest.mark.parametrize(
    ("cards", "force"),
    [
        ("Kh 7d", "must-stand"),  # hard 17
        ("Ah 6d Kc", "must-stand"),  # hard 17 with the ace at 1
        ("Kh 6d", None),  # hard 16: option
        ("2h 3d", None),  # hard 5: "Must Hit on Players Option" forces no hit
        ("Ah 7d", None),  # soft 18
        ("Ah 9d", None),  # soft 20
    ],
)
def test_chart_1a_spanish_stands_hard_17_forces_no_hit_R15(cards: str, force: str | None) -> None:
    """003 "Pure Spanish 21.5: Chart 1A": "Hard 17 or more | Players Option | All other counts"."""
    assert chart_1a(h(cards), "spanish-21.5") == force


def test_chart_1a_unknown_variant_is_refused_R15() -> None:
    with pytest.raises(ValueError, match="variant"):
        chart_1a(h("Th 9d"), "blackjack")  # type: ignore[arg-type]


# ---------------------------------------------------------------- Red Flex (R18)


@pytest.mark.parametrize(
    ("cards", "count"),
    [
        ("Ah 5c", 0),  # second card black
        ("5s Ah 2d 3h", 0),  # first card black: later reds do not count
        ("2h Kc 3d 4h 5d", 0),
        ("Ah", 0),  # not two cards yet
        ("Ah 5d", 2),  # a red pure-or-stand two-card hand
        ("2h 3d Kc 4h", 2),  # broken at the first hit
        ("2h 3d 4h Kc 5d", 3),  # broken at the second hit
        ("2h 3d 2d Ac Kc", 3),
        ("2h 2d 2h 3d Kc", 4),
        ("Ah Ad 2h 2d 3h Kc", 5),
        ("Ah Ad Ah Ad 2h 2d Kc", 6),
        ("Ah Ad Ah Ad 2h 2d 2h Kc", 7),
        ("Ah Ad Ah Ad 2h 2d 2h 2d 3c", 8),
        ("Ah Ad Ah Ad 2h 2d 2h 2d 3h", 9),  # never broken
        ("2h 5d Kh", 3),  # all red, busted
    ],
)
def test_red_flex_run_from_the_first_card_R18(cards: str, count: int) -> None:
    assert red_flex_count(h(cards)) == count


@pytest.mark.parametrize(
    ("table", "count", "row", "pays"),
    [
        ("RFB-02", 0, None, 0),
        ("RFB-02", 1, None, 0),
        # 000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options" "Two Red Cards 1 to 1"
        ("RFB-02", 2, "red-2", 1),
        ("RFB-02", 3, "red-3", 5),  # 000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options"
        ("RFB-02", 4, "red-4", 10),
        ("RFB-02", 5, "red-5", 50),
        ("RFB-02", 6, "red-6", 100),
        # 000 "Pure 21.5 Blackjack: Red Flex Bet Pay Table Options" "Seven Red Cards or more"
        ("RFB-02", 7, "red-7-or-more", 200),
        ("RFB-02", 11, "red-7-or-more", 200),
        ("RFB-12", 1, None, 0),
        # 003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet" "Two Red Cards 2 to 1"
        ("RFB-12", 2, "red-2", 2),
        ("RFB-12", 3, "red-3", 3),
        ("RFB-12", 4, "red-4", 8),
        ("RFB-12", 5, "red-5", 50),
        ("RFB-12", 6, "red-6", 100),
        ("RFB-12", 7, "red-7", 200),  # 003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet"
        # 003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet" "Eight Red Cards"; R18 "8 or more"
        ("RFB-12", 8, "red-8-or-more", 300),
        ("RFB-12", 10, "red-8-or-more", 300),
    ],
)
def test_red_flex_pays_by_the_configured_table_R18(
    table: str, count: int, row: str | None, pays: int
) -> None:
    t = paytable(table)
    assert red_flex_category(count, t) == row
    assert (payout(t, row) if row else 0) == pays


# ---------------------------------------------------------------- Buster (R19)


@pytest.mark.parametrize(
    ("cards", "n"),
    [
        ("Kh Qd 5c", 3),
        ("8h 8d 8c", 3),  # 888 is a bust for this bet (R19)
        ("5h 6d 2c Ks", 4),
        ("2h 3d 4c 5s Kh", 5),
        ("2h 2d 3c 3s 4h Kd", 6),
        ("Ah 2d 2c 3s 3h 4d Kc", 7),
        ("2h 2d 2c 2s 3h 3d 3c Ks", 8),
        ("Ah Ad 2c 2s 2h 2d 3c 3s Kh", 9),
        ("Th 7d", None),  # stands on 17
        ("Ah Kd", None),  # pure
        ("5h 6d Kc", None),  # 21
    ],
)
def test_buster_counts_the_cards_of_a_busted_hand_R19(cards: str, n: int | None) -> None:
    assert buster_cards(h(cards)) == n


@pytest.mark.parametrize(
    ("table", "n", "row", "pays"),
    [
        ("option-1", None, None, 0),
        # 003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack Bonus Bet Pay Table"
        ("option-1", 3, "cards-3", 1),
        ("option-1", 4, "cards-4", 3),
        ("option-1", 5, "cards-5", 8),
        ("option-1", 6, "cards-6", 20),
        ("option-1", 7, "cards-7", 50),
        # 003 "Pure 21.5 Blackjack 3 to 2: Buster Blackjack Bonus Bet Pay Table" "8 or more 200 to
        # 1"
        ("option-1", 8, "cards-8-or-more", 200),
        ("option-1", 12, "cards-8-or-more", 200),
        # 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"
        ("option-5", 3, "cards-3", 1),
        ("option-5", 4, "cards-4", 3),
        ("option-5", 5, "cards-5", 6),
        ("option-5", 6, "cards-6", 25),
        ("option-5", 7, "cards-7", 100),
        # 000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet Pay Table"
        ("option-5", 8, "cards-8-or-more", 250),
        ("option-5", 9, "cards-8-or-more", 250),
    ],
)
def test_buster_pays_by_the_configured_table_R19(
    table: str, n: int | None, row: str | None, pays: int
) -> None:
    t = paytable(table)
    assert buster_category(n, t) == row
    assert (payout(t, row) if row else 0) == pays


def test_888_pays_the_three_card_buster_row_R13_R19() -> None:
    assert buster_category(buster_cards(h("8h 8d 8c")), paytable("option-1")) == "cards-3"


def test_a_table_of_another_wager_is_refused_R18_R19() -> None:
    with pytest.raises(PayTableError, match="not a red-flex table"):
        red_flex_category(3, paytable("option-1"))
    with pytest.raises(PayTableError, match="not a buster table"):
        buster_category(3, paytable("RFB-02"))


def test_overlapping_count_rows_are_refused_R18() -> None:
    """One count, one row: "red-8" beside "red-7-or-more" would pay 8 reds twice over."""
    # The pay table model refuses them, so no loader (check-config, the engine, analyze) can
    # take one.
    with pytest.raises(ValueError, match="red-8 overlap red-7-or-more"):
        PayTable(name="X", wager="red-flex", pays={"red-7-or-more": 200, "red-8": 300})
    with pytest.raises(ValueError, match="more than one"):
        PayTable(name="Y", wager="buster", pays={"cards-7-or-more": 5, "cards-8-or-more": 9})


# ---------------------------------------------------------------- Match the Dealer (R21)


@pytest.mark.parametrize(
    ("player", "up", "row", "pays"),
    [
        ("7h 7h", "7h", "2-suited", 18),  # 003 "Pure Spanish 21.5: Table Layout"
        ("7h 7d", "7h", "1-suited-1-unsuited", 13),  # 1976
        ("7d 7h", "7h", "1-suited-1-unsuited", 13),
        ("2c 7h", "7h", "1-suited", 9),  # 1977
        ("7d 7c", "7h", "2-unsuited", 8),  # 1978
        ("7s 7s", "7h", "2-unsuited", 8),
        ("7s Kc", "7h", "1-unsuited", 4),  # 1979
        ("Kc 2d", "7h", None, 0),  # 1980 "No Match ... Lose"
        ("Qh Jh", "Kh", None, 0),  # equal value is not a match: the rank must match
        ("Kh 2h", "Ah", None, 0),  # same suit, other rank
    ],
)
def test_match_the_dealer_every_category_R21(
    player: str, up: str, row: str | None, pays: int
) -> None:
    category = match_dealer(h(player), parse_card(up))
    assert category == row
    t = paytable("MATCH-003")
    assert match_dealer_category(category, t) == row
    assert (payout(t, row) if row else 0) == pays


def test_match_the_dealer_needs_the_two_initial_cards_R21() -> None:
    with pytest.raises(ValueError, match="two initial cards"):
        match_dealer(h("7h 7d 7c"), parse_card("7h"))


def test_match_categories_are_the_pay_table_categories_R21() -> None:
    assert set(paytable("MATCH-003").pays) == CATEGORIES["match-dealer"]
