"""What every positioned serial device must show, through its real driver and its emulator
(tablectl_drivers/sim) on a real pty, parametrised over the devices: the shoe, the dice cup, the
shuffler and the card-reading poker table.

Each item a device reports (a card, a roll, a stack, a placement) carries its place (run and
position); every frame-level fault the emulator can make is detected and either filled by a
resend or reported as a gap the device cannot fill (`device.gap`), never used out of place
(docs/protocols/envelope.md, "Positions and resend"); a lost port is reported (DISCONNECTED,
unavailable) and reopened with capped backoff, a silent device is SILENT ("What every envelope
driver reports"); a new driver resumes from the journal's count, which `RecordingSink` keeps the
way the daemon's journal does (tablectl_base.positions).

A `Device` adapter says how to build each driver and emulator, how to make the device report one
item and what that item looks like in the sink. What only one device does stays in its own file.

This suite replaced per-device near-copies. Each contract test below, then the tests it replaced
(file: test_<device>_positions.py as "<device>_pos", else the file's name; "test_" left off):

each_item_carries_its_place
    shoe_pos each_card_carries_its_shoe_and_position; dice_pos each_roll_carries_its_number_and_
    no_run; dispenser_pos each_stack_carries_its_shuffle_number_and_first_card (its runs part:
    each_run_restarts_the_count)
a_lost_or_garbled_frame_is_resent_and_nothing_is_held
    shoe_pos a_lost_or_garbled_card_frame_...; dice_pos a_lost_or_garbled_roll_...; dispenser_pos
    a_lost_or_garbled_stack_frame_...; poker_table_pos a_lost_or_garbled_placement_...
an_item_read_twice_is_passed_on_with_the_same_position
    shoe_pos a_card_read_twice_...; dice_pos a_roll_reported_twice_...; dispenser_pos
    a_stack_read_twice_...; poker_table_pos a_card_read_twice_keeps_its_position_and_...
a_retransmitted_frame_is_dropped
    {shoe,dice,dispenser}_pos a_retransmitted_frame_is_dropped; poker_table_pos (as above);
    test_dice a_retransmission_is_ignored; test_dispenser a_retransmitted_stack_is_ignored
items_dealt_while_cut_off_are_resent_on_replug
    shoe_pos cards_dealt_while_unplugged_...; dice_pos rolls_read_while_the_driver_was_cut_off_...;
    dispenser_pos stacks_dispensed_while_...; poker_table_pos unplug_is_reported_and_a_replug_
    resumes_the_count; test_sim_faults unplug_removes_the_link_and_replug_carries_seq_on
a_new_driver_resumes_from_the_journals_count
    {shoe,dice,dispenser}_pos a_new_driver_resumes_from_the_journals_cursor
an_item_never_reported_is_a_gap_the_device_cannot_fill
    shoe_pos a_misread_card_...; dice_pos a_roll_the_cup_never_reported_...; dispenser_pos
    a_stack_the_device_never_reported_...; poker_table_pos a_card_placed_unread_...
a_device_that_lost_its_history_says_so
    shoe_pos a_shoe_that_...; dice_pos a_cup_that_..._and_the_count_names_what_is_missing;
    dispenser_pos a_device_that_...; poker_table_pos a_table_that_lost_its_history_says_so
a_device_that_does_not_answer_a_resend_stands_frames_lost
    shoe_pos a_shoe_that_...; dice_pos a_cup_that_...; dispenser_pos a_device_that_...;
    poker_table_pos a_table_that_does_not_answer_stands_frames_lost_until_it_does
a_silent_device_is_unavailable_until_it_talks
    poker_table_pos a_table_that_goes_silent_...; test_shoe_driver silence_timeout_reports_...
a_lost_run_start_is_resent_before_the_items_of_its_run (devices with runs)
    shoe_pos a_lost_new_shoe_is_resent_...; poker_table_pos a_lost_new_hand_is_resent_...
unplug_reports_loss_and_reconnects_with_growing_delays
    test_shoe_driver unplug_reports_loss_and_reconnects_through_a_symlink; test_dice and
    test_dispenser unplug_reports_loss_and_replug_through_a_symlink_carries_on
a_missing_port_is_reported_once_and_retried_with_capped_delays
    test_shoe_driver missing_port_is_reported_once_and_retried_with_growing_delays
any_chunking_gives_the_same_items
    test_shoe_driver and test_dispenser any_chunking_gives_the_same_result
fragmented_writes_on_a_pty_still_yield_every_item
    test_shoe_driver fragmented_writer_still_yields_every_card; test_dice fragmented_writes_
    still_yield_every_roll
a_driver_stops_when_input_arrives_as_it_is_cancelled
    test_stop_not_swallowed a_framed_driver_stops_when_a_frame_arrives_as_it_is_cancelled

A device's own tests stay in its file: the shoe's resend edge cases (a resend unanswered or begun
and never ended, a hole before the first answer, an answer losing a frame, a shoe older than the
history), the cup's unreadable reading, wrong dice count and tilt, the shuffler's wrong-size stack
and jam, the hand dispenser's fragmented 7-card stacks, the poker table's restart across hands,
and the chunking tests of the cup and the table, which carry their own messages (cup moves,
peeks).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablectl_base.cards import standard_deck
from tablectl_drivers.dice.device import DiceCupDriver
from tablectl_drivers.dispenser.device import ShufflerDriver
from tablectl_drivers.framed import DISCONNECTED, FRAMES_LOST, SILENT
from tablectl_drivers.poker_table.device import PokerTableDriver
from tablectl_drivers.poker_table.frames import MUCK, seat_zone
from tablectl_drivers.positioned import PositionedDriver
from tablectl_drivers.shoe.device import ShoeDriver
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.device import SimulatedDevice
from tablectl_drivers.sim.dice import DiceModel, SimulatedDice
from tablectl_drivers.sim.dispenser import DispenserModel, SimulatedDispenser
from tablectl_drivers.sim.history import HistoryModel
from tablectl_drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from tablectl_drivers.sim.poker_table import PokerTableModel, SimulatedPokerTable
from tablectl_drivers.sim.shoe import ShoeModel, SimulatedShoe
from tests.drivers.resend_support import AnsweringModem, until_answered
from tests.drivers.support import (
    QUICK,
    TIMEOUT,
    ManualSleep,
    jittered,
    last,
    running,
    synced,
    until_open,
    until_synced,
)

DECK = [str(c) for c in standard_deck()]
Sim = Any  # each emulator has its own dealing methods; the adapter knows them


@dataclasses.dataclass(frozen=True)
class Device:
    """How the contract drives one kind of device."""

    name: str
    sim_class: type[SimulatedDevice]
    model_class: type[HistoryModel]
    """The emulator's device alone, for the in-memory null modem."""
    sim_options: dict[str, Any]
    """For both the emulator and the model."""
    driver_class: Callable[..., PositionedDriver[Any]]
    item_type: str
    """The event type of one item."""
    item: Callable[[dict[str, Any]], Any]
    """What one item looks like in the sink (without its place)."""
    run: str | None
    """The run the first items are in ("1"), or None: a count that never restarts."""
    served: int
    """Items the device reported before the test: the first one here is number served + 1."""
    start: Callable[[Sim], None]
    """Begin a run (load a shoe, shuffle, start a hand); nothing for a device without runs."""
    deal: Callable[[Sim], Any]
    """Report one item; returns it as `item` shows it."""
    misread: Callable[[Sim], None]
    """Use the next position without reporting it; announced with FLT MISREAD if
    `announces_misread`."""
    announces_misread: bool
    run_start_event: str | None
    """The event a run start is passed on as, if any."""
    new_run: Callable[[Sim], None] | None = None
    """Start the next run; None for a device without runs."""
    untouched: tuple[str, ...] = ()
    """Status detail counters a repeat or a gap must leave at 0 (judged once, not again)."""
    after_restart: Callable[[RecordingSink], None] = lambda sink: None
    """Device-specific checks on what a new driver passed on after a restart."""
    after_new_run: Callable[[RecordingSink], None] = lambda sink: None
    """Device-specific checks on the first item of a run started while the driver was down."""

    def places(self, sink: RecordingSink) -> list[tuple[str | None, int, Any]]:
        """(run, position, item) of every item passed on, in order."""
        return [
            (e["at"].get("run"), e["at"]["pos"], self.item(e))
            for e in sink.events
            if e["type"] == self.item_type
        ]

    def next_run(self, sim: Sim) -> None:
        assert self.new_run is not None, f"{self.name} has no runs"
        self.new_run(sim)

    def at(self, n: int, run: str | None = None) -> tuple[str | None, int]:
        """The place of the n-th item of the test (of `run`, default the first run)."""
        return (run or self.run, self.served + n)


