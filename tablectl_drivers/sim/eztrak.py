"""A simulated EZTRAK LCD speaking docs/protocols/eztrak.md from the display's side.

`EztrakModel` is the display without I/O: feed it the host's bytes (`receive`) and it decodes
them with the real message set, assembles screens with the real `ScreenAssembler`, shows and
ACKs a complete one, NAKs a broken one. `SimulatedEztrak` is the same display on a pty that the
real EztrakDisplayDriver opens. Run `python -m tablectl_drivers.sim.eztrak` to watch screens as
text.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from tablectl_drivers.envelope import BadFrame
from tablectl_drivers.eztrak.messages import HOST_MESSAGES, ROAD_CODES, Ack, Nak, Ready
from tablectl_drivers.eztrak.render import ScreenAssembler, Verdict, frame_body
from tablectl_drivers.messages import CommonMessage
from tablectl_drivers.sim.device import (
    COMMON_HELP,
    DeviceModel,
    SimulatedDevice,
    common_command,
    run_interactive,
    sim_argument_parser,
)

__all__ = ["EztrakModel", "SimulatedEztrak", "format_screen", "main"]

ScreenCallback = Callable[[dict[str, Any]], None]


class EztrakModel(DeviceModel):
    """The display's side without I/O: assembles the host's screens and answers them.

    `.screen` is the screen shown now (None while blank), `.screens` every screen committed.
    Switches: `acking = False` (it still shows screens but answers nothing: NO_ACK on the
    host), `nak_next(reason)`, `restart()` (blank, sends RDY); `bad_frames` counts what did not
    decode. `on_screen` is called (on the receiving thread) with each committed screen.
    """

    def __init__(
        self,
        send: Callable[[bytes], None],
        *,
        seq: int = 0,
        on_screen: ScreenCallback | None = None,
    ) -> None:
        super().__init__(send, seq=seq)
        self._changed = threading.Condition(self._lock)
        self._rx = bytearray()
        self._assembler = ScreenAssembler()
        self._nak_queue: list[str] = []
        self._on_screen = on_screen
        self._screen: dict[str, Any] | None = None
        self.screens: list[dict[str, Any]] = []
        """Every screen committed, oldest first."""
        self.verdicts: list[Verdict] = []
        """What the display decided at every END, in order (including refusals)."""
        self.acking = True
        """False: show screens but send no ACK or NAK (a dead transmit line, a hung display)."""
        self.bad_frames = 0
        """Bytes from the host that were not a valid frame of the host's protocol."""

    @property
    def screen(self) -> dict[str, Any] | None:
        """The screen shown now: the last one committed, or None while blank."""
        with self._lock:
            return self._screen

    @property
    def strays(self) -> int:
        """Screen frames that came with no SHO before them."""
        return self._assembler.strays

    def nak_next(self, reason: str = "BUSY") -> None:
        """Refuse the next complete screen with `reason` instead of showing it."""
        with self._lock:
            self._nak_queue.append(reason)

    def restart(self) -> None:
        """Power-cycle: the screen goes blank, a half-received screen is lost, RDY is sent."""
        with self._lock:
            self._screen = None
            self._rx.clear()
            self._assembler = ScreenAssembler()
            self.transmit(Ready)
            self._changed.notify_all()

    def receive(self, data: bytes) -> None:
        """Bytes from the host: decode every complete frame and act on each END."""
        with self._lock:
            self._rx += data
            while True:
                consumed, item = HOST_MESSAGES.decode(self._rx)
                if consumed == 0:
                    break
                line = bytes(self._rx[:consumed])
                del self._rx[:consumed]
                if isinstance(item, BadFrame):
                    self.bad_frames += 1
                elif item is not None and not isinstance(item, CommonMessage):
                    verdict = self._assembler.feed(item, frame_body(line))
                    if verdict is not None:
                        self._decide(verdict)
            self._changed.notify_all()

    def _decide(self, verdict: Verdict) -> None:
        if verdict.screen is not None and self._nak_queue:
            verdict = Verdict(verdict.screen_id, None, self._nak_queue.pop(0))
        self.verdicts.append(verdict)
        if verdict.screen is not None:
            self._screen = verdict.screen
            self.screens.append(verdict.screen)
            if self._on_screen is not None:
                self._on_screen(verdict.screen)
        if not self.acking:
            return
        screen_id, reason = verdict.screen_id, verdict.reason
        if reason is None:
            self.transmit(lambda seq: Ack(seq, screen_id))
        else:
            self.transmit(lambda seq: Nak(seq, screen_id, reason))

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Block until `predicate()` (checked after every chunk received) or `timeout`; its value.

        For tests on another thread, e.g. `await asyncio.to_thread(sim.wait_for, pred, 5)`.
        """
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True


class SimulatedEztrak(SimulatedDevice, EztrakModel):
    """An EztrakModel on a real pty: `.port` is the slave's path; `unplug()`, `replug()`.

    Takes SimulatedDevice's keyword arguments (`fragment`, `max_chunk`, `chunk_delay`, `seed`,
    `seq`, `link`) and the model's `on_screen`.
    """


# -- the screen as text --------------------------------------------------------------------------

_STAT_LABELS = {
    "player": "Player",
    "banker": "Banker",
    "tie": "Tie",
    "dragon7": "Dragon 7",
    "panda8": "Panda 8",
    "naturals": "Naturals",
    "player_naturals": "Player naturals",
    "banker_naturals": "Banker naturals",
}
_ROAD_LABELS = {
    "bead_plate": "Bead plate",
    "big_road": "Big road",
    "big_eye_boy": "Big eye boy",
    "small_road": "Small road",
    "cockroach_pig": "Cockroach pig",
}


def _cell(cell: Any) -> str:
    if isinstance(cell, Mapping):  # big road: lowercase for a natural, then the ties
        letter = str(cell["winner"])
        return (letter.lower() if cell["natural"] else letter) + (
            str(cell["ties"]) if cell["ties"] else ""
        )
    return str(cell)


def _grid(columns: list[list[Any]]) -> list[str]:
    """A road drawn as on the board: columns left to right, each top to bottom."""
    cells = [[_cell(c) for c in column] for column in columns]
    width = max((len(c) for column in cells for c in column), default=1)
    rows = max((len(column) for column in cells), default=0)
    return [
        " ".join((column[r] if r < len(column) else "").ljust(width) for column in cells).rstrip()
        for r in range(rows)
    ]


def format_screen(screen: Mapping[str, Any]) -> str:
    """The screen as a technician reads it: header, statistics side by side, the five roads."""
    limits = "  ".join(f"{k} {v}" for k, v in screen["limits"].items())
    timer = "off" if screen["bet_timer"] is None else f"{screen['bet_timer']} s"
    lines = [f"EZTRAK  shoe {screen['shoe']}  hands {screen['hands']}  {limits}  timer {timer}"]
    previous = screen["previous"]
    head = f"previous shoe ({previous['hands']} hands)" if previous else "no previous shoe"
    lines.append(f"{'':16} {'this shoe':>12}   {head}")
    for name, stat in screen["stats"].items():
        if name == "hands":
            continue
        label = _STAT_LABELS.get(name, name)
        now = f"{stat['count']:>4} {stat['pct']:>6}%"
        before = ""
        if previous and name in previous:
            before = f"{previous[name]['count']:>4} {previous[name]['pct']:>6}%"
        lines.append(f"{label:16} {now:>12}   {before}".rstrip())
    for name in ROAD_CODES:
        columns = screen["roads"][name]
        lines.append(f"{_ROAD_LABELS[name]}:" + ("" if columns else " (empty)"))
        lines += [f"  {row}" for row in _grid(columns)]
    return "\n".join(lines)


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = f"""commands:
  show                print the screen shown now     status          counts, next SEQ, port
  mute                stop answering (ACK/NAK)        unmute          answer again
  nak [REASON]        refuse the next screen          restart         go blank, send RDY
{COMMON_HELP}
fault codes: LCD BACKLIGHT OVERTEMP (default LCD)"""


def _command(display: SimulatedEztrak, line: str) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return None
    if word == "show":
        screen = display.screen
        return "(blank)" if screen is None else format_screen(screen)
    if word == "mute":
        display.acking = False
        return "muted"
    if word == "unmute":
        display.acking = True
        return "answering"
    if word == "nak":
        display.nak_next(rest.upper() or "BUSY")
        return "ok"
    if word == "restart":
        display.restart()
        return "blank, RDY sent"
    if word == "status":
        return (
            f"{len(display.screens)} screens, {display.bad_frames} bad frames, "
            f"next SEQ {display.next_seq}, port {display.port}"
        )
    out = common_command(display, word, rest, default_fault="LCD")
    return _HELP if out is None else out


def main(argv: list[str] | None = None) -> int:
    """Interactive display: print the port, then each committed screen; obey stdin commands."""
    parser = sim_argument_parser(
        "python -m tablectl_drivers.sim.eztrak", "Simulated EZTRAK LCD display on a pty.", _HELP
    )
    args = parser.parse_args(argv)

    def show(screen: dict[str, Any]) -> None:
        print(format_screen(screen), flush=True)

    with SimulatedEztrak(fragment=args.fragment, on_screen=show, link=args.link) as display:
        run_interactive(display, lambda line: _command(display, line), heartbeat=args.heartbeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
