"""The default Connector for every driver: `usb:` ports through pyusb, the rest through pyserial.

A driver never cares which: it gets a port string from the config and `(transport, protocol)`
back. Serial covers device paths, `/dev/serial/by-id/...` links and pyserial URLs
(`socket://host:port`, `rfc2217://host:port`); `usb:VVVV:PPPP[:SERIAL]` opens a plain USB
device (tablectl_drivers/usb.py, docs/protocols/usb.md).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablectl_drivers import usb
from tablectl_drivers.link import ProtocolFactory, serial_connector

__all__ = ["connect", "port_serial"]


async def connect(
    protocol_factory: ProtocolFactory, port: str, baud: int, *, usb_backend: Any = None
) -> tuple[asyncio.BaseTransport, asyncio.Protocol]:
    """Open `port` at `baud` by its kind; `usb_backend` is a pyusb backend for tests and rigs."""
    if usb.is_usb_port(port):
        return await usb.usb_connector(protocol_factory, port, baud, backend=usb_backend)
    return await serial_connector(protocol_factory, port, baud)


if TYPE_CHECKING:
    from tablectl_drivers.link import Connector

    _conforms: Connector = connect


BY_ID = Path("/dev/serial/by-id")


def port_serial(port: str, by_id: Path = BY_ID) -> str | None:
    """The identity of the device behind `port`, for round results (which devices, which
    serials): a `usb:` URL's serial, or the `/dev/serial/by-id` name (which carries the adapter's
    USB serial) of a path or of the udev link pointing at the same device; None otherwise."""
    if usb.is_usb_port(port):
        try:
            return usb.parse_usb_url(port).serial
        except ValueError:
            return None
    path = Path(port)
    if path.parent == by_id:
        return path.name
    try:
        target = path.resolve(strict=True)
        for link in by_id.iterdir():
            if link.resolve() == target:
                return link.name
    except OSError:
        return None
    return None
