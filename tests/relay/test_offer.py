"""`Relay.offer` against a real Mosquitto: a stored record's rows go on the wire in the turn that
offers them, never ahead of an older row the outbox holds unsent (tablectl/relay/__init__.py:
"A record's rows go on the wire as soon as..."), and rows that come next go without a read of
the outbox (`OutboxDrain._offered_next`)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.outputs import OutboxRow
from tablectl.relay import STATUS_ONLINE, Relay, RelayState
from tests.relay.test_relay import (
    Collector,
    MemoryOutbox,
    MosquittoBroker,
    assert_rows_intact,
    make_relay,
    running,
    seqs_of,
    wait_until,
)

pytestmark = pytest.mark.integration


class CountedOutbox(MemoryOutbox):
    """`MemoryOutbox`, counting the relay's reads of its unsent rows."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def pending(self, limit: int) -> list[OutboxRow]:
        self.reads += 1
        return super().pending(limit)


async def waiting(relay: Relay, live: Collector) -> None:
    """Until the relay is connected, online, and its publisher waits for its next turn (where
    an offer takes the turn at once)."""
    await wait_until(lambda: live.statuses()[-1:] == [STATUS_ONLINE], what="online")
    await wait_until(lambda: relay.state is RelayState.CONNECTED, what="connected")
    await wait_until(lambda: relay._wire is not None, what="the publisher waiting")


def live_seqs(live: Collector) -> list[int]:
    """The seqs published while `live` listened (not a retained message an earlier example left
    at the broker, which comes with the retain flag when subscribing)."""
    return [m.seq for m in live.row_messages() if not m.retain]


def record(outbox: MemoryOutbox, rows: int) -> list[OutboxRow]:
    """A record's rows, stored: its event, then its retained state."""
    return [outbox.add("event" if i == 0 else "state", retain=i > 0, n=i) for i in range(rows)]


async def test_offered_rows_that_come_next_go_at_once_without_reading_the_outbox(
    mosquitto: MosquittoBroker,
) -> None:
    outbox = CountedOutbox()
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, poll_interval=60)
    async with Collector(mosquitto) as live, running(relay):
        await waiting(relay, live)
        await wait_until(lambda: relay._wire is not None and relay._wire.last == 0, what="idle")
        reads = outbox.reads
        relay.offer(record(outbox, 2))  # seqs 1 and 2, right after the last handed on (0)
        assert outbox.reads == reads
        await wait_until(lambda: seqs_of(live) == [1, 2], timeout=3, what="rows 1 and 2")
        await wait_until(lambda: outbox.unsent == 0, what="both marked sent")


async def test_an_offer_never_overtakes_rows_stored_before_it_without_one(
    mosquitto: MosquittoBroker,
) -> None:
    """Rows 3 and 4 are stored without an offer or a wake (as after a record whose offer found
    no connection); rows 5 and 6 are offered: the relay reads the outbox, and 3 and 4 go first."""
    outbox = CountedOutbox()
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, poll_interval=60)
    async with Collector(mosquitto) as live, running(relay):
        await waiting(relay, live)
        relay.offer(record(outbox, 2))
        await wait_until(lambda: seqs_of(live) == [1, 2], timeout=3, what="rows 1 and 2")
        await wait_until(lambda: relay._wire is not None and relay._wire.last == 2, what="idle")
        record(outbox, 2)  # 3 and 4: stored, not offered, no wake
        reads = outbox.reads
        relay.offer(record(outbox, 2))  # 5 and 6
        assert outbox.reads == reads + 1
        await wait_until(lambda: len(seqs_of(live)) == 6, timeout=3, what="rows 3 to 6")
        assert seqs_of(live) == [1, 2, 3, 4, 5, 6]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(plan=st.lists(st.tuples(st.integers(1, 5), st.booleans()), min_size=1, max_size=10))
async def test_offered_and_unoffered_records_go_out_once_each_in_seq_order(
    mosquitto: MosquittoBroker, plan: list[tuple[int, bool]]
) -> None:
    """Any mix of records stored with an offer and without one (each of 1 to 5 rows; the relay
    given no turn of its own between them): every row reaches the broker once, in seq order."""
    outbox = MemoryOutbox()
    relay, _ = make_relay(outbox, mosquitto.host, mosquitto.port, poll_interval=0.05, window=8)
    async with Collector(mosquitto) as live, running(relay):
        await waiting(relay, live)
        for rows, offered in plan:
            stored = record(outbox, rows)
            if offered:
                relay.offer(stored)
            await asyncio.sleep(0)
        total = sum(rows for rows, _ in plan)
        await wait_until(lambda: len(live_seqs(live)) >= total, what=f"{total} rows")
        await wait_until(lambda: outbox.unsent == 0, what="every row marked sent")
        assert live_seqs(live) == list(range(1, total + 1))
        assert_rows_intact(outbox, [m for m in live.row_messages() if not m.retain])


async def test_the_relays_connection_sends_without_nagles_delay(mosquitto: MosquittoBroker) -> None:
    """TCP_NODELAY on the relay's socket (`no_delay`): a message written while the one before
    it waits for the broker's acknowledgment leaves at once."""
    relay, _ = make_relay(MemoryOutbox(), mosquitto.host, mosquitto.port)
    async with Collector(mosquitto) as live, running(relay):
        await waiting(relay, live)
        assert relay._wire is not None
        sock = relay._wire.client._client.socket()
        assert isinstance(sock, socket.socket)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
