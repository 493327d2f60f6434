"""A journal the daemon cannot read or replay holds the table, never loops.

Each of ten real SQLite journals doctored as hil/journal_faults.py says (a body that is not
JSON, a gap, outputs the replay no longer gives, an import that did not finish, ...) starts a
daemon in this process with its relay on a real Mosquitto and a datagram socket standing in for
systemd: it says READY=1 and feeds the watchdog, publishes the retained `journal/status` with
`fault` and an `alert` of kind `journal-fault` naming the record and the reason, answers a
command `ok: false` without journaling it, reads no device, and leaves the file as it found it.
Before this, each of them failed every start (exit 1 or 2), which systemd's `Restart=` turned
into a loop without a word on MQTT.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from hil.journal_faults import (
    KINDS,
    LAST,
    NO_SNAPSHOT,
    WAGER,
    build,
    edit_the_second_wager,
    rows_kept,
    sql,
)
from hil.journal_faults import ts as record_ts
from tablectl.cli import main
from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon
from tablectl.daemon.inputs import JournalHeld
from tablectl.journal import BadRecord, Journal, JournalError
from tablectl.table import Table
from tests.conftest import MosquittoBroker
from tests.integration.harness import without_shoe, write_config

BASE = "tablectl/it/t1"
TIMEOUT = 10.0


async def until(predicate: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


class Floor:
    """A floor system and a dealer console on the broker: everything under the table's base
    topic, decoded, with its retain flag; and commands sent with an id of their own."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.messages: list[tuple[str, Any, bool]] = []
        self.client = aiomqtt.Client(broker.host, broker.port)
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Floor:
        await asyncio.wait_for(self.client.__aenter__(), 5)
        await self.client.subscribe(f"{BASE}/#", qos=1)
        self._task = asyncio.create_task(self._collect())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        with contextlib.suppress(aiomqtt.MqttError):
            await asyncio.wait_for(self.client.__aexit__(None, None, None), 5)

    async def _collect(self) -> None:
        async for m in self.client.messages:
            payload = bytes(m.payload)
            try:
                decoded: Any = json.loads(payload)
            except ValueError:  # `status` is the bare word online or offline
                decoded = payload.decode()
            self.messages.append((m.topic.value, decoded, m.retain))

    def on(self, suffix: str) -> list[Any]:
        return [p for t, p, _ in self.messages if t == f"{BASE}/{suffix}"]

    def retained(self, suffix: str) -> list[Any]:
        return [p for t, p, r in self.messages if t == f"{BASE}/{suffix}" and r]


@pytest.fixture
async def systemd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AsyncIterator[list[str]]:
    """What systemd would hear, line by line: a datagram socket in $NOTIFY_SOCKET, read all
    along, and a watchdog of 0.4 s (pinged every 0.2 s), as systemd runs the unit."""
    path = tmp_path / "notify"
    said: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
        sock.setblocking(False)
        monkeypatch.setenv("NOTIFY_SOCKET", str(path))
        monkeypatch.setenv("WATCHDOG_USEC", "400000")
        monkeypatch.delenv("WATCHDOG_PID", raising=False)
        loop = asyncio.get_running_loop()

        async def listen() -> None:
            while True:
                said.extend((await loop.sock_recv(sock, 4096)).decode().split("\n"))

        listener = asyncio.create_task(listen())
        try:
            yield said
        finally:
            listener.cancel()
            await asyncio.gather(listener, return_exceptions=True)


def table(tmp_path: Path, port: int, *, shoe: bool = True) -> LoadedConfig:
    """The harness's baccarat table on the broker at `port`, with its shoe on /dev/null (a
    driver that reports the port unusable: an input, if the table ever reads it) or none."""
    path = write_config(tmp_path, shoe_port="/dev/null", mqtt_port=port)
    if not shoe:
        without_shoe(path)
    return load_config(path)


@contextlib.asynccontextmanager
async def running(cfg: LoadedConfig) -> AsyncIterator[Daemon]:
    """A daemon running in this loop, stopped cleanly at the end and checked not to have
    failed (`tablectl run` would have exited 0)."""
    daemon = Daemon(cfg)
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: bool(daemon._tasks), "the daemon started")
        yield daemon
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)
    assert not daemon.failed


