"""The MQTT relay against a real Mosquitto: ordering, acknowledgment, Last Will, outages, commands,
and what MQTT 5 adds: a publish the broker refuses (its ACL) stays unsent and holds the rows after
it; commands keep their retain flag; the session still ends with the connection.

Every wait is bounded (`wait_until` polls with a deadline; `asyncio.wait_for` elsewhere) so a
failure is a timeout with a message, never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import select
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import aiomqtt
import pytest
import structlog
from structlog.testing import capture_logs

from hil.ports import RefusedPort
from tablectl.outputs import OutboxRow
from tablectl.relay import (
    STATUS_OFFLINE,
    STATUS_ONLINE,
    Refusal,
    Relay,
    RelayState,
)
from tests.conftest import password_for

pytestmark = pytest.mark.integration

BASE = "tablectl/site1/t1"
_ids = itertools.count(1)


class MosquittoBroker(Protocol):
    """What the conftest ``mosquitto`` fixtures give (described here, not imported from it)."""

    host: str
    port: int
    config_path: Path

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def log_text(self) -> str: ...
    def lock_with(self, users: Sequence[str], acl: str) -> None: ...


class TcpProxy(Protocol):
    host: str
    port: int
    accepted: int

    def cut(self) -> None: ...


MosquittoFactory = Callable[..., MosquittoBroker]
ProxyFactory = Callable[[str, int], Awaitable[TcpProxy]]


# -- helpers -----------------------------------------------------------------------------------


class MemoryOutbox:
    """The `Outbox` protocol in memory, recording what the relay marked sent."""

    def __init__(self) -> None:
        self.rows: dict[int, OutboxRow] = {}
        self.sent: set[int] = set()
        self.mark_calls: list[list[int]] = []
        self.on_mark: Callable[[], None] | None = None
        self._seq = itertools.count(1)

    def add(self, suffix: str = "event", *, retain: bool = False, **fields: Any) -> OutboxRow:
        seq = next(self._seq)
        payload = json.dumps({"table": "t1", "seq": seq, **fields}).encode()
        row = OutboxRow(seq, f"{BASE}/{suffix}", payload, 1, retain)
        self.rows[seq] = row
        return row

    def pending(self, limit: int) -> list[OutboxRow]:
        return [self.rows[s] for s in sorted(self.rows) if s not in self.sent][:limit]

    def mark_sent(self, seqs: Sequence[int]) -> None:
        seqs = list(seqs)
        assert seqs, "mark_sent called with nothing"
        assert set(seqs) <= self.rows.keys(), "marked a seq that was never in the outbox"
        self.mark_calls.append(seqs)
        self.sent.update(seqs)
        if self.on_mark is not None:
            self.on_mark()

    @property
    def unsent(self) -> int:
        return len(self.rows.keys() - self.sent)

    def latest_retained(self) -> list[OutboxRow]:
        newest: dict[str, OutboxRow] = {}
        for seq in sorted(self.rows):
            if self.rows[seq].retain:
                newest[self.rows[seq].topic] = self.rows[seq]
        return sorted(newest.values(), key=lambda r: r.seq)


@dataclass(frozen=True)
class Received:
    topic: str
    payload: bytes
    qos: int
    retain: bool

    @property
    def seq(self) -> int:
        seq: int = json.loads(self.payload)["seq"]
        return seq


class Collector:
    """A test subscriber (aiomqtt, QoS 1) that records everything under ``BASE``."""

    def __init__(
        self, broker: MosquittoBroker, topic_filter: str = f"{BASE}/#", *, user: str | None = None
    ) -> None:
        self.broker = broker
        self.topic_filter = topic_filter
        self.user = user  # on a locked broker (`refusing_broker`)
        self.messages: list[Received] = []
        self.client: aiomqtt.Client
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Collector:
        self.client = aiomqtt.Client(
            self.broker.host,
            self.broker.port,
            identifier=f"test-collector-{next(_ids)}",
            username=self.user,
            password=None if self.user is None else password_for(self.user),
        )
        await asyncio.wait_for(self.client.__aenter__(), 5)
        await self.client.subscribe(self.topic_filter, qos=1)
        self._task = asyncio.create_task(self._collect())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        with contextlib.suppress(aiomqtt.MqttError):
            await asyncio.wait_for(self.client.__aexit__(None, None, None), 5)

    async def _collect(self) -> None:
        with contextlib.suppress(aiomqtt.MqttError):  # the broker went away: stop collecting
            async for m in self.client.messages:
                self.messages.append(Received(m.topic.value, bytes(m.payload), m.qos, m.retain))

    def on(self, suffix: str) -> list[Received]:
        return [m for m in self.messages if m.topic == f"{BASE}/{suffix}"]

    def statuses(self) -> list[bytes]:
        return [m.payload for m in self.on("status")]

    def row_messages(self) -> list[Received]:
        """What the relay published from the outbox (not status, commands or sync markers)."""
        others = (f"{BASE}/status", f"{BASE}/marker")
        return [
            m
            for m in self.messages
            if m.topic not in others and not m.topic.startswith(f"{BASE}/cmd/")
        ]

    async def sync(self) -> None:
        """Publish a marker to ourselves and wait for it: everything the broker queued for us
        before (e.g. retained messages after SUBACK) has then arrived."""
        marker = f"marker-{next(_ids)}".encode()
        await self.client.publish(f"{BASE}/marker", marker, qos=1)
        await wait_until(lambda: any(m.payload == marker for m in self.messages), what="marker")


async def wait_until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "") -> None:
    """Poll ``predicate`` until true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(0.005)


