"""Input events per DESIGN contract 2: pydantic models, parsed from JSON lines, printed canonically.

Besides the public types, two internal types reach the journal so that everything the daemon
publishes can be rebuilt from it: `device.status` (a driver's availability or fault) and
`input.invalid` (something that could not be parsed, kept with the reason it was refused).
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from tablectl_base.cards import parse_card
from tablectl_base.money import Money


def _card(value: object) -> str:
    return str(parse_card(value))


CardText = Annotated[str, AfterValidator(_card)]

# Numbers in an input are JSON integers only: not "3", not "3 ", not 3.0, not true.
Seat = Annotated[int, Field(strict=True, ge=1)]
Count = Annotated[int, Field(strict=True)]
# Names in an input are short: a longer one is refused with its length rather than journaled.
MAX_NAME = 64
Name = Annotated[str, Field(max_length=MAX_NAME)]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    ts: Name | None = None


RUN_ID = r"^[A-Za-z0-9]{1,8}$"
"""What a device run (a shoe, a shuffle) is called on the wire and in events."""
MAX_POSITION = 999_999_999
"""Highest position a device may report (nine digits on the wire)."""


class DevicePosition(BaseModel):
    """Where a device input sits in the device's own count (every card knows its place).

    `run` is the shoe or shuffle the count restarts with (None for the dice cup, whose roll
    number never restarts); `pos` the card number since the shoe's NEW (burns included), the
    stack number since the shuffle, or the roll number (0 for a run's own start, `shoe.new`);
    `first` a stack's first card index since the shuffle; `seq` the device frame's SEQ. Cards
    the dealer enters by hand into a gap name the `device` whose gap they fill.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    run: str | None = Field(None, pattern=RUN_ID)
    pos: int = Field(strict=True, ge=0, le=MAX_POSITION)
    first: int | None = Field(None, strict=True, ge=1, le=MAX_POSITION)
    seq: int | None = Field(None, strict=True, ge=0, le=9999)
    device: str | None = Field(None, min_length=1, max_length=64)


class _Positioned(_Event):
    """An input a device reports with its position (`at`); None from a device without one."""

    at: DevicePosition | None = None


class ShoeNew(_Positioned):
    type: Literal["shoe.new"] = "shoe.new"


class ShoeCard(_Positioned):
    type: Literal["shoe.card"] = "shoe.card"
    card: CardText


class ShoeBurn(_Positioned):
    type: Literal["shoe.burn"] = "shoe.burn"
    card: CardText


class ShufflerStack(_Positioned):
    type: Literal["shuffler.stack"] = "shuffler.stack"
    cards: list[CardText]
    deck: Name | None = None


class DiceRoll(_Positioned):
    type: Literal["dice.roll"] = "dice.roll"
    dice: list[Count]


TableZone = Literal["seat", "board", "muck"]
"""Where a card-reading poker table reads a card: a seat's antenna, the board, the muck."""


class TableCard(_Positioned):
    """Poker: a card the card-reading table read where it lay (docs/protocols/poker-table.md).
    `seat` names the seat of a `seat` zone and is absent otherwise. A hole card (seat) or a
    discard (muck) is journaled only (R46); a board card is public once read."""

    type: Literal["table.card"] = "table.card"
    zone: TableZone
    seat: Seat | None = None
    card: CardText

    @model_validator(mode="after")
    def _seat_with_seat_zone(self) -> TableCard:
        if (self.zone == "seat") != (self.seat is not None):
            raise ValueError("a card in the `seat` zone names its seat; other zones name none")
        return self


PositionedEvent = ShoeNew | ShoeCard | ShoeBurn | ShufflerStack | DiceRoll | TableCard
"""The inputs a device reports with a position."""


class Bank(_Event):
    type: Literal["bank"] = "bank"
    seat: Seat
    amount: Money


class Wager(_Event):
    type: Literal["wager"] = "wager"
    seat: Seat
    spot: Name
    amount: Money
    player: Name | None = None


class BetsClose(_Event):
    type: Literal["bets.close"] = "bets.close"


class Decision(_Event):
    type: Literal["decision"] = "decision"
    seat: Seat
    action: Name
    hand: Count | None = None
    amount: Money | None = None
    multiple: Count | None = None
    low: list[CardText] | None = None


class SeatTake(_Event):
    """Poker: a player takes a seat with a stack of chips (table stakes: only these play)."""

    type: Literal["seat.take"] = "seat.take"
    seat: Seat
    stack: Money
    player: Name | None = None


class SeatLeave(_Event):
    """Poker: the player in a seat leaves the table, taking the stack."""

    type: Literal["seat.leave"] = "seat.leave"
    seat: Seat


class SeatAway(_Event):
    """Poker: the player in a seat sits out from the next hand (not dealt in; the blinds that
    pass the seat meanwhile are owed on coming back)."""

    type: Literal["seat.away"] = "seat.away"
    seat: Seat


class SeatBack(_Event):
    """Poker: a player who sat out is dealt in again from the next hand, posting what is owed."""

    type: Literal["seat.back"] = "seat.back"
    seat: Seat


class HandStart(_Event):
    """Poker: the dealer starts a hand; the button moves and the blinds are posted. The first
    hand of a game names the `button` (the seat that drew the highest card); later ones do not."""

    type: Literal["hand.start"] = "hand.start"
    button: Seat | None = None
    # Lowball: the straddles posted after the big blind, in turn (003 "Lowball" rule 5)
    straddles: list[Money] | None = Field(None, max_length=13)
    # Dealer's Choice: the game the player on the button chooses for this hand (003)
    game: Name | None = None


class HoleCards(_Event):
    """Poker: a seat's hole cards as dealt, for the journal only (R46: never published live)."""

    type: Literal["hole.cards"] = "hole.cards"
    seat: Seat
    cards: list[CardText]


class HoleDiscard(_Event):
    """Poker (Crazy Pineapple): the hole card a seat discards after the flop, face down; no
    `card` at a table without a reader, where nobody knows it."""

    type: Literal["hole.discard"] = "hole.discard"
    seat: Seat
    card: CardText | None = None


class BoardCards(_Event):
    """Poker: community cards the dealer turns up: the flop (3), the turn (1), the river (1)."""

    type: Literal["board.cards"] = "board.cards"
    cards: list[CardText]


class SeatCard(BaseModel):
    """One card to one seat (stud's streets)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    seat: Seat
    card: CardText


class UpCards(_Event):
    """Stud: the street's face-up card to each seat still in, in the order dealt; public as it
    falls (R46)."""

    type: Literal["up.cards"] = "up.cards"
    cards: list[SeatCard] = Field(min_length=1, max_length=14)


class DownCards(_Event):
    """Stud: the street's face-down card (Seven Card Stud's seventh) to each seat still in;
    `cards` where the console knows them, for the journal only (R46)."""

    type: Literal["down.cards"] = "down.cards"
    cards: list[SeatCard] | None = Field(None, max_length=14)


class DrawCards(_Event):
    """The draw games: a seat's draw, in turn from the dealer's left once the first betting
    round is over: how many cards it asks for (`count`, 0 standing pat; the number first
    asked for stands, 003 "Lowball" rule 14), and where the console knows them the cards it
    throws away and the cards it is given (journaled only, R46)."""

    type: Literal["draw"] = "draw"
    seat: Seat
    count: int = Field(strict=True, ge=0, le=5)
    discard: list[CardText] | None = Field(None, max_length=5)
    cards: list[CardText] | None = Field(None, max_length=5)


class ChineseSet(_Event):
    """Chinese Poker: a player's thirteen cards as set, three-five-five (003 "Chinese Poker");
    journaled, shown only when every hand is exposed at the showdown."""

    type: Literal["chinese.set"] = "chinese.set"
    seat: Seat
    front: list[CardText] = Field(max_length=13)
    middle: list[CardText] = Field(max_length=13)
    back: list[CardText] = Field(max_length=13)


class ChineseSweep(_Event):
    """Chinese Poker: a clean sweep declared before the showdown, with the thirteen cards that
    hold it (003 "Chinese Poker", Clean Sweep)."""

    type: Literal["chinese.sweep"] = "chinese.sweep"
    seat: Seat
    sweep: Literal["dragon", "six-pairs", "three-straights", "three-flushes"]
    cards: list[CardText] = Field(max_length=13)


class HandDead(_Event):
    """Poker: the floor declares a seat's hand dead (a hand of more or fewer than five cards, a
    card dropped after the draw, a fouled hand: 003 "Lowball" rules 4, 12, 15, 17): it is out of
    the hand, its chips stay in the pot."""

    type: Literal["hand.dead"] = "hand.dead"
    seat: Seat
    reason: Name = "dead hand"


class CardFlashed(_Event):
    """Lowball: a card exposed by the dealer, on the deal or on the draw (003 "Lowball" rules 6,
    7, 8): public, as everyone saw it. `boxed`: the card was found faced in the deck as it was
    dealt to the seat (rules 7, 9): dead, and no exposure of the dealer's."""

    type: Literal["card.flashed"] = "card.flashed"
    seat: Seat
    card: CardText
    when: Literal["deal", "draw"]
    boxed: bool | None = Field(None, strict=True)  # (None: not boxed, left out of the record)


