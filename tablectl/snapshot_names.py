"""The classes a snapshot may hold, each registered under a stable name that the snapshot writes
in place of the class's module (tablectl/snapshot.py).

A class can move to another module with only its line changed (here for the table's own, on its
game's spec, `GameSpec.snapshot_classes`, for a game's): snapshots written before the move still
load. Only a registered class is ever rebuilt from a snapshot. The inputs
(`tablectl_base.events`) are registered under their journaled `type` ("event.shoe.card"), so a
new input needs no line here. tests/table/test_snapshot_names.py walks every game's state and fails
on
a class a snapshot could hold that is not registered, and on a line whose class is not there.
"""

from __future__ import annotations

import functools
import importlib
import typing

from pydantic import BaseModel

from tablectl.games.registry import game_ids, spec_of
from tablectl_base.events import InputEvent

CLASSES: dict[str, str] = {
    # What the table keeps between records (tablectl/table/state.py).
    "alerts.OpenAlert": "tablectl.alerts:OpenAlert",
    "alerts.OpenAlerts": "tablectl.alerts:OpenAlerts",
    "alerts.Pace": "tablectl.alerts:Pace",
    "positions.Gap": "tablectl_base.positions:Gap",
    "positions.Ledger": "tablectl_base.positions:Ledger",
    # What the games share.
    "wagers.PlacedWager": "tablectl.games.common:PlacedWager",
}
"""The framework's own classes: stable name -> where the class lives now ("module:qualname").
Each game registers its own on its spec (`GameSpec.snapshot_classes`): `classes()` has both."""


EVENT_PREFIX = "event."
"""The stable names of the inputs: this, then the input's journaled `type`."""


@functools.cache
def _registered() -> tuple[dict[str, str], tuple[str, ...]]:
    """Every registered class and what could not be registered (see `classes`)."""
    out = dict(CLASSES)
    refused: list[str] = []
    for gid in game_ids():
        for name, path in spec_of(gid).snapshot_classes.items():
            if name.startswith(EVENT_PREFIX):
                refused.append(f"{gid}: {name} is an input's stable name; {path} not registered")
            elif out.setdefault(name, path) != path:
                refused.append(f"{gid}: {name} is already {out[name]}; {path} not registered")
    return out, tuple(refused)


def classes() -> dict[str, str]:
    """Every registered class, stable name -> "module:qualname": the framework's own, then each
    registered game's (`GameSpec.snapshot_classes`, read from the specs, no engine imported).
    A name already taken (by the framework, an input or a game read earlier) stays with its
    first holder: the later class is not registered, so a snapshot holding it is refused and
    the table rebuilt from the journal, never restored into the wrong class. `refused` says
    which, for check-config."""
    return _registered()[0]


def refused() -> tuple[str, ...]:
    """The snapshot classes a game declares that could not be registered, one line each."""
    return _registered()[1]


INPUTS: tuple[type[BaseModel], ...] = typing.get_args(typing.get_args(InputEvent)[0])
"""Every input class (`InputEvent` is the union of them, annotated with its discriminator)."""


@functools.cache
def _events() -> dict[str, type]:
    """Every input class by its stable name."""
    return {f"{EVENT_PREFIX}{cls.model_fields['type'].default}": cls for cls in INPUTS}


@functools.cache
def _names() -> dict[tuple[str, str], str]:
    """Stable names by (module, qualname): found without importing anything."""
    by_place = {(c.__module__, c.__qualname__): name for name, c in _events().items()}
    for name, path in classes().items():
        module, _, qualname = path.partition(":")
        by_place[(module, qualname)] = name
    return by_place


def stable_name(cls: type) -> str | None:
    """The name `cls` is registered under, None when it is not registered."""
    return _names().get((cls.__module__, cls.__qualname__))


def registered_class(name: str) -> type | None:
    """The class registered as `name`, imported now; None when no class is registered so (or
    its line names a class that is not there)."""
    event = _events().get(name)
    if event is not None:
        return event
    path = classes().get(name)
    if path is None:
        return None
    module, _, qualname = path.partition(":")
    try:
        obj: object = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj if isinstance(obj, type) else None
