"""The layers (issue 11 item 4): the pure core loads no MQTT, serial or USB module, and the game
rules no SQLite or asyncio either, checked in a fresh interpreter so nothing else already
imported hides a leak."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

IO = ("aiomqtt", "paho", "serial", "serial_asyncio_fast", "usb", "tablectl_drivers")
STORAGE_AND_LOOP = ("sqlite3", "_sqlite3", "asyncio")

_LOADED = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    for found in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
        importlib.import_module(found.name)
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def top_level_modules_after_importing(*names: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", _LOADED, *names], capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout))


def test_the_table_core_loads_no_mqtt_serial_or_usb_module() -> None:
    loaded = top_level_modules_after_importing("tablectl.table", "tablectl.snapshot")
    assert loaded.isdisjoint(IO), sorted(loaded & set(IO))


@pytest.mark.parametrize("package", ["tablectl.games", "tablectl.rules"])
def test_the_game_rules_load_no_io_storage_or_event_loop(package: str) -> None:
    loaded = top_level_modules_after_importing(package)
    forbidden = set(IO) | set(STORAGE_AND_LOOP)
    assert loaded.isdisjoint(forbidden), sorted(loaded & forbidden)


def test_the_leaf_package_loads_neither_tablectl_nor_its_drivers() -> None:
    """tablectl_base (cards, money, events, positions, backoff) is what the core and the drivers
    share: it depends on neither, so neither depends on the other through it."""
    loaded = top_level_modules_after_importing("tablectl_base")
    assert loaded.isdisjoint({"tablectl", "tablectl_drivers"}), sorted(
        loaded & {"tablectl", "tablectl_drivers"}
    )


def test_the_drivers_load_the_leaf_package_but_not_the_core() -> None:
    """Every driver, the simulators and the registry: tablectl_base, never tablectl."""
    loaded = top_level_modules_after_importing("tablectl_drivers")
    assert "tablectl" not in loaded, "a driver imports the core; share through tablectl_base"
    assert "tablectl_base" in loaded


def test_the_table_core_loads_no_sqlite() -> None:
    """The table and its snapshots take records, snapshots and record times from
    tablectl/records.py; the journal's SQLite store is the daemon's and the commands' to open."""
    loaded = top_level_modules_after_importing("tablectl.table", "tablectl.snapshot")
    sqlite = {"sqlite3", "_sqlite3"}
    assert loaded.isdisjoint(sqlite), sorted(loaded & sqlite)


_TABLECTL_LOADED = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "tablectl")))
"""


def test_records_is_a_leaf() -> None:
    """tablectl/records.py (a record, a snapshot, what a check found, the record time form) loads
    no storage, event loop or broker client, and no tablectl module but itself."""
    loaded = top_level_modules_after_importing("tablectl.records")
    forbidden = set(IO) | set(STORAGE_AND_LOOP)
    assert loaded.isdisjoint(forbidden), sorted(loaded & forbidden)
    out = subprocess.run(
        [sys.executable, "-c", _TABLECTL_LOADED, "tablectl.records"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == ["tablectl", "tablectl.records"]


GAMES_DIR = Path(__file__).resolve().parents[1] / "tablectl" / "games"


def _imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, at module level or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_games_name_their_analyzers_by_string_and_never_import_the_analysis() -> None:
    """The analysis adapters live in tablectl/analysis/ (which imports the engines to play
    them); a GameSpec names its analyzer as a "module:name" string, imported only when used, so
    no module of tablectl/games/ imports tablectl.analysis, not even inside a function."""
    from tablectl.games.registry import game_ids, spec_of

    for path in sorted(GAMES_DIR.rglob("*.py")):
        leaks = {m for m in _imported_modules(path) if m.startswith("tablectl.analysis")}
        assert not leaks, f"{path.relative_to(GAMES_DIR.parent)} imports {sorted(leaks)}"
    for game_id in game_ids():
        analyzer = spec_of(game_id).analyzer
        assert analyzer is None or analyzer.startswith("tablectl.analysis."), (game_id, analyzer)


def test_baccarats_eztrak_statistics_live_in_its_package() -> None:
    """R28's EZTRAK statistics are baccarat's own (tablectl/games/baccarat/eztrak.py): no
    display module outside the game holds them, and no module of tablectl outside the game's
    package imports them (the table publishes what the engine returns)."""
    root = GAMES_DIR.parent
    assert not (root / "eztrak.py").exists()
    assert (GAMES_DIR / "baccarat" / "eztrak.py").exists()
    for path in sorted(root.rglob("*.py")):
        if (GAMES_DIR / "baccarat") in path.parents:
            continue
        imports = _imported_modules(path)
        assert not any("eztrak" in m for m in imports), path.relative_to(root.parent)
