"""The draw family as data: Five Card Draw, Five Card Draw hi-lo and Lowball with the bug, played
by the one poker engine (tablectl/games/poker/engine.py) with the draw games' cards: five down to
each player, a betting round, the draw, a second betting round, the showdown. No board, no up
card.

A hand, from the dealer's console (or the card-reading table's `table.card`, read in
tablectl/games/draw/reader.py):
- `hand.start`: the button moves, the blinds are posted ("The player at the left of the big
  blind has the first right or obligation to bet", 003 "Five Card Draw"); at Lowball the
  straddles after the big blind too (003 "Lowball" rule 5). Five cards to each seat dealt in.
- `decision`: the first betting round. Lowball is "pass and out" before the draw: a player who
  would check must bet or fold, but for a blind or straddle whose post is the bet (its option).
- `draw`: each seat still in, in turn from the dealer's left (R48), asks for 0-5 cards; the
  number first asked for stands (003 "Lowball" rule 14). After the last seat's draw the second
  betting round opens, the first seat still in left of the dealer first.
- `hole.cards`: a seat's five cards as they stand (dealt, or after its draw), journal only.
- `table.card` and `card.flashed`: the reader's reads and Lowball's exposed cards (reader.py).
- The hand ends on the last fold, or when the second round is over and every hand still in is
  known (else the dealer declares the `showdown`). Lowball's seven rule (R45): a player who
  checked a seven or better after the draw and wins keeps only the pot as it stood when the draw
  ended; what the others put in after it goes back to them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from tablectl.game_records import GameRecord, JsonValue, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.draw.reader import (
    FIRST_ASKED,
    FLASHED,
    card_flashed,
    completed,
    dead_cards,
    draw_due,
    in_play,
    table_card,
    without,
)
from tablectl.games.poker.family import (
    Family,
    Game,
    all_chips_play,
    cards_of,
    hand_in_play,
    left_of_the_button,
    next_betting_round,
    no_cards_shown,
)
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ACTION_ORDER, STRADDLE_RULE
from tablectl.rules.draw import (
    HAND_SIZE,
    draw_high,
    draw_low_eight,
    lowball_low,
    seven_or_better,
)
from tablectl.rules.low import describe_low
from tablectl.rules.poker import rank_category
from tablectl.rules.pots import Contribution, Split, Strength, build_pots
from tablectl_base.cards import Card
from tablectl_base.events import CardFlashed, Decision, DrawCards, HoleCards, TableCard

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

FIVE_CARD_DRAW = '003 "Five Card Draw"'
LOWBALL = '003 "Lowball"'
PASS_AND_OUT = '003 "Lowball": "The game is \'pass and out\' before the draw"'
SEVEN_RULE = "R45"
STREET_NAMES: Final = ("before-draw", "after-draw")


def _verify_five(eng: PokerEngine, hand: HandState, seat: int, cards: tuple[Card, ...]) -> None:
    """Five cards from the game's pack, none held by another seat nor dead; before the
    seat's draw, its flashed cards that it keeps among them."""
    if len(cards) != HAND_SIZE:
        raise Rejected(
            f"a draw hand is five cards, not {len(cards)}: a hand of more or fewer is dead "
            '(003 "Lowball" rule 4)',
            rule=eng.game.hole_rule,
        )
    if any(c.is_joker for c in cards) and not eng.game.joker:
        raise Rejected(f"{eng.game_id} is dealt without the joker", rule=eng.game.hole_rule)
    if len(set(cards)) != len(cards):
        raise Rejected("a card appears twice in this hand", rule=eng.game.hole_rule)
    others = in_play(hand) - {*hand.holes.get(seat, ()), *hand.given.get(seat, ())}
    if set(cards) & others:
        raise Rejected(
            "a card appears twice in this hand: another seat holds it",
            rule=eng.game.hole_rule,
        )
    if set(cards) & dead_cards(hand):
        raise Rejected("a card exposed and replaced is dead", rule=FLASHED)
    kept = {c for s, _, c, k in hand.exposed if s == seat and k}
    if seat not in hand.drawn and not kept <= set(cards):
        raise Rejected(
            f"seat {seat} keeps the card flashed to it on the deal: it is one of its five",
            rule=FLASHED,
        )


def verify_hole_cards(eng: PokerEngine, state: PokerState, ev: HoleCards) -> None:
    """A seat's five cards as they stand: as dealt before its draw, its final hand after."""
    hand = hand_in_play(state)
    if ev.seat not in hand.order:
        raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
    _verify_five(eng, hand, ev.seat, cards_of(ev.cards))


