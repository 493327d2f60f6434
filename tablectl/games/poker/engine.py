"""The poker hand engine, pure: one engine for every poker game, its family's differences read from
a policy (tablectl/games/poker/family.py: FLOP in flop.py, STUD in games/stud/family.py, DRAW in
games/draw/family.py). Here: the Engine protocol, the button and blinds, the betting rounds
(tablectl/rules/betting.py), a dead hand and a misdeal; the seats between hands are in seats.py,
the hand's end (pots, fee, showdown) in settlement.py, the retained `state` in view.py.

A hand, from the dealer's console:
- `hand.start`: the button moves clockwise to the next seated player with chips (the first hand
  names it: the high card by suit, 004 "Omaha High/Low Split: Dealing Procedures and Round of
  Play"), the two seats on its left post the small and big blinds (004 "Texas Hold'em: Action
  and Distribution of Cards"; heads up the small blind is left of the button and the big blind
  is the button, R53). A seat back from sitting out, or new to the game, posts what it owes
  past the blinds (missed blinds: docs/games/poker-room.md); a kill pot's holder posts the kill
  blind (003 "Betting Limits", Kill Rules); Lowball takes straddles (003 "Lowball" rule 5).
- the family's cards (hole cards, the board, stud's streets, the draw), each input as its
  family's `steps` say; hole and down cards are journal only (R46).
- `decision` with `action` check, call, fold, bet, raise (`amount`: the total raised to) or
  all-in, by the seat whose turn it is.
- The hand ends when all but one have folded (that player takes the pot, nothing shown), or at
  the showdown once the last betting round is over and every hand still in is known: hands
  speak for themselves (003 "Texas Hold-Em (High)" rule 5); or the dealer declares it.
- `round.void` (a misdeal, declared by the floor) returns every chip put in; the button goes
  back to where it was, so the hand is dealt again from the same button.

The collection (R44) is taken at the hand's end from the main pot, the rest from the side pots
in order when the main pot is short (R52): the rate for the players dealt in once the hand
passed its first betting round, the schedule's modified fee (or none) if it ended before.
Stacks plus everything collected stay constant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from decimal import Decimal
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from tablectl.game_records import GameRecord, JsonValue, PokerHandSettled, StateChanged
from tablectl.games.base import Rejected
from tablectl.games.common import VOID_RULE, can, event_msg
from tablectl.games.draw.family import DRAW_GAMES
from tablectl.games.poker import settlement, view
from tablectl.games.poker.family import Game, discards_due, hand_in_play
from tablectl.games.poker.flop import DISCARD_RULE, FLOP_GAMES
from tablectl.games.poker.seats import SEAT_STEPS
from tablectl.games.poker.spec import KILL_FACTORS, PokerGame, settings_of
from tablectl.games.poker.state import (
    DRAW_VARIANTS,
    STUD_VARIANTS,
    VARIANTS,
    HandState,
    PokerSettings,
    PokerState,
    Variant,
)
from tablectl.games.stud.family import STUD_GAMES
from tablectl.rules.betting import (
    ACTION_ORDER,
    KILL_RULE,
    ROUND_OF_PLAY,
    BettingError,
    BettingRound,
)
from tablectl.rules.betting_posts import OwedPost, open_round
from tablectl_base.events import Decision, HandDead, HandStart, InputEvent, RoundVoid, Showdown
from tablectl_base.money import ZERO, fmt

if TYPE_CHECKING:
    from tablectl.games.table_rules import Rules

GAMES: Final[Mapping[str, Game]] = MappingProxyType({**FLOP_GAMES, **STUD_GAMES, **DRAW_GAMES})
"""Every poker game the engine plays, by its variant: the flop, stud and draw families'."""
ALL_VARIANTS: Final = (*VARIANTS, *STUD_VARIANTS, *DRAW_VARIANTS)
FIRST_BUTTON = '004 "Omaha High/Low Split: Dealing Procedures and Round of Play"'
ACTIONS: Final = ("check", "call", "fold", "bet", "raise", "all-in")

Result = tuple[PokerState, list[GameRecord]]


def _rejected(e: BettingError) -> Rejected:
    """A betting round's refusal as the engine's, with its rule."""
    return Rejected(e.reason, rule=e.rule)


