"""`tablectl devices`: the serial ports and USB devices present, matched to the config's
[[devices]] entries."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tablectl.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, add_command, default_config
from tablectl.config import load_config


def add_parser(sub: Any) -> None:
    default = default_config()
    devices = add_command(
        sub,
        "devices",
        "list serial ports and USB devices, matched to config",
        "List the serial ports and USB devices present and which config [[devices]] entry each\n"
        f"one is. The config is {default} when it exists, unless --config names one.\n"
        "Exit 1 when a configured device is not found (or its port is invalid).",
        [
            "tablectl devices",
            "tablectl devices --config table.toml --json",
            "tablectl devices --check   # only the configured devices; exit 1 if one is missing",
        ],
    )
    devices.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"match them to this config's [[devices]] (default {default} if it exists)",
    )
    devices.add_argument(
        "--check",
        action="store_true",
        help="print only the configured devices that are missing (nothing when all are found); "
        "needs a config",
    )
    devices.add_argument("--json", action="store_true", help="everything as one JSON document")
    devices.set_defaults(func=cmd_devices)


MISSING = ("not found", "invalid")
"""A configured device's `devices` status that fails the check (exit 1)."""


def cmd_devices(args: argparse.Namespace) -> int:
    from tablectl import devices

    config: Path | None = args.config
    if config is None and default_config().exists():
        config = default_config()
    if args.check and config is None:
        print(
            f"tablectl: devices --check needs a config: give --config (no {default_config()})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    entries = load_config(config).table.devices if config is not None else None
    inv = devices.inventory()
    matches = None if entries is None else devices.match_entries(entries, inv)
    missing = [m for m in matches or () if m.status in MISSING]
    if not args.check:
        render = devices.render_json if args.json else devices.render_text
        sys.stdout.write(render(inv, matches) + "\n")
    elif args.json:
        gone = [
            {"name": m.name, "driver": m.driver, "port": m.port, "status": m.status, "note": m.note}
            for m in missing
        ]
        print(json.dumps({"missing": gone}, indent=2))
    else:
        for m in missing:
            print(f"{m.name} [{m.driver}] {m.port}: {m.status}" + (f": {m.note}" if m.note else ""))
    if missing:
        names = ", ".join(m.name for m in missing)
        print(f"tablectl: {config}: device(s) not found: {names}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK
