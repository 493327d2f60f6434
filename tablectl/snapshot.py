"""Checkpoints: everything a `Table` holds, as canonical bytes, and a table rebuilt from them.

A snapshot is derived data (issue 10 item 1): the journal alone decides the table, and a snapshot
only spares a restart from replaying the records before it. So the encoding is canonical (the
same table gives the same bytes however it was reached: replayed from the first record or
restored from an earlier snapshot), which is what `verify-journal --deep` compares.

The encoding is typed JSON, not pickle: a journal file someone edited must never be able to run
code. Objects are tagged with their class and only tablectl's own dataclasses, enums and pydantic
models are rebuilt (`_allowed`); anything else is refused as a corrupt snapshot.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import zlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

from tablectl import __version__
from tablectl.chainkey import ChainKey
from tablectl.config import LoadedConfig, Rules
from tablectl.games.registry import make_engine
from tablectl.journal import SNAPSHOTS_KEPT, Journal, Record, Snapshot, Verification
from tablectl.table import CommandIds, Table
from tablectl_base.cards import Card, parse_card

FORMAT = 4
"""The snapshot format. A tablectl that cannot read a stored format skips that snapshot and
replays from an older one it can read, or from the first record. 2: the table's open alerts
and pace (issue 14), which a format 1 snapshot does not hold. 3: the bet timer's clock
(`Table.bet_clock`, R28). 4: each remembered command id with its record's time (R54: a day of
ids, `table.CommandIds`), where format 3 held the newest 4,096 ids without their times, which
cannot be told apart from the window's: such a snapshot is rebuilt from the records."""

_PACKAGES = ("tablectl.", "tablectl_base.")
"""Where the classes a snapshot may name live (tablectl's own, and the leaf package it shares
with its drivers)."""

MOVED: dict[str, str] = {
    f"tablectl.{name}": f"tablectl_base.{name}"
    for name in ("backoff", "cards", "money", "events", "positions")
} | {  # a class that moved out of its module, by its whole name: the betting structures
    f"tablectl.rules.betting:{name}": f"tablectl.rules.betting_structures:{name}"
    for name in ("FixedLimit", "SpreadLimit", "PotLimit", "NoLimit")
}
"""Modules that moved since snapshots were first written (into the leaf package, issue 11): a
snapshot naming a class by its old module still reads."""


class SnapshotError(ValueError):
    """Bytes that are not a snapshot this tablectl can rebuild a table from."""


def encode(table: Table) -> bytes:
    """The table's whole state as canonical JSON bytes (not compressed)."""
    doc = {
        "format": FORMAT,
        "table": table.table_id,
        "position": table.position,
        "seq": table.seq,
        "rules": table.rules.to_json(),
        "rules_journaled": table.rules_journaled,
        "state": _enc(table.state),
        **_encode_ids(table._refs),
        "faults": _enc(table.faults),
        "unavailable": sorted(table.unavailable),
        "serials": _enc(table.serials),
        "round_devices": sorted(table.round_devices),
        "held": table.held,
        "held_inputs": _enc(table.held_inputs),
        "ledgers": _enc(table.ledgers),
        "round_positions": _enc(table.round_positions),
        "open_alerts": _enc(table.open_alerts),
        "pace": _enc(table.pace),
        "bet_clock": _enc(table.bet_clock),
    }
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def pack(table: Table) -> tuple[bytes, str]:
    """What is stored: the compressed encoding and the SHA-256 of the encoding."""
    data = encode(table)
    return zlib.compress(data, 6), hashlib.sha256(data).hexdigest()


def unpack(blob: bytes, digest: str) -> bytes:
    """The encoding back from what was stored, or SnapshotError if it is not what was stored."""
    try:
        data = zlib.decompress(blob)
    except zlib.error as exc:
        raise SnapshotError(f"not a compressed snapshot: {exc}") from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise SnapshotError("its contents do not match their digest (damaged)")
    return data


