"""ShoeDriver end to end: the real driver over real pseudo-terminals against SimulatedShoe.

Also over a TCP `socket://` URL and the in-memory null modem (for chunkings a pty cannot force).
Nothing sleeps to wait: every wait is for a condition, bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.base import Backoff
from drivers.shoe.device import DISCONNECTED, FRAMES_LOST, SILENT, ShoeDriver
from drivers.shoe.frames import checksum
from drivers.sim import RecordingSink
from drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from drivers.sim.shoe import ShoeModel, SimulatedShoe
from tablectl.cards import standard_deck
from tests.drivers.support import last, running, simulators, until_open

TIMEOUT = 5.0
DECK = [str(c) for c in standard_deck()]


class ManualSleep:
    """An injected sleep: records each delay and returns only when the test releases it."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self._permits = asyncio.Semaphore(0)
        self._changed = asyncio.Event()

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        self._changed.set()
        await self._permits.acquire()

    def release(self) -> None:
        self._permits.release()

    async def wait_calls(self, n: int) -> None:
        async def until() -> None:
            while len(self.delays) < n:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(until(), TIMEOUT)


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedShoe]]:
    yield from simulators(SimulatedShoe)


# -- over a real pty ------------------------------------------------------------------------------


async def test_cards_drawn_arrive_in_order(make_sim: Callable[..., SimulatedShoe]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        first = sink.statuses[0]
        assert (first.available, first.fault) == (True, None)
        assert first.detail["port"] == sim.port
        sim.new_shoe(decks=8, seed=1)
        assert sim.remaining == 416
        drawn = [sim.draw() for _ in range(40)]
        await sink.wait_for(lambda: len(sink.cards) >= 40, TIMEOUT)
    assert sink.cards == drawn
    assert sink.events[0] == {"type": "shoe.new"}
    assert sink.events[1:] == [{"type": "shoe.card", "card": c} for c in drawn]
    assert driver.stats["bad_frames"] == 0
    assert driver.stats["frames_lost"] == 0


async def test_burn_new_fault_clear_and_empty(make_sim: Callable[..., SimulatedShoe]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(["7d", "Ah", "Kc"])
        assert sim.burn() == "7d"
        assert sim.draw() == "Ah"
        sim.fault("JAM", "card stuck at exit")
        await sink.wait_for(lambda: last(sink).fault == "JAM", TIMEOUT)
        jam = sink.statuses[-1]
        assert jam.available is True
        assert jam.detail["fault_text"] == "card stuck at exit"
        assert sim.draw() == "Kc"  # cards still flow while a fault stands
        sim.clear()
        await sink.wait_for(lambda: len(sink.cards) == 2 and last(sink).fault is None)
        assert "fault_text" not in sink.statuses[-1].detail
        sim.empty()
        await sink.wait_for(lambda: last(sink).detail["empty"] is True)
        assert sink.statuses[-1].fault is None
        sim.new_shoe(decks=1, seed=2)
        await sink.wait_for(lambda: sink.events[-1] == {"type": "shoe.new"})
        await sink.wait_for(lambda: last(sink).detail["empty"] is False)
    assert sink.events == [
        {"type": "shoe.new"},
        {"type": "shoe.burn", "card": "7d"},
        {"type": "shoe.card", "card": "Ah"},
        {"type": "shoe.card", "card": "Kc"},
        {"type": "shoe.new"},
    ]
    faults = [s.fault for s in sink.statuses]
    assert faults.count("JAM") == 1  # one report per change, not one per card


async def test_garbage_between_frames_is_survived_and_counted(
    make_sim: Callable[..., SimulatedShoe],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:5])
        drawn = [sim.draw()]
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage before $
        drawn.append(sim.draw())
        sim.write_raw(b"$CRD,9,Ah*00\r\n")  # 2: bad checksum
        drawn.append(sim.draw())
        bad_card = b"CRD,9,Zz"
        sim.write_raw(b"$" + bad_card + f"*{checksum(bad_card):02X}\r\n".encode())  # 3: not a card
        sim.write_raw(b"$CRD,1,A")  # 4: truncated by the next frame's $
        drawn.append(sim.draw())
        await sink.wait_for(lambda: len(sink.cards) == 4, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4)
    assert sink.cards == drawn
    assert driver.stats["bad_frames"] == 4
    assert driver.stats["frames_lost"] == 0
    final = sink.statuses[-1]
    assert final.available and final.fault is None
    assert "truncated" in final.detail["last_bad"]["reason"]
    # contract 3: a garbled card frame's card is never shown on the (published) status
    assert final.detail["last_bad"]["raw"] == "$CRD,1<2 bytes withheld>"


async def test_fragmented_writer_still_yields_every_card(
    make_sim: Callable[..., SimulatedShoe],
) -> None:
    sim = make_sim(fragment=True, max_chunk=3, seed=7)
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:30])
        drawn = [sim.draw() for _ in range(30)]
        await sink.wait_for(lambda: len(sink.cards) == 30, TIMEOUT)
    assert sink.cards == drawn
    assert driver.stats["bad_frames"] == 0
    # the frames really arrived in pieces: more reads than frames
    assert driver.stats["reads"] > driver.stats["frames"] == 31


