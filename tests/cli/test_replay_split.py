"""`tablectl replay` of a long file on two processors splits the work with a second process
(tablectl/cli/replay_split.py): the output is the one process's, byte for byte, for every
recorded history of the room and the seeded synthetic shoe (their sha256 in
tests/history/test_replay_golden.py), and a second process that fails leaves the first to go on
alone with the same output."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from hil.synthetic import baccarat_history
from tablectl.cli import main, replay_split
from tablectl.records import Record
from tablectl.table import Table
from tests.history.test_replay_golden import (
    DIGITS,
    EXPECTED,
    HISTORIES,
    SYNTHETIC,
    SYNTHETIC_EXPECTED,
    _config,
)


@pytest.fixture
def split_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file split, whatever its length and however many processors there are."""
    monkeypatch.setattr(replay_split, "SPLIT_RECORDS", 1)
    monkeypatch.setattr(replay_split, "processors", lambda: 2)


def _replayed(capsys: pytest.CaptureFixture[str], config: Path, events: Path) -> tuple[int, str]:
    assert main(["replay", "--config", str(config), str(events)]) == 0
    out = capsys.readouterr().out
    return out.count("\n"), hashlib.sha256(out.encode("utf-8")).hexdigest()[:DIGITS]


@pytest.mark.usefixtures("split_always")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_split_replay_of_a_recorded_history_gives_the_same_bytes(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = HISTORIES / name
    config = _config(tmp_path, folder / "table.toml")
    assert _replayed(capsys, config, folder / "events.jsonl") == EXPECTED[name]


def _synthetic(tmp_path: Path) -> tuple[Path, Path]:
    config = _config(tmp_path, HISTORIES / "synthetic-baccarat.toml")
    events = tmp_path / "events.jsonl"
    rounds, seed = SYNTHETIC
    events.write_text("".join(line + "\n" for line in baccarat_history(rounds, seed, config)))
    return config, events


@pytest.mark.usefixtures("split_always")
@pytest.mark.parametrize("share", [0.01, replay_split.SPLIT_SHARE, 0.99])
def test_a_split_replay_of_the_synthetic_shoe_gives_the_same_bytes_wherever_it_is_cut(
    share: float,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("tablectl.cli.replay.SPLIT_SHARE", share)
    config, events = _synthetic(tmp_path)
    assert _replayed(capsys, config, events) == SYNTHETIC_EXPECTED


@pytest.mark.usefixtures("split_always")
def test_when_the_second_process_fails_the_first_goes_on_alone_with_the_same_bytes(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the second process advances (the first applies every record it prints): an
    advance that fails stops it, which it says (on the standard error it shares), and the first
    renders the rest itself."""

    def broken(self: Table, rec: Record) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(Table, "advance", broken)
    config, events = _synthetic(tmp_path)
    assert main(["replay", "--config", str(config), str(events)]) == 0
    captured = capfd.readouterr()
    digest = hashlib.sha256(captured.out.encode("utf-8")).hexdigest()[:DIGITS]
    assert (captured.out.count("\n"), digest) == SYNTHETIC_EXPECTED
    assert "second process: OSError: no space left on device" in captured.err
    assert "this one goes on alone" in captured.err


def test_a_short_file_or_one_processor_is_never_split(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not replay_split.worth_splitting(replay_split.SPLIT_RECORDS - 1)
    monkeypatch.setattr(replay_split, "processors", lambda: 1)
    assert not replay_split.worth_splitting(10 * replay_split.SPLIT_RECORDS)
    monkeypatch.setattr(replay_split, "processors", lambda: 2)
    assert replay_split.worth_splitting(replay_split.SPLIT_RECORDS)


@pytest.mark.usefixtures("split_always")
def test_a_pipe_is_read_once_and_never_split(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """A named pipe (as a shell's process substitution gives) cannot be read twice: it is
    replayed by one process, with the same output."""
    config, events = _synthetic(tmp_path)
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["cp", str(events), str(fifo)])
    try:
        assert main(["replay", "--config", str(config), str(fifo)]) == 0
    finally:
        assert writer.wait(timeout=60) == 0
    captured = capfd.readouterr()
    digest = hashlib.sha256(captured.out.encode("utf-8")).hexdigest()[:DIGITS]
    assert (captured.out.count("\n"), digest) == SYNTHETIC_EXPECTED
    assert captured.err == ""
