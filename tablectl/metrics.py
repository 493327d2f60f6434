"""The table's Prometheus metrics: what an operations team scrapes, served on
`[metrics] listen` (off unless the config names an address; docs/operations.md "Metrics").

Every metric lives in the daemon's own `CollectorRegistry`, never in prometheus_client's global
one, so that any number of daemons can run in one process (the tests do).

What the counters count: what this process did since it started (a counter starts at 0 at every
start, as Prometheus expects; `rate()` and `increase()` handle the reset). The replay at start
journals nothing and is not counted: the rounds a replay goes through were counted by the
process that played them. The one exception is a record a crash left without its messages: its
messages are made at the next start, and their rounds and alerts are counted there, once.

No label ever carries a card or a player: the labels are the game's id, a device's name from
the config, an input's type from a fixed list, an alert's kind and a hold's kind.

Cost: the ingest path gets two counter increments and one histogram observation a device input
(prometheus_client's own, a lock and an add each), and a look at each record's messages' topics
for `round/result` and `alert` (only those two are decoded). What is read from the journal (the
unsent backlog, the file sizes) is read when Prometheus scrapes, on the event loop, as
`tablectl status` reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import structlog
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.gc_collector import GCCollector
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from tablectl import __version__
from tablectl.outputs import OutboxRow
from tablectl.table import HAND_ENTERED_TYPES

log = structlog.get_logger("tablectl.metrics")

DEVICE_INPUT_TYPES = frozenset(
    {
        *HAND_ENTERED_TYPES,  # the cards, stacks and rolls a device reports (tablectl.table)
        "shoe.new",
        "device.gap",
        "input.invalid",  # what its driver handed over was not an input the table can read
    }
)
"""The input types a device driver hands the daemon (tablectl_base/events.py); any other type
(a vendor driver's own) is counted as `other`, so a driver cannot
make the metrics grow without bound."""

LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.002,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)
"""Seconds. A card is journaled in a few milliseconds (one SQLite commit with synchronous=FULL,
hil/bench_latency.py); the long buckets show the waits behind a journal that cannot be written
(tried again every 5 s) or a slow disk."""

HOLD_KINDS = ("round", "journal-fault", "journal-unwritable")
"""What can hold the table: the round (R39, R40: a gap, a device fault, an engine error, until
round.resume or round.void), the journal it cannot open or replay
(tablectl/daemon/journal_fault.py), the journal it cannot write (a full disk)."""

MAX_CONNECTIONS = 16
"""Scrapes answered at once; a connection beyond them is closed unanswered."""
REQUEST_SECONDS = 5.0
"""How long a client has to send its request line and headers."""
MAX_HEADERS = 100


@dataclass
class _Hold:
    since: float | None = None  # monotonic time the hold began (None: not held now)
    total: float = 0.0  # seconds of the holds that ended


class TableMetrics:
    """The metrics of one daemon, in their own registry. The daemon calls `device_input`,
    `outputs`, `alert` and `held` as things happen; `unsent` and `journal_bytes` are asked at
    every scrape."""

    def __init__(
        self,
        *,
        site: str,
        table: str,
        game: str,
        base_topic: str,
        unsent: Callable[[], int],
        journal_bytes: Callable[[], int],
        broker_connected: Callable[[], bool | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._clock = clock
        self._result_topic = f"{base_topic}/round/result"
        self._alert_topic = f"{base_topic}/alert"
        self._unsent = unsent
        self._journal_bytes = journal_bytes
        self._broker_connected = broker_connected
        self._holds = {kind: _Hold() for kind in HOLD_KINDS}
        r = self.registry
        info = Gauge(
            "tablectl_table_info",
            "The table this daemon runs: 1, its site, table, game and tablectl's version",
            ["site", "table", "game", "version"],
            registry=r,
        )
        info.labels(site=site, table=table, game=game, version=__version__).set(1)
        self.rounds = Counter(
            "tablectl_rounds",
            "Rounds (poker hands) finished by this process, by game (a hand at a table offering "
            "several games under the game chosen) and whether it was voided; the start's replay "
            "is not counted",
            ["game", "void"],
            registry=r,
        )
        self.device_inputs = Counter(
            "tablectl_device_inputs",
            "Inputs from a device's driver journaled by this process (cards, burns, new shoes, "
            "dice, gaps; not its status changes), by device and input type",
            ["device", "type"],
            registry=r,
        )
        self.alerts = Counter(
            "tablectl_alerts",
            "Alerts raised by this process, by kind (docs/mqtt.md `alert`): those journaled with "
            "their record, and those told from memory (journal-unwritable, publish-refused...) "
            "once each",
            ["kind"],
            registry=r,
        )
        self.latency = Histogram(
            "tablectl_device_input_journal_seconds",
            "Seconds from a device input (a card) reaching the daemon from its driver to its "
            "record committed in the journal",
            ["device"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        # Children by label values, looked up once: `labels()` on every card would cost more
        # than the increment itself.
        self._inputs: dict[tuple[str, str], tuple[Callable[[], None], Callable[[float], None]]] = {}
        self._rounds: dict[tuple[str, bool], Callable[[], None]] = {}
        self._alerts: dict[str, Callable[[], None]] = {}
        r.register(_Live(self))
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)

    # -- as things happen ------------------------------------------------------------------

    def device_input(self, source: str, kind: object, seconds: float) -> None:
        """An input from `source` (`device/<name>`) of type `kind` was journaled `seconds`
        after it reached the daemon."""
        key = (source, kind if isinstance(kind, str) and kind in DEVICE_INPUT_TYPES else "other")
        child = self._inputs.get(key)
        if child is None:
            device = source.removeprefix("device/")
            child = (
                self.device_inputs.labels(device=device, type=key[1]).inc,
                self.latency.labels(device=device).observe,
            )
            self._inputs[key] = child
        child[0]()
        child[1](seconds)

    def outputs(self, rows: Sequence[OutboxRow]) -> None:
        """A record's messages: each `round/result` is a round, each `alert` an alert."""
        for row in rows:
            if row.topic == self._result_topic:
                self._round(row.payload)
            elif row.topic == self._alert_topic:
                self._alert_row(row.payload)

    def alert(self, kind: str) -> None:
        """An alert told from memory (not journaled)."""
        inc = self._alerts.get(kind)
        if inc is None:
            inc = self._alerts[kind] = self.alerts.labels(kind=kind).inc
        inc()

    def held(self, kind: str, now_held: bool) -> None:
        """Whether the table is held for `kind` (HOLD_KINDS) now; cheap when it did not change."""
        hold = self._holds[kind]
        if now_held == (hold.since is not None):
            return
        now = self._clock()
        if now_held:
            hold.since = now
        else:
            assert hold.since is not None
            hold.total += now - hold.since
            hold.since = None

    def _round(self, payload: bytes) -> None:
        try:
            data = json.loads(payload)
            game, void = str(data["game"]), bool(data.get("void"))
        except (ValueError, TypeError, KeyError):  # every result names its game (its schema)
            game, void = "unknown", False
        inc = self._rounds.get((game, void))
        if inc is None:
            labels = self.rounds.labels(game=game, void="true" if void else "false")
            inc = self._rounds[(game, void)] = labels.inc
        inc()

    def _alert_row(self, payload: bytes) -> None:
        try:
            kind = json.loads(payload)["kind"]
        except (ValueError, TypeError, KeyError):
            kind = None
        self.alert(kind if isinstance(kind, str) else "unknown")

    # -- at a scrape -------------------------------------------------------------------------

    def hold_seconds(self) -> dict[str, tuple[bool, float]]:
        """Each hold kind: whether held now, and the seconds held while this process ran."""
        now = self._clock()
        return {
            kind: (h.since is not None, h.total + (now - h.since if h.since is not None else 0.0))
            for kind, h in self._holds.items()
        }

    def exposition(self, accept: str = "") -> tuple[bytes, str]:
        """The metrics in the format `accept` (an HTTP Accept header) asks for, and its type."""
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type


class _Live:
    """The metrics read at each scrape: holds, the unsent backlog, the journal's size."""

    def __init__(self, metrics: TableMetrics) -> None:
        self.m = metrics

    def describe(self) -> Iterable[Metric]:
        return self._families(0, 0, None, {k: (False, 0.0) for k in HOLD_KINDS})

    def collect(self) -> Iterable[Metric]:
        m = self.m
        try:
            unsent, size = m._unsent(), m._journal_bytes()
        except Exception as exc:  # a scrape never stops the table; the log says why
            log.warning("metrics.unreadable", error=repr(exc))
            unsent, size = -1, -1
        return self._families(unsent, size, m._broker_connected(), m.hold_seconds())

    @staticmethod
    def _families(
        unsent: int, size: int, broker: bool | None, holds: dict[str, tuple[bool, float]]
    ) -> list[Metric]:
        held = GaugeMetricFamily(
            "tablectl_held",
            "1 while the table is held: the round (a gap, a device fault, an engine error: "
            "until round.resume or round.void), on a journal it cannot open or replay "
            "(journal-fault), on a journal it cannot write (journal-unwritable)",
            labels=["kind"],
        )
        seconds = CounterMetricFamily(
            "tablectl_held_seconds",
            "Seconds the table was held while this process ran, by kind (as tablectl_held)",
            labels=["kind"],
        )
        for kind, (now_held, total) in holds.items():
            held.add_metric([kind], 1.0 if now_held else 0.0)
            seconds.add_metric([kind], total)
        out: list[Metric] = [
            held,
            seconds,
            GaugeMetricFamily(
                "tablectl_outbox_unsent",
                "Messages in the journal's outbox the broker has not acknowledged (-1: the "
                "journal could not be read for it)",
                value=unsent,
            ),
            GaugeMetricFamily(
                "tablectl_journal_bytes",
                "The live journal's size on disk: its file and its -wal, in bytes",
                value=size,
            ),
        ]
        if broker is not None:  # MQTT on
            out.append(
                GaugeMetricFamily(
                    "tablectl_broker_connected",
                    "1 while the relay is connected to the MQTT broker",
                    value=1.0 if broker else 0.0,
                )
            )
        return out


class MetricsServer:
    """The HTTP endpoint: `GET /metrics` (or `/`) answers the metrics, anything else 404 or 405.
    A few lines of asyncio on the daemon's own loop, so that collecting reads the journal from
    the thread that owns it (prometheus_client's own server runs in a thread of its own)."""

    def __init__(self, metrics: TableMetrics, host: str, port: int) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self._open = 0

    @property
    def bound(self) -> list[tuple[str, int]]:
        """The addresses it listens on (the port the system chose for port 0)."""
        if self._server is None:
            return []
        return [s.getsockname()[:2] for s in self._server.sockets]

    async def start(self) -> bool:
        """Listen; False (logged) when the address cannot be bound: the table runs without."""
        try:
            self._server = await asyncio.start_server(
                self._serve, self.host, self.port, reuse_address=True, limit=8192
            )
        except OSError as exc:
            log.error(
                "metrics.unavailable",
                listen=f"{self.host}:{self.port}",
                reason=str(exc),
                detail="the table runs; Prometheus cannot scrape it ([metrics] listen)",
            )
            return False
        log.info("metrics.listening", listen=[f"{h}:{p}" for h, p in self.bound])
        return True

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            # (Python 3.12 waits for open connections here too: a scrape ends within its
            # REQUEST_SECONDS; the stop waits a second for it at most.)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._open >= MAX_CONNECTIONS:
            writer.close()
            return
        self._open += 1
        try:
            async with asyncio.timeout(REQUEST_SECONDS):
                status, body, content_type, head = await self._answer(reader)
                writer.write(
                    f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("ascii")
                )
                if not head:
                    writer.write(body)
                await writer.drain()
        except (TimeoutError, ConnectionError, ValueError, asyncio.IncompleteReadError):
            pass  # a client that went away or never spoke: nothing to answer
        finally:
            self._open -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[str, bytes, str, bool]:
        """Read one request; (status line, body, content type, whether it was HEAD)."""
        line = (await reader.readline()).decode("latin-1").split()
        accept = ""
        for _ in range(MAX_HEADERS):
            header = await reader.readline()
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode("latin-1").partition(":")
            if name.strip().lower() == "accept":
                accept = value.strip()
        else:
            return "431 Request Header Fields Too Large", b"too many headers\n", _TEXT, False
        if len(line) != 3:
            return "400 Bad Request", b"not an HTTP request\n", _TEXT, False
        method, target, _ = line
        head = method == "HEAD"
        if method not in ("GET", "HEAD"):
            return "405 Method Not Allowed", b"GET /metrics\n", _TEXT, False
        if target.split("?", 1)[0] not in ("/metrics", "/"):
            return "404 Not Found", b"GET /metrics\n", _TEXT, head
        body, content_type = self.metrics.exposition(accept)
        return "200 OK", body, content_type, head


_TEXT = "text/plain; charset=utf-8"
