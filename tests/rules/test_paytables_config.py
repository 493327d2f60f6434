"""Where a table's pay tables come from: the shipped ones, or a `paytables` folder beside the
config (a card room with its own approval), checked by check-config and carried in the rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tablectl.config import ConfigError, load_config
from tablectl.rules.paytables import PAYTABLE_DIR

REPO = Path(__file__).resolve().parents[2]


def tcp_config(folder: Path, extra: str = "") -> Path:
    """The shipped 004 Three Card Poker config, copied with its schedule into `folder`."""
    (folder / "schedules").mkdir()
    shutil.copy(REPO / "config/schedules/three-card-poker-6cb-004.toml", folder / "schedules")
    text = (REPO / "config/three-card-poker-6cb-004.toml").read_text()
    path = folder / "table.toml"
    path.write_text(extra + text)
    return path


def test_shipped_pay_tables_by_default_R29(tmp_path: Path) -> None:
    rules = load_config(tcp_config(tmp_path)).rules
    # 004 "Three Card Poker 6 Card Bonus: 6 Card Bonus": TCB-6B2 pays a royal flush 1,000 to 1 and
    # three of a kind 5 to 1
    assert rules.paytable("TCB-6B2").pays["royal-flush"] == 1000
    assert rules.paytable("TCB-6B2").pays["three-of-a-kind"] == 5
    assert (PAYTABLE_DIR / "three-card-poker.toml").is_file()


def test_a_paytables_folder_beside_the_config_is_used(tmp_path: Path) -> None:
    own = tmp_path / "tables"
    own.mkdir()
    text = (PAYTABLE_DIR / "three-card-poker.toml").read_text()
    (own / "three-card-poker.toml").write_text(
        text.replace("three-of-a-kind = 5  # 004:625", "three-of-a-kind = 6  # edited")
    )
    rules = load_config(tcp_config(tmp_path, 'paytables = "tables"\n')).rules
    assert rules.paytable("TCB-6B2").pays["three-of-a-kind"] == 6


def test_a_missing_paytables_folder_is_named_by_check_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(tcp_config(tmp_path, 'paytables = "nowhere"\n'))
    assert any(
        p.key == "game.six_card_bonus_table" and "nowhere" in p.reason for p in err.value.problems
    )


def test_a_player_fee_on_a_spot_the_game_has_not_is_a_problem_R4(tmp_path: Path) -> None:
    """A misspelt spot ("antee") would waive every player fee without a word: refused."""
    path = tcp_config(tmp_path)
    text = path.read_text()
    inline = (
        '[collection]\nschedule = { option = 1, table_min = "5", table_max = "500", '
        'brackets = [{ from = "5", fee = "1" }], player_fee = "1", '
        'player_fee_spots = ["antee"] }\n'
    )
    start = text.index("[collection]")
    end = text.index("[[devices]]")
    path.write_text(text[:start] + inline + "\n" + text[end:])
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert any(p.key == "collection" and "'antee'" in p.reason for p in err.value.problems)
