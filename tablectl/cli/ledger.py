"""`tablectl ledger`: the card room's books in PostgreSQL (tablectl/ledger/; docs/operations.md
"The ledger"). `run` keeps every table of the configured sites; `gaps` says which message
numbers each table's books still lack. The ledger's modules (and psycopg) load only when a
ledger command runs: a table's `tablectl` never needs them."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
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
            "tablectl ledger load --config ledger.toml --table-config t1.toml t1-export.jsonl",
            "tablectl ledger gaps --config ledger.toml --json",
            "tablectl ledger report --shift day --date 2026-11-29 --format pdf --output day.pdf",
        ],
    )
    actions = ledger.add_subparsers(
        dest="ledger_command", required=True, metavar="ACTION", help="run, gaps, report or load"
    )
    run = actions.add_parser("run", help="read the broker and write the books until stopped")
    gaps = actions.add_parser("gaps", help="each table's missing message numbers")
    gaps.add_argument("--json", action="store_true", help="as one JSON object")
    report = actions.add_parser("report", help="a shift's report: csv, html or pdf")
    report.add_argument("--shift", help="a shift the config names (day, swing, grave ...)")
    report.add_argument("--date", help="the day the shift starts (YYYY-MM-DD, the room's clock)")
    report.add_argument("--from", dest="start", help="or the hours: from (ISO 8601)")
    report.add_argument("--to", dest="end", help="to (ISO 8601)")
    report.add_argument(
        "--format", choices=("csv", "html", "pdf"), default="csv", help="default csv"
    )
    report.add_argument(
        "--output", type=Path, help="the file to write (default: standard output; pdf needs one)"
    )
    report.set_defaults(func=cmd_ledger_report)
    load = actions.add_parser("load", help="a table's export into the books (pruned numbers)")
    load.add_argument("--table-config", type=Path, required=True, help="the table's config")
    load.add_argument("export", type=Path, help="`tablectl export` of that table (JSON lines)")
    load.set_defaults(func=cmd_ledger_load)
    for p in (run, gaps, report, load):
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

    async def until_stopped() -> None:
        """The ledger until SIGTERM or SIGINT, which end it cleanly (its DISCONNECT sent)."""
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, task.cancel)
        await ledger.run()

    try:
        asyncio.run(until_stopped())
    except asyncio.CancelledError:
        ledger.flush()
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
        store = LedgerStore(Ledger(cfg, args.config.parent).conninfo, writer=False)
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


def cmd_ledger_report(args: argparse.Namespace) -> int:
    from datetime import UTC, date, datetime

    import psycopg

    from tablectl.ledger.pdf import PdfError, print_pdf
    from tablectl.ledger.report import build_report
    from tablectl.ledger.report_formats import to_csv, to_html
    from tablectl.ledger.service import Ledger
    from tablectl.ledger.settings import LedgerConfigError, load_ledger_config
    from tablectl.ledger.shifts import hours, shift_on

    try:
        cfg = load_ledger_config(args.config)
        if args.shift and args.date and not (args.start or args.end):
            shift = shift_on(args.shift, date.fromisoformat(args.date), cfg.shifts, cfg.timezone)
        elif args.start and args.end and not (args.shift or args.date):
            shift = hours(args.start, args.end)
        else:
            raise ValueError("give --shift and --date, or --from and --to")
        if args.format == "pdf" and args.output is None:
            raise ValueError("--format pdf needs --output FILE")
    except (LedgerConfigError, ValueError) as exc:
        print(f"tablectl ledger report: {exc}", file=sys.stderr)
        return EXIT_USAGE
    made = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        with psycopg.connect(Ledger(cfg, args.config.parent).conninfo) as conn:
            report = build_report(conn, cfg.sites, shift, made)
    except psycopg.Error as exc:
        print(f"tablectl ledger report: the database: {exc}".rstrip(), file=sys.stderr)
        return EXIT_FAIL
    text = to_csv(report) if args.format == "csv" else to_html(report)
    if args.format == "pdf":
        try:
            print_pdf(text, args.output)
        except PdfError as exc:
            print(f"tablectl ledger report: {exc}", file=sys.stderr)
            return EXIT_FAIL
    elif args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_ledger_load(args: argparse.Namespace) -> int:
    import psycopg

    from tablectl.config import load_config
    from tablectl.ledger.load import load_export
    from tablectl.ledger.service import Ledger
    from tablectl.ledger.settings import LedgerConfigError, load_ledger_config
    from tablectl.ledger.store import LedgerBusy, LedgerStore

    try:
        cfg = load_ledger_config(args.config)
    except LedgerConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    table_cfg = load_config(args.table_config)  # ConfigError: reported by main, exit 2
    if table_cfg.table.site not in cfg.sites:
        print(
            f"tablectl ledger load: {args.table_config}: site {table_cfg.table.site!r} is not "
            f"one the ledger keeps ({', '.join(cfg.sites)})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        lines = args.export.read_text(encoding="utf-8", errors="replace").splitlines(True)
    except OSError as exc:
        print(f"tablectl ledger load: {args.export}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    try:
        store = LedgerStore(Ledger(cfg, args.config.parent).conninfo)
    except LedgerBusy as exc:
        print(f"tablectl ledger load: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except psycopg.Error as exc:
        print(f"tablectl ledger load: the database: {exc}".rstrip(), file=sys.stderr)
        return EXIT_FAIL
    try:
        done = load_export(store, table_cfg, lines)
        left = store.gaps().get((table_cfg.table.site, table_cfg.table.table), [])
    finally:
        store.close()
    print(
        f"{table_cfg.table.site}/{table_cfg.table.table}: {done.counted} numbers new, "
        f"{done.rows} rows written, {done.repeated} already held; gaps left: "
        + (", ".join(f"{lo}-{hi}" for lo, hi in left) or "none")
    )
    return EXIT_OK
