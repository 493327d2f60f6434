"""Framing of the card-reading shoe's ASCII line protocol (docs/protocols/shoe.md); pure, no I/O.

A frame is `$<TYPE>,<SEQ>[,<fields>...]*<CS>\\r\\n`. `decode` finds one frame (or one piece of
garbage) at the front of a buffer and says how many bytes it used, so a caller can feed it any
chunking of the stream; the result does not depend on how the bytes were split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from tablectl.cards import Card, CardError, parse_card

START = 0x24  # "$"
STAR = 0x2A  # "*"
LF = 0x0A
CR = 0x0D
MAX_FRAME = 80
"""Longest legal line in bytes, from `$` to the LF inclusive."""
SEQ_MODULO = 10_000
"""SEQ counts 0..9999 and wraps to 0."""

_FAULT_CODE = re.compile(r"[A-Z0-9_]{1,16}")
_FORBIDDEN_IN_TEXT = frozenset("$*\r\n")


def checksum(body: bytes) -> int:
    """XOR of every byte of `body` (the bytes between `$` and `*`)."""
    cs = 0
    for b in body:
        cs ^= b
    return cs


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """`CRD`: a card came out of the shoe for play."""

    TYPE: ClassVar[str] = "CRD"
    seq: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardBurned:
    """`BRN`: a card came out of the shoe and was burned."""

    TYPE: ClassVar[str] = "BRN"
    seq: int
    card: Card


@dataclass(frozen=True, slots=True)
class NewShoe:
    """`NEW`: a freshly shuffled shoe was put in."""

    TYPE: ClassVar[str] = "NEW"
    seq: int


@dataclass(frozen=True, slots=True)
class ShoeEmpty:
    """`EMP`: the cut card was reached or the shoe ran out of cards."""

    TYPE: ClassVar[str] = "EMP"
    seq: int


@dataclass(frozen=True, slots=True)
class Fault:
    """`FLT`: the shoe reports a fault (`JAM`, `MISREAD`, `COVER`, ...) with free text."""

    TYPE: ClassVar[str] = "FLT"
    seq: int
    code: str
    text: str = ""


@dataclass(frozen=True, slots=True)
class FaultCleared:
    """`CLR`: the shoe's fault is gone."""

    TYPE: ClassVar[str] = "CLR"
    seq: int


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """`HBT`: the shoe is alive and idle."""

    TYPE: ClassVar[str] = "HBT"
    seq: int


Frame = CardDrawn | CardBurned | NewShoe | ShoeEmpty | Fault | FaultCleared | Heartbeat


@dataclass(frozen=True, slots=True)
class BadFrame:
    """Bytes that are not a valid frame, kept raw with the reason, so the driver can count them."""

    raw: bytes
    reason: str


class FrameError(ValueError):
    """A frame that cannot be encoded (SEQ out of range, text that would break the framing)."""


def _body(frame: Frame) -> str:
    if not 0 <= frame.seq < SEQ_MODULO:
        raise FrameError(f"SEQ {frame.seq} is outside 0..{SEQ_MODULO - 1}")
    parts = [frame.TYPE, str(frame.seq)]
    if isinstance(frame, CardDrawn | CardBurned):
        parts.append(str(frame.card))
    elif isinstance(frame, Fault):
        if not _FAULT_CODE.fullmatch(frame.code):
            raise FrameError(f"fault code {frame.code!r} must be 1-16 of A-Z, 0-9, _")
        parts.append(frame.code)
        if frame.text:
            bad = set(frame.text) & _FORBIDDEN_IN_TEXT
            if bad or not frame.text.isascii() or not frame.text.isprintable():
                raise FrameError(f"fault text {frame.text!r} must be printable ASCII without $ *")
            parts.append(frame.text)
    return ",".join(parts)


def encode(frame: Frame) -> bytes:
    """The wire bytes of `frame`, checksum and CR LF included."""
    body = _body(frame).encode("ascii")
    line = b"$" + body + b"*" + f"{checksum(body):02X}".encode("ascii") + b"\r\n"
    if len(line) > MAX_FRAME:
        raise FrameError(f"frame is {len(line)} bytes, more than {MAX_FRAME}")
    return line


