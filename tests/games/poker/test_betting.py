"""One poker betting round (tablectl.rules.betting): the structures, the actions and the round.

Every expected amount below is worked by hand from the documents in the comment above it:
003 "Betting Limits" (the posted limits), 003 "Crazy Pineapple High-Low Split: Description of
Table Used and Total Number of Seated Positions" (the small bet early, the big bet late),
004 "Texas Hold'em: Action and Distribution of Cards" and "Dealing Procedures and Round of Play"
(who acts when, the call, the check, the big blind's option, three raises unless two players),
004 "Collection Procedures" ("Poker Games": the spread limit and its $200), R43, and 003
"Lowball" (Lowball Rules, rule 5: the straddle). Players are listed clockwise from the first seat
left of the button, so in a four-handed game seat 1 is the small blind, seat 2 the big blind,
seat 3 first to act and seat 4 the button.

The property test plays random legal sequences under every structure and checks what no
sequence may break: no stack below zero, the chips put in equal to the stacks' loss, every
`can_x` agreeing with its `verify_x`, and the caps of R43. A second one plays no-limit and
pot-limit rounds in pokerkit (an independent engine, a dev dependency) and here side by side:
whose turn, the call, the least and greatest bet or raise and every stack must agree, but where
pokerkit lets a player who already acted raise over a short all-in before any full bet.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import Automation, NoLimitTexasHoldem, PotLimitOmahaHoldem, State

from tablectl.rules.betting import (
    ACTION_ORDER,
    BETTING_LIMITS,
    FIXED_LIMIT_RULE,
    MONEY,
    RAISE_CAP,
    ROUND_OF_PLAY,
    SHORT_ALL_IN,
    SPREAD_LIMIT_RULE,
    SPREAD_ROUND_CAP,
    STRADDLE_RULE,
    TABLE_STAKES,
    BettingError,
    BettingRound,
    Structure,
)
from tablectl.rules.betting_posts import OwedPost, open_round
from tablectl.rules.betting_structures import FixedLimit, NoLimit, PotLimit, SpreadLimit


def d(x: str | int) -> Decimal:
    return Decimal(x)


def seats(*stacks: str | int) -> list[tuple[int, Decimal]]:
    """Seats 1, 2, ... clockwise from the small blind, with these stacks."""
    return [(i + 1, d(s)) for i, s in enumerate(stacks)]


def refused(action: Callable[[], object], rule: str) -> str:
    """The reason `action` is refused for, after checking it names `rule`."""
    with pytest.raises(BettingError) as caught:
        action()
    assert caught.value.rule == rule, caught.value
    return caught.value.reason


def in_round(rnd: BettingRound) -> dict[int, Decimal]:
    return {p.seat: p.in_round for p in rnd.players}


def to_the_flop(
    structure: Structure, *stacks: str | int, blinds: tuple[int, int] = (1, 2)
) -> BettingRound:
    """Everyone calls the big blind and the big blind checks: the flop's round, street 1."""
    rnd = open_round(structure, seats(*stacks), [d(blinds[0]), d(blinds[1])])
    while rnd.can_call():
        rnd = rnd.call()
    rnd = rnd.check()
    assert rnd.complete
    return rnd.next_round()


LIMIT_4_8 = FixedLimit(d(4), d(8))  # 004 "Texas Hold'em: Collection Fee Schedule", options 1-2
LIMIT_3_6 = FixedLimit(d(3), d(6))  # 003 Crazy Pineapple's own example: small blind $1, big $3
SPREAD_1_3_1_6 = SpreadLimit(d(1), d(3), late_low=d(1), late_high=d(6))  # 003 "Betting Limits"
SPREAD_4_200 = SpreadLimit(d(4), d(200), round_cap=d(200))  # 004 spread options 7-8, R43


# ---------------------------------------------------------------- whose turn (004)


def test_first_round_starts_left_of_the_big_blind_later_rounds_left_of_the_button_004() -> None:
    # $2-$4 limit, blinds $1/$2, four players: seat 3 sits left of the big blind (seat 2) and
    # acts first; on the flop the first player left of the button (seat 4) is seat 1.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, 50, 50, 50), [d(1), d(2)])
    assert rnd.turn == 3
    assert rnd.to_call == d(2)
    assert in_round(rnd) == {1: d(1), 2: d(2), 3: d(0), 4: d(0)}
    refused(lambda: rnd.verify_turn(4), ACTION_ORDER)
    rnd = rnd.call().call().call()  # seats 3, 4 call $2; seat 1 completes with $1
    assert rnd.turn == 2
    rnd = rnd.check().next_round()
    assert (rnd.street, rnd.turn, rnd.to_call, rnd.pot) == (1, 1, d(0), d(8))


