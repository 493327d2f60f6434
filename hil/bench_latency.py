"""Benchmark: a card's trip from the shoe's serial line to a floor subscriber, through tablectl.

A card frame is written into a real pseudo-terminal (the wire protocol of docs/protocols/shoe.md),
the daemon (`tablectl run`, a child process) reads it with the real driver, journals it (SQLite WAL,
synchronous=FULL), applies it, stores the outputs and publishes them with QoS 1 to a local
Mosquitto; a subscriber on the same broker timestamps the card's `event` message. The same run
also measures hil/bench_floor.py twice (the same trip with no daemon: the floor; and with one
SQLite FULL commit per card: the durable floor, the honest one for a controller that journals
before it publishes) and prints all three, the ratios, and the target: tablectl's median within
TARGET_MEDIAN_DURABLE_RATIO of the durable floor's in the same run, met or not. Figures are
medians and 99th percentiles in milliseconds.

The three take turns (--chunks, 5 by default): after each fifth of tablectl's cards, the daemon
waits while a fifth of each floor's lines are timed, so that all three meet the same machine. On
a machine others share, a disk or CPU that is busy for a minute would otherwise fall on one of
them only (a durable floor measured at 0.45 ms and at 4.4 ms minutes apart in one session).

With --metrics the daemon runs with its Prometheus endpoint on ([metrics], docs/operations.md
"Metrics"), to show what the metrics cost the trip; the result then adds the daemon's own view:
the inputs its latency histogram counted and their mean time from the driver to the journal.

usage: .venv/bin/python hil/bench_latency.py [--n 1000] [--gap-ms 5] [--chunks 5] [--metrics]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.bench_floor import samples, summary
from hil.ports import free_port, wait_port
from hil.runner import open_broker
from tablectl.rules.baccarat import next_to_draw
from tablectl_base.cards import DeckKind, deck_of, parse_card
from tablectl_drivers.shoe.frames import CardDrawn, NewShoe, encode
from tablectl_drivers.sim.history import nothing_to_resend, resend_requests

REPO = Path(__file__).resolve().parents[1]
BASE = "tablectl/bench/b1"
TARGET_MEDIAN_DURABLE_RATIO = 1.5
"""A card reaches the subscriber in at most this many times the durable floor's median (the same
trip with no daemon but one SQLite FULL commit per card), measured in the same run."""


def coups(rng: random.Random, n_cards: int) -> list[list[str]]:
    """Whole coups from shuffled 8-deck shoes, about `n_cards` cards; a new shoe marked by []."""
    out: list[list[str]] = [[]]
    total = 0
    while total < n_cards:
        shoe = [str(c) for c in deck_of(DeckKind.STANDARD_52)] * 8
        rng.shuffle(shoe)
        while len(shoe) > 12 and total < n_cards:
            player: list[Any] = []
            banker: list[Any] = []
            coup: list[str] = []
            while (side := next_to_draw(player, banker)) is not None:
                card = shoe.pop()
                (player if side == "player" else banker).append(parse_card(card))
                coup.append(card)
            out.append(coup)
            total += len(coup)
        out.append([])
    return out[:-1]


class BenchShoe:
    """The shoe's side of the wire as bare frame writes (no simulator threads in the timed
    path), with the shoe's answer to the driver's resend request (docs/protocols/envelope.md):
    the bench never loses a frame, so the answer is only ever "nothing to resend"."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.seq = 0
        self.shoe = 0
        self.pos = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._answer, name="bench-shoe-rx", daemon=True).start()

    def _send(self, make: Any) -> None:
        with self.lock:
            os.write(self.master, encode(make(self.seq % 10000)))
            self.seq += 1

    def _answer(self) -> None:
        for _ in resend_requests(self.master):
            with self.lock:
                run = str(self.shoe) if self.shoe else None
                os.write(self.master, nothing_to_resend(self.seq, run, self.pos))
                self.seq += 3

    def new_shoe(self) -> None:
        with self.lock:
            self.shoe, self.pos = self.shoe + 1, 0
        self._send(lambda seq: NewShoe(seq, str(self.shoe)))

    def draw(self, card: str) -> None:
        with self.lock:
            self.pos += 1
            pos = self.pos
        self._send(lambda seq: CardDrawn(seq, parse_card(card), pos))


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[max(0, int(q * len(s)) - 1)]


