"""Contract suite for shufflers and hand dispensers: what any device on those drivers must do.

Against the emulator (SimulatedDispenser on a pty, the default, as in CI) every test runs for each
configuration the shipped tables use: the stack-of-three `shuffler` (Three Card Poker), the
`hand-dispenser` of 7-card hands with the joker (Fortune Pai Gow) and the `hand-dispenser` of
2-card hands and 5-card boards without it (Ultimate Texas Hold'em). Against a real device, when
`TABLECTL_HIL_DISPENSER_PORT` names its port (`TABLECTL_HIL_DISPENSER_BAUD`, default 9600), it
runs the one configuration that device is: `TABLECTL_HIL_DISPENSER_DRIVER` picks the driver
(`shuffler`, the default, or `hand-dispenser`) and `TABLECTL_HIL_DISPENSER_OPTIONS` its options
as JSON (e.g. `{"stack_size": [2, 5]}`); setting either also narrows an emulator run to that one
configuration. On hardware the dispensing tests ask the person at the rig
(`TABLECTL_HIL_INTERACTIVE=1`) or are skipped; the line-noise and unplug tests need the emulator
and are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from hil.contracts.rig import Rig, rig_for, until_available
from tablectl_base.cards import parse_card
from tablectl_drivers.dispenser.device import (
    CARD_INDEX,
    DISCONNECTED,
    FRAMES_LOST,
    WRONG_COUNT,
    DispenserDriver,
)
from tablectl_drivers.dispenser.messages import DECK_COLOUR
from tablectl_drivers.registry import load_driver
from tablectl_drivers.sim import RecordingSink, StatusReport
from tablectl_drivers.sim.dispenser import SimulatedDispenser

pytestmark = pytest.mark.integration

TIMEOUT = 5.0
"""Seconds to wait for an emulator, or for a real device to do what it does by itself."""
PERSON = 120.0
"""Seconds to wait for the person at the rig to do what they were asked."""


@dataclass(frozen=True)
class Configuration:
    """One way a table runs the device: the driver's registry name and its `options`."""

    driver: str
    options: dict[str, Any]

    def driver_class(self) -> type[DispenserDriver]:
        cls = load_driver(self.driver)
        assert isinstance(cls, type) and issubclass(cls, DispenserDriver), (
            f"{self.driver!r} is not a shuffler / hand dispenser driver"
        )
        return cls


SHIPPED: dict[str, Configuration] = {
    # config/three-card-poker-6cb-004.toml: stacks of three
    # (004 "Three Card Poker 6 Card Bonus: Dealing procedures"), no joker (line 486)
    "shuffler": Configuration("shuffler", {}),
    # config/fortune-pai-gow-003.toml: seven piles of seven
    # (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play"), 53 cards (line 1369)
    "pai-gow-7-joker": Configuration("hand-dispenser", {}),
    # config/ultimate-texas-holdem-003.toml: 2 to each hand, 5 community (003 "Ultimate Texas
    # Hold'em: Dealing Procedures and Round of Play"), standard decks of fifty-two (line 3423)
    "uth-2-5": Configuration("hand-dispenser", {"stack_size": [2, 5], "joker": False}),
}
"""The configurations the shipped configs use; the emulator run covers every one."""


def configurations() -> dict[str, Configuration]:
    """What this run covers: the one named by the environment, else every shipped one."""
    driver = os.environ.get("TABLECTL_HIL_DISPENSER_DRIVER")
    options = os.environ.get("TABLECTL_HIL_DISPENSER_OPTIONS")
    if driver is None and options is None and not os.environ.get("TABLECTL_HIL_DISPENSER_PORT"):
        return SHIPPED
    chosen = Configuration(driver or "shuffler", json.loads(options or "{}"))
    return {"environment": chosen}


CONFIGURATIONS = configurations()


@pytest.fixture(params=list(CONFIGURATIONS.values()), ids=list(CONFIGURATIONS))
def configuration(request: pytest.FixtureRequest) -> Configuration:
    config: Configuration = request.param
    return config


def make_emulator(config: Configuration) -> SimulatedDispenser:
    """The emulated device, configured like the driver under test, with a shuffled deck in it."""
    options = config.driver_class()("emulator", "-", 9600, config.options).options
    emulator = SimulatedDispenser(
        stack_size=options.stack_sizes[-1], joker=options.joker, shuffle_seed=40
    )
    emulator.shuffle(announce=False)
    return emulator


@pytest.fixture
def rig(configuration: Configuration) -> Iterator[Rig]:
    with rig_for("dispenser", lambda: make_emulator(configuration)) as the_rig:
        yield the_rig


@pytest.fixture
async def device(
    rig: Rig, configuration: Configuration
) -> AsyncIterator[tuple[DispenserDriver, RecordingSink]]:
    """The real driver on the rig's port, running until the test ends, once it is available."""
    sink = RecordingSink()
    name = configuration.driver
    options = {**configuration.options, "status_interval": 0}
    driver = configuration.driver_class()(name, rig.port, rig.baud, options)
    task = asyncio.create_task(driver.run(sink))
    try:
        await until_available(sink, name, rig.port, TIMEOUT)
        yield driver, sink
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)


