"""Insurance and even money (R17): offered with an ace up after the deal, before the hole card is
checked; when every hand has answered (or `bets.close` closes the offer) the hole card is checked
(R12). Pure 21.5 only: the Spanish approval offers neither (tablectl/games/blackjack/variant.py).
"""

from __future__ import annotations

from tablectl.games.base import Rejected
from tablectl.games.blackjack.deal import Step, peek
from tablectl.games.blackjack.state import BlackjackState, half_down
from tablectl.games.blackjack.variant import Policy
from tablectl.games.common import PlacedWager, replace
from tablectl_base.events import Decision
from tablectl_base.money import ZERO, fmt


def verify_insurance(policy: Policy, state: BlackjackState, ev: Decision) -> None:
    """Only with an ace up, before the hole card is checked, once per seat with a hand; up
    to half the game wager; even money only on a Pure 21.5, exactly half (R17)."""
    if not policy.variant.insurance:
        raise Rejected(f"this {policy.variant.name} table offers no insurance", rule="R17")
    if ev.action == "even-money" and not policy.variant.even_money:
        raise Rejected("this table's approval offers no even money", rule="R17")
    if state.phase != "insurance":
        if state.up_card is not None and state.up_card.rank != "A":
            raise Rejected("insurance is offered only with an ace up", rule="R17")
        raise Rejected(
            "insurance is offered after the deal with an ace up, before the hole card is checked",
            rule="R17",
        )
    hands = state.hands_of(ev.seat)
    if not hands:
        raise Rejected(f"seat {ev.seat} has no hand this round", rule="R17")
    if ev.hand not in (None, 1):
        raise Rejected("insurance is on the seat's one hand", rule="R17")
    if any(w.seat == ev.seat for w in state.insurance):
        raise Rejected(f"seat {ev.seat} has already taken insurance", rule="R17")
    hand = hands[0]
    most = half_down(hand.stake)
    if ev.action == "even-money":
        if hand.end != "pure":
            raise Rejected("even money is for a hand holding a Pure 21.5", rule="R17")
        if ev.amount is not None and ev.amount != most:
            raise Rejected(
                f"even money is an insurance wager of exactly half the wager: {fmt(most)}",
                rule="R17",
            )
    elif ev.amount is not None and not ZERO < ev.amount <= most:
        raise Rejected(
            f"insurance may be no more than half the wager: at most {fmt(most)}", rule="R17"
        )
    if most <= 0:
        raise Rejected("the wager is too small to insure", rule="R17")


def insurance_wager(state: BlackjackState, ev: Decision) -> PlacedWager:
    """The insurance a decision places: its amount, or half the wager (R17)."""
    hand = state.hands_of(ev.seat)[0]
    amount = ev.amount if ev.amount is not None else half_down(hand.stake)
    return PlacedWager(ev.seat, hand.player, "insurance", amount)


def insure(policy: Policy, state: BlackjackState, placed: PlacedWager, even_money: bool) -> Step:
    """Place the insurance wager; when every hand has answered the offer closes (R12)."""
    even = (*state.even_money, placed.seat) if even_money else state.even_money
    new = replace(state, insurance=(*state.insurance, placed), even_money=even)
    if {w.seat for w in new.insurance} >= set(new.order):
        return peek(policy, new)
    return new, []
