"""The draw hand's cards as they are dealt and read, for the draw family
(tablectl/games/draw/family.py): the card-reading table's reads (each seat's five on the deal, the
cards a seat asked for on the draw, discards and burns in the muck) and Lowball's flashed and
boxed cards (003 "Lowball", Lowball Rules, rules 6-9, 13, 16, 18).

On the deal each seat's five (a sixth at two seats is a misdeal, rule 13); on the draw the cards
each seat asked for, four at once and the fifth after the others (rule 16), each seat's after a
burn (rule 18); in the muck, discards and burns. A flashed card on the deal is kept when it is a
five or lower, else replaced (rule 6); on the draw it is always replaced (rules 7, 8); a boxed
card is dead (rules 7, 9); a second card exposed on the deal is a misdeal (rule 13).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from tablectl.game_records import GameRecord
from tablectl.games.base import Rejected
from tablectl.games.common import event_msg
from tablectl.games.poker.family import Game, hand_in_play, live_seats
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ACTION_ORDER
from tablectl.rules.draw import HAND_SIZE
from tablectl.rules.low import low_value
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import CardFlashed, TableCard

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

FIRST_ASKED = '003 "Lowball" (Lowball Rules, rule 14)'
FLASHED = '003 "Lowball" (Lowball Rules, rules 6-8)'
MISDEAL = '003 "Lowball" (Lowball Rules, rule 13)'
AT_ONCE = '003 "Lowball" (Lowball Rules, rule 16)'
BURN = '003 "Lowball" (Lowball Rules, rule 18)'
BOXED = '003 "Lowball" (Lowball Rules, rules 7, 9)'
AT_ONCE_MOST = 4
"""003 "Lowball" rule 16: "only four cards can be given at one time"."""


def dead_cards(hand: HandState) -> set[Card]:
    """Cards out of play: exposed and replaced (Lowball's flashed cards), boxed, or a sixth
    card dealt to a seat. In no hand again."""
    dead = {card for _, _, card, kept in hand.exposed if not kept}
    return dead | {card for _, _, card in hand.boxed} | {card for _, card in hand.over}


def in_play(hand: HandState) -> set[Card]:
    """Every card a seat holds now or was given on the draw."""
    held = {c for cards in hand.holes.values() for c in cards}
    return held | {c for cards in hand.given.values() for c in cards}


def draw_due(hand: HandState) -> int | None:
    """The seat whose draw is next (in turn from the dealer's left), once the first betting
    round is over; None when no draw is due."""
    b = hand.betting
    if b.street != 0 or not b.complete or b.hand_over:
        return None
    return next((s for s in live_seats(hand) if s not in hand.drawn), None)


def completed(hand: HandState, seat: int) -> HandState:
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
        before=without(hand.before, seat),  # (`given` stays: what the reader dealt)
        thrown=without(hand.thrown, seat),
    )


def verify_table_card(eng: PokerEngine, state: PokerState, ev: TableCard) -> None:
    """The reader's cards: each seat's five on the deal (a sixth at a seat is taken back,
    at two seats a misdeal, rule 13); on the draw, the cards a seat asked for, at most four
    at once and the fifth or a replacement after every other seat has its own (rules 7, 8,
    16), each seat's after a burn (rule 18). The muck takes anything."""
    hand = hand_in_play(state)
    if ev.zone == "muck":
        return
    if ev.zone == "board":
        raise Rejected("a draw game has no board", rule=eng.game.hole_rule)
    seat = ev.seat
    assert seat is not None
    if seat not in hand.order:
        raise Rejected(f"seat {seat} is not dealt in this hand", rule=ACTION_ORDER)
    card = parse_card(ev.card)
    if card.is_joker and not eng.game.joker:
        raise Rejected(f"{eng.game_id} is dealt without the joker", rule=eng.game.hole_rule)
    if card in in_play(hand):
        raise Rejected("a card appears twice in this hand", rule=eng.game.hole_rule)
    if card in dead_cards(hand):
        raise Rejected("a card out of play (exposed, boxed, taken back) is dead", rule=FLASHED)
    if _dealing(hand, seat):
        if any(s == seat for s, _ in hand.over):
            raise Rejected(f"seat {seat} was dealt a sixth card already", rule=eng.game.hole_rule)
        return
    _verify_drawn_card(eng.game, hand, seat)


def _verify_drawn_card(game: Game, hand: HandState, seat: int) -> None:
    """A card read at a seat on the draw: one it asked for, in its turn or late."""
    if seat not in live_seats(hand):
        raise Rejected(f"seat {seat} is not in this hand", rule=ACTION_ORDER)
    if seat not in hand.drawn:
        raise Rejected(
            f"seat {seat} has not asked for cards: its draw is entered with `draw`",
            rule=game.hole_rule,
        )
    if _owed(hand, seat) <= 0:
        raise Rejected(
            f"seat {seat} asked for {hand.drawn[seat]} card(s) and has them",
            rule=FIRST_ASKED,
        )
    if _late(hand, seat):
        waiting = [s for s in live_seats(hand) if s != seat and not _first_given(hand, s)]
        if draw_due(hand) is not None or waiting:
            who = f"seat {waiting[0]}" if waiting else "every seat"
            raise Rejected(
                f"seat {seat}'s fifth card or replacement comes after {who} has its "
                "cards: only four are given at one time",
                rule=AT_ONCE,
            )
        return
    if _delivered(hand, seat) == 0:
        started = sum(1 for s in hand.drawn if s != seat and _delivered(hand, s))
        if hand.burns < started + 1:
            raise Rejected(
                f"no burn was read before seat {seat}'s cards: the dealer burns the top card "
                "face down before filling each player's draw",
                rule=BURN,
            )


def table_card(
    eng: PokerEngine, state: PokerState, ev: TableCard, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """One of a seat's cards (never published); in the muck, on the draw, a seat's discard
    or a burn."""
    verify_table_card(eng, state, ev)
    hand = hand_in_play(state)
    echo = event_msg(ev, ts, hide=("card",), round=hand.number)
    card = parse_card(ev.card)
    if ev.zone == "muck":
        return replace(state, hand=_mucked(hand, card)), [echo]
    seat = ev.seat
    assert seat is not None
    if not _dealing(hand, seat):
        if seat in hand.before:
            given = {**hand.given, seat: (*hand.given.get(seat, ()), card)}
            hand = completed(replace(hand, given=MappingProxyType(given)), seat)
        else:  # a replacement for a card of a hand drawn from the console
            holes = {**hand.holes, seat: (*hand.holes[seat], card)}
            hand = replace(hand, holes=MappingProxyType(holes))
        return eng.settle_if_over(replace(state, hand=hand), [echo])
    if len(hand.holes.get(seat, ())) >= HAND_SIZE:
        return _sixth(eng, replace(state, hand=hand), seat, card, echo, ts)
    cards = (*hand.holes.get(seat, ()), card)
    hand = replace(hand, holes=MappingProxyType({**hand.holes, seat: cards}))
    return eng.settle_if_over(replace(state, hand=hand), [echo])


def _sixth(
    eng: PokerEngine, state: PokerState, seat: int, card: Card, echo: GameRecord, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """A sixth card read at a seat on the deal: the dealer takes it back and it is dead (the
    seat keeps the five it was dealt first); six cards to two players is a misdeal (003
    "Lowball" rule 13): the hand is void at once."""
    hand = hand_in_play(state)
    hand = replace(hand, over=(*hand.over, (seat, card)))
    new = replace(state, hand=hand)
    if len({s for s, _ in hand.over}) > 1:
        why = f"misdeal: six cards were dealt to two players ({MISDEAL})"
        voided, out = eng.void(new, why, ts)
        return voided, [echo, *out[:-1]]  # (apply adds the state)
    return new, [echo]


def _mucked(hand: HandState, card: Card) -> HandState:
    """A card read in the muck. On the draw, a card of a seat whose draw is not yet filled
    is its discard; any other card (no seat's, none dead) a burn. Otherwise (a fold, a card
    thrown away after the draw) nothing."""
    if not _on_draw(hand) or card in dead_cards(hand):
        return hand
    for seat in live_seats(hand):
        pending = seat not in hand.drawn or seat in hand.before
        held = hand.before.get(seat, ()) if seat in hand.before else hand.holes.get(seat, ())
        if card in held:
            if not pending or card in hand.thrown.get(seat, ()):
                return hand
            thrown = {**hand.thrown, seat: (*hand.thrown.get(seat, ()), card)}
            return completed(replace(hand, thrown=MappingProxyType(thrown)), seat)
    if card in in_play(hand):
        return hand
    return replace(hand, burns=hand.burns + 1)


def _on_draw(hand: HandState) -> bool:
    """Whether the deal is over: the draw is due or past."""
    return hand.betting.street == 1 or draw_due(hand) is not None


def _dealing(hand: HandState, seat: int) -> bool:
    """Whether a card read at the seat is one of its five as dealt: before the draw, while
    no seat has asked for cards and the seat has not got five (or, before the first round is
    over, a sixth). Not the betting alone: a hand all in on its blinds has no first round,
    and its five are still dealt."""
    if hand.betting.street == 1 or hand.drawn:
        return seat not in hand.drawn and len(hand.holes.get(seat, ())) < HAND_SIZE
    return len(hand.holes.get(seat, ())) < HAND_SIZE or draw_due(hand) is None


def _owed(hand: HandState, seat: int) -> int:
    """How many cards the seat is still to be given on the draw (a replacement included)."""
    if seat in hand.before:
        return hand.drawn[seat] - len(hand.given.get(seat, ()))
    held = hand.holes.get(seat, ())
    return HAND_SIZE - len(held) if held else 0


def _delivered(hand: HandState, seat: int) -> int:
    """The cards dealt to a seat on the draw so far, those exposed or boxed (dead) too."""
    dead = sum(1 for s, w, _, kept in hand.exposed if s == seat and w == "draw" and not kept)
    dead += sum(1 for s, w, _ in hand.boxed if s == seat and w == "draw")
    return len(hand.given.get(seat, ())) + dead


def _first_given(hand: HandState, seat: int) -> bool:
    """Whether the seat has the cards given at its turn: all it asked for, or four of five
    (rule 16)."""
    if seat not in hand.before:
        return seat in hand.drawn
    return _delivered(hand, seat) >= min(hand.drawn[seat], AT_ONCE_MOST)


def _late(hand: HandState, seat: int) -> bool:
    """Whether the seat's next card is one dealt after the others: the fifth of five (rule
    16) or the replacement of a card exposed or boxed on the draw (rules 7, 8)."""
    if seat not in hand.before:
        return True
    return _first_given(hand, seat)


def verify_card_flashed(eng: PokerEngine, state: PokerState, ev: CardFlashed) -> None:
    """Lowball: a card the dealer exposed to a seat still in, on the deal (before any draw)
    or on the draw (after the first round)."""
    hand = hand_in_play(state)
    if not eng.game.seven_rule:
        raise Rejected(f"the flashed-card rules are Lowball's, not {eng.game_id}'s", rule=FLASHED)
    if ev.seat not in live_seats(hand):
        raise Rejected(f"seat {ev.seat} is not in this hand", rule=ACTION_ORDER)
    card = parse_card(ev.card)
    if card.is_joker and not eng.game.joker:
        raise Rejected(f"{eng.game_id} is dealt without the joker", rule=eng.game.hole_rule)
    mine = {*hand.holes.get(ev.seat, ()), *hand.given.get(ev.seat, ())}
    if card in in_play(hand) - mine or card in dead_cards(hand):
        raise Rejected("that card is another seat's or dead already", rule=FLASHED)
    if (ev.when == "deal") == _on_draw(hand):
        raise Rejected(
            "a card flashed on the deal comes before the draw, on the draw after the first round",
            rule=FLASHED,
        )
    held = hand.holes.get(ev.seat, ())
    kept = ev.when == "deal" and _kept(card) and not ev.boxed
    if kept and len(held) == HAND_SIZE and card not in held:
        raise Rejected(f"the card is not one of seat {ev.seat}'s five", rule=FLASHED)


def card_flashed(
    eng: PokerEngine, state: PokerState, ev: CardFlashed, ts: str
) -> tuple[PokerState, list[GameRecord]]:
    """A flashed card is public. On the deal a five or lower is kept, a six or higher
    replaced after the last player is dealt (rule 6); on the draw it is always replaced
    (rules 7, 8). A boxed card (found faced in the deck) is never kept (rules 7, 9). A
    replaced card is dead: it leaves the seat's cards, and its replacement comes from the
    reader or the console. A second card the dealer exposes on the deal is a misdeal (rule
    13): the hand is void."""
    verify_card_flashed(eng, state, ev)
    hand = hand_in_play(state)
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
        voided, out = eng.void(new, why, ts)
        return voided, [echo, *out[:-1]]  # (apply adds the state)
    return new, [echo]


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


def without(cards: Mapping[int, tuple[Card, ...]], seat: int) -> Mapping[int, tuple[Card, ...]]:
    """A seat -> cards map less one seat."""
    return MappingProxyType({s: c for s, c in cards.items() if s != seat})


def _kept(card: Card) -> bool:
    """003 "Lowball" rule 6: a card flashed on the deal "must be kept by the player if it is a
    five or lower" (the joker, the lowest card there is, too)."""
    return card.is_joker or low_value(card) <= 5
