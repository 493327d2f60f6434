"""Pots, side pots and their award (tablectl/rules/pots.py; rulings R41, R42 and R52).

Every expected amount below is worked by hand in a comment from the rule it names: 003 "Omaha
(High-Low Split)", 003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes",
004 "Omaha High/Low Split: How The Pot Is Awarded", 004 "Texas Hold'em: How the Pot Is Awarded",
R41 (odd chips) and R42 (the low half, each side pot on its own). Hands come in as keys, as the
module takes them: a bigger high key is the better high hand; a low key is `tablectl.rules.low`'s
key of the five low cards, smaller is better; None is no qualifying low. The property tests
compare everything with a chip-by-chip reference written here, not from the module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from math import gcd

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tablectl.rules.low import LowKey, low_key
from tablectl.rules.pots import (
    Contribution,
    OddChipRule,
    Payout,
    Pot,
    PotError,
    Pots,
    Split,
    Strength,
    award,
    build_pots,
    paid_by_seat,
    take_fee,
)
from tablectl_base.cards import parse_card

D = Decimal
ONE = D("1")


def hand(high: int, low: LowKey | None = None) -> Strength:
    """A hand whose high strength is `high` (bigger wins) and whose low is `low`."""
    return Strength((high,), low)


def low(cards: str) -> LowKey:
    """The low key of five cards, as the flop games' evaluators make it (tablectl.rules.low)."""
    return low_key([parse_card(c) for c in cards.split()])


# ---------------------------------------------------------------- building the pots


