"""A pyusb backend object that behaves as plugged-in USB devices, so pyusb's own code runs in tests.

DESIGN ("Real parts, not stand-ins"): a USB device cannot exist here, so `SimUsbBackend`
implements pyusb's `IBackend` the way libusb does, and `usb.core`/`usb.util` run unchanged on
top of it: enumeration, descriptors (string descriptors through GET_DESCRIPTOR control
transfers), configuration, interface claiming and bulk/interrupt transfers. Errors are libusb's:
a `usb.core.USBError` with libusb's code, message and errno (ENODEV once a device is unplugged,
`USBTimeoutError` when a read waits too long).

Each `SimUsbDevice` has one configuration with one interface holding an IN and an OUT endpoint.
The test feeds IN data with `feed()`, reads what the host wrote from `written`, and pulls the
cable with `unplug()` / `replug()` (a replugged device is a new device: old handles stay dead).
"""

from __future__ import annotations

import errno
import itertools
import threading
import time
from array import array
from collections import deque
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Literal

import usb.backend
import usb.core

__all__ = ["SimUsbBackend", "SimUsbDevice"]

# libusb return codes, the messages pyusb's libusb1 backend gives them, and their errno
_LIBUSB_ERRORS: dict[str, tuple[int, str, int | None]] = {
    "IO": (-1, "Input/output error", errno.EIO),
    "INVALID_PARAM": (-2, "Invalid parameter", errno.EINVAL),
    "ACCESS": (-3, "Access denied (insufficient permissions)", errno.EACCES),
    "NO_DEVICE": (-4, "No such device (it may have been disconnected)", errno.ENODEV),
    "NOT_FOUND": (-5, "Entity not found", errno.ENOENT),
    "BUSY": (-6, "Resource busy", errno.EBUSY),
    "TIMEOUT": (-7, "Operation timed out", errno.ETIMEDOUT),
    "OVERFLOW": (-8, "Overflow", errno.EOVERFLOW),
    "PIPE": (-9, "Pipe error", errno.EPIPE),
}

_DESC_DEVICE, _DESC_CONFIG, _DESC_STRING = 1, 2, 3
_GET_STATUS, _GET_DESCRIPTOR, _GET_CONFIGURATION = 0x00, 0x06, 0x08
_STD_DEVICE_IN = 0x80
_LANGID_EN_US = 0x0409
_STRING_INDEX = {"manufacturer": 1, "product": 2, "serial": 3}

_addresses = itertools.count(2)  # bus addresses; 1 is the root hub's


def _error(name: str) -> Exception:
    """The exception libusb's error `name` becomes in pyusb (USBTimeoutError for TIMEOUT)."""
    code, message, err = _LIBUSB_ERRORS[name]
    cls: Any = usb.core.USBTimeoutError if name == "TIMEOUT" else usb.core.USBError
    exc: Exception = cls(message, code, err)
    return exc


@dataclass(frozen=True)
class _DevId:
    """What enumerate_devices yields: one device as it was plugged in (one plug generation)."""

    device: SimUsbDevice
    generation: int
    address: int


@dataclass(eq=False)
class _Handle:
    """What open_device returns."""

    dev_id: _DevId
    closed: bool = False
    claimed: set[int] = field(default_factory=set)


