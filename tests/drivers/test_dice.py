"""The dice-cup sensor family: its messages, and DiceCupDriver over real ptys against SimulatedDice.

Also over the in-memory null modem for chunkings a pty cannot force. Nothing sleeps to wait:
every wait is for a condition on the recorded calls, bounded by a timeout.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.dice.device import (
    DISCONNECTED,
    FRAMES_LOST,
    UNREADABLE,
    DiceCupDriver,
    DiceOptions,
)
from drivers.dice.messages import MESSAGES, CupMoved, DiceReading, Frame
from drivers.envelope import BadFrame, FrameError, checksum
from drivers.messages import Fault, FaultCleared, Heartbeat
from drivers.registry import available_drivers, load_driver
from drivers.sim import RecordingSink
from drivers.sim.dice import DiceModel, SimulatedDice
from drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from tests.drivers.support import last, running, simulators, until_open

TIMEOUT = 5.0
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "dice.md"


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedDice]]:
    yield from simulators(SimulatedDice)


def rolls(sink: RecordingSink) -> list[list[int]]:
    """The dice of the `dice.roll` events, in order."""
    return [e["dice"] for e in sink.events if e.get("type") == "dice.roll"]


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
    (b"$DIC,1,3,5,6*4F\r\n", DiceReading(1, (3, 5, 6))),
    (b"$CUP,2,LIFTED*62\r\n", CupMoved(2, True)),
    (b"$DIC,3,2,?,4*44\r\n", DiceReading(3, (2, None, 4))),
    (b"$FLT,4,TILT,cup base not level*13\r\n", Fault(4, "TILT", "cup base not level")),
    (b"$CLR,5*44\r\n", FaultCleared(5)),
    (b"$HBT,6*44\r\n", Heartbeat(6)),
    (b"$DIC,7,1,2*56\r\n", DiceReading(7, (1, 2))),
]


@pytest.mark.parametrize(("wire", "message"), DOC_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_examples_are_what_the_code_sends_and_reads(
    wire: bytes, message: Frame
) -> None:
    assert MESSAGES.encode(message) == wire
    assert MESSAGES.decode(wire) == (len(wire), message)
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert shown in DOC.read_text(), f"{shown} is not in {DOC.name}"


DOC_BAD_EXAMPLES = [
    (b"$DIC,8,3,7,6*44\r\n", "DIC die '7' is not 1-6 or ?"),
    (b"$DIC,8,0,2,6*42\r\n", "DIC die '0' is not 1-6 or ?"),
    (b"$DIC,8*5A\r\n", "DIC takes one or more dice"),
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
        DiceReading(0, (1,)),
        DiceReading(9999, (6, 6, 6, 6, 6)),
        DiceReading(12, (None, None, None)),
        CupMoved(13, True),
        Fault(14, "COVER_OPEN"),
        Fault(15, "UNREADABLE", "lens fogged, wipe it"),
    ],
    ids=repr,
)
def test_messages_round_trip(message: Frame) -> None:
    wire = MESSAGES.encode(message)
    assert MESSAGES.decode(wire) == (len(wire), message)
    assert MESSAGES.kinds == {"DIC", "CUP", "FLT", "CLR", "HBT"}


def test_values_are_the_dice_only_when_every_die_was_read() -> None:
    assert DiceReading(1, (4, 1, 6)).values == (4, 1, 6)
    assert DiceReading(1, (4, None, 6)).values is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("DIC,1", "DIC takes one or more dice"),
        ("DIC,1,3,7,6", "DIC die '7' is not 1-6 or ?"),
        ("DIC,1,0,2,3", "DIC die '0' is not 1-6 or ?"),
        ("DIC,1,12,3", "DIC die '12'"),
        ("DIC,1,3,,4", "DIC die ''"),
        ("DIC,1,3, 4,5", "DIC die ' 4'"),
        ("DIC,1,x,2,3", "DIC die 'x'"),
        ("DIC,1,??,2,3", "DIC die '??'"),
        ("CUP,1", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,lifted", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,OPEN", "CUP takes LIFTED or CLOSED"),
        ("CUP,1,LIFTED,CLOSED", "CUP takes LIFTED or CLOSED"),
        ("CRD,1,Ah", "unknown frame type 'CRD'"),  # the shoe's message
    ],
)
def test_bad_fields_make_a_bad_frame(body: str, reason: str) -> None:
    wire = line(body)
    consumed, item = MESSAGES.decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame) and item.raw == wire
    assert reason in item.reason


@pytest.mark.parametrize("dice", [(), (7,), (1, 0), (True, 2)], ids=repr)
def test_a_reading_no_cup_could_send_cannot_be_encoded(dice: tuple[Any, ...]) -> None:
    with pytest.raises(FrameError):
        MESSAGES.encode(DiceReading(1, dice))


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
    assert MESSAGES.decode(sent[-1])[1] == DiceReading(before[0] + 1, (None, 2, None))


# -- the driver over a real pty ---------------------------------------------------------------


async def test_each_shake_becomes_one_roll_in_order(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(roll_seed=1)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        first = sink.statuses[0]
        assert (first.available, first.fault) == (True, None)
        assert first.detail["port"] == sim.port
        assert first.detail["cup"] is None  # not told yet
        shaken = [sim.shake() for _ in range(25)]
        await sink.wait_for(lambda: len(sink.events) >= 25, TIMEOUT)
    assert sink.events == [{"type": "dice.roll", "dice": list(d)} for d in shaken]
    assert driver.stats["bad_frames"] == 0
    assert len(sink.statuses) == 1  # a roll is an event, never a status report


async def test_the_cup_lifted_and_closed_shows_in_status_detail(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.close_cup()
        await until_cup(sink, "closed")
        sim.shake([2, 3, 4])
        sim.lift()
        await until_cup(sink, "lifted")
        assert rolls(sink) == [[2, 3, 4]]
        sim.close_cup()
        await until_cup(sink, "closed")
    cups = [s.detail["cup"] for s in sink.statuses]
    assert cups == [None, "closed", "lifted", "closed"]  # one report per change
    assert all(s.fault is None for s in sink.statuses)


async def test_an_unreadable_die_withholds_the_roll_until_a_good_one(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(roll_seed=3)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.close_cup()
        sim.unreadable([4, None, 1])
        await sink.wait_for(lambda: last(sink).fault == UNREADABLE, TIMEOUT)
        assert sink.events == []
        assert last(sink).available
        assert last(sink).detail["unreadable"] == 1
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
        sim.shake([5, 5, 2])  # the next good roll
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert sink.events == [{"type": "dice.roll", "dice": [5, 5, 2]}]
    assert "fault_text" not in sink.statuses[-1].detail  # UNREADABLE here is not a FLT


async def test_a_wrong_number_of_dice_is_passed_on_as_read_and_counted(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"dice": 3})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shake([1, 2])
        sim.shake([3, 4, 5])
        sim.shake([6, 6, 6, 6])
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 2, TIMEOUT)
        await sink.wait_for(lambda: len(sink.events) == 3, TIMEOUT)
    assert rolls(sink) == [[1, 2], [3, 4, 5], [6, 6, 6, 6]]
    assert all(s.fault is None for s in sink.statuses)  # the engine alerts, not the driver


async def test_a_cup_of_two_counts_three_dice_as_wrong(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(dice=2, roll_seed=0)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"dice": 2})
    async with running(driver, sink):
        await until_open(driver, sink)
        two = sim.shake()
        sim.shake([1, 2, 3])
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 1, TIMEOUT)
    assert rolls(sink) == [list(two), [1, 2, 3]]


async def test_a_die_that_cannot_be_is_a_bad_frame(make_sim: Callable[..., SimulatedDice]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shake([1, 1, 1])  # SEQ 0
        sim.write_raw(line("DIC,1,3,7,6"))
        sim.write_raw(line("DIC,1,0,2,6"))
        sim.shake([2, 2, 2])  # SEQ 1: the bad frames' SEQ was never taken
        await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    assert rolls(sink) == [[1, 1, 1], [2, 2, 2]]
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
    async with running(driver, sink):
        await until_open(driver, sink)
        shaken = [sim.shake()]
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage before $
        shaken.append(sim.shake())
        sim.write_raw(b"$DIC,9,1,2,3*00\r\n")  # 2: bad checksum
        sim.write_raw(b"$DIC,9,1,")  # 3: truncated by the next frame's $
        shaken.append(sim.shake())
        await sink.wait_for(lambda: len(sink.events) == 3, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    assert rolls(sink) == [list(d) for d in shaken]
    final = sink.statuses[-1]
    assert final.available and final.fault is None
    assert final.detail["last_bad"] == {
        "reason": "truncated frame: $ before end of line",
        "raw": "$DIC,9,1,",
    }


async def test_fragmented_writes_still_yield_every_roll(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(fragment=True, max_chunk=3, seed=7, roll_seed=7)
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.close_cup()
        shaken = [sim.shake() for _ in range(20)]
        sim.lift()
        await until_cup(sink, "lifted")
    assert rolls(sink) == [list(d) for d in shaken]
    assert driver.stats["bad_frames"] == 0
    assert driver.stats["reads"] > driver.stats["frames"] == 22  # it really came in pieces


async def test_a_retransmission_is_ignored(make_sim: Callable[..., SimulatedDice]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shake([3, 1, 4])
        sim.duplicate_last()
        sim.lift()
        await until_cup(sink, "lifted")
    assert rolls(sink) == [[3, 1, 4]]
    assert sink.statuses[-1].detail["duplicates"] == 1
    assert sink.statuses[-1].fault is None


async def test_a_lost_frame_is_reported_until_the_cup_is_closed_again(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.close_cup()  # SEQ 0
        sim.shake([1, 2, 3])  # 1
        sim.drop_next()
        sim.lift()  # 2, lost on the wire
        sim.shake([4, 5, 6])  # 3
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        gap = sink.statuses[-1]
        assert gap.available
        assert gap.detail["last_gap"] == {"expected": 2, "received": 3, "lost": 1}
        await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
        assert sink.statuses[-1].detail["cup"] == "closed"  # the lift was lost: stale
        sim.shake([6, 5, 4])  # 4: a good roll does not clear it
        sim.lift()  # 5: nor does a lift
        await until_cup(sink, "lifted")
        assert last(sink).fault == FRAMES_LOST
        sim.close_cup()  # 6: a fresh shake starts
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert rolls(sink) == [[1, 2, 3], [4, 5, 6], [6, 5, 4]]  # the rolls read are all emitted
    assert driver.stats["frames_lost"] == 1


async def test_unplug_reports_loss_and_replug_through_a_symlink_carries_on(
    make_sim: Callable[..., SimulatedDice], tmp_path: Path
) -> None:
    link = tmp_path / "dice0"
    sim1 = make_sim(roll_seed=11)
    link.symlink_to(sim1.port)
    sink = RecordingSink()
    options = {"backoff_initial": 0.01, "backoff_max": 0.05}
    driver = DiceCupDriver("cup1", str(link), 9600, options)
    async with running(driver, sink):
        await until_open(driver, sink)
        first = sim1.shake()
        await sink.wait_for(lambda: len(sink.events) == 1, TIMEOUT)

        sim1.close()  # unplugged
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        down = sink.statuses[-1]
        assert down.available is False
        assert down.detail["error"].startswith(f"lost {link}")
        link.unlink()
        link.symlink_to(tmp_path / "nothing-here")
        await sink.wait_for(lambda: "cannot open" in last(sink).detail["error"], TIMEOUT)

        sim2 = make_sim(seq=sim1.next_seq, roll_seed=12)  # the same cup, plugged in again
        link.unlink()
        link.symlink_to(sim2.port)
        await until_open(driver, sink, opens=2)
        second = sim2.shake()
        await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
    assert rolls(sink) == [list(first), list(second)]
    assert sink.statuses[-1].fault is None  # SEQ carried on: nothing lost
    assert sink.statuses[-1].detail["reconnects"] == 1
    with pytest.raises(RuntimeError, match="closed"):
        sim1.shake()


# -- over the null modem: any chunking ---------------------------------------------------------


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
        cup = DiceModel(modem.write, roll_seed=9)
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
    assert available_drivers()["dice-cup"] == "drivers.dice.device:DiceCupDriver"
    assert load_driver("dice-cup") is DiceCupDriver


def test_interactive_simulator_prints_its_port_and_obeys_commands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "drivers.sim.dice", "--seed", "1"],
        input="close\nshake\nshake 1 2\nunreadable\nlift\nfault\nclear\nstatus\nbogus\nquit\n",
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
    assert lines[8].startswith("3 dice, next SEQ 7, port /dev/")
    assert "commands:" in lines[9]
