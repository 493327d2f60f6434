"""A `display/eztrak` payload as the frames of one EZTRAK screen, and back again; pure, no I/O.

`render` turns the payload tablectl.games.baccarat.eztrak.display_payload builds (R28) into the
host's frames, `SHO` first and `END` last; `ScreenAssembler` is the display's side, collecting
frames until `END` and either committing the screen (as the same data the payload held) or
naming why not.
The driver uses the first, the simulator and the tests the second, so both ends share one spec.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablectl_drivers.envelope import MAX_FRAME, SEQ_MODULO
from tablectl_drivers.eztrak.messages import (
    BIG_ROAD_TOKEN,
    HOST_MESSAGES,
    ROAD_CODES,
    Commit,
    HostMessage,
    Limit,
    PreviousShoe,
    RoadColumns,
    ScreenStart,
    Statistic,
    Timer,
)
from tablectl_drivers.messages import FieldError

__all__ = [
    "SCREEN_KEYS",
    "RenderError",
    "ScreenAssembler",
    "ScreenError",
    "Verdict",
    "assemble",
    "frame_body",
    "render",
    "screen_crc",
]

SCREEN_KEYS = ("shoe", "hands", "stats", "previous", "limits", "bet_timer", "roads")
"""The payload keys a screen shows; others (`table`, `seq`) are not sent to the display."""

_BODY_BUDGET = MAX_FRAME - len("$*CS\r\n")
"""Longest frame body (between `$` and `*`) that still fits in MAX_FRAME."""
_ROAD_BY_CODE = {code: name for name, code in ROAD_CODES.items()}
_DERIVED_CELLS = ("R", "B")


class RenderError(ValueError):
    """The payload cannot be shown: a missing key, or a value no frame can carry."""


class ScreenError(ValueError):
    """The frames do not make a screen; `reason` is the NAK reason the display answers with."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def frame_body(line: bytes) -> bytes:
    """The bytes between `$` and `*` of one encoded frame (what the checksums cover)."""
    return line[1 : line.rindex(b"*")]


def screen_crc(bodies: Iterable[bytes]) -> int:
    """CRC-16/CCITT-FALSE (poly 1021, init FFFF) over the frame bodies, concatenated in order."""
    crc = 0xFFFF
    for body in bodies:
        crc = binascii.crc_hqx(body, crc)
    return crc


# -- payload -> frames (the host) ----------------------------------------------------------------


def render(payload: Mapping[str, Any], first_seq: int = 0) -> list[HostMessage]:
    """The frames of one screen for `payload`, numbered from `first_seq` (wrapping at 9999).

    `SHO`, the `LIM`s, `TMR`, this shoe's `STA`s, `PRV` and the previous shoe's `STA`s if there
    was one, the `RDS`s of the five roads, then `END` with the count and CRC of all before it.
    RenderError if the payload is not a display payload or holds a value no frame can carry.
    """
    builders = _builders(payload)
    frames: list[HostMessage] = []
    try:
        for i, build in enumerate(builders):
            frames.append(build((first_seq + i) % SEQ_MODULO))
    except FieldError as exc:
        raise RenderError(str(exc)) from None
    crc = screen_crc(frame_body(HOST_MESSAGES.encode(f)) for f in frames)
    frames.append(Commit((first_seq + len(frames)) % SEQ_MODULO, len(frames), crc))
    return frames


Builder = Callable[[int], HostMessage]


def _builders(payload: Mapping[str, Any]) -> list[Builder]:
    """One frame builder (SEQ -> frame) per frame of the screen, END excluded, in order."""
    missing = [key for key in SCREEN_KEYS if key not in payload]
    if missing:
        raise RenderError(f"not a display payload: no {', '.join(missing)}")
    shoe, hands = payload["shoe"], payload["hands"]
    stats, previous = payload["stats"], payload["previous"]
    limits, timer, roads = payload["limits"], payload["bet_timer"], payload["roads"]
    if not isinstance(stats, Mapping) or stats.get("hands") != hands:
        raise RenderError("stats must be a mapping whose hands equal the payload's hands")
    if not isinstance(limits, Mapping):
        raise RenderError("limits must be a mapping of name to amount")
    if not isinstance(roads, Mapping) or set(roads) != set(ROAD_CODES):
        raise RenderError(f"roads must hold exactly {', '.join(ROAD_CODES)}")
    out: list[Builder] = [lambda seq: ScreenStart(seq, shoe, hands)]
    out += [_limit(name, value) for name, value in limits.items()]
    out.append(lambda seq: Timer(seq, timer))
    out += _statistics("C", stats)
    if previous is not None:
        if not isinstance(previous, Mapping) or "hands" not in previous:
            raise RenderError("previous must be null or a statistics mapping with hands")
        prev_hands = previous["hands"]
        out.append(lambda seq: PreviousShoe(seq, prev_hands))
        out += _statistics("P", previous)
    for name, code in ROAD_CODES.items():
        for col, cells in _pack(code, _tokens(code, roads[name])):
            out.append(_road(code, col, cells))
    return out


