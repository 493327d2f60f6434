"""`tablectl run` (the table daemon) and `tablectl status` (ask the running daemon over its local
socket): the two commands of a running table."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_command,
    config_arg,
    default_config,
)
from tablectl.config import checked_paths, load_config
from tablectl.logs import configure_logging


def add_run_parser(sub: Any) -> None:
    run = add_command(
        sub,
        "run",
        "run the table daemon",
        "Run the table: read the devices, journal every input, play the game, publish over MQTT.\n"
        "systemd starts it (systemd/tablectl.service); exit 1 when it stopped on a failure.",
        [f"tablectl run --config {default_config()}", "tablectl run"],
    )
    config_arg(run)
    run.set_defaults(func=cmd_run)


def add_status_parser(sub: Any) -> None:
    status = add_command(
        sub,
        "status",
        "the running table: round, holds, devices, broker, backlog, journal",
        "Ask the running daemon, over its local socket beside the journal (no MQTT client),\n"
        "for the round and phase, any hold and why, each device with the age of its last\n"
        "frame, the broker link, the unsent backlog, the journal's size and next month's\n"
        "close, and the last result in one line.\n"
        "Exit 0 running and clear; 1 held (a round, a journal fault, an unwritable journal)\n"
        "or a device in fault; 3 not running; 2 usage or config error.",
        [
            "tablectl status",
            f"tablectl status --config {default_config()} --json",
            "tablectl status --watch",
        ],
    )
    config_arg(status)
    status.add_argument(
        "--json", action="store_true", help="the daemon's report as JSON, with `exit` and `state`"
    )
    status.add_argument(
        "--watch",
        action="store_true",
        help="ask every second until Ctrl-C: redraw on a terminal, else print each change",
    )
    status.set_defaults(func=cmd_status)


def cmd_run(args: argparse.Namespace) -> int:
    cfg = checked_paths(load_config(args.config))  # nothing opened that check-config refuses
    configure_logging(cfg.table.log_level)
    from tablectl.daemon import Daemon

    async def go() -> bool:
        daemon = Daemon(cfg)
        await daemon.run()
        return daemon.failed

    return EXIT_FAIL if asyncio.run(go()) else EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """`tablectl status` (tablectl/cli/status.py): the config names the journal, the socket is
    beside it."""
    from tablectl.cli import status as status_cmd
    from tablectl.status_socket import StatusUnreadable, socket_path

    cfg = load_config(args.config)
    try:
        return status_cmd.main(
            f"{cfg.table.site}/{cfg.table.table}",
            socket_path(cfg.journal_path),
            as_json=args.json,
            watching=args.watch,
        )
    except StatusUnreadable as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return EXIT_USAGE
