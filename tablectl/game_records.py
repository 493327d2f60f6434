"""What game engines return: immutable, typed records of what happened (an input accepted, the
state changed, a round settled, a display's view changed). One module renders them to topics and
payloads (tablectl/render.py); the table, daemon, bet timer and analyses read the records.

Not to be confused with the journal's `Record` (one input as journaled): these are what applying
one of those produces. A leaf module: no MQTT, SQLite or asyncio.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import ClassVar, Literal, Protocol, Union

from tablectl_base.events import InputEvent
from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost

JsonValue = Union[  # noqa: UP007 (a recursive alias must be spelled with Union on Python 3.11)
    str, int, float, bool, None, Sequence["JsonValue"], Mapping[str, "JsonValue"]
]
"""A JSON value as a payload holds it (a game's own part of a message: its outcome, its view)."""

JsonObject = Mapping[str, JsonValue]
"""A JSON object."""

EMPTY: JsonObject = MappingProxyType({})
"""No fields (an immutable default)."""


@quick_init
@dataclass(frozen=True)
class InputAccepted:
    """An accepted input, echoed on `event` (contract 3): the event's own fields less `hide`
    (what the table does not show yet, such as a stack's cards), then `shown` (what the game adds:
    the round, the player, where a card went), then the time."""

    event: InputEvent
    ts: str
    shown: JsonObject = field(default_factory=lambda: EMPTY)
    hide: frozenset[str] = frozenset()


class LazyView:
    """A view built the first time it is read, then kept: a start-up, an import or a deep
    verification replays every input without publishing, and never pays for a view it does not
    show. `build` must read only immutable values (an engine state, a copy)."""

    __slots__ = ("_build", "_view")

    def __init__(self, view: JsonObject | None, build: Callable[[], JsonObject] | None) -> None:
        if (view is None) == (build is None):
            raise TypeError("give a view or a function that builds one, not both")
        self._view = view
        self._build = build

    @property
    def view(self) -> JsonObject:
        """The view, built now if it has not been yet."""
        if self._view is None:
            assert self._build is not None
            self._view, self._build = self._build(), None
        return self._view

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LazyView) or type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # a view is a dict: not hashable

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError


class StateChanged(LazyView):
    """The retained `state` (contract 3): `view` is what the table shows (given, or built when
    first read); `round`, `phase` and `wagers` (how many are placed) are read by the table's
    timers and status line."""

    __slots__ = ("_base", "_extra", "phase", "round", "wagers")

    def __init__(
        self,
        round: int,
        phase: str,
        wagers: int,
        view: JsonObject | None = None,
        *,
        build: Callable[[], JsonObject] | None = None,
    ) -> None:
        if (view is None) == (build is None):  # LazyView.__init__, inlined: one a record
            raise TypeError("give a view or a function that builds one, not both")
        self._view = view
        self._build = build
        self._base: StateChanged | None = None
        self._extra: JsonObject = EMPTY
        self.round = round
        self.phase = phase
        self.wagers = wagers

    @property
    def view(self) -> JsonObject:
        """The view, built now if it has not been yet (with `with_fields`' fields after it)."""
        if self._view is None:
            base = self._base
            if base is not None:
                self._view, self._base = {**base.view, **self._extra}, None
            else:
                assert self._build is not None
                self._view, self._build = self._build(), None
        return self._view

    def with_fields(self, extra: JsonObject) -> StateChanged:
        """The same state with `extra`'s fields after the view's own (built when read)."""
        new = _new_state(StateChanged)
        new._view = None
        new._build = None
        new._base = self
        new._extra = extra
        new.round = self.round
        new.phase = self.phase
        new.wagers = self.wagers
        return new

    def parts(self) -> tuple[JsonObject, JsonObject]:
        """The view as two objects whose fields, one after the other, are the view's (a key in
        both stands where the first has it, with the second's value, as `{**first, **second}`
        places it): the game's view and what `with_fields` added, so a reader that merges them
        into a bigger object (the table's envelope) need not merge them first."""
        base = self._base
        if self._view is None and base is not None:
            return base.view, self._extra
        return self.view, EMPTY

    def _key(self) -> tuple[object, ...]:
        return (self.round, self.phase, self.wagers, self.view)

    def __repr__(self) -> str:
        return f"StateChanged({self.round!r}, {self.phase!r}, {self.wagers!r}, {self.view!r})"


_new_state = object.__new__
"""A bare StateChanged, its slots then set by `with_fields` (no __init__ call, no closure)."""


class DisplayChanged(LazyView):
    """A display's whole view changed (`display/<name>`, retained), e.g. the EZTRAK board (R28);
    the view given, or built when first read."""

    __slots__ = ("name",)

    def __init__(
        self,
        name: str,
        view: JsonObject | None = None,
        *,
        build: Callable[[], JsonObject] | None = None,
    ) -> None:
        super().__init__(view, build)
        self.name = name

    def _key(self) -> tuple[object, ...]:
        return (self.name, self.view)

    def __repr__(self) -> str:
        return f"DisplayChanged({self.name!r}, {self.view!r})"


class Outcome(Protocol):
    """A game's outcome of a round (its hands, totals, who won), as the game renders it."""

    def payload(self) -> JsonObject:
        """The `outcome` object of `round/result` (contract 3, per game in docs/games/)."""
        ...


@quick_init
@dataclass(frozen=True)
class Fee:
    """One collection fee (R4): the player-dealer's flat fee from total table action, or one
    player's fee."""

    payer: Literal["player-dealer", "player"]
    seat: int | None
    amount: Decimal
    schedule: int
    player: str | None = None
    total_action: Decimal | None = None


