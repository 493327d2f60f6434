"""USB devices through pyusb: `usb:` port URLs, finding a device, an asyncio transport, listing.

This is the only module that imports pyusb, so a test hands every function here a pyusb backend
object (tablectl_drivers/sim/usb_backend.py) and pyusb's own `usb.core`/`usb.util` code runs on top
of it. pyusb is untyped: its objects stay `Any` at this boundary and go no further.

A port string names a device by ids, never by bus position, so it survives re-plugging:

    usb:VVVV:PPPP[:SERIAL][?interface=0&in=0x81&out=0x01&timeout=100]

`usb_connector` has the `Connector` shape of tablectl_drivers/link.py, so any framed driver reads a
USB device just by being given a `usb:` port. See docs/protocols/usb.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

import structlog
import usb.core
import usb.util

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "SCHEME",
    "UsbAddress",
    "UsbInfo",
    "UsbNotFoundError",
    "UsbTransport",
    "UsbUnavailableError",
    "find",
    "is_device_gone",
    "is_usb_port",
    "list_devices",
    "parse_usb_url",
    "usb_connector",
]

SCHEME = "usb:"
DEFAULT_TIMEOUT_MS = 100
"""Default per-transfer timeout: how long one IN read waits before checking for close."""

_LAST_IN_KEPT = 256
"""Bytes of the latest IN data kept per transport, logged (debug) when the device goes."""

_GONE_ERRNOS = frozenset({errno.ENODEV, errno.EIO, errno.ENXIO, errno.ESHUTDOWN})

_NO_BACKEND = "no USB backend: is libusb installed? (apt-get install libusb-1.0-0)"

log = structlog.get_logger(__name__)


class UsbUnavailableError(OSError):
    """pyusb found no backend: the libusb library is missing (`apt-get install libusb-1.0-0`)."""


class UsbNotFoundError(FileNotFoundError):
    """No USB device present matches the port's vendor id, product id (and serial)."""


# -- port URLs ------------------------------------------------------------------------------------


def is_usb_port(port: str) -> bool:
    """Whether a config `port` names a USB device (`usb:...`) rather than a serial port or URL."""
    return port.startswith(SCHEME)


@dataclass(frozen=True)
class UsbAddress:
    """A parsed `usb:` port: which device (ids, serial) and how to talk to it."""

    vid: int
    pid: int
    serial: str | None = None
    interface: int = 0
    ep_in: int | None = None
    """IN endpoint address (0x81..0x8F); None = the interface's first bulk/interrupt IN."""
    ep_out: int | None = None
    """OUT endpoint address (0x01..0x0F); None = the interface's first bulk/interrupt OUT."""
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    @property
    def ids(self) -> str:
        """`VVVV:PPPP`, as lsusb prints it."""
        return f"{self.vid:04x}:{self.pid:04x}"

    @property
    def device(self) -> str:
        """The URL without its options: enough to say which device is meant."""
        serial = f":{quote(self.serial, safe='')}" if self.serial is not None else ""
        return f"{SCHEME}{self.ids}{serial}"

    def __str__(self) -> str:
        opts = []
        if self.interface:
            opts.append(f"interface={self.interface}")
        if self.ep_in is not None:
            opts.append(f"in=0x{self.ep_in:02x}")
        if self.ep_out is not None:
            opts.append(f"out=0x{self.ep_out:02x}")
        if self.timeout_ms != DEFAULT_TIMEOUT_MS:
            opts.append(f"timeout={self.timeout_ms}")
        return self.device + ("?" + "&".join(opts) if opts else "")


_FORM = "usb:VVVV:PPPP[:SERIAL][?interface=N&in=0x8N&out=0x0N&timeout=MS]"


def _hex_id(what: str, text: str) -> int:
    """A 4-hex-digit vendor or product id."""
    if len(text) != 4 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"{what} {text!r} is not 4 hex digits (form: {_FORM})")
    return int(text, 16)


def _int_option(key: str, text: str, low: int, high: int) -> int:
    """A decimal or 0x-hex integer option within [low, high]."""
    try:
        value = int(text, 0)
    except ValueError:
        raise ValueError(f"option {key}={text!r} is not an integer") from None
    if not low <= value <= high:
        raise ValueError(f"option {key}={text} is outside {low:#x}..{high:#x}")
    return value


