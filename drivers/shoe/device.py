"""ShoeDriver: reads a card-reading shoe (docs/protocols/shoe.md) and emits contract-2 events.

Bytes come from transport.ShoeLink, frames from frames.decode; this module holds the device
logic: sequence checking, fault/empty state, bad-frame accounting and reconnecting.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from drivers.base import Backoff, DriverSink, SleepFn
from drivers.shoe.frames import (
    SEQ_MODULO,
    BadFrame,
    CardBurned,
    CardDrawn,
    Fault,
    FaultCleared,
    Frame,
    Heartbeat,
    NewShoe,
    ShoeEmpty,
    decode,
)
from drivers.shoe.transport import Connector, LinkLostError, ShoeLink, open_link, serial_connector

log = structlog.get_logger(__name__)
_TIMER_SLACK = 1e-3  # timers may fire a hair early; treat "almost due" as due

DISCONNECTED = "DISCONNECTED"
"""Fault while the port cannot be opened or was lost."""
SILENT = "SILENT"
"""Fault while the port is open but no valid frame came for `silence_timeout` seconds."""
FRAMES_LOST = "FRAMES_LOST"
"""Fault from a SEQ gap until the next NEW: cards of this shoe may be missing."""


@dataclass(frozen=True)
class ShoeOptions:
    """The `options` table of a shoe device in the table config."""

    backoff_initial: float = 0.2
    """First reconnect delay in seconds; doubles per failed attempt."""
    backoff_max: float = 5.0
    """Cap on the reconnect delay in seconds."""
    silence_timeout: float | None = None
    """Report SILENT after this many seconds without a valid frame (for shoes sending HBT)."""
    status_interval: float = 1.0
    """Minimum seconds between status reports caused only by new bad frames."""

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> ShoeOptions:
        """Validate a config mapping; ValueError names every unknown key and bad value."""
        known = set(cls.__dataclass_fields__)
        problems = [
            f"unknown option {k!r} (known: {', '.join(sorted(known))})"
            for k in sorted(set(options) - known)
        ]
        values: dict[str, float | None] = {}
        for key in known & set(options):
            v = options[key]
            if v is None and key == "silence_timeout":
                values[key] = None
            elif isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                problems.append(f"option {key!r} must be a number of seconds, not {v!r}")
            elif v < 0 or (v == 0 and key != "status_interval"):
                problems.append(f"option {key!r} must be positive, not {v!r}")
            else:
                values[key] = float(v)
        if not problems:
            opts = cls(**values)  # type: ignore[arg-type]
            if opts.backoff_max < opts.backoff_initial:
                problems.append("option 'backoff_max' must be >= 'backoff_initial'")
            else:
                return opts
        raise ValueError("; ".join(problems))


class ShoeDriver:
    """Driver for card-reading shoes: cards, burns, new shoe as events; faults and loss as status.

    `connect`, `sleep` and `clock` are seams for tests (a null modem, a backoff that needs no real
    sleeping, a clock); the daemon passes only the four positional arguments.
    """

    def __init__(
        self,
        name: str,
        port: str,
        baud: int,
        options: Mapping[str, Any],
        *,
        connect: Connector = serial_connector,
        sleep: SleepFn | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.name = name
        self.port = port
        self.baud = baud
        self.options = ShoeOptions.parse(options)
        self._connect = connect
        self._sleep = sleep
        self._clock = clock
        self._log = log.bind(device=name, port=port)
        # connection and device state
        self._connected = False
        self._silent = False
        self._error: str | None = None
        self._fault: str | None = None
        self._fault_text = ""
        self._empty = False
        self._lost_since_new = False
        self._last_seq: int | None = None
        self._last_frame: Frame | None = None
        self._last_frame_at = 0.0
        # accounting
        self.stats: dict[str, int] = dict.fromkeys(
            ("frames", "bad_frames", "frames_lost", "duplicates", "opens", "reconnects", "reads"),
            0,
        )
        """Counters since construction; `reads` is how many chunks the port delivered."""
        self._last_bad: dict[str, str] | None = None
        self._last_gap: dict[str, int] | None = None
        self._last_key: tuple[object, ...] | None = None
        self._bad_reported = 0
        self._bad_reported_at = -math.inf

    # -- the Driver protocol ------------------------------------------------------------------

    async def run(self, sink: DriverSink) -> None:
        """Read the shoe until cancelled, reconnecting with capped backoff when the port goes."""
        o = self.options
        backoff = Backoff(o.backoff_initial, o.backoff_max, sleep=self._sleep)
        while True:
            try:
                link = await open_link(self.port, self.baud, self._connect)
            except OSError as exc:  # serial.SerialException, refused sockets, timeouts
                await self._down(sink, f"cannot open {self.port}: {exc}")
                await backoff.wait()
                continue
            frames_before = self.stats["frames"]
            try:
                reason = await self._session(link, sink)
            finally:
                await link.aclose()
            if self.stats["frames"] > frames_before:
                backoff.reset()  # only a link that carried frames counts as a success
            await self._down(sink, reason)
            await backoff.wait()

    # -- one connection -------------------------------------------------------------------------

    async def _session(self, link: ShoeLink, sink: DriverSink) -> str:
        """Process one open connection until the port goes; return why it went."""
        self.stats["opens"] += 1
        if self.stats["opens"] > 1:
            self.stats["reconnects"] += 1
        self._connected, self._silent, self._error = True, False, None
        self._last_frame_at = self._now()
        self._log.info("shoe.connected", baud=self.baud)
        await self._emit(sink, force=True)
        buf = bytearray()
        while True:
            timeout = self._wait_budget()
            try:
                chunk = await asyncio.wait_for(link.read(), timeout)
            except TimeoutError:
                await self._on_timer(sink)
                continue
            except LinkLostError as exc:
                return f"lost {self.port}: {exc}"
            self.stats["reads"] += 1
            buf += chunk
            await self._drain(buf, sink)

    async def _drain(self, buf: bytearray, sink: DriverSink) -> None:
        """Decode every complete frame at the front of `buf` and act on it."""
        while True:
            consumed, item = decode(buf)
            if consumed == 0:
                break
            del buf[:consumed]
            if isinstance(item, BadFrame):
                self._bad(item)
            elif item is not None:
                await self._frame(item, sink)
        if (
            self.stats["bad_frames"] > self._bad_reported
            and self._now() - self._bad_reported_at >= self.options.status_interval
        ):
            await self._emit(sink, force=True)

    def _bad(self, bad: BadFrame) -> None:
        self.stats["bad_frames"] += 1
        raw = bad.raw.decode("ascii", "backslashreplace")
        self._last_bad = {"reason": bad.reason, "raw": raw[:120]}
        self._log.debug("shoe.bad_frame", reason=bad.reason, raw=bad.raw)

    async def _frame(self, frame: Frame, sink: DriverSink) -> None:
        self.stats["frames"] += 1
        self._last_frame_at = self._now()
        self._silent = False
        if not await self._sequence(frame, sink):
            await self._emit(sink)
            return
        if isinstance(frame, CardDrawn):
            await sink.event({"type": "shoe.card", "card": str(frame.card)})
        elif isinstance(frame, CardBurned):
            await sink.event({"type": "shoe.burn", "card": str(frame.card)})
        elif isinstance(frame, NewShoe):
            self._empty = False
            self._lost_since_new = False
            await sink.event({"type": "shoe.new"})
            await self._emit(sink, force=True)
        elif isinstance(frame, ShoeEmpty):
            self._empty = True
        elif isinstance(frame, Fault):
            self._fault, self._fault_text = frame.code, frame.text
            self._log.warning("shoe.fault", code=frame.code, text=frame.text)
        elif isinstance(frame, FaultCleared):
            self._fault, self._fault_text = None, ""
        else:
            assert isinstance(frame, Heartbeat)
        await self._emit(sink)

    async def _sequence(self, frame: Frame, sink: DriverSink) -> bool:
        """Whether to act on `frame`: a repeat of the last SEQ is a retransmission; gaps count."""
        last = self._last_seq
        if last is not None and frame.seq == last:
            self.stats["duplicates"] += 1
            if frame != self._last_frame:
                self._log.warning("shoe.seq_reused", seq=frame.seq, frame=repr(frame))
            return False
        if last is not None:
            expected = (last + 1) % SEQ_MODULO
            lost = (frame.seq - expected) % SEQ_MODULO
            if lost:
                self.stats["frames_lost"] += lost
                self._lost_since_new = True
                self._last_gap = {"expected": expected, "received": frame.seq, "lost": lost}
                self._log.warning("shoe.frames_lost", **self._last_gap)
                await self._emit(sink, force=True)
        self._last_seq, self._last_frame = frame.seq, frame
        return True

    # -- status ---------------------------------------------------------------------------------

    async def _down(self, sink: DriverSink, error: str) -> None:
        if self._connected:
            self._log.warning("shoe.disconnected", error=error)
        self._connected, self._error = False, error
        await self._emit(sink)

    def _fault_now(self) -> str | None:
        if not self._connected:
            return DISCONNECTED
        if self._silent:
            return SILENT
        if self._fault is not None:
            return self._fault
        return FRAMES_LOST if self._lost_since_new else None

    def _detail(self) -> dict[str, Any]:
        s = self.stats
        detail: dict[str, Any] = {
            "port": self.port,
            "empty": self._empty,
            "frames": s["frames"],
            "bad_frames": s["bad_frames"],
            "frames_lost": s["frames_lost"],
            "duplicates": s["duplicates"],
            "reconnects": s["reconnects"],
        }
        if self._fault is not None:
            detail["fault_text"] = self._fault_text
        if self._error is not None and not self._connected:
            detail["error"] = self._error
        if self._last_bad is not None:
            detail["last_bad"] = dict(self._last_bad)
        if self._last_gap is not None:
            detail["last_gap"] = dict(self._last_gap)
        return detail

    async def _emit(self, sink: DriverSink, *, force: bool = False) -> None:
        """Report status if it changed (or `force`); every report carries the current counters."""
        available = self._connected and not self._silent
        fault = self._fault_now()
        key = (available, fault, self._fault_text, self._empty, self._error)
        if not force and key == self._last_key:
            return
        self._last_key = key
        self._bad_reported = self.stats["bad_frames"]
        self._bad_reported_at = self._now()
        await sink.status(available, fault, self._detail())

    # -- timers ---------------------------------------------------------------------------------

    def _now(self) -> float:
        return self._clock() if self._clock else asyncio.get_running_loop().time()

    def _wait_budget(self) -> float | None:
        """Seconds until the silence check or a held-back bad-frame report is due, or None."""
        due: list[float] = []
        if self.options.silence_timeout is not None and not self._silent:
            due.append(self._last_frame_at + self.options.silence_timeout)
        if self.stats["bad_frames"] > self._bad_reported:
            due.append(self._bad_reported_at + self.options.status_interval)
        return max(0.0, min(due) - self._now()) if due else None

    async def _on_timer(self, sink: DriverSink) -> None:
        now = self._now() + _TIMER_SLACK
        timeout = self.options.silence_timeout
        if timeout is not None and not self._silent and now - self._last_frame_at >= timeout:
            self._silent = True
            self._log.warning("shoe.silent", seconds=timeout)
            await self._emit(sink)
        if (
            self.stats["bad_frames"] > self._bad_reported
            and now - self._bad_reported_at >= self.options.status_interval
        ):
            await self._emit(sink, force=True)


if TYPE_CHECKING:
    from drivers.base import Driver

    _conforms: type[Driver] = ShoeDriver
