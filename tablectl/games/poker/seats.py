"""The poker table's seats between hands, for the one poker engine (tablectl/games/poker/engine.py):
taking and leaving a seat (table stakes, the minimum buy-in), sitting out and coming back (what
a seat owes to be dealt in again: missed blinds, docs/games/poker-room.md), and the time
collection taken from every seated player outside any pot (R44). The same in every game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from tablectl.game_records import GameRecord, JsonValue
from tablectl.games.base import Rejected
from tablectl.games.common import default_player, event_msg, verify_seat
from tablectl.games.poker.family import Step
from tablectl.games.poker.state import Owed, PokerState, SeatState
from tablectl.rules.betting import TABLE_STAKES
from tablectl.rules.poker_fees import MIN_PLAYERS, time_rate
from tablectl_base.events import SeatAway, SeatBack, SeatLeave, SeatTake, TimeCollect
from tablectl_base.money import fmt

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

SEATING = "table stakes: a seat holds one player and the chips in front of them"
BUY_IN = 'the table\'s posted minimum buy-in (game.buy_in_min; 003 "Poker Games Collection Rates")'
TIME_COLLECTION = 'R44; 003 "Crazy Pineapple High-Low Split: Collection Fee Schedule" option 4'
MISSED_BLINDS = (
    "missed blinds (no document says: the card rooms' usual rule, docs/games/poker-room.md)"
)


# ------------------------------------------------------------------ seats


def verify_seat_take(eng: PokerEngine, state: PokerState, ev: SeatTake) -> None:
    """A seat the table has, empty, taken with chips."""
    verify_seat(ev.seat, eng.settings.seats)
    if any(s.seat == ev.seat for s in state.seats):
        raise Rejected(f"seat {ev.seat} is already taken", rule=SEATING)
    if ev.stack <= 0:
        raise Rejected(
            "a player sits down with chips: the stack must be more than zero", rule=TABLE_STAKES
        )
    least = eng.settings.buy_in_min
    if least is not None and ev.stack < least:
        raise Rejected(
            f"a buy-in of {fmt(ev.stack)} is below the table's minimum {fmt(least)}",
            rule=BUY_IN,
        )


def seat_take(
    eng: PokerEngine, state: PokerState, ev: SeatTake, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Seat a player with a stack; they are dealt in from the next hand."""
    verify_seat_take(eng, state, ev)
    player = ev.player or default_player(ev.seat)
    # New to a game in progress: a big blind to be dealt in, unless the blinds reach the seat.
    owes: Owed = "big" if state.button is not None else "none"
    taken = SeatState(ev.seat, player, ev.stack, owes=owes)
    seats = tuple(sorted((*state.seats, taken), key=lambda s: s.seat))
    return replace(state, seats=seats), [event_msg(ev, ts, player=player, owes=owes)]


def verify_seat_leave(eng: PokerEngine, state: PokerState, ev: SeatLeave) -> None:
    """A seated player who is not in the hand in play."""
    if not any(s.seat == ev.seat for s in state.seats):
        raise Rejected(f"seat {ev.seat} is empty", rule=SEATING)
    if state.hand is not None and ev.seat in state.hand.order:
        raise Rejected(
            f"seat {ev.seat} is in the hand in play: leave once it is over", rule=SEATING
        )


