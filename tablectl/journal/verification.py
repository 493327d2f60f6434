"""Checking a journal file: the public chain record by record, the keyed hashes and key starts
with the table's keys, the signed start and snapshots, and the published heads against it.

Whoever can edit the file can also recompute the public chain, so two things make a rewrite
detectable (docs/operations.md, "Checking the journal"): a keyed hash per record under the
table's chain key (its key starts keyed too, so a key cannot be dropped, moved or swapped), and
the chain heads the table published (tablectl/journal/heads.py), which the floor keeps. What was
not checked is said in the notes. `Journal.check` runs this on one file; `History.check`
(tablectl/journal/segments.py) on the live file and its closed segments as one journal.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tablectl.journal.chain import record_bytes, start_data
from tablectl.journal.rows import BODIES_KEPT, body_problem, field_problem
from tablectl.journal.schema import hash_hex
from tablectl.records import Verification

if TYPE_CHECKING:
    from tablectl.chainkey import ChainKey
    from tablectl.journal.heads import Head
    from tablectl.journal.store import Journal


def check(
    journal: Journal,
    keys: Sequence[ChainKey] = (),
    heads: Sequence[Head] = (),
    *,
    last: bool = True,
) -> Verification:
    """The public chain, record by record; with `keys` (the table's key ring) every keyed hash
    and key start too; with `heads` (collected off MQTT) every published head against the
    journal. Without a key a rewrite that recomputes the public chain cannot be seen: the
    notes say so, and what else was left unchecked. `last`: this file ends the history (a
    closed segment does not: a key taken up after it closed is not missing from it)."""
    problems: list[str] = []
    ring = {k.id: k for k in keys}
    hashes: dict[int, str] = {}
    checked: dict[str, list[int]] = defaultdict(list)  # key id -> records proved with it
    unchecked: dict[str, list[int]] = defaultdict(list)  # key id -> records not provable
    unkeyed: list[int] = []
    prev, expect = journal.start_hash, journal.first_seq
    rows = journal.db.execute(
        f"SELECT seq, ts, source, ref, body, hash, {journal.mac_column} FROM journal ORDER BY rowid"
    )
    last_seq, last_hash = journal.first_seq - 1, journal.start_hash
    readable: set[str] = set()  # bodies `body_problem` found sound, up to BODIES_KEPT
    for seq, ts, source, ref, body, stored, stored_mac in rows:
        digest, mac = hash_hex(stored), hash_hex(stored_mac)
        if seq != expect:
            if seq > expect:
                problems.append(f"record {seq}: records {expect}-{seq - 1} are missing (removed)")
            else:
                problems.append(f"record {seq}: out of order after record {expect - 1}")
        fields = field_problem(ts, source, ref, body)
        unreadable = fields
        if fields is None and body not in readable:  # one met before parses the same
            unreadable = body_problem(body)
            if unreadable is None and len(readable) < BODIES_KEPT:
                readable.add(body)
        if unreadable is not None:
            problems.append(f"record {seq}: cannot be read: {unreadable}")
            if fields is not None:  # no bytes to hash
                assert digest is not None
                hashes.setdefault(seq, digest)
                prev, expect = digest, seq + 1
                last_seq, last_hash = seq, digest
                continue
        data = record_bytes(prev, seq, ts, source, ref, body)
        if hashlib.sha256(data).hexdigest() != digest:
            problems.append(
                f"record {seq}: contents altered, or it does not follow the record before it "
                "(hash mismatch)"
            )
        start = journal.key_at(seq)
        if start is None:
            unkeyed.append(seq)
            if mac is not None:
                problems.append(
                    f"record {seq}: carries a keyed hash where no key is in force "
                    "(the journal's key starts were altered)"
                )
        elif (key := ring.get(start.key_id)) is None:
            unchecked[start.key_id].append(seq)
        elif mac is None:
            problems.append(
                f"record {seq}: keyed hash missing (key {start.key_id} is in force from "
                f"record {start.first_seq}): rewritten without the key"
            )
        elif not hmac.compare_digest(mac, key.mac(data)):
            problems.append(
                f"record {seq}: keyed hash does not match (key {start.key_id}): "
                "contents or place rewritten without the key"
            )
        else:
            checked[start.key_id].append(seq)
        assert digest is not None
        hashes.setdefault(seq, digest)
        prev, expect = digest, seq + 1
        last_seq, last_hash = seq, digest
    problems += [text for _, text in end_problems(journal, last_seq, last_hash)]
    if journal.meta("importing") is not None:  # Journal.import_records stopped part way
        problems.append("an import did not finish: move it away and import again")
    result = Verification(len(hashes), problems)
    _check_key_starts(journal, result, ring, hashes, last_seq, ends=last)
    _check_snapshots(journal, result, ring)
    _check_start(journal, result, ring)
    _check_heads(journal, result, heads, hashes, last_seq)
    top = max((h.seq for h in heads), default=0)
    _notes(journal, result, ring, checked, unchecked, unkeyed, (min(top, last_seq), last_seq))
    return result


def end_problems(journal: Journal, last_seq: int, last_hash: str) -> list[tuple[int, str]]:
    """Where the outbox says the journal went on past its last record (`last_seq`, whose
    hash is `last_hash`): its end was cut off, or its last record replaced. Each as (the
    first record concerned, what is wrong); empty when the end is the one the outputs
    came from."""
    problems: list[tuple[int, str]] = []
    applied = journal.db.execute("SELECT journal_seq, hash FROM applied WHERE id = 1").fetchone()
    if applied:
        a_seq, a_hash = applied
        if a_seq > last_seq:
            problems.append(
                (
                    last_seq + 1,
                    f"records after {last_seq} were removed: outputs exist up to record {a_seq}",
                )
            )
        elif a_seq == last_seq and a_hash != last_hash:
            problems.append(
                (a_seq, f"record {a_seq}: differs from the record its outputs came from")
            )
    top = journal.db.execute("SELECT max(journal_seq) FROM outbox").fetchone()[0]
    if top is not None and top > last_seq and not (applied and applied[0] > last_seq):
        problems.append(
            (
                last_seq + 1,
                f"records after {last_seq} were removed: outputs refer to record {top}",
            )
        )
    return problems


def _check_key_starts(
    journal: Journal,
    result: Verification,
    ring: dict[str, ChainKey],
    hashes: dict[int, str],
    last: int,
    *,
    ends: bool = True,
) -> None:
    """Each key start where the records say, after the key before it, made with its key; and
    with a key ring, the journal must end under one of its keys (a journal whose keys were
    stripped and whose public chain was recomputed ends unkeyed)."""
    problems = result.problems
    before: str | None = None
    for start in journal.key_starts:
        name = f"key {start.key_id} from record {start.first_seq}"
        if start.prev_key != before:
            problems.append(
                f"{name}: names key {start.prev_key or 'none'} before it, the journal has "
                f"{before or 'none'} (key starts removed or inserted)"
            )
        if start.first_seq > last + 1:
            problems.append(f"{name}: the journal ends at record {last} (records removed)")
        prev = (
            journal.start_hash
            if start.first_seq == journal.first_seq
            else hashes.get(start.first_seq - 1)
        )
        if prev is not None and prev != start.prev_hash:
            problems.append(
                f"{name}: does not follow record {start.first_seq - 1} "
                "(records before it were rewritten)"
            )
        key = ring.get(start.key_id)
        if key is not None and not start.made_with(key):
            problems.append(f"{name}: not made with that key (forged)")
        before = start.key_id
    if not ring or not ends:
        return
    end = journal.key_starts[-1] if journal.key_starts else None
    given = ", ".join(sorted(ring))
    if end is None:
        problems.append(
            f"no record is keyed (keys given: {given}): the journal was never keyed, or its "
            "keyed hashes were stripped and its chain recomputed"
        )
    elif end.key_id not in ring:
        span = f"records {end.first_seq}-{last}" if last >= end.first_seq else "new records"
        problems.append(
            f"key {end.key_id}, in force from record {end.first_seq}, was not given "
            f"(keys given: {given}): {span} cannot be checked"
        )


def _check_start(journal: Journal, result: Verification, ring: dict[str, ChainKey]) -> None:
    """A file that starts after record 1 (records went into a closed segment) says where,
    signed with the key in force then: with the key, a front cut off and the start
    rewritten to match is evident."""
    if journal.first_seq == 1 or not ring:
        return
    where = (
        f"the journal's start (record {journal.first_seq}, after hash {journal.start_hash[:16]})"
    )
    key_id, mac = journal.meta("start_key"), journal.meta("start_mac")
    if key_id is None or mac is None:
        keyed = journal.key_at(journal.first_seq) is not None
        if keyed:
            result.problems.append(
                f"{where} is not signed, in a keyed journal: records before it may have been "
                "cut off without the key"
            )
        return
    key = ring.get(key_id)
    if key is None:
        result.notes.append(f"{where}: signed with key {key_id}, which was not given")
    elif not hmac.compare_digest(
        mac, key.mac(start_data(journal.first_seq, journal.start_hash, key_id))
    ):
        result.problems.append(f"{where}: its keyed hash does not match: rewritten")


def _check_snapshots(journal: Journal, result: Verification, ring: dict[str, ChainKey]) -> None:
    """With keys: every stored snapshot signed with the table's key, where it belongs. A
    snapshot is what a restart trusts, so one forged or moved without the key is tampering
    even though the records are intact."""
    if not ring:
        return
    keyed_from = journal.key_starts[0].first_seq if journal.key_starts else None
    for snap in journal.snapshots():
        where = f"snapshot after record {snap.journal_seq}"
        if snap.key is None:
            if keyed_from is not None and snap.journal_seq + 1 >= keyed_from:
                result.problems.append(
                    f"{where}: not signed, in a keyed journal (added without the key)"
                )
        elif (key := ring.get(snap.key)) is None:
            result.notes.append(f"{where}: signed with key {snap.key}, which was not given")
        elif not snap.made_with(key):
            result.problems.append(
                f"{where}: its keyed hash does not match (key {snap.key}): forged or moved "
                "without the key"
            )


def _check_heads(
    journal: Journal, result: Verification, heads: Sequence[Head], hashes: dict[int, str], last: int
) -> None:
    """Every published head the journal contradicts."""
    origin = journal.provenance
    if origin is not None:
        result.notes.append(
            f"records {origin.first}-{origin.last} were imported from an export on "
            f"{origin.ts[:19]} (last record's hash {origin.last_hash[:16]}...): this "
            "table's key signed them then; the old table's heads tie them to what it "
            "published"
        )
    for h in heads:
        if h.seq < journal.first_seq:
            continue  # in a closed segment: checked there (segments.History)
        where = f"head from {h.where}"
        have = hashes.get(h.seq)
        if h.seq > last:
            result.problems.append(
                f"{where}: record {h.seq} was published (hash {h.hash[:16]}), but the journal "
                f"ends at record {last}: records removed"
            )
        elif have != h.hash:
            shown = have[:16] if have is not None else "no such record"
            result.problems.append(
                f"{where}: record {h.seq} was published with hash {h.hash[:16]}, the journal "
                f"has {shown}: rewritten"
            )
        elif h.key_known:
            key = journal.published_key(h.seq, origin)
            if key != h.key:
                result.problems.append(
                    f"{where}: record {h.seq} was published under key {h.key or 'none'}, the "
                    f"journal says {key or 'none'}: its key starts were altered"
                )
    if heads:
        top = max(h.seq for h in heads)
        result.notes.append(f"checked against {len(heads)} published heads, up to record {top}")


def _notes(
    journal: Journal,
    result: Verification,
    ring: dict[str, ChainKey],
    checked: dict[str, list[int]],
    unchecked: dict[str, list[int]],
    unkeyed: list[int],
    span: tuple[int, int],
) -> None:
    """What was and was not checked; `span`: the last record a published head covers, and
    the journal's last record."""
    notes = result.notes
    for key_id, seqs in checked.items():
        notes.insert(0, f"{_span(seqs)}: keyed hashes checked with key {key_id}")
    for key_id, seqs in unchecked.items():
        if ring:
            notes.append(
                f"{_span(seqs)}: made with key {key_id}, which was not given: their contents "
                "are not checked, only their place in the chain"
            )
        else:
            notes.append(f"{_span(seqs)}: keyed with key {key_id}, not checked (no key given)")
    if unkeyed and (ring or journal.key_starts):
        sealed = journal.key_starts and journal.key_starts[0].key_id in ring
        notes.append(
            f"{_span(unkeyed)}: unkeyed (from before the journal was keyed)"
            + ("; the keyed record after them seals their hashes" if sealed else "")
        )
    witnessed, last = span
    if not ring and witnessed == 0:
        notes.append(
            "no key given: only the public SHA-256 chain was checked, which whoever edits the "
            "file can recompute; check with the table's key (--key, or key_file in the "
            "config) or against published heads (--against)"
        )
    elif not ring and witnessed < last:
        notes.append(
            f"no key given: records {witnessed + 1}-{last}, after the last head, are checked "
            "only by the public SHA-256 chain, which whoever edits the file can recompute"
        )


def _span(seqs: Sequence[int]) -> str:
    return f"record {seqs[0]}" if len(seqs) == 1 else f"records {seqs[0]}-{seqs[-1]}"
