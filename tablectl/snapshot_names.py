"""The classes a snapshot may hold, each registered under a stable name that the snapshot writes
in place of the class's module (tablectl/snapshot.py).

A class can move to another module with only its line here changed: snapshots written before
the move still load. Only a class registered here is ever rebuilt from a snapshot. The inputs
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
    # Each game's state and what it holds.
    "baccarat.BaccaratState": "tablectl.games.baccarat.engine:BaccaratState",
    "baccarat.Coup": "tablectl.games.baccarat.eztrak:Coup",
    "blackjack.BlackjackState": "tablectl.games.blackjack.state:BlackjackState",
    "blackjack.Hand": "tablectl.games.blackjack.state:Hand",
    "chinese_poker.ChineseState": "tablectl.games.chinese_poker.engine:ChineseState",
    "chinese_poker.ChineseRound": "tablectl.games.chinese_poker.engine:ChineseRound",
    "chinese_poker.Hand": "tablectl.rules.chinese_poker:Hand",
    "chinese_poker.Setting": "tablectl.rules.chinese_poker:Setting",
    "pai_gow.PaiGowState": "tablectl.games.pai_gow.state:PaiGowState",
    "pai_gow.Setting": "tablectl.games.pai_gow.state:Setting",
    "poker.PokerState": "tablectl.games.poker.state:PokerState",
    "poker.HandState": "tablectl.games.poker.state:HandState",
    "poker.SeatState": "tablectl.games.poker.state:SeatState",
    "poker.Rotation": "tablectl.rules.rotation:Rotation",
    "poker.BettingRound": "tablectl.rules.betting:BettingRound",
    "poker.Player": "tablectl.rules.betting:Player",
    "poker.Action": "tablectl.rules.betting:Action",
    "poker.FixedLimit": "tablectl.rules.betting_structures:FixedLimit",
    "poker.SpreadLimit": "tablectl.rules.betting_structures:SpreadLimit",
    "poker.PotLimit": "tablectl.rules.betting_structures:PotLimit",
    "poker.NoLimit": "tablectl.rules.betting_structures:NoLimit",
    "three_card_poker.ThreeCardPokerState": (
        "tablectl.games.three_card_poker.state:ThreeCardPokerState"
    ),
    "ultimate.UltimateState": "tablectl.games.ultimate.state:UltimateState",
    "ultimate.Stack": "tablectl.games.ultimate.state:Stack",
    "ultimate.Play": "tablectl.games.ultimate.state:Play",
}
"""Stable name -> where the class lives now ("module:qualname")."""

INPUTS: tuple[type[BaseModel], ...] = typing.get_args(typing.get_args(InputEvent)[0])
"""Every input class (`InputEvent` is the union of them, annotated with its discriminator)."""

EVENT_PREFIX = "event."
"""The stable names of the inputs: this, then the input's journaled `type`."""


@functools.cache
def _events() -> dict[str, type]:
    """Every input class by its stable name."""
    return {f"{EVENT_PREFIX}{cls.model_fields['type'].default}": cls for cls in INPUTS}


@functools.cache
def _names() -> dict[tuple[str, str], str]:
    """Stable names by (module, qualname): found without importing anything."""
    by_place = {(c.__module__, c.__qualname__): name for name, c in _events().items()}
    for name, path in CLASSES.items():
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
    path = CLASSES.get(name)
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
