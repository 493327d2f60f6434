"""The unsent backlog on the retained `journal/status` (docs/mqtt.md
"journal/status", docs/floor.md "Unsent backlog").

The daemon tells how many outbox rows the broker has not acknowledged (`unsent`, the count of the
STATUS= line) at start, after a connect when it changed, and as it changes: at most every
UNSENT_NOTE_SECONDS, and at once when a backlog reaches 0 (`UnsentNotes`, pure, on a clock the
test gives). Over a real Mosquitto, behind a gate the test closes: while the broker cannot be
reached nothing is told; on the reconnect the backlog of then is, before it drains; once drained,
0. The status loop's checks are fired by the test (`Daemon.note_status` with its own clock), not
waited for.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.state import UNSENT_NOTE_SECONDS, UnsentNotes
from tablectl.relay import Relay, RelayState
from tests.conftest import MosquittoBroker, TcpProxy
from tests.helpers import SHOE_NEW, bank, wager, write_config
from tests.journal.test_disk_full import TIMEOUT, Floor, until

# -- when a count is told (pure) ---------------------------------------------------------------


def told_by(notes: UnsentNotes, checks: list[tuple[float, int]]) -> list[tuple[float, int]]:
    """The (time, count) of the checks that tell their count, as the daemon's loop does."""
    told = []
    for now, count in checks:
        if notes.due(count, now):
            notes.said(count, now)
            told.append((now, count))
    return told


def test_a_draining_backlog_is_told_every_few_seconds_and_0_at_once() -> None:
    assert UNSENT_NOTE_SECONDS == 5.0  # docs/mqtt.md says so
    notes = UnsentNotes(UNSENT_NOTE_SECONDS)
    notes.said(0, 0.0)  # the start's word
    # A healthy table: a check now and then catches a message on its way (unacknowledged for
    # milliseconds). A count seen on one check only is not told.
    quiet = [(float(t), 3 if t % 7 == 0 else 0) for t in range(1, 60)]
    assert told_by(notes, quiet) == []
    # An outage of two minutes (a check a second): 40 messages a second pile up, then drain
    # at 500 a second; checks every second throughout.
    backlog = [(60.0 + t, 40 * t) for t in range(1, 121)]  # up to 4,800
    backlog += [(180.0 + t, max(0, 4800 - 500 * t)) for t in range(1, 12)]
    backlog += [(192.0 + t, 0) for t in range(1, 10)]
    told = told_by(notes, backlog)
    # Not 4,800 messages, nor one a check: one every 5 s at most, the first on the second check
    # that saw a backlog, and the 0 at the very check that found it drained.
    assert told[0] == (62.0, 80)
    assert told[-1] == (190.0, 0) and [c for _, c in told].count(0) == 1
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(told)]
    assert all(gap >= UNSENT_NOTE_SECONDS for gap in gaps[:-1]), told
    assert len(told) <= (190 - 62) / UNSENT_NOTE_SECONDS + 2
    assert max(c for _, c in told) >= 4000  # the backlog's height was told
    # The count told later on is a change: the same count again is not told again.
    assert told_by(notes, [(300.0, 0), (301.0, 0)]) == []


def test_a_count_back_at_the_one_told_is_not_told_again() -> None:
    notes = UnsentNotes(5.0)
    notes.said(12, 0.0)
    assert told_by(notes, [(10.0, 12), (11.0, 12)]) == []
    # A backlog already seen on the check before: told at once, then not within 5 s.
    assert told_by(notes, [(12.0, 9), (13.0, 9)]) == [(12.0, 9)]
    assert told_by(notes, [(14.0, 4), (15.0, 4), (18.0, 2)]) == [(18.0, 2)]


# -- over a real broker ------------------------------------------------------------------------


class Gate(TcpProxy):
    """A `TcpProxy` the test can close: `close_gate()` cuts every connection and stops
    listening, so a connect is refused at once (the broker unreachable), until `open_gate()`
    listens on the same port again."""

    def close_gate(self) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()

    async def open_gate(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)


