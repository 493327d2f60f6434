"""Home Assistant MQTT discovery (optional): the retained config messages that
make a table appear in Home Assistant (or anything that reads the same convention) as one
device with its sensors, built from the table's own topics; no new data is published.

Each entity reads a topic tablectl already publishes: `status` (the bare word, online/offline)
for connectivity and availability, `state` for the round and a held round, `journal/status`
for journal trouble, `alert` for the last alert's kind. No entity reads a card. Pure: the daemon
publishes the messages retained, from memory, at start and on every connect (`Relay.notice_at`).
"""

from __future__ import annotations

import json
from typing import Any

from tablectl import __version__
from tablectl.config import LoadedConfig

DEFAULT_PREFIX = "homeassistant"
"""Home Assistant's own discovery prefix."""


def node_id(site: str, table: str) -> str:
    """The table's id in discovery topics: `tablectl_<site>_<table>`, the characters Home
    Assistant accepts in a node id (letters, digits, `_`, `-`)."""
    return "tablectl_" + "_".join(
        "".join(c if c.isalnum() or c in "_-" else "_" for c in part) for part in (site, table)
    )


def discovery_topics(prefix: str, site: str, table: str) -> str:
    """The topic filter of every discovery config of a table (the broker ACL's grant)."""
    return f"{prefix}/+/{node_id(site, table)}/+/config"


def discovery_messages(cfg: LoadedConfig, prefix: str) -> list[tuple[str, bytes]]:
    """(topic, payload) of every retained discovery config for this table."""
    base = cfg.table.base_topic
    node = node_id(cfg.table.site, cfg.table.table)
    device = {
        "identifiers": [node],
        "name": f"{cfg.table.table} ({cfg.table.game.id})",
        "manufacturer": "tablectl",
        "model": cfg.table.game.id,
        "sw_version": __version__,
        "suggested_area": cfg.table.site,
    }
    available = {
        "availability_topic": f"{base}/status",
        "payload_available": "online",
        "payload_not_available": "offline",
    }
    entities: list[tuple[str, str, dict[str, Any]]] = [
        (
            "binary_sensor",
            "online",
            {
                "name": "Online",
                "state_topic": f"{base}/status",
                "payload_on": "online",
                "payload_off": "offline",
                "device_class": "connectivity",
            },
        ),
        (
            "binary_sensor",
            "round_held",
            {
                "name": "Round held",
                "state_topic": f"{base}/state",
                "value_template": "{{ 'ON' if value_json.held else 'OFF' }}",
                "device_class": "problem",
                **available,
            },
        ),
        (
            "binary_sensor",
            "journal_trouble",
            {
                "name": "Journal trouble",
                "state_topic": f"{base}/journal/status",
                "value_template": "{{ 'OFF' if value_json.writable else 'ON' }}",
                "device_class": "problem",
                **available,
            },
        ),
        (
            "sensor",
            "round",
            {
                "name": "Round",
                "state_topic": f"{base}/state",
                "value_template": "{{ value_json.round }}",
                "icon": "mdi:cards-playing",
                **available,
            },
        ),
        (
            "sensor",
            "last_alert",
            {
                "name": "Last alert",
                "state_topic": f"{base}/alert",
                "value_template": "{{ value_json.kind }}",
                "json_attributes_topic": f"{base}/alert",
                "json_attributes_template": (
                    "{{ {'reason': value_json.reason, 'rule': value_json.rule} | tojson }}"
                ),
                "icon": "mdi:alert",
                **available,
            },
        ),
    ]
    out = []
    for component, object_id, fields in entities:
        config = {"unique_id": f"{node}_{object_id}", **fields, "device": device}
        text = json.dumps(config, separators=(",", ":"), ensure_ascii=False)
        out.append((f"{prefix}/{component}/{node}/{object_id}/config", text.encode("utf-8")))
    return out
