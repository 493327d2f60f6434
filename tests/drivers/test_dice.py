"""The dice-cup sensor family: its messages, and DiceCupDriver over real ptys against SimulatedDice.

Also over the in-memory null modem for chunkings a pty cannot force. Nothing sleeps to wait:
every wait is for a condition on the recorded calls, bounded by a timeout. The faults roll
numbers and resends deal with (lost, repeated, unreported rolls, a restart, a cup that lost its
history), which every positioned device shows, are in tests/drivers/test_device_contract.py;
here, the cup's own.
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.dice.device import (
    UNREADABLE,
    DiceCupDriver,
    DiceOptions,
)
from tablectl_drivers.dice.messages import MESSAGES, CupMoved, DiceReading, Frame
from tablectl_drivers.envelope import BadFrame, FrameError, checksum
from tablectl_drivers.messages import Fault, FaultCleared, Heartbeat
from tablectl_drivers.registry import available_drivers, load_driver
from tablectl_drivers.resend import (
    HOST_MESSAGES,
    MAX_POSITION,
    ResendBegin,
    ResendEnd,
    ResendRequest,
)
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.dice import DiceModel, SimulatedDice
from tablectl_drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from tests.drivers.support import (
    QUICK,
    last,
    running,
    simulators,
    synced,
    until_open,
    until_synced,
)

TIMEOUT = 5.0
SERVED = 40
"""Rolls a cup in service has read before a test: its first roll there is number 41."""
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "dice.md"


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedDice]]:
    yield from simulators(SimulatedDice)


def rolls(sink: RecordingSink) -> list[list[int]]:
    """The dice of the `dice.roll` events, in order."""
    return [e["dice"] for e in sink.events if e.get("type") == "dice.roll"]


def numbers(sink: RecordingSink) -> list[int]:
    """The roll numbers (`at.pos`) of the `dice.roll` events, in order."""
    return [e["at"]["pos"] for e in sink.events if e.get("type") == "dice.roll"]


def roll_event(dice: list[int] | tuple[int, ...], pos: int) -> dict[str, Any]:
    """What a roll event must be, its SEQ aside (compare with `without_seq`): no run, the cup's
    roll number never restarts."""
    return {"type": "dice.roll", "dice": list(dice), "at": {"pos": pos}}


def without_seq(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with each `at.seq` checked to be a SEQ and taken out, for comparison."""
    out = []
    for e in events:
        if "at" in e:
            at = dict(e["at"])
            assert isinstance(at.pop("seq"), int)
            e = {**e, "at": at}
        out.append(e)
    return out


def changes(values: list[Any]) -> list[Any]:
    """`values` with consecutive repeats dropped: what a status detail went through."""
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


async def until_cup(sink: RecordingSink, cup: str) -> None:
    """Wait until the status shows the cup `lifted` or `closed` (a marker that frames got in)."""
    await sink.wait_for(lambda: last(sink).detail["cup"] == cup, TIMEOUT)


def line(body: str) -> bytes:
    """A well-formed frame around `body`, whatever the body says."""
    raw = body.encode()
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


# -- messages ---------------------------------------------------------------------------------

DOC_EXAMPLES: list[tuple[bytes, Frame]] = [
    (b"$CUP,0,CLOSED*64\r\n", CupMoved(0, False)),
    (b"$DIC,1,1041,3,5,6*67\r\n", DiceReading(1, 1041, (3, 5, 6))),
    (b"$CUP,2,LIFTED*62\r\n", CupMoved(2, True)),
    (b"$DIC,3,1042,2,?,4*6F\r\n", DiceReading(3, 1042, (2, None, 4))),
    (b"$FLT,4,TILT,cup base not level*13\r\n", Fault(4, "TILT", "cup base not level")),
    (b"$CLR,5*44\r\n", FaultCleared(5)),
    (b"$HBT,6*44\r\n", Heartbeat(6)),
    (b"$DIC,7,1042,1,2*7D\r\n", DiceReading(7, 1042, (1, 2))),
    (b"$DIC,8,1043,6,6,1*6D\r\n", DiceReading(8, 1043, (6, 6, 1))),
    # its answer to a resend from roll 1042 (had frame 7 been lost)
    (b"$RSB,9,OK*7E\r\n", ResendBegin(9, False)),
    (b"$DIC,10,1042,1,2*4B\r\n", DiceReading(10, 1042, (1, 2))),
    (b"$DIC,11,1043,6,6,1*55\r\n", DiceReading(11, 1043, (6, 6, 1))),
    (b"$RSE,12,-,1043*40\r\n", ResendEnd(12, None, 1043)),
    (b"$CLR,13*73\r\n", FaultCleared(13)),
]


