"""The journal's hash chain: `verify-journal` checks it, `keygen` makes the key that signs it,
`collect-heads` records the heads the table publishes for it."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

from tablectl import snapshot
from tablectl.chainkey import ChainKey, create_key, load_key
from tablectl.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    add_command,
    config_arg,
    journal_args,
    open_history,
)
from tablectl.config import load_config
from tablectl.journal import JournalError
from tablectl.journal.heads import read_heads


def add_verify_parser(sub: Any) -> None:
    verify = add_command(
        sub,
        "verify-journal",
        "check the journal's hash chain",
        "Check the journal's hash chain (and its signatures with the chain key): exit 0 intact,\n"
        "1 a break or a mismatch was found (each printed), 2 it could not be read.",
        [
            "tablectl verify-journal",
            "tablectl verify-journal --journal journal.db --key old.key --against heads.jsonl",
            "tablectl verify-journal --config table.toml --deep",
        ],
    )
    journal_args(verify)
    verify.add_argument(
        "--key",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="a chain key file (repeatable: older keys after a rotation); with --config its "
        "key_file is used too",
    )
    verify.add_argument(
        "--against",
        type=Path,
        metavar="HEADS",
        help="JSON lines of chain heads collected off MQTT (journal/head or round/result)",
    )
    verify.add_argument(
        "--deep",
        action="store_true",
        help="also replay every record and prove each stored snapshot equals the replayed state",
    )
    verify.set_defaults(func=cmd_verify)


def add_keygen_parser(sub: Any) -> None:
    keygen = add_command(
        sub,
        "keygen",
        "create a journal chain key file (mode 0600)",
        "Create a new journal chain key file (mode 0600) for the config's [journal] key_file.\n"
        "Make it as the service user in /etc/tablectl/keys/ (a folder only that user enters),\n"
        "apart from the journal in /var/lib/tablectl/: a backup of the journal must not carry\n"
        "its key. Keep a copy off the table's PC: it verifies the journal's signatures\n"
        "(docs/operations.md 'The journal's chain key').",
        ["tablectl keygen /etc/tablectl/keys/journal.key"],
    )
    keygen.add_argument("path", type=Path, help="the key file to create (refused if it exists)")
    keygen.set_defaults(func=cmd_keygen)


def add_collect_heads_parser(sub: Any) -> None:
    heads = add_command(
        sub,
        "collect-heads",
        "print the table's journal heads off MQTT",
        "Subscribe to the table's journal heads on the broker and print them as JSON lines,\n"
        "for `verify-journal --against` later.",
        [
            "tablectl collect-heads --seconds 3600 >> heads.jsonl",
            "tablectl collect-heads --config table.toml --username floor "
            "--password-file floor.pw --count 10",
        ],
    )
    config_arg(heads)
    heads.add_argument("--seconds", type=float, default=0.0, help="stop after N s (0: Ctrl-C)")
    heads.add_argument("--count", type=int, default=0, help="stop after N heads (0: no limit)")
    heads.add_argument("--username", help="the broker user (default: the config's)")
    heads.add_argument("--password-file", type=Path, help="that user's password file")
    heads.set_defaults(func=cmd_collect_heads)


def cmd_verify(args: argparse.Namespace) -> int:
    history, cfg = open_history(args)
    path = history.live.path
    try:
        keys: list[ChainKey] = []
        if cfg is not None and cfg.key_path is not None:
            keys.append(load_key(cfg.key_path))
        keys += [load_key(p) for p in args.key]
        heads = read_heads(args.against) if args.against is not None else []
        result = history.check(keys, heads)
        if args.deep and not result.problems:
            if cfg is None:
                raise JournalError("--deep replays the journal under its rules: give --config")
            deep = snapshot.deep_check(cfg, history.files)
            result.problems += deep.problems
            result.notes += deep.notes
    finally:
        history.close()
    for p in result.problems:
        print(f"{path}: {p}")
    if result.problems:
        return EXIT_FAIL
    files = f" in {len(history.files)} files" if len(history.files) > 1 else ""
    print(f"{path}: ok: {result.records} records{files}, chain intact")
    for note in result.notes:
        print(f"{path}: note: {note}")
    return EXIT_OK


def cmd_keygen(args: argparse.Namespace) -> int:
    key = create_key(args.path)
    print(f"{args.path}: key {key.id} written (mode 0600); keep a copy off the table's PC")
    return EXIT_OK


def cmd_collect_heads(args: argparse.Namespace) -> int:
    from tablectl.journal.heads import collect_heads

    cfg = load_config(args.config)
    login = None
    if args.username is not None:  # on a locked broker the table's own user cannot read heads
        password = args.password_file.read_text().strip() if args.password_file else None
        login = (args.username, password)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            collect_heads(cfg, sys.stdout, seconds=args.seconds, count=args.count, login=login)
        )
    return EXIT_OK
