"""The floor at scale: N tables against Mosquitto, each pit's broker bridged to a
central one, and the drills a floor goes through.

A few tables are real daemons (`tablectl demo`: the simulated shoe, the real driver, journal and
relay). The rest replay a capture of what a real daemon published, at speed, each as its own MQTT
client that behaves as the daemon's relay does: every message once and in `seq` order at QoS 1,
taken off its outbox only when the broker acknowledged it, and a capped exponential backoff with
jitter (tablectl_base/backoff.py) between reconnects. A floor subscriber on the central broker
takes every table's messages, as a floor system would.

Topology (docs/operations.md, "Many tables: a broker per pit"): tables connect to their pit's
broker (`--pits P`, table i to pit i mod P); each pit bridges `tablectl/#` out to the central
broker through a TCP relay this script can cut. `--pits 0` connects every table to the central
broker directly, where a central restart is a reconnect storm of every table.

Drills, each after `--warmup` seconds of play:
- `central-restart`: the central broker is stopped for `--down` seconds and started again
  without persistence (a crash or an upgrade);
- `pit-down`: pit 0's bridge is cut for `--pit-down` seconds (a switch, a cable);
- `ledger-down` (with `--ledger`): the books' ledger stopped for `--ledger-down` seconds while
  play goes on, then its catch-up timed (hil/fleet_ledger.py).
After each drill the script waits until every message published so far has reached the floor
subscriber and reports the time that took (`drain_s`).

Prints one JSON line: tables, pits, daemons, messages delivered, the publish rate, delivery
latency p50/p99 in ms (replayed tables: publish to receipt at the central subscriber), each
broker's CPU seconds and peak RSS, each drill's drain time, and the seq gaps and duplicates per
table at the end (gaps must be 0; a duplicate is a QoS 1 resend after a lost acknowledgement).

`FLEET_KEEP=1` keeps the scratch folder (each broker's verbose log, the daemons' journals) and
names it on stderr.

usage: python hil/fleet.py [--tables 500] [--pits 5] [--daemons 2] [--round-s 5] [--play-s 60]
    [--drills central-restart,pit-down] [--down 10] [--pit-down 120] [--ledger --ledger-down 600]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.die_with_parent import die_with_parent
from hil.ports import free_port, wait_port
from hil.runner import find_mosquitto
from tablectl_base.backoff import Backoff

REPO = Path(__file__).resolve().parents[1]
SITE = "fleet"
CAPTURE_ROUNDS = 3  # rounds of a real daemon captured for the replayed tables


# ---------------------------------------------------------------------------- brokers


class Broker:
    """A Mosquitto process on a loopback port; `stop` and `start` again keep the port (no
    persistence: a restart forgets every session and retained message)."""

    def __init__(self, folder: Path, name: str, extra: str = "") -> None:
        self.port = free_port()
        self.name = name
        self.conf = folder / f"{name}.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n"
            f"max_inflight_messages 100\n{extra}",
            encoding="utf-8",
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.cpu_s = 0.0  # CPU time of the processes stopped so far
        self.peak_rss_mb = 0.0

    def start(self) -> None:
        keep = bool(os.environ.get("FLEET_KEEP"))  # keep each broker's log beside its config
        with open(self.conf.with_suffix(".log") if keep else os.devnull, "ab") as log_to:
            self.proc = subprocess.Popen(
                die_with_parent(
                    [find_mosquitto(), "-c", str(self.conf), *(["-v"] if keep else [])]
                ),
                stdout=log_to,
                stderr=log_to,
            )
        wait_port(self.port)

    def sample(self) -> float:
        """The CPU seconds of the running process; updates the peak RSS."""
        if self.proc is None:
            return 0.0
        try:
            stat = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return 0.0
        hwm = next((ln for ln in status.splitlines() if ln.startswith("VmHWM:")), "VmHWM: 0 kB")
        self.peak_rss_mb = max(self.peak_rss_mb, int(hwm.split()[1]) / 1024)
        return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.proc is None:
            return
        self.cpu_s += self.sample()
        self.proc.terminate()
        self.proc.wait(10)
        self.proc = None

    def cpu_total(self) -> float:
        return self.cpu_s + self.sample()


class Cut:
    """A TCP relay between a pit's bridge and the central broker that a drill can cut: while
    cut it drops every connection and refuses new ones."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.cut = False
        self._links: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut:
            writer.close()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self._links |= {writer, up_w}
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await asyncio.gather(_pipe(reader, up_w), _pipe(up_r, writer))
        finally:
            self._links -= {writer, up_w}
            self._tasks.discard(task)

    def set_cut(self, cut: bool) -> None:
        self.cut = cut
        if cut:
            for w in list(self._links):
                w.close()

    async def close(self) -> None:
        """Cut every link and wait for its copying to end."""
        self.set_cut(True)
        if self._server is not None:
            self._server.close()
        if self._tasks:  # (closing both ends ends each copy; a cancel would upset asyncio's
            await asyncio.wait(list(self._tasks), timeout=5)  # stream callback in 3.11)


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    """Copy bytes until either side closes."""
    with contextlib.suppress(OSError, asyncio.IncompleteReadError):
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    dst.close()


