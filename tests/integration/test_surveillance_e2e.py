"""The surveillance feed through the whole daemon, the shoe emulator on a real pty and a locked
Mosquitto (the ACL `tablectl broker-acl` makes): an 8-deck shoe put in, a burn, two rounds.

The surveillance role receives the live figures after `shoe.new` and after every card, burns
included; every other role (the table's own user, its console, the pit, the floor, a display
page, the broadcast role), each subscribed to the table's whole base, receives none of them, and
none of them (nor the surveillance role) can publish there.
Then the journal, exported, replayed with `tablectl replay --surveillance` gives the very bytes
the daemon published, message by message.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from tablectl.cli import main
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker, MosquittoFactory
from tests.integration.floor import wait_subscribed
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.test_broker_acl import Client, default_queue

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
OTHER_ROLES = ("table", "console", "pit", "floor", "display", "broadcast")


class RawSubscriber(Console):
    """A subscriber on `<base>/#` that also keeps each payload's bytes, as the broker gave them."""

    def __init__(self, port: int, role: str) -> None:
        self.raw: list[tuple[str, bytes]] = []
        super().__init__(port, BASE, client_id=f"it-{role}-watch", role=role)

    def _on_message(self, c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        self.raw.append((msg.topic, bytes(msg.payload)))
        super()._on_message(c, u, msg)


def forged_by_every_role_but_the_table(broker: MosquittoBroker) -> None:
    """Nobody but the table writes `surveillance/#`: the surveillance user, the console, the pit,
    the floor, a display page and the broadcast role each publish a forged alert there, and the
    surveillance user a command too; the broker refuses every one (MQTT 5: "Not authorized")."""
    forged = {"table": "t1", "record": 1, "part": 1, "kind": "counter", "forged": True}
    clients, sent = [], []
    try:
        for n, role in enumerate(("surveillance", *OTHER_ROLES[1:])):
            client = Client(broker.port, broker.credentials(role, BASE), f"it-forger-{n}")
            clients.append(client)
            topics = ["surveillance/alert"] + (["cmd/bank"] if role == "surveillance" else [])
            for topic in topics:
                sent.append((role, topic, client, client.publish(f"{BASE}/{topic}", forged)))
        for role, topic, client, mid in sent:
            assert client.puback(mid).getName() == "Not authorized", (role, topic)
    finally:
        for client in clients:
            client.close()


def stated(console: Console, after: int) -> bool:
    """A `state` newer than `after` arrived: a card's last message (after any result)."""
    return any(p["seq"] > after for p in console.on("state"))


def odds_after(subscriber: RawSubscriber) -> list[str]:
    """What each `surveillance/odds` received followed: the input's type."""
    return [p["after"]["type"] for p in subscriber.on("surveillance/odds")]


def test_only_the_surveillance_role_gets_the_live_figures_and_replay_gives_the_same_bytes(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    broker = mosquitto_factory(locked=True, start=False)
    default_queue(broker)  # a refused publish keeps the connection (test_broker_acl.py)
    broker.start()
    with SimulatedShoe(link=tmp_path / "shoe0") as shoe:
        cfg = write_config(tmp_path, shoe_port=str(tmp_path / "shoe0"), mqtt_port=broker.port)
        cfg.write_text(cfg.read_text() + "[protection]\nenabled = true\n")
        watcher = RawSubscriber(broker.port, "surveillance")
        others = {role: RawSubscriber(broker.port, role) for role in OTHER_ROLES}
        console = others["console"]
        daemon = DaemonProcess(cfg)
        try:
            for client in (watcher, *others.values()):
                wait_subscribed(client)
            daemon.start()
            console.wait_for("the shoe open", console.device_available)
            shoe.new_shoe(8, seed=28)
            watcher.wait_for("the full shoe's figures", lambda: odds_after(watcher) == ["shoe.new"])
            shoe.burn()
            dealt = 0
            for round_no in (1, 2):
                console.ok("bank", {"seat": 3, "amount": "500"})
                console.ok("wager", {"seat": 4, "spot": "player", "amount": "20"})
                console.ok("wager", {"seat": 4, "spot": "dragon7", "amount": "5"})
                console.ok("bets.close", {})
                while not any(r["round"] == round_no for r in console.on("round/result")):
                    last = max(p["seq"] for p in console.on("state"))
                    shoe.draw()
                    dealt += 1
                    console.wait_for("the card's state", functools.partial(stated, console, last))
            expected = ["shoe.new", "shoe.burn", *["shoe.card"] * dealt]
            watcher.wait_for("every card's figures", lambda: odds_after(watcher) == expected)
            forged_by_every_role_but_the_table(broker)
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
            for client in (watcher, *others.values()):
                client.close()

    # every other role, reading the whole base, got none of it; nothing forged got through
    assert not any(b"forged" in payload for _, payload in watcher.raw)
    for role, client in others.items():
        assert not [t for t, _ in client.raw if "/surveillance/" in t], role
    assert all(t.startswith(f"{BASE}/surveillance/") for t, _ in watcher.raw)
    # each card's figures name the table's own echo of it (`after.seq` on `event`)
    echoes = {e["seq"]: e for e in console.on("event")}
    for odds in watcher.on("surveillance/odds")[2:]:
        echo = echoes[odds["after"]["seq"]]
        assert (echo["type"], echo["card"]) == ("shoe.card", odds["after"]["card"])
    last = watcher.on("surveillance/odds")[-1]
    assert last["cards_left"] == 416 - 1 - dealt
    assert sum(last["counts"].values()) == last["cards_left"]

    # the journal, exported and replayed, gives the bytes the daemon published
    assert main(["export", "--config", str(cfg)]) == 0
    events = tmp_path / "events.jsonl"
    events.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["replay", "--surveillance", "--config", str(cfg), str(events)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    replayed = [
        (line["topic"], json.dumps(line["payload"], separators=(",", ":"), ensure_ascii=False))
        for line in lines
    ]
    published = [(topic, payload.decode("utf-8")) for topic, payload in watcher.raw]
    assert replayed == published
    assert {line["qos"] for line in lines} == {1} and not any(line["retain"] for line in lines)


def test_after_a_restart_the_feed_waits_for_the_next_shoe(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """What a restart loses (docs/surveillance.md): the feed's shoe. A burn before the stop has
    its figures; after the start a burn has none (the shoe left is not known to the new
    process), and the next `shoe.new` brings them back, numbered by its journal record."""
    broker = mosquitto_factory(locked=True)
    with SimulatedShoe(link=tmp_path / "shoe0") as shoe:
        cfg = write_config(tmp_path, shoe_port=str(tmp_path / "shoe0"), mqtt_port=broker.port)
        cfg.write_text(cfg.read_text() + "[protection]\nenabled = true\n")
        watcher = RawSubscriber(broker.port, "surveillance")
        console = Console(broker.port, BASE)
        try:
            for client in (watcher, console):
                wait_subscribed(client)
            for stage in ("before", "after"):
                opened = len(console.on("device/shoe/status"))
                daemon = DaemonProcess(cfg)
                daemon.start()
                try:
                    console.wait_for(
                        "this start's shoe open", functools.partial(open_since, console, opened)
                    )
                    if stage == "before":
                        shoe.new_shoe(8, seed=5)
                        shoe.burn()
                        watcher.wait_for(
                            "two figures", lambda: odds_after(watcher) == ["shoe.new", "shoe.burn"]
                        )
                    else:
                        burns = burned(console)
                        shoe.burn()
                        console.wait_for("the burn", functools.partial(burned_more, console, burns))
                        shoe.new_shoe(8, seed=6)
                        watcher.wait_for("the new shoe", lambda: len(odds_after(watcher)) == 3)
                    assert daemon.terminate() == 0, daemon.log_text()
                finally:
                    daemon.stop_quietly()
        finally:
            for client in (watcher, console):
                client.close()
    assert odds_after(watcher) == ["shoe.new", "shoe.burn", "shoe.new"]
    first, _, again = watcher.on("surveillance/odds")
    assert again["cards_left"] == 416 and again["record"] > first["record"]
    assert again["shoe_record"] == again["record"]


def burned(console: Console) -> int:
    return sum(1 for e in console.on("event") if e["type"] == "shoe.burn")


def open_since(console: Console, seen: int) -> bool:
    """A `device/shoe/status` saying the shoe is open, after the first `seen` of them."""
    return any(p.get("available") is True for p in console.on("device/shoe/status")[seen:])


def burned_more(console: Console, than: int) -> bool:
    return burned(console) > than
