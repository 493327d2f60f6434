"""The posts that open a hand's first betting round, pure: antes, the blinds, straddles where the
game allows them (003 "Lowball", Lowball Rules, rule 5), what a seat back from missing the blinds
owes, and a kill pot's kill blind (003 "Betting Limits", Kill Rules). `open_round` turns them
into the first `BettingRound` (tablectl.rules.betting); a blind posted short still sets the full
blind as the call (R51).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from tablectl.rules.betting import (
    ACTION_ORDER,
    KILL_RULE,
    ROUND_OF_PLAY,
    STRADDLE_RULE,
    Action,
    BettingError,
    BettingRound,
    Player,
    Verb,
    as_money,
    next_actor,
    usd,
)
from tablectl_base.money import ZERO

if TYPE_CHECKING:
    from tablectl.rules.betting import Structure


def open_round(
    structure: Structure,
    stacks: Sequence[tuple[int, Decimal]],
    blinds: Sequence[Decimal],
    *,
    straddles: Sequence[Decimal] = (),
    ante: Decimal = ZERO,
    owed: Sequence[OwedPost] = (),
    kill: OwedPost | None = None,
) -> BettingRound:
    """The first betting round of a hand once the antes, blinds and straddles are posted.

    `stacks` is (seat, chips) clockwise from the first seat left of the button. Each player
    antes `ante`; the first players post `blinds` in order (small, then big), then `straddles`;
    a player short of a post puts in what they have and is all-in. The bet to call is the
    largest post ("a wager that is equal to the amount of the big blind, referred to as a call",
    004 "Texas Hold'em: Dealing Procedures and Round of Play"), even when it was posted short.
    `owed` are the posts of players coming back after missing the blinds, or new to the game
    (the engine's reading of missed blinds): a live part that counts toward their call, as a
    big blind does, and a dead part that goes to the pot like an ante.
    `kill` is a kill pot's kill blind (003 "Betting Limits", Kill Rules: "The kill blind must be
    paid"), posted live by the kill button's holder: it is the bet to call, and the first round
    begins on the holder's left, so the holder acts last (a holder on a blind brings that blind
    up to the kill blind and still acts last: no one may fold a larger post than the bets still
    in it).
    """
    players = _seated(stacks)
    blinds = [as_money(b, "a blind", positive=True) for b in blinds]
    straddles = [as_money(s, "a straddle", positive=True) for s in straddles]
    ante = as_money(ante, "the ante")
    if not blinds:
        raise BettingError("a round opens with at least one blind", ROUND_OF_PLAY)
    if any(b > a for a, b in zip(blinds[1:], blinds, strict=False)):
        raise BettingError("each blind must be at least the one before it", ROUND_OF_PLAY)
    posts: list[tuple[Verb, Decimal]] = [("blind", b) for b in blinds]
    posts += [("straddle", s) for s in straddles]
    if len(posts) > len(players):
        raise BettingError(
            f"{len(posts)} blinds and straddles for {len(players)} players", ROUND_OF_PLAY
        )
    _verify_straddles(blinds[-1], straddles, players[len(blinds) :])
    actions: list[Action] = []
    if ante > 0:
        for i, p in enumerate(players):
            put = min(ante, p.stack)
            players[i] = replace(p, stack=p.stack - put, in_hand=put)
            actions.append(Action(p.seat, "ante", put, ZERO, all_in=players[i].stack == 0))
    for i, (verb, amount) in enumerate(posts):
        p = players[i]
        put = min(amount, p.stack)
        players[i] = replace(p, stack=p.stack - put, in_round=put, in_hand=p.in_hand + put)
        actions.append(Action(p.seat, verb, put, put, all_in=players[i].stack == 0))
    for post in owed:
        at = next((k for k, q in enumerate(players) if q.seat == post.seat), None)
        if at is None or at < len(posts):
            raise BettingError(
                f"seat {post.seat} owes a post but is not dealt in past the blinds", ROUND_OF_PLAY
            )
        p = players[at]
        # A short stack posts the live blind first: it is what plays for the pot.
        live = min(as_money(post.live, "a live blind"), p.stack)
        dead = min(as_money(post.dead, "a dead blind"), p.stack - live)
        players[at] = replace(
            p, stack=p.stack - dead - live, in_round=live, in_hand=dead + live, dead=dead
        )
        if dead:
            actions.append(Action(p.seat, "dead", dead, ZERO, all_in=live == 0 and dead == p.stack))
        if live:
            actions.append(Action(p.seat, "blind", live, live, all_in=players[at].stack == 0))
    bet = max(amount for _, amount in posts)
    first = len(posts) % len(players)
    if kill is not None:
        at = next((k for k, q in enumerate(players) if q.seat == kill.seat), None)
        if at is None:
            raise BettingError(f"seat {kill.seat} holds the kill but is not dealt in", KILL_RULE)
        p = players[at]
        amount = as_money(kill.live, "the kill blind", positive=True)
        put = min(max(ZERO, amount - p.in_round), p.stack)
        players[at] = replace(
            p, stack=p.stack - put, in_round=p.in_round + put, in_hand=p.in_hand + put
        )
        actions.append(Action(p.seat, "kill", put, p.in_round + put, all_in=p.stack == put))
        bet = max(bet, amount)
        first = (at + 1) % len(players)
    return BettingRound(
        structure=structure,
        street=0,
        players=tuple(players),
        actor=next_actor(players, first, bet),
        current_bet=bet,
        full_bet=bet,
        last_raise=bet,
        raises=len(straddles),
        actions=tuple(actions),
    )


@dataclass(frozen=True)
class OwedPost:
    """What a seat dealt in past the blinds posts before the deal: `live` toward its call,
    `dead` into the pot only."""

    seat: int
    live: Decimal
    dead: Decimal = ZERO


def _seated(stacks: Sequence[tuple[int, Decimal]]) -> list[Player]:
    """The players dealt in, each with chips; refused if fewer than two or a seat twice."""
    if len(stacks) < 2:
        raise BettingError(f"a hand needs at least two players, not {len(stacks)}", ROUND_OF_PLAY)
    seats = [seat for seat, _ in stacks]
    if len(set(seats)) != len(seats):
        raise BettingError(f"a seat is dealt in twice: {seats}", ACTION_ORDER)
    return [
        Player(seat, as_money(chips, f"seat {seat}'s stack", positive=True))
        for seat, chips in stacks
    ]


def _verify_straddles(
    big_blind: Decimal, straddles: Sequence[Decimal], by: Sequence[Player]
) -> None:
    """003 "Lowball" (Lowball Rules, rule 5): a straddle is double the blind or the previous
    straddle and no more than half the straddler's chips."""
    before = big_blind
    for amount, p in zip(straddles, by, strict=False):
        if amount != 2 * before:
            raise BettingError(
                f"seat {p.seat}'s straddle of {usd(amount)} must be double {usd(before)}",
                STRADDLE_RULE,
            )
        if 2 * amount > p.stack:
            raise BettingError(
                f"seat {p.seat}'s straddle of {usd(amount)} is more than half their {usd(p.stack)}",
                STRADDLE_RULE,
            )
        before = amount
