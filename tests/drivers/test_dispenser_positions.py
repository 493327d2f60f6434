"""Issue 9 through the real ShufflerDriver on a real pty: every stack carries its shuffle, its
stack number and its first card index, and every fault the emulator can make is detected and
either filled by a resend (the true deal, nothing held) or reported as a gap the device cannot
fill (`device.gap`), never dealt out of place.

`RecordingSink` keeps the count the way the daemon's journal does (tablectl_base.positions), so a
new driver started on it resumes from that count as the daemon's would after a restart. The deck in
each test is DECK, in order, so stack n of a shuffle of stacks of three is DECK[3n-3:3n].
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_base.cards import standard_deck
from tablectl_drivers.dispenser.device import FRAMES_LOST, WRONG_COUNT, ShufflerDriver
from tablectl_drivers.framed import DISCONNECTED
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tests.drivers.support import last, running, simulators, synced, until_open

TIMEOUT = 5.0
QUICK = {"resend_timeout": 0.5, "backoff_initial": 0.05, "backoff_max": 0.2}
DECK = [str(c) for c in standard_deck()]


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedDispenser]]:
    yield from simulators(SimulatedDispenser)


def dealt(sink: RecordingSink) -> list[tuple[str | None, int, int, list[str]]]:
    """(shuffle, stack number, first card index, cards) of every stack passed on, in order."""
    return [
        (e["at"].get("run"), e["at"]["pos"], e["at"]["first"], e["cards"])
        for e in sink.events
        if e["type"] == "shuffler.stack"
    ]


def stack(run: str, n: int, size: int = 3) -> tuple[str, int, int, list[str]]:
    """Stack `n` of shuffle `run` when the shuffle is DECK in order, in stacks of `size`."""
    first = size * (n - 1) + 1
    return (run, n, first, DECK[first - 1 : first - 1 + size])


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int, run: str = "1") -> None:
    await sink.wait_for(lambda: (sink.cursor() or {}).get("pos") == pos, TIMEOUT)
    cursor = sink.cursor()
    assert cursor is not None and cursor["run"] == run


async def test_each_stack_carries_its_shuffle_number_and_first_card(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        for _ in range(4):
            sim.dispense()
        await until_cursor(sink, 4)
        sim.load(DECK, "blue")  # shuffle 2: the numbers start again
        sim.dispense()
        await until_cursor(sink, 1, run="2")
    assert dealt(sink) == [*(stack("1", n) for n in range(1, 5)), stack("2", 1)]
    assert [e["deck"] for e in sink.events] == ["red"] * 4 + ["blue"]
    assert gaps(sink) == []
    assert sink.cursor() == {"run": "2", "pos": 1, "seq": sink.events[-1]["at"]["seq"]}


@pytest.mark.parametrize("fault", ["drop", "garble"])
async def test_a_lost_or_garbled_stack_frame_is_resent_and_nothing_is_held(
    make_sim: Callable[..., SimulatedDispenser], fault: str
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        getattr(sim, f"{fault}_next")()
        sim.dispense()  # stack 2, lost or garbled on the wire
        sim.dispense()
        sim.dispense()
        await until_cursor(sink, 4)
    assert dealt(sink) == [stack("1", n) for n in range(1, 5)]
    assert gaps(sink) == []
    assert driver.stats["resends"] >= 2  # the one on connect, and the one for the gap
    assert all(s.fault is None for s in sink.statuses)  # nothing held, ever
    assert driver.stats["bad_frames"] == (1 if fault == "garble" else 0)


async def test_a_stack_read_twice_is_passed_on_with_the_same_number(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """The shuffler reports stack 2 twice (repeat_last: the same message under a new SEQ): the
    driver passes the repeat on with stack number 2 again, which the table refuses to deal
    twice; the count carries on with stack 3."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.dispense()
        sim.repeat_last()
        sim.dispense()
        await until_cursor(sink, 3)
    assert dealt(sink) == [stack("1", 1), stack("1", 2), stack("1", 2), stack("1", 3)]
    assert driver.stats["repeats"] == 1
    assert last(sink).detail["card_index_breaks"] == 0  # a repeat is judged once
    assert gaps(sink) == []


