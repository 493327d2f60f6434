"""What every game engine provides, and the rejection every illegal input becomes."""

from __future__ import annotations

from typing import Protocol, TypeVar

from tablectl.game_records import GameRecord, StateChanged
from tablectl_base.events import InputEvent

S = TypeVar("S")


REJECTED = "rejected"  # the alert kind of an input the rules refuse (docs/mqtt.md)
DEALER_ERROR = "dealer-error"  # a refusal the rules call a dealer error (R15), told apart


class Rejected(Exception):
    """An input the rules forbid. The table turns it into an `alert` of `kind` and keeps its
    state; `kind` is "dealer-error" where the rules name the refusal a dealer error (R15), so a
    floor system can tell those apart from other refused input."""

    def __init__(self, reason: str, rule: str | None = None, kind: str = REJECTED) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
        self.kind = kind


class Engine(Protocol[S]):
    """A game's rules as a pure function of its state and one input event."""

    game_id: str

    def initial(self) -> S:
        """The state of a table that has just been set up: a fresh shoe, round 1, no bank."""
        ...

    def apply(self, state: S, event: InputEvent, ts: str) -> tuple[S, list[GameRecord]]:
        """Apply one input; raise Rejected to refuse it without changing anything."""
        ...

    def void(self, state: S, reason: str, ts: str) -> tuple[S, list[GameRecord]]:
        """End the round in progress without playing it: every wager returned (a misdeal)."""
        ...

    def in_deal(self, state: S) -> bool:
        """Whether cards of the round are being read: a device fault now would leave a
        half-read hand, so the table holds the round."""
        ...

    def between_rounds(self, state: S) -> bool:
        """Whether new rules may take over in this state (nothing of a round is on the table)."""
        ...

    def state_view(self, state: S) -> StateChanged:
        """What the retained `state` topic shows: only what the table shows."""
        ...