def _limit(name: Any, value: Any) -> Builder:
    return lambda seq: Limit(seq, name, value)


def _road(code: str, col: int, cells: tuple[str, ...]) -> Builder:
    return lambda seq: RoadColumns(seq, code, col, cells)


def _statistics(block: str, stats: Mapping[str, Any]) -> list[Builder]:
    """One `STA` builder per statistic of a block (every key but `hands`)."""
    out: list[Builder] = []
    for name, stat in stats.items():
        if name == "hands":
            continue
        if not isinstance(stat, Mapping) or set(stat) != {"count", "pct"}:
            raise RenderError(f"statistic {name!r} must be {{count, pct}}, not {stat!r}")
        out.append(_statistic(block, name, stat["count"], stat["pct"]))
    return out


def _statistic(block: Any, name: Any, count: Any, pct: Any) -> Builder:
    return lambda seq: Statistic(seq, block, name, count, pct)


def _tokens(code: str, columns: Any) -> list[list[str]]:
    """A road's columns as lists of cell tokens, checking every cell."""
    if not isinstance(columns, Sequence) or isinstance(columns, str):
        raise RenderError(f"road {code} must be a list of columns")
    out: list[list[str]] = []
    for column in columns:
        if not isinstance(column, Sequence) or isinstance(column, str) or not column:
            raise RenderError(f"road {code} has an empty or malformed column: {column!r}")
        out.append([_token(code, cell) for cell in column])
    return out


def _token(code: str, cell: Any) -> str:
    """One cell as it travels: a letter, or on the big road winner/natural plus tie count."""
    if code == "BR":
        ok = (
            isinstance(cell, Mapping)
            and set(cell) == {"winner", "ties", "natural"}
            and cell["winner"] in ("P", "B")
            and isinstance(cell["natural"], bool)
            and isinstance(cell["ties"], int)
            and not isinstance(cell["ties"], bool)
            and 0 <= cell["ties"] <= 999_999
        )
        if not ok:
            raise RenderError(f"big road cell {cell!r} must be {{winner P|B, ties, natural}}")
        letter = str(cell["winner"])
        return (letter.lower() if cell["natural"] else letter) + (
            str(cell["ties"]) if cell["ties"] else ""
        )
    allowed = ("P", "B", "T") if code == "BP" else _DERIVED_CELLS
    if cell not in allowed:
        raise RenderError(f"road {code} cell {cell!r} must be one of {' '.join(allowed)}")
    return str(cell)


def _pack(code: str, columns: list[list[str]]) -> list[tuple[int, tuple[str, ...]]]:
    """Pack a road's columns into as few `RDS` frames as fit: (first column, cells per field).

    Fields are whole columns; a column that does not fit is cut between cells and continued
    in the next frame, whose first column is then that one. Sized for a 4-digit SEQ.
    """
    frames: list[tuple[int, tuple[str, ...]]] = []
    fields: list[str] = []
    start = 0
    room = 0

    def open_frame(col: int) -> None:
        nonlocal start, room
        if fields:
            frames.append((start, tuple(fields)))
            fields.clear()
        start = col
        room = _BODY_BUDGET - len(f"RDS,9999,{code},{col}")

    for col, tokens in enumerate(columns):
        new_field = True
        for token in tokens:
            cost = len(token) + (1 if new_field else 0)
            if not fields or cost > room:
                open_frame(col)
                new_field, cost = True, len(token) + 1
            if new_field:
                fields.append("")
                new_field = False
            fields[-1] += token
            room -= cost
    if fields:
        frames.append((start, tuple(fields)))
    return frames


# -- frames -> screen (the display) --------------------------------------------------------------


