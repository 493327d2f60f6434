"""What `scripts/install` derives from the table's config: the udev rules for
the devices it names, so a technician installs the rules the table needs and no others.

- A plain USB device (`port = "usb:VVVV:PPPP[:SERIAL]"`): its rule, exact, from the URL's ids.
- A serial device on a stable name (`port = "/dev/tablectl-<class>"`): the shipped example rule
  of that name from `systemd/99-tablectl.rules`, active, with its example ids marked for the
  technician to replace (a serial adapter's ids are not in the config).
- Any other port (`/dev/serial/by-id/...`, `/dev/ttyUSB0`): no rule; the name is already stable
  (or not, and `tablectl devices` says so), and group dialout gives access.

usage: python -m tablectl.install udev-rules CONFIG [SHIPPED_RULES]   (prints the rules)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tablectl.config import load_config

SHIPPED = Path(__file__).resolve().parent.parent / "systemd" / "99-tablectl.rules"
_USB = re.compile(r"^usb:([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(?::(.+))?$")


def _example_rule(shipped: str, name: str) -> list[str] | None:
    """The shipped example rule (its lines, uncommented) that names /dev/<name>, or None."""
    lines = shipped.splitlines()
    for i, line in enumerate(lines):
        if f'SYMLINK+="{name}"' not in line or "ID_USB_INTERFACE_NUM" in lines[i - 1]:
            continue
        start = i
        while start > 0 and lines[start - 1].rstrip().endswith("\\"):
            start -= 1
        return [ln.removeprefix("#") for ln in lines[start : i + 1]]
    return None


def udev_rules(config: Path, shipped_rules: Path = SHIPPED) -> str:
    """The rules file for the devices `config` names (see the module docstring)."""
    cfg = load_config(config)
    shipped = shipped_rules.read_text(encoding="utf-8")
    out = [
        f"# udev rules for {cfg.table.site}/{cfg.table.table}, made by scripts/install from",
        f"# {config.name}. Reload: udevadm control --reload && udevadm trigger",
        "",
    ]
    for dev in cfg.table.devices:
        usb = _USB.match(dev.port)
        if usb:
            vendor, product, serial = usb[1].lower(), usb[2].lower(), usb[3]
            match = f'ATTR{{serial}}=="{serial}", ' if serial else ""
            out += [
                f"# {dev.name} ({dev.driver}): {dev.port}",
                'SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", '
                f'ATTR{{idVendor}}=="{vendor}", ATTR{{idProduct}}=="{product}", \\',
                f'    {match}GROUP="tablectl", MODE="0660", TAG+="systemd"',
                "",
            ]
            continue
        if not dev.port.startswith("/dev/tablectl-"):
            out += [f"# {dev.name} ({dev.driver}): {dev.port} needs no rule", ""]
            continue
        name = dev.port.removeprefix("/dev/")
        rule = _example_rule(shipped, name) or [
            'SUBSYSTEM=="tty", ATTRS{idVendor}=="0000", ATTRS{idProduct}=="0000", '
            'ATTRS{serial}=="CHANGEME", \\',
            f'    SYMLINK+="{name}", GROUP="dialout", MODE="0660", TAG+="systemd"',
        ]
        out += [
            f"# {dev.name} ({dev.driver}): {dev.port}. EDIT the ids below to your adapter's",
            "# (tablectl devices, lsusb): these are the shipped example's.",
            *rule,
            "",
        ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or argv[0] != "udev-rules":
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    shipped = Path(argv[2]) if len(argv) == 3 else SHIPPED
    sys.stdout.write(udev_rules(Path(argv[1]), shipped))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
