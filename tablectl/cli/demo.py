"""`tablectl demo`: a simulated EZ Baccarat table, end to end."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tablectl.cli.common import add_command


def add_parser(sub: Any) -> None:
    demo = add_command(
        sub,
        "demo",
        "a simulated EZ Baccarat table, end to end",
        "Run a simulated EZ Baccarat table end to end: a simulated shoe, the daemon, a journal\n"
        "in --dir and messages on a local MQTT broker (Mosquitto on --mqtt-port).",
        ["tablectl demo", "tablectl demo --rounds 0 --delay 1 --table bac-7"],
    )
    demo.add_argument("--rounds", type=int, default=12, help="rounds to play (0 = until Ctrl-C)")
    demo.add_argument(
        "--dir", type=Path, default=Path("demo-data"), help="where its files go (default demo-data)"
    )
    demo.add_argument(
        "--mqtt-port", type=int, default=1883, help="the broker's port (default 1883)"
    )
    demo.add_argument("--seed", type=int, default=7, help="the shuffle's seed (default 7)")
    demo.add_argument("--delay", type=float, default=0.15, help="seconds between cards")
    demo.add_argument("--table", default="bac-1", help="the demo table's id (its topics' name)")
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from tablectl.demo import run_demo

    return run_demo(
        args.dir,
        rounds=args.rounds,
        mqtt_port=args.mqtt_port,
        seed=args.seed,
        delay=args.delay,
        table=args.table,
    )