class ManualSleep:
    """An injectable ``sleep`` that records delays and returns only when the test fires it."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self._waiters: list[asyncio.Future[None]] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        finally:
            self._waiters.remove(fut)

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def fire(self) -> None:
        for fut in self._waiters:
            if not fut.done():
                fut.set_result(None)


def make_relay(outbox: MemoryOutbox, host: str, port: int, **kwargs: Any) -> tuple[Relay, str]:
    client_id = f"tablectl-test-{next(_ids)}"
    kwargs.setdefault("backoff_initial", 0.01)
    kwargs.setdefault("backoff_max", 0.05)
    relay = Relay(outbox, host=host, port=port, base_topic=BASE, client_id=client_id, **kwargs)
    return relay, client_id


@contextlib.asynccontextmanager
async def running(relay: Relay) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``relay.run()`` in a task for the block; cancel it afterwards."""
    task = asyncio.create_task(relay.run())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)


async def broker_saw_goodbye(broker: MosquittoBroker, client_id: str) -> str:
    """Wait until Mosquitto logged the end of ``client_id``'s connection; return its log.

    Mosquitto 2.0 logs "Client X disconnected." after an MQTT DISCONNECT and "Client X closed
    its connection." when the socket closed without one (the case that publishes the Will).
    """
    ends = (f"Client {client_id} disconnected.", f"Client {client_id} closed its connection.")
    await wait_until(lambda: any(e in broker.log_text() for e in ends), what="the broker's log")
    return broker.log_text()


def assert_rows_intact(outbox: MemoryOutbox, received: Sequence[Received]) -> None:
    """Every received row is an outbox row byte for byte: repeats allowed, new seqs never."""
    for m in received:
        row = outbox.rows.get(m.seq)
        assert row is not None, f"received a seq the outbox never had: {m.seq}"
        assert (m.topic, m.payload) == (row.topic, row.payload)


# -- publishing --------------------------------------------------------------------------------


async def test_rows_published_in_seq_order_with_flags_and_marked_sent(
    mosquitto: MosquittoBroker,
) -> None:
    outbox = MemoryOutbox()
    for i in range(1, 101):
        if i % 10 == 0:
            outbox.add("state", retain=True, round=i // 10)
        elif i == 5:
            outbox.add("device/shoe/status", retain=True, ok=True)
        else:
            outbox.add("event", n=i)
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, window=8)

    async with Collector(mosquitto) as live, running(relay):
        await wait_until(lambda: len(live.row_messages()) == 100, what="all 100 rows")
        await wait_until(lambda: outbox.unsent == 0, what="all rows marked sent")

        rows = live.row_messages()
        assert [m.seq for m in rows] == list(range(1, 101))
        assert_rows_intact(outbox, rows)
        assert {m.qos for m in rows} == {1}  # QoS 1 subscription: delivered at the publish QoS
        assert sorted(itertools.chain.from_iterable(outbox.mark_calls)) == list(range(1, 101))
        assert max(len(c) for c in outbox.mark_calls) <= 8  # never more than the window

        # A late subscriber sees exactly the retained rows: the last state, the device status,
        # and "online" -- no event.
        async with Collector(mosquitto) as late:
            await late.sync()
            retained = {m.topic: m.payload for m in late.messages if m.retain}
            assert retained == {
                f"{BASE}/status": STATUS_ONLINE,
                f"{BASE}/state": outbox.rows[100].payload,
                f"{BASE}/device/shoe/status": outbox.rows[5].payload,
            }


async def test_wake_publishes_new_rows_at_once(mosquitto: MosquittoBroker) -> None:
    outbox = MemoryOutbox()
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, poll_interval=60)
    async with Collector(mosquitto) as live, running(relay):
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE], what="online")
        await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
        outbox.add(n=1)
        relay.wake()
        # far below the 60 s poll interval: only wake() can have done it
        await wait_until(lambda: len(live.row_messages()) == 1, timeout=3, what="woken row")


async def test_rows_found_by_periodic_check_without_wake(mosquitto: MosquittoBroker) -> None:
    outbox = MemoryOutbox()
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, poll_interval=0.05)
    async with Collector(mosquitto) as live, running(relay):
        await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
        outbox.add(n=1)  # no wake()
        await wait_until(lambda: len(live.row_messages()) == 1, what="polled row")


async def test_every_retained_topic_comes_back_after_a_broker_restart_without_persistence(
    mosquitto: MosquittoBroker,
) -> None:
    """The test broker keeps nothing across a restart (persistence false). After it, a fresh
    subscriber gets each retained topic's newest row again, same seq and bytes, and `online`;
    no event comes back, and nothing but the newest row of a topic is published again."""
    outbox = MemoryOutbox()
    for i in range(1, 4):
        outbox.add("state", retain=True, round=i)
        outbox.add("device/shoe/status", retain=True, available=i % 2 == 1)
        outbox.add("event", n=i)
    outbox.add("display/eztrak", retain=True, hands=3)
    outbox.add("journal/head", retain=True, chain="ab12")
    newest = {r.topic: r.payload for r in outbox.latest_retained()}
    assert len(newest) == 4
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port)
    async with running(relay):
        await wait_until(lambda: outbox.unsent == 0, what="every row sent")
        mosquitto.stop()
        mosquitto.start()  # same port, nothing retained
        async with Collector(mosquitto) as live:
            await wait_until(lambda: live.statuses() == [STATUS_ONLINE], what="online again")
            await wait_until(lambda: len(live.row_messages()) == 4, what="the retained rows")
            await asyncio.sleep(0.2)  # anything more would have come by now
            assert {m.topic: m.payload for m in live.row_messages()} == newest
            assert [m.seq for m in live.row_messages()] == sorted(
                m.seq for m in live.row_messages()
            )
        async with Collector(mosquitto) as fresh:
            await fresh.sync()
            retained = {m.topic: m.payload for m in fresh.messages if m.retain}
            assert retained == {f"{BASE}/status": STATUS_ONLINE, **newest}


