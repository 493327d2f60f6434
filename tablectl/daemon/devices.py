"""The devices: each configured driver run in its own task and restarted with capped backoff
when it fails, its events and status into the journal's queue (`_Sink`, tagged with the device),
and the display views (`display/<view>`) handed to the display devices.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any

import structlog

from tablectl.daemon.state import DaemonState
from tablectl.outputs import OutboxRow
from tablectl_drivers.base import Backoff, DisplayDriver
from tablectl_drivers.connect import port_serial
from tablectl_drivers.registry import load_driver

log = structlog.get_logger("tablectl.daemon")


class Devices(DaemonState):
    """The drivers supervised, and the display views handed to the display devices."""

    async def _run_driver(
        self, name: str, driver: str, port: str, baud: int, options: Mapping[str, Any]
    ) -> None:
        """Run one driver, restarting it with capped backoff if it fails; the failure is logged
        with its traceback and reported on the device's status, and the table runs on."""
        sink = _Sink(self, name, port)
        backoff = Backoff(initial=1.0, cap=60.0)
        while True:
            try:
                cls = load_driver(driver)
                instance = cls(name, port, baud, options)
                self._drivers[name] = instance
                if isinstance(instance, DisplayDriver):
                    self._displays[name] = instance
                    for view, payload in self._display_latest.items():
                        instance.update(view, payload)
                await instance.run(sink)
                raise RuntimeError("the driver stopped by itself")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.error("driver failed", device=name, driver=driver, exc_info=exc)
                error = f"{type(exc).__name__}: {exc}"
                await sink.status(False, "DRIVER-ERROR", {"error": error})
                await backoff.wait()
            finally:
                self._displays.pop(name, None)
                self._drivers.pop(name, None)

    def _to_displays(self, rows: list[OutboxRow]) -> None:
        """The display views retained in the outbox (what the displays showed before a
        restart), handed to the display devices."""
        prefix = f"{self.cfg.table.base_topic}/display/"
        self._show(
            {
                row.topic.removeprefix(prefix): json.loads(row.payload)
                for row in rows
                if row.topic.startswith(prefix)
            }
        )

    def _show(self, views: dict[str, dict[str, Any]]) -> None:
        """Hand `display/<view>` views (EZTRAK, R28) to the display devices: each keeps only
        the latest view and draws it when it can, so a slow display never holds up the table."""
        for view, payload in views.items():
            self._display_latest[view] = payload
            for display in self._displays.values():
                display.update(view, payload)


class _Sink:
    """Where a driver's events and status go: into the journal queue, tagged with the device."""

    def __init__(self, daemon: DaemonState, name: str, port: str) -> None:
        self.daemon = daemon
        self.name = name
        self.port = port

    async def event(self, event: dict[str, Any]) -> None:
        # The moment the input reached the daemon, with [metrics] on (its journal latency)
        received = time.perf_counter() if self.daemon.metrics is not None else None
        await self.daemon.submit(f"device/{self.name}", event, received=received)

    def cursor(self) -> dict[str, Any] | None:
        """Where the journal says this device's count stands: its driver asks the device to
        resend from there on every (re)connect, so nothing it sent while unheard is lost."""
        return self.daemon.table.cursor(self.name)

    async def status(self, available: bool, fault: str | None, detail: dict[str, Any]) -> None:
        if "serial" not in detail:  # results name the devices and serials that fed a round
            detail = {**detail, "serial": port_serial(self.port)}
        body = {
            "type": "device.status",
            "device": self.name,
            "available": available,
            "fault": fault,
            "detail": detail,
        }
        await self.daemon.submit(f"device/{self.name}", body)
