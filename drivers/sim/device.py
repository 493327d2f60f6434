"""Simulated envelope devices: `DeviceModel` (no I/O) and `SimulatedDevice` (on a real pty).

A device class's simulator subclasses `DeviceModel` with its own actions (each one `transmit`s a
message) and gets SEQ numbering, the common FLT/CLR/HBT and wire faults (drops, retransmissions,
raw bytes) from here; the same class mixed with `SimulatedDevice` runs on a pseudo-terminal that
the real driver opens like a serial port. `run_interactive` is the technicians' console.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import queue
import random
import select
import sys
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from drivers.envelope import SEQ_MODULO, encode
from drivers.messages import Fault, FaultCleared, Heartbeat, Message

__all__ = [
    "COMMON_HELP",
    "DeviceModel",
    "SimulatedDevice",
    "common_command",
    "run_interactive",
    "sim_argument_parser",
]


class DeviceModel:
    """A device's side of the protocol without I/O: SEQ counter and frames out to `send`.

    Methods are thread-safe (an interactive simulator sends heartbeats from a timer thread);
    subclasses hold `self._lock` around any action that changes their own state and transmits.
    """

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0) -> None:
        self._send = send
        self._seq = seq % SEQ_MODULO
        self._last: bytes | None = None
        self._drop = 0
        self._lock = threading.RLock()

    @property
    def next_seq(self) -> int:
        """The SEQ the next frame will carry."""
        return self._seq

    def transmit(self, make: Callable[[int], Message]) -> Message:
        """Build a message with the next SEQ (`make(seq)`), encode and send it; return it."""
        with self._lock:
            message = make(self._seq)
            data = encode(message.to_envelope())
            self._seq = (self._seq + 1) % SEQ_MODULO
            self._last = data
            if self._drop:
                self._drop -= 1
            else:
                self._send(data)
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
        with self._lock:
            self._drop += count

    def duplicate_last(self) -> None:
        """Retransmit the last frame byte for byte (same SEQ)."""
        with self._lock:
            if self._last is None:
                raise RuntimeError("no frame has been sent yet")
            self._send(self._last)


class SimulatedDevice(DeviceModel):
    """A DeviceModel on a real pty: `.port` is the slave's path, which the real driver opens.

    Mix it in before a device's model (`class SimulatedShoe(SimulatedDevice, ShoeModel)`). A writer
    thread puts frames on the line, so writes never block the event loop. With `fragment=True`
    each write goes out in random 1..`max_chunk`-byte pieces with a short pause between them, so
    the driver really receives partial frames. A reader thread hands what the host writes to
    `receive()`. `close()` is the unplug: the port vanishes.
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
        **model: Any,
    ) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)
        """The pty slave's path (e.g. /dev/pts/7): give it to the driver."""
        self.fragment = fragment
        self._max_chunk = max_chunk
        self._chunk_delay = chunk_delay
        self._rng = random.Random(seed)
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._closed = False
        self._stop = threading.Event()
        super().__init__(self._enqueue, seq=seq, **model)
        name = f"sim-{type(self).__name__} {self.port}"
        self._thread = threading.Thread(target=self._writer, name=name, daemon=True)
        self._thread.start()
        self._reader_thread = threading.Thread(target=self._reader, name=f"{name} rx", daemon=True)
        self._reader_thread.start()

    def _enqueue(self, data: bytes) -> None:
        if self._closed:
            raise RuntimeError(f"the {type(self).__name__} is closed (unplugged)")
        self._queue.put(data)

    def _writer(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                if self.fragment:
                    i = 0
                    while i < len(item):
                        n = self._rng.randint(1, self._max_chunk)
                        self._write_all(item[i : i + n])
                        i += n
                        time.sleep(self._chunk_delay)
                else:
                    self._write_all(item)
            except OSError:
                return  # the master was closed under us: unplugged
            finally:
                self._queue.task_done()

    def _reader(self) -> None:
        """Hand every chunk the host writes to `receive()` until the device is unplugged."""
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._master], [], [], 0.05)
                if not ready:
                    continue
                data = os.read(self._master, 4096)
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                return  # the master was closed under us: unplugged
            if not data:
                return
            try:
                self.receive(data)
            except RuntimeError:
                if self._closed:
                    return  # it answered just as it was unplugged
                raise

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view and not self._stop.is_set():
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                select.select([], [self._master], [], 0.05)
                continue
            view = view[n:]

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until everything sent so far is on the line; False if `timeout` passed first."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._queue.all_tasks_done.wait(remaining)
        return True

    def close(self) -> None:
        """Unplug: flush what was sent (briefly), then close the pty so the port vanishes."""
        if self._closed:
            return
        self._closed = True
        self.flush(timeout=1.0)
        self._stop.set()
        self._queue.put(None)
        self._thread.join(timeout=1.0)
        self._reader_thread.join(timeout=1.0)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def closed(self) -> bool:
        return self._closed

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
  hbt                 send a heartbeat               drop            lose the next frame
  dup                 retransmit the last frame      raw TEXT        send bytes (\\r \\xNN ok)
  quit                unplug and exit"""
"""Help lines for the commands `common_command` runs, for a device's own help text."""


def common_command(device: DeviceModel, word: str, rest: str, default_fault: str) -> str | None:
    """Run a command every simulated device knows: the text to print, or None if it is not one."""
    if word == "fault":
        code, _, text = rest.partition(" ")
        code = code.upper() or default_fault
        device.fault(code, text.strip())
        return f"fault {code}"
    simple: dict[str, Callable[[], None]] = {
        "clear": device.clear,
        "hbt": device.heartbeat,
        "drop": device.drop_next,
        "dup": device.duplicate_last,
    }
    if word in simple:
        simple[word]()
        return "ok"
    if word == "raw":
        device.write_raw(codecs.escape_decode(rest.encode("latin-1"))[0])
        return "ok"
    return None


def sim_argument_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every interactive simulator takes."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--fragment", action="store_true", help="send frames in small pieces")
    parser.add_argument("--link", type=Path, help="also make this symlink to the pty")
    parser.add_argument(
        "--heartbeat", type=float, default=0.0, help="send HBT every N seconds (default off)"
    )
    return parser


def run_interactive(
    device: SimulatedDevice,
    command: Callable[[str], str | None],
    *,
    link: Path | None = None,
    heartbeat: float = 0.0,
) -> None:
    """Print the port (or `link`, made to point at it), then obey stdin lines until EOF or quit.

    `command(line)` returns the text to print, or None to quit; ValueError, IndexError and
    RuntimeError are printed as errors. Heartbeats go out every `heartbeat` s if it is > 0.
    """
    if link:
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(device.port)
    print(link or device.port, flush=True)
    stop = threading.Event()
    if heartbeat > 0:

        def beat() -> None:
            while not stop.wait(heartbeat):
                with contextlib.suppress(RuntimeError):
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
        if link:
            with contextlib.suppress(OSError):
                link.unlink()
