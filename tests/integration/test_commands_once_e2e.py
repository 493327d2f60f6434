"""Commands arrive once (R54), end to end: the daemon (a child process) on a
real, locked Mosquitto, a simulated shoe on a real pty, and a dealer console (paho).

- A `cmd/bank` the console published with the retain flag reaches the daemon with the flag when
  it subscribes: refused (`ok: false`, rule R54), a `retained-command` alert that stays open
  (one, however often the broker delivers it again: here at a daemon restart), no bank posted.
  Cleared at the broker (an empty retained message), it comes no more, and the same id sent
  plainly is applied: the refusal did not spend it.
- A wager applied, then 5,000 other commands, then a broker restart, then the same wager again
  (same id, as a console re-sends a command it got no reply for): refused as a duplicate, and
  the seat holds one wager. (The memory kept the newest 4,096 ids before R54.)

The table-level half (the window's edges, snapshots, a clock stepped back) is
tests/table/test_commands_once.py.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import TIMEOUT, Console, DaemonProcess, write_config

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
DUPLICATE = "duplicate request id: already handled"


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def publish(console: Console, verb: str, body: dict[str, Any], *, retain: bool = False) -> None:
    """Publish `cmd/<verb>` as given (its own `id`), QoS 1, and wait for the broker's PUBACK."""
    info = console.client.publish(
        f"{BASE}/cmd/{verb}", json.dumps(body, separators=(",", ":")), qos=1, retain=retain
    )
    info.wait_for_publish(TIMEOUT)


def replies_to(console: Console, verb: str, ref: str | None) -> list[dict[str, Any]]:
    return [p for p in console.on(f"cmd/{verb}/reply") if p.get("id") == ref]


def wait_replies(console: Console, verb: str, ref: str | None, count: int) -> list[dict[str, Any]]:
    """The replies to `cmd/<verb>` id `ref`, once there are `count` of them (distinct seqs)."""

    def enough() -> bool:
        return len({p["seq"] for p in replies_to(console, verb, ref)}) >= count

    console.wait_for(f"{count} replies to cmd/{verb} {ref}", enough)
    seen: dict[int, dict[str, Any]] = {}
    for p in replies_to(console, verb, ref):
        seen.setdefault(p["seq"], p)
    return [seen[s] for s in sorted(seen)]


def wait_online(console: Console, times: int) -> None:
    console.wait_for(f"online {times}", lambda: console.times_online() >= times)


