"""EztrakDisplayDriver: draws `display/eztrak` (R28) on an EZTRAK LCD (docs/protocols/eztrak.md).

An output device: the daemon hands it each new payload through `update`, which only stores it
(the latest per view) and wakes the writer; the writer sends the whole screen after every update
and every (re)connect, and again on NAK or when no ACK comes in time. What the display sends back
(ACK, NAK, RDY, FLT/CLR/HBT) is read by tablectl_drivers/framed.py like any envelope device.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from tablectl_drivers.base import Backoff, DriverSink, SleepFn
from tablectl_drivers.connect import connect as default_connect
from tablectl_drivers.envelope import SEQ_MODULO
from tablectl_drivers.eztrak.messages import (
    HOST_MESSAGES,
    MESSAGES,
    Ack,
    DisplayMessage,
    Nak,
    Ready,
)
from tablectl_drivers.eztrak.render import RenderError, render
from tablectl_drivers.framed import (
    DISCONNECTED,
    FRAMES_LOST,
    SILENT,
    FramedDriver,
    FramedOptions,
    seconds_option,
)
from tablectl_drivers.link import Connector, Link

__all__ = [
    "DISCONNECTED",
    "FRAMES_LOST",
    "NO_ACK",
    "SILENT",
    "EztrakDisplayDriver",
    "EztrakOptions",
]

NO_ACK = "NO_ACK"
"""Fault from a screen the display did not answer within `ack_timeout` until its next ACK."""
BITS_PER_BYTE = 10
"""8N1 on the wire: the time a screen takes to send is added to the ACK timeout."""


@dataclass(frozen=True)
class EztrakOptions(FramedOptions):
    """The common options plus `ack_timeout` and `views`."""

    ack_timeout: float = 2.0
    """Seconds to wait for the display's answer once a screen is on the wire."""
    views: tuple[str, ...] = ("eztrak",)
    """The `display/<view>` views this display shows (the daemon's topic suffixes)."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "ack_timeout":
            return seconds_option(key, value)
        if key == "views":
            ok = (
                isinstance(value, list | tuple)
                and value
                and all(isinstance(v, str) and v for v in value)
                and len(set(value)) == len(value)
            )
            if not ok:
                raise ValueError(
                    f"option 'views' must be a non-empty list of distinct view names, not {value!r}"
                )
            return tuple(value)
        return super().check_option(key, value)


class EztrakDisplayDriver(FramedDriver[DisplayMessage]):
    """Driver for the EZTRAK LCD: shows the latest payload of its views, resending until ACKed.

    With several views the display shows whichever was updated last. Status detail carries
    `screens_sent`, `acked`, `naks`, `last_ack_seq` (the last screen ACKed), `last_nak`
    (`{"screen", "reason"}`) and `render_errors` (payloads that could not be drawn); fault
    NO_ACK stands from a screen left unanswered for `ack_timeout` until the next ACK.
    """

    messages = MESSAGES
    log_prefix: ClassVar[str] = "eztrak"
    options_class: ClassVar[type[FramedOptions]] = EztrakOptions
    options: EztrakOptions

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
        super().__init__(name, port, baud, options, connect=connect, sleep=sleep, clock=clock)
        self.views: tuple[str, ...] = self.options.views
        self._latest: dict[str, dict[str, Any]] = {}
        self._view: str | None = None  # the view updated last: what the display should show
        self._version = 0  # bumped by every update
        self._acked_version: int | None = None  # the version the display confirmed showing
        self._kicks = 0  # bumped by updates and RDY: cuts a wait short
        self._changed = asyncio.Event()
        self._host_seq = 0
        self._inflight: int | None = None  # the END SEQ of the screen awaiting an answer
        self._answer: str | None = None  # "ack" or "nak" for the screen in flight
        self._no_ack = False
        self.counters: dict[str, int] = dict.fromkeys(
            ("screens_sent", "acked", "naks", "render_errors"), 0
        )
        self._last_ack: int | None = None
        self._last_nak: dict[str, Any] | None = None

    # -- the DisplayDriver protocol ----------------------------------------------------------

    def update(self, view: str, payload: Mapping[str, Any]) -> None:
        """Keep `payload` as the latest of `view` and wake the writer; never blocks or raises."""
        if view not in self.views:
            return
        self._latest[view] = dict(payload)
        self._view = view
        self._version += 1
        self._kick()

    # -- what the display sends ---------------------------------------------------------------

    async def on_frame(self, frame: DisplayMessage, sink: DriverSink) -> None:
        """ACK/NAK settle the screen in flight (and are counted whatever screen they name); RDY
        means the display is blank, so the latest screen goes again at once."""
        if isinstance(frame, Ack):
            self.counters["acked"] += 1
            self._last_ack = frame.screen
            if frame.screen == self._inflight:
                self._settle("ack")
                self._no_ack = False
                self.clear_frames_lost()  # a committed screen: the display shows what we sent
        elif isinstance(frame, Nak):
            self.counters["naks"] += 1
            self._last_nak = {"screen": frame.screen, "reason": frame.reason}
            self._log.warning(f"{self.log_prefix}.nak", screen=frame.screen, reason=frame.reason)
            if frame.screen == self._inflight:
                self._settle("nak")
        else:
            assert isinstance(frame, Ready)
            self._log.info(f"{self.log_prefix}.ready")
            self._acked_version = None
            self.clear_frames_lost()
            self._kick()

    def device_fault(self) -> str | None:
        return NO_ACK if self._no_ack else None

    def extra_detail(self) -> dict[str, Any]:
        return {
            **self.counters,
            "last_ack_seq": self._last_ack,
            "last_nak": None if self._last_nak is None else dict(self._last_nak),
        }

    # -- the writer -----------------------------------------------------------------------------

    async def while_connected(self, link: Link, sink: DriverSink) -> None:
        """Send the latest screen now (the display may show anything after a connect), then
        after every update; resend on NAK or silence with capped backoff."""
        self._acked_version = None
        retry = Backoff(self.options.backoff_initial, self.options.backoff_max)
        while True:
            await self._wait(self._pending, None)
            version, kicks = self._version, self._kicks
            assert self._view is not None
            answer = await self._send(link, sink, self._latest[self._view])
            if answer == "ack":
                self._acked_version = version
                retry.reset()
                continue
            if answer == "unrenderable":
                self._acked_version = version  # nothing to send until the next update
                continue
            if answer is None and self._kicks != kicks:
                continue  # a newer payload, or RDY: send at once, no backoff
            if answer is None and not self._no_ack:
                self._no_ack = True
                self._log.warning(f"{self.log_prefix}.no_ack", screen=self._inflight)
                await self.report_status(sink)
            delay = retry.next_delay()
            await self._wait(self._kicked_since(kicks), delay)

    async def _send(self, link: Link, sink: DriverSink, payload: Mapping[str, Any]) -> str | None:
        """Send one screen and wait for its answer: "ack", "nak", None (no answer, or cut short
        by an update or RDY), or "unrenderable" if the payload cannot be drawn."""
        try:
            frames = render(payload, self._host_seq)
        except RenderError as exc:
            self.counters["render_errors"] += 1
            self._log.error(f"{self.log_prefix}.render_error", error=str(exc))
            await self.report_status(sink)
            return "unrenderable"
        kicks = self._kicks
        self._host_seq = (frames[-1].seq + 1) % SEQ_MODULO
        self._inflight, self._answer = frames[-1].seq, None
        size = 0
        for frame in frames:
            data = HOST_MESSAGES.encode(frame)
            size += len(data)
            link.write(data)
            await link.drain()
        self.counters["screens_sent"] += 1
        self._log.debug(f"{self.log_prefix}.screen_sent", screen=self._inflight, frames=len(frames))
        budget = self.options.ack_timeout + size * BITS_PER_BYTE / max(self.baud, 1)
        kicked = self._kicked_since(kicks)
        await self._wait(lambda: self._answer is not None or kicked(), budget)
        return self._answer

    def _pending(self) -> bool:
        return self._view is not None and self._acked_version != self._version

    def _settle(self, answer: str) -> None:
        self._answer = answer
        self._changed.set()

    def _kicked_since(self, kicks: int) -> Callable[[], bool]:
        """Whether an update or RDY came since the kick count was `kicks`."""
        return lambda: self._kicks != kicks

    def _kick(self) -> None:
        self._kicks += 1
        self._changed.set()

    async def _wait(self, done: Callable[[], bool], timeout: float | None) -> None:
        """Return once `done()` holds (checked after every update or answer), or after `timeout`
        seconds if given."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not done():
            self._changed.clear()
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return
            try:
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancellation
                # that arrives as the event is set (gh-86296), and the talker then ran on after
                # its connection ended, hanging the driver's and the daemon's stop
                async with asyncio.timeout(remaining):
                    await self._changed.wait()
            except TimeoutError:
                return


if TYPE_CHECKING:
    from tablectl_drivers.base import DisplayDriver

    _conforms: type[DisplayDriver] = EztrakDisplayDriver
