"""What the running daemon tells `tablectl status` (issue 25 item 4): the report's parts.

The daemon builds the report (`Daemon.status_report`) from what it holds in memory, and hands it
over its local status socket (tablectl/status_socket.py) to whoever asks; it is never published.
These helpers make the parts that need more than a field copied: each device's line, the
journal's size and its next month's close, and the last result in one line.

Nothing in the report names a card. The last result line is made from the `round/result` the
table published (which shows only what the table has shown), and even of that it keeps the
verdict, the totals and the money, never a card: a technician's terminal is no place to repeat a
hand. The hold reasons are those `state` and `journal/status` already publish.

The report's fields (version REPORT_VERSION; docs/operations.md "Is the table running?"):

- `v`, `site`, `table`, `game`, `pid`, `started` (the daemon's start), `at` (when answered);
- `round`, `phase`: the game's (None while held on a journal fault: the table was never rebuilt);
- `holds`: a list of `{"kind", "reason", ...}`, kinds `journal-fault`, `journal-unwritable`,
  `round-held` (with `inputs`, how many inputs wait for the resume);
- `devices`: `{"name", "driver", "read", "available", "fault", "frame_age"}` per configured
  device (`read` false while the table reads no device: held on a journal fault);
- `broker`: the relay's state (`connected`, `connecting`, `backoff`, `disconnected`) or `off`;
- `unsent`: outbox messages the broker has not acknowledged;
- `journal`: `path`, `bytes`, `wal_bytes`, `month` (the live file's), `closes_after` (the
  first instant of the next UTC month: the first record after it, at a round boundary, closes
  the month into its segment), `close_due` (the month is over and its close waits);
- `last_result`: `{"ts", "round", "line"}` of the last `round/result`, or None.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from tablectl_base.money import fmt

REPORT_VERSION = 1
"""The report's version (`v`): a field removed or changed in meaning makes it 2."""


def device_entry(
    name: str,
    driver: str,
    *,
    read: bool,
    available: bool,
    fault: str | None,
    frame_age: float | None,
) -> dict[str, Any]:
    """One configured device as the report shows it; `frame_age` to a tenth of a second."""
    return {
        "name": name,
        "driver": driver,
        "read": read,
        "available": available,
        "fault": fault,
        "frame_age": None if frame_age is None else round(frame_age, 1),
    }


def next_month(month: str) -> str:
    """The first instant of the UTC month after `month` ("2026-12" -> "2027-01-01T00:00:00Z")."""
    year, number = int(month[:4]), int(month[5:7])
    year, number = (year + 1, 1) if number == 12 else (year, number + 1)
    return f"{year:04d}-{number:02d}-01T00:00:00Z"


def file_bytes(path: Path) -> int | None:
    """The size of the file at `path`, or None when there is none (a -wal after a clean stop)."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None


def journal_entry(path: Path, month: str | None, *, close_due: bool) -> dict[str, Any]:
    """The journal's part: its file and -wal sizes (looked at now), the live file's month and
    when the next month's close can come."""
    return {
        "path": str(path),
        "bytes": file_bytes(path),
        "wal_bytes": file_bytes(Path(f"{path}-wal")),
        "month": month,
        "closes_after": None if month is None else next_month(month),
        "close_due": close_due,
    }


def result_entry(ts: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The report's `last_result`: when, which round, and `result_line`."""
    return {"ts": ts, "round": payload.get("round"), "line": result_line(payload)}


def result_line(r: Mapping[str, Any]) -> str:
    """A `round/result` payload in one line, with no card in it: a void and its reason; a
    poker hand's pots and who was paid; a Chinese Poker round's payments; a baccarat coup's
    winner and totals; and for a banked game the wagers settled and the players' net. A
    payload of a shape it does not know (a game from another distribution) still gives its
    round and what it can count."""
    head = f"{'hand' if 'pots' in r else 'round'} {r.get('round', '?')}"
    if r.get("void"):
        return f"{head} void: {r.get('reason') or 'misdeal'}"
    if isinstance(r.get("pots"), list):
        return f"{head}: {_pots(r['pots'])}"
    if isinstance(r.get("payments"), list):
        return f"{head}: {len(r['payments'])} payment(s) between {len(r.get('hands') or [])} hands"
    parts = []
    verdict = _baccarat(r.get("outcome"))
    if verdict:
        parts.append(verdict)
    settlements = r.get("settlements")
    if isinstance(settlements, list):
        net = _total(s.get("net") for s in settlements if isinstance(s, Mapping))
        money = "" if net is None else f", players net {'+' if net > 0 else ''}{fmt(net)}"
        parts.append(f"{len(settlements)} wager(s) settled{money}")
    return f"{head}: {'; '.join(parts)}" if parts else f"{head} finished"


def _baccarat(o: Any) -> str | None:
    """A baccarat coup's verdict (`winner`, the two totals, its flags), else None."""
    if not isinstance(o, Mapping) or "winner" not in o:
        return None
    totals = [o.get(side, {}).get("total") for side in ("player", "banker")]
    score = "-".join(str(t) for t in totals) if None not in totals else ""
    won = f"tie {score}" if o["winner"] == "tie" else f"{o['winner']} wins {score}"
    flags = [k for k in ("natural", "dragon7", "panda8") if o.get(k)]
    return won.strip() + (f" [{', '.join(flags)}]" if flags else "")


def _pots(pots: Sequence[Any]) -> str:
    """Each pot and the seats it paid ("pot 120.00 to seat 3; pot 40.00 to seats 2, 5")."""
    out = []
    for pot in pots:
        if not isinstance(pot, Mapping):
            continue
        seats = [str(p.get("seat")) for p in pot.get("paid") or [] if isinstance(p, Mapping)]
        whom = f"seat {seats[0]}" if len(seats) == 1 else f"seats {', '.join(seats)}"
        out.append(f"pot {pot.get('amount', '?')} to {whom}" if seats else "pot returned")
    return "; ".join(out) or "no pot"


def _total(amounts: Any) -> Decimal | None:
    """The sum of money strings (a net may be negative), or None if one is not a number."""
    total = Decimal(0)
    for amount in amounts:
        try:
            total += Decimal(str(amount))
        except InvalidOperation:
            return None
    return total
