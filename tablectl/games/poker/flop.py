"""The flop family as data: Texas Hold'em, Omaha, Omaha hi-lo and Crazy Pineapple hi-lo, and how
their cards are dealt and read: hole cards to each seat (journal only, R46), the board 3, 1, 1
after each betting round, Crazy Pineapple's discard after the flop (003 "Crazy Pineapple High-Low
Split: Dealing Procedures and Round of Play"), the card-reading table's cards one by one.
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
    discards_due,
    hand_in_play,
    left_of_the_button,
    next_betting_round,
    no_refusal,
    no_seat_cards_shown,
    waits_on_no_seat,
)
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ACTION_ORDER, ROUND_OF_PLAY
from tablectl.rules.flop_hands import (
    crazy_pineapple_high,
    crazy_pineapple_keep,
    crazy_pineapple_low,
    holdem_high,
    omaha_high,
    omaha_low,
)
from tablectl.rules.low import describe_low
from tablectl.rules.poker import rank_category
from tablectl.rules.pots import Split, Strength
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import BoardCards, HoleCards, HoleDiscard, TableCard

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

_CRAZY_PINEAPPLE = '003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play"'
DISCARD_RULE = _CRAZY_PINEAPPLE
ONE_DECK = '004 "Omaha High/Low Split: Description of the Deck and Number of Decks Used"'
BOARD_AFTER: Final = (3, 4, 5)  # the board after betting rounds 0, 1, 2: flop, turn, river
STREETS: Final = ("preflop", "flop", "turn", "river")

Result = tuple[PokerState, list[GameRecord]]


# ---------------------------------------------------------------- the family's policy


def _street_name(game: Game, street: int) -> str:
    """A betting round's name, as `state` shows it."""
    return STREETS[street]


def _all_dealt(game: Game, hand: HandState) -> bool:
    """Whether every card of the hand is dealt: the river is out."""
    return len(hand.board) == BOARD_AFTER[-1]


def _reached_flop(game: Game, hand: HandState) -> bool:
    """Whether the hand got past its first betting round (R44: the flop is dealt)."""
    return len(hand.board) >= BOARD_AFTER[0]


def _whole(game: Game, hand: HandState, seat: int) -> bool:
    """Whether every hole card of `seat` is in (the console gives them at once, a reader one
    by one) and its hand is known: not after a discard nobody saw (`hole.discard` with no
    card, a table without a reader), which leaves the showdown to the dealer."""
    known = len(hand.holes.get(seat, ())) == game.hole_cards
    return known and hand.kept.get(seat) != ()


def _strength(game: Game, hand: HandState, seat: int) -> tuple[Strength, ShownHand]:
    """A seat's showdown keys and the hand as shown, by its game's rule (rules/flop_hands)."""
    hole = hand.kept.get(seat, hand.holes[seat])
    board = hand.board
    high = game.high(hole, board)
    low = None if game.low is None else game.low(hole, board)
    shown = ShownHand(
        seat,
        tuple(map(str, hole)),
        tuple(map(str, high[1])),
        rank_category(high[0]),
        None if low is None else tuple(map(str, low[1])),
        None if low is None else describe_low(low[0]),
    )
    return Strength(high[0], None if low is None else low[0]), shown


def _phase(game: Game, hand: HandState) -> str:
    """What the hand waits for: an action, a discard, board cards, or hole cards."""
    if not hand.betting.complete:
        return "betting"
    if discards_due(game, hand):
        return "discard"
    if len(hand.board) < BOARD_AFTER[-1]:
        return "board"
    return "showdown"


def _cards_shown(hand: HandState) -> dict[str, JsonValue]:
    """The hand's public cards in `state`: the board."""
    return {"board": [str(c) for c in hand.board]}


def _seen(hand: HandState) -> set[Card]:
    """Every card entered this hand: hole cards and the board."""
    return {c for cards in hand.holes.values() for c in cards} | set(hand.board)


# ---------------------------------------------------------------- hole cards and the discard


def verify_hole_cards(eng: PokerEngine, state: PokerState, ev: HoleCards) -> None:
    """The game's number of hole cards, once, to a seat dealt in, from one deck."""
    hand = hand_in_play(state)
    rule = eng.game.hole_rule
    if ev.seat not in hand.order:
        raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
    if ev.seat in hand.holes:
        raise Rejected(f"seat {ev.seat}'s hole cards are already in", rule=rule)
    # (a reader's cards of the seat count as in: the console does not complete them)
    want = eng.game.hole_cards
    cards = cards_of(ev.cards)
    if len(cards) != want:
        raise Rejected(f"seat {ev.seat} is dealt {want} hole cards, not {len(cards)}", rule=rule)
    if any(c.is_joker for c in cards):
        raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
    if len(set(cards)) != len(cards) or set(cards) & _seen(hand):
        raise Rejected(
            "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
        )