def run_tablectl(
    n: int,
    gap: float,
    workdir: Path,
    broker_port: int,
    *,
    metrics: bool = False,
    chunks: int = 1,
    between: Callable[[], None] | None = None,
    extra_config: str = "",
) -> dict[str, Any]:
    """Time about `n` cards through the daemon; with `between`, it is called after each
    `chunks`-th part of them, at a round's end, the daemon waiting meanwhile (the floors' turns).
    `extra_config` is TOML appended to the table's config (hil/bench_protection.py turns the
    surveillance feed on with it)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    cfg = workdir / "table.toml"
    metrics_port = free_port() if metrics else None
    metrics_table = f'[metrics]\nlisten = "127.0.0.1:{metrics_port}"\n' if metrics else ""
    cfg.write_text(
        f"""site = "bench"
table = "b1"
log_level = "warning"
[game]
id = "ez-baccarat-panda8"
decks = 8
[limits]
min = "5"
max = "500"
[collection]
file = "{REPO / "config" / "schedules" / "ez-baccarat-panda8.toml"}"
option = 3
[[devices]]
name = "shoe"
driver = "shoe"
port = "{port}"
emulator = true
[mqtt]
port = {broker_port}
[journal]
path = "journal.db"
{metrics_table}{extra_config}"""
    )
    daemon = subprocess.Popen(
        [sys.executable, "-m", "tablectl.cli", "run", "--config", str(cfg)],
        stdout=subprocess.DEVNULL,
        stderr=(workdir / "daemon.log").open("wb"),
        cwd=REPO,
    )
    received: list[float] = []
    replies: dict[str, threading.Event] = {}
    ready = threading.Event()
    lock = threading.Lock()

    def on_msg(_c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        if msg.topic == f"{BASE}/event":
            if b'"shoe.card"' in msg.payload:
                with lock:
                    received.append(now)
        elif msg.topic.endswith("/reply"):
            ev = replies.get(json.loads(msg.payload)["id"])
            if ev:
                ev.set()
        elif msg.topic == f"{BASE}/device/shoe/status" and json.loads(msg.payload).get("available"):
            ready.set()

    # The floor subscriber and the dealer console are different systems on different
    # connections, as at a real table; the subscriber hears only what the floor listens to.
    sub = mqtt.Client(CallbackAPIVersion.VERSION2)
    sub.on_message = on_msg
    sub.connect("127.0.0.1", broker_port)
    sub.subscribe([(f"{BASE}/event", 1), (f"{BASE}/device/shoe/status", 1)])
    sub.loop_start()
    console = mqtt.Client(CallbackAPIVersion.VERSION2)
    console.on_message = on_msg
    console.connect("127.0.0.1", broker_port)
    console.subscribe(f"{BASE}/cmd/+/reply", 1)
    console.loop_start()
    sent: list[float] = []
    shoe = BenchShoe(master)
    try:
        if not ready.wait(20):
            raise RuntimeError("the daemon did not open the shoe: see " + str(workdir))
        rng = random.Random(1)
        rnd = 0
        turns = 0  # the floors' turns taken so far
        for coup in coups(rng, n):
            if between is not None and len(sent) * chunks >= (turns + 1) * n:
                between()
                turns += 1
            if not coup:
                shoe.new_shoe()
                time.sleep(0.05)
                continue
            rnd += 1
            ref = f"b{rnd}"
            replies[ref] = threading.Event()
            seat = (rnd - 1) // 2 % 7 + 1  # R5: two hands per player-dealer
            console.publish(
                f"{BASE}/cmd/bank", json.dumps({"id": ref, "seat": seat, "amount": "500"}), 1
            )
            if not replies[ref].wait(10):
                raise RuntimeError("no reply to the bank command")
            for card in coup:
                with lock:
                    got = len(received)
                sent.append(time.perf_counter())
                shoe.draw(card)
                time.sleep(gap)
                deadline = time.monotonic() + 10
                while True:  # wait for this card so cards never queue behind each other
                    with lock:
                        if len(received) > got:
                            break
                    if time.monotonic() > deadline:
                        raise RuntimeError("a card's event never arrived")
                    time.sleep(0.0005)
        while between is not None and turns < chunks:
            between()
            turns += 1
        rss_kb = 0
        with open(f"/proc/{daemon.pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    rss_kb = int(line.split()[1])
        seen = scraped(metrics_port) if metrics_port is not None else {}
    finally:
        sub.loop_stop()
        console.loop_stop()
        daemon.terminate()
        daemon.wait(20)
        os.close(master)
        os.close(slave)
    lat = [r - s for s, r in zip(sent, received, strict=False)]
    return {
        "n": len(lat),
        "median_ms": round(1000 * statistics.median(lat), 3),
        "p99_ms": round(1000 * percentile(lat, 0.99), 3),
        "daemon_rss_mb": round(rss_kb / 1024, 1),
        **seen,
    }


def scraped(port: int) -> dict[str, Any]:
    """The daemon's own latency histogram (the shoe's inputs: cards and new shoes)."""
    name = "tablectl_device_input_journal_seconds"
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        lines = answer.read().decode().splitlines()
    value = {ln.split(" ")[0]: float(ln.split(" ")[1]) for ln in lines if ln.startswith(name)}
    count = value[f'{name}_count{{device="shoe"}}']
    total = value[f'{name}_sum{{device="shoe"}}']
    return {"journal_inputs": int(count), "journal_mean_ms": round(1000 * total / count, 3)}


@contextlib.contextmanager
def local_broker(folder: Path) -> Iterator[int]:
    """An open Mosquitto on a free loopback port (its config in `folder`), for one run; its
    port. Stopped afterwards."""
    port = free_port()
    # set_tcp_nodelay as the shipped config/mosquitto/tablectl.conf has it
    argv = open_broker(folder / "mosquitto.conf", port, "set_tcp_nodelay true")
    broker = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield port
    finally:
        broker.terminate()
        broker.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="cards to time")
    ap.add_argument("--gap-ms", type=float, default=5.0, help="pause after each card write")
    ap.add_argument("--metrics", action="store_true", help="the daemon with [metrics] on")
    ap.add_argument(
        "--chunks", type=int, default=5, help="turns tablectl and the floors take (module doc)"
    )
    a = ap.parse_args()
    gap = a.gap_ms / 1000
    per_turn = max(1, a.n // a.chunks)
    bare: list[float] = []
    durable_lat: list[float] = []

    def floors() -> None:
        bare.extend(samples(per_turn, gap, durable=False))
        durable_lat.extend(samples(per_turn, gap, durable=True))

    with tempfile.TemporaryDirectory() as tmp, local_broker(Path(tmp)) as port:
        ours = run_tablectl(
            a.n, gap, Path(tmp), port, metrics=a.metrics, chunks=a.chunks, between=floors
        )
    floor = summary(bare, durable=False)
    durable = summary(durable_lat, durable=True)
    ratio = {
        "median": round(ours["median_ms"] / floor["median_ms"], 2),
        "p99": round(ours["p99_ms"] / floor["p99_ms"], 2),
        "median_durable": round(ours["median_ms"] / durable["median_ms"], 2),
        "p99_durable": round(ours["p99_ms"] / durable["p99_ms"], 2),
    }
    met = ratio["median_durable"] <= TARGET_MEDIAN_DURABLE_RATIO
    target = {"median_durable_max": TARGET_MEDIAN_DURABLE_RATIO, "met": met}
    print(
        json.dumps(
            {
                "tablectl": ours,
                "floor": floor,
                "durable_floor": durable,
                "ratio": ratio,
                "target": target,
            }
        )
    )
    print()
    print("| path | cards | median ms | p99 ms | resident memory |")
    print("| --- | --- | --- | --- | --- |")
    print(
        f"| shoe pty -> tablectl (journal, engine, outbox) -> Mosquitto -> subscriber | "
        f"{ours['n']} | {ours['median_ms']} | {ours['p99_ms']} | {ours['daemon_rss_mb']} MB |"
    )
    print(
        f"| floor: pty -> minimal reader -> Mosquitto -> subscriber | {floor['n']} | "
        f"{floor['median_ms']} | {floor['p99_ms']} | |"
    )
    print(
        f"| durable floor: the same, one SQLite FULL commit per card | {durable['n']} | "
        f"{durable['median_ms']} | {durable['p99_ms']} | |"
    )
    print(f"| ratio tablectl / floor | | {ratio['median']}x | {ratio['p99']}x | |")
    print(
        f"| ratio tablectl / durable floor | | {ratio['median_durable']}x | "
        f"{ratio['p99_durable']}x | |"
    )
    print()
    print(
        f"target: median card-to-subscriber <= {TARGET_MEDIAN_DURABLE_RATIO}x the durable floor's "
        f"in the same run: {ratio['median_durable']}x ({ours['median_ms']} ms against "
        f"{durable['median_ms']} ms): {'met' if met else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
