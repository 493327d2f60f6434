"""Brokers are locked by default: a table daemon on a broker set up as
config/mosquitto/tablectl.conf says (no anonymous client, a password per user, the ACL that
`tablectl broker-acl` makes), and what each kind of client can and cannot do there.

Mosquitto drops a publish the ACL denies and still acknowledges it (MQTT 5 says "not
authorized" in the PUBACK; 3.1.1 cannot say anything). So each forged message is followed by a
command the dealer console is allowed to send: once its reply is back, the daemon has handled
everything that reached it before, and the subscribers have received everything published
before. What the daemon journaled and what the subscribers received then shows what got through.

The table speaks MQTT 5: a message of its own the ACL refuses stays unsent and
raises an alert; a command with a card the table has not shown reaches the table alone; and on
the shipped broker config nobody can take the table's connection over with its client id.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode

from hil.ports import free_port
from tablectl.broker import acl_text, room_users, table_user
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker, MosquittoFactory, password_for
from tests.integration.floor import running_table, wait_subscribed
from tests.integration.harness import (
    REPO,
    TIMEOUT,
    Console,
    DaemonProcess,
    lock_table,
    write_config,
)

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"
SHIPPED_BROKER_CONF = REPO / "config" / "mosquitto" / "tablectl.conf"


class Client:
    """A bare MQTT client with a user's credentials (or none): the CONNACK's reason code, and
    publishes that wait for their PUBACK and return its reason code."""

    def __init__(
        self,
        port: int,
        credentials: tuple[str, str] | None,
        client_id: str,
        *,
        protocol: MQTTProtocolVersion = mqtt.MQTTv5,
    ) -> None:
        self.connack: ReasonCode | None = None
        self.pubacks: dict[int, ReasonCode] = {}
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol
        )
        if credentials is not None:
            self.client.username_pw_set(*credentials)
        self.client.on_connect = self._on_connect
        self.client.on_publish = self._on_publish
        self.client.connect("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        self._wait("the CONNACK", lambda: self.connack is not None)

    def _on_connect(self, client: Any, _u: Any, _f: Any, reason: ReasonCode, *_: Any) -> None:
        if reason.is_failure:
            client.disconnect()  # no retry: the network loop ends at once
        with self._cond:
            self.connack = reason
            self._cond.notify_all()

    def _on_publish(self, _c: Any, _u: Any, mid: int, reason: ReasonCode, *_: Any) -> None:
        with self._cond:
            self.pubacks[mid] = reason
            self._cond.notify_all()

    def _wait(self, what: str, cond: Any) -> None:
        deadline = time.monotonic() + TIMEOUT
        with self._cond:
            while not cond():
                left = deadline - time.monotonic()
                assert left > 0, f"timed out waiting for {what}"
                self._cond.wait(left)

    def publish(self, topic: str, payload: Any) -> int:
        """Publish with QoS 1; the message id, for `puback`."""
        return self.client.publish(topic, json.dumps(payload), qos=1).mid

    def puback(self, mid: int) -> ReasonCode:
        """The broker's PUBACK reason code for message `mid`, once it has come. (Mosquitto 2.0.11
        with max_queued_messages 0 drops the connection right after a refusing PUBACK, and paho
        reconnects a second later: publish everything first, then wait; `default_queue`.)"""
        self._wait(f"the PUBACK of message {mid}", lambda: mid in self.pubacks)
        return self.pubacks[mid]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def connack(port: int, credentials: tuple[str, str] | None, protocol: Any) -> ReasonCode:
    client = Client(port, credentials, "it-knocking", protocol=protocol)
    client.close()
    assert client.connack is not None
    return client.connack


def seqs(subscriber: Console) -> set[int]:
    """The seq of every table message `subscriber` received (commands and `status` have none)."""
    return {
        p["seq"] for m in subscriber.messages if isinstance(p := m.payload, dict) and "seq" in p
    }


def journaled_commands(journal: Path) -> list[tuple[str, str | None]]:
    """(source, ref) of every command the daemon journaled, in order."""
    with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT source, ref FROM journal WHERE source LIKE 'cmd/%' ORDER BY seq"
        ).fetchall()
    return [(str(source), ref) for source, ref in rows]


@dataclass
class Room:
    broker: MosquittoBroker
    shoe: SimulatedShoe
    journal: Path
    console: Console  # the dealer console of table t1
    floor: Console  # a floor system: reads everything but the commands
    display: Console  # a display page: status, info, state and display/# only


def default_queue(broker: MosquittoBroker) -> None:
    """Mosquitto's default queue for the broker (not started yet), as the shipped config has a
    queue: with the test brokers' `max_queued_messages 0`, Mosquitto 2.0.11 drops the connection
    of a client right after refusing it a QoS 1 publish (measured; not with a queue)."""
    conf = broker.config_path.read_text()
    assert conf.count("max_queued_messages 0\n") == 1
    broker.config_path.write_text(conf.replace("max_queued_messages 0\n", ""))


@pytest.fixture
def room(tmp_path: Path, mosquitto_factory: MosquittoFactory) -> Iterator[Room]:
    """Table t1 of site "it" running on the locked broker, with its console, a floor system and a
    display page subscribed to `<base>/#`, and the users of a second table t2 on the broker."""
    mosquitto = mosquitto_factory(start=False)
    default_queue(mosquitto)
    mosquitto.start()
    (tmp_path / "t2").mkdir()
    write_config(tmp_path / "t2", shoe_port="/dev/null", mqtt_port=mosquitto.port, table="t2")
    with SimulatedShoe() as shoe:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
        console = Console(mosquitto.port, BASE, client_id="it-console")
        floor = Console(mosquitto.port, BASE, client_id="it-floor", role="floor")
        display = Console(mosquitto.port, BASE, client_id="it-display", role="display")
        daemon = DaemonProcess(cfg)
        try:
            for client in (console, floor, display):
                wait_subscribed(client)
            daemon.start()
            floor.wait_for("the table online", lambda: "online" in floor.on("status"))
            floor.wait_for("the shoe open", lambda: floor.device_available())
            yield Room(mosquitto, shoe, tmp_path / "journal.db", console, floor, display)
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
            for client in (console, floor, display):
                client.close()


@pytest.mark.parametrize("protocol", [mqtt.MQTTv311, mqtt.MQTTv5], ids=["3.1.1", "5"])
def test_a_client_without_a_valid_password_is_refused_at_connect(room: Room, protocol: Any) -> None:
    port = room.broker.port
    assert connack(port, None, protocol).is_failure  # anonymous
    assert connack(port, ("table-it-t1", "not-its-password"), protocol).is_failure
    assert connack(port, ("nobody", "secret"), protocol).is_failure
    # the positive control: the same client with the table's credentials is let in
    assert not connack(port, ("table-it-t1", password_for("table-it-t1")), protocol).is_failure


def test_only_the_tables_consoles_command_it_and_nobody_forges_its_results(room: Room) -> None:
    """A foreign table, a foreign table's console, a display page and the floor try to post a
    bank and a wager to table t1 and to publish a result, a reply, a scoreboard and a state under
    its base; the table's own user tries the commands, its console and the pit the rest. The
    broker refuses every one, the daemon journals none, the floor and the console see none. The
    table's dealer console and the pit then command it (the positive controls)."""
    port = room.broker.port
    forged_result = {"table": "t1", "seq": 1_000_000, "round": 1, "forged": True}
    users = {
        "table-it-t2": "a foreign table",
        "console-it-t2": "a foreign table's console",
        "display-it": "a display page",
        "floor-it": "the floor",
        "table-it-t1": "the table's own user",
        "console-it-t1": "the table's own console",
        "pit-it": "the pit",
    }
    forgers: list[Client] = []
    sent: list[tuple[str, str, Client, int]] = []  # who, topic, their client, message id
    try:
        for n, (user, who) in enumerate(users.items()):
            forger = Client(port, (user, password_for(user)), f"it-forger-{n}")
            forgers.append(forger)
            assert forger.connack is not None and not forger.connack.is_failure, who
            forged = [
                ("cmd/bank", {"id": f"forged-b{n}", "seat": 2, "amount": "900"}),
                ("cmd/wager", {"id": f"forged-w{n}", "seat": 3, "spot": "tie", "amount": "5"}),
                ("round/result", forged_result),
                ("cmd/bank/reply", {"table": "t1", "seq": 1_000_001, "id": "forged", "ok": True}),
                ("display/eztrak", forged_result),
                ("state", forged_result),
            ]
            if user == "table-it-t1":  # the table's own topics are its to write, not commands
                forged = forged[:2]
            elif user in ("console-it-t1", "pit-it"):  # commands are theirs, nothing else
                forged = forged[2:]
            for topic, payload in forged:
                sent.append((who, topic, forger, forger.publish(f"{BASE}/{topic}", payload)))
        for who, topic, forger, mid in sent:
            reason = forger.puback(mid)
            assert reason.getName() == "Not authorized", f"{who} published {topic}: {reason}"
    finally:
        for forger in forgers:
            forger.close()

    room.console.ok("bank", {"seat": 4, "amount": "500"})  # the positive control
    pit = Console(port, BASE, client_id="it-pit", role="pit")
    try:
        wait_subscribed(pit)
        pit.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
    finally:
        pit.close()
    room.floor.wait_for("the pit's reply", lambda: len(room.floor.on("cmd/wager/reply")) == 1)

    commands = journaled_commands(room.journal)
    assert [source for source, _ in commands] == ["cmd/bank", "cmd/wager"]  # the controls only
    assert not any(ref and ref.startswith("forged") for _, ref in commands)
    for subscriber in (room.floor, room.console):
        assert all("forged" not in json.dumps(m.payload) for m in subscriber.messages)
        assert [p["ok"] for p in subscriber.on("cmd/bank/reply")] == [True]
        assert max(seqs(subscriber)) < 1_000_000
    state = max(room.floor.on("state"), key=lambda s: s["seq"])
    assert state["player_dealer"]["seat"] == 4
    assert [(w["seat"], w["spot"]) for w in state["wagers"]] == [(1, "player")]
    # the floor reads everything but the commands; the console reads its commands too
    assert room.floor.on("cmd/bank") == []
    assert len(room.console.on("cmd/bank")) == 1


