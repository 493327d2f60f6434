"""Small shared builders for table-level tests: a config, numbered records, a played table.

The config is the shipped example's shape (EZ Baccarat Panda 8, 7 seats, limits 5-500, collection
schedule option 3 from the shipped schedules file) built in memory with `parse_config`, with the
journal under the test's tmp_path. Records go through `journal_body` exactly as the daemon journals
its inputs, so an unparsable event becomes `input.invalid` here too.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import LoadedConfig, parse_config
from tablectl.outputs import OutboxRow
from tablectl.records import Record, replay_ts
from tablectl.table import Table, journal_body
from tablectl.table_messages import Message

REPO = Path(__file__).resolve().parent.parent
SCHEDULES = REPO / "config" / "schedules" / "ez-baccarat-panda8.toml"
TABLE_ID = "t1"
SITE = "room"
BASE = f"tablectl/{SITE}/{TABLE_ID}"


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`base` updated by `extra`, nested tables merged key by key (a None value deletes the key)."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def config_dict(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    """The decoded-TOML form of the test table config, with `overrides` merged in."""
    base: dict[str, Any] = {
        "site": SITE,
        "table": TABLE_ID,
        "game": {
            "id": "ez-baccarat-panda8",
            "decks": 8,
            "settlement_order": "by-spot",
            "banker_push_on_dragon7": False,
            "bet_timer_seconds": 0,
        },
        "seats": {"count": 7},
        "limits": {"min": "5", "max": "500"},
        "collection": {"file": str(SCHEDULES), "option": 3},
        # No shoe: the tests feed the cards as records themselves, which the config says as a
        # table without its card reader must (a shoe is added with devices=[...] where wanted).
        "manual_entry": True,
        "journal": {"path": str(tmp_path / "journal.db")},
    }
    return _merge(base, overrides)


SHOE = [{"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-test-shoe"}]
"""A card-reading shoe on a port that is not there (a warning, not an error): a table with its
reader, where the console may only fill the shoe's gaps (R39); `make_config(..., **WITH_SHOE)`."""
WITH_SHOE: dict[str, Any] = {"manual_entry": None, "devices": SHOE}


def make_config(tmp_path: Path, **overrides: Any) -> LoadedConfig:
    """A validated config: baccarat, 7 seats, limits 5-500, schedule option 3, no devices (the
    cards keyed, `manual_entry`) unless overridden.

    Overrides merge into nested tables, e.g. ``game={"settlement_order": "by-seat"}`` or
    ``limits={"spots": {"panda8": {"min": "5", "max": "100"}}}``.
    """
    return parse_config(config_dict(tmp_path, **overrides), tmp_path / "table.toml")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string for the plain text used here
    raise TypeError(f"no TOML form for {value!r} in test configs")


def _toml_lines(table: Mapping[str, Any], prefix: str) -> list[str]:
    lines = [f"{k} = {_toml_value(v)}" for k, v in table.items() if not isinstance(v, Mapping)]
    for key, value in table.items():
        if isinstance(value, Mapping):
            name = f"{prefix}.{key}" if prefix else key
            lines += ["", f"[{name}]", *_toml_lines(value, name)]
    return lines


def write_config(tmp_path: Path, **overrides: Any) -> Path:
    """The same config written as a TOML file (for the command line); returns its path."""
    path = tmp_path / "table.toml"
    path.write_text("\n".join(_toml_lines(config_dict(tmp_path, **overrides), "")) + "\n")
    return path


class FullWayTable(Table):
    """A table that takes the full way through every record, never the short way through the
    usual one (`Table._simple_input`, which `apply` and `advance` both take): the reference the
    short way is held to, record by record."""

    def _simple_input(self, rec: Record) -> list[Message] | None:
        return None


def record(seq: int, event: Any, *, source: str = "test", ref: str | None = None) -> Record:
    """One journal record as the daemon would write it, with a fixed timestamp."""
    return Record(seq, replay_ts(seq), source, ref, journal_body(event), "", "")


def records(events: Iterable[Any]) -> list[Record]:
    """Numbered records (seq 1..n, fixed timestamps, source "test").

    A dict event may carry ``source`` and ``ref`` keys (e.g. ``"source": "cmd/wager"``); they are
    taken off the event and put on the record, the way the daemon journals a command.
    """
    out = []
    for seq, event in enumerate(events, start=1):
        if isinstance(event, Mapping):
            body = dict(event)
            source = str(body.pop("source", "test"))
            ref = body.pop("ref", None)
            out.append(record(seq, body, source=source, ref=ref))
        else:
            out.append(record(seq, event))
    return out