def test_heads_up_the_button_posts_the_big_blind_and_acts_last_on_every_street_R53() -> None:
    # Two players, blinds $1/$2, seat 1 left of the button (seat 2): seat 1 posts the small
    # blind and seat 2, the button, the big blind. Before the flop seat 1 acts first and the
    # button last (its option); on the flop the first player left of the button, seat 1, again.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, 50), [d(1), d(2)])
    assert [(a.seat, a.verb, a.added) for a in rnd.actions] == [
        (1, "blind", d(1)),
        (2, "blind", d(2)),
    ]
    assert (rnd.turn, rnd.to_call) == (1, d(1))  # the small blind owes $1 more
    rnd = rnd.call()  # seat 1 completes with $1
    assert rnd.turn == 2 and not rnd.complete
    rnd = rnd.check().next_round()
    assert (rnd.street, rnd.turn) == (1, 1)
    rnd = rnd.check()
    assert rnd.turn == 2 and not rnd.complete


def test_the_big_blind_may_check_or_raise_when_everyone_calls_004() -> None:
    # 004 "Dealing Procedures and Round of Play": the check is "only permitted for the player in
    # the big blind position when all other players have called the big blind and there have been
    # no raises". All call $2; the big blind (seat 2) has nothing to call and may check or raise
    # one $2 increment to $4.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, 50, 50, 50), [d(1), d(2)])
    rnd = rnd.call().call().call()
    assert (rnd.turn, rnd.to_call) == (2, d(0))
    assert rnd.can_check() and not rnd.can_call()
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(4), d(4))
    checked = rnd.check()
    assert checked.complete and checked.pot == d(8)
    raised = rnd.raise_to(d(4))
    # Everyone else now owes $2 more, starting again left of the big blind.
    assert (raised.turn, raised.to_call) == (3, d(2))
    refused(raised.check, ROUND_OF_PLAY)


def test_before_the_big_blind_no_one_may_check_004() -> None:
    # "When a raise or re-raise occurs, checking is not permitted": seat 3 owes the $2 big blind.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, 50, 50), [d(1), d(2)])
    assert "$2.00 to call" in refused(rnd.check, ROUND_OF_PLAY)
    refused(lambda: rnd.bet(d(2)), ROUND_OF_PLAY)  # there is a bet already: the big blind


def test_the_raiser_is_not_asked_again_once_everyone_calls_004() -> None:
    # 004 lets "the player that originally raised the pot" check once all call the raise: nothing
    # is owed, so the round ends there. Flop, $4-$8: seat 1 bets $4, seats 2 and 3 call.
    rnd = to_the_flop(LIMIT_4_8, 100, 100, 100).bet(d(4)).call().call()
    assert rnd.complete and in_round(rnd) == {1: d(4), 2: d(4), 3: d(4)}


def test_a_player_may_fold_with_nothing_to_call_004() -> None:
    # 004 lists "fold" among the options of every round; on the flop seat 1 folds rather than
    # check, and seat 2 is alone.
    rnd = to_the_flop(NoLimit(d(2)), 100, 100).fold()
    assert rnd.hand_over and rnd.folded_seats == (1,) and rnd.pot == d(4)


def test_an_action_out_of_turn_is_refused_004() -> None:
    rnd = open_round(NoLimit(d(2)), seats(50, 50, 50), [d(1), d(2)])
    rnd.verify_turn(3)
    assert "seat 3's turn" in refused(lambda: rnd.verify_turn(1), ACTION_ORDER)
    assert "not in this hand" in refused(lambda: rnd.verify_turn(9), ACTION_ORDER)


def test_the_round_ends_when_all_but_one_fold_004() -> None:
    # Seats 3 and 1 fold to the big blind: seat 2 is alone, the round and the hand are over.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, 50, 50), [d(1), d(2)]).fold().fold()
    assert rnd.complete and rnd.hand_over and rnd.turn is None
    assert rnd.folded_seats == (1, 3) and rnd.pot == d(3)
    refused(rnd.fold, ROUND_OF_PLAY)
    refused(rnd.next_round, ROUND_OF_PLAY)


# ---------------------------------------------------------------- fixed limit (003, 004, R43)


def test_fixed_limit_round_caps_at_three_raises_004_R43() -> None:
    # R43's example at $4-$8 on the flop (small bet $4): seat 1 bets $4, seat 2 raises to $8,
    # seat 3 re-raises to $12, seat 4 raises to $16: three raises close the raising.
    rnd = to_the_flop(LIMIT_4_8, 100, 100, 100, 100)
    rnd = rnd.bet(d(4)).raise_to(d(8)).raise_to(d(12)).raise_to(d(16))
    assert (rnd.turn, rnd.raises, rnd.to_call) == (1, 3, d(12))
    assert rnd.min_bet_or_raise_to is None and not rnd.can_raise_to(d(20))
    assert "capped" in refused(lambda: rnd.raise_to(d(20)), RAISE_CAP)
    refused(rnd.all_in, RAISE_CAP)
    rnd = rnd.call().call().call()  # seats 1, 2, 3 put in $12, $8, $4 more
    assert rnd.complete and set(in_round(rnd).values()) == {d(16)}
    assert rnd.pot == d(8 + 64)  # $2 from each preflop, $16 from each on the flop


