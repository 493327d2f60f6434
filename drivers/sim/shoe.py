"""A simulated card-reading shoe on a real pseudo-terminal, speaking docs/protocols/shoe.md.

The real ShoeDriver opens `SimulatedShoe().port` like any serial device. `ShoeModel` is the same
shoe without I/O (it hands frame bytes to a callback), for null-modem tests.
Run `python -m drivers.sim.shoe --decks 8 --seed 1` for an interactive shoe on a terminal.
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
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

from drivers.shoe.frames import (
    SEQ_MODULO,
    CardBurned,
    CardDrawn,
    Fault,
    FaultCleared,
    Frame,
    Heartbeat,
    NewShoe,
    ShoeEmpty,
    encode,
)
from tablectl.cards import Card, parse_card, standard_deck


class ShoeExhausted(IndexError):
    """draw() or burn() on a shoe with no cards left."""


class ShoeModel:
    """The shoe's side of the protocol without I/O: SEQ counter, cards in the shoe, frames out.

    Every method that transmits hands the encoded frame to `send`. Methods are thread-safe so the
    interactive simulator can send heartbeats from a timer thread.
    """

    def __init__(self, send: Callable[[bytes], None], *, seq: int = 0) -> None:
        self._send = send
        self._seq = seq % SEQ_MODULO
        self._cards: list[Card] = []  # next card last, so draw is a pop()
        self._last: bytes | None = None
        self._drop = 0
        self._lock = threading.RLock()

    @property
    def remaining(self) -> int:
        """Cards left in the shoe."""
        return len(self._cards)

    @property
    def next_seq(self) -> int:
        """The SEQ the next frame will carry."""
        return self._seq

    def _emit(self, make: Callable[[int], Frame]) -> None:
        with self._lock:
            seq, self._seq = self._seq, (self._seq + 1) % SEQ_MODULO
            data = encode(make(seq))
            self._last = data
            if self._drop:
                self._drop -= 1
                return
            self._send(data)

    def new_shoe(self, decks: int = 8, seed: int | None = None) -> None:
        """Shuffle `decks` 52-card decks with random.Random(seed), insert them, send NEW."""
        if decks < 1:
            raise ValueError("a shoe holds at least one deck")
        cards = list(standard_deck()) * decks
        random.Random(seed).shuffle(cards)
        with self._lock:
            self._cards = cards[::-1]
            self._emit(NewShoe)

    def load(self, cards: Iterable[str], *, announce: bool = True) -> None:
        """Insert a shoe holding exactly `cards` in draw order; send NEW unless `announce=False`."""
        parsed = [parse_card(c) for c in cards]
        with self._lock:
            self._cards = parsed[::-1]
            if announce:
                self._emit(NewShoe)

    def _take(self) -> Card:
        if not self._cards:
            raise ShoeExhausted("the shoe is empty: load() or new_shoe() first")
        return self._cards.pop()

    def draw(self) -> str:
        """Draw the next card and send CRD; return its code."""
        with self._lock:
            card = self._take()
            self._emit(lambda seq: CardDrawn(seq, card))
        return str(card)

    def burn(self) -> str:
        """Draw the next card as a burn and send BRN; return its code."""
        with self._lock:
            card = self._take()
            self._emit(lambda seq: CardBurned(seq, card))
        return str(card)

    def fault(self, code: str, text: str = "") -> None:
        """Send FLT with `code` (JAM, MISREAD, COVER, ...) and optional text."""
        self._emit(lambda seq: Fault(seq, code, text))

    def clear(self) -> None:
        """Send CLR: the fault is gone."""
        self._emit(FaultCleared)

    def empty(self) -> None:
        """Send EMP: cut card reached or no cards left."""
        self._emit(ShoeEmpty)

    def heartbeat(self) -> None:
        """Send HBT."""
        self._emit(Heartbeat)

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


class SimulatedShoe(ShoeModel):
    """A ShoeModel on a real pty: `.port` is the slave's path, which the real driver opens.

    A writer thread puts frames on the line, so writes never block the event loop. With
    `fragment=True` each write goes out in random 1..`max_chunk`-byte pieces with a short pause
    between them, so the driver really receives partial frames. `close()` is the unplug: the
    master side closes and the port vanishes.
    """

    def __init__(
        self,
        *,
        fragment: bool = False,
        max_chunk: int = 4,
        chunk_delay: float = 0.0005,
        seed: int | None = None,
        seq: int = 0,
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
        super().__init__(self._enqueue, seq=seq)
        self._thread = threading.Thread(target=self._writer, name=f"sim-shoe {self.port}")
        self._thread.daemon = True
        self._thread.start()

    def _enqueue(self, data: bytes) -> None:
        if self._closed:
            raise RuntimeError("the simulated shoe is closed (unplugged)")
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
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> SimulatedShoe:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- interactive simulator for technicians ---------------------------------------------------------

_HELP = """commands:
  draw [N]            draw N cards (default 1)       burn            burn a card
  new [DECKS]         shuffle and insert a new shoe  empty           send EMP (cut card)
  fault CODE [TEXT]   send FLT (JAM MISREAD COVER)   clear           send CLR
  hbt                 send a heartbeat               drop            lose the next frame
  dup                 retransmit the last frame      raw TEXT        send bytes (\\r \\xNN ok)
  status              cards left and next SEQ        quit            unplug and exit"""


def _command(shoe: SimulatedShoe, line: str, decks: int, seed: int | None) -> str | None:
    """Run one command line; return the text to print, or None to quit."""
    word, _, rest = line.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("quit", "exit", "q"):
        return None
    if word == "draw":
        n = int(rest or "1")
        return " ".join(shoe.draw() for _ in range(n))
    if word == "burn":
        return f"burned {shoe.burn()}"
    if word == "new":
        shoe.new_shoe(int(rest) if rest else decks, seed)
        return f"new shoe: {shoe.remaining} cards"
    if word == "fault":
        code, _, text = rest.partition(" ")
        shoe.fault(code.upper() or "JAM", text.strip())
        return f"fault {code.upper() or 'JAM'}"
    simple: dict[str, Callable[[], None]] = {
        "clear": shoe.clear,
        "empty": shoe.empty,
        "hbt": shoe.heartbeat,
        "drop": shoe.drop_next,
        "dup": shoe.duplicate_last,
    }
    if word in simple:
        simple[word]()
        return "ok"
    if word == "raw":
        shoe.write_raw(codecs.escape_decode(rest.encode("latin-1"))[0])
        return "ok"
    if word == "status":
        return f"{shoe.remaining} cards left, next SEQ {shoe.next_seq}, port {shoe.port}"
    return _HELP


def main(argv: list[str] | None = None) -> int:
    """Interactive shoe: print the port path, then obey commands read from stdin."""
    parser = argparse.ArgumentParser(
        prog="python -m drivers.sim.shoe", description="Simulated card-reading shoe on a pty."
    )
    parser.add_argument("--decks", type=int, default=8, help="decks per shoe (default 8)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default random)")
    parser.add_argument("--fragment", action="store_true", help="send frames in small pieces")
    parser.add_argument("--link", type=Path, help="also make this symlink to the pty")
    parser.add_argument(
        "--heartbeat", type=float, default=0.0, help="send HBT every N seconds (default off)"
    )
    args = parser.parse_args(argv)
    with SimulatedShoe(fragment=args.fragment, seed=args.seed) as shoe:
        if args.link:
            with contextlib.suppress(FileNotFoundError):
                args.link.unlink()
            args.link.symlink_to(shoe.port)
        shoe.new_shoe(args.decks, args.seed)
        print(args.link or shoe.port, flush=True)
        stop = threading.Event()
        if args.heartbeat > 0:

            def beat() -> None:
                while not stop.wait(args.heartbeat):
                    with contextlib.suppress(RuntimeError):
                        shoe.heartbeat()

            threading.Thread(target=beat, daemon=True).start()
        try:
            for line in sys.stdin:
                if not line.strip():
                    continue
                try:
                    out = _command(shoe, line, args.decks, args.seed)
                except (ValueError, IndexError, RuntimeError) as exc:
                    out = f"error: {exc}"
                if out is None:
                    break
                print(out, flush=True)
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            if args.link:
                with contextlib.suppress(OSError):
                    args.link.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
