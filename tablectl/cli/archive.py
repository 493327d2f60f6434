"""`tablectl archive`: closed monthly journal segments to the archive folder, archived ones past
retention deleted."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tablectl.cli.common import EXIT_OK, add_command, config_arg
from tablectl.config import load_config
from tablectl.journal import JournalError, segments


def add_parser(sub: Any) -> None:
    arch = add_command(
        sub,
        "archive",
        "move closed monthly journal segments to the archive folder",
        "Move closed monthly journal segments to the archive folder (keeping the newest\n"
        "[journal] keep_local_months here) and delete archived ones past retain_months.",
        ["tablectl archive", "tablectl archive --config table.toml --to /mnt/archive/t1"],
    )
    config_arg(arch)
    arch.add_argument("--to", type=Path, help="the archive folder (default: [journal] archive_dir)")
    arch.set_defaults(func=cmd_archive)


def cmd_archive(args: argparse.Namespace) -> int:
    """Closed segments to the archive folder; archived ones past retention deleted."""
    cfg = load_config(args.config)
    target = args.to or cfg.archive_path
    if target is None:
        raise JournalError("no archive folder: set [journal] archive_dir or give --to DIR")
    jc = cfg.table.journal
    done = segments.archive(
        cfg.journal_path, target, keep_local=jc.keep_local_months, retain_months=jc.retain_months
    )
    for path in done.moved:
        print(f"archived: {path}")
    for path in done.expired:
        print(f"deleted (older than retain_months = {jc.retain_months}): {path}")
    if not done.moved and not done.expired:
        print(f"nothing to archive: {_why_nothing(cfg.journal_path, jc.keep_local_months)}")
    return EXIT_OK


def _why_nothing(live: Path, keep_local: int) -> str:
    """Why no closed month left the journal's folder: none closed yet, those kept there, or no
    journal where the config says (`segments.archive` has made sure the folder can be read)."""
    kept = len(segments.segment_files(live))
    if kept:
        return (
            f"the {kept} closed month(s) beside {live} stay there "
            f"(keep_local_months = {keep_local})"
        )
    if live.exists():
        return f"no month of {live} has closed yet (each closes into its own file after it ends)"
    return (
        f"no journal at {live} (yet: the table makes it at its first start; or is [journal] "
        "path another?)"
    )