def parse_usb_url(text: str) -> UsbAddress:
    """Parse `usb:VVVV:PPPP[:SERIAL][?options]`; ValueError says what is wrong and the form."""
    if not is_usb_port(text):
        raise ValueError(f"{text!r} is not a USB port (form: {_FORM})")
    body, _, query = text[len(SCHEME) :].partition("?")
    parts = body.split(":", 2)
    if len(parts) < 2:
        raise ValueError(f"{text!r} lacks the product id (form: {_FORM})")
    vid = _hex_id("vendor id", parts[0])
    pid = _hex_id("product id", parts[1])
    serial: str | None = None
    if len(parts) == 3:
        serial = unquote(parts[2])
        if not serial:
            raise ValueError(f"{text!r} has an empty serial number; leave out the last ':'")
    values: dict[str, int] = {}
    limits = {"interface": (0, 255), "in": (0x81, 0x8F), "out": (0x01, 0x0F), "timeout": (1, 60000)}
    for item in query.split("&") if query else []:
        key, eq, value = item.partition("=")
        if key not in limits:
            raise ValueError(
                f"unknown option {key!r} in {text!r} (known: {', '.join(sorted(limits))})"
            )
        if not eq or not value:
            raise ValueError(f"option {key!r} in {text!r} has no value")
        if key in values:
            raise ValueError(f"option {key!r} is given twice in {text!r}")
        values[key] = _int_option(key, value, *limits[key])
    return UsbAddress(
        vid=vid,
        pid=pid,
        serial=serial,
        interface=values.get("interface", 0),
        ep_in=values.get("in"),
        ep_out=values.get("out"),
        timeout_ms=values.get("timeout", DEFAULT_TIMEOUT_MS),
    )


# -- finding and listing --------------------------------------------------------------------------


def _string(dev: Any, index: int) -> str | None:
    """String descriptor `index` of `dev`, or None if it has none or it cannot be read."""
    if not index:
        return None
    try:
        text: Any = usb.util.get_string(dev, index)
    except (usb.core.USBError, ValueError, NotImplementedError):  # no permission, no langid
        return None
    return None if text is None else str(text)


def _dispose(dev: Any) -> None:
    """Release a device's interfaces and handle, ignoring errors (it may be gone already)."""
    with contextlib.suppress(usb.core.USBError, ValueError, NotImplementedError):
        usb.util.dispose_resources(dev)


def find(address: UsbAddress, backend: Any = None) -> Any:
    """The first present device with the address's ids (and serial, if given), or None.

    `backend` is a pyusb backend object (None: libusb as pyusb picks it). Raises
    UsbUnavailableError when pyusb has no backend.
    """

    def serial_matches(dev: Any) -> bool:
        try:
            return _string(dev, dev.iSerialNumber) == address.serial
        finally:
            _dispose(dev)  # reading the serial opened the device

    try:
        return usb.core.find(
            idVendor=address.vid,
            idProduct=address.pid,
            custom_match=None if address.serial is None else serial_matches,
            backend=backend,
        )
    except usb.core.NoBackendError as exc:
        raise UsbUnavailableError(errno.ENOSYS, _NO_BACKEND) from exc


