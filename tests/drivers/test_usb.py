"""tablectl_drivers/usb.py over the simulated pyusb backend: pyusb's own core/util code runs on it.

URL parsing, finding by ids and serial, the asyncio transport (reads in order, writes, unplug
mid-transfer, close), listing, and a real ShoeDriver reading a shoe that is a USB device.
Nothing sleeps to wait: every wait is for a condition, bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import random
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import structlog
import usb.core
from structlog.testing import capture_logs
from structlog.typing import EventDict

from tablectl_drivers.connect import connect
from tablectl_drivers.link import open_link
from tablectl_drivers.shoe.device import DISCONNECTED, ShoeDriver
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.shoe import ShoeModel
from tablectl_drivers.sim.usb_backend import SimUsbBackend, SimUsbDevice
from tablectl_drivers.usb import (
    DEFAULT_TIMEOUT_MS,
    UsbAddress,
    UsbInfo,
    UsbNotFoundError,
    UsbTransport,
    find,
    is_device_gone,
    list_devices,
    parse_usb_url,
    usb_connector,
)
from tests.drivers.resend_support import until_answered

TIMEOUT = 5.0
VID, PID = 0x16C0, 0x05DC


def usb_threads() -> list[threading.Thread]:
    """The transport threads still alive."""
    return [t for t in threading.enumerate() if t.name.startswith("usb-")]


async def until(predicate: Any, timeout: float = TIMEOUT) -> None:
    """Poll `predicate` (state changed by another thread) until true; TimeoutError after timeout."""

    async def loop() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(loop(), timeout)


class Recorder(asyncio.Protocol):
    """Keeps every callback, in order, and lets the test await them."""

    def __init__(self) -> None:
        self.transport: asyncio.BaseTransport | None = None
        self.data = bytearray()
        self.chunks = 0
        self.lost: list[Exception | None] = []
        self.calls: list[str] = []
        self._changed = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.calls.append("made")
        self._changed.set()

    def data_received(self, data: bytes) -> None:
        self.data += data
        self.chunks += 1
        self.calls.append("data")
        self._changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.append(exc)
        self.calls.append("lost")
        self._changed.set()

    async def wait_for(self, predicate: Any) -> None:
        async def loop() -> None:
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(loop(), TIMEOUT)


@pytest.fixture
def logs() -> Iterator[list[EventDict]]:
    """Captured structlog events, at debug level whatever an earlier test configured."""
    old = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as entries:
            yield entries
    finally:
        structlog.configure(wrapper_class=old)


@contextlib.asynccontextmanager
async def opened(backend: SimUsbBackend, url: str) -> AsyncIterator[tuple[UsbTransport, Recorder]]:
    """`usb_connector` on the sim; closed (and its threads gone) at the end."""
    transport, protocol = await usb_connector(Recorder, url, 9600, backend=backend)
    assert isinstance(transport, UsbTransport) and isinstance(protocol, Recorder)
    try:
        await protocol.wait_for(lambda: protocol.transport is transport)
        yield transport, protocol
    finally:
        transport.close()
        await protocol.wait_for(lambda: protocol.lost)
        await until(lambda: not usb_threads())


# -- URLs -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("usb:16c0:05dc", UsbAddress(VID, PID)),
        ("usb:16C0:05DC:SHOE0001", UsbAddress(VID, PID, "SHOE0001")),
        (
            "usb:16c0:05dc:D1?interface=1&in=0x82&out=0x02&timeout=250",
            UsbAddress(VID, PID, "D1", interface=1, ep_in=0x82, ep_out=0x02, timeout_ms=250),
        ),
        ("usb:16c0:05dc?in=129", UsbAddress(VID, PID, ep_in=0x81)),
        ("usb:16c0:05dc:A%3AB%3F", UsbAddress(VID, PID, "A:B?")),
    ],
)
def test_parse_good_urls(url: str, expected: UsbAddress) -> None:
    address = parse_usb_url(url)
    assert address == expected
    assert parse_usb_url(str(address)) == address  # the canonical form parses back


def test_canonical_form() -> None:
    a = parse_usb_url("usb:16C0:05DC:S1?timeout=100&out=1")
    assert str(a) == "usb:16c0:05dc:S1?out=0x01"  # lowercase ids, default timeout left out
    assert a.device == "usb:16c0:05dc:S1" and a.ids == "16c0:05dc"
    assert a.timeout_ms == DEFAULT_TIMEOUT_MS


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("/dev/ttyUSB0", "is not a USB port"),
        ("usb:16c0", "lacks the product id"),
        ("usb:16c:05dc", "vendor id '16c' is not 4 hex digits"),
        ("usb:16c0:05dg", "product id '05dg' is not 4 hex digits"),
        ("usb:16c0:05dc:", "empty serial number"),
        ("usb:16c0:05dc?baud=9600", "unknown option 'baud'"),
        ("usb:16c0:05dc?in", "option 'in' .* has no value"),
        ("usb:16c0:05dc?in=abc", "not an integer"),
        ("usb:16c0:05dc?in=0x01", "outside 0x81..0x8f"),
        ("usb:16c0:05dc?out=0x81", "outside 0x1..0xf"),
        ("usb:16c0:05dc?timeout=0", "outside"),
        ("usb:16c0:05dc?in=0x81&in=0x82", "given twice"),
    ],
)
def test_parse_bad_urls(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_usb_url(url)


# -- finding and listing --------------------------------------------------------------------------


def two_dice_cups() -> tuple[SimUsbBackend, SimUsbDevice, SimUsbDevice]:
    a = SimUsbDevice(VID, PID, serial="CUP-A", manufacturer="Acme", product="Dice cup")
    b = SimUsbDevice(VID, PID, serial="CUP-B", manufacturer="Acme", product="Dice cup")
    other = SimUsbDevice(0x0403, 0x6001, serial="CUP-B")
    return SimUsbBackend(other, a, b), a, b


def test_find_by_ids_and_by_serial() -> None:
    backend, a, b = two_dice_cups()
    first = find(UsbAddress(VID, PID), backend)
    by_serial = find(UsbAddress(VID, PID, "CUP-B"), backend)
    assert find(UsbAddress(VID, PID, "CUP-C"), backend) is None
    assert find(UsbAddress(VID, 0x0001), backend) is None
    assert (a.open_handles, b.open_handles) == (0, 0)  # reading serials left nothing open
    assert first.address == a.address and first.serial_number == "CUP-A"
    assert by_serial.address == b.address and by_serial.serial_number == "CUP-B"


def test_find_skips_an_unplugged_device() -> None:
    backend, a, _ = two_dice_cups()
    a.unplug()
    assert find(UsbAddress(VID, PID), backend).serial_number == "CUP-B"
    a.replug()
    assert find(UsbAddress(VID, PID, "CUP-A"), backend).address == a.address


def test_list_devices_reports_descriptor_strings() -> None:
    backend, a, _ = two_dice_cups()
    bare = SimUsbDevice(0x1209, 0x0001, bus=2)  # no strings at all
    locked = SimUsbDevice(0x1209, 0x0002, serial="X", product="P", accessible=False)
    backend.add(bare)
    backend.add(locked)
    infos = {(i.vid, i.pid, i.serial): i for i in list_devices(backend)}
    assert infos[(VID, PID, "CUP-A")] == UsbInfo(
        VID, PID, "CUP-A", "Acme", "Dice cup", bus=1, address=a.address
    )
    assert infos[(VID, PID, "CUP-B")].url == "usb:16c0:05dc:CUP-B"
    assert infos[(0x0403, 0x6001, "CUP-B")].manufacturer is None
    assert infos[(0x1209, 0x0001, None)] == UsbInfo(0x1209, 1, None, None, None, 2, bare.address)
    # No permission: the ids are known, the strings (which need the device open) are not.
    assert infos[(0x1209, 0x0002, None)].product is None
    assert all(d.open_handles == 0 for d in backend.devices)
    as_dict = infos[(VID, PID, "CUP-A")].as_dict()
    assert as_dict["vid"] == "16c0" and as_dict["url"] == "usb:16c0:05dc:CUP-A"


# -- the transport --------------------------------------------------------------------------------


async def test_in_bytes_reach_the_protocol_in_order() -> None:
    backend, a, b = two_dice_cups()
    rng = random.Random(5)
    payload = bytes(rng.randrange(256) for _ in range(5000))
    async with opened(backend, "usb:16c0:05dc:CUP-B") as (transport, proto):
        assert b.claimed == {0} and a.claimed == set()
        i = 0
        while i < len(payload):
            n = rng.randint(1, 300)
            b.feed(payload[i : i + n])
            i += n
        await proto.wait_for(lambda: len(proto.data) >= len(payload))
        assert bytes(proto.data) == payload
        assert proto.calls[0] == "made"
        assert transport.stats["bytes_in"] == len(payload)
        assert transport.get_extra_info("usb_address") == UsbAddress(VID, PID, "CUP-B")
    assert proto.lost == [None]
    assert b.claimed == set() and b.open_handles == 0  # close() released the interface


async def test_writes_reach_the_out_endpoint() -> None:
    backend, _, b = two_dice_cups()
    async with opened(backend, "usb:16c0:05dc:CUP-B") as (transport, _proto):
        transport.write(b"$CFG,1*00\r\n")
        transport.writelines([b"abc", bytearray(b"def"), memoryview(b"ghi")])
        written = await asyncio.to_thread(b.wait_written, 20)
        assert written == b"$CFG,1*00\r\nabcdefghi"
        await until(lambda: transport.get_write_buffer_size() == 0)
        assert transport.stats["bytes_out"] == 20
        with pytest.raises(TypeError):
            transport.write("text")  # type: ignore[arg-type]


async def test_close_flushes_queued_writes() -> None:
    backend, _, b = two_dice_cups()
    async with opened(backend, "usb:16c0:05dc:CUP-B") as (transport, _proto):
        for i in range(50):
            transport.write(b"%03d" % i)
    assert b.written == b"".join(b"%03d" % i for i in range(50))


async def test_unplug_mid_transfer_loses_the_connection_once(logs: list[EventDict]) -> None:
    backend, _, b = two_dice_cups()
    transport, proto = await usb_connector(Recorder, "usb:16c0:05dc:CUP-B", 9600, backend=backend)
    assert isinstance(transport, UsbTransport) and isinstance(proto, Recorder)
    b.feed(b"$CRD,1,A")  # half a frame...
    await proto.wait_for(lambda: proto.data == b"$CRD,1,A")
    b.unplug()  # ...and the cable is pulled while the reader waits for the rest
    await proto.wait_for(lambda: proto.lost)
    await until(lambda: not usb_threads())  # the reader (and writer) thread ended
    transport.write(b"ignored")  # no crash after the loss
    transport.close()
    await asyncio.sleep(0.05)  # give a second connection_lost (a bug) the chance to show up
    assert len(proto.lost) == 1
    exc = proto.lost[0]
    assert isinstance(exc, usb.core.USBError) and exc.errno == errno.ENODEV
    assert is_device_gone(exc)
    assert proto.calls == ["made", "data", "lost"]
    stats = transport.stats
    assert stats["lost"] == 1 and "No such device" in stats["error"]
    gone = [e for e in logs if e["event"] == "usb.device_gone"]
    assert len(gone) == 1 and gone[0]["log_level"] == "warning"
    raw = [e for e in logs if e["event"] == "usb.lost_raw"]
    assert raw[0]["log_level"] == "debug" and raw[0]["last_in"].endswith(b"$CRD,1,A")


async def test_unplug_while_writing_drops_and_logs_the_unsent_bytes(
    logs: list[EventDict],
) -> None:
    backend, _, b = two_dice_cups()
    transport, proto = await usb_connector(Recorder, "usb:16c0:05dc:CUP-B", 9600, backend=backend)
    assert isinstance(transport, UsbTransport) and isinstance(proto, Recorder)
    await proto.wait_for(lambda: proto.transport is transport)
    b.unplug()
    transport.write(b"$DSP,7*00\r\n")
    await proto.wait_for(lambda: proto.lost)
    await until(lambda: not usb_threads())
    assert len(proto.lost) == 1 and is_device_gone(proto.lost[0] or Exception())
    assert b.written == b""
    dropped = [e for e in logs if e["event"] == "usb.write_dropped"]
    assert dropped and dropped[0]["unsent"] == b"$DSP,7*00\r\n"
    assert transport.get_extra_info("usb_stats")["dropped_out"] == 11


async def test_pause_reading_leaves_data_on_the_device() -> None:
    backend, _, b = two_dice_cups()
    async with opened(backend, "usb:16c0:05dc:CUP-B") as (transport, proto):
        b.feed(b"one")
        await proto.wait_for(lambda: proto.data == b"one")
        transport.pause_reading()
        assert not transport.is_reading()
        await asyncio.sleep(3 * DEFAULT_TIMEOUT_MS / 1000)  # let a running read time out
        b.feed(b"two")
        await asyncio.sleep(3 * DEFAULT_TIMEOUT_MS / 1000)
        assert proto.data == b"one" and b.pending_in == b"two"
        transport.resume_reading()
        await proto.wait_for(lambda: proto.data == b"onetwo")


async def test_opening_configures_detaches_the_kernel_driver_and_claims() -> None:
    dev = SimUsbDevice(VID, PID, configured=False, kernel_driver=True, transfer="interrupt")
    backend = SimUsbBackend(dev)
    async with opened(backend, "usb:16c0:05dc") as (_transport, proto):
        assert dev.configuration == 1 and not dev.kernel_driver and dev.claimed == {0}
        dev.feed(b"interrupt IN")
        await proto.wait_for(lambda: proto.data == b"interrupt IN")
        # A second opener finds the interface taken.
        with pytest.raises(OSError) as busy:
            await usb_connector(Recorder, "usb:16c0:05dc", 9600, backend=backend)
        assert busy.value.errno == errno.EBUSY
    assert dev.open_handles == 0


@pytest.mark.parametrize(
    ("url", "device", "err", "text"),
    [
        ("usb:16c0:05dc:NOPE", SimUsbDevice(VID, PID, serial="S"), errno.ENOENT, "no USB device"),
        ("usb:16c0", SimUsbDevice(VID, PID), errno.EINVAL, "lacks the product id"),
        ("usb:16c0:05dc", SimUsbDevice(VID, PID, accessible=False), errno.EACCES, "Access denied"),
        ("usb:16c0:05dc?interface=2", SimUsbDevice(VID, PID), errno.ENOENT, "no interface 2"),
        ("usb:16c0:05dc?in=0x83", SimUsbDevice(VID, PID), errno.ENOENT, "no endpoint 0x83"),
    ],
)
async def test_open_failures_are_oserrors(
    url: str, device: SimUsbDevice, err: int, text: str
) -> None:
    with pytest.raises(OSError, match=text) as failed:
        await usb_connector(Recorder, url, 9600, backend=SimUsbBackend(device))
    assert failed.value.errno == err
    assert device.open_handles == 0 and device.claimed == set()


async def test_not_found_is_a_file_not_found_error() -> None:
    with pytest.raises(UsbNotFoundError):
        await usb_connector(Recorder, "usb:16c0:05dc", 9600, backend=SimUsbBackend())


class SlowClaimBackend(SimUsbBackend):
    """Claiming waits for the test: lets a test cancel the opener while the device is opening."""

    def __init__(self, *devices: SimUsbDevice) -> None:
        super().__init__(*devices)
        self.claiming = threading.Event()
        self.go_on = threading.Event()
        self.claims = 0

    def claim_interface(self, dev_handle: Any, intf: int) -> None:
        self.claiming.set()
        self.go_on.wait(TIMEOUT)
        super().claim_interface(dev_handle, intf)
        self.claims += 1


async def test_cancelled_while_opening_leaves_the_device_released() -> None:
    dev = SimUsbDevice(VID, PID)
    backend = SlowClaimBackend(dev)
    task = asyncio.create_task(usb_connector(Recorder, "usb:16c0:05dc", 9600, backend=backend))
    await until(backend.claiming.is_set)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    backend.go_on.set()  # the worker thread finishes opening for nobody
    await until(lambda: backend.claims == 1)
    await until(lambda: dev.claimed == set() and dev.open_handles == 0)


async def test_write_only_and_read_only_devices() -> None:
    display = SimUsbDevice(VID, PID, in_ep=None)
    async with opened(SimUsbBackend(display), "usb:16c0:05dc") as (transport, _proto):
        transport.write(b"SHOW")
        assert await asyncio.to_thread(display.wait_written, 4) == b"SHOW"
    sensor = SimUsbDevice(VID, PID, out_ep=None)
    async with opened(SimUsbBackend(sensor), "usb:16c0:05dc") as (transport, _proto):
        with pytest.raises(OSError, match="no OUT endpoint"):
            transport.write(b"x")


# -- connect(): the default Connector -------------------------------------------------------------


async def test_connect_sends_usb_ports_to_pyusb_and_the_rest_to_pyserial() -> None:
    dev = SimUsbDevice(VID, PID)
    link = await open_link(
        "usb:16c0:05dc", 9600, functools.partial(connect, usb_backend=SimUsbBackend(dev))
    )
    dev.feed(b"via usb")
    assert await asyncio.wait_for(link.read(), TIMEOUT) == b"via usb"
    await link.aclose()

    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"via socket://")
        await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        link = await open_link(f"socket://127.0.0.1:{port}", 9600, connect)
        assert await asyncio.wait_for(link.read(), TIMEOUT) == b"via socket://"
        await link.aclose()
    finally:
        server.close()
        await server.wait_closed()


# -- a real driver on a USB device ----------------------------------------------------------------


class HearingBackend(SimUsbBackend):
    """The simulated backend with a device that hears what the host writes to its OUT endpoint
    (the shoe driver's resend request) and answers it, as a real USB shoe does."""

    def __init__(self, device: SimUsbDevice, hear: Any) -> None:
        super().__init__(device)
        self.hear = hear

    def _write(self, kind: str, handle: Any, ep: int, intf: int, data: Any) -> int:
        written = super()._write(kind, handle, ep, intf, data)
        self.hear(data.tobytes())
        return written


async def test_shoe_driver_reads_a_usb_shoe_through_unplug_and_replug() -> None:
    dev = SimUsbDevice(VID, PID, serial="SHOE1", max_packet=16)  # frames span packets
    shoe = ShoeModel(dev.feed)
    delays: list[float] = []

    async def sleep(delay: float) -> None:
        delays.append(delay)
        await asyncio.sleep(0.01)

    sink = RecordingSink()
    conn = functools.partial(connect, usb_backend=HearingBackend(dev, shoe.receive))
    driver = ShoeDriver("shoe", "usb:16c0:05dc:SHOE1", 9600, {}, connect=conn, sleep=sleep)
    task = asyncio.create_task(driver.run(sink))
    try:
        await sink.wait_for(lambda: sink.last_status is not None and sink.last_status.available)
        await until_answered(sink)  # the driver's RSN went out over USB and was answered
        shoe.load(["Ah", "Kd", "9c", "2s"])
        first = [shoe.draw(), shoe.draw()]
        await sink.wait_for(lambda: sink.cards == first)

        dev.unplug()
        await sink.wait_for(lambda: sink.last_status is not None and not sink.last_status.available)
        down = sink.statuses[-1]
        assert down.fault == DISCONNECTED
        assert "No such device" in down.detail["error"]

        await until(lambda: len(delays) >= 2)  # retried while unplugged: not found
        assert "no USB device usb:16c0:05dc:SHOE1" in sink.statuses[-1].detail["error"]
        dev.replug()
        await sink.wait_for(lambda: driver.stats["opens"] == 2 and sink.statuses[-1].available)
        await until_answered(sink, resends=2)  # asked again from position 3 on the replug
        second = [shoe.draw(), shoe.draw()]
        await sink.wait_for(lambda: len(sink.cards) == 4)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
    assert sink.cards == first + second
    assert [e["at"]["pos"] for e in sink.events if e["type"] == "shoe.card"] == [1, 2, 3, 4]
    assert dev.written.startswith(b"$RSN,0,-,0*4E\r\n")  # "where are you": no count yet
    assert sink.statuses[-1].fault is None
    assert sink.statuses[-1].detail["reconnects"] == 1
    await until(lambda: not usb_threads())
    assert dev.claimed == set()