def journaled(path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def test_a_retained_command_is_refused_with_an_open_alert_and_applied_once_sent_plainly(
    tmp_path: Path, mosquitto: MosquittoBroker, shoe: SimulatedShoe
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    journal = tmp_path / "journal.db"
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(cfg)
    bank = {"id": "b-ret", "seat": 1, "amount": "500"}
    reason = (
        f"{BASE}/cmd/bank came retained: a retained command is delivered again on every "
        f"subscribe, so it is never applied; clear it at the broker (mosquitto_pub -r -n -t "
        f"{BASE}/cmd/bank)"
    )
    try:
        assert console.subscribed.wait(TIMEOUT)
        publish(console, "bank", bank, retain=True)  # the broker now holds it, retained
        daemon.start()
        (first,) = wait_replies(console, "bank", "b-ret", 1)
        assert first == {**first, "ok": False, "reason": reason, "rule": "R54"}
        alerts = [a for a in console.on("alert") if a["kind"] == "retained-command"]
        assert [(a["rule"], a["source"], json.loads(a["raw"])) for a in alerts] == [
            ("R54", "cmd/bank", bank)
        ]
        console.wait_for("alerts/open", lambda: bool(console.on("alerts/open")))
        (opened,) = console.on("alerts/open")[-1]["open"]
        assert opened == {**opened, "id": alerts[0]["seq"], "kind": "retained-command"}

        # A restart subscribes again: the broker delivers it again, refused again, still one
        # open alert.
        assert daemon.terminate() == 0, daemon.log_text()
        daemon.start()
        first, second = wait_replies(console, "bank", "b-ret", 2)
        assert second == {**second, "ok": False, "reason": reason, "rule": "R54"}
        assert console.on("alerts/open")[-1]["open"] == [opened]
        rows = journaled(journal, "SELECT ref, body FROM journal WHERE source = 'cmd/bank'")
        assert [
            (ref, json.loads(body)["type"], json.loads(body)["retained"]) for ref, body in rows
        ] == [
            ("b-ret", "input.invalid", True),
            ("b-ret", "input.invalid", True),
        ]
        assert not [s for s in console.on("state") if s["player_dealer"] is not None]

        # The technician clears it (mosquitto_pub -r -n -t ...: an empty retained message). The
        # daemon, subscribed, gets that empty message too: refused as no JSON, like any.
        info = console.client.publish(f"{BASE}/cmd/bank", b"", qos=1, retain=True)
        info.wait_for_publish(TIMEOUT)
        (empty,) = wait_replies(console, "bank", None, 1)
        assert empty["ok"] is False and empty["reason"].startswith("payload is not JSON")
        assert daemon.terminate() == 0, daemon.log_text()
        daemon.start()
        wait_online(console, 3)
        # Nothing came on subscribe this time; the same id, sent plainly, is applied.
        publish(console, "bank", bank)
        *_, third = wait_replies(console, "bank", "b-ret", 3)
        assert third == {**third, "ok": True}
        assert len(replies_to(console, "bank", "b-ret")) == 3
        console.wait_for(
            "the bank posted",
            lambda: any(
                (s.get("player_dealer") or {}).get("bank") == "500.00" for s in console.on("state")
            ),
        )
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()
        console.close()


def test_a_command_again_after_5000_others_and_a_broker_restart_is_not_applied_twice(
    tmp_path: Path, mosquitto: MosquittoBroker, shoe: SimulatedShoe
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    journal = tmp_path / "journal.db"
    console = Console(mosquitto.port, BASE)
    daemon = DaemonProcess(cfg)
    wager = {"id": "w-first", "seat": 2, "spot": "player", "amount": "25"}
    try:
        daemon.start()
        wait_online(console, 1)
        publish(console, "bank", {"id": "b1", "seat": 1, "amount": "500"})
        assert wait_replies(console, "bank", "b1", 1)[0]["ok"] is True
        publish(console, "wager", wager)
        assert wait_replies(console, "wager", "w-first", 1)[0]["ok"] is True

        # 5,000 other commands, each handled (refused: nothing is held to resume).
        for k in range(5000):
            console.client.publish(f"{BASE}/cmd/round.resume", f'{{"id":"r-{k}"}}', qos=1)
        deadline = time.monotonic() + 300
        while journaled(journal, "SELECT count(*) FROM journal WHERE ref = 'r-4999'") != [(1,)]:
            assert time.monotonic() < deadline, "the 5,000 commands were not all journaled"
            time.sleep(0.2)  # polling the journal, bounded by the deadline
        wait_replies(console, "round.resume", "r-4999", 1)

        mosquitto.stop()
        mosquitto.start()
        wait_online(console, 2)

        publish(console, "wager", wager)  # the same command again
        _, again = wait_replies(console, "wager", "w-first", 2)
        assert again == {**again, "ok": False, "reason": DUPLICATE}
        state = console.on("state")[-1]
        assert [(w["seat"], w["spot"], w["amount"]) for w in state["wagers"]] == [
            (2, "player", "25.00")
        ]
        wagers = journaled(
            journal, "SELECT count(*) FROM journal WHERE source = 'cmd/wager' AND ref = 'w-first'"
        )
        assert wagers == [(2,)]  # both journaled, the second not applied
        assert daemon.terminate() == 0, daemon.log_text()
    finally:
        daemon.stop_quietly()
        console.close()
