"""The end of a poker hand, for the one poker engine (tablectl/games/poker/engine.py): when the hand
is over, the pots built and the fee taken (the main pot first, R44, R52), each pot awarded by
the hands (R41, R42) or by the dealer's declared order at a table without a reader, the stacks,
the hands shown (R46), the kill button (003 "Betting Limits", Kill Rules) and the blinds owed
after it (missed blinds, docs/games/poker-room.md). The same in every game; what a family
decides (its hands, the chips that play, R45) comes from its policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from tablectl.game_records import GameRecord, PokerHandSettled, PotWon, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.poker.family import discards_due, hand_in_play
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ROUND_OF_PLAY
from tablectl.rules.poker_fees import hand_fee
from tablectl.rules.pots import Split, Strength, award, build_pots, paid_by_seat, take_fee
from tablectl_base.events import Showdown
from tablectl_base.money import ZERO

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

SHOWDOWN_RULE = '003 "Texas Hold-Em (High)" rule 5'
DECLARED = "a table without a reader: the dealer declares the showdown (poker-room.md)"

Result = tuple[PokerState, list[GameRecord]]


def settle_if_over(
    eng: PokerEngine, state: PokerState, records: list[GameRecord]
) -> tuple[PokerState, list[GameRecord]]:
    """End the hand if it is over: all but one folded, or the river's betting done with
    every hand still in known (else it waits for `hole.cards`)."""
    hand = state.hand
    assert hand is not None
    b = hand.betting
    if b.hand_over:
        return settle(eng, state, showdown=False, records=records)
    if b.complete and eng.family.all_dealt(eng.game, hand) and not discards_due(eng.game, hand):
        live = [p.seat for p in b.players if not p.folded]
        if all(eng.family.whole(eng.game, hand, s) for s in live):
            return settle(eng, state, showdown=True, records=records)
    return state, records


def _fee(eng: PokerEngine, hand: HandState) -> tuple[Decimal, bool]:
    """The hand's collection (R44) and whether it is the modified fee: a per-hand schedule's
    hand that ended before the flop (its modified fee, or none where it prints none)."""
    schedule = eng.settings.schedule
    if schedule is None:
        return ZERO, False
    reached_flop = eng.family.reached_flop(eng.game, hand)
    # the modified fee only where the schedule has one (004 prints none: nothing is taken)
    modified = schedule.per == "hand" and not reached_flop and schedule.modified_fee is not None
    return hand_fee(schedule, len(hand.order), reached_flop), modified


def settle(
    eng: PokerEngine,
    state: PokerState,
    *,
    showdown: bool,
    records: list[GameRecord],
    declared: Mapping[int, Strength] | None = None,
) -> tuple[PokerState, list[GameRecord]]:
    """Build the pots, take the fee (the main pot first, R52), award each pot, update the
    stacks."""
    hand = state.hand
    assert hand is not None
    players = hand.betting.players
    ranking: dict[int, Strength] = {}
    shown_by_seat: dict[int, ShownHand] = {}
    if declared is not None:
        ranking = dict(declared)
    elif showdown:
        for p in players:
            if not p.folded:
                strength = eng.family.strength(eng.game, hand, p.seat)
                ranking[p.seat], shown_by_seat[p.seat] = strength
    contributions, given_back = eng.family.pot_chips(eng.game, hand, ranking, declared is not None)
    built = build_pots(contributions)
    fee, modified = _fee(eng, hand)
    fee, pots = take_fee(built.pots, fee)
    awards = award(
        pots,
        ranking,
        split=eng.game.split,
        odd_chip_rule=eng.settings.document,
        chip=eng.settings.chip,
        button_order=hand.order,
    )
    won = paid_by_seat(awards, built.uncalled)
    returned = () if built.uncalled is None else ((built.uncalled.seat, built.uncalled.amount),)
    for seat, amount in given_back:
        won[seat] = won.get(seat, ZERO) + amount
    returned = (*returned, *given_back)
    after = {p.seat: p.stack + won.get(p.seat, ZERO) for p in players}
    seats = tuple(replace(s, stack=after.get(s.seat, s.stack)) for s in state.seats)
    # R46: only the hands that win a contested pot are shown; the rest are taken as mucked.
    shown_seats = {s for a in awards if len(a.pot.eligible) > 1 for s in (*a.high, *a.low)}
    result = PokerHandSettled(
        hand=hand.number,
        game=eng.game_id,
        button=hand.button,
        board=tuple(map(str, hand.board)),
        pots=tuple(
            PotWon(
                a.pot.amount,
                a.pot.eligible,
                a.high,
                a.low,
                tuple((p.seat, p.amount) for p in a.paid),
            )
            for a in awards
        ),
        fee=fee,
        fee_players=len(hand.order),
        fee_modified=modified,
        returned=returned,
        shown=tuple(shown_by_seat[s] for s in hand.order if s in shown_seats & set(shown_by_seat)),
        stacks=tuple((s.seat, s.stack) for s in seats),
        showdown=showdown,
        declared=declared is not None,
    )
    new = replace(state, seats=seats, hand=None, collected=state.collected + fee)
    scooped = {p.seat for a in awards for p in a.paid if p.amount > 0}
    new = _kill_after(eng, new, scooped, hand)
    return _blinds_passed(eng, new, hand), [*records, result]


def _kill_after(
    eng: PokerEngine, state: PokerState, winners: set[int], hand: HandState
) -> PokerState:
    """003 "Betting Limits", Kill Rules: the winner of the pot receives the kill button; its
    holder winning the very next pot makes the next hand a kill pot; losing or folding, the
    holder returns it to the pot. A pot shared by several players has no one winner: the
    button returns to the pot; a holder sitting out neither won nor lost: it keeps it
    (tablectl's readings, docs/games/poker-room.md)."""
    if eng.settings.kill == "none":
        return state
    if state.kill_holder is not None and state.kill_holder not in hand.order:
        return state
    if len(winners) != 1:
        return replace(state, kill_holder=None, kill_next=False)
    (winner,) = winners
    if winner == state.kill_holder:
        return replace(state, kill_next=True)
    return replace(state, kill_holder=winner, kill_next=False)


def _blinds_passed(eng: PokerEngine, state: PokerState, hand: HandState) -> PokerState:
    """After a hand played out: the seats dealt in owe nothing more; a seat sitting out
    that the big blind passed (clockwise after the last hand's big blind, up to this one's)
    owes the big blind live and the small dead (the card rooms' usual rule)."""
    before, now = state.big_blind, hand.big_blind
    passed: set[int] = set()
    if before is not None and before != now:
        ring = range(1, eng.settings.seats + 1)  # every seat of the table, clockwise
        for seat in [*ring[before:], *ring[:before]]:  # from the seat after `before`
            if seat == now:
                break
            passed.add(seat)
    seats = tuple(
        replace(s, owes="none")
        if s.seat in hand.order
        else replace(s, owes="both")
        if s.away and s.seat in passed
        else s
        for s in state.seats
    )
    return replace(state, seats=seats, big_blind=now)


# ------------------------------------------------------------------ a declared showdown


def verify_showdown(eng: PokerEngine, state: PokerState, ev: Showdown) -> None:
    """The river's betting is over, a hand still in has no cards to speak for it, and the
    order names every hand still in once (and, in a split game, only qualifying lows)."""
    hand = hand_in_play(state)
    b = hand.betting
    family, game = eng.family, eng.game
    if not (b.complete and not b.hand_over and family.all_dealt(game, hand)):
        last = family.street_name(game, family.last_street(game))
        raise Rejected(f"the showdown comes after the {last}'s betting", rule=ROUND_OF_PLAY)
    live = {p.seat for p in b.players if not p.folded}
    if all(eng.family.whole(eng.game, hand, s) for s in live):
        raise Rejected(
            "every hand still in has its cards: the hands speak for themselves",
            rule=SHOWDOWN_RULE,
        )
    high = [s for tier in ev.high for s in tier]
    if sorted(high) != sorted(live) or any(not tier for tier in ev.high):
        raise Rejected(
            f"rank every hand still in once, best first: seats {sorted(live)}", rule=DECLARED
        )
    low = [s for tier in ev.low or () for s in tier]
    if low and eng.game.low is None:
        raise Rejected(f"{eng.game_id} has no low hand", rule=eng.game.hole_rule)
    if ev.low is not None and eng.game.split is Split.LOW:
        raise Rejected(
            f"{eng.game_id} is played for low only: rank every hand in `high`, the lowest first",
            rule=DECLARED,
        )
    if len(set(low)) != len(low) or not set(low) <= live or any(not t for t in ev.low or ()):
        raise Rejected(
            "name each qualifying low once, best first, among the hands still in",
            rule=DECLARED,
        )


def showdown(
    eng: PokerEngine, state: PokerState, ev: Showdown, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Settle the pots by the dealer's declared order: the same pots, fee and odd-chip rule
    as when the hands speak (R41, R42, R44), with no hand shown (none was read)."""
    verify_showdown(eng, state, ev)
    hand = hand_in_play(state)
    tiers = len(ev.high)
    if eng.game.split is Split.LOW:  # a low-only game (Razz): `high` is its one order
        ranking = {seat: Strength((), (i,)) for i, tier in enumerate(ev.high) for seat in tier}
        echo = event_msg(ev, ts, round=hand.number)
        return settle(eng, state, showdown=True, records=[echo], declared=ranking)
    ranking = {
        seat: Strength((tiers - i,), None) for i, tier in enumerate(ev.high) for seat in tier
    }
    for j, tier in enumerate(ev.low or ()):
        for seat in tier:
            ranking[seat] = replace(ranking[seat], low=(j,))
    echo = event_msg(ev, ts, round=hand.number)
    return settle(eng, state, showdown=True, records=[echo], declared=ranking)
