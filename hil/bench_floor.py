"""The floor under a card's trip, the baseline `hil/bench_latency.py` divides by.

A line written into a pseudo-terminal is read by the smallest reader there can be and published
with QoS 1 to a local Mosquitto, where a subscriber takes it: no parsing, no rules, no journal.
With `--durable` the reader first commits each line to SQLite (WAL, synchronous=FULL), one
commit per card: the floor for a controller that journals every input before anything leaves it.

usage: python hil/bench_floor.py [--n 1000] [--gap-ms 5] [--durable]
prints one JSON line: {"n", "median_ms", "p99_ms", "durable"}
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.ports import free_port
from hil.runner import find_mosquitto


def measure(n: int, gap: float, durable: bool) -> dict[str, Any]:
    """Time `n` lines through pty -> reader (-> SQLite) -> Mosquitto -> subscriber."""
    return summary(samples(n, gap, durable), durable)


def summary(lat: list[float], durable: bool) -> dict[str, Any]:
    """The median and 99th percentile (ms) of trip times in seconds."""
    lat = sorted(lat)
    return {
        "n": len(lat),
        "median_ms": round(1000 * statistics.median(lat), 3),
        "p99_ms": round(1000 * lat[max(0, int(0.99 * len(lat)) - 1)], 3),
        "durable": durable,
    }


def samples(n: int, gap: float, durable: bool) -> list[float]:
    """The trip times (seconds) of `n` lines through pty -> reader (-> SQLite) -> Mosquitto ->
    subscriber, in the order they arrived."""
    port = free_port()
    broker = subprocess.Popen(
        [find_mosquitto(), "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    scratch = tempfile.TemporaryDirectory(prefix="tablectl-floor-")
    try:
        time.sleep(0.5)
        master, slave = os.openpty()
        tty.setraw(slave)
        lat: list[float] = []
        done = threading.Event()

        def on_msg(_c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
            lat.append(time.perf_counter() - float(msg.payload.decode().split(",")[1]))
            if len(lat) >= n:
                done.set()

        sub = mqtt.Client(CallbackAPIVersion.VERSION2)
        sub.on_message = on_msg
        sub.connect("127.0.0.1", port)
        sub.subscribe("floor/card", 1)
        sub.loop_start()
        pub = mqtt.Client(CallbackAPIVersion.VERSION2)
        pub.connect("127.0.0.1", port)
        pub.loop_start()
        db = None
        if durable:
            db = sqlite3.connect(
                Path(scratch.name) / "floor.db", isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("CREATE TABLE j (seq INTEGER PRIMARY KEY, body BLOB)")

        def reader() -> None:
            buf = b""
            while True:
                buf += os.read(slave, 256)
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if db is not None:
                        db.execute("INSERT INTO j (body) VALUES (?)", (line,))
                    pub.publish("floor/card", line, qos=1)

        threading.Thread(target=reader, daemon=True).start()
        time.sleep(0.3)
        for _ in range(n):
            os.write(master, f"Ah,{time.perf_counter()}\n".encode())
            time.sleep(gap)
        done.wait(15)
        sub.loop_stop()
        pub.loop_stop()
        return lat
    finally:
        broker.terminate()
        broker.wait(10)
        scratch.cleanup()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="lines to time")
    ap.add_argument("--gap-ms", type=float, default=5.0, help="pause after each line")
    ap.add_argument("--durable", action="store_true", help="commit each line to SQLite first")
    a = ap.parse_args()
    print(json.dumps(measure(a.n, a.gap_ms / 1000, a.durable)))


if __name__ == "__main__":
    main()