def test_fixed_limit_first_round_cap_counts_the_big_blind_as_the_bet_003_R43() -> None:
    # 003 Crazy Pineapple's $3-$6 with a $1 small and $3 big blind, raises in $3 increments:
    # the big blind is the bet; $6, $9 and $12 are the three raises (R43; 003 "Crazy Pineapple
    # High-Low Split: Dealing Procedures and Round of Play" caps it the same way).
    rnd = open_round(LIMIT_3_6, seats(100, 100, 100, 100), [d(1), d(3)])
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(6), d(6))
    refused(lambda: rnd.raise_to(d(7)), FIXED_LIMIT_RULE)
    rnd = rnd.raise_to(d(6)).raise_to(d(9)).raise_to(d(12))  # seats 3, 4, 1
    assert (rnd.turn, rnd.to_call) == (2, d(9))
    refused(lambda: rnd.raise_to(d(15)), RAISE_CAP)


def test_two_players_raise_without_limit_004_R43() -> None:
    # "unless there are only two players participating during a round of betting, in which case
    # there is no limit to the number of raises": heads-up on the flop, $4 then five raises.
    rnd = to_the_flop(LIMIT_4_8, 100, 100).bet(d(4))
    for to in (8, 12, 16, 20, 24):
        rnd = rnd.raise_to(d(to))
    assert rnd.raises == 5 and rnd.can_raise_to(d(28))
    rnd = rnd.call()
    assert rnd.complete and set(in_round(rnd).values()) == {d(24)}


def test_the_cap_lifts_when_a_fold_leaves_two_players_004_R43() -> None:
    # Three players: seat 1 bets $4, seat 2 raises to $8, seat 3 to $12, seat 1 to $16 (three
    # raises). Seat 2 may not raise, folds; seats 3 and 1 are the only two left, so seat 3 may.
    rnd = to_the_flop(LIMIT_4_8, 100, 100, 100)
    rnd = rnd.bet(d(4)).raise_to(d(8)).raise_to(d(12)).raise_to(d(16))
    refused(lambda: rnd.raise_to(d(20)), RAISE_CAP)
    rnd = rnd.fold()
    assert rnd.turn == 3 and rnd.can_raise_to(d(20))


def test_fixed_limit_uses_the_big_bet_in_the_last_two_rounds_003_crazy_pineapple() -> None:
    # "During the first two rounds of betting ... the lower table limit. During the last two rounds
    # of betting ... the higher table limit": at $3-$6 the flop (second round) bets $3, the turn
    # (third round) and the river bet exactly $6.
    flop = to_the_flop(LIMIT_3_6, 100, 100, 100, blinds=(1, 3))
    assert (flop.min_bet_or_raise_to, flop.max_bet_or_raise_to) == (d(3), d(3))
    turn = flop.check().check().check().next_round()
    assert turn.street == 2
    assert (turn.min_bet_or_raise_to, turn.max_bet_or_raise_to) == (d(6), d(6))
    refused(lambda: turn.bet(d(3)), FIXED_LIMIT_RULE)
    refused(lambda: turn.bet(d(12)), FIXED_LIMIT_RULE)
    assert turn.bet(d(6)).min_bet_or_raise_to == d(12)


# ---------------------------------------------------------------- spread limit (003, 004, R43)


def test_spread_limit_bets_and_raises_within_the_posted_spread_003_betting_limits_R49() -> None:
    # $1-$3/$1-$6: on the flop a bet is $1 to $3; a raise is at least the previous bet ($2) and
    # at most the spread's $3 more; on the turn the spread is $1-$6.
    flop = to_the_flop(SPREAD_1_3_1_6, 100, 100, 100)
    assert (flop.min_bet_or_raise_to, flop.max_bet_or_raise_to) == (d(1), d(3))
    refused(lambda: flop.bet(d(4)), SPREAD_LIMIT_RULE)
    rnd = flop.bet(d(2))
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(4), d(5))
    refused(lambda: rnd.raise_to(d(3)), SPREAD_LIMIT_RULE)  # adds $1, less than the $2 bet
    rnd = rnd.raise_to(d(5)).raise_to(d(8)).raise_to(d(11))  # no cap on the number of raises
    assert rnd.raises == 3 and rnd.can_raise_to(d(14))
    turn = flop.check().check().check().next_round()
    assert (turn.min_bet_or_raise_to, turn.max_bet_or_raise_to) == (d(1), d(6))