def test_the_floor_gets_every_message_of_a_round_and_a_display_page_only_its_own(
    room: Room,
) -> None:
    """A refused wager, then a whole round. The floor receives every message of the outbox,
    whatever its topic (so the ACL lets the table publish all it publishes: a denied publish
    would be dropped without a word); the display page receives only `status`, `info`,
    `state` and `display/eztrak`, those after the round included (no `round/result`: the
    generated display role reads it only with `--display-results`)."""
    refused = room.console.send("wager", {"seat": 1, "spot": "player", "amount": "25"})
    assert not refused["ok"]  # no bank yet: an alert and a refusing reply
    room.shoe.new_shoe(8, seed=11)
    room.floor.wait_for(
        "the new shoe", lambda: any(e["type"] == "shoe.new" for e in room.floor.on("event"))
    )
    room.console.ok("bank", {"seat": 4, "amount": "500"})
    room.console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
    while not room.floor.on("round/result"):
        last = max(seqs(room.floor))
        room.shoe.draw()

        def stated(n: int = last) -> bool:  # a card's last message is the table's `state`
            return any(p["seq"] > n for p in room.floor.on("state"))

        room.floor.wait_for("the state after the card", stated)
    (result,) = room.floor.on("round/result")

    def stored() -> list[tuple[int, str]]:
        with contextlib.closing(sqlite3.connect(f"file:{room.journal}?mode=ro", uri=True)) as db:
            return db.execute("SELECT seq, topic FROM outbox ORDER BY seq").fetchall()

    # A record's messages may reach the floor a moment before the outbox stores them (in the
    # daemon's same turn: docs/architecture.md "A card's path").
    room.floor.wait_for("the result stored", lambda: result["seq"] in {s for s, _ in stored()})
    rows = stored()
    room.floor.wait_for(
        "every message of the outbox", lambda: {seq for seq, _ in rows} <= seqs(room.floor)
    )
    topics = {t.removeprefix(f"{BASE}/") for _, t in rows}
    assert {"alert", "cmd/wager/reply", "event", "round/result", "display/eztrak"} <= topics

    room.display.wait_for(
        "the scoreboard and the state after the round",
        lambda: all(
            any(p["seq"] > result["seq"] for p in room.display.on(topic))
            for topic in ("display/eztrak", "state")
        ),
    )
    assert {m.topic.removeprefix(f"{BASE}/") for m in room.display.messages} == {
        "status",
        "info",
        "state",
        "display/eztrak",
    }


