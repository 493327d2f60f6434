"""`tablectl check-config`: validate a table config as `run` would load it, and say in one line
what it sets up."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tablectl.chainkey import KeyFileError, load_key
from tablectl.cli.common import CONFIG_HELP, EXIT_OK, EXIT_USAGE, add_command, default_config
from tablectl.config import LoadedConfig, Problem, checked_paths, load_config
from tablectl.rules.poker_fees import PokerSchedule


def add_parser(sub: Any) -> None:
    check = add_command(
        sub,
        "check-config",
        "validate a table config (exit 0 valid, 2 not)",
        "Validate a table config as `run` would load it, and say what it sets up.\n"
        "Exit 0 valid (warnings on stderr), 2 not (each problem at its key path).",
        [
            "tablectl check-config --config /etc/tablectl/table.toml",
            "tablectl check-config config/ez-baccarat-panda8.toml   # the older positional form",
        ],
    )
    check.add_argument(
        "--config", type=Path, metavar="FILE", help=f"{CONFIG_HELP}; or give it as FILE"
    )
    check.add_argument(
        "file",
        type=Path,
        nargs="?",
        metavar="FILE",
        help="the config as a positional argument (kept for compatibility: same as --config)",
    )
    check.set_defaults(func=cmd_check_config)


def cmd_check_config(args: argparse.Namespace) -> int:
    if args.config is not None and args.file is not None:
        print("tablectl: give the config once: --config FILE (or FILE alone)", file=sys.stderr)
        return EXIT_USAGE
    args.file = args.config or args.file or default_config()
    cfg = checked_paths(load_config(args.file))
    for warning in cfg.warnings:  # e.g. a vendor plugin that cannot load: the table still runs
        print(f"warning: {warning}", file=sys.stderr)
    if cfg.key_path is not None:  # the daemon would refuse it: say so before it starts
        try:
            load_key(cfg.key_path)
        except KeyFileError as exc:
            print(str(Problem(str(args.file), "journal.key_file", str(exc))), file=sys.stderr)
            return EXIT_USAGE
    print(f"{args.file}: {ok_line(cfg)}")
    return EXIT_OK


def ok_line(cfg: LoadedConfig) -> str:
    """What `check-config` says of a valid config, after its file name: the game and the
    document it is approved under, the table, its money and its devices, in a technician's
    words (no ruling or issue numbers: those are the docs')."""
    t = cfg.table
    ok = "ok, with warnings" if cfg.warnings else "ok"
    game = t.game.id if cfg.document is None else f"{t.game.id} (document {cfg.document})"
    if isinstance(cfg.schedule, PokerSchedule):
        money = f"collection {cfg.schedule.label}"
    else:
        limits, schedule = cfg.rules.banked()
        money = f"limits {limits.min}-{limits.max}, collection schedule {schedule.option}"
    n = len(t.devices)
    devices = f"{n} device(s)"
    if t.manual_entry:
        devices += ", cards keyed at the console (manual_entry)"
    return f"{ok}: {game} table {t.site}/{t.table}, {t.seats.count} seats, {money}, {devices}"
