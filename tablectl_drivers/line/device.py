"""LineDriver: a card-reading device we do not make, described in the table config, no code.

A technician gives the device's line ending, encoding and one regular expression per message;
named groups `rank` and `suit` (or `card`) carry the card. For example a shoe that sends
`CARD 10H` and `SHUFFLE`:

    [[devices]]
    name = "shoe"
    driver = "line"
    port = "/dev/serial/by-id/usb-Acme_Shoe_123-if00-port0"
    baud = 19200
    [devices.options]
    line_ending = "\\r\\n"
    [[devices.options.messages]]
    pattern = '^CARD (?P<rank>10|[2-9JQKA])(?P<suit>[SHDC])$'
    event = "shoe.card"
    [[devices.options.messages]]
    pattern = '^SHUFFLE$'
    event = "shoe.new"

Positions: a pattern may also have a named group `pos`, the card's number in the
device's own count (and `shoe`, an id of the shoe the count restarts with, on a `shoe.new` or
card message). Events then carry `at`, and the table deals only the next position. Such a device
keeps no history, so it cannot resend: a skipped position is reported at once as a `device.gap`,
which holds the round until the dealer enters the missing cards at the console (R39) or voids
it. Without a `pos` group nothing can tell a lost card: the device's own problem, documented.

A line that matches nothing is counted, logged with its raw bytes at debug level and shown on
the device's status by what was wrong and its length only: its text may hold a card nobody may
see yet (a hole card), and the status is published (DESIGN contract 3; bad input: the
raw bytes go to the debug log). It never stops the driver.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from tablectl_base.cards import CardError, parse_card
from tablectl_drivers.base import Backoff, DriverSink, SleepFn
from tablectl_drivers.connect import connect as default_connect
from tablectl_drivers.link import Connector, LinkLostError, open_link

log = structlog.get_logger(__name__)

CARD_EVENTS = ("shoe.card", "shoe.burn")
_POS = re.compile(r"[0-9]{1,9}")
_SHOE = re.compile(r"[A-Za-z0-9]{1,8}")
PLAIN_EVENTS = ("shoe.new",)
MAX_LINE = 512  # a longer run without a line ending is noise, not a message
STATUS_INTERVAL = 1.0  # seconds between status reports caused only by unmatched lines


@dataclass(frozen=True)
class LineMessage:
    """One configured message: a pattern and the event a matching line becomes."""

    pattern: re.Pattern[str]
    event: str

    def event_for(self, line: str) -> dict[str, Any] | None:
        """The event for `line`, or None if the pattern does not match it; CardError if the
        pattern matched but the groups do not make a card (or a position, or a shoe id)."""
        m = self.pattern.search(line)
        if m is None:
            return None
        groups = m.groupdict()
        event: dict[str, Any] = {"type": self.event}
        if self.event not in PLAIN_EVENTS:
            text = groups.get("card") or f"{groups.get('rank') or ''}{groups.get('suit') or ''}"
            if text[:2] == "10":
                text = "T" + text[2:]
            event["card"] = str(parse_card(text))
        at: dict[str, Any] = {}
        if groups.get("shoe") is not None:
            if not _SHOE.fullmatch(groups["shoe"]):
                raise CardError("its shoe id is not 1-8 letters or digits")
            at["run"] = groups["shoe"]
        if groups.get("pos") is not None:
            if not _POS.fullmatch(groups["pos"]):
                raise CardError("its position is not 1-9 digits")
            at["pos"] = int(groups["pos"])
        elif self.event == "shoe.new" and at:
            at["pos"] = 0
        if "pos" in at:
            event["at"] = at
        return event


@dataclass(frozen=True)
class LineOptions:
    """The `options` table of a line device."""

    messages: tuple[LineMessage, ...]
    line_ending: bytes = b"\r\n"
    encoding: str = "ascii"
    backoff_initial: float = 0.2
    backoff_max: float = 5.0

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> LineOptions:
        """Validate the config's options; ValueError names every problem."""
        known = {"messages", "line_ending", "encoding", "backoff_initial", "backoff_max"}
        problems = [f"unknown option {k!r}" for k in sorted(set(options) - known)]
        messages: list[LineMessage] = []
        raw = options.get("messages")
        if not isinstance(raw, list) or not raw:
            problems.append("option 'messages' must list at least one {pattern, event}")
            raw = []
        for i, m in enumerate(raw):
            where = f"messages[{i}]"
            if not isinstance(m, Mapping) or set(m) != {"pattern", "event"}:
                problems.append(f"{where} must have exactly 'pattern' and 'event'")
                continue
            if m["event"] not in CARD_EVENTS + PLAIN_EVENTS:
                problems.append(
                    f"{where}.event {m['event']!r} must be one of "
                    + ", ".join(CARD_EVENTS + PLAIN_EVENTS)
                )
                continue
            try:
                pattern = re.compile(str(m["pattern"]))
            except re.error as exc:
                problems.append(f"{where}.pattern is not a regular expression: {exc}")
                continue
            names = set(pattern.groupindex)
            if m["event"] in CARD_EVENTS and not ({"rank", "suit"} <= names or "card" in names):
                problems.append(f"{where}.pattern needs named groups rank and suit, or card")
                continue

            messages.append(LineMessage(pattern, str(m["event"])))
        ending = options.get("line_ending", "\r\n")
        encoding = options.get("encoding", "ascii")
        if not isinstance(ending, str) or not ending:
            problems.append("option 'line_ending' must be a non-empty string")
            ending = "\r\n"
        try:
            "".encode(str(encoding))
        except LookupError:
            problems.append(f"option 'encoding' {encoding!r} is not a known encoding")
            encoding = "ascii"
        backoff = {}
        for key in ("backoff_initial", "backoff_max"):
            if key in options:
                v = options[key]
                if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
                    problems.append(f"option {key!r} must be a positive number of seconds")
                else:
                    backoff[key] = float(v)
        if problems:
            raise ValueError("; ".join(problems))
        return cls(tuple(messages), ending.encode(str(encoding)), str(encoding), **backoff)


