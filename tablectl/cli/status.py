"""`tablectl status`: the running table at a glance, read from the daemon's local status socket
(tablectl/status_socket.py), no MQTT client needed.

One block a person reads (or `--json`), and an exit code a monitoring system understands, in
the LSB / Nagios way: 0 running and clear; 1 running but held (a round held, the table held on
a journal fault, the journal unwritable) or a device in fault or unavailable; 3 not running (no
socket, nobody answering on it, no answer in time). 2 is a usage or config error, as for every
command. `--watch` asks again every WATCH_SECONDS until Ctrl-C: on a terminal it redraws the
block; otherwise it prints a block (or a JSON line) each time what it shows changes, and exits
with the code of the last.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from tablectl.cli.common import EXIT_FAIL, EXIT_NOT_RUNNING, EXIT_OK
from tablectl.status_socket import NotRunning, read_status

WATCH_SECONDS = 1.0
"""How often `--watch` asks."""
CLEAR = "\x1b[H\x1b[2J"
"""A terminal's home and erase-display sequence: `--watch` redraws in place."""
VOLATILE = ("at", "frame_age")
"""Fields that change with every asking: not a change for `--watch` off a terminal."""


def outcome(report: dict[str, Any] | None) -> tuple[int, str]:
    """The exit code and its word for a report (None: no daemon answered)."""
    if report is None:
        return EXIT_NOT_RUNNING, "NOT RUNNING"
    if report.get("holds"):
        return EXIT_FAIL, "HELD"
    if any(_faulted(d) for d in report.get("devices", [])):
        return EXIT_FAIL, "DEVICE FAULT"
    return EXIT_OK, "running"


def _faulted(device: dict[str, Any]) -> bool:
    return bool(device.get("fault")) or device.get("available") is False


def ask(path: Path) -> dict[str, Any]:
    """What `--json` prints: the daemon's report with `running` true, or `running` false and
    why; either with the `exit` code and its word (`state`)."""
    try:
        report: dict[str, Any] = {"running": True, **read_status(path)}
    except NotRunning as exc:
        code, word = outcome(None)
        return {
            "running": False,
            "reason": str(exc),
            "socket": str(path),
            "exit": code,
            "state": word,
        }
    code, word = outcome(report)
    return {**report, "exit": code, "state": word}


def render(shown: dict[str, Any], where: str) -> str:
    """The block a person reads, from what `ask` gave; `where` names the table (site/table)."""
    if not shown["running"]:
        return f"{where}: {shown['state']} (exit {shown['exit']})\n  {shown['reason']}"
    lines = [
        f"{shown['site']}/{shown['table']} ({shown['game']}): {shown['state']} "
        f"(exit {shown['exit']})",
        f"  daemon:  pid {shown['pid']}, started {shown['started']}, asked {shown['at']}",
    ]
    if shown.get("round") is not None:
        lines.append(f"  round:   {shown['round']} {shown['phase']}")
    for hold in shown.get("holds", []):
        kept = f" ({hold['inputs']} input(s) kept for the resume)" if hold.get("inputs") else ""
        lines.append(f"  hold:    {hold['kind']}: {hold['reason']}{kept}")
    for d in shown.get("devices", []):
        lines.append(f"  device:  {d['name']} [{d['driver']}] {_device_text(d)}")
    lines.append(f"  broker:  {shown['broker']}, {shown['unsent']} unsent")
    lines.append(f"  journal: {_journal_text(shown['journal'])}")
    last = shown.get("last_result")
    lines.append(f"  last:    {last['line']} ({last['ts']})" if last else "  last:    no result")
    return "\n".join(lines)


def _device_text(d: dict[str, Any]) -> str:
    if not d.get("read"):
        return "not read (the table is held on its journal)"
    state = "available" if d.get("available") else "unavailable"
    if d.get("fault"):
        state += f", fault {d['fault']}"
    age = d.get("frame_age")
    return state + (", no frame yet" if age is None else f", last frame {age:.1f} s ago")


def _journal_text(j: dict[str, Any]) -> str:
    size = "no file" if j.get("bytes") is None else _size(j["bytes"])
    if j.get("wal_bytes"):
        size += f" + {_size(j['wal_bytes'])} wal"
    text = f"{j['path']} {size}"
    if j.get("month"):
        text += f", month {j['month']}"
        if j.get("close_due"):
            text += ": its close is due, at the next round boundary"
        else:
            text += f", closes at the first round boundary after {j['closes_after']}"
    return text


def _size(count: int) -> str:
    """A file size as a person reads it: "812 bytes", "4.1 kB", "12.3 MB"."""
    if count < 1000:
        return f"{count} bytes"
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"


def _changed_part(shown: dict[str, Any]) -> Any:
    """`shown` without what changes at every asking (the time, the frames' ages)."""
    out = {k: v for k, v in shown.items() if k not in VOLATILE}
    if "devices" in out:
        out["devices"] = [{k: v for k, v in d.items() if k not in VOLATILE} for d in out["devices"]]
    return out


def status(path: Path, where: str, *, as_json: bool, out: TextIO) -> int:
    """`tablectl status` once: print the block (or JSON), return its exit code."""
    shown = ask(path)
    print(json.dumps(shown, indent=2) if as_json else render(shown, where), file=out)
    return int(shown["exit"])


def watch(
    path: Path,
    where: str,
    *,
    as_json: bool,
    out: TextIO,
    every: float = WATCH_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """`tablectl status --watch`: ask every `every` seconds until Ctrl-C; on a terminal redraw
    the block, else print a block (a JSON line with --json) when it changed. Returns the exit
    code of the last asking."""
    tty = out.isatty()
    last: Any = None
    code = EXIT_NOT_RUNNING
    try:
        while True:
            shown = ask(path)
            code = int(shown["exit"])
            if tty:
                text = json.dumps(shown, indent=2) if as_json else render(shown, where)
                out.write(f"{CLEAR}{text}\n\n(every {every:g} s; Ctrl-C to stop)\n")
            elif _changed_part(shown) != last:
                last = _changed_part(shown)
                text = json.dumps(shown) if as_json else render(shown, where) + "\n"
                out.write(text + "\n")
            out.flush()
            sleep(every)
    except KeyboardInterrupt:
        if tty:
            out.write("\n")
        return code


def main(where: str, socket: Path, *, as_json: bool, watching: bool) -> int:
    """The command, once or watching, for the table `where` (site/table): cli.cmd_status loads
    the config and finds `socket`."""
    if watching:
        return watch(socket, where, as_json=as_json, out=sys.stdout)
    return status(socket, where, as_json=as_json, out=sys.stdout)