async def test_a_retransmitted_frame_is_dropped(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.duplicate_last()
        sim.dispense()
        await until_cursor(sink, 2)
    assert dealt(sink) == [stack("1", 1), stack("1", 2)]
    assert driver.stats["duplicates"] == 1 and driver.stats["repeats"] == 0


async def test_stacks_dispensed_while_the_driver_was_cut_off_are_resent_on_replug(
    make_sim: Callable[..., SimulatedDispenser], tmp_path: Path
) -> None:
    """The cable comes out after stack 1. While it is out the device cannot send (dispense
    raises and uses no number: the simulator cannot put a frame on a line that is not there).
    It is plugged back in and deals stacks 2 and 3 before the driver has reopened the port (its
    backoff is 1 s): opening the port flushes what waited on the line, so those two are only
    had by the resend the driver asks on connect, from the journal's cursor, stack 1."""
    link = tmp_path / "shuffler0"
    sim = make_sim(stack_size=3, link=link)
    sink = RecordingSink()
    driver = ShufflerDriver(
        "tcp1", str(link), 9600, {**QUICK, "backoff_initial": 1.0, "backoff_max": 1.0}
    )
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        await until_cursor(sink, 1)
        sim.unplug()
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        with pytest.raises(RuntimeError, match="closed"):
            sim.dispense()  # the real device cannot report into an unplugged line either
        assert (sim.position, sim.card_index) == (1, 3)
        await sink.wait_for(lambda: "cannot open" in last(sink).detail.get("error", ""), TIMEOUT)
        sim.replug()
        sim.dispense()  # 2 and 3, before the driver is back
        sim.dispense()
        sim.flush()
        await until_open(driver, sink, opens=2)
        await until_cursor(sink, 3)
        sim.dispense()
        await until_cursor(sink, 4)
    assert dealt(sink) == [stack("1", n) for n in range(1, 5)]
    assert gaps(sink) == []
    assert last(sink).fault is None
    assert driver.stats["frames_lost"] == 2  # 2 and 3 never came live: the resend had them


async def test_a_new_driver_resumes_from_the_journals_cursor(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """Issue 9 item 2: the daemon was down while the shuffler dealt stacks 3 and 4 (it keeps
    them in its history); a new driver on the journal's cursor (shuffle 1, stack 2) gets exactly
    those, not the stacks before them, and the SEQ gap across the restart is counted. Their deck
    colour is unknown: this driver never saw the shuffle's SHF."""
    sim = make_sim(stack_size=3)
    first = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.load(DECK, "red")
        sim.dispense()
        sim.dispense()
        await until_cursor(first, 2)
    cursor = first.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("1", 2)
    sim.dispense()  # dealt while the daemon is down: nobody reads the pty
    sim.dispense()
    sim.flush()
    again = RecordingSink(start=cursor)
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with running(driver, again):
        await until_cursor(again, 4)
    assert dealt(again) == [stack("1", 3), stack("1", 4)]
    assert all("deck" not in e for e in again.events)
    assert driver.stats["frames_lost"] >= 2  # SEQ recovered from the journal's cursor
    assert gaps(again) == []


async def test_a_stack_the_device_never_reported_is_a_gap_it_cannot_fill(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        assert sim.misread(announce=True) == DECK[3:6]  # FLT MISREAD, and no STK for stack 2
        await sink.wait_for(lambda: last(sink).fault == "MISREAD", TIMEOUT)
        sim.dispense()
        sim.dispense()
        await sink.wait_for(lambda: len(gaps(sink)) == 1 and len(dealt(sink)) == 3, TIMEOUT)
    (gap,) = gaps(sink)
    assert gap["run"] == "1" and gap["after"] == 1 and gap["missing"] == [2]
    # What came after the gap is passed on with its place, for the table to keep; the card
    # index of stack 3 is right (the misread cards were counted), so no CARD_INDEX either.
    assert dealt(sink) == [stack("1", 1), stack("1", 3), stack("1", 4)]
    assert last(sink).detail["card_index_breaks"] == 0
    cursor = sink.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("1", 1)
    assert sink.ledger.missing() == (2,)


async def test_a_device_that_lost_its_history_says_so(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """Power-cycled while the daemon was down (history gone, a new shuffle made): nothing of
    shuffle 1 after stack 1 can be confirmed, which is a gap of unknown size; the new shuffle is
    then read from its start, with its deck colour."""
    sim = make_sim(stack_size=3)
    first = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.load(DECK, "red")
        sim.dispense()
        await until_cursor(first, 1)
    sim.dispense()
    sim.forget()
    sim.load(DECK, "blue")
    sim.dispense()
    sim.flush()
    again = RecordingSink(start=first.cursor())
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: len(dealt(again)) == 1, TIMEOUT)
    (gap,) = gaps(again)
    assert gap["run"] == "1" and gap["after"] == 1 and gap["missing"] is None
    assert [e["type"] for e in again.events] == ["device.gap", "shuffler.stack"]
    assert dealt(again) == [stack("2", 1)]
    assert again.events[1]["deck"] == "blue"
    assert again.cursor() == {"run": "2", "pos": 1, "seq": again.events[1]["at"]["seq"]}


async def test_a_stack_of_the_wrong_size_keeps_its_place_and_the_count_follows_the_cards(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.dispense(4)  # two hands stuck together, one card short: cards 4-7
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
        sim.dispense()
        await until_cursor(sink, 3)
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert dealt(sink) == [stack("1", 1), ("1", 2, 4, DECK[3:7]), ("1", 3, 8, DECK[7:10])]
    assert last(sink).detail["wrong_count"] == 1
    assert last(sink).detail["card_index_breaks"] == 0


async def test_a_jam_stands_until_cleared_and_a_reconnecting_driver_learns_it_from_the_resend(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """FLT JAM stops the dealing; stacks go on, numbered on, after CLR. A driver started while
    the device is jammed learns the JAM at once: every resend ends with the fault that stands."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.fault("JAM", "card stuck at exit")
        await sink.wait_for(lambda: last(sink).fault == "JAM", TIMEOUT)
        assert last(sink).detail["fault_text"] == "card stuck at exit"
    sim.flush()
    again = RecordingSink(start=sink.cursor())
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: again.last_status is not None and last(again).fault == "JAM")
        sim.clear()
        await again.wait_for(lambda: last(again).fault is None, TIMEOUT)
        sim.dispense()
        await until_cursor(again, 2)
    assert dealt(sink) == [stack("1", 1)]
    assert dealt(again) == [stack("1", 2)]
    assert gaps(again) == []


async def test_a_device_that_does_not_answer_a_resend_stands_frames_lost(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """No RSE in time: FRAMES_LOST stands (a round in deal is held), the hole is a gap and what
    came past it is passed on; the driver keeps asking from the hole, so when the device answers
    again stack 2 fills the gap, and that resend, back whole, clears FRAMES_LOST (no new shuffle
    needed)."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {**QUICK, "resend_retry": 0.3})
    async with synced(driver, sink):
        sim.load(DECK, "red")
        await sink.wait_for(lambda: last(sink).detail["position"] == {"run": "1", "pos": 0})
        sim.answer_resends = False
        sim.dispense()
        sim.drop_next()
        sim.dispense()
        sim.dispense()
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        assert gaps(sink)[0]["missing"] == [2]
        answered = sim.resends_answered
        sim.answer_resends = True
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert sim.resends_answered > answered
        await until_cursor(sink, 3)
    assert dealt(sink) == [stack("1", 1), stack("1", 3), stack("1", 2)]  # 2 filled late
    assert len(gaps(sink)) == 1
    assert sink.ledger.missing() == () and not sink.ledger.pending  # the count is whole
