"""What every player-dealer game shares: placed wagers and their checks (R1, limits), the bank
offer (R5), event echoes, the bank and wager transitions and the end of a round, settled or void
(PlayerDealerEngine, RoundEnd). Seating and action order: games/seating.py; deck checks:
games/decks.py; the settlement walk against the bank and the fees: rules/settlement.py. Each game
engine keeps only its own rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache, cached_property
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from tablectl.game_records import (
    GameRecord,
    InputAccepted,
    JsonValue,
    Outcome,
    RoundHeaders,
    RoundSettled,
    StateChanged,
)
from tablectl.games.base import Rejected
from tablectl.games.table_rules import Limits
from tablectl.render import wager_payload
from tablectl.rules.fees import CollectionSchedule
from tablectl.rules.rotation import Rotation
from tablectl.rules.settlement import (
    Staked,
    WagerVerdict,
    settle_round,
    stake_totals,
    void_round,
)
from tablectl_base.events import Bank, InputEvent, Wager
from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost
from tablectl_base.money import ZERO, fmt

VOID_RULE = "round.void"  # docs/events.md: "the floor voids the round in progress"

S = TypeVar("S")
A = TypeVar("A")
D = TypeVar("D")
W = TypeVar("W", bound=Staked)  # a wager on the layout, or the verdict on one


def replace(obj: D, /, **changes: Any) -> D:
    """`dataclasses.replace` at a fifth of its cost, for the engines' frozen states (one is
    replaced on every input): a new instance holding the same fields, `changes` set. That is
    exactly what `__init__` makes of one of tablectl's plain frozen dataclasses (`_plain_fields`)
    whose instance holds its fields and nothing else; anything else goes to
    `dataclasses.replace` itself."""
    cls: type = type(obj)
    fields = _PLAIN_FIELDS.get(cls) or _plain_fields(cls)
    held = getattr(obj, "__dict__", None)
    if fields is None or held is None or len(held) != len(fields) or not fields >= changes.keys():
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    new: D = object.__new__(cls)
    values = new.__dict__
    values.update(held)
    values.update(changes)
    return new


_PLAIN_FIELDS: dict[type, frozenset[str]] = {}
"""`_plain_fields` of the classes that have them, looked up without a call (`replace`)."""


@cache
def _plain_fields(cls: type) -> frozenset[str] | None:
    """The field names of one of tablectl's frozen dataclasses whose generated `__init__` only
    stores its fields (each an init field, no `__post_init__`, no InitVar or ClassVar
    pseudo-field, no `__slots__`; tablectl writes no `__init__` of its own for a dataclass);
    else None."""
    params = getattr(cls, "__dataclass_params__", None)
    if (
        params is None
        or not (params.init and params.frozen)
        or not cls.__module__.startswith("tablectl.")
        or hasattr(cls, "__post_init__")
        or "__slots__" in vars(cls)
    ):
        return None
    fields = dataclasses.fields(cls)
    declared = vars(cls).get("__dataclass_fields__", {})  # InitVar and ClassVar ones too
    if not all(f.init for f in fields) or len(fields) != len(declared):
        return None
    names = _PLAIN_FIELDS[cls] = frozenset(f.name for f in fields)
    return names


@quick_init
@dataclass(frozen=True)
class PlacedWager:
    """A wager on the layout: who placed it, where, how much."""

    seat: int
    player: str
    spot: str
    amount: Decimal

    def payload(self) -> dict[str, JsonValue]:
        """The wager as `state` and `round/result` show it (contract 3)."""
        return wager_payload(self.seat, self.player, self.spot, self.amount)


def default_player(seat: int) -> str:
    """The id of a seat's own player when a wager names none (contract 2)."""
    return f"p{seat}"


def player_of(ev: Wager) -> str:
    """Who placed a wager: the named player (backline) or the seat's own."""
    return ev.player or default_player(ev.seat)


def verify_seat(seat: int, seats: int) -> None:
    """Refuse a seat the table does not have."""
    if not 1 <= seat <= seats:
        raise Rejected(
            f"seat {seat} does not exist: this table has seats 1-{seats}", rule="config seats"
        )


def verify_bank_offer(
    rotation: Rotation, ev: Bank, seats: int, wagers: Sequence[PlacedWager]
) -> None:
    """R1/R5 checks every game makes on a `bank` event (the phase is the game's to check)."""
    verify_seat(ev.seat, seats)
    if ev.amount <= 0:
        raise Rejected("a player-dealer bank must be more than zero", rule="R1")
    if wagers:
        raise Rejected("wagers are already placed against this round's bank", rule="R1")
    why = rotation.why_not(ev.seat)
    if why:
        raise Rejected(why, rule="R5")


