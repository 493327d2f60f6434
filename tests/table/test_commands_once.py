"""Commands arrive once (R54), at the table: the deterministic part.

- A command's (verb, id) is remembered for COMMAND_ID_WINDOW (24 hours) of the records' own
  times: the same (verb, id) again 24 h less a microsecond after the first is refused as a
  duplicate, from 24 h on it is applied again; the same holds for a table restored from a
  snapshot at any record, and for one advanced without rendering (a restart's replay).
- Only a command record's own time moves that clock: an idle table forgets nothing, and a clock
  stepped back only makes ids remembered longer (they are forgotten oldest first in journal
  order).
- A busy day's ids (28,800, one every 3 s) are all remembered, however many, and a snapshot of
  them stays small.
- A command that came with the retain flag (journaled `input.invalid`, `retained`) is refused
  with an alert that stays open, once however often it comes, and does not spend its id.
- A format 3 snapshot (ids without their times) is not read: the table is rebuilt from the
  records, and remembers an id 5,000 commands back.

The end-to-end half (a real daemon, a real Mosquitto restarted) is
tests/integration/test_commands_once_e2e.py.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs

from tablectl import snapshot
from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon
from tablectl.daemon.commands import retained_reason
from tablectl.daemon.state import Input
from tablectl.outputs import OutboxRow
from tablectl.records import Record, format_ts
from tablectl.table import COMMAND_ID_WINDOW, Table, journal_body
from tests.helpers import BASE, bank, make_config, payload, wager, write_config
from tests.table.test_snapshot import assert_restores_exactly

T0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
DAY = COMMAND_ID_WINDOW
TICK = timedelta(microseconds=1)  # the journal's resolution


def cmd(seq: int, when: datetime, event: dict[str, Any], ref: str) -> Record:
    """Record `seq`: the command `event` with request id `ref`, journaled at `when`."""
    return Record(seq, format_ts(when), f"cmd/{event['type']}", ref, journal_body(event), "", "")


def retained_cmd(seq: int, when: datetime, verb: str, raw: str, ref: str) -> Record:
    """Record `seq`: a `cmd/<verb>` that came retained, journaled as the daemon journals it."""
    reason = retained_reason(f"{BASE}/cmd/{verb}")
    body = journal_body(raw, reason, retained=True)
    return Record(seq, format_ts(when), f"cmd/{verb}", ref, body, "", "")


def numbered(recs: Sequence[Record]) -> list[Record]:
    """The records renumbered 1..n in their order (the builders above take any seq)."""
    return [Record(i, r.ts, r.source, r.ref, r.body, "", "") for i, r in enumerate(recs, 1)]


def replies(rows: Sequence[OutboxRow]) -> list[dict[str, Any]]:
    return [payload(r) for r in rows if r.topic.endswith("/reply")]


def answers(cfg: LoadedConfig, recs: Sequence[Record]) -> list[tuple[str, bool, str | None]]:
    """Each command reply a fresh table publishes for `recs`: (id, ok, reason)."""
    table = Table(cfg)
    out = []
    for rec in recs:
        for reply in replies(table.apply(rec)):
            out.append((reply["id"], reply["ok"], reply.get("reason")))
    return out


DUPLICATE = "duplicate request id: already handled"
W = wager(2, "player", "25")


def test_the_window_is_the_24_hours_the_docs_state() -> None:
    """(This file's times are worked out by hand for it.)"""
    assert timedelta(hours=24) == COMMAND_ID_WINDOW


def test_an_id_is_refused_until_24_hours_after_its_record_and_applied_again_from_then(
    tmp_path: Path,
) -> None:
    """w1 at 20:00:00 on the 27th: again at 19:59:59.999999 on the 28th is a duplicate; at
    20:00:00.000000 it is a new request and places a second 25 on seat 2's player spot. The
    table was idle for that day: no record came to move its clock."""
    cfg = make_config(tmp_path)
    recs = [
        cmd(1, T0, bank(1, "500"), "b1"),
        cmd(2, T0, W, "w1"),
        cmd(3, T0 + DAY - TICK, W, "w1"),
        cmd(4, T0 + DAY, W, "w1"),
        cmd(5, T0 + DAY, W, "w1"),  # and that one is remembered from its own time
    ]
    assert answers(cfg, recs) == [
        ("b1", True, None),
        ("w1", True, None),
        ("w1", False, DUPLICATE),
        ("w1", True, None),
        ("w1", False, DUPLICATE),
    ]
    table = Table(cfg)
    for rec in recs:
        table.apply(rec)
    amounts = [(w["seat"], w["spot"], w["amount"]) for w in table.state_payload()["wagers"]]
    assert amounts == [(2, "player", "25.00"), (2, "player", "25.00")]
    # b1's record is 24 h old at record 4: forgotten with w1's first one.
    assert list(table._refs) == [
        ("wager/w1", (T0 + DAY - datetime(1970, 1, 1, tzinfo=UTC)) // TICK)
    ]


def test_the_window_is_the_same_for_a_table_restored_from_a_snapshot_at_any_record(
    tmp_path: Path,
) -> None:
    """Restored after every record in turn (the memory's times ride in the snapshot), and
    advanced without rendering, the table answers at the edges exactly as the one that
    applied every record from the first."""
    cfg = make_config(tmp_path)
    recs = [
        cmd(1, T0, bank(1, "500"), "b1"),
        cmd(2, T0 + timedelta(hours=1), W, "w1"),
        cmd(3, T0 + timedelta(hours=2), W, "w2"),
        cmd(4, T0 + timedelta(hours=1) + DAY - TICK, W, "w1"),  # inside: refused
        cmd(5, T0 + timedelta(hours=1) + DAY, W, "w1"),  # outside: applied
        cmd(6, T0 + timedelta(hours=2) + DAY - TICK, W, "w2"),  # inside: refused
        cmd(7, T0 + timedelta(hours=2) + DAY, bank(1, "500"), "b1"),  # long forgotten
    ]
    assert answers(cfg, recs) == [
        ("b1", True, None),
        ("w1", True, None),
        ("w2", True, None),
        ("w1", False, DUPLICATE),
        ("w1", True, None),
        ("w2", False, DUPLICATE),
        ("b1", False, "wagers are already placed against this round's bank"),  # the rules' say
    ]
    assert_restores_exactly(cfg, recs, range(len(recs) + 1))
    # Restored just before each edge, the table gives the same answer as ever.
    whole = Table(cfg)
    for rec in recs[:3]:
        whole.apply(rec)
    restored = snapshot.restore(cfg, snapshot.encode(whole))
    assert [r["ok"] for rec in recs[3:6] for r in replies(restored.apply(rec))] == [
        False,
        True,
        False,
    ]


def test_ids_are_forgotten_only_by_a_command_records_own_time(tmp_path: Path) -> None:
    """Cards read 30 h after w1 forget nothing (only a command's record moves the memory's
    clock); the command that comes then forgets w1 before it is itself checked."""
    cfg = make_config(tmp_path)
    late = T0 + timedelta(hours=30)
    card = Record(
        3, format_ts(late), "device/shoe", None, journal_body({"type": "shoe.new"}), "", ""
    )
    table = Table(cfg)
    table.apply(cmd(1, T0, bank(1, "500"), "b1"))
    table.apply(cmd(2, T0, W, "w1"))
    table.apply(card)
    assert [key for key, _ in table._refs] == ["bank/b1", "wager/w1"]
    table.apply(cmd(4, late, {"type": "bets.close"}, "c1"))
    assert [key for key, _ in table._refs] == ["bets.close/c1"]


def test_a_clock_stepped_back_only_keeps_ids_longer(tmp_path: Path) -> None:
    """The clock runs two hours fast at w1 (22:00 for 20:00), is stepped back, and w2 is
    journaled at 20:05. A day after w2 by the records (20:05 on the 28th) w2 is still
    remembered, because w1, before it in the journal, is not yet 24 h old: ids are forgotten
    oldest first in journal order. From 22:00 both are forgotten. And a redelivery journaled at
    a time before its first record's (the clock stepped back past it) is refused."""
    cfg = make_config(tmp_path)
    fast = T0 + timedelta(hours=2)
    recs = [
        cmd(1, fast, bank(1, "500"), "b1"),
        cmd(2, fast, W, "w1"),
        cmd(3, T0 + timedelta(minutes=5), W, "w2"),
        cmd(4, T0, W, "w1"),  # before w1's own record time
        cmd(5, T0 + timedelta(minutes=5) + DAY, W, "w2"),  # w2 waits behind w1: refused
        cmd(6, fast + DAY - TICK, W, "w2"),  # still
        cmd(7, fast + DAY, W, "w2"),  # w1 and w2 forgotten: applied
    ]
    assert answers(cfg, recs) == [
        ("b1", True, None),
        ("w1", True, None),
        ("w2", True, None),
        ("w1", False, DUPLICATE),
        ("w2", False, DUPLICATE),
        ("w2", False, DUPLICATE),
        ("w2", True, None),
    ]
    assert_restores_exactly(cfg, recs, [3, 5])


def test_a_busy_day_of_ids_is_remembered_whole_and_its_snapshot_stays_small(
    tmp_path: Path,
) -> None:
    """30,000 commands c-0 to c-29999, one every 3 s from T0 (the last at T0 + 89,997 s).
    At T0 + 90,000 s (25 h) every id journaled after T0 + 3,600 s is remembered (c-1201 to
    c-29999: 28,799), those up to it are not: c-1201 is refused, c-1200 is a new request.
    Nothing counts ids out any more (the old memory kept the newest 4,096)."""
    cfg = make_config(tmp_path)
    step = timedelta(seconds=3)
    resume = {"type": "round.resume"}  # refused (nothing is held): cheap, and handled all the same
    recs = [cmd(k + 1, T0 + k * step, resume, f"c-{k}") for k in range(30_000)]
    end = T0 + timedelta(seconds=90_000)
    recs += [cmd(30_001, end, resume, "c-1201"), cmd(30_002, end, resume, "c-1200")]
    table = Table(cfg)
    for rec in recs[:-2]:
        table.advance(rec)
    assert len(table._refs) == 28_800  # c-0 to c-1199 went, the last at c-29999's time
    (refused,) = replies(table.apply(recs[-2]))
    assert refused == {**refused, "id": "c-1201", "ok": False, "reason": DUPLICATE}
    assert len(table._refs) == 28_799
    (again,) = replies(table.apply(recs[-1]))
    assert again["id"] == "c-1200" and again.get("reason") != DUPLICATE
    assert len(table._refs) == 28_800
    body, _ = snapshot.pack(table)
    # 28,800 ids of this form with their times: about 70 KB compressed (the times as steps).
    assert len(body) < 200_000, len(body)
    assert list(snapshot.restore(cfg, zlib.decompress(body))._refs) == list(table._refs)


def test_a_retained_command_is_refused_with_one_open_alert_and_does_not_spend_its_id(
    tmp_path: Path,
) -> None:
    """cmd/bank b1 comes retained twice (a subscribe, then a reconnect): each time refused
    (`ok: false`, rule R54) with a `retained-command` alert, one open alert for both; the bank
    is not posted. Sent again without the flag, b1 is applied (it was never handled). Once the
    alert is acknowledged, another retained delivery opens it again."""
    cfg = make_config(tmp_path)
    raw = '{"id":"b1","seat":1,"amount":"500"}'
    table = Table(cfg)
    first = table.apply(retained_cmd(1, T0, "bank", raw, "b1"))
    kinds = [r.topic.removeprefix(BASE + "/") for r in first]
    assert kinds == ["alert", "cmd/bank/reply", "alerts/open"]
    alert, reply, opened = (payload(r) for r in first)
    reason = (
        f"{BASE}/cmd/bank came retained: a retained command is delivered again on every "
        f"subscribe, so it is never applied; clear it at the broker (mosquitto_pub -r -n -t "
        f"{BASE}/cmd/bank)"
    )
    assert alert == {
        **alert,
        "kind": "retained-command",
        "rule": "R54",
        "reason": reason,
        "source": "cmd/bank",
        "raw": raw,
    }
    assert reply == {**reply, "id": "b1", "ok": False, "reason": reason, "rule": "R54"}
    assert opened["open"] == [
        {"id": alert["seq"], "kind": "retained-command", "reason": reason, "since": format_ts(T0)}
    ]
    second = table.apply(retained_cmd(2, T0 + timedelta(minutes=1), "bank", raw, "b1"))
    assert [r.topic.removeprefix(BASE + "/") for r in second] == ["alert", "cmd/bank/reply"]
    assert table.state_payload()["player_dealer"] is None
    (plain,) = replies(table.apply(cmd(3, T0 + timedelta(minutes=2), bank(1, "500"), "b1")))
    assert plain == {**plain, "id": "b1", "ok": True}
    assert table.state_payload()["player_dealer"]["bank"] == "500.00"
    ack = {"type": "alert.ack", "alert": alert["seq"], "by": "floor:ann", "why": "cleared it"}
    table.apply(cmd(4, T0 + timedelta(minutes=3), ack, "a1"))
    assert table.open_alerts.items == ()
    third = table.apply(retained_cmd(5, T0 + timedelta(minutes=4), "bank", raw, "b1"))
    assert [r.topic.removeprefix(BASE + "/") for r in third] == [
        "alert",
        "cmd/bank/reply",
        "alerts/open",
    ]
    recs = numbered(
        [
            retained_cmd(1, T0, "bank", raw, "b1"),
            retained_cmd(2, T0, "bank", raw, "b1"),
            cmd(3, T0, bank(1, "500"), "b1"),
        ]
    )
    assert_restores_exactly(cfg, recs, [1, 2])


def test_a_format_3_snapshot_is_rebuilt_from_the_records_and_remembers_5000_commands_back(
    tmp_path: Path,
) -> None:
    """A journal a tablectl before R54 left: its snapshot (format 3) holds the newest 4,096 ids
    without their times. The new daemon skips it, replays the records and refuses the
    redelivery of a wager 5,000 commands back."""
    path = write_config(tmp_path)
    d = Daemon(load_config(path), mqtt=False)
    d.recover()
    d._ingest(Input("cmd/bank", bank(1, "500"), "b1"))
    d._ingest(Input("cmd/wager", W, "w1"))
    for k in range(5000):
        d._ingest(Input("cmd/round.resume", {"type": "round.resume"}, f"c-{k}"))
    d._checkpoint()
    position = d.table.position
    d.journal.close()
    # Each snapshot as format 3 wrote it: the newest 4,096 ids alone, without their times.
    raw = sqlite3.connect(tmp_path / "journal.db")
    with raw:
        stored = raw.execute("SELECT journal_seq, body FROM snapshots").fetchall()
        assert [seq for seq, _ in stored] == [5000, position]  # (the daemon's own, and ours)
        for seq, body in stored:
            doc = json.loads(zlib.decompress(body))
            doc["refs"] = doc["refs"][-4096:]
            assert doc.pop("ref_times") and "wager/w1" not in doc["refs"]
            data = json.dumps({**doc, "format": 3}, separators=(",", ":")).encode()
            raw.execute(
                "UPDATE snapshots SET format = 3, body = ?, digest = ? WHERE journal_seq = ?",
                (zlib.compress(data), hashlib.sha256(data).hexdigest(), seq),
            )
    raw.close()
    again = Daemon(load_config(path), mqtt=False)
    heard: list[OutboxRow] = []
    again.listeners.append(lambda _rec, rows: heard.extend(rows))
    with capture_logs() as logs:
        assert again.recover() == position  # every record replayed
    notes = [e["detail"] for e in logs if e["event"] == "snapshot.skipped"]
    assert [n.split(" (made by")[0] for n in notes] == [
        f"snapshot after record {position} skipped: format 3",
        "snapshot after record 5000 skipped: format 3",
    ]
    again._ingest(Input("cmd/wager", W, "w1"))
    assert replies(heard) == [{**replies(heard)[0], "id": "w1", "ok": False, "reason": DUPLICATE}]
    assert again.table.state_payload()["wagers"] == [
        {"seat": 2, "player": "p2", "spot": "player", "amount": "25.00"}
    ]
    again.journal.close()
