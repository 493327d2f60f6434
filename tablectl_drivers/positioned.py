"""PositionedDriver: a FramedDriver for a device that numbers what it reports.

A shoe numbers its cards from NEW, a dispenser its stacks from a shuffle, a dice cup its rolls; each
keeps a history and answers the resend request of tablectl_drivers/resend.py. This driver reports
each position once, in order, and never skips one silently:

* On every connect it asks the device to resend from where the journal stands (the daemon's
  `sink.cursor()`), so what the device reported while nobody listened (the daemon down, the
  cable out) comes in as if it had never stopped.
* A position past the next one, or a SEQ gap, makes it ask again; what came early waits here.
* A position at or before the last one is a repeat: dropped when it is a resend's overlap,
  passed on otherwise (the table refuses it and says so).
* What the device cannot resend (its history does not reach back, or it never had the card: a
  misread) is reported as a `device.gap` event, and what came after the gap is passed on: the
  table holds it, and the round, until the dealer enters the missing cards (R39) or voids.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from tablectl_drivers.base import DriverSink
from tablectl_drivers.envelope import SEQ_MODULO
from tablectl_drivers.framed import FramedDriver, FramedOptions, seconds_option
from tablectl_drivers.link import Link
from tablectl_drivers.messages import Message
from tablectl_drivers.resend import HOST_MESSAGES, ResendBegin, ResendEnd, ResendRequest

__all__ = ["PositionedDriver", "PositionedOptions"]


@dataclass(frozen=True)
class PositionedOptions(FramedOptions):
    """The common options plus how the driver asks for a resend."""

    resend_timeout: float = 2.0
    """Seconds to wait for the device's RSE after an RSN before giving the gap up."""
    resend_attempts: int = 3
    """Resends asked for one gap while frames keep getting lost on the wire during them."""
    resend_retry: float = 10.0
    """Seconds between resends asked again after a device did not answer one."""

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key in ("resend_timeout", "resend_retry"):
            return seconds_option(key, value)
        if key == "resend_attempts":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 20:
                raise ValueError(f"option 'resend_attempts' must be 1..20, not {value!r}")
            return value
        return super().check_option(key, value)


M = TypeVar("M", bound=Message)