class OptionBuy(_Event):
    """Option Alley: a seat's buy, in turn once the last up card's betting is over: the card it
    discards (`discard`: one of its up cards, or "hole" for its down card; absent: it stands
    pat) and the card it is given (`card`: face up for an up card, required; face down for the
    hole card, journaled only and absent where the console does not know it)."""

    type: Literal["option.buy"] = "option.buy"
    seat: Seat
    discard: Literal["hole"] | CardText | None = None
    card: CardText | None = None


class Showdown(_Event):
    """Poker at a table without a reader: the dealer declares how the hands still in rank at the
    showdown, best first, tied seats together (`high`), and in a split game the qualifying lows,
    best first (`low`; empty: no qualifying low)."""

    type: Literal["showdown"] = "showdown"
    high: list[list[Seat]] = Field(min_length=1, max_length=14)
    low: list[list[Seat]] | None = Field(None, max_length=14)


class TimeCollect(_Event):
    """Poker under a time collection (R44): the half hour is up; each seated player pays the
    schedule's rate for the number seated, outside any pot."""

    type: Literal["time.collect"] = "time.collect"


class RoundResume(_Event):
    """The operator has dealt with what held the round (a device fault) and play goes on."""

    type: Literal["round.resume"] = "round.resume"


class RoundVoid(_Event):
    """The operator voids the round in progress (misdeal): every wager is returned."""

    type: Literal["round.void"] = "round.void"
    reason: str = Field("misdeal", min_length=1, max_length=200)


