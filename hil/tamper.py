"""The insider's toolbox: what someone with access to the table's PC can do to a journal file
or an export, for the tests and `python -m hil.campaign --tamper`.

Each function changes a file the way a careful intruder would: the public SHA-256 chain is
recomputed after every edit (anyone can), and with `key` (a key holder: a technician who can
read the chain key) the keyed hashes, key starts and the signed start too. What the checks must
still catch, and with what, is the table in docs/operations.md ("What each check proves").
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablectl.chainkey import ChainKey
from tablectl.journal.chain import GENESIS, KeyStart, record_bytes, start_data


def _db(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def rechain(path: Path, key: ChainKey | None = None) -> None:
    """Recompute every public hash from the file's start, the applied mark to the last record
    and (with `key`) every keyed hash and key start: an edit made to pass the public chain, or
    with the key every check but the published heads."""
    db = _db(path)
    try:
        db.execute("BEGIN")
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        first = int(meta.get("first_seq", "1"))
        prev = meta.get("prev_hash", GENESIS)
        rows = db.execute("SELECT seq, ts, source, ref, body FROM journal ORDER BY seq").fetchall()
        for seq, ts, source, ref, body in rows:
            data = record_bytes(prev, seq, ts, source, ref, body)
            digest = hashlib.sha256(data).hexdigest()
            mac = bytes.fromhex(key.mac(data)) if key is not None else None
            if key is not None:
                db.execute(
                    "UPDATE journal SET hash = ?, mac = ? WHERE seq = ?",
                    (bytes.fromhex(digest), mac, seq),
                )
            else:
                db.execute(
                    "UPDATE journal SET hash = ? WHERE seq = ?", (bytes.fromhex(digest), seq)
                )
            prev = digest
        last = rows[-1][0] if rows else first - 1
        db.execute("UPDATE applied SET journal_seq = ?, hash = ?", (last, prev))
        db.execute("DELETE FROM outbox WHERE journal_seq > ?", (last,))
        if key is not None:
            _resign_key_starts(db, key, first, meta.get("prev_hash", GENESIS))
        db.execute("COMMIT")
    finally:
        db.close()


def _resign_key_starts(db: sqlite3.Connection, key: ChainKey, first: int, start: str) -> None:
    """One key start, the holder's, from the file's first record: every record is theirs."""
    db.execute("DELETE FROM keys")
    db.execute("DELETE FROM snapshots")  # they would name hashes that changed
    ts = "2026-01-01T00:00:00.000000Z"
    data = KeyStart.data(first, key.id, None, start, ts)
    db.execute(
        "INSERT INTO keys (first_seq, key_id, prev_key, prev_hash, ts, mac) VALUES (?,?,?,?,?,?)",
        (first, key.id, None, start, ts, key.mac(data)),
    )


def cut_front(path: Path, upto: int, key: ChainKey | None = None) -> None:
    """Records 1..`upto` removed and the file made to start after them, as a closed month's
    live file does (meta first_seq, prev_hash); with `key`, the start signed as the table signs
    it. Nothing left in the file shows the cut: only the anchors (`journal/start`) do."""
    db = _db(path)
    try:
        db.execute("BEGIN")
        (prev,) = db.execute("SELECT hash FROM journal WHERE seq = ?", (upto,)).fetchone()
        prev = bytes(prev).hex()
        db.execute("DELETE FROM journal WHERE seq <= ?", (upto,))
        db.execute("DELETE FROM outbox WHERE journal_seq <= ?", (upto,))
        db.execute("DELETE FROM snapshots")
        db.execute("DELETE FROM meta WHERE key IN ('start_key', 'start_mac', 'origin')")
        start = [("first_seq", str(upto + 1)), ("prev_hash", prev)]
        if key is not None:
            start += [
                ("start_key", key.id),
                ("start_mac", key.mac(start_data(upto + 1, prev, key.id))),
            ]
            db.execute("UPDATE keys SET first_seq = ?, prev_hash = ?", (upto + 1, prev))
            (kid, pk, ts) = db.execute("SELECT key_id, prev_key, ts FROM keys").fetchone()
            mac = key.mac(KeyStart.data(upto + 1, kid, pk, prev, ts))
            db.execute("UPDATE keys SET mac = ?", (mac,))
        db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", start)
        db.execute("COMMIT")
    finally:
        db.close()


def cut_tail(path: Path, after: int) -> None:
    """Every record after `after` removed, with its outbox rows and the applied mark moved back:
    a clean end, which the key cannot see (the records left are genuine)."""
    db = _db(path)
    try:
        db.execute("BEGIN")
        (last,) = db.execute("SELECT hash FROM journal WHERE seq = ?", (after,)).fetchone()
        db.execute("DELETE FROM journal WHERE seq > ?", (after,))
        db.execute("DELETE FROM outbox WHERE journal_seq > ?", (after,))
        db.execute("DELETE FROM snapshots WHERE journal_seq > ?", (after,))
        db.execute("UPDATE applied SET journal_seq = ?, hash = ?", (after, bytes(last).hex()))
        db.execute("COMMIT")
    finally:
        db.close()


def edit_body(path: Path, seq: int, body: dict[str, Any]) -> None:
    """Record `seq`'s body replaced (nothing else): rechain it to hide the break."""
    db = _db(path)
    try:
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        db.execute("UPDATE journal SET body = ? WHERE seq = ?", (text, seq))
    finally:
        db.close()