@quick_init
@dataclass(frozen=True)
class BankView:
    """The player-dealer's bank over the round: `turn` is which of its two hands (R5); a void
    round shows no turn, and no amounts when no bank was posted."""

    seat: int | None
    start: Decimal | None
    end: Decimal | None
    turn: int | None = None


Status = Literal["win", "lose", "push", "returned", "partial"]


@quick_init
@dataclass(frozen=True)
class Settlement:
    """What actually happened to one wager (R1). `net` is the player's gain, fees excluded;
    `notes` is what the game adds to its row (the hand it rode, the hand a bonus pay was for,
    whether it was paid at even money)."""

    seat: int
    player: str
    spot: str
    amount: Decimal
    status: Status
    net: Decimal
    notes: JsonObject = field(default_factory=lambda: EMPTY)


@quick_init
@dataclass(frozen=True)
class DeviceUsed:
    """A device that fed the round, with its serial (the table adds these)."""

    name: str
    serial: str | None


@quick_init
@dataclass(frozen=True)
class TableNotes:
    """What the table, not the engine, adds to a round's result: the devices (and serials) that
    fed it and where in their counts (`positions`), and the journal's chain head (`chain`, the
    witness, docs/mqtt.md). Empty until the table fills it in."""

    devices: tuple[DeviceUsed, ...] | None = None
    positions: JsonObject = field(default_factory=lambda: EMPTY)
    chain: JsonObject | None = None


NO_NOTES = TableNotes()


@quick_init
@dataclass(frozen=True)
class Deck:
    """The round's deck, for a game dealt from alternating decks: its colour (None when the
    device named none, published as null) and whether `deck` stands after `dealt` (where a game
    has always published it there) or before `outcome`."""

    colour: str | None
    after_dealt: bool = False


@quick_init
@dataclass(frozen=True)
class RoundHeaders:
    """Where a game's `round/result` says its cards came from (contract 3): the reading shoe's
    number, or the round's deck; a game with neither names none."""

    shoe: int | None = None
    deck: Deck | None = None


NO_HEADERS = RoundHeaders()


@quick_init
@dataclass(frozen=True)
class RoundSettled:
    """A round's end (`round/result`): settled (R1-R4), or void (a misdeal: `outcome` None, every
    wager returned, no fee). `headers` say where the cards came from; `table` is filled in by
    the table, not the engine."""

    round: int
    game: str
    outcome: Outcome | None
    dealt: Sequence[JsonValue]
    bank: BankView
    action_seat: int | None
    settlements: tuple[Settlement, ...]
    fees: tuple[Fee, ...]
    void: bool = False
    reason: str | None = None
    headers: RoundHeaders = NO_HEADERS
    table: TableNotes = NO_NOTES


@quick_init
@dataclass(frozen=True)
class ShownHand:
    """A hand shown down at a poker showdown (R46: only hands shown are published): the hole
    cards it played, its best high five and its low five (None: no qualifying low, or a
    high-only game), with their names."""

    seat: int
    cards: tuple[str, ...]
    high: tuple[str, ...]
    high_name: str
    low: tuple[str, ...] | None = None
    low_name: str | None = None


@quick_init
@dataclass(frozen=True)
class PotWon:
    """One poker pot (the main pot first, then side pots): its chips after any collection, who
    could win it, who took the high and the low, and what each seat was paid (R41, R42)."""

    amount: Decimal
    eligible: tuple[int, ...]
    high: tuple[int, ...]
    low: tuple[int, ...]
    paid: tuple[tuple[int, Decimal], ...]


@quick_init
@dataclass(frozen=True)
class PokerHandSettled:
    """A poker hand's end (`round/result`): the pots and their winners, the collection taken
    from the main pot (R44), the uncalled chips returned, the board, only the hands shown (R46)
    and every seat's stack after. A misdeal (`void`) returns every chip put in (`returned`) and
    pays no pot and no fee."""

    hand: int
    game: str
    button: int
    board: tuple[str, ...]
    pots: tuple[PotWon, ...]
    fee: Decimal
    fee_players: int
    fee_modified: bool
    returned: tuple[tuple[int, Decimal], ...]
    shown: tuple[ShownHand, ...]
    stacks: tuple[tuple[int, Decimal], ...]
    showdown: bool
    void: bool = False
    reason: str | None = None
    table: TableNotes = NO_NOTES
    declared: bool = False  # the showdown's order declared by the dealer (no reader, no cards)


class OwnRoundResult:
    """A round's end of a game's own shape (`round/result`), for a game whose result is neither
    a banked round (`RoundSettled`) nor a pot game's hand (`PokerHandSettled`): a frozen
    dataclass the game defines in its own package, with a `table: TableNotes` field the table
    fills in (default `NO_NOTES`) and, where it can be a misdeal, a `void` field. It builds its
    own payload, so the renderer (tablectl/render.py) publishes it without knowing the game,
    adding the table's notes at its end as to every result."""

    TOPIC: ClassVar[str] = "round/result"
    """Where it is published (under the table's base topic)."""
    table: TableNotes

    def payload(self) -> dict[str, JsonValue]:
        """The message's payload, in the key order the game has always published, without what
        the table adds (`table`)."""
        raise NotImplementedError


RoundResult = (RoundSettled, PokerHandSettled, OwnRoundResult)
"""The records that end a round (`round/result`): what the table annotates and witnesses."""

GameRecord = Union[  # noqa: UP007
    InputAccepted,
    StateChanged,
    DisplayChanged,
    RoundSettled,
    PokerHandSettled,
    OwnRoundResult,
]
"""Everything an engine returns."""
