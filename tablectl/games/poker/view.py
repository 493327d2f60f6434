"""The poker table's retained `state`, for the one poker engine (tablectl/games/poker/engine.py):
seats and stacks, button, blinds, the kill, and the hand in play (its street, phase, whose turn,
the call, the least and greatest bet or raise, the pots so far), with the cards its family shows
(the board, stud's up cards, a draw's count); never a hole card (R46).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablectl.game_records import JsonObject, JsonValue, StateChanged
from tablectl.games.poker.family import discards_due
from tablectl.games.poker.state import PokerState
from tablectl.rules.betting import BettingRound
from tablectl.rules.pots import Contribution, PotError, build_pots
from tablectl_base.money import fmt

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine


def state_view(eng: PokerEngine, state: PokerState) -> StateChanged:
    """The retained `state`: the hand (or the hands played) and its phase; the view built
    when it is read (`state` is immutable)."""
    hand = state.hand
    if hand is None:
        return StateChanged(state.hands, "between-hands", 0, build=lambda: _view(eng, state))
    return StateChanged(
        hand.number, eng.family.phase(eng.game, hand), 0, build=lambda: _view(eng, state)
    )


def _view(eng: PokerEngine, state: PokerState) -> JsonObject:
    """Seats and stacks, button, blinds, street, board, whose turn, the call, the least and
    greatest bet or raise, the pot so far; never a hole card (R46)."""
    s = eng.settings
    view: dict[str, JsonValue] = {
        "game": eng.game_id,
        "button": state.button,
        "blinds": [fmt(s.small_blind), fmt(s.big_blind)],
        "kill": None
        if s.kill == "none"
        else {"kind": s.kill, "holder": state.kill_holder, "next_hand": state.kill_next},
    }
    hand = state.hand
    if hand is None:
        view["seats"] = [
            {
                "seat": x.seat,
                "player": x.player,
                "stack": fmt(x.stack),
                "away": x.away,
                "owes": x.owes,
            }
            for x in state.seats
        ]
        view["hand"] = None
        return view
    b = hand.betting
    players = {p.seat: p for p in b.players}
    view["seats"] = [
        {
            "seat": x.seat,
            "player": x.player,
            "stack": fmt(players[x.seat].stack if x.seat in players else x.stack),
            "in_round": fmt(players[x.seat].in_round) if x.seat in players else None,
            "folded": players[x.seat].folded if x.seat in players else None,
            "cards_in": eng.family.whole(eng.game, hand, x.seat),
            **eng.family.seat_shown(hand, x.seat),
            "away": x.away,
            "owes": x.owes,
        }
        for x in state.seats
    ]
    lo, hi = b.min_bet_or_raise_to, b.max_bet_or_raise_to
    view["hand"] = {
        "round": hand.number,
        "street": eng.family.street_name(eng.game, b.street),
        "phase": eng.family.phase(eng.game, hand),
        **eng.family.cards_shown(hand),
        "turn": b.turn,
        "to_call": fmt(b.to_call),
        "min_to": None if lo is None else fmt(lo),
        "max_to": None if hi is None else fmt(hi),
        "pot": fmt(b.pot),
        "pots": _pots_so_far(b),
        "discards_due": list(discards_due(eng.game, hand)),
        "kill_pot": hand.kill is not None,
    }
    return view


def _pots_so_far(b: BettingRound) -> list[JsonValue]:
    """The main and side pots of the rounds already over (this round's bets are still in
    front of the players), each with the seats that may win it."""
    before = [
        Contribution(p.seat, p.in_hand - p.in_round - p.dead, p.folded, p.all_in, p.dead)
        for p in b.players
    ]
    try:
        built = build_pots(before)
    except PotError:  # nothing of a finished round to show
        return []
    pots: list[JsonValue] = [
        {"amount": fmt(p.amount), "eligible": list(p.eligible)} for p in built.pots
    ]
    return pots
