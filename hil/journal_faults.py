"""Ten journals the table cannot replay, for tests/daemon/test_journal_fault.py,
tests/integration/test_journal_fault_e2e.py and the campaign's tamper pass (hil/tamper_pass.py).

`build(cfg)` journals a short baccarat session through tablectl's own code, as the daemon does
(append, apply, store the outputs; a snapshot at the end, as a stop takes one): 19 records, the
config's rules in record 1, round 1 in records 3-10, round 2 in records 11-19. Then each kind of
`KINDS` doctors the file with a plain sqlite3 connection of its own, the way a failing disk, an
interrupted tool or a person with a SQLite shell would, and says which record the held table
must name (None: the file itself) and a phrase of the reason. Where an edit changes a record,
the public chain is recomputed after it (`rechain`), so the journal passes the chain check as
the issue's finding had it: the daemon must stop on what it cannot replay, not on a hash.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hil.tamper import rechain
from tablectl import snapshot
from tablectl.config import LoadedConfig
from tablectl.journal import Journal
from tablectl.table import Table, journal_body


def bank(seat: int, amount: str) -> dict[str, Any]:
    return {"type": "bank", "seat": seat, "amount": amount}


def wager(seat: int, spot: str, amount: str) -> dict[str, Any]:
    return {"type": "wager", "seat": seat, "spot": spot, "amount": amount}


def cards(text: str) -> list[dict[str, Any]]:
    """`shoe.card` events for space-separated cards, in draw order."""
    return [{"type": "shoe.card", "card": c} for c in text.split()]


CLOSE: dict[str, Any] = {"type": "bets.close"}
SHOE_NEW: dict[str, Any] = {"type": "shoe.new"}

ROUND_1 = [
    bank(4, "500"),
    wager(1, "player", "25"),
    wager(2, "banker", "25"),
    CLOSE,
    *cards("9h 2d Kc 5s"),  # player 9 (a natural), banker 7
]
ROUND_2 = [
    bank(4, "300"),
    wager(1, "banker", "100"),  # record WAGER
    wager(2, "player", "40"),  # record WAGER + 1
    CLOSE,
    *cards("2h 3d 4c 2s 7c"),  # player 6, banker 5 draws the 7c: 2
]
SESSION = [SHOE_NEW, *ROUND_1, *ROUND_2]  # after the config record
LAST = 1 + len(SESSION)  # 19
WAGER = 12
"""Round 2's banker wager: the record most kinds break."""


def ts(seq: int) -> str:
    return f"2026-11-26T10:00:{seq:02d}.000000Z"


def build(cfg: LoadedConfig) -> Path:
    """The session journaled at `cfg.journal_path` as the daemon journals it, with the snapshot a
    stop takes; returns the path (closed)."""
    table = Table(cfg)
    journal = Journal(cfg.journal_path, table=cfg.table.table)
    rules = {"type": "config", "rules": cfg.rules.to_json()}  # a first start journals them
    try:
        for source, event in [("config", rules), *(("console", e) for e in SESSION)]:
            rec = journal.append(ts(journal.last_seq + 1), source, None, journal_body(event))
            journal.write_outputs(rec, table.apply(rec))
        snapshot.take(table, journal)
    finally:
        journal.close()
    return cfg.journal_path


def sql(path: Path, *statements: str, params: tuple[Any, ...] = ()) -> None:
    """Statements run and committed on a connection of their own (the last one with `params`)."""
    db = sqlite3.connect(path)
    try:
        for i, statement in enumerate(statements):
            db.execute(statement, params if i == len(statements) - 1 else ())
        db.commit()
    finally:
        db.close()


NO_SNAPSHOT = "DELETE FROM snapshots"
"""The table stopped without its stop's snapshot (a power cut): a start replays from record 1."""
SET_BODY = "UPDATE journal SET body = ? WHERE seq = ?"


def body_not_json(path: Path) -> None:
    """The wager's body cut short (a write torn by a tool, not by SQLite)."""
    sql(path, NO_SNAPSHOT, SET_BODY, params=('{"type":"wager",', WAGER))
    rechain(path)


def body_not_an_object(path: Path) -> None:
    """The wager's body is JSON, but an array where every record holds an object."""
    sql(path, NO_SNAPSHOT, SET_BODY, params=('["wager",1]', WAGER))
    rechain(path)


def edit_the_second_wager(path: Path) -> None:
    """The issue's finding: the $40 wager after the banker wager edited to $4,000 (over the
    table's $500: refused, so its replay makes other messages than those stored for it), the
    chain recomputed, no snapshot. A start replays it (applied records are only counted) and
    runs; its first input's outputs meet other messages stored under the same seqs."""
    sql(
        path,
        NO_SNAPSHOT,
        "UPDATE journal SET body = replace(body, '\"40.00\"', '\"4000.00\"') WHERE seq = ?",
        params=(WAGER + 1,),
    )
    rechain(path)