class PositionedDriver(FramedDriver[M]):
    """Base driver for devices whose reports carry positions; M includes RSB and RSE.

    A subclass says which frames start a run (`run_started`), which carry a position
    (`position_of`), what event each becomes (`emit`), and handles the rest (`on_other`).
    """

    options_class: ClassVar[type[FramedOptions]] = PositionedOptions
    options: PositionedOptions
    has_runs: ClassVar[bool] = True
    """Whether positions restart with runs (shoe, shuffle); a dice cup's roll number never does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._run: str | None = None
        self._pos: int | None = None  # the last position passed on in order (None: none yet)
        self._ahead: dict[int, M] = {}  # positions past a gap, waiting for the ones before
        self._early: list[M] = []  # heard while an RSN was wanted or out, before its RSB
        self._hearing = False  # acting on what was heard early: it is no longer in flight
        self._owed: set[int] = set()  # holes given up unanswered: still asked for, still taken
        self._wanted = False  # a resend should be asked for
        self._resending = False  # an RSN is out and its RSE has not come
        self._replaying = False  # between RSB and RSE: what comes is the history again
        self._deadline = 0.0
        self._attempts = 0
        self._lost_during_resend = False
        self._host_seq = 0
        self._kick: asyncio.Event | None = None
        for key in ("resends", "repeats", "gaps"):
            self.stats[key] = 0

    # -- for subclasses -------------------------------------------------------------------------

    def run_started(self, frame: M) -> str | None:
        """The id of the run `frame` starts (a shoe's NEW, a shuffle's SHF), else None."""
        return None

    @abstractmethod
    def position_of(self, frame: M) -> int | None:
        """The position `frame` reports at, or None for a frame without one."""

    @abstractmethod
    async def emit(self, frame: M, at: dict[str, Any], sink: DriverSink) -> None:
        """Pass `frame` on as its event with `at` (its run, position and SEQ). Called for run
        starts too (position 0): a device whose run start is no input event does nothing."""

    async def on_other(self, frame: M, sink: DriverSink) -> None:
        """A frame with neither a position nor a run start (EMP, CNT, CUP); nothing by default."""

    # -- FramedDriver hooks ---------------------------------------------------------------------

    async def on_open(self, sink: DriverSink) -> None:
        """Learn where the journal stands, and ask the device to resend from there."""
        cursor_of = getattr(sink, "cursor", None)
        cursor = cursor_of() if callable(cursor_of) else None
        if isinstance(cursor, Mapping) and isinstance(cursor.get("pos"), int):
            self._run = cursor.get("run") if self.has_runs else None
            self._pos = cursor["pos"]
            seq = cursor.get("seq")
            if self._last_seq is None and isinstance(seq, int):
                self._last_seq = seq  # a gap across the restart counts like any other
        self._ahead, self._early, self._owed = {}, [], set()
        self._resending = self._replaying = False
        self._wanted = True
        self._kick = asyncio.Event()

    def on_seq_gap(self) -> None:
        """Frames were lost on the wire: ask for them again rather than stand a fault."""
        self.request_resend()

    def request_resend(self) -> None:
        """Ask the device to resend from the next position after the last one passed on."""
        if self._resending:
            self._lost_during_resend = True
            return
        self._wanted = True
        if self._kick is not None:
            self._kick.set()

    async def while_connected(self, link: Link, sink: DriverSink) -> None:
        """Send RSN when one is wanted; give the gap up when the device does not answer."""
        kick = self._kick
        assert kick is not None
        while True:
            if self._wanted and not self._resending:
                self._send_request(link)
            now = self._now()
            if self._resending:
                timeout: float | None = max(0.0, self._deadline - now)
            elif self._frames_lost:
                timeout = self.options.resend_retry
            else:
                timeout = None
            try:
                async with asyncio.timeout(timeout):  # not wait_for: see tablectl_drivers/framed.py
                    await kick.wait()
            except TimeoutError:
                if self._resending and self._now() >= self._deadline:
                    await self._unanswered(sink)
                elif self._frames_lost:
                    self._wanted = True
            kick.clear()

    async def on_frame(self, frame: M, sink: DriverSink) -> None:
        if isinstance(frame, ResendBegin):
            await self._resend_begins(frame, sink)
        elif isinstance(frame, ResendEnd):
            await self._resend_ends(frame, sink)
        elif (run := self.run_started(frame)) is not None:
            await self._run_start(frame, run, sink)
        elif (pos := self.position_of(frame)) is not None:
            await self._place(frame, pos, sink)
        else:
            await self.on_other(frame, sink)

    def extra_detail(self) -> dict[str, Any]:
        """What a change in triggers a status report. The position is not in it (`_detail`
        adds it to every report): a status is journaled, and one per card, only because the
        count moved on, would double the journal's writes."""
        detail: dict[str, Any] = {
            "resending": self._resending,
            "resends": self.stats["resends"],
            "repeats": self.stats["repeats"],
            "gaps": self.stats["gaps"],
        }
        if self._ahead:
            detail["waiting"] = sorted(self._ahead)
        return detail

    @property
    def position(self) -> dict[str, Any]:
        """Where the count stands now: the run and the last position passed on."""
        return {"run": self._run, "pos": self._pos}

    def _detail(self, extra: dict[str, Any]) -> dict[str, Any]:
        """Every report says where the count stands (`position`)."""
        return {**super()._detail(extra), "position": self.position}

    # -- the count ------------------------------------------------------------------------------

    def _at(self, frame: M, pos: int) -> dict[str, Any]:
        at: dict[str, Any] = {"pos": pos, "seq": frame.seq}
        if self._run is not None:
            at = {"run": self._run, **at}
        return at

    def _in_flight(self) -> bool:
        """Whether an RSN is wanted or out and its replay has not begun: what comes now the
        device sent before it read the request, and the replay brings it again in its place (a
        live frame let through here could be a run the replay has not reached yet: after a SEQ
        gap that hid a NEW, the new shoe's first cards look like the old shoe's positions)."""
        if self._hearing or self._replaying:
            return False
        return self._wanted or self._resending

    async def _place(self, frame: M, pos: int, sink: DriverSink) -> None:
        """One positioned frame: passed on if it is the next, kept if it is early, a repeat
        dropped during a replay (it is the overlap) and passed on otherwise."""
        if self._in_flight():
            self._early.append(frame)  # the replay brings it again; if none comes, it is this
            return
        if self._pos is None and not self._resending:
            self._pos = pos - 1  # the first position ever seen is taken as it is
        if self._pos is None or pos > self._pos + 1:
            if pos not in self._ahead:
                self._ahead[pos] = frame
            if self._pos is not None and not self._replaying:  # a replay's hole: judged at RSE
                self.request_resend()
            return
        if pos <= self._pos:
            if pos in self._owed:  # a hole given up while the device did not answer: filled
                self._owed.discard(pos)
                await self.emit(frame, self._at(frame, pos), sink)
                return
            if not self._replaying:
                self.stats["repeats"] += 1
                self._log.warning(f"{self.log_prefix}.repeated_position", pos=pos, seq=frame.seq)
                await self.emit(frame, self._at(frame, pos), sink)
            return
        await self.emit(frame, self._at(frame, pos), sink)
        self._pos = pos
        await self._pass_waiting(sink)

    async def _pass_waiting(self, sink: DriverSink) -> None:
        """Pass on what waited, as far as it runs on from the last position without a hole."""
        while self._pos is not None and self._pos + 1 in self._ahead:
            self._pos += 1
            frame = self._ahead.pop(self._pos)
            await self.emit(frame, self._at(frame, self._pos), sink)

    async def _run_start(self, frame: M, run: str, sink: DriverSink) -> None:
        """A new shoe or shuffle: the old run's count is over (a hole left in it is a gap)."""
        if self._in_flight():
            self._early.append(frame)  # the replay brings it again; if none comes, it is this
            return
        if run == self._run and (self._replaying or self._pos is not None):
            return  # a resend replaying the start of the run we are in, or a repeat of it
        if self._ahead and self._pos is not None:
            await self._give_up(sink, f"{run} began before the device resent them")
        self._run, self._pos, self._ahead, self._owed = run, 0, {}, set()
        await self.emit(frame, {"run": run, "pos": 0, "seq": frame.seq}, sink)

    # -- the resend exchange --------------------------------------------------------------------

    def _send_request(self, link: Link) -> None:
        start = 0 if self._pos is None else min([*self._owed, self._pos + 1])
        run = self._run if self.has_runs and self._pos is not None else None
        data = HOST_MESSAGES.encode(ResendRequest(self._host_seq, run, start))
        self._host_seq = (self._host_seq + 1) % SEQ_MODULO
        self._wanted, self._resending = False, True
        self._lost_during_resend = False
        self._deadline = self._now() + self.options.resend_timeout
        self.stats["resends"] += 1
        self._log.info(f"{self.log_prefix}.resend_asked", run=run, start=start)
        link.write(data)

    async def _resend_begins(self, frame: ResendBegin, sink: DriverSink) -> None:
        """RSB: with LOST, the device cannot resend the rest of our run (a power cycle, or it
        moved on too far): nothing of it after our last position can be confirmed."""
        self._replaying = True
        if self._pos is not None:
            self._early = []  # the replay from after our count brings what was heard in flight
        if not frame.lost or not self.has_runs or self._pos is None:
            return
        self._log.warning(f"{self.log_prefix}.history_lost", run=self._run, after=self._pos)
        await self._report_gap(sink, None, f"the device has no record of it after {self._pos}")
        await self._pass_on_ahead(sink)

    async def _resend_ends(self, frame: ResendEnd, sink: DriverSink) -> None:
        """RSE: the replay is over. A hole still open is asked for again if the replay itself
        lost frames on the wire; otherwise it is a gap the device cannot fill."""
        self._resending = self._replaying = False
        if self._kick is not None:
            self._kick.set()
        first_contact = self._pos is None
        if first_contact:  # the count starts with the first frame heard
            await self._hear_early(sink)
            if self._pos is None:  # nothing heard: it starts where the device says it stands
                self._run = frame.run if self.has_runs else None
                self._pos = frame.last
                self._done()
                return
        if self.has_runs and self._run is None:
            self._run = frame.run  # cards heard before any NEW: now the run has a name
        if self.has_runs and frame.run != self._run:
            self._log.warning(f"{self.log_prefix}.run_moved", ours=self._run, device=frame.run)
            await self._report_gap(sink, None, f"the device is in {frame.run} and resent no start")
            await self._pass_on_ahead(sink)
            self._run, self._pos = frame.run, frame.last
            self._done()
            return
        top = max([frame.last, *self._ahead]) if self._ahead else frame.last
        if self._pos is not None and top > self._pos:
            if first_contact:  # holes in what was heard before anything was asked for: ask
                self.request_resend()
                return
            if self._lost_during_resend and self._attempts + 1 < self.options.resend_attempts:
                self._attempts += 1
                self.request_resend()
                return
            await self._give_up(sink, "the device did not resend them", top=top)
        self._done()

    def _done(self) -> None:
        """Nothing the device sent can be missing any more: the resend came back whole (what
        it did not bring of the holes given up unanswered, it cannot: they stay gaps)."""
        self._attempts = 0
        self._owed = set()
        self.clear_frames_lost()

    async def _unanswered(self, sink: DriverSink) -> None:
        """No RSE in time: FRAMES_LOST stands (reported first: a round in deal is held for
        it), what came past a hole is passed on with the hole as a gap (the table keeps it; the
        dealer may enter the missing cards or void), and the ask is repeated later, still from
        the hole: a later answer that brings it fills the gap."""
        self._resending = self._replaying = False
        self._frames_lost = True
        self._log.warning(f"{self.log_prefix}.resend_unanswered", after=self._pos)
        await self.report_status(sink, force=True)
        await self._hear_early(sink)  # no replay will bring it: what was heard is all there is
        if self._ahead:
            await self._give_up(sink, "the device did not answer a resend", owed=True)
        await self.report_status(sink)

    async def _hear_early(self, sink: DriverSink) -> None:
        """Act on what was heard while an RSN was out, when no replay brings it again (a first
        contact, whose replay is empty, or a resend never answered). On a first contact the
        count starts with the first position heard; what waited for a count (heard during a
        replay whose RSE never came) was heard after the rest, and follows it (a NEW among
        the rest must not wipe it out)."""
        early, self._early = self._early, []
        if self._pos is None:
            early += [self._ahead[p] for p in sorted(self._ahead)]
            self._ahead = {}
        self._hearing = True  # a hole among them asks for a resend, but defers none of them
        try:
            for heard in early:
                await self.on_frame(heard, sink)
        finally:
            self._hearing = False

    async def _give_up(
        self, sink: DriverSink, reason: str, *, top: int | None = None, owed: bool = False
    ) -> None:
        """Report the holes before the furthest position known as a gap, and pass on what came
        after them (the table keeps it until the holes are filled by hand, or a void). With
        `owed` (the device did not answer) the holes are still asked for."""
        assert self._pos is not None
        end = max([top or 0, *self._ahead])
        missing = [p for p in range(self._pos + 1, end + 1) if p not in self._ahead]
        if missing:
            await self._report_gap(sink, missing, reason)
            if owed:
                self._owed.update(missing)
        await self._pass_on_ahead(sink)
        self._pos = max(self._pos, end)

    async def _pass_on_ahead(self, sink: DriverSink) -> None:
        for pos in sorted(self._ahead):
            frame = self._ahead[pos]
            await self.emit(frame, self._at(frame, pos), sink)
            self._pos = max(self._pos or 0, pos)
        self._ahead = {}

    async def _report_gap(self, sink: DriverSink, missing: list[int] | None, reason: str) -> None:
        self.stats["gaps"] += 1
        after = self._pos or 0
        self._log.warning(f"{self.log_prefix}.gap", run=self._run, after=after, missing=missing)
        event: dict[str, Any] = {
            "type": "device.gap",
            "device": self.name,
            "after": after,
            "missing": missing,
            "reason": reason,
        }
        if self._run is not None:
            event["run"] = self._run
        await sink.event(event)
