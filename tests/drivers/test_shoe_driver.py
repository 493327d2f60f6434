"""ShoeDriver end to end: the real driver over real pseudo-terminals against SimulatedShoe.

Also over a TCP `socket://` URL and the in-memory null modem (for chunkings a pty cannot force).
Nothing sleeps to wait: every wait is for a condition, bounded by a timeout.

Since issue 9 the driver asks the shoe to resend (RSN) on every connect and the shoe answers
(RSB, RSE, then CLR: three frames before the shoe's own, so SEQs below start at 3), every event
carries its place (`at`: shoe, position, SEQ), and a SEQ gap is filled by a resend instead of
standing FRAMES_LOST (tests/drivers/test_shoe_positions.py has the resend's every case).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_base.cards import standard_deck
from tablectl_drivers.base import Backoff
from tablectl_drivers.shoe.device import DISCONNECTED, SILENT, ShoeDriver
from tablectl_drivers.shoe.frames import checksum
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.nullmodem import Fragmenter, chunks_of, random_chunks
from tablectl_drivers.sim.shoe import ShoeModel, SimulatedShoe
from tests.drivers.resend_support import AnsweringModem, until_answered
from tests.drivers.support import last, running, simulators, until_open

TIMEOUT = 5.0
DECK = [str(c) for c in standard_deck()]
ANSWER = 3
"""Frames a shoe sends answering the connect's RSN with nothing to resend: RSB, RSE, CLR."""


def at(pos: int, seq: int, run: str = "1") -> dict[str, Any]:
    """An event's `at`: its shoe, its position since NEW and the SEQ of the frame it came in."""
    return {"run": run, "pos": pos, "seq": seq}


def shoe_modem(fragment: Fragmenter | None = None) -> AnsweringModem[ShoeModel]:
    """A null modem with a shoe at its far end that answers the driver's RSN."""
    return AnsweringModem(ShoeModel, fragment=fragment)


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
        await until_answered(sink)  # the shoe answered the connect's RSN: SEQ 0, 1, 2
        before = len(sink.statuses)
        sim.new_shoe(decks=8, seed=1)
        assert sim.remaining == 416
        drawn = [sim.draw() for _ in range(40)]
        await sink.wait_for(lambda: len(sink.cards) >= 40, TIMEOUT)
    assert sink.cards == drawn
    # A status is journaled: one for the new shoe, none for a card (the position moving on
    # is in the next report's detail, not a report of its own).
    assert len(sink.statuses) == before + 1
    assert sink.statuses[-1].detail["position"] == {"run": "1", "pos": 0}
    assert sink.events[0] == {"type": "shoe.new", "at": at(0, ANSWER)}
    assert sink.events[1:] == [
        {"type": "shoe.card", "card": c, "at": at(i + 1, ANSWER + i + 1)}
        for i, c in enumerate(drawn)
    ]
    assert driver.stats["bad_frames"] == 0
    assert driver.stats["frames_lost"] == 0


