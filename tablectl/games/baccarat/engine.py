"""EZ Baccarat Panda 8 (document 003, rulings R1-R5, R25-R28) as a pure engine.

A round: the player-dealer posts a bank, players wager, betting closes (explicitly, by the bet
timer, or by the first card), cards come from the reading shoe in the order R25 gives, and when the
coup is complete every wager is settled against the bank (R1) in the document's order (R2, R3).
Every transition has a `verify_*` that raises Rejected and leaves the state alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from tablectl.game_records import DisplayChanged, GameRecord, JsonObject, JsonValue, RoundHeaders
from tablectl.games.baccarat.eztrak import Coup, Scoreboards, board_payload
from tablectl.games.baccarat.spec import BaccaratGame
from tablectl.games.base import Rejected
from tablectl.games.common import (
    PlacedWager,
    PlayerDealerEngine,
    Transition,
    W,
    can,
    event_msg,
    has_wager,
    player_dealer_view,
    player_of,
    replace,
    verify_bank_offer,
    verify_limits,
    verify_not_player_dealer,
    verify_seat,
)
from tablectl.games.decks import seen_plus
from tablectl.games.seating import action_order, first_wagered, seats_from_left
from tablectl.games.table_rules import Rules
from tablectl.rules import baccarat as rules
from tablectl.rules.baccarat import CoupOutcome, Side
from tablectl.rules.fees import total_table_action
from tablectl.rules.rotation import Rotation
from tablectl.rules.settlement import WagerVerdict
from tablectl_base.cards import Card, DeckKind, ShoeComposition, parse_card
from tablectl_base.events import (
    Bank,
    BetsClose,
    InputEvent,
    ShoeBurn,
    ShoeCard,
    ShoeNew,
    Wager,
)
from tablectl_base.frozen import quick_init  # frozen at a plain class's cost: a replay builds many
from tablectl_base.money import fmt

GAME_ID = "ez-baccarat-panda8"
# R3 / document 003: "all player line wagers, all banker line wagers, all Tie Bet wagers, all
# Panda 8 wagers, and then all Dragon 7 Bonus Bet wagers".
SETTLEMENT_SPOTS = ("player", "banker", "tie", "panda8", "dragon7")
LINE_SPOTS = ("player", "banker")
NEEDS_LINE = ("dragon7", "panda8")  # 003: only with a player-line or banker-line wager
BURN_HIDDEN = frozenset(ShoeBurn.model_fields) - {"type"}  # a burn is echoed by type alone

Phase = Literal["betting", "dealing"]
Hand = Literal["player", "banker", "burn"]


@quick_init
@dataclass(frozen=True)
class BaccaratState:
    """Everything the table knows; immutable, replaced on every accepted input."""

    round: int = 1
    phase: Phase = "betting"
    rotation: Rotation = field(default_factory=Rotation)
    bank_seat: int | None = None
    bank: Decimal | None = None
    wagers: tuple[PlacedWager, ...] = ()
    dealt: tuple[tuple[Hand, Card], ...] = ()  # this round's cards (and burns) in draw order
    shoe_number: int = 0  # 0 until the first shoe.new announces shoe 1
    shoe_seen: Mapping[Card, int] = field(default_factory=dict)  # copy-on-write, never mutated
    coups: tuple[Coup, ...] = ()  # this shoe's finished coups, for EZTRAK (R28)
    previous_coups: tuple[Coup, ...] | None = None

    def hand(self, which: Hand) -> tuple[Card, ...]:
        return tuple([c for h, c in self.dealt if h == which])

    def hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """The player's and the banker's cards, in the order drawn."""
        player: list[Card] = []
        banker: list[Card] = []
        for h, c in self.dealt:
            if h == "player":
                player.append(c)
            elif h == "banker":
                banker.append(c)
        return tuple(player), tuple(banker)


class BaccaratEngine(PlayerDealerEngine[BaccaratState]):
    """The rules of EZ Baccarat Panda 8 for one configured table."""

    game_id = GAME_ID
    shows_every_card = True  # every card is dealt face up: alerts may name cards (table.py)

    def __init__(self, rules: Rules) -> None:
        game = rules.game
        assert isinstance(game, BaccaratGame)
        self.rules = rules
        self.seats = rules.seats.count
        self.shoe = ShoeComposition(DeckKind.STANDARD_52, game.decks)
        self.settlement_order = game.settlement_order
        self.banker_push_on_dragon7 = game.banker_push_on_dragon7
        self.bet_timer = game.bet_timer_seconds or None
        self.limits, self.schedule = rules.banked()
        self.boards = Scoreboards()  # EZTRAK figures kept as the shoe grows (a cache, R28)
        # The last coup's outcome, by the (immutable) cards it was worked out from (a cache).
        self._last_outcome: tuple[tuple[tuple[Hand, Card], ...], CoupOutcome] | None = None
        # Which hand draws next, by the (immutable) cards it was worked out from (a cache).
        self._last_next: tuple[tuple[tuple[Hand, Card], ...], Side | None] | None = None
        self._from_left: dict[int, tuple[int, ...]] = {}  # `seats_from_left`, by seat (a cache)
        # `state`'s wagers and player-dealer as shown, by what they were worked out from (caches).
        self._last_wagers: tuple[tuple[PlacedWager, ...], list[JsonValue], str] | None = None
        self._last_player_dealer: tuple[int | None, Decimal | None, Rotation, JsonValue] | None = (
            None
        )

    # -- the engine protocol -------------------------------------------------------------

    def initial(self) -> BaccaratState:
        return BaccaratState()

    def transitions(self) -> Mapping[type[Any], Transition[BaccaratState]]:
        """The inputs this game takes besides `bank` and `wager`."""
        return {
            BetsClose: self.bets_close,
            ShoeCard: self.card,
            ShoeBurn: self.burn,
            ShoeNew: self.shoe_new,
        }

    def no_such_input(self, event: InputEvent) -> Rejected:
        """Any other input is refused."""
        return Rejected(f"EZ Baccarat Panda 8 has no {event.type!r} input", rule="003")

    def in_deal(self, state: BaccaratState) -> bool:
        return state.phase == "dealing"

    def state_payload(self, state: BaccaratState) -> dict[str, JsonValue]:
        player, banker = state.hands()
        wagers, total_action = self._wagers_view(state.wagers)
        return {
            "game": GAME_ID,
            "round": state.round,
            "phase": state.phase,
            "shoe": state.shoe_number,
            "player_dealer": self._player_dealer_view(state),
            "bank_offer_seat": state.rotation.offer_seat(self.seats),
            "wagers": wagers,
            "total_action": total_action,
            "cards": {"player": [str(c) for c in player], "banker": [str(c) for c in banker]},
            "next_card": self._next_to_draw(state) if state.phase == "dealing" else None,
        }

    def _wagers_view(self, wagers: tuple[PlacedWager, ...]) -> tuple[list[JsonValue], str]:
        """`state`'s wagers and total action, worked out once for each (immutable) wagers
        tuple: a round's every card and close shows the same wagers again. The list is shared
        by the views that show it, which only read it (a view is a read-only JsonObject)."""
        last = self._last_wagers
        if last is None or last[0] is not wagers:
            shown: list[JsonValue] = [w.payload() for w in wagers]
            total = fmt(total_table_action(w.amount for w in wagers))
            last = self._last_wagers = (wagers, shown, total)
        return last[1], last[2]

    def _player_dealer_view(self, state: BaccaratState) -> JsonValue:
        """`player_dealer_view` of `state`, worked out again only when its bank seat, bank or
        rotation (immutable values) change; shared, read-only, like `_wagers_view`'s."""
        last = self._last_player_dealer
        if (
            last is None
            or last[0] != state.bank_seat
            or last[1] is not state.bank
            or last[2] is not state.rotation
        ):
            view = player_dealer_view(state.bank_seat, state.bank, state.rotation)
            last = self._last_player_dealer = (state.bank_seat, state.bank, state.rotation, view)
        return last[3]

    # -- bank (R1, R5) -----------------------------------------------------------------------

    def verify_bank(self, state: BaccaratState, ev: Bank) -> None:
        if state.phase != "betting":
            raise Rejected("the bank is posted before the deal, not during it", rule="R1")
        verify_bank_offer(state.rotation, ev, self.seats, state.wagers)

    # -- wagers (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play", limits) -------

    def verify_wager(self, state: BaccaratState, ev: Wager) -> None:
        self._verify_seat(ev.seat)
        if state.phase != "betting":
            raise Rejected("no more bets: betting is closed for this round", rule="003")
        verify_not_player_dealer(ev, state.bank_seat)
        if ev.spot not in SETTLEMENT_SPOTS:
            raise Rejected(
                f"no wager {ev.spot!r} in EZ Baccarat Panda 8; spots: "
                + ", ".join(SETTLEMENT_SPOTS),
                rule="003",
            )
        if ev.spot in NEEDS_LINE and not has_wager(
            state.wagers, ev.seat, player_of(ev), LINE_SPOTS
        ):
            name = "Dragon 7" if ev.spot == "dragon7" else "Panda 8"
            raise Rejected(
                f"a {name} wager needs a player-line or banker-line wager first", rule="003"
            )
        verify_limits(self.limits, state.wagers, ev)

    # -- closing bets ----------------------------------------------------------------------

    def verify_bets_close(self, state: BaccaratState) -> None:
        if state.phase != "betting":
            raise Rejected("betting is already closed for this round", rule="003")
        if state.bank_seat is None:
            raise Rejected("no player-dealer bank has been posted for this round", rule="R1")

    def bets_close(
        self, state: BaccaratState, ev: BetsClose, ts: str
    ) -> tuple[BaccaratState, list[GameRecord]]:
        self.verify_bets_close(state)
        new = replace(state, phase="dealing")
        return new, [event_msg(ev, ts, round=state.round), self._state(new)]

    # -- cards (R25) -----------------------------------------------------------------------

    def verify_card(self, state: BaccaratState, card: Card) -> Hand:
        """Which hand `card` goes to, or why it cannot be dealt now."""
        if state.phase == "betting":
            self.verify_bets_close(state)  # the first card closes betting (contract 2)
        why = self.shoe.why_not(card, state.shoe_seen)
        if why:
            raise Rejected(why, rule="contract 1")
        to = self._next_to_draw(state)
        if to is None:  # unreachable: a complete coup settles at once
            raise Rejected("the coup is complete; no hand may draw", rule="R25")
        return to

    def can_card(self, state: BaccaratState, card: Card) -> bool:
        return can(self.verify_card, state, card)

    def card(
        self, state: BaccaratState, ev: ShoeCard, ts: str
    ) -> tuple[BaccaratState, list[GameRecord]]:
        card = parse_card(ev.card)
        to = self.verify_card(state, card)
        new = replace(
            state,
            phase="dealing",
            dealt=(*state.dealt, (to, card)),
            shoe_seen=seen_plus(state.shoe_seen, [card]),
        )
        out: list[GameRecord] = [event_msg(ev, ts, round=state.round, to=to)]
        if self._next_to_draw(new) is None:
            new, finished = self._finish(new)
            out += finished
        out.append(self._state(new))
        return new, out

    def verify_burn(self, state: BaccaratState, card: Card) -> None:
        if state.dealt:
            raise Rejected("a card cannot be burned in the middle of a coup", rule="R25")
        why = self.shoe.why_not(card, state.shoe_seen)
        if why:
            raise Rejected(why, rule="contract 1")

    def burn(
        self, state: BaccaratState, ev: ShoeBurn, ts: str
    ) -> tuple[BaccaratState, list[GameRecord]]:
        card = parse_card(ev.card)
        self.verify_burn(state, card)
        new = replace(state, shoe_seen=seen_plus(state.shoe_seen, [card]))
        # Burned cards go face down: the journal keeps the card, no topic ever shows it.
        return new, [event_msg(ev, ts, hide=BURN_HIDDEN, round=state.round)]

    def verify_shoe_new(self, state: BaccaratState) -> None:
        if state.phase != "betting":
            raise Rejected("a new shoe cannot be put in during a coup", rule="R28")

    def shoe_new(
        self, state: BaccaratState, ev: ShoeNew, ts: str
    ) -> tuple[BaccaratState, list[GameRecord]]:
        self.verify_shoe_new(state)
        new = replace(
            state,
            shoe_number=state.shoe_number + 1,
            shoe_seen={},
            coups=(),
            previous_coups=(
                state.coups if state.shoe_number or state.coups else state.previous_coups
            ),
        )
        return new, [event_msg(ev, ts, round=state.round), self._display(new), self._state(new)]

    # -- the end of a round (R1-R5, R26-R28) ------------------------------------------------

    def _finish(self, state: BaccaratState) -> tuple[BaccaratState, list[GameRecord]]:
        """The coup is complete: every wager's verdict (R26, R27) settled against the bank (R1),
        then the EZTRAK board with the coup on it (R28)."""
        assert state.bank_seat is not None
        player, banker = state.hands()
        o = self._outcome(state)
        verdicts = []
        for w in state.wagers:
            v = rules.wager_result(w.spot, o, banker_push_on_dragon7=self.banker_push_on_dragon7)
            owed = w.amount * rules.PAYOUTS[w.spot] if v == "win" else Decimal(0)
            verdicts.append(WagerVerdict(w.seat, w.player, w.spot, w.amount, v, owed))
        new, result = self.settled(
            state,
            verdicts,
            BaccaratOutcome(player, banker, o),
            fee_wagers=state.wagers,
            action_seat=self.action_seat(state.bank_seat, state.wagers),
        )
        return new, [result, self._display(new)]

    def at_stake(self, state: BaccaratState) -> tuple[PlacedWager, ...]:
        """A misdeal returns every wager placed."""
        return state.wagers

    def exposed(self, state: BaccaratState, settled: bool) -> list[JsonObject]:
        """Every card drawn, settled or void: all are dealt face up (003)."""
        return _dealt(state)

    def headers(self, state: BaccaratState) -> RoundHeaders:
        """The shoe the coup was dealt from."""
        return RoundHeaders(shoe=state.shoe_number)

    def next_round(self, state: BaccaratState, settled: bool) -> BaccaratState:
        """The next coup, from the same shoe: cards already drawn stay out of it, a misdeal's
        too. A settled coup goes on the scoreboard; a misdeal does not (R28), nor does it count
        toward the player-dealer's two (R5)."""
        coups = state.coups
        if settled:
            coups = (*coups, Coup(**vars(self._outcome(state))))  # its fields are plain values
        return BaccaratState(
            round=state.round + 1,
            rotation=self.rotation_after(state, settled),
            shoe_number=state.shoe_number,
            shoe_seen=state.shoe_seen,
            coups=coups,
            previous_coups=state.previous_coups,
        )

    def seats_from_left(self, bank_seat: int) -> list[int]:
        """Seats clockwise from the player-dealer's left, the player-dealer's own seat last."""
        order = self._from_left.get(bank_seat)
        if order is None:  # worked out once a seat: every settlement asks it twice
            order = self._from_left[bank_seat] = tuple(seats_from_left(bank_seat, self.seats))
        return list(order)

    def action_seat(self, bank_seat: int, wagers: Iterable[PlacedWager]) -> int | None:
        """R2: the first seat clockwise from the player-dealer's left that has a wager."""
        return first_wagered(self.seats_from_left(bank_seat), wagers)

    def in_settlement_order(self, state: BaccaratState, wagers: Sequence[W]) -> list[W]:
        """Wagers (or the verdicts on them) in settlement order: from the player-dealer's left,
        clockwise (R2), by spot or by seat as configured (R3); a seat's wagers keep the order they
        were placed in."""
        assert state.bank_seat is not None
        return action_order(
            wagers, self.seats_from_left(state.bank_seat), SETTLEMENT_SPOTS, self.settlement_order
        )

    # -- helpers -----------------------------------------------------------------------------

    def _outcome(self, state: BaccaratState) -> CoupOutcome:
        """The complete coup's outcome (R26, R27), worked out once per coup: settling and
        scoring one coup both ask for it."""
        last = self._last_outcome
        if last is None or last[0] is not state.dealt:
            last = self._last_outcome = (state.dealt, rules.outcome(*state.hands()))
        return last[1]

    def _next_to_draw(self, state: BaccaratState) -> Side | None:
        """Which hand draws next (R25), worked out once per card dealt: the check after a card
        and the next card's own check ask it of the same cards."""
        last = self._last_next
        if last is None or last[0] is not state.dealt:
            last = self._last_next = (state.dealt, rules.next_to_draw(*state.hands()))
        return last[1]

    def _verify_seat(self, seat: int) -> None:
        verify_seat(seat, self.seats)

    def _display(self, state: BaccaratState) -> DisplayChanged:
        """The EZTRAK board (R28) as of `state`, built when it is read."""

        def build() -> JsonObject:
            limits = {"min": fmt(self.limits.min), "max": fmt(self.limits.max)}
            previous = (
                None if state.previous_coups is None else self.boards.of(state.previous_coups)
            )
            current = self.boards.of(state.coups)
            return board_payload(current, previous, limits, self.bet_timer, state.shoe_number)

        return DisplayChanged("eztrak", build=build)


@quick_init
@dataclass(frozen=True)
class BaccaratOutcome:
    """The coup: both hands, their totals and naturals, the winner and the bonus hands (003)."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    coup: rules.CoupOutcome

    def payload(self) -> JsonObject:
        o = self.coup
        return {
            "winner": o.winner,
            "player": {
                "cards": [str(c) for c in self.player],
                "total": o.player_total,
                "natural": o.player_natural,
            },
            "banker": {
                "cards": [str(c) for c in self.banker],
                "total": o.banker_total,
                "natural": o.banker_natural,
            },
            "natural": o.player_natural or o.banker_natural,
            "dragon7": o.dragon7,
            "panda8": o.panda8,
        }


def _dealt(state: BaccaratState) -> list[JsonObject]:
    """Every card of the coup in draw order, with the hand it went to (all face up, 003)."""
    return [{"to": h, "card": str(c)} for h, c in state.dealt]
