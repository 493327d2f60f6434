"""The retained `info` topic (issue 14 item 1): the software version, the game, a digest of the
rules in force that anyone can recompute from the journal, the config file's digest, and the
devices with their serials where known. Published at start, again on every connect (the relay's
retained notices; tests/integration/test_retained_e2e.py restarts the broker), and anew when a
`config` record puts other rules in force."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.metadata
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

import tablectl
from tablectl.config import Rules, load_config
from tablectl.daemon import Daemon
from tablectl.info import devices, info_payload, rules_digest
from tablectl.journal import Journal
from tests.conftest import MosquittoBroker
from tests.helpers import BASE, TABLE_ID, write_config

SHOE = {"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}
EZTRAK = {"name": "board", "driver": "eztrak", "port": "usb:0403:6001:A1B2C3"}
TIMEOUT = 10.0


def no_serial(port: str) -> str | None:
    return None


def canonical_sha256(data: Any) -> str:
    """The digest a floor computes itself: sorted keys, no spaces, UTF-8, sha256."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_info_names_version_game_digests_and_devices(tmp_path: Path) -> None:
    path = write_config(tmp_path)
    cfg = load_config(path)
    info = info_payload(cfg, cfg.rules, ts="2026-11-27T00:00:00.000000Z", serial_of=no_serial)
    assert info == {
        "version": tablectl.__version__,
        "game": "ez-baccarat-panda8",
        "rules_digest": canonical_sha256(cfg.rules.to_json()),
        "config_digest": "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest(),
        "devices": [],
        "ts": "2026-11-27T00:00:00.000000Z",
    }
    assert info["version"] == importlib.metadata.version("tablectl")  # the installed release


def test_a_device_serial_is_given_where_known_and_left_out_where_not(tmp_path: Path) -> None:
    path = write_config(tmp_path)
    text = path.read_text()
    for dev in (SHOE, EZTRAK):
        text += "\n[[devices]]\n" + "".join(f'{k} = "{v}"\n' for k, v in dev.items())
    path.write_text(text)
    cfg = load_config(path)
    serials = {"usb:0403:6001:A1B2C3": "A1B2C3"}
    assert devices(cfg, serials.get) == [
        {"name": "shoe", "driver": "shoe"},
        {"name": "board", "driver": "eztrak", "serial": "A1B2C3"},
    ]


def test_the_rules_digest_is_recomputable_from_the_journaled_config_record(
    tmp_path: Path,
) -> None:
    """The daemon journals the rules as a `config` record; the digest of that record's `rules`
    (what `tablectl export` shows) is the one `info` publishes."""
    path = write_config(tmp_path, mqtt={"enabled": False})
    cfg = load_config(path)

    async def start_and_stop() -> None:
        daemon = Daemon(cfg)
        runner = asyncio.create_task(daemon.run(install_signals=False))
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)

    asyncio.run(start_and_stop())
    journal = Journal(tmp_path / "journal.db", table=TABLE_ID)
    try:
        (journaled,) = [r.body["rules"] for r in journal.records() if r.body["type"] == "config"]
    finally:
        journal.close()
    assert canonical_sha256(journaled) == rules_digest(cfg.rules)
    assert rules_digest(Rules.model_validate(journaled)) == rules_digest(cfg.rules)


def test_other_rules_have_another_digest(tmp_path: Path) -> None:
    lower = load_config(write_config(tmp_path, limits={"max": "100"})).rules
    assert rules_digest(lower) != rules_digest(load_config(write_config(tmp_path)).rules)


# -- through the daemon and a real Mosquitto ---------------------------------------------------


@contextlib.asynccontextmanager
async def info_messages(broker: MosquittoBroker) -> AsyncIterator[list[dict[str, Any]]]:
    """Every `info` message the broker delivers while the block runs, decoded."""
    got: list[dict[str, Any]] = []
    async with aiomqtt.Client(broker.host, broker.port, identifier="info-test") as client:
        await client.subscribe(f"{BASE}/info", qos=1)

        async def collect() -> None:
            async for m in client.messages:
                got.append(json.loads(bytes(m.payload)))

        task = asyncio.create_task(collect())
        try:
            yield got
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def until(predicate: Any, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def play(path: Path, inputs: list[dict[str, Any]], got: list[dict[str, Any]]) -> int:
    """Run a daemon on `path`, wait for its `info`, submit `inputs`; how many `info` messages
    had arrived once the daemon stopped."""
    before = len(got)
    daemon = Daemon(load_config(path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: len(got) > before, "the start's info")
        for data in inputs:
            await daemon.submit("console", data)
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, TIMEOUT)
    assert not daemon.failed
    return len(got)


ROUND_OPEN: list[dict[str, Any]] = [
    {"type": "bank", "seat": 1, "amount": "1000"},
    {"type": "wager", "seat": 2, "spot": "player", "amount": "100"},
]
ROUND_END: list[dict[str, Any]] = [
    {"type": "bets.close"},
    *({"type": "shoe.card", "card": c} for c in ["9h", "2d", "Kc", "3s"]),  # natural 9 vs 5
]


@pytest.mark.integration
async def test_info_follows_the_rules_in_force_across_a_change_that_waits_for_the_round(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A restart with a lowered maximum in the middle of a round: `info` says the rules still in
    force (the round's), then, once the round is over and the new rules are journaled, `info`
    again with theirs. The config digest is the file's as this start read it."""
    mqtt = {"host": mosquitto.host, "port": mosquitto.port, "keepalive": 5}
    path = write_config(tmp_path, mqtt=mqtt)
    old = rules_digest(load_config(path).rules)
    async with info_messages(mosquitto) as got:
        await play(path, ROUND_OPEN, got)
        write_config(tmp_path, mqtt=mqtt, limits={"max": "400"})
        new = rules_digest(load_config(path).rules)
        file_digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
        first = len(got)
        await play(path, ROUND_END, got)
        await until(lambda: any(i["rules_digest"] == new for i in got[first:]), "the new info")
    assert old != new
    assert got[0]["table"] == TABLE_ID and got[0]["rules_digest"] == old
    second_start = got[first:]
    assert [i["rules_digest"] for i in second_start] == [old, new]
    assert {i["config_digest"] for i in second_start} == {file_digest}