def _stack(sim: DispenserModel) -> tuple[int, list[str]]:
    cards = sim.dispense()
    return (sim.card_index - len(cards) + 1, cards)


def _new_dispenser_run(sim: SimulatedDispenser) -> None:
    sim.load(DECK, "blue")


def _dispenser_restart(sink: RecordingSink) -> None:
    # This driver never saw the shuffle's SHF: the deck colour is unknown, not made up.
    assert all("deck" not in e for e in sink.events)


def _dispenser_new_run(sink: RecordingSink) -> None:
    assert sink.events[-1]["deck"] == "blue"


def _placement(sim: PokerTableModel) -> str:
    [card] = sim.deal(seat_zone(sim.position % 10 + 1))
    return card


SHOE = Device(
    name="shoe",
    sim_class=SimulatedShoe,
    model_class=ShoeModel,
    sim_options={},
    driver_class=ShoeDriver,
    item_type="shoe.card",
    item=lambda e: e["card"],
    run="1",
    served=0,
    start=lambda sim: sim.load(DECK[:20]),
    deal=lambda sim: sim.draw(),
    misread=lambda sim: sim.misread(),
    announces_misread=False,
    run_start_event="shoe.new",
    new_run=lambda sim: sim.load(["Ad", "Kc"]),
)
DICE = Device(
    name="dice",
    sim_class=SimulatedDice,
    model_class=DiceModel,
    sim_options={"rolls_read": 40},  # a cup in service: its first roll here is number 41
    driver_class=DiceCupDriver,
    item_type="dice.roll",
    item=lambda e: tuple(e["dice"]),
    run=None,
    served=40,
    start=lambda sim: None,
    deal=lambda sim: sim.shake(),
    misread=lambda sim: sim.misread(),
    announces_misread=False,
    run_start_event=None,
    untouched=("wrong_count",),
)
SHUFFLER = Device(
    name="tcp1",
    sim_class=SimulatedDispenser,
    model_class=DispenserModel,
    sim_options={"stack_size": 3},
    driver_class=ShufflerDriver,
    item_type="shuffler.stack",
    item=lambda e: (e["at"]["first"], e["cards"]),  # its first card index and its cards
    run="1",
    served=0,
    start=lambda sim: sim.load(DECK, "red"),
    deal=_stack,
    misread=lambda sim: sim.misread(announce=True),
    announces_misread=True,
    run_start_event=None,
    new_run=_new_dispenser_run,
    untouched=("card_index_breaks",),
    after_restart=_dispenser_restart,
    after_new_run=_dispenser_new_run,
)
POKER_TABLE = Device(
    name="reader",
    sim_class=SimulatedPokerTable,
    model_class=PokerTableModel,
    sim_options={},
    driver_class=PokerTableDriver,
    item_type="table.card",
    item=lambda e: e["card"],
    run="1",
    served=0,
    start=lambda sim: sim.new_hand(),
    deal=_placement,
    misread=lambda sim: sim.misread(MUCK, announce=True),
    announces_misread=True,
    run_start_event=None,
    new_run=lambda sim: sim.new_hand(),
)
DEVICES = [SHOE, DICE, SHUFFLER, POKER_TABLE]
WITH_RUNS = [d for d in DEVICES if d.run is not None]