@pytest.mark.parametrize(("wire", "message"), DOC_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_examples_are_what_the_code_sends_and_reads(
    wire: bytes, message: Frame
) -> None:
    assert MESSAGES.encode(message) == wire
    assert MESSAGES.decode(wire) == (len(wire), message)
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert shown in DOC.read_text(), f"{shown} is not in {DOC.name}"


def test_the_documented_resend_request_is_what_the_driver_sends() -> None:
    wire = b"$RSN,0,-,1042*79\r\n"
    assert HOST_MESSAGES.encode(ResendRequest(0, None, 1042)) == wire
    assert wire.decode().replace("\r\n", "\\r\\n") in DOC.read_text()


def test_the_documented_session_and_resend_are_what_the_cup_sends() -> None:
    """The doc's session played on the model (a cup that has read 1040 rolls), frame 7 lost on
    the wire, then the host's request from roll 1042 answered."""
    sent: list[bytes] = []
    cup = DiceModel(sent.append, rolls_read=1040)
    cup.close_cup()
    cup.shake([3, 5, 6])
    cup.lift()
    cup.unreadable([2, None, 4])  # carries 1042, uses no number
    cup.fault("TILT", "cup base not level")
    cup.clear()
    cup.heartbeat()
    cup.drop_next()
    cup.shake([1, 2])  # roll 1042, lost on the wire
    cup.shake([6, 6, 1])
    session = [wire for wire, _ in DOC_EXAMPLES[:9]]
    assert sent == session[:7] + session[8:9]
    cup.receive(b"$RSN,0,-,1042*79\r\n")
    assert sent[8:] == [wire for wire, _ in DOC_EXAMPLES[9:]]


DOC_BAD_EXAMPLES = [
    (b"$DIC,8,17,3,7,6*6E\r\n", "DIC die '7' is not 1-6 or ?"),
    (b"$DIC,8,17,0,2,6*68\r\n", "DIC die '0' is not 1-6 or ?"),
    (b"$DIC,8*5A\r\n", "DIC takes a roll number and one or more dice"),
    (b"$DIC,8,17*70\r\n", "DIC takes a roll number and one or more dice"),
    (b"$DIC,8,0,1,2,3*5A\r\n", "DIC roll number must be at least 1"),
    (b"$DIC,8,x,1,2,3*12\r\n", "DIC roll number is not 1-9 digits"),
    (b"$CUP,8,OPEN*6A\r\n", "CUP takes LIFTED or CLOSED"),
]


@pytest.mark.parametrize(("wire", "reason"), DOC_BAD_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_bad_frames_are_bad_for_the_documented_reason(
    wire: bytes, reason: str
) -> None:
    assert MESSAGES.decode(wire) == (len(wire), BadFrame(wire, reason))
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert re.search(re.escape(shown) + r" +" + re.escape(reason), DOC.read_text())


@pytest.mark.parametrize(
    "message",
    [
        DiceReading(0, 1, (1,)),
        DiceReading(9999, MAX_POSITION, (6, 6, 6, 6, 6)),
        DiceReading(12, 7, (None, None, None)),
        CupMoved(13, True),
        Fault(14, "COVER_OPEN"),
        Fault(15, "UNREADABLE", "lens fogged, wipe it"),
        ResendBegin(16, True),
        ResendEnd(17, None, 0),
        ResendEnd(18, None, MAX_POSITION),
    ],
    ids=repr,
)
def test_messages_round_trip(message: Frame) -> None:
    wire = MESSAGES.encode(message)
    assert MESSAGES.decode(wire) == (len(wire), message)
    assert MESSAGES.kinds == {"DIC", "CUP", "RSB", "RSE", "FLT", "CLR", "HBT"}


def test_values_are_the_dice_only_when_every_die_was_read() -> None:
    assert DiceReading(1, 5, (4, 1, 6)).values == (4, 1, 6)
    assert DiceReading(1, 5, (4, None, 6)).values is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("DIC,1", "DIC takes a roll number and one or more dice"),
        ("DIC,1,5", "DIC takes a roll number and one or more dice"),
        ("DIC,1,5,3,7,6", "DIC die '7' is not 1-6 or ?"),
        ("DIC,1,5,0,2,3", "DIC die '0' is not 1-6 or ?"),
        ("DIC,1,5,12,3", "DIC die '12'"),
        ("DIC,1,5,3,,4", "DIC die ''"),
        ("DIC,1,5,3, 4,5", "DIC die ' 4'"),
        ("DIC,1,5,x,2,3", "DIC die 'x'"),
        ("DIC,1,5,??,2,3", "DIC die '??'"),
        ("DIC,1,?,2,3", "DIC roll number is not 1-9 digits"),  # an unnumbered reading
        ("DIC,1,0,2,3", "DIC roll number must be at least 1"),
        ("DIC,1,1234567890,2,3", "DIC roll number is not 1-9 digits"),
        ("DIC,1,-5,2,3", "DIC roll number is not 1-9 digits"),
        ("CUP,1", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,lifted", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,OPEN", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,LIFTED,CLOSED", "CUP takes LIFTED or CLOSED"),
        ("RSB,1", "RSB takes OK or LOST"),
        ("RSE,1,-", "RSE takes a run and a position"),
        ("RSN,1,-,5", "unknown frame type 'RSN'"),  # the host's message
        ("CRD,1,Ah,1", "unknown frame type 'CRD'"),  # the shoe's message
    ],
)
def test_bad_fields_make_a_bad_frame(body: str, reason: str) -> None:
    wire = line(body)
    consumed, item = MESSAGES.decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame) and item.raw == wire
    assert reason in item.reason