@pytest.mark.parametrize("kind", list(KINDS))
async def test_a_journal_it_cannot_replay_starts_the_table_held_naming_the_record_and_why(
    kind: str, tmp_path: Path, mosquitto: MosquittoBroker, systemd: list[str]
) -> None:
    cfg = table(tmp_path, mosquitto.port)
    path = build(cfg)
    KINDS[kind].doctor(path)
    record, says = KINDS[kind].record, KINDS[kind].says
    before = rows_kept(path)
    async with Floor(mosquitto) as floor, running(cfg) as daemon:
        assert daemon.fault is not None
        assert (daemon.fault.record, says in daemon.fault.reason) == (record, True)
        await until(lambda: bool(floor.on("journal/status")), "the status")
        status = floor.on("journal/status")[-1]
        assert status["writable"] is False
        assert status["fault"]["record"] == record and says in status["fault"]["reason"]
        async with Floor(mosquitto) as late:  # retained: a floor that connects later gets it
            await until(lambda: bool(late.retained("journal/status")), "the retained status")
            assert late.retained("journal/status")[-1]["fault"] == status["fault"]
        await until(lambda: bool(floor.on("alert")), "the alert")
        alert = floor.on("alert")[-1]
        assert (alert["kind"], alert["record"], alert["journaled"]) == (
            "journal-fault",
            record,
            False,
        )
        assert says in alert["reason"] and "seq" not in alert
        # A command is refused from memory, naming the fault; a device input is not taken.
        await floor.client.publish(
            f"{BASE}/cmd/bank", json.dumps({"id": "b1", "seat": 3, "amount": "500"}), qos=1
        )
        await until(lambda: bool(floor.on("cmd/bank/reply")), "the reply")
        reply = floor.on("cmd/bank/reply")[-1]
        where = "the journal file" if record is None else f"record {record}"
        assert (reply["id"], reply["ok"], reply["journaled"]) == ("b1", False, False)
        assert f"journal fault at {where}" in reply["reason"] and says in reply["reason"]
        with pytest.raises(JournalHeld, match="not recorded"):
            await daemon.submit("device/shoe", {"type": "shoe.card", "card": "Ah"})
        assert daemon.status_line().startswith(f"JOURNAL FAULT at {where}: ")
        await until(lambda: systemd.count("WATCHDOG=1") >= 2, "the watchdog fed")
        assert "READY=1" in systemd
        assert any(line.startswith(f"STATUS=JOURNAL FAULT at {where}") for line in systemd)
        assert not [t for t in daemon._tasks if t.get_name().startswith("driver ")]
    assert not floor.on("device/shoe/status")  # the shoe was never opened
    assert rows_kept(path) == before  # nothing journaled, applied, snapshotted or rewritten


async def test_a_defect_met_replaying_a_record_holds_the_table_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not R40's case (an input the engine fails on, answered in the table): an error raised
    outside it, here in the replay's own code, holds the table naming the record."""
    real = Table.advance

    def advance(self: Table, rec: Any) -> None:
        if rec.seq == WAGER:
            raise ZeroDivisionError("injected by the test")
        real(self, rec)

    monkeypatch.setattr(Table, "advance", advance)
    cfg = table(tmp_path, 1)
    sql(build(cfg), NO_SNAPSHOT)
    async with running(cfg) as daemon:
        assert daemon.fault is not None and daemon.fault.record == WAGER
        assert "replaying it failed: ZeroDivisionError: injected by the test" in daemon.fault.reason


async def test_a_running_table_whose_journal_stops_reproducing_its_outbox_holds_then_and_after(
    tmp_path: Path,
) -> None:
    """The issue's finding, first start: a wager edited (one the rules now refuse, so the replay
    makes a message fewer), the chain recomputed, no snapshot. The replay of applied
    records only counts messages, so the start runs; the first new input's outputs then meet
    other messages stored under the same seqs. That used to fail the daemon (`task failed`,
    exit 1) and every later start (exit 2); now the table is held at once, naming the record,
    and the next start holds on the same record, never starting play."""
    cfg = table(tmp_path, 1, shoe=False)
    path = build(cfg)
    edit_the_second_wager(path)
    async with running(cfg) as first:
        assert first.fault is None
        # Its input is journaled, not applied, and its sender told so (a command's reply says
        # `journaled: true`, from memory: the daemon's _submit_command).
        with pytest.raises(
            JournalHeld, match=r"journaled, not applied: .*differs from what"
        ) as held:
            await first.submit("console", {"type": "bank", "seat": 4, "amount": "200"})
        assert held.value.journaled is True
        assert first.fault is not None and first.fault.record == LAST + 1
        with pytest.raises(JournalHeld):
            await first.submit("console", {"type": "bets.close"})
    kept = rows_kept(path)
    async with running(cfg) as second:
        assert second.fault is not None and second.fault.record == LAST + 1
        assert "differs from what the journal now produces" in second.fault.reason
    assert rows_kept(path) == kept