class AlertAck(_Event):
    """A person acknowledges an open alert: `alert` is the alert's `seq` (its
    `id` in `alerts/open`), `by` who, `why` what they did about it. Journaled like any input."""

    type: Literal["alert.ack"] = "alert.ack"
    alert: int = Field(strict=True, ge=1)
    by: Name = Field(min_length=1)
    why: str = Field(min_length=1, max_length=200)


class DeviceStatus(_Event):
    """Internal: a driver's availability or fault, journaled so status is part of the record."""

    type: Literal["device.status"] = "device.status"
    device: str
    available: bool
    fault: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class DeviceGap(_Event):
    """Internal: a driver could not get positions back from its device.

    `missing` lists the positions of `run` the device did not report and could not resend;
    None when not even that is known (the device kept no history of `run` after `after`).
    """

    type: Literal["device.gap"] = "device.gap"
    device: str = Field(min_length=1, max_length=64)
    run: str | None = Field(None, pattern=RUN_ID)
    after: int = Field(ge=0, le=MAX_POSITION)
    missing: list[int] | None = Field(None, max_length=1000)
    reason: str = Field(min_length=1, max_length=300)


class InputInvalid(_Event):
    """Internal: input that could not be parsed, journaled with the reason it was refused.
    `retained`: a command that came with the MQTT retain flag, refused for that alone (R54);
    left out otherwise, so every other refused input is journaled as it always was."""

    type: Literal["input.invalid"] = "input.invalid"
    raw: str
    reason: str
    retained: Literal[True] | None = None


class JournalTrouble(_Event):
    """Internal: the journal could not be written from `since` until `until` (the daemon
    journals it as soon as it can, so that the trouble waits for a person like any alert)."""

    type: Literal["journal.trouble"] = "journal.trouble"
    reason: str = Field(max_length=300)
    since: Name
    until: Name


