"""The command kinds of the tamper pass (`python -m hil.campaign --tamper`): a
console that publishes a command with the retain flag, and a command that reaches the table a
second time after thousands of others and a broker restart.

A real `tablectl run` (no device) on a real Mosquitto, and a console (paho). A retained
`cmd/bank` is caught when the table refuses it (`ok: false`, rule R54) and posts no bank; a
wager sent again after `others` commands and a broker restart is caught when it is refused as a
duplicate and the seat still holds one wager.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hil.campaign import BASE, Broker, Daemon, table_config

REPLY_WAIT = 30.0
"""Seconds a console waits for a reply (thousands of commands journaled ahead of it)."""


class Console:
    """A dealer console on the broker (MQTT 5, as the table): sends commands, keeps replies,
    the table's status and its latest state."""

    def __init__(self, port: int) -> None:
        self.replies: dict[str, list[dict[str, Any]]] = {}
        self.online = 0
        self.state: dict[str, Any] = {}
        self._cond = threading.Condition()
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id="tamper-console", protocol=mqtt.MQTTv5
        )
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe(f"{BASE}/#", qos=1)
        self.client.reconnect_delay_set(1, 2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        topic = msg.topic.removeprefix(BASE + "/")
        with self._cond:
            if topic == "status" and msg.payload == b"online":
                self.online += 1
            try:
                payload = json.loads(msg.payload)
            except ValueError:
                payload = None
            if isinstance(payload, dict):
                if topic.endswith("/reply"):
                    self.replies.setdefault(str(payload.get("id")), []).append(payload)
                elif topic == "state":
                    self.state = payload
            self._cond.notify_all()

    def wait(self, what: str, ready: Callable[[], bool], timeout: float = REPLY_WAIT) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not ready():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no {what} within {timeout} s")
                self._cond.wait(left)

    def send(self, verb: str, body: dict[str, Any], *, retain: bool = False) -> dict[str, Any]:
        """Publish `cmd/<verb>` (its id in `body`) and wait for one more reply to that id."""
        ref = str(body["id"])
        with self._cond:
            before = len(self.replies.get(ref, []))
        self.client.publish(f"{BASE}/cmd/{verb}", json.dumps(body), qos=1, retain=retain)
        self.wait(f"reply to {ref}", lambda: len(self.replies.get(ref, [])) > before)
        with self._cond:
            return self.replies[ref][-1]

    def clear(self, verb: str) -> None:
        """What a technician does about a retained command: an empty retained message."""
        self.client.publish(f"{BASE}/cmd/{verb}", b"", qos=1, retain=True).wait_for_publish(10)

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def command_kinds(folder: Path, trials: int, others: int) -> list[dict[str, Any]]:
    """Both command kinds against one table; their figures as the tamper pass prints them."""
    broker = Broker(folder)
    config = table_config(folder, None, broker.port)  # no device: commands only
    daemon = Daemon(config)
    console = Console(broker.port)
    try:
        daemon.start()
        console.wait("the table online", lambda: console.online >= 1)
        retained = _retained(console, trials)
        again = _again(console, broker, min(trials, 3), others)
        code = daemon.terminate()
        if code != 0:
            raise RuntimeError(f"the table exited {code}: {daemon.log.read_text()[-2000:]}")
    finally:
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.proc.kill()
        console.stop()
        broker.stop()
    return [retained, again]


def _retained(console: Console, trials: int) -> dict[str, Any]:
    caught = 0
    for k in range(trials):
        reply = console.send("bank", {"id": f"ret-{k}", "seat": 1, "amount": "500"}, retain=True)
        console.clear("bank")
        console.wait("the clearing's reply", lambda: "None" in console.replies)
        posted = (console.state.get("player_dealer") or {}).get("bank")
        caught += reply.get("ok") is False and reply.get("rule") == "R54" and posted is None
    return {"kind": "a command published retained", "trials": trials, "caught": caught, "by": "R54"}


def _again(console: Console, broker: Broker, trials: int, others: int) -> dict[str, Any]:
    caught = 0
    bank = console.send("bank", {"id": "again-bank", "seat": 1, "amount": "5000"})
    if bank.get("ok") is not True:
        raise RuntimeError(f"the bank was refused: {bank}")
    for k in range(trials):
        wager = {"id": f"again-{k}", "seat": 2 + k, "spot": "player", "amount": "25"}
        if console.send("wager", wager).get("ok") is not True:
            raise RuntimeError(f"wager {k} was refused the first time")
        for n in range(others):
            console.client.publish(f"{BASE}/cmd/round.resume", f'{{"id":"o-{k}-{n}"}}', qos=1)
        console.wait(f"{others} replies", partial(_replied, console, f"o-{k}-{others - 1}"), 600)
        online = console.online
        broker.stop()
        broker.start()
        console.wait("the table online again", partial(_online_after, console, online))
        reply = console.send("wager", wager)
        wagers = [w for w in console.state.get("wagers", []) if w.get("seat") == 2 + k]
        refused = reply.get("ok") is False and "duplicate" in str(reply.get("reason"))
        caught += refused and len(wagers) == 1
    return {
        "kind": f"a command again after {others:,} others and a broker restart",
        "trials": trials,
        "caught": caught,
        "by": "duplicate",
    }


def _replied(console: Console, ref: str) -> bool:
    return ref in console.replies


def _online_after(console: Console, before: int) -> bool:
    return console.online > before
