"""`tablectl` command line (DESIGN contract 4): run, check-config, replay, recall, verify-journal,
analyze, export, demo, devices, broker-acl, keygen, collect-heads."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from tablectl import segments, snapshot
from tablectl.chainkey import ChainKey, KeyFileError, create_key, load_key
from tablectl.config import BrokerSetupError, ConfigError, LoadedConfig, Problem, load_config
from tablectl.games.poker.spec import PokerGame
from tablectl.journal import Journal, JournalError, Record
from tablectl.logs import configure_logging
from tablectl.outputs import OutboxRow
from tablectl.phh import PhhError, is_poker_result, left_out, poker_hand, to_phh, to_phhs
from tablectl.round_text import format_round
from tablectl.rules.poker_fees import PokerSchedule
from tablectl.segments import History
from tablectl.snapshot import SnapshotError
from tablectl.table import HAND_ENTERED_TYPES, Table, journal_body, replay_ts
from tablectl.witness import HeadsError, read_heads
from tablectl_base.events import json_problem
from tablectl_base.money import ZERO, fmt

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tablectl", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the table daemon")
    run.add_argument("--config", required=True, type=Path)
    run.set_defaults(func=cmd_run)

    check = sub.add_parser("check-config", help="validate a table config (exit 0 valid, 2 not)")
    check.add_argument("file", type=Path)
    check.set_defaults(func=cmd_check_config)

    replay = sub.add_parser("replay", help="run a JSONL event file through the engine")
    replay.add_argument("--config", required=True, type=Path)
    replay.add_argument("events", type=Path, help="JSON lines; '-' reads standard input")
    replay.set_defaults(func=cmd_replay)

    recall = sub.add_parser("recall", help="finished rounds from the journal, every card in order")
    _journal_args(recall)
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

    verify = sub.add_parser("verify-journal", help="check the journal's hash chain")
    _journal_args(verify, config_required=False)
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

    keygen = sub.add_parser("keygen", help="create a journal chain key file (mode 0600)")
    keygen.add_argument("path", type=Path)
    keygen.set_defaults(func=cmd_keygen)

    heads = sub.add_parser("collect-heads", help="print the table's journal heads off MQTT")
    heads.add_argument("--config", required=True, type=Path)
    heads.add_argument("--seconds", type=float, default=0.0, help="stop after N s (0: Ctrl-C)")
    heads.add_argument("--count", type=int, default=0, help="stop after N heads (0: no limit)")
    heads.add_argument("--username", help="the broker user (default: the config's)")
    heads.add_argument("--password-file", type=Path, help="that user's password file")
    heads.set_defaults(func=cmd_collect_heads)

    export = sub.add_parser(
        "export", help="the journal as JSON lines that `replay` accepts, or poker hands as PHH"
    )
    _journal_args(export, config_required=False)
    export.add_argument(
        "--format",
        choices=["jsonl", "phh"],
        default="jsonl",
        help="jsonl (default): every record, for replay and import; phh: every finished poker "
        "hand as Poker Hand History, one [N] section a hand (a .phhs file; needs --config)",
    )
    export.add_argument("--round", type=int, help="with --format phh: only this hand")
    export.set_defaults(func=cmd_export)

    arch = sub.add_parser(
        "archive", help="move closed monthly journal segments to the archive folder"
    )
    arch.add_argument("--config", required=True, type=Path)
    arch.add_argument("--to", type=Path, help="the archive folder (default: [journal] archive_dir)")
    arch.set_defaults(func=cmd_archive)

    imp = sub.add_parser(
        "import", help="a new journal from an export (a table restored onto a replacement PC)"
    )
    imp.add_argument("--config", required=True, type=Path)
    imp.add_argument("events", type=Path, help="the `tablectl export` file")
    imp.set_defaults(func=cmd_import)

    analyze = sub.add_parser("analyze", help="exact probability and house edge of a wager")
    analyze.add_argument("--game", required=True)
    analyze.add_argument("--wager", required=True)
    analyze.add_argument("--paytable")
    analyze.add_argument(
        "--decks", type=int, help="baccarat and blackjack: decks in the shoe (default 8)"
    )
    analyze.add_argument("--banker-push-on-dragon7", action="store_true")
    analyze.add_argument("--pure-pays", choices=["6 to 5", "3 to 2"])  # 21.5 base wager (R11)
    analyze.add_argument("--json", action="store_true")
    analyze.set_defaults(func=cmd_analyze)

    devices = sub.add_parser("devices", help="list serial ports and USB devices, matched to config")
    devices.add_argument("--config", type=Path, help="match them to this config's [[devices]]")
    devices.add_argument("--json", action="store_true")
    devices.set_defaults(func=cmd_devices)

    demo = sub.add_parser("demo", help="a simulated EZ Baccarat table, end to end")
    demo.add_argument("--rounds", type=int, default=12, help="rounds to play (0 = until Ctrl-C)")
    demo.add_argument("--dir", type=Path, default=Path("demo-data"))
    demo.add_argument("--mqtt-port", type=int, default=1883)
    demo.add_argument("--seed", type=int, default=7)
    demo.add_argument("--delay", type=float, default=0.15, help="seconds between cards")
    demo.add_argument("--table", default="bac-1", help="the demo table's id (its topics' name)")
    demo.set_defaults(func=cmd_demo)

    acl = sub.add_parser("broker-acl", help="the Mosquitto ACL for a card room's tables")
    acl.add_argument("--config", required=True, action="append", type=Path, dest="configs")
    acl.add_argument("--users", action="store_true", help="only the user names, one a line")
    acl.set_defaults(func=cmd_broker_acl)
    return p


def _journal_args(p: argparse.ArgumentParser, *, config_required: bool = True) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--config", type=Path, help="the table config (its journal is used)")
    if not config_required:
        g.add_argument("--journal", type=Path, help="a journal file")
    p.add_argument(
        "--archive",
        type=Path,
        metavar="DIR",
        help="a folder of archived journal segments to read too (default: the config's "
        "[journal] archive_dir; segments beside the journal are always read)",
    )


# -- commands -------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    configure_logging(cfg.table.log_level)
    from tablectl.daemon import Daemon

    async def go() -> bool:
        daemon = Daemon(cfg)
        await daemon.run()
        return daemon.failed

    return EXIT_FAIL if asyncio.run(go()) else EXIT_OK


def cmd_check_config(args: argparse.Namespace) -> int:
    cfg = load_config(args.file)
    t = cfg.table
    for warning in cfg.warnings:  # e.g. a vendor plugin that cannot load: the table still runs
        print(f"warning: {warning}", file=sys.stderr)
    if cfg.key_path is not None:  # the daemon would refuse it: say so before it starts
        try:
            load_key(cfg.key_path)
        except KeyFileError as exc:
            print(str(Problem(str(args.file), "journal.key_file", str(exc))), file=sys.stderr)
            return EXIT_USAGE
    ok = "ok, with warnings" if cfg.warnings else "ok"
    if isinstance(cfg.schedule, PokerSchedule):
        money = f"{t.game.id} collection {cfg.schedule.label} (R44)"
    else:
        limits, schedule = cfg.rules.banked()
        money = f"limits {limits.min}-{limits.max}, collection schedule {schedule.option}"
    print(
        f"{args.file}: {ok}: {t.game.id} table {t.site}/{t.table}, {t.seats.count} seats, "
        f"{money}, {len(t.devices)} device(s)"
    )
    return EXIT_OK


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
    the same witness the daemon did; a line without one (or with one for another seq) publishes
    none (None, None)."""
    if not isinstance(chain, dict) or chain.get("seq") != seq:
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
    if getattr(args, "config", None):
        cfg = load_config(args.config)
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


