"""The command line (contract 4) on real files: `replay`, `export`, `recall`, `verify-journal`,
`analyze`. Journals are built the way the daemon's `_ingest` builds them: journal the canonical
body, apply it to the `Table`, store the outputs with the record."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import load_config
from tablectl.journal import Journal
from tablectl.outputs import OutboxRow
from tablectl.records import now_ts, replay_ts
from tablectl.table import Table, journal_body

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "config" / "ez-baccarat-panda8.toml"
SCHEDULES = ROOT / "config" / "schedules" / "ez-baccarat-panda8.toml"
BASE = "tablectl/cardroom-1/bac-01"


def ev(**fields: Any) -> str:
    """One contract-2 line; `type` first as the contract asks."""
    typ = fields.pop("type")
    return json.dumps({"type": typ, **fields})


# Three finished rounds and a fourth still taking wagers. Round 1: natural 9 for the player.
# Round 2: player stands on 6, banker draws a third card. Round 3: player draws to a
# three-card 8 and wins (Panda 8). Seat 4 banks twice, then must pass the bank on (R5).
ROUND_1 = [
    ev(type="bank", seat=4, amount="500"),
    ev(type="wager", seat=1, spot="player", amount="25"),
    ev(type="wager", seat=2, spot="banker", amount="25.50"),
    ev(type="wager", seat=3, spot="tie", amount="5"),
    ev(type="bets.close"),
    ev(type="shoe.card", card="9h"),
    ev(type="shoe.card", card="2d"),
    ev(type="shoe.card", card="kc"),
    ev(type="shoe.card", card="5S"),
]
ROUND_2 = [
    ev(type="bank", seat=4, amount="300"),
    ev(type="wager", seat=1, spot="banker", amount="100"),
    ev(type="wager", seat=2, spot="player", amount="40"),
    ev(type="shoe.card", card="2h"),  # the first card closes betting
    ev(type="shoe.card", card="3d"),
    ev(type="shoe.card", card="4c"),
    ev(type="shoe.card", card="2s"),
    ev(type="shoe.card", card="7c"),
]
ROUND_3 = [
    ev(type="bank", seat=5, amount="1000"),
    ev(type="wager", seat=1, spot="player", amount="50"),
    ev(type="wager", seat=1, spot="panda8", amount="10"),
    ev(type="wager", seat=3, spot="banker", amount="20"),
    ev(type="bets.close"),
    ev(type="shoe.card", card="5h"),
    ev(type="shoe.card", card="Kd"),
    ev(type="shoe.card", card="Kh"),
    ev(type="shoe.card", card="7s"),
    ev(type="shoe.card", card="3c"),
]
UNFINISHED = [
    ev(type="bank", seat=5, amount="200"),
    ev(type="wager", seat=2, spot="tie", amount="10"),
]
SESSION = [ev(type="shoe.new"), *ROUND_1, *ROUND_2, *ROUND_3, *UNFINISHED]


def config_text(tmp_path: Path) -> str:
    text = SHIPPED.read_text(encoding="utf-8")
    for old, new in (
        ('file = "schedules/ez-baccarat-panda8.toml"', f'file = "{SCHEDULES}"'),
        ('path = "/var/lib/tablectl/bac-01.db"', f'path = "{tmp_path / "bac-01.db"}"'),
    ):
        assert old in text, f"the shipped config no longer contains {old!r}"
        text = text.replace(old, new, 1)
    return text


@pytest.fixture
def cfg_path(tmp_path: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(config_text(tmp_path), encoding="utf-8")
    return path


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def replay(
    cfg_path: Path, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> list[dict[str, Any]]:
    events = write_lines(cfg_path.parent / "events.jsonl", lines)
    code, out, err = run(["replay", "--config", str(cfg_path), str(events)], capsys)
    assert (code, err) == (0, "")
    return [json.loads(line) for line in out.splitlines()]


Input = tuple[str, Any, str | None, str | None]  # source, data, ref, error


def ingest(cfg_path: Path, inputs: list[Input]) -> Path:
    """Journal inputs exactly as `Daemon._ingest` does; returns the journal's path."""
    cfg = load_config(cfg_path)
    table = Table(cfg)
    journal = Journal(cfg.journal_path, table=cfg.table.table)
    try:
        for source, data, ref, error in inputs:
            rec = journal.append(now_ts(), source, ref, journal_body(data, error))
            journal.write_outputs(rec, table.apply(rec))
    finally:
        journal.close()
    return cfg.journal_path


