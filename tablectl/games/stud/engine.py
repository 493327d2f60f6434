"""The stud engine, pure: the poker engine's seats, blinds, betting, pots, collection, kill pots
and misdeals (tablectl/games/poker/engine.py), with stud's cards: each seat's own down and up
cards street by street, no board.

A hand, from the dealer's console (or the card-reading table's `table.card`, one card at a time):
- `hand.start`: the button moves, the blinds are posted ("These tables use blinds, not a
  bring-in": the first betting round starts left of the big blind, 003 "Seven Card Stud (High)",
  "Five Card Stud"); the first street's down cards are dealt with it.
- `up.cards`: a street's face-up card to every seat still in (public as it falls, R46), the first
  street's door card included; betting opens once its cards are out, and in every later round
  with the highest board showing (Razz: the lowest), a tie to the seat nearest the dealer's left
  (tablectl/rules/stud.py).
- `down.cards`: Seven Card Stud's seventh card, face down to every seat still in (its cards, when
  the console knows them, are journaled only).
- `hole.cards`: a seat's down cards, any time before the showdown needs them (journal only).
- `decision`, `showdown` (a table without a reader), `round.void`, `time.collect` as in every
  poker game. A folded seat's up cards are turned down: `state` shows none of them again (R46).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from tablectl.game_records import GameRecord, JsonValue, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.poker.engine import FlopGame, PokerEngine, _cards, table_settings
from tablectl.games.poker.spec import settings_of
from tablectl.games.poker.state import STUD_VARIANTS, HandState, PokerSettings, PokerState, Variant
from tablectl.rules.betting import ACTION_ORDER, ROUND_OF_PLAY, BettingError, BettingRound
from tablectl.rules.low import describe_low
from tablectl.rules.poker import rank_category
from tablectl.rules.pots import Split, Strength
from tablectl.rules.stud import (
    DEAL_RULE,
    FIVE_CARD_STUD,
    SEVEN_CARD_STUD,
    Face,
    first_bettor,
    razz_low,
    stud_high,
    stud_low_eight,
)
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    BoardCards,
    Decision,
    DownCards,
    HoleCards,
    HoleDiscard,
    OptionBuy,
    TableCard,
    UpCards,
)

if TYPE_CHECKING:
    from tablectl.games.table_rules import Rules

ONE_DECK = '003 "Basic Seven Card Stud Rules" (one deck: a card is dealt once)'
FIVE_CARD_RULE = '003 "Five Card Stud"'
OPTION_ALLEY = '003 "Option Alley"'


@dataclass(frozen=True)
class StudGame(FlopGame):
    """A stud game: its streets (each the faces of the cards every seat still in gets), whether
    the lowest board showing bets first (Razz), and the names of its betting rounds."""

    streets: tuple[tuple[Face, ...], ...] = SEVEN_CARD_STUD
    low_bets_first: bool = False
    first_street: int = 3  # the first betting round's street: "third street" (Five Card: second)
    buy: bool = False  # Option Alley: one card bought after the last street, then a round

    @property
    def downs(self) -> int:
        """How many of a seat's cards are dealt face down."""
        return sum(f == "down" for street in self.streets for f in street)

    def faces(self) -> tuple[Face, ...]:
        """Every card a seat gets, in the order dealt."""
        return tuple(f for street in self.streets for f in street)


_SEVEN = '003 "Seven Card Stud (High)"'
STUD_GAMES: Final[Mapping[str, StudGame]] = MappingProxyType(
    {
        "seven-card-stud": StudGame(3, DEAL_RULE, Split.HIGH, stud_high),
        "seven-card-stud-hi-lo": StudGame(
            3, '003 "Seven Card Stud (High-Low Split)"', Split.HIGH_LOW, stud_high, stud_low_eight
        ),
        "razz": StudGame(
            3,
            '003 "Razz (Seven Card Stud, Low Only)"',
            Split.LOW,
            stud_high,
            razz_low,
            low_bets_first=True,
        ),
        "five-card-stud": StudGame(
            1, FIVE_CARD_RULE, Split.HIGH, stud_high, streets=FIVE_CARD_STUD, first_street=2
        ),
        "option-alley": StudGame(
            1,
            OPTION_ALLEY,
            Split.HIGH_LOW,
            stud_high,
            razz_low,
            streets=FIVE_CARD_STUD,
            first_street=2,
            buy=True,
        ),
    }
)
STREET_NAMES: Final = ("second", "third", "fourth", "fifth", "sixth", "seventh")


