"""What the floor sees in the end-to-end tests: a shipped config on emulated ports, the daemon with
MQTT on, a console and a floor subscriber, and the checks every game's round makes (balance, no
refusal, no card before the table shows it). Used by test_device_classes_e2e.py and
test_blackjack_e2e.py.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.conftest import MosquittoBroker, broker_on
from tests.integration.harness import (
    REPO,
    TIMEOUT,
    Console,
    DaemonThread,
    Message,
    lock_table,
)

CONFIG = REPO / "config"
Payload = dict[str, Any]


# -- the table: a shipped config, the daemon, a console and a floor subscriber ---------------------


def shipped_config(folder: Path, name: str, *, ports: dict[str, str], mqtt_port: int) -> Path:
    """config/`name` as shipped, with its device ports (shipped path -> emulator port, said to
    be an emulator's as a pseudo-terminal port must be), the broker's port, a journal in
    `folder` and the schedule file found from `folder`. On a locked broker the table connects
    as the shipped config's user, with a password file in `folder`."""
    text = (CONFIG / name).read_text()
    swaps = {
        'file = "schedules/': f'file = "{CONFIG}/schedules/',
        "port = 1883\n": f"port = {mqtt_port}\n",
        **{
            f'port = "{shipped}"': f'port = "{port}"\nemulator = true'
            for shipped, port in ports.items()
        },
    }
    for old, new in swaps.items():
        assert text.count(old) == 1, f"{name}: expected one {old!r}"
        text = text.replace(old, new)
    text, n = re.subn(r'path = "/var/lib/tablectl/[^"]+"', f'path = "{folder}/journal.db"', text)
    assert n == 1, f"{name}: expected one journal path"
    secret = 'password_file = "/etc/tablectl/mqtt-password"'
    assert text.count(secret) == 1, f"{name}: expected one {secret!r}"
    text = text.replace(secret, "")  # lock_table writes the test's own
    user = re.search(r'^username = "([^"]+)"', text, re.MULTILINE)
    assert user is not None, f"{name}: expected a [mqtt] username"
    text = text.replace(user[0], "")
    path = folder / name
    path.write_text(text)
    broker = broker_on(mqtt_port)
    if broker is not None and broker.locked:
        lock_table(path, broker, user[1])
    return path


@contextmanager
def running_table(
    cfg: Path, broker: MosquittoBroker, base: str, devices: list[str]
) -> Iterator[tuple[Console, Console]]:
    """The daemon on `cfg` with a dealer console and a floor subscriber (the floor role: it reads
    everything but the commands), both on `<base>/#` before the daemon starts; yields (console,
    floor) once the table is online and every device is open."""
    console = Console(broker.port, base, client_id="it-console")
    floor = Console(broker.port, base, client_id="it-floor", role="floor")
    try:
        for client in (console, floor):
            wait_subscribed(client)
        with DaemonThread(cfg):
            floor.wait_for("the table online", lambda: "online" in floor.on("status"))
            for name in devices:
                floor.wait_for(f"device {name} open", functools.partial(available, floor, name))
            yield console, floor
    finally:
        for client in (console, floor):
            client.client.disconnect()  # first, so that close()'s loop_stop need not wait 1 s
            client.close()


def wait_subscribed(client: Console) -> None:
    """Return once `client`'s subscription to `<base>/#` is active: the broker has answered it
    with a SUBACK granting it. Mosquitto adds a subscription before it answers, so whatever is
    published after that reaches the client (a probe message would need a role that may write
    under the base, which the floor and the display roles may not)."""
    assert client.subscribed.wait(TIMEOUT), "timed out waiting for the subscription"


def available(floor: Console, device: str) -> bool:
    """The latest `device/<name>/status` says the device is open."""
    statuses = floor.on(f"device/{device}/status")
    return bool(statuses) and statuses[-1]["available"] is True


def latest_state(floor: Console) -> Payload:
    """The newest `state` by seq (an empty dict before the first)."""
    states: list[Payload] = floor.on("state")
    return max(states, key=lambda s: s["seq"]) if states else {}


def round_result(floor: Console, number: int) -> Payload:
    """Wait for round `number`'s `round/result` and return it."""
    floor.wait_for(
        f"round {number}'s result",
        lambda: any(r["round"] == number for r in floor.on("round/result")),
    )
    results: list[Payload] = [r for r in floor.on("round/result") if r["round"] == number]
    (result,) = results  # exactly one per round
    return result


def events(floor: Console, kind: str) -> list[Payload]:
    """The `event` echoes of one input type, in seq order."""
    return sorted((e for e in floor.on("event") if e["type"] == kind), key=lambda e: e["seq"])


def settled(result: Payload) -> list[tuple[int, str, str, str, str]]:
    """(seat, spot, amount, status, net) of every settlement, in settlement order."""
    return [
        (s["seat"], s["spot"], s["amount"], s["status"], s["net"]) for s in result["settlements"]
    ]


def dealer_fee(seat: int, amount: str, schedule: int, total_action: str) -> Payload:
    """The player-dealer's flat collection fee as `round/result.fees` reports it (R4)."""
    return {
        "payer": "player-dealer",
        "seat": seat,
        "amount": amount,
        "schedule": schedule,
        "total_action": total_action,
    }


def assert_bank_balances(result: Payload) -> None:
    """DESIGN contract 3 / R1: the sum of all `net` plus the bank's change is zero."""
    bank = result["bank"]
    change = Decimal(bank["end"]) - Decimal(bank["start"])
    assert sum(Decimal(s["net"]) for s in result["settlements"]) + change == 0


def assert_no_refusals(floor: Console) -> None:
    """Nothing in the round was refused or undecodable: the round went as the test meant."""
    bad = [a for a in floor.on("alert") if a["kind"] in ("rejected", "invalid-input", "invalid")]
    assert bad == []


def table_outputs(messages: list[Message]) -> list[tuple[int, str]]:
    """(seq, payload text) of every message on the table's topics, in no particular order; a
    message without a seq (`status`) counts as seq 0, before everything. Left out: the console's
    own inbound commands (`cmd/<verb>`, published by the dealer console, not by the table; their
    replies `cmd/<verb>/reply` are the table's and stay in)."""
    out = []
    for m in messages:
        inbound = "/cmd/" in m.topic and not m.topic.endswith("/reply")
        if inbound:
            continue
        seq = m.payload.get("seq", 0) if isinstance(m.payload, dict) else 0
        out.append((seq, json.dumps(m.payload)))
    return out


def assert_cards_hidden_until_shown(
    floor: Console, shown_at: dict[str, int], never: list[str]
) -> None:
    """DESIGN contract 3: a card is published only once the rules expose it. `shown_at` maps a
    card to the seq of the message that shows it at the table (nothing with a lower seq may
    name it); `never` are cards no topic may ever name (folded, discarded, left in the device)."""
    outputs = table_outputs(floor.messages)
    for card, seq in shown_at.items():
        early = [s for s, text in outputs if json.dumps(card) in text and s < seq]
        assert early == [], f"{card} published at seq {early} before the table showed it ({seq})"
    for card in never:
        seen = [s for s, text in outputs if json.dumps(card) in text]
        assert seen == [], f"{card} must never be published, but seq {seen} named it"
