"""Player-dealer rotation (R5): the bank is offered clockwise after every two hands."""

from __future__ import annotations

from dataclasses import dataclass

from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost

HANDS_PER_TURN = 2  # "offered ... in a clockwise manner around the table after every two hands"


@quick_init
@dataclass(frozen=True)
class Rotation:
    """Who banked the last finished round, and how many rounds running they have banked."""

    last_seat: int | None = None
    streak: int = 0

    def turn_of(self, seat: int) -> int:
        """1 or 2: which of its consecutive hands `seat` banks this round."""
        return self.streak + 1 if seat == self.last_seat else 1

    def why_not(self, seat: int) -> str | None:
        """Why `seat` may not take the bank now, or None."""
        if seat == self.last_seat and self.streak >= HANDS_PER_TURN:
            return (
                f"seat {seat} has banked {self.streak} hands running; "
                "the bank must be offered on clockwise"
            )
        return None

    def offer_seat(self, seats: int) -> int | None:
        """The seat the bank is offered to now (None before anyone has banked)."""
        if self.last_seat is None:
            return None
        if self.streak < HANDS_PER_TURN:
            return self.last_seat
        return self.last_seat % seats + 1

    def after_round(self, seat: int) -> Rotation:
        return Rotation(seat, self.turn_of(seat))
