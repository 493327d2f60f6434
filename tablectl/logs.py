"""structlog set-up: one event per line on stderr, in the form the reader of that stderr wants.

- Under systemd, stderr connected to the journal (systemd sets `JOURNAL_STREAM` to that
  stream's device and inode): each JSON line starts with its syslog priority, `<4>` for a
  warning, which journald takes as the entry's priority (`SyslogLevelPrefix=`, on by default)
  and strips, so `journalctl -u tablectl -p warning` shows warnings and worse.
- On a terminal: a readable line (time, level, event, fields), for a technician at the console.
- Anywhere else (a pipe, a file, a log shipper): plain JSON lines.

Records from the standard library (aiomqtt, asyncio) go through the same renderer. aiomqtt's
"There are N pending publish calls." is expected whenever the relay publishes a backlog with
its window of messages in flight: it is logged at debug, not as a warning. An error no code
caught, which asyncio hands to its loop's exception handler ("Exception in callback ...", "Task
exception was never retrieved"), is one `asyncio.unhandled` event (`log_unhandled`), with the
handle, task or transport it came from as fields, not asyncio's multi-line text.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from collections.abc import Mapping
from typing import Any, TextIO

import structlog

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}

SYSLOG_PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}
"""A logging level -> its syslog priority (RFC 5424: 7 debug, 6 info, 4 warning, 3 err, 2 crit)."""


def syslog_priority(levelno: int) -> int:
    """The syslog priority of a logging level (a level between two takes the lower one's)."""
    return next(p for lvl, p in sorted(SYSLOG_PRIORITY.items(), reverse=True) if levelno >= lvl)


def to_journal(stream: TextIO) -> bool:
    """Whether `stream` is the journal's: systemd's `JOURNAL_STREAM` names its device:inode."""
    named = os.environ.get("JOURNAL_STREAM", "")
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False  # no file descriptor (a test's buffer): not the journal
    return named == f"{st.st_dev}:{st.st_ino}"


class _PriorityPrefix(logging.Formatter):
    """Puts `<N>`, the record's syslog priority, before the line another formatter made."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        return f"<{syslog_priority(record.levelno)}>{self.inner.format(record)}"


class _PendingPublishes(logging.Filter):
    """aiomqtt's "There are N pending publish calls." at debug: the relay's window at work."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and "pending publish calls" in record.getMessage():
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


def configure_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Route structlog and stdlib logging to `stream` (stderr) at `level`, rendered for its
    reader: the journal (JSON with a priority prefix), a terminal (readable), else JSON."""
    out = sys.stderr if stream is None else stream
    lvl = _LEVELS[level]
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.make_filtering_bound_logger(lvl),
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=False,
    )
    journal = to_journal(out)
    console = not journal and _isatty(out)
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if console
        else structlog.processors.JSONRenderer()
    )
    formatter: logging.Formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            *([] if console else [structlog.processors.format_exc_info]),
            renderer,
        ],
    )
    if journal:
        formatter = _PriorityPrefix(formatter)
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(lvl)
    mqtt = logging.getLogger("mqtt")  # aiomqtt's logger
    mqtt.filters[:] = [f for f in mqtt.filters if not isinstance(f, _PendingPublishes)]
    mqtt.addFilter(_PendingPublishes())


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def log_unhandled(loop: asyncio.AbstractEventLoop, context: Mapping[str, Any]) -> None:
    """The event loop's exception handler (`loop.set_exception_handler`; the daemon sets it):
    what asyncio's default handler writes as several lines of text ("Exception in callback X" /
    "handle: ..."), logged as one `asyncio.unhandled` error event in the daemon's own format:
    asyncio's `message`, the exception with its traceback, and every other part of the context
    (the handle, future, task, transport, protocol, socket) as a field holding its repr."""
    exc = context.get("exception")
    fields: dict[str, str] = {}
    for key, value in context.items():
        if key in ("message", "exception"):
            continue
        if key == "source_traceback" and isinstance(value, list):  # asyncio debug mode
            fields[key] = "".join(traceback.format_list(value)).rstrip()
        else:
            fields[key] = repr(value)
    structlog.get_logger("asyncio").error(
        "asyncio.unhandled",
        message=str(context.get("message", "")),
        exc_info=exc if isinstance(exc, BaseException) else False,
        **fields,
    )
