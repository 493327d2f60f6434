"""The heads anchor the journal's start.

The finding on 4379ae3: delete records 1..K and make the file start at K+1 (as a closed month's
live file does): `verify-journal --against heads.jsonl` printed `ok ... chain intact` and noted
that the heads for records before K+1 were "not checked", exit 0; with the key, a key holder who
signed the new start passed both checks. Now the table publishes where its journal begins
(`journal/start`, the head of record 1) and where the live month's file begins
(`journal/segment`), every heads file holds them, and `--against` fails a journal that does not
begin where they say. A cut of the end fails against the heads as before.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hil.tamper import cut_front, cut_tail, edit_body, rechain
from tablectl.chainkey import ChainKey, create_key
from tablectl.cli import main
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.journal import Journal
from tablectl.journal.chain import GENESIS
from tablectl.journal.heads import SEGMENT_TOPIC, START_TOPIC, anchors, read_heads
from tablectl.journal.segments import History
from tests.helpers import BASE, NOVEMBER, OCTOBER, make_config, write_config
from tests.helpers import MonthClock as Clock
from tests.journal.test_segments import months
from tests.journal.test_tamper import SESSION, ingest


@pytest.fixture
def key(tmp_path: Path) -> ChainKey:
    return create_key(tmp_path / "journal.key")


@pytest.fixture
def session(tmp_path: Path, key: ChainKey) -> Path:
    """SESSION's keyed journal (21 records, round heads at 10 and 19), closed."""
    cfg = make_config(tmp_path)
    ingest(cfg, SESSION, key).close()
    return cfg.journal_path


def heads_file(journal: Path, target: Path, *, with_anchors: bool = True) -> Path:
    """What `collect-heads` (or a floor's subscriber) kept: every `journal/head` the table
    published and, since this issue, the retained anchors, as `{"topic","payload"}` lines."""
    j = Journal(journal, table=None, readonly=True)
    try:
        lines = [
            {"topic": r.topic, "payload": json.loads(r.payload)}
            for r in j.outbox(topic_suffix="journal/head")
        ]
        if with_anchors:
            lines += [
                {"topic": f"{BASE}/{suffix}", "payload": {"table": "t1", **fields}}
                for suffix, fields in anchors(j)
            ]
    finally:
        j.close()
    target.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return target


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify-journal", *argv])
    return code, capsys.readouterr().out


def test_the_anchors_are_record_1_and_the_live_files_first_record(session: Path) -> None:
    j = Journal(session, table=None, readonly=True)
    try:
        published = dict(anchors(j))
        record_1 = j.head_at(1)
    finally:
        j.close()
    assert record_1 is not None and record_1["seq"] == 1
    assert published[START_TOPIC] == {
        "chain": record_1,
        "anchor": {"file": "journal", "prev_hash": GENESIS},
    }
    assert published[SEGMENT_TOPIC]["chain"] == record_1  # no month closed: the same record
    assert published[SEGMENT_TOPIC]["anchor"]["file"] == "segment"


def test_a_heads_file_reads_the_anchors_back(session: Path, tmp_path: Path) -> None:
    heads = read_heads(heads_file(session, tmp_path / "heads.jsonl"))
    assert sorted((h.seq, h.anchor) for h in heads) == [
        (1, "journal"),
        (1, "segment"),
        (10, None),
        (19, None),
    ]
    assert all(h.prev_hash == GENESIS for h in heads if h.anchor)


