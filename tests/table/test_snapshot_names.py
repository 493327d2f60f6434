"""Snapshots name classes by stable names (tablectl/snapshot_names.py), never by module:
- every class a game's state or the table's own state can hold is registered, and every
  registered name finds its class where the registry says it lives;
- a snapshot's bytes name no module, and a name nobody registered is refused;
- a snapshot of format 4 (classes named `module:qualname`) is not trusted: the table is rebuilt
  from the records, the same table.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import sqlite3
import typing
import zlib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from structlog.testing import capture_logs

from tablectl import snapshot, snapshot_names
from tablectl.alerts import OpenAlerts, Pace
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.state import Input
from tablectl.games.registry import game_ids, spec_of
from tablectl.games.spec import load
from tablectl.table import Table
from tablectl_base.cards import Card
from tablectl_base.events import InputEvent
from tablectl_base.positions import Ledger
from tests.helpers import CLOSE, bank, cards, feed, make_config, wager, write_config


def _holdable(tp: Any, seen: set[type], found: set[type]) -> None:
    """Every tablectl class a value of type `tp` can hold that a snapshot tags by name
    (dataclasses, enums, pydantic models), following dataclass fields and the dataclasses of a
    protocol's module that have its members (a betting structure)."""
    if typing.get_origin(tp) is not None:
        if typing.get_origin(tp) is not typing.Literal:
            for arg in typing.get_args(tp):
                _holdable(arg, seen, found)
        return
    if not isinstance(tp, type) or tp in seen:
        return
    seen.add(tp)
    if not tp.__module__.startswith(("tablectl.", "tablectl_base.")):
        return
    if getattr(tp, "_is_protocol", False):
        members = {n for n in vars(tp) if not n.startswith("_")}
        module = __import__(tp.__module__, fromlist=["*"])
        for obj in vars(module).values():
            structure = isinstance(obj, type) and dataclasses.is_dataclass(obj)
            if structure and obj is not tp and members <= set(dir(obj)):
                _holdable(obj, seen, found)
        return
    if tp is Card:  # a card is written as its name ("$c")
        return
    if issubclass(tp, (enum.Enum, BaseModel)) or dataclasses.is_dataclass(tp):
        found.add(tp)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        for f in dataclasses.fields(tp):
            if f.init:
                _holdable(hints[f.name], seen, found)


def holdable_classes() -> set[type]:
    """What a snapshot can hold: each game's state, the inputs, ledgers, alerts, pace."""
    seen: set[type] = set()
    found: set[type] = set()
    for game in game_ids():
        engine = load(spec_of(game).engine)
        _holdable(typing.get_type_hints(engine.initial)["return"], seen, found)
    for tp in (InputEvent, Ledger, OpenAlerts, Pace):
        _holdable(tp, seen, found)
    return found


def test_every_class_a_snapshot_can_hold_is_registered() -> None:
    found = holdable_classes()
    assert len(found) > 40  # the walk reaches the games' states and the inputs
    missing = sorted(
        f"{c.__module__}:{c.__qualname__}" for c in found if snapshot_names.stable_name(c) is None
    )
    assert missing == [], "register these on their game's spec (or in tablectl/snapshot_names.py)"


@pytest.mark.parametrize("name", sorted(snapshot_names.classes()))
def test_each_registered_name_finds_its_class_where_the_registry_says(name: str) -> None:
    cls = snapshot_names.registered_class(name)
    assert cls is not None, f"{name}: no class at {snapshot_names.classes()[name]}"
    assert f"{cls.__module__}:{cls.__qualname__}" == snapshot_names.classes()[name]
    assert snapshot_names.stable_name(cls) == name
    assert ":" not in name  # (a class nobody registered is written as module:qualname)


def test_each_input_is_registered_under_its_journaled_type() -> None:
    for cls in snapshot_names.INPUTS:
        name = f"event.{cls.model_fields['type'].default}"
        assert snapshot_names.stable_name(cls) == name
        assert snapshot_names.registered_class(name) is cls