def restore(cfg: LoadedConfig, data: bytes) -> Table:
    """A table exactly as it was when `data` was encoded, for the config's table."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise SnapshotError(f"not JSON: {type(exc).__name__}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise SnapshotError(f"format {found!r}, this tablectl reads format {FORMAT}")
    if doc.get("table") != cfg.table.table:
        raise SnapshotError(f"a snapshot of table {doc.get('table')!r}")
    try:
        return _restore(cfg, doc)
    except SnapshotError:
        raise
    except Exception as exc:  # whatever the bytes hold, a bad snapshot is only ever skipped
        raise SnapshotError(f"unreadable: {type(exc).__name__}: {exc}") from None


def _restore(cfg: LoadedConfig, doc: dict[str, Any]) -> Table:
    table = Table(cfg)
    rules = Rules.model_validate(doc["rules"])
    if rules != table.rules:
        table.engine = make_engine(rules)
    table.rules = rules
    table.rules_journaled = bool(doc["rules_journaled"])
    table.position = int(doc["position"])
    table.seq = int(doc["seq"])
    table.state = _dec(doc["state"])
    table._refs = CommandIds(_decode_ids(doc["refs"], doc["ref_times"]))
    table.faults = _dec(doc["faults"])
    table.unavailable = set(doc["unavailable"])
    table.serials = _dec(doc["serials"])
    table.round_devices = set(doc["round_devices"])
    table.held = doc["held"]
    table.held_inputs = _dec(doc["held_inputs"])
    table.ledgers = _dec(doc["ledgers"])
    table.round_positions = _dec(doc["round_positions"])
    table.open_alerts = _dec(doc["open_alerts"])
    table.pace = _dec(doc["pace"])
    table.bet_clock = _dec(doc["bet_clock"])
    kind = type(table.engine.initial())
    if type(table.state) is not kind:
        raise SnapshotError(f"its state is a {type(table.state).__name__}, not a {kind.__name__}")
    return table


def _encode_ids(ids: CommandIds) -> dict[str, list[Any]]:
    """The remembered command ids, oldest first (`refs`), and their records' times
    (`ref_times`): microseconds since 1970, each as the step from the time before it (the
    first from 0), which a day of ids (some 25,000 at a busy table) compresses far better
    than the times themselves."""
    refs: list[str] = []
    steps: list[int] = []
    before = 0
    for key, when in ids:
        refs.append(key)
        steps.append(when - before)
        before = when
    return {"refs": refs, "ref_times": steps}


def _decode_ids(refs: Any, steps: Any) -> list[tuple[str, int]]:
    """What `_encode_ids` wrote, back as (id, time) pairs; SnapshotError if it is not that."""
    if not (isinstance(refs, list) and isinstance(steps, list) and len(refs) == len(steps)):
        raise SnapshotError("the remembered command ids and their times do not pair up")
    out: list[tuple[str, int]] = []
    when = 0
    for key, step in zip(refs, steps, strict=True):
        if not isinstance(key, str) or type(step) is not int:
            raise SnapshotError(f"a remembered command id is not an id and a time: {key!r}"[:200])
        when += step
        out.append((key, when))
    if len({key for key, _ in out}) != len(out):
        raise SnapshotError("a command id is remembered twice")
    return out


# -- the typed JSON codec ------------------------------------------------------------------------
# Plain JSON values stand for themselves; everything else is an object with one "$..." tag. A
# mapping whose keys are not all plain strings (or that could be mistaken for a tag) is a list
# of pairs, so no value can be read back as something else.


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _enc(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, Card):
        return {"$c": str(v)}
    if isinstance(v, Decimal):
        return {"$d": str(v)}
    if isinstance(v, Enum):
        return {"$e": _name(type(v)), "v": _enc(v.value)}
    if isinstance(v, Record):
        return {"$r": [v.seq, v.ts, v.source, v.ref, v.body, v.prev_hash, v.hash, v.key, v.witness]}
    if isinstance(v, BaseModel):
        return {"$m": _name(type(v)), "v": json.loads(v.model_dump_json())}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        fields = {f.name: _enc(getattr(v, f.name)) for f in dataclasses.fields(v) if f.init}
        return {"$o": _name(type(v)), "v": fields}
    if isinstance(v, tuple):
        return {"$t": [_enc(x) for x in v]}
    if isinstance(v, list):
        return [_enc(x) for x in v]
    if isinstance(v, (set, frozenset)):
        items = sorted((_enc(x) for x in v), key=_sort_key)
        return {"$fs" if isinstance(v, frozenset) else "$s": items}
    if isinstance(v, Mapping):
        if all(isinstance(k, str) and not k.startswith("$") for k in v):
            return {k: _enc(x) for k, x in v.items()}
        return {"$map": [[_enc(k), _enc(x)] for k, x in v.items()]}
    raise TypeError(f"a snapshot cannot hold a {type(v).__name__}")


def _sort_key(encoded: Any) -> str:
    return json.dumps(encoded, sort_keys=True)


def _dec(v: Any) -> Any:
    if isinstance(v, list):
        return [_dec(x) for x in v]
    if not isinstance(v, dict):
        return v
    if len(v) == 1 or (len(v) == 2 and "v" in v):
        tag = next((k for k in v if k.startswith("$")), None)
        if tag is not None:
            return _tagged(tag, v[tag], v.get("v"))
    return {k: _dec(x) for k, x in v.items()}


def _tagged(tag: str, arg: Any, value: Any) -> Any:
    if tag == "$c":
        return parse_card(arg)
    if tag == "$d":
        return Decimal(arg)
    if tag == "$t":
        return tuple(_dec(x) for x in arg)
    if tag == "$s":
        return {_dec(x) for x in arg}
    if tag == "$fs":
        return frozenset(_dec(x) for x in arg)
    if tag == "$map":
        return {_dec(k): _dec(x) for k, x in arg}
    if tag == "$r":
        return Record(*arg)
    cls = _allowed(arg)
    if tag == "$e" and issubclass(cls, Enum):
        return cls(_dec(value))
    if tag == "$m" and issubclass(cls, BaseModel):
        return cls.model_validate_json(json.dumps(value))
    if tag == "$o" and dataclasses.is_dataclass(cls):
        return cls(**{k: _dec(x) for k, x in value.items()})
    raise SnapshotError(f"unknown tag {tag} for {arg}")


def _allowed(name: Any) -> type:
    """One of tablectl's own classes, by the name `_name` gave it; nothing else is rebuilt."""
    if not isinstance(name, str) or ":" not in name:
        raise SnapshotError(f"not a class name: {name!r}")
    module, _, qualname = MOVED.get(name, name).partition(":")
    module = MOVED.get(module, module)
    if not module.startswith(_PACKAGES):
        raise SnapshotError(f"{name} is not one of tablectl's classes")
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise SnapshotError(f"no class {name} in this tablectl") from None
    if not isinstance(obj, type):
        raise SnapshotError(f"{name} is not a class")
    return obj


