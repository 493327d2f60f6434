"""The tamper pass of the campaign (`python -m hil.campaign --tamper`): every kind of
tampering an insider can do to a journal or an export, tried again and again at random places
against a keyed journal the pass made, and what caught it.

The journal is a seeded baccarat history (hil/synthetic.py) journaled and applied the way the
daemon does, with a chain key, so its outbox holds the heads the floor would have collected and
`witness.anchors` the anchors. Each trial alters a fresh copy (hil/tamper.py) and runs every
check: the public chain alone, the key, the heads with their anchors, both; or, for an export,
`import` alone and `import --against` the heads. A kind passes when every trial was caught by the
check docs/operations.md ("What each check proves") says catches it.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hil import tamper
from hil.campaign import TABLE, table_config
from hil.synthetic import baccarat_history
from tablectl.chainkey import ChainKey, create_key
from tablectl.cli import main as cli
from tablectl.cli.replay import replay_records
from tablectl.config import load_config
from tablectl.exports import export_line
from tablectl.journal import Journal
from tablectl.journal.heads import anchors, heads_from_lines
from tablectl.journal.segments import History
from tablectl.table import Table

CHECKS = ("chain", "key", "heads", "both")
"""What a journal is checked with: the public chain alone, the key, the heads (with anchors),
the key and the heads together."""


@dataclass
class Kind:
    """A kind of tampering: `run` alters a copy and returns which checks caught it; `required`
    the check that must catch every trial (docs/operations.md)."""

    name: str
    required: str
    run: Callable[[Trial], dict[str, bool]]
    caught: dict[str, int] = field(default_factory=dict)
    trials: int = 0


@dataclass
class Trial:
    """One trial's material: a fresh copy of the journal and its export, the key, the heads
    file, a seeded random source."""

    folder: Path
    journal: Path
    key: ChainKey
    heads: Path
    export: list[str]
    last_head: int
    rng: random.Random


def _config(folder: Path, journal: Path, key_file: str | None) -> Path:
    """A table config for the journal (no device, no broker): what `verify` and `import` read."""
    return table_config(folder, None, None, journal=journal, key_file=key_file)


def make_journal(folder: Path, rounds: int, seed: int) -> tuple[Path, ChainKey, Path, int]:
    """A keyed journal of `rounds` baccarat rounds as the daemon journals them, and a heads file
    of what the floor collected (every round's head and the anchors). Returns the journal, the
    key, the heads file and the last record a head names."""
    key = create_key(folder / "journal.key")
    journal_path = folder / "journal.db"
    config = _config(folder, journal_path, "journal.key")
    cfg = load_config(config)
    table = Table(cfg)
    journal = Journal(journal_path, table=TABLE, key=key)
    try:
        for rec in replay_records(baccarat_history(rounds, seed, config)):
            done = journal.append(rec.ts, rec.source, rec.ref, rec.body)
            journal.write_outputs(done, table.apply(done))
        lines = [
            json.dumps({"topic": r.topic, "payload": json.loads(r.payload)})
            for r in journal.outbox(topic_suffix="journal/head")
        ]
        lines += [
            json.dumps({"chain": f["chain"], "anchor": f["anchor"]}) for _, f in anchors(journal)
        ]
    finally:
        journal.close()
    heads = folder / "heads.jsonl"
    heads.write_text("".join(line + "\n" for line in lines))
    last = max(h.seq for h in heads_from_lines(lines, "heads") if h.anchor is None)
    return journal_path, key, heads, last


def _quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli(argv)


def _checks(t: Trial) -> dict[str, bool]:
    """Which checks find the journal altered: True where verify-journal exits non-zero."""
    j = str(t.journal)
    key, heads = ["--key", str(t.key.path)], ["--against", str(t.heads)]
    return {
        "chain": _quiet(["verify-journal", "--journal", j]) != 0,
        "key": _quiet(["verify-journal", "--journal", j, *key]) != 0,
        "heads": _quiet(["verify-journal", "--journal", j, *heads]) != 0,
        "both": _quiet(["verify-journal", "--journal", j, *key, *heads]) != 0,
    }


def _record(t: Trial, *, upto: int | None = None) -> int:
    """A record to tamper with, after the config record, at most `upto`."""
    return t.rng.randint(3, upto if upto is not None else t.last_head)


def _edit(t: Trial) -> None:
    tamper.alter_record(t.journal, _record(t))


def _delete(t: Trial) -> None:
    seq = _record(t)
    db = tamper._db(t.journal)
    try:
        db.execute("DELETE FROM journal WHERE seq = ?", (seq,))
        db.execute("UPDATE journal SET seq = seq - 1 WHERE seq > ?", (seq,))
    finally:
        db.close()


def _moved(t: Trial) -> None:
    seq = _record(t, upto=t.last_head - 1)
    db = tamper._db(t.journal)
    try:
        db.execute("UPDATE journal SET seq = -1 WHERE seq = ?", (seq,))
        db.execute("UPDATE journal SET seq = ? WHERE seq = ?", (seq, seq + 1))
        db.execute("UPDATE journal SET seq = ? WHERE seq = -1", (seq + 1,))
    finally:
        db.close()


def _journal_kind(
    alter: Callable[[Trial], None], *, rechain: str | None
) -> Callable[[Trial], dict[str, bool]]:
    """A trial that alters the journal, then hides it as `rechain` says: None (not at all),
    "public" (the public chain recomputed, no key) or "key" (a key holder's, keyed hashes too)."""

    def run(t: Trial) -> dict[str, bool]:
        alter(t)
        if rechain is not None:
            tamper.rechain(t.journal, t.key if rechain == "key" else None)
        return _checks(t)

    return run


def _front(signed: bool) -> Callable[[Trial], dict[str, bool]]:
    def run(t: Trial) -> dict[str, bool]:
        tamper.cut_front(t.journal, _record(t), t.key if signed else None)
        return _checks(t)

    return run


def _tail(t: Trial) -> dict[str, bool]:
    tamper.cut_tail(t.journal, t.rng.randint(3, t.last_head - 1))
    return _checks(t)


def _export_kind(name: str, *, recompute: bool = False) -> Callable[[Trial], dict[str, bool]]:
    """A trial that alters the export (`name` of `tamper.export_tampers`) and imports it, alone
    and --against the heads: True where the import was refused."""

    def run(t: Trial) -> dict[str, bool]:
        at = t.rng.randint(2, len(t.export) - 3)
        lines = tamper.export_tampers(at)[name](t.export)
        if recompute:
            lines = tamper.rechained_export(lines)
        events = t.folder / "altered.jsonl"
        events.write_text("".join(line + "\n" for line in lines))
        refused = {}
        for check, extra in (("chain", []), ("heads", ["--against", str(t.heads)])):
            target = t.folder / f"restored-{check}.db"
            config = _config(t.folder, target, None)
            refused[check] = _quiet(["import", "--config", str(config), str(events), *extra]) != 0
            for part in ("", "-wal", "-shm"):
                Path(f"{target}{part}").unlink(missing_ok=True)
        # The new table's key signs whatever it imports: it adds nothing to the import's proof.
        refused["key"], refused["both"] = refused["chain"], refused["heads"]
        return refused

    return run


def kinds() -> list[Kind]:
    """Every kind, with the check docs/operations.md says catches all of it."""
    out = [
        Kind("record edited, chain left", "chain", _journal_kind(_edit, rechain=None)),
        Kind("record edited, chain recomputed", "key", _journal_kind(_edit, rechain="public")),
        Kind("record deleted, chain recomputed", "key", _journal_kind(_delete, rechain="public")),
        Kind("records moved, chain recomputed", "key", _journal_kind(_moved, rechain="public")),
        Kind("record edited by a key holder", "heads", _journal_kind(_edit, rechain="key")),
        Kind("record deleted by a key holder", "heads", _journal_kind(_delete, rechain="key")),
        Kind("front cut, start unsigned", "key", _front(signed=False)),
        Kind("front cut, start signed by a key holder", "heads", _front(signed=True)),
        Kind("tail cut past a head", "heads", _tail),
    ]
    for name in tamper.export_tampers(1):
        out.append(Kind(f"export: {name}", "chain", _export_kind(name)))
    out.append(
        Kind(
            "export: line edited, chain recomputed",
            "heads",
            _export_kind("line edited", recompute=True),
        )
    )
    return out


# -- the table's own defences: a journal it cannot replay, a path that is not a file ---------------

HELD_SECONDS = 6.0
"""How long each daemon on a broken journal is watched under the systemd stand-in (restart 2 s
after an exit): a loop shows as a second start well within it."""


def held_kinds(folder: Path) -> list[dict[str, Any]]:
    """Each journal of hil/journal_faults.py (ten ways a journal cannot be replayed) under a
    real `tablectl run` and the systemd stand-in for HELD_SECONDS, all at once: caught when the
    daemon started exactly once and stayed up held, its status naming the record."""
    from hil.journal_faults import KINDS, build
    from hil.supervise import Supervised, supervise

    units: dict[str, Supervised] = {}
    for name, kind in KINDS.items():
        home = folder / name
        home.mkdir()
        config = _config(home, home / "journal.db", None)
        kind.doctor(build(load_config(config)))
        units[name] = Supervised(config, home, "daemon", watchdog=HELD_SECONDS)
    try:
        supervise(list(units.values()), HELD_SECONDS)
    finally:
        for unit in units.values():
            unit.stop()
    rows = []
    for name, unit in units.items():
        record = KINDS[name].record
        where = "the journal file" if record is None else f"record {record}"
        caught = (
            unit.starts == 1
            and not unit.ends
            and (unit.status or "").startswith(f"JOURNAL FAULT at {where}: ")
        )
        rows.append({"kind": f"journal: {name}", "trials": 1, "caught": int(caught), "by": "held"})
    return rows


def path_kinds(folder: Path) -> list[dict[str, Any]]:
    """A journal path that is a device node, a FIFO or a folder: caught when `check-config` and
    `run` both exit 2 and the path is left as it was (its mode, owner and times; a FIFO not
    opened, which would block: `run` has a deadline)."""
    import os
    import stat
    import subprocess
    import sys

    def device(where: Path) -> None:
        if os.geteuid() == 0:
            os.mknod(where, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's own device
        else:
            where.symlink_to("/dev/null")

    makers: dict[str, Callable[[Path], None]] = {
        "a device": device,
        "a FIFO": lambda where: os.mkfifo(where, 0o644),
        "a folder": lambda where: where.mkdir(mode=0o755),
    }
    rows = []
    for name, make in makers.items():
        home = folder / name.replace(" ", "-")
        home.mkdir()
        target = home / "journal.db"
        make(target)
        before = os.lstat(target)
        config = _config(home, target, None)
        codes: list[int | None] = []
        for command in ("check-config", "run"):
            try:
                done = subprocess.run(
                    [sys.executable, "-m", "tablectl.cli", command, "--config", str(config)],
                    capture_output=True,
                    timeout=30,
                    check=False,
                )
                codes.append(done.returncode)
            except subprocess.TimeoutExpired:  # blocked opening it: not caught
                codes.append(None)
        after = os.lstat(target)
        same = (before.st_mode, before.st_uid, before.st_mtime_ns) == (
            after.st_mode,
            after.st_uid,
            after.st_mtime_ns,
        )
        caught = codes == [2, 2] and same
        rows.append(
            {"kind": f"journal path: {name}", "trials": 1, "caught": int(caught), "by": "exit 2"}
        )
    return rows


def tamper_pass(
    trials: int, seed: int, rounds: int = 40, others: int = 5000, commands: bool = True
) -> dict[str, Any]:
    """Run every kind `trials` times (the command kinds: `others` commands between a wager and
    its copy, at most 3 trials; left out without `commands`); the figures, kind by kind, and
    whether all passed."""
    import tempfile

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tablectl-tamper-") as scratch:
        base = Path(scratch)
        journal, key, heads, last_head = make_journal(base, rounds, seed)
        history = History.open(journal, None)
        try:
            export = [export_line(rec) for rec in history.records()]
        finally:
            history.close()
        results = []
        for kind in kinds():
            for _ in range(trials):
                work = base / "trial"
                shutil.rmtree(work, ignore_errors=True)
                work.mkdir()
                copy = work / "journal.db"
                shutil.copy(journal, copy)
                t = Trial(work, copy, key, heads, export, last_head, rng)
                caught = kind.run(t)
                kind.trials += 1
                for check in CHECKS:
                    kind.caught[check] = kind.caught.get(check, 0) + int(caught[check])
            results.append(kind)
        defences = held_kinds(_fresh(base / "held")) + path_kinds(_fresh(base / "paths"))
        if commands:
            from hil.tamper_commands import command_kinds

            defences += command_kinds(_fresh(base / "commands"), trials, others)
    rows = [
        {
            "kind": k.name,
            "trials": k.trials,
            **{check: k.caught.get(check, 0) for check in CHECKS},
            "required": k.required,
            "passed": k.caught.get(k.required, 0) == k.trials,
        }
        for k in results
    ]
    for row in defences:
        row["passed"] = row["caught"] == row["trials"]
    passed = all(r["passed"] for r in rows + defences)
    return {
        "rounds": rounds,
        "records": len(export),
        "kinds": rows,
        "defences": defences,
        "passed": passed,
    }


def _fresh(folder: Path) -> Path:
    folder.mkdir()
    return folder


def print_table(figures: dict[str, Any]) -> None:
    """The figures as docs/performance.md shows them: detected/trials per kind and check."""
    print(
        f"tamper pass: a keyed journal of {figures['rounds']} rounds, {figures['records']} records"
    )
    print(f"{'kind':<58} " + " ".join(f"{c:>7}" for c in CHECKS) + "  required")
    for row in figures["kinds"]:
        cells = " ".join(f"{row[c]:>3}/{row['trials']:<3}" for c in CHECKS)
        flag = "" if row["passed"] else "  <- must be all"
        print(f"{row['kind']:<58} {cells}  {row['required']}{flag}")
    print(f"{'the table itself':<58} {'caught':>7}  by")
    for row in figures["defences"]:
        flag = "" if row["passed"] else "  <- must be all"
        print(f"{row['kind']:<58} {row['caught']:>3}/{row['trials']:<3}  {row['by']}{flag}")
