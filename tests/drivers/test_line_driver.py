"""The configurable line driver: a device we do not make, described by patterns in the config,
read over a real pseudo-terminal."""

from __future__ import annotations

import asyncio
import logging
import os
import tty
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import structlog
from structlog.testing import capture_logs
from structlog.typing import EventDict

from tablectl_base.cards import CardError
from tablectl_drivers.line.device import LineDriver, LineOptions
from tablectl_drivers.registry import load_driver
from tablectl_drivers.sim import RecordingSink

OPTIONS: dict[str, Any] = {
    "line_ending": "\r\n",
    "messages": [
        {"pattern": r"^CARD (?P<rank>10|[2-9JQKA])(?P<suit>[SHDC])$", "event": "shoe.card"},
        {"pattern": r"^BURN (?P<card>\w\w)$", "event": "shoe.burn"},
        {"pattern": r"^SHUFFLE$", "event": "shoe.new"},
    ],
}


@pytest.fixture
def pty() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(slave)
    yield master, os.ttyname(slave)
    os.close(master)
    os.close(slave)


@pytest.fixture
async def running(pty: tuple[int, str]) -> AsyncIterator[tuple[int, RecordingSink]]:
    master, port = pty
    sink = RecordingSink()
    task = asyncio.create_task(LineDriver("shoe", port, 9600, OPTIONS).run(sink))
    await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
    yield master, sink
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_configured_messages_become_events(running: tuple[int, RecordingSink]) -> None:
    master, sink = running
    os.write(master, b"SHUFFLE\r\nBURN 7d\r\nCARD 10H\r\nCARD A")
    os.write(master, b"S\r\n")  # a line in two pieces
    await sink.wait_for(lambda: len(sink.events) == 4)
    assert sink.events == [
        {"type": "shoe.new"},
        {"type": "shoe.burn", "card": "7d"},
        {"type": "shoe.card", "card": "Th"},
        {"type": "shoe.card", "card": "As"},
    ]


async def test_noise_is_counted_and_reported_never_fatal(
    running: tuple[int, RecordingSink],
) -> None:
    master, sink = running
    os.write(master, b"\x00\xffgarbage\r\nCARD 1Z\r\nCARD KD\r\n")
    await sink.wait_for(lambda: sink.cards == ["Kd"])
    await sink.wait_for(lambda: (sink.statuses[-1].detail.get("unmatched") or 0) >= 1)
    assert sink.statuses[-1].available


async def test_the_age_of_the_last_line_is_none_before_the_first_and_counts_any_line(
    pty: tuple[int, str],
) -> None:
    """`tablectl status` shows each device's age of last frame (`FrameClock`): for a line
    device, its last line, matched or not (the device spoke)."""
    master, port = pty
    sink = RecordingSink()
    driver = LineDriver("shoe", port, 9600, OPTIONS)
    task = asyncio.create_task(driver.run(sink))
    try:
        await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
        assert driver.frame_age() is None
        os.write(master, b"garbage\r\n")
        async with asyncio.timeout(5):  # an unmatched line is reported a second later at most
            while driver.stats["unmatched"] < 1:
                await asyncio.sleep(0.01)
        first = driver.frame_age()
        assert first is not None and 0 <= first < 5
        await asyncio.sleep(0.2)
        later = driver.frame_age()
        assert later is not None and later >= first + 0.2
        os.write(master, b"CARD KD\r\n")
        await sink.wait_for(lambda: sink.cards == ["Kd"])
        again = driver.frame_age()
        assert again is not None and again < later
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError) as err:
        LineOptions.parse(
            {
                "messages": [
                    {"pattern": "(", "event": "shoe.card"},
                    {"pattern": "^X$", "event": "shoe.card"},
                    {"pattern": "^Y$", "event": "dice.roll"},
                ],
                "colour": "red",
            }
        )
    text = str(err.value)
    assert "unknown option 'colour'" in text
    assert "messages[0].pattern is not a regular expression" in text
    assert "messages[1].pattern needs named groups rank and suit, or card" in text
    assert "messages[2].event 'dice.roll' must be one of" in text


def test_registered_as_line() -> None:
    assert load_driver("line") is LineDriver


@pytest.fixture
def debug_logs() -> Iterator[list[EventDict]]:
    """Every log entry, debug level included, while the test runs."""
    old = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as entries:
            yield entries
    finally:
        structlog.configure(wrapper_class=old)