def verify_bank_before_deal(
    betting: bool, rotation: Rotation, ev: Bank, seats: int, wagers: Sequence[PlacedWager]
) -> None:
    """R1/R5: a bank is posted while bets are taken, before the deal, by a seat R5 allows."""
    if not betting:
        raise Rejected("the bank is posted before the deal, not during it", rule="R1")
    verify_bank_offer(rotation, ev, seats, wagers)


def verify_bets_open(betting: bool, bank_seat: int | None, closed_rule: str) -> None:
    """ "No more bets" is called once per round (`closed_rule`: the game's document line), and
    only against a posted bank (R1: every wager is settled against it)."""
    if not betting:
        raise Rejected("betting is already closed for this round", rule=closed_rule)
    if bank_seat is None:
        raise Rejected("no player-dealer bank has been posted for this round", rule="R1")


def verify_round_in_progress(between_rounds: bool) -> None:
    """A `round.void` needs a round to void (docs/events.md); between rounds it changes nothing."""
    if between_rounds:
        raise Rejected("no round is in progress to void", rule=VOID_RULE)


def verify_not_player_dealer(ev: Wager, bank_seat: int | None) -> None:
    """R1: the player-dealer does not wager against its own bank."""
    if bank_seat is None:
        raise Rejected("no player-dealer bank has been posted for this round", rule="R1")
    if ev.seat == bank_seat:
        raise Rejected(
            f"seat {ev.seat} is the player-dealer and cannot wager against its own bank",
            rule="R1",
        )
    if ev.player is not None and ev.player == default_player(bank_seat):
        raise Rejected(
            f"player {ev.player} is the player-dealer and cannot wager against its own bank",
            rule="R1",
        )


def verify_limits(limits: Limits, wagers: Sequence[PlacedWager], ev: Wager) -> None:
    """The table limits for the spot, counting what this player already has on it."""
    player = player_of(ev)
    limit = limits.spots.get(ev.spot, limits)  # the spot's own limits, else the table's
    seat, spot = ev.seat, ev.spot
    total = ev.amount + sum(
        (w.amount for w in wagers if w.seat == seat and w.player == player and w.spot == spot),
        ZERO,
    )
    if ev.amount <= 0 or total < limit.min:
        raise Rejected(
            f"{ev.spot} wager of {fmt(total)} is below the table minimum {fmt(limit.min)}",
            rule="limits",
        )
    if total > limit.max:
        raise Rejected(
            f"{ev.spot} wager of {fmt(total)} is above the table maximum {fmt(limit.max)}",
            rule="limits",
        )


def has_wager(wagers: Iterable[PlacedWager], seat: int, player: str, spots: Iterable[str]) -> bool:
    """Whether `player` at `seat` has a wager on one of `spots` (a bonus needs its base wager)."""
    wanted = set(spots)
    return any(w.seat == seat and w.player == player and w.spot in wanted for w in wagers)


def staked(wagers: Iterable[PlacedWager], seat: int, spot: str) -> Decimal:
    """Everything on `spot` at `seat`, every player's chips together (a seat's Ante, say)."""
    return sum((w.amount for w in wagers if w.seat == seat and w.spot == spot), ZERO)


def merged(wagers: Iterable[PlacedWager]) -> list[PlacedWager]:
    """One wager per seat, player and spot, in the order each was first placed: chips a player
    adds to a circle make one wager (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of
    Play": "an equal wager in the Ante and Blind circles"; 004 "Three Card Poker 6 Card Bonus:
    Dealing Procedures and Round of Play": "an Ante wager"), charged as one (R4). Ultimate Texas
    Hold'em also settles them as one; Three Card Poker lists each placed wager (the money is the
    same)."""
    return [
        PlacedWager(seat, player, spot, amount)
        for (seat, player, spot), amount in stake_totals(wagers).items()
    ]


def player_dealer_view(
    bank_seat: int | None, bank: Decimal | None, rotation: Rotation
) -> dict[str, JsonValue] | None:
    """What `state` shows of the player-dealer: seat, bank and which of its two hands (R5)."""
    if bank_seat is None or bank is None:
        return None
    return {"seat": bank_seat, "bank": fmt(bank), "turn": rotation.turn_of(bank_seat)}


NOTHING_HIDDEN: frozenset[str] = frozenset()
"""What an echo usually hides: one empty set for them all, rather than a new one an echo."""


def event_msg(
    ev: InputEvent, ts: str, *, hide: Iterable[str] = NOTHING_HIDDEN, **extra: JsonValue
) -> InputAccepted:
    """The `event` echo of an accepted input; `hide` drops fields the table does not show yet
    (a stack's cards before they are exposed)."""
    return InputAccepted(ev, ts, extra, hide if type(hide) is frozenset else frozenset(hide))


