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

from drivers.line.device import LineDriver, LineOptions
from drivers.registry import load_driver
from drivers.sim import RecordingSink

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
