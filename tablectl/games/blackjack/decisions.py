"""The player's decisions on the hand in turn: what the rules allow (Chart 1A, R15; R16, R20),
why they refuse the rest, and what an allowed decision does to the hands.

000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender", 003 "Pure Spanish 21.5: Double-Down,
Rescue, Double-Double Down, Split, and Surrender"; R15-R17, R20. Insurance and even money are
decisions too (tablectl/games/blackjack/insurance.py).
"""

from __future__ import annotations

from decimal import Decimal
from typing import cast

from tablectl.game_records import JsonValue
from tablectl.games.base import DEALER_ERROR, REJECTED, Rejected
from tablectl.games.blackjack.state import MAX_DOUBLES, MAX_HANDS, Action, BlackjackState, Hand
from tablectl.games.blackjack.variant import Policy
from tablectl.games.common import replace, verify_seat
from tablectl.rules import blackjack as bj
from tablectl_base.events import Decision
from tablectl_base.money import fmt

DECISIONS = ("stand", "double", "split", "surrender", "insurance", "even-money", "rescue")
# R15: "A decision against the chart is rejected with an alert (it is a dealer error)".
CHART_1A = "R15"


def verify_form(policy: Policy, ev: Decision) -> None:
    """A decision this game has, naming a seat of the table and nothing a blackjack decision
    does not take (contract 2)."""
    if ev.action not in DECISIONS:
        raise Rejected(
            f"no decision {ev.action!r} in {policy.variant.name}: " + ", ".join(DECISIONS),
            rule="contract 2",
        )
    if ev.multiple is not None or ev.low is not None:
        raise Rejected(
            "a blackjack decision names the seat, the action and, where it needs them, the "
            "hand and the amount",
            rule="contract 2",
        )
    verify_seat(ev.seat, policy.seats)


def hand_in_turn(state: BlackjackState, ev: Decision) -> Hand:
    """The hand a play decision acts on: the hand in turn, clockwise from the player-dealer's
    left (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), while the hands act
    and before the down card is turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round
    of Play"); one owed its card after a split or a double takes that card first (R16)."""
    if state.phase == "insurance":
        raise Rejected(
            "insurance is being offered: close it with bets.close before the hands act",
            rule="R17",
        )
    if state.phase == "player-dealer" and ev.action == "surrender":
        raise Rejected(
            "the player-dealer's down card is exposed: surrender comes before it is",
            rule="000 line 116",
        )
    if state.phase == "player-dealer":
        raise Rejected("every hand has acted and the down card is turned up", rule="000 line 59")
    if state.phase != "playing":
        raise Rejected("no hand is acting now: the cards are not all dealt", rule="000 line 54")
    hand = state.current
    assert hand is not None
    if not state.hands_of(ev.seat):
        raise Rejected(f"seat {ev.seat} has no hand this round", rule="000 line 53")
    index = state.index_of(hand)
    if ev.seat != hand.seat or (ev.hand is not None and ev.hand != index):
        raise Rejected(
            f"out of turn: seat {hand.seat} hand {index} acts now (clockwise from the "
            "player-dealer's left)",
            rule="000 line 54",
        )
    if hand.owed:
        raise Rejected(
            f"seat {hand.seat} hand {index} is owed its card first (one card after a "
            "split or a double)",
            rule="R16",
        )
    return hand


def verify_action(policy: Policy, state: BlackjackState, hand: Hand, ev: Decision) -> None:
    """The action is one the rules allow this hand now (R15, R16, R20), with the wager it
    needs: a double up to the wager (or exactly it with double-double), a split equal to it."""
    action = cast(Action, ev.action)  # one of DECISIONS, insurance handled by the caller
    if action not in actions(policy, state, hand):
        reason, rule = why_not(policy, state, hand, action)
        # R15: a decision against Chart 1A is a dealer error, told apart by its alert kind
        raise Rejected(reason, rule=rule, kind=DEALER_ERROR if rule == CHART_1A else REJECTED)
    if action in ("stand", "surrender", "rescue") and ev.amount is not None:
        raise Rejected(f"a {action} places no wager", rule="contract 2")
    if action == "double" and ev.amount is not None:
        verify_double_amount(policy, hand, ev.amount)
    if action == "split" and ev.amount is not None and ev.amount != hand.stake:
        raise Rejected(
            f"a split wager must equal the original wager {fmt(hand.stake)}: there is no "
            "splitting for less",
            rule="R16",
        )


def play(
    state: BlackjackState, hand: Hand, ev: Decision
) -> tuple[BlackjackState, dict[str, JsonValue]]:
    """An allowed decision on the hand in turn: the hands after it, and what its echo adds (the
    wager a double or a split places)."""
    shown: dict[str, JsonValue] = {}
    action = ev.action
    if action == "stand":
        changed: tuple[Hand, ...] = (replace(hand, end="stand"),)
    elif action == "surrender":
        changed = (replace(hand, end="surrender"),)
    elif action == "rescue":
        changed = (replace(hand, end="rescue"),)
    elif action == "double":
        amount = ev.amount if ev.amount is not None else double_default(hand)
        shown["amount"] = fmt(amount)
        changed = (replace(hand, doubles=(*hand.doubles, amount), owed=True),)
    else:  # split: two hands of one card each, each owed its second card (R16)
        shown["amount"] = fmt(hand.stake)
        first, second = hand.cards
        changed = (
            replace(hand, cards=(first,), split=True, owed=True),
            Hand(hand.seat, hand.player, hand.stake, (second,), split=True, owed=True),
        )
    hands = list(state.hands)
    at = next(i for i, h in enumerate(hands) if h is hand)
    hands[at : at + 1] = changed
    return replace(state, hands=tuple(hands)), shown


