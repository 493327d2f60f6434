"""Record a rig's real traffic into the scenario format (hil/traffic.py): the bytes each device
writes on its line, and the commands the dealer console sends over MQTT, with their times.

usage: python -m hil.record --device shoe=/dev/ttyUSB0[@9600] [--device ...]
           [--mqtt HOST:PORT --base tablectl/SITE/TABLE] [--seconds N] > traffic.jsonl

Reading a port needs it to yourself: stop the daemon (or tap the line with a second adapter).
Ctrl-C (or --seconds) ends the recording; every line is flushed as it is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any, TextIO

import serial

from hil.traffic import Command, DeviceWrite, Item, dumps


class Recorder:
    """Collects items from several threads and writes them in arrival order with their time."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.count = 0

    def now(self) -> float:
        return time.monotonic() - self.start

    def add(self, item: Item) -> None:
        with self.lock:
            self.out.write(dumps(item) + "\n")
            self.out.flush()
            self.count += 1


def record_port(
    rec: Recorder,
    name: str,
    port: str,
    baud: int,
    stop: threading.Event,
    opened: threading.Event | None = None,
) -> None:
    """Every chunk the device writes, as it arrives (pyserial URLs such as socket:// work too)."""
    with serial.serial_for_url(port, baudrate=baud, timeout=0.1) as line:
        if opened is not None:
            opened.set()  # opening flushes the input buffer: only what comes after is recorded
        while not stop.is_set():
            data = line.read(4096)
            if data:
                rec.add(DeviceWrite(rec.now(), name, data))


def record_commands(
    rec: Recorder,
    host: str,
    port: int,
    base: str,
    stop: threading.Event,
    subscribed: threading.Event | None = None,
) -> None:
    """Every `cmd/<verb>` the console publishes (replies and other topics are not recorded).

    The subscription is made on every (re)connection, so a broker restart mid-recording does not
    silently end it; `subscribed` is set once the broker has granted it (nothing published
    before that can be recorded), and `main` says so on stderr.
    """
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    from paho.mqtt.reasoncodes import ReasonCode

    topic = f"{base}/cmd/+"

    def on_connect(client: mqtt.Client, _u: Any, _f: Any, reason: ReasonCode, _p: Any) -> None:
        if reason.is_failure:
            print(f"record: MQTT connection refused: {reason}", file=sys.stderr)
            return
        client.subscribe(topic, qos=1)

    def on_subscribe(_c: Any, _u: Any, _mid: int, reasons: list[ReasonCode], _p: Any) -> None:
        if any(r.is_failure for r in reasons):
            print(f"record: subscription to {topic} refused: {reasons}", file=sys.stderr)
            return
        if subscribed is not None:
            subscribed.set()

    def on_message(_c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        verb = msg.topic.removeprefix(f"{base}/cmd/")
        if "/" in verb:
            return
        try:
            payload = json.loads(msg.payload)
        except ValueError:
            print(f"record: cmd/{verb} payload is not JSON; skipped", file=sys.stderr)
            return
        if isinstance(payload, dict):
            payload.pop("id", None)
            rec.add(Command(rec.now(), verb, payload))

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hil-recorder")
    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    client.connect(host, port)
    client.loop_start()
    stop.wait()
    client.loop_stop()
    client.disconnect()


def _say_when_subscribed(subscribed: threading.Event, base: str) -> None:
    """Tell the technician (stderr) when console commands start being recorded."""
    subscribed.wait()
    print(f"record: recording commands on {base}/cmd/+", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hil.record", description=__doc__.splitlines()[0])
    ap.add_argument("--device", action="append", default=[], metavar="NAME=PORT[@BAUD]")
    ap.add_argument("--mqtt", metavar="HOST:PORT")
    ap.add_argument("--base", help="the table's base topic, e.g. tablectl/site/bac-01")
    ap.add_argument("--seconds", type=float, default=0.0, help="stop after N seconds (0: Ctrl-C)")
    a = ap.parse_args(argv)
    if not a.device and not a.mqtt:
        ap.error("record at least one --device or --mqtt")
    if a.mqtt and not a.base:
        ap.error("--mqtt needs --base")
    rec = Recorder(sys.stdout)
    stop = threading.Event()
    threads = []
    for spec in a.device:
        name, _, rest = spec.partition("=")
        port, _, baud = rest.partition("@")
        if not name or not port:
            ap.error(f"--device {spec!r}: expected NAME=PORT[@BAUD]")
        args = (rec, name, port, int(baud or 9600), stop)
        threads.append(threading.Thread(target=record_port, args=args, daemon=True))
    subscribed = threading.Event()
    if a.mqtt:
        host, _, mport = a.mqtt.rpartition(":")
        args2 = (rec, host or "127.0.0.1", int(mport), a.base, stop, subscribed)
        threads.append(threading.Thread(target=record_commands, args=args2, daemon=True))
    for t in threads:
        t.start()
    if a.mqtt:
        threading.Thread(
            target=_say_when_subscribed, args=(subscribed, a.base), daemon=True
        ).start()
    try:
        if a.seconds:
            stop.wait(a.seconds)
        else:
            while not stop.is_set():
                stop.wait(1.0)
    except KeyboardInterrupt:
        pass
    stop.set()
    for t in threads:
        t.join(2.0)
    print(f"record: {rec.count} items", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
