"""`HistoryModel`: a simulated device that keeps what it reported and answers a resend (RSN).

Real intelligent shoes, shufflers and dice cups keep a log of the current shoe or shuffle. The
simulators keep one too: every positioned message and run start they transmit, for the current
and the previous run (the dice cup: its latest rolls). `resend` answers RSN as
tablectl_drivers/resend.py says: RSB, the history again under fresh SEQs, RSE, then the fault state.
`forget()` is the device losing its history (a power cycle); a position the device consumed
without reporting (a misread card) is simply absent from it, so a resend cannot fill it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator

from tablectl_drivers.envelope import SEQ_MODULO, BadFrame, encode
from tablectl_drivers.messages import Fault, FaultCleared, Message
from tablectl_drivers.resend import HOST_MESSAGES, ResendBegin, ResendEnd, ResendRequest
from tablectl_drivers.sim.device import DeviceModel

__all__ = ["HistoryModel", "nothing_to_resend", "resend_requests"]


class HistoryModel(DeviceModel):
    """A DeviceModel with a history and the resend exchange; subclasses say what a run start
    and a position are (`run_of`, `pos_of`) and where the device stands (`place`)."""

    runs_kept = 2
    """Runs (shoes, shuffles) kept in the history: the current one and the one before."""
    positions_kept = 2000
    """For a device without runs (the dice cup): how many of its latest positions are kept."""

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0) -> None:
        self._history: list[Message] = []
        self._standing: Fault | None = None
        self._host = bytearray()
        self.resends_answered = 0
        self.answer_resends = True
        """False: the device ignores RSN (a device without the feature, or a hung one)."""
        super().__init__(send, seq=seq)

    # -- for subclasses -------------------------------------------------------------------------

    def run_of(self, message: Message) -> str | None:
        """The run `message` starts (a shoe's NEW, a shuffle's SHF), or None."""
        return None

    def pos_of(self, message: Message) -> int | None:
        """The position `message` reports at, or None."""
        return None

    def place(self) -> tuple[str | None, int]:
        """The run the device is in now and the last position it used in it (0: none)."""
        raise NotImplementedError

    # -- recording --------------------------------------------------------------------------------

    def transmit(self, make: Callable[[int], Message]) -> Message:
        """Transmit and remember: a run start or a position not yet in the history is kept (a
        message read twice is kept once, as the device dealt it once)."""
        with self._lock:
            message = super().transmit(make)
            self._remember(message)
            if isinstance(message, Fault):
                self._standing = message
            elif isinstance(message, FaultCleared):
                self._standing = None
            return message

    def _remember(self, message: Message) -> None:
        run = self.run_of(message)
        if run is not None:
            self._history.append(message)
            starts = [i for i, m in enumerate(self._history) if self.run_of(m) is not None]
            if len(starts) > self.runs_kept:
                del self._history[: starts[-self.runs_kept]]
            return
        pos = self.pos_of(message)
        if pos is None:
            return
        current = self._current_run_entries()
        if any(self.pos_of(m) == pos for m in current):
            return
        self._history.append(message)
        if self.run_of_history() is None and len(self._history) > self.positions_kept:
            del self._history[0]

    def _current_run_entries(self) -> list[Message]:
        starts = [i for i, m in enumerate(self._history) if self.run_of(m) is not None]
        return self._history[starts[-1] + 1 :] if starts else list(self._history)

    def run_of_history(self) -> str | None:
        """The run of the newest run start kept, or None (no runs kept, or a device without)."""
        for message in reversed(self._history):
            run = self.run_of(message)
            if run is not None:
                return run
        return None

    def forget(self) -> None:
        """Lose the history (a power cycle): a resend can then only say LOST."""
        with self._lock:
            self._history = []

    # -- the resend exchange ----------------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Bytes from the host: every complete RSN is answered; anything else is ignored."""
        self._host += data
        while True:
            consumed, item = HOST_MESSAGES.decode(self._host)
            if consumed == 0:
                return
            del self._host[:consumed]
            if isinstance(item, ResendRequest) and self.answer_resends:
                self.resend(item.run, item.start)
            elif isinstance(item, BadFrame):
                continue

    def resend(self, run: str | None, start: int) -> None:
        """Answer `RSN run,start`: RSB, the history from there on, RSE, the fault state."""
        with self._lock:
            lost, replay = self._replay(run, start)
            self.resends_answered += 1
            super().transmit(lambda seq: ResendBegin(seq, lost))
            for message in replay:
                super().transmit(_again(message))
            now_run, last = self.place()
            super().transmit(lambda seq: ResendEnd(seq, now_run, last))
            standing = self._standing
            if standing is not None:
                super().transmit(lambda seq: dataclasses.replace(standing, seq=seq))
            else:
                super().transmit(FaultCleared)

    def _replay(self, run: str | None, start: int) -> tuple[bool, list[Message]]:
        """(LOST?, what to send again) for a request from position `start` of `run`."""
        if start == 0:
            return False, []
        history = self._history
        starts = [i for i, m in enumerate(history) if self.run_of(m) is not None]
        if not starts:  # a device without runs: its latest positions
            kept = [m for m in history if (self.pos_of(m) or 0) >= start]
            first = min((self.pos_of(m) or 0 for m in history), default=None)
            return (first is None or first > start) and self._place_after(start), kept
        if run is None:
            run = self.run_of(history[starts[-1]])
        begin = next((i for i in starts if self.run_of(history[i]) == run), None)
        if begin is None:  # that run is gone: every run still held, the oldest first
            return True, history[starts[0] :]
        out: list[Message] = []
        later_run = False
        for message in history[begin + 1 :]:
            if self.run_of(message) is not None:
                later_run = True
            if later_run or (self.pos_of(message) or 0) >= start:
                out.append(message)
        return False, out

    def _place_after(self, start: int) -> bool:
        """Whether the device has used position `start` or later (else nothing is lost)."""
        return self.place()[1] >= start


def _again(message: Message) -> Callable[[int], Message]:
    """`message` as sent again under a fresh SEQ."""
    return lambda seq: dataclasses.replace(message, seq=seq)


def nothing_to_resend(first_seq: int, run: str | None, last: int) -> bytes:
    """A device's whole answer to an RSN when it has nothing to send again (RSB OK, RSE at
    `run`/`last`, CLR), under SEQs `first_seq`, +1, +2: for stand-ins that play bytes rather
    than keep a history (a benchmark's bare shoe, a recorded scenario)."""
    answers: list[Message] = [
        ResendBegin(first_seq % SEQ_MODULO, False),
        ResendEnd((first_seq + 1) % SEQ_MODULO, run, last),
        FaultCleared((first_seq + 2) % SEQ_MODULO),
    ]
    return b"".join(encode(m.to_envelope()) for m in answers)


def resend_requests(fd: int) -> Iterator[ResendRequest]:
    """Every RSN the host writes to the pty master `fd`, until it is closed."""
    buf = bytearray()
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            return
        if not data:
            return
        buf += data
        while (found := HOST_MESSAGES.decode(buf))[0]:
            del buf[: found[0]]
            if isinstance(found[1], ResendRequest):
                yield found[1]
