"""Simulated envelope devices: `DeviceModel` (no I/O) and `SimulatedDevice` (on a real pty).

A device class's simulator subclasses `DeviceModel` with its own actions (each one `transmit`s a
message) and gets SEQ numbering, the common FLT/CLR/HBT and the wire fault switches from here:
dropped, garbled and retransmitted frames, a message read twice (`repeat_last`), raw bytes; the
same class mixed with `SimulatedDevice` runs on a pseudo-terminal that the real driver opens like a
serial port, and can be unplugged and plugged in again behind a stable symlink. The switches are
the faults a real device shows (docs/protocols/). `run_interactive` is the technicians' console.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import dataclasses
import os
import queue
import random
import select
import sys
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tablectl_drivers.envelope import SEQ_MODULO, encode
from tablectl_drivers.messages import Fault, FaultCleared, Heartbeat, Message
from tablectl_drivers.sim.pty_numbers import hold_number

__all__ = [
    "COMMON_HELP",
    "DeviceModel",
    "SimulatedDevice",
    "common_command",
    "garble",
    "run_interactive",
    "sim_argument_parser",
]

_DOLLAR = 0x24  # "$": a byte that would start a new frame, so garbling never makes one


def garble(frame: bytes) -> bytes:
    """`frame` as line noise leaves it: the last byte before `*` has its lowest bit flipped.

    One changed body byte always changes the XOR checksum (docs/protocols/envelope.md), so the
    receiver sees "checksum mismatch" and nothing else. If the flip would make a `$` (a new
    frame) or a byte outside printable ASCII, the next bit is flipped instead.
    """
    star = frame.rindex(b"*")
    i = star - 1
    flipped = frame[i] ^ 0x01
    if flipped == _DOLLAR or not 0x20 <= flipped <= 0x7E:
        flipped = frame[i] ^ 0x02
    return frame[:i] + bytes([flipped]) + frame[i + 1 :]


class DeviceModel:
    """A device's side of the protocol without I/O: SEQ counter and frames out to `send`.

    Methods are thread-safe (an interactive simulator sends heartbeats from a timer thread);
    subclasses hold `self._lock` around any action that changes their own state and transmits.
    A frame whose `send` raises (the device is unplugged) did not happen: its SEQ is not used.
    """

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0) -> None:
        self._send = send
        self._seq = seq % SEQ_MODULO
        self._last: bytes | None = None
        self._last_message: Message | None = None
        self._drop = 0
        self._garble = 0
        self._lock = threading.RLock()

    @property
    def next_seq(self) -> int:
        """The SEQ the next frame will carry."""
        return self._seq

    @property
    def last_message(self) -> Message | None:
        """The last message transmitted (sent, dropped or garbled on the wire), or None."""
        return self._last_message

    def transmit(self, make: Callable[[int], Message]) -> Message:
        """Build a message with the next SEQ (`make(seq)`), encode and send it; return it.

        A pending `drop_next` loses it on the wire, a pending `garble_next` corrupts it; either
        way its SEQ is used, as on a real line.
        """
        with self._lock:
            message = make(self._seq)
            data = encode(message.to_envelope())
            if self._drop:
                self._drop -= 1
            elif self._garble:
                self._send(garble(data))
                self._garble -= 1
            else:
                self._send(data)
            self._seq = (self._seq + 1) % SEQ_MODULO
            self._last, self._last_message = data, message
            return message

    def fault(self, code: str, text: str = "") -> None:
        """Send FLT with `code` (e.g. JAM) and optional text."""
        self.transmit(lambda seq: Fault(seq, code, text))

    def clear(self) -> None:
        """Send CLR: the fault is gone."""
        self.transmit(FaultCleared)

    def heartbeat(self) -> None:
        """Send HBT."""
        self.transmit(Heartbeat)

    def receive(self, data: bytes) -> None:
        """Bytes the host wrote to the device; a device that only talks ignores them.

        A device the host writes to (a display) overrides this; on a pty it is called from the
        reader thread with each chunk as it arrives.
        """

    def write_raw(self, data: bytes) -> None:
        """Put arbitrary bytes on the line (garbage, hand-made frames)."""
        with self._lock:
            self._send(bytes(data))

    def drop_next(self, count: int = 1) -> None:
        """Lose the next `count` frames on the wire: their SEQ is used but nothing is sent."""
        _check_count(count)
        with self._lock:
            self._drop += count

    def garble_next(self, count: int = 1) -> None:
        """Corrupt the next `count` frames this device transmits (see `garble`): their SEQ is
        used and their bytes arrive, but the checksum fails, so the receiver counts a bad frame.

        Applies to frames from `transmit` (every device action and `repeat_last`), not to
        `write_raw` or `duplicate_last` bytes; a frame `drop_next` loses is not garbled.
        """
        _check_count(count)
        with self._lock:
            self._garble += count

    def duplicate_last(self) -> None:
        """Retransmit the last frame byte for byte (same SEQ): the driver drops it as a repeat.

        The frame as the device built it, even if the line garbled or lost the first copy.
        """
        with self._lock:
            if self._last is None:
                raise RuntimeError("no frame has been sent yet")
            self._send(self._last)

    def repeat_last(self, count: int = 1) -> list[Message]:
        """Send the last message again `count` times, each under a NEW SEQ; return them.

        Unlike `duplicate_last` (a retransmission the driver drops), this is the device reading
        the same thing twice: a duplicate card, stack or roll that reaches the game engine, which
        refuses a card the configured deck cannot hold (DESIGN contract 1).
        """
        _check_count(count)
        with self._lock:
            last = self._last_message
            if last is None:
                raise RuntimeError("no message has been sent yet")
            return [
                self.transmit(lambda seq: dataclasses.replace(last, seq=seq)) for _ in range(count)
            ]


def _check_count(count: int) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"a count of frames is a whole number >= 1, not {count!r}")


@dataclass
class _Plug:
    """One plugged-in period of a SimulatedDevice: its pty pair, line queue and threads."""

    master: int
    slave: int
    port: str
    queue: queue.Queue[bytes | None] = field(default_factory=queue.Queue)
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)


class SimulatedDevice(DeviceModel):
    """A DeviceModel on a real pty: `.port` is the slave's path, which the real driver opens.

    Mix it in before a device's model (`class SimulatedShoe(SimulatedDevice, ShoeModel)`). A writer
    thread puts frames on the line, so writes never block the event loop. With `fragment=True`
    each write goes out in random 1..`max_chunk`-byte pieces with a short pause between them, so
    the driver really receives partial frames. A reader thread hands what the host writes to
    `receive()`. `unplug()` (or `close()`) makes the port vanish; `replug()` brings the device
    back on a fresh pty with its SEQ carrying on. With `link` the emulator keeps a symlink at that
    path pointing at its pty (give the driver the link: it stays the same across a replug, like a
    udev name), removed while unplugged.
    Other keyword arguments go to the model's constructor (e.g. the dice cup's `dice`).
    """

    def __init__(
        self,
        *,
        fragment: bool = False,
        max_chunk: int = 4,
        chunk_delay: float = 0.0005,
        seed: int | None = None,
        seq: int = 0,
        link: str | os.PathLike[str] | None = None,
        **model: Any,
    ) -> None:
        self.fragment = fragment
        self._max_chunk = max_chunk
        self._chunk_delay = chunk_delay
        self._rng = random.Random(seed)
        self._link = Path(link) if link is not None else None
        if self._link is not None and self._link.exists() and not self._link.is_symlink():
            raise FileExistsError(f"{self._link} exists and is not a symlink: not replacing it")
        self._plug: _Plug | None = None
        self._port = ""
        super().__init__(self._enqueue, seq=seq, **model)
        self._plug_in()

    @property
    def port(self) -> str:
        """The pty slave's path now (e.g. /dev/pts/7; the last one while unplugged)."""
        return self._port

    @property
    def link(self) -> Path | None:
        """The stable symlink to the pty, if the emulator was given one."""
        return self._link

    @property
    def closed(self) -> bool:
        """Whether the device is unplugged (closed) now."""
        return self._plug is None

    # -- plugging ---------------------------------------------------------------------------------

    def _plug_in(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        plug = _Plug(master, slave, os.ttyname(slave))
        name = f"sim-{type(self).__name__} {plug.port}"
        plug.threads = [
            threading.Thread(target=self._writer, args=(plug,), name=name, daemon=True),
            threading.Thread(target=self._reader, args=(plug,), name=f"{name} rx", daemon=True),
        ]
        with self._lock:
            self._plug, self._port = plug, plug.port
        for thread in plug.threads:
            thread.start()
        if self._link is not None:
            temp = self._link.with_name(f".{self._link.name}.{os.getpid()}.tmp")
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            temp.symlink_to(plug.port)
            os.replace(temp, self._link)  # atomic: the link is never missing while plugged

    def unplug(self) -> None:
        """The port vanishes: flush what was sent (briefly), close the pty, remove the link.

        Sending raises RuntimeError until `replug()`; nothing sent meanwhile uses a SEQ.
        """
        with self._lock:
            plug, self._plug = self._plug, None
        if plug is None:
            return
        if self._link is not None:
            with contextlib.suppress(FileNotFoundError):
                self._link.unlink()
        self._flush(plug, timeout=1.0)
        plug.stop.set()
        plug.queue.put(None)
        for thread in plug.threads:
            thread.join(timeout=1.0)
        with contextlib.suppress(OSError):
            os.close(plug.master)  # the path is gone now
        hold_number(plug.slave)  # and its number stays taken a while (pty_numbers.py)

    def replug(self) -> str:
        """Plug in again: a fresh pty (the link re-pointed at it), SEQ carrying on; its port.

        RuntimeError if the device is plugged in.
        """
        if self._plug is not None:
            raise RuntimeError(f"the {type(self).__name__} is plugged in: unplug() first")
        self._plug_in()
        return self._port

    def close(self) -> None:
        """Unplug: the port vanishes (see `unplug`); `replug()` can bring it back."""
        self.unplug()

    # -- the line ---------------------------------------------------------------------------------

    def _enqueue(self, data: bytes) -> None:
        plug = self._plug
        if plug is None:
            raise RuntimeError(f"the {type(self).__name__} is closed (unplugged)")
        plug.queue.put(data)

    def _writer(self, plug: _Plug) -> None:
        while True:
            item = plug.queue.get()
            try:
                if item is None:
                    return
                if self.fragment:
                    i = 0
                    while i < len(item):
                        n = self._rng.randint(1, self._max_chunk)
                        self._write_all(plug, item[i : i + n])
                        i += n
                        time.sleep(self._chunk_delay)
                else:
                    self._write_all(plug, item)
            except OSError:
                return  # the master was closed under us: unplugged
            finally:
                plug.queue.task_done()

    def _reader(self, plug: _Plug) -> None:
        """Hand every chunk the host writes to `receive()` until this plug is pulled."""
        while not plug.stop.is_set():
            try:
                ready, _, _ = select.select([plug.master], [], [], 0.05)
                if not ready:
                    continue
                data = os.read(plug.master, 4096)
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                return  # the master was closed under us: unplugged
            if not data:
                return
            try:
                self.receive(data)
            except RuntimeError:
                if plug.stop.is_set() or self._plug is not plug:
                    return  # it answered just as it was unplugged
                raise

    def _write_all(self, plug: _Plug, data: bytes) -> None:
        view = memoryview(data)
        while view and not plug.stop.is_set():
            try:
                n = os.write(plug.master, view)
            except BlockingIOError:
                select.select([], [plug.master], [], 0.05)
                continue
            view = view[n:]

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything sent so far is on the line; False if `timeout` passed first."""
        plug = self._plug
        return True if plug is None else self._flush(plug, timeout)

    @staticmethod
    def _flush(plug: _Plug, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with plug.queue.all_tasks_done:
            while plug.queue.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                plug.queue.all_tasks_done.wait(remaining)
        return True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- interactive simulators for technicians --------------------------------------------------------

COMMON_HELP = """\
  fault CODE [TEXT]   send FLT                       clear           send CLR
  hbt                 send a heartbeat               raw TEXT        send bytes (\\r \\xNN ok)
  drop [N]            lose the next N frames         garble [N]      corrupt the next N frames
  dup                 retransmit the last frame (same SEQ: the driver drops it)
  repeat [N]          send the last message again N times, each a new SEQ (read twice)
  unplug              the port vanishes (link removed)
  replug              plug in again on a fresh pty, link re-pointed, SEQ carrying on
  quit                unplug and exit"""
"""Help lines for the commands `common_command` runs, for a device's own help text."""


def _count(rest: str) -> int:
    """The optional N of `drop`, `garble`, `repeat`: 1 when absent; ValueError if not >= 1."""
    count = int(rest) if rest else 1
    _check_count(count)
    return count


def common_command(device: DeviceModel, word: str, rest: str, default_fault: str) -> str | None:
    """Run a command every simulated device knows: the text to print, or None if it is not one."""
    if word == "fault":
        code, _, text = rest.partition(" ")
        code = code.upper() or default_fault
        device.fault(code, text.strip())
        return f"fault {code}"
    simple: dict[str, Callable[[], object]] = {
        "clear": device.clear,
        "hbt": device.heartbeat,
        "dup": device.duplicate_last,
        "drop": lambda: device.drop_next(_count(rest)),
        "garble": lambda: device.garble_next(_count(rest)),
        "repeat": lambda: device.repeat_last(_count(rest)),
    }
    if word in simple:
        simple[word]()
        return "ok"
    if word == "raw":
        device.write_raw(codecs.escape_decode(rest.encode("latin-1"))[0])
        return "ok"
    if word in ("unplug", "replug"):
        if not isinstance(device, SimulatedDevice):
            raise RuntimeError(f"a {type(device).__name__} has no port to unplug")
        if word == "unplug":
            device.unplug()
            return "unplugged"
        return f"replugged {device.replug()}"
    return None


def sim_argument_parser(prog: str, description: str, commands: str = "") -> argparse.ArgumentParser:
    """An argument parser with the options every interactive simulator takes.

    `commands` (the simulator's command help) is shown after the options by `--help`.
    """
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=f"on stdin, {commands}" if commands else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--fragment", action="store_true", help="send frames in small pieces")
    parser.add_argument(
        "--link", type=Path, help="keep this symlink pointing at the pty (across unplug/replug)"
    )
    parser.add_argument(
        "--heartbeat", type=float, default=0.0, help="send HBT every N seconds (default off)"
    )
    return parser


def run_interactive(
    device: SimulatedDevice,
    command: Callable[[str], str | None],
    *,
    heartbeat: float = 0.0,
) -> None:
    """Print the device's link (or its port), then obey stdin lines until EOF or quit.

    `command(line)` returns the text to print, or None to quit; ValueError, IndexError and
    RuntimeError are printed as errors. Heartbeats go out every `heartbeat` s if it is > 0
    (none while the device is unplugged).
    """
    print(device.link or device.port, flush=True)
    stop = threading.Event()
    if heartbeat > 0:

        def beat() -> None:
            while not stop.wait(heartbeat):
                with contextlib.suppress(RuntimeError):  # unplugged: a real device's beat is lost
                    device.heartbeat()

        threading.Thread(target=beat, daemon=True).start()
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                out = command(line)
            except (ValueError, IndexError, RuntimeError) as exc:
                out = f"error: {exc}"
            if out is None:
                break
            print(out, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