def test_three_all_ins_of_different_sizes_make_a_main_pot_and_two_side_pots_R42() -> None:
    """Seat 1 all-in for $20, seat 2 for $50, seat 3 for $100, seat 4 calls $100.

    Main pot: $20 from each of the four = $80, seats 1-4. Side pot 1: the next $30 from seats
    2, 3, 4 = $90, seats 2-4. Side pot 2: the next $50 from seats 3 and 4 = $100, seats 3-4.
    $80 + $90 + $100 = $270 = 20 + 50 + 100 + 100. Each pot goes to its own best hand (R42):
    seat 1 best takes $80, seat 2 (next best) $90, seat 4 beats seat 3 for the $100."""
    pots = build_pots(
        [
            Contribution(1, D(20), all_in=True),
            Contribution(2, D(50), all_in=True),
            Contribution(3, D(100), all_in=True),
            Contribution(4, D(100)),
        ]
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [
        (D(80), (1, 2, 3, 4)),
        (D(90), (2, 3, 4)),
        (D(100), (3, 4)),
    ]
    assert pots.uncalled is None
    ranking = {1: hand(9), 2: hand(8), 3: hand(5), 4: hand(7)}
    awards = award(
        pots.pots,
        ranking,
        split=Split.HIGH,
        odd_chip_rule="004",
        chip=ONE,
        button_order=[1, 2, 3, 4],
    )
    assert [a.high for a in awards] == [(1,), (2,), (4,)]
    assert paid_by_seat(awards) == {1: D(80), 2: D(90), 4: D(100)}


def test_a_folded_players_chips_stay_in_the_pots_it_reached_004() -> None:
    """004 "Omaha High/Low Split: How The Pot Is Awarded": all bets go into the pot and only the
    active players enter the showdown. Seat 5 folds after putting in $30; seat 1 is all-in for
    $20; seats 2 and 3 put in $60.

    Up to $20: four players, $80, seats 1-3 (not 5). $20 to $30: seats 2, 3, 5, $30, seats 2-3.
    $30 to $60: seats 2 and 3, $60, seats 2-3: the same players, so one side pot of $90.
    $80 + $90 = $170 = 20 + 60 + 60 + 30. Seat 5's hand, however good, wins nothing."""
    pots = build_pots(
        [
            Contribution(1, D(20), all_in=True),
            Contribution(2, D(60)),
            Contribution(3, D(60)),
            Contribution(5, D(30), folded=True),
        ]
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [(D(80), (1, 2, 3)), (D(90), (2, 3))]
    awards = award(
        pots.pots,
        {1: hand(1), 2: hand(3), 3: hand(2), 5: hand(99)},
        split=Split.HIGH,
        odd_chip_rule="004",
        chip=ONE,
        button_order=[5, 1, 2, 3],
    )
    assert paid_by_seat(awards) == {2: D(170)}


def test_an_uncalled_bet_goes_back_to_the_bettor() -> None:
    """Seat 1 bets $100, seat 2 calls all-in for $40, seat 3 folded its $10 blind.

    Up to $10: three players, $30; $10 to $40: seats 1 and 2, $60: one main pot of $90, seats
    1-2. $40 to $100: seat 1 alone: nobody called those $60, so they go back to seat 1."""
    pots = build_pots(
        [
            Contribution(1, D(100)),
            Contribution(2, D(40), all_in=True),
            Contribution(3, D(10), folded=True),
        ]
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [(D(90), (1, 2))]
    assert pots.uncalled is not None
    assert (pots.uncalled.seat, pots.uncalled.amount) == (1, D(60))
    assert pots.total == D(150)


def test_a_bet_nobody_calls_takes_the_pot_without_a_showdown_003_stud_4() -> None:
    """003 "Basic Seven Card Stud Rules" 4: "If a bet or raise goes uncalled ..., the pot is taken
    by the player not called". Blinds $5 (seat 3) and $10 (seat 2); seat 1 bets $50; both fold.

    Up to $5: three players, $15; $5 to $10: seats 1 and 2, $10: a pot of $25 only seat 1 may win.
    $10 to $50: seat 1 alone, $40 back. No hand is shown: the ranking is empty."""
    pots = build_pots(
        [
            Contribution(1, D(50)),
            Contribution(2, D(10), folded=True),
            Contribution(3, D(5), folded=True),
        ]
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [(D(25), (1,))]
    awards = award(
        pots.pots, {}, split=Split.HIGH_LOW, odd_chip_rule="003", chip=ONE, button_order=[3, 2, 1]
    )
    assert paid_by_seat(awards, pots.uncalled) == {1: D(65)}


# ---------------------------------------------------------------- odd chips (R41)


def test_odd_chip_of_a_holdem_tie_goes_to_the_tied_winner_left_of_the_button_004_R41() -> None:
    """004 "Texas Hold'em: How the Pot Is Awarded": a tie splits the pot equally and "the odd
    chips shall be awarded to the player closest to the left of the dealer button". $25, two
    tied, $1 chips: $12 each and one odd $1. Clockwise from the button's left the seats are 6, 7,
    1, 2: seat 6 is nearer, $13; seat 2 gets $12. Under 003 (R41, ties) the same."""
    for rule in ("003", "004"):
        awards = award(
            [Pot(D(25), (2, 6))],
            {2: hand(5), 6: hand(5)},
            split=Split.HIGH,
            odd_chip_rule=rule,
            chip=ONE,
            button_order=[6, 7, 1, 2],
        )
        assert paid_by_seat(awards) == {6: D(13), 2: D(12)}, rule


def test_odd_chip_of_a_high_low_split_goes_high_003_R41() -> None:
    """R41's example at a 003 Omaha High-Low table, $1 chips: a $61 pot halves into $31 high
    ("High hand gets the odd chip", 003 "Omaha (High-Low Split)" 5) and $30 low. Seats 1 and 2
    tie for high: $31 is $15 each and one odd $1 to the one nearer the button's left. Clockwise
    from the button's left: 3, 2, 1, so seat 2 gets $16, seat 1 $15; seat 3's low takes $30."""
    awards = award(
        [Pot(D(61), (1, 2, 3))],
        {1: hand(9), 2: hand(9), 3: hand(1, low("8c 5d 4h 3s 2c"))},
        split=Split.HIGH_LOW,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[3, 2, 1],
    )
    assert awards[0].high == (2, 1) and awards[0].low == (3,)
    assert paid_by_seat(awards) == {2: D(16), 1: D(15), 3: D(30)}


def test_every_odd_chip_of_a_high_low_split_goes_left_of_the_button_004_R41() -> None:
    """004 "Omaha High/Low Split: How The Pot Is Awarded" gives "the odd chips ... to the player
    closest to the left of the dealer button", whatever split made them (R41). The same $61:
    halves of $30 and $30 and one odd chip; the high half $15 to each of seats 1 and 2. Seat 3,
    the low, sits first from the button's left (3, 2, 1): it gets the odd $1, $31 in all.
    With the order 2, 3, 1 the odd chip goes to seat 2 instead: $16, $15 to seat 1, $30 low."""
    ranking = {1: hand(9), 2: hand(9), 3: hand(1, low("8c 5d 4h 3s 2c"))}
    pot = [Pot(D(61), (1, 2, 3))]
    kw = {"split": Split.HIGH_LOW, "odd_chip_rule": "004", "chip": ONE}
    first = award(pot, ranking, button_order=[3, 2, 1], **kw)  # type: ignore[arg-type]
    assert paid_by_seat(first) == {3: D(31), 2: D(15), 1: D(15)}
    second = award(pot, ranking, button_order=[2, 3, 1], **kw)  # type: ignore[arg-type]
    assert paid_by_seat(second) == {2: D(16), 3: D(30), 1: D(15)}


def test_several_odd_chips_of_one_split_all_go_to_one_player_R41() -> None:
    """R41's example: $103 split four ways with $1 chips is $25 each and three odd chips, all to
    the one player nearest the button's left: $28."""
    awards = award(
        [Pot(D(103), (1, 2, 3, 4))],
        {s: hand(7) for s in (1, 2, 3, 4)},
        split=Split.HIGH,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[3, 4, 1, 2],
    )
    assert paid_by_seat(awards) == {3: D(28), 4: D(25), 1: D(25), 2: D(25)}


@pytest.mark.parametrize(
    ("chip", "first", "others"),
    [
        # $1 chips: 115 chips, 28 each (112), 3 odd chips to the first: $31.
        (D(1), D(31), D(28)),
        # $5 chips: 23 chips, 5 each ($25, 20 chips), 3 odd $5 chips ($15) to the first: $40.
        (D(5), D(40), D(25)),
    ],
)
def test_odd_chips_are_counted_in_the_tables_smallest_chip_R41(
    chip: Decimal, first: Decimal, others: Decimal
) -> None:
    """R41: "Pots are split in the table's smallest chip". A $115 pot, four tied high hands."""
    for rule in ("003", "004"):
        awards = award(
            [Pot(D(115), (1, 2, 3, 4))],
            {s: hand(7) for s in (1, 2, 3, 4)},
            split=Split.HIGH,
            odd_chip_rule=rule,
            chip=chip,
            button_order=[2, 3, 4, 1],
        )
        assert paid_by_seat(awards) == {2: first, 3: others, 4: others, 1: others}, rule


def test_part_of_a_chip_goes_with_the_odd_chips_R41() -> None:
    """A $12.50 pot with $5 chips (a $2.50 blind left the half chip): two tied high hands get
    one $5 chip each; the $2.50 that no chip can split goes where the odd chips go, to the tied
    winner nearest the button's left: $7.50 and $5.00."""
    awards = award(
        [Pot(D("12.50"), (1, 2))],
        {1: hand(3), 2: hand(3)},
        split=Split.HIGH,
        odd_chip_rule="003",
        chip=D(5),
        button_order=[2, 1],
    )
    assert paid_by_seat(awards) == {2: D("7.50"), 1: D(5)}


# ---------------------------------------------------------------- high-low (R42)


def test_a_quartered_omaha_high_low_pot_003_R42() -> None:
    """003 "Omaha (High-Low Split)" 5, $1 chips, a $62 pot: seat 1 has the best high and ties
    seat 2 for the low (both 7-5-4-2-A). High half $31 to seat 1; low half $31 split between
    seats 1 and 2: $15 each and the odd $1 to the one nearer the button's left (order 2, 3, 1:
    seat 2). Seat 1: $31 + $15 = $46; seat 2: $16; seat 3 (second high, no low) nothing."""
    seven_low = low("7c 5d 4h 2s Ac")
    awards = award(
        [Pot(D(62), (1, 2, 3))],
        {1: hand(9, seven_low), 2: hand(2, seven_low), 3: hand(8)},
        split=Split.HIGH_LOW,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[2, 3, 1],
    )
    assert awards[0].high == (1,) and awards[0].low == (2, 1)
    assert paid_by_seat(awards) == {1: D(46), 2: D(16)}


def test_a_quartered_pot_with_no_odd_chip_is_the_same_under_both_documents_R42() -> None:
    """$60: $30 high to seat 1; $30 low shared by seats 1 and 2, $15 each. Seat 1 $45, seat 2
    $15, under 003 and 004 alike."""
    seven_low = low("7c 5d 4h 2s Ac")
    for rule in ("003", "004"):
        awards = award(
            [Pot(D(60), (1, 2, 3))],
            {1: hand(9, seven_low), 2: hand(2, seven_low), 3: hand(8)},
            split=Split.HIGH_LOW,
            odd_chip_rule=rule,
            chip=ONE,
            button_order=[1, 2, 3],
        )
        assert paid_by_seat(awards) == {1: D(45), 2: D(15)}, rule


def test_with_no_qualifying_low_the_high_hand_takes_the_whole_pot_R42() -> None:
    """004 "Omaha High/Low Split: How The Pot Is Awarded": "If there is no qualifying five-card
    low poker hand ... the entire pot shall be awarded to the player with the highest ranked
    five-card poker hand". $61 (odd), nobody has a low: all $61 to seat 3."""
    for rule in ("003", "004"):
        awards = award(
            [Pot(D(61), (1, 2, 3))],
            {1: hand(4), 2: hand(6), 3: hand(8)},
            split=Split.HIGH_LOW,
            odd_chip_rule=rule,
            chip=ONE,
            button_order=[1, 2, 3],
        )
        assert awards[0].low == ()
        assert paid_by_seat(awards) == {3: D(61)}, rule


def test_a_tie_for_high_with_no_low_splits_the_whole_pot_crazy_pineapple_R41() -> None:
    """003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes": tied high
    hands and no qualifying low split the whole pot, the odd chips to the player closest to the
    left of the button. $61: $30 each, the odd $1 to seat 4 (order 4, 1): $31 and $30."""
    awards = award(
        [Pot(D(61), (1, 4))],
        {1: hand(6), 4: hand(6)},
        split=Split.HIGH_LOW,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[4, 1],
    )
    assert paid_by_seat(awards) == {4: D(31), 1: D(30)}


def test_the_lowest_qualifying_low_takes_the_whole_low_half_R42() -> None:
    """R42's example: at Omaha High-Low 8-6-4-3-2 and 7-5-4-2-A both qualify; 7-5-4-2-A (seat 2)
    takes the whole $30 low half of a $60 pot, not a share of it. Seat 3's high takes $30."""
    awards = award(
        [Pot(D(60), (1, 2, 3))],
        {1: hand(2, low("8c 6d 4h 3s 2c")), 2: hand(1, low("7d 5c 4s 2h Ad")), 3: hand(9)},
        split=Split.HIGH_LOW,
        odd_chip_rule="004",
        chip=ONE,
        button_order=[1, 2, 3],
    )
    assert awards[0].low == (2,)
    assert paid_by_seat(awards) == {2: D(30), 3: D(30)}


def test_a_side_pot_with_no_low_goes_whole_to_its_high_while_the_main_pot_splits_R42() -> None:
    """R42: "a side pot whose contenders hold no qualifying low goes whole to its best high hand,
    even when the main pot is split". Seat 1 is all-in for $20 holding the only low (and the
    worst high); seats 2 and 3 put in $50, no low, seat 2 the best high.

    Main pot: 3 x $20 = $60, halves of $30: high to seat 2, low to seat 1. Side pot: 2 x $30 =
    $60, seats 2-3, no low among them: all to seat 2. Seat 2: $90, seat 1: $30."""
    pots = build_pots(
        [
            Contribution(1, D(20), all_in=True),
            Contribution(2, D(50)),
            Contribution(3, D(50)),
        ]
    )
    assert [(p.amount, p.eligible) for p in pots.pots] == [(D(60), (1, 2, 3)), (D(60), (2, 3))]
    awards = award(
        pots.pots,
        {1: hand(1, low("8c 7d 6h 5s 3c")), 2: hand(9), 3: hand(5)},
        split=Split.HIGH_LOW,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[1, 2, 3],
    )
    assert [(a.high, a.low) for a in awards] == [((2,), (1,)), ((2,), ())]
    assert paid_by_seat(awards) == {2: D(90), 1: D(30)}


def test_in_a_low_only_game_the_lowest_hand_takes_the_pot_and_ties_split_R42() -> None:
    """003 "Lowball": "the lowest hand wins every pot"; 003 "Razz (Seven Card Stud, Low Only)":
    no qualifier, "a pair can win for low". Seats 1 and 3 tie with 7-5-4-3-2 against seat 2's
    pair: a $45 pot is $22 each, the odd $1 to seat 3 (order 3, 1, 2): $23 and $22."""
    seven = low("7c 5d 4h 3s 2c")
    awards = award(
        [Pot(D(45), (1, 2, 3))],
        {1: Strength((), seven), 2: Strength((), low("Kc Kd 9h 4s Ac")), 3: Strength((), seven)},
        split=Split.LOW,
        odd_chip_rule="003",
        chip=ONE,
        button_order=[3, 1, 2],
    )
    assert awards[0].low == (3, 1)
    assert paid_by_seat(awards) == {3: D(23), 1: D(22)}


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("contributions", "message"),
    [
        ([Contribution(1, D(5)), Contribution(1, D(5))], "seat 1 is listed twice"),
        ([Contribution(1, D(5), folded=True)], "every player folded"),
        (
            [Contribution(1, D(50)), Contribution(2, D(30))],
            "seat 2 is still in and not all-in but put in 30.00",
        ),
        (
            [
                Contribution(1, D(100), folded=True),
                Contribution(2, D(100), folded=True),
                Contribution(3, D(40), all_in=True),
            ],
            "chips above 40.00 were put in only by folded players",
        ),
    ],
)
def test_contributions_that_are_no_finished_hand_are_refused(
    contributions: list[Contribution], message: str
) -> None:
    with pytest.raises(PotError, match=message):
        build_pots(contributions)


def test_a_contribution_that_is_not_money_is_refused() -> None:
    with pytest.raises(PotError, match=r"seat 4's contribution: .* is negative"):
        Contribution(4, D(-5))
    with pytest.raises(PotError, match=r"seat 4's contribution: .* fractions of a cent"):
        Contribution(4, D("0.001"))
    with pytest.raises(PotError, match="seat 4 is marked both folded and all-in"):
        Contribution(4, D(5), folded=True, all_in=True)


def test_a_pot_must_hold_chips_and_someone_to_win_them() -> None:
    with pytest.raises(PotError, match=r"a pot's amount: .* must be more than zero"):
        Pot(D(0), (1,))
    with pytest.raises(PotError, match="nobody eligible"):
        Pot(D(5), ())
    with pytest.raises(PotError, match="lists a seat twice"):
        Pot(D(5), (1, 1))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"chip": D(0)}, "the smallest chip: .* must be more than zero"),
        ({"odd_chip_rule": "005"}, "odd_chip_rule is '005'"),
        ({"split": "middle"}, "split is 'middle', not one of"),
        ({"button_order": [1, 2, 2, 3]}, "seat 2 appears twice in button_order"),
        ({"button_order": [1, 2]}, "seat 3 may win the main pot but is not in button_order"),
        ({"ranking": {1: hand(3), 2: hand(4)}}, "seat 3 contests the main pot but has no hand"),
        (
            {
                "split": Split.LOW,
                "ranking": {1: Strength((), (8,)), 2: Strength((), (7,)), 3: Strength((), None)},
            },
            "seat 3 contests the main pot in a low-only game but has no low hand",
        ),
    ],
)
def test_award_refuses_bad_input_naming_it(change: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "ranking": {1: hand(3), 2: hand(4), 3: hand(5)},
        "split": Split.HIGH,
        "odd_chip_rule": "003",
        "chip": ONE,
        "button_order": [1, 2, 3],
    }
    args.update(change)
    pots = [Pot(D(30), (1, 2, 3)), Pot(D(20), (2, 3))]
    with pytest.raises(PotError, match=message):
        award(pots, **args)  # type: ignore[arg-type]