async def test_a_retained_row_published_again_never_overtakes_an_older_pending_row(
    mosquitto: MosquittoBroker,
) -> None:
    """State 5 was acknowledged but state 3 was not (marks lost out of order): state 5 goes out
    again after state 3, in seq order, so the broker ends on 5. With a window of one the
    pending rows are read one at a time, so 5 also waits for the pending rows before it."""
    outbox = MemoryOutbox()
    outbox.add("event", n=1)
    outbox.add("state", retain=True, round=1)
    outbox.add("state", retain=True, round=2)
    outbox.add("event", n=2)
    outbox.add("state", retain=True, round=3)
    outbox.add("device/shoe/status", retain=True, available=True)
    outbox.sent.update({1, 2, 5})
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, window=1)
    async with Collector(mosquitto) as live, running(relay):
        await wait_until(lambda: len(live.row_messages()) == 4, what="four rows")
        await asyncio.sleep(0.2)  # anything more would have come by now
        assert [m.seq for m in live.row_messages()] == [3, 4, 5, 6]
        assert_rows_intact(outbox, live.row_messages())
        async with Collector(mosquitto, f"{BASE}/state") as late:
            await wait_until(lambda: bool(late.messages), what="retained state")
            assert [m.payload for m in late.messages] == [outbox.rows[5].payload]


# -- status and Last Will ----------------------------------------------------------------------


async def test_online_is_retained_on_connect(mosquitto: MosquittoBroker) -> None:
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    async with running(relay):
        await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
        async with Collector(mosquitto, f"{BASE}/status") as late:
            await wait_until(lambda: bool(late.messages), what="retained status")
            (status,) = late.messages
            assert (status.payload, status.retain, status.qos) == (STATUS_ONLINE, True, 1)


async def test_availability_is_the_bare_word_home_assistant_and_node_red_expect(
    mosquitto: MosquittoBroker,
) -> None:
    """`online` and `offline` without JSON quotes (docs/mqtt.md, changed in issue 14): the
    payloads Home Assistant's availability_topic and Node-RED compare against."""
    assert (STATUS_ONLINE, STATUS_OFFLINE) == (b"online", b"offline")
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    async with Collector(mosquitto, f"{BASE}/status") as live:
        task = asyncio.create_task(relay.run())
        await wait_until(lambda: live.statuses() == [b"online"], what="online")
        await asyncio.wait_for(relay.stop(), 5)
        await asyncio.wait_for(task, 5)
        await wait_until(lambda: live.statuses() == [b"online", b"offline"], what="offline")


async def test_last_will_when_the_connection_is_cut(
    mosquitto: MosquittoBroker, tcp_proxy_factory: ProxyFactory
) -> None:
    """A pulled cable: the relay cannot send anything, so "offline" can only be the Will."""
    proxy = await tcp_proxy_factory(mosquitto.host, mosquitto.port)
    relay, _ = make_relay(MemoryOutbox(), proxy.host, proxy.port)
    async with Collector(mosquitto, f"{BASE}/status") as live, running(relay):
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE], what="online")
        proxy.cut()
        await wait_until(lambda: live.statuses()[1:2] == [STATUS_OFFLINE], what="the Will")
        # ...and the relay comes back on its own, announcing itself again.
        await wait_until(
            lambda: live.statuses() == [STATUS_ONLINE, STATUS_OFFLINE, STATUS_ONLINE],
            what="online after reconnect",
        )
        assert proxy.accepted >= 2


async def test_last_will_when_run_is_cancelled(mosquitto: MosquittoBroker) -> None:
    """Cancelling run() (no stop()) drops the link without DISCONNECT, so the Will fires."""
    relay, client_id = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    async with Collector(mosquitto, f"{BASE}/status") as live:
        task = asyncio.create_task(relay.run())
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE], what="online")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE, STATUS_OFFLINE], what="Will")
    log_text = await broker_saw_goodbye(mosquitto, client_id)
    assert f"Client {client_id} closed its connection." in log_text  # not a clean DISCONNECT
    assert f"Client {client_id} disconnected." not in log_text
    async with Collector(mosquitto, f"{BASE}/status") as late:
        await wait_until(lambda: bool(late.messages), what="retained status")
        assert [(m.payload, m.retain) for m in late.messages] == [(STATUS_OFFLINE, True)]


async def test_heartbeat_publishes_the_retained_online_again_from_memory_not_the_outbox(
    mosquitto: MosquittoBroker,
) -> None:
    """Every `heartbeat` seconds the retained `online` again, so a page can tell
    a silent table from a quiet one; a notice from memory: no outbox row is added, read as
    sent or marked for it, the outbox's own row is published and marked once."""
    outbox = MemoryOutbox()
    outbox.add("state", retain=True, round=1)
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, heartbeat=0.2)
    async with Collector(mosquitto, f"{BASE}/#") as live, running(relay):
        await wait_until(lambda: len(live.statuses()) >= 6, what="five heartbeats")
        arrived = [m for m in live.messages if m.topic == f"{BASE}/status"]
        assert {(m.payload, m.qos) for m in arrived} == {(STATUS_ONLINE, 1)}
        assert relay.beats >= 5
        assert len(live.on("state")) == 1  # the outbox row once, never again with the beats
        assert outbox.mark_calls == [[1]] and list(outbox.rows) == [1]
        async with Collector(mosquitto, f"{BASE}/status") as late:  # and it is retained
            await wait_until(lambda: bool(late.messages), what="the retained status")
            assert [(m.payload, m.retain) for m in late.messages] == [(STATUS_ONLINE, True)]
    with pytest.raises(ValueError, match="heartbeat"):
        make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port, heartbeat=0)


async def test_heartbeats_come_at_their_interval(mosquitto: MosquittoBroker) -> None:
    """The beats' spacing is the interval (the publisher's turn waits no longer than the next
    beat), not the 1 s poll; printed."""
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port, heartbeat=0.3)
    arrivals: list[float] = []
    loop = asyncio.get_running_loop()
    async with Collector(mosquitto, f"{BASE}/status") as live, running(relay):
        seen = 0
        while len(arrivals) < 5:
            await wait_until(lambda: len(live.messages) > seen, what="the next status")  # noqa: B023
            seen = len(live.messages)
            arrivals.append(loop.time())
    gaps = [round(b - a, 3) for a, b in itertools.pairwise(arrivals)]
    print(f"heartbeat 0.3 s: gaps between online messages {gaps} s")
    assert all(0.2 <= g <= 0.6 for g in gaps), gaps


