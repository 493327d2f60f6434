"""`tablectl import`: a new journal built from an export, every line proved against the export's
chain (a table restored onto a replacement PC)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablectl import snapshot
from tablectl.chainkey import load_key
from tablectl.cli.common import EXIT_FAIL, EXIT_OK, add_command, config_arg
from tablectl.config import load_config
from tablectl.exports import ExportError, verified_lines
from tablectl.journal import Journal, JournalError
from tablectl.journal.heads import Head, read_heads
from tablectl.table import Table


def add_parser(sub: Any) -> None:
    imp = add_command(
        sub,
        "import",
        "a new journal from an export (a table restored onto a replacement PC)",
        "Build the config's (new, empty) journal from an `export` file and take a snapshot\n"
        "after it: a table restored onto a replacement PC. Every line is proved against the\n"
        "export's chain (its hash from its contents and the line before it): a line deleted,\n"
        "inserted, moved or edited anywhere refuses the whole import (exit 1, naming the first\n"
        "bad line) and leaves no journal behind. --against ties the export to the old table's\n"
        "published heads as well.",
        [
            "tablectl import --config /etc/tablectl/table.toml table.jsonl",
            "tablectl import --config /etc/tablectl/table.toml table.jsonl --against heads.jsonl",
        ],
    )
    config_arg(imp)
    imp.add_argument("events", type=Path, help="the `tablectl export` file")
    imp.add_argument(
        "--against",
        type=Path,
        metavar="FILE",
        help="JSON lines of the old table's chain heads (collect-heads): the import is refused "
        "unless every head agrees with the export",
    )
    imp.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    """Build the config's journal from an export, every line proved against the export's chain
    (tablectl/exports.py) and, with --against, against the old table's heads. A refused import
    leaves no journal behind: it removes the file it made."""
    cfg = load_config(args.config)
    path = cfg.journal_path
    if path.exists() and path.stat().st_size > 0:
        raise JournalError(f"{path} exists: import builds a new journal (move the old one away)")
    key = load_key(cfg.key_path) if cfg.key_path is not None else None
    heads = read_heads(args.against) if args.against is not None else []
    started = time.monotonic()
    journal = Journal(path, table=cfg.table.table, key=key)
    refused: str | None = None
    try:
        with args.events.open(encoding="utf-8", errors="replace") as stream:
            count = journal.import_records(verified_lines(stream))
        if heads:
            found = journal.check(heads=heads).problems + _published_before(journal, heads)
            if found:
                refused = f"the export does not agree with {args.against}: " + "; ".join(found)
    except ExportError as exc:
        refused = f"{args.events}: {exc}"
    finally:
        journal.close()
    if refused is not None:
        _remove_journal(path)
        print(f"tablectl: import refused, nothing imported: {refused}", file=sys.stderr)
        return EXIT_FAIL
    seconds = max(time.monotonic() - started, 1e-9)
    print(f"{path}: {count} records imported ({count / seconds:,.0f} records/s)", flush=True)
    if heads:
        print(f"{path}: every one of {len(heads)} heads in {args.against} agrees")
    if count:
        # The table's state after them, so the daemon starts without replaying them all.
        started = time.monotonic()
        journal = Journal(path, table=cfg.table.table, key=key)
        try:
            table = Table(cfg)
            for rec in journal.records():
                table.advance(rec)
            snapshot.take(table, journal)
        finally:
            journal.close()
        seconds = max(time.monotonic() - started, 1e-9)
        print(f"{path}: snapshot after record {count} built by replay in {seconds:.1f} s")
    return EXIT_OK


def _published_before(journal: Journal, heads: Sequence[Head]) -> list[str]:
    """A head the old table published for a record the export says it published none for:
    where heads began is not covered by the chain, and it decides how many messages the
    restored table counts (its next `seq`)."""
    begun = journal.witness_from
    early = sorted(h.seq for h in heads if h.anchor is None and begun is not None and h.seq < begun)
    if not early:
        return []
    return [
        f"record {early[0]} was published with a head, the export says heads began at record "
        f"{begun}: the export was altered"
    ]


def _remove_journal(path: Path) -> None:
    """The journal file an import made (and SQLite's companions), gone: a refused import must
    not leave a journal a daemon could start on."""
    for part in ("", "-wal", "-shm"):
        Path(f"{path}{part}").unlink(missing_ok=True)
