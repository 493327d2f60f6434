"""`tablectl import`: a new journal built from an export, every line proved against the export's
chain (a table restored onto a replacement PC)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tablectl import snapshot
from tablectl.chainkey import load_key
from tablectl.cli.common import EXIT_FAIL, EXIT_OK, add_command, config_arg, open_text
from tablectl.config import load_config
from tablectl.exports import ExportError, ExportLine, verified_lines
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
    imp.add_argument(
        "events", type=Path, help="the `tablectl export` file; '-' reads standard input"
    )
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
    leaves no journal behind: it removes the file it made. One that stops part way for any
    other reason leaves it marked as unfinished, which the daemon refuses to start on."""
    cfg = load_config(args.config)
    path = cfg.journal_path
    if path.is_dir():
        raise JournalError(f"{path} is a folder: the config's journal.path names the file to make")
    if path.exists() and path.stat().st_size > 0:
        raise JournalError(f"{path} exists: import builds a new journal (move the old one away)")
    key = load_key(cfg.key_path) if cfg.key_path is not None else None
    heads = read_heads(args.against) if args.against is not None else []
    stream = open_text(args.events, "the export")  # before the journal: nothing left behind
    started = time.monotonic()
    refused: str | None = None
    games: list[str] = []  # the game of each config record, in order
    with stream:
        try:
            journal = Journal(path, table=cfg.table.table, key=key)
        except OSError as exc:  # its folder cannot be written
            _remove_journal(path)
            raise JournalError(f"cannot make the journal {path}: {exc.strerror or exc}") from None
        try:
            count = journal.import_records(_noting_games(verified_lines(stream), games))
            if count == 0:
                refused = f"{args.events} holds no records (an export holds at least the config)"
            elif games and games[-1] != cfg.rules.game.id:
                refused = (
                    f"{args.events} is the export of a {games[-1]} table (its last config "
                    f"record), and {args.config} sets {cfg.rules.game.id}: restore a table with "
                    "its own config (change the game after, if that is what is wanted)"
                )
            elif heads:
                found = journal.check(heads=heads).problems + _published_before(journal, heads)
                if found:
                    refused = f"the export does not agree with {args.against}: " + "; ".join(found)
        except ExportError as exc:
            refused = f"{args.events}: {exc}"
        finally:  # anything else (a kill, a full disk) leaves the journal marked as unfinished
            journal.close()
    if refused is not None:
        _remove_journal(path)
        print(f"tablectl: import refused, nothing imported: {refused}", file=sys.stderr)
        return EXIT_FAIL
    seconds = max(time.monotonic() - started, 1e-9)
    print(f"{path}: {count} records imported ({count / seconds:,.0f} records/s)", flush=True)
    if heads:
        print(f"{path}: every one of {len(heads)} heads in {args.against} agrees")
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


def _noting_games(lines: Iterable[ExportLine], games: list[str]) -> Iterator[ExportLine]:
    """`lines`, the game of each config record among them appended to `games` as it passes."""
    for line in lines:
        if line.body.get("type") == "config":
            rules = line.body.get("rules")
            game = rules.get("game") if isinstance(rules, dict) else None
            if isinstance(game, dict) and isinstance(game.get("id"), str):
                games.append(game["id"])
        yield line


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
