"""`tablectl upgrade-check`: the new release replays the journal's recent rounds
(at least the last shoe or the last N rounds, reaching back into closed monthly segments when the
live file holds fewer) and compares every message with the one stored in the outbox for the same
record; it says what it would do to the file (a schema rewrite, snapshots it cannot read); and a
journal of a schema newer than this release reads is refused clearly, by the command and by the
daemon (held, never a restart loop).

Both "releases" are this code: a difference is made by editing the stored outbox, which is what
the comparison sees whether the stored message or the new code changed."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tablectl import __version__, snapshot
from tablectl.chainkey import create_key
from tablectl.cli import main
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.state import Input
from tests.helpers import NOVEMBER, OCTOBER, natural_rounds, write_config
from tests.helpers import MonthClock as Clock
from tests.journal.test_journal_storage import write_schema_2


@pytest.fixture
def cfg_path(tmp_path: Path) -> Path:
    return write_config(tmp_path)


def months(path: Path, clock: Clock, per_month: dict[str, int], shoe_every: int = 4) -> None:
    """`per_month` rounds in each month, as the daemon journals them (the first record of a
    month closes the last month's segment), and the snapshot a stop takes."""
    daemon = Daemon(load_config(path), mqtt=False)
    daemon.recover()
    start = 0
    try:
        for month, n in per_month.items():
            clock.month = month
            for event in natural_rounds(n, start, shoe_every=shoe_every):
                daemon._ingest(Input("console", event))
            start += n
        snapshot.take(daemon.table, daemon.journal)  # as a stop takes one
    finally:
        daemon.journal.close()


def check(capsys: pytest.CaptureFixture[str], cfg_path: Path, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["upgrade-check", "--config", str(cfg_path), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


def sql(path: Path, *statements: tuple[str, tuple[Any, ...]]) -> None:
    db = sqlite3.connect(path)
    try:
        for text, args in statements:
            db.execute(text, args)
        db.commit()
    finally:
        db.close()


def test_every_message_of_the_window_is_compared_and_found_the_same(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 7})
    code, out = check(capsys, cfg_path, "--rounds", "3")
    assert code == 0, out
    assert "upgrade-check: journal: schema 3 (" in out and "nothing to rewrite" in out
    made = f"(made by tablectl {__version__})"
    assert f"snapshots: format {snapshot.FORMAT} {made}; this release reads it" in out
    assert re.search(r"replayed: records 1-\d+, 7 finished rounds\n", out), out
    # 3 rounds asked for, but the last shoe (rounds 5-7) is whole, and the rounds before
    # it: the last 3 rounds are the last shoe's
    assert "window: the last 3 rounds (rounds 5-7), the last shoe (shoe 2) whole" in out
    found = re.search(r"compared: (\d+) messages the outbox holds", out)
    assert found and int(found[1]) > 7 * 10
    assert f"ok: every one of {found[1]} messages compared is the same" in out


def test_the_last_shoe_makes_the_window_when_it_is_longer_than_the_rounds_asked_for(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 9}, shoe_every=6)  # shoe 1: rounds 1-6, shoe 2: 7-9
    code, out = check(capsys, cfg_path, "--rounds", "2")
    assert code == 0, out
    assert "window: the last 3 rounds (rounds 7-9), the last shoe (shoe 2) whole" in out


def test_a_window_longer_than_the_live_file_reaches_back_into_the_closed_month(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live file of a new month holds 2 rounds; 5 are asked for: the October segment is
    replayed too (from record 1), and every message the outbox still holds is compared."""
    months(cfg_path, clock, {OCTOBER: 6, NOVEMBER: 2})
    assert (cfg_path.parent / "journal-2026-10.db").exists()
    code, out = check(capsys, cfg_path, "--rounds", "5")
    assert code == 0, out
    assert re.search(r"replayed: records 1-\d+ in 2 files, 8 finished rounds\n", out), out
    assert "window: the last 5 rounds (rounds 4-8)" in out
    # 2 are enough, and the last shoe (rounds 5-8) began in October: still both files
    code, out = check(capsys, cfg_path, "--rounds", "2")
    assert code == 0 and " in 2 files, " in out
    assert "window: the last 4 rounds (rounds 5-8), the last shoe (shoe 2) whole" in out


def test_a_window_the_live_file_holds_replays_the_live_file_only(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 4, NOVEMBER: 6})  # November: rounds 5-10, shoes 2 and 3
    code, out = check(capsys, cfg_path, "--rounds", "2")
    assert code == 0, out
    first = re.search(r"replayed: records (\d+)-\d+, 6 finished rounds\n", out)
    assert first and int(first[1]) > 1, out  # from the snapshot the live file opens with
    assert "window: the last 2 rounds (rounds 9-10), the last shoe (shoe 3) whole" in out


def test_a_message_that_differs_is_named_with_where_and_the_check_exits_1(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 5})
    journal = cfg_path.parent / "journal.db"
    db = sqlite3.connect(journal)
    seq, record, payload = db.execute(
        "SELECT seq, journal_seq, payload FROM outbox WHERE topic LIKE '%/round/result' "
        "ORDER BY seq DESC LIMIT 1"
    ).fetchone()
    last = db.execute("SELECT max(seq), max(journal_seq) FROM outbox").fetchone()
    db.close()
    changed = re.sub(rb'"net":"[0-9.]+"', b'"net":"1.00"', bytes(payload), count=1)
    sql(
        journal,
        ("UPDATE outbox SET payload = ? WHERE seq = ?", (changed, seq)),
        ("DELETE FROM outbox WHERE seq = ?", (seq - 1,)),  # dropped: not compared
        (  # a message this release does not publish
            "INSERT INTO outbox (seq, journal_seq, topic, payload, qos, retain, sent) "
            "VALUES (?, ?, 'tablectl/room/t1/alert', '{}', 1, 0, 1)",
            (last[0] + 1, last[1]),
        ),
    )
    code, out = check(capsys, cfg_path)
    assert code == 1, out
    assert (
        f"DIFFERS: message {seq} (round/result, record {record}): payload "
        'settlements[0].net: stored "1.00", now "20.00"'
    ) in out
    assert (
        f"DIFFERS: message {last[0] + 1} (alert, record {last[1]}): stored, and this release "
        "does not publish it"
    ) in out
    assert "; 1 more the outbox no longer holds (not compared)" in out
    assert "NOT OK: messages that differ from what the running release published" in out
    assert "same records: 2; do not switch" in out


def test_no_journal_yet_is_nothing_to_check(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = check(capsys, cfg_path)
    assert code == 0
    assert f"no journal at {cfg_path.parent / 'journal.db'} yet: nothing to replay" in out


def test_a_journal_of_a_newer_schema_is_refused_clearly_and_the_daemon_holds_on_it(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """The older release meeting what a newer one wrote (stood for by this release meeting
    schema 4): exit 2 naming the schemas it reads and why; the daemon starts held
    (tablectl/daemon/journal_fault.py: READY, a retained journal/status with the fault, no
    restart loop) and leaves the file as it was."""
    months(cfg_path, clock, {OCTOBER: 2})
    journal = cfg_path.parent / "journal.db"
    sql(journal, ("UPDATE meta SET value = '4' WHERE key = 'schema'", ()))
    code, out = check(capsys, cfg_path)
    assert code == 2
    says = (
        f"{journal} has journal schema 4, written by a newer release: this tablectl "
        f"({__version__}) "
        "reads journal schemas 1, 2, 3 and will not touch it; run the release that wrote it "
        "(docs/operations.md 'Upgrading a table')"
    )
    assert f"tablectl: {says}" in out
    assert main(["recall", "--config", str(cfg_path)]) == 2  # every command says the same
    assert says in capsys.readouterr().err
    daemon = Daemon(load_config(cfg_path), mqtt=False)
    assert daemon.fault is not None and daemon.fault.record is None
    assert daemon.fault.reason == says


def test_an_older_schema_is_named_as_a_rewrite_a_rollback_cannot_undo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg_path = write_config(tmp_path, table="bac-01")
    key = create_key(tmp_path / "old.key")
    lines = [
        (f"2026-10-15T12:00:{n:02d}.000000Z", "console", None, event)
        for n, event in enumerate(natural_rounds(2, shoe_every=4))
    ]
    write_schema_2(tmp_path / "journal.db", key, lines, outputs=False)
    code, out = check(capsys, cfg_path)
    assert code == 0, out
    assert (
        "journal: schema 2 (this release reads schemas 1, 2, 3 and writes 3): its first start "
        "REWRITES the journal to schema 3, which a rollback cannot undo" in out
    )
    assert "replayed: records 1-" in out and ", 2 finished rounds" in out
    assert "ok: nothing differs, but nothing could be compared either" in out
    schema = sqlite3.connect(tmp_path / "journal.db").execute(
        "SELECT value FROM meta WHERE key = 'schema'"
    )
    assert schema.fetchone()[0] == "2"  # read-only: not rewritten by the check


def test_snapshots_this_release_cannot_read_are_named(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 2})
    sql(cfg_path.parent / "journal.db", ("UPDATE snapshots SET format = ?", (snapshot.FORMAT + 1,)))
    code, out = check(capsys, cfg_path)
    assert code == 0, out
    made = f"(made by tablectl {__version__})"
    assert f"snapshots: format {snapshot.FORMAT + 1} {made}; this release reads format " in out
    assert "its first start replays the records instead" in out


def test_the_window_is_1000_rounds_by_default() -> None:
    from tablectl.cli.app import build_parser

    args = build_parser().parse_args(["upgrade-check"])
    assert args.rounds == 1000
    with pytest.raises(SystemExit):
        build_parser().parse_args(["upgrade-check", "--rounds", "0"])


def test_the_round_results_compared_are_counted_against_the_outbox_window(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """Messages dropped from the outbox (outbox_hours) are replayed, not compared, and said."""
    months(cfg_path, clock, {OCTOBER: 4})
    journal = cfg_path.parent / "journal.db"
    db = sqlite3.connect(journal)
    first_result = db.execute(
        "SELECT seq, payload FROM outbox WHERE topic LIKE '%/round/result' ORDER BY seq LIMIT 1"
    ).fetchone()
    db.close()
    assert json.loads(first_result[1])["round"] == 1
    sql(journal, ("DELETE FROM outbox WHERE seq <= ?", (first_result[0],)))
    code, out = check(capsys, cfg_path, "--rounds", "4")
    assert code == 0, out
    assert "the outbox still holds the result of 3 of them" in out
    assert "note: the messages of 1 of the window's rounds were dropped from the outbox" in out
