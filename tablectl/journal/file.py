"""The journal's file on disk: made private whatever the umask, refused unopened when it is
not a regular file, held by one writer at a time; and its SQLite transactions.

The file and its -wal/-shm companions are created 0600 whatever the umask; a folder it creates
is 0700. A file or folder that was there before keeps its mode and owner, and a path that is not
a regular file (/dev/null, a FIFO, a folder) is refused unopened (`prepare_file`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from pathlib import Path

from tablectl.journal.errors import JournalError, JournalUnavailable
from tablectl.paths import folder_problem, not_a_file, not_a_plain_file

UNAVAILABLE_CODES = (
    "SQLITE_IOERR",
    "SQLITE_FULL",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CANTOPEN",
)
"""SQLite's result codes for a file that cannot be opened now, as opposed to one that is not a
journal (`JournalUnavailable`)."""


def prepare_file(path: Path) -> None:
    """The journal file, and any folder it needs, made private whatever the umask; nothing that
    is already there opened, or changed.

    What is at `path`, or at its -wal and -shm companions, must be a regular file or a link to
    one (tablectl/paths.py): a device (/dev/null), a FIFO, a folder, a socket or a link to
    nothing is refused with JournalError before SQLite opens it. So is a path whose folder is
    not a folder. Folders this creates are 0700, the file, when this creates it, 0600 (set on
    the descriptor it created: the umask cannot leave it otherwise); SQLite makes -wal and -shm
    with the file's mode.

    A file or folder that was already there keeps its mode and owner. Only a file tablectl
    created is known to be its own: a journal path can name anything, a hard link to
    /etc/shadow as well as /dev/null, and the daemon may run as root, which owns both, so
    "a regular file owned by the running user" is no proof either. A journal others can read
    is reported instead (`check-config` and the daemon's start: `config.path_warnings`)."""
    checks = (
        (path, not_a_file),
        (Path(f"{path}-wal"), not_a_plain_file),
        (Path(f"{path}-shm"), not_a_plain_file),
    )
    for p, check in checks:
        why = check(p)
        if why is not None:
            raise JournalError(
                f"{p} is {why}, not a regular file: no journal can be kept there (nothing was "
                "opened or changed)"
            )
    blocked = folder_problem(path)
    if blocked is not None:
        where, why = blocked
        raise JournalError(f"{path} cannot be made: {where} is {why}, not a folder")
    missing = []
    parent = path.parent
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            continue  # made meanwhile by someone else: theirs, left as it is
        _fchmod_new(folder, 0o700, os.O_RDONLY | os.O_DIRECTORY)
    with contextlib.suppress(FileExistsError):  # a journal already: left as it is
        _fchmod_new(path, 0o600, os.O_WRONLY | os.O_CREAT | os.O_EXCL)


def _fchmod_new(path: Path, mode: int, flags: int) -> None:
    """`mode` on what `path` names, through a descriptor opened without following a link (a
    folder just made, or a file `flags` creates): never on something put there instead."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # the umask may have taken bits away
    finally:
        os.close(fd)


def one_writer(path: Path) -> int:
    """An exclusive lock on the journal file for as long as this writer has it open (a
    descriptor of its own, `flock`, which SQLite's own POSIX locks do not touch): a second
    `tablectl run` or an `import` on the same file is refused, instead of two writers each
    numbering records from what it last saw. JournalUnavailable when another process holds it
    (a later start may find it free)."""
    # The file the path names, through a link too (check-config and run have made sure it is a
    # regular file, or a link to one: tablectl/paths.py): the lock is on the file itself.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise JournalUnavailable(f"{path} cannot be opened: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalUnavailable(
            f"{path} is open for writing by another process (another `tablectl run` or "
            "`tablectl import` of this journal): one writer at a time"
        ) from None
    return fd


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (which is re-raised).

    A durable commit runs with synchronous=FULL (fsync before COMMIT returns); others with
    NORMAL, which in WAL mode keeps the database consistent but may lose the last commits on a
    power cut. The connection is left at FULL."""

    def __init__(self, db: sqlite3.Connection, durable: bool) -> None:
        self.db = db
        self.durable = durable

    def __enter__(self) -> None:
        if not self.durable:
            self.db.execute("PRAGMA synchronous=NORMAL")
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._full()
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            if exc_type is None:
                self.db.execute("COMMIT")  # a failed COMMIT (a full disk) may leave it open
            else:
                self.db.execute("ROLLBACK")
        finally:
            if self.db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            self._full()

    def _full(self) -> None:
        if not self.durable:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("PRAGMA synchronous=FULL")


def unreadable(path: Path) -> str | None:
    """Why this user may not read the journal file or its -wal or -shm companion (SQLite says
    only "unable to open database file"), or None when it may (or they are not there)."""
    effective = os.access in os.supports_effective_ids
    for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            st = file.stat()
        except OSError:  # not there, or its folder out of reach: the usual hint says so
            continue
        if not os.access(file, os.R_OK, effective_ids=effective):
            which = "it" if file == path else f"its {file.name}"
            return (
                f"permission denied: this user (uid {os.geteuid()}) may not read {which}, uid "
                f"{st.st_uid}'s with mode {st.st_mode & 0o777:04o}: run as the table's user"
            )
    return None