# -- the shipped broker config, TLS included -------------------------------------------------------


def make_certificates(folder: Path) -> None:
    """A CA and a broker certificate for 127.0.0.1 signed by it, made with openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail(
            "the TLS test needs openssl: install it with `apt-get install openssl` "
            "(scripts/test does)",
            pytrace=False,
        )
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True, timeout=30)

    run("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2",
        "-subj", "/CN=tablectl test CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")  # fmt: skip
    run("req", *key, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1")
    (folder / "broker.ext").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "broker.crt", "-days", "2",
        "-extfile", "broker.ext")  # fmt: skip


def test_the_shipped_broker_config_locks_both_listeners_and_the_table_connects_over_tls(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """config/mosquitto/tablectl.conf as docs/operations.md installs it, its TLS listener opened
    as its comments say: the daemon connects over TLS ([mqtt.tls] ca) with its password and is
    commanded by its console on the loopback listener; neither listener lets anyone in without a
    password."""
    certs = tmp_path / "certs"
    certs.mkdir()
    make_certificates(certs)
    broker = mosquitto_factory(start=False)
    tls_port = free_tls_port(broker.port)
    shipped_broker_config(
        broker,
        {
            "#listener 8883": f"listener {tls_port} 127.0.0.1",
            "#use_username_as_clientid true": "use_username_as_clientid true",
            "#cafile /etc/mosquitto/certs/ca.crt": f"cafile {certs}/ca.crt",
            "#certfile /etc/mosquitto/certs/broker.crt": f"certfile {certs}/broker.crt",
            "#keyfile /etc/mosquitto/certs/broker.key": f"keyfile {certs}/broker.key",
        },
    )
    broker.start()

    with SimulatedShoe() as shoe:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
        text = cfg.read_text().replace(f"port = {broker.port}\n", f"port = {tls_port}\n")
        cfg.write_text(text + f'[mqtt.tls]\nca = "{certs}/ca.crt"\n')
        for port in (broker.port, tls_port):  # anonymous: refused on both listeners
            assert anonymous_refused(port, certs / "ca.crt" if port == tls_port else None)
        console = Console(broker.port, BASE)
        daemon = DaemonProcess(cfg)
        try:
            wait_subscribed(console)
            daemon.start()
            console.wait_for("the table online", lambda: "online" in console.on("status"))
            console.ok("bank", {"seat": 4, "amount": "500"})
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
            console.close()
    assert "as table-it-t1 (p5, c1, k5, u'table-it-t1')" in broker.log_text()  # on MQTT 5
    assert "as console-it-t1 (" in broker.log_text()  # its id "it-console" became its user
    assert journaled_commands(tmp_path / "journal.db")[0][0] == "cmd/bank"


def shipped_broker_config(broker: MosquittoBroker, edits: dict[str, str] | None = None) -> None:
    """Make `broker` (not started yet) run config/mosquitto/tablectl.conf as docs/operations.md
    installs it: its password and ACL files, its port for the loopback listener, and `edits`
    (line -> line) such as the TLS listener's opened."""
    text = SHIPPED_BROKER_CONF.read_text()
    for old, new in {
        "password_file /etc/mosquitto/tablectl.passwd": f"password_file {broker.password_path}",
        "acl_file /etc/mosquitto/tablectl.acl": f"acl_file {broker.acl_path}",
        "listener 1883 127.0.0.1": f"listener {broker.port} 127.0.0.1",
        **(edits or {}),
    }.items():
        assert text.count(old) == 1, f"the shipped tablectl.conf no longer has {old!r}"
        text = text.replace(old, new)
    # what Debian's mosquitto.conf and the test add around it: no persistence, the log to stderr
    generated = broker.config_path.read_text().splitlines()
    extra = [ln for ln in generated if ln.split(" ")[0] in ("user", "persistence", "log_dest")]
    extra += [ln for ln in generated if ln.startswith(("log_type", "connection_messages"))]
    broker.config_path.write_text(text + "\n".join(extra) + "\n")


