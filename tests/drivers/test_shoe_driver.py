"""ShoeDriver end to end: the real driver over real pseudo-terminals against SimulatedShoe.

Also over a TCP `socket://` URL and the in-memory null modem (for chunkings a pty cannot force).
Nothing sleeps to wait: every wait is for a condition, bounded by a timeout.

The driver asks the shoe to resend (RSN) on every connect and the shoe answers (RSB, RSE, then
CLR: three frames before the shoe's own, so SEQs below start at 3), every event carries its place
(`at`: shoe, position, SEQ), and a SEQ gap is filled by a resend instead of standing FRAMES_LOST
(docs/protocols/envelope.md, "Positions and resend"). What every positioned device shows (faults,
gaps, reconnects, chunking) is in test_device_contract.py; here is the shoe's own, and the
resend's edge cases, which the shoe's emulator is the one made to reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tablectl_base.cards import standard_deck
from tablectl_drivers.base import Backoff
from tablectl_drivers.resend import ResendBegin
from tablectl_drivers.shoe.device import DISCONNECTED, FRAMES_LOST, ShoeDriver
from tablectl_drivers.shoe.frames import checksum
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.nullmodem import Fragmenter, chunks_of
from tablectl_drivers.sim.shoe import ShoeModel, SimulatedShoe
from tests.drivers.resend_support import AnsweringModem, until_answered
from tests.drivers.support import (
    QUICK,
    ManualSleep,
    jittered,
    last,
    running,
    simulators,
    until_open,
)

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


async def test_sequence_gap_and_retransmission(make_sim: Callable[..., SimulatedShoe]) -> None:
    """A retransmission (same SEQ) is dropped; a SEQ gap is counted and reported, and the
    driver asks the shoe to resend, which brings the lost card back at its own position.
    (FRAMES_LOST stands only while a resend goes unanswered: test_device_contract.py.)"""
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


# -- the resend's edge cases (docs/protocols/envelope.md, "What the host does") -----------------


class DeafShoe(SimulatedShoe):
    """A shoe busy when the host's RSN comes: it first runs `on_request` once, so what it does
    then is on the line while the driver waits for an answer, and answers only if `answers`
    (else never: firmware without the resend, or one that hangs); `begin()` sends an RSB whose
    RSE never comes."""

    def __init__(self, **kwargs: Any) -> None:
        self.on_request: Callable[[], object] | None = None
        self.answers = False
        super().__init__(**kwargs)

    def resend(self, run: str | None, start: int) -> None:
        action, self.on_request = self.on_request, None
        if action is not None:
            action()
        if self.answers:
            super().resend(run, start)

    def begin(self) -> None:
        self.transmit(lambda seq: ResendBegin(seq, False))


@pytest.fixture
def make_deaf() -> Iterator[Callable[..., DeafShoe]]:
    yield from simulators(DeafShoe)


def dealt(sink: RecordingSink) -> list[tuple[int, str]]:
    """(position, card) of every card event passed on, in order."""
    return [(e["at"]["pos"], e["card"]) for e in sink.events if e["type"] == "shoe.card"]


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int) -> None:
    await sink.wait_for(lambda: (sink.cursor() or {}).get("pos") == pos, TIMEOUT)


async def sink_until(sink: RecordingSink, predicate: Callable[[], bool]) -> None:
    await sink.wait_for(predicate, TIMEOUT)


@pytest.mark.parametrize("journal", ["fresh", "cursor"])
async def test_cards_heard_while_a_resend_goes_unanswered_are_passed_on(
    make_deaf: Callable[..., DeafShoe], journal: str
) -> None:
    """Bug: what comes between an RSN and its RSB is left to the replay; when no replay came,
    a driver that already had a count (the journal's cursor) dropped it without a word. The
    cards the shoe dealt while the driver waited are passed on when the resend is given up."""
    sim = make_deaf()
    sim.load(["9h", "2c", "Kd"])  # NEW, SEQ 0 (the driver's open discards it)
    sim.on_request = lambda: (sim.draw(), sim.draw())  # on the line while the RSN waits
    sink = RecordingSink(start={"run": "1", "pos": 0, "seq": 0} if journal == "cursor" else None)
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, sink):
        await sink.wait_for(lambda: len(dealt(sink)) == 2, TIMEOUT)
        assert last(sink).fault == FRAMES_LOST
        sim.draw()
        await sink.wait_for(lambda: len(dealt(sink)) == 3, TIMEOUT)
    assert dealt(sink) == [(1, "9h"), (2, "2c"), (3, "Kd")]
    assert gaps(sink) == []


@pytest.mark.parametrize("new", ["discarded", "in flight"])
async def test_a_resend_begun_and_never_ended_passes_on_what_it_heard(
    make_deaf: Callable[..., DeafShoe], new: str
) -> None:
    """Bugs: on a first contact, cards heard after an RSB whose RSE never came (lost on the
    wire) waited with no count to place them in; giving the resend up then failed an assertion
    and stopped the driver. And a NEW heard before that RSB, acted on when the resend was
    given up, wiped out the cards heard after it. The count now starts with what came first."""
    sim = make_deaf()
    cards = ["9h", "2c", "Kd"]
    if new == "discarded":
        sim.load(cards)  # NEW, SEQ 0 (the driver's open discards it)

    def busy() -> None:
        if new != "discarded":
            sim.load(cards)
        sim.begin()
        sim.draw()
        sim.draw()

    sim.on_request = busy
    sink = RecordingSink()
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, sink):
        await sink.wait_for(lambda: len(dealt(sink)) == 2, TIMEOUT)
        assert last(sink).fault == FRAMES_LOST
        sim.draw()
        await sink.wait_for(lambda: len(dealt(sink)) == 3, TIMEOUT)
    assert dealt(sink) == [(1, "9h"), (2, "2c"), (3, "Kd")]
    assert gaps(sink) == []
    if new == "in flight":
        assert sink.events[0] == {"type": "shoe.new", "at": {"run": "1", "pos": 0, "seq": 0}}
        assert all(e["at"]["run"] == "1" for e in sink.events)


async def test_asked_for_a_shoe_it_no_longer_holds_the_shoe_resends_every_shoe_it_holds(
    make_sim: Callable[..., SimulatedShoe],
) -> None:
    """Bug (the simulated shoe): asked to resend from a shoe older than its history, it said
    LOST and replayed only the shoe in play, so a whole shoe dealt in between (still in its
    history) never reached the driver, and nothing said so. It now replays all it holds."""
    sim = make_sim()
    first = RecordingSink()
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, first):
        await until_open(driver, first)
        sim.load(["9h", "2c"])
        sim.draw()
        await until_cursor(first, 1)
    # The daemon is down for two shoe changes; the shoe keeps shoes 2 and 3 only.
    sim.draw()  # 2c, shoe 1 position 2: gone with shoe 1's history
    sim.load(["Ad", "Kc"])
    sim.draw()
    sim.draw()
    sim.load(["5s", "7h"])
    sim.draw()
    sim.flush()
    again = RecordingSink(start=first.cursor())
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, again):
        await sink_until(again, lambda: len(dealt(again)) == 3)
    (gap,) = gaps(again)
    assert gap["run"] == "1" and gap["after"] == 1 and gap["missing"] is None
    assert [(e["type"], e["at"]["run"], e["at"]["pos"]) for e in again.events[1:]] == [
        ("shoe.new", "2", 0),
        ("shoe.card", "2", 1),
        ("shoe.card", "2", 2),
        ("shoe.new", "3", 0),
        ("shoe.card", "3", 1),
    ]
    assert again.cards == ["Ad", "Kc", "5s"]


@pytest.mark.parametrize("hole", ["lost", "misread"])
async def test_a_hole_in_what_came_before_the_first_answer_is_asked_for(
    make_deaf: Callable[..., DeafShoe], hole: str
) -> None:
    """On a first contact, a hole among the cards heard before the shoe's first answer is
    asked for before it is called a gap: 2c lost on the wire comes back; a misread 2c (never
    sent) is the only gap, and the cards after it are all passed on (while the driver wanted
    that resend it kept cards back for the replay; those heard early must not wait for it)."""
    sim = make_deaf()
    sim.answers = True

    def deal() -> None:  # before its answer to "where are you"
        sim.load(["9h", "2c", "Kd", "3s"])
        sim.draw()
        if hole == "lost":
            sim.drop_next()
            sim.draw()  # 2c, lost on the wire
        else:
            sim.misread()  # 2c left the shoe unread
        sim.draw()
        sim.draw()

    sim.on_request = deal
    sink = RecordingSink()
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, sink):
        await sink.wait_for(lambda: len(dealt(sink)) == (4 if hole == "lost" else 3), TIMEOUT)
        await until_answered(sink, resends=2)
    if hole == "lost":
        assert dealt(sink) == [(1, "9h"), (2, "2c"), (3, "Kd"), (4, "3s")]
        assert gaps(sink) == []
    else:
        assert dealt(sink) == [(1, "9h"), (3, "Kd"), (4, "3s")]
        assert [(g["after"], g["missing"]) for g in gaps(sink)] == [(1, [2])]
    assert all(s.fault is None for s in sink.statuses)


async def test_a_resend_whose_answer_loses_a_frame_on_the_wire_is_asked_again(
    make_deaf: Callable[..., DeafShoe],
) -> None:
    """The answer to the gap's resend loses its RSB on the wire (a SEQ gap during the
    resend): what came without it is not taken for the replay, and the driver asks once
    more, which brings the lost card back. Nothing is given up."""
    sim = make_deaf()
    sim.answers = True
    sink = RecordingSink()
    driver = ShoeDriver("shoe", sim.port, 9600, QUICK)
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)
        sim.on_request = sim.drop_next  # the next answer's first frame, RSB, is lost
        sim.load(["9h", "2c", "Kd"])
        sim.draw()
        sim.drop_next()
        sim.draw()  # 2c, lost on the wire
        sim.draw()
        await sink.wait_for(lambda: len(dealt(sink)) == 3, TIMEOUT)
        await until_answered(sink, resends=3)
    assert dealt(sink) == [(1, "9h"), (2, "2c"), (3, "Kd")]
    assert gaps(sink) == [] and all(s.fault is None for s in sink.statuses)
    assert driver.stats["resends"] == 3  # the connect's, the gap's, and the gap's again


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
