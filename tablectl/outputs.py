"""What engines emit: messages for a topic under the table's base, before `table` and `seq`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