async def test_sequence_gap_and_retransmission(make_sim: Callable[..., SimulatedShoe]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(["Ah", "2c", "3d", "4s"])  # NEW is SEQ 0
        sim.draw()  # SEQ 1
        sim.duplicate_last()  # SEQ 1 again: a retransmission
        sim.drop_next()
        sim.draw()  # SEQ 2, lost on the wire
        sim.draw()  # SEQ 3
        await sink.wait_for(lambda: len(sink.cards) == 2, TIMEOUT)
        gap = next(s for s in sink.statuses if s.fault == FRAMES_LOST)
        assert gap.available
        assert gap.detail["frames_lost"] == 1
        assert gap.detail["last_gap"] == {"expected": 2, "received": 3, "lost": 1}
        sim.draw()
        await sink.wait_for(lambda: len(sink.cards) == 3)
        assert last(sink).fault == FRAMES_LOST
        sim.new_shoe(decks=1, seed=3)  # a fresh shoe clears it
        await sink.wait_for(lambda: last(sink).fault is None)
    assert sink.cards == ["Ah", "3d", "4s"]  # the lost card is not invented
    assert driver.stats["duplicates"] == 1
    assert driver.stats["frames_lost"] == 1


async def test_unplug_reports_loss_and_reconnects_through_a_symlink(
    make_sim: Callable[..., SimulatedShoe], tmp_path: Path
) -> None:
    link = tmp_path / "shoe0"
    sim1 = make_sim()
    link.symlink_to(sim1.port)
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", str(link), 9600, {}, sleep=sleep)
    async with running(driver, sink):
        await until_open(driver, sink)
        sim1.load(DECK[:10])
        first = sim1.draw()
        await sink.wait_for(lambda: sink.cards == [first], TIMEOUT)

        sim1.close()  # unplugged
        await sink.wait_for(lambda: not last(sink).available, TIMEOUT)
        down = sink.statuses[-1]
        assert down.fault == DISCONNECTED
        assert down.detail["error"].startswith(f"lost {link}")
        await sleep.wait_calls(1)
        assert sleep.delays == [0.2]

        link.unlink()
        link.symlink_to(tmp_path / "nothing-here")
        sleep.release()  # retry: the port is not there
        await sleep.wait_calls(2)
        assert sleep.delays == [0.2, 0.4]
        assert "cannot open" in sink.statuses[-1].detail["error"]

        sim2 = make_sim(seq=sim1.next_seq)  # the same shoe, plugged in again
        sim2.load(DECK[1:10], announce=False)
        link.unlink()
        link.symlink_to(sim2.port)
        sleep.release()
        await until_open(driver, sink, opens=2)
        second = sim2.draw()
        await sink.wait_for(lambda: len(sink.cards) == 2, TIMEOUT)
    assert sink.cards == [first, second]
    assert sink.statuses[-1].fault is None  # SEQ continued: nothing lost
    assert sink.statuses[-1].detail["reconnects"] == 1
    assert driver.stats["opens"] == 2


async def test_missing_port_is_reported_once_and_retried_with_growing_delays() -> None:
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "/dev/does-not-exist-tablectl", 9600, {}, sleep=sleep)
    async with running(driver, sink):
        for n in range(1, 5):
            await sleep.wait_calls(n)
            sleep.release()
        await sleep.wait_calls(5)
    assert sleep.delays == [0.2, 0.4, 0.8, 1.6, 3.2]
    assert len(sink.statuses) == 1  # the same failure is not re-reported on every attempt
    status = sink.statuses[0]
    assert (status.available, status.fault) == (False, DISCONNECTED)
    assert "cannot open /dev/does-not-exist-tablectl" in status.detail["error"]


async def test_silence_timeout_reports_silent_until_the_shoe_talks(
    make_sim: Callable[..., SimulatedShoe],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {"silence_timeout": 0.2})
    async with running(driver, sink):
        await until_open(driver, sink)
        await sink.wait_for(lambda: last(sink).fault == SILENT, TIMEOUT)
        assert sink.statuses[-1].available is False
        sim.heartbeat()
        await sink.wait_for(lambda: last(sink).available, TIMEOUT)
        assert sink.statuses[-1].fault is None


def test_interactive_simulator_prints_its_port_and_obeys_commands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "drivers.sim.shoe", "--decks", "1", "--seed", "1"],
        input="draw 3\nburn\nfault JAM stuck\nclear\nstatus\nbogus\nquit\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    assert len(lines[1].split()) == 3
    assert lines[2].startswith("burned ")
    assert lines[3] == "fault JAM"
    assert lines[4] == "ok"
    assert lines[5].startswith("48 cards left, next SEQ 7")
    assert "commands:" in lines[6]


# -- over TCP (pyserial's socket:// URL, as with ser2net) ---------------------------------------


