"""Device simulators speaking the real wire protocols in reverse, and a recording sink.

The real driver code runs against these in tests (over real pseudo-terminals or the in-memory
null modem) and in the rig runner; `RecordingSink` is the DriverSink those runs collect into.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tablectl_base.events import DevicePosition
from tablectl_base.positions import Ledger, Verdict


@dataclass(frozen=True)
class StatusReport:
    """One `DriverSink.status` call."""

    available: bool
    fault: str | None
    detail: dict[str, Any] = field(default_factory=dict)


class RecordingSink:
    """A DriverSink that keeps every call in order; `wait_for` awaits a condition on them.

    It keeps the device's count as the daemon's journal would (tablectl_base.positions), so
    `cursor()` answers a reconnecting driver the way the daemon does; `start` is where that
    count stands at first (a journal that already holds this device's inputs).
    """

    def __init__(self, start: dict[str, Any] | None = None) -> None:
        self.calls: list[dict[str, Any] | StatusReport] = []
        self._changed = asyncio.Event()
        self.ledger = Ledger()
        if start is not None:
            self.ledger = Ledger(run=start.get("run"), pos=start["pos"], seq=start.get("seq"))

    async def event(self, event: dict[str, Any]) -> None:
        self.calls.append(dict(event))
        if "at" in event:
            at = DevicePosition.model_validate(event["at"])
            key = str(sorted((k, str(v)) for k, v in event.items() if k != "at"))
            verdict, ledger = self.ledger.place(at, key, starts_run=event["type"] == "shoe.new")
            if verdict is Verdict.AHEAD:
                ledger = ledger.hold(at, key, None)
            while (nxt := ledger.next_pending()) is not None:
                ledger = nxt[1]
            self.ledger = ledger
        self._changed.set()

    def cursor(self) -> dict[str, Any] | None:
        """Where the count stands, as the daemon's journal would say."""
        return self.ledger.cursor()

    async def status(self, available: bool, fault: str | None, detail: dict[str, Any]) -> None:
        self.calls.append(StatusReport(available, fault, dict(detail)))
        self._changed.set()

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event calls, in order."""
        return [c for c in self.calls if isinstance(c, dict)]

    @property
    def statuses(self) -> list[StatusReport]:
        """The status calls, in order."""
        return [c for c in self.calls if isinstance(c, StatusReport)]

    @property
    def cards(self) -> list[str]:
        """The cards of the `shoe.card` events, in order."""
        return [e["card"] for e in self.events if e.get("type") == "shoe.card"]

    @property
    def last_status(self) -> StatusReport | None:
        found = self.statuses
        return found[-1] if found else None

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Return once `predicate()` is true after some call; TimeoutError after `timeout` s."""

        async def until() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        async with asyncio.timeout(timeout):  # not wait_for: it can swallow a stop (3.11)
            await until()