def hole_cards(eng: PokerEngine, state: PokerState, ev: HoleCards, ts: str) -> Result:
    """Record a seat's hole cards (never published, R46); a waiting showdown may now run."""
    verify_hole_cards(eng, state, ev)
    hand = hand_in_play(state)
    holes = MappingProxyType({**hand.holes, ev.seat: cards_of(ev.cards)})
    new = replace(state, hand=replace(hand, holes=holes))
    return eng.settle_if_over(new, [event_msg(ev, ts, hide=("cards",))])


def verify_hole_discard(eng: PokerEngine, state: PokerState, ev: HoleDiscard) -> None:
    """Crazy Pineapple only, after the flop, once per seat still in, one of its own cards."""
    hand = hand_in_play(state)
    if not eng.game.discards:
        raise Rejected(f"{eng.game_id} has no discard", rule=DISCARD_RULE)
    if len(hand.board) < 3:
        raise Rejected("the discard comes after the flop", rule=DISCARD_RULE)
    if ev.seat not in discards_due(eng.game, hand):
        raise Rejected(f"seat {ev.seat} has no discard to make", rule=DISCARD_RULE)
    known = len(hand.holes.get(ev.seat, ())) == eng.game.hole_cards
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
        raise Rejected(f"the discard is not one of seat {ev.seat}'s hole cards", rule=DISCARD_RULE)


def hole_discard(eng: PokerEngine, state: PokerState, ev: HoleDiscard, ts: str) -> Result:
    """Keep two of three; the last discard opens the second betting round."""
    verify_hole_discard(eng, state, ev)
    hand = hand_in_play(state)
    kept: tuple[Card, ...] = ()  # unseen: the hand cannot speak at the showdown
    if ev.card is not None:
        kept = crazy_pineapple_keep(hand.holes[ev.seat], parse_card(ev.card))
    hand = replace(hand, kept=MappingProxyType({**hand.kept, ev.seat: kept}))
    if not discards_due(eng.game, hand):
        hand = next_betting_round(eng.game, hand)
    new = replace(state, hand=hand)
    return eng.settle_if_over(new, [event_msg(ev, ts, hide=("card",))])


# ---------------------------------------------------------------- the board


def verify_board_cards(
    eng: PokerEngine, state: PokerState, ev: BoardCards, *, one_by_one: bool = False
) -> None:
    """The flop (3), turn (1) or river (1), each once the betting round before is over; a
    reader turns them up `one_by_one`."""
    hand = hand_in_play(state)
    betting = hand.betting
    if not betting.complete:
        raise Rejected(
            f"the betting round is not over: seat {betting.turn} is to act", rule=ROUND_OF_PLAY
        )
    if betting.hand_over or len(hand.board) >= BOARD_AFTER[-1]:
        raise Rejected("no more board cards are dealt in this hand", rule=ROUND_OF_PLAY)
    if discards_due(eng.game, hand):
        raise Rejected("every player still in discards before the turn", rule=DISCARD_RULE)
    want = BOARD_AFTER[betting.street] - len(hand.board)
    cards = cards_of(ev.cards)
    if len(cards) != want and not (one_by_one and len(cards) == 1):
        raise Rejected(
            f"the {STREETS[betting.street + 1]} is {want} card"
            f"{'s' if want > 1 else ''}, not {len(cards)}",
            rule=ROUND_OF_PLAY,
        )
    if any(c.is_joker for c in cards):
        raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
    if len(set(cards)) != len(cards) or set(cards) & _seen(hand):
        raise Rejected(
            "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
        )


def board_cards(eng: PokerEngine, state: PokerState, ev: BoardCards, ts: str) -> Result:
    """Turn up the board; the next betting round opens (after Crazy Pineapple's discard)."""
    verify_board_cards(eng, state, ev)
    hand = _with_board(eng.game, hand_in_play(state), cards_of(ev.cards))
    new = replace(state, hand=hand)
    return eng.settle_if_over(new, [event_msg(ev, ts, round=hand.number)])