def test_spread_limit_round_capped_at_200_per_seat_004_R43() -> None:
    # 004's $4-$200 spread: "a wager may not exceed $200 per betting round". On the flop seat 1
    # bets $50, seat 2 raises to $100, seat 3 calls, seat 1 raises to $150, seat 2 raises to $200
    # (the most: one more $50 raise reaches the $200 cap). Seat 3 calls $100 more. Seat 1, who has
    # put $150 into this round, may add at most $50 (R43's example): a call, and no raise.
    rnd = to_the_flop(SPREAD_4_200, 1000, 1000, 1000)
    rnd = rnd.bet(d(50)).raise_to(d(100)).call().raise_to(d(150))
    assert (rnd.turn, rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (2, d(200), d(200))
    assert "$200.00 is" in refused(lambda: rnd.raise_to(d(250)), SPREAD_ROUND_CAP)
    rnd = rnd.raise_to(d(200)).call()
    assert (rnd.turn, rnd.player(1).in_round, rnd.to_call) == (1, d(150), d(50))
    assert rnd.max_bet_or_raise_to is None and not rnd.can_all_in()
    refused(lambda: rnd.raise_to(d(204)), SPREAD_ROUND_CAP)
    rnd = rnd.call()
    assert rnd.complete and set(in_round(rnd).values()) == {d(200)}
    assert all(p.stack == d(1000 - 2 - 200) for p in rnd.players)


def test_no_all_in_for_more_than_200_004_R43() -> None:
    # "An all-in wager may not exceed $200 at any time": with $300 behind seat 1 may bet $200
    # but not go all-in; with $180 behind seat 2 may go all-in for all $180.
    rnd = to_the_flop(SPREAD_4_200, 302, 182, 500)
    assert rnd.player(1).stack == d(300)
    refused(rnd.all_in, SPREAD_ROUND_CAP)
    assert rnd.can_bet(d(200)) and not rnd.can_bet(d(201))
    rnd = rnd.check().all_in()
    assert rnd.all_in_seats == (2,) and rnd.player(2).in_round == d(180)
    assert rnd.actions[-1].verb == "bet" and rnd.actions[-1].all_in


# ---------------------------------------------------------------- all-ins


def test_short_all_in_does_not_reopen_the_betting_no_limit_R50() -> None:
    # No limit, $2 big blind, on the flop: seat 1 bets $10; seat 2 goes all-in for $14, $4 over
    # the bet where a full raise is $10 more ($20). Seat 3, who has not acted, may raise: at least
    # $14 + $10 = $24. Seat 3 calls $14. Seat 1 already acted and owes $4: it may call or fold,
    # not raise, because the all-in was not a full raise.
    rnd = to_the_flop(NoLimit(d(2)), 202, 16, 202).bet(d(10)).all_in()
    assert (rnd.current_bet, rnd.full_bet, rnd.raises) == (d(14), d(10), 0)
    assert (rnd.turn, rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (3, d(24), d(200))
    rnd = rnd.call()
    assert (rnd.turn, rnd.to_call) == (1, d(4))
    assert rnd.min_bet_or_raise_to is None
    refused(lambda: rnd.raise_to(d(30)), SHORT_ALL_IN)
    refused(rnd.all_in, SHORT_ALL_IN)
    rnd = rnd.call()
    assert rnd.complete and set(in_round(rnd).values()) == {d(14)}


def test_full_all_in_raise_reopens_the_betting_no_limit() -> None:
    # The same, but seat 2 is all-in for $20: a full raise of $10. Seat 3 calls; seat 1 may now
    # re-raise, at least $20 + $10 = $30.
    rnd = to_the_flop(NoLimit(d(2)), 202, 22, 202).bet(d(10)).all_in().call()
    assert (rnd.turn, rnd.min_bet_or_raise_to) == (1, d(30))
    assert rnd.raise_to(d(30)).turn == 3


def test_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting_no_limit_R50() -> None:
    # Seat 1 bets $10; seat 2 is all-in for $14 and seat 3 for $20, each short of a full raise,
    # together $10 over seat 1's bet: a full raise. Seat 4 calls $20; seat 1 may re-raise, at
    # least $20 + $10 = $30.
    rnd = to_the_flop(NoLimit(d(2)), 202, 16, 22, 202).bet(d(10)).all_in().all_in()
    assert (rnd.current_bet, rnd.full_bet) == (d(20), d(10))
    rnd = rnd.call()
    assert (rnd.turn, rnd.to_call, rnd.min_bet_or_raise_to) == (1, d(10), d(30))


def test_a_stack_that_only_covers_the_call_cannot_raise() -> None:
    # The small blind has $7 behind and owes $7 to a raise to $8: its whole stack is a call.
    rnd = open_round(NoLimit(d(2)), seats(8, 50, 50), [d(1), d(2)]).raise_to(d(8))
    assert (rnd.turn, rnd.to_call, rnd.min_bet_or_raise_to) == (1, d(7), None)
    refused(lambda: rnd.raise_to(d(8)), TABLE_STAKES)
    assert rnd.all_in().actions[-1].verb == "call"


def test_fixed_limit_short_all_in_is_completed_and_not_counted_R43_R50() -> None:
    # $4-$8 on the flop: seat 1 bets $4, seat 2 is all-in for $6 (short of the $8 raise). Seat 3
    # may call $6 or complete the raise to $8; the short all-in is not one of the three raises:
    # $8, $12 (seat 4) and $16 (seat 1, reopened by the full raise to $8) close the raising.
    rnd = to_the_flop(LIMIT_4_8, 100, 8, 100, 100).bet(d(4)).all_in()
    assert (rnd.current_bet, rnd.raises) == (d(6), 0)
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(8), d(8))
    rnd = rnd.raise_to(d(8)).raise_to(d(12))
    assert rnd.turn == 1 and rnd.can_raise_to(d(16))
    rnd = rnd.raise_to(d(16))
    assert rnd.raises == 3 and rnd.turn == 3
    refused(lambda: rnd.raise_to(d(20)), RAISE_CAP)


def test_an_all_in_for_less_than_the_call_is_a_call() -> None:
    # Seat 3 has $1.50 and faces the $2 big blind: all-in is a call for $1.50.
    rnd = open_round(NoLimit(d(2)), seats(50, 50, "1.50"), [d(1), d(2)]).all_in()
    assert rnd.actions[-1].verb == "call" and rnd.actions[-1].all_in
    assert rnd.player(3).in_round == d("1.50") and rnd.current_bet == d(2)


def test_short_blind_is_all_in_and_the_call_stays_the_full_blind_004_R51() -> None:
    # The big blind (seat 2) has $1.50 of a $2 blind: it posts $1.50 and is all-in; "a call" is
    # still "a wager that is equal to the amount of the big blind", $2.
    rnd = open_round(FixedLimit(d(2), d(4)), seats(50, "1.50", 50), [d(1), d(2)])
    assert rnd.all_in_seats == (2,) and rnd.player(2).in_round == d("1.50")
    assert (rnd.turn, rnd.to_call) == (3, d(2))


def test_a_player_alone_with_chips_is_not_asked_again() -> None:
    # Heads-up, the small blind has only $1 and posts it all-in; the big blind has matched and
    # no one could answer a raise: the round is over at once, and the later rounds too.
    rnd = open_round(NoLimit(d(2)), seats(1, 100), [d(1), d(2)])
    assert rnd.complete and not rnd.hand_over
    assert rnd.next_round().complete


def test_no_raise_against_players_who_are_all_in() -> None:
    # Seat 1 went all-in calling the blinds; on the flop seat 2 is all-in for its $50 and seat 3,
    # the only one left with chips, may call or fold, never raise.
    rnd = to_the_flop(NoLimit(d(2)), 2, 52, 102).all_in()
    assert rnd.turn == 3 and rnd.to_call == d(50)
    refused(lambda: rnd.raise_to(d(100)), ROUND_OF_PLAY)
    assert rnd.call().complete


# ---------------------------------------------------------------- pot limit and no limit (003)


def test_pot_limit_maximum_raise_is_the_pot_after_the_call_003_betting_limits() -> None:
    # Pot limit, blinds $1/$2, three players. Seat 3 (the button) first: calling $2 makes the pot
    # $1 + $2 + $2 = $5, so the raise is at most $5 more, to $7; at least the $2 blind more, $4.
    rnd = open_round(PotLimit(d(2)), seats(100, 100, 100), [d(1), d(2)])
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(4), d(7))
    refused(lambda: rnd.raise_to(d("7.01")), BETTING_LIMITS)
    rnd = rnd.raise_to(d(7))
    # Seat 1 has $1 in and owes $6: the pot after the call is $1 + $2 + $7 + $6 = $16, so the
    # most is $7 + $16 = $23; the least is the last raise ($5) more, $12.
    assert (rnd.turn, rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (1, d(12), d(23))
    rnd = rnd.raise_to(d(23)).call().call()
    assert rnd.pot == d(69)
    # On the flop nothing is owed: a bet is at most the pot, $69, and at least the big blind.
    flop = rnd.next_round()
    assert (flop.min_bet_or_raise_to, flop.max_bet_or_raise_to) == (d(2), d(69))


def test_no_limit_raise_is_at_least_the_previous_raise_003_betting_limits() -> None:
    # No limit, blinds $1/$2: seat 3 raises to $6 ($4 more); seat 4's raise is at least $4 more,
    # to $10, at most its whole $80.
    rnd = open_round(NoLimit(d(2)), seats(100, 100, 100, 80), [d(1), d(2)]).raise_to(d(6))
    assert (rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to) == (d(10), d(80))
    refused(lambda: rnd.raise_to(d(9)), BETTING_LIMITS)
    refused(lambda: rnd.raise_to(d(81)), TABLE_STAKES)
    assert rnd.all_in().actions[-1].to == d(80)


# ---------------------------------------------------------------- straddle and antes (003 Lowball)


def test_straddle_is_double_the_blind_at_most_half_the_chips_003_lowball() -> None:
    # 003 "Lowball" rule 5: "Must be double the blind or the previous straddle and must be no more
    # than half your chips." Blinds $1/$2: seat 3 straddles $4; seat 4 acts first, seat 3 last.
    rnd = open_round(NoLimit(d(2)), seats(50, 50, 50, 50), [d(1), d(2)], straddles=[d(4)])
    assert (rnd.turn, rnd.to_call, rnd.min_bet_or_raise_to) == (4, d(4), d(8))
    rnd = rnd.call().call().call()
    assert (rnd.turn, rnd.to_call) == (3, d(0)) and rnd.can_raise_to(d(8))
    refused(
        lambda: open_round(NoLimit(d(2)), seats(50, 50, 50), [d(1), d(2)], straddles=[d(3)]),
        STRADDLE_RULE,
    )
    # $4 is more than half of $7.
    refused(
        lambda: open_round(NoLimit(d(2)), seats(50, 50, 7), [d(1), d(2)], straddles=[d(4)]),
        STRADDLE_RULE,
    )


def test_antes_go_in_the_pot_not_in_the_bet() -> None:
    # A $0.50 ante from each of three players is $1.50 in the pot before the blinds; the bet to
    # call is still the $2 blind, and a player whose whole stack was the ante is all-in.
    rnd = open_round(NoLimit(d(2)), seats(50, 50, "0.50"), [d(1), d(2)], ante=d("0.50"))
    assert rnd.pot == d("4.50") and rnd.current_bet == d(2)
    assert rnd.all_in_seats == (3,) and rnd.player(3).in_round == d(0)
    assert rnd.turn == 1


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("build", "rule"),
    [
        (lambda: open_round(NoLimit(d(2)), seats(50), [d(1), d(2)]), ROUND_OF_PLAY),
        (lambda: open_round(NoLimit(d(2)), [(1, d(5)), (1, d(5))], [d(1), d(2)]), ACTION_ORDER),
        (lambda: open_round(NoLimit(d(2)), seats(50, 0), [d(1), d(2)]), MONEY),
        (lambda: open_round(NoLimit(d(2)), seats(50, "-5"), [d(1), d(2)]), MONEY),
        (lambda: open_round(NoLimit(d(2)), seats(50, "5.001"), [d(1), d(2)]), MONEY),
        (lambda: open_round(NoLimit(d(2)), seats(50, 50), [d(2), d(1)]), ROUND_OF_PLAY),
        (lambda: open_round(NoLimit(d(2)), seats(50, 50), []), ROUND_OF_PLAY),
        (lambda: FixedLimit(d(4), d(2)), FIXED_LIMIT_RULE),
        (lambda: FixedLimit(d(2), d(4), max_raises=0), RAISE_CAP),
        (lambda: SpreadLimit(d(3), d(1)), SPREAD_LIMIT_RULE),
        (lambda: NoLimit(d(0)), MONEY),
    ],
)
def test_bad_input_is_refused_naming_what_was_wrong(build: Callable[[], object], rule: str) -> None:
    refused(build, rule)


