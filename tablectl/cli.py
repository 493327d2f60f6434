"""`tablectl` command line: run, status, check-config, replay, recall, verify-journal,
upgrade-check, analyze, export, archive, import, demo, devices, broker-acl, keygen, collect-heads.

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
import asyncio
import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from tablectl import __version__, snapshot
from tablectl.chainkey import ChainKey, KeyFileError, create_key, load_key
from tablectl.config import (
    BrokerSetupError,
    ConfigError,
    LoadedConfig,
    Problem,
    checked_paths,
    load_config,
)
from tablectl.exports import ExportError, export_line, verified_lines
from tablectl.games.poker.spec import PokerGame
from tablectl.journal import Journal, JournalError, segments
from tablectl.journal.heads import Head, HeadsError, read_heads
from tablectl.journal.segments import History
from tablectl.logs import configure_logging
from tablectl.outputs import OutboxRow
from tablectl.phh import PhhError, is_poker_result, left_out, poker_hand, to_phh, to_phhs
from tablectl.records import Record, replay_ts
from tablectl.round_text import format_round
from tablectl.rules.poker_fees import PokerSchedule
from tablectl.snapshot import SnapshotError
from tablectl.table import HAND_ENTERED_TYPES, Table, journal_body
from tablectl_base.events import json_problem
from tablectl_base.money import ZERO, fmt

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_NOT_RUNNING = 0, 1, 2, 3

DEFAULT_CONFIG = Path("/etc/tablectl/table.toml")
"""The table config every command reads when no `--config` is given (docs/operations.md)."""

CONFIG_HELP = f"the table config (default {DEFAULT_CONFIG})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
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
    except (JournalError, KeyFileError, HeadsError, BrokerSetupError, SnapshotError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `tablectl replay ... | head`
        return EXIT_OK
    return code


def _command(
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


def _config_arg(p: argparse.ArgumentParser, text: str = CONFIG_HELP) -> None:
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG, metavar="FILE", help=text)


def analyzed_games() -> dict[str, tuple[str, ...]]:
    """Each game `analyze` knows -> the wagers it analyzes: the registry's games that have an
    analysis, their wagers from the analysis modules (baccarat, whose analysis takes every spot,
    and a game from another distribution: its spots)."""
    from tablectl.analysis import blackjack, pai_gow, three_card_poker, ultimate
    from tablectl.games.registry import game_ids, spec_of, spots_of

    known: dict[str, tuple[str, ...]] = {
        **{game: tuple(w) for game, w in blackjack.ANALYZED.items()},
        "fortune-pai-gow": tuple(pai_gow.WAGERS),
        "three-card-poker-6cb": tuple(three_card_poker.WAGERS),
        "ultimate-texas-holdem": tuple(ultimate.WAGERS),
    }
    return {gid: known.get(gid, spots_of(gid)) for gid in game_ids() if spec_of(gid).analyzer}


def default_decks(game: str) -> int | None:
    """The deck count of a game's shoe when its config does not say (its `[game]` model's
    default), None for a game dealt from one deck a round."""
    from tablectl.games.registry import spec_of

    spec = spec_of(game)
    if not spec.dealt_from_shoe:
        return None
    field = spec.settings[game].model_fields.get("decks")
    default = None if field is None else field.default
    return default if isinstance(default, int) else None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tablectl",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"tablectl {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = _command(
        sub,
        "run",
        "run the table daemon",
        "Run the table: read the devices, journal every input, play the game, publish over MQTT.\n"
        "systemd starts it (systemd/tablectl.service); exit 1 when it stopped on a failure.",
        [f"tablectl run --config {DEFAULT_CONFIG}", "tablectl run"],
    )
    _config_arg(run)
    run.set_defaults(func=cmd_run)

    status = _command(
        sub,
        "status",
        "the running table: round, holds, devices, broker, backlog, journal",
        "Ask the running daemon, over its local socket beside the journal (no MQTT client),\n"
        "for the round and phase, any hold and why, each device with the age of its last\n"
        "frame, the broker link, the unsent backlog, the journal's size and next month's\n"
        "close, and the last result in one line.\n"
        "Exit 0 running and clear; 1 held (a round, a journal fault, an unwritable journal)\n"
        "or a device in fault; 3 not running; 2 usage or config error.",
        [
            "tablectl status",
            f"tablectl status --config {DEFAULT_CONFIG} --json",
            "tablectl status --watch",
        ],
    )
    _config_arg(status)
    status.add_argument(
        "--json", action="store_true", help="the daemon's report as JSON, with `exit` and `state`"
    )
    status.add_argument(
        "--watch",
        action="store_true",
        help="ask every second until Ctrl-C: redraw on a terminal, else print each change",
    )
    status.set_defaults(func=cmd_status)

    check = _command(
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

    replay = _command(
        sub,
        "replay",
        "run a JSONL event file through the engine",
        "Run a file of input events (JSON lines, e.g. from `export`) through the table's\n"
        "engine and print every MQTT message it would publish, one JSON line each.",
        [
            "tablectl replay --config table.toml events.jsonl",
            "tablectl export --config table.toml | tablectl replay --config table.toml -",
        ],
    )
    _config_arg(replay)
    replay.add_argument("events", type=Path, help="JSON lines; '-' reads standard input")
    replay.set_defaults(func=cmd_replay)

    recall = _command(
        sub,
        "recall",
        "finished rounds from the journal, every card in order",
        "Show finished rounds from the journal for a dispute: every card and decision in the\n"
        "order it was entered, and the result. Exit 1 when --round is not in the journal.",
        ["tablectl recall --last 3", "tablectl recall --config table.toml --round 412"],
    )
    _journal_args(recall, config_only=True)
    recall.add_argument("--last", type=int, default=10, help="the last N rounds (default 10)")
    recall.add_argument("--round", type=int, help="only this round")
    recall.add_argument(
        "--every-file",
        action="store_true",
        help="with --round: search every monthly file, not only up to the newest holding it "
        "(round numbers start again when the game changes)",
    )
    recall.add_argument("--json", action="store_true", help="round/result payloads as JSON lines")
    recall.set_defaults(func=cmd_recall)

    verify = _command(
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
    _journal_args(verify)
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

    upgrade = _command(
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
    _config_arg(upgrade)
    upgrade.add_argument(
        "--archive",
        type=Path,
        metavar="DIR",
        help="a folder of archived journal segments to read too (default: the config's "
        "[journal] archive_dir)",
    )
    upgrade.add_argument(
        "--rounds",
        type=_positive,
        default=1000,
        metavar="N",
        help="replay at least the last N finished rounds (default 1000), and the whole last shoe",
    )
    upgrade.set_defaults(func=cmd_upgrade_check)

    keygen = _command(
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

    heads = _command(
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
    _config_arg(heads)
    heads.add_argument("--seconds", type=float, default=0.0, help="stop after N s (0: Ctrl-C)")
    heads.add_argument("--count", type=int, default=0, help="stop after N heads (0: no limit)")
    heads.add_argument("--username", help="the broker user (default: the config's)")
    heads.add_argument("--password-file", type=Path, help="that user's password file")
    heads.set_defaults(func=cmd_collect_heads)

    export = _command(
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
    _journal_args(export)
    export.add_argument(
        "--format",
        choices=["jsonl", "phh"],
        default="jsonl",
        help="jsonl (default): every record, for replay and import; phh: every finished poker "
        "hand as Poker Hand History, one [N] section a hand (a .phhs file; needs --config)",
    )
    export.add_argument("--round", type=int, help="with --format phh: only this hand")
    export.set_defaults(func=cmd_export)

    arch = _command(
        sub,
        "archive",
        "move closed monthly journal segments to the archive folder",
        "Move closed monthly journal segments to the archive folder (keeping the newest\n"
        "[journal] keep_local_months here) and delete archived ones past retain_months.",
        ["tablectl archive", "tablectl archive --config table.toml --to /mnt/archive/t1"],
    )
    _config_arg(arch)
    arch.add_argument("--to", type=Path, help="the archive folder (default: [journal] archive_dir)")
    arch.set_defaults(func=cmd_archive)

    imp = _command(
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
    _config_arg(imp)
    imp.add_argument("events", type=Path, help="the `tablectl export` file")
    imp.add_argument(
        "--against",
        type=Path,
        metavar="FILE",
        help="JSON lines of the old table's chain heads (collect-heads): the import is refused "
        "unless every head agrees with the export",
    )
    imp.set_defaults(func=cmd_import)

    games = analyzed_games()
    analyze = _command(
        sub,
        "analyze",
        "hit frequency and house edge of a wager (exact, or simulated with its interval)",
        "Hit frequency and house edge of a wager, in percent. An exact figure is the headline;\n"
        "a simulated one is printed with its 95% confidence interval (and, where an exact figure\n"
        "exists too, as a cross-check of it, with a note on what a difference means). Progress\n"
        "goes to stderr on a terminal.\n\n"
        "wagers by game:\n" + "\n".join(f"  {g}: {' '.join(w)}" for g, w in games.items()),
        [
            "tablectl analyze --game ez-baccarat-panda8 --wager dragon7",
            "tablectl analyze --game pure-21.5-blackjack --wager buster --decks 6",
            "tablectl analyze --game three-card-poker-6cb --wager six-card-bonus --json",
        ],
    )
    analyze.add_argument(
        "--game",
        required=True,
        choices=list(games),
        metavar="GAME",
        help="the game id: " + ", ".join(games),
    )
    analyze.add_argument(
        "--wager",
        required=True,
        metavar="WAGER",
        help="the wager (spot) id: each game's wagers are listed above (another is refused, "
        "naming the game's)",
    )
    analyze.add_argument(
        "--paytable", metavar="NAME", help="the pay table (default: the wager's usual one)"
    )
    analyze.add_argument(
        "--decks",
        type=int,
        help="games dealt from a shoe: decks in it (default: the game's own, "
        + ", ".join(f"{g} {d}" for g in games if (d := default_decks(g)) is not None)
        + ")",
    )
    analyze.add_argument(
        "--banker-push-on-dragon7",
        action="store_true",
        help="baccarat: the banker wager pushes on a Dragon 7 (the usual EZ Baccarat rule; "
        "without it the banker wager wins on a Dragon 7, as document 003 approves it)",
    )
    analyze.add_argument(
        "--pure-pays",
        choices=["6 to 5", "3 to 2"],  # 21.5 base wager (R11)
        help="blackjack base wager: what a Pure 21.5 pays (default 6 to 5)",
    )
    analyze.add_argument(
        "--json",
        action="store_true",
        help="every figure as one JSON document: fractions of one, each with its percent "
        "beside it (<name>_pct)",
    )
    analyze.set_defaults(func=cmd_analyze)

    devices = _command(
        sub,
        "devices",
        "list serial ports and USB devices, matched to config",
        "List the serial ports and USB devices present and which config [[devices]] entry each\n"
        f"one is. The config is {DEFAULT_CONFIG} when it exists, unless --config names one.\n"
        "Exit 1 when a configured device is not found (or its port is invalid).",
        [
            "tablectl devices",
            "tablectl devices --config table.toml --json",
            "tablectl devices --check   # only the configured devices; exit 1 if one is missing",
        ],
    )
    devices.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help=f"match them to this config's [[devices]] (default {DEFAULT_CONFIG} if it exists)",
    )
    devices.add_argument(
        "--check",
        action="store_true",
        help="print only the configured devices that are missing (nothing when all are found); "
        "needs a config",
    )
    devices.add_argument("--json", action="store_true", help="everything as one JSON document")
    devices.set_defaults(func=cmd_devices)

    demo = _command(
        sub,
        "demo",
        "a simulated EZ Baccarat table, end to end",
        "Run a simulated EZ Baccarat table end to end: a simulated shoe, the daemon, a journal\n"
        "in --dir and messages on a local MQTT broker (Mosquitto on --mqtt-port).",
        ["tablectl demo", "tablectl demo --rounds 0 --delay 1 --table bac-7"],
    )
    demo.add_argument("--rounds", type=int, default=12, help="rounds to play (0 = until Ctrl-C)")
    demo.add_argument(
        "--dir", type=Path, default=Path("demo-data"), help="where its files go (default demo-data)"
    )
    demo.add_argument(
        "--mqtt-port", type=int, default=1883, help="the broker's port (default 1883)"
    )
    demo.add_argument("--seed", type=int, default=7, help="the shuffle's seed (default 7)")
    demo.add_argument("--delay", type=float, default=0.15, help="seconds between cards")
    demo.add_argument("--table", default="bac-1", help="the demo table's id (its topics' name)")
    demo.set_defaults(func=cmd_demo)

    acl = _command(
        sub,
        "broker-acl",
        "the Mosquitto ACL for a card room's tables",
        "Print the Mosquitto ACL (or only the user names) for the tables whose configs are\n"
        "given: every table's user and the floor's, each with its topics only.",
        [
            "tablectl broker-acl --config t1.toml --config t2.toml > /etc/mosquitto/tablectl.acl",
            "tablectl broker-acl --users",
            "tablectl broker-acl --config t1.toml --config t2.toml --screens 4",
        ],
    )
    acl.add_argument(
        "--config",
        action="append",
        type=Path,
        dest="configs",
        metavar="FILE",
        help=f"a table config (repeatable: one per table; default {DEFAULT_CONFIG})",
    )
    acl.add_argument("--users", action="store_true", help="only the user names, one a line")
    acl.add_argument(
        "--display-results",
        action="store_true",
        help="let the display-<site> role read round/result too (the scoreboard's last hand and "
        "side-bet hits): it names every player id with each wager's result",
    )
    acl.add_argument(
        "--screens",
        type=int,
        default=1,
        metavar="N",
        help="users for N screens or systems per site of the floor and display roles "
        "(floor-<site>, floor-<site>-2 ...): on the shipped broker config a user is one "
        "connection at a time (use_username_as_clientid)",
    )
    acl.set_defaults(func=cmd_broker_acl)
    return p


def _journal_args(p: argparse.ArgumentParser, *, config_only: bool = False) -> None:
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


def _journal_config(args: argparse.Namespace) -> Path | None:
    """The config a journal command reads: --config, else the default unless --journal."""
    if args.config is not None:
        return Path(args.config)
    return None if getattr(args, "journal", None) is not None else DEFAULT_CONFIG


# -- commands -------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    cfg = checked_paths(load_config(args.config))  # nothing opened that check-config refuses
    configure_logging(cfg.table.log_level)
    from tablectl.daemon import Daemon

    async def go() -> bool:
        daemon = Daemon(cfg)
        await daemon.run()
        return daemon.failed

    return EXIT_FAIL if asyncio.run(go()) else EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """`tablectl status` (tablectl/status_cmd.py): the config names the journal, the socket is
    beside it."""
    from tablectl import status_cmd
    from tablectl.status_socket import StatusUnreadable, socket_path

    cfg = load_config(args.config)
    try:
        return status_cmd.main(
            f"{cfg.table.site}/{cfg.table.table}",
            socket_path(cfg.journal_path),
            as_json=args.json,
            watching=args.watch,
        )
    except StatusUnreadable as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return EXIT_USAGE


def cmd_check_config(args: argparse.Namespace) -> int:
    if args.config is not None and args.file is not None:
        print("tablectl: give the config once: --config FILE (or FILE alone)", file=sys.stderr)
        return EXIT_USAGE
    args.file = args.config or args.file or DEFAULT_CONFIG
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


def replay_records(lines: Iterator[str]) -> Iterator[Record]:
    """JSON lines as journal records, the way the daemon would have journaled them."""
    for seq, line in enumerate((ln for ln in lines if ln.strip()), start=1):
        ts: str | None = None
        source, ref, chain = "replay", None, None
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            body = journal_body(line.rstrip("\n"), f"not JSON: {exc.msg} at column {exc.colno}")
        except RecursionError:
            body = journal_body(line[:512], "not JSON: nested too deeply")
        except ValueError as exc:  # an integer of more digits than Python converts (4300)
            body = journal_body(line[:512], f"not JSON: {json_problem(exc)}")
        else:
            if isinstance(data, dict):
                given = data.pop("ts", None)
                ts = str(given) if given else None
                source = str(data.pop("source", source))
                raw_ref = data.pop("ref", None)
                ref = None if raw_ref is None else str(raw_ref)
                chain = data.pop("chain", None)
            body = journal_body(data)
        digest, key = _chain_head(chain, seq)
        yield Record(
            seq,
            replay_ts(seq) if ts is None else ts,
            source,
            ref,
            body,
            "",
            "" if digest is None else digest,
            key,
            witness=digest is not None,
        )


def _chain_head(chain: Any, seq: int) -> tuple[str | None, str | None]:
    """An exported record's chain head (hash, key id) carried through, so that replay publishes
    the same witness the daemon did; a line without one, with one for another seq, or with one
    the table never published (`"published": false`) publishes none (None, None)."""
    if not isinstance(chain, dict) or chain.get("seq") != seq or chain.get("published") is False:
        return None, None
    digest, key = chain.get("hash"), chain.get("key")
    if not isinstance(digest, str) or not (key is None or isinstance(key, str)):
        return None, None
    return digest, key


def print_rows(rows: Sequence[OutboxRow], out: TextIO) -> None:
    """Each row as a JSON line: topic, payload, qos, retain. The payload goes out as the row's
    own bytes, not decoded and encoded again: they are compact JSON written with these same
    separators and ensure_ascii=False from a dict with string keys, so the round trip gave back
    exactly those bytes."""
    for r in rows:
        topic, qos, retain = _compact(r.topic), _compact(r.qos), _compact(r.retain)
        payload = r.payload.decode("utf-8")
        out.write(f'{{"topic":{topic},"payload":{payload},"qos":{qos},"retain":{retain}}}\n')


@functools.lru_cache(maxsize=1024, typed=True)
def _compact(value: str | int | bool) -> str:
    """json.dumps(value, separators=(",", ":"), ensure_ascii=False), remembered: a replay
    writes the same few topics, qos and retain flags on every line."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def cmd_replay(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    table = Table(cfg)
    # Undecodable bytes become U+FFFD, so such a line turns into an alert rather than a crash.
    if str(args.events) == "-":
        reconfigure = getattr(sys.stdin, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
        stream: TextIO = sys.stdin
    else:
        stream = args.events.open(encoding="utf-8", errors="replace")
    with stream:
        for rec in replay_records(iter(stream)):
            print_rows(table.apply(rec), sys.stdout)
    return EXIT_OK


def _open_history(args: argparse.Namespace) -> tuple[History, LoadedConfig | None]:
    """The journal named on the command line with its closed segments (beside it, and in the
    archive folder), read-only."""
    archive = getattr(args, "archive", None)
    config = _journal_config(args)
    if config is not None:
        cfg = load_config(config)
        path = cfg.journal_path
        table: str | None = cfg.table.table
        archive = archive or cfg.archive_path
    else:
        cfg, path, table = None, args.journal, None
    return History.open(path, table, archive), cfg


# Inputs that carry a round's cards or decide how they are played: recall lists every one of them
# from the journal, including what no topic showed (burns, folded hands, hole cards).
POKER_INPUTS = (
    "hand.start",
    "hole.cards",
    "hole.discard",
    "board.cards",
    "up.cards",
    "down.cards",
    "option.buy",
    "draw",
    "chinese.set",
    "chinese.sweep",
    "hand.dead",
    "card.flashed",
    "showdown",
)
ROUND_INPUTS = (*HAND_ENTERED_TYPES, "decision", *POKER_INPUTS)


Round = tuple[str, dict[str, Any], list[dict[str, Any]]]


def rounds_from_journal(journal: Journal, table: Table) -> Iterator[Round]:
    """Every round finished in one journal file, rebuilt from its records with `table` as it
    stood before them: when it finished, its result payload, and the inputs that dealt and
    played it (each with its journal `seq`), in the order the table played them: at once, or,
    when the round was held, at the record that played it (round.resume, a gap filled). An
    input refused, or held and then discarded (a void), was never played and is not listed.
    A segment closes only between rounds, so no round spans two files."""
    inputs: list[dict[str, Any]] = []
    journaled: dict[int, dict[str, Any]] = {}  # this round's inputs, by seq, until played
    table.played = []
    for rec in journal.records():
        kind = rec.body.get("type")
        if kind in ROUND_INPUTS:
            entry: dict[str, Any] = {"seq": rec.seq, **rec.body}
            if rec.source.startswith("cmd/") and kind in HAND_ENTERED_TYPES:
                entry["by_hand"] = True  # R39: a card no device read, entered at the console
            at_start = _hand_start(table, rec) if kind == "hand.start" else None
            if at_start is not None:
                entry["at_start"] = at_start
            journaled[rec.seq] = entry
        rows = table.apply(rec)
        for seq, echo in table.take_played():
            played = journaled.pop(seq, None)
            if played is not None:
                inputs.append(_completed(played, echo))
        for row in rows:
            if row.topic.endswith("/round/result"):
                yield rec.ts, json.loads(row.payload), inputs
                inputs = []
                journaled.clear()


def _completed(entry: dict[str, Any], echo: dict[str, Any] | None) -> dict[str, Any]:
    """A poker input completed from the table's echo of it: the chips a decision moved; who a
    hand start dealt in and what each posted. Other inputs as journaled."""
    if echo is None:
        return entry
    if entry["type"] == "table.card" and echo.get("type") == "hole.discard":
        # a hole card read in the muck that the table took as that seat's discard
        seat, card = echo["seat"], entry["card"]
        return {"seq": entry["seq"], "type": "hole.discard", "seat": seat, "card": card}
    if echo.get("type") != entry["type"]:
        return entry
    if entry["type"] == "decision" and "added" in echo:  # what it put in and brought the seat to
        entry["added"], entry["to"] = echo["added"], echo["to"]
    elif "at_start" in entry and "dealt_in" in echo:  # who was dealt in, what each posted
        at_start = entry["at_start"]
        at_start["dealt_in"] = echo["dealt_in"]
        at_start["posted"] = _posts(echo, "blind", "kill")
        at_start["dead"] = _posts(echo, "dead")
        at_start["kill"] = _posts(echo, "kill")
    return entry


def _posts(echo: dict[str, Any], *kinds: str) -> list[dict[str, Any]]:
    """What each seat posted of these kinds (`blind` and `kill`: live, toward its call; `dead`)
    before the deal, from a `hand.start` echo, in the order posted."""
    total: dict[int, Decimal] = {}
    for p in echo["posted"]:
        if p["post"] in kinds:
            total[p["seat"]] = total.get(p["seat"], ZERO) + Decimal(p["amount"])
    return [{"seat": seat, "amount": fmt(amount)} for seat, amount in total.items()]


def _hand_start(table: Table, rec: Record) -> dict[str, Any] | None:
    """A poker hand's table as it begins (before `rec`, its `hand.start`): the seats and stacks
    between hands, the blinds, the betting structure and stakes, the document and the seat count
    (what a hand history needs besides the inputs; tablectl/phh.py); once the table has taken
    it, `posted` adds the seats dealt in with what each posted. None at a banked table."""
    game = table.rules.game
    if not isinstance(game, PokerGame):
        return None
    view = table.state_payload()
    return {
        "ts": rec.ts,
        "table": table.table_id,
        "game": game.id,
        "document": game.document,
        "structure": game.structure,
        "stakes": None if game.stakes is None else [fmt(a) for a in game.stakes],
        "blinds": [fmt(a) for a in game.blinds],
        "chip": fmt(game.chip),
        "seat_count": table.rules.seats.count,
        "seats": [
            {"seat": s["seat"], "player": s["player"], "stack": s["stack"]}
            for s in view.get("seats", [])
        ],
    }


def recall_rounds(
    history: History,
    cfg: LoadedConfig,
    *,
    last: int,
    number: int | None,
    every_file: bool = False,
) -> list[Round]:
    """Round `number` (every round with that number), or the `last` rounds (0: all), replaying
    only the files they are in: the newest first, each from the snapshot it opens with. A round
    number is looked for back to the newest file that holds it, or in every file with
    `every_file` (round numbers start again when the game changes)."""
    found: list[Round] = []
    files = history.files
    # A snapshot is trusted only when signed with the table's key (when the config names one).
    keys = [load_key(cfg.key_path)] if cfg.key_path is not None else []
    for i in range(len(files) - 1, -1, -1):
        f = files[i]
        start = Table(cfg)
        if f.first_seq > 1:  # from the snapshot it opens with (or an older file's, replayed on)
            start, _ = snapshot.rebuild(cfg, files[: i + 1], upto=f.first_seq - 1, keys=keys)
        rounds = list(rounds_from_journal(f, start))
        if number is not None:
            found = [r for r in rounds if r[1]["round"] == number] + found
            if found and not every_file:
                if i > 0:
                    print(
                        f"tablectl: round {number} found in {f.path.name}; {i} older file(s) not "
                        "searched (--every-file searches them too)",
                        file=sys.stderr,
                    )
                return found
        else:
            found = rounds + found
            if last > 0 and len(found) >= last:
                return found[-last:]
    return found


def cmd_recall(args: argparse.Namespace) -> int:
    history, cfg = _open_history(args)
    assert cfg is not None
    try:
        rounds = recall_rounds(
            history, cfg, last=args.last, number=args.round, every_file=args.every_file
        )
    finally:
        history.close()
    if args.round is not None and not rounds:
        print(f"tablectl: round {args.round} is not in the journal", file=sys.stderr)
        return EXIT_FAIL
    for ts, payload, inputs in rounds:
        if args.json:
            print(json.dumps({**payload, "journal": inputs}, separators=(",", ":")))
        else:
            print(format_round(ts, payload, inputs))
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    history, cfg = _open_history(args)
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


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def cmd_upgrade_check(args: argparse.Namespace) -> int:
    """`upgrade-check` (tablectl/upgrade.py): this release's replay of the journal's recent
    rounds against the outbox the running release stored."""
    from tablectl import upgrade

    cfg = load_config(args.config)
    path = cfg.journal_path
    if not os.path.lexists(path):
        print(f"upgrade-check: no journal at {path} yet: nothing to replay, nothing can differ")
        return EXIT_OK
    history = History.open(path, cfg.table.table, args.archive or cfg.archive_path)
    try:
        keys = [load_key(cfg.key_path)] if cfg.key_path is not None else []
        report = upgrade.check(cfg, history, rounds=args.rounds, keys=keys)
    finally:
        history.close()
    for line in report.lines:
        print(f"upgrade-check: {line}")
    return EXIT_FAIL if report.differs else EXIT_OK


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


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "phh":
        return _export_phh(args)
    if args.round is not None:
        print("tablectl: --round selects a hand of --format phh only", file=sys.stderr)
        return EXIT_USAGE
    history, _ = _open_history(args)
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
    if _journal_config(args) is None:
        print(
            "tablectl: --format phh replays the journal under its rules: give --config",
            file=sys.stderr,
        )
        return EXIT_USAGE
    history, cfg = _open_history(args)
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
        print(f"nothing to archive (keeping the newest {jc.keep_local_months} segments here)")
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """Build the config's journal from an export, every line proved against the export's chain
    (tablectl/exports.py) and, with --against, against the old table's heads. A refused import
    leaves no journal behind: it removes the file it made."""
    cfg = load_config(args.config)
    path = cfg.journal_path
    if path.exists() and path.stat().st_size > 0:
        raise JournalError(f"{path} exists: import builds a new journal (move the old one away)")
    key = load_key(cfg.key_path) if cfg.key_path is not None else None
    heads = read_heads(args.against) if args.against is not None else []
    started = time.monotonic()
    journal = Journal(path, table=cfg.table.table, key=key)
    refused: str | None = None
    try:
        with args.events.open(encoding="utf-8", errors="replace") as stream:
            count = journal.import_records(verified_lines(stream))
        if heads:
            found = journal.check(heads=heads).problems + _published_before(journal, heads)
            if found:
                refused = f"the export does not agree with {args.against}: " + "; ".join(found)
    except ExportError as exc:
        refused = f"{args.events}: {exc}"
    finally:
        journal.close()
    if refused is not None:
        _remove_journal(path)
        print(f"tablectl: import refused, nothing imported: {refused}", file=sys.stderr)
        return EXIT_FAIL
    seconds = max(time.monotonic() - started, 1e-9)
    print(f"{path}: {count} records imported ({count / seconds:,.0f} records/s)", flush=True)
    if heads:
        print(f"{path}: every one of {len(heads)} heads in {args.against} agrees")
    if count:
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


def cmd_analyze(args: argparse.Namespace) -> int:
    from tablectl.analysis import progress_to, with_percents
    from tablectl.games.registry import spec_of
    from tablectl.games.spec import AnalyzeRequest

    try:
        spec = spec_of(args.game)
    except ValueError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.decks is not None and not spec.dealt_from_shoe:
        print(
            f"tablectl: {args.game} is dealt from one deck a round: --decks does not apply",
            file=sys.stderr,
        )
        return EXIT_USAGE
    request = AnalyzeRequest(
        game=args.game,
        wager=args.wager,
        paytable=args.paytable,
        decks=args.decks if args.decks is not None else default_decks(args.game),
        banker_push_on_dragon7=args.banker_push_on_dragon7,
        pure_pays=args.pure_pays,
    )
    counter = ProgressCounter(sys.stderr)
    try:
        with progress_to(counter):
            analysis = spec.analyze(request)
    except (ValueError, KeyError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        counter.close()
    if args.json:
        print(json.dumps(with_percents(analysis.result)))
    else:
        print("\n".join(analysis_lines(analysis.what, analysis.result)))
    return EXIT_OK


PROGRESS_AFTER = 3.0
"""Seconds an analysis runs before ProgressCounter shows anything."""


class ProgressCounter:
    """`analyze`'s progress on a terminal: "parts done/total, seconds" on one line of stderr,
    rewritten in place, once the analysis has run PROGRESS_AFTER seconds; nothing when stderr is
    not a terminal (a log, a pipe, a test)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(isatty is not None and isatty())
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.started
        if not self.enabled or elapsed < PROGRESS_AFTER:
            return
        self.stream.write(f"\ranalyze: {done}/{total} parts done, {elapsed:.0f} s")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the progress line, if one was shown."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False


def _pct(x: float) -> str:
    return f"{100 * x:.4f}%"


def _interval(ci: Sequence[float]) -> str:
    return f"95% interval {_pct(ci[0])} to {_pct(ci[1])}"


def _simulated(result: Mapping[str, Any]) -> str:
    """A simulation's figures, each with its 95% interval, and its size."""
    parts = [f"hit frequency {_pct(float(result['hit_frequency']))}"]
    if "hit_frequency_ci95" in result:
        parts[0] += f" ({_interval(result['hit_frequency_ci95'])})"
    parts.append(f"house edge {_pct(float(result['house_edge']))}")
    if "ci95" in result:
        parts[1] += f" ({_interval(result['ci95'])})"
    size = f", {result['hands']:,} rounds" if "hands" in result else ""
    seed = f", seed {result['seed']}" if "seed" in result else ""
    return ", ".join(parts) + f" (simulation{size}{seed})"


def analysis_lines(what: str, result: Mapping[str, Any]) -> list[str]:
    """`analyze`'s text, the same figures as `--json` in the same order, every one a percent: an
    exact figure is the headline; a simulation is printed with the 95% interval of every figure,
    as the cross-check (`result["simulation"]`) of the exact figure when there is one, followed
    by its note (which figure is the headline, and what a difference between them means)."""
    check = result.get("simulation")
    if result.get("method") == "exact" and isinstance(check, Mapping):
        hit, edge = float(result["hit_frequency"]), float(result["house_edge"])
        low, high = (float(v) for v in check["ci95"])
        inside = "inside" if low <= edge <= high else "outside"
        scope = f"exact: {result['exact_for']}" if result.get("exact_for") else "exact"
        lines = [
            f"{what}: hit frequency {_pct(hit)}, house edge {_pct(edge)} ({scope})",
            f"  cross-check: {_simulated(check)}; the exact house edge is {inside} the interval",
        ]
        if check.get("note"):
            lines.append(f"  {check['note']}")
        return lines
    if result.get("method") == "simulation":
        return [f"{what}: {_simulated(result)}"]
    return [
        f"{what}: hit frequency {_pct(float(result['hit_frequency']))}, "
        f"house edge {_pct(float(result['house_edge']))} ({result['method']})"
    ]


MISSING = ("not found", "invalid")
"""A configured device's `devices` status that fails the check (exit 1)."""


def cmd_devices(args: argparse.Namespace) -> int:
    from tablectl import devices

    config: Path | None = args.config
    if config is None and DEFAULT_CONFIG.exists():
        config = DEFAULT_CONFIG
    if args.check and config is None:
        print(
            f"tablectl: devices --check needs a config: give --config (no {DEFAULT_CONFIG})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    entries = load_config(config).table.devices if config is not None else None
    inv = devices.inventory()
    matches = None if entries is None else devices.match_entries(entries, inv)
    missing = [m for m in matches or () if m.status in MISSING]
    if not args.check:
        render = devices.render_json if args.json else devices.render_text
        sys.stdout.write(render(inv, matches) + "\n")
    elif args.json:
        gone = [
            {"name": m.name, "driver": m.driver, "port": m.port, "status": m.status, "note": m.note}
            for m in missing
        ]
        print(json.dumps({"missing": gone}, indent=2))
    else:
        for m in missing:
            print(f"{m.name} [{m.driver}] {m.port}: {m.status}" + (f": {m.note}" if m.note else ""))
    if missing:
        names = ", ".join(m.name for m in missing)
        print(f"tablectl: {config}: device(s) not found: {names}", file=sys.stderr)
        return EXIT_FAIL
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from tablectl.demo import run_demo

    return run_demo(
        args.dir,
        rounds=args.rounds,
        mqtt_port=args.mqtt_port,
        seed=args.seed,
        delay=args.delay,
        table=args.table,
    )


def cmd_broker_acl(args: argparse.Namespace) -> int:
    """Every table's broker users and their ACL (tablectl/broker.py; docs/operations.md)."""
    from tablectl.broker import acl_text, room_users

    tables, problems = [], []
    for path in args.configs or [DEFAULT_CONFIG]:
        try:
            tables.append(load_config(path).table)
        except ConfigError as exc:
            problems += exc.problems
    if problems:
        raise ConfigError(problems)
    try:
        users = room_users(tables, display_results=args.display_results, screens=args.screens)
    except ValueError as exc:
        print(f"tablectl broker-acl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write("".join(u.name + "\n" for u in users) if args.users else acl_text(users))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
