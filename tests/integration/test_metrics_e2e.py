"""The Prometheus endpoint of a running table: the in-process Daemon with its
real HTTP endpoint on a free loopback port, a real Mosquitto and a simulated shoe on a real pty.
A round is played with one wager refused, and the scrape must say what was worked out by hand:
1 round, every card the shoe gave, 1 `rejected` alert, the unsent backlog the journal holds,
the journal's size, a latency observation for each input the shoe gave; and after a restart, a
replay that counted nothing."""

from __future__ import annotations

import os
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from hil.ports import free_port
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoFactory
from tests.integration.harness import TIMEOUT, Console, DaemonThread, write_config
from tests.integration.test_daemon_e2e import finish_round, open_round, unique_by_seq

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
GAME = "ez-baccarat-panda8"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def scrape(port: int, path: str = "/metrics") -> tuple[str, str]:
    """GET the endpoint: its body and content type."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return answer.read().decode("utf-8"), answer.headers["Content-Type"]


def samples(port: int) -> Samples:
    """Every sample of a scrape, by name and labels."""
    text, _ = scrape(port)
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def answered(port: int) -> Samples:
    """The first scrape that is answered: a daemon binds its endpoint once it replayed."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            return samples(port)
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def poll(what: str, cond: Callable[[], bool]) -> None:
    """Until `cond()`, asked every 50 ms (what it asks does not come over MQTT)."""
    deadline = time.monotonic() + TIMEOUT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def value(got: Samples, name: str, **labels: str) -> float:
    return got.get((name, frozenset(labels.items())), 0.0)


def with_metrics(cfg: Path, port: int) -> None:
    cfg.write_text(cfg.read_text() + f'\n[metrics]\nlisten = "127.0.0.1:{port}"\n')


def test_a_scrape_after_a_played_round_says_what_the_table_did(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, shoe: SimulatedShoe
) -> None:
    broker = mosquitto_factory()
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
    port = free_port()
    with_metrics(cfg, port)
    journal = tmp_path / "journal.db"
    console = Console(broker.port, BASE)
    try:
        with DaemonThread(cfg) as it:
            assert it.daemon is not None
            console.wait_for("shoe available", console.device_available)
            server = it.daemon._metrics_server
            assert server is not None and server.bound == [("127.0.0.1", port)]

            before = samples(port)
            assert value(before, "tablectl_rounds_total", game=GAME, void="false") == 0
            info = {"site": "it", "table": "t1", "game": GAME, "version": "0.1.0"}
            assert value(before, "tablectl_table_info", **info) == 1
            assert value(before, "tablectl_broker_connected") == 1

            shoe.new_shoe(8, seed=11)
            console.wait_for(
                "shoe.new", lambda: any(e["type"] == "shoe.new" for e in console.on("event"))
            )
            open_round(console, seat=4)
            refused = console.send("wager", {"seat": 2, "spot": "banker", "amount": "5000"})
            assert refused["ok"] is False, refused  # over the table's max (500)
            drawn: list[str] = []
            finish_round(console, shoe, 1, drawn)
            assert len(drawn) >= 4

            got = samples(port)
            assert value(got, "tablectl_rounds_total", game=GAME, void="false") == 1
            assert value(got, "tablectl_rounds_total", game=GAME, void="true") == 0
            cards = value(got, "tablectl_device_inputs_total", device="shoe", type="shoe.card")
            assert cards == len(drawn)
            assert value(got, "tablectl_device_inputs_total", device="shoe", type="shoe.new") == 1
            # Every input the shoe gave is timed from its arrival to its commit: the cards and
            # the new shoe.
            count = value(got, "tablectl_device_input_journal_seconds_count", device="shoe")
            assert count == len(drawn) + 1
            inf = value(
                got, "tablectl_device_input_journal_seconds_bucket", device="shoe", le="+Inf"
            )
            assert inf == count
            total = value(got, "tablectl_device_input_journal_seconds_sum", device="shoe")
            assert 0 < total < count * 1.0  # each well under a second on this PC
            alerts = {
                dict(labels)["kind"]: v
                for (name, labels), v in got.items()
                if name == "tablectl_alerts_total"
            }
            assert alerts == {"rejected": 1.0}
            seen = [a["kind"] for a in unique_by_seq(console.on("alert"))]
            assert seen == ["rejected"]  # the same, as the floor heard them
            for kind in ("round", "journal-fault", "journal-unwritable"):
                assert value(got, "tablectl_held", kind=kind) == 0
                assert value(got, "tablectl_held_seconds_total", kind=kind) == 0
            assert value(got, "process_resident_memory_bytes") > 0

            # No card and no player in any label: only the values this table can give.
            allowed = {"it", "t1", GAME, "0.1.0", "shoe", "shoe.card", "shoe.new", "rejected"}
            allowed |= {"true", "false", "round", "journal-fault", "journal-unwritable"}
            for (name, labels), _ in got.items():
                if name.startswith("tablectl_"):
                    for key, label in labels:
                        assert key == "le" or label in allowed, (name, key, label)
            text, content_type = scrape(port)
            assert content_type.startswith("text/plain")
            assert not set(drawn) & set(text.replace("{", " ").replace('"', " ").split())

            # The backlog: the broker goes away, the shoe deals a card: its messages wait.
            broker.stop()
            poll("the broker gone", lambda: value(samples(port), "tablectl_broker_connected") == 0)
            shoe.draw()

            def dealt() -> bool:
                now = samples(port)
                inputs = "tablectl_device_inputs_total"
                return value(now, inputs, device="shoe", type="shoe.card") == len(drawn) + 1

            poll("the card journaled", dealt)
            with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
                unsent = db.execute("SELECT count(*) FROM outbox WHERE sent = 0").fetchone()[0]
            assert unsent > 0
            got = samples(port)
            assert value(got, "tablectl_outbox_unsent") == unsent
            assert value(got, "tablectl_broker_connected") == 0
            size = os.stat(journal).st_size + os.stat(f"{journal}-wal").st_size
            assert value(got, "tablectl_journal_bytes") == size > 0

            # Only GET /metrics is served.
            with pytest.raises(urllib.error.HTTPError) as missing:
                scrape(port, "/players")
            assert missing.value.code == 404

        # A restart replays the journal: nothing in it is counted again.
        with DaemonThread(cfg):
            got = answered(port)
            assert value(got, "tablectl_rounds_total", game=GAME, void="false") == 0
            assert not [n for (n, _), v in got.items() if n == "tablectl_alerts_total" and v]
            assert value(got, "tablectl_device_input_journal_seconds_count", device="shoe") == 0
    finally:
        console.close()