def test_a_snapshot_names_no_module_and_refuses_a_name_nobody_registered(
    tmp_path: Path,
) -> None:
    cfg = make_config(tmp_path)
    table = Table(cfg)
    for event in (bank(1, "500"), wager(2, "player", "25"), CLOSE, *cards("Ah Kd")):
        feed(table, event)
    data = snapshot.encode(table)
    assert b'"$o":"baccarat.BaccaratState"' in data
    assert b'"$o":"tablectl' not in data and b'"$m":"tablectl' not in data
    assert snapshot.encode(snapshot.restore(cfg, data)) == data
    placed = data.replace(
        b'"$o":"baccarat.BaccaratState"', b'"$o":"tablectl.games.baccarat.engine:BaccaratState"'
    )
    with pytest.raises(snapshot.SnapshotError, match=r"no class is registered as tablectl\.games"):
        snapshot.restore(cfg, placed)


def _as_format_4(encoded: bytes) -> bytes:
    """A snapshot as format 4 wrote it: every class by its module:qualname."""
    places = dict(snapshot_names.classes())
    for cls in snapshot_names.INPUTS:
        places[f"event.{cls.model_fields['type'].default}"] = f"{cls.__module__}:{cls.__name__}"

    def renamed(node: Any) -> Any:
        if isinstance(node, list):
            return [renamed(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {k: renamed(v) for k, v in node.items()}
        for tag in ("$o", "$m", "$e"):
            if tag in out and out[tag] in places:
                out[tag] = places[out[tag]]
        return out

    doc = renamed(json.loads(encoded))
    return json.dumps({**doc, "format": 4}, separators=(",", ":"), ensure_ascii=False).encode()


def test_a_format_4_snapshot_is_not_trusted_and_the_table_is_rebuilt_from_the_records(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path)
    d = Daemon(load_config(path), mqtt=False)
    d.recover()
    d._ingest(Input("cmd/bank", bank(1, "500"), "b1"))
    d._ingest(Input("cmd/wager", wager(2, "player", "25"), "w1"))
    d._checkpoint()
    position = d.table.position
    expected = snapshot.encode(d.table)
    d.journal.close()
    raw = sqlite3.connect(tmp_path / "journal.db")
    with raw:
        (body,) = raw.execute("SELECT body FROM snapshots WHERE journal_seq = ?", (position,))
        old = _as_format_4(zlib.decompress(body[0]))
        assert b"tablectl.games.baccarat.engine:BaccaratState" in old
        raw.execute(
            "UPDATE snapshots SET format = 4, body = ?, digest = ? WHERE journal_seq = ?",
            (zlib.compress(old), hashlib.sha256(old).hexdigest(), position),
        )
    raw.close()
    again = Daemon(load_config(path), mqtt=False)
    with capture_logs() as logs:
        assert again.recover() == position  # every record replayed
    notes = [e["detail"] for e in logs if e["event"] == "snapshot.skipped"]
    assert [n.split(" (made by")[0] for n in notes] == [
        f"snapshot after record {position} skipped: format 4"
    ]
    assert snapshot.encode(again.table) == expected
    again.journal.close()


def test_a_name_a_game_takes_twice_stays_with_its_first_holder_and_check_config_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game installed beside the built-in ones that registers a stable name already taken (the
    framework's `wagers.PlacedWager`, or an input's `event.*`) does not get it: every other table
    still snapshots and restores, and the config's warnings name the clash."""
    import dataclasses

    from tablectl import snapshot_names
    from tablectl.games import registry

    real = registry.spec_of

    def clashing(gid: str) -> Any:
        spec = real(gid)
        if gid != "razz":
            return spec
        taken = {"wagers.PlacedWager": "tablectl.alerts:Pace", "event.bank": "tablectl.alerts:Pace"}
        return dataclasses.replace(spec, snapshot_classes={**spec.snapshot_classes, **taken})

    monkeypatch.setattr(snapshot_names, "spec_of", clashing)
    snapshot_names._registered.cache_clear()
    snapshot_names._names.cache_clear()
    try:
        assert snapshot_names.classes()["wagers.PlacedWager"] == "tablectl.games.common:PlacedWager"
        assert [line.split(":")[0] for line in snapshot_names.refused()] == ["razz", "razz"]
        cfg = make_config(tmp_path)
        table = Table(cfg)
        feed(table, bank(1, "500"))
        feed(table, wager(2, "player", "25"))
        restored = snapshot.restore(cfg, snapshot.encode(table))
        assert snapshot.encode(restored) == snapshot.encode(table)
        assert any("wagers.PlacedWager is already" in w for w in make_config(tmp_path).warnings)
    finally:
        snapshot_names._registered.cache_clear()
        snapshot_names._names.cache_clear()
