"""The stud family as data: Seven Card Stud, Seven Card Stud hi-lo, Razz, Five Card Stud and
Option Alley, played by the one poker engine (tablectl/games/poker/engine.py) with stud's cards:
each seat's own down and up cards street by street, no board.

A hand, from the dealer's console (or the card-reading table's `table.card`, one card at a time):
- `hand.start`: the button moves, the blinds are posted ("These tables use blinds, not a
  bring-in": the first betting round starts left of the big blind, 003 "Seven Card Stud (High)",
  "Five Card Stud"); the first street's down cards are dealt with it.
- `up.cards`: a street's face-up card to every seat still in (public as it falls, R46), the first
  street's door card included; betting opens once its cards are out, and in every later round
  with the highest board showing (Razz: the lowest), a tie to the seat nearest the dealer's left
  (R47, tablectl/rules/stud.py).
- `down.cards`: Seven Card Stud's seventh card, face down to every seat still in (its cards, when
  the console knows them, are journaled only).
- `hole.cards`: a seat's down cards, any time before the showdown needs them (journal only).
- `option.buy`: Option Alley's buy, in turn from the dealer's left, after the last up card's
  betting (003 "Option Alley").
- `decision`, `showdown` (a table without a reader), `round.void`, `time.collect` as in every
  poker game. A folded seat's up cards are turned down: `state` shows none of them again (R46).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from tablectl.game_records import GameRecord, JsonValue, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.poker.family import (
    Family,
    Game,
    all_chips_play,
    cards_of,
    hand_in_play,
    live_seats,
    next_betting_round,
    no_cards_shown,
)
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ACTION_ORDER, ROUND_OF_PLAY, BettingError
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
from tablectl_base.events import Decision, DownCards, HoleCards, OptionBuy, TableCard, UpCards

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

ONE_DECK = '003 "Basic Seven Card Stud Rules" (one deck: a card is dealt once)'
FIVE_CARD_RULE = '003 "Five Card Stud"'
OPTION_ALLEY = '003 "Option Alley"'
STREET_NAMES: Final = ("second", "third", "fourth", "fifth", "sixth", "seventh")

# ------------------------------------------------------------------ streets


def _verify_dealing(game: Game, hand: HandState) -> None:
    """The next street may be dealt now: the first with the hand, a later one once the
    betting round before it is over."""
    b = hand.betting
    if hand.streets >= len(game.streets) or b.hand_over:
        raise Rejected("every street of this hand is dealt", rule=game.hole_rule)
    if hand.streets > 0 and not b.complete:
        raise Rejected(
            f"the betting round is not over: seat {b.turn} is to act", rule=ROUND_OF_PLAY
        )


def _verify_street(game: Game, hand: HandState, face: Face) -> None:
    """The next street may be dealt now, and the console deals it with `face` cards: each
    street with an up card by `up.cards` (the first street's down cards come with the
    hand), the others by `down.cards`."""
    _verify_dealing(game, hand)
    street = game.streets[hand.streets]
    if face not in street or (face == "down" and "up" in street):
        name = _street_name(game, hand.streets)
        want = "up.cards" if "up" in street else "down.cards"
        raise Rejected(f"the {name} street is dealt with {want}", rule=game.hole_rule)


def _verify_seat_cards(
    game: Game, hand: HandState, given: Sequence[tuple[int, str]], what: str
) -> tuple[Card, ...]:
    """One card to every seat still in, each once, none seen before in the hand."""
    live = live_seats(hand)
    seats = [s for s, _ in given]
    if sorted(seats) != sorted(live) or len(set(seats)) != len(seats):
        raise Rejected(f"{what}: one card to each seat still in, seats {live}", rule=game.hole_rule)
    cards = cards_of([c for _, c in given])
    _verify_new(game, hand, cards)
    return cards


def _verify_new(game: Game, hand: HandState, cards: Sequence[Card]) -> None:
    """Cards from the one deck: no joker, none twice."""
    if any(c.is_joker for c in cards):
        raise Rejected("stud is dealt without the joker", rule=ONE_DECK)
    if len(set(cards)) != len(cards) or set(cards) & _seen(hand):
        raise Rejected(
            "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
        )


def _seen(hand: HandState) -> set[Card]:
    """Every card entered this hand: down cards, up cards and Option Alley's discards."""
    held = (*hand.holes.values(), *hand.up.values(), *hand.bought.values())
    return {c for cards in held for c in cards}