def decode(buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
    """Find what starts `buf`: `(consumed, frame)`, `(consumed, BadFrame)` or `(0, None)`.

    `(0, None)` means "need more bytes". Garbage before a `$` comes back as one BadFrame; a bad
    line comes back as a BadFrame and decoding resumes at the next `$`. Never raises.
    """
    if not buf:
        return 0, None
    if buf[0] != START:
        j = buf.find(b"$", 0, MAX_FRAME)
        if j > 0:
            return j, BadFrame(bytes(buf[:j]), "garbage before $")
        if len(buf) >= MAX_FRAME:
            return MAX_FRAME, BadFrame(bytes(buf[:MAX_FRAME]), f"no $ within {MAX_FRAME} bytes")
        return 0, None
    end = buf.find(b"\n", 1, MAX_FRAME)
    restart = buf.find(b"$", 1, MAX_FRAME if end < 0 else end)
    if restart > 0:
        return restart, BadFrame(bytes(buf[:restart]), "truncated frame: $ before end of line")
    if end < 0:
        if len(buf) >= MAX_FRAME:
            return MAX_FRAME, BadFrame(bytes(buf[:MAX_FRAME]), f"over-long line (> {MAX_FRAME})")
        return 0, None
    line = bytes(buf[: end + 1])
    return end + 1, parse_line(line)


def parse_line(line: bytes) -> Frame | BadFrame:
    """Check and parse one complete line (from `$` to LF); everything wrong becomes a BadFrame."""
    content = line[1:-1]
    if content.endswith(b"\r"):
        content = content[:-1]
    if any(b < 0x20 or b > 0x7E for b in content):
        return BadFrame(line, "non-ASCII or control byte in frame")
    if len(content) < 3 or content[-3] != STAR:
        return BadFrame(line, "no *<checksum> at end of frame")
    body, cs_text = content[:-3], content[-2:].decode("ascii")
    if not all(c in "0123456789abcdefABCDEF" for c in cs_text):
        return BadFrame(line, f"checksum {cs_text!r} is not two hex digits")
    given = int(cs_text, 16)
    computed = checksum(body)
    if given != computed:
        return BadFrame(line, f"checksum mismatch: frame says {cs_text}, bytes give {computed:02X}")
    if STAR in body:
        return BadFrame(line, "* inside frame body")
    return _parse_body(line, body.decode("ascii"))


def _parse_body(line: bytes, body: str) -> Frame | BadFrame:
    kind, _, rest = body.partition(",")
    seq_text, _, rest = rest.partition(",")
    if not (1 <= len(seq_text) <= 4 and seq_text.isdigit()):
        return BadFrame(line, f"SEQ {seq_text!r} is not 1-4 decimal digits")
    seq = int(seq_text)
    has_fields = "," in body[len(kind) + 1 + len(seq_text) :]
    if kind in ("CRD", "BRN"):
        if not has_fields or "," in rest:
            return BadFrame(line, f"{kind} takes exactly one field, the card")
        if rest != rest.strip():
            return BadFrame(line, f"card {rest!r} has spaces")
        try:
            card = parse_card(rest)
        except CardError as exc:
            return BadFrame(line, str(exc))
        return CardDrawn(seq, card) if kind == "CRD" else CardBurned(seq, card)
    if kind == "FLT":
        code, _, text = rest.partition(",")
        if not _FAULT_CODE.fullmatch(code):
            return BadFrame(line, f"fault code {code!r} must be 1-16 of A-Z, 0-9, _")
        return Fault(seq, code, text)
    simple: dict[str, type[NewShoe | ShoeEmpty | FaultCleared | Heartbeat]] = {
        "NEW": NewShoe,
        "EMP": ShoeEmpty,
        "CLR": FaultCleared,
        "HBT": Heartbeat,
    }
    cls = simple.get(kind)
    if cls is None:
        return BadFrame(line, f"unknown frame type {kind!r}")
    if has_fields:
        return BadFrame(line, f"{kind} takes no fields")
    return cls(seq)