# -- stored checkpoints --------------------------------------------------------------------------


def take(table: Table, journal: Journal, *, keep: int = SNAPSHOTS_KEPT) -> Snapshot:
    """Store the table's state after its last applied record in `journal`."""
    chain = journal.hash_at(table.position)
    if chain is None:
        raise SnapshotError(f"the journal has no record {table.position} to key a snapshot to")
    body, digest = pack(table)
    snap = Snapshot(table.position, chain, FORMAT, __version__, digest, body)
    journal.store_snapshot(snap, keep=keep)
    return snap


def newest_usable(
    cfg: LoadedConfig,
    journal: Journal,
    *,
    upto: int | None = None,
    keys: Sequence[ChainKey] = (),
) -> tuple[Table | None, list[str]]:
    """The table rebuilt from the newest snapshot that is sound (readable, undamaged, of a
    format this tablectl reads, keyed to the record the journal still has at its place), at or
    before record `upto`; None if there is none (replay from the first record). The notes say
    which snapshots were passed over and why. With `keys` (the table's chain key), only a
    snapshot signed with one of them is trusted: a snapshot forged without the key is skipped."""
    notes: list[str] = []
    for snap in journal.snapshots():
        if upto is not None and snap.journal_seq > upto:
            continue
        why = _unusable(journal, snap, keys)
        if why is None:
            try:
                table = restore(cfg, unpack(snap.body, snap.digest))
            except SnapshotError as exc:
                why = str(exc)
            else:
                if table.position == snap.journal_seq:
                    return table, notes
                why = f"it holds the state after record {table.position}, not {snap.journal_seq}"
        notes.append(f"snapshot after record {snap.journal_seq} skipped: {why}")
    return None, notes


