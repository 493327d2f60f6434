"""Random legal hands of every flop game: the generator of the console's next legal input
(`_next_input`), the tables the property suite plays (every structure, a full kill at fixed and
spread limit) and `poker_session`, a whole random session's inputs. The properties (chips
conserved, no hole card published before its hand is shown, R46, the replay the same) are the
poker families' shared suite, tests/games/poker/test_poker_family_properties.py."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tablectl.config import load_config
from tablectl.games.poker.engine import PokerEngine
from tablectl.games.poker.state import PokerState
from tablectl.games.registry import make_engine
from tablectl.rules.betting import Structure
from tablectl.rules.betting_structures import FixedLimit, NoLimit, PotLimit, SpreadLimit
from tablectl.rules.poker_fees import PokerSchedule
from tablectl_base.events import parse_event

D = Decimal
HOLES = {"texas-holdem": 2, "omaha": 4, "omaha-hi-lo": 4, "crazy-pineapple-hi-lo": 3}
SCHEDULE = PokerSchedule.model_validate(
    {
        "option": 1,
        "per": "hand",
        "modified_fee": "1",
        "rates": [{"from": 2, "to": 4, "fee": "2"}, {"from": 5, "to": 10, "fee": "3"}],
    }
)
STRUCTURES: dict[str, Structure] = {
    "fixed": FixedLimit(D("2"), D("4")),
    "spread": SpreadLimit(D("2"), D("20"), round_cap=D("50")),
    "pot": PotLimit(D("2")),
    "no": NoLimit(D("2")),
}
KILL_STRUCTURES: dict[str, Structure] = {  # a full kill's doubled stakes (003 Kill Rules)
    "fixed": FixedLimit(D("4"), D("8")),
    "spread": SpreadLimit(D("4"), D("40"), round_cap=D("50")),
}


def _amount(data: st.DataObject, low: Decimal, high: Decimal) -> str:
    """A bet or raise total from `low` to `high`, in whole dollars or one of the ends."""
    ends = st.sampled_from([low, high])
    inside = st.integers(int(low), int(high)).map(Decimal).filter(lambda a: low <= a <= high)
    return str(data.draw(st.one_of(ends, inside)))


def _next_input(
    data: st.DataObject,
    eng: PokerEngine,
    state: PokerState,
    deck: list[str],
    holes: dict[int, list[str]],
) -> dict[str, Any] | None:
    """A legal input for what the table waits for, or None when no hand can be dealt."""
    hand = state.hand
    if hand is None:
        away = [s.seat for s in state.seats if s.away]
        here = [s.seat for s in state.seats if s.stack > 0 and not s.away]
        pick = data.draw(st.integers(0, 5))
        if away and (len(here) < 2 or pick == 0):  # back, posting what the blinds passed
            return {"type": "seat.back", "seat": away[0]}
        if len(here) > 2 and pick == 1:  # sits out: the blinds may pass it (dead blinds later)
            return {"type": "seat.away", "seat": data.draw(st.sampled_from(here))}
        if len(here) < 2:
            return None
        ev: dict[str, Any] = {"type": "hand.start"}
        if state.button is None:
            ev["button"] = here[0]
        return ev
    missing = [s for s in hand.order if s not in hand.holes]
    if missing:
        n = HOLES[eng.settings.variant]
        cards = [deck.pop() for _ in range(n)]
        holes[missing[0]] = cards
        return {"type": "hole.cards", "seat": missing[0], "cards": cards}
    if data.draw(st.integers(0, 150)) == 77:
        return {"type": "round.void", "reason": "misdeal"}
    phase = eng.state_view(state).phase
    if phase == "discard":
        due = eng.state_view(state).view["hand"]
        assert isinstance(due, dict)
        seat = due["discards_due"][0]
        assert isinstance(seat, int)
        return {
            "type": "hole.discard",
            "seat": seat,
            "card": data.draw(st.sampled_from(holes[seat])),
        }
    if phase == "board":
        n = 3 if not hand.board else 1
        return {"type": "board.cards", "cards": [deck.pop() for _ in range(n)]}
    b = hand.betting
    seat = b.turn
    assert seat is not None
    options = [
        a for a, ok in (("check", b.can_check()), ("call", b.can_call()), ("fold", True)) if ok
    ]
    if b.can_all_in():
        options.append("all-in")
    low, high = b.min_bet_or_raise_to, b.max_bet_or_raise_to
    if low is not None and high is not None:
        options.append("bet" if b.current_bet == 0 else "raise")
    action = data.draw(st.sampled_from(options))
    ev = {"type": "decision", "seat": seat, "action": action}
    if action in ("bet", "raise"):
        assert low is not None and high is not None
        ev["amount"] = _amount(data, low, high)
    return ev


def poker_session(
    config: Path, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> list[dict[str, Any]]:
    """A random session of up to three hands at the table `config` describes, as the console
    enters it (the inputs `_next_input` draws), from the players sitting down on."""
    engine = make_engine(load_config(config).rules)
    assert isinstance(engine, PokerEngine)
    state = engine.initial()
    inputs: list[dict[str, Any]] = [
        {"type": "seat.take", "seat": i + 1, "stack": str(s)} for i, s in enumerate(stacks)
    ]
    for ev in inputs:
        state, _ = engine.apply(state, parse_event(ev), "t")
    hands, deck = 0, list(deck_order)
    holes: dict[int, list[str]] = {}
    for _ in range(300):
        if state.hand is None:
            if hands == 3:
                break
            deck, holes = list(deck_order), {}
        step = _next_input(data, engine, state, deck, holes)
        if step is None:
            break
        before = state.hand
        state, _ = engine.apply(state, parse_event(step), "t")
        hands += before is not None and state.hand is None
        inputs.append(step)
    return inputs
