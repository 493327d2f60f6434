"""`tablectl broker-acl`: the Mosquitto ACL (or the user names) for a card room's tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tablectl.cli.common import EXIT_OK, EXIT_USAGE, add_command, default_config
from tablectl.config import ConfigError, load_config


def add_parser(sub: Any) -> None:
    acl = add_command(
        sub,
        "broker-acl",
        "the Mosquitto ACL for a card room's tables",
        "Print the Mosquitto ACL (or only the user names) for the tables whose configs are\n"
        "given: every table's user and the floor's, each with its topics only.",
        [
            "tablectl broker-acl --config t1.toml --config t2.toml > /etc/mosquitto/tablectl.acl",
            "tablectl broker-acl --users",
            "tablectl broker-acl --config t1.toml --config t2.toml --screens 4",
        ],
    )
    acl.add_argument(
        "--config",
        action="append",
        type=Path,
        dest="configs",
        metavar="FILE",
        help=f"a table config (repeatable: one per table; default {default_config()})",
    )
    acl.add_argument("--users", action="store_true", help="only the user names, one a line")
    acl.add_argument(
        "--display-results",
        action="store_true",
        help="let the display-<site> role read round/result too (the scoreboard's last hand and "
        "side-bet hits): it names every player id with each wager's result",
    )
    acl.add_argument(
        "--screens",
        type=int,
        default=1,
        metavar="N",
        help="users for N screens or systems per site of the floor and display roles "
        "(floor-<site>, floor-<site>-2 ...): on the shipped broker config a user is one "
        "connection at a time (use_username_as_clientid)",
    )
    acl.set_defaults(func=cmd_broker_acl)


def cmd_broker_acl(args: argparse.Namespace) -> int:
    """Every table's broker users and their ACL (tablectl/broker.py; docs/operations.md)."""
    from tablectl.broker import acl_text, room_users

    tables, problems = [], []
    for path in args.configs or [default_config()]:
        try:
            tables.append(load_config(path).table)
        except ConfigError as exc:
            problems += exc.problems
    if problems:
        raise ConfigError(problems)
    try:
        users = room_users(tables, display_results=args.display_results, screens=args.screens)
    except ValueError as exc:
        print(f"tablectl broker-acl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write("".join(u.name + "\n" for u in users) if args.users else acl_text(users))
    return EXIT_OK
