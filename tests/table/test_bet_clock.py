"""R28's bet timer as the table keeps it: `state` shows `bets_close_at`, the round's first wager's
record time plus `game.bet_timer_seconds`, while betting is open with a wager; derived from the
journal alone, so a replay, a snapshot and the live table agree (docs/rulings.md R28)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablectl import snapshot
from tablectl.game_records import StateChanged
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl.table import Table
from tests.helpers import bank, cards, make_config, payload, payloads, wager
from tests.table.test_alerts_open import Run

TIMER = 45


def states(rows: list[OutboxRow]) -> list[dict[str, Any]]:
    return payloads(rows, "state")


def test_the_first_wager_starts_the_bet_clock_and_a_second_leaves_it_R28(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path, game={"bet_timer_seconds": TIMER}))
    (posted,) = states(run.feed(bank(3, "500")))  # a bank is no wager: no clock yet
    assert "bets_close_at" not in posted
    (first,) = states(run.feed(wager(4, "player", "20")))  # record time 20:00:02
    assert first["ts"] == "2026-11-27T20:00:02.000000Z"
    assert first["bets_close_at"] == "2026-11-27T20:00:47.000000Z"  # 20:00:02 + 45 s
    (second,) = states(run.feed(wager(5, "banker", "20")))  # 20:00:03: the clock runs on
    assert second["bets_close_at"] == "2026-11-27T20:00:47.000000Z"
    (closed,) = states(run.feed({"type": "bets.close"}, source="timer"))
    assert closed["phase"] == "dealing" and "bets_close_at" not in closed


def test_the_next_round_starts_its_own_clock_at_its_own_first_wager_R28(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path, game={"bet_timer_seconds": TIMER}))
    run.round()  # records at 20:00:01 .. 20:00:06
    after = states(run.rows)[-1]
    assert after["round"] == 2 and after["phase"] == "betting" and "bets_close_at" not in after
    run.feed(bank(4, "500"))  # 20:00:07
    (first,) = states(run.feed(wager(5, "tie", "5")))  # 20:00:08
    assert first["round"] == 2 and first["bets_close_at"] == "2026-11-27T20:00:53.000000Z"


def test_a_card_closes_betting_and_the_clock_with_it_R28(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path, game={"bet_timer_seconds": TIMER}))
    run.feed(bank(3, "500"))
    run.feed(wager(4, "player", "20"))
    (dealing,) = states(run.feed(cards("9h")[0], source="device/shoe"))
    assert dealing["phase"] == "dealing" and "bets_close_at" not in dealing


def test_without_a_timer_state_never_has_a_bet_clock(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path))
    run.feed(bank(3, "500"))
    run.feed(wager(4, "player", "20"))
    assert all("bets_close_at" not in s for s in states(run.rows))
    assert run.table.bet_clock is None


def test_a_snapshot_taken_while_the_clock_runs_keeps_it(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, game={"bet_timer_seconds": TIMER})
    run = Run(cfg)
    run.feed(bank(3, "500"))
    run.feed(wager(4, "player", "20"))
    restored = snapshot.restore(cfg, snapshot.encode(run.table))
    assert restored.bet_clock == (1, "2026-11-27T20:00:47.000000Z") == run.table.bet_clock
    assert restored.state_payload() == run.table.state_payload()


def test_a_replay_without_rendering_keeps_the_same_clock(tmp_path: Path) -> None:
    """`advance` (start-up, import) moves the clock exactly as `apply` does."""
    cfg = make_config(tmp_path, game={"bet_timer_seconds": TIMER})
    run = Run(cfg)
    run.feed(bank(3, "500"))
    run.feed(wager(4, "player", "20"))
    replayed = Table(cfg)
    for rec in run.records:
        replayed.advance(rec)
    assert replayed.bet_clock == run.table.bet_clock
    assert replayed.state_payload() == run.table.state_payload()


def test_a_fault_after_the_engine_took_an_input_is_an_engine_error_either_way_R40(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever fails after the engine accepted an input (here the bet clock, made to fail for
    one record) is that input's R40 engine error: the state as before it, the round held. A
    replay that only counts (`advance`, whose short way takes the usual wager) ends exactly
    where the live table does, record by record."""
    cfg = make_config(tmp_path, game={"bet_timer_seconds": TIMER})
    clock = Table._clock_bets

    def failing(self: Table, state: StateChanged, ts: str) -> None:
        if ts == "2026-11-27T20:00:02.000000Z":
            raise ValueError("the clock broke")
        clock(self, state, ts)

    monkeypatch.setattr(Table, "_clock_bets", failing)
    live, quiet = Table(cfg), Table(cfg)
    bodies = [("cmd/bank", bank(3, "500")), ("cmd/wager", wager(4, "player", "20"))]
    kinds = []
    for seq, (source, body) in enumerate(bodies, start=1):
        rec = Record(seq, f"2026-11-27T20:00:0{seq}.000000Z", source, f"r{seq}", body, "", "")
        kinds.append([payload(r)["kind"] for r in live.apply(rec) if r.topic.endswith("/alert")])
        quiet.advance(rec)
        assert (quiet.seq, quiet.state, quiet.held) == (live.seq, live.state, live.held)
        assert quiet.bet_clock == live.bet_clock
    assert kinds == [[], ["engine-error", "round-held"]]
    assert live.state.wagers == () and live.held is not None  # the wager never stood
