"""R40: an input that makes an engine fail (anything but a refusal) becomes an `engine-error`
alert, leaves the state as it was and holds the round; the daemon replays that journal on every
restart without crashing (under Restart=always a crash here used to loop for ever)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tablectl import snapshot
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.games.baccarat.engine import BaccaratEngine
from tablectl.journal import Journal
from tablectl.table import Table
from tablectl_base.events import ShoeCard
from tests.helpers import bank, cards, feed, make_config, payloads, play, records, wager
from tests.table.test_rules_change import config

ROUND: list[dict[str, Any]] = [
    {"type": "bank", "seat": 1, "amount": "1000"},
    {"type": "wager", "seat": 2, "spot": "player", "amount": "400"},
    {"type": "bets.close"},
    *({"type": "shoe.card", "card": c} for c in ["9h", "2d"]),
]


@pytest.fixture
def kd_breaks_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug injected into baccarat: applying the card Kd raises (as a real defect would)."""
    real = BaccaratEngine.apply

    def apply(self: BaccaratEngine, state: Any, event: Any, ts: str) -> Any:
        if isinstance(event, ShoeCard) and event.card == "Kd":
            raise ZeroDivisionError("injected by the test")
        return real(self, state, event, ts)

    monkeypatch.setattr(BaccaratEngine, "apply", apply)


def test_an_engine_exception_is_an_alert_and_a_held_round_with_the_state_unchanged_R40(
    tmp_path: Path, kd_breaks_the_engine: None
) -> None:
    table, _ = play(
        make_config(tmp_path), [bank(3, "500"), wager(4, "player", "20"), *cards("9h 2c")]
    )
    before = table.state
    out = feed(table, cards("Kd")[0], source="device/shoe")
    alerts = payloads(out, "alert")
    assert [a["kind"] for a in alerts] == ["engine-error", "round-held"]
    assert alerts[0]["rule"] == "R40"
    assert "ZeroDivisionError" in alerts[0]["reason"]
    assert table.state is before
    assert table.held is not None and "engine error" in table.held
    assert payloads(out, "state")[-1]["held"] == table.held
    # What comes next is kept for the operator, who voids (or resumes) the round.
    out = feed(table, cards("3s")[0], source="device/shoe")
    assert [a["kind"] for a in payloads(out, "alert")] == ["input-held"]
    out = feed(table, {"type": "round.void"}, source="cmd/round.void", ref="v1")
    assert payloads(out, "round/result")[0]["void"] is True