@pytest.mark.parametrize(
    ("pos", "dice"),
    [(1, ()), (1, (7,)), (1, (1, 0)), (1, (True, 2)), (0, (1, 2, 3)), (MAX_POSITION + 1, (1,))],
    ids=repr,
)
def test_a_reading_no_cup_could_send_cannot_be_encoded(pos: int, dice: tuple[Any, ...]) -> None:
    with pytest.raises(FrameError):
        MESSAGES.encode(DiceReading(1, pos, dice))


# -- the model --------------------------------------------------------------------------------


def test_the_model_rolls_from_its_seed_and_refuses_impossible_dice() -> None:
    sent: list[bytes] = []
    a, b = DiceModel(sent.append, roll_seed=4), DiceModel(sent.append, roll_seed=4)
    rolled = [a.shake() for _ in range(20)]
    assert rolled == [b.shake() for _ in range(20)]
    assert all(len(r) == 3 and set(r) <= {1, 2, 3, 4, 5, 6} for r in rolled)
    assert len({*rolled}) > 1
    assert DiceModel(sent.append, dice=5).shake()[4] in range(1, 7)
    assert a.shake([6, 6]) == (6, 6)  # given values go out as given, any number of them
    before = (a.next_seq, len(sent))
    for bad in ([7, 1, 1], [], [0]):
        with pytest.raises(ValueError, match=r"1\.\.6"):
            a.shake(bad)
    with pytest.raises(ValueError, match="None die"):
        a.unreadable([1, 2, 3])
    assert (a.next_seq, len(sent)) == before  # nothing was sent
    reading = a.unreadable()
    assert len(reading) == 3 and reading.count(None) == 1
    assert a.unreadable([None, 2, None]) == (None, 2, None)
    # 21 rolls read: an unreadable reading carries the next number, 22, and uses none
    assert MESSAGES.decode(sent[-1])[1] == DiceReading(before[0] + 1, 22, (None, 2, None))
    assert a.rolls_read == 21


