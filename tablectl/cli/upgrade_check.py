"""`tablectl upgrade-check`: before switching a table to this release, replay its recent rounds
and compare every message with the one the running release stored."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from tablectl.chainkey import load_key
from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    add_command,
    config_arg,
    given_archive,
    positive,
)
from tablectl.config import load_config
from tablectl.journal.segments import History


def add_parser(sub: Any) -> None:
    upgrade = add_command(
        sub,
        "upgrade-check",
        "before switching a table to this release: replay its recent rounds, compare",
        "Run from a newly installed release, against the table's live journal (read-only,\n"
        "while the running release carries on): replay the journal's recent rounds (at least\n"
        "the last shoe or the last --rounds rounds, whichever is more) and compare every\n"
        "message this release would publish with the one the outbox stored for the same\n"
        "record. It also says whether this release rewrites the journal's schema (which a\n"
        "rollback cannot undo) and reads its snapshots. scripts/install runs it before it\n"
        "switches /opt/tablectl/current (docs/operations.md 'Upgrading a table').\n"
        "Exit 0 nothing differs (or no journal yet); 1 a message differs: do not switch;\n"
        "2 the config or the journal cannot be read (a journal this release refuses).",
        [
            "tablectl upgrade-check   # as /opt/tablectl/<new release>/bin/tablectl, user tablectl",
            "tablectl upgrade-check --config /etc/tablectl/table.toml --rounds 5000",
        ],
    )
    config_arg(upgrade)
    upgrade.add_argument(
        "--archive",
        type=Path,
        metavar="DIR",
        help="a folder of archived journal segments to read too (default: the config's "
        "[journal] archive_dir)",
    )
    upgrade.add_argument(
        "--rounds",
        type=positive,
        default=1000,
        metavar="N",
        help="replay at least the last N finished rounds (default 1000), and the whole last shoe",
    )
    upgrade.set_defaults(func=cmd_upgrade_check)


def cmd_upgrade_check(args: argparse.Namespace) -> int:
    """`upgrade-check` (tablectl/upgrade.py): this release's replay of the journal's recent
    rounds against the outbox the running release stored."""
    from tablectl import upgrade

    cfg = load_config(args.config)
    path = cfg.journal_path
    if not os.path.lexists(path):
        print(f"upgrade-check: no journal at {path} yet: nothing to replay, nothing can differ")
        return EXIT_OK
    history = History.open(path, cfg.table.table, given_archive(args.archive) or cfg.archive_path)
    try:
        keys = [load_key(cfg.key_path)] if cfg.key_path is not None else []
        report = upgrade.check(cfg, history, rounds=args.rounds, keys=keys)
    finally:
        history.close()
    for line in report.lines:
        print(f"upgrade-check: {line}")
    return EXIT_FAIL if report.differs else EXIT_OK