async def test_stop_publishes_offline_and_disconnects_cleanly(mosquitto: MosquittoBroker) -> None:
    relay, client_id = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    async with Collector(mosquitto, f"{BASE}/status") as live:
        task = asyncio.create_task(relay.run())
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE], what="online")
        await asyncio.wait_for(relay.stop(), 5)
        assert task.done() and task.exception() is None  # stop() waited for run() to return
        assert relay.state is RelayState.DISCONNECTED
        await wait_until(lambda: live.statuses() == [STATUS_ONLINE, STATUS_OFFLINE], what="offline")
    log_text = await broker_saw_goodbye(mosquitto, client_id)
    assert f"Client {client_id} disconnected." in log_text  # a clean MQTT DISCONNECT
    assert f"Client {client_id} closed its connection." not in log_text  # so no Will
    async with Collector(mosquitto, f"{BASE}/status") as late:
        await wait_until(lambda: bool(late.messages), what="retained status")
        assert [(m.payload, m.retain) for m in late.messages] == [(STATUS_OFFLINE, True)]


def test_a_stopped_brokers_port_is_held_refusing_until_the_broker_starts_again(
    mosquitto: MosquittoBroker,
) -> None:
    """Tables retry a stopped broker's port until it is back: the test broker holds it as a
    RefusedPort from its making to the teardown, and listens on it when it runs."""
    mosquitto.stop()
    with socket.socket() as client, pytest.raises(ConnectionRefusedError):
        client.connect((mosquitto.host, mosquitto.port))
    with socket.socket() as client, pytest.raises(OSError, match="in use"):
        client.bind((mosquitto.host, mosquitto.port))
    mosquitto.start()
    with socket.create_connection((mosquitto.host, mosquitto.port), timeout=5) as client:
        assert client.getpeername() == (mosquitto.host, mosquitto.port)


async def test_stop_during_backoff_returns_promptly(refused_port: RefusedPort) -> None:
    sleep = ManualSleep()
    relay, _ = make_relay(MemoryOutbox(), "127.0.0.1", refused_port.port, sleep=sleep)
    task = asyncio.create_task(relay.run())
    await wait_until(lambda: sleep.waiting == 1, what="backoff")
    await asyncio.wait_for(relay.stop(), 5)  # the sleep is never fired
    assert task.done() and task.exception() is None
    assert relay.state is RelayState.DISCONNECTED


# -- outages -----------------------------------------------------------------------------------


async def test_broker_outage_loses_nothing(mosquitto: MosquittoBroker) -> None:
    outbox = MemoryOutbox()
    for i in range(5):
        outbox.add(n=i)
    sleep = ManualSleep()
    relay, _ = make_relay(
        outbox, mosquitto.host, mosquitto.port, sleep=sleep, backoff_initial=0.5, backoff_max=30
    )
    # The first subscriber is in place before the relay publishes; it dies with the broker.
    async with Collector(mosquitto) as before, running(relay) as task:
        await wait_until(lambda: outbox.unsent == 0, what="first rows sent")
        await wait_until(lambda: len(before.row_messages()) == 5, what="first rows")

        mosquitto.stop()
        await wait_until(
            lambda: sleep.waiting == 1 and relay.state is RelayState.BACKOFF, what="backoff"
        )
        for i in range(5, 25):
            outbox.add(n=i)
            relay.wake()
        calls_before = len(outbox.mark_calls)
        # A reconnect attempt while the broker is still down fails and backs off longer.
        sleep.fire()
        await wait_until(lambda: len(sleep.delays) == 2 and sleep.waiting == 1, what="retry")
        assert jittered(sleep.delays, [0.5, 1.0])
        assert outbox.unsent == 20 and len(outbox.mark_calls) == calls_before

        mosquitto.start()  # same port
        async with Collector(mosquitto) as after:
            sleep.fire()
            await wait_until(lambda: outbox.unsent == 0, what="backlog sent")
            await wait_until(
                lambda: {m.seq for m in after.row_messages()} >= set(range(6, 26)),
                what="every backlog row",
            )
            assert_rows_intact(outbox, after.row_messages())
            assert relay.state is RelayState.CONNECTED
        assert not task.done()


async def test_connection_lost_mid_batch_resends_unacknowledged_rows(
    mosquitto: MosquittoBroker, tcp_proxy_factory: ProxyFactory
) -> None:
    outbox = MemoryOutbox()
    total = 2000
    for i in range(total):
        outbox.add(n=i)
    proxy = await tcp_proxy_factory(mosquitto.host, mosquitto.port)
    relay, _ = make_relay(outbox, proxy.host, proxy.port, window=50)
    unsent_at_cut: list[int] = []

    def cut_mid_stream() -> None:
        if not unsent_at_cut and len(outbox.sent) >= 300:
            unsent_at_cut.append(outbox.unsent)
            proxy.cut()

    outbox.on_mark = cut_mid_stream
    async with Collector(mosquitto) as live, running(relay):
        await wait_until(lambda: outbox.unsent == 0, timeout=20, what="all rows sent")
        await wait_until(
            lambda: {m.seq for m in live.row_messages()} == set(range(1, total + 1)),
            timeout=10,
            what="every row at the subscriber",
        )
    assert unsent_at_cut and unsent_at_cut[0] > 0, "the cut did not land mid-stream"
    assert proxy.accepted >= 2, "the relay did not reconnect"
    received = live.row_messages()
    assert_rows_intact(outbox, received)
    # Repeats are allowed, gaps never: whenever a seq arrives, every lower seq has arrived.
    highest = 0
    for m in received:
        assert m.seq <= highest + 1, f"seq {m.seq} arrived before {highest + 1}"
        highest = max(highest, m.seq)
    assert STATUS_OFFLINE in live.statuses()  # the cut fired the Will