class LineDriver:
    """Reads a configured ASCII line device; cards and new shoes as events, health as status."""

    def __init__(
        self,
        name: str,
        port: str,
        baud: int,
        options: Mapping[str, Any],
        *,
        connect: Connector = default_connect,
        sleep: SleepFn | None = None,
    ) -> None:
        self.name, self.port, self.baud = name, port, baud
        self.options = LineOptions.parse(options)
        self._connect = connect
        self._sleep = sleep
        self._log = log.bind(device=name, port=port)
        self.stats = {"lines": 0, "unmatched": 0, "bad_cards": 0, "reconnects": 0, "gaps": 0}
        self._run: str | None = None
        self._pos: int | None = None  # the last position passed on (None: no position yet)
        self._last_bad: str | None = None
        self._reported: tuple[bool, str | None] | None = None
        self._reported_unmatched = 0
        self._reported_at = -1e9
        self._line_at: float | None = None  # loop time of the last non-empty line (`frame_age`)

    async def run(self, sink: DriverSink) -> None:
        """Read lines until cancelled; report loss and reconnect with capped backoff."""
        o = self.options
        backoff = Backoff(o.backoff_initial, o.backoff_max, sleep=self._sleep)
        opened = 0
        while True:
            try:
                link = await open_link(self.port, self.baud, self._connect)
            except OSError as exc:
                await self._status(sink, False, f"cannot open {self.port}: {exc}")
                await backoff.wait()
                continue
            opened += 1
            self.stats["reconnects"] = opened - 1
            self._resume_count(sink)
            await self._status(sink, True, None)
            buf = b""
            try:
                while True:
                    try:
                        # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a
                        # cancellation that arrives with a line (gh-86296); the driver ran on
                        async with asyncio.timeout(self._report_due()):
                            chunk = await link.read()
                    except TimeoutError:
                        chunk = b""
                    buf = await self._lines(buf + chunk, sink)
                    if chunk:
                        backoff.reset()
                    if self._report_due() == 0:
                        await self._status(sink, True, None, force=True)
            except LinkLostError as exc:
                await self._status(sink, False, f"lost {self.port}: {exc}")
            finally:
                await link.aclose()
            await backoff.wait()

    def frame_age(self) -> float | None:
        """Seconds since the device's last non-empty line, matched or not (it spoke), None
        before the first (`FrameClock`, for `tablectl status`)."""
        if self._line_at is None:
            return None
        return max(0.0, asyncio.get_running_loop().time() - self._line_at)

    def _report_due(self) -> float | None:
        """Seconds until unmatched lines not yet on the status are due to be reported."""
        if self.stats["unmatched"] <= self._reported_unmatched:
            return None
        now = asyncio.get_running_loop().time()
        return max(0.0, self._reported_at + STATUS_INTERVAL - now)

    async def _lines(self, buf: bytes, sink: DriverSink) -> bytes:
        """Act on every complete line in `buf`; return what is left."""
        ending = self.options.line_ending
        *lines, rest = buf.split(ending)
        if len(rest) > MAX_LINE:
            self._unmatched(rest, "no line ending")
            rest = b""
        for raw in lines:
            if not raw.strip():
                continue
            self.stats["lines"] += 1
            self._line_at = asyncio.get_running_loop().time()
            await self._line(raw, sink)
        return rest

    async def _line(self, raw: bytes, sink: DriverSink) -> None:
        text = raw.decode(self.options.encoding, "replace").strip()
        for message in self.options.messages:
            try:
                event = message.event_for(text)
            except CardError as exc:
                self.stats["bad_cards"] += 1
                self._unmatched(raw, "matches a card message but is not a card", str(exc))
                return
            if event is not None:
                await self._count(event, sink)
                await sink.event(event)
                return
        self._unmatched(raw, "matches no configured message")

    def _resume_count(self, sink: DriverSink) -> None:
        """Where the journal says the count stands: what the device says next is judged
        against it (cards it reported while nobody listened are gone: it keeps no history)."""
        cursor_of = getattr(sink, "cursor", None)
        cursor = cursor_of() if callable(cursor_of) else None
        if isinstance(cursor, Mapping) and isinstance(cursor.get("pos"), int):
            self._run, self._pos = cursor.get("run"), cursor["pos"]

    async def _count(self, event: dict[str, Any], sink: DriverSink) -> None:
        """A skipped position cannot be asked for again: report it at once as a gap (R39)."""
        at = event.get("at")
        if at is None:
            return
        if event["type"] == "shoe.new":
            self._run, self._pos = at.get("run"), 0
            return
        run = at.get("run", self._run)
        if run is not None and "run" not in at:
            at["run"] = run
        pos = at["pos"]
        if self._pos is not None and run == self._run and pos > self._pos + 1:
            self.stats["gaps"] += 1
            missing = list(range(self._pos + 1, pos))
            self._log.warning("line.gap", run=run, after=self._pos, missing=missing)
            gap: dict[str, Any] = {
                "type": "device.gap",
                "device": self.name,
                "after": self._pos,
                "missing": missing[:1000],
                "reason": "the device keeps no history to resend them from",
            }
            if run is not None:
                gap["run"] = run
            await sink.event(gap)
        if self._pos is None or run != self._run or pos > self._pos:
            self._run, self._pos = run, pos

    def _unmatched(self, raw: bytes, reason: str, error: str | None = None) -> None:
        """Count a bad line; the debug log gets its bytes, the published status only `reason`
        and the length (contract 3: a bad line may still hold a hole card)."""
        self.stats["unmatched"] += 1
        self._last_bad = f"{reason} ({len(raw)} bytes)"
        if error is None:
            self._log.debug("line.unmatched", reason=reason, raw=raw)
        else:
            self._log.debug("line.unmatched", reason=reason, raw=raw, error=error)

    async def _status(
        self, sink: DriverSink, available: bool, error: str | None, *, force: bool = False
    ) -> None:
        """Report availability when it (or the error) changes, or new unmatched lines (`force`)."""
        if not force and self._reported == (available, error):
            return
        if not available:
            self._log.warning("line.unavailable", error=error)
        self._reported = (available, error)
        self._reported_unmatched = self.stats["unmatched"]
        self._reported_at = asyncio.get_running_loop().time()
        detail: dict[str, Any] = {"port": self.port, **self.stats}
        if error:
            detail["error"] = error
        if self._last_bad:
            detail["last_bad"] = self._last_bad
        await sink.status(available, None if available else "DISCONNECTED", detail)


if TYPE_CHECKING:
    from tablectl_drivers.base import Driver, FrameClock

    _conforms: type[Driver] = LineDriver
    _clocked: type[FrameClock] = LineDriver
