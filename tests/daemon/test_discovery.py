"""Home Assistant MQTT discovery (optional): a table that asks for it
publishes, retained, one config per entity (online, round held, journal trouble, round, last
alert), each reading a topic the table already publishes; the broker ACL lets the table write
exactly those configs; off by default."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

import tablectl
from tablectl.broker import acl_text, room_users
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.discovery import discovery_messages, node_id
from tablectl.relay import RelayState
from tests.conftest import MosquittoBroker
from tests.helpers import BASE, SITE, TABLE_ID, write_config
from tests.table.test_info import until

NODE = node_id(SITE, TABLE_ID)
ENTITIES = {
    f"homeassistant/binary_sensor/{NODE}/online/config",
    f"homeassistant/binary_sensor/{NODE}/round_held/config",
    f"homeassistant/binary_sensor/{NODE}/journal_trouble/config",
    f"homeassistant/sensor/{NODE}/round/config",
    f"homeassistant/sensor/{NODE}/last_alert/config",
}


def configs(tmp_path: Path, **mqtt: Any) -> dict[str, dict[str, Any]]:
    cfg = load_config(write_config(tmp_path, mqtt={"discovery": True, **mqtt}))
    prefix = cfg.table.mqtt.discovery_prefix
    return {t: json.loads(p) for t, p in discovery_messages(cfg, prefix)}


def test_the_node_id_is_made_of_characters_home_assistant_accepts() -> None:
    assert node_id("cardroom-1", "bac-01") == "tablectl_cardroom-1_bac-01"
    assert node_id("room 2", "t.1") == "tablectl_room_2_t_1"


def test_each_entity_reads_a_topic_the_table_publishes_and_names_one_device(
    tmp_path: Path,
) -> None:
    got = configs(tmp_path)
    assert set(got) == ENTITIES
    online = got[f"homeassistant/binary_sensor/{NODE}/online/config"]
    assert (online["state_topic"], online["payload_on"], online["payload_off"]) == (
        f"{BASE}/status",
        "online",  # the bare word the table publishes (docs/mqtt.md "status")
        "offline",
    )
    assert online["device_class"] == "connectivity"
    held = got[f"homeassistant/binary_sensor/{NODE}/round_held/config"]
    assert held["state_topic"] == f"{BASE}/state" and "value_json.held" in held["value_template"]
    assert got[f"homeassistant/sensor/{NODE}/last_alert/config"]["state_topic"] == f"{BASE}/alert"
    for config in got.values():
        assert config["unique_id"].startswith(NODE + "_")
        assert config["device"] == {
            "identifiers": [NODE],
            "name": f"{TABLE_ID} (ez-baccarat-panda8)",
            "manufacturer": "tablectl",
            "model": "ez-baccarat-panda8",
            "sw_version": tablectl.__version__,
            "suggested_area": SITE,
        }
        readable = {"status", "state", "journal/status", "alert"}
        assert config["state_topic"].removeprefix(BASE + "/") in readable
    assert len({c["unique_id"] for c in got.values()}) == len(got)


def test_a_discovery_prefix_of_the_floors_own(tmp_path: Path) -> None:
    got = configs(tmp_path, discovery_prefix="ha/floor")
    assert all(t.startswith("ha/floor/") for t in got)


def test_a_bad_discovery_prefix_is_refused_at_its_key(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="discovery_prefix"):
        load_config(write_config(tmp_path, mqtt={"discovery_prefix": "ha/#"}))


def test_the_acl_lets_the_table_write_its_discovery_configs_only_when_asked(
    tmp_path: Path,
) -> None:
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    on = load_config(write_config(tmp_path / "on", mqtt={"discovery": True}))
    off = load_config(write_config(tmp_path / "off"))
    grant = f"topic write homeassistant/+/{NODE}/+/config"
    assert grant in acl_text(room_users([on.table]))
    assert "homeassistant" not in acl_text(room_users([off.table]))


async def discovered(folder: Path, broker: MosquittoBroker, asked: bool) -> dict[str, bytes]:
    """Run a daemon (discovery on or off) until it is online; every retained message under
    `homeassistant/` a subscriber that comes after it is given."""
    folder.mkdir()
    mqtt = {"host": broker.host, "port": broker.port, "discovery": asked}
    daemon = Daemon(load_config(write_config(folder, mqtt=mqtt)))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    got: dict[str, bytes] = {}

    def online() -> bool:
        return daemon.relay is not None and daemon.relay.state is RelayState.CONNECTED

    async def collect(client: aiomqtt.Client) -> None:
        async for m in client.messages:  # (live or retained: the daemon may still be sending)
            got[m.topic.value] = bytes(m.payload)

    try:
        await until(online, "online")
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("homeassistant/#", qos=1)
            task = asyncio.create_task(collect(client))
            if asked:
                await until(lambda: set(got) == ENTITIES, "every discovery config")
            else:
                await asyncio.sleep(0.5)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    finally:
        daemon.stop()
        await asyncio.wait_for(runner, 10)
    return got


@pytest.mark.integration
async def test_the_daemon_publishes_the_configs_retained_and_only_when_asked(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    """A daemon with discovery on: a subscriber that comes after finds every config retained
    (then cleared); a daemon without it publishes none."""
    got = await discovered(tmp_path / "on", mosquitto, True)
    assert all(json.loads(p)["device"]["identifiers"] == [NODE] for p in got.values())
    retained: dict[str, bytes] = {}  # the daemon stopped: what the broker still holds for it
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe("homeassistant/#", qos=1)
        async with asyncio.timeout(10):
            async for m in client.messages:
                assert m.retain
                retained[m.topic.value] = bytes(m.payload)
                if set(retained) == ENTITIES:
                    break
    assert retained == got
    async with aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        for topic in ENTITIES:  # (cleared, so the next daemon's subscriber sees only its own)
            await client.publish(topic, b"", qos=1, retain=True)
    assert await discovered(tmp_path / "off", mosquitto, False) == {}
