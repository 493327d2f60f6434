"""Issue 9 through the real DiceCupDriver on a real pty: every roll carries its roll number (the
cup's count of rolls read, which never restarts: no runs), and every fault the emulator can make
is detected and either filled by a resend (the true rolls, nothing held) or reported as a gap
the cup cannot fill (`device.gap`, with the numbers missing), never used out of place.

`RecordingSink` keeps the count the way the daemon's journal does (tablectl_base.positions), so a
new driver started on it resumes from that count as the daemon's would after a restart. The cups
here have read 40 rolls before the test, as a cup in service has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.dice.device import FRAMES_LOST, UNREADABLE, DiceCupDriver
from tablectl_drivers.framed import DISCONNECTED
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.dice import SimulatedDice
from tests.drivers.support import last, running, simulators, synced, until_open

TIMEOUT = 5.0
QUICK = {"resend_timeout": 0.5, "backoff_initial": 0.05, "backoff_max": 0.2}
SERVED = 40
"""Rolls the cup has read before each test: its first roll here is number 41."""


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedDice]]:
    yield from simulators(SimulatedDice)


def used(sink: RecordingSink) -> list[tuple[int, list[int]]]:
    """(roll number, dice) of every roll passed on, in order."""
    return [(e["at"]["pos"], e["dice"]) for e in sink.events if e["type"] == "dice.roll"]


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int) -> None:
    await sink.wait_for(lambda: (sink.cursor() or {}).get("pos") == pos, TIMEOUT)
    cursor = sink.cursor()
    assert cursor is not None and cursor["run"] is None


async def test_each_roll_carries_its_number_and_no_run(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        assert last(sink).detail["position"] == {"run": None, "pos": 40}  # the resend's RSE
        sim.shake([3, 5, 6])
        sim.shake([1, 1, 2])
        await until_cursor(sink, 42)
    assert used(sink) == [(41, [3, 5, 6]), (42, [1, 1, 2])]
    assert all(set(e["at"]) == {"pos", "seq"} for e in sink.events)
    assert gaps(sink) == []


@pytest.mark.parametrize("fault", ["drop", "garble"])
async def test_a_lost_or_garbled_roll_is_resent_and_nothing_is_held(
    make_sim: Callable[..., SimulatedDice], fault: str
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([1, 2, 3])
        getattr(sim, f"{fault}_next")()
        sim.shake([4, 5, 6])  # roll 42, lost or garbled on the wire
        sim.shake([6, 6, 6])
        await until_cursor(sink, 43)
    assert used(sink) == [(41, [1, 2, 3]), (42, [4, 5, 6]), (43, [6, 6, 6])]
    assert gaps(sink) == []
    assert driver.stats["resends"] >= 2  # the one on connect, and the one for the gap
    assert all(s.fault is None for s in sink.statuses)
    assert driver.stats["bad_frames"] == (1 if fault == "garble" else 0)


async def test_a_roll_reported_twice_is_passed_on_with_the_same_number(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    """The cup reports roll 42 twice (repeat_last: the same message under a new SEQ): the
    driver passes the repeat on with number 42 again, which the table refuses to use twice."""
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([2, 2, 3])
        sim.shake([5, 1, 1])
        sim.repeat_last()
        sim.shake([4, 4, 4])
        await until_cursor(sink, 43)
    assert used(sink) == [(41, [2, 2, 3]), (42, [5, 1, 1]), (42, [5, 1, 1]), (43, [4, 4, 4])]
    assert driver.stats["repeats"] == 1
    assert last(sink).detail["wrong_count"] == 0


async def test_a_retransmitted_frame_is_dropped(make_sim: Callable[..., SimulatedDice]) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([6, 5, 4])
        sim.duplicate_last()
        sim.shake([1, 2, 3])
        await until_cursor(sink, 42)
    assert used(sink) == [(41, [6, 5, 4]), (42, [1, 2, 3])]
    assert driver.stats["duplicates"] == 1 and driver.stats["repeats"] == 0


async def test_rolls_read_while_the_driver_was_cut_off_are_resent_on_replug(
    make_sim: Callable[..., SimulatedDice], tmp_path: Path
) -> None:
    """The cable comes out after roll 41. While it is out the cup cannot send (shake raises and
    uses no number). It is plugged back in and reads rolls 42 and 43 before the driver has
    reopened the port (its backoff is 1 s): opening the port flushes what waited on the line,
    so those are only had by the resend the driver asks on connect, from roll 41."""
    link = tmp_path / "dice0"
    sim = make_sim(rolls_read=SERVED, link=link)
    sink = RecordingSink()
    driver = DiceCupDriver(
        "dice", str(link), 9600, {**QUICK, "backoff_initial": 1.0, "backoff_max": 1.0}
    )
    async with synced(driver, sink):
        sim.shake([1, 1, 1])
        await until_cursor(sink, 41)
        sim.unplug()
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        with pytest.raises(RuntimeError, match="closed"):
            sim.shake()  # the real cup cannot report into an unplugged line either
        assert sim.rolls_read == 41
        await sink.wait_for(lambda: "cannot open" in last(sink).detail.get("error", ""), TIMEOUT)
        sim.replug()
        sim.shake([2, 2, 2])  # 42 and 43, before the driver is back
        sim.shake([3, 3, 3])
        sim.flush()
        await until_open(driver, sink, opens=2)
        await until_cursor(sink, 43)
        sim.shake([4, 4, 4])
        await until_cursor(sink, 44)
    assert used(sink) == [(41, [1, 1, 1]), (42, [2, 2, 2]), (43, [3, 3, 3]), (44, [4, 4, 4])]
    assert gaps(sink) == []
    assert last(sink).fault is None
    assert driver.stats["frames_lost"] == 2  # 42 and 43 never came live: the resend had them


async def test_a_new_driver_resumes_from_the_journals_cursor(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    """Issue 9 item 2: the daemon was down while the cup read rolls 42 and 43 (it keeps them);
    a new driver on the journal's cursor (roll 41) gets exactly those, and the SEQ gap across
    the restart is counted."""
    sim = make_sim(rolls_read=SERVED)
    first = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.shake([5, 5, 5])
        await until_cursor(first, 41)
    cursor = first.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == (None, 41)
    sim.shake([1, 2, 3])  # read while the daemon is down: nobody reads the pty
    sim.shake([3, 2, 1])
    sim.flush()
    again = RecordingSink(start=cursor)
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with running(driver, again):
        await until_cursor(again, 43)
    assert used(again) == [(42, [1, 2, 3]), (43, [3, 2, 1])]
    assert driver.stats["frames_lost"] >= 2  # SEQ recovered from the journal's cursor
    assert gaps(again) == []


async def test_a_roll_the_cup_never_reported_is_a_gap_it_cannot_fill(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.shake([1, 2, 3])
        assert sim.misread([6, 6, 6]) == (6, 6, 6)  # roll 42: counted, never reported
        sim.shake([4, 5, 6])
        await sink.wait_for(lambda: len(gaps(sink)) == 1 and len(used(sink)) == 2, TIMEOUT)
    (gap,) = gaps(sink)
    assert gap["after"] == 41 and gap["missing"] == [42] and "run" not in gap
    assert used(sink) == [(41, [1, 2, 3]), (43, [4, 5, 6])]  # passed on for the table to keep
    assert sink.cursor() == {"run": None, "pos": 41, "seq": sink.events[0]["at"]["seq"]}
    assert sink.ledger.missing() == (42,)


async def test_a_cup_that_lost_its_history_says_so_and_the_count_names_what_is_missing(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    """Power-cycled while the daemon was down: the history is gone but the counter is not, so
    the cup answers LOST and its RSE still says it is at roll 44: rolls 42 and 43 are a gap of
    known numbers (unlike a shoe's or a dispenser's, whose count restarts with the run)."""
    sim = make_sim(rolls_read=SERVED)
    first = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.shake([1, 1, 1])
        await until_cursor(first, 41)
    sim.shake([2, 2, 2])
    sim.shake([3, 3, 3])
    sim.forget()
    sim.shake([4, 4, 4])
    sim.flush()
    again = RecordingSink(start=first.cursor())
    driver = DiceCupDriver("dice", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: len(gaps(again)) == 1 and len(used(again)) == 1, TIMEOUT)
    (gap,) = gaps(again)
    assert gap["after"] == 41 and gap["missing"] == [42, 43]
    assert used(again) == [(44, [4, 4, 4])]
    assert [e["type"] for e in again.events] == ["device.gap", "dice.roll"]


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


async def test_a_cup_that_does_not_answer_a_resend_stands_frames_lost(
    make_sim: Callable[..., SimulatedDice],
) -> None:
    """No RSE in time: FRAMES_LOST stands (a round in deal is held), the hole is a gap and what
    came past it is passed on; the driver keeps asking from the hole, so when the cup answers
    again roll 42 fills the gap, and that resend, back whole, clears FRAMES_LOST."""
    sim = make_sim(rolls_read=SERVED)
    sink = RecordingSink()
    driver = DiceCupDriver("dice", sim.port, 9600, {**QUICK, "resend_retry": 0.3})
    async with synced(driver, sink):
        sim.answer_resends = False
        sim.shake([1, 1, 1])
        sim.drop_next()
        sim.shake([2, 2, 2])
        sim.shake([3, 3, 3])
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        assert gaps(sink)[0]["missing"] == [42]
        answered = sim.resends_answered
        sim.answer_resends = True
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert sim.resends_answered > answered
        await until_cursor(sink, 43)
    assert used(sink) == [(41, [1, 1, 1]), (43, [3, 3, 3]), (42, [2, 2, 2])]  # 42 filled late
    assert len(gaps(sink)) == 1
    assert sink.ledger.missing() == () and not sink.ledger.pending  # the count is whole