# -- backoff state machine ---------------------------------------------------------------------


def jittered(delays: Sequence[float], ceilings: Sequence[float]) -> bool:
    """Each delay is in [ceiling/2, ceiling] (equal jitter, tablectl_base.backoff)."""
    return len(delays) == len(ceilings) and all(
        c / 2 <= d <= c for d, c in zip(delays, ceilings, strict=True)
    )


async def test_reconnect_state_machine_with_fired_timer(
    mosquitto_factory: MosquittoFactory, refused_port: RefusedPort
) -> None:
    port = refused_port.port  # nothing listens here yet
    sleep = ManualSleep()
    with capture_logs() as logs:
        relay, _ = make_relay(
            MemoryOutbox(), "127.0.0.1", port, sleep=sleep, backoff_initial=0.5, backoff_max=4
        )
        async with running(relay):
            for attempt in range(1, 7):

                def backed_off(n: int = attempt) -> bool:
                    return len(sleep.delays) == n and sleep.waiting == 1

                await wait_until(backed_off, what=f"backoff {attempt}")
                assert relay.state is RelayState.BACKOFF
                if attempt < 6:
                    sleep.fire()
            assert jittered(sleep.delays, [0.5, 1, 2, 4, 4, 4])

            refused_port.release()  # the relay waits on the sleep: it cannot connect meanwhile
            broker = mosquitto_factory(port=port)
            sleep.fire()
            await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
            broker.stop()
            await wait_until(lambda: len(sleep.delays) == 7, what="backoff after loss")
            assert jittered(sleep.delays[-1:], [0.5])  # reset by the successful connect

    transitions = [(e["old"], e["new"]) for e in logs if e["event"] == "relay.state"]
    failing = [("connecting", "backoff"), ("backoff", "connecting")] * 6
    assert transitions[:14] == [
        ("disconnected", "connecting"),
        *failing,
        ("connecting", "connected"),
    ]
    assert transitions[14] == ("connected", "backoff")
    assert any(e["event"] == "relay.connect_failed" for e in logs)
    assert any(e["event"] == "relay.connection_lost" for e in logs)


async def test_two_tables_back_off_out_of_lockstep_within_the_cap(
    refused_port: RefusedPort,
) -> None:
    """Two tables whose broker is down retry at different instants at every step (their
    jitter sources differ, as each process's does), and never wait longer than the cap."""
    sleeps = [ManualSleep(), ManualSleep()]
    relays = [
        make_relay(
            MemoryOutbox(),
            "127.0.0.1",
            refused_port.port,  # nothing listens: every attempt fails
            sleep=sleep,
            backoff_initial=0.5,
            backoff_max=4,
            random=random.Random(seed).random,
        )[0]
        for seed, sleep in zip((14, 140), sleeps, strict=True)
    ]
    async with running(relays[0]), running(relays[1]):
        for attempt in range(1, 8):
            for sleep in sleeps:

                def backed_off(s: ManualSleep = sleep, n: int = attempt) -> bool:
                    return len(s.delays) == n and s.waiting == 1

                await wait_until(backed_off, what=f"backoff {attempt}")
                sleep.fire()
    ceilings = [0.5, 1, 2, 4, 4, 4, 4]
    # A relay fired for the 7th time may back off an 8th time before the test stops it (one
    # waits for the other's 7th): the first seven are the ones compared; any later one keeps
    # the cap too.
    first, second = (s.delays[: len(ceilings)] for s in sleeps)
    assert jittered(first, ceilings) and jittered(second, ceilings)
    assert all(a != b for a, b in zip(first, second, strict=True))
    assert all(4 / 2 <= d <= 4 for s in sleeps for d in s.delays[len(ceilings) :])


# -- inbound commands --------------------------------------------------------------------------


async def test_commands_reach_on_command_but_replies_do_not(mosquitto: MosquittoBroker) -> None:
    got: list[tuple[str, bytes]] = []

    async def on_command(verb: str, payload: bytes, retained: bool) -> None:
        got.append((verb, payload))

    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port, on_command=on_command)
    async with Collector(mosquitto, f"{BASE}/status") as test_client, running(relay):
        # "online" is published after the cmd subscription is acknowledged
        await wait_until(lambda: test_client.statuses() == [STATUS_ONLINE], what="online")
        pub = test_client.client.publish
        await pub(f"{BASE}/cmd/wager", b'{"id":"r1","seat":1,"amount":"25"}', qos=1)
        await pub(f"{BASE}/cmd/wager/reply", b'{"id":"r1","ok":true}', qos=1)
        await pub("tablectl/site1/t2/cmd/wager", b'{"id":"other-table"}', qos=1)
        await pub(f"{BASE}/cmd/bets.close", b'{"id":"r2"}', qos=1)
        await wait_until(lambda: len(got) == 2, what="two commands")
        assert got == [
            ("wager", b'{"id":"r1","seat":1,"amount":"25"}'),
            ("bets.close", b'{"id":"r2"}'),
        ]


async def test_a_command_retained_at_the_broker_reaches_on_command_marked_retained(
    mosquitto: MosquittoBroker,
) -> None:
    """R54: the relay hands on each command's retain flag. A command the broker holds retained
    comes with the flag on subscribe, and again on every reconnect; one published plainly
    comes without it."""
    got: list[tuple[str, bytes, bool]] = []

    async def on_command(verb: str, payload: bytes, retained: bool) -> None:
        got.append((verb, payload, retained))

    async with Collector(mosquitto, f"{BASE}/status") as test_client:
        pub = test_client.client.publish
        await pub(f"{BASE}/cmd/bank", b'{"id":"b1","seat":1,"amount":"100"}', qos=1, retain=True)
        relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port, on_command=on_command)
        async with running(relay):
            await wait_until(lambda: len(got) == 1, what="the retained command")
            await wait_until(lambda: test_client.statuses() == [STATUS_ONLINE], what="online")
            await pub(f"{BASE}/cmd/bets.close", b'{"id":"r2"}', qos=1)
            await wait_until(lambda: len(got) == 2, what="the plain command")
        async with running(relay):  # a reconnect: the broker delivers the retained one again
            await wait_until(lambda: len(got) == 3, what="the retained command again")
    assert got == [
        ("bank", b'{"id":"b1","seat":1,"amount":"100"}', True),
        ("bets.close", b'{"id":"r2"}', False),
        ("bank", b'{"id":"b1","seat":1,"amount":"100"}', True),
    ]


