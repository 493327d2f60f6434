"""Dated segments and the archive: a journal closed month by month keeps one
chain, and verify-journal, recall, export and a restart work across the live file, the segments
beside it and the archived ones.

The daemon's clock is set by the test (`tablectl.daemon.inputs.now_ts`), so a month passes at once.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tablectl import snapshot
from tablectl.cli import main
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.state import Input
from tablectl.journal import Journal, JournalError, segments
from tablectl.journal.segments import History
from tablectl.table import Table
from tests.helpers import (
    DECEMBER,
    NOVEMBER,
    OCTOBER,
    REPO,
    bank,
    run_unprivileged,
    write_config,
)
from tests.helpers import MonthClock as Clock
from tests.helpers import natural_rounds as rounds


@pytest.fixture
def cfg_path(tmp_path: Path) -> Path:
    return write_config(tmp_path, journal={"archive_dir": "archive", "keep_local_months": 1})


def play(path: Path, events: Iterator[dict[str, Any]]) -> Daemon:
    daemon = Daemon(load_config(path), mqtt=False)
    daemon.recover()
    for event in events:
        daemon._ingest(Input("console", event))
    return daemon


def months(path: Path, clock: Clock, per_month: dict[str, int]) -> list[str]:
    """Play `per_month` rounds in each month, one daemon run; the full export before any
    segment closed is what every later export must equal."""
    daemon = Daemon(load_config(path), mqtt=False)
    daemon.recover()
    start = 0
    for month, n in per_month.items():
        clock.month = month
        for event in rounds(n, start):
            daemon._ingest(Input("console", event))
        start += n
    lines = [rec.jsonl() for rec in History.open(daemon.journal.path, None).records()]
    daemon.journal.close()
    return lines


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_first_record_of_a_new_month_closes_the_last_months_segment(
    cfg_path: Path, clock: Clock
) -> None:
    months(cfg_path, clock, {OCTOBER: 3, NOVEMBER: 2})
    journal_path = cfg_path.parent / "journal.db"
    seg = cfg_path.parent / "journal-2026-10.db"
    assert seg.exists()
    closed = Journal(seg, table=None, readonly=True)
    live = Journal(journal_path, table=None, readonly=True)
    try:
        # 3 October rounds of 7 or 9 records (+ the config record) are all in the segment,
        # every record in it is October's, and the live file starts right after it.
        assert closed.first_seq == 1
        assert {r.ts[:7] for r in closed.records()} == {OCTOBER}
        assert live.first_seq == closed.last_seq + 1
        assert {r.ts[:7] for r in live.records()} == {NOVEMBER}
        assert live.start_hash == closed.hash_at(closed.last_seq)
        # The live file keeps the snapshot it replays from; the segment keeps no outbox.
        assert any(s.journal_seq == closed.last_seq for s in live.snapshots())
        assert closed.db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
    finally:
        closed.close()
        live.close()


def test_verify_recall_and_export_read_across_segments(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    before = months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 2, DECEMBER: 1})
    assert len(segments.segment_files(cfg_path.parent / "journal.db")) == 2
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path), "--deep")
    assert code == 0, out
    assert f"ok: {len(before)} records in 3 files, chain intact" in out
    code, out = cli(capsys, "export", "--config", str(cfg_path))
    assert code == 0 and out.splitlines() == before
    # Round 1 was dealt in October: recall finds it in the oldest segment.
    code, out = cli(capsys, "recall", "--config", str(cfg_path), "--round", "1")
    assert code == 0 and "player wins 9-5" in out
    code, out = cli(capsys, "recall", "--config", str(cfg_path), "--last", "5", "--json")
    assert code == 0
    assert [json.loads(line)["round"] for line in out.splitlines()] == [1, 2, 3, 4, 5]


def test_a_restart_after_a_close_starts_from_the_live_files_snapshot(
    cfg_path: Path, clock: Clock
) -> None:
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    daemon = Daemon(load_config(cfg_path), mqtt=False)
    replayed = daemon.recover()
    history = History.open(daemon.journal.path, None)
    full = Table(load_config(cfg_path))
    for rec in history.records():
        full.apply(rec)
    history.close()
    # Only November's records are replayed: the live file starts from the snapshot after
    # the last October record.
    assert replayed == history.last_seq - history.live.first_seq + 1 == 7
    assert snapshot.encode(daemon.table) == snapshot.encode(full)
    history.close()
    daemon.journal.close()


def test_without_a_live_snapshot_the_table_is_rebuilt_from_the_segments(
    cfg_path: Path, clock: Clock
) -> None:
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    raw = sqlite3.connect(cfg_path.parent / "journal.db")
    raw.execute("DELETE FROM snapshots")
    raw.commit()
    raw.close()
    daemon = Daemon(load_config(cfg_path), mqtt=False)
    daemon.recover()
    history = History.open(daemon.journal.path, None)
    full = Table(load_config(cfg_path))
    for rec in history.records():
        full.apply(rec)
    history.close()
    assert snapshot.encode(daemon.table) == snapshot.encode(full)
    daemon.journal.close()


def test_a_live_file_whose_segments_are_gone_and_has_no_snapshot_is_refused_naming_them(
    cfg_path: Path, clock: Clock
) -> None:
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    (cfg_path.parent / "journal-2026-10.db").unlink()
    raw = sqlite3.connect(cfg_path.parent / "journal.db")
    raw.execute("DELETE FROM snapshots")
    raw.commit()
    raw.close()
    daemon = Daemon(load_config(cfg_path), mqtt=False)
    with pytest.raises(JournalError, match="closed segments cannot rebuild the table"):
        daemon.recover()
    daemon.journal.close()


def test_archive_moves_closed_segments_and_everything_still_reads_across_them(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    before = months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 2, DECEMBER: 1})
    code, out = cli(capsys, "archive", "--config", str(cfg_path))
    assert code == 0
    # keep_local_months = 1: October goes to the archive, November stays beside the journal.
    assert (cfg_path.parent / "archive" / "journal-2026-10.db").exists()
    assert not (cfg_path.parent / "journal-2026-10.db").exists()
    assert (cfg_path.parent / "journal-2026-11.db").exists()
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path))
    assert code == 0, out
    code, out = cli(capsys, "export", "--config", str(cfg_path))
    assert out.splitlines() == before
    code, out = cli(capsys, "recall", "--config", str(cfg_path), "--round", "1")
    assert code == 0 and "player wins 9-5" in out
    code, out = cli(capsys, "archive", "--config", str(cfg_path))  # again: November stays
    live = cfg_path.parent / "journal.db"
    assert (code, out) == (
        0,
        f"nothing to archive: the 1 closed month(s) beside {live} stay there "
        "(keep_local_months = 1)\n",
    )
    (cfg_path.parent / "journal-2026-11.db").rename(cfg_path.parent / "archive" / "n.db")
    code, out = cli(capsys, "archive", "--config", str(cfg_path))
    assert (code, out) == (
        0,
        f"nothing to archive: no month of {live} has closed yet (each closes into its own "
        "file after it ends)\n",
    )
    live.rename(live.with_name("elsewhere.db"))  # a config naming no journal says so
    code, out = cli(capsys, "archive", "--config", str(cfg_path))
    assert (code, out.split(" (yet")[0]) == (0, f"nothing to archive: no journal at {live}")


def test_an_archive_that_cannot_be_written_is_refused_in_a_line_and_loses_nothing(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy into the archive that fails (here: a file size limit, as a full or read-only
    disk would) ends `archive` with a line naming the segment and the folder (it was a
    traceback), leaves the segment beside the journal and no partial copy in the archive."""
    before = months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 2, DECEMBER: 1})

    # In a child of its own: the limit is the whole process's (a write past it fails, EFBIG).
    small_files = (
        "import resource, runpy, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        "resource.setrlimit(resource.RLIMIT_FSIZE, "
        "(1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1])); "
        "sys.argv = ['tablectl', *sys.argv[1:]]; "
        "runpy.run_module('tablectl.cli', run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-c", small_files, "archive", "--config", str(cfg_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    err = done.stderr
    assert done.returncode == 2, err
    assert err.startswith("tablectl: cannot copy journal-2026-10.db into the archive "), err
    assert "(0 segment(s) archived before it)" in err
    assert (cfg_path.parent / "journal-2026-10.db").exists()
    assert list((cfg_path.parent / "archive").iterdir()) == []
    code, out = cli(capsys, "export", "--config", str(cfg_path))
    assert code == 0 and out.splitlines() == before


def test_without_the_archive_verify_says_which_records_it_could_not_see(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    seg = cfg_path.parent / "journal-2026-10.db"
    last = Journal(seg, table=None, readonly=True).last_seq
    seg.rename(cfg_path.parent / "elsewhere.db")
    code, out = cli(capsys, "verify-journal", "--journal", str(cfg_path.parent / "journal.db"))
    assert code == 0
    assert f"records 1-{last} are not here" in out
    code, out = cli(capsys, "export", "--journal", str(cfg_path.parent / "journal.db"))
    assert code == 2 and f"records 1-{last} are in segments not found here" in out


def test_an_altered_segment_is_named_with_its_record(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    seg = cfg_path.parent / "journal-2026-10.db"
    raw = sqlite3.connect(seg)
    raw.execute("""UPDATE journal SET body = '{"type":"shoe.card","card":"9c"}' WHERE seq = 5""")
    raw.commit()
    raw.close()
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path))
    assert code == 1
    assert "journal-2026-10.db: record 5: contents altered" in out


def test_a_segment_swapped_for_another_chain_is_caught_at_the_join(
    cfg_path: Path, clock: Clock, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A whole segment rewritten with a recomputed chain of its own still has to end with the
    hash the next file continues from."""
    months(cfg_path, clock, {OCTOBER: 2, NOVEMBER: 1})
    seg = cfg_path.parent / "journal-2026-10.db"
    raw = sqlite3.connect(seg)
    last = raw.execute("SELECT max(seq) FROM journal").fetchone()[0]
    raw.execute("DELETE FROM journal WHERE seq = ?", (last,))
    raw.commit()
    raw.close()
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path))
    assert code == 1
    assert f"journal.db: starts at record {last + 1}, but journal-2026-10.db ends at record" in out


def test_a_crash_between_writing_the_segment_and_leaving_the_live_file_loses_nothing(
    cfg_path: Path,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    daemon = play(cfg_path, rounds(2))
    clock.month = NOVEMBER

    def crash(*_: Any) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(Journal, "drop_closed", crash)
    with pytest.raises(OSError, match="power cut"):
        daemon._ingest(Input("console", bank(3, "1000")))
    daemon.journal.close()
    monkeypatch.undo()
    monkeypatch.setattr("tablectl.daemon.inputs.now_ts", clock)
    # The segment is there, and so are its records in the live file: read once, from the live.
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path))
    assert code == 0, out
    again = play(cfg_path, rounds(1, 2))
    journal_path = again.journal.path
    again.journal.close()
    history = History.open(journal_path, None)
    try:
        assert [f.path.name for f in history.files] == ["journal-2026-10.db", "journal.db"]
        assert [r.seq for r in history.records()] == list(range(1, history.last_seq + 1))
    finally:
        history.close()


def test_retention_counts_from_a_segments_newest_record_not_its_name(tmp_path: Path) -> None:
    live = tmp_path / "journal.db"
    Journal(live, table="t1").close()
    archive = tmp_path / "archive"
    archive.mkdir()
    # (name, month of its newest record): the one named 2025-08 holds records up to 2026-09,
    # as the first close after importing a year does.
    for month, last in [("2025-08", "2026-09"), ("2025-09", None), ("2025-10", "2025-10")]:
        path = segments.segment_path(live, month, archive)
        Journal(path, table="t1").close()
        if last is not None:
            db = sqlite3.connect(path)
            db.execute("INSERT INTO meta (key, value) VALUES ('last_month', ?)", (last,))
            db.commit()
            db.close()
        segments._seal(path)  # as a closed segment is: one file, no WAL
    for month in ("2025-11", "2026-10"):
        path = segments.segment_path(live, month, archive)
        Journal(path, table="t1").close()
        segments._seal(path)
    done = segments.archive(
        live, archive, keep_local=0, retain_months=12, today=datetime(2026, 11, 2, tzinfo=UTC)
    )
    # November 2026 less 12 months is November 2025: what ended in September and October 2025
    # is older; the segment named 2025-08 ended in September 2026 and stays.
    assert sorted(p.name for p in done.expired) == ["journal-2025-09.db", "journal-2025-10.db"]
    assert sorted(p.name for p in archive.iterdir()) == [
        "journal-2025-08.db",
        "journal-2025-11.db",
        "journal-2026-10.db",
    ]


def test_a_key_taken_up_after_a_month_closed_does_not_fail_the_closed_segment(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rule "the journal must end under a given key" is the history's, not each file's:
    October closed unkeyed, the table was keyed in November, and verify with the key passes."""
    path = write_config(tmp_path)
    months(path, clock, {OCTOBER: 2, NOVEMBER: 1})  # October closes, unkeyed
    assert (tmp_path / "journal-2026-10.db").exists()
    assert main(["keygen", str(tmp_path / "journal.key")]) == 0
    path = write_config(tmp_path, journal={"key_file": "journal.key"})
    play(path, rounds(1, 3)).journal.close()  # keyed from the next record on
    code, out = cli(capsys, "verify-journal", "--config", str(path))
    assert code == 0, out
    assert "keyed hashes checked with key" in out


def test_deep_verify_of_a_live_file_that_only_holds_its_opening_snapshot(
    cfg_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """Just after a close (a crash before the next record), without the segments at hand: the
    replay starts from the opening snapshot, which is not a finding."""
    daemon = play(cfg_path, rounds(2))
    daemon._checkpoint()
    segments.close_month(daemon.journal, f"{NOVEMBER}-01T00:00:00.000000Z")
    daemon.journal.close()
    (cfg_path.parent / "journal-2026-10.db").rename(cfg_path.parent / "away.db")
    code, out = cli(capsys, "verify-journal", "--config", str(cfg_path), "--deep")
    assert code == 0, out
    assert "are not here" in out


def keyed(tmp_path: Path) -> Path:
    assert main(["keygen", str(tmp_path / "journal.key")]) == 0
    return write_config(tmp_path, journal={"key_file": "journal.key"})


def test_records_cut_off_the_front_of_a_keyed_journal_are_evident_with_the_key(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """Someone deletes the first records and makes the file say it starts later (the hash it
    continues from recomputed): without the key that looks like archived segments; with it, the
    start is not signed and verify fails."""
    path = keyed(tmp_path)
    months(path, clock, {OCTOBER: 3})
    raw = sqlite3.connect(tmp_path / "journal.db")
    (prev,) = raw.execute("SELECT lower(hex(hash)) FROM journal WHERE seq = 10").fetchone()
    raw.execute("DELETE FROM journal WHERE seq <= 10")
    raw.executemany(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        [("first_seq", "11"), ("prev_hash", prev)],
    )
    raw.commit()
    raw.close()
    code, out = cli(capsys, "verify-journal", "--journal", str(tmp_path / "journal.db"))
    assert code == 0 and "records 1-10 are not here" in out  # no key: only a note
    code, out = cli(capsys, "verify-journal", "--config", str(path))
    assert code == 1
    assert "the journal's start (record 11" in out and "is not signed, in a keyed journal" in out


def test_a_closed_months_start_is_signed_and_verifies_with_the_key(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    path = keyed(tmp_path)
    months(path, clock, {OCTOBER: 2, NOVEMBER: 1})
    (tmp_path / "journal-2026-10.db").rename(tmp_path / "away.db")
    code, out = cli(capsys, "verify-journal", "--config", str(path))
    assert code == 0, out
    raw = sqlite3.connect(tmp_path / "journal.db")
    (mac,) = raw.execute("SELECT value FROM meta WHERE key = 'start_mac'").fetchone()
    forged = ("1" if mac[0] == "0" else "0") + mac[1:]
    raw.execute("UPDATE meta SET value = ? WHERE key = 'start_mac'", (forged,))
    raw.commit()
    raw.close()
    code, out = cli(capsys, "verify-journal", "--config", str(path))
    assert code == 1 and "its keyed hash does not match: rewritten" in out


def test_recall_of_a_round_number_says_what_it_did_not_search_and_every_file_searches_all(
    cfg_path: Path,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Round numbers start again when the game changes, so the same number may be in several
    monthly files: `--round` stops at the newest file holding it and says so; `--every-file`
    lists it from every file, oldest first."""
    from tablectl.history import rounds as recalled

    months(cfg_path, clock, {OCTOBER: 1, NOVEMBER: 1, DECEMBER: 1})

    def every_file_has_round_1(journal: Journal, table: Table) -> Iterator[Any]:
        yield journal.path.name, {"round": 1}, []

    monkeypatch.setattr(recalled, "rounds_from_journal", every_file_has_round_1)
    history = History.open(cfg_path.parent / "journal.db", None)
    try:
        newest = recalled.recall_rounds(history, load_config(cfg_path), last=0, number=1)
        assert "2 older file(s) not searched" in capsys.readouterr().err
        every = recalled.recall_rounds(
            history, load_config(cfg_path), last=0, number=1, every_file=True
        )
    finally:
        history.close()
    assert [r[0] for r in newest] == ["journal.db"]
    assert [r[0] for r in every] == ["journal-2026-10.db", "journal-2026-11.db", "journal.db"]


def test_archive_of_a_folder_it_may_not_list_says_so() -> None:
    """A journal folder this user may not list looked empty to the archive ("nothing to
    archive"), and `live.exists()` there raised a traceback: now one line. Run as an
    unprivileged user (root lists everything)."""
    top = Path(tempfile.mkdtemp(prefix="tablectl-arch-"))
    try:
        top.chmod(0o755)
        closed = top / "journal"
        closed.mkdir(mode=0o700 if os.getuid() == 0 else 0)  # root's: nobody may not list it
        target = top / "archive"
        target.mkdir()
        target.chmod(0o777)
        code = (
            "import sys; from pathlib import Path; from tablectl.journal import JournalError, "
            "segments\n"
            "try:\n    segments.archive(Path(sys.argv[1]), Path(sys.argv[2]), keep_local=0, "
            "retain_months=0)\n"
            "except JournalError as exc:\n    print(exc)\n"
        )
        out = run_unprivileged(code, str(closed / "journal.db"), str(target))
        assert out == f"cannot look for closed months in {closed}: Permission denied\n"
    finally:
        closed.chmod(0o700)
        shutil.rmtree(top)