def hole_cards(
    eng: PokerEngine, state: PokerState, ev: HoleCards, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """A seat's five from the console; after its draw they are its hand, and the wait for
    the reader's cards and discards ends."""
    verify_hole_cards(eng, state, ev)
    hand = hand_in_play(state)
    if ev.seat in hand.before:
        hand = replace(
            hand,
            before=without(hand.before, ev.seat),
            thrown=without(hand.thrown, ev.seat),
        )
    holes = MappingProxyType({**hand.holes, ev.seat: cards_of(ev.cards)})
    new = replace(state, hand=replace(hand, holes=holes))
    return eng.settle_if_over(new, [event_msg(ev, ts, hide=("cards",))])


def _whole(game: Game, hand: HandState, seat: int) -> bool:
    """Whether the seat's five are known as they stand (after its draw, its new five)."""
    return len(hand.holes.get(seat, ())) == HAND_SIZE


def verify_draw(eng: PokerEngine, state: PokerState, ev: DrawCards) -> None:
    """The seat whose draw it is, once; its discards its own cards, its new ones new."""
    hand = hand_in_play(state)
    due = draw_due(hand)
    if ev.seat in hand.drawn:
        raise Rejected(
            f"seat {ev.seat} asked for {hand.drawn[ev.seat]}: the number first asked for stands",
            rule=FIRST_ASKED,
        )
    if due is None:
        raise Rejected(
            "the draw comes once the first betting round is over", rule=eng.game.hole_rule
        )
    if ev.seat != due:
        raise Rejected(
            f"seat {due} draws first (in turn from the dealer's left)", rule=eng.game.hole_rule
        )
    discard = cards_of(ev.discard or [])
    given = cards_of(ev.cards or [])
    thrown = hand.thrown.get(ev.seat, ())
    if len(thrown) > ev.count:
        raise Rejected(
            f"seat {ev.seat} threw {len(thrown)} card(s) in the muck: it cannot draw {ev.count}",
            rule=eng.game.hole_rule,
        )
    if discard and not set(thrown) <= set(discard):
        raise Rejected(
            f"seat {ev.seat}'s discards read in the muck are not the ones named",
            rule=eng.game.hole_rule,
        )
    for what, cards in (("discard", discard), ("cards", given)):
        if cards and len(cards) != ev.count:
            raise Rejected(
                f"`{what}` names {len(cards)} card(s) for a draw of {ev.count}",
                rule=eng.game.hole_rule,
            )
    held = hand.holes.get(ev.seat, ())
    if discard:
        if len(held) != HAND_SIZE:
            raise Rejected(
                f"seat {ev.seat}'s five are not in: its discards cannot be named",
                rule=eng.game.hole_rule,
            )
        if not set(discard) <= set(held) or len(set(discard)) != len(discard):
            raise Rejected(
                f"the discards are not seat {ev.seat}'s own cards", rule=eng.game.hole_rule
            )
    if given:
        if any(c.is_joker for c in given) and not eng.game.joker:
            raise Rejected(f"{eng.game_id} is dealt without the joker", rule=eng.game.hole_rule)
        seen = {c for cards in hand.holes.values() for c in cards} | dead_cards(hand)
        if len(set(given)) != len(given) or set(given) & seen:
            raise Rejected("a card appears twice in this hand", rule=eng.game.hole_rule)


def draw(
    eng: PokerEngine, state: PokerState, ev: DrawCards, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Record the draw (its cards journaled only, R46): the seat's five as they now stand
    where the discards and the new cards are known, else unknown until `hole.cards`; after
    the last seat's draw the second betting round opens."""
    verify_draw(eng, state, ev)
    hand = hand_in_play(state)
    held = hand.holes.get(ev.seat, ())
    discard, given = cards_of(ev.discard or []), cards_of(ev.cards or [])
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
        hand = completed(
            replace(
                hand,
                holes=without(hand.holes, ev.seat),
                drawn=drawn,
                before=MappingProxyType({**hand.before, ev.seat: held}),
                thrown=MappingProxyType({**hand.thrown, ev.seat: thrown}),
            ),
            ev.seat,
        )
    if draw_due(hand) is None:
        hand = next_betting_round(eng.game, hand)
    echo = event_msg(ev, ts, hide=("discard", "cards"), round=hand.number)
    return eng.settle_if_over(replace(state, hand=hand), [echo])


def _went_on(game: Game, hand: HandState) -> HandState:
    """A dead hand that was the last one due to draw: the second round opens."""
    b = hand.betting
    waited = b.street == 0 and b.complete and not b.hand_over and bool(hand.drawn)
    if waited and draw_due(hand) is None:
        return next_betting_round(game, hand)
    return hand


def _before_action(game: Game, hand: HandState, ev: Decision) -> None:
    """Lowball is pass and out before the draw: no check, but a blind's or straddle's whose
    post is the bet (its option); no action while a draw is due."""
    b = hand.betting
    if draw_due(hand) is not None:
        raise Rejected("every player still in draws before the second round", rule=game.hole_rule)
    if game.pass_and_out and b.street == 0 and ev.action == "check":
        me = next((p for p in b.players if p.seat == ev.seat), None)
        if me is None or me.in_round == 0:
            raise Rejected("no check before the draw: bet or fold", rule=PASS_AND_OUT)


def _all_dealt(game: Game, hand: HandState) -> bool:
    """Whether the draw is over: the second betting round is the one in play."""
    return hand.betting.street == 1


def _reached_flop(game: Game, hand: HandState) -> bool:
    """R44 in the draw games: the fee is the rate once the draw is reached (the flop's
    place: the cards after the first betting round)."""
    return hand.betting.street >= 1 or draw_due(hand) is not None


def _street_name(game: Game, street: int) -> str:
    """A betting round's name: before or after the draw."""
    return STREET_NAMES[street]


def _strength(game: Game, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
    """A seat's showdown keys from its five (rules/draw.py) and the hand as shown."""
    five = hand.holes[seat]
    cards = tuple(map(str, five))
    low = None if game.low is None else game.low(five, ())
    low_name = None if low is None else describe_low(low[0])
    low_shown = None if low is None else tuple(map(str, low[1]))
    if game.split is Split.LOW:  # Lowball: the low hand is the whole hand
        assert low is not None
        return Strength((), low[0]), ShownHand(seat, cards, (), "", low_shown, low_name)
    high = game.high(five, ())
    shown = ShownHand(
        seat, cards, tuple(map(str, high[1])), rank_category(high[0]), low_shown, low_name
    )
    return Strength(high[0], None if low is None else low[0]), shown


def _pot_chips(
    game: Game, hand: HandState, ranking: Mapping[int, Strength], declared: bool
) -> tuple[list[Contribution], tuple[tuple[int, Decimal], ...]]:
    """R45: when a player who checked a seven or better after the draw wins, the pot is the
    pot as it stood when the draw ended, and every chip put in after the draw goes back to
    whoever put it in. Only when the hands speak (a declared showdown names no hands)."""
    chips, none = all_chips_play(game, hand, ranking, declared)
    b = hand.betting
    if not game.seven_rule or declared or b.street != 1 or not ranking:
        return chips, none
    checked = {a.seat for a in b.actions if a.verb == "check"}
    sevens = {s for s in checked & set(ranking) if (low := ranking[s].low) and seven_or_better(low)}
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


def _seat_shown(hand: HandState, seat: int) -> dict[str, JsonValue]:
    """How many cards a seat drew (public: the table sees it), None before its draw."""
    if seat not in hand.order:
        return {}
    return {"drew": hand.drawn.get(seat)}


def _phase(game: Game, hand: HandState) -> str:
    """What the hand waits for: an action, a draw, or the showdown."""
    b = hand.betting
    if draw_due(hand) is not None:
        return "draw"
    if not b.complete:
        return "betting"
    return "showdown"


# ---------------------------------------------------------------- the family and its games

DRAW: Final = Family(
    name="draw",
    steps=MappingProxyType(
        {HoleCards: hole_cards, TableCard: table_card, DrawCards: draw, CardFlashed: card_flashed}
    ),
    street_name=_street_name,
    first_bettor=left_of_the_button,
    last_street=lambda game: 1,
    all_dealt=_all_dealt,
    reached_flop=_reached_flop,
    whole=_whole,
    strength=_strength,
    phase=_phase,
    cards_shown=no_cards_shown,
    seat_shown=_seat_shown,
    before_action=_before_action,
    went_on=_went_on,
    pot_chips=_pot_chips,
)
"""The draw games: five down, a draw, no board and no up card."""

DRAW_GAMES: Final[Mapping[str, Game]] = MappingProxyType(
    {
        "five-card-draw": Game(
            DRAW, HAND_SIZE, FIVE_CARD_DRAW, Split.HIGH, lambda hole, _board: draw_high(hole)
        ),
        "five-card-draw-hi-lo": Game(
            DRAW,
            HAND_SIZE,
            '003 "Five Card Draw (High-Low Split)"',
            Split.HIGH_LOW,
            lambda hole, _board: draw_high(hole),
            lambda hole, _board: draw_low_eight(hole),
        ),
        "lowball": Game(
            DRAW,
            HAND_SIZE,
            LOWBALL,
            Split.LOW,
            lambda hole, _board: draw_high(hole),
            lambda hole, _board: lowball_low(hole),
            joker=True,
            pass_and_out=True,
            seven_rule=True,
            straddles=STRADDLE_RULE,
        ),
    }
)
"""Each draw game by its id (which names its variant). Lowball in Dealer's Choice is dealt
without the joker (003 "Lowball" rule 1): the engine's `joker=False`."""