def test_a_state_view_failing_is_an_alert_in_its_place_and_advance_ends_where_apply_does_R40(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view is built only when it is published (a start or an import replays without
    publishing): one that fails to build is published as an R40 engine-error alert
    in its place, one message for one, and the input it follows stands. So `apply` never raises
    out of the daemon's consumer, and a table advanced over the same records without rendering a
    message ends in the same snapshot (state, hold, message count)."""
    real = BaccaratEngine.state_payload

    def broken(self: BaccaratEngine, state: Any) -> dict[str, Any]:
        if any(w.seat == 5 for w in state.wagers):
            raise KeyError("injected by the test")
        return real(self, state)

    monkeypatch.setattr(BaccaratEngine, "state_payload", broken)
    cfg = make_config(tmp_path)
    recs = records(
        [
            bank(3, "500"),
            wager(4, "player", "20"),
            wager(5, "banker", "10"),
            wager(6, "player", "10"),
            {"type": "round.void", "source": "cmd/round.void", "ref": "v1"},
            bank(3, "500"),
        ]
    )
    table = Table(cfg)
    for rec in recs[:2]:
        table.apply(rec)
    seq = table.seq
    out = table.apply(recs[2])
    assert [r.topic.rsplit("/", 1)[-1] for r in out] == ["event", "alert"]
    alerts = payloads(out, "alert")
    assert [a["kind"] for a in alerts] == ["engine-error"]
    assert alerts[0]["rule"] == "R40" and "KeyError" in alerts[0]["reason"]
    assert "the state message after record 3" in alerts[0]["reason"]
    assert not payloads(out, "state")
    assert table.seq == seq + 2  # the echo, and the alert where the state would have been
    assert [(w.seat, w.spot) for w in table.state.wagers] == [(4, "player"), (5, "banker")]
    assert table.held is None
    for rec in recs[3:-1]:
        table.apply(rec)
    assert payloads(table.apply(recs[-1]), "state")  # the void's next round builds again
    quiet = Table(cfg)
    for rec in recs:
        quiet.advance(rec)
    assert snapshot.encode(quiet) == snapshot.encode(table)


def test_a_view_that_cannot_be_written_as_json_is_an_alert_in_its_place_R40(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A view holding something JSON cannot write fails only when the message is encoded: that
    too is R40's engine-error alert in the message's place, with the input standing (it once
    escaped from `apply` after the record's earlier messages had gone to the broker)."""
    real = BaccaratEngine.state_payload

    def unwritable(self: BaccaratEngine, state: Any) -> dict[str, Any]:
        view = real(self, state)
        return {**view, "odd": object()} if any(w.seat == 5 for w in state.wagers) else view

    monkeypatch.setattr(BaccaratEngine, "state_payload", unwritable)
    table = Table(make_config(tmp_path))
    recs = records([bank(3, "500"), wager(4, "player", "20"), wager(5, "banker", "10")])
    for rec in recs[:2]:
        table.apply(rec)
    out = table.apply(recs[2])
    assert [r.topic.rsplit("/", 1)[-1] for r in out] == ["event", "alert"]
    (alert,) = payloads(out, "alert")
    assert alert["kind"] == "engine-error" and alert["rule"] == "R40"
    assert "TypeError" in alert["reason"] and "the state message after record 3" in alert["reason"]
    assert [(w.seat, w.spot) for w in table.state.wagers] == [(4, "player"), (5, "banker")]


def test_a_command_that_breaks_the_engine_is_answered_R40(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = BaccaratEngine.apply

    def broken(self: BaccaratEngine, state: Any, event: Any, ts: str) -> Any:
        if getattr(event, "type", None) == "wager" and event.seat == 5:
            raise KeyError("seat")
        return real(self, state, event, ts)

    monkeypatch.setattr(BaccaratEngine, "apply", broken)
    table, _ = play(make_config(tmp_path), [bank(3, "500"), wager(4, "player", "20")])
    before = table.state
    out = feed(table, wager(5, "banker", "10"), source="cmd/wager", ref="w9")
    reply = payloads(out, "cmd/wager/reply")[0]
    assert reply["ok"] is False and reply["rule"] == "R40"
    assert table.state is before


async def _run(path: Path, inputs: list[dict[str, Any]]) -> Daemon:
    daemon = Daemon(load_config(path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        for data in inputs:
            await daemon.submit("device/shoe", data)
    finally:
        daemon.stop()
        await runner
    return daemon


async def test_the_daemon_restarts_cleanly_on_a_journal_holding_an_engine_error_R40(
    tmp_path: Path, kd_breaks_the_engine: None
) -> None:
    path = config(tmp_path, "500")
    first = await _run(path, [*ROUND, {"type": "shoe.card", "card": "Kd"}])
    assert not first.failed
    journal = Journal(tmp_path / "journal.db", table="t1")
    outbox = journal.outbox()
    journal.close()
    kinds = [json.loads(r.payload).get("kind") for r in outbox if r.topic.endswith("/alert")]
    assert "engine-error" in kinds
    # A restart replays the same record, fails the same way, and carries on held.
    second = await _run(path, [])
    assert not second.failed
    assert second.table.held == first.table.held and second.table.held is not None
    journal = Journal(tmp_path / "journal.db", table="t1")
    assert [(r.seq, r.payload) for r in journal.outbox()][: len(outbox)] == [
        (r.seq, r.payload) for r in outbox
    ]
    journal.close()
