"""`tablectl replay` of fixed histories, one for every game of the room and a seeded synthetic
baccarat shoe, gives the very bytes it gave when they were recorded (their sha256 below).

Each folder of tests/history/replay_histories/ holds a table's config and the records it journaled
(as
the JSON lines `export` writes and `replay` reads), taken from sessions the game tests play. A
restructuring that changes one byte of what a table publishes for the same inputs fails here;
a rule change that means to (a ruling) updates the hash in the same commit and says why.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from hil.synthetic import baccarat_history
from tablectl.cli import main

REPO = Path(__file__).resolve().parents[2]
HISTORIES = Path(__file__).resolve().parent / "replay_histories"

DIGITS = 48  # of the output's sha256 kept (192 bits)
EXPECTED: dict[str, tuple[int, str]] = {  # folder -> (lines, the output's sha256)
    "chinese-poker": (39, "4e9524bac3a8939313cd94540a843f680a52280587390e5e"),
    "crazy-pineapple-hi-lo": (85, "462b3da41b7b93cec954708303162808fa7461a53e908e9c"),
    "dealers-choice": (426, "da1dd945df270452a8cf3d960a57e18dd3c4b17f37ed7704"),
    "ez-baccarat-panda8": (44, "3ae34b6d918269da45e119cf6962acc02f1366cde05e1574"),
    "five-card-draw": (80, "0fbf0a13ec22ee1900f0ff10c63e03f12a426462e194eac4"),
    "five-card-draw-hi-lo": (75, "6b0a377b3aa1cedbb455f211784084c395638dfa539485ba"),
    "five-card-stud": (72, "3421ae32f65bb6c763f9c55b44a315117c337535fb9fb893"),
    "fortune-pai-gow": (51, "5691492d9417f771748b5f7d64d0b9fb6432d99a426afe23"),
    "fortune-pai-gow-2": (47, "243b9760fe32f26c2c582de9014f5704e0fbc030f99d1016"),
    "lowball": (80, "c8e6db91bc975d5af0d496585be5c59eebee1f74ee8fcaba"),
    "omaha": (69, "5e7e686fbe779d7cc7f65b41084991097eaed6237ccdec8b"),
    "omaha-hi-lo": (87, "ca49a6334498c6a971d28a8dbb94760939533dca01ee0a7b"),
    "option-alley": (90, "6f4bbd763cffa1726d8056e7b146db2b2626d73122d779a3"),
    "pure-21.5-blackjack": (46, "54fdf01b9a479b4bf3c90fdec3ebdddf30f79908660644cc"),
    "pure-spanish-21.5": (41, "d0d678c8943b9a40bddd37268f27ca3808d5635514dc9e6c"),
    "razz": (84, "a7b6e2f486e8e4105e259025f1121ff58fb89e123b4a8a73"),
    "seven-card-stud": (84, "3f3d45308717eed7d04d436c8a4fc9184aa4d5c107ffdc4d"),
    "seven-card-stud-hi-lo": (84, "fc71988b8289d0cc2eace22dd1c10f4d2ec27d2e66d60b98"),
    "texas-holdem": (171, "b068695efaef0a32730aa3aa2416e51bb0bd17d0d2ebb860"),
    "three-card-poker-6cb": (100, "968291ac121c603dfb006192b9c1857364476b64357fe800"),
    "ultimate-texas-holdem": (162, "d2392ffe658921f868b0c9cd1a021563225f19bf8f8c2500"),
}

SYNTHETIC = (600, 11)  # rounds, seed
SYNTHETIC_EXPECTED = (22293, "e632bc79841384e252b8aa977b9e12d3df63db0a90555ca5")


def _config(tmp_path: Path, source: Path) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(source.read_text(encoding="utf-8").replace("{repo}", str(REPO)), "utf-8")
    return path


def _replayed(capsys: pytest.CaptureFixture[str], config: Path, events: Path) -> tuple[int, str]:
    assert main(["replay", "--config", str(config), str(events)]) == 0
    return digest(capsys.readouterr().out)


def digest(out: str) -> tuple[int, str]:
    """What EXPECTED holds of a replay's output: its lines and the first DIGITS of its sha256."""
    return out.count("\n"), hashlib.sha256(out.encode("utf-8")).hexdigest()[:DIGITS]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_replay_of_a_recorded_history_gives_the_same_bytes(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = HISTORIES / name
    config = _config(tmp_path, folder / "table.toml")
    assert _replayed(capsys, config, folder / "events.jsonl") == EXPECTED[name]


def test_replay_of_the_seeded_synthetic_shoe_gives_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, HISTORIES / "synthetic-baccarat.toml")
    events = tmp_path / "events.jsonl"
    rounds, seed = SYNTHETIC
    events.write_text("".join(line + "\n" for line in baccarat_history(rounds, seed, config)))
    assert _replayed(capsys, config, events) == SYNTHETIC_EXPECTED


def test_every_recorded_history_has_its_expected_output() -> None:
    folders = sorted(p.name for p in HISTORIES.iterdir() if p.is_dir())
    assert folders == sorted(EXPECTED)