def shoe_inputs(lines: list[str]) -> list[Input]:
    return [("driver/shoe", json.loads(line), None, None) for line in lines]


def wire(row: OutboxRow) -> str:
    """An outbox row the way `replay` prints a message."""
    msg = {"topic": row.topic, "payload": json.loads(row.payload), "qos": row.qos}
    msg["retain"] = row.retain
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


# -- replay ---------------------------------------------------------------------------------


def test_replay_prints_one_message_per_line_with_exactly_topic_payload_qos_retain(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = replay(cfg_path, SESSION, capsys)
    assert messages
    for msg in messages:
        assert list(msg) == ["topic", "payload", "qos", "retain"]
        assert msg["topic"].startswith(BASE + "/")
        assert isinstance(msg["payload"], dict)
        assert msg["qos"] == 1
        assert isinstance(msg["retain"], bool)
        assert msg["payload"]["table"] == "bac-01"
    assert [m["payload"]["seq"] for m in messages] == list(range(1, len(messages) + 1))
    results = [m["payload"] for m in messages if m["topic"] == BASE + "/round/result"]
    assert [r["round"] for r in results] == [1, 2, 3]


def test_replay_output_is_byte_identical_across_runs(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write_lines(cfg_path.parent / "events.jsonl", SESSION)
    argv = ["replay", "--config", str(cfg_path), str(events)]
    first = run(argv, capsys)
    second = run(argv, capsys)
    assert first == second
    assert first[1].endswith("\n")


def test_replay_output_is_byte_identical_across_processes_with_different_hash_seeds(
    cfg_path: Path,
) -> None:
    events = write_lines(cfg_path.parent / "events.jsonl", SESSION)
    outs = []
    for seed in ("1", "2"):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "tablectl.cli",
                "replay",
                "--config",
                str(cfg_path),
                str(events),
            ],
            capture_output=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=60,
        )
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
    assert outs[0]