async def test_a_command_that_arrived_as_the_link_dropped_is_still_handed_on() -> None:
    """aiomqtt's message iterator stops at a disconnect and drops what its queue still held,
    commands paho had already acknowledged to the broker. The relay's client keeps no queue:
    each message is taken as it arrives, so one received in the same instant as the drop (here
    put on the client's queue with the link already down) still reaches `on_command`."""
    got: list[tuple[str, bytes]] = []

    async def on_command(verb: str, payload: bytes, retained: bool) -> None:
        got.append((verb, payload))

    relay, _ = make_relay(MemoryOutbox(), "127.0.0.1", 1, on_command=on_command)
    client = relay._make_client()
    message = aiomqtt.Message(f"{BASE}/cmd/bets.close", b'{"id":"r9"}', 1, False, 1, None)
    client._queue.put_nowait(message)  # as aiomqtt's on_message does, before the PUBACK
    client._disconnected.set_exception(aiomqtt.MqttError("link dropped"))
    with pytest.raises(aiomqtt.MqttError):
        await relay._receive(client)
    worker = asyncio.create_task(relay._command_worker())
    await wait_until(lambda: got == [("bets.close", b'{"id":"r9"}')], what="the command")
    worker.cancel()
    await asyncio.gather(worker, return_exceptions=True)


async def test_failing_command_handler_is_logged_and_relay_keeps_running(
    mosquitto: MosquittoBroker,
) -> None:
    done: list[str] = []

    async def on_command(verb: str, payload: bytes, retained: bool) -> None:
        if verb == "boom":
            raise ValueError("wager over the limit")
        if verb == "gone":  # an await inside the handler was cancelled, not the relay
            raise asyncio.CancelledError
        done.append(verb)

    outbox = MemoryOutbox()
    with capture_logs(processors=[structlog.processors.format_exc_info]) as logs:
        relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, on_command=on_command)
        async with Collector(mosquitto) as test_client, running(relay) as task:
            await wait_until(lambda: test_client.statuses() == [STATUS_ONLINE], what="online")
            await test_client.client.publish(f"{BASE}/cmd/boom", b"{}", qos=1)
            await test_client.client.publish(f"{BASE}/cmd/gone", b"{}", qos=1)
            await test_client.client.publish(f"{BASE}/cmd/shoe.new", b"{}", qos=1)
            await wait_until(lambda: done == ["shoe.new"], what="the next command")

            failures = [e for e in logs if e["event"] == "relay.command_failed"]
            assert [f["verb"] for f in failures] == ["boom", "gone"]
            assert failures[0]["log_level"] == "error"
            assert failures[0]["verb"] == "boom"
            assert "Traceback" in failures[0]["exception"]
            assert "ValueError: wager over the limit" in failures[0]["exception"]

            assert not task.done() and relay.state is RelayState.CONNECTED
            outbox.add(n=1)
            relay.wake()
            await wait_until(lambda: len(test_client.row_messages()) == 1, what="row after it")


# -- the stall -----------------------------------------------------------------


@contextlib.contextmanager
def unhandled_errors() -> Iterator[list[dict[str, Any]]]:
    """What reaches the running loop's exception handler in the block (an error no code of ours
    caught: asyncio's 'Exception in callback ...'), collected instead of logged."""
    loop = asyncio.get_running_loop()
    found: list[dict[str, Any]] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: found.append(context))
    try:
        yield found
    finally:
        loop.set_exception_handler(before)


async def test_a_write_asked_for_in_the_turn_the_broker_dropped_us_is_no_unhandled_error(
    mosquitto: MosquittoBroker,
) -> None:
    """A daemon stopped (SIGSTOP) for longer than 1.5 keepalives, then continued, logged
    "Exception in callback BaseSelectorEventLoop.add_writer(17, ...) OSError: [Errno 9] Bad file
    descriptor". In the loop's first turn after the stall, a task queued before it hands paho a
    packet (the keepalive's PINGREQ, here a publish), and paho asks for a writer on its socket;
    in the same turn the reader finds the connection the broker dropped meanwhile, and paho
    closes the socket. aiomqtt deferred that writer to the next turn (call_soon_threadsafe),
    which then registered a closed descriptor. Here the same turn, without waiting out a real
    keepalive: the loop stands still (a blocking callback) while the broker goes, and the
    publish's task is queued before the loop looks at the socket again."""
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    client = relay._make_client()
    await client.__aenter__()
    sock = client._client.socket()
    assert isinstance(sock, socket.socket)
    publishing: list[asyncio.Future[None]] = []

    def stall() -> None:
        mosquitto.stop()  # the broker drops the connection while the loop stands still
        readable, _, _ = select.select([sock], [], [], 5.0)
        assert readable, "the broker's close did not reach the socket"
        publishing.append(asyncio.ensure_future(client.publish(f"{BASE}/x", b"1", qos=1)))

    with unhandled_errors() as unhandled:
        asyncio.get_running_loop().call_soon(stall)
        await wait_until(client._disconnected.done, what="paho to see the connection gone")
        for _ in range(5):  # the turns in which a deferred registration would run
            await asyncio.sleep(0)
    assert isinstance(client._disconnected.exception(), aiomqtt.MqttError)
    await client.__aexit__(None, None, None)
    publishing[0].cancel()  # it would wait for its PUBACK until the client's timeout
    await asyncio.gather(*publishing, return_exceptions=True)
    assert unhandled == []


