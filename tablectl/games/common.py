"""What every player-dealer game shares: placed wagers, seats counted from the player-dealer's
left (R2), settlement order (R3), table limits, collection fees (R4), the bank offer (R5), event
echoes and misdeal payloads. Each game engine keeps only its own rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal, TypeVar

from tablectl.cards import Card
from tablectl.config import Limits
from tablectl.events import Bank, InputEvent, Wager
from tablectl.games.base import Rejected
from tablectl.money import ZERO, fmt
from tablectl.outputs import Output
from tablectl.rules.fees import (
    CollectionSchedule,
    player_dealer_fee,
    player_fees,
    total_table_action,
)
from tablectl.rules.rotation import Rotation

S = TypeVar("S")
A = TypeVar("A")
SettlementOrder = Literal["by-spot", "by-seat"]


@dataclass(frozen=True)
class PlacedWager:
    """A wager on the layout: who placed it, where, how much."""

    seat: int
    player: str
    spot: str
    amount: Decimal

    def payload(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "player": self.player,
            "spot": self.spot,
            "amount": fmt(self.amount),
        }


def default_player(seat: int) -> str:
    """The id of a seat's own player when a wager names none (contract 2)."""
    return f"p{seat}"


def player_of(ev: Wager) -> str:
    """Who placed a wager: the named player (backline) or the seat's own."""
    return ev.player or default_player(ev.seat)


def verify_seat(seat: int, seats: int) -> None:
    """Refuse a seat the table does not have."""
    if not 1 <= seat <= seats:
        raise Rejected(
            f"seat {seat} does not exist: this table has seats 1-{seats}", rule="config seats"
        )


def verify_bank_offer(
    rotation: Rotation, ev: Bank, seats: int, wagers: Sequence[PlacedWager]
) -> None:
    """R1/R5 checks every game makes on a `bank` event (the phase is the game's to check)."""
    verify_seat(ev.seat, seats)
    if ev.amount <= 0:
        raise Rejected("a player-dealer bank must be more than zero", rule="R1")
    if wagers:
        raise Rejected("wagers are already placed against this round's bank", rule="R1")
    why = rotation.why_not(ev.seat)
    if why:
        raise Rejected(why, rule="R5")


def verify_not_player_dealer(ev: Wager, bank_seat: int | None) -> None:
    """R1: the player-dealer does not wager against its own bank."""
    if bank_seat is None:
        raise Rejected("no player-dealer bank has been posted for this round", rule="R1")
    if ev.seat == bank_seat:
        raise Rejected(
            f"seat {ev.seat} is the player-dealer and cannot wager against its own bank",
            rule="R1",
        )
    if ev.player is not None and ev.player == default_player(bank_seat):
        raise Rejected(
            f"player {ev.player} is the player-dealer and cannot wager against its own bank",
            rule="R1",
        )


def verify_limits(limits: Limits, wagers: Sequence[PlacedWager], ev: Wager) -> None:
    """The table limits for the spot, counting what this player already has on it."""
    player = player_of(ev)
    limit = limits.for_spot(ev.spot)
    total = ev.amount + sum(
        (w.amount for w in wagers if (w.seat, w.player, w.spot) == (ev.seat, player, ev.spot)),
        ZERO,
    )
    if ev.amount <= 0 or total < limit.min:
        raise Rejected(
            f"{ev.spot} wager of {fmt(total)} is below the table minimum {fmt(limit.min)}",
            rule="limits",
        )
    if total > limit.max:
        raise Rejected(
            f"{ev.spot} wager of {fmt(total)} is above the table maximum {fmt(limit.max)}",
            rule="limits",
        )


def has_wager(wagers: Iterable[PlacedWager], seat: int, player: str, spots: Iterable[str]) -> bool:
    """Whether `player` at `seat` has a wager on one of `spots` (a bonus needs its base wager)."""
    wanted = set(spots)
    return any(w.seat == seat and w.player == player and w.spot in wanted for w in wagers)


def seats_from_left(bank_seat: int, seats: int) -> list[int]:
    """Seats clockwise from the player-dealer's left, the player-dealer's own seat last (R2)."""
    return [(bank_seat + i - 1) % seats + 1 for i in range(1, seats + 1)]