def test_amounts_must_be_money() -> None:
    rnd = to_the_flop(NoLimit(d(2)), 100, 100)
    assert "fractions of a cent" in refused(lambda: rnd.bet(d("2.005")), MONEY)
    refused(lambda: rnd.bet(2.5), MONEY)  # type: ignore[arg-type]
    refused(lambda: rnd.raise_to(d(4)), ROUND_OF_PLAY)  # nothing to raise
    refused(rnd.call, ROUND_OF_PLAY)  # nothing to call


# ---------------------------------------------------------------- properties

STRUCTURES: list[Structure] = [
    FixedLimit(d(2), d(4)),
    LIMIT_4_8,
    SPREAD_1_3_1_6,
    SPREAD_4_200,
    PotLimit(d(2)),
    NoLimit(d(2)),
]
CENT = Decimal("0.01")


def agrees(can: Callable[[], bool], verify: Callable[[], None]) -> bool:
    """`can` says what `verify` does; the answer."""
    try:
        verify()
        passed = True
    except BettingError:
        passed = False
    assert can() == passed
    return passed


def candidates(rnd: BettingRound) -> list[Decimal]:
    """Bet or raise totals worth trying: the ends of the legal span, just outside, the stack."""
    p = rnd.players[rnd.actor] if rnd.actor is not None else rnd.players[0]
    out = {p.in_round + p.stack, rnd.current_bet + CENT, rnd.current_bet + 2}
    lo, hi = rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to
    if lo is not None and hi is not None:
        out |= {lo, hi, lo - CENT, hi + CENT, (lo + hi) / 2}
    return sorted(a.quantize(CENT) for a in out if a > 0)


