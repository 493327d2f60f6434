"""The one settlement walk every player-dealer game ends its round with (R1-R4).

Games decide only what each wager did (win with its payout, lose, push: `WagerVerdict`) and the
order the documents settle them in (R2, R3). This module decides what the bank can actually cover
(R1: it may not win or lose more than it holds), labels what it could not (`returned`,
`partial`), charges the collection fees (R4) and builds the round's `RoundSettled` record;
tablectl/render.py turns that into `round/result`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal, Protocol

from tablectl.game_records import (
    EMPTY,
    NO_HEADERS,
    BankView,
    Fee,
    JsonObject,
    JsonValue,
    Outcome,
    RoundHeaders,
    RoundSettled,
    Settlement,
    Status,
)
from tablectl.rules.fees import (
    CollectionSchedule,
    player_dealer_fee,
    player_fees,
    total_table_action,
)
from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost
from tablectl_base.money import ZERO

Verdict = Literal["win", "lose", "push"]


__all__ = [
    "BankResult",
    "Settlement",
    "Staked",
    "Status",
    "Verdict",
    "WagerVerdict",
    "collection_fees",
    "returned",
    "settle",
    "settle_round",
    "stake_totals",
    "void_round",
]


@quick_init
@dataclass(frozen=True)
class WagerVerdict:
    """What the rules say one wager did: `owed` is the payout (not counting the stake) on a win."""

    seat: int
    player: str
    spot: str
    amount: Decimal
    verdict: Verdict
    owed: Decimal = ZERO
    notes: JsonObject = field(
        default_factory=lambda: EMPTY
    )  # what the game adds to the wager's settlement row


@quick_init
@dataclass(frozen=True)
class BankResult:
    """The bank after settlement: `end` is what the player-dealer takes back."""

    start: Decimal
    end: Decimal
    settlements: tuple[Settlement, ...]

    @property
    def change(self) -> Decimal:
        return self.end - self.start


def settle(bank: Decimal, verdicts: Sequence[WagerVerdict]) -> BankResult:
    """Walk `verdicts` in action order against `bank` as R1 prescribes."""
    if bank < 0:
        raise ValueError("a bank cannot be negative")
    funds = bank
    won = ZERO  # the bank's net so far; it may never exceed the bank itself
    out: list[Settlement] = []
    for v in verdicts:
        if v.verdict == "push":
            out.append(_row(v, "push", ZERO))
        elif v.verdict == "lose":
            collected = min(v.amount, bank - won)
            funds += collected
            won += collected
            if collected == v.amount:
                status: Status = "lose"
            elif collected == 0:
                status = "returned"
            else:
                status = "partial"
            out.append(_row(v, status, -collected))
        else:
            paid = min(v.owed, funds)
            funds -= paid
            won -= paid
            if paid == v.owed:
                status = "win"
            elif paid == 0:
                status = "returned"
            else:
                status = "partial"
            out.append(_row(v, status, paid))
    return BankResult(start=bank, end=funds, settlements=tuple(out))


def _row(v: WagerVerdict, status: Status, net: Decimal) -> Settlement:
    return Settlement(v.seat, v.player, v.spot, v.amount, status, net, v.notes)


class Staked(Protocol):
    """A wager on the layout, as fees count it."""

    @property
    def seat(self) -> int: ...

    @property
    def player(self) -> str: ...

    @property
    def spot(self) -> str: ...

    @property
    def amount(self) -> Decimal: ...


def stake_totals(wagers: Iterable[Staked]) -> dict[tuple[int, str, str], Decimal]:
    """Each (seat, player, spot)'s chips together, in the order each was first placed: chips a
    player adds to one circle make one wager (R4)."""
    totals: dict[tuple[int, str, str], Decimal] = {}
    for w in wagers:
        key = (w.seat, w.player, w.spot)
        totals[key] = totals.get(key, ZERO) + w.amount
    return totals


def collection_fees(
    schedule: CollectionSchedule, bank_seat: int | None, wagers: Iterable[Staked]
) -> tuple[Fee, ...]:
    """R4: the player-dealer's flat fee from total table action, then the players' fees, one per
    wager however many times chips were added to it (a player's chips in one circle are one
    wager, charged once).

    `wagers` are the pre-deal wagers only (never Play, double, split or insurance money).
    """
    totals = stake_totals(wagers)
    total = total_table_action(totals.values())
    fees: list[Fee] = []
    fee = player_dealer_fee(schedule, total)
    if fee > 0:
        fees.append(Fee("player-dealer", bank_seat, fee, schedule.option, total_action=total))
    if schedule.player_fee <= 0 and not schedule.player_fee_brackets:
        return tuple(fees)  # no wager pays a player fee (its checks are total_table_action's)
    charged = [
        (seat, player, amount)
        for (seat, player, spot), amount in totals.items()
        if schedule.player_fee_applies(spot)
    ]
    for seat, player, amount in player_fees(schedule, charged):
        fees.append(Fee("player", seat, amount, schedule.option, player=player))
    return tuple(fees)


def settle_round(
    *,
    round_: int,
    game: str,
    bank_seat: int,
    bank: Decimal,
    turn: int,
    verdicts: Sequence[WagerVerdict],
    fee_wagers: Iterable[Staked],
    schedule: CollectionSchedule,
    outcome: Outcome,
    dealt: Sequence[JsonValue],
    action_seat: int | None,
    headers: RoundHeaders = NO_HEADERS,
) -> RoundSettled:
    """The end of a round: `verdicts`, in the order the documents settle them (R2, R3), walked
    against the bank (R1), the fees on `fee_wagers` (R4: the pre-deal wagers only)."""
    result = settle(bank, verdicts)
    return RoundSettled(
        round=round_,
        game=game,
        outcome=outcome,
        dealt=dealt,
        bank=BankView(bank_seat, result.start, result.end, turn),
        action_seat=action_seat,
        settlements=result.settlements,
        fees=collection_fees(schedule, bank_seat, fee_wagers),
        headers=headers,
    )


def returned(wagers: Iterable[Staked]) -> tuple[Settlement, ...]:
    """A misdeal's settlements: every wager returned, nothing won or lost."""
    return tuple(Settlement(w.seat, w.player, w.spot, w.amount, "returned", ZERO) for w in wagers)


def void_round(
    *,
    round_: int,
    game: str,
    reason: str,
    bank_seat: int | None,
    bank: Decimal | None,
    ordered: Iterable[Staked],
    dealt: Sequence[JsonValue],
    headers: RoundHeaders = NO_HEADERS,
) -> RoundSettled:
    """A misdeal (`round.void`): no outcome, every wager in `ordered` returned, the bank
    unchanged, no fee; `dealt` holds only what the table had exposed."""
    return RoundSettled(
        round=round_,
        game=game,
        outcome=None,
        dealt=dealt,
        bank=BankView(bank_seat, bank, bank),
        action_seat=None,
        settlements=returned(ordered),
        fees=(),
        void=True,
        reason=reason,
        headers=headers,
    )
