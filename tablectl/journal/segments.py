"""Dated segments: the journal closed month by month into files of their own.

The live journal holds the current month's records; at the first checkpoint (a round boundary)
of a new month, its records go into `<journal>-<YYYY-MM>.db` beside it and the live file carries
on from the next record. The hash chain runs on across files unchanged: a segment records the
hash its first record follows, so a missing, altered or reordered segment is as evident as an
altered record. `tablectl archive` moves closed segments to an archive folder (docs/operations.md
"Storage"); `History` reads the live journal and every segment it can find as one journal, for
verify-journal, recall and export.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tablectl.chainkey import ChainKey
from tablectl.journal.errors import JournalError
from tablectl.journal.store import Journal
from tablectl.paths import folder_problem, not_a_file, not_a_folder
from tablectl.records import Record, Verification, month_of

if TYPE_CHECKING:
    from tablectl.journal.heads import Head

_MONTH = re.compile(r"^\d{4}-\d{2}$")


def segment_path(live: Path, month: str, folder: Path | None = None) -> Path:
    """Where the segment of `month` lives: beside the live journal, or in `folder`."""
    return (folder or live.parent) / f"{live.stem}-{month}{live.suffix}"


class SegmentPathError(JournalError):
    """Something that is not a regular file (a FIFO, a device, a folder) under a segment's name:
    refused unopened, as SQLite would wait on a FIFO for ever."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path} is {what}, not a journal segment (a regular file): move it away")
        self.path = path
        self.what = what


def segment_files(live: Path, folder: Path | None = None) -> list[Path]:
    """The closed segments of the journal at `live` found in `folder` (default: beside it);
    SegmentPathError if a segment's name there is taken by anything but a regular file."""
    where = folder or live.parent
    found = []
    for path in where.glob(f"{live.stem}-*{live.suffix}"):
        if _MONTH.match(_named_month(live, path)):
            why = not_a_file(path)
            if why is not None:
                raise SegmentPathError(path, why)
            found.append(path)
    return sorted(found)


def _named_month(live: Path, path: Path) -> str:
    """The month in a segment's file name (`journal-2026-10.db` -> "2026-10")."""
    return path.name[len(live.stem) + 1 : len(path.name) - len(live.suffix)]


def due(journal: Journal, now: str) -> bool:
    """Whether the live journal holds records of a month before `now`'s."""
    month = journal.month
    return month is not None and month < month_of(now) and journal.last_seq >= journal.first_seq


def close_month(journal: Journal, now: str) -> Path:
    """Move every record of the live `journal` into the segment of the month they began in;
    the live file carries on after them as `now`'s month.

    The caller has just stored a snapshot after the last record: it stays in the live file,
    which replays from it. The segment is written whole (to a temporary name, fsync'd, renamed)
    before anything leaves the live file; a crash in between leaves the records in both, and
    `History` reads the live file's copy."""
    last = journal.last_seq
    if not any(s.journal_seq == last for s in journal.snapshots()):
        raise JournalError(f"no snapshot after record {last}: a segment closes at a checkpoint")
    month = journal.month
    assert month is not None
    final = segment_path(journal.path, month)
    why = not_a_file(final)
    if why is not None:  # a rename would replace it (or fail, on a folder): never done blindly
        raise SegmentPathError(final, why)
    tmp = final.with_name(final.name + ".tmp")
    for stale in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        stale.unlink(missing_ok=True)
    Journal(tmp, table=journal.table).close()  # the schema, created 0600
    db = journal.db
    db.execute("ATTACH DATABASE ? AS seg", (str(tmp),))
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            _fill_segment(db, journal, month, last)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.execute("DETACH DATABASE seg")
    _seal(tmp)
    os.replace(tmp, final)
    _fsync(final.parent)
    journal.drop_closed(last, month_of(now))
    return final


def _fill_segment(db: sqlite3.Connection, journal: Journal, month: str, last: int) -> None:
    """The segment: its records, every key start, its own start and the snapshot it opens
    with (a later recall replays it from there); no outbox, nothing applied."""
    opening = journal.first_seq - 1
    db.execute("DELETE FROM seg.meta")
    db.execute(
        "INSERT INTO seg.meta SELECT key, value FROM main.meta "
        "WHERE key NOT IN ('first_seq', 'prev_hash', 'month')"
    )
    last_ts = journal.ts_at(last)
    db.executemany(
        "INSERT INTO seg.meta (key, value) VALUES (?, ?)",
        [
            ("first_seq", str(journal.first_seq)),
            ("prev_hash", journal.start_hash),
            ("month", month),
            ("closed", str(last)),
            # Its newest record's month: retention counts from there, not from the name (a
            # segment closed after an import may hold many months).
            ("last_month", month_of(last_ts) if last_ts is not None else month),
        ],
    )
    db.execute("INSERT INTO seg.keys SELECT * FROM main.keys")
    db.execute("INSERT INTO seg.journal SELECT * FROM main.journal WHERE seq <= ?", (last,))
    db.execute(
        "INSERT INTO seg.snapshots SELECT * FROM main.snapshots WHERE journal_seq = ?", (opening,)
    )