@pytest.fixture(params=DEVICES, ids=lambda d: d.sim_class.__name__.removeprefix("Simulated"))
def device(request: pytest.FixtureRequest) -> Device:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(params=WITH_RUNS, ids=lambda d: d.sim_class.__name__.removeprefix("Simulated"))
def device_with_runs(request: pytest.FixtureRequest) -> Device:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def make_sim() -> Iterator[Callable[..., Sim]]:
    """Build the emulator of a `Device` (with its options), all unplugged at the end."""
    made: list[SimulatedDevice] = []

    def make(device: Device, **kwargs: Any) -> Sim:
        sim = device.sim_class(**{**device.sim_options, **kwargs})
        made.append(sim)
        return sim

    yield make
    for sim in made:
        sim.close()


def driver_for(device: Device, port: str, **options: Any) -> PositionedDriver[Any]:
    return device.driver_class(device.name, port, 9600, {**QUICK, **options})


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


def kinds(sink: RecordingSink) -> list[str]:
    """The type of every event passed on, in order."""
    return [e["type"] for e in sink.events]


def run_start(device: Device) -> list[str]:
    """The events a run start is passed on as: none, or one."""
    return [device.run_start_event] if device.run_start_event else []


async def until_at(sink: RecordingSink, place: tuple[str | None, int]) -> None:
    """Until the journal's count stands at `place` (run, position)."""

    def there() -> bool:
        cursor = sink.cursor() or {}
        return (cursor.get("run"), cursor.get("pos")) == place

    await sink.wait_for(there, TIMEOUT)


