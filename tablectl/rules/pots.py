"""Pots at the poker table: the main pot and side pots, and how each is split at the showdown.

`build_pots` turns what each player put in this hand into pots: every all-in level starts a new
side pot, each pot is contested only by the players still in who put in at least its level, a
folded player's chips stay in the pots they reached, and chips no one else matched go back to
the one player who put them in. `award` splits each pot on its own (R42): to the best high hand,
or half to the best high and half to the lowest qualifying low, ties equally, in the table's
smallest chip, with odd chips placed as the table's document says (R41).

Hand strength comes in as keys the caller has already computed (`Strength`), so this module needs
no evaluator: a bigger high key is a better high hand, a smaller low key a better low hand, and a
low of None means the hand has no qualifying low. Money is `Decimal`; seats are ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum
from typing import Literal, get_args

from tablectl.rules.poker import Rank
from tablectl_base.money import ZERO, MoneyError, fmt, parse_money

OddChipRule = Literal["003", "004"]
"""Whose rule places the odd chips: the document the table's game comes from (R41)."""

ODD_CHIP_RULES: tuple[OddChipRule, ...] = get_args(OddChipRule)


class Split(StrEnum):
    """How a pot is split among its contenders' hands."""

    HIGH = "high"  # the best high hand takes it (Hold'em, Omaha, stud, draw)
    HIGH_LOW = "high-low"  # half high, half the lowest qualifying low (R42)
    LOW = "low"  # the lowest hand takes it: Razz and Lowball, whose lows always count (R42)


SPLITS = tuple(s.value for s in Split)


class PotError(ValueError):
    """Chips or hands that cannot be made into pots or awarded: the message names what."""


@dataclass(frozen=True)
class Contribution:
    """Everything one player put in this hand, and how the player ended it."""

    seat: int
    amount: Decimal
    folded: bool = False
    all_in: bool = False
    dead: Decimal = ZERO  # besides `amount`: a dead blind, the main pot's, matching no bet

    def __post_init__(self) -> None:
        """Refuse an amount that is not money, and a player both folded and all-in."""
        _money(self.amount, f"seat {self.seat}'s contribution")
        _money(self.dead, f"seat {self.seat}'s dead blind")
        if self.folded and self.all_in:
            raise PotError(f"seat {self.seat} is marked both folded and all-in")


@dataclass(frozen=True)
class Pot:
    """One pot: its chips and the seats that may win it (ascending), main pot or side pot."""

    amount: Decimal
    eligible: tuple[int, ...]

    def __post_init__(self) -> None:
        """Refuse an empty pot, or one nobody or somebody twice may win."""
        _money(self.amount, "a pot's amount", allow_zero=False)
        if not self.eligible:
            raise PotError(f"a pot of {fmt(self.amount)} has nobody eligible to win it")
        if len(set(self.eligible)) != len(self.eligible):
            raise PotError(f"a pot lists a seat twice among those eligible: {self.eligible}")


@dataclass(frozen=True)
class Payout:
    """Chips that go to one seat."""

    seat: int
    amount: Decimal


@dataclass(frozen=True)
class Pots:
    """The pots of a hand, main pot first, and the chips no other player matched."""

    pots: tuple[Pot, ...]
    uncalled: Payout | None

    @property
    def total(self) -> Decimal:
        """Every chip put in: the pots and the uncalled chips."""
        back = self.uncalled.amount if self.uncalled else ZERO
        return sum((p.amount for p in self.pots), back)


@dataclass(frozen=True)
class Strength:
    """A hand's keys at the showdown: high (bigger wins) and low (smaller wins; None: no
    qualifying low). A high-only game leaves low None; a low-only game's high is unused."""

    high: Rank
    low: Rank | None = None


@dataclass(frozen=True)
class PotAward:
    """Who won one pot and what each seat gets from it (in button order)."""

    pot: Pot
    high: tuple[int, ...]  # the seats taking the high half or the whole pot, in button order
    low: tuple[int, ...]  # the seats taking the low half (or a low-only pot); () if none
    paid: tuple[Payout, ...]


# ---------------------------------------------------------------- building the pots