def alter_record(path: Path, seq: int) -> None:
    """Record `seq` changed in one field, as a fraud would: a wager's or bank's amount, a card,
    else the record's time (nothing else: rechain it to hide the break)."""
    db = _db(path)
    try:
        body, ts = db.execute("SELECT body, ts FROM journal WHERE seq = ?", (seq,)).fetchone()
    finally:
        db.close()
    data = json.loads(body)
    if "amount" in data:
        data["amount"] = "500.00" if data["amount"] != "500.00" else "5.00"
    elif "card" in data:
        data["card"] = "As" if data["card"] != "As" else "Ks"
    else:
        db = _db(path)
        try:
            db.execute("UPDATE journal SET ts = ? WHERE seq = ?", (_later(ts), seq))
        finally:
            db.close()
        return
    edit_body(path, seq, data)


def _later(ts: str) -> str:
    """A journal timestamp a few microseconds on (the same length, still in order enough)."""
    return ts[:-3] + ("999Z" if not ts.endswith("999Z") else "998Z")


# -- an export (JSON lines) --------------------------------------------------------------------

ExportTamper = Callable[[list[str]], list[str]]


def edited_line(line: str, **changes: Any) -> str:
    data = json.loads(line)
    data.update(changes)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def rechained_export(lines: list[str]) -> list[str]:
    """An export whose every `chain` is recomputed from its contents and place (no key needed):
    consistent with itself, so only the old table's heads tell."""
    out, prev = [], GENESIS
    for seq, line in enumerate(lines, start=1):
        data = json.loads(line)
        chain = data.pop("chain")
        ts, source, ref = data.pop("ts"), data.pop("source"), data.pop("ref", None)
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        prev = hashlib.sha256(record_bytes(prev, seq, ts, source, ref, body)).hexdigest()
        data.update(ts=ts, source=source, chain={**chain, "seq": seq, "hash": prev})
        if ref is not None:
            data["ref"] = ref
        out.append(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return out


def export_tampers(at: int) -> dict[str, ExportTamper]:
    """The ways of altering an export at line index `at` (0-based, with a line after it)."""
    return {
        "line deleted": lambda ls: ls[:at] + ls[at + 1 :],
        "line inserted": lambda ls: [*ls[: at + 1], ls[at], *ls[at + 1 :]],
        "lines moved": lambda ls: [*ls[:at], ls[at + 1], ls[at], *ls[at + 2 :]],
        "line edited": lambda ls: [*ls[:at], _edit_any(ls[at]), *ls[at + 1 :]],
        "line deleted, a later one edited": lambda ls: [
            *ls[:at],
            *ls[at + 1 : -1],
            _edit_any(ls[-1]),
        ],
    }


def _edit_any(line: str) -> str:
    """One field of a record changed: a wager's or bank's amount, a card, else its time."""
    data = json.loads(line)
    if "amount" in data:
        return edited_line(line, amount="500.00" if data["amount"] != "500.00" else "5.00")
    if "card" in data:
        return edited_line(line, card="As" if data["card"] != "As" else "Ks")
    return edited_line(line, ts=_later(str(data["ts"])))