def seats_from(first: int, seats: int) -> list[int]:
    """Every seat clockwise starting at `first`."""
    return [(first + i - 1) % seats + 1 for i in range(seats)]


def action_button_seat(face_up: Card, bank_seat: int, seats: int) -> int | None:
    """R2 (000 lines 60 and 324, 001 line 97): a card's value (A=1 ... K=13) counts the seats
    clockwise from seat 1, the one on the house dealer's left, skipping the player-dealer's seat
    and wrapping around the table."""
    counted = [s for s in range(1, seats + 1) if s != bank_seat]
    if not counted:
        return None
    return counted[(face_up.rank_index - 1) % len(counted)]


def first_wagered(order: Iterable[int], wagers: Iterable[PlacedWager]) -> int | None:
    """The first seat in `order` that has a wager (where the action starts, R2)."""
    wagered = {w.seat for w in wagers}
    return next((s for s in order if s in wagered), None)


def action_order(
    wagers: Iterable[PlacedWager],
    seat_order: Sequence[int],
    spot_order: Sequence[str],
    settlement_order: SettlementOrder,
) -> list[PlacedWager]:
    """Wagers in settlement order (R2, R3): seats in `seat_order`, spots in `spot_order`, by
    spot type around the table or seat by seat; a seat's wagers on one spot keep their order."""
    rank = {s: i for i, s in enumerate(seat_order)}
    spot_rank = {s: i for i, s in enumerate(spot_order)}
    indexed = list(enumerate(wagers))
    if settlement_order == "by-spot":
        indexed.sort(key=lambda p: (spot_rank[p[1].spot], rank[p[1].seat], p[0]))
    else:
        indexed.sort(key=lambda p: (rank[p[1].seat], spot_rank[p[1].spot], p[0]))
    return [w for _, w in indexed]


def fee_rows(
    schedule: CollectionSchedule, bank_seat: int | None, wagers: Sequence[PlacedWager]
) -> list[dict[str, Any]]:
    """R4: the player-dealer's flat fee from total table action, then the players' fees.

    `wagers` are the pre-deal wagers only (never Play, double or split money).
    """
    total = total_table_action(w.amount for w in wagers)
    rows: list[dict[str, Any]] = []
    fee = player_dealer_fee(schedule, total)
    if fee > 0:
        rows.append(
            {
                "payer": "player-dealer",
                "seat": bank_seat,
                "amount": fmt(fee),
                "schedule": schedule.option,
                "total_action": fmt(total),
            }
        )
    charged = [w for w in wagers if schedule.player_fee_applies(w.spot)]
    for seat, player, amount in player_fees(
        schedule, [(w.seat, w.player, w.amount) for w in charged]
    ):
        rows.append(
            {
                "payer": "player",
                "seat": seat,
                "player": player,
                "amount": fmt(amount),
                "schedule": schedule.option,
            }
        )
    return rows


def void_settlements(ordered: Iterable[PlacedWager]) -> list[dict[str, Any]]:
    """A misdeal's settlements: every wager returned, nothing won or lost."""
    return [{**w.payload(), "status": "returned", "net": fmt(ZERO)} for w in ordered]


def seen_plus(seen: Mapping[Card, int], cards: Iterable[Card]) -> dict[Card, int]:
    """A copy of `seen` counting `cards` once more each (states are never mutated)."""
    out = dict(seen)
    for card in cards:
        out[card] = out.get(card, 0) + 1
    return out


def event_msg(ev: InputEvent, ts: str, *, hide: Iterable[str] = (), **extra: Any) -> Output:
    """The `event` echo of an accepted input; `hide` drops fields the table does not show yet
    (a stack's cards before they are exposed)."""
    body = ev.model_dump(mode="json", exclude_none=True, exclude={"ts", *hide})
    payload: dict[str, Any] = {"type": body.pop("type"), **body, **extra, "ts": ts}
    return Output("event", payload)


def can(verify: Callable[[S, A], object], state: S, arg: A) -> bool:
    """The `can_x` of a `verify_x`: whether it accepts, without raising."""
    try:
        verify(state, arg)
    except Rejected:
        return False
    return True
