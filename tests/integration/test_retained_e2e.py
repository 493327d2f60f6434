"""Every retained topic comes back after a broker restart without persistence:
the daemon (a child process) plays rounds on a simulated shoe through a real, locked Mosquitto
that keeps nothing on disk; the broker restarts; a fresh floor subscriber then receives every
retained topic again, byte for byte what it held before, and the outbox topics as the journal's
newest retained row of each (same seq)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

import tablectl
from tablectl.config import load_config
from tablectl.journal import Journal
from tablectl.table_info import posted
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import TIMEOUT, Console, DaemonProcess, write_config
from tests.integration.test_daemon_e2e import finish_round, open_round, wait_ready

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
QUIET = 0.5
"""Seconds without a new retained message after which a fresh subscriber has them all."""


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def retained_now(broker: MosquittoBroker, client_id: str, wanted: set[str]) -> dict[str, bytes]:
    """What a fresh floor subscriber (clean session) receives as retained on `<base>/#`: topic
    -> payload bytes, once every topic of `wanted` is there and QUIET seconds passed without
    another. Fails after TIMEOUT (e.g. a topic the broker no longer holds)."""
    got: dict[str, bytes] = {}
    last = [time.monotonic()]
    cond = threading.Condition()

    def on_message(_c: mqtt.Client, _u: object, msg: mqtt.MQTTMessage) -> None:
        if msg.retain:
            with cond:
                got[msg.topic] = bytes(msg.payload)
                last[0] = time.monotonic()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
    credentials = broker.credentials("floor", BASE)
    if credentials is not None:
        client.username_pw_set(*credentials)
    client.on_message = on_message
    client.on_connect = lambda c, *_: c.subscribe(f"{BASE}/#", qos=1)
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            with cond:
                if wanted <= got.keys() and time.monotonic() - last[0] >= QUIET:
                    return dict(got)
            if time.monotonic() > deadline:
                raise AssertionError(f"retained topics missing: {sorted(wanted - got.keys())}")
            time.sleep(0.05)  # polling interval, bounded by the deadline
    finally:
        client.disconnect()
        client.loop_stop()


def heard(console: Console, topics: set[str]) -> dict[str, int]:
    """How many messages of each of `topics` the console has received so far."""
    return {t: len(console.on(t.removeprefix(f"{BASE}/"))) for t in topics}


def journal_retained(journal: Path) -> dict[str, tuple[int, bytes]]:
    """The newest retained outbox row of each topic: topic -> (seq, payload)."""
    with sqlite3.connect(journal) as db:
        rows = db.execute(
            "SELECT topic, seq, payload FROM outbox WHERE seq IN "
            "(SELECT max(seq) FROM outbox WHERE retain = 1 GROUP BY topic)"
        ).fetchall()
    return {topic: (seq, bytes(payload)) for topic, seq, payload in rows}


def journaled_rules_digest(journal: Path) -> str:
    """The digest of the rules in the journal's `config` record, computed as docs/mqtt.md
    tells a floor to: sorted keys, no spaces, UTF-8, sha256."""
    book = Journal(journal, table="t1")
    try:
        (rules,) = [r.body["rules"] for r in book.records() if r.body["type"] == "config"]
    finally:
        book.close()
    text = json.dumps(rules, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def all_sent(journal: Path) -> bool:
    with sqlite3.connect(journal) as db:
        return int(db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0]) == 0


def wait_all_sent(journal: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not all_sent(journal):
        if time.monotonic() > deadline:
            raise AssertionError("the outbox did not drain")
        time.sleep(0.05)  # polling interval, bounded by the deadline


def test_every_retained_topic_is_back_with_the_same_bytes_after_a_broker_restart(
    tmp_path: Path, mosquitto: MosquittoBroker, shoe: SimulatedShoe
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    journal = tmp_path / "journal.db"
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(cfg)
    try:
        daemon.start()
        wait_ready(console, 1)
        shoe.new_shoe(8, seed=14)
        for rnd in (1, 2):
            open_round(console, seat=4)
            finish_round(console, shoe, rnd, [])
        wait_all_sent(journal)
        # ... and said so: the retained journal/status tells the drained backlog (within a
        # second), so the one taken below is the last the table makes.
        console.wait_for(
            "unsent 0 told",
            lambda: (console.on("journal/status") or [{}])[-1].get("unsent") == 0,
        )
        from_outbox = journal_retained(journal)
        expected = {f"{BASE}/{t}" for t in ("state", "device/shoe/status", "journal/head")}
        assert expected <= from_outbox.keys()  # the game's retained topics are all in play
        from_memory = {
            f"{BASE}/{t}"
            for t in ("status", "journal/status", "info", "journal/start", "journal/segment")
        }
        wanted = {*from_outbox, *from_memory}
        before = retained_now(mosquitto, "it-fresh-1", wanted)

        seen = heard(console, wanted)
        mosquitto.stop()
        mosquitto.start()  # persistence false: it comes back holding nothing
        # A subscriber gets a message as retained only when it subscribes after the publish:
        # wait until the console has heard every topic once more, then ask a fresh one.
        console.wait_for(
            "every retained topic published again",
            lambda: all(n > seen[t] for t, n in heard(console, wanted).items()),
        )
        after = retained_now(mosquitto, "it-fresh-2", wanted)
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()
        console.close()

    assert after == before
    assert after[f"{BASE}/status"] == b"online"
    for topic, (_seq, payload) in from_outbox.items():
        assert after[topic] == payload, topic
    assert set(after) == wanted  # and nothing else: no event or result is retained
    assert json.loads(after[f"{BASE}/info"]) == {
        "table": "t1",
        "version": tablectl.__version__,
        "game": "ez-baccarat-panda8",
        "screen": "baccarat",
        "rules_digest": journaled_rules_digest(journal),
        "config_digest": "sha256:" + hashlib.sha256(cfg.read_bytes()).hexdigest(),
        "devices": [{"name": "shoe", "driver": "shoe"}],  # a pty: no serial known
        "heartbeat_seconds": 5,  # [mqtt] heartbeat_seconds, its default
        "posted": posted(load_config(cfg).rules),  # tests/table/test_info.py works it by hand
        "ts": json.loads(after[f"{BASE}/info"])["ts"],
        "v": 1,
    }
