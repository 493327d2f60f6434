"""The shipped Ultimate Texas Hold'em configs pass `tablectl check-config` (contract 4) and play.

config/ultimate-texas-holdem-003.toml is document 003's table (six places, line 3455; Blind, Trips
and Bad Beat); config/ultimate-texas-holdem-004.toml is document 004's (seven places, line 983;
Trips only, line 947).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, bank, feed, payload, wager

from tablectl.cli import main
from tablectl.config import ConfigError, load_config, parse_config
from tablectl.table import Table

CONFIGS = [REPO / "config" / "ultimate-texas-holdem-003.toml"]
CONFIGS += [REPO / "config" / "ultimate-texas-holdem-004.toml"]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_passes_check_config_contract4(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", str(path)]) == 0
    assert "ok: ultimate-texas-holdem" in capsys.readouterr().out


def test_003_table_has_six_places_and_the_bad_beat_003_3455() -> None:
    cfg = load_config(CONFIGS[0])
    assert cfg.table.seats.count == 6
    assert cfg.rules.game.id == "ultimate-texas-holdem"
    assert getattr(cfg.rules.game, "bad_beat_table", None) == "BADBEAT-003"


def test_004_table_has_seven_places_and_no_bad_beat_004_983_947() -> None:
    cfg = load_config(CONFIGS[1])
    assert cfg.table.seats.count == 7
    assert getattr(cfg.rules.game, "bad_beat_table", "missing") is None


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_plays_a_round_R35(path: Path, tmp_path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["journal"]["path"] = str(tmp_path / "journal.db")
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    table = Table(parse_config(data, tmp_path / "table.toml"))
    # seat 1 As Ad = pair of aces beats the player-dealer's Qh Qs (pair of queens) on
    # Kc 7h 4d 9s 2c: Ante 10 and Play 40 win 1 to 1, the Blind pushes (003 line 3541).
    events: list[dict[str, Any]] = [
        bank(4, "1000"),
        wager(1, "ante", "10"),
        wager(1, "blind", "10"),
        {"type": "shuffler.stack", "cards": ["As", "Ad"]},
        {"type": "shuffler.stack", "cards": ["Qh", "Qs"]},
        {"type": "shuffler.stack", "cards": ["Kc", "7h", "4d", "9s", "2c"]},
        {"type": "decision", "seat": 1, "action": "bet", "multiple": 4},
    ]
    rows = [row for ev in events for row in feed(table, ev)]
    (result,) = [payload(r) for r in rows if r.topic.endswith("/round/result")]
    assert [(s["spot"], s["status"], s["net"]) for s in result["settlements"]] == [
        ("ante", "win", "10.00"),
        ("play", "win", "40.00"),
        ("blind", "push", "0.00"),
    ]


def _game(path: Path, **game: Any) -> dict[str, Any]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["game"].update(game)
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    return data


def test_more_than_seven_places_is_refused_004_983(tmp_path: Path) -> None:
    data = _game(CONFIGS[0])
    data["seats"]["count"] = 8
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert [p.key for p in exc.value.problems] == ["seats.count"]


def test_unknown_pay_table_and_deal_start_are_refused(tmp_path: Path) -> None:
    data = _game(CONFIGS[0], bad_beat_table="BADBEAT-999", deal_from="the-middle")
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert {p.key for p in exc.value.problems} == {"game.deal_from"}
    data = _game(CONFIGS[0], bad_beat_table="BADBEAT-999")
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert [p.key for p in exc.value.problems] == ["game.bad_beat_table"]