# ---------------------------------------------------------------- properties


def reference_pots(contributions: Sequence[Contribution]) -> Pots:
    """Pots built slice by slice: every player's chips cut into equal slices of the largest size
    that divides every amount; slice k of everyone who reached it is contested by the players
    still in who reached it, or goes back when one player alone reached it."""
    cents = [int(c.amount * 100) for c in contributions]
    step = 0
    for c in cents:
        step = gcd(step, c)
    if step == 0:
        return Pots((), None)
    unit = D(step) / 100
    by_players: dict[tuple[int, ...], Decimal] = {}
    back: dict[int, Decimal] = {}
    for k in range(max(cents) // step):
        reached = [c for c, n in zip(contributions, cents, strict=True) if n > k * step]
        if len(reached) == 1:
            back[reached[0].seat] = back.get(reached[0].seat, D(0)) + unit
            continue
        players = tuple(sorted(c.seat for c in reached if not c.folded))
        by_players[players] = by_players.get(players, D(0)) + unit * len(reached)
    # A later pot is contested by fewer players: main pot first.
    pots = tuple(Pot(a, p) for p, a in sorted(by_players.items(), key=lambda kv: -len(kv[0])))
    assert len(back) <= 1
    uncalled = next((Payout(s, a) for s, a in back.items()), None)
    return Pots(pots, uncalled)


def reference_award(
    pot: Pot,
    ranking: Mapping[int, Strength],
    split: Split,
    rule: str,
    chip: Decimal,
    order: Sequence[int],
) -> dict[int, Decimal]:
    """One pot paid chip by chip, as a dealer would: deal the halves, then each half round by
    round to its winners while a whole round is left, then the leftover where R41 sends it."""
    got: dict[int, Decimal] = {}

    def give(seat: int, amount: Decimal) -> None:
        got[seat] = got.get(seat, D(0)) + amount

    contenders = [s for s in order if s in pot.eligible]
    chips = int(pot.amount // chip)
    rest = pot.amount - chips * chip  # less than one chip
    if len(contenders) == 1:
        give(contenders[0], pot.amount)
        return got

    def unbeaten(better: object) -> list[int]:
        return [s for s in contenders if not any(better(o, s) for o in contenders)]  # type: ignore[operator]

    def rounds(pile: int, winners: list[int]) -> int:
        """Deal `pile` chips round by round to `winners`; return the chips left over."""
        while pile >= len(winners):
            for w in winners:
                give(w, chip)
            pile -= len(winners)
        return pile

    if split is Split.LOW:
        lows = unbeaten(lambda o, s: ranking[o].low < ranking[s].low)  # type: ignore[operator]
        left = rounds(chips, lows)
        give(lows[0], left * chip + rest)
        return got
    highs = unbeaten(lambda o, s: ranking[o].high > ranking[s].high)
    qualified = [s for s in contenders if ranking[s].low is not None]
    lows = [
        s
        for s in qualified
        if not any(ranking[o].low < ranking[s].low for o in qualified)  # type: ignore[operator]
    ]
    if split is Split.HIGH or not lows:
        left = rounds(chips, highs)
        give(highs[0], left * chip + rest)
        return got
    high_pile = low_pile = 0
    while chips >= 2:  # one chip to each half at a time
        high_pile, low_pile, chips = high_pile + 1, low_pile + 1, chips - 2
    if rule == "003":
        high_pile += chips  # the halving's odd chip goes high
        give(highs[0], rounds(high_pile, highs) * chip + rest)
        give(lows[0], rounds(low_pile, lows) * chip)
    else:
        left = chips + rounds(high_pile, highs) + rounds(low_pile, lows)
        first = next(s for s in order if s in highs or s in lows)
        give(first, left * chip + rest)
    return {s: a for s, a in got.items() if a}


@st.composite
def hands_at_showdown(draw: st.DrawFn) -> tuple[list[Contribution], dict[int, Strength], list[int]]:
    """A finished hand: contributions (some folded, some all-in), the live hands, the seats
    clockwise from the button's left."""
    n = draw(st.integers(2, 6))
    seats = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n, unique=True))
    chip = D(5)
    amounts = [
        D(draw(st.integers(0, 12))) * chip + draw(st.sampled_from([D(0), D(0), D(1), D("2.50")]))
        for _ in seats
    ]
    status = [draw(st.sampled_from(["in", "all-in", "all-in", "folded"])) for _ in seats]
    assume(any(s != "folded" for s in status))
    most = max(amounts)
    contributions = [
        Contribution(seat, most if s == "in" else a, folded=s == "folded", all_in=s == "all-in")
        for seat, a, s in zip(seats, amounts, status, strict=True)
    ]
    live_most = max(c.amount for c in contributions if not c.folded)
    assume(sum(1 for c in contributions if c.folded and c.amount > live_most) <= 1)
    ranking = {
        c.seat: Strength(
            (draw(st.integers(0, 3)),),
            draw(st.one_of(st.none(), st.tuples(st.integers(1, 3)))),
        )
        for c in contributions
        if not c.folded
    }
    order = draw(st.permutations(seats))
    return contributions, ranking, list(order)


