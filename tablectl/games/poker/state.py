"""The poker engine's settings and frozen state: seats and stacks, the button, the hand in play."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Literal

from tablectl.rules.betting import BettingRound, Structure
from tablectl.rules.poker_fees import PokerSchedule
from tablectl.rules.pots import OddChipRule
from tablectl_base.cards import Card
from tablectl_base.money import ZERO

Variant = Literal[
    "texas-holdem",
    "omaha",
    "omaha-hi-lo",
    "crazy-pineapple-hi-lo",
    "seven-card-stud",
    "seven-card-stud-hi-lo",
    "razz",
    "five-card-stud",
    "option-alley",
    "five-card-draw",
    "five-card-draw-hi-lo",
    "lowball",
]
VARIANTS: tuple[Variant, ...] = ("texas-holdem", "omaha", "omaha-hi-lo", "crazy-pineapple-hi-lo")
"""The flop games (tablectl/games/poker)."""
STUD_VARIANTS: tuple[Variant, ...] = (
    "seven-card-stud",
    "seven-card-stud-hi-lo",
    "razz",
    "five-card-stud",
    "option-alley",
)
"""The stud games (tablectl/games/stud)."""
DRAW_VARIANTS: tuple[Variant, ...] = ("five-card-draw", "five-card-draw-hi-lo", "lowball")
"""The draw games (tablectl/games/draw)."""


@dataclass(frozen=True)
class PokerSettings:
    """The table's options: the game, its betting structure and blinds, the smallest chip (R41),
    the document whose odd-chip rule applies (R41) and the collection schedule (R44; None: no
    collection, e.g. a time collection taken outside the pots)."""

    variant: Variant
    structure: Structure
    small_blind: Decimal
    big_blind: Decimal
    chip: Decimal
    document: OddChipRule
    schedule: PokerSchedule | None = None
    seats: int = 10
    buy_in_min: Decimal | None = None
    kill: Literal["none", "half", "full"] = "none"
    kill_factor: Decimal = Decimal(1)  # a kill pot's stakes over the table's (003 Kill Rules)
    kill_structure: Structure | None = None  # the structure at kill stakes


Owed = Literal["none", "big", "both"]
"""What a seat must post to be dealt in (the engine's reading of missed blinds): nothing, a big
blind (new to a game in progress), or the big blind live and the small dead (missed both)."""


@dataclass(frozen=True)
class SeatState:
    """A seated player and the chips in front of them between hands (table stakes); `away`
    while sitting out, `owes` what is posted on being dealt in again."""

    seat: int
    player: str
    stack: Decimal
    away: bool = False
    owes: Owed = "none"


def _no_cards() -> Mapping[int, tuple[Card, ...]]:
    """An empty, immutable seat -> cards map."""
    return MappingProxyType({})


@dataclass(frozen=True)
class HandState:
    """One hand in play. `order` is the seats dealt in clockwise from the button's left, the
    button last; `betting` the current betting round (stacks, chips in, whose turn); `holes`
    the hole cards entered (journal only, R46; in stud the down cards), `kept` Crazy Pineapple's
    two kept after the discard; `up` and `streets` stud's up cards by seat and streets dealt;
    `previous_button` where the button was before this hand (a misdeal puts it back)."""

    number: int
    button: int
    previous_button: int | None
    order: tuple[int, ...]
    betting: BettingRound
    kill: int | None = None  # the seat that posted the kill blind: a kill pot (003 Kill Rules)
    board: tuple[Card, ...] = ()
    holes: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    kept: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    up: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)  # stud's up cards
    streets: int = 0  # stud: the streets dealt so far (the first with the hand's down cards)
    # Option Alley: each seat that has had its buy, with the card it discarded where known
    bought: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    # the draw games: each seat that has drawn, with the number of cards it asked for
    drawn: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    game: str | None = None  # Dealer's Choice: the game the button chose for this hand
    # Lowball: the cards the dealer exposed, (seat, "deal" or "draw", card, kept by the seat)
    exposed: tuple[tuple[int, str, Card, bool], ...] = ()
    # the draw from the card-reading table: each drawing seat's five as they stood when it
    # asked (`before`), the cards read at its antenna since (`given`), its discards read in the
    # muck (`thrown`), the muck cards read on the draw that are no seat's (`burns`, rule 18)
    # and a sixth card read at a seat on the deal (`over`, (seat, card), rule 13)
    before: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    given: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    thrown: Mapping[int, tuple[Card, ...]] = field(default_factory=_no_cards)
    burns: int = 0
    over: tuple[tuple[int, Card], ...] = ()
    # boxed cards (rules 7, 9), (seat, "deal" or "draw", card): dead, not the dealer's exposure
    boxed: tuple[tuple[int, str, Card], ...] = ()

    @property
    def big_blind(self) -> int:
        """The seat in the big blind's place: the second dealt in from the button's left."""
        return self.order[1]


@dataclass(frozen=True)
class PokerState:
    """The table: seats (ascending), the button, the hand in play, hands counted so far and
    every chip the house has collected (so stacks plus `collected` is constant)."""

    seats: tuple[SeatState, ...] = ()
    button: int | None = None
    big_blind: int | None = None  # where the big blind was in the last hand played out
    kill_holder: int | None = None  # the kill button's holder (003 Kill Rules 1)
    kill_next: bool = False  # the holder won the very next pot: the next hand is a kill pot
    hand: HandState | None = None
    hands: int = 0
    collected: Decimal = ZERO
