"""Shuffler and hand-dispenser drivers (docs/protocols/dispenser.md): stacks become events.

Connection, framing, SEQ, FLT/CLR and status are tablectl_drivers/framed.py's; positions, resends
and gaps are tablectl_drivers/positioned.py's (a shuffle is a run, a stack's number since it the
position). `DispenserDriver` decides what a stack becomes: `shuffler.stack` with the cards as read,
in dispense order, the deck colour of its shuffle and its place (`at`: shuffle, stack number, SEQ,
first card index). A stack of the wrong size is still emitted (the game engine refuses it with an
alert) and shown as fault WRONG_COUNT; a joker where the deck has none is withheld, shown as
UNEXPECTED_JOKER and reported as a gap the device cannot fill (`device.gap`); a stack whose first
card index does not follow on from the stack before it is emitted and shown as CARD_INDEX.
`ShufflerDriver` and `HandDispenserDriver` only set the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tablectl_drivers.base import DriverSink
from tablectl_drivers.dispenser.messages import (
    MESSAGES,
    CardCount,
    DispenserMessage,
    ShuffleDone,
    Stack,
)
from tablectl_drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedOptions,
    withhold_fields,
)
from tablectl_drivers.positioned import PositionedDriver, PositionedOptions

__all__ = [
    "CARD_INDEX",
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
CARD_INDEX = "CARD_INDEX"
"""Fault from a stack whose first card index is not the one after the stack before it (cards
went missing or appeared between them), until a stack that follows on rightly or the next SHF."""
_DECKS_KEPT = 4
"""Shuffles whose deck colour the driver remembers (the current one and a few before)."""
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
class DispenserOptions(PositionedOptions):
    """The positioned device's options plus `stack_size` and `joker`; the defaults are the TCP
    shuffler's."""

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


