"""The shipped Three Card Poker 6 Card Bonus configs pass `tablectl check-config` (contract 4) and
say what their documents say: seats, 6 Card Bonus table, action start and wager order (R2, R3,
R29). The config's own deck-colour check (004 line 488) is pinned here too."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_config

from tablectl.cli import main
from tablectl.config import ConfigError, ThreeCardPokerGame, load_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("doc", "seats", "six_card", "action_start", "wager_order"),
    [
        # 000 line 313 seven places; lines 417-424 TCB-6B4; line 324 action button, Play first
        ("000", 7, "TCB-6B4", "action-button", "play-first"),
        # 001 line 13 eight places; lines 142-150 the 001 table; line 97 action button
        ("001", 8, "TCB-001", "action-button", "ante-first"),
        # 003 line 851 eight places; lines 982-989 TCB-6B4; line 935 left of the player-dealer
        ("003", 8, "TCB-6B4", "player-dealer-left", "ante-first"),
        # 004 line 511 seven places; lines 618-627 TCB-6B2; line 526 Ante first
        ("004", 7, "TCB-6B2", "action-button", "ante-first"),
    ],
)
def test_shipped_config_checks_and_follows_its_document_R2_R3_R29(
    capsys: pytest.CaptureFixture[str],
    doc: str,
    seats: int,
    six_card: str,
    action_start: str,
    wager_order: str,
) -> None:
    path = ROOT / "config" / f"three-card-poker-6cb-{doc}.toml"
    assert main(["check-config", str(path)]) == 0, capsys.readouterr()
    assert "ok: three-card-poker-6cb" in capsys.readouterr().out
    cfg = load_config(path)
    game = cfg.table.game
    assert isinstance(game, ThreeCardPokerGame)
    assert cfg.table.seats.count == seats
    assert game.six_card_bonus_table == six_card
    assert game.pair_plus_table == "PP-MR200"
    assert (game.action_start, game.wager_order) == (action_start, wager_order)
    assert cfg.table.collection.file == f"schedules/three-card-poker-6cb-{doc}.toml"
    assert [d.driver for d in cfg.table.devices] == ["shuffler"]


@pytest.mark.parametrize(
    ("colours", "why"),
    [
        (["red", "red"], "different colours"),
        (["Red", "blue"], "lowercase"),
        (["red", ""], "lowercase"),
    ],
)
def test_deck_colours_are_two_different_names_line_488(
    tmp_path: Path, colours: list[str], why: str
) -> None:
    game = {
        "id": "three-card-poker-6cb",
        "decks": None,
        "banker_push_on_dragon7": None,
        "bet_timer_seconds": None,
        "deck_colours": colours,
    }
    with pytest.raises(ConfigError) as err:
        make_config(tmp_path, game=game)
    assert why in str(err.value)