def _seal(path: Path) -> None:
    """A closed segment as one self-contained file (no WAL beside it), on disk."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
    finally:
        db.close()
    _fsync(path)


def _fsync(path: Path) -> None:
    """A file's contents, or a folder's entries (a rename), on disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- reading across segments ---------------------------------------------------------------------


@dataclass
class History:
    """The live journal and its closed segments (beside it and in `archive`), oldest first,
    read as one journal. Opened read-only: nothing here changes a file."""

    files: list[Journal]
    notes: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, live: Path, table: str | None, archive: Path | None = None) -> History:
        why = not_a_file(live)
        if why is not None:  # SQLite would wait on a FIFO for ever: refused unopened
            raise JournalError(f"{live} is {why}, not a journal (a regular file)")
        if not live.exists():
            raise JournalError(f"no journal at {live}")
        paths = segment_files(live) + (segment_files(live, archive) if archive else [])
        head = Journal(live, table=table, readonly=True)
        table = head.table
        by_start: dict[int, Journal] = {}
        notes = []
        for path in paths:
            seg = Journal(path, table=table, readonly=True)
            if seg.first_seq >= head.first_seq or seg.first_seq in by_start:
                # A close the live file has not finished (it still holds these records), or
                # the same segment both beside the journal and in the archive.
                notes.append(f"{path}: also held by {by_start.get(seg.first_seq, head).path}")
                seg.close()
                continue
            by_start[seg.first_seq] = seg
        return cls([*(by_start[k] for k in sorted(by_start)), head], notes)

    @property
    def live(self) -> Journal:
        return self.files[-1]

    @property
    def last_seq(self) -> int:
        return self.live.last_seq

    def close(self) -> None:
        for f in self.files:
            f.close()

    def records(self, after: int = 0) -> Iterator[Record]:
        """Records with seq > `after` across every file, in order."""
        for f in self.files:
            if f.last_seq > after:
                yield from f.records(after=max(after, f.first_seq - 1))

    def check(self, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = ()) -> Verification:
        """Each file's own check, and that each file follows the one before it: no records
        missing between them, the first hash the one the previous file ended with."""
        total = Verification(0, notes=list(self.notes))
        first = self.files[0]
        if first.first_seq > 1:
            total.notes.append(
                f"records 1-{first.first_seq - 1} are not here (segments archived elsewhere?): "
                f"checked from record {first.first_seq}, after hash {first.start_hash[:16]}..."
            )
        anchored = any(h.anchor == "journal" for h in heads)  # record 1 itself: checked below
        early = [h for h in heads if h.seq < first.first_seq]
        if early and not anchored:
            total.notes.append(
                f"{len(early)} published heads are for records before {first.first_seq}, which "
                "are not here: not checked (give the archive)"
            )
        before: Journal | None = None
        for f in self.files:
            mine = [
                h
                for h in heads
                if f.first_seq <= h.seq <= f.last_seq or (f is self.live and h.seq > f.last_seq)
            ]
            result = f.check(keys, mine, last=f is self.live)
            # One file: its findings as they are; several: each named by its file.
            named = f"{f.path.name}: " if len(self.files) > 1 else ""
            total.records += result.records
            total.problems += [named + p for p in result.problems]
            total.notes += [named + n for n in result.notes]
            if before is not None:
                total.problems += _joined(before, f)
            before = f
        self._check_anchors(heads, total)
        return total

    def _check_anchors(self, heads: Sequence[Head], total: Verification) -> None:
        """The published anchors (`journal/start`, `journal/segment`): the history must begin
        where the earliest says (a front cut off, or its segments not given, fails), and each
        anchored record must follow the hash its anchor names. Their own hashes are checked
        with the other heads."""
        anchors = [h for h in heads if h.anchor is not None]
        if not anchors:
            if heads:
                total.notes.append(
                    "the heads hold no anchor (journal/start): whether records were cut off the "
                    "journal's front is not checked against them"
                )
            return
        begin = min(anchors, key=lambda h: h.seq)
        if not any(a.anchor == "journal" for a in anchors):
            total.notes.append(
                f"the heads hold no journal/start anchor (record 1): only that the journal "
                f"reaches back to record {begin.seq}, where a month's file began, is checked; "
                "records before it may have been cut off unseen"
            )
        first = self.files[0]
        if first.first_seq > begin.seq:
            total.problems.append(
                f"anchor from {begin.where}: the journal begins at record {begin.seq} (hash "
                f"{begin.hash[:16]}...), this one at record {first.first_seq}: records "
                f"{begin.seq}-{first.first_seq - 1} were cut off its front, or their segments "
                "were not given (--archive DIR)"
            )
        for a in anchors:
            before = self._hash_before(a.seq)
            if before is not None and before != a.prev_hash:
                total.problems.append(
                    f"anchor from {a.where}: record {a.seq} began a {a.anchor} file after hash "
                    f"{(a.prev_hash or '')[:16]}..., the journal has {before[:16]}... before it: "
                    "rewritten"
                )

    def _hash_before(self, seq: int) -> str | None:
        """The chain hash record `seq` follows, if the history holds it (or the start hash of
        the file that begins at `seq`)."""
        for f in self.files:
            if f.first_seq <= seq <= f.last_seq + 1:
                return f.hash_at(seq - 1)
        return None


