"""Each device's port and baud rate: as written (a Windows name, a path that is not whole, a
pseudo-terminal, a rate Linux has no name for) and as the path is on disk now."""

from __future__ import annotations

import os
import re
import stat

from tablectl.config.loaded import LoadedConfig
from tablectl.config.problems import Problem, shown
from tablectl.config.sections import Device, section_or_none

STANDARD_BAUDS = (
    50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600,
    115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000,
    2500000, 3000000, 3500000, 4000000,
)  # fmt: skip
"""The serial rates Linux names (termios B50 ... B4000000): any other needs `custom_baud`."""
PTY = re.compile(r"^/dev/pts/[0-9]+$")
"""A pseudo-terminal's path: an emulator's port, never a device's (`Device.emulator`)."""
WINDOWS_PORT = re.compile(r"^(?i:com)[0-9]+:?$")
"""A Windows serial port name, which names nothing on the Linux table PC."""


def is_port_path(port: str) -> bool:
    """Whether a device `port` names a file (a device path), not a pyserial URL (`socket://`,
    `rfc2217://`) or a plain USB device (`usb:`)."""
    return "://" not in port and not port.startswith("usb:")


def written_port_problems(name: str, devices: object) -> list[Problem]:
    """What is wrong with each device's port and baud rate as written, nothing looked up
    (`port_problems` looks at the path): a Windows port name; a path that is not whole; a
    pseudo-terminal not said to be an emulator's; a rate Linux has no name for, unless
    `custom_baud` says it is meant."""
    if not isinstance(devices, list):
        return []
    out = []
    for i, raw in enumerate(devices):
        dev = section_or_none(Device, raw)
        if dev is None:
            continue  # reported by the full pass
        port, key = dev.port, f"devices[{i}].port"
        if WINDOWS_PORT.match(port):
            out.append(
                Problem(
                    name,
                    key,
                    f"{shown(port)} is a Windows port name, which names nothing here: give the "
                    "Linux path, best the stable one (/dev/serial/by-id/..., or the "
                    "/dev/tablectl-* name systemd/99-tablectl.rules gives); `tablectl devices` "
                    "lists the ports present",
                )
            )
        elif is_port_path(port) and not port.startswith("/"):
            out.append(
                Problem(
                    name,
                    key,
                    f"{shown(port)} is not a whole path: give it from /dev (e.g. "
                    f'"/dev/{port.removeprefix("./")}"), a pyserial URL (socket://host:port) or a '
                    "usb: port",
                )
            )
        elif PTY.match(port) and not dev.emulator:
            out.append(Problem(name, key, _pty_reason(port)))
        usb = port.startswith("usb:")  # USB has no line speed: its baud is never used
        if not usb and not dev.custom_baud and dev.baud not in STANDARD_BAUDS:
            below = max((b for b in STANDARD_BAUDS if b < dev.baud), default=None)
            above = min((b for b in STANDARD_BAUDS if b > dev.baud), default=None)
            near = " or ".join(str(b) for b in (below, above) if b is not None)
            out.append(
                Problem(
                    name,
                    f"devices[{i}].baud",
                    f"{dev.baud} is not a standard serial rate (the nearest are {near}): check "
                    f"the device's manual; if it really runs at {dev.baud}, set "
                    "custom_baud = true on this device",
                )
            )
    return out


def _pty_reason(port: str, target: str | None = None) -> str:
    """Why a pseudo-terminal port is refused unless the device says `emulator = true`."""
    via = "" if target is None else f" (a link to {target})"
    return (
        f"{shown(port)}{via} is a pseudo-terminal, which no device is: an emulator's (tablectl "
        "demo, hil/, a simulator) lasts only while it runs, and the next terminal opened gets its "
        "number, so tablectl would write into somebody's terminal; set emulator = true on this "
        "device only if an emulator serves it"
    )


def port_problems(cfg: LoadedConfig) -> list[Problem]:
    """Each device port that is a path, as it is on disk now (nothing opened): something there
    that is not a character device (a serial port is one) is refused, and so is one that leads
    to a pseudo-terminal when the device does not say it is an emulator's. Nothing there is
    `port_warnings`' to say: a config is often written before the device is plugged in."""
    from tablectl.paths import kind

    out = []
    for i, dev in enumerate(cfg.table.devices):
        if not is_port_path(dev.port) or not dev.port.startswith("/"):
            continue
        key = f"devices[{i}].port"
        try:
            st = os.stat(dev.port)
        except (FileNotFoundError, NotADirectoryError):
            continue  # nothing there, or a link to nothing: a warning
        except OSError as exc:
            out.append(Problem(str(cfg.path), key, f"{shown(dev.port)}: {exc.strerror}"))
            continue
        if not stat.S_ISCHR(st.st_mode):
            link = os.path.islink(dev.port)
            what = f"a symbolic link to {kind(st.st_mode)}" if link else kind(st.st_mode)
            out.append(
                Problem(
                    str(cfg.path),
                    key,
                    f"{shown(dev.port)} is {what}, not a character device: a serial port is one; "
                    "name the device's port (`tablectl devices` lists them)",
                )
            )
            continue
        target = os.path.realpath(dev.port)
        if PTY.match(target) and target != dev.port and not dev.emulator:
            out.append(Problem(str(cfg.path), key, _pty_reason(dev.port, target)))
    return out


def port_warnings(cfg: LoadedConfig) -> list[str]:
    """Each device port that is a path with nothing there (or a link to nothing): not refused,
    since a config is often written before its device is plugged in, but said; `tablectl
    devices` is the live check of the ports present."""
    out = []
    for i, dev in enumerate(cfg.table.devices):
        if not is_port_path(dev.port) or not dev.port.startswith("/"):
            continue
        if os.path.exists(dev.port):
            continue
        dangling = os.path.islink(dev.port)
        what = "is a link to nothing" if dangling else "is not there"
        remedy = "start its emulator" if dev.emulator else "plug the device in, or correct the port"
        out.append(
            str(
                Problem(
                    str(cfg.path),
                    f"devices[{i}].port",
                    f"{shown(dev.port)} {what} (yet): {remedy}; until then the table runs "
                    "without it and reports it unavailable (`tablectl devices` shows whether it "
                    "is found)",
                )
            )
        )
    return out