def test_the_model_numbers_each_roll_it_reads_and_resends_its_latest() -> None:
    sent: list[bytes] = []
    cup = DiceModel(sent.append, rolls_read=99)  # a cup in service: its counter goes on
    assert cup.shake([1, 2, 3]) == (1, 2, 3)  # SEQ 0, roll 100
    cup.unreadable([4, None, 6])  # SEQ 1, carries 101
    cup.shake([4, 5, 6])  # SEQ 2, roll 101
    assert cup.misread([2, 2, 2]) == (2, 2, 2)  # roll 102: read and counted, never sent
    cup.lift()  # SEQ 3
    cup.shake([3, 3, 3])  # SEQ 4, roll 103
    assert [MESSAGES.decode(w)[1] for w in sent] == [
        DiceReading(0, 100, (1, 2, 3)),
        DiceReading(1, 101, (4, None, 6)),
        DiceReading(2, 101, (4, 5, 6)),
        CupMoved(3, True),
        DiceReading(4, 103, (3, 3, 3)),
    ]
    assert cup.rolls_read == 103
    with pytest.raises(ValueError, match="roll counter"):
        DiceModel(sent.append, rolls_read=-1)
    # the host asks from 101: 101 and 103 again (102 was never reported, and no unreadable one)
    cup.receive(HOST_MESSAGES.encode(ResendRequest(0, None, 101)))
    assert [MESSAGES.decode(w)[1] for w in sent[5:]] == [
        ResendBegin(5, False),
        DiceReading(6, 101, (4, 5, 6)),
        DiceReading(7, 103, (3, 3, 3)),
        ResendEnd(8, None, 103),
        FaultCleared(9),
    ]
    cup.forget()  # a power cycle: the history is gone, the counter is not
    cup.receive(HOST_MESSAGES.encode(ResendRequest(1, None, 103)))
    assert [MESSAGES.decode(w)[1] for w in sent[10:]] == [
        ResendBegin(10, True),
        ResendEnd(11, None, 103),
        FaultCleared(12),
    ]
    assert cup.shake([5, 5, 5]) == (5, 5, 5)
    assert MESSAGES.decode(sent[-1])[1] == DiceReading(13, 104, (5, 5, 5))


# -- the driver over a real pty ---------------------------------------------------------------


