"""A finished hand of a poker room pot game as the journal holds it: who was dealt in, every
action and card in order (`Step`), the table's result (`PokerHand`), and the PHH variant codes
of the games that format can write (tablectl/games/poker/phh.py).

`tablectl/games/poker/hand_rebuild.py` builds a `PokerHand` from what `tablectl recall` collects
for a hand (tablectl/history/rounds.py); the recall text (tablectl/games/poker/recall.py) and
the PHH writer read it. A Chinese Poker round has no pot and no betting: it is no `PokerHand`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final, Literal

from tablectl.games.draw.family import DRAW_GAMES
from tablectl.games.poker.flop import FLOP_GAMES
from tablectl.games.stud.family import STUD_GAMES
from tablectl.records import RoundRefused
from tablectl_base.money import ZERO

VARIANT_CODES: Final[Mapping[tuple[str, str], str]] = {
    ("texas-holdem", "fixed-limit"): "FT",
    ("texas-holdem", "no-limit"): "NT",
    ("omaha", "pot-limit"): "PO",
    ("omaha-hi-lo", "fixed-limit"): "FO/8",
}
"""(game, betting structure) -> PHH variant code: every flop game PHH has a code for."""


class PhhError(RoundRefused):
    """A hand that cannot be written as PHH (a game or structure PHH has no code for), or
    whose journal lacks what a hand history needs."""


@dataclass(frozen=True)
class SeatStart:
    """A player dealt in: seat, name, chips before the blinds, the blind posted (live, toward the
    call), any dead blind (missed blinds: the pot's, like an ante) and, at Lowball, the straddle
    (its post, counted in `posted` too)."""

    seat: int
    player: str
    stack: Decimal
    posted: Decimal
    dead: Decimal = ZERO
    straddle: Decimal = ZERO


StepKind = Literal[
    "action",
    "board",
    "discard",
    "muck",
    "street",
    "buy",
    "draw",
    "drawn",
    "burn",
    "five",
    "sixth",
    "flashed",
    "dead",
]
"""What a `Step` is: a betting action; the flop games' board and Crazy Pineapple's discard; a
card the reader saw go to the muck; a stud street dealt and Option Alley's buy; a draw game's
draw, a card given on it, a burn, a seat's five after it, a sixth card taken back, Lowball's
flashed card; a hand the floor declared dead (any game)."""


@dataclass(frozen=True)
class Step:
    """One thing that happened in the hand, in order: an action of the betting (`seat`,
    `action` as the dealer entered it, chips `added`, the seat's chips in this round after it
    `to`, `all_in` when nothing is left behind, `raise_` when it raised the bet, `facing` the
    bet it faced: none, a bet; some, a raise), the board turned up (`cards`, when a street is
    complete), a discard (Crazy Pineapple's; a draw's read in the muck), a card the reader saw
    go to the muck, and the stud and draw games' steps (`StepKind`). `street` is the betting
    round the step belongs to or opens."""

    seq: int
    street: int
    kind: StepKind
    seat: int | None = None
    action: str = ""
    added: Decimal = ZERO
    to: Decimal = ZERO
    all_in: bool = False
    raise_: bool = False
    facing: Decimal = ZERO
    cards: tuple[str, ...] = ()
    by_hand: bool = False
    first_seq: int = 0  # a board (a stud street) read card by card: the record of its first card
    count: int = 0  # a draw: the cards the seat asked for (0: it stands pat)
    thrown: tuple[str, ...] = ()  # a draw's or a buy's cards thrown away, where known
    now: tuple[str, ...] = ()  # a draw game: the seat's five as they now stand, once known
    # a stud street: each seat dealt, in the order dealt: (seat, "down" or "up", card; "" unknown)
    dealt: tuple[tuple[int, str, str], ...] = ()
    # card.flashed: "deal" or "draw"; hand.dead: the reason; option.buy: "up", "hole" or "" (pat)
    note: str = ""
    kept: bool = False  # card.flashed on the deal, five or lower: the seat keeps it (rule 6)
    boxed: bool = False  # card.flashed: found faced in the deck (rules 7, 9)


Family = Literal["flop", "stud", "draw"]
"""The poker room's pot games by how their cards come: a board, each seat's streets, a draw."""


def game_family(game: str) -> Family | None:
    """The family of a poker room pot game, None for any other game (Chinese Poker has no pot)."""
    if game in FLOP_GAMES:
        return "flop"
    if game in STUD_GAMES:
        return "stud"
    if game in DRAW_GAMES:
        return "draw"
    return None


@dataclass(frozen=True)
class PokerHand:
    """A finished poker hand: who was dealt in (by position, the button last), the hole cards
    the journal holds (stud: the down cards as dealt; a draw game: each seat's five as dealt,
    before its draw), stud's up cards as dealt (`up`), every action and card in order, each
    seat's cards at the end where known (`final`: stud and draw games), and the table's result.
    `chosen`: the Dealer's Choice table's game for this hand (None at a table of one game)."""

    number: int
    game: str
    button: int
    result: Mapping[str, Any]
    seats: tuple[SeatStart, ...]
    holes: Mapping[int, tuple[str, ...]]
    steps: tuple[Step, ...]
    board: tuple[str, ...]
    start: Mapping[str, Any] = field(default_factory=dict)
    family: Family = "flop"
    up: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    final: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    chosen: str | None = None

    @property
    def void(self) -> bool:
        """A misdeal: every chip returned."""
        return bool(self.result.get("void"))

    @property
    def showdown(self) -> bool:
        """The hand went to a showdown."""
        return bool(self.result.get("showdown"))

    def live_at_end(self) -> tuple[int, ...]:
        """The seats that had not folded (nor had their hand declared dead) when the hand
        ended, by position."""
        out = {
            s.seat
            for s in self.steps
            if (s.kind == "action" and s.action == "fold") or s.kind == "dead"
        }
        return tuple(s.seat for s in self.seats if s.seat not in out)

    def kept(self, seat: int) -> tuple[str, ...]:
        """A seat's cards at the end: stud's down and up cards, a draw game's five as they
        stand (empty where not known); a flop game's hole cards less any it discarded (Crazy
        Pineapple)."""
        if self.family != "flop":
            return self.final.get(seat, ())
        gone = {c for s in self.steps if s.kind == "discard" and s.seat == seat for c in s.cards}
        return tuple(c for c in self.holes.get(seat, ()) if c not in gone)

    def stacks_after(self) -> dict[int, Decimal]:
        """Every seat's stack after the hand, as the result gives it."""
        return {int(x["seat"]): Decimal(x["stack"]) for x in self.result.get("stacks", [])}

    def winnings(self) -> dict[int, Decimal]:
        """What each seat was paid from the pots (the uncalled chips returned are not won)."""
        won: dict[int, Decimal] = {}
        for pot in self.result.get("pots", []):
            for p in pot["paid"]:
                won[int(p["seat"])] = won.get(int(p["seat"]), ZERO) + Decimal(p["amount"])
        return won


def is_chinese_result(result: Mapping[str, Any]) -> bool:
    """Whether a `round/result` payload is a Chinese Poker round's (hands and payments, no
    pots: tablectl/games/chinese_poker/records.py)."""
    return "payments" in result and "hands" in result and "pots" not in result


def is_poker_result(result: Mapping[str, Any]) -> bool:
    """Whether a `round/result` payload is the poker room's: a pot game's hand (it has pots,
    not settlements) or a Chinese Poker round. `poker_hand` refuses the latter (PhhError)."""
    return ("pots" in result and "settlements" not in result) or is_chinese_result(result)
