"""An in-memory null-modem cable for driver tests, with a hook that fragments writes.

`NullModem.connect` has the shape of `serial_asyncio_fast.create_serial_connection` (minus the
loop), so a driver under test opens it like a serial port while the test writes the device's
bytes into the other end, chopped into whatever chunks the fragmenter chooses.
"""

from __future__ import annotations

import asyncio
import errno
import random
from collections.abc import Callable, Iterable
from typing import Any

Fragmenter = Callable[[bytes], Iterable[bytes]]
"""Split one write into the chunks the far end will receive (they must join back to the write)."""


def chunks_of(size: int) -> Fragmenter:
    """A fragmenter delivering every write in pieces of `size` bytes (the last may be shorter)."""
    if size < 1:
        raise ValueError("chunk size must be at least 1")

    def split(data: bytes) -> list[bytes]:
        return [data[i : i + size] for i in range(0, len(data), size)]

    return split


def random_chunks(seed: int | None = None, max_size: int = 4) -> Fragmenter:
    """A fragmenter delivering every write in random pieces of 1..`max_size` bytes."""
    rng = random.Random(seed)

    def split(data: bytes) -> list[bytes]:
        out, i = [], 0
        while i < len(data):
            n = rng.randint(1, max_size)
            out.append(data[i : i + n])
            i += n
        return out

    return split


class NullModemTransport(asyncio.Transport):
    """One end of the cable: `write` delivers to the peer's protocol on later loop iterations."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol: asyncio.Protocol,
        fragment: Fragmenter | None = None,
    ) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._fragment = fragment
        self.peer: NullModemTransport | None = None
        self._closing = False
        self._paused = False
        self._held: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Send `data` to the peer, split by the fragmenter; ignored once closed."""
        if self._closing or self.peer is None:
            return
        data = bytes(data)
        pieces = list(self._fragment(data)) if self._fragment else [data]
        if b"".join(pieces) != data:
            raise ValueError("the fragmenter must return pieces that join back to the write")
        for piece in pieces:
            if piece:
                self._loop.call_soon(self.peer._receive, piece)

    def _receive(self, data: bytes) -> None:
        if self._closing:
            return
        if self._paused or self._held:
            self._held.append(data)
        else:
            self._protocol.data_received(data)

    def pause_reading(self) -> None:
        self._paused = True

    def resume_reading(self) -> None:
        self._paused = False
        while self._held and not self._paused and not self._closing:
            self._protocol.data_received(self._held.pop(0))

    def is_reading(self) -> bool:
        return not self._paused

    def close(self) -> None:
        """Pull the cable: both ends see connection_lost after data already in flight."""
        self._close()
        if self.peer is not None:
            self.peer._close()

    def abort(self) -> None:
        self.close()

    def _close(self) -> None:
        if not self._closing:
            self._closing = True
            self._loop.call_soon(self._protocol.connection_lost, None)

    def is_closing(self) -> bool:
        return self._closing

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def can_write_eof(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0


def null_modem_pair(
    loop: asyncio.AbstractEventLoop,
    a: asyncio.Protocol,
    b: asyncio.Protocol,
    *,
    fragment_a_to_b: Fragmenter | None = None,
    fragment_b_to_a: Fragmenter | None = None,
) -> tuple[NullModemTransport, NullModemTransport]:
    """Connect protocols `a` and `b`; each gets connection_made on the next loop iteration."""
    ta = NullModemTransport(loop, a, fragment_a_to_b)
    tb = NullModemTransport(loop, b, fragment_b_to_a)
    ta.peer, tb.peer = tb, ta
    loop.call_soon(a.connection_made, ta)
    loop.call_soon(b.connection_made, tb)
    return ta, tb


class DeviceEnd(asyncio.Protocol):
    """The device's end of a NullModem: keeps what the host wrote."""

    def __init__(self) -> None:
        self.received = bytearray()

    def data_received(self, data: bytes) -> None:
        self.received += data


class NullModem:
    """A pluggable in-memory cable: pass `connect` to a driver, write device bytes with `write`.

    `unplug()` drops the current connection and makes new `connect` calls fail as an absent
    device node would; `plug()` lets them succeed again.
    """

    def __init__(self, *, fragment: Fragmenter | None = None) -> None:
        self.fragment = fragment
        self.plugged = True
        self.connections = 0
        self.host: NullModemTransport | None = None
        self.device: NullModemTransport | None = None
        self.device_end = DeviceEnd()

    async def connect(
        self, factory: Callable[[], asyncio.Protocol], url: str, baud: int
    ) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
        """Open the host end like `create_serial_connection(loop, factory, url, baudrate=baud)`."""
        if not self.plugged:
            raise FileNotFoundError(errno.ENOENT, "no such device (null modem unplugged)", url)
        protocol = factory()
        self.device_end = DeviceEnd()
        self.host, self.device = null_modem_pair(
            asyncio.get_running_loop(), protocol, self.device_end, fragment_b_to_a=self.fragment
        )
        self.connections += 1
        return self.host, protocol

    def write(self, data: bytes) -> None:
        """Write `data` from the device end (fragmented on the way to the host)."""
        if self.device is None or self.device.is_closing():
            raise ConnectionError("nothing is connected to the null modem")
        self.device.write(data)

    def unplug(self) -> None:
        """Drop the connection; the host sees connection_lost and cannot reconnect until plug()."""
        self.plugged = False
        if self.device is not None:
            self.device.close()

    def plug(self) -> None:
        """Let the next connect succeed."""
        self.plugged = True
