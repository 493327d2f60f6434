"""The draw engine, pure: the poker engine's seats, blinds, betting, pots, collection, kill pots
and misdeals (tablectl/games/poker/engine.py), with the draw games' cards: five down to each
player, a betting round, the draw, a second betting round, the showdown. No board, no up card.

A hand, from the dealer's console (or the card-reading table's `table.card`):
- `hand.start`: the button moves, the blinds are posted ("The player at the left of the big
  blind has the first right or obligation to bet", 003 "Five Card Draw"); at Lowball the
  straddles after the big blind too (003 "Lowball" rule 5). Five cards to each seat dealt in.
- `decision`: the first betting round. Lowball is "pass and out" before the draw: a player who
  would check must bet or fold, but for a blind or straddle whose post is the bet (its option).
- `draw`: each seat still in, in turn from the dealer's left, asks for 0-5 cards; the number
  first asked for stands (003 "Lowball" rule 14). After the last seat's draw the second
  betting round opens, the first seat still in left of the dealer first.
- `hole.cards`: a seat's five cards as they stand (dealt, or after its draw), journal only.
- `table.card`: the reader's reads. On the deal each seat's five (a sixth at two seats is a
  misdeal, rule 13); on the draw the cards each seat asked for, four at once and the fifth after
  the others (rule 16), each seat's after a burn (rule 18); in the muck, discards and burns.
- The hand ends on the last fold, or when the second round is over and every hand still in is
  known (else the dealer declares the `showdown`). Lowball's seven rule (R45): a player who
  checked a seven or better after the draw and wins keeps only the pot as it stood when the draw
  ended; what the others put in after it goes back to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from tablectl.game_records import GameRecord, JsonValue, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.poker.engine import FlopGame, PokerEngine, _cards, table_settings
from tablectl.games.poker.spec import settings_of
from tablectl.games.poker.state import DRAW_VARIANTS, HandState, PokerSettings, PokerState, Variant
from tablectl.rules.betting import ACTION_ORDER, STRADDLE_RULE, BettingRound
from tablectl.rules.draw import (
    HAND_SIZE,
    draw_high,
    draw_low_eight,
    lowball_low,
    seven_or_better,
)
from tablectl.rules.low import describe_low, low_value
from tablectl.rules.poker import rank_category
from tablectl.rules.pots import Contribution, Split, Strength, build_pots
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import (
    BoardCards,
    CardFlashed,
    Decision,
    DrawCards,
    HoleCards,
    HoleDiscard,
    TableCard,
)

if TYPE_CHECKING:
    from tablectl.games.table_rules import Rules

FIVE_CARD_DRAW = '003 "Five Card Draw"'
LOWBALL = '003 "Lowball"'
PASS_AND_OUT = '003 "Lowball": "The game is \'pass and out\' before the draw"'
FIRST_ASKED = '003 "Lowball" (Lowball Rules, rule 14)'
SEVEN_RULE = "R45"
FLASHED = '003 "Lowball" (Lowball Rules, rules 6-8)'
MISDEAL = '003 "Lowball" (Lowball Rules, rule 13)'
AT_ONCE = '003 "Lowball" (Lowball Rules, rule 16)'
BURN = '003 "Lowball" (Lowball Rules, rule 18)'
BOXED = '003 "Lowball" (Lowball Rules, rules 7, 9)'
AT_ONCE_MOST = 4
"""003 "Lowball" rule 16: "only four cards can be given at one time"."""


@dataclass(frozen=True)
class DrawGame(FlopGame):
    """A draw game: whether its pack has the joker (Lowball's bug), is pass and out before the
    draw, and plays the seven rule (R45)."""

    joker: bool = False
    pass_and_out: bool = False
    seven_rule: bool = False


DRAW_GAMES: Final[Mapping[str, DrawGame]] = MappingProxyType(
    {
        "five-card-draw": DrawGame(
            HAND_SIZE, FIVE_CARD_DRAW, Split.HIGH, lambda hole, _board: draw_high(hole)
        ),
        "five-card-draw-hi-lo": DrawGame(
            HAND_SIZE,
            '003 "Five Card Draw (High-Low Split)"',
            Split.HIGH_LOW,
            lambda hole, _board: draw_high(hole),
            lambda hole, _board: draw_low_eight(hole),
        ),
        "lowball": DrawGame(
            HAND_SIZE,
            LOWBALL,
            Split.LOW,
            lambda hole, _board: draw_high(hole),
            lambda hole, _board: lowball_low(hole),
            joker=True,
            pass_and_out=True,
            seven_rule=True,
        ),
    }
)
STREET_NAMES: Final = ("before-draw", "after-draw")


class DrawEngine(PokerEngine):
    """The `Engine` of a draw table under `settings` (`joker` False: Lowball in Dealer's
    Choice, dealt without the bug, 003 "Lowball" rule 1)."""

    game: DrawGame

    def __init__(
        self, settings: PokerSettings, game_id: str | None = None, *, joker: bool = True
    ) -> None:
        super().__init__(settings, game_id)
        if not joker:  # 003 "Lowball" rule 1: "When playing Dealer's Choice, no joker"
            self.game = replace(self.game, joker=False)
        steps = {k: v for k, v in self._steps.items() if k not in (BoardCards, HoleDiscard)}
        steps[DrawCards] = self.draw
        steps[CardFlashed] = self.card_flashed
        self._steps = steps
        self._last_street = 1
        if self.game.seven_rule:
            self.straddles = STRADDLE_RULE

    def _game(self, variant: str) -> DrawGame:
        if variant not in DRAW_GAMES:
            raise ValueError(f"variant {variant!r} is not one of {DRAW_VARIANTS}")
        return DRAW_GAMES[variant]

    # ------------------------------------------------------------------ cards

    def _dead(self, hand: HandState) -> set[Card]:
        """Cards out of play: exposed and replaced (Lowball's flashed cards), boxed, or a sixth
        card dealt to a seat. In no hand again."""
        dead = {card for _, _, card, kept in hand.exposed if not kept}
        return dead | {card for _, _, card in hand.boxed} | {card for _, card in hand.over}

    def _verify_five(self, hand: HandState, seat: int, cards: tuple[Card, ...]) -> None:
        """Five cards from the game's pack, none held by another seat nor dead; before the
        seat's draw, its flashed cards that it keeps among them."""
        if len(cards) != HAND_SIZE:
            raise Rejected(
                f"a draw hand is five cards, not {len(cards)}: a hand of more or fewer is dead "
                '(003 "Lowball" rule 4)',
                rule=self.game.hole_rule,
            )
        if any(c.is_joker for c in cards) and not self.game.joker:
            raise Rejected(f"{self.game_id} is dealt without the joker", rule=self.game.hole_rule)
        if len(set(cards)) != len(cards):
            raise Rejected("a card appears twice in this hand", rule=self.game.hole_rule)
        others = self._in_play(hand) - {*hand.holes.get(seat, ()), *hand.given.get(seat, ())}
        if set(cards) & others:
            raise Rejected(
                "a card appears twice in this hand: another seat holds it",
                rule=self.game.hole_rule,
            )
        if set(cards) & self._dead(hand):
            raise Rejected("a card exposed and replaced is dead", rule=FLASHED)
        kept = {c for s, _, c, k in hand.exposed if s == seat and k}
        if seat not in hand.drawn and not kept <= set(cards):
            raise Rejected(
                f"seat {seat} keeps the card flashed to it on the deal: it is one of its five",
                rule=FLASHED,
            )

    def verify_hole_cards(self, state: PokerState, ev: HoleCards) -> None:
        """A seat's five cards as they stand: as dealt before its draw, its final hand after."""
        hand = self._hand(state)
        if ev.seat not in hand.order:
            raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
        self._verify_five(hand, ev.seat, _cards(ev.cards))

    def hole_cards(
        self, state: PokerState, ev: HoleCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A seat's five from the console; after its draw they are its hand, and the wait for
        the reader's cards and discards ends."""
        self.verify_hole_cards(state, ev)
        hand = self._hand(state)
        if ev.seat in hand.before:
            hand = replace(
                hand,
                before=_without(hand.before, ev.seat),
                thrown=_without(hand.thrown, ev.seat),
            )
        return super().hole_cards(replace(state, hand=hand), ev, ts)

    def _whole(self, hand: HandState, seat: int) -> bool:
        """Whether the seat's five are known as they stand (after its draw, its new five)."""
        return len(hand.holes.get(seat, ())) == HAND_SIZE

    def verify_table_card(self, state: PokerState, ev: TableCard) -> None:
        """The reader's cards: each seat's five on the deal (a sixth at a seat is taken back,
        at two seats a misdeal, rule 13); on the draw, the cards a seat asked for, at most four
        at once and the fifth or a replacement after every other seat has its own (rules 7, 8,
        16), each seat's after a burn (rule 18). The muck takes anything."""
        hand = self._hand(state)
        if ev.zone == "muck":
            return
        if ev.zone == "board":
            raise Rejected("a draw game has no board", rule=self.game.hole_rule)
        seat = ev.seat
        assert seat is not None
        if seat not in hand.order:
            raise Rejected(f"seat {seat} is not dealt in this hand", rule=ACTION_ORDER)
        card = parse_card(ev.card)
        if card.is_joker and not self.game.joker:
            raise Rejected(f"{self.game_id} is dealt without the joker", rule=self.game.hole_rule)
        if card in self._in_play(hand):
            raise Rejected("a card appears twice in this hand", rule=self.game.hole_rule)
        if card in self._dead(hand):
            raise Rejected("a card out of play (exposed, boxed, taken back) is dead", rule=FLASHED)
        if self._dealing(hand, seat):
            if any(s == seat for s, _ in hand.over):
                raise Rejected(
                    f"seat {seat} was dealt a sixth card already", rule=self.game.hole_rule
                )
            return
        self._verify_drawn_card(hand, seat)

    def _verify_drawn_card(self, hand: HandState, seat: int) -> None:
        """A card read at a seat on the draw: one it asked for, in its turn or late."""
        if seat not in self._live(hand):
            raise Rejected(f"seat {seat} is not in this hand", rule=ACTION_ORDER)
        if seat not in hand.drawn:
            raise Rejected(
                f"seat {seat} has not asked for cards: its draw is entered with `draw`",
                rule=self.game.hole_rule,
            )
        if self._owed(hand, seat) <= 0:
            raise Rejected(
                f"seat {seat} asked for {hand.drawn[seat]} card(s) and has them",
                rule=FIRST_ASKED,
            )
        if self._late(hand, seat):
            waiting = [s for s in self._live(hand) if s != seat and not self._first_given(hand, s)]
            if self._draw_due(hand) is not None or waiting:
                who = f"seat {waiting[0]}" if waiting else "every seat"
                raise Rejected(
                    f"seat {seat}'s fifth card or replacement comes after {who} has its "
                    "cards: only four are given at one time",
                    rule=AT_ONCE,
                )
            return
        if self._delivered(hand, seat) == 0:
            started = sum(1 for s in hand.drawn if s != seat and self._delivered(hand, s))
            if hand.burns < started + 1:
                raise Rejected(
                    f"no burn was read before seat {seat}'s cards: the dealer burns the top card "
                    "face down before filling each player's draw",
                    rule=BURN,
                )

    def table_card(
        self, state: PokerState, ev: TableCard, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """One of a seat's cards (never published); in the muck, on the draw, a seat's discard
        or a burn."""
        self.verify_table_card(state, ev)
        hand = self._hand(state)
        echo = event_msg(ev, ts, hide=("card",), round=hand.number)
        card = parse_card(ev.card)
        if ev.zone == "muck":
            return replace(state, hand=self._mucked(hand, card)), [echo]
        seat = ev.seat
        assert seat is not None
        if not self._dealing(hand, seat):
            if seat in hand.before:
                given = {**hand.given, seat: (*hand.given.get(seat, ()), card)}
                hand = self._completed(replace(hand, given=MappingProxyType(given)), seat)
            else:  # a replacement for a card of a hand drawn from the console
                holes = {**hand.holes, seat: (*hand.holes[seat], card)}
                hand = replace(hand, holes=MappingProxyType(holes))
            return self._settle_if_over(replace(state, hand=hand), [echo])
        if len(hand.holes.get(seat, ())) >= HAND_SIZE:
            return self._sixth(replace(state, hand=hand), seat, card, echo, ts)
        cards = (*hand.holes.get(seat, ()), card)
        hand = replace(hand, holes=MappingProxyType({**hand.holes, seat: cards}))
        return self._settle_if_over(replace(state, hand=hand), [echo])

    def _sixth(
        self, state: PokerState, seat: int, card: Card, echo: GameRecord, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A sixth card read at a seat on the deal: the dealer takes it back and it is dead (the
        seat keeps the five it was dealt first); six cards to two players is a misdeal (003
        "Lowball" rule 13): the hand is void at once."""
        hand = self._hand(state)
        hand = replace(hand, over=(*hand.over, (seat, card)))
        new = replace(state, hand=hand)
        if len({s for s, _ in hand.over}) > 1:
            why = f"misdeal: six cards were dealt to two players ({MISDEAL})"
            voided, out = self.void(new, why, ts)
            return voided, [echo, *out[:-1]]  # (apply adds the state)
        return new, [echo]

    def _mucked(self, hand: HandState, card: Card) -> HandState:
        """A card read in the muck. On the draw, a card of a seat whose draw is not yet filled
        is its discard; any other card (no seat's, none dead) a burn. Otherwise (a fold, a card
        thrown away after the draw) nothing."""
        if not self._on_draw(hand) or card in self._dead(hand):
            return hand
        for seat in self._live(hand):
            pending = seat not in hand.drawn or seat in hand.before
            held = hand.before.get(seat, ()) if seat in hand.before else hand.holes.get(seat, ())
            if card in held:
                if not pending or card in hand.thrown.get(seat, ()):
                    return hand
                thrown = {**hand.thrown, seat: (*hand.thrown.get(seat, ()), card)}
                return self._completed(replace(hand, thrown=MappingProxyType(thrown)), seat)
        if card in self._in_play(hand):
            return hand
        return replace(hand, burns=hand.burns + 1)

    def _completed(self, hand: HandState, seat: int) -> HandState:
        """The seat's new five, once the reader (or the console) has given every card it asked
        for and its discards are known: its five as they stood, less the discards, plus the
        cards given."""
        if seat not in hand.before:
            return hand
        before, given = hand.before[seat], hand.given.get(seat, ())
        thrown = hand.thrown.get(seat, ())
        count = hand.drawn[seat]
        if len(before) != HAND_SIZE or len(given) != count or len(thrown) != count:
            return hand
        now = (*(c for c in before if c not in thrown), *given)
        return replace(
            hand,
            holes=MappingProxyType({**hand.holes, seat: now}),
            before=_without(hand.before, seat),  # (`given` stays: what the reader dealt)
            thrown=_without(hand.thrown, seat),
        )

    def _on_draw(self, hand: HandState) -> bool:
        """Whether the deal is over: the draw is due or past."""
        return hand.betting.street == 1 or self._draw_due(hand) is not None

    def _dealing(self, hand: HandState, seat: int) -> bool:
        """Whether a card read at the seat is one of its five as dealt: before the draw, while
        no seat has asked for cards and the seat has not got five (or, before the first round is
        over, a sixth). Not the betting alone: a hand all in on its blinds has no first round,
        and its five are still dealt."""
        if hand.betting.street == 1 or hand.drawn:
            return seat not in hand.drawn and len(hand.holes.get(seat, ())) < HAND_SIZE
        return len(hand.holes.get(seat, ())) < HAND_SIZE or self._draw_due(hand) is None

    def _in_play(self, hand: HandState) -> set[Card]:
        """Every card a seat holds now or was given on the draw."""
        held = {c for cards in hand.holes.values() for c in cards}
        return held | {c for cards in hand.given.values() for c in cards}

    def _owed(self, hand: HandState, seat: int) -> int:
        """How many cards the seat is still to be given on the draw (a replacement included)."""
        if seat in hand.before:
            return hand.drawn[seat] - len(hand.given.get(seat, ()))
        held = hand.holes.get(seat, ())
        return HAND_SIZE - len(held) if held else 0

    def _delivered(self, hand: HandState, seat: int) -> int:
        """The cards dealt to a seat on the draw so far, those exposed or boxed (dead) too."""
        dead = sum(1 for s, w, _, kept in hand.exposed if s == seat and w == "draw" and not kept)
        dead += sum(1 for s, w, _ in hand.boxed if s == seat and w == "draw")
        return len(hand.given.get(seat, ())) + dead

    def _first_given(self, hand: HandState, seat: int) -> bool:
        """Whether the seat has the cards given at its turn: all it asked for, or four of five
        (rule 16)."""
        if seat not in hand.before:
            return seat in hand.drawn
        return self._delivered(hand, seat) >= min(hand.drawn[seat], AT_ONCE_MOST)

    def _late(self, hand: HandState, seat: int) -> bool:
        """Whether the seat's next card is one dealt after the others: the fifth of five (rule
        16) or the replacement of a card exposed or boxed on the draw (rules 7, 8)."""
        if seat not in hand.before:
            return True
        return self._first_given(hand, seat)

    # ------------------------------------------------------------------ the draw

    def _draw_due(self, hand: HandState) -> int | None:
        """The seat whose draw is next (in turn from the dealer's left), once the first betting
        round is over; None when no draw is due."""
        b = hand.betting
        if b.street != 0 or not b.complete or b.hand_over:
            return None
        return next((s for s in self._live(hand) if s not in hand.drawn), None)

    def verify_draw(self, state: PokerState, ev: DrawCards) -> None:
        """The seat whose draw it is, once; its discards its own cards, its new ones new."""
        hand = self._hand(state)
        due = self._draw_due(hand)
        if ev.seat in hand.drawn:
            raise Rejected(
                f"seat {ev.seat} asked for {hand.drawn[ev.seat]}: the number first asked for "
                "stands",
                rule=FIRST_ASKED,
            )
        if due is None:
            raise Rejected(
                "the draw comes once the first betting round is over", rule=self.game.hole_rule
            )
        if ev.seat != due:
            raise Rejected(
                f"seat {due} draws first (in turn from the dealer's left)", rule=self.game.hole_rule
            )
        discard = _cards(ev.discard or [])
        given = _cards(ev.cards or [])
        thrown = hand.thrown.get(ev.seat, ())
        if len(thrown) > ev.count:
            raise Rejected(
                f"seat {ev.seat} threw {len(thrown)} card(s) in the muck: it cannot draw "
                f"{ev.count}",
                rule=self.game.hole_rule,
            )
        if discard and not set(thrown) <= set(discard):
            raise Rejected(
                f"seat {ev.seat}'s discards read in the muck are not the ones named",
                rule=self.game.hole_rule,
            )
        for what, cards in (("discard", discard), ("cards", given)):
            if cards and len(cards) != ev.count:
                raise Rejected(
                    f"`{what}` names {len(cards)} card(s) for a draw of {ev.count}",
                    rule=self.game.hole_rule,
                )
        held = hand.holes.get(ev.seat, ())
        if discard:
            if len(held) != HAND_SIZE:
                raise Rejected(
                    f"seat {ev.seat}'s five are not in: its discards cannot be named",
                    rule=self.game.hole_rule,
                )
            if not set(discard) <= set(held) or len(set(discard)) != len(discard):
                raise Rejected(
                    f"the discards are not seat {ev.seat}'s own cards", rule=self.game.hole_rule
                )
        if given:
            if any(c.is_joker for c in given) and not self.game.joker:
                raise Rejected(
                    f"{self.game_id} is dealt without the joker", rule=self.game.hole_rule
                )
            seen = {c for cards in hand.holes.values() for c in cards} | self._dead(hand)
            if len(set(given)) != len(given) or set(given) & seen:
                raise Rejected("a card appears twice in this hand", rule=self.game.hole_rule)

    def draw(
        self, state: PokerState, ev: DrawCards, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """Record the draw (its cards journaled only, R46): the seat's five as they now stand
        where the discards and the new cards are known, else unknown until `hole.cards`; after
        the last seat's draw the second betting round opens."""
        self.verify_draw(state, ev)
        hand = self._hand(state)
        held = hand.holes.get(ev.seat, ())
        discard, given = _cards(ev.discard or []), _cards(ev.cards or [])
        drawn = MappingProxyType({**hand.drawn, ev.seat: ev.count})
        if ev.count == 0:
            hand = replace(hand, drawn=drawn)
        elif given:  # the console gives the cards: the new five where the discards are known
            known = len(held) == HAND_SIZE and len(discard) == ev.count
            holes = {**hand.holes, ev.seat: (*(c for c in held if c not in discard), *given)}
            if not known:
                holes.pop(ev.seat)
            hand = replace(hand, holes=MappingProxyType(holes), drawn=drawn)
        else:  # the reader gives them: the five as they stand wait for the cards and discards
            thrown = discard or hand.thrown.get(ev.seat, ())
            hand = self._completed(
                replace(
                    hand,
                    holes=_without(hand.holes, ev.seat),
                    drawn=drawn,
                    before=MappingProxyType({**hand.before, ev.seat: held}),
                    thrown=MappingProxyType({**hand.thrown, ev.seat: thrown}),
                ),
                ev.seat,
            )
        if self._draw_due(hand) is None:
            hand = replace(hand, betting=hand.betting.next_round())
        echo = event_msg(ev, ts, hide=("discard", "cards"), round=hand.number)
        return self._settle_if_over(replace(state, hand=hand), [echo])

    # ------------------------------------------------------------------ Lowball's flashed cards

    def verify_card_flashed(self, state: PokerState, ev: CardFlashed) -> None:
        """Lowball: a card the dealer exposed to a seat still in, on the deal (before any draw)
        or on the draw (after the first round)."""
        hand = self._hand(state)
        if not self.game.seven_rule:
            raise Rejected(
                f"the flashed-card rules are Lowball's, not {self.game_id}'s", rule=FLASHED
            )
        if ev.seat not in self._live(hand):
            raise Rejected(f"seat {ev.seat} is not in this hand", rule=ACTION_ORDER)
        card = parse_card(ev.card)
        if card.is_joker and not self.game.joker:
            raise Rejected(f"{self.game_id} is dealt without the joker", rule=self.game.hole_rule)
        mine = {*hand.holes.get(ev.seat, ()), *hand.given.get(ev.seat, ())}
        if card in self._in_play(hand) - mine or card in self._dead(hand):
            raise Rejected("that card is another seat's or dead already", rule=FLASHED)
        if (ev.when == "deal") == self._on_draw(hand):
            raise Rejected(
                "a card flashed on the deal comes before the draw, on the draw after the first "
                "round",
                rule=FLASHED,
            )
        held = hand.holes.get(ev.seat, ())
        kept = ev.when == "deal" and _kept(card) and not ev.boxed
        if kept and len(held) == HAND_SIZE and card not in held:
            raise Rejected(f"the card is not one of seat {ev.seat}'s five", rule=FLASHED)

    def card_flashed(
        self, state: PokerState, ev: CardFlashed, ts: str
    ) -> tuple[PokerState, list[GameRecord]]:
        """A flashed card is public. On the deal a five or lower is kept, a six or higher
        replaced after the last player is dealt (rule 6); on the draw it is always replaced
        (rules 7, 8). A boxed card (found faced in the deck) is never kept (rules 7, 9). A
        replaced card is dead: it leaves the seat's cards, and its replacement comes from the
        reader or the console. A second card the dealer exposes on the deal is a misdeal (rule
        13): the hand is void."""
        self.verify_card_flashed(state, ev)
        hand = self._hand(state)
        card = parse_card(ev.card)
        kept = ev.when == "deal" and _kept(card) and not ev.boxed
        if ev.boxed:
            hand = replace(hand, boxed=(*hand.boxed, (ev.seat, ev.when, card)))
        else:
            hand = replace(hand, exposed=(*hand.exposed, (ev.seat, ev.when, card, kept)))
        if not kept:
            hand = _less(hand, ev.seat, card)
        echo = event_msg(ev, ts, round=hand.number, kept=kept)
        new = replace(state, hand=hand)
        if sum(when == "deal" for _, when, _, _ in hand.exposed) > 1:
            why = f"misdeal: the dealer exposed more than one card ({MISDEAL})"
            voided, out = self.void(new, why, ts)
            return voided, [echo, *out[:-1]]  # (apply adds the state)
        return new, [echo]

    def _went_on(self, hand: HandState) -> HandState:
        """A dead hand that was the last one due to draw: the second round opens."""
        b = hand.betting
        waited = b.street == 0 and b.complete and not b.hand_over and bool(hand.drawn)
        if waited and self._draw_due(hand) is None:
            return replace(hand, betting=b.next_round())
        return hand

    # ------------------------------------------------------------------ betting

    def _decided(self, state: PokerState, ev: Decision) -> BettingRound:
        """Lowball is pass and out before the draw: no check, but a blind's or straddle's whose
        post is the bet (its option); no action while a draw is due."""
        hand = self._hand(state)
        b = hand.betting
        if self._draw_due(hand) is not None:
            raise Rejected(
                "every player still in draws before the second round", rule=self.game.hole_rule
            )
        if self.game.pass_and_out and b.street == 0 and ev.action == "check":
            me = next((p for p in b.players if p.seat == ev.seat), None)
            if me is None or me.in_round == 0:
                raise Rejected("no check before the draw: bet or fold", rule=PASS_AND_OUT)
        return super()._decided(state, ev)

    # ------------------------------------------------------------------ the showdown

    def _all_dealt(self, hand: HandState) -> bool:
        """Whether the draw is over: the second betting round is the one in play."""
        return hand.betting.street == 1

    def _past_first_round(self, hand: HandState) -> bool:
        """R44 in the draw games: the fee is the rate once the draw is reached (the flop's
        place: the cards after the first betting round)."""
        return hand.betting.street >= 1 or self._draw_due(hand) is not None

    def _street_name(self, street: int) -> str:
        """A betting round's name: before or after the draw."""
        return STREET_NAMES[street]

    def _strength(self, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
        """A seat's showdown keys from its five (rules/draw.py) and the hand as shown."""
        five = hand.holes[seat]
        cards = tuple(map(str, five))
        low = None if self.game.low is None else self.game.low(five, ())
        low_name = None if low is None else describe_low(low[0])
        low_shown = None if low is None else tuple(map(str, low[1]))
        if self.game.split is Split.LOW:  # Lowball: the low hand is the whole hand
            assert low is not None
            return Strength((), low[0]), ShownHand(seat, cards, (), "", low_shown, low_name)
        high = self.game.high(five, ())
        shown = ShownHand(
            seat, cards, tuple(map(str, high[1])), rank_category(high[0]), low_shown, low_name
        )
        return Strength(high[0], None if low is None else low[0]), shown

    def _pot_chips(
        self, hand: HandState, ranking: Mapping[int, Strength], declared: bool
    ) -> tuple[list[Contribution], tuple[tuple[int, Decimal], ...]]:
        """R45: when a player who checked a seven or better after the draw wins, the pot is the
        pot as it stood when the draw ended, and every chip put in after the draw goes back to
        whoever put it in. Only when the hands speak (a declared showdown names no hands)."""
        chips, none = super()._pot_chips(hand, ranking, declared)
        b = hand.betting
        if not self.game.seven_rule or declared or b.street != 1 or not ranking:
            return chips, none
        checked = {a.seat for a in b.actions if a.verb == "check"}
        sevens = {
            s for s in checked & set(ranking) if (low := ranking[s].low) and seven_or_better(low)
        }
        winners: set[int] = set()  # of each pot, main and side, the lowest hands in it
        for pot in build_pots(chips).pots:
            lows = {s: ranking[s].low or () for s in pot.eligible if s in ranking}
            if lows:
                best = min(lows.values())
                winners |= {s for s, low in lows.items() if low == best}
        if not sevens & winners:
            return chips, none
        back = tuple((p.seat, p.in_round) for p in b.players if p.in_round > 0)
        at_draw = [  # (all-in then only if nothing went in after)
            Contribution(
                p.seat,
                p.in_hand - p.in_round - p.dead,
                p.folded,
                p.all_in and not p.in_round,
                p.dead,
            )
            for p in b.players
        ]
        return at_draw, back

    # ------------------------------------------------------------------ the view

    def _cards_shown(self, hand: HandState) -> dict[str, JsonValue]:
        """No board, no up card: each seat's draw count is shown with the seat."""
        return {}

    def _seat_shown(self, hand: HandState, seat: int) -> dict[str, JsonValue]:
        """How many cards a seat drew (public: the table sees it), None before its draw."""
        if seat not in hand.order:
            return {}
        return {"drew": hand.drawn.get(seat)}

    def _phase(self, hand: HandState) -> str:
        """What the hand waits for: an action, a draw, or the showdown."""
        b = hand.betting
        if self._draw_due(hand) is not None:
            return "draw"
        if not b.complete:
            return "betting"
        return "showdown"


def _less(hand: HandState, seat: int, card: Card) -> HandState:
    """The hand with a dead card taken from the seat's cards (held, or given on the draw)."""
    given = hand.given.get(seat, ())
    if card in given:
        cards = tuple(c for c in given if c != card)
        return replace(hand, given=MappingProxyType({**hand.given, seat: cards}))
    held = hand.holes.get(seat, ())
    if card not in held:
        return hand
    holes = {**hand.holes, seat: tuple(c for c in held if c != card)}
    return replace(hand, holes=MappingProxyType(holes))


def _without(cards: Mapping[int, tuple[Card, ...]], seat: int) -> Mapping[int, tuple[Card, ...]]:
    """A seat -> cards map less one seat."""
    return MappingProxyType({s: c for s, c in cards.items() if s != seat})


def _kept(card: Card) -> bool:
    """003 "Lowball" rule 6: a card flashed on the deal "must be kept by the player if it is a
    five or lower" (the joker, the lowest card there is, too)."""
    return card.is_joker or low_value(card) <= 5


class DrawTableEngine(DrawEngine):
    """The engine a draw table builds from its journaled rules (tablectl/games/draw/spec.py)."""

    def __init__(self, rules: Rules) -> None:
        game = settings_of(rules.game)
        super().__init__(table_settings(rules, VARIANT_OF[game.id]), game_id=game.id)


VARIANT_OF: Final[Mapping[str, Variant]] = MappingProxyType({v: v for v in DRAW_VARIANTS})
"""A draw game id -> its variant (each id names its own)."""