async def test_socket_url() -> None:
    shoe_writers: list[asyncio.StreamWriter] = []
    accepted = asyncio.Event()

    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        shoe_writers.append(writer)
        accepted.set()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", f"socket://127.0.0.1:{port}", 9600, {}, sleep=ManualSleep())
    async with server, running(driver, sink):
        await until_open(driver, sink)
        await asyncio.wait_for(accepted.wait(), TIMEOUT)
        writer = shoe_writers[0]
        shoe = ShoeModel(writer.write)
        shoe.load(["Qs", "Jd"])
        drawn = [shoe.draw(), shoe.draw()]
        await sink.wait_for(lambda: len(sink.cards) == 2, TIMEOUT)
        writer.close()  # the serial server drops the connection
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    assert sink.cards == drawn


# -- over the null modem: any chunking -------------------------------------------------------------


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(2), chunks_of(5), chunks_of(13), random_chunks(1, 7)],
    ids=["whole", "1", "2", "5", "13", "random"],
)
async def test_any_chunking_gives_the_same_result(fragment: Fragmenter | None) -> None:
    modem = NullModem(fragment=fragment)
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {"status_interval": 0}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        shoe = ShoeModel(modem.write)
        shoe.load(DECK[:12])
        drawn = []
        for i in range(12):
            drawn.append(shoe.draw())
            if i % 3 == 0:
                shoe.write_raw(b"\r\n~noise~")
        await sink.wait_for(lambda: len(sink.cards) == 12, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4)
    assert sink.cards == drawn
    assert driver.stats["bad_frames"] == 4


async def test_bad_frame_reports_are_rate_limited() -> None:
    modem = NullModem()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {"status_interval": 0.3}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        shoe = ShoeModel(modem.write)
        for _ in range(3):
            shoe.write_raw(b"noise")
            shoe.heartbeat()
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] > 0, TIMEOUT)
    reports = [s for s in sink.statuses if s.detail["bad_frames"] > 0]
    assert [r.detail["bad_frames"] for r in reports] == [3]  # one report for the burst


async def test_null_modem_unplug_and_plug() -> None:
    modem = NullModem(fragment=chunks_of(3))
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {}, connect=modem.connect, sleep=sleep)
    async with running(driver, sink):
        await until_open(driver, sink)
        shoe = ShoeModel(modem.write)
        shoe.load(["As", "Ks"])
        shoe.draw()
        await sink.wait_for(lambda: sink.cards == ["As"], TIMEOUT)
        modem.unplug()
        await sleep.wait_calls(1)
        sleep.release()
        await sleep.wait_calls(2)  # refused while unplugged
        modem.plug()
        sleep.release()
        await until_open(driver, sink, opens=2)
        shoe.draw()
        await sink.wait_for(lambda: sink.cards == ["As", "Ks"], TIMEOUT)
    # open, NEW, lost, refused (a different error), open again
    assert [s.fault for s in sink.statuses] == [None, None, DISCONNECTED, DISCONNECTED, None]
    assert "lost null" in sink.statuses[2].detail["error"]
    assert "cannot open null" in sink.statuses[3].detail["error"]


async def test_backoff_resets_only_after_a_connection_that_carried_frames() -> None:
    modem = NullModem()
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {}, connect=modem.connect, sleep=sleep)
    async with running(driver, sink):
        for opens in (1, 2):  # the port opens and drops at once, with nothing said
            await until_open(driver, sink, opens=opens)
            modem.unplug()
            modem.plug()
            await sleep.wait_calls(opens)
            sleep.release()
        await until_open(driver, sink, opens=3)
        ShoeModel(modem.write).new_shoe(decks=1, seed=0)
        await sink.wait_for(lambda: sink.events == [{"type": "shoe.new"}], TIMEOUT)
        modem.unplug()
        await sleep.wait_calls(3)
    assert sleep.delays == [0.2, 0.4, 0.2]


# -- options and backoff ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"baud": 1}, "unknown option 'baud'"),
        ({"silence_timeout": -1}, "'silence_timeout' must be positive"),
        ({"backoff_initial": True}, "'backoff_initial' must be a number"),
        ({"backoff_max": "5"}, "'backoff_max' must be a number"),
        ({"backoff_initial": 2, "backoff_max": 1}, "'backoff_max' must be >="),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ShoeDriver("shoe1", "/dev/null", 9600, options)


def test_options_accept_ints_and_none() -> None:
    d = ShoeDriver("s", "p", 9600, {"backoff_initial": 1, "silence_timeout": None})
    assert d.options.backoff_initial == 1.0
    assert d.options.silence_timeout is None


async def test_backoff_doubles_to_the_cap_and_resets() -> None:
    slept: list[float] = []

    async def sleep(d: float) -> None:
        slept.append(d)

    b = Backoff(sleep=sleep)
    assert [b.next_delay() for _ in range(8)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0]
    b.reset()
    assert await b.wait() == 0.2
    assert await b.wait() == 0.4
    assert slept == [0.2, 0.4]
    with pytest.raises(ValueError):
        Backoff(initial=0)
    with pytest.raises(ValueError):
        Backoff(initial=2, cap=1)
