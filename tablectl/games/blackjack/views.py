"""What the table shows of a blackjack round: the retained `state` (whose turn, the legal actions,
where the next card goes), the cards exposed by hand, and the hole card in the echo of the input
that turned it. Never the hole card before it is turned (000 "Pure 21.5 Blackjack: Dealing
Procedures and Round of Play")."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from tablectl.game_records import JsonValue
from tablectl.games.blackjack.decisions import legal_actions
from tablectl.games.blackjack.state import BlackjackState, Hand, hand_numbers
from tablectl.games.blackjack.variant import Policy
from tablectl.games.common import player_dealer_view
from tablectl.rules import blackjack as bj
from tablectl.rules.fees import total_table_action
from tablectl_base.cards import Card
from tablectl_base.money import fmt


@lru_cache(maxsize=4096)
def _ranked(cards: tuple[Card, ...], pure: bool) -> tuple[int, bool, str]:
    """A hand's total, softness and rank name; remembered, as every `state` message shows every
    hand and most hands have not changed since the last one (cards are immutable)."""
    total = bj.hand_total(cards)
    if pure:
        rank = "pure-21.5"
    elif bj.is_888(cards):
        rank = "888"
    elif total.value > 21:
        rank = "bust"
    else:
        rank = f"{'soft' if total.soft else 'hard'} {total.value}"
    return total.value, total.soft, rank


def rank_view(cards: Sequence[Card], *, pure: bool) -> dict[str, JsonValue]:
    """A hand's total and rank name: "pure-21.5", "888", "bust", or e.g. "soft 18"."""
    total, soft, rank = _ranked(tuple(cards), pure)
    return {"total": total, "soft": soft, "rank": rank}


def state_payload(policy: Policy, state: BlackjackState) -> dict[str, JsonValue]:
    """What the dealer console needs and the table shows: never the hole card before it is
    turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), whose turn it is,
    which hand and its legal actions."""
    current = state.current
    legal = legal_actions(policy, state)
    numbers = hand_numbers(state.hands)
    return {
        "game": policy.game_id,
        "round": state.round,
        "phase": state.phase,
        "shoe": state.shoe_number,
        "player_dealer": dealer_view(state),
        "bank_offer_seat": state.rotation.offer_seat(policy.seats),
        "wagers": [w.payload() for w in (*state.wagers, *state.insurance)],
        "total_action": fmt(total_table_action(w.amount for w in state.wagers)),
        "hands": [hand_view(h, n) for h, n in zip(state.hands, numbers, strict=True)],
        "turn": (
            None if current is None else {"seat": current.seat, "hand": state.index_of(current)}
        ),
        "legal": list(legal),
        "next_card": next_card_view(state, current, legal),
        "insurance": insurance_view(policy, state),
        "peeked": state.peeked,
    }


def dealer_view(state: BlackjackState) -> dict[str, JsonValue] | None:
    """The player-dealer as `state` shows it: the up card only until the hole card is
    turned (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"), its total only
    after."""
    seat = player_dealer_view(state.bank_seat, state.bank, state.rotation)
    if seat is None:
        return None
    shown = state.dealer if state.hole_shown else state.dealer[:1]
    view: dict[str, JsonValue] = {
        **seat,
        "cards": [str(c) for c in shown],
        "hole_card_down": len(state.dealer) >= 2 and not state.hole_shown,
    }
    if state.hole_shown:
        view.update(rank_view(state.dealer, pure=False))
    return view


def hand_view(h: Hand, number: int) -> dict[str, JsonValue]:
    """A player hand as `state` shows it (`number`: its index_of): every player card is face
    up (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")."""
    view: dict[str, JsonValue] = {
        "seat": h.seat,
        "hand": number,
        "player": h.player,
        "cards": [str(c) for c in h.cards],
        "stake": fmt(h.stake),
        "doubles": [fmt(d) for d in h.doubles],
        "split": h.split,
        "end": h.end,
    }
    if h.cards:
        view.update(rank_view(h.cards, pure=h.end == "pure"))
    return view


def next_card_view(state: BlackjackState, hand: Hand | None, legal: Sequence[str]) -> JsonValue:
    """Where the next `shoe.card` goes, for the dealer console; None when no card may come.
    (`hand` and `legal`: the state's current hand and legal actions.)"""
    if state.phase == "dealing":
        n = len(state.order) + 1
        position = state.dealt % n
        if position == len(state.order):
            return "player-dealer"
        return {"seat": state.order[position], "hand": 1}
    if state.phase == "player-dealer":
        return "player-dealer"
    if hand is not None and "hit" in legal:
        return {"seat": hand.seat, "hand": state.index_of(hand)}
    return None


def insurance_view(policy: Policy, state: BlackjackState) -> dict[str, JsonValue] | None:
    """While insurance is offered (R17): the seats yet to answer, those that may take even
    money."""
    if state.phase != "insurance":
        return None
    taken = {w.seat for w in state.insurance}
    return {
        "open": True,
        "pending": [s for s in state.order if s not in taken],
        "even_money": (
            [h.seat for h in state.hands if h.end == "pure" and h.seat not in taken]
            if policy.variant.even_money
            else []
        ),
    }


def exposed(state: BlackjackState) -> list[JsonValue]:
    """The cards the table shows, by hand: every player card is dealt face up
    (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play");
    the player-dealer's hole card only once it is turned."""
    out: list[JsonValue] = [
        {"seat": h.seat, "hand": state.index_of(h), "cards": [str(c) for c in h.cards]}
        for h in state.hands
    ]
    if state.dealer:
        shown = state.dealer if state.hole_shown else state.dealer[:1]
        out.append(
            {
                "seat": state.bank_seat,
                "hand": "player-dealer",
                "cards": [str(c) for c in shown],
            }
        )
    return out


def reveal(before: BlackjackState, after: BlackjackState) -> dict[str, JsonValue]:
    """The hole card for the echo of the input that turned it over, else nothing."""
    if before.hole_shown or len(before.dealer) < 2:
        return {}
    turned = after.hole_shown or after.round != before.round
    return {"hole_card": str(before.dealer[1])} if turned else {}
