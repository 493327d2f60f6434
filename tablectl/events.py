"""Input events per DESIGN contract 2: pydantic models, parsed from JSON lines, printed canonically.

Besides the public types, two internal types reach the journal so that everything the daemon
publishes can be rebuilt from it: `device.status` (a driver's availability or fault) and
`input.invalid` (something that could not be parsed, kept with the reason it was refused).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from tablectl.cards import parse_card
from tablectl.money import Money


def _card(value: object) -> str:
    return str(parse_card(value))


CardText = Annotated[str, AfterValidator(_card)]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    ts: str | None = None


class ShoeNew(_Event):
    type: Literal["shoe.new"] = "shoe.new"


class ShoeCard(_Event):
    type: Literal["shoe.card"] = "shoe.card"
    card: CardText


class ShoeBurn(_Event):
    type: Literal["shoe.burn"] = "shoe.burn"
    card: CardText


class ShufflerStack(_Event):
    type: Literal["shuffler.stack"] = "shuffler.stack"
    cards: list[CardText]
    deck: str | None = None


class DiceRoll(_Event):
    type: Literal["dice.roll"] = "dice.roll"
    dice: list[int]


class Bank(_Event):
    type: Literal["bank"] = "bank"
    seat: int = Field(ge=1)
    amount: Money


class Wager(_Event):
    type: Literal["wager"] = "wager"
    seat: int = Field(ge=1)
    spot: str
    amount: Money
    player: str | None = None


class BetsClose(_Event):
    type: Literal["bets.close"] = "bets.close"


class Decision(_Event):
    type: Literal["decision"] = "decision"
    seat: int = Field(ge=1)
    action: str
    hand: int | None = None
    amount: Money | None = None
    multiple: int | None = None
    low: list[CardText] | None = None


class RoundResume(_Event):
    """The operator has dealt with what held the round (a device fault) and play goes on."""

    type: Literal["round.resume"] = "round.resume"


class RoundVoid(_Event):
    """The operator voids the round in progress (misdeal): every wager is returned."""

    type: Literal["round.void"] = "round.void"
    reason: str = Field("misdeal", min_length=1, max_length=200)


class DeviceStatus(_Event):
    """Internal: a driver's availability or fault, journaled so status is part of the record."""

    type: Literal["device.status"] = "device.status"
    device: str
    available: bool
    fault: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class InputInvalid(_Event):
    """Internal: input that could not be parsed, journaled with the reason it was refused."""

    type: Literal["input.invalid"] = "input.invalid"
    raw: str
    reason: str


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
    | Bank
    | Wager
    | BetsClose
    | Decision
    | RoundResume
    | RoundVoid
    | DeviceStatus
    | InputInvalid
    | RulesLoaded,
    Field(discriminator="type"),
]

PUBLIC_TYPES = (
    "shoe.new",
    "shoe.card",
    "shoe.burn",
    "shuffler.stack",
    "dice.roll",
    "bank",
    "wager",
    "bets.close",
    "decision",
    "round.resume",
    "round.void",
)

INTERNAL_TYPES = ("device.status", "input.invalid", "config")

_adapter: TypeAdapter[InputEvent] = TypeAdapter(InputEvent)


class EventError(ValueError):
    """Input that is not a valid event; the message names each field that was wrong."""


def parse_event(data: object) -> InputEvent:
    """Validate a decoded JSON object as an input event, or raise EventError naming the problem."""
    if not isinstance(data, dict):
        raise EventError(f"an event is a JSON object, not {type(data).__name__}")
    if "type" not in data:
        raise EventError("event has no 'type'")
    if data["type"] not in PUBLIC_TYPES + INTERNAL_TYPES:
        raise EventError(f"unknown event type {data['type']!r}")
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
    return parse_event(data)


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
