"""A table's rules may change in its config file; rounds already journaled keep the rules they
were played under (so replay and recall stay true), the new rules start between rounds, and the
outbox never reuses a seq."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main as cli
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.journal import Journal
from tests.integration.harness import without_shoe, write_config


def config(tmp_path: Path, max_limit: str) -> Path:
    path = without_shoe(write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1))
    text = path.read_text()
    text = text.replace('max = "500"', f'max = "{max_limit}"').replace(
        "[mqtt]", "[mqtt]\nenabled = false"
    )
    path.write_text(text)
    return path


async def run_inputs(path: Path, inputs: list[dict[str, Any]]) -> list[str]:
    daemon = Daemon(load_config(path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    alerts: list[str] = []
    daemon.listeners.append(
        lambda rec, rows: alerts.extend(
            json.loads(r.payload)["reason"] for r in rows if r.topic.endswith("/alert")
        )
    )
    try:
        for data in inputs:
            await daemon.submit("console", data)
    finally:
        daemon.stop()
        await runner
    return alerts


ROUND: list[dict[str, Any]] = [
    {"type": "bank", "seat": 1, "amount": "1000"},
    {"type": "wager", "seat": 2, "spot": "player", "amount": "400"},
    {"type": "bets.close"},
    *({"type": "shoe.card", "card": c} for c in ["9h", "2d", "Kc", "3s"]),  # natural 9 vs 5
]


async def test_new_rules_apply_to_new_rounds_and_old_rounds_replay_as_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config(tmp_path, "500")
    assert await run_inputs(path, ROUND) == []
    config(tmp_path, "100")  # the technician lowers the table maximum
    alerts = await run_inputs(path, ROUND[:2])
    assert alerts == ["player wager of 400.00 is above the table maximum 100.00"]

    journal = Journal(tmp_path / "journal.db", table="t1")
    kinds = [r.body["type"] for r in journal.records()]
    outbox = journal.outbox()
    journal.close()
    assert kinds.count("config") == 2  # the rules each round was played under
    assert [r.seq for r in outbox] == list(range(1, len(outbox) + 1))  # no seq reused or lost
    # The first round's result is still there once, under the rules it was played under.
    results = [json.loads(r.payload) for r in outbox if r.topic.endswith("/round/result")]
    assert [(r["round"], r["settlements"][0]["net"]) for r in results] == [(1, "400.00")]
    assert cli(["verify-journal", "--config", str(path)]) == 0


async def test_export_replays_byte_identical_across_a_rules_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config(tmp_path, "500")
    await run_inputs(path, ROUND)
    config(tmp_path, "100")
    await run_inputs(path, ROUND[:2])
    capsys.readouterr()
    assert cli(["export", "--config", str(path)]) == 0
    exported = tmp_path / "events.jsonl"
    exported.write_text(capsys.readouterr().out)
    config(tmp_path, "500")  # replay reads the rules from the journal, not from the file
    assert cli(["replay", "--config", str(path), str(exported)]) == 0
    replayed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    journal = Journal(tmp_path / "journal.db", table="t1")
    stored = [
        {"topic": r.topic, "payload": json.loads(r.payload), "qos": r.qos, "retain": r.retain}
        for r in journal.outbox()
    ]
    journal.close()
    assert replayed == stored


def test_journaled_rules_no_engine_can_play_are_an_alert_not_a_crash_R30(tmp_path: Path) -> None:
    """A `config` record whose rules the game refuses (Fortune Pai Gow on six seats: R30 deals
    seven hands to seven positions) is reported and skipped; the table keeps its rules."""
    from tablectl.table import Table
    from tests.helpers import make_config, play

    cfg = make_config(tmp_path)
    rules = cfg.rules.to_json()
    rules["game"] = {"id": "fortune-pai-gow", "fortune_table": "FORTUNE-003"}
    rules["seats"] = {"count": 6}
    table, rows = play(cfg, [{"type": "config", "rules": rules}])
    (alert,) = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
    assert alert["kind"] == "invalid" and "seats" in alert["reason"]
    assert isinstance(table, Table) and table.rules == cfg.rules


def test_pay_tables_are_journaled_with_the_rules_so_old_rounds_replay_as_paid(
    tmp_path: Path,
) -> None:
    """The rules carry the pay tables they name (here TCB-6B2, 004 "Three Card Poker 6 Card Bonus: 6
    Card Bonus", and PP-MR200), round-trip through the journal's JSON unchanged, and an engine built
    from journaled rules pays by them even if the data file no longer holds the table."""
    from tablectl.games.registry import make_engine
    from tablectl.games.table_rules import Rules
    from tests.helpers import REPO, make_config

    cfg = make_config(
        tmp_path,
        game={
            "id": "three-card-poker-6cb",
            "decks": None,
            "settlement_order": "by-seat",
            "banker_push_on_dragon7": None,
            "bet_timer_seconds": None,
        },
        # 004's one schedule, as TCB-6B2 is 004's (a baccarat schedule is refused)
        collection={
            "file": str(REPO / "config/schedules/three-card-poker-6cb-004.toml"),
            "option": 1,
        },
        manual_entry=True,
    )
    rules = cfg.rules
    assert set(rules.paytables) == {"TCB-6B2", "PP-MR200"}
    assert rules.paytable("TCB-6B2").pays["royal-flush"] == 1000
    again = Rules.model_validate(json.loads(json.dumps(rules.to_json())))
    assert again == rules
    edited = again.model_copy(
        update={
            "paytables": {
                **again.paytables,
                "TCB-6B2": again.paytables["TCB-6B2"].model_copy(
                    update={"pays": {"royal-flush": 1}}
                ),
            }
        }
    )
    engine = make_engine(edited)
    assert engine.six_card_table.pays == {"royal-flush": 1}  # type: ignore[attr-defined]