class PokerEngine:
    """The `Engine` of a poker table under `settings`, its game's family read from the policy
    (`joker` False: Lowball in Dealer's Choice, dealt without the bug, 003 "Lowball" rule 1)."""

    def __init__(
        self, settings: PokerSettings, game_id: str | None = None, *, joker: bool = True
    ) -> None:
        if not 0 < settings.small_blind <= settings.big_blind:
            raise ValueError("the blinds must be more than zero, the small one at most the big")
        if settings.variant not in GAMES:
            raise ValueError(f"variant {settings.variant!r} is not one of {ALL_VARIANTS}")
        self.settings = settings
        game = GAMES[settings.variant]
        self.game: Game = game if joker else replace(game, joker=False)
        self.family = game.family
        self.game_id = game_id or settings.variant
        own: dict[type[Any], Callable[[PokerState, Any, str], Result]] = {
            HandStart: self.hand_start,
            Decision: self.decision,
            Showdown: partial(settlement.showdown, self),
            HandDead: self.hand_dead,
        }
        for kind, step in (*SEAT_STEPS.items(), *self.family.steps.items()):
            own[kind] = partial(step, self)
        self._steps: Mapping[type[Any], Callable[[PokerState, Any, str], Result]] = own

    # ------------------------------------------------------------------ the Engine protocol

    def initial(self) -> PokerState:
        """An empty table: no one seated, no button yet."""
        return PokerState()

    def apply(self, state: PokerState, event: InputEvent, ts: str) -> Result:
        """Apply one input; Rejected (naming the rule) leaves the state as it was."""
        if isinstance(event, RoundVoid):
            return self.void(state, event.reason, ts)
        step = self._steps.get(type(event))
        if step is None:
            raise Rejected(f"a poker table takes no {event.type} input", rule="contract 2")
        new, records = step(state, event, ts)
        return new, [*records, self.state_view(new)]

    def in_deal(self, state: PokerState) -> bool:
        """A hand is in play: its cards are being dealt and read."""
        return state.hand is not None

    def between_rounds(self, state: PokerState) -> bool:
        """No hand in play: new rules may take over."""
        return state.hand is None

    def state_view(self, state: PokerState) -> StateChanged:
        """The retained `state` (tablectl/games/poker/view.py)."""
        return view.state_view(self, state)

    def settle_if_over(self, state: PokerState, records: list[GameRecord]) -> Result:
        """End the hand if it is over (tablectl/games/poker/settlement.py), else wait."""
        return settlement.settle_if_over(self, state, records)

    # ------------------------------------------------------------------ starting a hand

    def _next_button(self, state: PokerState, ev: HandStart) -> int:
        """Where the button is for this hand: named on the first hand, else the next seat
        clockwise with chips (004 "Texas Hold'em: Action and Distribution of Cards")."""
        playing = [s.seat for s in state.seats if s.stack > 0 and not s.away]
        if state.button is None:
            if ev.button is None:
                raise Rejected(
                    "the first hand names the button: the seat that drew the highest card",
                    rule=FIRST_BUTTON,
                )
            if ev.button not in playing:
                raise Rejected(
                    f"seat {ev.button} has no player with chips to take the button",
                    rule=FIRST_BUTTON,
                )
            return ev.button
        if ev.button is not None:
            raise Rejected(
                "the button moves by itself after the first hand: leave `button` out",
                rule=ACTION_ORDER,
            )
        after = [s for s in playing if s > state.button]
        return (after or playing)[0]

    def verify_hand_start(self, state: PokerState, ev: HandStart) -> None:
        """No hand in play, at least two players with chips, the button placed by the rules."""
        if state.hand is not None:
            raise Rejected(f"hand {state.hand.number} is still in play", rule=ROUND_OF_PLAY)
        if ev.straddles and self.game.straddles is None:
            raise Rejected(f"{self.game_id} is played without straddles", rule=ROUND_OF_PLAY)
        if ev.game is not None and ev.game != self.game_id:
            raise Rejected(
                f"this table plays {self.game_id}: a hand names its game only at Dealer's Choice",
                rule=ROUND_OF_PLAY,
            )
        playing = [s for s in state.seats if s.stack > 0 and not s.away]
        if len(playing) < 2:
            raise Rejected(
                f"a hand needs at least two players with chips, not {len(playing)}",
                rule=ROUND_OF_PLAY,
            )
        self._next_button(state, ev)
        kill_pot = state.kill_next and state.kill_holder in {s.seat for s in playing}
        if ev.straddles and kill_pot:  # our reading: docs/games/draw.md, "Kill pots"
            raise Rejected(
                "a kill pot takes no straddles: the kill blind must be paid, and it is the "
                "hand's last blind",
                rule=KILL_RULE,
            )

    def can_hand_start(self, state: PokerState, ev: HandStart) -> bool:
        """Whether `verify_hand_start` accepts."""
        return can(self.verify_hand_start, state, ev)

    def hand_start(
        self, state: PokerState, ev: HandStart, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Move the button, deal in every seat with chips, post the blinds, open the betting."""
        self.verify_hand_start(state, ev)
        button = self._next_button(state, ev)
        playing = [s for s in state.seats if s.stack > 0 and not s.away]
        i = next(k for k, s in enumerate(playing) if s.seat == button)
        clockwise = playing[i + 1 :] + playing[: i + 1]  # the button's left first, the button last
        small, big = self.settings.small_blind, self.settings.big_blind
        owed = [  # past the blinds, what a seat back from sitting out (or new) posts
            OwedPost(s.seat, big, small if s.owes == "both" else ZERO)
            for s in clockwise[2:]
            if s.owes != "none"
        ]
        order = tuple(s.seat for s in clockwise)
        structure, kill = self.settings.structure, None
        if state.kill_next and state.kill_holder in order:  # a kill pot (003 Kill Rules 2, 3)
            assert self.settings.kill_structure is not None
            structure = self.settings.kill_structure
            kill = OwedPost(state.kill_holder, big * self.settings.kill_factor)
        try:
            betting = open_round(
                structure,
                [(s.seat, s.stack) for s in clockwise],
                [small, big],
                straddles=tuple(ev.straddles or ()),
                owed=owed,
                kill=kill,
            )
        except BettingError as e:
            raise _rejected(e) from None
        number = state.hands + 1
        hand = HandState(
            number,
            button,
            state.button,
            order,
            betting,
            kill=None if kill is None else kill.seat,
        )
        new = replace(state, button=button, hand=hand, hands=number)
        posted: list[JsonValue] = [
            {"seat": a.seat, "post": a.verb, "amount": fmt(a.added)} for a in betting.actions
        ]
        echo = event_msg(ev, ts, round=number, button=button, dealt_in=list(order), posted=posted)
        return new, [echo]

    # ------------------------------------------------------------------ a dead hand

    def verify_hand_dead(self, state: PokerState, ev: HandDead) -> None:
        """A seat still in the hand in play."""
        hand = hand_in_play(state)
        try:
            hand.betting.dead_hand(ev.seat)
        except BettingError as e:
            raise _rejected(e) from None

    def can_hand_dead(self, state: PokerState, ev: HandDead) -> bool:
        """Whether `verify_hand_dead` accepts."""
        return can(self.verify_hand_dead, state, ev)

    def hand_dead(
        self, state: PokerState, ev: HandDead, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """The floor's call: the seat is out of the hand, its chips stay in the pot; with one
        player left the hand is over."""
        self.verify_hand_dead(state, ev)
        hand = hand_in_play(state)
        hand = self.family.went_on(
            self.game, replace(hand, betting=hand.betting.dead_hand(ev.seat))
        )
        return self.settle_if_over(
            replace(state, hand=hand), [event_msg(ev, ts, round=hand.number)]
        )

    # ------------------------------------------------------------------ betting

    def verify_decision(self, state: PokerState, ev: Decision) -> None:
        """An action of the betting round by the seat whose turn it is, as the structure allows."""
        self._decided(state, ev)

    def can_decision(self, state: PokerState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def _decided(self, state: PokerState, ev: Decision) -> BettingRound:
        """The betting round after `ev`, or the refusal naming its rule (the family's own
        first: a stud street not dealt, a draw due, Lowball's pass and out)."""
        hand = hand_in_play(state)
        self.family.before_action(self.game, hand, ev)
        if ev.action not in ACTIONS:
            raise Rejected(
                f"{ev.action!r} is not a poker action: {', '.join(ACTIONS)}", rule=ROUND_OF_PLAY
            )
        if ev.hand is not None or ev.multiple is not None or ev.low is not None:
            raise Rejected(
                "a poker action takes only `seat`, `action` and `amount`", rule="contract 2"
            )
        wants_amount = ev.action in ("bet", "raise")
        if wants_amount != (ev.amount is not None):
            need = "needs an `amount`" if wants_amount else "takes no `amount`"
            raise Rejected(f"{ev.action} {need}", rule=ROUND_OF_PLAY)
        if discards_due(self.game, hand):
            raise Rejected(
                "every player still in discards before the second betting round", rule=DISCARD_RULE
            )
        b = hand.betting
        try:
            b.verify_turn(ev.seat)
            if ev.action == "check":
                return b.check()
            if ev.action == "call":
                return b.call()
            if ev.action == "fold":
                return b.fold()
            if ev.action == "all-in":
                return b.all_in()
            assert ev.amount is not None
            return b.bet(ev.amount) if ev.action == "bet" else b.raise_to(ev.amount)
        except BettingError as e:
            raise _rejected(e) from None

    def decision(
        self, state: PokerState, ev: Decision, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Play the action; a fold to one player or the river's last call may end the hand."""
        betting = self._decided(state, ev)
        hand = hand_in_play(state)
        new = replace(state, hand=replace(hand, betting=betting))
        last = betting.actions[-1]
        echo = event_msg(ev, ts, round=hand.number, added=fmt(last.added), to=fmt(last.to))
        return self.settle_if_over(new, [echo])

    # ------------------------------------------------------------------ a misdeal

    def verify_void(self, state: PokerState) -> None:
        """A misdeal needs a hand in play (docs/events.md, `round.void`)."""
        if state.hand is None:
            raise Rejected("no hand is in play to void", rule=VOID_RULE)

    def can_void(self, state: PokerState) -> bool:
        """Whether `verify_void` accepts."""
        return can(lambda s, _e: self.verify_void(s), state, None)

    def void(self, state: PokerState, reason: str, ts: str) -> tuple[PokerState, list[GameRecord]]:
        """A misdeal (the floor's call, e.g. 003 "Lowball" (Lowball Rules, rule 13)): every chip
        put in comes back, no fee, and the button goes back so the hand is dealt again."""
        self.verify_void(state)
        hand = state.hand
        assert hand is not None
        returned = tuple((p.seat, p.in_hand) for p in hand.betting.players if p.in_hand > 0)
        result = PokerHandSettled(
            hand=hand.number,
            game=self.game_id,
            button=hand.button,
            board=tuple(map(str, hand.board)),
            pots=(),
            fee=ZERO,
            fee_players=len(hand.order),
            fee_modified=False,
            returned=returned,
            shown=(),
            stacks=tuple((s.seat, s.stack) for s in state.seats),
            showdown=False,
            void=True,
            reason=reason,
        )
        new = replace(state, hand=None, button=hand.previous_button)
        return new, [result, self.state_view(new)]


class PokerTableEngine(PokerEngine):
    """The engine a table builds from its journaled rules: the `[game]` options of a flop, stud
    or draw game (tablectl/games/poker/spec.py) and the collection schedule resolved from them
    (R44)."""

    def __init__(self, rules: Rules) -> None:
        game = settings_of(rules.game)
        super().__init__(table_settings(rules, VARIANT_OF[game.id]), game_id=game.id)


def table_settings(rules: Rules, variant: Variant, game: PokerGame | None = None) -> PokerSettings:
    """A poker table's engine settings from its journaled rules: the `[game]` options (a
    PokerGame: flop, stud or draw; or `game`, one game of a Dealer's Choice table) and the
    collection schedule resolved from them (R44)."""
    game = game or settings_of(rules.game)
    small, big = game.blinds
    return PokerSettings(
        variant=variant,
        structure=game.betting(),
        small_blind=small,
        big_blind=big,
        chip=game.chip,
        document=game.document,
        schedule=rules.poker_schedule(),
        seats=rules.seats.count,
        buy_in_min=game.least_buy_in(rules.poker_schedule()),
        kill=game.kill,
        kill_factor=KILL_FACTORS.get(game.kill, Decimal(1)),
        kill_structure=None if game.kill == "none" else game.betting(KILL_FACTORS[game.kill]),
    )


VARIANT_OF: Final[Mapping[str, Variant]] = MappingProxyType({v: v for v in ALL_VARIANTS})
"""A poker game id -> its variant (each id names its own)."""
