"""A game owns its game: no module of tablectl outside the game packages (tablectl/games/,
tablectl/rules/, tablectl/analysis/, and tablectl/protection/: the live figures' mathematics per
game, the live sibling of the analysis) names a game (docs/adding-a-game.md). What differs by game
is on its GameSpec or its `[game]` model (GameSettings) and read from there through the
registry, so adding a game touches no framework module.

Named is: a game id, quoted or not; a game package (`tablectl.games.<family>`), imported or in a
string or a path; a game's name in prose (a docstring's or comment's example), which is reworded
to a game-neutral one. An input's journaled `type` (the wire's word for it,
tablectl_base/events.py) is not a game's name, even where it says whose input it is.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

from tablectl.games.registry import game_ids
from tablectl_base.events import InputEvent

PACKAGE = Path(__file__).resolve().parents[1] / "tablectl"
GAME_OWNED = ("games", "rules", "analysis", "protection")
EXCEPTIONS = {
    "tablectl/demo.py": "`tablectl demo` is an EZ Baccarat table by definition",
    "tablectl/cli/demo.py": "`tablectl demo`'s parser: its help says which table it runs",
    "tablectl/cli/check_config.py": (
        "its help's example names a shipped config file, and tests/test_cli_help.py holds the "
        "help byte for byte"
    ),
}
"""Modules allowed to name a game, each with its reason."""

FAMILIES = sorted(p.name for p in (PACKAGE / "games").iterdir() if (p / "spec.py").is_file())
"""The game packages (each with its spec)."""

GAME_NAMES = re.compile(
    r"baccarat|blackjack|pai.gow|ultimate|three.card|hold.?em|omaha|\bstud\b|razz|lowball"
    r"|chinese|pineapple|dealer.?s.choice|option.alley|panda|dragon.?7|21\.5|badugi",
    re.IGNORECASE,
)
"""The games' names as prose writes them."""

INPUT_TYPES = sorted(
    (cls.model_fields["type"].default for cls in typing.get_args(typing.get_args(InputEvent)[0])),
    key=len,
    reverse=True,
)
"""Every input's journaled `type`, longest first."""


def framework_modules() -> list[Path]:
    """Every module of tablectl outside the game packages and the listed exceptions."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in GAME_OWNED
        and str(path.relative_to(PACKAGE.parent)) not in EXCEPTIONS
    ]


def games_named(text: str) -> list[str]:
    """What `text` names of a game: ids, game packages, names in prose."""
    ids = "|".join(re.escape(g) for g in game_ids())
    families = "|".join(FAMILIES)
    found = re.findall(rf"(?<![\w-])(?:{ids})(?![\w-])", text)
    found += re.findall(rf"tablectl[./]games[./](?:{families})\b", text)
    found += re.findall(rf"from tablectl\.games import .*\b(?:{families})\b", text)
    for kind in INPUT_TYPES:
        text = re.sub(rf"(?<![\w.-]){re.escape(kind)}(?![\w-])", "", text)
    found += GAME_NAMES.findall(text)
    return sorted(set(found))


def test_no_module_outside_the_game_packages_names_a_game() -> None:
    named = {}
    for path in framework_modules():
        found = games_named(path.read_text(encoding="utf-8"))
        if found:
            named[str(path.relative_to(PACKAGE.parent))] = found
    assert named == {}


def test_the_check_finds_each_way_of_naming_a_game() -> None:
    assert games_named('GAME = "ez-baccarat-panda8"') != []
    assert games_named("a game id such as chinese-poker in prose") != []
    assert games_named("from tablectl.games.poker.spec import PokerGame") != []
    assert games_named("from tablectl.games import stud") != []
    assert games_named('ENGINE = "tablectl.games.stud.family:STUD"') != []
    assert games_named("see tablectl/games/draw/reader.py") != []
    assert games_named("# a low-only game (Razz) shows its low hand alone") != []
    assert games_named("the verbs chinese.set, option.buy and hole.discard") == []
    assert games_named("a poker room's stakes; draw a card; from tablectl.games import spec") == []


def test_each_exception_still_names_a_game() -> None:
    for name in EXCEPTIONS:
        path = PACKAGE.parent / name
        assert path.is_file(), f"{name} is gone: drop its exception"
        assert games_named(path.read_text(encoding="utf-8")), f"{name} names no game: drop it"
