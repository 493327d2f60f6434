"""The byte link every serial device driver reads: an asyncio.Protocol that queues received bytes.

It knows nothing of framing or meaning (tablectl_drivers/envelope.py and the drivers do). Opening
goes through a `Connector` with the shape of `serial_asyncio_fast.create_serial_connection`, so
tests can swap in a null modem (tablectl_drivers/sim/nullmodem.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import serial_asyncio_fast

__all__ = ["Connector", "Link", "LinkLostError", "ProtocolFactory", "open_link", "serial_connector"]

ProtocolFactory = Callable[[], asyncio.Protocol]
Connector = Callable[
    [ProtocolFactory, str, int], Awaitable[tuple[asyncio.BaseTransport, asyncio.Protocol]]
]
"""`connect(protocol_factory, url, baud) -> (transport, protocol)`."""


async def serial_connector(
    factory: ProtocolFactory, url: str, baud: int
) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
    """Open a device path, a /dev/serial/by-id link or a pyserial URL (`socket://host:port`)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await serial_asyncio_fast.create_serial_connection(
        loop, factory, url, baudrate=baud
    )
    return transport, protocol


class LinkLostError(ConnectionError):
    """The port went away: unplugged, closed by the far end, or an I/O error."""


class Link(asyncio.Protocol):
    """Queues received chunks in order and ends the queue with a LinkLostError when the port goes.

    Reading is paused while more than `high_water` chunks wait, so a slow consumer cannot make the
    queue grow without bound. A driver that also talks to its device (a display) uses `write` and
    `drain`.
    """

    def __init__(self, high_water: int = 256) -> None:
        self._queue: asyncio.Queue[bytes | LinkLostError] = asyncio.Queue()
        self._transport: asyncio.BaseTransport | None = None
        self._connected = asyncio.Event()
        self._lost = asyncio.Event()
        self._paused = False
        self._high = high_water
        self._low = high_water // 4
        self._writable = asyncio.Event()
        self._writable.set()

    # asyncio.Protocol callbacks ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._connected.set()

    def data_received(self, data: bytes) -> None:
        self._queue.put_nowait(bytes(data))
        if not self._paused and self._queue.qsize() > self._high:
            self._set_reading(False)

    def connection_lost(self, exc: Exception | None) -> None:
        reason = f"{type(exc).__name__}: {exc}" if exc else "port closed"
        err = LinkLostError(reason)
        err.__cause__ = exc
        self._queue.put_nowait(err)
        self._lost.set()
        self._writable.set()  # wake a writer waiting in drain(); it then sees the loss

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    # for the driver -----------------------------------------------------------------------------

    async def wait_connected(self) -> None:
        """Return once the transport has called connection_made."""
        await self._connected.wait()

    async def read(self) -> bytes:
        """The next received chunk; LinkLostError (on every call) once the port is gone."""
        item = await self._queue.get()
        if isinstance(item, LinkLostError):
            self._queue.put_nowait(item)
            raise item
        if self._paused and self._queue.qsize() <= self._low:
            self._set_reading(True)
        return item

    def write(self, data: bytes) -> None:
        """Queue `data` for the device without blocking; LinkLostError once the port is gone.

        The transport buffers what the line cannot take yet; `drain()` waits for it to catch up.
        """
        transport = self._transport
        if transport is None or self._lost.is_set() or transport.is_closing():
            raise LinkLostError("port closed")
        if not isinstance(transport, asyncio.WriteTransport):
            raise LinkLostError(f"{type(transport).__name__} cannot write")
        try:
            transport.write(data)
        except OSError as exc:
            raise LinkLostError(f"{type(exc).__name__}: {exc}") from exc

    async def drain(self) -> None:
        """Wait while the transport's write buffer is over its high-water mark (flow control);
        LinkLostError if the port goes meanwhile."""
        await self._writable.wait()
        if self._lost.is_set():
            raise LinkLostError("port closed")

    def close(self) -> None:
        """Close the port; connection_lost follows."""
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()

    async def aclose(self, timeout: float = 2.0) -> None:
        """Close the port and wait (bounded) until the transport has released it."""
        self.close()
        if self._transport is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # not wait_for: it can swallow a stop (3.11)
                    await self._lost.wait()

    def _set_reading(self, on: bool) -> None:
        if isinstance(self._transport, asyncio.ReadTransport):
            if on:
                self._transport.resume_reading()
            else:
                self._transport.pause_reading()
            self._paused = not on


async def open_link(url: str, baud: int, connect: Connector = serial_connector) -> Link:
    """Open `url` at `baud` with `connect` and return the connected link; OSError if it cannot."""
    link = Link()
    transport, _ = await connect(lambda: link, url, baud)
    try:
        async with asyncio.timeout(5.0):  # not wait_for: it can swallow a stop (3.11)
            await link.wait_connected()
    except TimeoutError:
        transport.close()
        raise
    return link