def feed(
    table: Table, event: Any, *, source: str = "test", ref: str | None = None
) -> list[OutboxRow]:
    """Apply one more event to a running table as its next record."""
    return table.apply(record(table.position + 1, event, source=source, ref=ref))


def play(cfg: LoadedConfig, events: Iterable[Any]) -> tuple[Table, list[OutboxRow]]:
    """A fresh Table fed `events` in order; returns it and every outgoing row."""
    table = Table(cfg)
    rows: list[OutboxRow] = []
    for rec in records(events):
        rows += table.apply(rec)
    return table, rows


def payload(row: OutboxRow) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(row.payload)
    return decoded


def payloads(rows: Iterable[OutboxRow], suffix: str) -> list[dict[str, Any]]:
    """The decoded payloads of the rows whose topic is `<base>/<suffix>` (e.g. "round/result")."""
    return [payload(r) for r in rows if r.topic == f"{BASE}/{suffix}"]


def topics(rows: Iterable[OutboxRow]) -> list[str]:
    """Each row's topic below the table's base topic, in order."""
    return [r.topic.removeprefix(BASE + "/") for r in rows]


# -- event builders --------------------------------------------------------------------------


def bank(seat: int, amount: str) -> dict[str, Any]:
    return {"type": "bank", "seat": seat, "amount": amount}


def wager(seat: int, spot: str, amount: str, player: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "wager", "seat": seat, "spot": spot, "amount": amount}
    if player is not None:
        ev["player"] = player
    return ev


def cards(text: str) -> list[dict[str, Any]]:
    """`shoe.card` events for space-separated cards, in draw order."""
    return [{"type": "shoe.card", "card": c} for c in text.split()]


def burn(card: str) -> dict[str, Any]:
    return {"type": "shoe.burn", "card": card}


CLOSE: dict[str, Any] = {"type": "bets.close"}
SHOE_NEW: dict[str, Any] = {"type": "shoe.new"}


# -- what every game's property tests check ------------------------------------------------------


def assert_replays_identically(cfg: LoadedConfig, events: Sequence[Any]) -> None:
    """Contract 4: two fresh tables fed the same records publish the same bytes and end equal."""
    a, b = Table(cfg), Table(cfg)
    recs = records(events)
    rows_a = [(r.seq, r.topic, r.payload, r.qos, r.retain) for rec in recs for r in a.apply(rec)]
    rows_b = [(r.seq, r.topic, r.payload, r.qos, r.retain) for rec in recs for r in b.apply(rec)]
    assert rows_a == rows_b
    assert a.state == b.state


def interleave(base: Sequence[Any], noise: Sequence[tuple[int, Any]]) -> list[Any]:
    """`base` with each noise item inserted before the index it names (a session with random
    input dropped in anywhere)."""
    out = list(base)
    for at, item in sorted(noise, key=lambda n: -n[0]):
        out.insert(at, item)
    return out


# The alert kinds of a refused input (docs/mqtt.md): the rules refuse it, a refusal the rules
# call a dealer error (R15), or not a valid event at all.
ALERT_KINDS_REFUSED = ("rejected", "dealer-error", "invalid-input")


def feed_checked(table: Table, event: Any) -> list[OutboxRow] | None:
    """Feed one input and check contract 2's promise: numbered rows with no gap, and either the
    input accepted (its rows returned) or one alert naming why with the state unchanged (None)."""
    before, seq_before = table.state, table.seq
    rows = feed(table, event)  # never raises
    names = [r.topic.removeprefix(BASE + "/") for r in rows]
    assert [payload(r)["seq"] for r in rows] == list(range(seq_before + 1, table.seq + 1))
    if "alert" not in names:
        return rows
    assert names == ["alert"]
    alert = payload(rows[0])
    assert alert["kind"] in ALERT_KINDS_REFUSED and alert["reason"]
    assert table.state == before
    return None


