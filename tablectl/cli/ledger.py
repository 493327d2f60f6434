"""`tablectl ledger`: the card room's books in PostgreSQL (tablectl/ledger/; docs/operations.md
"The ledger"). `run` keeps every table of the configured sites; `gaps` says which message
numbers each table's books still lack. The ledger's modules (and psycopg) load only when a
ledger command runs: a table's `tablectl` never needs them."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import signal
import sys
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablectl.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, add_command

if TYPE_CHECKING:  # the ledger's modules load only when a ledger command runs
    from tablectl.ledger.settings import LedgerSection
    from tablectl.ledger.store import LedgerStore

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


class _Refused(Exception):
    """A ledger command that cannot go on: its exit code and what to print."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _reported(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """The command, with a `_Refused` printed on the standard error and its code returned."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except _Refused as exc:
            print(f"tablectl ledger {args.ledger_command}: {exc}", file=sys.stderr)
            return exc.code

    return run


def _config(args: argparse.Namespace) -> LedgerSection:
    """The ledger's config, or `_Refused` (exit 2) naming each key that is wrong."""
    from tablectl.ledger.settings import LedgerConfigError, load_ledger_config

    try:
        return load_ledger_config(args.config)
    except LedgerConfigError as exc:
        raise _Refused(EXIT_USAGE, str(exc)) from None


def _store(args: argparse.Namespace, cfg: LedgerSection, *, writer: bool) -> LedgerStore:
    """The books, as their one writer or a reader; `_Refused` when another writer holds them
    (exit 1: try again) or they cannot be used (exit 2: the database out of reach, or books
    none made yet or another release migrated)."""
    from tablectl.ledger.service import Ledger
    from tablectl.ledger.store import LedgerBusy, LedgerStore

    try:
        with _books_usable():
            return LedgerStore(Ledger(cfg, args.config).conninfo, writer=writer)
    except LedgerBusy as exc:
        raise _Refused(EXIT_FAIL, str(exc)) from None


@_reported
def cmd_ledger_run(args: argparse.Namespace) -> int:
    from tablectl.ledger.schema import SchemaError
    from tablectl.ledger.service import Ledger
    from tablectl.logs import configure_logging

    cfg = _config(args)
    configure_logging("info")
    ledger = Ledger(cfg, args.config)

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
    except BaseExceptionGroup as group:  # a task of the ledger's failed
        schema = group.subgroup(SchemaError)
        if schema is None:
            raise
        # A database this ledger must not write (migrated by a newer one): said in a line,
        # not a traceback; what it received and could not store are gaps a ledger that can
        # write asks the tables for (as after any failed write). Exit 2, as for a config it
        # cannot use: systemd does not start it again every 2 s (RestartPreventExitStatus=2).
        raise _Refused(EXIT_USAGE, f"the database: {_first(schema)}") from None
    finally:
        ledger.close()
    return EXIT_FAIL  # run() returns only by failing


@contextlib.contextmanager
def _books_usable() -> Iterator[None]:
    """Opening or reading the books: a database out of reach (at the start or on the way) or
    books this release cannot use is `_Refused`, exit 2, in a line; never a traceback, nor
    `ledger gaps`' exit 1, which means gaps."""
    import psycopg

    from tablectl.ledger.schema import SchemaError

    try:
        yield
    except (psycopg.Error, SchemaError) as exc:
        raise _Refused(EXIT_USAGE, f"the database: {exc}".rstrip()) from None


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first exception at the bottom of a (nested) group."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


@_reported
def cmd_ledger_gaps(args: argparse.Namespace) -> int:
    store = _store(args, _config(args), writer=False)
    try:
        with _books_usable():
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


@_reported
def cmd_ledger_report(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    from tablectl.ledger.pdf import PdfError, print_pdf
    from tablectl.ledger.report import build_report
    from tablectl.ledger.report_formats import to_csv, to_html
    from tablectl.ledger.shifts import hours, shift_on

    cfg = _config(args)
    try:
        if args.shift and args.date and not (args.start or args.end):
            shift = shift_on(args.shift, _day(args.date), cfg.shifts, cfg.timezone)
        elif args.start and args.end and not (args.shift or args.date):
            shift = hours(args.start, args.end)
        else:
            raise ValueError("give --shift and --date, or --from and --to")
        if args.format == "pdf" and args.output is None:
            raise ValueError("--format pdf needs --output FILE")
    except ValueError as exc:
        raise _Refused(EXIT_USAGE, str(exc)) from None
    made = datetime.now(UTC).isoformat(timespec="seconds")
    store = _store(args, cfg, writer=False)
    try:
        with _books_usable():
            report = build_report(store.conn, cfg.sites, shift, made, cfg.pits)
    finally:
        store.close()
    text = to_csv(report) if args.format == "csv" else to_html(report)
    if args.format == "pdf":
        try:
            print_pdf(text, args.output)
        except PdfError as exc:
            raise _Refused(EXIT_FAIL, str(exc)) from None
    elif args.output is not None:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _day(text: str) -> date:
    """--date as a date; ValueError naming the option when it is not one."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--date {text!r} is not a date of the form 2026-11-29") from None


@_reported
def cmd_ledger_load(args: argparse.Namespace) -> int:
    from tablectl.config import load_config
    from tablectl.ledger.load import load_export

    cfg = _config(args)
    table_cfg = load_config(args.table_config)  # ConfigError: reported by main, exit 2
    if table_cfg.table.site not in cfg.sites:
        raise _Refused(
            EXIT_USAGE,
            f"{args.table_config}: site {table_cfg.table.site!r} is not one the ledger keeps "
            f"({', '.join(cfg.sites)})",
        )
    try:
        lines = args.export.read_text(encoding="utf-8", errors="replace").splitlines(True)
    except OSError as exc:
        raise _Refused(EXIT_USAGE, f"{args.export}: {exc.strerror}") from None
    store = _store(args, cfg, writer=True)
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
