"""The poker hand engine, pure: seats and stacks, the button and blinds, a hand's betting rounds
(tablectl/rules/betting.py), the board and hole cards, the showdown and pots (rules/pots.py,
rules/flop_hands.py), the collection (rules/poker_fees.py) and misdeals, for the flop games.

A hand, from the dealer's console:
- `hand.start`: the button moves clockwise to the next seated player with chips (the first hand
  names it: the high card by suit, 004 "Omaha High/Low Split: Dealing Procedures and Round of
  Play"), the two seats on its left post the small and big blinds (004 "Texas Hold'em: Action
  and Distribution of Cards"; heads up the small blind is left of the button and the big blind
  is the button, as rules/betting.py reads those words). A seat back from sitting out, or new to
  the game, posts what it owes past the blinds (missed blinds: docs/games/poker-room.md); a kill
  pot's holder posts the kill blind (003 "Betting Limits", Kill Rules).
- `hole.cards` per seat (journal only: never in any published record, R46), any time before the
  showdown needs them; `hole.discard` after the flop in Crazy Pineapple, before the second
  betting round (003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play"),
  with no card at a table without a reader (the showdown is then the dealer's to declare).
- `decision` with `action` check, call, fold, bet, raise (`amount`: the total raised to) or
  all-in, by the seat whose turn it is.
- `board.cards`: 3, then 1, then 1, each only once the betting round before it is over.
- The hand ends when all but one have folded (that player takes the pot, nothing shown), or at
  the showdown once the river's betting is over and every hand still in has its hole cards:
  hands speak for themselves (003 "Texas Hold-Em (High)" rule 5).
- `round.void` (a misdeal, declared by the floor) returns every chip put in; the button goes
  back to where it was, so the hand is dealt again from the same button.

The collection (R44) is taken at the hand's end from the main pot, the rest from the side pots in
order when the main pot is short (R52): the rate for the players
dealt in once the flop was dealt, the schedule's modified fee (or none) if the hand ended before
it. Stacks plus everything collected stay constant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from tablectl.game_records import (
    GameRecord,
    JsonObject,
    JsonValue,
    PokerHandSettled,
    PotWon,
    ShownHand,
    StateChanged,
)
from tablectl.games.base import Rejected
from tablectl.games.common import VOID_RULE, can, default_player, event_msg, verify_seat
from tablectl.games.poker.spec import KILL_FACTORS, PokerGame, settings_of
from tablectl.games.poker.state import (
    VARIANTS,
    HandState,
    Owed,
    PokerSettings,
    PokerState,
    SeatState,
    Variant,
)
from tablectl.rules.betting import (
    ACTION_ORDER,
    KILL_RULE,
    ROUND_OF_PLAY,
    TABLE_STAKES,
    BettingError,
    BettingRound,
)
from tablectl.rules.betting_posts import OwedPost, open_round
from tablectl.rules.flop_hands import (
    HighHand,
    LowHand,
    crazy_pineapple_high,
    crazy_pineapple_keep,
    crazy_pineapple_low,
    holdem_high,
    omaha_high,
    omaha_low,
)
from tablectl.rules.low import describe_low
from tablectl.rules.poker import rank_category
from tablectl.rules.poker_fees import MIN_PLAYERS, hand_fee, time_rate
from tablectl.rules.pots import (
    Contribution,
    PotError,
    Split,
    Strength,
    award,
    build_pots,
    paid_by_seat,
    take_fee,
)
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    BoardCards,
    Decision,
    HandDead,
    HandStart,
    HoleCards,
    HoleDiscard,
    InputEvent,
    RoundVoid,
    SeatAway,
    SeatBack,
    SeatLeave,
    SeatTake,
    Showdown,
    TableCard,
    TimeCollect,
)
from tablectl_base.money import ZERO, fmt

if TYPE_CHECKING:
    from tablectl.config import Rules


@dataclass(frozen=True)
class FlopGame:
    """What each flop game decides for itself: the hole cards dealt (and the rule saying so),
    whether one is discarded after the flop, how a pot splits, and how a hand is valued
    (tablectl/rules/flop_hands.py, the one home of those hands)."""

    hole_cards: int
    hole_rule: str
    split: Split
    high: Callable[[Sequence[Card], Sequence[Card]], HighHand]
    low: Callable[[Sequence[Card], Sequence[Card]], LowHand | None] | None = None
    discards: bool = False


_CRAZY_PINEAPPLE = '003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play"'
GAMES: Final[Mapping[str, FlopGame]] = MappingProxyType(
    {
        "texas-holdem": FlopGame(2, '003 "Texas Hold-Em (High)" rule 1', Split.HIGH, holdem_high),
        "omaha": FlopGame(4, '003 "Omaha (High)" rule 1', Split.HIGH, omaha_high),
        "omaha-hi-lo": FlopGame(
            4, '003 "Omaha (High-Low Split)" rule 1', Split.HIGH_LOW, omaha_high, omaha_low
        ),
        "crazy-pineapple-hi-lo": FlopGame(
            3,
            _CRAZY_PINEAPPLE,
            Split.HIGH_LOW,
            crazy_pineapple_high,
            crazy_pineapple_low,
            discards=True,
        ),
    }
)
DISCARD_RULE = _CRAZY_PINEAPPLE
ONE_DECK = '004 "Omaha High/Low Split: Description of the Deck and Number of Decks Used"'
FIRST_BUTTON = '004 "Omaha High/Low Split: Dealing Procedures and Round of Play"'
SHOWDOWN_RULE = '003 "Texas Hold-Em (High)" rule 5'
SEATING = "table stakes: a seat holds one player and the chips in front of them"
BUY_IN = 'the table\'s posted minimum buy-in (game.buy_in_min; 003 "Poker Games Collection Rates")'
TIME_COLLECTION = 'R44; 003 "Crazy Pineapple High-Low Split: Collection Fee Schedule" option 4'
MISSED_BLINDS = (
    "missed blinds (no document says: the card rooms' usual rule, docs/games/poker-room.md)"
)
DECLARED = "a table without a reader: the dealer declares the showdown (poker-room.md)"
BOARD_AFTER: Final = (3, 4, 5)  # the board after betting rounds 0, 1, 2: flop, turn, river
STREETS: Final = ("preflop", "flop", "turn", "river")
ACTIONS: Final = ("check", "call", "fold", "bet", "raise", "all-in")


def _rejected(e: BettingError) -> Rejected:
    """A betting round's refusal as the engine's, with its rule."""
    return Rejected(e.reason, rule=e.rule)


def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    """Event card texts (already canonical) as cards."""
    return tuple(parse_card(t) for t in texts)


class PokerEngine:
    """The `Engine` of a flop-game poker table under `settings`."""

    def __init__(self, settings: PokerSettings, game_id: str | None = None) -> None:
        if not 0 < settings.small_blind <= settings.big_blind:
            raise ValueError("the blinds must be more than zero, the small one at most the big")
        self.settings = settings
        self.game = self._game(settings.variant)
        self.game_id = game_id or settings.variant
        self._steps: Mapping[type[Any], Callable[[PokerState, Any, str], Any]] = {
            SeatTake: self.seat_take,
            SeatLeave: self.seat_leave,
            SeatAway: self.seat_away,
            SeatBack: self.seat_back,
            HandStart: self.hand_start,
            HoleCards: self.hole_cards,
            HoleDiscard: self.hole_discard,
            BoardCards: self.board_cards,
            Decision: self.decision,
            TableCard: self.table_card,
            Showdown: self.showdown,
            TimeCollect: self.time_collect,
            HandDead: self.hand_dead,
        }

    def _game(self, variant: str) -> FlopGame:
        """The game this engine plays (a stud engine has its own)."""
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
        return GAMES[variant]

    # ------------------------------------------------------------------ the Engine protocol

    def initial(self) -> PokerState:
        """An empty table: no one seated, no button yet."""
        return PokerState()

    def apply(
        self, state: PokerState, event: InputEvent, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
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

    # ------------------------------------------------------------------ seats

    def verify_seat_take(self, state: PokerState, ev: SeatTake) -> None:
        """A seat the table has, empty, taken with chips."""
        verify_seat(ev.seat, self.settings.seats)
        if any(s.seat == ev.seat for s in state.seats):
            raise Rejected(f"seat {ev.seat} is already taken", rule=SEATING)
        if ev.stack <= 0:
            raise Rejected(
                "a player sits down with chips: the stack must be more than zero", rule=TABLE_STAKES
            )
        least = self.settings.buy_in_min
        if least is not None and ev.stack < least:
            raise Rejected(
                f"a buy-in of {fmt(ev.stack)} is below the table's minimum {fmt(least)}",
                rule=BUY_IN,
            )

    def can_seat_take(self, state: PokerState, ev: SeatTake) -> bool:
        """Whether `verify_seat_take` accepts."""
        return can(self.verify_seat_take, state, ev)

    def seat_take(
        self, state: PokerState, ev: SeatTake, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Seat a player with a stack; they are dealt in from the next hand."""
        self.verify_seat_take(state, ev)
        player = ev.player or default_player(ev.seat)
        # New to a game in progress: a big blind to be dealt in, unless the blinds reach the seat.
        owes: Owed = "big" if state.button is not None else "none"
        taken = SeatState(ev.seat, player, ev.stack, owes=owes)
        seats = tuple(sorted((*state.seats, taken), key=lambda s: s.seat))
        return replace(state, seats=seats), [event_msg(ev, ts, player=player, owes=owes)]

    def verify_seat_leave(self, state: PokerState, ev: SeatLeave) -> None:
        """A seated player who is not in the hand in play."""
        if not any(s.seat == ev.seat for s in state.seats):
            raise Rejected(f"seat {ev.seat} is empty", rule=SEATING)
        if state.hand is not None and ev.seat in state.hand.order:
            raise Rejected(
                f"seat {ev.seat} is in the hand in play: leave once it is over", rule=SEATING
            )

    def can_seat_leave(self, state: PokerState, ev: SeatLeave) -> bool:
        """Whether `verify_seat_leave` accepts."""
        return can(self.verify_seat_leave, state, ev)

    def seat_leave(
        self, state: PokerState, ev: SeatLeave, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """The player leaves with the stack; a kill button the player held goes back to the pot
        (the next player in the seat has won nothing: 003 Kill Rules 1)."""
        self.verify_seat_leave(state, ev)
        left = next(s for s in state.seats if s.seat == ev.seat)
        seats = tuple(s for s in state.seats if s.seat != ev.seat)
        new = replace(state, seats=seats)
        if state.kill_holder == ev.seat:
            new = replace(new, kill_holder=None, kill_next=False)
        return new, [event_msg(ev, ts, stack=fmt(left.stack))]

    def _seated(self, state: PokerState, seat: int) -> SeatState:
        """The seat's player, or a refusal."""
        found = next((s for s in state.seats if s.seat == seat), None)
        if found is None:
            raise Rejected(f"seat {seat} is empty", rule=SEATING)
        return found

    def verify_seat_away(self, state: PokerState, ev: SeatAway) -> None:
        """A seated player who is not sitting out already."""
        if self._seated(state, ev.seat).away:
            raise Rejected(f"seat {ev.seat} is already sitting out", rule=MISSED_BLINDS)

    def can_seat_away(self, state: PokerState, ev: SeatAway) -> bool:
        """Whether `verify_seat_away` accepts."""
        return can(self.verify_seat_away, state, ev)

    def seat_away(
        self, state: PokerState, ev: SeatAway, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """The seat sits out from the next hand (a hand in play it finishes)."""
        self.verify_seat_away(state, ev)
        return self._with_seat(state, ev.seat, away=True), [event_msg(ev, ts)]

    def verify_seat_back(self, state: PokerState, ev: SeatBack) -> None:
        """A seated player who is sitting out."""
        if not self._seated(state, ev.seat).away:
            raise Rejected(f"seat {ev.seat} is not sitting out", rule=MISSED_BLINDS)

    def can_seat_back(self, state: PokerState, ev: SeatBack) -> bool:
        """Whether `verify_seat_back` accepts."""
        return can(self.verify_seat_back, state, ev)

    def seat_back(
        self, state: PokerState, ev: SeatBack, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Dealt in again from the next hand, posting what the seat owes."""
        self.verify_seat_back(state, ev)
        new = self._with_seat(state, ev.seat, away=False)
        owes = self._seated(new, ev.seat).owes
        return new, [event_msg(ev, ts, owes=owes)]

    def _with_seat(self, state: PokerState, seat: int, **changes: Any) -> PokerState:
        """The state with one seat's fields changed."""
        seats = tuple(replace(s, **changes) if s.seat == seat else s for s in state.seats)
        return replace(state, seats=seats)

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

    straddles: str | None = None
    """The rule that permits straddles at this game (None: none are)."""

    def verify_hand_start(self, state: PokerState, ev: HandStart) -> None:
        """No hand in play, at least two players with chips, the button placed by the rules."""
        if state.hand is not None:
            raise Rejected(f"hand {state.hand.number} is still in play", rule=ROUND_OF_PLAY)
        if ev.straddles and self.straddles is None:
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

    def _blinds_passed(self, state: PokerState, hand: HandState) -> PokerState:
        """After a hand played out: the seats dealt in owe nothing more; a seat sitting out
        that the big blind passed (clockwise after the last hand's big blind, up to this one's)
        owes the big blind live and the small dead (the card rooms' usual rule)."""
        before, now = state.big_blind, hand.big_blind
        passed: set[int] = set()
        if before is not None and before != now:
            ring = range(1, self.settings.seats + 1)  # every seat of the table, clockwise
            for seat in [*ring[before:], *ring[:before]]:  # from the seat after `before`
                if seat == now:
                    break
                passed.add(seat)
        seats = tuple(
            replace(s, owes="none")
            if s.seat in hand.order
            else replace(s, owes="both")
            if s.away and s.seat in passed
            else s
            for s in state.seats
        )
        return replace(state, seats=seats, big_blind=now)

    # ------------------------------------------------------------------ cards

    def _hand(self, state: PokerState) -> HandState:
        """The hand in play, or a refusal."""
        if state.hand is None:
            raise Rejected("no hand is in play: start one with hand.start", rule=ROUND_OF_PLAY)
        return state.hand

    def _live(self, hand: HandState) -> list[int]:
        """The seats still in, in the order dealt (from the dealer's left)."""
        folded = set(hand.betting.folded_seats)
        return [s for s in hand.order if s not in folded]

    def _whole(self, hand: HandState, seat: int) -> bool:
        """Whether every hole card of `seat` is in (the console gives them at once, a reader one
        by one) and its hand is known: not after a discard nobody saw (`hole.discard` with no
        card, a table without a reader), which leaves the showdown to the dealer."""
        known = len(hand.holes.get(seat, ())) == self.game.hole_cards
        return known and hand.kept.get(seat) != ()

    def _seen(self, hand: HandState) -> set[Card]:
        """Every card entered this hand: hole cards and the board."""
        return {c for cards in hand.holes.values() for c in cards} | set(hand.board)

    def verify_hole_cards(self, state: PokerState, ev: HoleCards) -> None:
        """The game's number of hole cards, once, to a seat dealt in, from one deck."""
        hand = self._hand(state)
        rule = self.game.hole_rule
        if ev.seat not in hand.order:
            raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
        if ev.seat in hand.holes:
            raise Rejected(f"seat {ev.seat}'s hole cards are already in", rule=rule)
        # (a reader's cards of the seat count as in: the console does not complete them)
        want = self.game.hole_cards
        cards = _cards(ev.cards)
        if len(cards) != want:
            raise Rejected(
                f"seat {ev.seat} is dealt {want} hole cards, not {len(cards)}", rule=rule
            )
        if any(c.is_joker for c in cards):
            raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
        if len(set(cards)) != len(cards) or set(cards) & self._seen(hand):
            raise Rejected(
                "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
            )

    def can_hole_cards(self, state: PokerState, ev: HoleCards) -> bool:
        """Whether `verify_hole_cards` accepts."""
        return can(self.verify_hole_cards, state, ev)

    def hole_cards(
        self, state: PokerState, ev: HoleCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Record a seat's hole cards (never published, R46); a waiting showdown may now run."""
        self.verify_hole_cards(state, ev)
        hand = self._hand(state)
        holes = MappingProxyType({**hand.holes, ev.seat: _cards(ev.cards)})
        new = replace(state, hand=replace(hand, holes=holes))
        return self._settle_if_over(new, [event_msg(ev, ts, hide=("cards",))])

    def _discards_due(self, hand: HandState) -> tuple[int, ...]:
        """Crazy Pineapple: the seats still in that have yet to discard, once the flop is out."""
        if not self.game.discards or len(hand.board) < 3:
            return ()
        live = [p.seat for p in hand.betting.players if not p.folded]
        return tuple(s for s in live if s not in hand.kept)

    def verify_hole_discard(self, state: PokerState, ev: HoleDiscard) -> None:
        """Crazy Pineapple only, after the flop, once per seat still in, one of its own cards."""
        hand = self._hand(state)
        if not self.game.discards:
            raise Rejected(f"{self.game_id} has no discard", rule=DISCARD_RULE)
        if len(hand.board) < 3:
            raise Rejected("the discard comes after the flop", rule=DISCARD_RULE)
        if ev.seat not in self._discards_due(hand):
            raise Rejected(f"seat {ev.seat} has no discard to make", rule=DISCARD_RULE)
        known = len(hand.holes.get(ev.seat, ())) == self.game.hole_cards
        if ev.card is None:  # a table without a reader: the discard went face down, unseen
            if known:
                raise Rejected(
                    f"seat {ev.seat}'s hole cards are in: name the card it discards",
                    rule=DISCARD_RULE,
                )
            return
        if not known:
            raise Rejected(f"seat {ev.seat}'s hole cards are not in yet", rule=DISCARD_RULE)
        if parse_card(ev.card) not in hand.holes[ev.seat]:
            raise Rejected(
                f"the discard is not one of seat {ev.seat}'s hole cards", rule=DISCARD_RULE
            )

    def can_hole_discard(self, state: PokerState, ev: HoleDiscard) -> bool:
        """Whether `verify_hole_discard` accepts."""
        return can(self.verify_hole_discard, state, ev)

    def hole_discard(
        self, state: PokerState, ev: HoleDiscard, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Keep two of three; the last discard opens the second betting round."""
        self.verify_hole_discard(state, ev)
        hand = self._hand(state)
        kept: tuple[Card, ...] = ()  # unseen: the hand cannot speak at the showdown
        if ev.card is not None:
            kept = crazy_pineapple_keep(hand.holes[ev.seat], parse_card(ev.card))
        hand = replace(hand, kept=MappingProxyType({**hand.kept, ev.seat: kept}))
        if not self._discards_due(hand):
            hand = replace(hand, betting=hand.betting.next_round())
        new = replace(state, hand=hand)
        return self._settle_if_over(new, [event_msg(ev, ts, hide=("card",))])

    def verify_board_cards(
        self, state: PokerState, ev: BoardCards, *, one_by_one: bool = False
    ) -> None:
        """The flop (3), turn (1) or river (1), each once the betting round before is over; a
        reader turns them up `one_by_one`."""
        hand = self._hand(state)
        betting = hand.betting
        if not betting.complete:
            raise Rejected(
                f"the betting round is not over: seat {betting.turn} is to act", rule=ROUND_OF_PLAY
            )
        if betting.hand_over or len(hand.board) >= BOARD_AFTER[-1]:
            raise Rejected("no more board cards are dealt in this hand", rule=ROUND_OF_PLAY)
        if self._discards_due(hand):
            raise Rejected("every player still in discards before the turn", rule=DISCARD_RULE)
        want = BOARD_AFTER[betting.street] - len(hand.board)
        cards = _cards(ev.cards)
        if len(cards) != want and not (one_by_one and len(cards) == 1):
            raise Rejected(
                f"the {STREETS[betting.street + 1]} is {want} card"
                f"{'s' if want > 1 else ''}, not {len(cards)}",
                rule=ROUND_OF_PLAY,
            )
        if any(c.is_joker for c in cards):
            raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
        if len(set(cards)) != len(cards) or set(cards) & self._seen(hand):
            raise Rejected(
                "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
            )

    def can_board_cards(self, state: PokerState, ev: BoardCards) -> bool:
        """Whether `verify_board_cards` accepts."""
        return can(self.verify_board_cards, state, ev)

    def board_cards(
        self, state: PokerState, ev: BoardCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Turn up the board; the next betting round opens (after Crazy Pineapple's discard)."""
        self.verify_board_cards(state, ev)
        hand = self._with_board(self._hand(state), _cards(ev.cards))
        new = replace(state, hand=hand)
        return self._settle_if_over(new, [event_msg(ev, ts, round=hand.number)])

    def _with_board(self, hand: HandState, cards: Sequence[Card]) -> HandState:
        """The board with `cards` turned up; once the street is whole (and Crazy Pineapple's
        discards made) the next betting round opens."""
        hand = replace(hand, board=(*hand.board, *cards))
        if len(hand.board) == BOARD_AFTER[hand.betting.street] and not self._discards_due(hand):
            hand = replace(hand, betting=hand.betting.next_round())
        return hand

    # ------------------------------------------------------------------ the card-reading table

    def verify_table_card(self, state: PokerState, ev: TableCard) -> None:
        """A card the reader placed: to a seat dealt in with hole cards still to come, to the
        board when the betting round before its street is over, or to the muck (anything)."""
        hand = self._hand(state)
        card = parse_card(ev.card)
        if ev.zone == "muck":
            return  # burns, folded hands and discards: the muck takes any card
        if card.is_joker:
            raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
        if card in self._seen(hand):
            raise Rejected(
                "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
            )
        if ev.zone == "board":
            self.verify_board_cards(state, BoardCards(cards=[ev.card]), one_by_one=True)
            return
        assert ev.seat is not None  # the event's own check: a seat zone names its seat
        if ev.seat not in hand.order:
            raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
        if self._whole(hand, ev.seat):
            raise Rejected(
                f"seat {ev.seat} already has its {self.game.hole_cards} hole cards",
                rule=self.game.hole_rule,
            )

    def can_table_card(self, state: PokerState, ev: TableCard) -> bool:
        """Whether `verify_table_card` accepts."""
        return can(self.verify_table_card, state, ev)

    def table_card(
        self, state: PokerState, ev: TableCard, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A hole card joins its seat's (never published, R46); a board card turns up (and may
        complete its street); a card in the muck is Crazy Pineapple's discard when it is a
        hole card of a seat that owes one, and otherwise changes nothing (burns, folds)."""
        self.verify_table_card(state, ev)
        hand = self._hand(state)
        card = parse_card(ev.card)
        if ev.zone == "board":
            hand = self._with_board(hand, [card])
            echo = event_msg(ev, ts, round=hand.number)
            return self._settle_if_over(replace(state, hand=hand), [echo])
        hidden = event_msg(ev, ts, hide=("card",), round=hand.number)
        if ev.zone == "seat":
            assert ev.seat is not None
            cards = (*hand.holes.get(ev.seat, ()), card)
            hand = replace(hand, holes=MappingProxyType({**hand.holes, ev.seat: cards}))
            return self._settle_if_over(replace(state, hand=hand), [hidden])
        owner = next((s for s in self._discards_due(hand) if card in hand.holes.get(s, ())), None)
        if owner is None or not self._whole(hand, owner):
            return state, [hidden]
        return self.hole_discard(state, HoleDiscard(seat=owner, card=ev.card), ts)

    # ------------------------------------------------------------------ time collection

    def verify_time_collect(self, state: PokerState, ev: TimeCollect) -> None:
        """A half-hour schedule, between hands, two players seated at least, each able to pay."""
        schedule = self.settings.schedule
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

    def can_time_collect(self, state: PokerState, ev: TimeCollect) -> bool:
        """Whether `verify_time_collect` accepts."""
        return can(self.verify_time_collect, state, ev)

    def time_collect(
        self, state: PokerState, ev: TimeCollect, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Each seated player pays the rate for the number seated (R44), outside any pot."""
        self.verify_time_collect(state, ev)
        schedule = self.settings.schedule
        assert schedule is not None
        seated = [s for s in state.seats if s.stack > 0]
        rate = time_rate(schedule, len(seated))
        paying = {s.seat for s in seated}
        seats = tuple(
            replace(s, stack=s.stack - rate) if s.seat in paying else s for s in state.seats
        )
        total = rate * len(seated)
        new = replace(state, seats=seats, collected=state.collected + total)
        paid: list[JsonValue] = [{"seat": s.seat, "amount": fmt(rate)} for s in seated]
        echo = event_msg(ev, ts, seated=len(seated), rate=fmt(rate), paid=paid, total=fmt(total))
        return new, [echo]

    # ------------------------------------------------------------------ a declared showdown

    def verify_showdown(self, state: PokerState, ev: Showdown) -> None:
        """The river's betting is over, a hand still in has no cards to speak for it, and the
        order names every hand still in once (and, in a split game, only qualifying lows)."""
        hand = self._hand(state)
        b = hand.betting
        if not (b.complete and not b.hand_over and self._all_dealt(hand)):
            raise Rejected(
                f"the showdown comes after the {self._street_name(self._last_street)}'s betting",
                rule=ROUND_OF_PLAY,
            )
        live = {p.seat for p in b.players if not p.folded}
        if all(self._whole(hand, s) for s in live):
            raise Rejected(
                "every hand still in has its cards: the hands speak for themselves",
                rule=SHOWDOWN_RULE,
            )
        high = [s for tier in ev.high for s in tier]
        if sorted(high) != sorted(live) or any(not tier for tier in ev.high):
            raise Rejected(
                f"rank every hand still in once, best first: seats {sorted(live)}", rule=DECLARED
            )
        low = [s for tier in ev.low or () for s in tier]
        if low and self.game.low is None:
            raise Rejected(f"{self.game_id} has no low hand", rule=self.game.hole_rule)
        if ev.low is not None and self.game.split is Split.LOW:
            raise Rejected(
                f"{self.game_id} is played for low only: rank every hand in `high`, the lowest "
                "first",
                rule=DECLARED,
            )
        if len(set(low)) != len(low) or not set(low) <= live or any(not t for t in ev.low or ()):
            raise Rejected(
                "name each qualifying low once, best first, among the hands still in",
                rule=DECLARED,
            )

    def can_showdown(self, state: PokerState, ev: Showdown) -> bool:
        """Whether `verify_showdown` accepts."""
        return can(self.verify_showdown, state, ev)

    def showdown(
        self, state: PokerState, ev: Showdown, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Settle the pots by the dealer's declared order: the same pots, fee and odd-chip rule
        as when the hands speak (R41, R42, R44), with no hand shown (none was read)."""
        self.verify_showdown(state, ev)
        hand = self._hand(state)
        tiers = len(ev.high)
        if self.game.split is Split.LOW:  # a low-only game (Razz): `high` is its one order
            ranking = {seat: Strength((), (i,)) for i, tier in enumerate(ev.high) for seat in tier}
            echo = event_msg(ev, ts, round=hand.number)
            return self._settle(state, showdown=True, records=[echo], declared=ranking)
        ranking = {
            seat: Strength((tiers - i,), None) for i, tier in enumerate(ev.high) for seat in tier
        }
        for j, tier in enumerate(ev.low or ()):
            for seat in tier:
                ranking[seat] = replace(ranking[seat], low=(j,))
        echo = event_msg(ev, ts, round=hand.number)
        return self._settle(state, showdown=True, records=[echo], declared=ranking)

    # ------------------------------------------------------------------ a dead hand

    def verify_hand_dead(self, state: PokerState, ev: HandDead) -> None:
        """A seat still in the hand in play."""
        hand = self._hand(state)
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
        hand = self._hand(state)
        hand = self._went_on(replace(hand, betting=hand.betting.dead_hand(ev.seat)))
        return self._settle_if_over(
            replace(state, hand=hand), [event_msg(ev, ts, round=hand.number)]
        )

    def _went_on(self, hand: HandState) -> HandState:
        """The hand after a seat left it out of turn: what waited on that seat goes on (a
        draw game's second round, Option Alley's buy round); a flop game waits on no seat."""
        return hand

    # ------------------------------------------------------------------ betting

    def verify_decision(self, state: PokerState, ev: Decision) -> None:
        """An action of the betting round by the seat whose turn it is, as the structure allows."""
        self._decided(state, ev)

    def can_decision(self, state: PokerState, ev: Decision) -> bool:
        """Whether `verify_decision` accepts."""
        return can(self.verify_decision, state, ev)

    def _decided(self, state: PokerState, ev: Decision) -> BettingRound:
        """The betting round after `ev`, or the refusal naming its rule."""
        hand = self._hand(state)
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
        if self._discards_due(hand):
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
        hand = self._hand(state)
        new = replace(state, hand=replace(hand, betting=betting))
        last = betting.actions[-1]
        echo = event_msg(ev, ts, round=hand.number, added=fmt(last.added), to=fmt(last.to))
        return self._settle_if_over(new, [echo])

    # ------------------------------------------------------------------ the hand's end

    def _settle_if_over(
        self, state: PokerState, records: list[GameRecord]
    ) -> tuple[PokerState, list[GameRecord]]:
        """End the hand if it is over: all but one folded, or the river's betting done with
        every hand still in known (else it waits for `hole.cards`)."""
        hand = state.hand
        assert hand is not None
        b = hand.betting
        if b.hand_over:
            return self._settle(state, showdown=False, records=records)
        if b.complete and self._all_dealt(hand) and not self._discards_due(hand):
            live = [p.seat for p in b.players if not p.folded]
            if all(self._whole(hand, s) for s in live):
                return self._settle(state, showdown=True, records=records)
        return state, records

    def _all_dealt(self, hand: HandState) -> bool:
        """Whether every card of the hand is dealt: the river is out."""
        return len(hand.board) == BOARD_AFTER[-1]

    _last_street: int = len(STREETS) - 1
    """The last betting round's index."""

    def _street_name(self, street: int) -> str:
        """A betting round's name, as `state` shows it."""
        return STREETS[street]

    def _strength(self, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
        """A seat's showdown keys and the hand as shown, by its game's rule (rules/flop_hands)."""
        hole = hand.kept.get(seat, hand.holes[seat])
        board = hand.board
        high = self.game.high(hole, board)
        low = None if self.game.low is None else self.game.low(hole, board)
        shown = ShownHand(
            seat,
            tuple(map(str, hole)),
            tuple(map(str, high[1])),
            rank_category(high[0]),
            None if low is None else tuple(map(str, low[1])),
            None if low is None else describe_low(low[0]),
        )
        return Strength(high[0], None if low is None else low[0]), shown

    def _fee(self, hand: HandState) -> tuple[Decimal, bool]:
        """The hand's collection (R44) and whether it is the modified fee: a per-hand schedule's
        hand that ended before the flop (its modified fee, or none where it prints none)."""
        schedule = self.settings.schedule
        if schedule is None:
            return ZERO, False
        reached_flop = self._past_first_round(hand)
        # the modified fee only where the schedule has one (004 prints none: nothing is taken)
        modified = schedule.per == "hand" and not reached_flop and schedule.modified_fee is not None
        return hand_fee(schedule, len(hand.order), reached_flop), modified

    def _past_first_round(self, hand: HandState) -> bool:
        """Whether the hand got past its first betting round (R44: the flop is dealt)."""
        return len(hand.board) >= BOARD_AFTER[0]

    def _settle(
        self,
        state: PokerState,
        *,
        showdown: bool,
        records: list[GameRecord],
        declared: Mapping[int, Strength] | None = None,
    ) -> tuple[PokerState, list[GameRecord]]:
        """Build the pots, take the fee (the main pot first, R52), award each pot, update the
        stacks."""
        hand = state.hand
        assert hand is not None
        players = hand.betting.players
        ranking: dict[int, Strength] = {}
        shown_by_seat: dict[int, ShownHand] = {}
        if declared is not None:
            ranking = dict(declared)
        elif showdown:
            for p in players:
                if not p.folded:
                    ranking[p.seat], shown_by_seat[p.seat] = self._strength(hand, p.seat)
        contributions, given_back = self._pot_chips(hand, ranking, declared is not None)
        built = build_pots(contributions)
        fee, modified = self._fee(hand)
        fee, pots = take_fee(built.pots, fee)
        awards = award(
            pots,
            ranking,
            split=self.game.split,
            odd_chip_rule=self.settings.document,
            chip=self.settings.chip,
            button_order=hand.order,
        )
        won = paid_by_seat(awards, built.uncalled)
        returned = () if built.uncalled is None else ((built.uncalled.seat, built.uncalled.amount),)
        for seat, amount in given_back:
            won[seat] = won.get(seat, ZERO) + amount
        returned = (*returned, *given_back)
        after = {p.seat: p.stack + won.get(p.seat, ZERO) for p in players}
        seats = tuple(replace(s, stack=after.get(s.seat, s.stack)) for s in state.seats)
        # R46: only the hands that win a contested pot are shown; the rest are taken as mucked.
        shown_seats = {s for a in awards if len(a.pot.eligible) > 1 for s in (*a.high, *a.low)}
        result = PokerHandSettled(
            hand=hand.number,
            game=self.game_id,
            button=hand.button,
            board=tuple(map(str, hand.board)),
            pots=tuple(
                PotWon(
                    a.pot.amount,
                    a.pot.eligible,
                    a.high,
                    a.low,
                    tuple((p.seat, p.amount) for p in a.paid),
                )
                for a in awards
            ),
            fee=fee,
            fee_players=len(hand.order),
            fee_modified=modified,
            returned=returned,
            shown=tuple(
                shown_by_seat[s] for s in hand.order if s in shown_seats & set(shown_by_seat)
            ),
            stacks=tuple((s.seat, s.stack) for s in seats),
            showdown=showdown,
            declared=declared is not None,
        )
        new = replace(state, seats=seats, hand=None, collected=state.collected + fee)
        scooped = {p.seat for a in awards for p in a.paid if p.amount > 0}
        new = self._kill_after(new, scooped, hand)
        return self._blinds_passed(new, hand), [*records, result]

    def _pot_chips(
        self, hand: HandState, ranking: Mapping[int, Strength], declared: bool
    ) -> tuple[list[Contribution], tuple[tuple[int, Decimal], ...]]:
        """What each player put in that plays for the pots, and chips given back outside them
        (Lowball's seven rule, R45, in the draw engine): here, everything put in plays."""
        return [
            Contribution(p.seat, p.in_hand - p.dead, p.folded, p.all_in, p.dead)
            for p in hand.betting.players
        ], ()

    def _kill_after(self, state: PokerState, winners: set[int], hand: HandState) -> PokerState:
        """003 "Betting Limits", Kill Rules: the winner of the pot receives the kill button; its
        holder winning the very next pot makes the next hand a kill pot; losing or folding, the
        holder returns it to the pot. A pot shared by several players has no one winner: the
        button returns to the pot; a holder sitting out neither won nor lost: it keeps it
        (tablectl's readings, docs/games/poker-room.md)."""
        if self.settings.kill == "none":
            return state
        if state.kill_holder is not None and state.kill_holder not in hand.order:
            return state
        if len(winners) != 1:
            return replace(state, kill_holder=None, kill_next=False)
        (winner,) = winners
        if winner == state.kill_holder:
            return replace(state, kill_next=True)
        return replace(state, kill_holder=winner, kill_next=False)

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

    # ------------------------------------------------------------------ the view

    def state_view(self, state: PokerState) -> StateChanged:
        """The retained `state`: the hand (or the hands played) and its phase; the view built
        when it is read (`state` is immutable)."""
        hand = state.hand
        if hand is None:
            return StateChanged(state.hands, "between-hands", 0, build=lambda: self._view(state))
        return StateChanged(hand.number, self._phase(hand), 0, build=lambda: self._view(state))

    def _view(self, state: PokerState) -> JsonObject:
        """Seats and stacks, button, blinds, street, board, whose turn, the call, the least and
        greatest bet or raise, the pot so far; never a hole card (R46)."""
        s = self.settings
        view: dict[str, JsonValue] = {
            "game": self.game_id,
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
                "cards_in": self._whole(hand, x.seat),
                **self._seat_shown(hand, x.seat),
                "away": x.away,
                "owes": x.owes,
            }
            for x in state.seats
        ]
        lo, hi = b.min_bet_or_raise_to, b.max_bet_or_raise_to
        view["hand"] = {
            "round": hand.number,
            "street": self._street_name(b.street),
            "phase": self._phase(hand),
            **self._cards_shown(hand),
            "turn": b.turn,
            "to_call": fmt(b.to_call),
            "min_to": None if lo is None else fmt(lo),
            "max_to": None if hi is None else fmt(hi),
            "pot": fmt(b.pot),
            "pots": self._pots_so_far(b),
            "discards_due": list(self._discards_due(hand)),
            "kill_pot": hand.kill is not None,
        }
        return view

    def _cards_shown(self, hand: HandState) -> dict[str, JsonValue]:
        """The hand's public cards in `state`: the board."""
        return {"board": [str(c) for c in hand.board]}

    def _seat_shown(self, hand: HandState, seat: int) -> dict[str, JsonValue]:
        """A seat's public cards in `state`: none in a flop game (its hole cards are never
        shown, R46)."""
        return {}

    def _pots_so_far(self, b: BettingRound) -> list[JsonValue]:
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

    def _phase(self, hand: HandState) -> str:
        """What the hand waits for: an action, a discard, board cards, or hole cards."""
        if not hand.betting.complete:
            return "betting"
        if self._discards_due(hand):
            return "discard"
        if len(hand.board) < BOARD_AFTER[-1]:
            return "board"
        return "showdown"


class PokerTableEngine(PokerEngine):
    """The engine a table builds from its journaled rules: the `[game]` options of
    tablectl/games/poker/spec.py and the collection schedule resolved from them (R44)."""

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


VARIANT_OF: Final[Mapping[str, Variant]] = MappingProxyType({v: v for v in VARIANTS})
"""A poker game id -> its flop game (each id names its variant)."""