def build_pots(contributions: Iterable[Contribution]) -> Pots:
    """The main pot and side pots from what each player put in this hand.

    Each player's total is a level. A level's chips are every player's chips between the level
    below and it; the players still in who reached it may win it, so each all-in total starts a
    side pot (R42 settles "each side pot ... on its own").
    Folded players' chips stay in the pots they reached (the dealer "shall move all player bets
    into the pot" and only "active players ... enter into a showdown", 004 "Omaha High/Low Split:
    How The Pot Is Awarded"). Chips above what any other player put in were called by nobody and
    go back to that player. Adjacent levels with the same players eligible are one pot. The
    documents describe neither side pots nor the return of an uncalled bet (003 "Basic Seven Card
    Stud Rules" 4 only gives an uncalled bettor the pot): this is the usual card-room practice.
    Dead blinds match no one's bet: they go to the main pot, the one every player still in may
    win (docs/games/poker-room.md, missed blinds).
    """
    players = _checked_contributions(contributions)
    pots: list[Pot] = []
    uncalled: Payout | None = None
    below = ZERO
    for level in sorted({c.amount for c in players if c.amount > 0}):
        reached = [c for c in players if c.amount >= level]
        amount = (level - below) * len(reached)
        eligible = tuple(sorted(c.seat for c in reached if not c.folded))
        if len(reached) == 1:
            # Only the highest total reaches above the second highest: one level, one player.
            uncalled = Payout(reached[0].seat, amount)
        elif not eligible:
            raise PotError(
                f"chips above {fmt(below)} were put in only by folded players (seats "
                f"{', '.join(str(c.seat) for c in reached)}): no player still in can win them"
            )
        elif pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        else:
            pots.append(Pot(amount, eligible))
        below = level
    dead = sum((c.dead for c in players), ZERO)
    if dead and pots:
        pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
    elif dead:  # everyone's bets came back but the dead money: the players still in share it
        pots.append(Pot(dead, tuple(sorted(c.seat for c in players if not c.folded))))
    return Pots(tuple(pots), uncalled)


def _checked_contributions(contributions: Iterable[Contribution]) -> list[Contribution]:
    """The contributions, refused with the reason if they are not a finished hand's."""
    # Amounts in cents as `parse_money` gives them, so every pot prints the same way ("90.00").
    players = [replace(c, amount=parse_money(c.amount)) for c in contributions]
    seats = [c.seat for c in players]
    if len(set(seats)) != len(seats):
        twice = sorted({s for s in seats if seats.count(s) > 1})
        raise PotError(f"seat {twice[0]} is listed twice among the contributions")
    live = [c for c in players if not c.folded]
    if not live:
        raise PotError("every player folded: a hand ends with at least one player still in")
    most = max(c.amount for c in players)
    for c in live:
        if not c.all_in and c.amount < most:
            raise PotError(
                f"seat {c.seat} is still in and not all-in but put in {fmt(c.amount)}, less "
                f"than the {fmt(most)} another player put in: the betting is not finished"
            )
    return players


# ---------------------------------------------------------------- the collection


def take_fee(pots: Sequence[Pot], fee: Decimal) -> tuple[Decimal, tuple[Pot, ...]]:
    """The collection actually taken and the pots left to award (R52).

    The fee comes from the main pot; what the main pot cannot cover comes from the side pots in
    their order; a hand whose pots together hold less than the fee pays all they hold. A pot
    the fee empties is no longer a pot: it is left out.
    """
    owed = _money(fee, "the fee")
    taken = ZERO
    left: list[Pot] = []
    for pot in pots:
        part = min(owed, pot.amount)
        owed -= part
        taken += part
        if pot.amount > part:
            left.append(Pot(pot.amount - part, pot.eligible))
    return (fee if owed == 0 else taken), tuple(left)


# ---------------------------------------------------------------- awarding the pots


def award(
    pots: Iterable[Pot],
    ranking: Mapping[int, Strength],
    *,
    split: Split,
    odd_chip_rule: OddChipRule,
    chip: Decimal,
    button_order: Sequence[int],
) -> tuple[PotAward, ...]:
    """Each pot's winners and what they are paid, each pot on its own (R42).

    `ranking` holds the hand of every seat still in; `button_order` is the seats clockwise from
    the dealer button's left (the button last); `chip` is the table's smallest chip (R41).
    """
    chip = _money(chip, "the smallest chip", allow_zero=False)
    if odd_chip_rule not in ODD_CHIP_RULES:
        raise PotError(f"odd_chip_rule is {odd_chip_rule!r}, not one of {ODD_CHIP_RULES}")
    if split not in SPLITS:
        raise PotError(f"split is {split!r}, not one of {SPLITS}")
    split = Split(split)
    position = _positions(button_order)
    return tuple(
        _award_pot(pot, n, ranking, split, odd_chip_rule, chip, position)
        for n, pot in enumerate(pots)
    )


def paid_by_seat(awards: Iterable[PotAward], uncalled: Payout | None = None) -> dict[int, Decimal]:
    """What each seat takes back from the table this hand: its winnings and any uncalled chips."""
    total: dict[int, Decimal] = {}
    payouts = [p for a in awards for p in a.paid]
    for p in [*payouts, *([uncalled] if uncalled else [])]:
        total[p.seat] = total.get(p.seat, ZERO) + p.amount
    return total


def _positions(button_order: Sequence[int]) -> dict[int, int]:
    """Each seat's place clockwise from the button's left (0 is the seat on its left)."""
    position: dict[int, int] = {}
    for place, seat in enumerate(button_order):
        if seat in position:
            raise PotError(f"seat {seat} appears twice in button_order")
        position[seat] = place
    return position