class SimUsbDevice:
    """One simulated USB device: descriptors, IN data the test feeds, OUT data the host wrote.

    `in_ep` / `out_ep` are endpoint addresses (None: the interface lacks that endpoint);
    `transfer` is their type. `configured=False` starts it unconfigured (configuration 0),
    `kernel_driver=True` with a kernel driver bound to the interface (claiming then fails with
    EBUSY until it is detached), `accessible=False` without permission (opening fails EACCES).
    """

    def __init__(
        self,
        vid: int,
        pid: int,
        *,
        serial: str | None = None,
        manufacturer: str | None = None,
        product: str | None = None,
        bus: int = 1,
        interface: int = 0,
        in_ep: int | None = 0x81,
        out_ep: int | None = 0x01,
        max_packet: int = 64,
        transfer: Literal["bulk", "interrupt"] = "bulk",
        configured: bool = True,
        kernel_driver: bool = False,
        accessible: bool = True,
    ) -> None:
        self.vid, self.pid = vid, pid
        self.strings = {"manufacturer": manufacturer, "product": product, "serial": serial}
        self.bus = bus
        self.interface = interface
        self.in_ep, self.out_ep = in_ep, out_ep
        self.max_packet = max_packet
        self.transfer = transfer
        self.accessible = accessible
        self._initial = (1 if configured else 0, kernel_driver)
        self.configuration, self.kernel_driver = self._initial
        self.address = next(_addresses)
        self._cond = threading.Condition()
        self._plugged = True
        self._generation = 0
        self._packets: deque[bytes] = deque()
        self._written = bytearray()
        self.out_transfers: list[bytes] = []
        """Every OUT transfer the host made, in order."""
        self._handles: set[_Handle] = set()

    # -- for the test ---------------------------------------------------------------------------

    @property
    def plugged(self) -> bool:
        return self._plugged

    @property
    def written(self) -> bytes:
        """Everything the host has written to the OUT endpoint, joined."""
        with self._cond:
            return bytes(self._written)

    @property
    def pending_in(self) -> bytes:
        """IN data fed but not yet read by the host."""
        with self._cond:
            return b"".join(self._packets)

    @property
    def open_handles(self) -> int:
        """How many handles the host holds open on the device as currently plugged."""
        with self._cond:
            return sum(1 for h in self._handles if not h.closed)

    @property
    def claimed(self) -> set[int]:
        """Interface numbers the host has claimed."""
        with self._cond:
            return {i for h in self._handles for i in h.claimed}

    def feed(self, data: bytes) -> None:
        """Queue `data` for the IN endpoint, in packets of `max_packet` bytes."""
        with self._cond:
            if not self._plugged:
                raise RuntimeError("an unplugged device cannot send")
            for i in range(0, len(data), self.max_packet):
                self._packets.append(bytes(data[i : i + self.max_packet]))
            self._cond.notify_all()

    def wait_written(self, n: int, timeout: float = 5.0) -> bytes:
        """Wait until the host has written at least `n` bytes; return all it wrote."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._written) >= n, timeout):
                raise TimeoutError(f"the host wrote {len(self._written)} of {n} bytes")
            return bytes(self._written)

    def unplug(self) -> None:
        """Pull the cable: transfers in progress and all later calls fail with ENODEV."""
        with self._cond:
            self._plugged = False
            self._packets.clear()
            self._cond.notify_all()

    def replug(self) -> None:
        """Plug it back in as a fresh device (new address, initial state); old handles stay dead."""
        with self._cond:
            self._plugged = True
            self._generation += 1
            self.address = next(_addresses)
            self.configuration, self.kernel_driver = self._initial
            self._handles = set()
            self._cond.notify_all()

    # -- for the backend ------------------------------------------------------------------------

    def _dev_id(self) -> _DevId | None:
        with self._cond:
            return _DevId(self, self._generation, self.address) if self._plugged else None

    def _alive(self, generation: int) -> bool:
        return self._plugged and generation == self._generation

    def _check(self, handle: _Handle) -> None:
        """ENODEV if the device behind `handle` is gone; call with the lock held."""
        if handle.closed:
            raise _error("INVALID_PARAM")
        if not self._alive(handle.dev_id.generation):
            raise _error("NO_DEVICE")

    def _endpoints(self) -> list[int]:
        return [ep for ep in (self.in_ep, self.out_ep) if ep is not None]

    def _string(self, index: int) -> str | None:
        for name, i in _STRING_INDEX.items():
            if i == index:
                return self.strings[name]
        return None

    def _string_index(self, name: str) -> int:
        return _STRING_INDEX[name] if self.strings[name] is not None else 0

    def device_descriptor(self, address: int) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=18,
            bDescriptorType=_DESC_DEVICE,
            bcdUSB=0x0200,
            bDeviceClass=0,
            bDeviceSubClass=0,
            bDeviceProtocol=0,
            bMaxPacketSize0=64,
            idVendor=self.vid,
            idProduct=self.pid,
            bcdDevice=0x0100,
            iManufacturer=self._string_index("manufacturer"),
            iProduct=self._string_index("product"),
            iSerialNumber=self._string_index("serial"),
            bNumConfigurations=1,
            bus=self.bus,
            address=address,
            port_number=1,
            port_numbers=(1,),
            speed=3,  # LIBUSB_SPEED_HIGH
        )

    def config_descriptor(self) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=_DESC_CONFIG,
            wTotalLength=9 + 9 + 7 * len(self._endpoints()),
            bNumInterfaces=1,
            bConfigurationValue=1,
            iConfiguration=0,
            bmAttributes=0x80,
            bMaxPower=50,
            extra_descriptors=[],
        )

    def interface_descriptor(self) -> SimpleNamespace:
        return SimpleNamespace(
            bLength=9,
            bDescriptorType=4,
            bInterfaceNumber=self.interface,
            bAlternateSetting=0,
            bNumEndpoints=len(self._endpoints()),
            bInterfaceClass=0xFF,
            bInterfaceSubClass=0,
            bInterfaceProtocol=0,
            iInterface=0,
            extra_descriptors=[],
        )

    def endpoint_descriptor(self, index: int) -> SimpleNamespace:
        interrupt = self.transfer == "interrupt"
        return SimpleNamespace(
            bLength=7,
            bDescriptorType=5,
            bEndpointAddress=self._endpoints()[index],
            bmAttributes=3 if interrupt else 2,
            wMaxPacketSize=self.max_packet,
            bInterval=1 if interrupt else 0,
            bRefresh=0,
            bSynchAddress=0,
            extra_descriptors=[],
        )

    def _descriptor_bytes(self, dtype: int, index: int, address: int) -> bytes:
        """The wire form of a descriptor for GET_DESCRIPTOR; PIPE (a stall) if there is none."""
        if dtype == _DESC_STRING:
            if index == 0:
                return bytes([4, _DESC_STRING]) + _LANGID_EN_US.to_bytes(2, "little")
            text = self._string(index)
            if text is None:
                raise _error("PIPE")
            body = text.encode("utf-16-le")[:252]
            return bytes([2 + len(body), _DESC_STRING]) + body
        if dtype == _DESC_DEVICE and index == 0:
            d = self.device_descriptor(address)
            ids = self.vid.to_bytes(2, "little") + self.pid.to_bytes(2, "little")
            strings = [d.iManufacturer, d.iProduct, d.iSerialNumber]
            return bytes([18, 1, 0x00, 0x02, 0, 0, 0, 64, *ids, 0x00, 0x01, *strings, 1])
        if dtype == _DESC_CONFIG and index == 0:
            c, i = self.config_descriptor(), self.interface_descriptor()
            out = bytes([9, 2, *c.wTotalLength.to_bytes(2, "little"), 1, 1, 0, 0x80, 50])
            out += bytes([9, 4, i.bInterfaceNumber, 0, i.bNumEndpoints, 0xFF, 0, 0, 0])
            for n in range(i.bNumEndpoints):
                e = self.endpoint_descriptor(n)
                mps = e.wMaxPacketSize.to_bytes(2, "little")
                out += bytes([7, 5, e.bEndpointAddress, e.bmAttributes, *mps, e.bInterval])
            return out
        raise _error("PIPE")


class SimUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb is untyped
    """A pyusb backend whose bus holds the given SimUsbDevices; pass it as `backend=`."""

    def __init__(self, *devices: SimUsbDevice) -> None:
        self._devices = list(devices)

    def add(self, device: SimUsbDevice) -> None:
        """Put another device on the bus."""
        self._devices.append(device)

    @property
    def devices(self) -> list[SimUsbDevice]:
        return list(self._devices)

    # -- enumeration and descriptors (libusb caches these: they work on a stale device id) ----

    def enumerate_devices(self) -> list[_DevId]:
        found = (d._dev_id() for d in self._devices)
        return [dev_id for dev_id in found if dev_id is not None]

    def get_parent(self, dev: _DevId) -> None:
        return None

    def get_device_descriptor(self, dev: _DevId) -> SimpleNamespace:
        return dev.device.device_descriptor(dev.address)

    def get_configuration_descriptor(self, dev: _DevId, config: int) -> SimpleNamespace:
        if config != 0:
            raise _error("NOT_FOUND")
        return dev.device.config_descriptor()

    def get_interface_descriptor(
        self, dev: _DevId, intf: int, alt: int, config: int
    ) -> SimpleNamespace:
        cfg = self.get_configuration_descriptor(dev, config)
        if intf >= cfg.bNumInterfaces:
            raise IndexError(f"Invalid interface index {intf}")
        if alt >= 1:
            raise IndexError(f"Invalid alternate setting index {alt}")
        return dev.device.interface_descriptor()

    def get_endpoint_descriptor(
        self, dev: _DevId, ep: int, intf: int, alt: int, config: int
    ) -> SimpleNamespace:
        i = self.get_interface_descriptor(dev, intf, alt, config)
        if ep >= i.bNumEndpoints:
            raise IndexError(f"Invalid endpoint index {ep}")
        return dev.device.endpoint_descriptor(ep)

    # -- handles, configuration, interfaces -----------------------------------------------------

    def open_device(self, dev: _DevId) -> _Handle:
        d = dev.device
        with d._cond:
            if not d._alive(dev.generation):
                raise _error("NO_DEVICE")
            if not d.accessible:
                raise _error("ACCESS")
            handle = _Handle(dev)
            d._handles.add(handle)
            return handle

    def close_device(self, dev_handle: _Handle) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            dev_handle.closed = True
            dev_handle.claimed.clear()
            d._handles.discard(dev_handle)

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if config_value not in (0, 1):
                raise _error("NOT_FOUND")
            if any(h.claimed for h in d._handles):
                raise _error("BUSY")
            d.configuration = config_value

    def get_configuration(self, dev_handle: _Handle) -> int:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            return d.configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if intf not in dev_handle.claimed or altsetting != 0:
                raise _error("NOT_FOUND")

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if d.configuration == 0 or intf != d.interface:
                raise _error("NOT_FOUND")
            if d.kernel_driver or any(intf in h.claimed for h in d._handles if h is not dev_handle):
                raise _error("BUSY")
            dev_handle.claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            claimed = intf in dev_handle.claimed
            dev_handle.claimed.discard(intf)
            d._check(dev_handle)
            if not claimed:
                raise _error("NOT_FOUND")

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            return d.kernel_driver and intf == d.interface

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if not (d.kernel_driver and intf == d.interface):
                raise _error("NOT_FOUND")
            d.kernel_driver = False

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if intf in dev_handle.claimed:
                raise _error("BUSY")
            d.kernel_driver = True

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)

    def reset_device(self, dev_handle: _Handle) -> None:
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)

    # -- transfers ------------------------------------------------------------------------------

    def _read(
        self, kind: str, handle: _Handle, ep: int, intf: int, buff: array[int], timeout: int
    ) -> int:
        d = handle.dev_id.device
        deadline = None if timeout == 0 else time.monotonic() + timeout / 1000
        with d._cond:
            d._check(handle)
            if ep != d.in_ep or d.transfer != kind or intf not in handle.claimed:
                raise _error("INVALID_PARAM" if intf in handle.claimed else "NOT_FOUND")
            while not d._packets:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise _error("TIMEOUT")
                d._cond.wait(remaining)
                d._check(handle)  # unplugged while waiting: ENODEV, as libusb reports it
            size = len(buff) * buff.itemsize
            if len(d._packets[0]) > size:
                raise _error("OVERFLOW")
            got = bytearray()
            while d._packets and len(got) + len(d._packets[0]) <= size:
                packet = d._packets.popleft()
                got += packet
                if len(packet) < d.max_packet:  # a short packet ends the transfer
                    break
            buff[: len(got)] = array("B", got)
            return len(got)

    def _write(self, kind: str, handle: _Handle, ep: int, intf: int, data: array[int]) -> int:
        d = handle.dev_id.device
        with d._cond:
            d._check(handle)
            if ep != d.out_ep or d.transfer != kind or intf not in handle.claimed:
                raise _error("INVALID_PARAM" if intf in handle.claimed else "NOT_FOUND")
            payload = data.tobytes()
            d.out_transfers.append(payload)
            d._written += payload
            d._cond.notify_all()
            return len(payload)

    def bulk_read(
        self, dev_handle: _Handle, ep: int, intf: int, buff: array[int], timeout: int
    ) -> int:
        return self._read("bulk", dev_handle, ep, intf, buff, timeout)

    def intr_read(
        self, dev_handle: _Handle, ep: int, intf: int, buff: array[int], timeout: int
    ) -> int:
        return self._read("interrupt", dev_handle, ep, intf, buff, timeout)

    def bulk_write(
        self, dev_handle: _Handle, ep: int, intf: int, data: array[int], timeout: int
    ) -> int:
        return self._write("bulk", dev_handle, ep, intf, data)

    def intr_write(
        self, dev_handle: _Handle, ep: int, intf: int, data: array[int], timeout: int
    ) -> int:
        return self._write("interrupt", dev_handle, ep, intf, data)

    def ctrl_transfer(
        self,
        dev_handle: _Handle,
        bmRequestType: int,  # pyusb's parameter names
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: array[int],
        timeout: int,
    ) -> int:
        """GET_DESCRIPTOR, GET_STATUS, GET_CONFIGURATION; anything else stalls (EPIPE)."""
        d = dev_handle.dev_id.device
        with d._cond:
            d._check(dev_handle)
            if bmRequestType != _STD_DEVICE_IN:
                raise _error("PIPE")
            if bRequest == _GET_DESCRIPTOR:
                reply = d._descriptor_bytes(wValue >> 8, wValue & 0xFF, dev_handle.dev_id.address)
            elif bRequest == _GET_STATUS:
                reply = b"\x00\x00"
            elif bRequest == _GET_CONFIGURATION:
                reply = bytes([d.configuration])
            else:
                raise _error("PIPE")
        n = min(len(reply), len(data) * data.itemsize)
        data[:n] = array("B", reply[:n])
        return n