def _with_board(game: Game, hand: HandState, cards: Sequence[Card]) -> HandState:
    """The board with `cards` turned up; once the street is whole (and Crazy Pineapple's
    discards made) the next betting round opens."""
    hand = replace(hand, board=(*hand.board, *cards))
    if len(hand.board) == BOARD_AFTER[hand.betting.street] and not discards_due(game, hand):
        hand = next_betting_round(game, hand)
    return hand


# ---------------------------------------------------------------- the card-reading table


def verify_table_card(eng: PokerEngine, state: PokerState, ev: TableCard) -> None:
    """A card the reader placed: to a seat dealt in with hole cards still to come, to the
    board when the betting round before its street is over, or to the muck (anything)."""
    hand = hand_in_play(state)
    card = parse_card(ev.card)
    if ev.zone == "muck":
        return  # burns, folded hands and discards: the muck takes any card
    if card.is_joker:
        raise Rejected("the flop games are dealt without the joker", rule=ONE_DECK)
    if card in _seen(hand):
        raise Rejected(
            "a card appears twice in this hand: it is dealt from one deck", rule=ONE_DECK
        )
    if ev.zone == "board":
        verify_board_cards(eng, state, BoardCards(cards=[ev.card]), one_by_one=True)
        return
    assert ev.seat is not None  # the event's own check: a seat zone names its seat
    if ev.seat not in hand.order:
        raise Rejected(f"seat {ev.seat} is not dealt in this hand", rule=ACTION_ORDER)
    if _whole(eng.game, hand, ev.seat):
        raise Rejected(
            f"seat {ev.seat} already has its {eng.game.hole_cards} hole cards",
            rule=eng.game.hole_rule,
        )


def table_card(eng: PokerEngine, state: PokerState, ev: TableCard, ts: str) -> Result:
    """A hole card joins its seat's (never published, R46); a board card turns up (and may
    complete its street); a card in the muck is Crazy Pineapple's discard when it is a
    hole card of a seat that owes one, and otherwise changes nothing (burns, folds)."""
    verify_table_card(eng, state, ev)
    hand = hand_in_play(state)
    card = parse_card(ev.card)
    if ev.zone == "board":
        hand = _with_board(eng.game, hand, [card])
        echo = event_msg(ev, ts, round=hand.number)
        return eng.settle_if_over(replace(state, hand=hand), [echo])
    hidden = event_msg(ev, ts, hide=("card",), round=hand.number)
    if ev.zone == "seat":
        assert ev.seat is not None
        cards = (*hand.holes.get(ev.seat, ()), card)
        hand = replace(hand, holes=MappingProxyType({**hand.holes, ev.seat: cards}))
        return eng.settle_if_over(replace(state, hand=hand), [hidden])
    due = discards_due(eng.game, hand)
    owner = next((s for s in due if card in hand.holes.get(s, ())), None)
    if owner is None or not _whole(eng.game, hand, owner):
        return state, [hidden]
    return hole_discard(eng, state, HoleDiscard(seat=owner, card=ev.card), ts)


# ---------------------------------------------------------------- the family and its games

FLOP: Final = Family(
    name="flop",
    steps=MappingProxyType(
        {
            HoleCards: hole_cards,
            HoleDiscard: hole_discard,
            BoardCards: board_cards,
            TableCard: table_card,
        }
    ),
    street_name=_street_name,
    first_bettor=left_of_the_button,
    last_street=lambda game: len(STREETS) - 1,
    all_dealt=_all_dealt,
    reached_flop=_reached_flop,
    whole=_whole,
    strength=_strength,
    phase=_phase,
    cards_shown=_cards_shown,
    seat_shown=no_seat_cards_shown,
    before_action=no_refusal,
    went_on=waits_on_no_seat,
    pot_chips=all_chips_play,
)
"""The flop games: hole cards and a board of five."""

FLOP_GAMES: Final[Mapping[str, Game]] = MappingProxyType(
    {
        "texas-holdem": Game(FLOP, 2, '003 "Texas Hold-Em (High)" rule 1', Split.HIGH, holdem_high),
        "omaha": Game(FLOP, 4, '003 "Omaha (High)" rule 1', Split.HIGH, omaha_high),
        "omaha-hi-lo": Game(
            FLOP, 4, '003 "Omaha (High-Low Split)" rule 1', Split.HIGH_LOW, omaha_high, omaha_low
        ),
        "crazy-pineapple-hi-lo": Game(
            FLOP,
            3,
            _CRAZY_PINEAPPLE,
            Split.HIGH_LOW,
            crazy_pineapple_high,
            crazy_pineapple_low,
            discards=True,
        ),
    }
)
"""Each flop game by its id (which names its variant)."""