async def test_a_write_asked_for_from_another_thread_is_registered_only_on_an_open_socket(
    mosquitto: MosquittoBroker,
) -> None:
    """paho also asks for a writer from the executor thread that runs its blocking connect
    (for the CONNECT packet): that request can only reach the loop on a later turn. If paho
    closed the socket in between (a read that found the connection gone), the request is
    dropped, not registered on the closed descriptor (or on another file given its number)."""
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    client = relay._make_client()
    await client.__aenter__()
    paho = client._client
    sock = paho.socket()
    assert isinstance(sock, socket.socket)

    def stall() -> None:
        mosquitto.stop()
        readable, _, _ = select.select([sock], [], [], 5.0)
        assert readable, "the broker's close did not reach the socket"
        asking = threading.Thread(target=paho.on_socket_register_write, args=(paho, None, sock))
        asking.start()
        asking.join()
        paho.loop_read()  # as the loop's reader does: finds the connection gone, closes it

    with unhandled_errors() as unhandled:
        asyncio.get_running_loop().call_soon(stall)
        await wait_until(client._disconnected.done, what="paho to see the connection gone")
        for _ in range(5):
            await asyncio.sleep(0)
    assert sock.fileno() == -1
    assert isinstance(client._disconnected.exception(), aiomqtt.MqttError)
    await client.__aexit__(None, None, None)
    assert unhandled == []


# -- MQTT 5: refusals, retain-as-published, the session --------------------------------------------

RELAY_USER = "relay"
READER = "reader"


def relay_acl(*, refused: str | None) -> str:
    """The relay's user may write every topic under BASE but `refused` and read the commands;
    the reader reads and writes everything under BASE (its markers, the commands)."""
    lines = [f"user {RELAY_USER}", f"topic write {BASE}/#", f"topic read {BASE}/cmd/+"]
    if refused is not None:
        lines.append(f"topic deny {BASE}/{refused}")  # Mosquitto: refuses writing as well
    lines += ["", f"user {READER}", f"topic readwrite {BASE}/#"]
    return "\n".join(lines) + "\n"


def refusing_broker(factory: MosquittoFactory, refused: str) -> MosquittoBroker:
    """A locked broker whose ACL refuses the relay's user `BASE/<refused>`, with Mosquitto's
    default queue: with the test brokers' `max_queued_messages 0`, Mosquitto 2.0.11 drops the
    connection of a client right after refusing it a QoS 1 publish (the shipped config queues
    100000, where it does not)."""
    broker = factory(locked=True, start=False)
    conf = broker.config_path.read_text()
    assert conf.count("max_queued_messages 0\n") == 1
    broker.config_path.write_text(conf.replace("max_queued_messages 0\n", ""))
    broker.lock_with([RELAY_USER, READER], relay_acl(refused=refused))
    broker.start()
    return broker


def relay_as_user(outbox: MemoryOutbox, host: str, port: int, **kwargs: Any) -> Relay:
    """`make_relay` with the relay's user and quick retries of a refused row."""
    kwargs.setdefault("refused_retry_initial", 0.05)
    kwargs.setdefault("refused_retry_max", 0.2)
    relay, _ = make_relay(
        outbox, host, port, username=RELAY_USER, password=password_for(RELAY_USER), **kwargs
    )
    return relay


def seqs_of(collector: Collector) -> list[int]:
    return [m.seq for m in collector.row_messages()]


async def test_a_refused_row_stays_unsent_and_no_later_row_passes_it_until_the_broker_takes_it(
    mosquitto_factory: MosquittoFactory, tcp_proxy_factory: ProxyFactory
) -> None:
    """Under MQTT 3.1.1 the broker acknowledged a publish its ACL refused and
    the row was marked sent, lost. Now its PUBACK says 0x87: the row stays unsent, `on_refusal`
    hears of it once, it is retried with capped backoff (across a reconnect too), and the rows
    written after it wait unsent behind it. Once the ACL lets it through they follow in order,
    and `on_refusal` hears that it was taken."""
    broker = refusing_broker(mosquitto_factory, "forbidden")
    proxy = await tcp_proxy_factory(broker.host, broker.port)
    outbox = MemoryOutbox()
    first, held = outbox.add(n=1), outbox.add("forbidden", n=2)
    told: list[Refusal] = []
    with capture_logs() as logs:
        relay = relay_as_user(outbox, proxy.host, proxy.port, on_refusal=told.append)
        async with Collector(broker, user=READER) as reader, running(relay):
            await wait_until(lambda: relay.held == held.seq, what="the refused row held")
            assert outbox.sent == {first.seq}
            assert told == [Refusal(2, held.topic, "Not authorized (0x87)", 1, accepted=False)]
            later = [outbox.add(n=3), outbox.add("state", retain=True, n=4)]
            relay.wake()

            def refused_again(at_least: int) -> bool:
                again = [e for e in logs if e["event"] == "relay.held_row_refused_again"]
                return len(again) >= at_least

            await wait_until(lambda: refused_again(3), what="three retries, refused")
            proxy.cut()  # the hold outlives the connection
            await wait_until(lambda: proxy.accepted >= 2, what="a new connection")
            await wait_until(lambda: refused_again(5), what="retries on the new connection")
            await reader.sync()
            assert seqs_of(reader) == [first.seq]
            assert outbox.sent == {first.seq} and relay.held == held.seq
            assert len(told) == 1  # told once, not at every retry

            await asyncio.to_thread(broker.lock_with, [RELAY_USER, READER], relay_acl(refused=None))
            await wait_until(lambda: outbox.unsent == 0, what="the held row and those after it")
            await reader.sync()
    assert seqs_of(reader) == [first.seq, held.seq, *(r.seq for r in later)]
    assert relay.held is None
    (taken,) = told[1:]
    assert (taken.seq, taken.accepted, taken.reason) == (2, True, "Not authorized (0x87)")
    assert taken.refusals >= 6
    delays = [e["retry_in"] for e in logs if e["event"] == "relay.held_row_refused_again"]
    assert all(0.2 / 2 <= d <= 0.2 for d in delays[2:])  # capped: 0.05, 0.1, then 0.2
    assert [e["seq"] for e in logs if e["event"] == "relay.row_held"] == [held.seq]


