"""What every `tablectl` command shares: the exit codes, the default config, a command's help
layout, and the options and the reading of a command that takes a config or a journal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from tablectl.config import LoadedConfig, load_config
from tablectl.journal.segments import History

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_NOT_RUNNING = 0, 1, 2, 3

DEFAULT_CONFIG = Path("/etc/tablectl/table.toml")
"""The table config every command reads when no `--config` is given (docs/operations.md)."""

CONFIG_HELP = f"the table config (default {DEFAULT_CONFIG})"


def default_config() -> Path:
    """DEFAULT_CONFIG as it stands now (a test may point it elsewhere)."""
    return DEFAULT_CONFIG


def add_command(
    sub: Any, name: str, summary: str, description: str, examples: Sequence[str]
) -> argparse.ArgumentParser:
    """A subcommand with its one-line summary (in `tablectl --help`), a description and
    examples (in `tablectl NAME --help`)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def config_arg(p: argparse.ArgumentParser, text: str = CONFIG_HELP) -> None:
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE", help=text)


def journal_args(p: argparse.ArgumentParser, *, config_only: bool = False) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"the table config, whose journal is read (default {DEFAULT_CONFIG})",
    )
    if not config_only:
        g.add_argument("--journal", type=Path, help="a journal file, read without a config")
    p.add_argument(
        "--archive",
        type=Path,
        metavar="DIR",
        help="a folder of archived journal segments to read too (default: the config's "
        "[journal] archive_dir; segments beside the journal are always read)",
    )


def journal_config(args: argparse.Namespace) -> Path | None:
    """The config a journal command reads: --config, else the default unless --journal."""
    if args.config is not None:
        return Path(args.config)
    return None if getattr(args, "journal", None) is not None else DEFAULT_CONFIG


def open_history(args: argparse.Namespace) -> tuple[History, LoadedConfig | None]:
    """The journal named on the command line with its closed segments (beside it, and in the
    archive folder), read-only."""
    archive = given_archive(getattr(args, "archive", None))
    config = journal_config(args)
    if config is not None:
        cfg = load_config(config)
        path = cfg.journal_path
        table: str | None = cfg.table.table
        archive = archive or cfg.archive_path
    else:
        cfg, path, table = None, args.journal, None
    return History.open(path, table, archive), cfg


def given_archive(archive: Path | None) -> Path | None:
    """The --archive folder given on the command line, if any; UnreadableInput when it is not
    a folder (read as if it held nothing, a mistyped one would let a check of the archive pass
    without reading it). The config's own archive_dir may not exist yet: nothing archived."""
    if archive is not None and not Path(archive).is_dir():
        raise UnreadableInput(f"the archive folder {archive} is not a folder this can read")
    return archive


def not_negative(text: str) -> int:
    """An option's whole number, 0 or more (argparse `type`)."""
    return _at_least(text, 0, "0 or more")


def positive(text: str) -> int:
    """An option's whole number, 1 or more (argparse `type`)."""
    return _at_least(text, 1, "a positive number")


def _at_least(text: str, least: int, words: str) -> int:
    value = int(text)
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} is not {words}")
    return value


class UnreadableInput(Exception):
    """A file a command was given that cannot be read: `main` says so in a line, exit 2."""


def open_text(path: Path, what: str) -> TextIO:
    """`path` ('-': standard input) for reading as UTF-8, undecodable bytes as U+FFFD (a line
    holding one is then refused as that command refuses a bad line, not a crash);
    UnreadableInput naming `what` and the file when it cannot be opened (missing, a folder,
    out of reach)."""
    if str(path) == "-":
        reconfigure = getattr(sys.stdin, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
        return sys.stdin
    try:
        return path.open(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UnreadableInput(f"cannot read {what} {path}: {exc.strerror or exc}") from None
