"""The journal, key and archive paths a config names, as they are on disk now: refused when
tablectl could not use them as what they are for, warned of when others may read them."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from tablectl.config.loaded import LoadedConfig
from tablectl.config.ports import port_problems, port_warnings
from tablectl.config.problems import ConfigError, Problem, shown
from tablectl.paths import folder_problem, not_a_file, not_a_folder, not_a_plain_file


def path_problems(cfg: LoadedConfig) -> list[Problem]:
    """The journal, key and archive paths the config names, as they are on disk now (so that a
    wrong path is refused before anything writes there): each that exists must be what tablectl
    will use it as, the journal (and its -wal, -shm and the monthly segments beside it) and the
    key a regular file, the archive a folder; one where nothing is yet needs a folder on its
    way, not a device or a file. Nothing is opened or changed to find out (tablectl/paths.py):
    `check-config` and `run` refuse such a config before anything opens the path, one line each
    naming the key, its value and what is there. Whether the key file is a usable key is
    `load_key`'s to say."""
    from tablectl.chainkey import not_a_key_file
    from tablectl.journal import segments

    name = str(cfg.path)
    j = cfg.table.journal
    out: list[Problem] = []

    def problem(key: str, value: str, resolved: Path, reason: str) -> None:
        where = "" if str(resolved) == value else f" ({resolved})"
        out.append(Problem(name, key, f"{shown(value)}{where} {reason}"))

    journal = cfg.journal_path
    why = not_a_file(journal)
    if why is not None:
        problem(
            "journal.path",
            j.path,
            journal,
            f"is {why}, not a regular file: name the journal file itself (tablectl creates it "
            "when nothing is there)",
        )
    for companion in (Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        why = not_a_plain_file(companion)
        if why is not None:
            problem(
                "journal.path",
                j.path,
                journal,
                f"has {companion} beside it, which is {why}, not the regular file SQLite keeps "
                "there: move it away",
            )
    problem_at = folder_problem(journal)
    if problem_at is not None:
        where, why = problem_at
        problem("journal.path", j.path, journal, f"cannot be made: {where} is {why}, not a folder")
    archive = cfg.archive_path
    # Where segments are read from: beside the journal, and in the archive.
    folders = [("journal.path", j.path, journal, journal.parent)] if problem_at is None else []
    if archive is not None and j.archive_dir is not None:
        why = not_a_folder(archive)
        blocked = folder_problem(archive)
        if why is not None:
            problem("journal.archive_dir", j.archive_dir, archive, f"is {why}, not a folder")
        elif blocked is not None:
            problem(
                "journal.archive_dir",
                j.archive_dir,
                archive,
                f"cannot be made: {blocked[0]} is {blocked[1]}, not a folder",
            )
        else:
            folders.append(("journal.archive_dir", j.archive_dir, archive, archive))
    for key_name, value, resolved, folder in folders:
        if os.path.isdir(folder):
            try:
                segments.segment_files(journal, folder)
            except segments.SegmentPathError as exc:
                problem(key_name, value, resolved, f"holds a segment's name taken: {exc}")
    key = cfg.key_path
    if key is not None and j.key_file is not None:
        why = not_a_key_file(key)
        if why is not None:
            problem("journal.key_file", j.key_file, key, f"is {why}, not a regular file")
    return out


def path_warnings(cfg: LoadedConfig) -> list[str]:
    """The journal file and its -wal/-shm when group or others may read or change them: left as
    they are (tablectl never changes the mode of a file it did not create, `_prepare_file` in
    tablectl/journal/file.py), and said, with the command that fixes it."""
    out = []
    journal = cfg.journal_path
    for path in (journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")):
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            continue  # not there (yet), or not ours to look at: nothing to say about its mode
        if mode & 0o077:
            out.append(
                str(
                    Problem(
                        str(cfg.path),
                        "journal.path",
                        f"{path} is mode {mode:04o}: group or others can read or change it; "
                        f"`chmod 600 {path}` (tablectl sets the mode only of files it creates)",
                    )
                )
            )
    return out


def checked_paths(cfg: LoadedConfig) -> LoadedConfig:
    """`cfg` once its journal, key and archive paths and its device ports are fit (ConfigError
    naming each that is not: `path_problems`, `port_problems`), with `path_warnings` and
    `port_warnings` added to its warnings: what `check-config` and `run` use, so the daemon
    never opens a path the check would refuse."""
    problems = path_problems(cfg) + port_problems(cfg)
    if problems:
        raise ConfigError(problems)
    return replace(cfg, warnings=cfg.warnings + tuple(path_warnings(cfg) + port_warnings(cfg)))
