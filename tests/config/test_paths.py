"""Paths the config names that exist and are not what they must be: a journal
path that is /dev/null, a FIFO, a folder, a socket or a link to one; a key file that is one of
those; an archive folder that is a file. `check-config` and `run` (the real command, a child
process with a deadline: opening a FIFO would block) exit 2 with one line naming the key, the
value and what is there, and leave it untouched: its mode, owner and times, and a FIFO unopened.
tablectl changes the mode of no file it did not create.

The character device is a node of /dev/null's own device (1, 3) made in the test's folder when
the suite runs as root (as CI does): were the check ever lost, `run` as root would change the
mode of the machine's /dev/null itself. Without root it is /dev/null, whose mode the test could
not change anyway."""

from __future__ import annotations

import os
import re
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablectl.chainkey import KeyFileError, create_key, load_key
from tablectl.cli import main
from tablectl.journal import Journal, JournalError
from tablectl.journal.segments import History, SegmentPathError
from tests.helpers import REPO, write_config

RUN_DEADLINE = 30.0  # seconds; the refusal takes well under one, a blocked open forever


def char_device(tmp_path: Path) -> Path:
    """A character device: a private node of /dev/null's device as root, else /dev/null."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    os.chmod(node, 0o666)  # whatever the umask: the mode a chmod would have changed
    return node


def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path, 0o644)
    return path


def folder(tmp_path: Path) -> Path:
    path = tmp_path / "folder"
    path.mkdir(mode=0o755)
    return path


def unix_socket(tmp_path: Path) -> Path:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))  # the socket file stays after the socket is closed
    return path


def link_to_fifo(tmp_path: Path) -> Path:
    path = tmp_path / "link"
    path.symlink_to(fifo(tmp_path))
    return path


def link_to_nothing(tmp_path: Path) -> Path:
    path = tmp_path / "dangling"
    path.symlink_to(tmp_path / "nowhere.db")
    return path


Make = Callable[[Path], Path]
JOURNAL_CASES: list[tuple[Make, str]] = [
    (char_device, "a character device"),
    (fifo, "a FIFO (named pipe)"),
    (folder, "a folder"),
    (unix_socket, "a socket"),
    (link_to_fifo, "a symbolic link to a FIFO (named pipe) ({tmp}/pipe)"),
    (link_to_nothing, "a symbolic link to nothing ({tmp}/nowhere.db)"),
]


def snapshot(path: Path) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """What a chmod, chown, write or replacement would change, of the path and what it names."""

    def of(st: os.stat_result) -> tuple[int, ...]:
        return (st.st_ino, st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_mtime_ns)

    try:
        named = of(os.stat(path))
    except FileNotFoundError:
        named = None
    return of(os.lstat(path)), named


@pytest.fixture
def untouched() -> Iterator[Callable[[Path], None]]:
    """`watch(path)`: fail the test if `path` (or what it names) has changed by its end."""
    watched: list[tuple[Path, tuple[tuple[int, ...], tuple[int, ...] | None]]] = []
    yield lambda path: watched.append((path, snapshot(path)))
    for path, before in watched:
        assert snapshot(path) == before, f"{path} was changed"


def check_config(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check-config", str(config)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`tablectl ARGS` in a child process, which must end before the deadline (a FIFO opened
    for reading or writing would hold it there)."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "tablectl.cli", *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=RUN_DEADLINE,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"tablectl {' '.join(args)} blocked for {RUN_DEADLINE} s") from exc


def refused(config: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    """check-config and run both exit 2 with exactly `line` ("FILE: " before it) on stderr."""
    expected = f"{config}: {line}\n"
    assert check_config(config, capsys) == (2, expected)
    done = run("run", "--config", str(config))
    assert (done.returncode, done.stderr) == (2, expected)


JOURNAL_WHY = (
    "not a regular file: name the journal file itself (tablectl creates it when nothing is there)"
)


def test_check_config_refuses_dev_null_as_the_journal_and_leaves_it_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], untouched: Callable[[Path], None]
) -> None:
    untouched(Path("/dev/null"))
    config = write_config(tmp_path, journal={"path": "/dev/null"})
    code, err = check_config(config, capsys)
    assert (code, err) == (
        2,
        f'{config}: journal.path: "/dev/null" is a character device, {JOURNAL_WHY}\n',
    )


@pytest.mark.parametrize(("make", "what"), JOURNAL_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_journal_path_that_is_no_regular_file_is_refused_by_check_config_and_run_untouched(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    untouched: Callable[[Path], None],
    make: Make,
    what: str,
) -> None:
    path = make(tmp_path)
    untouched(path)
    config = write_config(tmp_path, journal={"path": str(path)})
    what = what.format(tmp=tmp_path)
    refused(config, capsys, f'journal.path: "{path}" is {what}, {JOURNAL_WHY}')
    if path.is_dir():
        assert list(path.iterdir()) == []  # no journal made inside the folder either


def test_a_relative_journal_path_is_shown_as_written_and_as_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo(tmp_path)
    config = write_config(tmp_path, journal={"path": "pipe"})
    code, err = check_config(config, capsys)
    assert (code, err) == (
        2,
        f'{config}: journal.path: "pipe" ({tmp_path}/pipe) is a FIFO (named pipe), {JOURNAL_WHY}\n',
    )


def test_a_journal_whose_folder_is_a_device_cannot_be_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], untouched: Callable[[Path], None]
) -> None:
    device = char_device(tmp_path)
    untouched(device)
    config = write_config(tmp_path, journal={"path": f"{device}/journal.db"})
    refused(
        config,
        capsys,
        f'journal.path: "{device}/journal.db" cannot be made: {device} is a character device, '
        "not a folder",
    )


def test_a_wal_that_is_a_fifo_is_refused_before_sqlite_opens_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], untouched: Callable[[Path], None]
) -> None:
    journal = tmp_path / "journal.db"
    Journal(journal, table="t1").close()
    wal = Path(f"{journal}-wal")
    wal.unlink(missing_ok=True)
    os.mkfifo(wal)
    untouched(wal)
    untouched(journal)
    config = write_config(tmp_path)
    refused(
        config,
        capsys,
        f'journal.path: "{journal}" has {wal} beside it, which is a FIFO (named pipe), not the '
        "regular file SQLite keeps there: move it away",
    )
    with pytest.raises(JournalError, match=re.escape("is a FIFO (named pipe), not a regular file")):
        Journal(journal, table="t1")


def test_a_segment_name_beside_the_journal_taken_by_a_fifo_is_refused_unopened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.db"
    Journal(journal, table="t1").close()
    segment = tmp_path / "journal-2026-10.db"
    os.mkfifo(segment)
    config = write_config(tmp_path)
    refused(
        config,
        capsys,
        f'journal.path: "{journal}" holds a segment\'s name taken: {segment} is a FIFO (named '
        "pipe), not a journal segment (a regular file): move it away",
    )
    with pytest.raises(SegmentPathError):  # what verify-journal, recall and export read
        History.open(journal, "t1")


def test_import_into_a_fifo_is_refused_unopened(
    tmp_path: Path, untouched: Callable[[Path], None]
) -> None:
    target = fifo(tmp_path)
    untouched(target)
    config = write_config(tmp_path, journal={"path": str(target)})
    events = tmp_path / "export.jsonl"
    events.write_text("")
    done = run("import", "--config", str(config), str(events))
    assert done.returncode == 2
    assert done.stderr == (
        f"tablectl: {target} is a FIFO (named pipe), not a regular file: no journal can be kept "
        "there (nothing was opened or changed)\n"
    )


# -- the key file ---------------------------------------------------------------------------------


def link_to_a_key(tmp_path: Path) -> Path:
    key = create_key(tmp_path / "real.key")
    assert key.path is not None
    path = tmp_path / "link.key"
    path.symlink_to(key.path)
    return path


KEY_CASES: list[tuple[Make, str]] = [
    (char_device, "a character device"),
    (fifo, "a FIFO (named pipe)"),
    (folder, "a folder"),
    (link_to_a_key, "a symbolic link (to {tmp}/real.key): name the key file itself"),
]


@pytest.mark.parametrize(("make", "what"), KEY_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_key_file_that_is_no_regular_file_is_refused_unopened_and_no_journal_made(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    untouched: Callable[[Path], None],
    make: Make,
    what: str,
) -> None:
    path = make(tmp_path)
    untouched(path)
    config = write_config(tmp_path, journal={"key_file": str(path)})
    what = what.format(tmp=tmp_path)
    refused(config, capsys, f'journal.key_file: "{path}" is {what}, not a regular file')
    assert not (tmp_path / "journal.db").exists()  # refused before the journal is opened
    with pytest.raises(KeyFileError, match=f"key file {path}: is "):
        load_key(path)  # the daemon's own loader: the same refusal, without opening it


# -- the archive folder ---------------------------------------------------------------------------


def regular_file(tmp_path: Path) -> Path:
    path = tmp_path / "archive"
    path.write_text("not a folder\n")
    return path


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (regular_file, "a regular file"),
        (fifo, "a FIFO (named pipe)"),
        (char_device, "a character device"),
    ],
    ids=lambda c: getattr(c, "__name__", ""),
)
def test_an_archive_dir_that_is_no_folder_is_refused_untouched(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    untouched: Callable[[Path], None],
    make: Make,
    what: str,
) -> None:
    path = make(tmp_path)
    untouched(path)
    config = write_config(tmp_path, journal={"archive_dir": str(path)})
    refused(config, capsys, f'journal.archive_dir: "{path}" is {what}, not a folder')
    done = run("archive", "--config", str(config), "--to", str(path))
    assert (done.returncode, done.stderr) == (
        2,
        f"tablectl: archive {path} is {what}, not a folder\n",
    )


def test_an_archive_dir_below_a_file_cannot_be_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = regular_file(tmp_path)
    config = write_config(tmp_path, journal={"archive_dir": f"{file}/t1"})
    refused(
        config,
        capsys,
        f'journal.archive_dir: "{file}/t1" cannot be made: {file} is a regular file, not a folder',
    )


# -- modes: only of what tablectl creates ---------------------------------------------------------


def test_an_existing_journal_others_can_read_keeps_its_mode_and_is_named_in_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tablectl made the journal 0600 when it created it; a mode changed since is not its to
    change back (it cannot know the file is its own), so check-config says so and passes."""
    journal = tmp_path / "journal.db"
    Journal(journal, table="t1").close()
    os.chmod(journal, 0o644)
    config = write_config(tmp_path)
    assert main(["check-config", str(config)]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"warning: {config}: journal.path: {journal} is mode 0644: group or others can read or "
        f"change it; `chmod 600 {journal}` (tablectl sets the mode only of files it creates)\n"
    )
    Journal(journal, table="t1").close()
    assert stat.S_IMODE(journal.stat().st_mode) == 0o644


def test_a_wal_or_shm_that_is_a_link_even_to_a_regular_file_is_refused(tmp_path: Path) -> None:
    """SQLite creates -wal and -shm itself and writes and truncates through whatever is there:
    a link someone put in their place (to /etc/..., say) would aim its writes at another file.
    A link is refused for them even to a regular file, unopened. (Found in review.)"""
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    journal = tmp_path / "journal.db"
    Path(f"{journal}-shm").symlink_to(victim)
    with pytest.raises(JournalError, match=r"symbolic link .*which SQLite would write through"):
        Journal(journal, table="t1")
    assert victim.read_text() == "keep me\n"
    config = write_config(tmp_path)
    assert main(["check-config", "--config", str(config)]) == 2