def last(sink: RecordingSink) -> StatusReport:
    """The latest status (a never-reporting driver counts as unavailable)."""
    return sink.last_status or StatusReport(False, None)


def stack_events(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e.get("type") == "shuffler.stack"]


def patience(rig: Rig) -> float:
    return PERSON if rig.real else TIMEOUT


async def test_it_connects_and_reports_itself_available(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    driver, sink = device
    status = last(sink)
    assert status.available
    assert status.fault != DISCONNECTED
    assert status.detail["port"] == rig.port
    assert driver.stats["opens"] == 1


async def test_it_answers_the_resend_asked_on_connect_with_where_it_is(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    """On connect the driver asks `RSN,<seq>,-,0` ("where are you?"); the device must
    answer RSB, RSE with its shuffle and last stack number, and its fault state, in time, or
    the driver stands FRAMES_LOST."""
    driver, sink = device
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)
    position = last(sink).detail["position"]
    assert isinstance(position["pos"], int) and position["pos"] >= 0
    assert driver.stats["resends"] >= 1
    assert last(sink).fault != FRAMES_LOST
    assert driver.stats["bad_frames"] == 0


async def test_a_stack_arrives_as_one_event_with_the_right_number_of_cards_and_its_place(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    driver, sink = device
    await sink.wait_for(lambda: last(sink).detail["position"]["pos"] is not None, TIMEOUT)
    before = last(sink).detail["position"]
    rig.stimulus("dispense one stack", lambda emu: emu.dispense())
    await sink.wait_for(lambda: bool(stack_events(sink)), patience(rig))
    [event] = stack_events(sink)
    assert len(event["cards"]) in driver.options.stack_sizes
    assert all(str(parse_card(c)) == c for c in event["cards"])  # canonical cards
    assert len(set(event["cards"])) == len(event["cards"])  # one deck: no card twice
    at = event["at"]
    assert at["run"] == before["run"] and at["pos"] == before["pos"] + 1  # the next stack
    assert isinstance(at["first"], int) and at["first"] >= 1 and isinstance(at["seq"], int)
    if not rig.real:
        assert (at["pos"], at["first"]) == (1, 1)
    assert last(sink).fault not in (WRONG_COUNT, CARD_INDEX)
    assert driver.stats["bad_frames"] == 0  # everything it sent decoded


async def test_every_configured_stack_size_arrives_whole(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    driver, sink = device
    sizes = driver.options.stack_sizes  # Ultimate Texas Hold'em: a 2-card hand, a 5-card board

    def emulate(emu: SimulatedDispenser) -> None:
        for n in sizes:
            emu.dispense(n)

    rig.stimulus(f"dispense one stack of each size {list(sizes)}, smallest first", emulate)
    await sink.wait_for(lambda: len(stack_events(sink)) == len(sizes), patience(rig))
    got = [len(e["cards"]) for e in stack_events(sink)]
    assert got == list(sizes)
    firsts = [e["at"]["first"] for e in stack_events(sink)]  # the count runs on card by card
    assert firsts == [firsts[0] + sum(sizes[:i]) for i in range(len(sizes))]
    cards = [c for e in stack_events(sink) for c in e["cards"]]
    assert len(set(cards)) == len(cards)  # one deck: no card twice across the stacks
    assert last(sink).fault is None


async def test_a_shuffle_sets_the_deck_colour_of_the_stacks_after_it(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    _, sink = device

    def emulate(emu: SimulatedDispenser) -> None:
        emu.shuffle("blue")
        emu.dispense()

    rig.stimulus("run a shuffle, then dispense one stack", emulate)
    await sink.wait_for(lambda: bool(stack_events(sink)), patience(rig))
    deck = last(sink).detail["deck"]
    assert deck is not None, "the device said no deck colour in its shuffle-done (SHF)"
    assert DECK_COLOUR.fullmatch(deck)
    assert stack_events(sink)[-1]["deck"] == deck
    if not rig.real:
        assert deck == "blue"


async def test_line_noise_is_survived(
    rig: Rig, device: tuple[DispenserDriver, RecordingSink]
) -> None:
    emu = rig.emulated_only("line noise cannot be ordered from a real device")
    _, sink = device
    emu.write_raw(b"\x00\xff noise \r\n")
    emu.write_raw(b"$STK,9,1,1,3,Ah,Kd*40\r\n")  # a well-formed frame whose count is wrong
    cards = emu.dispense()
    await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
    await sink.wait_for(lambda: len(stack_events(sink)) == 1, TIMEOUT)
    assert stack_events(sink)[0]["cards"] == cards
    status = last(sink)
    assert status.available and status.fault is None
    assert "Kd" not in json.dumps(status.detail)  # no card of a bad frame is published


async def test_unplug_is_reported(rig: Rig, device: tuple[DispenserDriver, RecordingSink]) -> None:
    emu = rig.emulated_only("a real device cannot be unplugged by the suite")
    _, sink = device
    emu.close()
    await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    status = last(sink)
    assert status.available is False
    assert status.detail["error"].startswith(f"lost {rig.port}")