async def test_each_shake_becomes_one_roll_in_order_with_its_number(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(roll_seed=1)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with synced(driver, sink):
        first = sink.statuses[0]
        assert (first.available, first.fault) == (True, None)
        assert first.detail["port"] == sim.port
        assert first.detail["cup"] is None  # not told yet
        reports = len(sink.statuses)
        shaken = [sim.shake() for _ in range(25)]
        await sink.wait_for(lambda: len(sink.events) >= 25, TIMEOUT)
    assert without_seq(sink.events) == [roll_event(d, i) for i, d in enumerate(shaken, 1)]
    seqs = [e["at"]["seq"] for e in sink.events]  # each roll's own frame
    assert seqs == list(range(seqs[0], seqs[0] + 25))
    assert all("run" not in e["at"] for e in sink.events)  # the cup has no runs
    assert driver.stats["bad_frames"] == 0
    assert len(sink.statuses) == reports  # a roll is an event, never a status report
    assert sink.cursor() == {"run": None, "pos": 25, "seq": seqs[-1]}
    assert all(s.fault is None for s in sink.statuses)


async def test_the_cup_lifted_and_closed_shows_in_status_detail(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.close_cup()
        await until_cup(sink, "closed")
        sim.shake([2, 3, 4])
        sim.lift()
        await until_cup(sink, "lifted")
        assert rolls(sink) == [[2, 3, 4]]
        sim.close_cup()
        await until_cup(sink, "closed")
    cups = [s.detail["cup"] for s in sink.statuses]
    assert changes(cups) == [None, "closed", "lifted", "closed"]
    assert all(s.fault is None for s in sink.statuses)


async def test_an_unreadable_die_withholds_the_roll_until_the_one_that_takes_its_number(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(roll_seed=3)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.close_cup()
        sim.unreadable([4, None, 1])  # carries roll number 1
        await sink.wait_for(lambda: last(sink).fault == UNREADABLE, TIMEOUT)
        assert sink.events == []
        assert last(sink).available
        assert last(sink).detail["unreadable"] == 1
        assert last(sink).detail["position"]["pos"] == 0  # no position: no roll
        sim.lift()  # moving the cup does not clear it: only a reading does
        await until_cup(sink, "lifted")
        assert last(sink).fault == UNREADABLE
        sim.fault("TILT", "cup base not level")  # the device's own fault ranks higher
        await sink.wait_for(lambda: last(sink).fault == "TILT", TIMEOUT)
        sim.clear()
        await sink.wait_for(lambda: last(sink).fault == UNREADABLE, TIMEOUT)
        sim.close_cup()
        sim.unreadable()  # the re-shake is unreadable too
        await sink.wait_for(lambda: last(sink).detail["unreadable"] == 2, TIMEOUT)
        assert last(sink).fault == UNREADABLE
        sim.shake([5, 5, 2])  # the next good roll: roll 1
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert without_seq(sink.events) == [roll_event([5, 5, 2], 1)]
    assert "fault_text" not in sink.statuses[-1].detail  # UNREADABLE here is not a FLT
    assert driver.stats["gaps"] == 0 and driver.stats["frames_lost"] == 0


async def test_a_wrong_number_of_dice_is_passed_on_as_read_and_counted(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"dice": 3})
    async with synced(driver, sink):
        sim.shake([1, 2])
        sim.shake([3, 4, 5])
        sim.shake([6, 6, 6, 6])
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 2, TIMEOUT)
        await sink.wait_for(lambda: len(sink.events) == 3, TIMEOUT)
    assert rolls(sink) == [[1, 2], [3, 4, 5], [6, 6, 6, 6]]
    assert numbers(sink) == [1, 2, 3]  # each keeps its place
    assert all(s.fault is None for s in sink.statuses)  # the engine alerts, not the driver


async def test_a_cup_of_two_counts_three_dice_as_wrong(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(dice=2, roll_seed=0)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"dice": 2})
    async with synced(driver, sink):
        two = sim.shake()
        sim.shake([1, 2, 3])
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 1, TIMEOUT)
    assert rolls(sink) == [list(two), [1, 2, 3]]


