"""Typed messages on top of the envelope, the FLT/CLR/HBT every device sends, and MessageSet.

A device class declares its messages as frozen dataclasses subclassing `Message` (a TYPE, the
fields after SEQ, and how to read them back) and lists them in a `MessageSet`, which adds the
common messages and gives it `decode` and `encode` for its whole protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, Generic, Self, TypeVar

from tablectl_drivers import envelope
from tablectl_drivers.envelope import KIND, BadFrame, Envelope

__all__ = [
    "COMMON_MESSAGES",
    "CommonMessage",
    "Fault",
    "FaultCleared",
    "FieldError",
    "Heartbeat",
    "Message",
    "MessageSet",
    "join_text",
    "split_text",
]


class FieldError(ValueError):
    """A received frame's fields do not fit its TYPE; the text becomes the BadFrame's reason."""


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every device message: a TYPE (class constant) and the sender's SEQ.

    Subclasses with fields override `to_fields` and `from_fields`; the defaults are for messages
    that take no fields.
    """

    TYPE: ClassVar[str]
    seq: int

    def to_fields(self) -> tuple[str, ...]:
        """The fields after SEQ on the wire, as text."""
        return ()

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        """The message with this SEQ and these received fields; FieldError if they do not fit."""
        if fields:
            raise FieldError(f"{cls.TYPE} takes no fields")
        return cls(seq)

    def to_envelope(self) -> Envelope:
        """The envelope this message travels in."""
        return Envelope(self.TYPE, self.seq, self.to_fields())


def split_text(text: str) -> tuple[str, ...]:
    """Free text as trailing fields: commas allowed, since the envelope splits on them anyway."""
    return tuple(text.split(",")) if text else ()


def join_text(fields: tuple[str, ...]) -> str:
    """The free text that `split_text` spread over trailing fields."""
    return ",".join(fields)


_FAULT_CODE = re.compile(r"[A-Z0-9_]{1,16}")


def _check_fault_code(code: str) -> None:
    if not _FAULT_CODE.fullmatch(code):
        raise FieldError(f"fault code {code!r} must be 1-16 of A-Z, 0-9, _")


@dataclass(frozen=True, slots=True)
class Fault(Message):
    """`FLT`: the device reports a fault (a code such as `JAM`) with optional free text."""

    TYPE: ClassVar[str] = "FLT"
    code: str
    text: str = ""

    def to_fields(self) -> tuple[str, ...]:
        try:
            _check_fault_code(self.code)
        except FieldError as exc:
            raise envelope.FrameError(str(exc)) from None
        return (self.code, *split_text(self.text))

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        code = fields[0] if fields else ""
        _check_fault_code(code)
        return cls(seq, code, join_text(fields[1:]))


@dataclass(frozen=True, slots=True)
class FaultCleared(Message):
    """`CLR`: the device's fault is gone."""

    TYPE: ClassVar[str] = "CLR"


@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """`HBT`: the device is alive and idle."""

    TYPE: ClassVar[str] = "HBT"


CommonMessage = Fault | FaultCleared | Heartbeat
COMMON_MESSAGES: tuple[type[CommonMessage], ...] = (Fault, FaultCleared, Heartbeat)
"""The messages every device class speaks; every MessageSet includes them."""

M = TypeVar("M", bound=Message)


class MessageSet(Generic[M]):
    """A device class's protocol: its message classes (plus the common ones) by TYPE.

    `MessageSet[M]` decodes to `M | CommonMessage`; annotate the set with the union of the
    device's own messages, e.g. `MESSAGES: MessageSet[CardDrawn | NewShoe] = MessageSet(...)`.
    """

    def __init__(self, *classes: type[M]) -> None:
        self._by_kind: dict[str, type[M] | type[CommonMessage]] = {}
        for cls in (*COMMON_MESSAGES, *classes):
            kind = getattr(cls, "TYPE", None)
            if not isinstance(kind, str) or not KIND.fullmatch(kind):
                raise ValueError(f"{cls.__name__}.TYPE must be three uppercase letters")
            if kind in self._by_kind:
                raise ValueError(f"two messages with TYPE {kind!r}")
            self._by_kind[kind] = cls

    @property
    def kinds(self) -> frozenset[str]:
        """Every TYPE this set understands."""
        return frozenset(self._by_kind)

    def parse(self, env: Envelope, raw: bytes) -> M | CommonMessage | BadFrame:
        """The message in `env`, or a BadFrame (raw = `raw`, its line) for a bad TYPE or fields."""
        cls = self._by_kind.get(env.kind)
        if cls is None:
            return BadFrame(raw, f"unknown frame type {env.kind!r}")
        try:
            return cls.from_fields(env.seq, env.fields)
        except FieldError as exc:
            return BadFrame(raw, str(exc))

    def decode(self, buf: bytes | bytearray) -> tuple[int, M | CommonMessage | BadFrame | None]:
        """Like `envelope.decode`, with envelopes turned into messages; never raises."""
        consumed, item = envelope.decode(buf)
        if isinstance(item, Envelope):
            return consumed, self.parse(item, bytes(buf[:consumed]))
        return consumed, item

    def encode(self, message: M | CommonMessage) -> bytes:
        """The wire bytes of `message`; FrameError if it is not in this set or cannot be framed."""
        if self._by_kind.get(message.TYPE) is not type(message):
            raise envelope.FrameError(f"{type(message).__name__} is not in this message set")
        return envelope.encode(message.to_envelope())