async def test_each_item_carries_its_place(device: Device, make_sim: Callable[..., Sim]) -> None:
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        # the resend's RSE: where the device stands before it reports anything
        assert last(sink).detail["position"] == {"run": None, "pos": device.served}
        device.start(sim)
        items = [device.deal(sim) for _ in range(3)]
        await until_at(sink, device.at(3))
    assert device.places(sink) == [(*device.at(n), items[n - 1]) for n in (1, 2, 3)]
    assert kinds(sink) == [*run_start(device), *[device.item_type] * 3]
    if device.run is None:  # no runs: the place is the number alone
        assert all(set(e["at"]) == {"pos", "seq"} for e in sink.events)
    else:
        assert all(e["at"]["run"] == device.run for e in sink.events)
    run, pos = device.at(3)
    assert sink.cursor() == {"run": run, "pos": pos, "seq": sink.events[-1]["at"]["seq"]}
    assert gaps(sink) == []
    assert all(s.fault is None for s in sink.statuses)


async def test_each_run_restarts_the_count(
    device_with_runs: Device, make_sim: Callable[..., Sim]
) -> None:
    device = device_with_runs
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        device.start(sim)
        first = [device.deal(sim) for _ in range(2)]
        await until_at(sink, device.at(2))
        device.next_run(sim)
        second = device.deal(sim)
        await until_at(sink, device.at(1, run="2"))
    assert device.places(sink) == [
        (*device.at(1), first[0]),
        (*device.at(2), first[1]),
        (*device.at(1, run="2"), second),
    ]
    item, start = [device.item_type], run_start(device)
    assert kinds(sink) == [*start, *item, *item, *start, *item]
    assert sink.cursor() == {"run": "2", "pos": 1, "seq": sink.events[-1]["at"]["seq"]}


@pytest.mark.parametrize("fault", ["drop", "garble"])
async def test_a_lost_or_garbled_frame_is_resent_and_nothing_is_held(
    device: Device, make_sim: Callable[..., Sim], fault: str
) -> None:
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        device.start(sim)
        items = [device.deal(sim)]
        getattr(sim, f"{fault}_next")()
        items.append(device.deal(sim))  # lost or garbled on the wire
        items += [device.deal(sim) for _ in range(2)]
        await until_at(sink, device.at(4))
    assert device.places(sink) == [(*device.at(n), items[n - 1]) for n in range(1, 5)]
    assert gaps(sink) == []
    assert driver.stats["resends"] >= 2  # the one on connect, and the one for the hole
    assert all(s.fault is None for s in sink.statuses)  # nothing held, ever
    assert driver.stats["bad_frames"] == (1 if fault == "garble" else 0)
    if fault == "drop":
        assert driver.stats["frames_lost"] == 1
        gap = next(s.detail["last_gap"] for s in sink.statuses if "last_gap" in s.detail)
        assert gap["lost"] == 1 and gap["received"] == gap["expected"] + 1