def test_the_findings_front_cut_signed_by_a_key_holder_fails_against_the_anchored_heads(
    session: Path, key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anchored = heads_file(session, tmp_path / "heads.jsonl")
    plain = heads_file(session, tmp_path / "old-heads.jsonl", with_anchors=False)
    cut_front(session, 5, key)  # records 1-5 gone, the start at 6 signed with the key
    code, out = verify(capsys, "--journal", str(session), "--key", str(key.path))
    assert code == 0, out  # a key holder passes the key's check: only the heads can tell
    code, out = verify(capsys, "--journal", str(session), "--against", str(plain))
    assert code == 0 and "the heads hold no anchor (journal/start)" in out  # as documented
    code, out = verify(capsys, "--journal", str(session), "--against", str(anchored))
    assert code == 1
    assert "the journal begins at record 1" in out and "this one at record 6" in out
    assert "records 1-5 were cut off its front" in out


def test_a_front_cut_without_the_key_fails_the_key_and_the_anchored_heads(
    session: Path, key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anchored = heads_file(session, tmp_path / "heads.jsonl")
    cut_front(session, 12)
    code, out = verify(capsys, "--journal", str(session), "--key", str(key.path))
    assert code == 1 and "is not signed, in a keyed journal" in out
    code, out = verify(capsys, "--journal", str(session), "--against", str(anchored))
    assert code == 1 and "records 1-12 were cut off its front" in out


def test_a_tail_cut_fails_against_the_heads_but_not_the_key(
    session: Path, key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anchored = heads_file(session, tmp_path / "heads.jsonl")
    cut_tail(session, 15)  # round 2's head (record 19) now points past the end
    code, out = verify(capsys, "--journal", str(session), "--key", str(key.path))
    assert code == 0, out  # the records left are genuine
    code, out = verify(capsys, "--journal", str(session), "--against", str(anchored))
    assert code == 1
    assert "record 19 was published" in out and "the journal ends at record 15" in out


def test_a_rewritten_first_record_fails_against_its_anchor(
    session: Path, key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key holder rewrites record 1 and recomputes everything, keyed hashes included: the
    key is satisfied, the anchor of record 1 (and every round head) is not."""
    anchored = heads_file(session, tmp_path / "heads.jsonl")
    edit_body(session, 1, {"type": "bets.close"})
    rechain(session, key)
    code, out = verify(capsys, "--journal", str(session), "--key", str(key.path))
    assert code == 0, out
    code, out = verify(capsys, "--journal", str(session), "--against", str(anchored))
    assert code == 1 and "record 1 was published with hash" in out


def test_a_missing_segment_fails_against_the_anchors_where_it_was_only_a_note(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """A month closed into its segment; the live file starts after it. With the segment beside
    it, the history verifies against the anchors; with the segment taken away (and with it the
    month's records), the anchor of record 1 says the journal is not whole."""
    cfg = write_config(tmp_path)
    months(cfg, clock, {OCTOBER: 3, NOVEMBER: 2})
    live = tmp_path / "journal.db"
    heads = heads_file(live, tmp_path / "heads.jsonl")
    read = read_heads(heads)
    segment_anchor = next(h for h in read if h.anchor == "segment")
    history = History.open(live, None)
    try:
        assert segment_anchor.seq == history.live.first_seq > 1
        assert next(h for h in read if h.anchor == "journal").seq == 1  # kept in meta origin
    finally:
        history.close()
    code, out = verify(capsys, "--journal", str(live), "--against", str(heads))
    assert code == 0, out
    (tmp_path / "journal-2026-10.db").rename(tmp_path / "elsewhere.db")
    code, out = verify(capsys, "--journal", str(live), "--against", str(heads))
    assert code == 1 and "were cut off its front, or their segments were not given" in out


def test_a_live_file_from_before_anchors_finds_record_1_in_its_oldest_segment(
    tmp_path: Path, clock: Clock
) -> None:
    """Months closed before this version left no `origin` in the live file: the daemon reads
    record 1's head from the oldest segment and keeps it, so `journal/start` is published."""
    cfg = write_config(tmp_path)
    months(cfg, clock, {OCTOBER: 2, NOVEMBER: 1})
    live = tmp_path / "journal.db"
    segment = Journal(tmp_path / "journal-2026-10.db", table=None, readonly=True)
    try:
        record_1 = segment.head_at(1)
    finally:
        segment.close()
    db = sqlite3.connect(live)
    db.execute("DELETE FROM meta WHERE key = 'origin'")
    db.commit()
    db.close()
    daemon = Daemon(load_config(cfg), mqtt=False)
    try:
        assert daemon.journal.origin() is None
        daemon._find_origin()
        assert daemon.journal.origin() == record_1 is not None
    finally:
        daemon.journal.close()


def test_segment_anchors_alone_say_the_front_before_them_is_not_checked(
    tmp_path: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the journal/start anchor (record 1 not found when the daemon published), a month's
    anchor does not stand for the whole front: with its segment away, verify passes (nothing
    contradicts it) but says what it could not check. (Found in review: any anchor silenced
    the note about heads before the first file.)"""
    cfg = write_config(tmp_path)
    months(cfg, clock, {OCTOBER: 3, NOVEMBER: 2})
    live = tmp_path / "journal.db"
    heads = heads_file(live, tmp_path / "heads.jsonl")
    kept = [line for line in heads.read_text().splitlines() if "journal/start" not in line]
    heads.write_text("".join(line + "\n" for line in kept))
    (tmp_path / "journal-2026-10.db").rename(tmp_path / "elsewhere.db")
    code, out = verify(capsys, "--journal", str(live), "--against", str(heads))
    assert code == 0, out
    assert "the heads hold no journal/start anchor (record 1)" in out
    assert "published heads are for records before" in out