@settings(max_examples=300, deadline=None)
@given(
    hand_=hands_at_showdown(),
    split=st.sampled_from(list(Split)),
    rule=st.sampled_from(["003", "004"]),
    chip=st.sampled_from([D(1), D(5), D("0.25")]),
)
def test_pots_and_awards_conserve_chips_and_equal_a_chip_by_chip_reference(
    hand_: tuple[list[Contribution], dict[int, Strength], list[int]],
    split: Split,
    rule: OddChipRule,
    chip: Decimal,
) -> None:
    contributions, ranking, order = hand_
    if split is Split.LOW:  # every hand in a low-only game has a low
        ranking = {s: Strength(h.high, h.low or (4,)) for s, h in ranking.items()}
    pots = build_pots(contributions)
    expected = reference_pots(contributions)
    assert pots == expected
    awards = award(
        pots.pots, ranking, split=split, odd_chip_rule=rule, chip=chip, button_order=order
    )
    put_in = sum((c.amount for c in contributions), D(0))
    taken = paid_by_seat(awards, pots.uncalled)
    assert sum(taken.values(), D(0)) == put_in  # chips conserved
    for a in awards:
        assert all(p.amount > 0 for p in a.paid)
        assert {p.seat for p in a.paid} <= set(a.pot.eligible)  # paid only where eligible
        off_chip = [p for p in a.paid if p.amount % chip]
        assert len(off_chip) <= (0 if a.pot.amount % chip == 0 else 1)
        assert {p.seat: p.amount for p in a.paid} == reference_award(
            a.pot, ranking, split, rule, chip, order
        )


