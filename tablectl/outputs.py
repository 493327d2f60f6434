"""What engines emit (`Output`: a message for a topic under the table's base, before `table`
and `seq`) and what the table makes of it (`OutboxRow`: numbered and rendered, for the journal's
outbox and the relay). A leaf module: the pure core imports no MQTT, SQLite or asyncio."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Output:
    """One outgoing message. `topic` is relative to `tablectl/<site>/<table>`.

    The payload may be given as `build`, a function of immutable values that makes it: it is
    made the first time it is read, so a replay that only counts messages (`Table.advance`)
    never builds the `state` view it would throw away."""

    __slots__ = ("_build", "_payload", "qos", "retain", "topic")

    def __init__(
        self,
        topic: str,
        payload: dict[str, Any] | None = None,
        retain: bool = False,
        qos: int = 1,
        *,
        build: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.topic = topic
        self.retain = retain
        self.qos = qos
        self._payload = payload if payload is not None or build is not None else {}
        self._build = build

    @property
    def payload(self) -> dict[str, Any]:
        if self._payload is None:
            assert self._build is not None
            self._payload, self._build = self._build(), None
        return self._payload

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Output):
            return NotImplemented
        mine = (self.topic, self.payload, self.retain, self.qos)
        return mine == (other.topic, other.payload, other.retain, other.qos)

    __hash__ = None  # type: ignore[assignment]  # the payload is a dict: not hashable

    def __repr__(self) -> str:
        return f"Output({self.topic!r}, {self.payload!r}, retain={self.retain}, qos={self.qos})"


def alert(reason: str, *, rule: str | None = None, kind: str = "rejected", **extra: Any) -> Output:
    """An `alert` message: rejected input, dealer error, device fault, misdeal."""
    payload: dict[str, Any] = {"kind": kind, "reason": reason}
    if rule:
        payload["rule"] = rule
    payload.update(extra)
    return Output("alert", payload)


@dataclass(frozen=True)
class OutboxRow:
    """One outgoing message, already rendered; ``payload`` carries ``table`` and ``seq``."""

    seq: int
    topic: str
    payload: bytes
    qos: int
    retain: bool