def check_invariants(rnd: BettingRound, start: dict[int, Decimal]) -> None:
    """What no sequence of legal actions may break."""
    for p in rnd.players:
        assert p.stack >= 0 and p.in_round >= 0
        assert start[p.seat] - p.stack == p.in_hand  # chips put in are the stack's loss
        assert p.in_round <= rnd.current_bet
    assert rnd.pot == sum(start.values()) - sum(p.stack for p in rnd.players)
    if isinstance(rnd.structure, SpreadLimit) and rnd.structure.round_cap is not None:
        assert all(p.in_round <= rnd.structure.round_cap for p in rnd.players)  # R43
    if rnd.actor is not None:
        assert rnd.players[rnd.actor].can_act
    elif not rnd.hand_over:  # a finished round: every player with chips has matched the bet
        assert all(p.in_round == rnd.current_bet for p in rnd.players if p.can_act)


@settings(max_examples=150, deadline=None)
@given(
    structure=st.sampled_from(STRUCTURES),
    cents=st.lists(st.integers(50, 30_000), min_size=2, max_size=6),
    ante=st.sampled_from([Decimal(0), Decimal("0.50")]),
    straddle=st.booleans(),
    data=st.data(),
)
def test_random_legal_actions_keep_chips_and_agree_with_their_checks(
    structure: Structure, cents: list[int], ante: Decimal, straddle: bool, data: st.DataObject
) -> None:
    stacks = seats(*[str(Decimal(c) / 100) for c in cents])
    start = dict(stacks)
    straddles = [d(4)] if straddle and len(stacks) > 2 and stacks[2][1] >= 8 else []
    rnd = open_round(structure, stacks, [d(1), d(2)], straddles=straddles, ante=ante)
    check_invariants(rnd, start)
    for _street in range(4):
        steps = 0
        while not rnd.complete:
            moves: list[Callable[[], BettingRound]] = []
            for can, verify, act in (
                (rnd.can_check, rnd.verify_check, rnd.check),
                (rnd.can_call, rnd.verify_call, rnd.call),
                (rnd.can_fold, rnd.verify_fold, rnd.fold),
                (rnd.can_all_in, rnd.verify_all_in, rnd.all_in),
            ):
                if agrees(can, verify):
                    moves.append(act)
            for amount in candidates(rnd):
                for can_a, verify_a, act_a in (
                    (rnd.can_bet, rnd.verify_bet, rnd.bet),
                    (rnd.can_raise_to, rnd.verify_raise_to, rnd.raise_to),
                ):
                    if agrees(lambda: can_a(amount), lambda: verify_a(amount)):  # noqa: B023
                        moves.append(partial(act_a, amount))
            assert moves, "the player to act always has a legal action"
            if steps > 40:  # keep each example short: no more raising
                moves = moves[:3]
            before = rnd
            rnd = data.draw(st.sampled_from(moves))()
            steps += 1
            check_invariants(rnd, start)
            cap = getattr(rnd.structure, "max_raises", None)
            if cap is not None and rnd.raises > before.raises:
                assert before.raises < cap or before.players_in <= 2  # R43
        if rnd.hand_over:
            break
        rnd = rnd.next_round()
        check_invariants(rnd, start)