@dataclass(frozen=True)
class UsbInfo:
    """One USB device present, as `tablectl devices` shows it; strings None if unreadable."""

    vid: int
    pid: int
    serial: str | None
    manufacturer: str | None
    product: str | None
    bus: int | None
    address: int | None

    @property
    def url(self) -> str:
        """The `usb:` port naming this device (with its serial, when it has one)."""
        return UsbAddress(self.vid, self.pid, self.serial).device

    def matches(self, address: UsbAddress) -> bool:
        """Whether a config's `usb:` port names this device."""
        return (self.vid, self.pid) == (address.vid, address.pid) and (
            address.serial is None or address.serial == self.serial
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form, ids as `VVVV` hex strings."""
        return {
            "vid": f"{self.vid:04x}",
            "pid": f"{self.pid:04x}",
            "serial": self.serial,
            "manufacturer": self.manufacturer,
            "product": self.product,
            "bus": self.bus,
            "address": self.address,
            "url": self.url,
        }


def list_devices(backend: Any = None) -> list[UsbInfo]:
    """Every USB device present, by bus and address; UsbUnavailableError without a backend."""
    try:
        found = list(usb.core.find(find_all=True, backend=backend))
    except usb.core.NoBackendError as exc:
        raise UsbUnavailableError(errno.ENOSYS, _NO_BACKEND) from exc
    infos = []
    for dev in found:
        try:
            infos.append(
                UsbInfo(
                    vid=int(dev.idVendor),
                    pid=int(dev.idProduct),
                    serial=_string(dev, dev.iSerialNumber),
                    manufacturer=_string(dev, dev.iManufacturer),
                    product=_string(dev, dev.iProduct),
                    bus=dev.bus,
                    address=dev.address,
                )
            )
        finally:
            _dispose(dev)
    return sorted(infos, key=lambda i: (i.bus or 0, i.address or 0, i.vid, i.pid))


# -- opening --------------------------------------------------------------------------------------


def is_device_gone(exc: BaseException) -> bool:
    """Whether a pyusb error means the device is no longer there (unplugged, reset, dead hub)."""
    if not isinstance(exc, usb.core.USBError):
        return False
    return exc.errno in _GONE_ERRNOS or "no such device" in str(exc).lower()


def _endpoint(intf: Any, wanted: int | None, direction: int, url: str) -> Any:
    """The bulk or interrupt endpoint `wanted` (or the first one in `direction`) of `intf`."""
    usable = (usb.util.ENDPOINT_TYPE_BULK, usb.util.ENDPOINT_TYPE_INTR)
    for ep in intf:
        addr = int(ep.bEndpointAddress)
        if usb.util.endpoint_direction(addr) != direction:
            continue
        if wanted is not None and addr != wanted:
            continue
        if usb.util.endpoint_type(ep.bmAttributes) not in usable:
            if wanted is not None:
                raise OSError(errno.EINVAL, f"{url}: endpoint 0x{addr:02x} is not bulk/interrupt")
            continue
        return ep
    if wanted is not None:
        raise OSError(errno.ENOENT, f"{url}: interface has no endpoint 0x{wanted:02x}")
    return None


def _open(address: UsbAddress, url: str, backend: Any) -> tuple[Any, Any, Any]:
    """Find, configure and claim the device (blocking; run off the loop): (device, IN, OUT)."""
    dev = find(address, backend)
    if dev is None:
        raise UsbNotFoundError(errno.ENOENT, f"no USB device {address.device} present")
    try:
        n = address.interface
        with contextlib.suppress(NotImplementedError):  # not every OS has kernel drivers to detach
            if dev.is_kernel_driver_active(n):
                dev.detach_kernel_driver(n)
        try:
            cfg = dev.get_active_configuration()
        except usb.core.USBError:  # unconfigured (configuration 0)
            dev.set_configuration()
            cfg = dev.get_active_configuration()
        intf = usb.util.find_descriptor(cfg, bInterfaceNumber=n, bAlternateSetting=0)
        if intf is None:
            raise OSError(errno.ENOENT, f"{url}: the device has no interface {n}")
        usb.util.claim_interface(dev, n)
        ep_in = _endpoint(intf, address.ep_in, usb.util.ENDPOINT_IN, url)
        ep_out = _endpoint(intf, address.ep_out, usb.util.ENDPOINT_OUT, url)
        if ep_in is None and ep_out is None:
            raise OSError(errno.ENOENT, f"{url}: interface {n} has no bulk/interrupt endpoints")
    except BaseException:
        _dispose(dev)
        raise
    return dev, ep_in, ep_out


# -- the transport --------------------------------------------------------------------------------


@dataclass
class _Stats:
    """Counters of one transport, updated by its threads; read with `UsbTransport.stats`."""

    reads: int = 0
    bytes_in: int = 0
    writes: int = 0
    bytes_out: int = 0
    timeouts: int = 0
    dropped_out: int = 0
    lost: int = 0
    error: str | None = None
    last_in: bytearray = field(default_factory=bytearray)


class UsbTransport(asyncio.Transport):
    """An asyncio transport over one claimed USB interface, its blocking I/O on two threads.

    The reader thread loops `ep.read(size, timeout)` (a timeout only means "nothing yet") and
    hands each chunk to `protocol.data_received` on the loop; the writer thread sends what
    `write()` queued. When the device goes, or on close(), the reader releases the interface
    and `protocol.connection_lost` is called exactly once, after every chunk already read.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol: asyncio.Protocol,
        device: Any,
        ep_in: Any,
        ep_out: Any,
        address: UsbAddress,
        url: str,
    ) -> None:
        super().__init__(extra={"url": url, "usb_address": address})
        self._loop = loop
        self._protocol = protocol
        self._device = device
        self._ep_in = ep_in
        self._ep_out = ep_out
        self._address = address
        self._url = url
        self._timeout = address.timeout_ms
        # bits 11-12 of wMaxPacketSize are the high-bandwidth multiplier, not the size
        self._read_size = max(int(ep_in.wMaxPacketSize) & 0x7FF, 1) if ep_in is not None else 0
        self._log = log.bind(port=url)
        # loop-thread state
        self._closing = False
        self._lost_called = False
        self._buffered = 0
        self._high, self._low = 64 * 1024, 16 * 1024
        self._writing_paused = False
        # shared with the threads
        self._lock = threading.Lock()
        self._stats = _Stats()
        self._stop = threading.Event()
        self._reading = threading.Event()
        self._reading.set()
        self._abort = False
        self._failure: BaseException | None = None
        self._writes: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer = threading.Thread(
            target=self._write_loop, name=f"usb-write {url}", daemon=True
        )
        self._reader = threading.Thread(target=self._read_loop, name=f"usb-read {url}", daemon=True)
        loop.call_soon(protocol.connection_made, self)
        loop.call_soon(self._start)

    # -- asyncio.Transport ------------------------------------------------------------------------

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue `data` for the OUT endpoint; ignored once closing."""
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"data must be bytes-like, not {type(data).__name__}")
        if self._ep_out is None:
            raise OSError(errno.EOPNOTSUPP, f"{self._url} has no OUT endpoint to write to")
        if self._closing or not data:
            return
        chunk = bytes(data)
        self._buffered += len(chunk)
        self._writes.put(chunk)
        if not self._writing_paused and self._buffered > self._high:
            self._writing_paused = True
            self._protocol.pause_writing()

    def can_write_eof(self) -> bool:
        return False

    def write_eof(self) -> None:
        raise NotImplementedError("a USB endpoint has no end-of-file")

    def get_write_buffer_size(self) -> int:
        return self._buffered

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._low, self._high

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        high = 64 * 1024 if high is None else high
        low = high // 4 if low is None else low
        if not 0 <= low <= high:
            raise ValueError(f"high ({high!r}) must be >= low ({low!r}) must be >= 0")
        self._high, self._low = high, low

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_reading(self) -> bool:
        return self._reading.is_set() and not self._closing

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Finish queued writes, stop reading, release the interface; connection_lost follows."""
        if self._closing:
            return
        self._closing = True
        self._stop.set()
        self._reading.set()  # a paused reader must wake to see the stop

    def abort(self) -> None:
        """Like close(), but queued writes are dropped."""
        self._abort = True
        self.close()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        assert isinstance(protocol, asyncio.Protocol)
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        if name == "usb_stats":
            return self.stats
        return super().get_extra_info(name, default)

    @property
    def stats(self) -> dict[str, Any]:
        """Counters since opening (reads, bytes in/out, timeouts, dropped OUT bytes, losses)."""
        with self._lock:
            s = self._stats
            return {
                "reads": s.reads,
                "bytes_in": s.bytes_in,
                "writes": s.writes,
                "bytes_out": s.bytes_out,
                "timeouts": s.timeouts,
                "dropped_out": s.dropped_out,
                "lost": s.lost,
                "error": s.error,
            }

    # -- loop-thread callbacks ---------------------------------------------------------------

    def _start(self) -> None:
        self._writer.start()
        self._reader.start()

    def _written(self, n: int) -> None:
        self._buffered -= n
        if self._writing_paused and self._buffered <= self._low:
            self._writing_paused = False
            self._protocol.resume_writing()

    def _finish(self, exc: BaseException | None) -> None:
        if self._lost_called:
            return
        self._lost_called = True
        self._closing = True
        self._protocol.connection_lost(exc if isinstance(exc, Exception) else None)

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        """Run `fn(*args)` on the loop from a thread; nothing if the loop is closed."""
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(fn, *args)

    # -- threads ----------------------------------------------------------------------------

    def _fail(self, exc: BaseException) -> None:
        """Record the first failure (either thread) and make both threads stop."""
        with self._lock:
            if self._failure is None:
                self._failure = exc
        self._stop.set()
        self._reading.set()

    def _read_loop(self) -> None:
        try:
            while not self._stop.is_set():
                if self._ep_in is None:
                    self._stop.wait()
                    break
                if not self._reading.is_set():
                    self._reading.wait()
                    continue
                try:
                    data = self._ep_in.read(self._read_size, self._timeout)
                except usb.core.USBTimeoutError:
                    with self._lock:
                        self._stats.timeouts += 1
                    continue
                except usb.core.USBError as exc:
                    if exc.errno == errno.EINTR:
                        continue
                    self._fail(exc)
                    break
                chunk = bytes(data)
                if chunk:
                    with self._lock:
                        s = self._stats
                        s.reads += 1
                        s.bytes_in += len(chunk)
                        s.last_in += chunk
                        del s.last_in[:-_LAST_IN_KEPT]
                    self._call(self._protocol.data_received, chunk)
        except Exception as exc:  # any pyusb failure ends this link, never the process
            self._fail(exc)
        finally:
            self._shutdown()

    def _write_loop(self) -> None:
        while True:
            item = self._writes.get()
            if item is None:
                return
            rest = item
            while rest:
                if self._abort or self._failure is not None:
                    self._drop(rest, "aborted" if self._abort else str(self._failure))
                    break
                try:
                    n = int(self._ep_out.write(rest, self._timeout))
                except usb.core.USBTimeoutError:
                    with self._lock:
                        self._stats.timeouts += 1
                    if self._stop.is_set():  # closing: do not wait forever on a stuck device
                        self._drop(rest, "timeout while closing")
                        break
                    continue
                except Exception as exc:
                    self._fail(exc)
                    self._drop(rest, str(exc))
                    break
                with self._lock:
                    self._stats.writes += 1
                    self._stats.bytes_out += n
                rest = rest[n:]
            self._call(self._written, len(item))

    def _drop(self, unsent: bytes, why: str) -> None:
        """Count and log (debug, with the bytes) OUT data that will never be sent."""
        with self._lock:
            self._stats.dropped_out += len(unsent)
        self._log.debug("usb.write_dropped", reason=why, unsent=unsent)

    def _shutdown(self) -> None:
        """Reader-thread exit: stop the writer, release the device, then connection_lost once."""
        self._stop.set()
        self._writes.put(None)
        if self._writer.is_alive():
            self._writer.join()
        with self._lock:
            exc = self._failure
            if exc is not None:
                self._stats.lost += 1
                self._stats.error = f"{type(exc).__name__}: {exc}"
            last_in = bytes(self._stats.last_in)
        if exc is not None:
            gone = is_device_gone(exc)
            self._log.warning("usb.device_gone" if gone else "usb.error", error=str(exc))
            self._log.debug("usb.lost_raw", error=str(exc), last_in=last_in)
        with contextlib.suppress(Exception):  # the device may be gone: releasing then fails
            usb.util.release_interface(self._device, self._address.interface)
        _dispose(self._device)
        self._call(self._finish, exc)


