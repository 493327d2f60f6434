"""The journal's chain key: a per-table secret that makes the journal's keyed hashes.

Anyone who can edit the journal file can recompute its public SHA-256 chain; nobody can recompute
the keyed hashes (HMAC-SHA256) without this key. The key lives in a file of its own, readable only
by the service user (`tablectl keygen PATH` creates one), never next to the journal or in a backup
of it. A key is named by its id, the first 8 hex digits of the SHA-256 of the secret, so a journal
and its published heads can say which key they were made with without showing it.

The file is one line of hex: 32 random bytes (64 hex digits) or more.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path

from tablectl.paths import kind

KEY_BYTES = 32  # the least a key file may hold, and what keygen writes


class KeyFileError(Exception):
    """A key file that cannot be used (missing, readable by others, too short, not hex)."""


@dataclass(frozen=True)
class ChainKey:
    """One chain key. `id` names it; the secret itself is never printed or journaled."""

    secret: bytes = field(repr=False)
    path: Path | None = None

    @property
    def id(self) -> str:
        return hashlib.sha256(self.secret).hexdigest()[:8]

    def mac(self, data: bytes) -> str:
        """HMAC-SHA256 of `data` under this key, as hex."""
        return hmac.new(self.secret, data, hashlib.sha256).hexdigest()


def _fix(path: Path) -> str:
    return f"create one with `tablectl keygen {path}` as the service user"


def not_a_key_file(path: Path) -> str | None:
    """What is at `path` when it is neither nothing nor a regular file, found without opening
    it: a key file is read as itself, never through a symbolic link (whose target could be
    changed under it), and never opened when it is a device or a FIFO."""
    try:
        st = os.lstat(path)
    except OSError:
        return None  # missing, or not to be looked at: opening it says what is wrong
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISLNK(st.st_mode):
        return f"a symbolic link (to {os.readlink(path)}): name the key file itself"
    return kind(st.st_mode)


def load_key(path: Path) -> ChainKey:
    """Read a key file, refusing one that is missing, not a regular file (a device, a FIFO, a
    folder, a symbolic link: refused before it is opened), readable or writable by group or
    others, owned by someone else than the running user (root may read any), too short or not
    hex. Every refusal names the file and what to do. The file is only read: its mode and owner
    are never changed (a key others could read is refused, and should be replaced)."""
    why = not_a_key_file(path)
    if why is not None:
        raise KeyFileError(f"key file {path}: is {why}, not a regular file")
    try:
        # O_NONBLOCK: should a FIFO have taken the file's place since, the open does not wait
        # for a writer; O_NOCTTY: nor does a terminal become ours. Refused below, unread.
        fd = os.open(
            path,
            os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
        )
    except FileNotFoundError:
        raise KeyFileError(f"key file {path}: missing; {_fix(path)}") from None
    except OSError as exc:
        raise KeyFileError(f"key file {path}: cannot be read: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise KeyFileError(f"key file {path}: is {kind(st.st_mode)}, not a regular file")
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o077:
            raise KeyFileError(
                f"key file {path}: mode {mode:04o} lets group or others read or change it; "
                f"`chmod 600 {path}` (and consider the key seen: make a new one)"
            )
        euid = os.geteuid()
        if euid != 0 and st.st_uid != euid:
            raise KeyFileError(
                f"key file {path}: owned by uid {st.st_uid}, not by the user running tablectl "
                f"(uid {euid}); {_fix(path)}"
            )
        raw = os.read(fd, 4096)
    finally:
        os.close(fd)
    try:
        text = raw.decode("ascii").strip()
        secret = bytes.fromhex(text)
    except (UnicodeDecodeError, ValueError):
        raise KeyFileError(f"key file {path}: not a line of hex digits; {_fix(path)}") from None
    if len(secret) < KEY_BYTES:
        raise KeyFileError(
            f"key file {path}: {len(secret)} bytes, a key needs at least {KEY_BYTES}; {_fix(path)}"
        )
    return ChainKey(secret, path)


def create_key(path: Path) -> ChainKey:
    """Write a new random key to `path`, mode 0600 whatever the umask; never overwrite a file."""
    secret = secrets.token_bytes(KEY_BYTES)
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600
        )
    except FileExistsError:
        if path.is_dir():
            raise KeyFileError(
                f"key file {path}: is a folder; give the new file's path in it "
                f"({path / 'journal.key'})"
            ) from None
        raise KeyFileError(
            f"key file {path}: already exists; not overwritten (a journal's key is kept for as "
            "long as its records must be checked: to rotate, make a new file)"
        ) from None
    except OSError as exc:
        raise KeyFileError(f"key file {path}: cannot be created: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o600)  # the umask may have taken bits away, never added any
        os.write(fd, (secret.hex() + "\n").encode("ascii"))
        os.fsync(fd)
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)
    return ChainKey(secret, path)
