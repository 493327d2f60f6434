"""`tablectl devices`: the serial ports and USB devices present, and which config entry is which.

For the technician setting a table up: it shows the ids needed for a `usb:` port or a udev rule,
the `/dev/serial/by-id/...` name of every serial adapter, which `[[devices]]` entry of the table
config each device answers to, and which entries match nothing present.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

import serial.tools.list_ports as list_ports

from tablectl.config import Device
from tablectl_drivers import usb

__all__ = [
    "BY_ID_DIR",
    "EntryMatch",
    "Inventory",
    "SerialPort",
    "by_id_links",
    "inventory",
    "match_entries",
    "render_json",
    "render_text",
    "run_devices",
    "serial_ports",
]

BY_ID_DIR = Path("/dev/serial/by-id")
"""Where udev puts stable serial port names (one symlink per adapter, named by its ids)."""

usb_backend: Any = None
"""The pyusb backend to list USB devices with; None lets pyusb pick libusb (tests set a sim)."""

Status = Literal["found", "present", "ambiguous", "not found", "network", "invalid", "unchecked"]
"""`present`: the path is a device pyserial does not list (a pseudo-terminal, or a link to one
such as the simulators' `--link`); `not found` only when nothing is at the path."""


@dataclass(frozen=True)
class SerialPort:
    """A serial port present, with its /dev/serial/by-id names and USB ids (if USB)."""

    device: str
    by_id: tuple[str, ...]
    vid: int | None
    pid: int | None
    serial_number: str | None
    description: str

    @property
    def ids(self) -> str | None:
        """`VVVV:PPPP` for a USB adapter, None for a built-in port."""
        if self.vid is None or self.pid is None:
            return None
        return f"{self.vid:04x}:{self.pid:04x}"


@dataclass(frozen=True)
class Hit:
    """One present device a config entry matches, and how it matched."""

    kind: Literal["serial", "usb"]
    device: str
    """The serial port's device path, or the USB device's `usb:` URL."""
    how: str
    """`path`, `by-id link` or `symlink` for serial; `vid:pid` or `vid:pid:serial` for USB."""


@dataclass(frozen=True)
class EntryMatch:
    """What a config `[[devices]]` entry finds among the devices present."""

    name: str
    driver: str
    port: str
    status: Status
    hits: tuple[Hit, ...] = ()
    note: str | None = None


@dataclass
class Inventory:
    """Everything present: serial ports, USB devices, and why USB could not be listed (if so)."""

    serial: list[SerialPort] = field(default_factory=list)
    usb: list[usb.UsbInfo] = field(default_factory=list)
    usb_error: str | None = None


def by_id_links(directory: Path = BY_ID_DIR) -> dict[str, list[str]]:
    """Resolved device path -> the by-id symlinks naming it; empty if the directory is absent."""
    links: dict[str, list[str]] = {}
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return links
    for entry in entries:
        if entry.is_symlink():
            links.setdefault(os.path.realpath(entry), []).append(str(entry))
    return links


def serial_ports(by_id_dir: Path | None = None) -> list[SerialPort]:
    """The serial ports pyserial finds, each with its by-id names, sorted by device path."""
    links = by_id_links(BY_ID_DIR if by_id_dir is None else by_id_dir)
    ports = []
    for info in list_ports.comports():
        device = str(info.device)
        description = info.description if info.description not in (None, "n/a") else ""
        ports.append(
            SerialPort(
                device=device,
                by_id=tuple(links.get(os.path.realpath(device), ())),
                vid=info.vid,
                pid=info.pid,
                serial_number=info.serial_number,
                description=str(description),
            )
        )
    return sorted(ports, key=lambda p: p.device)


def inventory(by_id_dir: Path | None = None) -> Inventory:
    """Serial ports and USB devices present now; a USB listing failure is noted, not raised."""
    inv = Inventory(serial=serial_ports(by_id_dir))
    try:
        inv.usb = usb.list_devices(usb_backend)
    except OSError as exc:  # no libusb, no usbfs
        inv.usb_error = str(exc)
    return inv


def _serial_hit(port: str, p: SerialPort) -> Hit | None:
    """How config `port` names serial port `p`, if it does."""
    if port == p.device:
        return Hit("serial", p.device, "path")
    if port in p.by_id:
        return Hit("serial", p.device, "by-id link")
    if os.path.realpath(port) == os.path.realpath(p.device):
        return Hit("serial", p.device, "symlink")
    return None


def _match(entry: Device, inv: Inventory) -> EntryMatch:
    def result(status: Status, hits: tuple[Hit, ...] = (), note: str | None = None) -> EntryMatch:
        return EntryMatch(entry.name, entry.driver, entry.port, status, hits, note)

    if usb.is_usb_port(entry.port):
        try:
            address = usb.parse_usb_url(entry.port)
        except ValueError as exc:
            return result("invalid", note=str(exc))
        if inv.usb_error is not None:
            return result("unchecked", note=inv.usb_error)
        how = address.ids + ("" if address.serial is None else f":{address.serial}")
        hits = tuple(Hit("usb", i.url, how) for i in inv.usb if i.matches(address))
        if len(hits) > 1:
            note = f"{len(hits)} devices {address.ids}: the first found is opened; add the serial"
            return result("ambiguous", hits, note)
        if hits:
            return result("found", hits)
        unreadable = [
            i for i in inv.usb if (i.vid, i.pid) == (address.vid, address.pid) and i.serial is None
        ]
        if address.serial is not None and unreadable:
            note = (
                f"{len(unreadable)} device(s) {address.ids} whose serial cannot be read "
                "(no permission? see systemd/99-tablectl.rules)"
            )
            return result("not found", note=note)
        return result("not found")
    if "://" in entry.port:
        return result("network", note="a network port: not checked here")
    hits = tuple(h for p in inv.serial if (h := _serial_hit(entry.port, p)) is not None)
    if hits:
        return result("found", hits)
    status, why = _unlisted(entry.port)
    return result(status, note=why)


def _unlisted(port: str) -> tuple[Status, str | None]:
    """A serial port path pyserial does not list: `not found` only if nothing is there."""
    try:
        mode = os.stat(port).st_mode  # follows links: what the driver would open
    except (FileNotFoundError, NotADirectoryError):  # a dangling link too
        return "not found", None
    except OSError as exc:
        return "unchecked", f"cannot check {port}: {exc.strerror}"
    target = os.path.realpath(port)
    if not stat.S_ISCHR(mode):
        return "invalid", f"{target} exists but is not a device"
    return "present", f"{target} is a device that pyserial does not list (a pseudo-terminal?)"


def match_entries(entries: Iterable[Device], inv: Inventory) -> list[EntryMatch]:
    """What each config entry finds among the devices present, in config order."""
    return [_match(e, inv) for e in entries]


def _users(matches: Sequence[EntryMatch], kind: str, device: str) -> list[str]:
    """Names of the config entries that matched the present device `device`."""
    return [m.name for m in matches if any(h.kind == kind and h.device == device for h in m.hits)]


def render_json(inv: Inventory, matches: Sequence[EntryMatch] | None) -> str:
    """The inventory and matches as one JSON document (ids as 4-digit hex strings)."""
    ms = matches or []
    doc: dict[str, Any] = {
        "serial_ports": [
            {
                "device": p.device,
                "by_id": list(p.by_id),
                "vid": None if p.vid is None else f"{p.vid:04x}",
                "pid": None if p.pid is None else f"{p.pid:04x}",
                "serial_number": p.serial_number,
                "description": p.description,
                "config": _users(ms, "serial", p.device),
            }
            for p in inv.serial
        ],
        "usb_devices": [{**i.as_dict(), "config": _users(ms, "usb", i.url)} for i in inv.usb],
        "usb_error": inv.usb_error,
    }
    if matches is not None:
        doc["config"] = [
            {
                "name": m.name,
                "driver": m.driver,
                "port": m.port,
                "status": m.status,
                "matches": [{"kind": h.kind, "device": h.device, "how": h.how} for h in m.hits],
                "note": m.note,
            }
            for m in matches
        ]
    return json.dumps(doc, indent=2)


def render_text(inv: Inventory, matches: Sequence[EntryMatch] | None) -> str:
    """The inventory and matches for a person reading a terminal."""
    ms = matches or []
    lines = ["Serial ports:"]
    if not inv.serial:
        lines.append("  (none)")
    for p in inv.serial:
        parts = [p.device, p.ids or "", f"serial {p.serial_number}" if p.serial_number else ""]
        lines.append("  " + "  ".join(x for x in [*parts, p.description] if x))
        lines.extend(f"      by-id: {link}" for link in p.by_id)
        if users := _users(ms, "serial", p.device):
            lines.append(f"      config: {', '.join(users)}")
    lines.append("USB devices:")
    if inv.usb_error is not None:
        lines.append(f"  (cannot list: {inv.usb_error})")
    elif not inv.usb:
        lines.append("  (none)")
    for i in inv.usb:
        where = f"bus {i.bus:03d} address {i.address:03d}" if i.bus and i.address else ""
        names = " ".join(x for x in (i.manufacturer, i.product) if x)
        lines.append("  " + "  ".join(x for x in (i.url, where, names) if x))
        if users := _users(ms, "usb", i.url):
            lines.append(f"      config: {', '.join(users)}")
    if matches is not None:
        lines.append("Config entries:")
        if not matches:
            lines.append("  (none)")
        for m in matches:
            found = ", ".join(f"{h.device} ({h.how})" for h in m.hits)
            result = f"{m.status}: {found}" if found else m.status
            lines.append(f"  {m.name} [{m.driver}] {m.port}: {result}")
            if m.note:
                lines.append(f"      {m.note}")
    return "\n".join(lines)


def run_devices(
    entries: Sequence[Device] | None, *, as_json: bool, out: TextIO, by_id_dir: Path | None = None
) -> int:
    """List what is present (and match `entries`, the config's devices, if given); exit 0."""
    inv = inventory(by_id_dir)
    matches = None if entries is None else match_entries(entries, inv)
    out.write((render_json if as_json else render_text)(inv, matches) + "\n")
    return 0
