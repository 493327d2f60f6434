"""What engines emit (`Output`: a message for a topic under the table's base, before `table`
and `seq`) and what the table makes of it (`OutboxRow`: numbered and rendered, for the journal's
outbox and the relay). A leaf module: the pure core imports no MQTT, SQLite or asyncio."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost

PAYLOAD_VERSION = 1
"""`v` in every JSON payload tablectl publishes: the version of the payload schemas (schemas/,
docs/mqtt.md). A key added where a reader may ignore it keeps it; a change that would break a
reader (a key removed, renamed or given another meaning) raises it."""


@quick_init
@dataclass(frozen=True)
class Output:
    """One outgoing message. `topic` is relative to `tablectl/<site>/<table>`."""

    topic: str
    payload: dict[str, Any] = field(default_factory=dict)
    retain: bool = False
    qos: int = 1


def alert(reason: str, *, rule: str | None = None, kind: str = "rejected", **extra: Any) -> Output:
    """An `alert` message: rejected input, dealer error, device fault, misdeal."""
    payload: dict[str, Any] = {"kind": kind, "reason": reason}
    if rule:
        payload["rule"] = rule
    payload.update(extra)
    return Output("alert", payload)


@quick_init
@dataclass(frozen=True)
class OutboxRow:
    """One outgoing message, already rendered; ``payload`` carries the envelope (``table``,
    ``seq``, ``ts``, ``v``)."""

    seq: int
    topic: str
    payload: bytes
    qos: int
    retain: bool