class DispenserDriver(PositionedDriver[DispenserMessage]):
    """Driver for the family: stacks as `shuffler.stack` events with their positions; deck,
    count, misdeals as status.

    `detail.deck` is the colour the SHF of the shuffle the device is in named (null before one,
    when it named none, or when the driver did not see it: it started mid-shuffle);
    `detail.remaining` the last CNT since the last SHF. `wrong_count`, `joker_refused` and
    `card_index_breaks` count stacks; `last_wrong_count` is `{"expected": [sizes], "received":
    n}` of the latest wrong-sized one, `last_card_index` `{"shuffle", "stack", "expected",
    "received"}` of the latest stack whose first card index did not follow on.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "dispenser"
    options_class: ClassVar[type[FramedOptions]] = DispenserOptions
    options: DispenserOptions

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._decks: dict[str, str | None] = {}  # shuffle id -> colour its SHF named
        self._remaining: int | None = None
        self._wrong_now = False
        self._wrong_count = 0
        self._last_wrong: dict[str, Any] | None = None
        self._joker_now = False
        self._joker_refused = 0
        self._index_now = False
        self._index_breaks = 0
        self._last_index: dict[str, Any] | None = None
        # (shuffle, stack number, first card index, cards) of the furthest stack passed on
        self._last_stack: tuple[str | None, int, int, int] | None = None

    @property
    def deck(self) -> str | None:
        """The colour of the deck of the shuffle the device is in, if its SHF said it."""
        return self._decks.get(self._run) if self._run is not None else None

    def run_started(self, frame: DispenserMessage) -> str | None:
        return frame.shuffle if isinstance(frame, ShuffleDone) else None

    def position_of(self, frame: DispenserMessage) -> int | None:
        return frame.pos if isinstance(frame, Stack) else None

    async def emit(self, frame: DispenserMessage, at: dict[str, Any], sink: DriverSink) -> None:
        """STK becomes `shuffler.stack` (or is withheld: a joker); SHF is no event, it starts a
        fresh deck: its colour, no count yet, the stack faults over."""
        if isinstance(frame, ShuffleDone):
            self._decks[frame.shuffle] = frame.deck
            while len(self._decks) > _DECKS_KEPT:
                del self._decks[next(iter(self._decks))]
            self._remaining = None
            self._wrong_now = self._joker_now = self._index_now = False
            self._last_stack = None
        elif isinstance(frame, Stack):
            await self._stack(frame, at, sink)

    async def on_other(self, frame: DispenserMessage, sink: DriverSink) -> None:
        """CNT updates the count."""
        if isinstance(frame, CardCount):
            self._remaining = frame.remaining

    async def _stack(self, frame: Stack, at: dict[str, Any], sink: DriverSink) -> None:
        """One stack at its place: judged (size, joker, card index) unless it is a repeat of one
        passed on before, which goes to the table as it is (the table refuses it)."""
        run, pos, n = at.get("run"), at["pos"], len(frame.cards)
        last = self._last_stack
        repeat = last is not None and last[0] == run and pos <= last[1]
        if not repeat:
            self._check_index(frame, run, pos, last)
            self._last_stack = (run, pos, frame.first, n)
        if not self.options.joker and any(card.is_joker for card in frame.cards):
            self._log.warning(f"{self.log_prefix}.joker_refused", seq=frame.seq, pos=pos, cards=n)
            if not repeat:
                await self._refuse_joker(run, pos, sink)
            return
        if not repeat:
            sizes = self.options.stack_sizes
            self._wrong_now = n not in sizes
            if self._wrong_now:
                self._wrong_count += 1
                self._last_wrong = {"expected": list(sizes), "received": n}
                self._log.warning(
                    f"{self.log_prefix}.wrong_count", seq=frame.seq, pos=pos, **self._last_wrong
                )
        event: dict[str, Any] = {"type": "shuffler.stack", "cards": [str(c) for c in frame.cards]}
        deck = self._decks.get(run) if run is not None else None
        if deck is not None:
            event["deck"] = deck
        event["at"] = {**at, "first": frame.first}
        await sink.event(event)

    def _check_index(
        self, frame: Stack, run: str | None, pos: int, last: tuple[str | None, int, int, int] | None
    ) -> None:
        """The first card index against the stack before it: the first stack of a shuffle
        starts at card 1, each next one right after the last card of the one before. Unknown
        (the driver did not see the stack before) is no break."""
        if pos == 1:
            expected: int | None = 1
        elif last is not None and last[0] == run and last[1] == pos - 1:
            expected = last[2] + last[3]
        else:
            expected = None
        if expected is None:
            return
        self._index_now = frame.first != expected
        if self._index_now:
            self._index_breaks += 1
            self._last_index = {
                "shuffle": run,
                "stack": pos,
                "expected": expected,
                "received": frame.first,
            }
            self._log.warning(
                f"{self.log_prefix}.card_index",
                seq=frame.seq,
                shuffle=run,
                pos=pos,
                expected=expected,
                received=frame.first,
            )

    async def _refuse_joker(self, run: str | None, pos: int, sink: DriverSink) -> None:
        """A joker where the deck has none: the stack is withheld (no game here can hold it),
        which leaves its position empty, so it is reported as a gap the device cannot fill: the
        table holds the round until the dealer voids it (or enters the stack by hand)."""
        self._joker_now = True
        self._joker_refused += 1
        self.stats["gaps"] += 1
        gap: dict[str, Any] = {
            "type": "device.gap",
            "device": self.name,
            "after": pos - 1,
            "missing": [pos],
            "reason": f"stack {pos} held a joker, which this deck has not: it was withheld",
        }
        if run is not None:
            gap["run"] = run
        await sink.event(gap)

    def device_fault(self) -> str | None:
        if self._joker_now:
            return UNEXPECTED_JOKER
        if self._index_now:
            return CARD_INDEX
        return WRONG_COUNT if self._wrong_now else None

    def extra_detail(self) -> dict[str, Any]:
        detail: dict[str, Any] = {
            "deck": self.deck,
            "remaining": self._remaining,
            "wrong_count": self._wrong_count,
            "joker_refused": self._joker_refused,
            "card_index_breaks": self._index_breaks,
        }
        if self._last_wrong is not None:
            detail["last_wrong_count"] = dict(self._last_wrong)
        if self._last_index is not None:
            detail["last_card_index"] = dict(self._last_index)
        return {**detail, **super().extra_detail()}

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
    from tablectl_drivers.base import Driver

    _shuffler: type[Driver] = ShufflerDriver
    _hand_dispenser: type[Driver] = HandDispenserDriver