async def test_burn_new_fault_clear_and_empty(make_sim: Callable[..., SimulatedShoe]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)
        sim.load(["7d", "Ah", "Kc"])  # NEW, SEQ 3
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
        sim.new_shoe(decks=1, seed=2)  # SEQ 10: shoe 2, counting from 0 again
        await sink.wait_for(lambda: sink.events[-1]["type"] == "shoe.new")
        await sink.wait_for(lambda: last(sink).detail["empty"] is False)
    assert sink.events == [
        {"type": "shoe.new", "at": at(0, 3)},
        {"type": "shoe.burn", "card": "7d", "at": at(1, 4)},  # burns count: position 1
        {"type": "shoe.card", "card": "Ah", "at": at(2, 5)},
        {"type": "shoe.card", "card": "Kc", "at": at(3, 7)},  # SEQ 6 was the FLT
        {"type": "shoe.new", "at": at(0, 10, run="2")},  # 8 CLR, 9 EMP
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
        sim.write_raw(b"$CRD,9,Ah,2*00\r\n")  # 2: bad checksum
        drawn.append(sim.draw())
        bad_card = b"CRD,9,Zz,3"
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
        await until_answered(sink)
        sim.load(DECK[:30])
        drawn = [sim.draw() for _ in range(30)]
        await sink.wait_for(lambda: len(sink.cards) == 30, TIMEOUT)
    assert sink.cards == drawn
    assert driver.stats["bad_frames"] == 0
    # the frames really arrived in pieces: more reads than frames (NEW, 30 CRD, and the
    # shoe's answer to the connect's RSN)
    assert driver.stats["reads"] > driver.stats["frames"] == 31 + ANSWER


async def test_sequence_gap_and_retransmission(make_sim: Callable[..., SimulatedShoe]) -> None:
    """A retransmission (same SEQ) is dropped; a SEQ gap is counted and reported, and the
    driver asks the shoe to resend, which brings the lost card back at its own position.
    (Before issue 9 the lost card stayed lost and FRAMES_LOST stood until the next NEW; now
    FRAMES_LOST stands only while a resend goes unanswered: test_shoe_positions.py.)"""
    sim = make_sim()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)
        sim.load(["Ah", "2c", "3d", "4s"])  # NEW is SEQ 3
        sim.draw()  # SEQ 4
        sim.duplicate_last()  # SEQ 4 again: a retransmission
        sim.drop_next()
        sim.draw()  # SEQ 5, lost on the wire
        sim.draw()  # SEQ 6: the gap; the driver sends RSN from position 2
        await sink.wait_for(lambda: len(sink.cards) == 3, TIMEOUT)
        gap = next(s for s in sink.statuses if "last_gap" in s.detail)
        assert gap.available and gap.fault is None
        assert gap.detail["frames_lost"] == 1
        assert gap.detail["last_gap"] == {"expected": 5, "received": 6, "lost": 1}
        sim.draw()
        await sink.wait_for(lambda: len(sink.cards) == 4)
    # RSB 7, then 2c (8) and 3d (9) resent, RSE 10, CLR 11; 4s is SEQ 12. The 3d that came
    # after the gap (6) waited for the replay, which brings it in its place: passed on once.
    assert [(e["card"], e["at"]) for e in sink.events if e["type"] == "shoe.card"] == [
        ("Ah", at(1, 4)),
        ("2c", at(2, 8)),
        ("3d", at(3, 9)),
        ("4s", at(4, 12)),
    ]
    assert [s.fault for s in sink.statuses if s.fault is not None] == []  # never FRAMES_LOST
    assert driver.stats["duplicates"] == 1
    assert driver.stats["frames_lost"] == 1
    assert driver.stats["resends"] == 2  # the connect's and the gap's


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
        await until_answered(sink)  # the answer read before the cable is pulled
        sim1.load(DECK[:10])
        first = sim1.draw()
        await sink.wait_for(lambda: sink.cards == [first], TIMEOUT)

        sim1.close()  # unplugged
        await sink.wait_for(lambda: not last(sink).available, TIMEOUT)
        down = sink.statuses[-1]
        assert down.fault == DISCONNECTED
        assert down.detail["error"].startswith(f"lost {link}")
        await sleep.wait_calls(1)
        assert jittered(sleep.delays, [0.2])

        link.unlink()
        link.symlink_to(tmp_path / "nothing-here")
        sleep.release()  # retry: the port is not there
        await sleep.wait_calls(2)
        assert jittered(sleep.delays, [0.2, 0.4])
        assert "cannot open" in sink.statuses[-1].detail["error"]

        # The same shoe plugged in again (on a fresh pty: its cards, SEQ and history go on).
        # Before issue 9 this was a second emulator; now the shoe must remember its shoe to
        # answer the driver's resend from position 2 of shoe 1.
        link.unlink()
        link.symlink_to(sim1.replug())
        sleep.release()
        await until_open(driver, sink, opens=2)
        await until_answered(sink, resends=2)
        second = sim1.draw()
        await sink.wait_for(lambda: len(sink.cards) == 2, TIMEOUT)
    assert sink.cards == [first, second]
    assert [e["at"]["pos"] for e in sink.events if e["type"] == "shoe.card"] == [1, 2]
    assert sink.statuses[-1].fault is None  # SEQ continued: nothing lost
    assert sink.statuses[-1].detail["reconnects"] == 1
    assert sink.statuses[-1].detail["frames_lost"] == 0
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
    assert jittered(sleep.delays, [0.2, 0.4, 0.8, 1.6, 3.2])
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
    commands = [
        "draw 3",  # positions 1-3, SEQ 1-3 (NEW was SEQ 0)
        "burn",  # position 4, SEQ 4
        "fault JAM stuck",  # SEQ 5
        "clear",  # SEQ 6
        "status",
        "misread",  # position 5 used, nothing sent: no SEQ
        "forget",
        "status",
        "new",  # shoe 2, SEQ 7
        "status",
        "bogus",
        "quit",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "tablectl_drivers.sim.shoe", "--decks", "1", "--seed", "1"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    port = lines[0]
    assert len(lines[1].split()) == 3
    assert lines[2].startswith("burned ")
    assert lines[3] == "fault JAM"
    assert lines[4] == "ok"
    assert lines[5] == f"48 cards left, shoe 1 position 4, next SEQ 7, port {port}"
    misread = re.fullmatch(r"misread ([A2-9TJQK][shdc]) at position 5", lines[6])
    assert misread is not None
    assert misread.group(1) not in " ".join(lines[1:3])  # a card not drawn before
    assert lines[7] == "history forgotten"
    assert lines[8] == f"47 cards left, shoe 1 position 5, next SEQ 7, port {port}"
    assert lines[9] == "new shoe: 52 cards"
    assert lines[10] == f"52 cards left, shoe 2 position 0, next SEQ 8, port {port}"
    assert "commands:" in lines[11]
    assert "misread" in proc.stdout and "forget" in proc.stdout  # the help lists them


def test_a_new_shoe_that_cannot_be_announced_changes_nothing() -> None:
    """Bug (the simulated shoe): a new shoe put in while the line was down (sending NEW
    failed) still replaced the cards and used up a shoe id, so the cards were then dealt under
    the old shoe's id and positions, and the next NEW skipped a number. Like a card that cannot
    be sent, a NEW that cannot be sent leaves the shoe as it was."""
    wire: list[bytes] = []
    down = False

    def send(data: bytes) -> None:
        if down:
            raise RuntimeError("the ShoeModel is closed (unplugged)")
        wire.append(data)

    shoe = ShoeModel(send)
    shoe.load(["9h", "2c"])  # shoe 1, SEQ 0
    assert shoe.draw() == "9h"  # SEQ 1, position 1
    down = True
    with pytest.raises(RuntimeError):
        shoe.new_shoe(decks=1, seed=1)
    with pytest.raises(RuntimeError):
        shoe.load(["Ad"])
    assert (shoe.shoe, shoe.position, shoe.remaining, shoe.next_seq) == ("1", 1, 1, 2)
    down = False
    assert shoe.draw() == "2c"  # still shoe 1's card, at position 2
    shoe.load(["Ad"])  # shoe 2: no id was used up by the failed ones
    # From CRD,2,Ah,2 (0x50): "Ah" -> "2c" flips 0x41^0x32 and 0x68^0x63, so 0x50^0x73^0x0B =
    # 0x28; from NEW,0,1 (0x5D): "0" -> "3" and "1" -> "2" each flip 0x03, so 0x5D again.
    assert wire[-2:] == [b"$CRD,2,2c,2*28\r\n", b"$NEW,3,2*5D\r\n"]


# -- over TCP (pyserial's socket:// URL, as with ser2net) ---------------------------------------


async def test_socket_url() -> None:
    shoe_writers: list[asyncio.StreamWriter] = []
    shoes: list[ShoeModel] = []
    accepted = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        shoe_writers.append(writer)
        shoes.append(ShoeModel(writer.write))
        accepted.set()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(256):  # the driver's RSN reaches the shoe
                shoes[0].receive(data)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", f"socket://127.0.0.1:{port}", 9600, {}, sleep=ManualSleep())
    async with server, running(driver, sink):
        await until_open(driver, sink)
        await asyncio.wait_for(accepted.wait(), TIMEOUT)
        writer, shoe = shoe_writers[0], shoes[0]
        shoe.load(["Qs", "Jd"])
        drawn = [shoe.draw(), shoe.draw()]
        await sink.wait_for(lambda: len(sink.cards) == 2, TIMEOUT)
        writer.close()  # the serial server drops the connection
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    assert sink.cards == drawn
    assert shoes[0].resends_answered == 1  # the driver's RSN came through the socket


# -- over the null modem: any chunking -------------------------------------------------------------


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(2), chunks_of(5), chunks_of(13), random_chunks(1, 7)],
    ids=["whole", "1", "2", "5", "13", "random"],
)
async def test_any_chunking_gives_the_same_result(fragment: Fragmenter | None) -> None:
    modem = shoe_modem(fragment)
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {"status_interval": 0}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        shoe = modem.model
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
    modem = shoe_modem()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {"status_interval": 0.3}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)
        shoe = modem.model
        for _ in range(3):
            shoe.write_raw(b"noise")
            shoe.heartbeat()
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] > 0, TIMEOUT)
    reports = [s for s in sink.statuses if s.detail["bad_frames"] > 0]
    assert [r.detail["bad_frames"] for r in reports] == [3]  # one report for the burst