def test_replay_reads_standard_input_for_dash(
    cfg_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    events = write_lines(cfg_path.parent / "events.jsonl", SESSION)
    code, from_file, _ = run(["replay", "--config", str(cfg_path), str(events)], capsys)
    monkeypatch.setattr(sys, "stdin", io.StringIO(events.read_text(encoding="utf-8")))
    assert run(["replay", "--config", str(cfg_path), "-"], capsys) == (code, from_file, "")


def test_replay_lines_without_ts_get_the_fixed_epoch_plus_their_sequence(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        ev(type="shoe.new"),
        "",  # blank lines are not events and take no sequence number
        ev(type="bank", seat=4, amount="500"),
        ev(type="wager", seat=1, spot="player", amount="25", ts="2024-05-01T12:00:00.000000Z"),
        ev(type="bets.close"),
    ]
    messages = replay(cfg_path, lines, capsys)
    events = [m["payload"] for m in messages if m["topic"] == BASE + "/event"]
    assert [(e["type"], e["ts"]) for e in events] == [
        ("shoe.new", "1970-01-01T00:00:01.000000Z"),
        ("bank", "1970-01-01T00:00:02.000000Z"),
        ("wager", "2024-05-01T12:00:00.000000Z"),
        ("bets.close", "1970-01-01T00:00:04.000000Z"),
    ]
    assert replay_ts(4) == "1970-01-01T00:00:04.000000Z"


MALFORMED: list[tuple[str, str]] = [
    ("not json at all", "not JSON"),
    ('{"type":"bank","seat":4,', "not JSON"),
    ("[1, 2]", "an event is a JSON object"),
    ("null", "an event is a JSON object"),
    ('"shoe.card"', "an event is a JSON object"),
    ('{"card":"Ah"}', "no 'type'"),
    ('{"type":"shoe.shuffle"}', "unknown event type 'shoe.shuffle'"),
    ('{"type":"shoe.card","card":"Zz"}', "card: 'Zz' is not a card"),
    ('{"type":"shoe.card","card":"10h"}', "card: '10h' is not a card"),
    ('{"type":"bank","seat":4,"amount":"-500"}', "amount: '-500' is negative"),
    ('{"type":"bank","seat":4,"amount":500.5}', "amount: money must be a decimal string"),
    ('{"type":"wager","seat":1,"spot":"tie","amount":"5.001"}', "fractions of a cent"),
    ('{"type":"wager","seat":1,"spot":"tie"}', "amount: Field required"),
    ('{"type":"bets.close","now":true}', "now: Extra inputs are not permitted"),
    ('{"type":"bank","seat":4,"amount":NaN}', "amount: money must be a decimal string"),
]


def raw_of(line: str) -> str:
    """What an alert keeps of a refused line: the line itself, or the JSON value re-serialized
    compactly (a JSON string keeps only its text)."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return line
    return data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))


@pytest.mark.parametrize(("line", "reason"), MALFORMED)
def test_replay_turns_a_malformed_line_into_an_alert_and_carries_on(
    cfg_path: Path, capsys: pytest.CaptureFixture[str], line: str, reason: str
) -> None:
    lines = [ev(type="shoe.new"), *ROUND_1[:6], line, *ROUND_1[6:]]
    messages = replay(cfg_path, lines, capsys)
    alerts = [m["payload"] for m in messages if m["topic"] == BASE + "/alert"]
    assert len(alerts) == 1
    assert alerts[0]["kind"] == "invalid-input"
    assert reason in alerts[0]["reason"]
    assert alerts[0]["raw"] == raw_of(line)
    results = [m["payload"] for m in messages if m["topic"] == BASE + "/round/result"]
    assert [r["outcome"]["player"]["cards"] for r in results] == [["9h", "Kc"]]


def test_replay_refuses_a_card_the_shoe_cannot_hold_with_an_alert(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = ev(type="shoe.card", card="JKR")
    messages = replay(cfg_path, [ev(type="shoe.new"), *ROUND_1[:5], bad, *ROUND_1[5:]], capsys)
    alerts = [m["payload"] for m in messages if m["topic"] == BASE + "/alert"]
    assert [(a["kind"], a["reason"]) for a in alerts] == [
        ("rejected", "JKR is not in a standard-52 deck")
    ]
    assert sum(m["topic"] == BASE + "/round/result" for m in messages) == 1


def test_replay_turns_a_line_of_invalid_utf8_into_an_alert(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = cfg_path.parent / "events.jsonl"
    events.write_bytes(b'{"type":"shoe.new"}\n\xff\xfe not text\n{"type":"shoe.new"}\n')
    code, out, _ = run(["replay", "--config", str(cfg_path), str(events)], capsys)
    assert code == 0
    messages = [json.loads(line) for line in out.splitlines()]
    alerts = [m["payload"] for m in messages if m["topic"] == BASE + "/alert"]
    assert [a["kind"] for a in alerts] == ["invalid-input"]


def test_replay_turns_a_deeply_nested_line_into_an_alert(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    messages = replay(cfg_path, [ev(type="shoe.new"), "[" * 100_000], capsys)
    assert messages[-1]["topic"] == BASE + "/alert"


# -- export: the journal reproduces itself through replay -------------------------------------


def test_export_replayed_reproduces_the_journals_outbox_exactly(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs: list[Input] = [
        ("driver/shoe", {"type": "shoe.new"}, None, None),
        ("cmd/bank", {"type": "bank", "seat": 4, "amount": "500"}, "b-1", None),
        ("cmd/wager", {"type": "wager", "seat": 1, "spot": "player", "amount": "25"}, "w-1", None),
        # the same command redelivered: refused as a duplicate request id
        ("cmd/wager", {"type": "wager", "seat": 1, "spot": "player", "amount": "25"}, "w-1", None),
        ("cmd/wager", {"type": "wager", "seat": 2, "spot": "tie", "amount": "1"}, "w-2", None),
        ("cmd/bank", "{not json", None, "payload is not JSON: Expecting property name"),
        ("cmd/wager", {"type": "wager", "seat": 3, "spot": "banker", "amount": 7.5}, "w-3", None),
        (
            "driver/shoe",
            {"type": "device.status", "device": "shoe", "available": False, "fault": "timeout"},
            None,
            None,
        ),
        (
            "driver/shoe",
            {"type": "device.status", "device": "shoe", "available": True, "detail": {"fw": "2"}},
            None,
            None,
        ),
        *shoe_inputs(ROUND_1[4:]),
        *shoe_inputs(ROUND_2),
        ("driver/shoe", {"type": "shoe.card", "card": "Zz"}, None, None),
        *shoe_inputs(ROUND_3),
    ]
    journal_path = ingest(cfg_path, inputs)

    code, exported, err = run(["export", "--config", str(cfg_path)], capsys)
    assert (code, err) == (0, "")
    assert len(exported.splitlines()) == len(inputs)
    events = cfg_path.parent / "exported.jsonl"
    events.write_text(exported, encoding="utf-8")
    code, replayed, err = run(["replay", "--config", str(cfg_path), str(events)], capsys)
    assert (code, err) == (0, "")

    journal = Journal(journal_path, table=None)
    try:
        stored = journal.outbox()
    finally:
        journal.close()
    assert replayed == "".join(wire(r) + "\n" for r in stored)
    topics = {r.topic.removeprefix(BASE + "/") for r in stored}
    assert {"round/result", "alert", "cmd/wager/reply", "device/shoe/status"} <= topics


def test_export_prints_each_record_with_its_ts_source_and_ref(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(
        cfg_path,
        [
            ("driver/shoe", {"type": "shoe.new"}, None, None),
            ("cmd/bank", {"type": "bank", "seat": 4, "amount": "500"}, "b-1", None),
        ],
    )
    code, out, _ = run(["export", "--config", str(cfg_path)], capsys)
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    journal = Journal(cfg_path.parent / "bac-01.db", table=None, readonly=True)
    try:
        hashes = [rec.hash for rec in journal.records()]
    finally:
        journal.close()
    # ... and each record's chain head, which replay publishes as the daemon did
    assert list(first) == ["type", "ts", "source", "chain"]
    assert first["source"] == "driver/shoe"
    assert first["chain"] == {"seq": 1, "hash": hashes[0], "key": None}
    assert second == {
        "type": "bank",
        "seat": 4,
        "amount": "500.00",
        "ts": second["ts"],
        "source": "cmd/bank",
        "ref": "b-1",
        "chain": {"seq": 2, "hash": hashes[1], "key": None},
    }


# -- recall ---------------------------------------------------------------------------------


def recall_blocks(out: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("Round "):
            blocks.append([line])
        else:
            assert blocks, f"text before the first round: {line!r}"
            blocks[-1].append(line)
    return blocks


def field(block: list[str], label: str) -> str:
    (line,) = [ln for ln in block if ln.strip().startswith(label)]
    return line.strip().removeprefix(label).strip()


def settlement_rows(block: list[str]) -> list[list[str]]:
    return [ln.split() for ln in block if ln.strip().startswith("seat ")]


def test_recall_shows_the_last_n_finished_rounds_with_cards_wagers_settlements_and_fees(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs(SESSION))
    code, out, err = run(["recall", "--config", str(cfg_path), "--last", "2"], capsys)
    assert (code, err) == (0, "")
    blocks = recall_blocks(out)
    assert [b[0].split()[1] for b in blocks] == ["2", "3"]
    two, three = blocks

    assert field(two, "dealt:") == "P 2h, B 3d, P 4c, B 2s, B 7c"
    assert "player wins 6-2" in two[1]
    assert field(two, "bank:").startswith("seat 4 300.00 -> 360.00 (turn 2)")
    assert settlement_rows(two) == [
        ["seat", "2", "p2", "player", "40.00", "win", "40.00"],
        ["seat", "1", "p1", "banker", "100.00", "lose", "-100.00"],
    ]
    assert field(two, "fee:") == "player-dealer seat 4 1.00 (schedule 3)"

    assert field(three, "dealt:") == "P 5h, B Kd, P Kh, B 7s, P 3c"
    assert "player wins 8-7" in three[1]
    assert "panda8" in three[1]
    assert settlement_rows(three) == [
        ["seat", "1", "p1", "player", "50.00", "win", "50.00"],
        ["seat", "3", "p3", "banker", "20.00", "lose", "-20.00"],
        ["seat", "1", "p1", "panda8", "10.00", "win", "250.00"],
    ]
    assert field(three, "fee:") == "player-dealer seat 5 1.00 (schedule 3)"


def test_recall_by_default_shows_every_finished_round_but_not_the_one_in_progress(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs(SESSION))
    code, out, _ = run(["recall", "--config", str(cfg_path)], capsys)
    assert code == 0
    blocks = recall_blocks(out)
    assert [b[0].split()[1] for b in blocks] == ["1", "2", "3"]
    assert field(blocks[0], "dealt:") == "P 9h, B 2d, P Kc, B 5s"
    assert settlement_rows(blocks[0]) == [
        ["seat", "1", "p1", "player", "25.00", "win", "25.00"],
        ["seat", "2", "p2", "banker", "25.50", "lose", "-25.50"],
        ["seat", "3", "p3", "tie", "5.00", "lose", "-5.00"],
    ]


def test_recall_round_shows_only_that_round(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs(SESSION))
    code, out, _ = run(["recall", "--config", str(cfg_path), "--round", "1"], capsys)
    assert code == 0
    (block,) = recall_blocks(out)
    assert block[0].startswith("Round 1  (shoe 1, finished ")
    assert "player wins 9-7  [natural]" in block[1]
    assert field(block, "dealt:") == "P 9h, B 2d, P Kc, B 5s"


def test_recall_json_gives_the_round_result_payloads_with_every_card_in_dealt_order(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs(SESSION))
    code, out, _ = run(["recall", "--config", str(cfg_path), "--json", "--round", "2"], capsys)
    assert code == 0
    (payload,) = (json.loads(line) for line in out.splitlines())
    assert payload["round"] == 2
    assert [(d["to"], d["card"]) for d in payload["dealt"]] == [
        ("player", "2h"),
        ("banker", "3d"),
        ("player", "4c"),
        ("banker", "2s"),
        ("banker", "7c"),
    ]
    assert payload["bank"] == {"seat": 4, "start": "300.00", "end": "360.00", "turn": 2}
    assert payload["fees"][0]["amount"] == "1.00"


def test_recall_lists_every_journaled_card_input_with_burns_but_not_refused_ones(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before round 1: a refused card (no bank yet) and a burn.
    session = [
        ev(type="shoe.new"),
        ev(type="shoe.card", card="Ad"),  # refused: no bank posted (R1), so not the round's
        ev(type="shoe.burn", card="8d"),  # burned face down: no topic shows it, recall does
        *ROUND_1,
    ]
    ingest(cfg_path, shoe_inputs(session))
    code, out, _ = run(["recall", "--config", str(cfg_path), "--round", "1"], capsys)
    assert code == 0
    (block,) = recall_blocks(out)
    journal = [ln.strip().split(" ", 2)[2] for ln in block if ln.strip().startswith("journal:")]
    assert journal == [
        "shoe.burn 8d",
        "shoe.card 9h",
        "shoe.card 2d",
        "shoe.card Kc",
        "shoe.card 5s",
    ]
    code, out, _ = run(["recall", "--config", str(cfg_path), "--json"], capsys)
    (payload,) = (json.loads(line) for line in out.splitlines())
    assert [(j["seq"], j["type"]) for j in payload["journal"]][:2] == [
        (3, "shoe.burn"),
        (9, "shoe.card"),
    ]


def test_recall_shows_a_voided_round_as_void(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs([*ROUND_1[:5], ev(type="round.void", reason="misdeal")]))
    code, out, _ = run(["recall", "--config", str(cfg_path)], capsys)
    assert code == 0
    (block,) = recall_blocks(out)
    assert block[1] == "  void: misdeal (every wager returned)"
    assert all(row[5] == "returned" for row in settlement_rows(block))


def test_recall_of_an_unknown_round_exits_1_saying_so(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(cfg_path, shoe_inputs(SESSION))
    code, out, err = run(["recall", "--config", str(cfg_path), "--round", "4"], capsys)
    assert (code, out) == (1, "")
    assert "round 4 is not in the journal" in err


def test_recall_without_a_journal_exits_2_naming_the_path(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["recall", "--config", str(cfg_path)], capsys)
    assert code == 2
    assert f"no journal at {cfg_path.parent / 'bac-01.db'}" in err


# -- verify-journal ---------------------------------------------------------------------------


def test_verify_journal_exits_0_on_an_intact_journal(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ingest(cfg_path, shoe_inputs(SESSION))
    code, out, err = run(["verify-journal", "--journal", str(path)], capsys)
    assert (code, err) == (0, "")
    assert out == (
        f"{path}: ok: {len(SESSION)} records, chain intact\n"
        f"{path}: note: no key given: only the public SHA-256 chain was checked, which whoever "
        "edits the file can recompute; check with the table's key (--key, or key_file in the "
        "config) or against published heads (--against)\n"
    )
    assert run(["verify-journal", "--config", str(cfg_path)], capsys)[0] == 0


def test_verify_journal_exits_1_naming_the_altered_record(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ingest(cfg_path, shoe_inputs(SESSION))
    db = sqlite3.connect(path)
    try:  # the player's second card of round 1 becomes a 9: a natural nobody dealt
        db.execute("""UPDATE journal SET body = '{"type":"shoe.card","card":"9c"}' WHERE seq = 9""")
        db.commit()
    finally:
        db.close()
    code, out, _ = run(["verify-journal", "--journal", str(path)], capsys)
    assert code == 1
    assert out == (
        f"{path}: record 9: contents altered, or it does not follow the record before it "
        "(hash mismatch)\n"
    )


def test_verify_journal_exits_1_naming_where_records_were_removed(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = ingest(cfg_path, shoe_inputs(SESSION))
    db = sqlite3.connect(path)
    try:
        db.execute("DELETE FROM journal WHERE seq = 12")
        db.commit()
    finally:
        db.close()
    code, out, _ = run(["verify-journal", "--journal", str(path)], capsys)
    assert code == 1
    assert f"{path}: record 13: records 12-12 are missing (removed)" in out.splitlines()


def test_verify_journal_refuses_a_file_that_is_not_a_journal_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.db"
    path.write_text("just text\n" * 100)
    code, _, err = run(["verify-journal", "--journal", str(path)], capsys)
    assert code == 2
    assert "not a tablectl journal" in err
    code, _, err = run(["verify-journal", "--journal", str(tmp_path / "none.db")], capsys)
    assert code == 2
    assert "no journal at" in err


# -- analyze --------------------------------------------------------------------------------


def test_analyze_tie_on_eight_decks_is_exact(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", "--game", "ez-baccarat-panda8", "--wager", "tie", "--decks", "8", "--json"]
    code, out, err = run(argv, capsys)
    assert (code, err) == (0, "")
    result = json.loads(out)
    assert result["hit_frequency"] == pytest.approx(0.095156, abs=5e-7)
    assert result["house_edge"] == pytest.approx(0.1436, abs=5e-5)
    assert result["method"] == "exact"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--wager", "ties", "--decks", "8"], "'ties' is not an EZ Baccarat Panda 8 wager"),
        (["--wager", "buster", "--decks", "8"], "'buster' is not an EZ Baccarat Panda 8 wager"),
        (["--wager", "tie", "--decks", "2"], "3 to 8 decks, not 2"),
        (["--wager", "tie", "--decks", "9"], "3 to 8 decks, not 9"),
    ],
    ids=["unknown wager", "another game's wager", "2 decks", "9 decks"],
)
def test_analyze_refuses_an_unknown_wager_or_deck_count_with_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(["analyze", "--game", "ez-baccarat-panda8", *argv, "--json"], capsys)
    assert (code, out) == (2, "")
    assert message in err


def test_analyze_refuses_an_unknown_game_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["analyze", "--game", "ez-bacarat", "--wager", "tie", "--json"], capsys)
    assert (code, out) == (2, "")
    assert "'ez-bacarat'" in err


@pytest.mark.parametrize(
    ("game", "wager"),
    [
        ("three-card-poker-6cb", "pair-plus"),
        ("fortune-pai-gow", "fortune"),
        ("ultimate-texas-holdem", "trips"),
    ],
)
def test_analyze_refuses_decks_for_a_one_deck_game_with_exit_2(
    capsys: pytest.CaptureFixture[str], game: str, wager: str
) -> None:
    # Three Card Poker and Ultimate deal each round from one 52-card deck (004 "Three Card Poker 6
    # Card Bonus: Description of the Deck and Number of Decks Used", "Ultimate Texas Hold'em:
    # Description of the Deck and Number of Decks Used"), Fortune Pai Gow from one 53-card deck (003
    # "Fortune Pai Gow Poker: Description of the Deck and Number of Decks Used"): a deck count would
    # be ignored.
    code, out, err = run(["analyze", "--game", game, "--wager", wager, "--decks", "6"], capsys)
    assert (code, out) == (2, "")
    assert "--decks does not apply" in err


def test_run_with_an_unreadable_mqtt_password_file_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped configs name a password file; a table started before it exists gets a line
    saying which key and which file, not a traceback, and nothing is journaled."""
    from tests.helpers import write_config

    path = write_config(
        tmp_path, mqtt={"username": "table-room-t1", "password_file": "missing-password"}
    )
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "mqtt.password_file" in err and "missing-password" in err
    assert "Traceback" not in err
    journal = Journal(tmp_path / "journal.db", table="t1")
    assert list(journal.records()) == []
    journal.close()


def test_a_file_or_number_that_cannot_be_used_is_refused_in_one_line(
    cfg_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a technician mistypes: an events file that is not there or is a folder, an archive
    folder that is not there (read as if empty, it let verify-journal say ok without reading the
    archive), a journal given to replay (a flood of "not JSON" alerts), PHH asked of a baccarat
    table (printed nothing), -1 rounds or 0 decks (recall printed every round as its 0 does,
    analyze quietly took the game's own decks). Each: exit 2 and a line naming it, never a
    traceback."""
    ingest(cfg_path, [("console", {"type": "bank", "seat": 1, "amount": "500"}, None, None)])
    missing = cfg_path.parent / "nothing.jsonl"
    for events in (missing, cfg_path.parent):
        code, out, err = run(["replay", "--config", str(cfg_path), str(events)], capsys)
        assert (code, out) == (2, "")
        assert err.startswith(f"tablectl: cannot read the events file {events}: ")
    nowhere = cfg_path.parent / "no-such-archive"
    for command in ("verify-journal", "recall", "export", "upgrade-check"):
        code, out, err = run(
            [command, "--config", str(cfg_path), "--archive", str(nowhere)], capsys
        )
        assert code == 2, command
        assert f"the archive folder {nowhere} is not a folder" in err, command
    journal = cfg_path.parent / "bac-01.db"  # the journal where its export was meant
    code, out, err = run(["replay", "--config", str(cfg_path), str(journal)], capsys)
    assert (code, out) == (2, "")
    assert "is an SQLite file (a journal?), not JSON lines" in err
    code, out, err = run(["export", "--config", str(cfg_path), "--format", "phh"], capsys)
    assert (code, out) == (2, "")
    assert "--format phh writes the rounds of games that play it; this table plays" in err
    code, out, err = run(["recall", "--config", str(cfg_path)], capsys)  # a bank, no round
    assert (code, out, err) == (0, "", "tablectl: no round has finished in the journal\n")
    code, _, err = run(["recall", "--config", str(cfg_path), "--last", "-1"], capsys)
    assert code == 2 and "-1 is not 0 or more" in err
    argv = ["analyze", "--game", "ez-baccarat-panda8", "--wager", "dragon7", "--decks", "0"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "0 is not a positive number" in err
