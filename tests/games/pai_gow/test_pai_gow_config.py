"""The shipped Fortune Pai Gow Poker configs pass `tablectl check-config` (contract 4), and a table
that is not seven seats is refused (R30,
003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated Players")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, load_config
from tablectl.games.pai_gow.engine import PaiGowEngine
from tablectl.table import Table

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = [
    ROOT / "config" / "fortune-pai-gow-003.toml",
    ROOT / "config" / "fortune-pai-gow-004.toml",
]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_passes_check_config_contract4(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fortune-pai-gow" in out and "7 seats" in out


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_builds_the_engine(path: Path) -> None:
    table = Table(load_config(path))
    assert isinstance(table.engine, PaiGowEngine)
    assert table.engine.between_rounds(table.state)


def test_shipped_configs_use_their_documents_house_way_R31() -> None:
    ways = [load_config(p).table.game for p in CONFIGS]
    assert [getattr(g, "house_way", None) for g in ways] == ["003", "004"]


@pytest.mark.parametrize("count", [6, 8])
def test_seat_count_other_than_seven_is_refused_R30(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count: int
) -> None:
    text = CONFIGS[0].read_text(encoding="utf-8")
    old = "count = 7 "
    assert old in text
    text = text.replace(old, f"count = {count} ", 1)
    text = text.replace('file = "schedules/', f'file = "{ROOT / "config" / "schedules"}/', 1)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["check-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (
        f"{path}: seats.count: Fortune Pai Gow Poker deals seven hands to seven positions "
        '(R30, 003 "Fortune Pai Gow Poker: Description of Table Used and Total Number of Seated '
        'Players"): seats.count must be 7'
    ) in out + err
    with pytest.raises(ConfigError):
        load_config(path)


def test_unknown_house_way_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = CONFIGS[0].read_text(encoding="utf-8").replace('house_way = "003"', 'house_way = "005"')
    text = text.replace('file = "schedules/', f'file = "{ROOT / "config" / "schedules"}/', 1)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["check-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "game.house_way" in out + err
