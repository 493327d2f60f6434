"""Shuffler and hand-dispenser drivers (docs/protocols/dispenser.md): stacks become events.

Connection, framing, SEQ, FLT/CLR and status are drivers/framed.py's. `DispenserDriver` decides
what a stack becomes: `shuffler.stack` with the cards as read, in dispense order, and the deck
colour of the last shuffle. A stack of the wrong size is still emitted (the game engine refuses
it with an alert) and shown as fault WRONG_COUNT; a joker where the deck has none is withheld and
shown as UNEXPECTED_JOKER. `ShufflerDriver` and `HandDispenserDriver` only set the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from drivers.base import DriverSink
from drivers.dispenser.messages import (
    MESSAGES,
    CardCount,
    DispenserMessage,
    ShuffleDone,
    Stack,
)
from drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedDriver,
    FramedOptions,
    withhold_fields,
)

__all__ = [
    "DISCONNECTED",
    "FRAMES_LOST",
    "MAX_STACK_SIZE",
    "SILENT",
    "UNEXPECTED_JOKER",
    "WRONG_COUNT",
    "DispenserDriver",
    "DispenserOptions",
    "HandDispenserDriver",
    "HandDispenserOptions",
    "ShufflerDriver",
]

WRONG_COUNT = "WRONG_COUNT"
"""Fault from a stack whose size is not a configured `stack_size` until a right-sized one or SHF."""
UNEXPECTED_JOKER = "UNEXPECTED_JOKER"
"""Fault from a stack holding JKR when option `joker` is false, until the next SHF."""
MAX_STACK_SIZE = 7
"""Largest configurable stack: a Pai Gow hand."""


def _stack_size(value: Any) -> int | tuple[int, ...]:
    """Option `stack_size` checked: one size 1..7, or a list of distinct ones (stored sorted)."""
    bad = ValueError(
        f"option 'stack_size' must be an integer 1..{MAX_STACK_SIZE} or a list of them, "
        f"not {value!r}"
    )

    def size(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_STACK_SIZE:
            raise bad
        return v

    if isinstance(value, list | tuple):
        sizes = [size(v) for v in value]
        if not sizes or len(set(sizes)) != len(sizes):
            raise bad
        return tuple(sorted(sizes))
    return size(value)


@dataclass(frozen=True)
class DispenserOptions(FramedOptions):
    """The common options plus `stack_size` and `joker`; the defaults are the TCP shuffler's."""

    stack_size: int | tuple[int, ...] = 3
    """Cards per stack: one size, or several (Ultimate Texas Hold'em: 2 a hand, 5 the board)."""
    joker: bool = False
    """Whether the deck holds the joker (Pai Gow's 53 cards); a JKR is refused when false."""

    @property
    def stack_sizes(self) -> tuple[int, ...]:
        """`stack_size` as a tuple of the allowed sizes."""
        s = self.stack_size
        return (s,) if isinstance(s, int) else s

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "stack_size":
            return _stack_size(value)
        if key == "joker":
            if not isinstance(value, bool):
                raise ValueError(f"option 'joker' must be true or false, not {value!r}")
            return value
        return super().check_option(key, value)


@dataclass(frozen=True)
class HandDispenserOptions(DispenserOptions):
    """The hand dispenser's defaults: 7-card Pai Gow hands from a deck with the joker."""

    stack_size: int | tuple[int, ...] = 7
    joker: bool = True


class DispenserDriver(FramedDriver[DispenserMessage]):
    """Driver for the family: stacks as `shuffler.stack` events; deck, count, misdeals as status.

    `detail.deck` is the colour of the last SHF (null before one, and after a SEQ gap until the
    next); `detail.remaining` the last CNT since then. `wrong_count` and `joker_refused` count
    stacks; `last_wrong_count` is `{"expected": [sizes], "received": n}` of the latest wrong one.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "dispenser"
    options_class: ClassVar[type[FramedOptions]] = DispenserOptions
    options: DispenserOptions

    _deck: str | None = None
    _deck_lost_mark = 0  # stats["frames_lost"] when the deck colour was learnt
    _remaining: int | None = None
    _wrong_now = False
    _wrong_count = 0
    _last_wrong: dict[str, Any] | None = None
    _joker_now = False
    _joker_refused = 0

    @property
    def deck(self) -> str | None:
        """The colour of the deck in play, if known: a lost frame may have been a new shuffle."""
        return self._deck if self.stats["frames_lost"] == self._deck_lost_mark else None

    async def on_frame(self, frame: DispenserMessage, sink: DriverSink) -> None:
        """STK becomes an event (or is refused); SHF starts a fresh deck; CNT updates the count."""
        if isinstance(frame, Stack):
            await self._stack(frame, sink)
        elif isinstance(frame, ShuffleDone):
            self._deck, self._deck_lost_mark = frame.deck, self.stats["frames_lost"]
            self._remaining = None
            self._wrong_now = self._joker_now = False
            self.clear_frames_lost()
        else:
            assert isinstance(frame, CardCount)
            self._remaining = frame.remaining

    async def _stack(self, frame: Stack, sink: DriverSink) -> None:
        n = len(frame.cards)
        if not self.options.joker and any(card.is_joker for card in frame.cards):
            self._joker_now = True
            self._joker_refused += 1
            self._log.warning(f"{self.log_prefix}.joker_refused", seq=frame.seq, cards=n)
            return
        sizes = self.options.stack_sizes
        self._wrong_now = n not in sizes
        if self._wrong_now:
            self._wrong_count += 1
            self._last_wrong = {"expected": list(sizes), "received": n}
            self._log.warning(f"{self.log_prefix}.wrong_count", seq=frame.seq, **self._last_wrong)
        event: dict[str, Any] = {"type": "shuffler.stack", "cards": [str(c) for c in frame.cards]}
        if self.deck is not None:
            event["deck"] = self.deck
        await sink.event(event)

    def device_fault(self) -> str | None:
        if self._joker_now:
            return UNEXPECTED_JOKER
        return WRONG_COUNT if self._wrong_now else None

    def extra_detail(self) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "deck": self.deck,
            "remaining": self._remaining,
            "wrong_count": self._wrong_count,
            "joker_refused": self._joker_refused,
        }
        if self._last_wrong is not None:
            detail["last_wrong_count"] = dict(self._last_wrong)
        return detail

    def shown_bad_frame(self, raw: bytes) -> str:
        """Only `$TYPE,SEQ` of a bad frame: the rest may be a stack's cards; status is public."""
        return withhold_fields(raw)


class ShufflerDriver(DispenserDriver):
    """The stack-of-three shuffler (Three Card Poker): by default stacks of 3, no joker."""


class HandDispenserDriver(DispenserDriver):
    """The hand dispenser (Fortune Pai Gow 7-card hands): by default stacks of 7, joker allowed."""

    options_class: ClassVar[type[FramedOptions]] = HandDispenserOptions
    options: HandDispenserOptions


if TYPE_CHECKING:
    from drivers.base import Driver

    _shuffler: type[Driver] = ShufflerDriver
    _hand_dispenser: type[Driver] = HandDispenserDriver