class StudEngine(PokerEngine):
    """The `Engine` of a stud table under `settings`."""

    game: StudGame

    def __init__(self, settings: PokerSettings, game_id: str | None = None) -> None:
        super().__init__(settings, game_id)
        steps = {k: v for k, v in self._steps.items() if k not in (BoardCards, HoleDiscard)}
        steps[UpCards] = self.up_cards
        steps[DownCards] = self.down_cards
        steps[OptionBuy] = self.option_buy
        self._steps = steps
        self._last_street = len(self.game.streets) - (0 if self.game.buy else 1)

    def _game(self, variant: str) -> StudGame:
        if variant not in STUD_GAMES:
            raise ValueError(f"variant {variant!r} is not one of {STUD_VARIANTS}")
        return STUD_GAMES[variant]

    # ------------------------------------------------------------------ streets

    def _verify_dealing(self, hand: HandState) -> None:
        """The next street may be dealt now: the first with the hand, a later one once the
        betting round before it is over."""
        b = hand.betting
        if hand.streets >= len(self.game.streets) or b.hand_over:
            raise Rejected("every street of this hand is dealt", rule=self.game.hole_rule)
        if hand.streets > 0 and not b.complete:
            raise Rejected(
                f"the betting round is not over: seat {b.turn} is to act", rule=ROUND_OF_PLAY
            )

    def _verify_street(self, hand: HandState, face: Face) -> None:
        """The next street may be dealt now, and the console deals it with `face` cards: each
        street with an up card by `up.cards` (the first street's down cards come with the
        hand), the others by `down.cards`."""
        self._verify_dealing(hand)
        street = self.game.streets[hand.streets]
        if face not in street or (face == "down" and "up" in street):
            name = self._street_name(hand.streets)
            want = "up.cards" if "up" in street else "down.cards"
            raise Rejected(f"the {name} street is dealt with {want}", rule=self.game.hole_rule)

    def _verify_seat_cards(
        self, hand: HandState, given: Sequence[tuple[int, str]], what: str
    ) -> tuple[Card, ...]:
        """One card to every seat still in, each once, none seen before in the hand."""
        live = self._live(hand)
        seats = [s for s, _ in given]
        if sorted(seats) != sorted(live) or len(set(seats)) != len(seats):
            raise Rejected(
                f"{what}: one card to each seat still in, seats {live}", rule=self.game.hole_rule
            )
        cards = _cards([c for _, c in given])
        self._verify_new(hand, cards)
        return cards

    def _verify_new(self, hand: HandState, cards: Sequence[Card]) -> None:
        """Cards from the one deck: no joker, none twice."""
        if any(c.is_joker for c in cards):
            raise Rejected("stud is dealt without the joker", rule=ONE_DECK)
        if len(set(cards)) != len(cards) or set(cards) & self._seen(hand):
            raise Rejected(
                "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
            )

    def _seen(self, hand: HandState) -> set[Card]:
        """Every card entered this hand: down cards, up cards and Option Alley's discards."""
        held = (*hand.holes.values(), *hand.up.values(), *hand.bought.values())
        return {c for cards in held for c in cards}

    def _dealt(self, hand: HandState) -> HandState:
        """One more street is out: its betting round opens (after the first street's, which
        the blinds opened), the highest board showing first (Razz: the lowest)."""
        hand = replace(hand, streets=hand.streets + 1)
        if hand.streets == 1:
            return hand
        live = self._live(hand)
        first = first_bettor(live, hand.up, low=self.game.low_bets_first)
        try:
            return replace(hand, betting=hand.betting.next_round(first=first))
        except BettingError as e:  # unreachable: the street was verified dealable
            raise Rejected(e.reason, rule=e.rule) from None

    def verify_up_cards(self, state: PokerState, ev: UpCards) -> None:
        """The street's up card to every seat still in, once the betting before it is over."""
        hand = self._hand(state)
        self._verify_street(hand, "up")
        self._verify_seat_cards(hand, [(x.seat, x.card) for x in ev.cards], "up.cards")

    def up_cards(
        self, state: PokerState, ev: UpCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Turn up the street's cards (public, R46); the street's betting round opens."""
        self.verify_up_cards(state, ev)
        hand = self._hand(state)
        up = dict(hand.up)
        for x in ev.cards:
            up[x.seat] = (*up.get(x.seat, ()), parse_card(x.card))
        hand = self._dealt(replace(hand, up=MappingProxyType(up)))
        echo = event_msg(ev, ts, round=hand.number, street=self._street_name(hand.streets - 1))
        return self._settle_if_over(replace(state, hand=hand), [echo])

    def verify_down_cards(self, state: PokerState, ev: DownCards) -> None:
        """Seven Card Stud's seventh street: face down to every seat still in."""
        hand = self._hand(state)
        self._verify_street(hand, "down")
        if ev.cards is not None:
            self._verify_seat_cards(hand, [(x.seat, x.card) for x in ev.cards], "down.cards")

    def down_cards(
        self, state: PokerState, ev: DownCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Deal the down street (its cards journaled only, R46); its betting round opens."""
        self.verify_down_cards(state, ev)
        hand = self._hand(state)
        if ev.cards is not None:
            holes = dict(hand.holes)
            for x in ev.cards:
                holes[x.seat] = (*holes.get(x.seat, ()), parse_card(x.card))
            hand = replace(hand, holes=MappingProxyType(holes))
        hand = self._dealt(hand)
        echo = event_msg(
            ev, ts, hide=("cards",), round=hand.number, street=self._street_name(hand.streets - 1)
        )
        return self._settle_if_over(replace(state, hand=hand), [echo])

    # ------------------------------------------------------------------ Option Alley's buy

    def _buy_due(self, hand: HandState) -> int | None:
        """Option Alley: the seat whose buy is next (in turn from the dealer's left), once the
        last up card's betting is over; None when no buy is due."""
        b = hand.betting
        if not self.game.buy or hand.streets != len(self.game.streets):
            return None
        if not b.complete or b.hand_over:
            return None
        return next((s for s in self._live(hand) if s not in hand.bought), None)

    def verify_option_buy(self, state: PokerState, ev: OptionBuy) -> None:
        """The seat whose buy it is: stands pat, or discards one of its up cards (its new card
        dealt up) or its hole card (the new one down) (003 "Option Alley")."""
        hand = self._hand(state)
        if not self.game.buy:
            raise Rejected(f"{self.game_id} has no buy", rule=self.game.hole_rule)
        due = self._buy_due(hand)
        if due is None:
            raise Rejected(
                "the buy comes once the last up card's betting is over", rule=OPTION_ALLEY
            )
        if ev.seat != due:
            raise Rejected(
                f"seat {due} buys first (in turn from the dealer's left)", rule=OPTION_ALLEY
            )
        if ev.discard is None:
            if ev.card is not None:
                raise Rejected("a seat that stands pat is given no card", rule=OPTION_ALLEY)
            return
        if ev.discard != "hole":
            if parse_card(ev.discard) not in hand.up.get(ev.seat, ()):
                raise Rejected(
                    f'seat {ev.seat} discards one of its up cards or its hole card ("hole")',
                    rule=OPTION_ALLEY,
                )
            if ev.card is None:
                raise Rejected(
                    "a discarded up card is replaced face up: name the new card", rule=OPTION_ALLEY
                )
        if ev.card is not None:
            self._verify_new(hand, [parse_card(ev.card)])

    def option_buy(
        self, state: PokerState, ev: OptionBuy, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Play the buy; after the last seat's, the buy's betting round opens, the best board
        showing first. A hole card and its replacement are journaled only (R46)."""
        self.verify_option_buy(state, ev)
        hand = self._hand(state)
        seat = ev.seat
        gone: tuple[Card, ...] = ()
        new = None if ev.card is None else parse_card(ev.card)
        hide: tuple[str, ...] = ()
        if ev.discard == "hole":
            gone = hand.holes.get(seat, ())
            holes = {**hand.holes, seat: () if new is None else (new,)}
            hand = replace(hand, holes=MappingProxyType(holes))
            hide = ("card",)
        elif ev.discard is not None:
            assert new is not None
            out = parse_card(ev.discard)
            gone = (out,)
            kept = tuple(c for c in hand.up[seat] if c != out)
            hand = replace(hand, up=MappingProxyType({**hand.up, seat: (*kept, new)}))
        hand = replace(hand, bought=MappingProxyType({**hand.bought, seat: gone}))
        if self._buy_due(hand) is None:
            hand = self._dealt(hand)
        echo = event_msg(ev, ts, hide=hide, round=hand.number)
        return self._settle_if_over(replace(state, hand=hand), [echo])

    def _went_on(self, hand: HandState) -> HandState:
        """A dead hand that was the last one due to buy (Option Alley): the buy's round opens."""
        b = hand.betting
        waited = self.game.buy and bool(hand.bought) and b.complete and not b.hand_over
        if waited and hand.streets == len(self.game.streets) and self._buy_due(hand) is None:
            return self._dealt(hand)
        return hand

    # ------------------------------------------------------------------ down cards

    def _downs_dealt(self, hand: HandState) -> int:
        """How many down cards each seat has been dealt so far (the first street's come with
        `hand.start`)."""
        return sum(f == "down" for st in self.game.streets[: max(1, hand.streets)] for f in st)

    def _whole(self, hand: HandState, seat: int) -> bool:
        """Whether all of `seat`'s down cards are in: its hand can speak at the showdown."""
        return len(hand.holes.get(seat, ())) == self.game.downs

    def verify_hole_cards(self, state: PokerState, ev: HoleCards) -> None:
        """A seat's down cards, in the order dealt, never more than it has been dealt."""
        hand = self._hand(state)
        if ev.seat not in hand.order:
            raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
        have = len(hand.holes.get(ev.seat, ()))
        dealt = self._downs_dealt(hand)
        cards = _cards(ev.cards)
        if not cards or have + len(cards) > dealt:
            raise Rejected(
                f"seat {ev.seat} has been dealt {dealt} down card{'s' if dealt > 1 else ''} "
                f"and {have} {'are' if have != 1 else 'is'} in: {len(cards)} more is not right",
                rule=self.game.hole_rule,
            )
        self._verify_new(hand, cards)

    def hole_cards(
        self, state: PokerState, ev: HoleCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Record down cards (never published, R46); a waiting showdown may now run."""
        self.verify_hole_cards(state, ev)
        hand = self._hand(state)
        cards = (*hand.holes.get(ev.seat, ()), *_cards(ev.cards))
        hand = replace(hand, holes=MappingProxyType({**hand.holes, ev.seat: cards}))
        return self._settle_if_over(replace(state, hand=hand), [event_msg(ev, ts, hide=("cards",))])

    # ------------------------------------------------------------------ the card-reading table

    def _next_face(self, hand: HandState, seat: int) -> Face | None:
        """The face of the next card `seat` is dealt in the street being dealt, or None when
        it has that street's cards already."""
        want = sum(len(st) for st in self.game.streets[: hand.streets + 1])
        have = len(hand.holes.get(seat, ())) + len(hand.up.get(seat, ()))
        return None if have >= want else self.game.faces()[have]

    def verify_table_card(self, state: PokerState, ev: TableCard) -> None:
        """A card the reader placed at a seat still in, in the street being dealt (its face is
        the deal's: 003 "Basic Seven Card Stud Rules" rule 1), or in the muck."""
        hand = self._hand(state)
        if ev.zone == "muck":
            return
        if ev.zone == "board":
            raise Rejected("stud has no board: every card goes to a seat", rule=DEAL_RULE)
        assert ev.seat is not None
        if ev.seat not in self._live(hand):
            raise Rejected(f"seat {ev.seat} is not in this hand", rule=ACTION_ORDER)
        self._verify_dealing(hand)
        if self._next_face(hand, ev.seat) is None:
            raise Rejected(
                f"seat {ev.seat} has this street's cards already", rule=self.game.hole_rule
            )
        self._verify_new(hand, [parse_card(ev.card)])

    def table_card(
        self, state: PokerState, ev: TableCard, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A down card joins the seat's (never published); an up card is shown; the street is
        dealt once every seat still in has its cards."""
        self.verify_table_card(state, ev)
        hand = self._hand(state)
        if ev.zone == "muck":
            return state, [event_msg(ev, ts, hide=("card",), round=hand.number)]
        assert ev.seat is not None
        card = parse_card(ev.card)
        face = self._next_face(hand, ev.seat)
        if face == "up":
            up = {**hand.up, ev.seat: (*hand.up.get(ev.seat, ()), card)}
            hand = replace(hand, up=MappingProxyType(up))
            echo = event_msg(ev, ts, round=hand.number, face="up")
        else:
            holes = {**hand.holes, ev.seat: (*hand.holes.get(ev.seat, ()), card)}
            hand = replace(hand, holes=MappingProxyType(holes))
            echo = event_msg(ev, ts, hide=("card",), round=hand.number, face="down")
        if all(self._next_face(hand, s) is None for s in self._live(hand)):
            hand = self._dealt(hand)
        return self._settle_if_over(replace(state, hand=hand), [echo])

    # ------------------------------------------------------------------ betting

    def _decided(self, state: PokerState, ev: Decision) -> BettingRound:
        """A betting round's action, once its street's cards are out."""
        hand = self._hand(state)
        if hand.streets <= hand.betting.street:
            name = self._street_name(hand.betting.street)
            raise Rejected(
                f"the {name} street's cards are dealt before its betting", rule=self.game.hole_rule
            )
        return super()._decided(state, ev)

    # ------------------------------------------------------------------ the showdown

    def _all_dealt(self, hand: HandState) -> bool:
        """Whether every street is out (and Option Alley's buy made: it counts as one more)."""
        return hand.streets == len(self.game.streets) + (1 if self.game.buy else 0)

    def _past_first_round(self, hand: HandState) -> bool:
        """R44 in stud: the fee is the rate once the second street is dealt (the flop's place:
        the first card after the first betting round)."""
        return hand.streets >= 2

    def _street_name(self, street: int) -> str:
        """A betting round's name: the street its cards complete ("third" .. "seventh"), or
        Option Alley's "buy"."""
        if street >= len(self.game.streets):
            return "buy"
        return STREET_NAMES[street + self.game.first_street - 2]

    def _strength(self, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
        """A seat's showdown keys from all its cards (rules/stud.py) and the hand as shown."""
        down, up = hand.holes[seat], hand.up.get(seat, ())
        cards = tuple(map(str, (*down, *up)))
        low = None if self.game.low is None else self.game.low(down, up)
        low_shown = None if low is None else tuple(map(str, low[1]))
        low_name = None if low is None else describe_low(low[0])
        if self.game.split is Split.LOW:  # Razz: the low hand is the whole hand
            assert low is not None
            return Strength((), low[0]), ShownHand(seat, cards, (), "", low_shown, low_name)
        high = self.game.high(down, up)
        shown = ShownHand(
            seat, cards, tuple(map(str, high[1])), rank_category(high[0]), low_shown, low_name
        )
        return Strength(high[0], None if low is None else low[0]), shown

    # ------------------------------------------------------------------ the view

    def _cards_shown(self, hand: HandState) -> dict[str, JsonValue]:
        """No board in stud: each seat's up cards are shown with the seat."""
        return {}

    def _seat_shown(self, hand: HandState, seat: int) -> dict[str, JsonValue]:
        """A seat's up cards while it is in; a folded seat's are turned down (003 "Basic Seven
        Card Stud Rules" rule 2): none shown."""
        if seat not in hand.order:
            return {}
        live = seat in self._live(hand)
        return {"up": [str(c) for c in hand.up.get(seat, ())] if live else []}

    def _phase(self, hand: HandState) -> str:
        """What the hand waits for: a street's cards, an action, or the showdown."""
        b = hand.betting
        if self._buy_due(hand) is not None:
            return "buy"
        if hand.streets <= b.street or (b.complete and not self._all_dealt(hand)):
            return "deal"
        if not b.complete:
            return "betting"
        return "showdown"


class StudTableEngine(StudEngine):
    """The engine a stud table builds from its journaled rules (tablectl/games/stud/spec.py)."""

    def __init__(self, rules: Rules) -> None:
        game = settings_of(rules.game)
        super().__init__(table_settings(rules, VARIANT_OF[game.id]), game_id=game.id)


VARIANT_OF: Final[Mapping[str, Variant]] = MappingProxyType({v: v for v in STUD_VARIANTS})
"""A stud game id -> its variant (each id names its own)."""
