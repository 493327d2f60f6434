"""A game is one unit: every registered game's GameSpec is whole, found through
the registry (the built-in table and the `tablectl.games` entry-point group), and a spec that is
not whole fails when it is loaded, never at a table."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest

from tablectl.config import GAME_IDS, load_config
from tablectl.games import registry
from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec, SpecError, check_parts, check_spec


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """The registry's caches emptied before and after (entry points are read once)."""
    registry.available.cache_clear()
    registry.spec_of.cache_clear()
    yield
    registry.available.cache_clear()
    registry.spec_of.cache_clear()


@pytest.mark.parametrize("game_id", list(registry.builtin()))
def test_every_builtin_game_has_a_whole_spec_contract4(game_id: str) -> None:
    spec = registry.spec_of(game_id)
    assert game_id in spec.ids
    assert registry.spots_of(game_id) == spec.spots.get(game_id, ())
    assert bool(registry.spots_of(game_id)) == (spec.kind == "banked")  # poker has no spots
    check_parts(spec, registry.builtin()[game_id])  # engine and analyzer import and are whole


def test_every_registered_game_has_a_shipped_config_that_loads_as_that_game() -> None:
    """The config validates a `[game]` section with the game's own model, found through the
    registry: each shipped example config loads as its game's model, and together they cover
    every registered game (and no other)."""
    models = registry.settings_models()
    loaded = {}
    for path in sorted((Path(__file__).parents[1] / "config").glob("*.toml")):
        game = load_config(path).table.game
        assert type(game) is models[game.id], path.name
        loaded[game.id] = path.name
    assert set(loaded) == set(GAME_IDS) == set(models)


def test_an_unknown_game_id_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown game id 'no-such-game'; known: ez-baccarat"):
        registry.spec_of("no-such-game")


class _ToyGame(GameSettings):
    id: Literal["toy-game"]


class _Misnamed(GameSettings):
    id: Literal["other-game"]


class _BadPaytable(GameSettings):
    PAYTABLES = {"toy_table": ("toy.toml", "toy")}  # noqa: RUF012 (a ClassVar of the base)
    id: Literal["toy-game"]


def _spec(settings: type[GameSettings]) -> GameSpec:
    return GameSpec(
        title="Toy",
        settings={"toy-game": settings},
        engine="tablectl.games.baccarat.engine:BaccaratEngine",
        spots={"toy-game": ("toy",)},
    )


def test_a_spec_whose_settings_name_another_id_fails_at_load() -> None:
    with pytest.raises(SpecError, match=r'_Misnamed.id must be Literal\["toy-game"\]'):
        check_spec(_spec(_Misnamed), "toy-game", "toy:SPEC")


def test_a_pay_table_option_the_settings_lack_fails_at_load() -> None:
    with pytest.raises(SpecError, match="PAYTABLES names no option 'toy_table'"):
        check_spec(_spec(_BadPaytable), "toy-game", "toy:SPEC")


def test_something_else_than_a_spec_fails_at_load() -> None:
    with pytest.raises(SpecError, match="is not a GameSpec"):
        check_spec(object(), "toy-game", "toy:SPEC")


@pytest.mark.parametrize(
    ("roles", "why"),
    [
        ([{"role": "the cards", "drivers": ("shoe",)}], "device_roles must be a tuple"),
        (("the cards",), r"device_roles\[0\] is not a DeviceRole"),
        (({"role": "the cards", "drivers": ()},), "needs a role and at least one driver"),
        (({"role": "the cards", "drivers": ("shoe",), "needs": True},), "has no key 'needs'"),
        (({"role": "the cards", "drivers": ("shoe",), "most": 0},), "most and dice are 1 or more"),
        (({"role": "the cards", "drivers": ("shoe",), "most": True},), "most must be of type int"),
        (({"role": "x", "drivers": ("shoe",), "stack_size": (0,)},), "stack_size must be whole"),
        (
            (
                {"role": "the cards", "drivers": ("shoe",)},
                {"role": "the cards", "drivers": ("line",)},
            ),
            "role 'the cards' is declared twice",
        ),
    ],
)
def test_device_roles_that_are_not_whole_fail_at_load(roles: Any, why: str) -> None:
    """A game's device roles are what check-config holds every device to: checked with the spec."""
    with pytest.raises(SpecError, match=why):
        check_spec(replace(_spec(_ToyGame), device_roles=roles), "toy-game", "toy:SPEC")


def test_every_builtin_game_declares_its_device_roles() -> None:
    """The config reads a game's devices from its spec alone; a built-in game declares them (a
    game that takes none, Chinese Poker's hands set at the console, declares none: ())."""
    for game_id in registry.builtin():
        assert registry.spec_of(game_id).device_roles is not None, game_id


def test_the_config_names_no_game() -> None:
    """What a game needs of a config is in its spec: the config's code names no game id and
    imports no game's package, only the registry and what every game shares."""
    shared = {"registry", "settings", "spec", "table_rules"}
    folder = Path(__file__).parents[1] / "tablectl" / "config"
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not [gid for gid in GAME_IDS if gid in text], path.name
        assert set(re.findall(r"tablectl\.games\.(\w+)", text)) <= shared, path.name


def test_an_engine_lacking_what_the_table_calls_fails_the_conformance_check() -> None:
    spec = GameSpec(
        title="Toy",
        settings={"toy-game": _ToyGame},
        engine="tablectl.games.spec:GameSpec",  # not an engine
        spots={"toy-game": ("toy",)},
    )
    with pytest.raises(SpecError, match="lacks initial, apply, void"):
        check_parts(spec, "toy:SPEC")


TOY_MODULE = """
from typing import Literal
from tablectl.games.settings import GameSettings
from tablectl.games.spec import GameSpec

class ToyGame(GameSettings):
    id: Literal["toy-game"]

SPEC = GameSpec(
    title="Toy",
    settings={"toy-game": ToyGame},
    engine="tablectl.games.baccarat.engine:BaccaratEngine",
    spots={"toy-game": ("toy",)},
)
"""


def test_a_game_installed_by_another_distribution_is_found_by_its_entry_point(
    tmp_path: Path, fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real distribution on sys.path (its .dist-info names the entry point): the registry
    lists its game after the built-in ones and loads its spec only when asked for."""
    (tmp_path / "toy_game_pkg.py").write_text(TOY_MODULE)
    info = tmp_path / "toy_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[tablectl.games]\ntoy-game = toy_game_pkg:SPEC\n"
        "ez-baccarat-panda8 = toy_game_pkg:SPEC\n"  # a built-in id cannot be taken over
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    games = registry.available()
    assert games["toy-game"] == "toy_game_pkg:SPEC"
    assert games["ez-baccarat-panda8"] == registry.builtin()["ez-baccarat-panda8"]
    assert list(games)[-1] == "toy-game"
    assert "toy_game_pkg" not in sys.modules  # lazily: nothing imported yet
    spec = registry.spec_of("toy-game")
    assert spec.title == "Toy" and spec.ids == ("toy-game",)
    monkeypatch.delitem(sys.modules, "toy_game_pkg")
