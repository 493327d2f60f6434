"""Checkpoints: a snapshot is derived data. Done when "a snapshot equals the
state replayed from the start (property test over random games of every engine); a corrupt
snapshot is skipped; a crash in the middle of writing a snapshot loses nothing".

- For random sessions of every engine, a table restored from `snapshot.encode` at any record
  (and snapshotted again from there) publishes byte for byte what the table replayed from
  record 1 publishes after that record, and ends with the same encoding and state.
- A baccarat session with device positions, a fault that holds the round, inputs kept during
  the hold, a gap that waits, a gap filled by hand (R39) and redelivered command ids restores
  exactly at every record, the middle of the hold and of the gap included.
- Stored snapshots through the daemon on real SQLite files: one after 1,000 records at a round
  boundary (5,000 at most, mid-round); a restart replays only what follows the newest sound one;
  a damaged, misplaced, foreign or newer-format one is skipped with a warning; a crash while one
  is written (an exception before COMMIT, or SIGKILL) loses no record and no output;
  `verify-journal --deep` proves every stored snapshot and names a forged one.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from tablectl import __version__, snapshot
from tablectl.cli import main
from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon, recovery
from tablectl.daemon.state import Input
from tablectl.journal import Journal
from tablectl.outputs import OutboxRow
from tablectl.records import Record, Snapshot
from tablectl.table import Table
from tablectl_base.cards import standard_deck
from tests.games.baccarat.test_baccarat_properties import mixed_inputs as baccarat_inputs
from tests.games.blackjack.test_blackjack_properties import cfg as blackjack_config
from tests.games.blackjack.test_blackjack_properties import console_session
from tests.games.chinese_poker.test_chinese_poker_properties import chinese_session
from tests.games.draw.test_draw_properties import DRAW_CONFIGS, PACK, draw_session
from tests.games.pai_gow.test_pai_gow_engine import config as pai_gow_config
from tests.games.pai_gow.test_pai_gow_properties import mixed_inputs as pai_gow_inputs
from tests.games.poker.test_poker_engine_properties import poker_session
from tests.games.stud.test_stud_properties import STUD_CONFIGS, stud_session
from tests.games.three_card_poker.test_three_card_poker_engine import tcp_config
from tests.games.three_card_poker.test_three_card_poker_properties import (
    mixed_inputs as three_card_inputs,
)
from tests.games.ultimate.test_ultimate_properties import mixed_inputs as ultimate_inputs
from tests.games.ultimate.test_ultimate_properties import ut_config
from tests.helpers import (
    CLOSE,
    SHOE_NEW,
    FullWayTable,
    bank,
    burn,
    cards,
    make_config,
    record,
    records,
    wager,
    write_config,
)

Row = tuple[int, str, bytes, int, bool]


def rows_of(out: Iterable[OutboxRow]) -> list[Row]:
    return [(r.seq, r.topic, r.payload, r.qos, r.retain) for r in out]


def stored(table: Table) -> bytes:
    """The encoding as a checkpoint stores it and reads it back (compressed, digested)."""
    return snapshot.unpack(*snapshot.pack(table))


# -- a restored table is the replayed table ------------------------------------------------------


def assert_restores_exactly(cfg: LoadedConfig, recs: Sequence[Record], cuts: Iterable[int]) -> None:
    """Table A replays every record from the first. At each cut (a number of records applied,
    in order) the table being followed is snapshotted and replaced by the table restored from
    that snapshot: it re-encodes to the same bytes, equals A's encoding there, publishes exactly
    A's rows after it, and ends with A's encoding and state. A takes the full way through every
    record; the tables restored from snapshots, and one that only advances, take the short way
    through the usual one (`Table._simple_input`), so the two ways are held equal too; and one
    that applies a message at a time (`Table.apply_lazily`, the daemon's way) publishes A's rows."""
    a = FullWayTable(cfg)
    published: list[list[Row]] = []
    after: list[tuple[int, Any]] = []  # the message count and the state after each record
    at_cut: dict[int, bytes] = {}
    wanted = sorted(set(cuts))
    if 0 in wanted:
        at_cut[0] = snapshot.encode(a)
    for rec in recs:
        published.append(rows_of(a.apply(rec)))
        after.append((a.seq, a.state))
        if rec.seq in wanted:
            at_cut[rec.seq] = snapshot.encode(a)
    c: Table | None = None
    done = 0
    for cut in wanted:
        if c is not None:
            for rec in recs[done:cut]:
                assert rows_of(c.apply(rec)) == published[rec.seq - 1], f"record {rec.seq}"
            assert snapshot.encode(c) == at_cut[cut]
            data = stored(c)  # a snapshot of a table that was itself restored
        else:
            data = at_cut[cut]
            assert stored(snapshot.restore(cfg, data)) == data
        c = snapshot.restore(cfg, data)
        assert snapshot.encode(c) == data
        assert c.position == cut
        done = cut
    assert c is not None
    for rec in recs[done:]:
        assert rows_of(c.apply(rec)) == published[rec.seq - 1], f"record {rec.seq}"
    assert snapshot.encode(c) == snapshot.encode(a)
    assert c.state == a.state
    assert (c.position, c.seq, c.held) == (a.position, a.seq, a.held)
    # Advanced without rendering a message (a recovery's or an import's replay, which takes the
    # short way through the usual game input: `Table._simple_input`), a table is where the
    # rendering replay of the full way is after every record (the same message count and state)
    # and ends exactly where it does.
    quiet = Table(cfg)
    for rec in recs:
        quiet.advance(rec)
        assert (quiet.seq, quiet.state) == after[rec.seq - 1], f"record {rec.seq}"
    assert snapshot.encode(quiet) == snapshot.encode(a)
    # Applied a message at a time (the daemon's way, `Table.apply_lazily`: a card's event goes
    # to the broker before the state after it is rendered), a table publishes the same rows.
    lazy = Table(cfg)
    for rec in recs:
        rows = rows_of(list(lazy.apply_lazily(rec)))
        assert rows == published[rec.seq - 1], f"record {rec.seq}"
    assert snapshot.encode(lazy) == snapshot.encode(a)


def cut_points(n: int) -> st.SearchStrategy[list[int]]:
    """One to three places to snapshot a session of n records at (0: before the first)."""
    return st.lists(st.integers(0, n), min_size=1, max_size=3)


SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


@settings(max_examples=40, **SETTINGS)
@given(inputs=baccarat_inputs(), data=st.data())
def test_ez_baccarat_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory,
    inputs: list[tuple[Any, str, str | None]],
    data: st.DataObject,
) -> None:
    cfg = make_config(tmp_path_factory.mktemp("bac"))
    recs = [
        record(seq, event, source=source, ref=ref)
        for seq, (event, source, ref) in enumerate(inputs, start=1)
    ]
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


def _blackjack(variant: str, tmp_path: Path, seed: int, data: st.DataObject) -> None:
    cfg = blackjack_config(tmp_path, variant)
    events, _ = console_session(Table(cfg), random.Random(seed), variant, rounds=4, noise=True)
    recs = records(events)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=25, **SETTINGS)
@given(
    seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["pure", "pure-003"]), data=st.data()
)
def test_pure_21_5_blackjack_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str, data: st.DataObject
) -> None:
    _blackjack(variant, tmp_path_factory.mktemp("bj"), seed, data)


@settings(max_examples=25, **SETTINGS)
@given(
    seed=st.integers(0, 2**32 - 1),
    variant=st.sampled_from(["spanish", "spanish-no-dd"]),
    data=st.data(),
)
def test_pure_spanish_21_5_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str, data: st.DataObject
) -> None:
    _blackjack(variant, tmp_path_factory.mktemp("sp"), seed, data)


@settings(max_examples=40, **SETTINGS)
@given(inputs=three_card_inputs(), data=st.data())
def test_three_card_poker_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any], data: st.DataObject
) -> None:
    cfg = tcp_config(tmp_path_factory.mktemp("tcp"))
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=30, **SETTINGS)
@given(inputs=pai_gow_inputs(), data=st.data())
def test_fortune_pai_gow_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any], data: st.DataObject
) -> None:
    cfg = pai_gow_config(tmp_path_factory.mktemp("pg"))
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=40, **SETTINGS)
@given(inputs=ultimate_inputs(), data=st.data())
def test_ultimate_texas_holdem_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any], data: st.DataObject
) -> None:
    cfg = ut_config(tmp_path_factory.mktemp("ut"))
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


def test_rules_the_journal_changed_are_restored_whatever_the_config_says(tmp_path: Path) -> None:
    """The journal lowers the baccarat limit, then turns the table into a Pure 21.5 table: a
    table restored under the original config plays on under the journal's rules and game."""
    cfg = make_config(tmp_path)
    lower = make_config(tmp_path, limits={"max": "100"}).rules
    blackjack = blackjack_config(tmp_path, "pure").rules
    table = Table(cfg)
    events: list[Any] = [
        {"type": "config", "rules": cfg.rules.to_json(), "source": "config"},
        {"type": "config", "rules": lower.to_json(), "source": "config"},
        bank(3, "1000"),
        wager(4, "player", "200"),  # within the config's limit, over the journal's: refused
        wager(4, "player", "100"),
        *cards("9h 2c Kd 3s"),
        {"type": "config", "rules": blackjack.to_json(), "source": "config"},
    ]
    for rec in records(events):
        table.apply(rec)
    assert table.rules == blackjack
    played, _ = console_session(table, random.Random(7), "pure", rounds=2, noise=False)
    recs = records([*events, *played])
    for cut in range(len(recs) + 1):
        assert_restores_exactly(cfg, recs, [cut])


# -- positions, holds, gaps and command ids --------------------------------------------------------

SHOE = "device/shoe"
_SHOE = {"source": SHOE}


def at_card(card: str, pos: int) -> dict[str, Any]:
    """A card as the shoe reports it: its place in the shoe's count (run "1")."""
    return {"type": "shoe.card", "card": card, "at": {"run": "1", "pos": pos, "seq": pos}, **_SHOE}


def shoe_status(fault: str | None, *, available: bool = True) -> dict[str, Any]:
    return {
        "type": "device.status",
        "device": "shoe",
        "available": available,
        "fault": fault,
        "detail": {"serial": "SH-0042"},
        **_SHOE,
    }


def plain(event: dict[str, Any]) -> dict[str, Any]:
    """The event without the `source` the session builders put on it (for `Daemon._ingest`)."""
    return {k: v for k, v in event.items() if k != "source"}


def command(verb: str, ref: str, **body: Any) -> dict[str, Any]:
    return {"type": verb, **body, "source": f"cmd/{verb}", "ref": ref}


def held_session() -> list[dict[str, Any]]:
    """Four coups off one shoe whose cards carry their positions.

    1. P 2h Kc = 2 v B 3d 4s = 7, the player draws 3h (5 v 7): the shoe jams after position 2;
       Kc (3) is kept during the hold, and so is a bets.close typed at the console; 3h (5) comes
       before 4s (4) and waits behind the gap; resuming is refused while 4 is missing (and the
       same request id again is a duplicate); 4s fills the gap; the resume plays them in order.
    2. P 9h Kd v B 2c 3s: the shoe cannot resend position 8 (a device.gap, R39); 3s (9) waits;
       the dealer enters Kd at position 8 by hand; the resume plays on.
    3. The shoe is unplugged mid-deal: the card read after it is kept and a void discards it.
    4. P Td 8h v B Jc 9s, the count carrying on after the void.
    Redelivered wagers and resumes carry ids the table already handled: refused.
    """
    return [
        {"type": "shoe.new", "at": {"run": "1", "pos": 0, "seq": 0}, **_SHOE},
        shoe_status(None),
        command("bank", "b1", seat=3, amount="500"),
        command("wager", "w1", seat=4, spot="player", amount="20"),
        command("wager", "w2", seat=5, spot="banker", amount="30"),
        command("wager", "w1", seat=4, spot="player", amount="20"),  # redelivered
        at_card("2h", 1),
        at_card("3d", 2),
        shoe_status("JAM"),
        at_card("Kc", 3),
        command("bets.close", "c1"),
        at_card("3h", 5),
        shoe_status(None),
        command("round.resume", "r1"),
        command("round.resume", "r1"),  # redelivered
        at_card("4s", 4),
        command("wager", "w2", seat=5, spot="banker", amount="30"),  # redelivered
        command("round.resume", "r2"),
        command("bank", "b2", seat=3, amount="500"),
        command("wager", "w3", seat=4, spot="player", amount="25"),
        at_card("9h", 6),
        at_card("2c", 7),
        {
            "type": "device.gap",
            "device": "shoe",
            "run": "1",
            "after": 7,
            "missing": [8],
            "reason": "the shoe has no record of it",
            **_SHOE,
        },
        at_card("3s", 9),
        command("round.resume", "r3"),
        {
            "type": "shoe.card",
            "card": "Kd",
            "at": {"pos": 8},
            "source": "cmd/shoe.card",
            "ref": "k1",
        },
        command("round.resume", "r2"),  # redelivered
        command("round.resume", "r4"),
        command("bank", "b3", seat=4, amount="300"),
        command("wager", "w4", seat=5, spot="tie", amount="10"),
        at_card("6c", 10),
        at_card("7d", 11),
        shoe_status("DISCONNECTED", available=False),
        at_card("Qh", 12),
        command("round.void", "v1", reason="the shoe was unplugged"),
        shoe_status(None),
        command("bank", "b4", seat=4, amount="300"),
        command("wager", "w5", seat=6, spot="player", amount="15"),
        *(at_card(c, p) for p, c in enumerate(["Td", "Jc", "8h", "9s"], start=13)),
    ]


def test_a_session_with_positions_holds_and_gaps_restores_exactly_at_every_record(
    tmp_path: Path,
) -> None:
    cfg = make_config(tmp_path)
    recs = records(held_session())
    # Every single cut, and snapshots chained through the hold and the gaps.
    for cut in range(len(recs) + 1):
        assert_restores_exactly(cfg, recs, [cut])
    assert_restores_exactly(cfg, recs, range(0, len(recs) + 1, 3))
    # The cuts above do fall inside what they are meant to: the session really holds.
    table, seen, results = Table(cfg), set(), []
    for rec in recs:
        results += [
            json.loads(r.payload) for r in table.apply(rec) if r.topic.endswith("/round/result")
        ]
        shoe_ledger = table.ledgers.get("shoe")
        if table.held and table.held_inputs and table.faults:
            seen.add("held with inputs kept and a fault standing")
        if shoe_ledger is not None and shoe_ledger.pending and table.held_inputs:
            seen.add("an input waiting behind a gap while others are kept")
        if shoe_ledger is not None and shoe_ledger.gap is not None:
            seen.add("a gap the device cannot fill")
        if table.unavailable:
            seen.add("a device unavailable")
    assert len(seen) == 4, seen
    assert [r["outcome"] and r["outcome"]["player"]["cards"] for r in results] == [
        ["2h", "Kc", "3h"],
        ["9h", "Kd"],
        None,  # the void
        ["Td", "8h"],
    ]
    assert results[1]["entered_by_hand"] == [{"device": "shoe", "run": "1", "pos": 8}]


def test_restored_in_the_middle_of_the_hold_the_table_keeps_what_waits_and_refuses_old_ids(
    tmp_path: Path,
) -> None:
    """After `round.resume` r1 was refused while position 4 was still missing: the snapshot
    holds the fault-free hold, the kept inputs, the card waiting past the gap and every id."""
    cfg = make_config(tmp_path)
    recs = records(held_session())
    cut = next(r.seq for r in recs if r.ref == "r1")
    a = Table(cfg)
    for rec in recs[:cut]:
        a.apply(rec)
    c = snapshot.restore(cfg, stored(a))
    assert c.held == a.held is not None
    assert [(rank, rec.seq) for rank, _, rec in c.held_inputs] == [
        (rank, rec.seq) for rank, _, rec in a.held_inputs
    ]
    assert len(c.held_inputs) == 2
    assert c.ledgers == a.ledgers and c.ledgers["shoe"].missing() == (4,)
    assert c.cursor("shoe") == a.cursor("shoe") == {"run": "1", "pos": 3, "seq": 3}
    assert list(c._refs) == list(a._refs)
    # A command id handled before the snapshot is still refused after it.
    for verb, ref in [("wager", "w1"), ("bank", "b1"), ("round.resume", "r1")]:
        body = {"type": verb, "seat": 3, "amount": "500"} if verb == "bank" else {"type": verb}
        rec = record(c.position + 1, body, source=f"cmd/{verb}", ref=ref)
        (reply,) = [json.loads(r.payload) for r in c.apply(rec)]
        assert reply["ok"] is False and "duplicate request id" in reply["reason"]


# -- stored snapshots through the daemon ----------------------------------------------------------

# EZ Baccarat coups that end where their cards end (R25): two naturals, a player third card,
# and a stand on 6 v 7. A new shoe every eight rounds keeps each card within the 8-deck shoe.
COUPS = ["9h 2c Kd 3s", "2h 3d Kc 4s 3h", "Td Jc 8h 9s", "6c 7d Qh Kh"]


def rounds(n: int, start: int = 0) -> Iterator[dict[str, Any]]:
    for i in range(start, start + n):
        if i % 8 == 0:
            yield SHOE_NEW
            yield burn("5d")
        yield bank(1 + (i // 2) % 7, "1000")
        yield wager(2 + (i // 2) % 5, "player", "20")
        yield {"type": "bets.close"}
        yield from cards(COUPS[i % len(COUPS)])


def half_round() -> list[dict[str, Any]]:
    """A round left in the middle: bank, wager, close and two cards."""
    return [bank(2, "800"), wager(4, "banker", "25"), {"type": "bets.close"}, *cards("4h 5c")]


def start(path: Path) -> Daemon:
    d = Daemon(load_config(path), mqtt=False)
    d.recover()
    return d


def ingest(d: Daemon, events: Iterable[dict[str, Any]], source: str = "console") -> None:
    for event in events:
        d._ingest(Input(source, event))


def crash(d: Daemon) -> None:
    """The daemon dies: no shutdown, so no shutdown snapshot."""
    d.journal.close()


def replayed(path: Path, upto: int | None = None) -> tuple[Table, list[Row]]:
    """The table replayed from the journal's first record (to `upto`), and every row out."""
    cfg = load_config(path)
    journal = Journal(cfg.journal_path, table=None, readonly=True)
    try:
        table, rows = Table(cfg), []
        for rec in journal.records():
            if upto is not None and rec.seq > upto:
                break
            rows += rows_of(table.apply(rec))
        return table, rows
    finally:
        journal.close()


def read(path: Path) -> tuple[int, int, list[Snapshot], list[Row]]:
    """The journal's last record, the record applied, its snapshots and its outbox."""
    journal = Journal(load_config(path).journal_path, table=None, readonly=True)
    try:
        return (journal.last_seq, journal.applied(), journal.snapshots(), rows_of(journal.outbox()))
    finally:
        journal.close()


def assert_is_the_replay(path: Path, table: Table) -> None:
    """The daemon's table and the whole outbox are exactly what a replay from record 1 gives."""
    full, rows = replayed(path)
    assert snapshot.encode(table) == snapshot.encode(full)
    assert table.state == full.state
    last, applied, _, outbox = read(path)
    assert applied == last == table.position
    assert outbox == rows


def skipped(logs: Sequence[Mapping[str, Any]]) -> list[str]:
    return [e["detail"] for e in logs if e["event"] == "snapshot.skipped"]


@pytest.fixture
def cfg_path(tmp_path: Path) -> Path:
    return write_config(tmp_path)


@pytest.fixture
def often(monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots every 20 records at a round boundary (30 at most) instead of 1,000 (5,000)."""
    monkeypatch.setattr(recovery, "SNAPSHOT_EVERY_RECORDS", 20)
    monkeypatch.setattr(recovery, "SNAPSHOT_MOST_RECORDS", 30)


def test_a_snapshot_follows_1000_records_at_a_round_boundary_and_a_restart_replays_only_after_it(
    cfg_path: Path,
) -> None:
    d = start(cfg_path)
    ingest(d, rounds(140))  # 1,052 records with the config record
    ingest(d, half_round())
    crash(d)
    last, _, snaps, _ = read(cfg_path)
    (snap,) = snaps
    # The first round boundary at or after 1,000 records (a round is at most 9 records here).
    assert recovery.SNAPSHOT_EVERY_RECORDS <= snap.journal_seq < recovery.SNAPSHOT_EVERY_RECORDS + 9
    at, _ = replayed(cfg_path, upto=snap.journal_seq)
    assert at.engine.between_rounds(at.state)
    assert snapshot.unpack(snap.body, snap.digest) == snapshot.encode(at)
    assert (snap.format, snap.made_by) == (snapshot.FORMAT, __version__)

    again = Daemon(load_config(cfg_path), mqtt=False)
    assert again.recover() == last - snap.journal_seq
    assert_is_the_replay(cfg_path, again.table)
    # It plays on from there as the table replayed from record 1 would.
    ingest(again, [*cards("Kd 4s"), *rounds(2, start=141)])
    crash(again)
    assert_is_the_replay(cfg_path, again.table)


def test_a_round_held_for_long_gets_a_snapshot_mid_round_that_a_restart_resumes_exactly(
    cfg_path: Path, often: None
) -> None:
    d = start(cfg_path)
    ingest(d, rounds(3))
    assert [s.journal_seq for s in d.journal.snapshots()] == [d.table.position]  # a boundary
    ingest(d, [bank(3, "500"), wager(4, "player", "20"), {"type": "bets.close"}])
    ingest(d, [plain(shoe_status(None))], source=SHOE)
    ingest(d, cards("2h 3d"), source=SHOE)
    ingest(d, [plain(shoe_status("JAM"))], source=SHOE)
    assert d.table.held is not None
    ingest(d, [{"type": "bets.close"}] * 40)  # kept during the hold
    crash(d)
    last, _, snaps, _ = read(cfg_path)
    newest = snaps[0]
    mid, _ = replayed(cfg_path, upto=newest.journal_seq)
    assert not mid.engine.between_rounds(mid.state) and mid.held is not None and mid.held_inputs
    assert snapshot.unpack(newest.body, newest.digest) == snapshot.encode(mid)

    again = Daemon(load_config(cfg_path), mqtt=False)
    assert again.recover() == last - newest.journal_seq
    assert_is_the_replay(cfg_path, again.table)
    # The fault clears, the round resumes and plays what was kept: as the full replay does.
    ingest(again, [plain(shoe_status(None))], source=SHOE)
    ingest(again, [{"type": "round.resume"}])
    ingest(again, cards("Kc 4s 3h"), source=SHOE)
    assert again.table.engine.between_rounds(again.table.state)
    crash(again)
    assert_is_the_replay(cfg_path, again.table)


def test_a_long_recovery_and_a_shutdown_each_leave_a_snapshot_so_the_next_start_replays_nothing(
    cfg_path: Path, often: None
) -> None:
    d = start(cfg_path)
    ingest(d, rounds(5))
    ingest(d, half_round())
    crash(d)
    raw = sqlite3.connect(cfg_path.parent / "journal.db")
    with raw:
        raw.execute("DELETE FROM snapshots")
    raw.close()
    last, *_ = read(cfg_path)

    again = Daemon(load_config(cfg_path), mqtt=False)
    assert again.recover() == last  # everything, from record 1: then a snapshot of the end
    crash(again)
    _, _, snaps, _ = read(cfg_path)
    assert snaps[0].journal_seq == last

    third = Daemon(load_config(cfg_path), mqtt=False)
    assert third.recover() == 0
    assert_is_the_replay(cfg_path, third.table)
    crash(third)

    async def run_and_stop() -> Daemon:
        running = Daemon(load_config(cfg_path), mqtt=False)
        task = asyncio.create_task(running.run(install_signals=False))
        for event in cards("Kd 3s"):
            await running.submit("console", event)
        running.stop()
        await task
        return running

    stopped = asyncio.run(run_and_stop())
    last, _, snaps, _ = read(cfg_path)
    assert snaps[0].journal_seq == last == stopped.table.position  # taken at shutdown
    fourth = Daemon(load_config(cfg_path), mqtt=False)
    assert fourth.recover() == 0
    assert_is_the_replay(cfg_path, fourth.table)
    crash(fourth)


# -- a damaged snapshot is skipped -------------------------------------------------------------


Change = dict[str, Any]  # columns of a snapshots row to set


def stored_form(data: bytes) -> Change:
    """`data` as a snapshot body stores it, with its digest: well-formed, whatever it holds."""
    return {"body": zlib.compress(data, 6), "digest": hashlib.sha256(data).hexdigest()}


def _flip(snap: Snapshot) -> Change:
    body = bytearray(snap.body)
    for i in range(len(body) // 3, len(body) // 3 + 8):
        body[i] ^= 0x5A
    return {"body": bytes(body)}


def _forged(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Snapshot], Change]:
    """The stored encoding decoded, edited, and stored again in the canonical form."""

    def change(snap: Snapshot) -> Change:
        doc = edit(json.loads(snapshot.unpack(snap.body, snap.digest)))
        return stored_form(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode())

    return change


def _with(field: str, value: Any) -> Callable[[Snapshot], Change]:
    return _forged(lambda doc: {**doc, field: value})


def _raw(data: bytes) -> Callable[[Snapshot], Change]:
    return lambda snap: stored_form(data)


def _spliced(faults: bytes) -> Callable[[Snapshot], Change]:
    """The stored encoding with raw JSON text for its (empty) `faults`."""

    def change(snap: Snapshot) -> Change:
        data = snapshot.unpack(snap.body, snap.digest)
        assert b'"faults":{}' in data
        return stored_form(data.replace(b'"faults":{}', b'"faults":' + faults))

    return change


PWNED = Path("/tmp/tablectl-snapshot-test-pwned")

DAMAGE: dict[str, Callable[[Snapshot], Change]] = {
    "body bytes flipped": _flip,
    "body truncated": lambda s: {"body": s.body[: len(s.body) // 2]},
    "body not compressed": lambda s: {"body": zlib.decompress(s.body)},
    "digest of other contents": lambda s: {"digest": hashlib.sha256(b"other").hexdigest()},
    "keyed to a record it was not taken after": lambda s: {"hash": "ab" * 32},
    "an unknown format number": lambda s: {"format": 0},
    "valid zlib, not JSON": _raw(b"\x00\x01 this is not JSON {"),
    "valid zlib, a JSON list": _raw(b"[1,2,3]"),
    "valid zlib, JSON missing fields": _raw(b'{"format":1,"table":"t1"}'),
    "a snapshot of another table": _with("table", "t2"),
    "a JSON naming os:system": _with(
        "faults", {"$o": "os:system", "v": {"command": f"touch {PWNED}"}}
    ),
    "a JSON naming subprocess:Popen": _with(
        "state", {"$m": "subprocess:Popen", "v": {"args": ["touch", str(PWNED)]}}
    ),
    "a tablectl name that is no dataclass": _with(
        "faults", {"$o": "tablectl.journal:Journal", "v": {}}
    ),
    "a tablectl class with the wrong fields": _with(
        "faults", {"$o": "positions.Gap", "v": {"nope": 1}}
    ),
    "an unknown class in tablectl": _with("faults", {"$o": "tablectl.nowhere:X", "v": {}}),
    "command ids without their times (format 3's form)": _forged(
        lambda doc: {**{k: v for k, v in doc.items() if k != "ref_times"}, "refs": ["w/x"]}
    ),
    "a command id remembered twice": _forged(
        lambda doc: {**doc, "refs": ["w/x", "w/x"], "ref_times": [0, 0]}
    ),
    "a command id's time that is no whole number": _forged(
        lambda doc: {**doc, "refs": ["w/x"], "ref_times": [1.5]}
    ),
    "a card that is no card": _with("faults", {"$c": "Zz"}),
    # Garbage the codec does not turn into SnapshotError (see the module's promise: "anything
    # else is refused as a corrupt snapshot").
    "a decimal that is no number": _with("faults", {"$d": "abc"}),
    "an object whose fields are not an object": _with("faults", {"$o": "positions.Gap", "v": None}),
    "JSON nested too deep": _spliced(b"[" * 5000 + b"]" * 5000),
}


def corrupt(path: Path, seq: int, change: Change) -> None:
    raw = sqlite3.connect(path.parent / "journal.db")
    with raw:
        sets = ", ".join(f"{column} = ?" for column in change)
        raw.execute(f"UPDATE snapshots SET {sets} WHERE journal_seq = ?", [*change.values(), seq])
    raw.close()


def played_with_snapshots(path: Path) -> tuple[int, list[Snapshot]]:
    """Ten rounds and half of one, snapshots every 20 records: the newest three are kept."""
    d = start(path)
    ingest(d, rounds(10))
    ingest(d, half_round())
    crash(d)
    last, _, snaps, _ = read(path)
    assert len(snaps) == 3
    return last, snaps


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_snapshot_is_skipped_with_a_warning_and_the_one_before_it_is_used(
    cfg_path: Path, often: None, damage: str
) -> None:
    last, (newest, older, _) = played_with_snapshots(cfg_path)
    corrupt(cfg_path, newest.journal_seq, DAMAGE[damage](newest))
    again = Daemon(load_config(cfg_path), mqtt=False)
    with capture_logs() as logs:
        count = again.recover()
    assert count == last - older.journal_seq
    (note,) = skipped(logs)
    assert f"snapshot after record {newest.journal_seq} skipped" in note
    assert_is_the_replay(cfg_path, again.table)
    assert not PWNED.exists()
    crash(again)


def test_with_every_snapshot_damaged_the_table_replays_from_the_first_record(
    cfg_path: Path, often: None
) -> None:
    last, snaps = played_with_snapshots(cfg_path)
    for snap, damage in zip(
        snaps,
        ["body bytes flipped", "digest of other contents", "an unknown format number"],
        strict=True,
    ):
        corrupt(cfg_path, snap.journal_seq, DAMAGE[damage](snap))
    again = Daemon(load_config(cfg_path), mqtt=False)
    with capture_logs() as logs:
        assert again.recover() == last
    assert len(skipped(logs)) == 3
    assert_is_the_replay(cfg_path, again.table)
    crash(again)


def test_a_snapshot_from_a_newer_tablectl_is_skipped_for_the_older_one_or_the_start(
    cfg_path: Path, often: None
) -> None:
    """A tablectl that cannot read a snapshot's format replays from the last one it
    can, or from the start."""
    last, (newest, older, _) = played_with_snapshots(cfg_path)
    newer = {"format": snapshot.FORMAT + 1, "made_by": "99.0.0"}
    corrupt(cfg_path, newest.journal_seq, newer)
    again = Daemon(load_config(cfg_path), mqtt=False)
    with capture_logs() as logs:
        assert again.recover() == last - older.journal_seq
    (note,) = skipped(logs)
    assert f"format {snapshot.FORMAT + 1} (made by tablectl 99.0.0)" in note
    assert_is_the_replay(cfg_path, again.table)
    crash(again)

    # That restart replayed enough to store a snapshot of its own: make every one newer.
    _, _, snaps, _ = read(cfg_path)
    for snap in snaps:
        corrupt(cfg_path, snap.journal_seq, newer)
    again = Daemon(load_config(cfg_path), mqtt=False)
    with capture_logs() as logs:
        assert again.recover() == last
    assert len(skipped(logs)) == 3
    assert_is_the_replay(cfg_path, again.table)
    crash(again)


# -- a crash while a snapshot is written loses nothing -------------------------------------------


class Interrupted(BaseException):
    """The process is stopped where it stands (no handler of the daemon's catches it)."""


class _DiesBeforeCommit:
    """The journal's connection, interrupted once a snapshot's row is inserted and before its
    transaction commits (at the statement after the INSERT)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.inserted = False

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.startswith("DELETE FROM snapshots") and self.inserted:
            raise Interrupted("stopped while the snapshot was written")
        cursor = self.db.execute(sql, *args)
        if sql.startswith("INSERT OR REPLACE INTO snapshots"):
            self.inserted = True
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def test_an_interruption_while_a_snapshot_is_written_rolls_it_back_and_loses_nothing(
    cfg_path: Path, often: None, capsys: pytest.CaptureFixture[str]
) -> None:
    d = start(cfg_path)
    ingest(d, rounds(3))  # the first snapshot, stored whole
    (first,) = d.journal.snapshots()
    dying = _DiesBeforeCommit(d.journal.db)
    d.journal.db = dying  # type: ignore[assignment]
    events = list(rounds(4, start=3))
    fed = 0
    with pytest.raises(Interrupted):
        for event in events:
            fed += 1
            d._ingest(Input("console", event))
    assert dying.inserted
    assert not dying.db.in_transaction  # rolled back, not left open
    failed_at = d.table.position
    crash(d)
    assert_is_the_replay(cfg_path, d.table)  # the journal and outbox hold all it had done

    last, applied, snaps, _ = read(cfg_path)
    assert last == applied == failed_at  # the record that was being checkpointed is kept
    assert [s.journal_seq for s in snaps] == [first.journal_seq]  # no half-written snapshot
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(cfg_path), "--deep"]) == 0, capsys.readouterr()

    again = Daemon(load_config(cfg_path), mqtt=False)
    assert again.recover() == last - first.journal_seq
    assert_is_the_replay(cfg_path, again.table)
    ingest(again, events[fed:])  # and play goes on, snapshots with it
    crash(again)
    last, _, snaps, _ = read(cfg_path)
    assert snaps[0].journal_seq > first.journal_seq
    assert_is_the_replay(cfg_path, again.table)


KILL_WHILE_WRITING = """
import os, signal, sys
from tablectl import snapshot
from tablectl.config import load_config
from tablectl.journal import Journal
from tablectl.table import Table

cfg = load_config(sys.argv[1])
journal = Journal(cfg.journal_path, table=cfg.table.table)
table = Table(cfg)
for rec in journal.records():
    table.apply(rec)

class Dies:
    def __init__(self, db):
        self.db = db
    def execute(self, sql, *args):
        cursor = self.db.execute(sql, *args)
        if sql.startswith("INSERT OR REPLACE INTO snapshots"):
            print("inserted", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        return cursor
    def __getattr__(self, name):
        return getattr(self.db, name)

journal.db = Dies(journal.db)
snapshot.take(table, journal)
print("not killed", flush=True)
"""


def test_a_process_killed_while_writing_a_snapshot_loses_nothing(
    cfg_path: Path, often: None, capsys: pytest.CaptureFixture[str]
) -> None:
    d = start(cfg_path)
    ingest(d, rounds(4))
    ingest(d, half_round())
    crash(d)
    before = read(cfg_path)
    proc = subprocess.run(
        [sys.executable, "-c", KILL_WHILE_WRITING, str(cfg_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == -9, proc.stderr
    assert proc.stdout == "inserted\n"
    assert read(cfg_path) == before  # every record, output and snapshot as it was; no new one
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(cfg_path), "--deep"]) == 0, capsys.readouterr()
    last, _, snaps, _ = before
    again = Daemon(load_config(cfg_path), mqtt=False)
    assert again.recover() == last - snaps[0].journal_seq
    assert_is_the_replay(cfg_path, again.table)
    crash(again)


# -- verify-journal --deep ---------------------------------------------------------------------


def verify_deep(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["verify-journal", "--config", str(path), "--deep"])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_verify_journal_deep_proves_every_stored_snapshot_equal_to_the_replay(
    cfg_path: Path, often: None, capsys: pytest.CaptureFixture[str]
) -> None:
    last, _ = played_with_snapshots(cfg_path)
    code, out = verify_deep(cfg_path, capsys)
    assert code == 0, out
    assert f"ok: {last} records, chain intact" in out
    assert "3 snapshots equal the state replayed from the records" in out
    # The same through the installed command.
    tablectl = Path(sys.executable).with_name("tablectl")
    proc = subprocess.run(
        [str(tablectl), "verify-journal", "--config", str(cfg_path), "--deep"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _round_plus_one(doc: dict[str, Any]) -> dict[str, Any]:
    doc["state"]["v"]["round"] += 1
    return doc


def _bank_seat_moved(doc: dict[str, Any]) -> dict[str, Any]:
    rotation = doc["state"]["v"]["rotation"]["v"]
    rotation["last_seat"] = (rotation["last_seat"] or 0) % 7 + 1
    return doc


def _outgoing_seq(doc: dict[str, Any]) -> dict[str, Any]:
    doc["seq"] += 1
    return doc


def _a_command_id_added(doc: dict[str, Any]) -> dict[str, Any]:
    doc["refs"] = [*doc["refs"], "wager/never-sent"]
    doc["ref_times"] = [*doc["ref_times"], 0]  # at the time of the id before it
    return doc


FORGERIES = {
    "the round number": _round_plus_one,
    "the bank's seat": _bank_seat_moved,
    "the outgoing seq": _outgoing_seq,
    "the command ids": _a_command_id_added,
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_verify_journal_deep_names_a_forged_but_well_formed_snapshot(
    cfg_path: Path, often: None, capsys: pytest.CaptureFixture[str], forgery: str
) -> None:
    _, (newest, older, _) = played_with_snapshots(cfg_path)
    corrupt(cfg_path, older.journal_seq, _forged(FORGERIES[forgery])(older))
    code, out = verify_deep(cfg_path, capsys)
    assert code == 1, out
    assert (
        f"snapshot after record {older.journal_seq}: differs from the state replayed from the "
        "records" in out
    )
    assert f"snapshot after record {newest.journal_seq}" not in out
    # Without --deep only the chain is checked, and it is intact.
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(cfg_path)]) == 0


def test_verify_journal_deep_names_a_damaged_snapshot(
    cfg_path: Path, often: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _, (newest, _, _) = played_with_snapshots(cfg_path)
    corrupt(cfg_path, newest.journal_seq, DAMAGE["body bytes flipped"](newest))
    code, out = verify_deep(cfg_path, capsys)
    assert code == 1, out
    assert f"snapshot after record {newest.journal_seq}: " in out


def test_a_snapshot_forged_without_the_chain_key_is_not_trusted_and_verify_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review finding: a snapshot's digest anyone can recompute. In a keyed journal each is
    signed; one rewritten without the key (round + 100, digest recomputed) is skipped at a
    restart, which replays instead, and verify-journal with the key fails naming it."""
    assert main(["keygen", str(tmp_path / "journal.key")]) == 0
    path = write_config(tmp_path, journal={"key_file": "journal.key"})
    first = Daemon(load_config(path), mqtt=False)
    first.recover()
    for event in [bank(1, "500"), wager(2, "player", "20"), CLOSE, *cards("9h 2c Kd 3s")]:
        first._ingest(Input("console", event))
    first._checkpoint()
    expected = snapshot.encode(first.table)
    first.journal.close()
    raw = sqlite3.connect(tmp_path / "journal.db")
    seq, body = raw.execute("SELECT journal_seq, body FROM snapshots").fetchone()
    doc = json.loads(zlib.decompress(body))
    doc["state"]["v"]["round"] += 100
    data = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    raw.execute(
        "UPDATE snapshots SET body = ?, digest = ? WHERE journal_seq = ?",
        (zlib.compress(data), hashlib.sha256(data).hexdigest(), seq),
    )
    raw.commit()
    raw.close()
    again = Daemon(load_config(path), mqtt=False)
    with capture_logs() as logs:
        replayed = again.recover()
    assert replayed == seq  # from the first record: the forged snapshot was not used
    assert snapshot.encode(again.table) == expected
    assert any(e["event"] == "snapshot.skipped" and "key" in e["detail"] for e in logs)
    again.journal.close()
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"snapshot after record {seq}: its keyed hash does not match" in out


POKER_CONFIGS = (
    "texas-holdem-004.toml",
    "omaha-hi-lo-004.toml",
    "crazy-pineapple-hi-lo-003.toml",
)


@settings(max_examples=25, **SETTINGS)
@given(
    name=st.sampled_from(POKER_CONFIGS),
    stacks=st.lists(st.integers(5, 120), min_size=2, max_size=6),
    deck_order=st.permutations([str(c) for c in standard_deck()]),
    data=st.data(),
)
def test_a_poker_table_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    name: str, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> None:
    """Random hands of the flop games (the engine property test's inputs, seats sitting out and
    coming back included): the hand in play, hole cards, pots, missed blinds, all restored."""
    config = Path(__file__).resolve().parents[2] / "config" / name
    cfg = load_config(config)
    inputs = poker_session(config, stacks, deck_order, data)
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=60, **SETTINGS)
@given(
    name=st.sampled_from(STUD_CONFIGS),
    stacks=st.lists(st.integers(1, 60), min_size=2, max_size=6),
    deck_order=st.permutations([str(c) for c in standard_deck()]),
    data=st.data(),
)
def test_a_stud_table_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    name: str, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> None:
    """Random hands of the stud games and Option Alley (the stud property test's inputs: streets
    of up cards, seventh streets with and without their cards, down cards told early, late or
    never and the showdown declared, buys, misdeals, seats sitting out): up and down cards by
    seat, streets dealt, the first bettor's round and the pots, all restored."""
    config = Path(__file__).resolve().parents[2] / "config" / name
    cfg = load_config(config)
    inputs = stud_session(config, stacks, deck_order, data)
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=60, **SETTINGS)
@given(
    name=st.sampled_from(DRAW_CONFIGS),
    stacks=st.lists(st.integers(1, 60), min_size=2, max_size=6),
    deck_order=st.permutations(PACK),
    data=st.data(),
)
def test_a_draw_table_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    name: str, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> None:
    """Random hands of the draw games (the draw property test's inputs: Lowball straddles, pass
    and out, draws with and without their cards, fives told early, late or never and the
    showdown declared, misdeals, seats sitting out): each seat's five as the engine knows them,
    the draws asked for, the round in play and the pots, all restored."""
    config = Path(__file__).resolve().parents[2] / "config" / name
    cfg = load_config(config)
    inputs = draw_session(config, stacks, deck_order, data)
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))


@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_a_chinese_poker_table_restored_from_a_snapshot_at_any_record_plays_on_as_the_replay(
    data: st.DataObject,
) -> None:
    """Random Chinese Poker sessions (the Chinese Poker property test's inputs: 2-5 seated, up to
    three rounds, settings valid and fouled, sweeps held and not, seats sitting out, misdeals):
    the buttons, the round in play with the hands already in, the stacks and the fees, all
    restored."""
    config = Path(__file__).resolve().parents[2] / "config" / "chinese-poker-003.toml"
    cfg = load_config(config)
    recs = records(chinese_session(data))
    assert_restores_exactly(cfg, recs, data.draw(cut_points(len(recs))))