async def test_an_item_read_twice_is_passed_on_with_the_same_position(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    """The device reports an item twice (repeat_last: the same message under a new SEQ): the
    driver passes the repeat on at the same position, which the table refuses to use twice;
    the count carries on after it."""
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        device.start(sim)
        items = [device.deal(sim), device.deal(sim)]
        sim.repeat_last()
        items.append(device.deal(sim))
        await until_at(sink, device.at(3))
    assert device.places(sink) == [
        (*device.at(1), items[0]),
        (*device.at(2), items[1]),
        (*device.at(2), items[1]),
        (*device.at(3), items[2]),
    ]
    assert driver.stats["repeats"] == 1 and driver.stats["duplicates"] == 0
    for counter in device.untouched:  # a repeat is judged once
        assert last(sink).detail[counter] == 0
    assert gaps(sink) == []


async def test_a_retransmitted_frame_is_dropped(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        device.start(sim)
        items = [device.deal(sim)]
        sim.duplicate_last()  # the same frame again: the same SEQ
        items.append(device.deal(sim))
        await until_at(sink, device.at(2))
        sim.fault("NEW_CODE_9")  # a status, to read the counters the table is shown
        await sink.wait_for(lambda: last(sink).fault == "NEW_CODE_9", TIMEOUT)
    assert device.places(sink) == [(*device.at(1), items[0]), (*device.at(2), items[1])]
    assert kinds(sink) == [*run_start(device), device.item_type, device.item_type]
    # dropped by its SEQ, before its position was looked at
    assert driver.stats["duplicates"] == 1 and driver.stats["repeats"] == 0
    assert (last(sink).detail["duplicates"], last(sink).detail["repeats"]) == (1, 0)
    assert [s.fault for s in sink.statuses if s.fault is not None] == ["NEW_CODE_9"]


async def test_items_dealt_while_cut_off_are_resent_on_replug(
    device: Device, make_sim: Callable[..., Sim], tmp_path: Path
) -> None:
    """The cable comes out after item 1: DISCONNECTED, unavailable. While it is out the device
    cannot send (dealing raises and uses no number) and the driver retries the missing port.
    It is plugged back in and reports items 2 and 3 before the driver has reopened the port
    (its backoff is 1 s): opening the port flushes what waited on the line, so those are only
    had by the resend the driver asks on connect, from the journal's count."""
    link = tmp_path / "device0"
    sim = make_sim(device, link=link)
    sink = RecordingSink()
    driver = driver_for(device, str(link), backoff_initial=1.0, backoff_max=1.0)
    async with synced(driver, sink):
        device.start(sim)
        items = [device.deal(sim)]
        await until_at(sink, device.at(1))
        assert sim.link == link and link.resolve() == Path(sim.port).resolve()
        sim.unplug()  # the port vanishes, and the emulator's link with it
        assert sim.closed and not link.is_symlink()
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        assert last(sink).available is False
        assert last(sink).detail["error"].startswith(f"lost {link}")
        seq, left = sim.next_seq, getattr(sim, "remaining", None)
        with pytest.raises(RuntimeError, match="closed"):
            device.deal(sim)  # the real device cannot report into an unplugged line either
        assert sim.place() == device.at(1) and sim.next_seq == seq  # no number, no SEQ used
        assert getattr(sim, "remaining", None) == left  # the cards stay in the device
        await sink.wait_for(lambda: "cannot open" in last(sink).detail.get("error", ""), TIMEOUT)
        port = sim.replug()  # a fresh pty, the link pointed at it
        assert port == sim.port and link.resolve() == Path(port).resolve()
        with pytest.raises(RuntimeError, match="plugged in"):
            sim.replug()
        items += [device.deal(sim), device.deal(sim)]  # before the driver is back
        sim.flush()
        await until_open(driver, sink, opens=2)
        await until_at(sink, device.at(3))
        items.append(device.deal(sim))
        await until_at(sink, device.at(4))
    assert device.places(sink) == [(*device.at(n), items[n - 1]) for n in range(1, 5)]
    assert gaps(sink) == []
    assert last(sink).fault is None and last(sink).available
    assert last(sink).detail["reconnects"] == 1
    assert driver.stats["frames_lost"] == 2  # 2 and 3 never came live: the resend had them


async def test_a_new_driver_resumes_from_the_journals_count(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    """The daemon was down while the device reported items 3 and 4 (it keeps them in its
    history); a new driver on the journal's count gets exactly those, not the items before
    them, and the SEQ gap across the restart is counted."""
    sim = make_sim(device)
    first = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, first):
        device.start(sim)
        device.deal(sim)
        device.deal(sim)
        await until_at(first, device.at(2))
    cursor = first.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == device.at(2)
    missed = [device.deal(sim), device.deal(sim)]  # nobody reads the pty now
    sim.flush()
    again = RecordingSink(start=cursor)
    driver = driver_for(device, sim.port)
    async with running(driver, again):
        await until_at(again, device.at(4))
    assert device.places(again) == [(*device.at(3), missed[0]), (*device.at(4), missed[1])]
    assert driver.stats["frames_lost"] >= 2  # SEQ recovered from the journal's count
    assert gaps(again) == []
    device.after_restart(again)


async def test_an_item_never_reported_is_a_gap_the_device_cannot_fill(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        await until_answered(sink)
        device.start(sim)
        items = [device.deal(sim)]
        device.misread(sim)  # position 2: used, never reported
        if device.announces_misread:
            await sink.wait_for(lambda: last(sink).fault == "MISREAD", TIMEOUT)
        items += [device.deal(sim), device.deal(sim)]
        await sink.wait_for(lambda: len(gaps(sink)) == 1 and len(device.places(sink)) == 3, TIMEOUT)
    (gap,) = gaps(sink)
    run, after = device.at(1)
    assert gap["device"] == device.name
    assert (gap.get("run"), gap["after"], gap["missing"]) == (run, after, [after + 1])
    if run is None:
        assert "run" not in gap
    # One resend for the hole: its replay lacks position 2, and nothing was lost on the wire
    # (a replayed position past the hole once counted as a loss and asked twice more).
    assert driver.stats["resends"] == 2
    # What came after the gap is passed on with its place, for the table to keep.
    assert device.places(sink) == [
        (*device.at(1), items[0]),
        (*device.at(3), items[1]),
        (*device.at(4), items[2]),
    ]
    for counter in device.untouched:  # the hole is a gap, not also a break in the count
        assert last(sink).detail[counter] == 0
    first = sink.events[len(run_start(device))]  # item 1, the last one dealt in order
    # the journal keeps what came behind the hole waiting
    assert sink.cursor() == {"run": run, "pos": after, "seq": first["at"]["seq"]}
    assert sink.ledger.missing() == (after + 1,)


async def test_a_device_that_lost_its_history_says_so(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    """Power-cycled while the daemon was down, its history gone: what came after the
    journal's count cannot be confirmed. A device whose count restarts with each run then has
    a gap of unknown size (the new run is read from its start); a device whose count never
    restarts (the dice cup) still says where it stands, so the gap names what is missing."""
    sim = make_sim(device)
    first = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, first):
        device.start(sim)
        device.deal(sim)
        await until_at(first, device.at(1))
    device.deal(sim)
    if device.run is None:
        device.deal(sim)
    sim.forget()
    if device.run is not None:
        device.next_run(sim)
    after = device.deal(sim)
    sim.flush()
    again = RecordingSink(start=first.cursor())
    driver = driver_for(device, sim.port)
    async with running(driver, again):
        await again.wait_for(lambda: len(device.places(again)) == 1, TIMEOUT)
    (gap,) = gaps(again)
    run, pos = device.at(1)
    if run is None:
        assert (gap["after"], gap["missing"]) == (pos, [pos + 1, pos + 2])
        assert device.places(again) == [(*device.at(4), after)]
    else:
        assert (gap["run"], gap["after"], gap["missing"]) == (run, pos, None)
        assert device.places(again) == [(*device.at(1, run="2"), after)]
    starts = [device.run_start_event] if device.run_start_event else []
    assert [e["type"] for e in again.events] == ["device.gap", *starts, device.item_type]
    cursor = again.cursor()
    assert cursor is not None
    if run is None:  # the named hole stays open in the journal's count
        assert (cursor["pos"], again.ledger.missing()) == (pos, (pos + 1, pos + 2))
    else:  # the new run is counted from its start
        assert (cursor["run"], cursor["pos"]) == device.at(1, run="2")
    device.after_new_run(again)


async def test_a_device_that_does_not_answer_a_resend_stands_frames_lost(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    """No RSE in time: FRAMES_LOST stands (a round in deal is held), reported before the gap,
    and what came past the hole is passed on; the driver keeps asking from the hole, so when
    the device answers again item 2 fills the gap, and that resend, back whole, clears
    FRAMES_LOST (no new run needed)."""
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port, resend_retry=0.3)
    async with synced(driver, sink):
        await until_answered(sink)
        device.start(sim)
        await sink.wait_for(lambda: last(sink).detail["position"]["run"] == device.run)
        sim.answer_resends = False
        items = [device.deal(sim)]
        sim.drop_next()
        items += [device.deal(sim), device.deal(sim)]
        await sink.wait_for(
            lambda: last(sink).fault == FRAMES_LOST and len(gaps(sink)) == 1, TIMEOUT
        )
        (gap,) = gaps(sink)
        assert (gap["after"], gap["missing"]) == (device.served + 1, [device.served + 2])
        lost = next(i for i, c in enumerate(sink.calls) if getattr(c, "fault", None))
        assert lost < sink.calls.index(gap)  # the fault first: the round is held for it
        answered = sim.resends_answered
        sim.answer_resends = True
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert sim.resends_answered > answered
        await until_at(sink, device.at(3))
    assert device.places(sink) == [  # 2 filled late
        (*device.at(1), items[0]),
        (*device.at(3), items[2]),
        (*device.at(2), items[1]),
    ]
    assert len(gaps(sink)) == 1
    assert sink.ledger.missing() == () and not sink.ledger.pending  # the count is whole


async def test_a_silent_device_is_unavailable_until_it_talks(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port, silence_timeout=0.3)
    async with synced(driver, sink):
        await sink.wait_for(lambda: last(sink).fault == SILENT, TIMEOUT)
        assert last(sink).available is False
        sim.heartbeat()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert last(sink).available is True


async def test_a_lost_run_start_is_resent_before_the_items_of_its_run(
    device_with_runs: Device, make_sim: Callable[..., Sim]
) -> None:
    """The start of run 2 (a NEW shoe, a shuffle, a new hand) is lost on the wire, so run 2's
    first items come right after the SEQ gap. They must not be taken for run 1's positions
    again (a repeat the table would hold the round on) nor for run 1's next ones: what comes
    after a gap waits for the resend, which brings the run start first."""
    device = device_with_runs
    sim = make_sim(device)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    async with synced(driver, sink):
        await until_answered(sink)
        device.start(sim)
        items = [device.deal(sim)]
        await until_at(sink, device.at(1))
        sim.drop_next()
        device.next_run(sim)  # lost on the wire
        items += [device.deal(sim), device.deal(sim)]
        await until_at(sink, device.at(2, run="2"))
    assert device.places(sink) == [
        (*device.at(1), items[0]),
        (*device.at(1, run="2"), items[1]),
        (*device.at(2, run="2"), items[2]),
    ]
    # run 2's start, resent, comes before its items, and at its own place
    item, start = [device.item_type], run_start(device)
    assert kinds(sink) == [*start, *item, *start, *item, *item]
    starts = [(e["at"]["run"], e["at"]["pos"]) for e in sink.events if e["type"] in start]
    assert starts == ([("1", 0), ("2", 0)] if start else [])
    assert driver.stats["repeats"] == 0 and gaps(sink) == []


async def test_unplug_reports_loss_and_reconnects_with_growing_delays(
    device: Device, make_sim: Callable[..., Sim], tmp_path: Path
) -> None:
    """docs/protocols/envelope.md, "What every envelope driver reports": a lost port is
    DISCONNECTED (unavailable, `error` saying why) and retried with growing delays, through a
    symlink that points nowhere for a while; the same device plugged in again (a fresh pty, its
    SEQ and history going on) is read on, nothing lost."""
    link = tmp_path / "device0"
    sim = make_sim(device)
    link.symlink_to(sim.port)
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = device.driver_class(device.name, str(link), 9600, {}, sleep=sleep)
    async with synced(driver, sink):
        await until_answered(sink)  # the answer read before the cable is pulled
        device.start(sim)
        items = [device.deal(sim)]
        await until_at(sink, device.at(1))

        sim.unplug()
        await sink.wait_for(lambda: not last(sink).available, TIMEOUT)
        down = sink.statuses[-1]
        assert down.fault == DISCONNECTED
        assert down.detail["error"].startswith(f"lost {link}")
        with pytest.raises(RuntimeError, match="closed"):
            device.deal(sim)  # nothing goes out while unplugged, and no number is used
        assert sim.place() == device.at(1)
        await sleep.wait_calls(1)
        assert jittered(sleep.delays, [0.2])

        link.unlink()
        link.symlink_to(tmp_path / "nothing-here")
        sleep.release()  # retry: the port is not there
        await sleep.wait_calls(2)
        assert jittered(sleep.delays, [0.2, 0.4])
        assert "cannot open" in sink.statuses[-1].detail["error"]

        link.unlink()
        link.symlink_to(sim.replug())
        sleep.release()
        await until_open(driver, sink, opens=2)
        await until_answered(sink, resends=2)
        items.append(device.deal(sim))
        await until_at(sink, device.at(2))
    assert device.places(sink) == [(*device.at(1), items[0]), (*device.at(2), items[1])]
    assert gaps(sink) == []
    final = sink.statuses[-1]
    assert final.available and final.fault is None  # SEQ continued: nothing lost
    assert final.detail["reconnects"] == 1 and final.detail["frames_lost"] == 0
    assert driver.stats["opens"] == 2 and driver.stats["resends"] >= 2  # one on each connect


async def test_a_missing_port_is_reported_once_and_retried_with_capped_delays(
    device: Device,
) -> None:
    """The reconnect delay doubles from `backoff_initial` (0.2 s) to `backoff_max` (5 s) and
    stays there; the same failure is not reported again on every attempt."""
    sleep = ManualSleep()
    sink = RecordingSink()
    port = "/dev/does-not-exist-tablectl"
    driver = device.driver_class(device.name, port, 9600, {}, sleep=sleep)
    async with running(driver, sink):
        for n in range(1, 7):
            await sleep.wait_calls(n)
            sleep.release()
        await sleep.wait_calls(7)
    assert jittered(sleep.delays, [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0])
    assert len(sink.statuses) == 1
    status = sink.statuses[0]
    assert (status.available, status.fault) == (False, DISCONNECTED)
    assert f"cannot open {port}" in status.detail["error"]


FRAGMENTS = [None, chunks_of(1), chunks_of(2), chunks_of(5), chunks_of(13), random_chunks(1, 7)]


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=["whole", "1", "2", "5", "13", "random"])
async def test_any_chunking_gives_the_same_items(
    device: Device, fragment: Fragmenter | None
) -> None:
    """Over the in-memory null modem, the writes cut anywhere (docs/protocols/envelope.md,
    "Framing"): the same items at the same places, line noise counted the same."""
    modem = AnsweringModem(
        lambda write: device.model_class(write, **device.sim_options), fragment=fragment
    )
    sink = RecordingSink()
    options = {"status_interval": 0}
    driver = device.driver_class(device.name, "null", 9600, options, connect=modem.connect)
    async with running(driver, sink):
        await until_synced(driver, sink)
        model = modem.model
        device.start(model)
        items = []
        for i in range(12):
            items.append(device.deal(model))
            if i % 3 == 0:
                model.write_raw(b"\r\n~noise~")  # always followed by a frame, which ends it
        await until_at(sink, device.at(12))
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4, TIMEOUT)
    assert device.places(sink) == [(*device.at(n), items[n - 1]) for n in range(1, 13)]
    assert driver.stats["bad_frames"] == 4 and gaps(sink) == []
    if fragment is not None:
        assert driver.stats["reads"] > driver.stats["frames"]  # it really came in pieces


ANSWER = 3
"""Frames a device sends answering the connect's RSN with nothing to resend: RSB, RSE, CLR."""


async def test_fragmented_writes_on_a_pty_still_yield_every_item(
    device: Device, make_sim: Callable[..., Sim]
) -> None:
    sim = make_sim(device, fragment=True, max_chunk=3, seed=7)
    sink = RecordingSink()
    driver = driver_for(device, sim.port)
    n = 15
    async with synced(driver, sink):
        device.start(sim)
        items = [device.deal(sim) for _ in range(n)]
        await until_at(sink, device.at(n))
    assert device.places(sink) == [(*device.at(i), items[i - 1]) for i in range(1, n + 1)]
    assert driver.stats["bad_frames"] == 0
    run_start = 0 if device.run is None else 1  # NEW, SHF, HND
    # the frames really arrived in pieces: more reads than frames
    assert driver.stats["reads"] > driver.stats["frames"] == ANSWER + run_start + n


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_a_driver_stops_when_input_arrives_as_it_is_cancelled(
    device: Device, turns: int
) -> None:
    """The daemon's stop is a cancellation; input landing in the same loop turn must not
    swallow it (Python 3.11's `asyncio.wait_for` returned the input instead of raising, and a
    driver that waited that way ran on after the stop: test_stop_not_swallowed.py). The driver
    here waits on its timed reads: a silence timeout is set and its resend is unanswered."""
    modem = NullModem()
    sink = RecordingSink()
    options = {"silence_timeout": 30}
    driver = device.driver_class(device.name, "null", 9600, options, connect=modem.connect)
    task = asyncio.create_task(driver.run(sink))
    await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available, TIMEOUT)
    model = device.model_class(modem.write, **device.sim_options)
    device.start(model)
    device.deal(model)  # delivered to the driver's Link on a later loop turn
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=2.0)
    if not done:  # the stop was swallowed: end it, and say so
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
    assert done and task.cancelled(), f"the driver ran on after its stop ({turns} turns)"
