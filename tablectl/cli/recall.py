"""`tablectl recall`: finished rounds from the journal for a dispute, as text or JSON lines (the
writers of tablectl/history/)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    add_command,
    journal_args,
    not_negative,
    open_history,
)
from tablectl.history import round_writer
from tablectl.history.rounds import recall_rounds
from tablectl.surveillance.recall import shoe_lines


def add_parser(sub: Any) -> None:
    recall = add_command(
        sub,
        "recall",
        "finished rounds from the journal, every card in order",
        "Show finished rounds from the journal for a dispute: every card and decision in the\n"
        "order it was entered, and the result. Exit 1 when --round is not in the journal.",
        ["tablectl recall --last 3", "tablectl recall --config table.toml --round 412"],
    )
    journal_args(recall, config_only=True)
    recall.add_argument(
        "--last",
        type=not_negative,
        default=10,
        help="the last N rounds (default 10; 0: every round)",
    )
    recall.add_argument("--round", type=int, help="only this round")
    recall.add_argument(
        "--every-file",
        action="store_true",
        help="with --round: search every monthly file, not only up to the newest holding it "
        "(round numbers start again when the game changes)",
    )
    recall.add_argument("--json", action="store_true", help="round/result payloads as JSON lines")
    recall.add_argument(
        "--shoe",
        action="store_true",
        help="what the shoe held when each wager was placed: the cards left and every wager's "
        "live expectation then (games with live figures; docs/surveillance.md)",
    )
    recall.set_defaults(func=cmd_recall)


def cmd_recall(args: argparse.Namespace) -> int:
    history, cfg = open_history(args)
    assert cfg is not None
    try:
        rounds = recall_rounds(
            history,
            cfg,
            last=args.last,
            number=args.round,
            every_file=args.every_file,
            shoe=args.shoe,
        )
    finally:
        history.close()
    if args.round is not None and not rounds:
        print(f"tablectl: round {args.round} is not in the journal", file=sys.stderr)
        return EXIT_FAIL
    if not rounds:  # said, not an empty screen (a new table, or a round that never ended)
        print("tablectl: no round has finished in the journal", file=sys.stderr)
        return EXIT_OK
    writer = round_writer("rounds" if args.json else "text", sys.stdout)
    for finished in rounds:
        writer.write_round(finished)
        if args.shoe and not args.json:
            sys.stdout.writelines(line + "\n" for line in shoe_lines(finished.result))
    writer.finish()
    return EXIT_OK