# ---------------------------------------------------------------- against pokerkit

PK_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def pokerkit_state(pot_limit: bool, stacks: list[int]) -> State:
    """pokerkit's no-limit Hold'em or pot-limit Omaha (the betting is all that is compared)."""
    game = PotLimitOmahaHoldem if pot_limit else NoLimitTexasHoldem
    return game.create_state(PK_AUTOMATIONS, True, 0, (1, 2), 2, tuple(stacks), len(stacks))


def pokerkit_view(pk: State) -> tuple[int | None, Decimal, Decimal | None, Decimal | None]:
    """pokerkit's actor, amount to call and least and greatest bet-or-raise totals."""
    low = pk.min_completion_betting_or_raising_to_amount
    high = pk.max_completion_betting_or_raising_to_amount
    return (
        pk.actor_index,
        Decimal(pk.checking_or_calling_amount or 0),
        None if low is None else Decimal(low),
        None if high is None else Decimal(high),
    )


def pokerkit_quirk(rnd: BettingRound) -> bool:
    """Where pokerkit and this module part: before anyone has made a full bet or raise in the
    round (the blinds alone before the flop, nothing after), pokerkit lets a player who already
    acted raise over a short all-in; this module keeps the raising closed to them."""
    p = rnd.players[rnd.actor] if rnd.actor is not None else None
    no_full_bet = rnd.raises == 0 if rnd.street == 0 else rnd.full_bet == 0
    return p is not None and no_full_bet and p.acted and p.in_round < rnd.current_bet


