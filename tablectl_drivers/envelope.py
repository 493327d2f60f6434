"""The frame envelope all our serial device protocols share (docs/protocols/envelope.md); pure.

A frame is `$<TYPE>,<SEQ>[,<field>...]*<CS>\\r\\n` with an XOR checksum. This module only checks and
splits the envelope; what a TYPE means and which fields it takes is the device's message set
(tablectl_drivers/messages.py). `decode` finds one frame (or one piece of garbage) at the front of a
buffer and says how many bytes it used, so the result does not depend on how the stream was chunked.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass

__all__ = [
    "KIND",
    "MAX_FRAME",
    "SEQ_MODULO",
    "BadFrame",
    "Envelope",
    "FrameError",
    "check_field",
    "checksum",
    "decode",
    "encode",
    "parse_line",
]

START = 0x24  # "$"
STAR = 0x2A  # "*"
MAX_FRAME = 80
"""Longest legal line in bytes, from `$` to the LF inclusive."""
SEQ_MODULO = 10_000
"""SEQ counts 0..9999 and wraps to 0."""
KIND = re.compile(r"[A-Z]{3}")
"""What a TYPE must look like: three uppercase letters (checked on encode and by MessageSet)."""
_FORBIDDEN_IN_FIELD = frozenset("$*,\r\n")
_PRINTABLE = bytes(range(0x20, 0x7F))
"""The bytes a frame may hold between `$` and its line end: printable ASCII."""


def checksum(body: bytes) -> int:
    """XOR of every byte of `body` (the bytes between `$` and `*`)."""
    return functools.reduce(operator.xor, body, 0)


@dataclass(frozen=True, slots=True)
class Envelope:
    """One checked frame, split but not interpreted: its TYPE, SEQ and raw text fields."""

    kind: str
    seq: int
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BadFrame:
    """Bytes that are not a valid frame, kept raw with the reason, so a driver can count them."""

    raw: bytes
    reason: str


class FrameError(ValueError):
    """A frame that cannot be encoded (bad TYPE, SEQ out of range, a field that breaks framing)."""


def check_field(value: str, what: str = "field") -> None:
    """FrameError unless `value` is printable ASCII without `$ * , CR LF` (empty is allowed)."""
    bad = set(value) & _FORBIDDEN_IN_FIELD
    if bad or not value.isascii() or not value.isprintable():
        raise FrameError(f"{what} {value!r} must be printable ASCII without $ * ,")


def encode(envelope: Envelope) -> bytes:
    """The wire bytes of `envelope`, checksum and CR LF included; FrameError if it cannot be."""
    if not KIND.fullmatch(envelope.kind):
        raise FrameError(f"TYPE {envelope.kind!r} must be three uppercase letters")
    if not 0 <= envelope.seq < SEQ_MODULO:
        raise FrameError(f"SEQ {envelope.seq} is outside 0..{SEQ_MODULO - 1}")
    for value in envelope.fields:
        check_field(value, f"{envelope.kind} field")
    body = ",".join((envelope.kind, str(envelope.seq), *envelope.fields)).encode("ascii")
    line = b"$" + body + b"*" + f"{checksum(body):02X}".encode("ascii") + b"\r\n"
    if len(line) > MAX_FRAME:
        raise FrameError(f"frame is {len(line)} bytes, more than {MAX_FRAME}")
    return line


def decode(buf: bytes | bytearray) -> tuple[int, Envelope | BadFrame | None]:
    """Find what starts `buf`: `(consumed, envelope)`, `(consumed, BadFrame)` or `(0, None)`.

    `(0, None)` means "need more bytes". Garbage before a `$` comes back as one BadFrame; a bad
    line comes back as a BadFrame and decoding resumes at the next `$`. Never raises. When an
    Envelope comes back, `buf[:consumed]` is exactly its line.
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


def parse_line(line: bytes) -> Envelope | BadFrame:
    """Check and split one complete line (from `$` to LF); everything wrong becomes a BadFrame."""
    content = line[1:-1]
    if content.endswith(b"\r"):
        content = content[:-1]
    if content.translate(None, _PRINTABLE):  # what is left once the printable bytes are gone
        return BadFrame(line, "non-ASCII or control byte in frame")
    if len(content) < 3 or content[-3] != STAR:
        return BadFrame(line, "no *<checksum> at end of frame")
    body, cs_text = content[:-3], content[-2:].decode("ascii")
    if cs_text.strip("0123456789abcdefABCDEF"):
        return BadFrame(line, f"checksum {cs_text!r} is not two hex digits")
    given = int(cs_text, 16)
    computed = checksum(body)
    if given != computed:
        return BadFrame(line, f"checksum mismatch: frame says {cs_text}, bytes give {computed:02X}")
    if STAR in body:
        return BadFrame(line, "* inside frame body")
    kind, *rest = body.decode("ascii").split(",")
    seq_text = rest[0] if rest else ""
    if not (1 <= len(seq_text) <= 4 and seq_text.isdigit()):
        return BadFrame(line, f"SEQ {seq_text!r} is not 1-4 decimal digits")
    return Envelope(kind, int(seq_text), tuple(rest[1:]))