def unsent(floor: Floor) -> list[Any]:
    return [s["unsent"] for s in floor.on("journal/status")]


@pytest.mark.integration
async def test_the_unsent_count_goes_up_with_a_backlog_and_back_to_0_once_it_is_sent(
    tmp_path: Path, mosquitto: MosquittoBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The relay retries the broker within 0.1 s (0.5 s, then doubling, in service).
    quick = functools.partial(Relay, backoff_initial=0.05, backoff_max=0.1)
    monkeypatch.setattr("tablectl.daemon.mqtt_link.Relay", quick)
    gate = Gate(mosquitto.host, mosquitto.port)
    await gate.start()
    path = write_config(tmp_path, mqtt={"host": gate.host, "port": gate.port, "keepalive": 5})
    daemon = Daemon(load_config(path))
    daemon.status_note_seconds = 3600.0  # the loop checks once; the test fires the rest
    try:
        async with Floor(mosquitto) as floor:
            runner = asyncio.create_task(daemon.run(install_signals=False))
            try:
                await until(lambda: floor.on("status")[-1:] == ["online"], "the table online")
                await until(lambda: bool(floor.on("journal/status")), "the start's word")
                start = floor.on("journal/status")[0]
                assert start["writable"] is True and "seq" not in start
                # The start's messages (the journal's config record) go out; the next check
                # tells 0 at once (unless the start already had nothing waiting).
                await until(lambda: daemon.journal.unsent_count() == 0, "the start's rows sent")
                clock = time.monotonic()  # the checks' time, moved on by the test
                daemon.note_status(clock)
                await until(lambda: unsent(floor)[-1:] == [0], "0 told")
                assert unsent(floor) in ([0], [start["unsent"], 0])

                # The broker cannot be reached: rows pile up in the outbox, STATUS= counts them,
                # and nothing can be told (the retained figure stays what the table last said).
                gate.close_gate()
                assert daemon.relay is not None
                relay = daemon.relay
                await until(lambda: relay.state is not RelayState.CONNECTED, "the link down")
                heard = len(floor.on("journal/status"))
                await daemon.submit("device/shoe", SHOE_NEW)
                await daemon.submit("cmd/bank", bank(3, "500"))
                await daemon.submit("cmd/wager", wager(5, "banker", "100"))
                backlog = daemon.journal.unsent_count()
                assert backlog > 0
                assert daemon.status_line().endswith(f"; {backlog} unsent")
                daemon.note_status(clock + 10)
                daemon.note_status(clock + 20)  # seen twice, past the rate limit: due, but
                assert relay.state is not RelayState.CONNECTED  # no broker to tell
                assert daemon.unsent_notes.told == 0
                await asyncio.sleep(0.2)
                assert len(floor.on("journal/status")) == heard

                # Back: the count of the moment of the connect is told before the backlog goes
                # out (not the stale 0), then the backlog drains and the next check tells 0.
                await gate.open_gate()
                await until(lambda: len(unsent(floor)) > heard, "the count after the connect")
                assert unsent(floor)[heard] == backlog
                await until(lambda: daemon.journal.unsent_count() == 0, "the backlog sent")
                daemon.note_status(clock + 21)  # a second later: 0 at once, no rate limit
                await until(lambda: unsent(floor)[-1:] == [0], "0 told again")
                assert unsent(floor)[heard - 1 :] == [0, backlog, 0]
                daemon.note_status(clock + 40)
                await asyncio.sleep(0.2)
                assert unsent(floor)[heard - 1 :] == [0, backlog, 0]  # no change: not again
                said = floor.on("journal/status")[-1]
                assert said["writable"] is True and said["since"] == start["since"]
            finally:
                daemon.stop()
                await asyncio.wait_for(runner, TIMEOUT)
            assert not daemon.failed
        async with Floor(mosquitto) as late:  # what a floor view opened now reads
            await until(lambda: bool(late.retained("journal/status")), "the retained status")
            assert late.retained("journal/status")[-1]["unsent"] == 0
    finally:
        await gate.close()