async def usb_connector(
    protocol_factory: Callable[[], asyncio.Protocol],
    url: str,
    baud: int,
    *,
    backend: Any = None,
) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
    """Open the `usb:` port `url` (a Connector; `baud` is ignored, USB has no line speed).

    Raises OSError when it cannot: a bad URL (EINVAL), no such device (UsbNotFoundError), no
    permission (pyusb's USBError, EACCES), no libusb (UsbUnavailableError). `backend` is a pyusb
    backend object; None lets pyusb pick libusb.
    """
    try:
        address = parse_usb_url(url)
    except ValueError as exc:
        raise OSError(errno.EINVAL, f"bad USB port: {exc}") from exc
    loop = asyncio.get_running_loop()
    opening = loop.run_in_executor(None, _open, address, url, backend)
    try:
        device, ep_in, ep_out = await asyncio.shield(opening)
    except asyncio.CancelledError:
        opening.add_done_callback(_dispose_opened)  # the thread goes on: release what it opens
        raise
    try:
        protocol = protocol_factory()
    except BaseException:
        _dispose(device)
        raise
    transport = UsbTransport(loop, protocol, device, ep_in, ep_out, address, url)
    return transport, protocol


def _dispose_opened(opening: asyncio.Future[tuple[Any, Any, Any]]) -> None:
    """Release a device opened for a caller that was cancelled meanwhile."""
    if not opening.cancelled() and opening.exception() is None:
        _dispose(opening.result()[0])