def free_tls_port(other: int) -> int:
    """A free port for the TLS listener, other than the plain one's."""
    while (port := free_port()) == other:
        pass
    return port


def anonymous_refused(port: int, ca: Path | None) -> bool:
    """An anonymous client (verifying the broker with `ca` on TLS) gets a refusing CONNACK."""
    got: list[ReasonCode] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="it-anonymous")
    if ca is not None:
        client.tls_set(ca_certs=str(ca))

    def on_connect(_c: Any, _u: Any, _f: Any, reason: ReasonCode, *_: Any) -> None:
        got.append(reason)
        done.set()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port, keepalive=10)
    client.loop_start()
    try:
        assert done.wait(TIMEOUT), f"no CONNACK on port {port}"
    finally:
        client.disconnect()
        client.loop_stop()
    return got[0].is_failure


# -- MQTT 5: refusals, card commands, client ids --------------------------------


def outbox_rows(journal: Path) -> list[tuple[int, str, bool]]:
    """(seq, topic, sent) of every outbox row, in seq order."""
    with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT seq, topic, sent FROM outbox ORDER BY seq").fetchall()
    return [(int(seq), str(topic), bool(sent)) for seq, topic, sent in rows]


def test_a_message_the_acl_refuses_stays_unsent_raises_an_alert_and_holds_the_rest(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """The table's user may not write `device/+/status` (an ACL older than the release, say).
    Under MQTT 3.1.1 the broker acknowledged the shoe's status and the row was marked sent,
    lost. Now the row stays unsent, the floor gets a `publish-refused` alert (from memory) and
    `journal/status` counts the backlog; a command is journaled but its reply waits behind the
    refused row. Once the ACL is regenerated the row goes first, then the rest, in seq order,
    and a `publish-accepted` alert says so."""
    broker = mosquitto_factory(start=False)
    default_queue(broker)
    broker.start()
    with SimulatedShoe() as shoe:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
        users = room_users(list(broker.tables.values()))
        full = acl_text(users)
        denied = f"topic write {BASE}/device/+/status\n"
        assert full.count(denied) == 1
        broker.lock_with([u.name for u in users], full.replace(denied, ""))
        console = Console(broker.port, BASE)
        floor = Console(broker.port, BASE, client_id="it-floor", role="floor")
        daemon = DaemonProcess(cfg)
        try:
            for client in (console, floor):
                wait_subscribed(client)
            daemon.start()

            def alerts(kind: str) -> list[dict[str, Any]]:
                return [a for a in floor.on("alert") if a.get("kind") == kind]

            floor.wait_for("the refusal's alert", lambda: bool(alerts("publish-refused")))
            (refused,) = alerts("publish-refused")
            assert refused["topic"] == "device/shoe/status" and "seq" not in refused
            assert "Not authorized (0x87)" in refused["reason"]
            held = refused["outbox_seq"]
            console.client.publish(f"{BASE}/cmd/bank", json.dumps({"id": "held-back"}), qos=1)
            deadline = time.monotonic() + TIMEOUT
            while not journaled_commands(tmp_path / "journal.db"):
                assert time.monotonic() < deadline, "the command was not journaled"
                time.sleep(0.05)  # poll interval, bounded by the deadline
            rows = outbox_rows(tmp_path / "journal.db")
            assert (held, f"{BASE}/device/shoe/status", False) in rows
            assert not any(sent for seq, _, sent in rows if seq > held)
            floor.wait_for(
                "the backlog counted",
                lambda: any(s.get("unsent", 0) >= 2 for s in floor.on("journal/status")),
            )
            assert floor.on("device/shoe/status") == [] and floor.on("cmd/bank/reply") == []

            broker.lock_with([u.name for u in users], full)  # the ACL regenerated
            floor.wait_for("the reply at last", lambda: bool(floor.on("cmd/bank/reply")))
            floor.wait_for("the all-clear", lambda: bool(alerts("publish-accepted")))
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
            for client in (console, floor):
                client.close()
    (accepted,) = alerts("publish-accepted")
    assert (accepted["outbox_seq"], accepted["topic"]) == (held, "device/shoe/status")
    assert all(sent for _, _, sent in outbox_rows(tmp_path / "journal.db"))
    topics = [m.topic.removeprefix(f"{BASE}/") for m in floor.messages]
    assert topics.index("device/shoe/status") < topics.index("cmd/bank/reply")
    delivered = [
        p["seq"] for m in floor.messages if isinstance(p := m.payload, dict) and "seq" in p
    ]
    after = delivered[delivered.index(held) :]
    assert after == sorted(after), "a message passed the refused one"


HOLDEM = "tablectl/cardroom-1/holdem-04"


def holdem_config(folder: Path, mqtt_port: int) -> Path:
    """A 004 $4-$8 Hold'em table with no reader: the console keys the hole cards."""
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


def test_hole_cards_keyed_at_a_console_reach_the_table_and_no_other_client(
    tmp_path: Path, mosquitto_factory: MosquittoFactory
) -> None:
    """Issue 24 item 7: `cmd/hole.cards` used to be readable live by the table's other consoles
    and the site's pit (and the floor only by its deny line). Now the table alone reads it:
    another console of the same table, the pit, the floor, a display page and the broadcast
    role, each subscribed to the whole base, receive none, while the table applies both
    seats' cards (its replies, which they do receive, say ok). They still read the open
    commands (the seats taken), so they were listening."""
    broker = mosquitto_factory()
    cfg = holdem_config(tmp_path, broker.port)
    lock_table(cfg, broker, "table-cardroom-1-holdem-04")
    others = {
        role: Console(broker.port, HOLDEM, client_id=f"it-{role}", role=role)
        for role in ("pit", "display", "broadcast")
    }
    others["another console"] = Console(broker.port, HOLDEM, client_id="it-console-2")
    try:
        for client in others.values():
            wait_subscribed(client)
        with running_table(cfg, broker, HOLDEM, []) as (console, floor):
            others["floor"] = floor
            for seat in (1, 3):
                console.ok("seat.take", {"seat": seat, "stack": "100"})
            console.ok("hand.start", {"button": 1})
            for seat, cards in {1: ["7c", "2d"], 3: ["Ah", "Kh"]}.items():
                console.ok("hole.cards", {"seat": seat, "cards": cards})
            floor.wait_for(
                "both seats' cards applied",
                lambda: (
                    [e["seat"] for e in floor.on("event") if e["type"] == "hole.cards"] == [1, 3]
                ),
            )
            for role in ("pit", "another console"):
                others[role].wait_for(
                    f"the replies at the {role}",
                    lambda r=role: len(others[r].on("cmd/hole.cards/reply")) == 2,  # type: ignore[misc]
                )
            assert console.on("cmd/hole.cards") == []  # the sending console's user too
    finally:
        for client in others.values():
            client.close()
    for role, client in others.items():
        assert client.on("cmd/hole.cards") == [], role
        assert not any("Ah" in json.dumps(m.payload) for m in client.messages), role
    for role in ("pit", "another console"):
        assert len(others[role].on("cmd/seat.take")) == 2, role
    assert {(r["ok"]) for r in others["floor"].on("cmd/hole.cards/reply")} == {True}


@pytest.mark.parametrize("shipped", [True, False], ids=["shipped config", "control"])
def test_a_client_with_the_tables_client_id_cannot_knock_it_off_the_shipped_broker(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, shipped: bool
) -> None:
    """On a broker running config/mosquitto/tablectl.conf (`use_username_as_clientid`) a display
    page that connects with the table's client id gets its own user name as its id: the table
    stays connected (no Last Will, no takeover) and answers its console. The control: the same
    client on a broker without that line takes the table's connection over."""
    broker = mosquitto_factory(start=False)
    if shipped:
        shipped_broker_config(broker)
    broker.start()
    with SimulatedShoe() as shoe:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
        table_id = table_user(broker.tables[BASE])  # the table's client id: its user's name
        floor = Console(broker.port, BASE, client_id="it-floor", role="floor")
        console = Console(broker.port, BASE, client_id="it-console")
        daemon = DaemonProcess(cfg)
        try:
            for client in (floor, console):
                wait_subscribed(client)
            daemon.start()
            floor.wait_for("the table online", lambda: "online" in floor.on("status"))
            intruder = Client(broker.port, broker.credentials("display", BASE), table_id)
            try:
                assert intruder.connack is not None and not intruder.connack.is_failure
                if shipped:
                    console.ok("bank", {"seat": 4, "amount": "500"})
                    # still the one connection: no Will (the table repeats `online` as
                    # its heartbeat, docs/mqtt.md `status`)
                    assert floor.times_online() == 1 and "offline" not in floor.on("status")
                else:
                    floor.wait_for("the Will", lambda: "offline" in floor.on("status"))
            finally:
                intruder.close()
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
            for client in (floor, console):
                client.close()
    log = broker.log_text()
    takeover = f"Client {table_id} already connected, closing old connection."
    assert (takeover in log) is not shipped, log
    assert f"as {table_id} (p5" in log  # the table, on MQTT 5
    if shipped:
        assert "as display-it (p5" in log  # the intruder, as its own user


def test_only_the_ledger_asks_a_table_for_history_and_reads_the_answer(room: Room) -> None:
    """The ledger role publishes `cmd/history` and reads the table's answer on `history`; the
    floor, the display page and the console, subscribed to the whole base, never receive the
    answer (nor the request: the floor and display read no command, and the console reads only
    the commands that show no card); the table never journals the request."""
    ledger = Console(room.broker.port, BASE, client_id="it-ledger", role="ledger")
    try:
        wait_subscribed(ledger)
        room.shoe.new_shoe(8, seed=11)
        room.floor.wait_for(
            "the new shoe", lambda: any(e["type"] == "shoe.new" for e in room.floor.on("event"))
        )
        ledger.client.publish(
            f"{BASE}/cmd/history", json.dumps({"id": "l-1", "from": 1, "to": 5}), qos=1
        )
        ledger.wait_for("the answer", lambda: bool(ledger.on("history")))
        (answer,) = ledger.on("history")
        assert answer["ok"] and [m["seq"] for m in answer["messages"]] == [1, 2, 3, 4, 5]
        # The table publishes in order: a state made after its answer reaching a client means
        # the answer would have reached it first, had the broker let it.
        before = max(seqs(room.floor))
        room.console.ok("bank", {"seat": 4, "amount": "500"})
        for client in (room.floor, room.display, room.console):

            def newer(c: Console = client) -> bool:
                return any(p["seq"] > before for p in c.on("state"))

            client.wait_for("a state after the answer", newer)
            assert not client.on("history") and not client.on("cmd/history")
        assert all(src != "cmd/history" for src, _ in journaled_commands(room.journal))
    finally:
        ledger.close()