def _bridge(name: str, port: int) -> str:
    """A pit's bridge: `tablectl/#` out to the central broker at QoS 1, its queue kept while
    the link is down (cleansession false), retried every second or two."""
    return (
        f"connection {name}\naddress 127.0.0.1:{port}\ntopic tablectl/# out 1\n"
        f"cleansession false\nclientid {name}\nrestart_timeout 1 2\n"
        "bridge_attempt_unsubscribe false\nnotifications false\n"
    )


def log(text: str) -> None:
    """Progress on stderr (the figures go to stdout)."""
    print(f"fleet: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- tables


@dataclass
class Sent:
    """What the floor must receive from one table: its seqs, and when each was published."""

    published: dict[int, float] = field(default_factory=dict)
    published_wall: dict[int, float] = field(default_factory=dict)  # the same, time.time()
    received: dict[int, int] = field(default_factory=dict)  # seq -> times received
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (published, took)


def capture(folder: Path, rounds: int = CAPTURE_ROUNDS) -> list[tuple[str, bytes, bool]]:
    """What a real daemon publishes in `rounds` rounds of the demo table, as (topic below the
    table's base, payload, retained), in order."""
    broker = Broker(folder, "capture")
    broker.start()
    got: list[tuple[str, bytes, bool]] = []
    base = "tablectl/demo/cap-1/"

    async def listen(done: asyncio.Event) -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port) as c:
            await c.subscribe(base + "#", qos=1)
            done.set()
            async for m in c.messages:
                got.append((str(m.topic).removeprefix(base), bytes(m.payload), m.retain))

    async def run() -> None:
        ready = asyncio.Event()
        task = asyncio.create_task(listen(ready))
        await ready.wait()
        proc = await asyncio.create_subprocess_exec(
            *_demo_argv(folder / "cap", "cap-1", broker.port, rounds, 0.0),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        await proc.wait()
        await asyncio.sleep(0.5)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(run())
    finally:
        broker.stop()
    rows = [(t, p, r) for t, p, r in got if _numbered(p)]  # (from memory: no seq, no replay)
    if not any(t == "round/result" for t, _, _ in rows):
        raise RuntimeError("the capture holds no round: the demo daemon published nothing")
    return rows


def _numbered(payload: bytes) -> bool:
    """Whether a payload is one of the table's numbered messages (it carries `seq`)."""
    try:
        body = json.loads(payload)
    except ValueError:
        return False  # the bare availability word
    return isinstance(body, dict) and "seq" in body


def _demo_argv(folder: Path, table: str, port: int, rounds: int, delay: float) -> list[str]:
    return [
        str(Path(sys.executable).with_name("tablectl")),  # the venv's console script
        "demo",
        "--dir",
        str(folder),
        "--table",
        table,
        "--mqtt-port",
        str(port),
        "--rounds",
        str(rounds),
        "--delay",
        str(delay),
    ]


class ReplayedTable:
    """One table replaying the capture, round after round, as the relay publishes: an outbox
    of messages in seq order, each removed once acknowledged, reconnecting with backoff."""

    def __init__(self, table: str, capture: list[tuple[str, bytes, bool]], sent: Sent) -> None:
        self.table = table
        self.base = f"tablectl/{SITE}/{table}/"
        self.capture = capture
        self.sent = sent
        self.outbox: list[tuple[int, str, bytes, bool]] = []
        self.seq = 0
        self.more = asyncio.Event()
        self.connected = False
        self.backoff = Backoff(0.5, 30.0)

    def play_round(self, rounds_played: int) -> None:
        """Put the capture's next round (from one round/result to the next) in the outbox."""
        for topic, payload, retain in _round_of(self.capture, rounds_played):
            self.seq += 1
            body = {**json.loads(payload), "table": self.table, "seq": self.seq}
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
            self.outbox.append((self.seq, topic, data, retain))
        self.more.set()

    async def run(self, port: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with aiomqtt.Client(
                    "127.0.0.1", port, identifier=f"fleet-{self.table}", keepalive=10
                ) as c:
                    self.connected = True
                    self.backoff.reset()
                    while not stop.is_set():
                        if not self.outbox:
                            self.more.clear()
                            await _wait_either(self.more, stop)
                            continue
                        seq, topic, data, retain = self.outbox[0]
                        self.sent.published.setdefault(seq, time.monotonic())
                        self.sent.published_wall.setdefault(seq, time.time())
                        await c.publish(self.base + topic, data, qos=1, retain=retain)
                        self.outbox.pop(0)
            except aiomqtt.MqttError:
                pass
            self.connected = False
            if not stop.is_set():
                await _sleep_or(self.backoff.next_delay(), stop)


def _round_of(capture: list[tuple[str, bytes, bool]], n: int) -> Iterator[tuple[str, bytes, bool]]:
    """The messages of the capture's round `n` (cycling): everything after the previous
    round/result up to and including this one's."""
    ends = [i for i, (t, _, _) in enumerate(capture) if t == "round/result"]
    k = n % len(ends)
    start = ends[k - 1] + 1 if k else 0
    return iter(capture[start : ends[k] + 1])


async def _wait_either(ev: asyncio.Event, stop: asyncio.Event) -> None:
    waits = [asyncio.create_task(ev.wait()), asyncio.create_task(stop.wait())]
    _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for p in pending:
        p.cancel()


async def _sleep_or(seconds: float, stop: asyncio.Event) -> None:
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


# ---------------------------------------------------------------------------- the floor


class FloorSubscriber:
    """The floor system on the central broker: every table's messages, by table and seq. It
    reconnects at once (a floor system's subscription must be back before the tables are)."""

    def __init__(self, port: int, tables: dict[str, Sent]) -> None:
        self.port = port
        self.tables = tables
        self.subscribed = asyncio.Event()
        self.messages = 0

    async def run(self, stop: asyncio.Event) -> None:
        floor = self

        class Taken(asyncio.Queue[aiomqtt.Message]):
            """Each message taken as it arrives (as the relay does with commands): aiomqtt's
            iterator drops what its queue holds at a disconnect."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                floor._take(str(item.topic), bytes(item.payload))

        while not stop.is_set():
            try:
                async with aiomqtt.Client(
                    "127.0.0.1",
                    self.port,
                    identifier="fleet-floor",
                    clean_session=False,
                    queue_type=Taken,
                ) as c:
                    await c.subscribe("tablectl/#", qos=1)
                    self.subscribed.set()
                    async for _ in c.messages:  # (none: each was taken) until the link drops
                        pass
            except aiomqtt.MqttError:
                self.subscribed.clear()
                await _sleep_or(0.05, stop)

    def _take(self, topic: str, payload: bytes) -> None:
        now = time.monotonic()
        try:
            body = json.loads(payload)
        except ValueError:
            return
        if not isinstance(body, dict) or "seq" not in body or "table" not in body:
            return  # status and messages from memory carry no seq
        sent = self.tables.get(body["table"])
        if sent is None:
            return
        seq = body["seq"]
        self.messages += 1
        sent.received[seq] = sent.received.get(seq, 0) + 1
        t0 = sent.published.get(seq)
        if t0 is not None and sent.received[seq] == 1:
            sent.latencies.append((t0, now - t0))


def gaps_and_duplicates(sent: Sent, daemon: bool) -> tuple[int, int]:
    """Seqs missing at the floor (replayed: of those published; a daemon: between 1 and the
    highest received) and seqs received more than once."""
    want = set(sent.published) if not daemon else set(range(1, max(sent.received, default=0) + 1))
    missing = len(want - set(sent.received))
    return missing, sum(1 for n in sent.received.values() if n > 1)


def drained(tables: dict[str, Sent], replayed: list[ReplayedTable]) -> bool:
    """Every replayed table's outbox empty and every message it published received."""
    return all(not t.outbox for t in replayed) and all(
        set(s.published) <= set(s.received) for s in tables.values() if s.published
    )


# ---------------------------------------------------------------------------- the run


DRILLS = ("central-restart", "pit-down", "ledger-down")
"""What `--drills` may name; ledger-down plays only with --ledger."""


@dataclass
class Options:
    tables: int = 500
    pits: int = 5
    daemons: int = 2
    round_s: float = 5.0
    play_s: float = 60.0
    warmup_s: float = 10.0
    drills: tuple[str, ...] = ("central-restart", "pit-down")
    down_s: float = 10.0
    pit_down_s: float = 120.0
    drain_timeout_s: float = 300.0
    ledger: bool = False  # the books attached (hil/fleet_ledger.py)
    ledger_down_s: float = 600.0  # the `ledger-down` drill: the ledger stopped this long


def run(opts: Options) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="tablectl-fleet-"))
    try:
        cap = capture(folder)
        return asyncio.run(_run(opts, folder, cap))
    finally:
        if os.environ.get("FLEET_KEEP"):
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