async def test_rows_already_in_flight_behind_a_refused_one_are_sent_and_refused_ones_wait(
    mosquitto_factory: MosquittoFactory,
) -> None:
    """The window's price: rows on the wire when the refusal comes are taken or refused on
    their own. The taken ones are sent; a refused one waits unsent behind the held row."""
    broker = refusing_broker(mosquitto_factory, "forbidden")
    outbox = MemoryOutbox()
    for n in range(1, 6):
        outbox.add("forbidden" if n in (2, 4) else "event", n=n)
    told: list[Refusal] = []
    relay = relay_as_user(outbox, broker.host, broker.port, on_refusal=told.append)
    async with Collector(broker, user=READER) as reader, running(relay):
        await wait_until(lambda: outbox.sent == {1, 3, 5}, what="the rows the broker took")
        assert relay.held == 2
        await asyncio.to_thread(broker.lock_with, [RELAY_USER, READER], relay_acl(refused=None))
        await wait_until(lambda: outbox.unsent == 0, what="the refused rows")
        await reader.sync()
    assert seqs_of(reader) == [1, 3, 5, 2, 4]
    assert [(t.seq, t.accepted) for t in told] == [(2, False), (2, True)]


async def test_a_refused_notice_is_logged_and_publishing_goes_on(
    mosquitto_factory: MosquittoFactory,
) -> None:
    """A notice (from memory, best effort) the broker refuses is logged and dropped; it holds
    nothing back."""
    broker = refusing_broker(mosquitto_factory, "forbidden")
    outbox = MemoryOutbox()
    with capture_logs() as logs:
        relay = relay_as_user(outbox, broker.host, broker.port)
        async with Collector(broker, user=READER) as reader, running(relay):
            await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
            relay.notice("forbidden", b"{}")
            outbox.add(n=1)
            relay.wake()
            await wait_until(lambda: outbox.unsent == 0, what="the row after the notice")
            await wait_until(
                lambda: any(e["event"] == "relay.notice_refused" for e in logs), what="the log"
            )
            await reader.sync()
    assert [m.topic for m in reader.messages if m.topic.endswith("forbidden")] == []
    (refused,) = [e for e in logs if e["event"] == "relay.notice_refused"]
    assert (refused["topic"], refused["reason"]) == (f"{BASE}/forbidden", "Not authorized (0x87)")


async def test_the_command_subscription_keeps_a_commands_retain_flag_even_live(
    mosquitto: MosquittoBroker,
) -> None:
    """Retain-as-published: a command published with retain, while the table is subscribed,
    arrives with the flag (the daemon refuses it). Under the default options the
    broker clears it on a live delivery, so the relay's options are what keep it."""
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    v5 = aiomqtt.ProtocolVersion.V5
    received: dict[str, list[bool]] = {"relay's options": [], "default options": []}
    async with (
        aiomqtt.Client(mosquitto.host, mosquitto.port, protocol=v5) as as_relay,
        aiomqtt.Client(mosquitto.host, mosquitto.port, protocol=v5) as plain,
        aiomqtt.Client(mosquitto.host, mosquitto.port, protocol=v5) as console,
    ):
        await as_relay.subscribe(relay.command_filter, options=relay.command_options)
        await plain.subscribe(relay.command_filter, qos=1)

        async def collect(client: aiomqtt.Client, key: str) -> None:
            async for m in client.messages:
                received[key].append(m.retain)

        tasks = [
            asyncio.create_task(collect(as_relay, "relay's options")),
            asyncio.create_task(collect(plain, "default options")),
        ]
        try:
            await console.publish(f"{BASE}/cmd/wager", b'{"id":"r1"}', qos=1, retain=True)
            await console.publish(f"{BASE}/cmd/wager", b'{"id":"r2"}', qos=1)
            await wait_until(lambda: all(len(v) == 2 for v in received.values()), what="both")
            seen = {key: list(flags) for key, flags in received.items()}
            await console.publish(f"{BASE}/cmd/wager", b"", qos=1, retain=True)  # cleared
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    assert seen == {"relay's options": [True, False], "default options": [False, False]}


async def test_a_command_sent_while_the_table_was_away_is_not_delivered_when_it_comes_back(
    mosquitto: MosquittoBroker,
) -> None:
    """MQTT 5's clean start with no session expiry keeps 3.1.1's clean session: the broker keeps
    nothing for the table between connections (docs/mqtt.md, "Commands while disconnected")."""
    got: list[bytes] = []

    async def on_command(verb: str, payload: bytes, retained: bool) -> None:
        got.append(payload)

    def table() -> Relay:
        return Relay(
            MemoryOutbox(),
            host=mosquitto.host,
            port=mosquitto.port,
            base_topic=BASE,
            client_id="tablectl-test-away",
            on_command=on_command,
        )

    async with Collector(mosquitto, f"{BASE}/status") as console:
        first = table()
        async with running(first):
            await wait_until(lambda: console.statuses() == [STATUS_ONLINE], what="online")
            await asyncio.wait_for(first.stop(), 5)
        await console.client.publish(f"{BASE}/cmd/bets.close", b'{"id":"away"}', qos=1)
        async with running(table()):
            await wait_until(lambda: console.statuses()[-1:] == [STATUS_ONLINE], what="back")
            await console.client.publish(f"{BASE}/cmd/bets.close", b'{"id":"back"}', qos=1)
            await wait_until(lambda: got == [b'{"id":"back"}'], what="the command sent after")