@pytest.mark.parametrize(
    ("kind", "verified"),
    [
        ("body-not-json", "record 12: cannot be read: its body is not JSON"),
        ("body-not-an-object", "record 12: cannot be read: its body is JSON but not an object"),
        ("ts-not-text", "record 12: cannot be read: its ts is a BLOB of 27 bytes, not text"),
        ("record-deleted", "record 13: records 12-12 are missing (removed)"),
    ],
)
def test_verify_names_the_record_and_recall_and_export_stop_at_it_with_a_line_saying_why(
    kind: str, verified: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = table(tmp_path, 1)
    KINDS[kind].doctor(build(cfg))
    config = str(cfg.path)
    assert main(["verify-journal", "--config", config]) == 1
    assert verified in capsys.readouterr().out
    stop = f"journal.db: record {WAGER}: {KINDS[kind].says}"
    assert main(["recall", "--config", config]) == 2
    out, err = capsys.readouterr()
    assert (out, "Traceback" in err) == ("", False) and stop in err
    assert main(["export", "--config", config]) == 2
    out, err = capsys.readouterr()
    assert stop in err and "Traceback" not in err
    assert [json.loads(line)["ts"] for line in out.splitlines()] == [
        record_ts(seq) for seq in range(1, WAGER)
    ]


def test_the_reader_names_the_first_record_it_cannot_read_after_yielding_those_before(
    tmp_path: Path,
) -> None:
    cfg = table(tmp_path, 1)
    KINDS["body-not-json"].doctor(build(cfg))
    journal = Journal(cfg.journal_path, table=None, readonly=True)
    seen: list[int] = []
    try:
        with pytest.raises(BadRecord) as caught:
            for rec in journal.records():
                seen.append(rec.seq)
    finally:
        journal.close()
    assert seen == list(range(1, WAGER))
    assert caught.value.seq == WAGER
    assert caught.value.problem.startswith("its body is not JSON: Expecting")


async def test_the_documented_way_out_export_up_to_the_bad_record_import_it_anew_and_play_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/operations.md 'A journal the table cannot replay': the bad file's own export stops
    before the record it cannot read; imported into a new journal (the bad file moved away and
    kept as it was), it makes a table that starts, is not held and takes the next wager."""
    cfg = table(tmp_path, 1, shoe=False)
    KINDS["body-not-json"].doctor(build(cfg))
    evidence = rows_kept(cfg.journal_path)
    assert main(["export", "--config", str(cfg.path)]) == 2
    export, err = capsys.readouterr()
    assert f"record {WAGER}: its body is not JSON" in err
    assert len(export.splitlines()) == WAGER - 1
    (tmp_path / "export.jsonl").write_text(export)
    kept = tmp_path / "bad"
    kept.mkdir()
    for part in ("", "-wal", "-shm"):
        moved = Path(f"{cfg.journal_path}{part}")
        if moved.exists():
            moved.rename(kept / moved.name)
    assert main(["import", "--config", str(cfg.path), str(tmp_path / "export.jsonl")]) == 0
    async with running(cfg) as daemon:
        assert daemon.fault is None
        wager = {"type": "wager", "seat": 1, "spot": "banker", "amount": "5"}
        rec = await daemon.submit("cmd/wager", wager, ref="w1")
        assert rec.seq == WAGER  # the new journal carries on where the good records end
        replies = daemon.journal.outbox(topic_suffix="cmd/wager/reply")
        assert [json.loads(r.payload)["ok"] for r in replies] == [True]
    assert rows_kept(kept / "journal.db") == evidence


def test_a_faults_reason_names_no_card() -> None:
    """The reason is published on the retained journal/status and the alert, which the floor
    reads: a record's text quoted in it may hold a hole card or a burn. (Found in review.)"""
    from tablectl.daemon.journal_fault import JournalFault

    fault = JournalFault.of(JournalError('record 7: its body is not JSON: {"card":"Kh","x'), "t")
    assert "Kh" not in fault.reason and "??" in fault.reason