def assert_balanced(result: Mapping[str, Any]) -> None:
    """R1: the players' nets and the bank's change sum to zero; the bank never ends negative."""
    bank = result["bank"]
    nets = sum((Decimal(s["net"]) for s in result["settlements"]), Decimal(0))
    change = Decimal(bank["end"]) - Decimal(bank["start"]) if bank["start"] is not None else 0
    assert nets + change == 0
    assert bank["end"] is None or Decimal(bank["end"]) >= 0


def proved_lines(items: Iterable[tuple[str, str, str | None, dict[str, Any]]]) -> Iterator[Any]:
    """`(ts, source, ref, body)` records as the proved export lines `Journal.import_records`
    takes (tablectl/exports.py), their chain computed as an export of them would carry it."""
    from tablectl.exports import verified_lines
    from tablectl.journal.chain import GENESIS, record_bytes

    def lines() -> Iterator[str]:
        prev = GENESIS
        for seq, (ts, source, ref, body) in enumerate(items, start=1):
            text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
            prev = hashlib.sha256(record_bytes(prev, seq, ts, source, ref, text)).hexdigest()
            line = {**body, "ts": ts, "source": source, "chain": {"seq": seq, "hash": prev}}
            if ref is not None:
                line["ref"] = ref
            yield json.dumps(line, separators=(",", ":"), ensure_ascii=False)

    return verified_lines(lines())


UNPLUGGED = re.compile(
    r'^warning: .+: devices\[[0-9]+\]\.port: "/dev/tablectl-[^"]+" is not there \(yet\): .+$'
)
"""check-config's warning of a shipped config's port (a udev name, /dev/tablectl-*) that is not on
the machine running the tests."""


def as_plugged_in(out: str, err: str) -> tuple[str, str]:
    """check-config's stdout and stderr of a shipped config as on a table PC with its devices
    plugged in: the warnings of its /dev/tablectl-* ports not on this machine taken out, and
    "ok, with warnings" read as "ok" where those were the only warnings."""
    kept = [line for line in err.splitlines(keepends=True) if not UNPLUGGED.match(line)]
    if len(kept) < len(err.splitlines()) and not kept:
        out = out.replace(": ok, with warnings: ", ": ok: ", 1)
    return out, "".join(kept)


# -- a journal over several months (tests of segments, anchors, upgrades) -----------------------

OCTOBER, NOVEMBER, DECEMBER = "2026-10", "2026-11", "2026-12"
# Four EZ Baccarat coups with a natural each (R25: no third card), 4 cards a round:
# P 9 v B 5; P 8 v B 7; P 0 v B 9; P 9 v B 8.
NATURAL_COUPS = ["9h 2c Kd 3s", "8d 2h Jc 5s", "Td 9c Jd Ks", "7c 8h 2d Qs"]


class MonthClock:
    """The daemon's clock in a test (the `clock` fixture of tests/conftest.py sets it as
    `tablectl.daemon.inputs.now_ts`): records get timestamps in the month the test says."""

    def __init__(self) -> None:
        self.month = OCTOBER
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"{self.month}-15T12:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000000Z"


def natural_rounds(n: int, start: int = 0, *, shoe_every: int = 0) -> Iterator[dict[str, Any]]:
    """Rounds `start`..`start + n - 1` of NATURAL_COUPS (bank, a wager, close, four cards), the
    bank moving on every two rounds (R5); a new shoe before every `shoe_every`-th (0: none)."""
    for i in range(start, start + n):
        if shoe_every and i % shoe_every == 0:
            yield {"type": "shoe.new"}
        yield bank(1 + (i // 2) % 7, "1000")
        yield wager(2 + (i // 2) % 5, "player", "20")
        yield {"type": "bets.close"}
        yield from cards(NATURAL_COUPS[i % len(NATURAL_COUPS)])


NOBODY = 65534


def run_unprivileged(code: str, *args: str) -> str:
    """`python -c code args` as a user who is not root (nobody, when the tests run as root,
    who reads everything) and its standard output; skipped where nobody cannot read the
    checkout (its modules are needed)."""
    user = NOBODY if os.getuid() == 0 else None
    probe = subprocess.run(
        [sys.executable, "-c", "import tablectl"], capture_output=True, text=True, user=user
    )
    if probe.returncode != 0:
        pytest.skip(f"user {NOBODY} cannot import tablectl from this checkout: {probe.stderr}")
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, user=user
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
