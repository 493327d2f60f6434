"""`tablectl` command line: run, status, check-config, replay, recall, verify-journal,
upgrade-check, analyze, export, archive, import, demo, devices, broker-acl, keygen, collect-heads,
ledger.

Every command that reads a table config takes it as --config FILE, by default
/etc/tablectl/table.toml. `tablectl COMMAND --help` describes a command, with examples.

Exit codes, the same for every command:
  0  ok
  1  a check failed: verify-journal found a break, upgrade-check a message that differs,
     devices found a configured device missing, recall/export found no such round, run
     stopped on a failure
  2  usage or config error: a wrong option, a config or file that cannot be read or is
     not valid, a journal that cannot be opened
  3  not running: status found no daemon answering for the table (as LSB and Nagios use 3)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import tablectl.cli.analyze as analyze
import tablectl.cli.archive as archive
import tablectl.cli.broker_acl as broker_acl
import tablectl.cli.chain as chain
import tablectl.cli.check_config as check_config
import tablectl.cli.demo as demo
import tablectl.cli.devices as devices
import tablectl.cli.export as export
import tablectl.cli.import_journal as import_journal
import tablectl.cli.ledger as ledger
import tablectl.cli.recall as recall
import tablectl.cli.replay as replay
import tablectl.cli.run as run
import tablectl.cli.upgrade_check as upgrade_check
from tablectl import __version__
from tablectl.chainkey import KeyFileError
from tablectl.cli.common import EXIT_OK, EXIT_USAGE, UnreadableInput
from tablectl.config import BrokerSetupError, ConfigError
from tablectl.journal import JournalError
from tablectl.journal.heads import HeadsError
from tablectl.snapshot import SnapshotError


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code: int = args.func(args)
    except ConfigError as exc:
        for p in exc.problems:
            print(str(p), file=sys.stderr)
        return EXIT_USAGE
    except (
        JournalError,
        KeyFileError,
        HeadsError,
        BrokerSetupError,
        SnapshotError,
        UnreadableInput,
    ) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `tablectl replay ... | head`
        return EXIT_OK
    return code


def build_parser() -> argparse.ArgumentParser:
    """`tablectl`'s parser: each command's own, in the order `tablectl --help` lists them."""
    p = argparse.ArgumentParser(
        prog="tablectl",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"tablectl {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run.add_run_parser(sub)
    run.add_status_parser(sub)
    check_config.add_parser(sub)
    replay.add_parser(sub)
    recall.add_parser(sub)
    chain.add_verify_parser(sub)
    upgrade_check.add_parser(sub)
    chain.add_keygen_parser(sub)
    chain.add_collect_heads_parser(sub)
    export.add_parser(sub)
    archive.add_parser(sub)
    import_journal.add_parser(sub)
    analyze.add_parser(sub)
    devices.add_parser(sub)
    demo.add_parser(sub)
    broker_acl.add_parser(sub)
    ledger.add_parser(sub)
    return p