def _dealt(game: Game, hand: HandState) -> HandState:
    """One more street is out: its betting round opens (after the first street's, which
    the blinds opened), the highest board showing first (Razz: the lowest)."""
    hand = replace(hand, streets=hand.streets + 1)
    if hand.streets == 1:
        return hand
    try:
        return next_betting_round(game, hand)
    except BettingError as e:  # unreachable: the street was verified dealable
        raise Rejected(e.reason, rule=e.rule) from None


def _first_bettor(game: Game, hand: HandState) -> int | None:
    """R47: the best board showing among the seats still in opens a later round (Razz: the
    lowest), a tie to the one nearest the dealer's left (tablectl/rules/stud.py)."""
    return first_bettor(live_seats(hand), hand.up, low=game.low_bets_first)


def verify_up_cards(eng: PokerEngine, state: PokerState, ev: UpCards) -> None:
    """The street's up card to every seat still in, once the betting before it is over."""
    hand = hand_in_play(state)
    _verify_street(eng.game, hand, "up")
    _verify_seat_cards(eng.game, hand, [(x.seat, x.card) for x in ev.cards], "up.cards")


def up_cards(
    eng: PokerEngine, state: PokerState, ev: UpCards, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Turn up the street's cards (public, R46); the street's betting round opens."""
    verify_up_cards(eng, state, ev)
    hand = hand_in_play(state)
    up = dict(hand.up)
    for x in ev.cards:
        up[x.seat] = (*up.get(x.seat, ()), parse_card(x.card))
    hand = _dealt(eng.game, replace(hand, up=MappingProxyType(up)))
    echo = event_msg(ev, ts, round=hand.number, street=_street_name(eng.game, hand.streets - 1))
    return eng.settle_if_over(replace(state, hand=hand), [echo])


def verify_down_cards(eng: PokerEngine, state: PokerState, ev: DownCards) -> None:
    """Seven Card Stud's seventh street: face down to every seat still in."""
    hand = hand_in_play(state)
    _verify_street(eng.game, hand, "down")
    if ev.cards is not None:
        _verify_seat_cards(eng.game, hand, [(x.seat, x.card) for x in ev.cards], "down.cards")


def down_cards(
    eng: PokerEngine, state: PokerState, ev: DownCards, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Deal the down street (its cards journaled only, R46); its betting round opens."""
    verify_down_cards(eng, state, ev)
    hand = hand_in_play(state)
    if ev.cards is not None:
        holes = dict(hand.holes)
        for x in ev.cards:
            holes[x.seat] = (*holes.get(x.seat, ()), parse_card(x.card))
        hand = replace(hand, holes=MappingProxyType(holes))
    hand = _dealt(eng.game, hand)
    echo = event_msg(
        ev, ts, hide=("cards",), round=hand.number, street=_street_name(eng.game, hand.streets - 1)
    )
    return eng.settle_if_over(replace(state, hand=hand), [echo])


# ------------------------------------------------------------------ Option Alley's buy


def _buy_due(game: Game, hand: HandState) -> int | None:
    """Option Alley: the seat whose buy is next (in turn from the dealer's left), once the
    last up card's betting is over; None when no buy is due."""
    b = hand.betting
    if not game.buy or hand.streets != len(game.streets):
        return None
    if not b.complete or b.hand_over:
        return None
    return next((s for s in live_seats(hand) if s not in hand.bought), None)


def verify_option_buy(eng: PokerEngine, state: PokerState, ev: OptionBuy) -> None:
    """The seat whose buy it is: stands pat, or discards one of its up cards (its new card
    dealt up) or its hole card (the new one down) (003 "Option Alley")."""
    hand = hand_in_play(state)
    if not eng.game.buy:
        raise Rejected(f"{eng.game_id} has no buy", rule=eng.game.hole_rule)
    due = _buy_due(eng.game, hand)
    if due is None:
        raise Rejected("the buy comes once the last up card's betting is over", rule=OPTION_ALLEY)
    if ev.seat != due:
        raise Rejected(f"seat {due} buys first (in turn from the dealer's left)", rule=OPTION_ALLEY)
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
        _verify_new(eng.game, hand, [parse_card(ev.card)])


def option_buy(
    eng: PokerEngine, state: PokerState, ev: OptionBuy, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Play the buy; after the last seat's, the buy's betting round opens, the best board
    showing first. A hole card and its replacement are journaled only (R46)."""
    verify_option_buy(eng, state, ev)
    hand = hand_in_play(state)
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
    if _buy_due(eng.game, hand) is None:
        hand = _dealt(eng.game, hand)
    echo = event_msg(ev, ts, hide=hide, round=hand.number)
    return eng.settle_if_over(replace(state, hand=hand), [echo])


def _went_on(game: Game, hand: HandState) -> HandState:
    """A dead hand that was the last one due to buy (Option Alley): the buy's round opens."""
    b = hand.betting
    waited = game.buy and bool(hand.bought) and b.complete and not b.hand_over
    if waited and hand.streets == len(game.streets) and _buy_due(game, hand) is None:
        return _dealt(game, hand)
    return hand


# ------------------------------------------------------------------ down cards


def _downs_dealt(game: Game, hand: HandState) -> int:
    """How many down cards each seat has been dealt so far (the first street's come with
    `hand.start`)."""
    return sum(f == "down" for st in game.streets[: max(1, hand.streets)] for f in st)


def _whole(game: Game, hand: HandState, seat: int) -> bool:
    """Whether all of `seat`'s down cards are in: its hand can speak at the showdown."""
    return len(hand.holes.get(seat, ())) == game.downs


def verify_hole_cards(eng: PokerEngine, state: PokerState, ev: HoleCards) -> None:
    """A seat's down cards, in the order dealt, never more than it has been dealt."""
    hand = hand_in_play(state)
    if ev.seat not in hand.order:
        raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
    have = len(hand.holes.get(ev.seat, ()))
    dealt = _downs_dealt(eng.game, hand)
    cards = cards_of(ev.cards)
    if not cards or have + len(cards) > dealt:
        raise Rejected(
            f"seat {ev.seat} has been dealt {dealt} down card{'s' if dealt > 1 else ''} "
            f"and {have} {'are' if have != 1 else 'is'} in: {len(cards)} more is not right",
            rule=eng.game.hole_rule,
        )
    _verify_new(eng.game, hand, cards)


def hole_cards(
    eng: PokerEngine, state: PokerState, ev: HoleCards, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """Record down cards (never published, R46); a waiting showdown may now run."""
    verify_hole_cards(eng, state, ev)
    hand = hand_in_play(state)
    cards = (*hand.holes.get(ev.seat, ()), *cards_of(ev.cards))
    hand = replace(hand, holes=MappingProxyType({**hand.holes, ev.seat: cards}))
    return eng.settle_if_over(replace(state, hand=hand), [event_msg(ev, ts, hide=("cards",))])


# ------------------------------------------------------------------ the card-reading table


def _next_face(game: Game, hand: HandState, seat: int) -> Face | None:
    """The face of the next card `seat` is dealt in the street being dealt, or None when
    it has that street's cards already."""
    want = sum(len(st) for st in game.streets[: hand.streets + 1])
    have = len(hand.holes.get(seat, ())) + len(hand.up.get(seat, ()))
    return None if have >= want else game.faces()[have]


def verify_table_card(eng: PokerEngine, state: PokerState, ev: TableCard) -> None:
    """A card the reader placed at a seat still in, in the street being dealt (its face is
    the deal's: 003 "Basic Seven Card Stud Rules" rule 1), or in the muck."""
    hand = hand_in_play(state)
    if ev.zone == "muck":
        return
    if ev.zone == "board":
        raise Rejected("stud has no board: every card goes to a seat", rule=DEAL_RULE)
    assert ev.seat is not None
    if ev.seat not in live_seats(hand):
        raise Rejected(f"seat {ev.seat} is not in this hand", rule=ACTION_ORDER)
    _verify_dealing(eng.game, hand)
    if _next_face(eng.game, hand, ev.seat) is None:
        raise Rejected(f"seat {ev.seat} has this street's cards already", rule=eng.game.hole_rule)
    _verify_new(eng.game, hand, [parse_card(ev.card)])


def table_card(
    eng: PokerEngine, state: PokerState, ev: TableCard, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """A down card joins the seat's (never published); an up card is shown; the street is
    dealt once every seat still in has its cards."""
    verify_table_card(eng, state, ev)
    hand = hand_in_play(state)
    if ev.zone == "muck":
        return state, [event_msg(ev, ts, hide=("card",), round=hand.number)]
    assert ev.seat is not None
    card = parse_card(ev.card)
    face = _next_face(eng.game, hand, ev.seat)
    if face == "up":
        up = {**hand.up, ev.seat: (*hand.up.get(ev.seat, ()), card)}
        hand = replace(hand, up=MappingProxyType(up))
        echo = event_msg(ev, ts, round=hand.number, face="up")
    else:
        holes = {**hand.holes, ev.seat: (*hand.holes.get(ev.seat, ()), card)}
        hand = replace(hand, holes=MappingProxyType(holes))
        echo = event_msg(ev, ts, hide=("card",), round=hand.number, face="down")
    if all(_next_face(eng.game, hand, s) is None for s in live_seats(hand)):
        hand = _dealt(eng.game, hand)
    return eng.settle_if_over(replace(state, hand=hand), [echo])


# ------------------------------------------------------------------ betting


def _before_action(game: Game, hand: HandState, ev: Decision) -> None:
    """A betting round's action comes once its street's cards are out."""
    if hand.streets <= hand.betting.street:
        name = _street_name(game, hand.betting.street)
        raise Rejected(
            f"the {name} street's cards are dealt before its betting", rule=game.hole_rule
        )


# ------------------------------------------------------------------ the showdown


def _all_dealt(game: Game, hand: HandState) -> bool:
    """Whether every street is out (and Option Alley's buy made: it counts as one more)."""
    return hand.streets == len(game.streets) + (1 if game.buy else 0)


def _reached_flop(game: Game, hand: HandState) -> bool:
    """R44 in stud: the fee is the rate once the second street is dealt (the flop's place:
    the first card after the first betting round)."""
    return hand.streets >= 2


def _street_name(game: Game, street: int) -> str:
    """A betting round's name: the street its cards complete ("third" .. "seventh"), or
    Option Alley's "buy"."""
    if street >= len(game.streets):
        return "buy"
    return STREET_NAMES[street + game.first_street - 2]


def _strength(game: Game, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
    """A seat's showdown keys from all its cards (rules/stud.py) and the hand as shown."""
    down, up = hand.holes[seat], hand.up.get(seat, ())
    cards = tuple(map(str, (*down, *up)))
    low = None if game.low is None else game.low(down, up)
    low_shown = None if low is None else tuple(map(str, low[1]))
    low_name = None if low is None else describe_low(low[0])
    if game.split is Split.LOW:  # Razz: the low hand is the whole hand
        assert low is not None
        return Strength((), low[0]), ShownHand(seat, cards, (), "", low_shown, low_name)
    high = game.high(down, up)
    shown = ShownHand(
        seat, cards, tuple(map(str, high[1])), rank_category(high[0]), low_shown, low_name
    )
    return Strength(high[0], None if low is None else low[0]), shown


# ------------------------------------------------------------------ the view


def _seat_shown(hand: HandState, seat: int) -> dict[str, JsonValue]:
    """A seat's up cards while it is in; a folded seat's are turned down (003 "Basic Seven
    Card Stud Rules" rule 2): none shown."""
    if seat not in hand.order:
        return {}
    live = seat in live_seats(hand)
    return {"up": [str(c) for c in hand.up.get(seat, ())] if live else []}


def _phase(game: Game, hand: HandState) -> str:
    """What the hand waits for: a street's cards, an action, or the showdown."""
    b = hand.betting
    if _buy_due(game, hand) is not None:
        return "buy"
    if hand.streets <= b.street or (b.complete and not _all_dealt(game, hand)):
        return "deal"
    if not b.complete:
        return "betting"
    return "showdown"


# ---------------------------------------------------------------- the family and its games

STUD: Final = Family(
    name="stud",
    steps=MappingProxyType(
        {
            HoleCards: hole_cards,
            TableCard: table_card,
            UpCards: up_cards,
            DownCards: down_cards,
            OptionBuy: option_buy,
        }
    ),
    street_name=_street_name,
    first_bettor=_first_bettor,
    last_street=lambda game: len(game.streets) - (0 if game.buy else 1),
    all_dealt=_all_dealt,
    reached_flop=_reached_flop,
    whole=_whole,
    strength=_strength,
    phase=_phase,
    cards_shown=no_cards_shown,
    seat_shown=_seat_shown,
    before_action=_before_action,
    went_on=_went_on,
    pot_chips=all_chips_play,
)
"""The stud games: down and up cards street by street, no board."""

STUD_GAMES: Final[Mapping[str, Game]] = MappingProxyType(
    {
        "seven-card-stud": Game(STUD, 3, DEAL_RULE, Split.HIGH, stud_high, streets=SEVEN_CARD_STUD),
        "seven-card-stud-hi-lo": Game(
            STUD,
            3,
            '003 "Seven Card Stud (High-Low Split)"',
            Split.HIGH_LOW,
            stud_high,
            stud_low_eight,
            streets=SEVEN_CARD_STUD,
        ),
        "razz": Game(
            STUD,
            3,
            '003 "Razz (Seven Card Stud, Low Only)"',
            Split.LOW,
            stud_high,
            razz_low,
            streets=SEVEN_CARD_STUD,
            low_bets_first=True,
        ),
        "five-card-stud": Game(
            STUD, 1, FIVE_CARD_RULE, Split.HIGH, stud_high, streets=FIVE_CARD_STUD, first_street=2
        ),
        "option-alley": Game(
            STUD,
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
"""Each stud game by its id (which names its variant)."""