def can(verify: Callable[[S, A], object], state: S, arg: A) -> bool:
    """The `can_x` of a `verify_x`: whether it accepts, without raising."""
    try:
        verify(state, arg)
    except Rejected:
        return False
    return True


class TableState(Protocol):
    """What every player-dealer game's state holds (a frozen dataclass)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # what marks a dataclass (typeshed's type)

    @property
    def round(self) -> int: ...

    @property
    def phase(self) -> str: ...

    @property
    def bank_seat(self) -> int | None: ...

    @property
    def bank(self) -> Decimal | None: ...

    @property
    def rotation(self) -> Rotation: ...

    @property
    def wagers(self) -> tuple[PlacedWager, ...]: ...


T = TypeVar("T", bound=TableState)


Transition = Callable[[T, Any, str], tuple[T, list[GameRecord]]]
"""One input's transition: (state, the event, its timestamp) -> (new state, outputs)."""


class RoundEnd(Generic[T]):
    """The one walk that ends a player-dealer round, settled or void (R1-R5), for every game.

    A round settles in `settled`: the game's verdicts, put in the documents' settlement order
    (R2, R3), are walked against the bank (R1), the collection fees are charged (R4), and the
    next round starts with the rotation moved on (R5). A misdeal ends it in `voided`: every
    wager at stake comes back, in the same order, no fee is charged, and the next round keeps
    the rotation (R5). Either way the result shows only what the table had exposed, with the
    game's headers (shoe or deck), and the game decides what the next round carries over.

    A game supplies what is its own: `at_stake`, `in_settlement_order`, `exposed`, `headers`,
    `next_round` (and its verdicts and outcome, given to `settled`). PlayerDealerEngine is a
    RoundEnd; blackjack's hooks are a RoundEnd of their own too, as its deal functions end a
    round without the engine (tablectl/games/blackjack/settlement.py).
    """

    game_id: str
    schedule: CollectionSchedule

    def at_stake(self, state: T) -> Sequence[Staked]:
        """Every wager a misdeal returns (the game's own: Plays, doubles, insurance...)."""
        raise NotImplementedError

    def in_settlement_order(self, state: T, wagers: Sequence[W]) -> list[W]:
        """`wagers` (or the verdicts on them) in the order the game's documents settle them
        (R2, R3); called only once a bank is posted."""
        raise NotImplementedError

    def exposed(self, state: T, settled: bool) -> Sequence[JsonValue]:
        """The cards the table shows in the result (`dealt`): at the end of a settled round, or
        (not `settled`) what a misdeal had exposed."""
        raise NotImplementedError

    def headers(self, state: T) -> RoundHeaders:
        """The round's shoe or deck, where the game's result publishes it."""
        raise NotImplementedError

    def next_round(self, state: T, settled: bool) -> T:
        """The state the next round starts from: the round counted on, the rotation as
        `rotation_after` gives it, and what the game carries over (its shoe or deck)."""
        raise NotImplementedError

    def rotation_after(self, state: T, settled: bool) -> Rotation:
        """R5: a settled round is one of the player-dealer's two hands and moves the rotation
        on; a misdeal does not count toward the two."""
        if not settled:
            return state.rotation
        assert state.bank_seat is not None
        return state.rotation.after_round(state.bank_seat)

    def settled(
        self,
        state: T,
        verdicts: Sequence[WagerVerdict],
        outcome: Outcome,
        *,
        fee_wagers: Iterable[Staked],
        action_seat: int | None,
    ) -> tuple[T, RoundSettled]:
        """A played round's end: `verdicts` (in any order) settled in the documents' order
        (R2, R3) against the bank (R1), the fees on `fee_wagers` (R4: the pre-deal wagers only),
        and the next round (R5)."""
        assert state.bank_seat is not None and state.bank is not None
        result = settle_round(
            round_=state.round,
            game=self.game_id,
            bank_seat=state.bank_seat,
            bank=state.bank,
            turn=state.rotation.turn_of(state.bank_seat),
            verdicts=self.in_settlement_order(state, verdicts),
            fee_wagers=fee_wagers,
            schedule=self.schedule,
            outcome=outcome,
            dealt=self.exposed(state, True),
            action_seat=action_seat,
            headers=self.headers(state),
        )
        return self.next_round(state, True), result

    def voided(self, state: T, reason: str) -> tuple[T, RoundSettled]:
        """A misdeal's end (`round.void`): the round ends unplayed, every wager at stake comes
        back (in settlement order once a bank is posted, else as placed), the bank unchanged, no
        fee; the hand does not count toward the player-dealer's two (R5)."""
        wagers = self.at_stake(state)
        result = void_round(
            round_=state.round,
            game=self.game_id,
            reason=reason,
            bank_seat=state.bank_seat,
            bank=state.bank,
            ordered=(
                self.in_settlement_order(state, wagers)
                if state.bank_seat is not None
                else list(wagers)
            ),
            dealt=self.exposed(state, False),
            headers=self.headers(state),
        )
        return self.next_round(state, False), result


