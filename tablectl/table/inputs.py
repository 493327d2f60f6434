"""Inputs as the table meets them: what is journaled for one, where each kind is routed, and the
key that tells two reads at one position apart."""

from __future__ import annotations

import functools
import json
import typing
from enum import Enum
from typing import Any

from tablectl_base.events import (
    AlertAck,
    DeviceGap,
    DeviceStatus,
    DiceRoll,
    EventError,
    InputEvent,
    InputInvalid,
    JournalTrouble,
    PositionedEvent,
    RoundResume,
    RoundVoid,
    RulesLoaded,
    ShoeBurn,
    ShoeCard,
    ShufflerStack,
    TableCard,
    event_dict,
    parse_event,
)

POSITIONED: tuple[type[PositionedEvent], ...] = typing.get_args(PositionedEvent)
"""The inputs a device reports with a position, as a tuple (`isinstance` on a tuple is the fast
one: this is asked of every input)."""

HAND_ENTERED = (ShoeCard, ShoeBurn, ShufflerStack, DiceRoll, TableCard)
"""Inputs a device reports that the console may enter only into a gap, with a position (R39);
at a table without its reader (`manual_entry`, R55) the console deals them in order."""
HAND_ENTERED_TYPES = tuple(str(cls.model_fields["type"].default) for cls in HAND_ENTERED)
"""Their event types, as journaled."""


class Route(Enum):
    """Where the table sends an input (`_messages_for`, `_game_input`, `_play`)."""

    TABLE = "table"  # its own: a device's status or gap, new rules, an invalid input
    FLOOR = "floor"  # the floor's: round.resume, round.void, alert.ack
    POSITIONED = "positioned"  # placed in its device's count first (when it has a position)
    GAME = "game"  # anything else: the engine's


@functools.cache
def route_of(kind: type) -> Route:
    """Where an input of class `kind` goes: asked of every input, answered once a class. (An
    `isinstance` that fails against an event class is a call of its metaclass's
    `__instancecheck__`: a handful of those an input were a tenth of a replay's time.)"""
    if issubclass(kind, (InputInvalid, DeviceStatus, DeviceGap, RulesLoaded, JournalTrouble)):
        return Route.TABLE
    if issubclass(kind, (RoundResume, RoundVoid, AlertAck)):
        return Route.FLOOR
    if issubclass(kind, POSITIONED):
        return Route.POSITIONED
    return Route.GAME


_encode_key = json.JSONEncoder(sort_keys=True).encode
"""json.dumps(x, sort_keys=True) with one encoder for every call."""


_KEYS_KEPT = 1024
_keys: dict[tuple[tuple[str, Any], ...], str] = {}
"""Input keys by the fields they were made of, when every value is text or a whole number
(a card's type and name, mostly): equal fields of those types are equal JSON."""


def input_key(body: dict[str, Any]) -> str:
    """What tells two reads at one position apart: the input without its position."""
    rest = [(k, v) for k, v in body.items() if k != "at"]
    for _, v in rest:
        if type(v) is not str and type(v) is not int:  # (not a bool: True == 1)
            return _encode_key(dict(rest))
    # The JSON text of the same few cards again and again: made once each (the encoder is
    # most of a card's cost in `_positioned` otherwise).
    fields = tuple(rest)
    key = _keys.get(fields)
    if key is None:
        if len(_keys) >= _KEYS_KEPT:
            _keys.clear()
        key = _keys[fields] = _encode_key(dict(rest))
    return key


def journal_body(data: Any, error: str | None = None, *, retained: bool = False) -> dict[str, Any]:
    """What gets journaled for an input: its canonical event, or `input.invalid` with the reason
    (marked `retained` for a command refused because it came with the retain flag, R54)."""
    return journal_input(data, error, retained=retained)[0]


def journal_input(
    data: Any, error: str | None = None, *, retained: bool = False
) -> tuple[dict[str, Any], InputEvent | None]:
    """`journal_body(data)`, and the event the table would parse from that body when it is
    certain without parsing it again (for `Record.event`): when the body equals `data` (a
    driver's event, an exported line: already canonical), parsing the body is parsing `data`,
    which gave this event. None otherwise: the table parses the body, as a start would."""
    if error is not None:
        invalid = InputInvalid(raw=_raw(data), reason=error, retained=retained or None)
        return event_dict(invalid), None
    try:
        event = parse_event(data)
    except EventError as exc:
        return event_dict(InputInvalid(raw=_raw(data), reason=str(exc))), None
    body = event_dict(event)
    return body, (event if body == data else None)


def _raw(data: Any) -> str:
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(data)
