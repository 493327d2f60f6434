"""`tablectl recall --shoe` (tablectl/surveillance/recall.py): under each round, what the shoe held
when each wager was placed. On a seeded synthetic table imported into a real journal: each wager
of the round is listed with the cards left then, counted by the test from the journal's lines
(416 less every card and burn since the last `shoe.new`), and the figures are the ones the
surveillance feed published after the last card before the wager (`replay --surveillance`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hil.synthetic import baccarat_history
from tablectl.cli import main

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "tests" / "history" / "replay_histories" / "synthetic-baccarat.toml"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    out: str = capsys.readouterr().out
    return out


def test_recall_shoe_lists_each_wager_with_the_shoe_it_was_placed_against(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    text = SOURCE.read_text(encoding="utf-8").replace("{repo}", str(REPO))
    config.write_text(text.replace('path = "journal.db"', f'path = "{tmp_path}/j.db"'), "utf-8")
    assert f'path = "{tmp_path}/j.db"' in config.read_text()
    events = tmp_path / "events.jsonl"
    lines = list(baccarat_history(30, 4, config))
    events.write_text("".join(ln + "\n" for ln in lines), "utf-8")
    run(["import", "--config", str(config), str(events)], capsys)
    records: list[dict[str, Any]] = [json.loads(ln) for ln in lines]  # record seq = line number

    out = run(["recall", "--config", str(config), "--round", "20", "--shoe"], capsys)
    shoe_lines = [ln for ln in out.splitlines() if ln.startswith("    journal #")]
    wagers = [(seq, r) for seq, r in enumerate(records, start=1) if r["type"] == "wager"]
    replayed = [
        json.loads(ln)["payload"]
        for ln in run(
            ["replay", "--surveillance", "--config", str(config), str(events)], capsys
        ).splitlines()
    ]
    odds = [p for p in replayed if "cards_left" in p and "wagers" in p and "kind" not in p]
    round_20 = json.loads(
        run(["recall", "--config", str(config), "--round", "20", "--shoe", "--json"], capsys)
    )
    noted = round_20["shoe_at_wagers"]
    assert len(shoe_lines) == len(noted) > 0
    for line, note in zip(shoe_lines, noted, strict=True):
        seq = note["record"]
        body = records[seq - 1]
        assert body["type"] == "wager" and (seq, body) in wagers
        assert (note["seat"], note["spot"], note["amount"]) == (
            body["seat"],
            body["spot"],
            body["amount"],
        )
        since = max(i for i, r in enumerate(records[:seq], start=1) if r["type"] == "shoe.new")
        dealt = sum(1 for r in records[since : seq - 1] if r["type"] in ("shoe.card", "shoe.burn"))
        assert note["figures"]["cards_left"] == 416 - dealt
        last = max((p for p in odds if p["record"] < seq), key=lambda p: (p["record"], p["part"]))
        assert note["figures"]["wagers"] == {w["wager"]: w["expectation"] for w in last["wagers"]}
        shown = note["figures"]["wagers"][body["spot"]]["value"]
        assert line.startswith(
            f"    journal #{seq} seat {body['seat']} {body['spot']} {body['amount']}: "
        )
        assert f"{416 - dealt} cards left" in line and f"{body['spot']} {shown}" in line
