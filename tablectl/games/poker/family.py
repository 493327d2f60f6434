"""A poker family as data: the policy the one poker engine (tablectl/games/poker/engine.py) reads
for what the flop, stud and draw games do differently, and each game's own data.

A `Family` holds the family's small pure functions (a betting round's name, who opens a later
betting round (stud: the best board showing, R47), whether every card
is dealt, whether the hand reached the flop's place for the fee (R44), whether a seat's hand is
known, its showdown strength, the phase, the cards `state` shows, the refusals before an action,
the chips that play for the pots) and the inputs that deal its cards (`steps`). A `Game` is one
variant: its family, its hole cards, how its pot splits and how a hand is valued, its streets
(stud), its discard (Crazy Pineapple), its joker, pass and out and seven rule (Lowball). The
values are `FLOP` (tablectl/games/poker/flop.py), `STUD` (tablectl/games/stud/family.py) and
`DRAW` (tablectl/games/draw/family.py); the engine does the rest the same for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tablectl.game_records import GameRecord, JsonValue, ShownHand
from tablectl.games.base import Rejected
from tablectl.games.poker.state import HandState, PokerState
from tablectl.rules.betting import ROUND_OF_PLAY
from tablectl.rules.flop_hands import HighHand, LowHand
from tablectl.rules.pots import Contribution, Split, Strength
from tablectl.rules.stud import Face
from tablectl_base.cards import Card, parse_card
from tablectl_base.events import Decision

if TYPE_CHECKING:
    from tablectl.games.poker.engine import PokerEngine

Step = Callable[["PokerEngine", PokerState, Any, str], tuple[PokerState, list[GameRecord]]]
"""One input the family deals its cards with: (engine, state, event, time) -> the new state and
its records. The engine lends its settlement (`settle_if_over`) and misdeal (`void`)."""
Returned = tuple[tuple[int, Decimal], ...]
"""Chips given back outside the pots, (seat, amount)."""


@dataclass(frozen=True)
class Family:
    """What a poker family decides for itself, as data and small pure functions of its `Game`
    and the hand in play."""

    name: str
    steps: Mapping[type[Any], Step]
    street_name: Callable[[Game, int], str]  # a betting round's name, as `state` shows it
    first_bettor: Callable[[Game, HandState], int | None]  # who opens a later betting round
    last_street: Callable[[Game], int]  # the last betting round's index
    all_dealt: Callable[[Game, HandState], bool]  # every card of the hand is out
    reached_flop: Callable[[Game, HandState], bool]  # R44: past the first betting round
    whole: Callable[[Game, HandState, int], bool]  # a seat's hand is known: it can speak
    strength: Callable[[Game, HandState, int], tuple[Strength, ShownHand]]
    phase: Callable[[Game, HandState], str]  # what the hand waits for
    cards_shown: Callable[[HandState], dict[str, JsonValue]]  # the hand's public cards
    seat_shown: Callable[[HandState, int], dict[str, JsonValue]]  # a seat's public cards
    before_action: Callable[[Game, HandState, Decision], None]  # refusals before the betting's
    went_on: Callable[[Game, HandState], HandState]  # what waited on a seat now dead goes on
    pot_chips: Callable[
        [Game, HandState, Mapping[int, Strength], bool], tuple[list[Contribution], Returned]
    ]


@dataclass(frozen=True)
class Game:
    """One poker game: its family, the hole (or down) cards each seat gets and the rule saying
    so, how a pot splits and how a hand is valued (tablectl/rules/flop_hands.py, stud.py,
    draw.py), and what only some games have: Crazy Pineapple's discard; stud's streets (each
    the faces of the cards every seat still in gets), Razz's lowest board betting first, the
    first betting round's street name, Option Alley's buy; Lowball's joker (the bug), pass and
    out, seven rule (R45) and straddles."""

    family: Family
    hole_cards: int
    hole_rule: str
    split: Split
    high: Callable[[Sequence[Card], Sequence[Card]], HighHand]
    low: Callable[[Sequence[Card], Sequence[Card]], LowHand | None] | None = None
    discards: bool = False
    streets: tuple[tuple[Face, ...], ...] = ()
    low_bets_first: bool = False
    first_street: int = 3  # the first betting round's street: "third street" (Five Card: second)
    buy: bool = False  # Option Alley: one card bought after the last street, then a round
    joker: bool = False
    pass_and_out: bool = False
    seven_rule: bool = False
    straddles: str | None = None  # the rule that permits straddles at this game (None: none are)

    @property
    def downs(self) -> int:
        """How many of a seat's cards are dealt face down (stud)."""
        return sum(f == "down" for street in self.streets for f in street)

    def faces(self) -> tuple[Face, ...]:
        """Every card a seat gets, in the order dealt (stud)."""
        return tuple(f for street in self.streets for f in street)


# ---------------------------------------------------------------- helpers every family uses


def cards_of(texts: Sequence[str]) -> tuple[Card, ...]:
    """Event card texts (already canonical) as cards."""
    return tuple(parse_card(t) for t in texts)


def hand_in_play(state: PokerState) -> HandState:
    """The hand in play, or a refusal."""
    if state.hand is None:
        raise Rejected("no hand is in play: start one with hand.start", rule=ROUND_OF_PLAY)
    return state.hand


def live_seats(hand: HandState) -> list[int]:
    """The seats still in, in the order dealt (from the dealer's left)."""
    folded = set(hand.betting.folded_seats)
    return [s for s in hand.order if s not in folded]


def discards_due(game: Game, hand: HandState) -> tuple[int, ...]:
    """Crazy Pineapple: the seats still in that have yet to discard, once the flop is out (no
    other game discards)."""
    if not game.discards or len(hand.board) < 3:
        return ()
    live = [p.seat for p in hand.betting.players if not p.folded]
    return tuple(s for s in live if s not in hand.kept)


def left_of_the_button(game: Game, hand: HandState) -> int | None:
    """No seat named: a later betting round opens with the first player still in left of the
    button, the betting round's own order (004 "Texas Hold'em: Action and Distribution of
    Cards"; 003 "Five Card Draw")."""
    return None


def next_betting_round(game: Game, hand: HandState) -> HandState:
    """The hand with its next betting round open, its first bettor as its family says."""
    first = game.family.first_bettor(game, hand)
    return replace(hand, betting=hand.betting.next_round(first=first))


def all_chips_play(
    game: Game, hand: HandState, ranking: Mapping[int, Strength], declared: bool
) -> tuple[list[Contribution], Returned]:
    """What each player put in that plays for the pots: everything (Lowball's seven rule, R45,
    is the one exception: tablectl/games/draw/family.py)."""
    return [
        Contribution(p.seat, p.in_hand - p.dead, p.folded, p.all_in, p.dead)
        for p in hand.betting.players
    ], ()


def no_refusal(game: Game, hand: HandState, ev: Decision) -> None:
    """No refusal of the family's own before an action."""


def waits_on_no_seat(game: Game, hand: HandState) -> HandState:
    """The hand as it was: nothing waited on the seat that left."""
    return hand


def no_cards_shown(hand: HandState) -> dict[str, JsonValue]:
    """No public cards of the hand (no board) in `state`: each seat's show with the seat."""
    return {}


def no_seat_cards_shown(hand: HandState, seat: int) -> dict[str, JsonValue]:
    """No public cards of a seat in `state` (a flop game's hole cards never are, R46)."""
    return {}
