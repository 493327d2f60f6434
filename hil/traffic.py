"""Recorded traffic: what devices wrote on their lines and what the console sent, as JSON lines.

One object per line, in order, `t` seconds from the start of the recording:
    {"t": 0.512, "device": "shoe", "hex": "2443524..."}        bytes a device wrote
    {"t": 1.020, "cmd": "bank", "payload": {"seat": 4, "amount": "500"}}   a console command
Scenario files add the expected MQTT messages in a second file (see runner.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class TrafficError(ValueError):
    """A traffic file line that is not a device write or a command; names the line."""


@dataclass(frozen=True)
class DeviceWrite:
    t: float
    device: str
    data: bytes


@dataclass(frozen=True)
class Command:
    t: float
    verb: str
    payload: dict[str, Any]


Item = DeviceWrite | Command


def read(path: Path) -> list[Item]:
    """Every item of a traffic file, in order."""
    return list(parse(path.read_text(encoding="utf-8").splitlines(), str(path)))


def parse(lines: Iterable[str], name: str = "<traffic>") -> Iterator[Item]:
    for n, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(line)
            t = float(obj.get("t", 0.0))
            if "device" in obj:
                yield DeviceWrite(t, str(obj["device"]), bytes.fromhex(obj["hex"]))
            elif "cmd" in obj:
                payload = obj.get("payload", {})
                if not isinstance(payload, dict):
                    raise TrafficError("payload must be an object")
                yield Command(t, str(obj["cmd"]), payload)
            else:
                raise TrafficError("a line has either device+hex or cmd")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise TrafficError(f"{name}:{n}: {exc}") from None


def dumps(item: Item) -> str:
    """One traffic line."""
    if isinstance(item, DeviceWrite):
        obj: dict[str, Any] = {"t": round(item.t, 6), "device": item.device, "hex": item.data.hex()}
    else:
        obj = {"t": round(item.t, 6), "cmd": item.verb, "payload": item.payload}
    return json.dumps(obj, separators=(",", ":"))
