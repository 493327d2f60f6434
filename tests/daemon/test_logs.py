"""Log lines for their reader: journald filters by priority, a terminal gets a
readable line, everything else JSON; aiomqtt's expected backlog notice is no warning."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import tempfile
from collections.abc import Iterator

import pytest
import structlog

from tablectl.logs import configure_logging, log_unhandled, syslog_priority

PREFIX = re.compile(r"^<(\d)>(.*)$")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def emit_all() -> None:
    log = structlog.get_logger("tablectl.test")
    log.debug("a debug line")
    log.info("relay.connected", broker="127.0.0.1:1883")
    log.warning("relay.connect_failed", attempt=3)
    log.error("journal.unwritable", error="disk full")
    logging.getLogger("asyncio").warning("a library warning")


def journal_lines(monkeypatch: pytest.MonkeyPatch, level: str = "info") -> list[str]:
    """What a process whose stderr is the journal's stream writes (JOURNAL_STREAM names it)."""
    with tempfile.TemporaryFile("w+") as stream:
        st = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
        configure_logging(level, stream)
        emit_all()
        logging.getLogger().handlers[0].flush()
        stream.seek(0)
        return stream.read().splitlines()


def test_journal_lines_carry_their_syslog_priority_for_journalctl_p(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """systemd's SyslogLevelPrefix: `<N>` before each line sets the entry's priority, so
    `journalctl -p warning` (priority 4 and more urgent, i.e. N <= 4) keeps exactly the
    warnings and errors, the library's too; the rest of each line is the JSON object."""
    lines = journal_lines(monkeypatch)
    parsed = [PREFIX.match(line) for line in lines]
    assert all(parsed), lines
    events = [(int(m[1]), json.loads(m[2])["event"]) for m in parsed if m]
    assert events == [
        (6, "relay.connected"),
        (4, "relay.connect_failed"),
        (3, "journal.unwritable"),
        (4, "a library warning"),
    ]
    warning_or_worse = [event for prio, event in events if prio <= 4]  # journalctl -p warning
    assert warning_or_worse == ["relay.connect_failed", "journal.unwritable", "a library warning"]


def test_lines_not_to_the_journal_are_plain_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    stream = io.StringIO()
    configure_logging("info", stream)
    emit_all()
    lines = stream.getvalue().splitlines()
    assert [json.loads(line)["level"] for line in lines] == ["info", "warning", "error", "warning"]


def test_another_stream_named_by_journal_stream_is_not_the_journal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JOURNAL_STREAM names the stream systemd connected; output redirected elsewhere (a
    technician's `tablectl run ... 2>file`) gets no prefix."""
    monkeypatch.setenv("JOURNAL_STREAM", "1:1")
    with tempfile.TemporaryFile("w+") as stream:
        configure_logging("info", stream)
        emit_all()
        logging.getLogger().handlers[0].flush()
        stream.seek(0)
        assert all(line.startswith("{") for line in stream.read().splitlines())


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_readable_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    stream = Terminal()
    configure_logging("info", stream)
    emit_all()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4 and not any(line.startswith("{") for line in lines)
    assert "relay.connect_failed" in lines[1] and "warning" in lines[1]
    assert "attempt=3" in lines[1]


def test_aiomqtt_pending_publish_notice_is_debug_not_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """aiomqtt warns "There are N pending publish calls." whenever more than a few publishes
    wait for their acknowledgement: the relay's window during a backlog flush, by design."""
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    for level, shown in (("info", 0), ("debug", 1)):
        stream = io.StringIO()
        configure_logging(level, stream)
        logging.getLogger("mqtt").warning("There are 11 pending publish calls.")
        logging.getLogger("mqtt").warning("a real aiomqtt warning")
        lines = [json.loads(line) for line in stream.getvalue().splitlines()]
        pending = [r for r in lines if "pending publish" in r["event"]]
        assert len(pending) == shown and all(r["level"] == "debug" for r in pending)
        assert [r["level"] for r in lines if r["event"] == "a real aiomqtt warning"] == ["warning"]


def test_syslog_priorities_follow_rfc_5424() -> None:
    assert [syslog_priority(n) for n in (10, 20, 30, 40, 50)] == [7, 6, 4, 3, 2]
    assert syslog_priority(25) == 6  # a level between two takes the less urgent one


def test_an_error_no_code_caught_is_one_structured_event_not_asyncios_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What reaches the event loop's exception handler (an exception raised in a callback the
    loop runs) is one JSON line: event `asyncio.unhandled`, asyncio's message, the handle it came
    from and the traceback as fields; not asyncio's "Exception in callback" lines."""
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    stream = io.StringIO()
    configure_logging("info", stream)

    def closed_descriptor() -> None:
        raise OSError(9, "Bad file descriptor")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(log_unhandled)
        loop.call_soon(closed_descriptor)
        await asyncio.sleep(0)

    asyncio.run(main())
    lines = stream.getvalue().splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["event"] for e in events] == ["asyncio.unhandled"]
    event = events[0]
    assert event["level"] == "error" and event["logger"] == "asyncio"
    assert event["message"].startswith("Exception in callback ")
    assert "closed_descriptor" in event["message"]
    assert event["handle"].startswith("<Handle ") and "closed_descriptor" in event["handle"]
    assert "Traceback (most recent call last)" in event["exception"]
    assert event["exception"].endswith("OSError: [Errno 9] Bad file descriptor")