def assemble(frames: Sequence[HostMessage]) -> dict[str, Any]:
    """The screen that `frames` (SHO first, END excluded) describe, as payload-shaped data.

    The result equals the payload's SCREEN_KEYS part it was rendered from. ScreenError with
    reason CONTENT if the frames do not make a screen (no SHO first, no or two TMR, a statistic
    or limit twice, previous-shoe statistics without PRV, road columns out of order).
    """
    if not frames or not isinstance(frames[0], ScreenStart):
        raise ScreenError("NOSTART", "a screen starts with SHO")
    start = frames[0]
    limits: dict[str, str] = {}
    current: dict[str, Any] = {"hands": start.hands}
    previous: dict[str, Any] | None = None
    timers: list[int | None] = []
    roads: dict[str, list[list[Any]]] = {name: [] for name in ROAD_CODES}
    for frame in frames[1:]:
        if isinstance(frame, Limit):
            _put(limits, frame.name, frame.value, "limit")
        elif isinstance(frame, Timer):
            timers.append(frame.seconds)
        elif isinstance(frame, PreviousShoe):
            if previous is not None:
                raise ScreenError("CONTENT", "PRV twice in one screen")
            previous = {"hands": frame.hands}
        elif isinstance(frame, Statistic):
            block = current if frame.block == "C" else previous
            if block is None:
                raise ScreenError("CONTENT", "a previous-shoe statistic before PRV")
            if frame.name == "hands":
                raise ScreenError("CONTENT", "hands is not a statistic (SHO and PRV carry it)")
            _put(block, frame.name, {"count": frame.count, "pct": frame.pct}, "statistic")
        elif isinstance(frame, RoadColumns):
            _add_columns(roads[_ROAD_BY_CODE[frame.road]], frame)
        else:
            raise ScreenError("CONTENT", f"{frame.TYPE} inside a screen")
    if len(timers) != 1:
        raise ScreenError("CONTENT", f"a screen has one TMR, not {len(timers)}")
    return {
        "shoe": start.shoe,
        "hands": start.hands,
        "stats": current,
        "previous": previous,
        "limits": limits,
        "bet_timer": timers[0],
        "roads": roads,
    }


def _put(into: dict[str, Any], key: str, value: Any, what: str) -> None:
    if key in into:
        raise ScreenError("CONTENT", f"{what} {key!r} twice in one screen")
    into[key] = value


def _add_columns(columns: list[list[Any]], frame: RoadColumns) -> None:
    """Apply one RDS frame: continue the last column or open the next, then open the rest."""
    if frame.col == len(columns) - 1:
        columns[-1].extend(_cells(frame.road, frame.cells[0]))
        rest = frame.cells[1:]
    elif frame.col == len(columns):
        rest = frame.cells
    else:
        raise ScreenError(
            "CONTENT", f"{frame.road} column {frame.col} out of order ({len(columns)} so far)"
        )
    columns.extend(_cells(frame.road, cells) for cells in rest)


def _cells(code: str, text: str) -> list[Any]:
    """The cells of one field: letters, or big-road entries `{winner, ties, natural}`."""
    if code != "BR":
        return list(text)
    return [
        {"winner": m[1].upper(), "ties": int(m[2] or "0"), "natural": m[1].islower()}
        for m in BIG_ROAD_TOKEN.finditer(text)
    ]


@dataclass(frozen=True)
class Verdict:
    """What the display does at an `END`: show `screen` and ACK, or NAK with `reason`."""

    screen_id: int
    """The SEQ of the END frame, which both answers name."""
    screen: dict[str, Any] | None
    reason: str | None


class ScreenAssembler:
    """The display's side of a screen: frames from `SHO` to `END`, then a Verdict.

    `SHO` starts a screen and drops any unfinished one; frames outside a screen are `strays`
    (ignored). At `END`: no screen started is NOSTART; a SEQ that did not follow the previous
    frame's (a frame lost or garbled on the way) is GAP; then COUNT, CRC and CONTENT.
    """

    def __init__(self) -> None:
        self._frames: list[HostMessage] | None = None
        self._bodies: list[bytes] = []
        self._gap = False
        self._last_seq = 0
        self.strays = 0
        """Screen frames that came with no screen started (their SHO was lost)."""

    def feed(self, frame: HostMessage, body: bytes) -> Verdict | None:
        """Take one decoded frame and its body bytes; a Verdict at `END`, else None."""
        if isinstance(frame, ScreenStart):
            self._frames, self._bodies, self._gap = [frame], [body], False
            self._last_seq = frame.seq
            return None
        frames = self._frames
        if frames is None:
            if isinstance(frame, Commit):
                return Verdict(frame.seq, None, "NOSTART")
            self.strays += 1
            return None
        if frame.seq != (self._last_seq + 1) % SEQ_MODULO:
            self._gap = True
        self._last_seq = frame.seq
        if not isinstance(frame, Commit):
            frames.append(frame)
            self._bodies.append(body)
            return None
        self._frames = None
        if self._gap:
            return Verdict(frame.seq, None, "GAP")
        if frame.count != len(frames):
            return Verdict(frame.seq, None, "COUNT")
        if frame.crc != screen_crc(self._bodies):
            return Verdict(frame.seq, None, "CRC")
        try:
            return Verdict(frame.seq, assemble(frames), None)
        except ScreenError as exc:
            return Verdict(frame.seq, None, exc.reason)