def test_a_dead_blind_goes_to_the_main_pot_and_matches_no_bet() -> None:
    """Missed blinds (docs/games/poker-room.md, no document): seat 7 posted $2 dead and $4 live
    and folded; seat 1 put $4 in and folded; seat 9 put $8 in. Levels count live chips only: $4
    each from three players is the main pot ($12), 9's other $4 was called by nobody and goes
    back, and 7's dead $2 joins the main pot: $14 for seat 9."""
    pots = build_pots(
        [
            Contribution(9, D(8)),
            Contribution(1, D(4), folded=True),
            Contribution(7, D(4), folded=True, dead=D(2)),
        ]
    )
    assert pots.pots == (Pot(D(14), (9,)),)
    assert pots.uncalled == Payout(9, D(4))


# ---------------------------------------------------------------- the collection (R52)


@pytest.mark.parametrize(
    ("pots", "fee", "taken", "left"),
    [
        # The main pot covers the fee: only it pays ($30 - $3 = $27; the side pot untouched).
        ([("30", (1, 2, 3)), ("20", (1, 2))], "3", "3", [("27", (1, 2, 3)), ("20", (1, 2))]),
        # A fee equal to the main pot empties it: the side pot is left whole.
        ([("6", (1, 2, 3)), ("20", (1, 2))], "6", "6", [("20", (1, 2))]),
        # $10 against a $6 main pot: the main pot's $6, then $4 from the first side pot ($20 ->
        # $16); the second side pot is untouched. (Before R52: $6 taken, pots $20 and $10.)
        (
            [("6", (1, 2, 3)), ("20", (1, 2)), ("10", (1,))],
            "10",
            "10",
            [("16", (1, 2)), ("10", (1,))],
        ),
        # $8 against pots of $2, $3 and $10: $2 and $3 empty the main and first side pots, $3 of
        # the second leaves $7. (Before R52: $2 taken, pots $3 and $10.)
        ([("2", (1, 2, 3)), ("3", (1, 2)), ("10", (2,))], "8", "8", [("7", (2,))]),
        # $8 against pots holding $5 in all: the hand pays the $5 it has, no pot is left.
        # (Before R52: $2 taken, the $3 side pot awarded.)
        ([("2", (1, 2, 3)), ("3", (1, 2))], "8", "5", []),
        # No collection: nothing taken, the pots as they were.
        ([("6", (1, 2, 3))], "0", "0", [("6", (1, 2, 3))]),
    ],
)
def test_a_fee_larger_than_the_main_pot_takes_the_rest_from_the_side_pots_in_order_R52(
    pots: list[tuple[str, tuple[int, ...]]],
    fee: str,
    taken: str,
    left: list[tuple[str, tuple[int, ...]]],
) -> None:
    got, rest = take_fee([Pot(D(a), e) for a, e in pots], D(fee))
    assert got == D(taken)
    assert [(p.amount, p.eligible) for p in rest] == [(D(a), e) for a, e in left]
    # Every chip is either collected or still in a pot.
    assert got + sum((p.amount for p in rest), D(0)) == sum((D(a) for a, _ in pots), D(0))
