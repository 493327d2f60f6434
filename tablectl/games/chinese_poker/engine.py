"""The Chinese Poker engine, pure (003 "Chinese Poker"; rules in tablectl/rules/chinese_poker.py).

A round, from the dealer's console:
- `seat.take` (at least twenty points: 003 Game Rules 1), `seat.leave`, `seat.away` / `seat.back`
  (up to five seated; a seat sitting out lets the fifth play).
- `hand.start`, as at every poker table, starts a round: the action and dealer buttons
  move clockwise (the first round: named, or the first seat clockwise from the dealer), up to four
  players are dealt in from the buttons' holder clockwise, and each pays the fee before the deal
  (the holder its own, R44).
- `chinese.set` (front, middle, back) or `chinese.sweep` (a clean sweep and its thirteen cards) by
  each player dealt in, once. Nothing of a hand is published until the last is in.
- Then the showdown, at once: every hand exposed, each pair's points (clean sweeps first), and the
  settlement walk within the stacks the round started with.
- `round.void`: a misdeal (003 Game Rules 7): the fees go back, nothing is exchanged, the buttons
  go back where they were, and the round is dealt again from them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from tablectl.game_records import GameRecord, JsonObject, JsonValue, StateChanged
from tablectl.games.base import Rejected
from tablectl.games.chinese_poker.records import (
    ChineseHandShown,
    ChinesePayment,
    ChineseRoundSettled,
)
from tablectl.games.common import VOID_RULE, can, default_player, event_msg, verify_seat
from tablectl.games.poker.state import SeatState
from tablectl.rules.chinese_poker import (
    RULE,
    Hand,
    Setting,
    segment_points,
    setting,
    sweep_holds,
    sweep_points,
    walk,
)
from tablectl.rules.poker import rank_category
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    ChineseSet,
    ChineseSweep,
    HandStart,
    InputEvent,
    RoundVoid,
    SeatAway,
    SeatBack,
    SeatLeave,
    SeatTake,
)
from tablectl_base.money import ZERO, fmt

if TYPE_CHECKING:
    from tablectl.games.chinese_poker.spec import ChinesePoker
    from tablectl.games.table_rules import Rules

DEALT_IN = 4
"""003 "Chinese Poker": "in a 5 handed game, only four players will receive a hand"."""
SEATING = "table stakes: a seat holds one player and the chips in front of them"


def _no_hands() -> Mapping[int, Hand]:
    return MappingProxyType({})


@dataclass(frozen=True)
class ChineseRound:
    """A round in play: the seats dealt in from the buttons' holder clockwise, the fees they
    paid, their stacks after the fees (what each can exchange), and each hand brought in."""

    number: int
    button: int
    previous_button: int | None
    order: tuple[int, ...]
    fees: tuple[tuple[int, Decimal], ...]
    stacks: Mapping[int, Decimal]
    hands: Mapping[int, Hand] = field(default_factory=_no_hands)
    cards: Mapping[int, tuple[Card, ...]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ChineseState:
    """The table: seats (ascending), the buttons' holder, the round in play, rounds counted and
    every fee collected (stacks plus `collected` stay constant)."""

    seats: tuple[SeatState, ...] = ()
    button: int | None = None
    round: ChineseRound | None = None
    rounds: int = 0
    collected: Decimal = ZERO


class ChinesePokerEngine:
    """The `Engine` of a Chinese Poker table."""

    game_id = "chinese-poker"

    def __init__(self, rules: Rules) -> None:
        from tablectl.games.chinese_poker.spec import ChinesePoker

        options = rules.game
        assert isinstance(options, ChinesePoker)
        self.options: ChinesePoker = options
        self.seats = rules.seats.count
        self.schedule = rules.poker_schedule()
        self._steps: Mapping[type[Any], Callable[[ChineseState, Any, str], Any]] = {
            SeatTake: self.seat_take,
            SeatLeave: self.seat_leave,
            SeatAway: self.seat_away,
            SeatBack: self.seat_back,
            HandStart: self.round_start,
            ChineseSet: self.hand_set,
            ChineseSweep: self.hand_sweep,
        }

    # ------------------------------------------------------------------ the Engine protocol

    def initial(self) -> ChineseState:
        return ChineseState()

    def in_deal(self, state: ChineseState) -> bool:
        return state.round is not None

    def between_rounds(self, state: ChineseState) -> bool:
        return state.round is None

    def apply(
        self, state: ChineseState, event: InputEvent, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """Apply one input; Rejected (naming the rule) leaves the state as it was."""
        if isinstance(event, RoundVoid):
            return self.void(state, event.reason, ts)
        step = self._steps.get(type(event))
        if step is None:
            raise Rejected(f"a Chinese Poker table takes no {event.type} input", rule=RULE)
        new, records = step(state, event, ts)
        return new, [*records, self.state_view(new)]

    # ------------------------------------------------------------------ seats

    def _seated(self, state: ChineseState, seat: int) -> SeatState:
        found = next((s for s in state.seats if s.seat == seat), None)
        if found is None:
            raise Rejected(f"seat {seat} is empty", rule=SEATING)
        return found

    def _in_round(self, state: ChineseState, seat: int) -> bool:
        return state.round is not None and seat in state.round.order

    def verify_seat_take(self, state: ChineseState, ev: SeatTake) -> None:
        """An empty seat of the table's five at most, taken with at least the buy-in."""
        verify_seat(ev.seat, self.seats)
        if any(s.seat == ev.seat for s in state.seats):
            raise Rejected(f"seat {ev.seat} is already taken", rule=SEATING)
        least = self.options.least_buy_in
        if ev.stack < least:
            raise Rejected(
                f"a buy-in of {fmt(ev.stack)} is below twenty points, {fmt(least)}",
                rule=f"{RULE}, Game Rules 1",
            )

    def can_seat_take(self, state: ChineseState, ev: SeatTake) -> bool:
        return can(self.verify_seat_take, state, ev)

    def seat_take(
        self, state: ChineseState, ev: SeatTake, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        self.verify_seat_take(state, ev)
        player = ev.player or default_player(ev.seat)
        seats = tuple(
            sorted((*state.seats, SeatState(ev.seat, player, ev.stack)), key=lambda s: s.seat)
        )
        return replace(state, seats=seats), [event_msg(ev, ts, player=player)]

    def seat_leave(
        self, state: ChineseState, ev: SeatLeave, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """The player leaves with the stack, not during a round it is dealt in."""
        left = self._seated(state, ev.seat)
        if self._in_round(state, ev.seat):
            raise Rejected(f"seat {ev.seat} is in the round in play", rule=SEATING)
        seats = tuple(s for s in state.seats if s.seat != ev.seat)
        return replace(state, seats=seats), [event_msg(ev, ts, stack=fmt(left.stack))]

    def seat_away(
        self, state: ChineseState, ev: SeatAway, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """The player does not play the next rounds ("provided that one of the 4 hands chooses
        not to participate during that round of play", the fifth plays)."""
        if self._seated(state, ev.seat).away:
            raise Rejected(f"seat {ev.seat} is already sitting out", rule=RULE)
        return self._with_seat(state, ev.seat, away=True), [event_msg(ev, ts)]

    def seat_back(
        self, state: ChineseState, ev: SeatBack, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        if not self._seated(state, ev.seat).away:
            raise Rejected(f"seat {ev.seat} is not sitting out", rule=RULE)
        return self._with_seat(state, ev.seat, away=False), [event_msg(ev, ts)]

    def _with_seat(self, state: ChineseState, seat: int, **changes: Any) -> ChineseState:
        seats = tuple(replace(s, **changes) if s.seat == seat else s for s in state.seats)
        return replace(state, seats=seats)

    # ------------------------------------------------------------------ a round

    def _fee(self, seat: int, button: int) -> Decimal:
        """The fee a seat dealt in pays before the deal: the schedule's rate, the buttons'
        holder its own where the option posts one (R44)."""
        if seat == button and self.schedule.button_fee is not None:
            return self.schedule.button_fee
        return self.schedule.rates[0].fee

    def _next_button(self, state: ChineseState, ev: HandStart) -> int:
        """The buttons move clockwise each round; the first round's go to the seat named, or to
        "the first clockwise player from the casino dealer" (the lowest seat playing)."""
        playing = [s.seat for s in state.seats if not s.away and s.stack > 0]
        if state.button is None:
            if ev.button is not None and ev.button not in playing:
                raise Rejected(f"seat {ev.button} has no player to take the buttons", rule=RULE)
            return ev.button if ev.button is not None else playing[0]
        if ev.button is not None:
            raise Rejected("the buttons move by themselves after the first round", rule=RULE)
        after = [s for s in playing if s > state.button]
        return (after or playing)[0]

    def verify_round_start(self, state: ChineseState, ev: HandStart) -> None:
        """No round in play, two players at least, each able to pay its fee."""
        if state.round is not None:
            raise Rejected(f"round {state.round.number} is still in play", rule=RULE)
        if ev.straddles or ev.game is not None:
            raise Rejected("Chinese Poker takes no straddle and no game choice", rule=RULE)
        if sum(not s.away and s.stack > 0 for s in state.seats) < 2:
            raise Rejected("a round needs two players at least", rule=RULE)
        button = self._next_button(state, ev)
        for s in self._dealt_in(state, button):
            if s.stack < self._fee(s.seat, button):
                raise Rejected(f"seat {s.seat} cannot pay the fee", rule="R44")

    def _dealt_in(self, state: ChineseState, button: int) -> list[SeatState]:
        """Up to four players, from the buttons' holder clockwise."""
        playing = [s for s in state.seats if not s.away and s.stack > 0]
        i = next(k for k, s in enumerate(playing) if s.seat == button)
        return (playing[i:] + playing[:i])[:DEALT_IN]

    def round_start(
        self, state: ChineseState, ev: HandStart, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """Move the buttons, deal in up to four, take each one's fee before the deal."""
        self.verify_round_start(state, ev)
        button = self._next_button(state, ev)
        dealt = self._dealt_in(state, button)
        fees = tuple((s.seat, self._fee(s.seat, button)) for s in dealt)
        paid = dict(fees)
        seats = tuple(replace(s, stack=s.stack - paid.get(s.seat, ZERO)) for s in state.seats)
        stacks = MappingProxyType({s.seat: s.stack for s in seats if s.seat in paid})
        number = state.rounds + 1
        rnd = ChineseRound(number, button, state.button, tuple(paid), fees, stacks)
        new = replace(
            state,
            seats=seats,
            button=button,
            round=rnd,
            rounds=number,
            collected=state.collected + sum(paid.values(), ZERO),
        )
        shown: list[JsonValue] = [{"seat": s, "amount": fmt(a)} for s, a in fees]
        echo = event_msg(ev, ts, round=number, button=button, dealt_in=list(paid), fees=shown)
        return new, [echo]

    # ------------------------------------------------------------------ setting the hands

    def _verify_cards(self, state: ChineseState, seat: int, cards: list[Card]) -> None:
        """A seat dealt in, once, with thirteen different cards, none of them another seat's
        ("one standard 52-card poker deck and no joker")."""
        rnd = state.round
        if rnd is None:
            raise Rejected("no round is in play: start one with hand.start", rule=RULE)
        if seat not in rnd.order:
            raise Rejected(f"seat {seat} is not dealt in this round", rule=RULE)
        if seat in rnd.hands:
            raise Rejected(f"seat {seat}'s hand is already in", rule=RULE)
        if len(cards) != 13:
            raise Rejected(f"a hand is thirteen cards, not {len(cards)}", rule=RULE)
        if len(set(cards)) != 13 or any(c.is_joker for c in cards):
            raise Rejected("thirteen different cards from one deck, no joker", rule=RULE)
        others = {c for held in rnd.cards.values() for c in held}
        if others & set(cards):
            raise Rejected(
                "a card of this hand is another player's: a misdeal (Game Rules 9)", rule=RULE
            )

    def verify_hand_set(self, state: ChineseState, ev: ChineseSet) -> None:
        """Thirteen cards set 3-5-5 (a setting out of order is accepted: it is a foul)."""
        cards = [parse_card(c) for c in (*ev.front, *ev.middle, *ev.back)]
        self._verify_cards(state, ev.seat, cards)
        try:
            _setting_of(ev)
        except ValueError as exc:
            raise Rejected(str(exc), rule=RULE) from None

    def hand_set(
        self, state: ChineseState, ev: ChineseSet, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """A player's setting (journaled; shown at the showdown)."""
        self.verify_hand_set(state, ev)
        made = _setting_of(ev)
        cards = (*made.front, *made.middle, *made.back)
        echo = event_msg(ev, ts, hide=("front", "middle", "back"))
        return self._with_hand(state, ev.seat, Hand(setting=made), cards, echo)

    def verify_hand_sweep(self, state: ChineseState, ev: ChineseSweep) -> None:
        """A clean sweep declared with thirteen cards."""
        self._verify_cards(state, ev.seat, [parse_card(c) for c in ev.cards])

    def hand_sweep(
        self, state: ChineseState, ev: ChineseSweep, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """A clean sweep declared: played as one if the cards hold it, else a fouled hand
        ("If a player declares a 'Clean Sweep' hand but cannot produce it, the player has a
        fouled hand", Game Rules 6)."""
        self.verify_hand_sweep(state, ev)
        cards = tuple(parse_card(c) for c in ev.cards)
        hand = Hand(sweep=ev.sweep) if sweep_holds(ev.sweep, cards) else Hand()
        return self._with_hand(state, ev.seat, hand, cards, event_msg(ev, ts, hide=("cards",)))

    def _with_hand(
        self,
        state: ChineseState,
        seat: int,
        hand: Hand,
        cards: tuple[Card, ...],
        echo: GameRecord,
    ) -> tuple[ChineseState, list[GameRecord]]:
        """The seat's hand is in; with the last one, the showdown."""
        rnd = state.round
        assert rnd is not None
        rnd = replace(
            rnd,
            hands=MappingProxyType({**rnd.hands, seat: hand}),
            cards=MappingProxyType({**rnd.cards, seat: cards}),
        )
        new = replace(state, round=rnd)
        if len(rnd.hands) < len(rnd.order):
            return new, [echo]
        return self._showdown(new, [echo])

    # ------------------------------------------------------------------ the showdown

    def _showdown(
        self, state: ChineseState, records: list[GameRecord]
    ) -> tuple[ChineseState, list[GameRecord]]:
        """Every hand exposed; each pair's points, clean sweeps first; the walk within the
        stacks the round started with; the buttons' holder wins its ties."""
        rnd = state.round
        assert rnd is not None
        order = rnd.order
        sweeps: dict[tuple[int, int], int] = {}
        segments: dict[tuple[int, int], int] = {}
        points: list[tuple[int, int, int]] = []
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                ha, hb = rnd.hands[a], rnd.hands[b]
                button: Literal["a", "b"] | None = (
                    "a" if a == rnd.button else "b" if b == rnd.button else None
                )
                sweeps[(a, b)] = sweep_points(ha, hb)
                segments[(a, b)] = segment_points(ha, hb, button)
                points.append((a, b, sweeps[(a, b)] + segments[(a, b)]))
        transfers = walk(order, rnd.stacks, sweeps, segments, self.options.point)
        delta: dict[int, Decimal] = {}
        for t in transfers:
            delta[t.payer] = delta.get(t.payer, ZERO) - t.amount
            delta[t.payee] = delta.get(t.payee, ZERO) + t.amount
        seats = tuple(replace(s, stack=s.stack + delta.get(s.seat, ZERO)) for s in state.seats)
        result = ChineseRoundSettled(
            round=rnd.number,
            game=self.game_id,
            button=rnd.button,
            fees=rnd.fees,
            hands=tuple(self._shown(rnd, seat) for seat in order),
            points=tuple(points),
            payments=tuple(
                ChinesePayment(t.payer, t.payee, t.owed, t.amount, t.reason) for t in transfers
            ),
            stacks=tuple((s.seat, s.stack) for s in seats),
            point=self.options.point,
        )
        return replace(state, seats=seats, round=None), [*records, result]

    def _shown(self, rnd: ChineseRound, seat: int) -> ChineseHandShown:
        """A hand as exposed at the showdown."""
        hand = rnd.hands[seat]
        cards = tuple(map(str, rnd.cards[seat]))
        s = hand.setting
        if s is None:
            return ChineseHandShown(seat, cards, (), (), (), (), hand.sweep, hand.fouled)
        names = tuple(rank_category(r) for r in s.ranks)
        return ChineseHandShown(
            seat,
            cards,
            tuple(map(str, s.front)),
            tuple(map(str, s.middle)),
            tuple(map(str, s.back)),
            names,
            None,
            s.fouled,
        )

    # ------------------------------------------------------------------ a misdeal

    def void(
        self, state: ChineseState, reason: str, ts: str
    ) -> tuple[ChineseState, list[GameRecord]]:
        """A misdeal: the fees go back, nothing is exchanged, the buttons go back."""
        rnd = state.round
        if rnd is None:
            raise Rejected("no round is in play to void", rule=VOID_RULE)
        back = dict(rnd.fees)
        seats = tuple(replace(s, stack=s.stack + back.get(s.seat, ZERO)) for s in state.seats)
        result = ChineseRoundSettled(
            round=rnd.number,
            game=self.game_id,
            button=rnd.button,
            fees=(),
            hands=(),
            points=(),
            payments=(),
            stacks=tuple((s.seat, s.stack) for s in seats),
            point=self.options.point,
            void=True,
            reason=reason,
        )
        new = replace(
            state,
            seats=seats,
            round=None,
            button=rnd.previous_button,
            collected=state.collected - sum(back.values(), ZERO),
        )
        return new, [result, self.state_view(new)]

    # ------------------------------------------------------------------ the view

    def state_view(self, state: ChineseState) -> StateChanged:
        rnd = state.round
        if rnd is None:
            return StateChanged(state.rounds, "between-rounds", 0, build=lambda: self._view(state))
        return StateChanged(rnd.number, "setting", 0, build=lambda: self._view(state))

    def _view(self, state: ChineseState) -> JsonObject:
        """Seats and stacks, the buttons, the point; in a round, who is dealt in and whose hand
        is in (never a card before the showdown)."""
        rnd = state.round
        return {
            "game": self.game_id,
            "point": fmt(self.options.point),
            "button": state.button,
            "seats": [
                {"seat": s.seat, "player": s.player, "stack": fmt(s.stack), "away": s.away}
                for s in state.seats
            ],
            "round": None
            if rnd is None
            else {
                "round": rnd.number,
                "dealt_in": list(rnd.order),
                "set": [seat for seat in rnd.order if seat in rnd.hands],
            },
        }


def _setting_of(ev: ChineseSet) -> Setting:
    """The event's three segments as a setting (ValueError naming what is wrong)."""
    return setting(
        [parse_card(c) for c in ev.front],
        [parse_card(c) for c in ev.middle],
        [parse_card(c) for c in ev.back],
    )