def outputs_differ(path: Path) -> None:
    """`edit_the_second_wager`, and the record the next start journaled before its outputs met
    the ones stored under the same seqs (a bank for round 3; that start stopped there): a start
    now replays the edit short of a message and makes that record's outputs under seqs that
    hold other messages."""
    edit_the_second_wager(path)
    journal = Journal(path, table=None)
    try:
        journal.append(ts(LAST + 1), "console", None, journal_body(bank(4, "200")))
    finally:
        journal.close()


def ts_not_text(path: Path) -> None:
    """The wager's time stored as a BLOB (a tool that wrote bytes where the journal keeps text)."""
    sql(
        path, NO_SNAPSHOT, "UPDATE journal SET ts = CAST(ts AS BLOB) WHERE seq = ?", params=(WAGER,)
    )


def record_deleted(path: Path) -> None:
    """The wager deleted from the middle, the others left where they were: a gap in the seqs."""
    sql(path, NO_SNAPSHOT, "DELETE FROM journal WHERE seq = ?", params=(WAGER,))
    rechain(path)


def end_cut_off(path: Path) -> None:
    """The last three records deleted: the outbox's applied mark points past the journal's end."""
    sql(path, "DELETE FROM journal WHERE seq > ?", params=(LAST - 3,))


def live_file_without_its_start(path: Path) -> None:
    """A live file after a month closed (round 1 and the records before it went into a
    segment), the segment not here, and the snapshot the live file replays from garbled (its
    row intact)."""
    closed = WAGER - 2  # round 1's last record
    db = sqlite3.connect(path)
    try:
        row = db.execute("SELECT hash FROM journal WHERE seq = ?", (closed,)).fetchone()
    finally:
        db.close()
    sql(
        path,
        f"DELETE FROM journal WHERE seq <= {closed}",
        f"INSERT INTO meta (key, value) VALUES ('first_seq', '{closed + 1}'), ('month', '2026-11')",
        "UPDATE snapshots SET body = X'00112233445566778899'",
        "INSERT INTO meta (key, value) VALUES ('prev_hash', ?)",
        params=(bytes(row[0]).hex(),),
    )


def import_unfinished(path: Path) -> None:
    """An import stopped part way: the file still carries meta `importing`."""
    sql(path, "INSERT INTO meta (key, value) VALUES ('importing', '1')")


def unknown_schema(path: Path) -> None:
    """A journal schema this tablectl does not know (a newer tablectl's file, or an edit)."""
    sql(path, "UPDATE meta SET value = '9' WHERE key = 'schema'")


def not_a_database(path: Path) -> None:
    """The file overwritten with bytes that are not SQLite's (a disk or a copy gone wrong)."""
    path.write_bytes(b"not a journal\n" * 512)


@dataclass(frozen=True)
class Kind:
    """One way to break a journal: `doctor` does it to the file; the held table must name
    `record` (None: the file itself) and say `says` in its reason."""

    doctor: Callable[[Path], None]
    record: int | None
    says: str


KINDS: dict[str, Kind] = {
    "body-not-json": Kind(body_not_json, WAGER, "its body is not JSON: Expecting"),
    "body-not-an-object": Kind(body_not_an_object, WAGER, "its body is JSON but not an object"),
    "outputs-differ": Kind(outputs_differ, LAST + 1, "differs from what the journal now produces"),
    "ts-not-text": Kind(ts_not_text, WAGER, "its ts is a BLOB of 27 bytes, not text"),
    "record-deleted": Kind(record_deleted, WAGER, "it is missing (removed): record 13 follows"),
    "end-cut-off": Kind(
        end_cut_off, LAST - 2, "records after 16 were removed: outputs exist up to record 19"
    ),
    "live-file-without-its-start": Kind(
        live_file_without_its_start, WAGER - 1, "the journal starts here and holds no sound"
    ),
    "import-unfinished": Kind(import_unfinished, None, "an import did not finish"),
    "unknown-schema": Kind(unknown_schema, None, "has journal schema 9, written by a newer"),
    "not-a-database": Kind(not_a_database, None, "is not a tablectl journal"),
}
"""The ten kinds, by name."""


def rows_kept(path: Path) -> list[tuple[Any, ...]]:
    """Everything a held table must leave as it found it: every record as stored, the applied
    mark, the snapshots, the meta and the key starts, and each outbox row but its sent flag;
    or the bytes of a file SQLite cannot read."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            out: list[tuple[Any, ...]] = []
            for query in (
                "SELECT * FROM journal ORDER BY seq",
                "SELECT * FROM applied",
                "SELECT journal_seq, hash, body FROM snapshots ORDER BY journal_seq",
                "SELECT key, value FROM meta ORDER BY key",
                "SELECT * FROM keys ORDER BY first_seq",
                "SELECT seq, journal_seq, topic, payload FROM outbox ORDER BY seq",
            ):
                out += [(query, *row) for row in db.execute(query)]
            return out
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return [("bytes", path.read_bytes())]