class PlayerDealerEngine(RoundEnd[T]):
    """The transitions every player-dealer game makes the same way: posting the bank (R1),
    placing a wager, and voiding the round (a misdeal). A game supplies `verify_bank`,
    `verify_wager` (its own rules for when and what), `state_payload` and the hooks of its round's
    end (RoundEnd)."""

    def verify_bank(self, state: T, ev: Bank) -> None:
        raise NotImplementedError

    def verify_wager(self, state: T, ev: Wager) -> None:
        raise NotImplementedError

    def state_payload(self, state: T) -> dict[str, JsonValue]:
        raise NotImplementedError

    def state_view(self, state: T) -> StateChanged:
        """The retained `state` as a record: what the table's timers read, and the view, built
        when it is read (`state` is immutable)."""
        return StateChanged(
            state.round, state.phase, len(state.wagers), build=lambda: self.state_payload(state)
        )

    def transitions(self) -> Mapping[type[Any], Transition[T]]:
        """The game's own inputs (beyond `bank` and `wager`), each to its transition."""
        raise NotImplementedError

    def no_such_input(self, event: InputEvent) -> Rejected:
        """The refusal of an input this game does not take, naming the rule."""
        raise NotImplementedError

    def between_rounds(self, state: T) -> bool:
        """No bank, wager or card is down: new rules may take over now (every game's round opens
        in phase "betting"; closing bets or a first card ends it)."""
        return state.phase == "betting" and state.bank_seat is None and not state.wagers

    def verify_bets_close(self, state: T) -> None:
        raise NotImplementedError

    def can_bets_close(self, state: T) -> bool:
        """Whether `verify_bets_close` accepts."""
        return can(lambda s, _e: self.verify_bets_close(s), state, None)

    @cached_property
    def _steps(self) -> Mapping[type[Any], Transition[T]]:
        """Each input type's transition: built once, as it depends on nothing but the engine."""
        return MappingProxyType({Bank: self.bank, Wager: self.wager, **self.transitions()})

    def apply(self, state: T, event: InputEvent, ts: str) -> tuple[T, list[GameRecord]]:
        """Dispatch one input to its transition; an input this game has not is refused."""
        step = self._steps.get(type(event))
        if step is None:
            raise self.no_such_input(event)
        return step(state, event, ts)

    def can_bank(self, state: T, ev: Bank) -> bool:
        """Whether `verify_bank` accepts."""
        return can(self.verify_bank, state, ev)

    def bank(self, state: T, ev: Bank, ts: str) -> tuple[T, list[GameRecord]]:
        """Post (or replace, before any wager) the player-dealer's seat and bank (R1)."""
        self.verify_bank(state, ev)
        new = replace(state, bank_seat=ev.seat, bank=ev.amount)
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    def can_wager(self, state: T, ev: Wager) -> bool:
        """Whether `verify_wager` accepts."""
        return can(self.verify_wager, state, ev)

    def wager(self, state: T, ev: Wager, ts: str) -> tuple[T, list[GameRecord]]:
        """Place a pre-deal wager, for the named player or the seat's own."""
        self.verify_wager(state, ev)
        player = player_of(ev)
        placed = PlacedWager(ev.seat, player, ev.spot, ev.amount)
        new = replace(state, wagers=(*state.wagers, placed))
        return new, [event_msg(ev, ts, round=state.round, player=player), self._state(new)]

    def verify_void(self, state: T) -> None:
        """A `round.void` needs a round in progress: a bank, a wager or a card on the table
        (docs/events.md; rule `round.void`)."""
        verify_round_in_progress(self.between_rounds(state))

    def can_void(self, state: T) -> bool:
        """Whether `verify_void` accepts."""
        return can(lambda s, _e: self.verify_void(s), state, None)

    def void(self, state: T, reason: str, ts: str) -> tuple[T, list[GameRecord]]:
        """A misdeal (RoundEnd.voided), then the next round's `state`."""
        self.verify_void(state)
        new, result = self.voided(state, reason)
        return new, [result, self._state(new)]

    def _state(self, state: T) -> StateChanged:
        """The retained `state` message (contract 3)."""
        return self.state_view(state)
