"""The betting structures, pure: how much a bet or raise may be, the one thing they differ in.
`FixedLimit`, `SpreadLimit`, `PotLimit` and `NoLimit` (003 "Betting Limits" posts all four
kinds), each a small policy object a `BettingRound` (tablectl.rules.betting) asks.

- fixed limit: bets and raises of exactly the small bet in the first two rounds and the big bet
  in the last two (003 "Crazy Pineapple High-Low Split: Description of Table Used and Total
  Number of Seated Positions"); at most three raises a round unless only two players are in it
  (R43; 004 "Texas Hold'em: Dealing Procedures and Round of Play"; the same cap in 003 "Crazy
  Pineapple High-Low Split: Dealing Procedures and Round of Play");
- spread limit: any bet or raise within the posted spread and at least the previous bet or raise
  (R49), no cap on the number of raises; under 004 no seat puts more than $200 into one round,
  an all-in included (R43; 004 "Collection Procedures", "Poker Games");
- pot limit: a raise at most the pot after the call; no limit: at most the whole stack; both at
  least the big blind and at least the previous bet or raise (003 "Betting Limits" names them and
  defines neither: these are the card rooms' usual meanings).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, TypeVar

from tablectl.rules.betting import (
    BETTING_LIMITS,
    FIXED_LIMIT_RULE,
    RAISE_CAP,
    SPREAD_LIMIT_RULE,
    SPREAD_ROUND_CAP,
    BettingError,
    Player,
    as_money,
    usd,
)

if TYPE_CHECKING:
    from tablectl.rules.betting import BettingRound

T = TypeVar("T")


def _early_or_late(early: T, late: T, small_rounds: int, street: int) -> T:
    """The lower limit in the first `small_rounds` rounds, the higher one after (003 "Crazy
    Pineapple High-Low Split: Description of Table Used and Total Number of Seated Positions")."""
    return early if street < small_rounds else late


@dataclass(frozen=True)
class FixedLimit:
    """`$2-$4`: every bet and raise is exactly the small bet early and the big bet late.

    003 "Crazy Pineapple High-Low Split: Description of Table Used and Total Number of Seated
    Positions": the lower table limit in the first two rounds, the higher in the last two, "all
    wagers and raises shall be in $3 increments". At most `max_raises` raises a round unless only
    two players are in it (R43); None for no cap.
    """

    small_bet: Decimal
    big_bet: Decimal
    small_rounds: int = 2
    max_raises: int | None = 3
    rule: ClassVar[str] = FIXED_LIMIT_RULE

    def __post_init__(self) -> None:
        as_money(self.small_bet, "the small bet", positive=True)
        as_money(self.big_bet, "the big bet", positive=True)
        if self.big_bet < self.small_bet:
            raise BettingError(
                f"the big bet {usd(self.big_bet)} is less than the small bet {usd(self.small_bet)}",
                FIXED_LIMIT_RULE,
            )
        if self.small_rounds < 0:
            raise BettingError("small_rounds must not be negative", FIXED_LIMIT_RULE)
        if self.max_raises is not None and self.max_raises < 1:
            raise BettingError("max_raises must be at least 1 (or None: no cap)", RAISE_CAP)

    def opening(self, street: int) -> Decimal:
        """The round's bet size."""
        return _early_or_late(self.small_bet, self.big_bet, self.small_rounds, street)

    def bounds(self, rnd: BettingRound, player: Player) -> tuple[Decimal, Decimal]:
        """One increment over the last full bet; after a short all-in this completes the raise."""
        to = rnd.full_bet + self.opening(rnd.street)
        return to, to

    def closed(self, rnd: BettingRound) -> BettingError | None:
        """R43: the cap holds while more than two players are in the round."""
        if self.max_raises is None or rnd.raises < self.max_raises or rnd.players_in <= 2:
            return None
        return BettingError(
            f"the raising is capped: {rnd.raises} raises this round with "
            f"{rnd.players_in} players in",
            RAISE_CAP,
        )


@dataclass(frozen=True)
class SpreadLimit:
    """`$1-$3/$1-$6`: any bet or raise from `low` to `high` (the late spread in the later rounds).

    A raise is also at least the previous bet or raise. No cap on the number of raises ("at the
    players' discretion", R43). `round_cap` is 004's $200: no seat puts more than that into one
    betting round, nor goes all-in for more (R43; 004 "Collection Procedures", "Poker Games").
    """

    low: Decimal
    high: Decimal
    late_low: Decimal | None = None
    late_high: Decimal | None = None
    small_rounds: int = 2
    round_cap: Decimal | None = None

    @property
    def rule(self) -> str:
        """R43, with 004's words when its $200 round cap is in force."""
        return SPREAD_LIMIT_RULE if self.round_cap is None else SPREAD_ROUND_CAP

    def __post_init__(self) -> None:
        for low, high, when in (
            (self.low, self.high, "the spread"),
            (*self._late(), "the late spread"),
        ):
            as_money(low, f"the low end of {when}", positive=True)
            as_money(high, f"the high end of {when}", positive=True)
            if high < low:
                raise BettingError(
                    f"{when} {usd(low)}-{usd(high)} runs backwards", SPREAD_LIMIT_RULE
                )
        if self.round_cap is not None:
            as_money(self.round_cap, "the round cap", positive=True)
        if self.small_rounds < 0:
            raise BettingError("small_rounds must not be negative", SPREAD_LIMIT_RULE)

    def _late(self) -> tuple[Decimal, Decimal]:
        """The spread of the later rounds: the first one where no other is posted."""
        low = self.low if self.late_low is None else self.late_low
        return low, self.high if self.late_high is None else self.late_high

    def spread(self, street: int) -> tuple[Decimal, Decimal]:
        """The posted spread of a round: the first one early, the late one after."""
        return _early_or_late((self.low, self.high), self._late(), self.small_rounds, street)

    def opening(self, street: int) -> Decimal:
        """The low end of the round's spread."""
        return self.spread(street)[0]

    def bounds(self, rnd: BettingRound, player: Player) -> tuple[Decimal, Decimal]:
        """At least the low end and the last raise, at most the high end, within the round cap."""
        low, high = self.spread(rnd.street)
        least = rnd.current_bet + max(low, rnd.last_raise)
        most = rnd.current_bet + high
        if self.round_cap is not None:
            most = min(most, self.round_cap)
        return least, most

    def closed(self, rnd: BettingRound) -> BettingError | None:
        """Never by count: raises are at the players' discretion (R43)."""
        return None


@dataclass(frozen=True)
class _BigBlindLimit:
    """Pot limit and no limit alike: the big blind opens, a raise adds at least the last raise,
    and no count closes the raising; only the ceiling (`bounds`) differs."""

    big_blind: Decimal
    rule: ClassVar[str] = BETTING_LIMITS

    def __post_init__(self) -> None:
        as_money(self.big_blind, "the big blind", positive=True)

    def opening(self, street: int) -> Decimal:
        """The big blind."""
        return self.big_blind

    def closed(self, rnd: BettingRound) -> BettingError | None:
        """Never by count."""
        return None


@dataclass(frozen=True)
class PotLimit(_BigBlindLimit):
    """At least the big blind and the last raise; at most the pot after the call is added."""

    def bounds(self, rnd: BettingRound, player: Player) -> tuple[Decimal, Decimal]:
        """The most is the bet plus the pot as it stands once the player has called."""
        call = rnd.current_bet - player.in_round
        return rnd.current_bet + rnd.last_raise, rnd.current_bet + rnd.pot + call


@dataclass(frozen=True)
class NoLimit(_BigBlindLimit):
    """A bet or raise of at least the big blind and the last raise, at most the whole stack."""

    def bounds(self, rnd: BettingRound, player: Player) -> tuple[Decimal, Decimal]:
        """The stack is the only ceiling."""
        return rnd.current_bet + rnd.last_raise, player.in_round + player.stack

    def closed(self, rnd: BettingRound) -> BettingError | None:
        """Never by count."""
        return None
