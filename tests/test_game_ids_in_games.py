"""A game owns its game: no module of tablectl outside tablectl/games/, tablectl/rules/ and
tablectl/analysis/ names a game id (docs/adding-a-game.md): what differs by game is on its
GameSpec (its printers, its analysed wagers) and read from there."""

from __future__ import annotations

import re
from pathlib import Path

from tablectl.games.registry import game_ids

PACKAGE = Path(__file__).resolve().parents[1] / "tablectl"
GAME_OWNED = ("games", "rules", "analysis")
DEMO = PACKAGE / "demo.py"  # `tablectl demo` is an EZ Baccarat table by definition


def test_no_module_outside_the_games_names_a_game_id() -> None:
    ids = "|".join(re.escape(g) for g in game_ids())
    quoted = re.compile(rf"""["'`]({ids})["'`]""")
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        part = path.relative_to(PACKAGE).parts[0]
        if part in GAME_OWNED or path == DEMO:
            continue
        names = sorted(set(quoted.findall(path.read_text(encoding="utf-8"))))
        if names:
            found[str(path.relative_to(PACKAGE.parent))] = names
    assert found == {}
