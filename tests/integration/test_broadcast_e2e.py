"""The delayed broadcast feed through the daemon and a locked Mosquitto: a poker
table with `[broadcast] delay_seconds = 2` and no reader. The broadcast role receives each input
with its hole cards on `broadcast/event`, no sooner than the delay after the table journaled it;
the console and the floor never receive the feed, and no live topic names a hole card (R46)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablectl.records import parse_ts
from tests.conftest import MosquittoFactory
from tests.integration.floor import running_table, wait_subscribed
from tests.integration.harness import Console, lock_table

pytestmark = pytest.mark.integration

BASE = "tablectl/cardroom-1/holdem-04"
DELAY = 2
HOLES = {3: ["Ah", "Kh"], 1: ["7c", "2d"]}
CARD = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][shdc])(?![0-9A-Za-z])")


def config(folder: Path, mqtt_port: int) -> Path:
    """A 004 $4-$8 Hold'em table with no reader and the delayed feed on."""
    path = folder / "table.toml"
    path.write_text(
        f"""site = "cardroom-1"
table = "holdem-04"

[game]
id = "texas-holdem"
document = "004"
structure = "fixed-limit"
stakes = ["4", "8"]
blinds = ["2", "4"]

[game.collection]
options = [1, 2]

[seats]
count = 9

[broadcast]
delay_seconds = {DELAY}

[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5

[journal]
path = "{folder}/journal.db"
""",
        encoding="utf-8",
    )
    return path


class Production(Console):
    """The broadcast role's client, noting when each message arrived (wall clock, UTC)."""

    def __init__(self, port: int) -> None:
        self.arrived: list[tuple[datetime, str, Any]] = []
        super().__init__(port, BASE, client_id="it-broadcast", role="broadcast")

    def _on_message(self, c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        self.arrived.append((datetime.now(UTC), msg.topic, None))
        super()._on_message(c, u, msg)


def test_broadcast_role_gets_hole_cards_after_the_delay_and_no_one_else_does(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    broker = mosquitto_factory(locked=True)
    cfg = config(tmp_path, broker.port)
    lock_table(cfg, broker, "table-cardroom-1-holdem-04")
    production = Production(broker.port)
    try:
        wait_subscribed(production)
        with running_table(cfg, broker, BASE, []) as (console, floor):
            for seat in (1, 3):
                console.send("seat.take", {"seat": seat, "stack": "100"})
            console.send("hand.start", {"button": 1})
            for seat, cards in HOLES.items():
                console.send("hole.cards", {"seat": seat, "cards": cards})
            console.send("decision", {"seat": 3, "action": "fold"})
            production.wait_for(
                "the delayed result",
                lambda: bool(production.on("broadcast/round/result")),
                timeout=DELAY + 10,
            )
            time.sleep(0.5)  # anything the floor or console might (wrongly) get meanwhile
            fed = [p for p in production.on("broadcast/event") if p["type"] == "hole.cards"]
            assert [(p["seat"], p["cards"]) for p in fed] == list(HOLES.items())
            arrivals = {
                m.payload["seq"]: when
                for (when, _, _), m in zip(production.arrived, production.messages, strict=True)
                if m.topic == f"{BASE}/broadcast/event"
            }
            for p in fed:  # never before the delay after the table journaled the input
                assert arrivals[p["seq"]] >= parse_ts(p["ts"]) + timedelta(seconds=DELAY)
            assert all(m.topic.startswith(f"{BASE}/broadcast/") for m in production.messages)
            for client in (console, floor):
                assert not [m for m in client.messages if "/broadcast/" in m.topic]
                published = [  # the console hears its own commands: those are not the table's
                    m for m in client.messages if not re.fullmatch(rf"{BASE}/cmd/[^/]+", m.topic)
                ]
                text = " ".join(str(m.payload) for m in published)
                named = set(CARD.findall(text))  # as a token: a hash's hex may hold "7c"
                assert not named & {card for cards in HOLES.values() for card in cards}
    finally:
        production.client.disconnect()
        production.close()
