"""Where the action is at a player-dealer table: seats counted from the player-dealer's left
(R2), the action button from a card (R2), and the order wagers settle in (R3)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, TypeVar

from tablectl.games.common import PlacedWager
from tablectl_base.cards import Card

SettlementOrder = Literal["by-spot", "by-seat"]


class OnSpot(Protocol):
    """Anything that sits on a spot at a seat: a placed wager, or a verdict on one."""

    @property
    def seat(self) -> int: ...

    @property
    def spot(self) -> str: ...


W = TypeVar("W", bound=OnSpot)


def seats_from_left(bank_seat: int, seats: int) -> list[int]:
    """Seats clockwise from the player-dealer's left, the player-dealer's own seat last (R2)."""
    return seats_from(bank_seat % seats + 1, seats)


def seats_from(first: int, seats: int) -> list[int]:
    """Every seat clockwise starting at `first`."""
    return [(first + i - 1) % seats + 1 for i in range(seats)]


def action_button_seat(face_up: Card, bank_seat: int, seats: int) -> int | None:
    """R2 (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play", "Three Card Poker 6 Card
    Bonus: Description of Table Used and Total Number of Seated Positions", 001 "Round of Play"): a
    card's value (A=1 ... K=13) counts the seats clockwise from seat 1, the one on the house
    dealer's left, skipping the player-dealer's seat and wrapping around the table."""
    counted = [s for s in range(1, seats + 1) if s != bank_seat]
    if not counted:
        return None
    return counted[(face_up.rank_index - 1) % len(counted)]


def first_wagered(order: Iterable[int], wagers: Iterable[PlacedWager]) -> int | None:
    """The first seat in `order` that has a wager (where the action starts, R2)."""
    wagered = {w.seat for w in wagers}
    return next((s for s in order if s in wagered), None)


def action_order(
    wagers: Iterable[W],
    seat_order: Sequence[int],
    spot_order: Sequence[str],
    settlement_order: SettlementOrder,
) -> list[W]:
    """Wagers (or verdicts on them) in settlement order (R2, R3): seats in `seat_order`, spots in
    `spot_order`, by spot type around the table or seat by seat; a seat's wagers on one spot
    keep their order."""
    rank = {s: i for i, s in enumerate(seat_order)}
    spot_rank = {s: i for i, s in enumerate(spot_order)}
    # Sorted by (first rank, second rank, place): the place is unique, so no wager is compared.
    if settlement_order == "by-spot":
        keyed = [(spot_rank[w.spot], rank[w.seat], i, w) for i, w in enumerate(wagers)]
    else:
        keyed = [(rank[w.seat], spot_rank[w.spot], i, w) for i, w in enumerate(wagers)]
    keyed.sort()
    return [k[3] for k in keyed]
