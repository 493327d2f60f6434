"""FramedDriver: the generic driver for a device speaking the shared envelope over a serial link.

It owns everything that is not device-specific: options, the reconnect loop with capped backoff,
decoding with the device's MessageSet, bad-frame accounting, SEQ checking, the common FLT/CLR/HBT,
the silence timer and status reports. A device class subclasses it with its message set, its
`on_frame` and, if it has any, its extra status detail and options.
"""

from __future__ import annotations

import asyncio
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Generic, Self, TypeVar

import structlog

from tablectl_drivers.base import Backoff, DriverSink, SleepFn
from tablectl_drivers.connect import connect as default_connect
from tablectl_drivers.envelope import SEQ_MODULO, BadFrame
from tablectl_drivers.link import Connector, Link, LinkLostError, open_link
from tablectl_drivers.messages import (
    CommonMessage,
    Fault,
    FaultCleared,
    Heartbeat,
    Message,
    MessageSet,
)

__all__ = [
    "DISCONNECTED",
    "FRAMES_LOST",
    "SILENT",
    "FramedDriver",
    "FramedOptions",
    "seconds_option",
]

_TIMER_SLACK = 1e-3  # timers may fire a hair early; treat "almost due" as due
_RECANCEL = 1.0
"""Seconds to wait for a cancelled talker before cancelling it again (it swallowed the cancel)."""

# Timed waits here use `asyncio.timeout`, never `asyncio.wait_for`: on Python 3.11, wait_for
# returns the result instead of raising when a cancellation arrives as its awaitable completes
# (CPython gh-86296, fixed in 3.12), and a driver that swallowed the daemon's stop that way ran on
# and hung the shutdown (DESIGN shape 5: "shuts down cleanly on SIGTERM").

DISCONNECTED = "DISCONNECTED"
"""Fault while the port cannot be opened or was lost."""
SILENT = "SILENT"
"""Fault while the port is open but no valid frame came for `silence_timeout` seconds."""
FRAMES_LOST = "FRAMES_LOST"
"""Fault from a SEQ gap until the device class clears it (the shoe: at the next NEW)."""


def seconds_option(
    key: str, value: Any, *, zero_ok: bool = False, none_ok: bool = False
) -> float | None:
    """`value` as float seconds (or None if `none_ok`); ValueError naming `key` otherwise."""
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"option {key!r} must be a number of seconds, not {value!r}")
    if value < 0 or (value == 0 and not zero_ok):
        raise ValueError(f"option {key!r} must be positive, not {value!r}")
    return float(value)


