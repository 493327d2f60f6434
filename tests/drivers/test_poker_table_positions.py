"""Issue 9 for the card-reading poker table, through the real PokerTableDriver on a real pty:
every placement carries its hand and position, and every fault the emulator can make is either
filled by a resend (the true placements, at their own positions, nothing held) or reported as a
gap the table cannot fill (`device.gap`), never passed on out of place.

`RecordingSink` keeps the count the way the daemon's journal does (tablectl_base.positions), so a
new driver started on it resumes from that count as the daemon's would after a restart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_drivers.framed import DISCONNECTED, SILENT
from tablectl_drivers.poker_table.device import FRAMES_LOST, PokerTableDriver
from tablectl_drivers.poker_table.frames import BOARD, MUCK, seat_zone
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.poker_table import SimulatedPokerTable
from tests.drivers.support import TIMEOUT, last, running, simulators, synced, until_open

QUICK = {"resend_timeout": 0.5, "backoff_initial": 0.05, "backoff_max": 0.2}
HOLE = ["Ah", "Kd", "7c", "Kc", "2s", "9h", "Qd", "Td", "5s", "3c"]


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedPokerTable]]:
    yield from simulators(SimulatedPokerTable)


def placed(sink: RecordingSink) -> list[tuple[str | None, int, str]]:
    """(hand, position, card) of every `table.card` passed on, in order."""
    return [(e["at"].get("run"), e["at"]["pos"], e["card"]) for e in sink.events if "card" in e]


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int, hand: str = "1") -> None:
    def there() -> bool:
        cursor = sink.cursor() or {}
        return (cursor.get("run"), cursor.get("pos")) == (hand, pos)

    await sink.wait_for(there, TIMEOUT)


def put_seats(sim: SimulatedPokerTable, cards: list[str], first_seat: int = 1) -> None:
    """One card to each seat in turn, from `first_seat` on."""
    for i, text in enumerate(cards):
        sim.put(seat_zone((first_seat + i - 1) % 10 + 1), text)


@pytest.mark.parametrize("fault", ["drop", "garble"])
async def test_a_lost_or_garbled_placement_is_resent_at_its_position(
    make_sim: Callable[..., SimulatedPokerTable], fault: str
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.new_hand()
        put_seats(sim, HOLE[:1])
        getattr(sim, f"{fault}_next")()
        put_seats(sim, HOLE[1:2], first_seat=2)  # Kd, lost or garbled on the wire
        put_seats(sim, HOLE[2:4], first_seat=3)
        await until_cursor(sink, 4)
    assert placed(sink) == [("1", i, c) for i, c in enumerate(HOLE[:4], 1)]
    assert gaps(sink) == []
    assert driver.stats["resends"] >= 2  # the one on connect, and the one for the hole
    assert all(s.fault is None for s in sink.statuses)


async def test_a_card_read_twice_keeps_its_position_and_a_retransmission_is_dropped(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.new_hand()
        sim.put(BOARD, "2s")
        sim.repeat_last()  # read twice: a new SEQ, the same position
        sim.put(BOARD, "9h")
        sim.duplicate_last()  # the same frame again: the same SEQ
        sim.put(BOARD, "Qd")
        await until_cursor(sink, 3)
    assert placed(sink) == [("1", 1, "2s"), ("1", 1, "2s"), ("1", 2, "9h"), ("1", 3, "Qd")]
    assert (driver.stats["repeats"], driver.stats["duplicates"]) == (1, 1)


async def test_placements_missed_while_the_daemon_was_down_come_in_with_their_positions(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """The daemon stops after two hole cards of hand 1; meanwhile the table finishes hand 1 and
    starts hand 2. A new driver on the journal's cursor (hand 1, position 2) asks for what came
    after it and gets exactly that: hand 1 from position 3, then hand 2 from position 1."""
    sim = make_sim()
    first = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.new_hand()
        put_seats(sim, HOLE[:2])
        await until_cursor(first, 2)
    cursor = first.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("1", 2)
    put_seats(sim, HOLE[2:4])  # nobody reads the pty now: 7c to seat 1, Kc to seat 2
    sim.fold(1)
    sim.peek(2)
    sim.new_hand()
    sim.put(seat_zone(5), "As")
    sim.put(BOARD, "Ks")
    sim.flush()
    again = RecordingSink(start=cursor)
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with running(driver, again):
        await until_cursor(again, 2, hand="2")
    assert placed(again) == [
        ("1", 3, "7c"),
        ("1", 4, "Kc"),
        ("1", 5, "Ah"),  # seat 1's fold: its cards' first arrivals in the muck
        ("1", 6, "7c"),
        ("2", 1, "As"),
        ("2", 2, "Ks"),
    ]
    assert [(e["zone"], e.get("seat")) for e in again.events] == [
        ("seat", 1),
        ("seat", 2),
        ("muck", None),
        ("muck", None),
        ("seat", 5),
        ("board", None),
    ]
    assert gaps(again) == []
    assert driver.stats["frames_lost"] > 0  # the SEQ gap across the restart was seen


async def test_unplug_is_reported_and_a_replug_resumes_the_count(
    make_sim: Callable[..., SimulatedPokerTable], tmp_path: Path
) -> None:
    link = tmp_path / "table0"
    sim = make_sim(link=link)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", str(link), 9600, {**QUICK, "backoff_max": 0.05})
    async with synced(driver, sink):
        sim.new_hand()
        sim.put(seat_zone(1), "Ah")
        await until_cursor(sink, 1)
        sim.flush()
        sim.unplug()
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        with pytest.raises(RuntimeError, match="closed"):
            sim.put(seat_zone(2), "Kd")  # nothing is read while unplugged, no number used
        assert sim.position == 1
        sim.replug()
        await until_open(driver, sink, opens=2)
        sim.put(seat_zone(2), "Kd")
        await until_cursor(sink, 2)
    assert placed(sink) == [("1", 1, "Ah"), ("1", 2, "Kd")]
    assert last(sink).fault is None and last(sink).detail["reconnects"] == 1


async def test_a_lost_new_hand_is_resent_before_its_placements(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """The HND of hand 2 is lost on the wire: its first placement must not be taken for
    position 1 of hand 1 again. It waits for the resend, which brings the HND back first."""
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.new_hand()
        sim.put(seat_zone(1), "Ah")
        await until_cursor(sink, 1)
        sim.drop_next()
        sim.new_hand()
        sim.put(seat_zone(1), "Kd")
        sim.put(seat_zone(1), "Qd")
        await until_cursor(sink, 2, hand="2")
    assert placed(sink) == [("1", 1, "Ah"), ("2", 1, "Kd"), ("2", 2, "Qd")]
    assert driver.stats["repeats"] == 0 and gaps(sink) == []


async def test_a_card_placed_unread_is_a_gap_the_table_cannot_fill(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    sim = make_sim(deck_seed=2)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.new_hand()
        [first] = sim.deal(seat_zone(4))
        sim.misread(MUCK, announce=True)  # FLT MISREAD, and no PLC for position 2
        await sink.wait_for(lambda: last(sink).fault == "MISREAD", TIMEOUT)
        [third] = sim.deal(BOARD)
        await sink.wait_for(lambda: len(gaps(sink)) == 1 and len(placed(sink)) == 2, TIMEOUT)
    (gap,) = gaps(sink)
    assert (gap["device"], gap["run"], gap["after"], gap["missing"]) == ("reader", "1", 1, [2])
    assert placed(sink) == [("1", 1, first), ("1", 3, third)]
    assert sink.ledger.missing() == (2,)  # the journal keeps position 3 behind the hole


async def test_a_table_that_lost_its_history_says_so(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """Power-cycled while the daemon was down: nothing of hand 1 after position 1 can be
    confirmed (a gap of unknown size); the hand after is read from its start."""
    sim = make_sim()
    first = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.new_hand()
        sim.put(seat_zone(1), "Ah")
        await until_cursor(first, 1)
    sim.put(seat_zone(2), "Kd")
    sim.forget()
    sim.new_hand()
    sim.put(BOARD, "2c")
    sim.flush()
    again = RecordingSink(start=first.cursor())
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: len(placed(again)) == 1, TIMEOUT)
    (gap,) = gaps(again)
    assert (gap["run"], gap["after"], gap["missing"]) == ("1", 1, None)
    assert [e["type"] for e in again.events] == ["device.gap", "table.card"]
    assert placed(again) == [("2", 1, "2c")]


async def test_a_table_that_does_not_answer_stands_frames_lost_until_it_does(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {**QUICK, "resend_retry": 0.3})
    async with synced(driver, sink):
        sim.new_hand()  # no event, but a status that says where the count stands
        await sink.wait_for(lambda: last(sink).detail["position"] == {"run": "1", "pos": 0})
        sim.answer_resends = False
        sim.put(seat_zone(1), "Ah")
        sim.drop_next()
        sim.put(seat_zone(2), "Kd")
        sim.put(seat_zone(3), "Qs")
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        assert gaps(sink)[0]["missing"] == [2]
        sim.answer_resends = True
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        await until_cursor(sink, 3)
    assert placed(sink) == [("1", 1, "Ah"), ("1", 3, "Qs"), ("1", 2, "Kd")]  # 2 filled late
    assert sink.ledger.missing() == () and not sink.ledger.pending  # the count is whole


async def test_a_table_that_goes_silent_is_reported_silent_until_it_talks_again(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {**QUICK, "silence_timeout": 0.3})
    async with synced(driver, sink):
        await sink.wait_for(lambda: last(sink).fault == SILENT, TIMEOUT)
        assert last(sink).available is False
        sim.heartbeat()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert last(sink).available is True
