"""What a path tablectl would open turns out to be, found without opening it.

The journal file, its SQLite companions (-wal, -shm), the segments beside it and the chain key
must each be a regular file when something is at their path; the archive folder, and the folder
a journal is made in, a folder. Anything else is refused, by name, before tablectl opens it:
opening a FIFO blocks until something writes to it, opening a device can act on it (a serial
port raises its lines), and SQLite on `/dev/null` fails only once it has tried to write there.
Nothing here opens, creates or changes a file: it only looks (`lstat`, `stat`).

A symbolic link to the right kind of thing is as good as the thing (a journal on another disk);
a link to anything else, or to nothing, is refused like what it points to: through a link to
nothing, SQLite would create a file where the link points, one tablectl never made private.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def kind(mode: int) -> str:
    """What a file of `st_mode` `mode` is, as a technician reads it: "a character device"."""
    return next((text for test, text in _KINDS if test(mode)), "a special file")


def _found(path: Path, wanted: int) -> str | None:
    """None when `path` is nothing, is of type `wanted` (`stat.S_IFREG`, `stat.S_IFDIR`) or is
    a link to one; else what it is. A path that cannot be looked at (a folder on the way that
    is not a folder, or not searchable) is taken as nothing here: opening or creating it then
    fails with the system's own reason, and `folder_problem` names a folder in the way."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None
    except OSError as exc:  # a name too long, a loop of links on the way
        return f"a path that cannot be looked at ({exc.strerror})"
    if stat.S_IFMT(st.st_mode) == wanted:
        return None
    if not stat.S_ISLNK(st.st_mode):
        return kind(st.st_mode)
    target = os.readlink(path)
    try:
        points = os.stat(path)
    except FileNotFoundError:
        return f"a symbolic link to nothing ({target})"
    except OSError as exc:  # a loop of links, a folder on the way that is not searchable
        return f"a symbolic link that cannot be followed ({target}: {exc.strerror})"
    if stat.S_IFMT(points.st_mode) == wanted:
        return None
    return f"a symbolic link to {kind(points.st_mode)} ({target})"


def not_a_file(path: Path) -> str | None:
    """What is at `path` when that is not a regular file (or a link to one); None when it is
    one or nothing is there. E.g. "a character device" for /dev/null."""
    return _found(path, stat.S_IFREG)


def not_a_plain_file(path: Path) -> str | None:
    """`not_a_file`, and a link is refused too, even to a regular file: for the journal's -wal
    and -shm, which SQLite creates itself and writes and truncates through whatever is there
    (a link placed there by someone else would aim its writes at another file)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return None
    except OSError as exc:
        return f"a path that cannot be looked at ({exc.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return f"a symbolic link ({os.readlink(path)}), which SQLite would write through"
    return not_a_file(path)


def not_a_folder(path: Path) -> str | None:
    """What is at `path` when that is not a folder (or a link to one); None when it is one or
    nothing is there."""
    return _found(path, stat.S_IFDIR)


def nearest(path: Path) -> Path:
    """`path` itself if something (even a link to nothing) is there, else its nearest parent
    that is: the folder a missing path would be created in (`Path("/")` at worst)."""
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return path


def folder_problem(path: Path) -> tuple[Path, str] | None:
    """For a file or folder to be made at `path` where nothing is yet: the nearest existing
    folder on its way and what it is, when that is not a folder (`/dev/null/journal.db`: the
    character device /dev/null); None otherwise."""
    if os.path.lexists(path):
        return None
    where = nearest(path.parent)
    why = not_a_folder(where)
    return None if why is None else (where, why)