def _unusable(journal: Journal, snap: Snapshot, keys: Sequence[ChainKey]) -> str | None:
    if keys and not any(snap.made_with(k) for k in keys):
        signed = f"signed with key {snap.key}" if snap.key else "not signed"
        return f"{signed}, not with the table's key (forged, or from before a key rotation)"
    if snap.format != FORMAT:
        return f"format {snap.format} (made by tablectl {snap.made_by}), this one reads {FORMAT}"
    have = journal.hash_at(snap.journal_seq)
    if have is None:
        return f"the journal has no record {snap.journal_seq}"
    if have != snap.hash:
        return f"record {snap.journal_seq} is not the record it was taken after (hash differs)"
    return None


def rebuild(
    cfg: LoadedConfig, files: Sequence[Journal], upto: int, *, keys: Sequence[ChainKey] = ()
) -> tuple[Table, list[str]]:
    """The table after record `upto`, from the newest sound snapshot at or before it in any of
    `files` (a journal's segments, oldest first) and the records after it; from the first
    record when there is none (SnapshotError if the first record is not among `files`)."""
    notes: list[str] = []
    table: Table | None = None
    for f in reversed(files):
        table, skipped = newest_usable(cfg, f, upto=upto, keys=keys)
        notes += skipped
        if table is not None:
            break
    if table is None:
        if not files or files[0].first_seq > 1:
            raise SnapshotError(
                "no sound snapshot, and the first record is not here to replay from"
            )
        table = Table(cfg)
    for f in files:
        if f.last_seq <= table.position:
            continue
        for rec in f.records(after=max(table.position, f.first_seq - 1)):
            if rec.seq > upto:
                break
            table.advance(rec)
    if table.position != upto:
        raise SnapshotError(f"the records end at {table.position}, not at {upto}")
    return table, notes


def deep_check(cfg: LoadedConfig, files: Sequence[Journal]) -> Verification:
    """Replay every record from the first and prove each stored snapshot (in any of `files`)
    byte-equal to the state the replay reaches at its record: a snapshot is derived data, and a
    wrong one must never be trusted at a restart."""
    stored: dict[int, list[tuple[str, Snapshot]]] = {}
    for f in files:
        named = f"{f.path.name}: " if len(files) > 1 else ""
        for snap in f.snapshots():
            stored.setdefault(snap.journal_seq, []).append((named, snap))
    result = Verification(0)
    if files[0].first_seq > 1:
        stored.pop(files[0].first_seq - 1, None)  # where the replay starts: nothing to prove
        table, _ = rebuild(cfg, files[:1], upto=files[0].first_seq - 1)
        result.notes.append(
            f"replayed from the snapshot after record {files[0].first_seq - 1} (the records "
            "before it are not here): snapshots are proved from there on"
        )
    else:
        table = Table(cfg)
    checked = 0
    for f in files:
        if f.last_seq <= table.position:
            continue
        for rec in f.records(after=max(table.position, f.first_seq - 1)):
            table.advance(rec)
            result.records += 1
            for where, snap in stored.pop(rec.seq, []):
                if snap.format != FORMAT:  # the daemon skips it too: not a finding
                    result.notes.append(
                        f"{where}snapshot after record {rec.seq} is format {snap.format} "
                        f"(tablectl {snap.made_by}); this one reads {FORMAT}: not checked"
                    )
                    continue
                checked += 1
                problem = _differs(cfg, table, snap)
                if problem is not None:
                    result.problems.append(f"{where}snapshot after record {rec.seq}: {problem}")
    for seq, found in sorted(stored.items()):
        for where, _ in found:
            if seq >= table.position:
                result.problems.append(
                    f"{where}snapshot after record {seq}, but the records end at "
                    f"{table.position}: records removed"
                )
    result.notes.append(f"{checked} snapshots equal the state replayed from the records")
    return result


def _differs(cfg: LoadedConfig, table: Table, snap: Snapshot) -> str | None:
    """Why a stored snapshot is not the replayed state, or None. Byte-equal is equal; otherwise
    the snapshot is read back and encoded again, so one written before a class moved (its old
    `module:qualname` still resolves, e.g. a game that became a package) is proved by what it
    holds, not by the names it was written with."""
    try:
        data = unpack(snap.body, snap.digest)
    except SnapshotError as exc:
        return str(exc)
    replayed = encode(table)
    if data == replayed:
        return None
    try:
        again = encode(restore(cfg, data))
    except SnapshotError as exc:
        return f"differs from the state replayed from the records ({exc})"
    if again != replayed:
        return "differs from the state replayed from the records"
    return None