def cmd_keygen(args: argparse.Namespace) -> int:
    key = create_key(args.path)
    print(f"{args.path}: key {key.id} written (mode 0600); keep a copy off the table's PC")
    return EXIT_OK


def cmd_collect_heads(args: argparse.Namespace) -> int:
    from tablectl.witness import collect_heads

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
            sys.stdout.write(rec.jsonl() + "\n")
    finally:
        history.close()
    return EXIT_OK


def _export_phh(args: argparse.Namespace) -> int:
    """Every finished poker hand (or hand --round) as PHH, one `[N]` section each (tablectl/phh.py).
    A misdeal, or a hand with a post past the blinds, is left out (noted in a TOML comment); a
    hand of a game PHH has no variant code for
    refuses the whole export with exit 2, before anything is written."""
    if not getattr(args, "config", None):
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
    """Build the config's journal from an export, checking the export's own chain hashes."""
    cfg = load_config(args.config)
    path = cfg.journal_path
    if path.exists() and path.stat().st_size > 0:
        raise JournalError(f"{path} exists: import builds a new journal (move the old one away)")
    key = load_key(cfg.key_path) if cfg.key_path is not None else None
    started = time.monotonic()
    journal = Journal(path, table=cfg.table.table, key=key)
    try:
        with args.events.open(encoding="utf-8", errors="replace") as stream:
            count = journal.import_records(_export_lines(stream))
        seconds = max(time.monotonic() - started, 1e-9)
        print(f"{path}: {count} records imported ({count / seconds:,.0f} records/s)", flush=True)
        if count:
            # The table's state after them, so the daemon starts without replaying them all.
            started = time.monotonic()
            table = Table(cfg)
            for rec in journal.records():
                table.advance(rec)
            snapshot.take(table, journal)
            seconds = max(time.monotonic() - started, 1e-9)
            print(f"{path}: snapshot after record {count} built by replay in {seconds:.1f} s")
    finally:
        journal.close()
    return EXIT_OK


def _export_lines(
    stream: Iterable[str],
) -> Iterator[tuple[str, str, str | None, dict[str, Any], str | None]]:
    """Each line of an export as (ts, source, ref, body, its chain hash if it shows one)."""
    for rec in replay_records(iter(stream)):
        claimed = rec.hash if rec.hash else None
        yield rec.ts, rec.source, rec.ref, rec.body, claimed


def cmd_analyze(args: argparse.Namespace) -> int:
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
        decks=args.decks,
        banker_push_on_dragon7=args.banker_push_on_dragon7,
        pure_pays=args.pure_pays,
    )
    try:
        analysis = spec.analyze(request)
    except (ValueError, KeyError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    result = analysis.result
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{analysis.what}: hit frequency {result['hit_frequency']:.6f}, "
            f"house edge {100 * result['house_edge']:.4f}% ({result['method']})"
        )
    return EXIT_OK


def cmd_devices(args: argparse.Namespace) -> int:
    from tablectl.devices import run_devices

    entries = load_config(args.config).table.devices if args.config else None
    return run_devices(entries, as_json=args.json, out=sys.stdout)


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
    for path in args.configs:
        try:
            tables.append(load_config(path).table)
        except ConfigError as exc:
            problems += exc.problems
    if problems:
        raise ConfigError(problems)
    try:
        users = room_users(tables)
    except ValueError as exc:
        print(f"tablectl broker-acl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write("".join(u.name + "\n" for u in users) if args.users else acl_text(users))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