def seat_leave(
    eng: PokerEngine, state: PokerState, ev: SeatLeave, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """The player leaves with the stack; a kill button the player held goes back to the pot
    (the next player in the seat has won nothing: 003 Kill Rules 1)."""
    verify_seat_leave(eng, state, ev)
    left = next(s for s in state.seats if s.seat == ev.seat)
    seats = tuple(s for s in state.seats if s.seat != ev.seat)
    new = replace(state, seats=seats)
    if state.kill_holder == ev.seat:
        new = replace(new, kill_holder=None, kill_next=False)
    return new, [event_msg(ev, ts, stack=fmt(left.stack))]


def _seated(state: PokerState, seat: int) -> SeatState:
    """The seat's player, or a refusal."""
    found = next((s for s in state.seats if s.seat == seat), None)
    if found is None:
        raise Rejected(f"seat {seat} is empty", rule=SEATING)
    return found


def verify_seat_away(eng: PokerEngine, state: PokerState, ev: SeatAway) -> None:
    """A seated player who is not sitting out already."""
    if _seated(state, ev.seat).away:
        raise Rejected(f"seat {ev.seat} is already sitting out", rule=MISSED_BLINDS)


def seat_away(
    eng: PokerEngine, state: PokerState, ev: SeatAway, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """The seat sits out from the next hand (a hand in play it finishes)."""
    verify_seat_away(eng, state, ev)
    return _with_seat(state, ev.seat, away=True), [event_msg(ev, ts)]


def verify_seat_back(eng: PokerEngine, state: PokerState, ev: SeatBack) -> None:
    """A seated player who is sitting out."""
    if not _seated(state, ev.seat).away:
        raise Rejected(f"seat {ev.seat} is not sitting out", rule=MISSED_BLINDS)


def seat_back(
    eng: PokerEngine, state: PokerState, ev: SeatBack, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Dealt in again from the next hand, posting what the seat owes."""
    verify_seat_back(eng, state, ev)
    new = _with_seat(state, ev.seat, away=False)
    owes = _seated(new, ev.seat).owes
    return new, [event_msg(ev, ts, owes=owes)]


def _with_seat(state: PokerState, seat: int, **changes: Any) -> PokerState:
    """The state with one seat's fields changed."""
    seats = tuple(replace(s, **changes) if s.seat == seat else s for s in state.seats)
    return replace(state, seats=seats)


# ------------------------------------------------------------------ time collection


def verify_time_collect(eng: PokerEngine, state: PokerState, ev: TimeCollect) -> None:
    """A half-hour schedule, between hands, two players seated at least, each able to pay."""
    schedule = eng.settings.schedule
    if schedule is None or schedule.per != "half-hour":
        raise Rejected(
            "this table's collection is taken per hand from the pot, not by time",
            rule=TIME_COLLECTION,
        )
    if state.hand is not None:
        raise Rejected("time is collected between hands", rule=TIME_COLLECTION)
    seated = [s for s in state.seats if s.stack > 0]
    if len(seated) < MIN_PLAYERS:
        raise Rejected(
            f"{len(seated)} player(s) seated: a time collection needs a game",
            rule=TIME_COLLECTION,
        )
    rate = time_rate(schedule, len(seated))
    short = [s for s in seated if s.stack < rate]
    if short:
        raise Rejected(
            f"seat {short[0].seat} has {fmt(short[0].stack)}, less than the half hour's "
            f"{fmt(rate)}: collect it by hand and let the seat leave",
            rule=TIME_COLLECTION,
        )


def time_collect(
    eng: PokerEngine, state: PokerState, ev: TimeCollect, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Each seated player pays the rate for the number seated (R44), outside any pot."""
    verify_time_collect(eng, state, ev)
    schedule = eng.settings.schedule
    assert schedule is not None
    seated = [s for s in state.seats if s.stack > 0]
    rate = time_rate(schedule, len(seated))
    paying = {s.seat for s in seated}
    seats = tuple(replace(s, stack=s.stack - rate) if s.seat in paying else s for s in state.seats)
    total = rate * len(seated)
    new = replace(state, seats=seats, collected=state.collected + total)
    paid: list[JsonValue] = [{"seat": s.seat, "amount": fmt(rate)} for s in seated]
    echo = event_msg(ev, ts, seated=len(seated), rate=fmt(rate), paid=paid, total=fmt(total))
    return new, [echo]


SEAT_STEPS: Final[Mapping[type[Any], Step]] = MappingProxyType(
    {
        SeatTake: seat_take,
        SeatLeave: seat_leave,
        SeatAway: seat_away,
        SeatBack: seat_back,
        TimeCollect: time_collect,
    }
)
"""The inputs of the table between hands, each game's the same."""