class RulesLoaded(_Event):
    """Internal: the rules (game, seats, limits, collection schedule) in force from here on."""

    type: Literal["config"] = "config"
    rules: dict[str, Any]


InputEvent = Annotated[
    ShoeNew
    | ShoeCard
    | ShoeBurn
    | ShufflerStack
    | DiceRoll
    | TableCard
    | Bank
    | Wager
    | BetsClose
    | Decision
    | SeatTake
    | SeatLeave
    | SeatAway
    | SeatBack
    | HandStart
    | HoleCards
    | HoleDiscard
    | BoardCards
    | UpCards
    | DownCards
    | OptionBuy
    | DrawCards
    | ChineseSet
    | ChineseSweep
    | HandDead
    | CardFlashed
    | Showdown
    | TimeCollect
    | RoundResume
    | RoundVoid
    | AlertAck
    | DeviceStatus
    | DeviceGap
    | InputInvalid
    | RulesLoaded
    | JournalTrouble,
    Field(discriminator="type"),
]

PUBLIC_TYPES = (
    "shoe.new",
    "shoe.card",
    "shoe.burn",
    "shuffler.stack",
    "dice.roll",
    "table.card",
    "bank",
    "wager",
    "bets.close",
    "decision",
    "seat.take",
    "seat.leave",
    "seat.away",
    "seat.back",
    "hand.start",
    "hole.cards",
    "hole.discard",
    "board.cards",
    "up.cards",
    "down.cards",
    "option.buy",
    "draw",
    "chinese.set",
    "chinese.sweep",
    "hand.dead",
    "card.flashed",
    "showdown",
    "time.collect",
    "round.resume",
    "round.void",
    "alert.ack",
)

INTERNAL_TYPES = ("device.status", "device.gap", "input.invalid", "config", "journal.trouble")

_adapter: TypeAdapter[InputEvent] = TypeAdapter(InputEvent)


class EventError(ValueError):
    """Input that is not a valid event; the message names each field that was wrong."""


_KNOWN_TYPES = frozenset(PUBLIC_TYPES + INTERNAL_TYPES)


def parse_event(data: object) -> InputEvent:
    """Validate a decoded JSON object as an input event, or raise EventError naming the problem."""
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, not {type(data).__name__}")
    if "type" not in data:
        raise EventError("event has no 'type'")
    kind = data["type"]
    if not isinstance(kind, str) or kind not in _KNOWN_TYPES:
        raise EventError(f"unknown event type {kind!r}")
    try:
        return _adapter.validate_python(data)
    except ValidationError as exc:
        # Drop the discriminator tag from locations: "wager.amount" reads worse than "amount".
        parts = []
        for err in exc.errors():
            loc = [str(p) for p in err["loc"]][1:]
            msg = err["msg"].removeprefix("Value error, ")
            parts.append(f"{'.'.join(loc)}: {msg}" if loc else msg)
        raise EventError("; ".join(parts)) from None


def parse_event_line(line: str) -> InputEvent:
    """Parse one JSON line as an event."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EventError(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        raise EventError(f"not JSON: {json_problem(exc)}") from None
    return parse_event(data)


def json_problem(exc: ValueError | RecursionError) -> str:
    """Why `json.loads` refused a text, for a reason line. Besides `JSONDecodeError` it raises
    a plain ValueError for an integer of more digits than Python converts (4300 by default) and
    RecursionError for arrays or objects nested too deeply; neither message suits a reason."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if "integer string conversion" in str(exc):
        return f"a number has more than {sys.get_int_max_str_digits()} digits"
    return str(exc)


def event_dict(event: InputEvent) -> dict[str, Any]:
    """The canonical JSON-able form: `type` first, defaults and nulls left out, money as text."""
    body = event.model_dump(mode="json", exclude_none=True, exclude={"ts"})
    if isinstance(event, DeviceStatus) and not event.detail:
        body.pop("detail", None)
    out: dict[str, Any] = {"type": body.pop("type")}
    out.update(body)
    return out


def canonical_json(obj: Any) -> str:
    """Compact JSON with keys in insertion order; the byte form used for hashing and publishing."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