@settings(max_examples=50, deadline=None)
@given(
    pot_limit=st.booleans(),
    stacks=st.lists(st.integers(3, 120), min_size=3, max_size=6),
    data=st.data(),
)
def test_no_limit_and_pot_limit_amounts_equal_pokerkits(
    pot_limit: bool, stacks: list[int], data: st.DataObject
) -> None:
    # Three or more players (pokerkit posts heads-up blinds the other way round), whole-dollar
    # stacks of at least $3 (so both blinds post in full): at every step the player to act, the
    # amount to call, the least and the greatest bet or raise, and every stack and bet must equal
    # pokerkit's, an independent engine.
    pk = pokerkit_state(pot_limit, stacks)
    structure: Structure = PotLimit(d(2)) if pot_limit else NoLimit(d(2))
    rnd = open_round(structure, seats(*stacks), [d(1), d(2)])
    while True:
        if rnd.complete:  # pokerkit deals the next street itself
            if rnd.hand_over or rnd.street == 3:
                assert pk.actor_index is None
                return
            rnd = rnd.next_round()
            continue
        if pokerkit_quirk(rnd):
            return
        assert [Decimal(s) for s in pk.stacks] == [p.stack for p in rnd.players]
        assert [Decimal(b) for b in pk.bets] == [p.in_round for p in rnd.players]
        ours = (rnd.actor, rnd.to_call, rnd.min_bet_or_raise_to, rnd.max_bet_or_raise_to)
        actor, to_call, low, high = pokerkit_view(pk)
        assert ours == (actor, to_call, low, high)
        moves = ["call"] + (["fold"] if pk.can_fold() else []) + (["raise"] if low else [])
        move = data.draw(st.sampled_from(moves))
        if move == "call":
            pk.check_or_call()
            rnd = rnd.call() if rnd.can_call() else rnd.check()
        elif move == "fold":
            pk.fold()
            rnd = rnd.fold()
        else:
            assert low is not None and high is not None
            to = Decimal(data.draw(st.integers(int(low), int(high))))
            pk.complete_bet_or_raise_to(int(to))
            rnd = rnd.raise_to(to) if rnd.current_bet else rnd.bet(to)


def test_the_kill_blind_acts_last_even_from_a_blind_003_kill_rules() -> None:
    """003 "Betting Limits", Kill Rules: a half kill at $2-$4 (blinds $1/$2) has a $3 kill blind.
    Heads up, the holder on the small blind brings it up to $3 (the `kill` post adds $2) and the
    big blind acts first, owing $1; with three players and the holder on the button, the small
    blind acts first: the kill blind acts last either way."""
    heads_up = open_round(
        FixedLimit(d(3), d(6)), seats(50, 50), [d(1), d(2)], kill=OwedPost(1, d(3))
    )
    assert [(a.seat, a.verb, a.added) for a in heads_up.actions] == [
        (1, "blind", d(1)),
        (2, "blind", d(2)),
        (1, "kill", d(2)),
    ]
    assert heads_up.turn == 2 and heads_up.to_call == d(1)
    three = open_round(
        FixedLimit(d(3), d(6)), seats(50, 50, 50), [d(1), d(2)], kill=OwedPost(3, d(3))
    )
    assert three.turn == 1 and three.current_bet == d(3)


def test_a_short_stack_coming_back_posts_its_live_blind_before_the_dead_one() -> None:
    """Missed blinds (docs/games/poker-room.md): a seat owing the $2 big blind live and the $1
    small dead with only $2 posts the $2 live (it plays for the pot, all-in) and nothing dead."""
    rnd = open_round(
        FixedLimit(d(2), d(4)),
        seats(50, 50, 2),
        [d(1), d(2)],
        owed=[OwedPost(3, d(2), d(1))],
    )
    third = rnd.players[2]
    assert (third.in_round, third.dead, third.stack) == (d(2), d(0), d(0))
    assert [(a.seat, a.verb, a.added) for a in rnd.actions][-1] == (3, "blind", d(2))