def _joined(before: Journal, after: Journal) -> list[str]:
    if after.first_seq != before.last_seq + 1:
        return [
            f"{after.path.name}: starts at record {after.first_seq}, but {before.path.name} ends "
            f"at record {before.last_seq}: records or a segment missing between them"
        ]
    if after.start_hash != before.hash_at(before.last_seq):
        return [
            f"{after.path.name}: does not follow {before.path.name} (record {before.last_seq}'s "
            "hash differs from the one it continues from): a segment replaced or rewritten"
        ]
    return []


# -- archiving -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Archived:
    moved: list[Path]
    expired: list[Path]


def archive(
    live: Path,
    target: Path,
    *,
    keep_local: int,
    retain_months: int,
    today: datetime | None = None,
) -> Archived:
    """Move closed segments but the newest `keep_local` from beside the journal to `target`
    (copied, fsync'd, checked to read back whole, then removed here); with `retain_months`,
    delete archived segments whose month ended more than that many months ago. A `target` that
    is not a folder, or cannot be made for a file in its way, is refused (JournalError)."""
    why = not_a_folder(target)
    if why is not None:
        raise JournalError(f"archive {target} is {why}, not a folder")
    blocked = folder_problem(target)
    if blocked is not None:
        raise JournalError(f"archive {target} cannot be made: {blocked[0]} is {blocked[1]}")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise JournalError(f"archive {target} cannot be made: {exc.strerror or exc}") from None
    try:  # a folder this user may not list would look empty (glob says nothing)
        os.listdir(live.parent)
    except OSError as exc:
        raise JournalError(
            f"cannot look for closed months in {live.parent}: {exc.strerror or exc}"
        ) from None
    local = segment_files(live)
    moving = local[: max(len(local) - keep_local, 0)]
    moved: list[Path] = []
    for path in moving:
        dest = target / path.name
        tmp = dest.with_name(dest.name + ".tmp")
        try:
            shutil.copyfile(path, tmp)
            _fsync(tmp)
        except OSError as exc:  # the segment stays here, whole: nothing is lost
            tmp.unlink(missing_ok=True)
            raise JournalError(
                f"cannot copy {path.name} into the archive {target}: {exc.strerror or exc} "
                f"({len(moved)} segment(s) archived before it)"
            ) from None
        _same_records(path, tmp)
        os.replace(tmp, dest)
        _fsync(target)
        path.unlink()
        moved.append(dest)
    expired = []
    if retain_months > 0:
        now = today or datetime.now(UTC)
        limit = now.year * 12 + now.month - 1 - retain_months
        for path in segment_files(live, target):
            year, mon = (int(x) for x in _last_month(live, path).split("-"))
            if year * 12 + mon - 1 < limit:
                path.unlink()
                expired.append(path)
    return Archived(moved, expired)


def _last_month(live: Path, path: Path) -> str:
    """The month of a segment's newest record (its meta), or the month it is named after."""
    named = _named_month(live, path)
    seg = Journal(path, table=None, readonly=True)
    try:
        found = seg.meta("last_month")
    finally:
        seg.close()
    return found if found is not None and _MONTH.match(found) else named


def _same_records(original: Path, copy: Path) -> None:
    """The copy reads back with the same last record and hash as the original."""
    a = Journal(original, table=None, readonly=True)
    try:
        b = Journal(copy, table=None, readonly=True)
        try:
            if (a.last_seq, a.hash_at(a.last_seq)) != (b.last_seq, b.hash_at(b.last_seq)):
                raise JournalError(f"{copy}: the copy of {original} does not read back whole")
        finally:
            b.close()
    finally:
        a.close()