async def test_null_modem_unplug_and_plug() -> None:
    modem = shoe_modem(chunks_of(3))
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", "null", 9600, {}, connect=modem.connect, sleep=sleep)
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)
        shoe = modem.model
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
        await until_answered(sink, resends=2)
    # open, RSB and RSE (the connect's resend: `resending` true, then false), NEW, lost,
    # refused (a different error), open again, RSB and RSE again
    faults = [s.fault for s in sink.statuses]
    assert faults == [None] * 4 + [DISCONNECTED] * 2 + [None] * 3
    assert [s.detail.get("resending") for s in sink.statuses[1:3]] == [True, False]
    assert "lost null" in sink.statuses[4].detail["error"]
    assert "cannot open null" in sink.statuses[5].detail["error"]


async def test_backoff_resets_only_after_a_connection_that_carried_frames() -> None:
    modem = shoe_modem()
    modem.model.answer_resends = False  # a connection that carries no frame, not even RSB
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
        modem.model.new_shoe(decks=1, seed=0)
        await sink.wait_for(lambda: [e["type"] for e in sink.events] == ["shoe.new"], TIMEOUT)
        modem.unplug()
        await sleep.wait_calls(3)
    assert jittered(sleep.delays, [0.2, 0.4, 0.2])  # the third: reset


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

    b = Backoff(sleep=sleep, random=lambda: 1.0)  # the top of each jitter range: the ceiling
    assert [b.next_delay() for _ in range(8)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 5.0]
    b.reset()
    assert await b.wait() == 0.2
    assert await b.wait() == 0.4
    assert slept == [0.2, 0.4]
    with pytest.raises(ValueError):
        Backoff(initial=0)
    with pytest.raises(ValueError):
        Backoff(initial=2, cap=1)