def _award_pot(
    pot: Pot,
    number: int,
    ranking: Mapping[int, Strength],
    split: Split,
    rule: OddChipRule,
    chip: Decimal,
    position: Mapping[int, int],
) -> PotAward:
    """One pot's award: its winners and the payouts, odd chips placed by `rule` (R41)."""
    name = "the main pot" if number == 0 else f"side pot {number}"
    for seat in pot.eligible:
        if seat not in position:
            raise PotError(f"seat {seat} may win {name} but is not in button_order")
    contenders = sorted(pot.eligible, key=position.__getitem__)
    if len(contenders) == 1:  # nobody contests it: no hand needs showing
        alone = (contenders[0],)
        high_seats, low_seats = ((), alone) if split is Split.LOW else (alone, ())
        return PotAward(pot, high_seats, low_seats, (Payout(alone[0], pot.amount),))
    for seat in contenders:
        if seat not in ranking:
            raise PotError(f"seat {seat} contests {name} but has no hand in the ranking")
    if split is Split.LOW:
        low = _lowest(contenders, ranking, name, every_hand=True)
        return _paid(pot, (), low, _shared(pot.amount, low, chip), position)
    high = _highest(contenders, ranking)
    low = _lowest(contenders, ranking, name) if split is Split.HIGH_LOW else ()
    if not low:
        # No qualifying low among this pot's contenders: the whole pot to the high hand (R42;
        # 003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes", 004
        # "Omaha High/Low Split: How The Pot Is Awarded").
        return _paid(pot, high, (), _shared(pot.amount, high, chip), position)
    if rule == "003":
        # The halving's odd chip goes high (003 "Omaha (High-Low Split)" 5, "Basic Seven Card
        # Stud Rules" 6, "Five Card Draw (High-Low Split)"); each half's tie odd chips go to its
        # tied winner nearest the button's left (R41).
        low_half = _even_share(pot.amount, 2, chip)
        shares = [
            *_shared(pot.amount - low_half, high, chip),
            *_shared(low_half, low, chip),
        ]
        return _paid(pot, high, low, shares, position)
    # 004: every odd chip, of the halving and of either half's tie, to the one winner of this pot
    # closest to the button's left (004 "Omaha High/Low Split: How The Pot Is Awarded", R41).
    half = _even_share(pot.amount, 2, chip)
    shares = [
        *(Payout(s, _even_share(half, len(high), chip)) for s in high),
        *(Payout(s, _even_share(half, len(low), chip)) for s in low),
    ]
    odd = pot.amount - sum((p.amount for p in shares), ZERO)
    first = min((*high, *low), key=position.__getitem__)
    return _paid(pot, high, low, [*shares, Payout(first, odd)], position)


def _highest(contenders: Sequence[int], ranking: Mapping[int, Strength]) -> tuple[int, ...]:
    """The contenders with the best high hand, in button order (ties split, 004 "Texas Hold'em:
    How the Pot Is Awarded")."""
    best = max(ranking[s].high for s in contenders)
    return tuple(s for s in contenders if ranking[s].high == best)


def _lowest(
    contenders: Sequence[int],
    ranking: Mapping[int, Strength],
    name: str,
    *,
    every_hand: bool = False,
) -> tuple[int, ...]:
    """The contenders with the lowest qualifying low, in button order: only hands equal to it
    share, not every qualifying low (R42). `every_hand`: a low-only game, every hand has a low."""
    lows = {s: low for s in contenders if (low := ranking[s].low) is not None}
    if every_hand and len(lows) != len(contenders):
        missing = next(s for s in contenders if s not in lows)
        raise PotError(f"seat {missing} contests {name} in a low-only game but has no low hand")
    if not lows:
        return ()
    best = min(lows.values())
    return tuple(s for s in contenders if lows.get(s) == best)


def _even_share(amount: Decimal, ways: int, chip: Decimal) -> Decimal:
    """The most each of `ways` equal shares of `amount` can be, in whole chips (R41). What is
    left over, the odd chips and any part of a chip in a pot that is not whole chips, goes where
    the odd chips go."""
    return (int(amount // chip) // ways) * chip


def _shared(amount: Decimal, winners: Sequence[int], chip: Decimal) -> list[Payout]:
    """`amount` split equally among `winners` (in button order) in whole chips; the odd chips, all
    of them, to the first: the winner nearest the button's left (R41)."""
    each = _even_share(amount, len(winners), chip)
    odd = amount - each * len(winners)
    return [Payout(s, each + (odd if i == 0 else ZERO)) for i, s in enumerate(winners)]


def _paid(
    pot: Pot,
    high: tuple[int, ...],
    low: tuple[int, ...],
    shares: Iterable[Payout],
    position: Mapping[int, int],
) -> PotAward:
    """The award with each seat's shares added up, in button order."""
    total: dict[int, Decimal] = {}
    for p in shares:
        total[p.seat] = total.get(p.seat, ZERO) + p.amount
    paid = tuple(
        Payout(s, total[s]) for s in sorted(total, key=position.__getitem__) if total[s] > 0
    )
    return PotAward(pot, high, low, paid)


def _money(value: Decimal, what: str, *, allow_zero: bool = True) -> Decimal:
    """`value` as money, or a PotError naming `what` was wrong with it."""
    try:
        return parse_money(value, allow_zero=allow_zero)
    except MoneyError as e:
        raise PotError(f"{what}: {e}") from None