async def test_a_die_that_cannot_be_is_a_bad_frame(make_sim: Callable[..., SimulatedDice]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_synced(driver, sink)  # SEQ 0-2 answered the resend asked on connect
        sim.shake([1, 1, 1])  # SEQ 3, roll 1
        sim.write_raw(line("DIC,4,2,3,7,6"))
        sim.write_raw(line("DIC,4,2,0,2,6"))
        sim.shake([2, 2, 2])  # SEQ 4, roll 2: the bad frames' SEQ was never taken
        await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    assert rolls(sink) == [[1, 1, 1], [2, 2, 2]]
    assert numbers(sink) == [1, 2]
    final = sink.statuses[-1]
    assert final.fault is None
    assert final.detail["frames_lost"] == 0 and final.detail["wrong_count"] == 0
    assert final.detail["last_bad"]["reason"] == "DIC die '0' is not 1-6 or ?"


async def test_garbage_between_frames_is_survived_and_counted(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(roll_seed=5)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"status_interval": 0})
    async with synced(driver, sink):
        shaken = [sim.shake()]
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage before $
        shaken.append(sim.shake())
        sim.write_raw(b"$DIC,9,3,1,2,3*00\r\n")  # 2: bad checksum
        sim.write_raw(b"$DIC,9,3,1,")  # 3: truncated by the next frame's $
        shaken.append(sim.shake())
        await sink.wait_for(lambda: len(sink.events) == 3, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    assert rolls(sink) == [list(d) for d in shaken]
    assert numbers(sink) == [1, 2, 3]
    final = sink.statuses[-1]
    assert final.available and final.fault is None
    assert final.detail["last_bad"] == {
        "reason": "truncated frame: $ before end of line",
        "raw": "$DIC,9,3,1,",
    }


async def test_a_lost_roll_is_resent_and_nothing_stands_but_a_lost_cup_move_is_stale(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    """Before roll numbers a SEQ gap stood FRAMES_LOST until the cup was closed again. Now the
    driver asks the cup to resend: a lost roll comes back in its place and nothing is held. A
    cup move holds no position and is not resent: the cup shows stale until the next CUP."""
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.close_cup()
        sim.shake([1, 2, 3])  # roll 1
        sim.drop_next()
        sim.shake([4, 5, 6])  # roll 2, lost on the wire
        sim.shake([6, 5, 4])  # roll 3 waits for it
        await sink.wait_for(lambda: len(sink.events) == 3, TIMEOUT)
        sim.drop_next()
        sim.lift()  # lost on the wire
        sim.shake([2, 2, 2])
        await sink.wait_for(lambda: len(sink.events) == 4, TIMEOUT)
        assert last(sink).detail["cup"] == "closed"  # the lift was lost: stale
        sim.lift()
        await until_cup(sink, "lifted")
    assert rolls(sink) == [[1, 2, 3], [4, 5, 6], [6, 5, 4], [2, 2, 2]]  # in order, all of them
    assert numbers(sink) == [1, 2, 3, 4]
    assert [e["type"] for e in sink.events] == ["dice.roll"] * 4  # no gap
    assert driver.stats["frames_lost"] == 2
    assert all(s.fault is None for s in sink.statuses)


# -- the cup's own faults at their roll numbers (docs/protocols/dice.md) --------------------------


def used(sink: RecordingSink) -> list[tuple[int, list[int]]]:
    """(roll number, dice) of every roll passed on, in order."""
    return [(e["at"]["pos"], e["dice"]) for e in sink.events if e["type"] == "dice.roll"]


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int) -> None:
    await sink.wait_for(lambda: (sink.cursor() or {}).get("pos") == pos, TIMEOUT)
    cursor = sink.cursor()
    assert cursor is not None and cursor["run"] is None


async def test_an_unreadable_reading_holds_no_number_and_the_reshake_takes_it(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.unreadable([3, None, 4])  # carries 41
        await sink.wait_for(lambda: last(sink).fault == UNREADABLE, TIMEOUT)
        sim.shake([3, 2, 4])  # the re-shake: roll 41
        await until_cursor(sink, 41)
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert used(sink) == [(41, [3, 2, 4])]
    assert gaps(sink) == [] and driver.stats["resends"] == 1  # no hole: nothing to ask for


async def test_a_wrong_number_of_dice_keeps_its_number(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([1, 2])  # a die missed: emitted as read, the engine refuses it
        sim.shake([1, 2, 5])
        await until_cursor(sink, 42)
    assert used(sink) == [(41, [1, 2]), (42, [1, 2, 5])]
    assert last(sink).detail["wrong_count"] == 1
    assert all(s.fault is None for s in sink.statuses)


async def test_a_tilt_stands_until_cleared_and_a_reconnecting_driver_learns_it_from_the_resend(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([1, 5, 6])
        sim.fault("TILT", "cup base not level")
        await sink.wait_for(lambda: last(sink).fault == "TILT", TIMEOUT)
    sim.flush()
    again = RecordingSink(start=sink.cursor())
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: again.last_status is not None and last(again).fault == "TILT")
        assert last(again).detail["fault_text"] == "cup base not level"
        sim.clear()
        await again.wait_for(lambda: last(again).fault is None, TIMEOUT)
        sim.shake([2, 5, 6])
        await until_cursor(again, 42)
    assert used(sink) == [(41, [1, 5, 6])]
    assert used(again) == [(42, [2, 5, 6])]
    assert gaps(again) == []


# -- over the null modem: any chunking ---------------------------------------------------------


async def answer_resend(modem: NullModem, cup: DiceModel) -> None:
    """Hand what the host wrote since it connected (its RSN) to the cup, which answers it: the
    null modem's device end only keeps the bytes."""
    async with asyncio.timeout(TIMEOUT):
        while not modem.device_end.received:
            await asyncio.sleep(0.01)
    cup.receive(bytes(modem.device_end.received))
    modem.device_end.received.clear()


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(5), random_chunks(2, 9)],
    ids=["whole", "1", "5", "random"],
)
async def test_any_chunking_gives_the_same_result(fragment: Fragmenter | None) -> None:
    modem = NullModem(fragment=fragment)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", "null", 9600, {"status_interval": 0}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        cup = DiceModel(modem.write, roll_seed=9, rolls_read=500)
        await answer_resend(modem, cup)
        await sink.wait_for(lambda: last(sink).detail["position"]["pos"] == 500, TIMEOUT)
        shaken = []
        for i in range(10):
            cup.close_cup()
            shaken.append(cup.shake())
            cup.lift()
            if i % 3 == 1:
                cup.write_raw(b"\r\n~noise~")  # always followed by a frame, which ends it
        await sink.wait_for(lambda: len(sink.events) == 10, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    assert rolls(sink) == [list(d) for d in shaken]
    assert numbers(sink) == list(range(501, 511))


# -- options, registry, interactive simulator ---------------------------------------------------


def test_options_default_to_three_dice_and_take_the_common_ones() -> None:
    driver = DiceCupDriver("cup1", "/dev/null", 9600, {})
    assert isinstance(driver.options, DiceOptions)
    assert driver.options.dice == 3
    driver = DiceCupDriver("cup1", "/dev/null", 9600, {"dice": 5, "silence_timeout": 5})
    assert (driver.options.dice, driver.options.silence_timeout) == (5, 5.0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dice": 0}, "option 'dice' must be an integer 1..5, not 0"),
        ({"dice": 6}, "option 'dice' must be an integer 1..5, not 6"),
        ({"dice": "3"}, "option 'dice' must be an integer 1..5, not '3'"),
        ({"dice": 2.0}, "option 'dice' must be an integer 1..5"),
        ({"dice": True}, "option 'dice' must be an integer 1..5"),
        ({"decks": 8}, r"unknown option 'decks' \(known: .*dice.*\)"),
        ({"dice": 9, "backoff_max": "x"}, r"'backoff_max' must be a number.*; option 'dice'"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DiceCupDriver("cup1", "/dev/null", 9600, options)


def test_the_driver_is_registered_as_dice_cup() -> None:
    assert available_drivers()["dice-cup"] == "tablectl_drivers.dice.device:DiceCupDriver"
    assert load_driver("dice-cup") is DiceCupDriver


def test_interactive_simulator_prints_its_port_and_obeys_commands() -> None:
    commands = [
        "close",
        "shake",
        "shake 1 2",
        "unreadable",
        "lift",
        "fault",
        "clear",
        "misread 6 6 6",
        "forget",
        "status",
        "bogus",
        "quit",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "tablectl_drivers.sim.dice", "--seed", "1"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    assert lines[1] == "closed"
    assert re.fullmatch(r"[1-6] [1-6] [1-6]", lines[2])
    rng = random.Random(1)
    assert lines[2] == " ".join(str(rng.choice(range(1, 7))) for _ in range(3))  # seeded
    assert lines[3] == "1 2"
    assert re.fullmatch(r"[1-6?] [1-6?] [1-6?]", lines[4]) and lines[4].count("?") == 1
    assert lines[5:8] == ["lifted", "fault TILT", "ok"]
    assert lines[8:10] == ["misread 6 6 6 as roll 3", "history forgotten"]
    # SEQ 0 CUP, 1-2 DIC, 3 the unreadable DIC, 4 CUP, 5 FLT, 6 CLR: the misread sent nothing;
    # rolls 1 and 2 were read and sent, 3 read and never reported
    assert lines[10].startswith("3 dice, 3 rolls read, next SEQ 7, port /dev/")
    assert "commands:" in lines[11]
    assert "misread [D ...]" in proc.stdout and "forget" in proc.stdout
