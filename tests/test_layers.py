"""The layers: the pure core loads no MQTT, serial or USB module, the game rules no SQLite or
asyncio either and never the config, checked in a fresh interpreter so nothing else already
imported hides a leak; no import circle among tablectl's modules or its packages; no module
over 600 lines (one job a module)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

import tablectl

IO = ("aiomqtt", "paho", "serial", "serial_asyncio_fast", "usb", "tablectl_drivers")
STORAGE_AND_LOOP = ("sqlite3", "_sqlite3", "asyncio")

_LOADED = """
import importlib, json, pkgutil, sys
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    for found in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
        importlib.import_module(found.name)
print(json.dumps(sorted(sys.modules)))
"""


def modules_after_importing(*names: str) -> set[str]:
    """Every module loaded once `names` and all their submodules are imported, in a fresh
    interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _LOADED, *names], capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout))


def top_level_modules_after_importing(*names: str) -> set[str]:
    return {m.split(".")[0] for m in modules_after_importing(*names)}


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


def test_the_daemon_and_the_table_load_no_numpy() -> None:
    """numpy is for the exact analyses (docs/dependencies.md): a table's daemon, its core, the
    relay and the drivers never load it, so a table pays no memory or start time for it."""
    loaded = top_level_modules_after_importing(
        "tablectl.daemon", "tablectl.table", "tablectl.relay", "tablectl.cli.app"
    )
    assert "numpy" not in loaded


_PARSER_LOADED = """
import json, sys
from tablectl.cli.app import build_parser
build_parser()  # every command's parser: `analyze`'s names each game's analysed wagers
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_the_command_lines_parser_loads_no_numpy_nor_database_client() -> None:
    """Every `tablectl` command builds the whole parser first (`tablectl run` included), and
    `analyze`'s reads each game's analysed wagers from its analysis module: those modules load
    numpy only when a count runs."""
    out = subprocess.run(
        [sys.executable, "-c", _PARSER_LOADED], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(out.stdout))
    assert loaded.isdisjoint({"numpy", "psycopg"}), sorted(loaded & {"numpy", "psycopg"})


def test_the_daemon_and_the_table_load_no_database_client() -> None:
    """The ledger's PostgreSQL client is the ledger's alone (docs/dependencies.md)."""
    loaded = top_level_modules_after_importing(
        "tablectl.daemon", "tablectl.table", "tablectl.relay", "tablectl.cli.app"
    )
    assert "psycopg" not in loaded


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


@pytest.mark.parametrize("package", ["tablectl.games", "tablectl.rules"])
def test_the_games_and_rules_do_not_import_the_config(package: str) -> None:
    """The games own the rules a table plays under (tablectl/games/table_rules.py) and their
    device roles (`GameSpec.device_roles`); the config (tablectl/config/) fills them from its
    file. A game importing the config would make a circle: the config reads the games."""
    loaded = modules_after_importing(package)
    config = sorted(m for m in loaded if m == "tablectl.config" or m.startswith("tablectl.config."))
    assert not config, config


# The import graph, read from the source (nothing imported): a module's imports at module level,
# those that run when it is imported (in `if`, `try` and `with` blocks too), but not under
# `if TYPE_CHECKING:` and not inside a function or class. A relative import is resolved; `from
# pkg import name` imports the submodule pkg.name when there is one, else pkg itself. Importing
# pkg.sub also runs pkg/__init__.py, which is not counted: a package's __init__ that gathers its
# submodules (tablectl.config's face) is no circle with them.

ROOT = Path(tablectl.__file__).parent


def tablectl_modules() -> dict[str, Path]:
    """Every module of tablectl by its dotted name (a package by its __init__.py)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ["tablectl", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(body: list[ast.stmt], deferred: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when `body` runs (in its `if`, `try`, `with` and class
    blocks too; with `deferred`, inside the functions it defines as well), never those under
    `if TYPE_CHECKING:`."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If) and _type_checking(node.test):
            yield from _imports(node.orelse, deferred)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not deferred:
            continue
        else:
            inner: list[ast.stmt] = []
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    inner.append(child)
                elif isinstance(child, ast.ExceptHandler | ast.match_case):
                    inner.extend(child.body)
            yield from _imports(inner, deferred)


def imported_by(name: str, path: Path, known: Mapping[str, Path], deferred: bool) -> set[str]:
    """The tablectl modules that module `name` (at `path`) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8")).body, deferred):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in known}
            continue
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            anchor = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            if submodule in known:
                out.add(submodule)
            elif base in known:
                out.add(base)
    out.discard(name)
    return out


def import_graph(deferred: bool = False) -> dict[str, set[str]]:
    known = tablectl_modules()
    return {name: imported_by(name, path, known, deferred) for name, path in known.items()}


def package_graph(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The graph between tablectl's packages and top-level modules (tablectl.games,
    tablectl.config, tablectl.table...): a circle here is one between layers, even when no
    module imports itself round the circle (the config read the game registry while the
    engines read the config's `Rules`)."""

    def part(name: str) -> str:
        return ".".join(name.split(".")[:2])

    out: dict[str, set[str]] = {}
    for name, imports in graph.items():
        out.setdefault(part(name), set()).update(part(i) for i in imports if part(i) != part(name))
    return out


def cycles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """Each set of modules that import one another round a circle (Tarjan's strongly connected
    components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.add(member)
                if member == node:
                    break
            if len(members) > 1:
                found.append(frozenset(members))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def circle_through(graph: Mapping[str, set[str]], members: frozenset[str]) -> list[str]:
    """One circle of imports inside `members`, as a path from its first module back to it."""
    start = min(members)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    return sorted(members)


def named_cycles(graph: Mapping[str, set[str]]) -> list[str]:
    """Every circle of `graph`, each as one path round it ("a -> b -> a")."""
    return [" -> ".join(circle_through(graph, members)) for members in cycles(graph)]


def test_the_walker_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert circle_through(graph, frozenset({"a", "b", "c"})) == ["a", "b", "c", "a"]


def test_no_module_imports_itself_round_a_circle() -> None:
    """Module-level imports (those that run at import time) make no circle."""
    assert not named_cycles(import_graph())


def test_no_package_imports_itself_round_a_circle() -> None:
    """Nor do tablectl's packages and top-level modules, taken as units (the layers)."""
    assert not named_cycles(package_graph(import_graph()))


def test_no_circle_closes_through_a_deferred_import() -> None:
    """An import inside a function defers the circle to when it runs; it is one all the same."""
    assert not named_cycles(import_graph(deferred=True))


MOST_LINES = 600


def test_no_module_is_over_600_lines() -> None:
    """A module does one job: one that outgrows 600 lines is doing more than one."""
    long = {
        str(path.relative_to(ROOT)): lines
        for path in ROOT.rglob("*.py")
        if (lines := path.read_bytes().count(b"\n")) > MOST_LINES
    }
    assert not long, sorted(long.items())