async def _run(opts: Options, folder: Path, cap: list[tuple[str, bytes, bool]]) -> dict[str, Any]:
    # The central broker keeps its sessions across a restart (persistence, saved on a clean
    # stop): the floor system's subscription outlives it, so what the tables publish before the
    # floor is back waits in its session (docs/operations.md, "Many tables").
    # (Run as root, Mosquitto drops to its own user: the folder must let it write its database.)
    store = folder / "central-db"
    store.mkdir()
    folder.chmod(0o755)
    store.chmod(0o777)
    central = Broker(
        folder,
        "central",
        f"persistence true\npersistence_location {store}/\nautosave_interval 1\n",
    )
    central.start()
    cuts = [Cut(central.port) for _ in range(opts.pits)]
    for c in cuts:
        await c.start()
    pits = [Broker(folder, f"pit{i}", _bridge(f"pit{i}", c.port)) for i, c in enumerate(cuts)]
    for p in pits:
        p.start()
    entry = [p.port for p in pits] or [central.port]  # where table i connects: entry[i % len]

    names = [f"t{i:04d}" for i in range(opts.tables)]
    sent = {n: Sent() for n in names}
    stop = asyncio.Event()
    floor = FloorSubscriber(central.port, sent)
    floor_task = asyncio.create_task(floor.run(stop))
    await asyncio.wait_for(floor.subscribed.wait(), 10)

    books = None
    if opts.ledger:
        from hil.fleet_ledger import FleetLedger

        books = FleetLedger(folder, central.port, [SITE, "demo"])
        books.start()
        end = time.monotonic() + 30
        while not books.log.read_text(errors="replace").count('"subscribed"'):
            if time.monotonic() > end:
                raise RuntimeError("the ledger did not subscribe: " + str(books.log))
            await asyncio.sleep(0.1)

    daemon_names = names[: opts.daemons]
    daemons = [
        subprocess.Popen(
            die_with_parent(_demo_argv(folder / n, n, entry[i % len(entry)], 0, 0.02)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, n in enumerate(daemon_names)
    ]
    # the daemons' demo site is "demo": the floor reads them by their table id all the same
    replayed = [ReplayedTable(n, cap, sent[n]) for n in names[opts.daemons :]]
    tasks = [
        asyncio.create_task(t.run(entry[(opts.daemons + i) % len(entry)], stop))
        for i, t in enumerate(replayed)
    ]
    rounds_played = 0
    playing = asyncio.Event()
    playing.set()

    async def deal() -> None:
        nonlocal rounds_played
        # each table starts its rounds at its own moment within the round time
        spread = opts.round_s / max(1, len(replayed))
        while not stop.is_set() and replayed:
            for t in replayed:
                if not playing.is_set():
                    break
                t.play_round(rounds_played)
                await asyncio.sleep(spread)
            rounds_played += 1
            if not playing.is_set():
                await _wait_either(playing, stop)

    dealer = asyncio.create_task(deal())
    log(f"{opts.tables} tables playing ({opts.daemons} daemons), {opts.pits} pits")
    started = time.monotonic()
    cpu0 = {b.name: b.cpu_total() for b in (central, *pits)}
    drills: list[dict[str, Any]] = []
    windows: list[tuple[float, float]] = []  # from each drill's start to its drain's end
    ledger_windows: list[tuple[float, float]] = []  # wall time: the ledger away and catching up
    await asyncio.sleep(opts.warmup_s)
    for drill in opts.drills:
        began = time.monotonic()
        if drill == "central-restart":
            central.stop()
            await asyncio.sleep(opts.down_s)
            central.start()
            down = opts.down_s
        elif drill == "ledger-down":
            if books is None:
                continue
            books.stop()
            await asyncio.sleep(opts.ledger_down_s)
            wall_back = time.time()
            books.start()
            down = opts.ledger_down_s
            caught_up = await books.wait_caught_up(
                _published(sent, daemon_names), opts.drain_timeout_s
            )
            ledger_windows.append((wall_back - down, time.time()))
            drills.append(
                {
                    "drill": drill,
                    "at_s": round(began - started, 2),
                    "down_s": down,
                    "catch_up_s": round(time.time() - wall_back, 1),
                    "caught_up": caught_up,
                }
            )
            await asyncio.sleep(opts.warmup_s)
            continue
        elif drill == "pit-down":
            if not cuts:
                continue
            cuts[0].set_cut(True)
            await asyncio.sleep(opts.pit_down_s)
            cuts[0].set_cut(False)
            down = opts.pit_down_s
        else:
            raise ValueError(f"unknown drill {drill!r}: one of {', '.join(DRILLS)}")
        log(f"{drill}: back after {down} s, draining")
        back = time.monotonic()
        playing.clear()  # hold new rounds so the drain is measured against a fixed backlog
        deadline = back + opts.drain_timeout_s
        while not drained(sent, replayed) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        windows.append((began, time.monotonic()))
        drills.append(
            {
                "drill": drill,
                "at_s": round(began - started, 2),
                "down_s": down,
                "drain_s": round(time.monotonic() - back, 2),
                "drained": drained(sent, replayed),
            }
        )
        playing.set()
        await asyncio.sleep(opts.warmup_s)
    left = opts.play_s - (time.monotonic() - started)
    if left > 0:
        await asyncio.sleep(left)
    playing.clear()
    log("play over, draining")
    deadline = time.monotonic() + opts.drain_timeout_s
    while not drained(sent, replayed) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # the daemons' last messages
    elapsed = time.monotonic() - started
    ledger_figures = None
    if books is not None:
        caught_up = await books.wait_caught_up(_published(sent, daemon_names), opts.drain_timeout_s)
        wall = {(n, q): t for n, s in sent.items() for q, t in s.published_wall.items()}
        ledger_figures = await asyncio.to_thread(books.figures, wall, ledger_windows)
        ledger_figures["caught_up"] = caught_up
        books.close()
    cpu = {b.name: round(b.cpu_total() - cpu0[b.name], 2) for b in (central, *pits)}
    peak = {b.name: round(b.peak_rss_mb, 1) for b in (central, *pits)}

    stop.set()
    dealer.cancel()
    for d in daemons:
        d.send_signal(signal.SIGINT)
    for d in daemons:
        try:
            d.wait(10)
        except subprocess.TimeoutExpired:
            d.kill()
    floor_task.cancel()  # (it listens until cancelled)
    _, late = await asyncio.wait([*tasks, floor_task], timeout=5)
    for t in late:
        t.cancel()
    await asyncio.gather(*tasks, floor_task, return_exceptions=True)
    for c in cuts:
        await c.close()
    for b in (*pits, central):
        b.stop()

    steady = sorted(
        took
        for s in sent.values()
        for t0, took in s.latencies
        if not any(a <= t0 <= b for a, b in windows)
    )
    every = sorted(took for s in sent.values() for _, took in s.latencies)
    gaps = dup = 0
    per_table_gaps: dict[str, int] = {}
    for n, s in sent.items():
        g, twice = gaps_and_duplicates(s, n in daemon_names)
        gaps, dup = gaps + g, dup + twice
        if g:
            per_table_gaps[n] = g
            want = set(s.published) or set(range(1, max(s.received, default=0) + 1))
            missing = sorted(want - set(s.received))
            when = [round(s.published[m] - started, 2) for m in missing[:3] if m in s.published]
            log(f"{n}: {g} missing, first {missing[:5]} published at {when} s")

    published = sum(len(s.published) for s in sent.values())
    return {
        "tables": opts.tables,
        "pits": opts.pits,
        "daemons": opts.daemons,
        "seconds": round(elapsed, 1),
        "published": published,
        "delivered": floor.messages,
        "publish_rate_per_s": round(published / elapsed, 1),
        "daemon_messages": sum(len(sent[n].received) for n in daemon_names),
        "delivery_ms": _ms(steady),  # published outside the drills and their drains
        "delivery_ms_with_drills": _ms(every),
        "broker_cpu_s": cpu,
        "broker_peak_rss_mb": peak,
        "drills": drills,
        "gaps": gaps,
        "gap_tables": per_table_gaps,
        "duplicates": dup,
        **({"ledger": ledger_figures} if ledger_figures is not None else {}),
    }


def _published(sent: dict[str, Sent], daemons: list[str]) -> dict[str, int]:
    """Each replayed table's highest number published so far (the daemons' own are not known
    to the script)."""
    return {n: max(s.published, default=0) for n, s in sent.items() if n not in daemons}


def _ms(values: list[float]) -> dict[str, float]:
    """p50 and p99 in milliseconds."""
    return {"p50": round(_pct(values, 50) * 1000, 1), "p99": round(_pct(values, 99) * 1000, 1)}


def _pct(values: list[float], p: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--pits", type=int, default=5, help="pit brokers (0: all on the central)")
    ap.add_argument("--daemons", type=int, default=2, help="tables that are real daemons")
    ap.add_argument("--round-s", type=float, default=5.0, help="seconds a replayed round takes")
    ap.add_argument("--play-s", type=float, default=60.0, help="seconds of play in all")
    ap.add_argument("--warmup-s", type=float, default=10.0, help="play before and after drills")
    ap.add_argument("--drills", default="central-restart,pit-down")
    ap.add_argument("--down", type=float, default=10.0, help="central broker down, seconds")
    ap.add_argument("--pit-down", type=float, default=120.0, help="pit 0 cut off, seconds")
    ap.add_argument("--drain-timeout", type=float, default=300.0, help="give up draining, s")
    ap.add_argument("--ledger", action="store_true", help="attach the books (PostgreSQL)")
    ap.add_argument("--ledger-down", type=float, default=600.0, help="ledger stopped, seconds")
    a = ap.parse_args(argv)
    opts = Options(
        tables=a.tables,
        pits=a.pits,
        daemons=a.daemons,
        round_s=a.round_s,
        play_s=a.play_s,
        warmup_s=a.warmup_s,
        drills=tuple(d for d in a.drills.split(",") if d),
        down_s=a.down,
        pit_down_s=a.pit_down,
        drain_timeout_s=a.drain_timeout,
        ledger=a.ledger,
        ledger_down_s=a.ledger_down,
    )
    unknown = [d for d in opts.drills if d not in DRILLS]
    if unknown:  # refused before anything starts
        ap.error(f"--drills: unknown {', '.join(map(repr, unknown))}: one of {', '.join(DRILLS)}")
    if a.ledger and "ledger-down" not in opts.drills:
        opts.drills = (*opts.drills, "ledger-down")
    print(json.dumps(run(opts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