async def test_a_bad_line_shows_on_the_status_without_its_bytes_contract_3(
    pty: tuple[int, str], debug_logs: list[EventDict]
) -> None:
    """Contract 3: no topic may show a card a player cannot see. A line the patterns do not
    take (a hole card in a format nobody configured) or whose card is not a card (`AX`: the
    rank A is still there) reaches the status as what was wrong and its length; issue 5 "Bad
    input": its raw bytes go to the debug log."""
    master, port = pty
    sink = RecordingSink()
    task = asyncio.create_task(LineDriver("shoe", port, 9600, OPTIONS).run(sink))
    try:
        await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
        os.write(master, b"CARD AH HOLE\r\n")  # 12 bytes before the line ending
        await sink.wait_for(lambda: sink.statuses[-1].detail.get("unmatched") == 1)
        assert sink.statuses[-1].detail["last_bad"] == "matches no configured message (12 bytes)"
        os.write(master, b"BURN AX\r\n")  # matches the burn pattern; AX is not a card: 7 bytes
        await sink.wait_for(lambda: sink.statuses[-1].detail.get("unmatched") == 2)
        detail = sink.statuses[-1].detail
        assert detail["last_bad"] == "matches a card message but is not a card (7 bytes)"
        assert detail["bad_cards"] == 1
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    published = repr([s.detail for s in sink.statuses])
    assert "AH" not in published and "AX" not in published
    raws = [e["raw"] for e in debug_logs if e["event"] == "line.unmatched"]
    assert raws == [b"CARD AH HOLE", b"BURN AX"]


POSITIONED: dict[str, Any] = {
    "line_ending": "\r\n",
    "messages": [
        {"pattern": r"^CARD (?P<pos>\d+) (?P<card>\w\w)$", "event": "shoe.card"},
        {"pattern": r"^SHOE (?P<shoe>\w+)$", "event": "shoe.new"},
    ],
}


async def test_a_skipped_position_is_a_gap_at_once_no_history_to_resend_from(
    pty: tuple[int, str],
) -> None:
    """A vendor device without history falls back to hold + console entry. The
    line driver reports the skipped position as a device.gap before passing the next card on,
    and takes a reconnect's first card against the journal's count."""
    master, port = pty
    sink = RecordingSink()
    task = asyncio.create_task(LineDriver("shoe", port, 9600, POSITIONED).run(sink))
    try:
        await sink.wait_for(lambda: bool(sink.statuses) and sink.statuses[-1].available)
        os.write(master, b"SHOE A7\r\nCARD 1 9h\r\nCARD 2 2c\r\nCARD 4 3s\r\nCARD 4 3s\r\n")
        await sink.wait_for(lambda: len(sink.events) == 6)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert sink.events == [
        {"type": "shoe.new", "at": {"run": "A7", "pos": 0}},
        {"type": "shoe.card", "card": "9h", "at": {"run": "A7", "pos": 1}},
        {"type": "shoe.card", "card": "2c", "at": {"run": "A7", "pos": 2}},
        {
            "type": "device.gap",
            "device": "shoe",
            "after": 2,
            "missing": [3],
            "reason": "the device keeps no history to resend them from",
            "run": "A7",
        },
        {"type": "shoe.card", "card": "3s", "at": {"run": "A7", "pos": 4}},
        # read twice: passed on with its position, for the table to refuse (not dealt twice)
        {"type": "shoe.card", "card": "3s", "at": {"run": "A7", "pos": 4}},
    ]
    # A new driver on the journal's count: a card past it is a gap at once.
    sink2 = RecordingSink(start={"run": "A7", "pos": 4})
    task = asyncio.create_task(LineDriver("shoe", port, 9600, POSITIONED).run(sink2))
    try:
        await sink2.wait_for(lambda: bool(sink2.statuses) and sink2.statuses[-1].available)
        os.write(master, b"CARD 7 Kd\r\n")
        await sink2.wait_for(lambda: len(sink2.events) == 2)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert sink2.events[0]["missing"] == [5, 6]
    assert sink2.events[1]["at"] == {"run": "A7", "pos": 7}


def test_a_position_that_is_not_a_number_is_a_bad_line() -> None:
    """A pattern loose enough to capture "1a" as the position: the line is refused (counted as
    a bad card line), never turned into a position."""
    loose = {"messages": [{"pattern": r"^CARD (?P<pos>\S+) (?P<card>\w\w)$", "event": "shoe.card"}]}
    opts = LineOptions.parse(loose)
    with pytest.raises(CardError, match="position"):
        opts.messages[0].event_for("CARD 1a 9h")
