"""`tablectl ledger`: the card room's books in PostgreSQL (tablectl/ledger/; docs/operations.md
"The ledger"). `run` keeps every table of the configured sites; `gaps` says which message
numbers each table's books still lack. The ledger's modules (and psycopg) load only when a
ledger command runs: a table's `tablectl` never needs them."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tablectl.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, add_command

DEFAULT_LEDGER_CONFIG = Path("/etc/tablectl/ledger.toml")


def add_parser(sub: Any) -> None:
    ledger = add_command(
        sub,
        "ledger",
        "the card room's books: every table's rounds in PostgreSQL",
        "Keep every numbered message the tables of the configured sites publish (round\n"
        "results, inputs, alerts, device status) in PostgreSQL, one row per (table, seq).\n"
        "systemd starts `ledger run` (systemd/tablectl-ledger.service).",
        [
            f"tablectl ledger run --config {DEFAULT_LEDGER_CONFIG}",
            "tablectl ledger gaps --config ledger.toml --json",
        ],
    )
    actions = ledger.add_subparsers(
        dest="ledger_command", required=True, metavar="ACTION", help="run or gaps"
    )
    run = actions.add_parser("run", help="read the broker and write the books until stopped")
    gaps = actions.add_parser("gaps", help="each table's missing message numbers")
    gaps.add_argument("--json", action="store_true", help="as one JSON object")
    for p in (run, gaps):
        p.add_argument(
            "--config",
            type=Path,
            default=DEFAULT_LEDGER_CONFIG,
            help=f"the ledger's config (default {DEFAULT_LEDGER_CONFIG})",
        )
    run.set_defaults(func=cmd_ledger_run)
    gaps.set_defaults(func=cmd_ledger_gaps)


def cmd_ledger_run(args: argparse.Namespace) -> int:
    from tablectl.ledger.service import Ledger
    from tablectl.ledger.settings import LedgerConfigError, load_ledger_config
    from tablectl.logs import configure_logging

    try:
        cfg = load_ledger_config(args.config)
    except LedgerConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    configure_logging("info")
    ledger = Ledger(cfg, args.config.parent)
    try:
        asyncio.run(ledger.run())
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        ledger.close()
    return EXIT_FAIL  # run() returns only by failing


def cmd_ledger_gaps(args: argparse.Namespace) -> int:
    import psycopg

    from tablectl.ledger.service import Ledger
    from tablectl.ledger.settings import LedgerConfigError, load_ledger_config
    from tablectl.ledger.store import LedgerStore

    try:
        cfg = load_ledger_config(args.config)
    except LedgerConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    try:
        store = LedgerStore(Ledger(cfg, args.config.parent).conninfo)
    except psycopg.Error as exc:
        print(f"tablectl ledger: the database: {exc}".rstrip(), file=sys.stderr)
        return EXIT_FAIL
    try:
        found = store.gaps()
        tables = {f"{site}/{table}": r for (site, table), r in sorted(store.tables.items())}
    finally:
        store.close()
    if args.json:
        out = {
            name: {"through": r.through, "highest": r.highest, "gaps": r.gaps()}
            for name, r in tables.items()
        }
        print(json.dumps(out, sort_keys=True))
    else:
        for name, r in tables.items():
            gaps = ", ".join(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in r.gaps())
            print(f"{name}: through {r.through}, highest {r.highest}, missing {gaps or 'none'}")
    return EXIT_FAIL if found else EXIT_OK