def legal_actions(policy: Policy, state: BlackjackState) -> tuple[str, ...]:
    """What the dealer console may enter now for the hand in turn ("hit" = draw a card)."""
    hand = state.current
    if hand is None:
        return ()
    if hand.owed:
        return ("hit",)
    return actions(policy, state, hand)


def actions(policy: Policy, state: BlackjackState, hand: Hand) -> tuple[Action, ...]:
    """The actions the rules allow an open hand that is owed no card (R15, R16, R20)."""
    variant = policy.variant
    force = bj.chart_1a(hand.cards, variant.chart)
    two = len(hand.cards) == 2
    out: list[Action] = []
    if not hand.doubles and force != "must-stand":
        out.append("hit")
    if force != "must-hit" or hand.doubles:
        out.append("stand")
    if force != "must-stand" and may_double(policy, hand):
        out.append("double")
    if two and not hand.doubles and is_pair(policy, hand) and may_split(policy, state, hand):
        out.append("split")
    if two and not hand.doubles and not hand.split:
        out.append("surrender")  # before the hole card is shown: it is shown after play
    if variant.rescue and hand.doubles:
        out.append("rescue")  # R20: after a double, on a hand that has not busted
    return tuple(out)


def may_split(policy: Policy, state: BlackjackState, hand: Hand) -> bool:
    """R16: up to three splits, four hands at the seat; split aces take one card each in
    Pure 21.5 and are not split again
    (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender")."""
    if len(state.hands_of(hand.seat)) >= MAX_HANDS:
        return False
    return not (policy.variant.split_aces_one_card and hand.split and hand.cards[0].rank == "A")


def may_double(policy: Policy, hand: Hand) -> bool:
    """R16: on the first two cards (after a split too); Spanish double-double: again after
    each double card, up to three doublings (R20)."""
    if not hand.doubles:
        return len(hand.cards) == 2
    return policy.variant.double_double and len(hand.doubles) < MAX_DOUBLES


def is_pair(policy: Policy, hand: Hand) -> bool:
    """R16: 21.5 splits "any pair or two ... bonus cards"
    (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish "any pair or two
    cards of the equal value, including aces and Bonus cards"
    (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")."""
    a, b = hand.cards
    return policy.variant.is_pair(a, b)


def double_default(hand: Hand) -> Decimal:
    """A double without an amount: the full original wager; a double-double doubles the total
    wager again
    (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")."""
    return hand.staked if hand.doubles else hand.stake


def verify_double_amount(policy: Policy, hand: Hand, amount: Decimal) -> None:
    """R16: "equal to or less than the player's original wager"
    (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"); Spanish with double-double:
    no doubling for less, and a double-double doubles the total (R20)."""
    if amount <= 0:
        raise Rejected("a double places a wager above zero", rule="R16")
    if policy.variant.double_double:
        want = double_default(hand)
        if amount != want:
            raise Rejected(
                f"with double-double down there is no doubling for less: the double must "
                f"be {fmt(want)}",
                rule="003 line 1928",
            )
    elif amount > hand.stake:
        raise Rejected(
            f"a double of {fmt(amount)} is more than the original wager {fmt(hand.stake)}",
            rule="R16",
        )


def why_not(policy: Policy, state: BlackjackState, hand: Hand, action: Action) -> tuple[str, str]:
    """Why the rules refuse `action` for the hand in turn, with the rule."""
    variant = policy.variant
    force = bj.chart_1a(hand.cards, variant.chart)
    total = bj.hand_total(hand.cards)
    name = f"{'soft' if total.soft else 'hard'} {total.value}"
    chart = variant.chart_text
    if action == "stand":
        if hand.doubles:
            return "the hand is complete", "R16"
        return f"dealer error: {name} must hit by {chart}", CHART_1A
    if action == "double":
        if force == "must-stand" and (not hand.doubles or may_double(policy, hand)):
            return f"dealer error: {name} must stand by {chart}; a double draws", CHART_1A
        if hand.doubles:
            if not variant.double_double:
                return "a double gets one card only; no second double", "R16"
            return f"at most {MAX_DOUBLES} doublings (8 times the wager)", "R20"
        return "a double is on the first two cards only", "R16"
    if action == "split":
        if len(hand.cards) != 2 or hand.doubles:
            return "a split is of the first two cards only", "R16"
        if len(state.hands_of(hand.seat)) >= MAX_HANDS:
            return "a maximum of three splits: four hands already", "R16"
        return "the two cards are not a pair the rules let the player split", "R16"
    if action == "surrender":
        if hand.split:
            return "surrender is on the initial two cards, not after a split", "R16"
        return "surrender is on the first two cards only, before any double", "R16"
    if action == "rescue":
        if not variant.rescue:
            return "rescue is a Pure Spanish 21.5 option", "R20"
        return "rescue takes back a doubled portion: the hand has not doubled", "R20"
    return why_no_hit(state, hand), hit_rule(hand)


def why_no_hit(state: BlackjackState, hand: Hand) -> str:
    """Why the hand in turn may not draw: its double took its one card (R16), or Chart 1A
    says it must stand (R15). Names the seat and total, never a card."""
    if hand.doubles:
        return "dealer error: a doubled hand gets one card only"
    total = bj.hand_total(hand.cards)
    return (
        f"dealer error: seat {hand.seat} hand {state.index_of(hand)} holds "
        f"{'soft' if total.soft else 'hard'} {total.value} and must stand by Chart 1A"
    )


def hit_rule(hand: Hand) -> str:
    """The rule `why_no_hit` cites."""
    return "R16" if hand.doubles else CHART_1A
