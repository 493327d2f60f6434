"""`tablectl export`: the journal in a history format (tablectl/history/): every record as JSON
lines, or every finished poker hand as PHH."""

from __future__ import annotations

import argparse
import io
import sys
from typing import Any

from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_command,
    journal_args,
    journal_config,
    open_history,
)
from tablectl.games.registry import spec_of
from tablectl.history import EXPORT_FORMATS, WRITERS, RoundWriter, record_writer, round_writer
from tablectl.history.rounds import recall_rounds
from tablectl.journal import JournalError
from tablectl.records import RoundRefused


def add_parser(sub: Any) -> None:
    export = add_command(
        sub,
        "export",
        "the journal as JSON lines that `replay` accepts, or poker hands as PHH",
        "Write the journal as JSON lines (every record, for `replay` and `import`), or every\n"
        "finished poker hand as Poker Hand History (--format phh).",
        [
            "tablectl export > table.jsonl",
            "tablectl export --config table.toml --format phh --round 12 > hand12.phhs",
        ],
    )
    journal_args(export)
    export.add_argument(
        "--format",
        choices=list(EXPORT_FORMATS),
        default=EXPORT_FORMATS[0],
        help="jsonl (default): every record, for replay and import; phh: every finished poker "
        "hand as Poker Hand History, one [N] section a hand (a .phhs file; needs --config)",
    )
    export.add_argument("--round", type=int, help="with --format phh: only this hand")
    export.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    if issubclass(WRITERS[args.format], RoundWriter):
        return _export_rounds(args)
    if args.round is not None:
        print("tablectl: --round selects a hand of --format phh only", file=sys.stderr)
        return EXIT_USAGE
    history, _ = open_history(args)
    try:
        if history.files[0].first_seq > 1:
            raise JournalError(
                f"records 1-{history.files[0].first_seq - 1} are in segments not found here: "
                "give --archive DIR (an export starts at the first record)"
            )
        writer = record_writer(args.format, sys.stdout)
        for rec in history.records():
            writer.write_record(rec)
        writer.finish()
    finally:
        history.close()
    return EXIT_OK


def _export_rounds(args: argparse.Namespace) -> int:
    """Every finished round (or round --round) in a format of rounds, a game's own (its spec's
    `round_formats`, such as `phh`), which may leave a round out with a note; a round the format
    cannot write (ValueError, naming it) refuses the whole export with exit 2, before anything
    is written."""
    if journal_config(args) is None:
        print(
            f"tablectl: --format {args.format} replays the journal under its rules: give --config",
            file=sys.stderr,
        )
        return EXIT_USAGE
    history, cfg = open_history(args)
    assert cfg is not None
    try:
        rounds = recall_rounds(history, cfg, last=0, number=args.round, every_file=True)
    finally:
        history.close()
    buffer = io.StringIO()
    writer = round_writer(args.format, buffer, table=cfg.table.table)
    try:
        for finished in rounds:
            writer.write_round(finished)
        writer.finish()
    except RoundRefused as exc:  # a round the format cannot write, named
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    game = cfg.rules.game.id
    if not writer.written and args.format not in spec_of(game).round_formats:
        # Not an empty history: a format of another game's rounds (a journal that changed game
        # may still hold some, which are written).
        print(
            f"tablectl: --format {args.format} writes the rounds of games that play it; this "
            f"table plays {game} and the journal holds none of theirs",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.round is not None and not writer.written:
        print(f"tablectl: hand {args.round} is not in the journal", file=sys.stderr)
        return EXIT_FAIL
    sys.stdout.write(buffer.getvalue())
    return EXIT_OK