@dataclass(frozen=True)
class FramedOptions:
    """The `options` table of a device in the table config; subclass it to add device options.

    A subclass adds dataclass fields with defaults and overrides `check_option` (for its keys,
    deferring to super() for the rest) and, for checks across options, `problems`.
    """

    backoff_initial: float = 0.2
    """First reconnect delay in seconds; doubles per failed attempt."""
    backoff_max: float = 5.0
    """Cap on the reconnect delay in seconds."""
    silence_timeout: float | None = None
    """Report SILENT after this many seconds without a valid frame (for devices sending HBT)."""
    status_interval: float = 1.0
    """Minimum seconds between status reports caused only by new bad frames."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        """The value to store for option `key`; ValueError (naming the key) if it is bad."""
        if key in ("backoff_initial", "backoff_max", "silence_timeout", "status_interval"):
            return seconds_option(
                key,
                value,
                zero_ok=key == "status_interval",
                none_ok=key == "silence_timeout",
            )
        raise NotImplementedError(f"{cls.__name__}.check_option does not handle {key!r}")

    def problems(self) -> list[str]:
        """What is wrong with the options taken together (each value is already valid)."""
        if self.backoff_max < self.backoff_initial:
            return ["option 'backoff_max' must be >= 'backoff_initial'"]
        return []

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> Self:
        """Validate a config mapping; ValueError names every unknown key and bad value."""
        known = {f.name for f in fields(cls)}
        problems = [
            f"unknown option {k!r} (known: {', '.join(sorted(known))})"
            for k in sorted(set(options) - known)
        ]
        values: dict[str, Any] = {}
        for key in sorted(known & set(options)):
            try:
                values[key] = cls.check_option(key, options[key])
            except ValueError as exc:
                problems.append(str(exc))
        if not problems:
            opts = cls(**values)
            problems = opts.problems()
            if not problems:
                return opts
        raise ValueError("; ".join(problems))


M = TypeVar("M", bound=Message)


class FramedDriver(ABC, Generic[M]):
    """Base driver for envelope devices: M is the union of the device's own message classes.

    A subclass sets `messages` (its MessageSet[M]) and `log_prefix` (log events are
    `<log_prefix>.connected` etc.), implements `on_frame`, and may override `extra_detail` and
    `options_class`. `connect`, `sleep` and `clock` are seams for tests (a null modem, a backoff
    that needs no real sleeping, a clock); the daemon passes only the four positional arguments.
    """

    messages: MessageSet[M]
    """The device's protocol; decoding yields M or a common message."""
    log_prefix: ClassVar[str]
    """The device class in log event names, e.g. "shoe" for `shoe.connected`."""
    options_class: ClassVar[type[FramedOptions]] = FramedOptions
    """The options dataclass; a device with more options subclasses FramedOptions."""

    def __init__(
        self,
        name: str,
        port: str,
        baud: int,
        options: Mapping[str, Any],
        *,
        connect: Connector = default_connect,
        sleep: SleepFn | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        cls = type(self)
        if not hasattr(cls, "messages") or not hasattr(cls, "log_prefix"):
            raise TypeError(f"{cls.__name__} must set `messages` and `log_prefix`")
        self.name = name
        self.port = port
        self.baud = baud
        self.options = self.options_class.parse(options)
        self._connect = connect
        self._sleep = sleep
        self._clock = clock
        self._log = structlog.get_logger(cls.__module__).bind(device=name, port=port)
        # connection and device state
        self._connected = False
        self._silent = False
        self._error: str | None = None
        self._fault: str | None = None
        self._fault_text = ""
        self._frames_lost = False
        self._last_seq: int | None = None
        self._last_frame: Message | None = None
        self._last_frame_at = 0.0  # also reset at each connect: the silence timer's start
        self._frame_seen_at: float | None = None  # the last valid frame's time (`frame_age`)
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

    # -- for subclasses -------------------------------------------------------------------------

    @abstractmethod
    async def on_frame(self, frame: M, sink: DriverSink) -> None:
        """Act on one of the device's own messages (in SEQ order, retransmissions removed).

        Emit events on `sink` and update device state; a status report follows automatically if
        `extra_detail()` changed. FLT, CLR and HBT never come here: the base handles them.
        """

    def extra_detail(self) -> dict[str, Any]:
        """Device state for the status `detail` (JSON-able); a change in it triggers a report."""
        return {}

    def device_fault(self) -> str | None:
        """A fault the device class derives from what the device sent rather than from FLT.

        None by default. It ranks below the device's own FLT code and above FRAMES_LOST, and a
        change in it triggers a report (the dice cup: UNREADABLE after a roll it could not read).
        """
        return None

    def shown_bad_frame(self, raw: bytes) -> str:
        """What status `detail.last_bad.raw` shows of a bad frame (the debug log gets all of it).

        The text itself by default; a device whose frames carry cards nobody may see yet (a hand
        dispenser's stacks) overrides it, because the status detail is published.
        """
        return raw.decode("ascii", "backslashreplace")[:120]

    async def while_connected(self, link: Link, sink: DriverSink) -> None:
        """Runs alongside reading for as long as one connection lasts; nothing by default.

        A device the host also writes to (a display) sends from here with `link.write`. It is
        cancelled when the connection ends; raising LinkLostError ends the connection like a lost
        port, any other exception ends `run()` with it.
        """

    def clear_frames_lost(self) -> None:
        """End the FRAMES_LOST fault: call when nothing the device sent can be missing any more
        (a positioned device: its resend came back complete)."""
        self._frames_lost = False

    def on_seq_gap(self) -> None:
        """Frames were lost on the wire (a SEQ gap): by default FRAMES_LOST stands until the
        device class clears it. A device that can resend asks for them instead."""
        self._frames_lost = True

    async def on_open(self, sink: DriverSink) -> None:
        """Called once a connection is open, before any frame is read or `while_connected`
        starts; nothing by default (a positioned device learns where the journal stands)."""

    async def report_status(self, sink: DriverSink, *, force: bool = False) -> None:
        """Report status if it changed (or `force`); every report carries the current counters."""
        available = self._connected and not self._silent
        fault = self._fault_now()
        extra = self.extra_detail()
        key = (available, fault, self._fault_text, extra, self._error)
        if not force and key == self._last_key:
            return
        self._last_key = key
        self._bad_reported = self.stats["bad_frames"]
        self._bad_reported_at = self._now()
        await sink.status(available, fault, self._detail(extra))

    def frame_age(self) -> float | None:
        """Seconds since the last valid frame (a heartbeat too; a retransmission too: the device
        spoke), None before the first (`FrameClock`, for `tablectl status`)."""
        return None if self._frame_seen_at is None else max(0.0, self._now() - self._frame_seen_at)

    # -- the Driver protocol ------------------------------------------------------------------

    async def run(self, sink: DriverSink) -> None:
        """Read the device until cancelled, reconnecting with capped backoff when the port goes."""
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

    async def _session(self, link: Link, sink: DriverSink) -> str:
        """Process one open connection until the port goes; return why it went."""
        self.stats["opens"] += 1
        if self.stats["opens"] > 1:
            self.stats["reconnects"] += 1
        self._connected, self._silent, self._error = True, False, None
        self._last_frame_at = self._now()
        self._log.info(f"{self.log_prefix}.connected", baud=self.baud)
        await self.on_open(sink)
        await self.report_status(sink, force=True)
        talker = asyncio.create_task(self.while_connected(link, sink))

        def talker_done(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                link.close()  # a failed writer ends the connection; the reader then stops

        talker.add_done_callback(talker_done)
        try:
            reason = await self._read(link, sink)
        finally:
            await self._stop_talker(talker)
        error = None if talker.cancelled() else talker.exception()
        if error is None:
            return reason
        if isinstance(error, LinkLostError):  # a failed write says why; else the reader knows
            return f"lost {self.port}: {error}" if error.__cause__ else reason
        raise error

    async def _stop_talker(self, talker: asyncio.Task[None]) -> None:
        """Cancel `while_connected` and wait until it has ended, cancelling it again while a
        subclass's code swallows the cancellation (the connection must not outlive its end)."""
        talker.cancel()
        stopped = False  # whether this driver is being stopped too (the daemon's re-cancel)
        while True:
            try:
                done, _ = await asyncio.wait([talker], timeout=_RECANCEL)
            except asyncio.CancelledError:
                stopped = True  # see the talker end first, then stop as asked
                talker.cancel()
                continue
            if done:
                break
            self._log.error(f"{self.log_prefix}.talker_ignored_cancel", seconds=_RECANCEL)
            talker.cancel()
        if stopped:
            raise asyncio.CancelledError

    async def _read(self, link: Link, sink: DriverSink) -> str:
        """Read and act on frames until the port goes; return why it went."""
        buf = bytearray()
        while True:
            timeout = self._wait_budget()
            try:
                async with asyncio.timeout(timeout):  # not wait_for: see _RECANCEL's note
                    chunk = await link.read()
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
            consumed, item = self.messages.decode(buf)
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
            await self.report_status(sink, force=True)

    def _bad(self, bad: BadFrame) -> None:
        self.stats["bad_frames"] += 1
        self._last_bad = {"reason": bad.reason, "raw": self.shown_bad_frame(bad.raw)}
        self._log.debug(f"{self.log_prefix}.bad_frame", reason=bad.reason, raw=bad.raw)

    async def _frame(self, frame: M | CommonMessage, sink: DriverSink) -> None:
        self.stats["frames"] += 1
        self._last_frame_at = self._frame_seen_at = self._now()
        self._silent = False
        if not await self._sequence(frame, sink):
            await self.report_status(sink)
            return
        if isinstance(frame, Fault):
            self._fault, self._fault_text = frame.code, frame.text
            self._log.warning(f"{self.log_prefix}.fault", code=frame.code, text=frame.text)
        elif isinstance(frame, FaultCleared):
            self._fault, self._fault_text = None, ""
        elif not isinstance(frame, Heartbeat):
            await self.on_frame(frame, sink)
        await self.report_status(sink)

    async def _sequence(self, frame: Message, sink: DriverSink) -> bool:
        """Whether to act on `frame`: a repeat of the last SEQ is a retransmission; gaps count."""
        last = self._last_seq
        if last is not None and frame.seq == last:
            self.stats["duplicates"] += 1
            if frame != self._last_frame:
                self._log.warning(f"{self.log_prefix}.seq_reused", seq=frame.seq, frame=repr(frame))
            return False
        if last is not None:
            expected = (last + 1) % SEQ_MODULO
            lost = (frame.seq - expected) % SEQ_MODULO
            if lost:
                self.stats["frames_lost"] += lost
                self.on_seq_gap()
                self._last_gap = {"expected": expected, "received": frame.seq, "lost": lost}
                self._log.warning(f"{self.log_prefix}.frames_lost", **self._last_gap)
                await self.report_status(sink, force=True)
        self._last_seq, self._last_frame = frame.seq, frame
        return True

    # -- status ---------------------------------------------------------------------------------

    async def _down(self, sink: DriverSink, error: str) -> None:
        if self._connected:
            self._log.warning(f"{self.log_prefix}.disconnected", error=error)
        self._connected, self._error = False, error
        await self.report_status(sink)

    def _fault_now(self) -> str | None:
        if not self._connected:
            return DISCONNECTED
        if self._silent:
            return SILENT
        if self._fault is not None:
            return self._fault
        derived = self.device_fault()
        if derived is not None:
            return derived
        return FRAMES_LOST if self._frames_lost else None

    def _detail(self, extra: dict[str, Any]) -> dict[str, Any]:
        s = self.stats
        detail: dict[str, Any] = {
            "port": self.port,
            **extra,
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
            self._log.warning(f"{self.log_prefix}.silent", seconds=timeout)
            await self.report_status(sink)
        if (
            self.stats["bad_frames"] > self._bad_reported
            and now - self._bad_reported_at >= self.options.status_interval
        ):
            await self.report_status(sink, force=True)


_FRAME_HEAD = re.compile(rb"\$[A-Z]{3},[0-9]{1,4}")


def withhold_fields(raw: bytes) -> str:
    """Only `$TYPE,SEQ` of a bad frame: its fields may hold a card nobody may see yet (a hole
    card, a stack), and a device's status is published (contract 3)."""
    head = _FRAME_HEAD.match(raw)
    kept = head.group().decode("ascii") if head else ""
    withheld = len(raw) - len(kept)
    return f"{kept}<{withheld} bytes withheld>" if withheld else kept
