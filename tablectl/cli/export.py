"""`tablectl export`: the journal in a history format (tablectl/history/): every record as JSON
lines, or every finished poker hand as PHH."""

from __future__ import annotations

import argparse
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
from tablectl.exports import export_line
from tablectl.history.rounds import recall_rounds
from tablectl.journal import JournalError
from tablectl.phh import PhhError, is_poker_result, left_out, poker_hand, to_phh, to_phhs


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
        choices=["jsonl", "phh"],
        default="jsonl",
        help="jsonl (default): every record, for replay and import; phh: every finished poker "
        "hand as Poker Hand History, one [N] section a hand (a .phhs file; needs --config)",
    )
    export.add_argument("--round", type=int, help="with --format phh: only this hand")
    export.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "phh":
        return _export_phh(args)
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
        for rec in history.records():
            sys.stdout.write(export_line(rec) + "\n")
    finally:
        history.close()
    return EXIT_OK


def _export_phh(args: argparse.Namespace) -> int:
    """Every finished poker hand (or hand --round) as PHH, one `[N]` section each (tablectl/phh.py).
    A misdeal, or a hand with a post past the blinds, is left out (noted in a TOML comment); a
    hand of a game PHH has no variant code for
    refuses the whole export with exit 2, before anything is written."""
    if journal_config(args) is None:
        print(
            "tablectl: --format phh replays the journal under its rules: give --config",
            file=sys.stderr,
        )
        return EXIT_USAGE
    history, cfg = open_history(args)
    assert cfg is not None
    try:
        rounds = recall_rounds(history, cfg, last=0, number=args.round, every_file=True)
    finally:
        history.close()
    documents: list[str] = []
    skipped: list[str] = []
    for _ts, payload, inputs in rounds:
        if not is_poker_result(payload):
            continue
        try:
            hand = poker_hand(payload, inputs)
            why = left_out(hand)
            if why is not None:
                skipped.append(f"# hand {payload['round']}: {why}, not written")
                continue
            documents.append(to_phh(hand, table=cfg.table.table))
        except PhhError as exc:
            print(f"tablectl: hand {payload['round']}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.round is not None and not documents and not skipped:
        print(f"tablectl: hand {args.round} is not in the journal", file=sys.stderr)
        return EXIT_FAIL
    for note in skipped:
        sys.stdout.write(note + "\n")
    if documents:
        sys.stdout.write(to_phhs(documents))
    return EXIT_OK
