"""`[protection]` (tablectl/config/sections.py, docs/config.md "[protection]"): its defaults, and
each mistake refused by `tablectl check-config` at its key, the value it saw in the reason."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tablectl.config import load_config
from tests.config.test_config_mistakes import BAC, Edit, check_config, only, refused, write


def protection(body: str) -> Edit:
    """An edit adding a `[protection]` table at the end of the config."""
    return lambda text: text + "\n[protection]\n" + body + "\n"


def test_off_by_default_with_the_documented_defaults(tmp_path: Path) -> None:
    section = load_config(write(tmp_path, BAC)).table.protection
    assert not section.enabled
    assert section.margin == Decimal("0.005")
    assert section.counter_threshold == Decimal("0.6")
    assert section.counter_min_rounds == 40
    assert section.thresholds == {} and section.counter_wagers is None


def test_a_whole_section_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = (
        'enabled = true\nmargin = "0.01"\nthresholds = { dragon7 = "0.02", banker = "0.02" }\n'
        'counter_threshold = "0.7"\ncounter_min_rounds = 30\ncounter_wagers = ["dragon7"]'
    )
    path = write(tmp_path, BAC, protection(body))
    code, _, err = check_config(path, capsys)
    assert (code, err) == (0, ""), err
    section = load_config(path).table.protection
    assert section.thresholds == {"dragon7": Decimal("0.02"), "banker": Decimal("0.02")}
    assert section.counter_wagers == ["dragon7"]


@pytest.mark.parametrize(
    ("body", "key", "said"),
    [
        ("margin = 0.005", "protection.margin", ('as "0.005"', "0.005")),
        ('margin = "-0.01"', "protection.margin", ("0 or more",)),
        ('margin = "1e-3"', "protection.margin", ('"1e-3"', "not a figure")),
        ('counter_threshold = "1.5"', "protection.counter_threshold", ("at most 1", '"1.5"')),
        ('counter_threshold = "0"', "protection.counter_threshold", ("above 0",)),
        ("counter_min_rounds = 2", "protection.counter_min_rounds", ("5", "2")),
        ('enabled = "yes"', "protection.enabled", ('"yes"',)),
        ('margn = "0.01"', "protection.margn", ("unknown key",)),
        (
            'thresholds = { dragon8 = "0.01" }',
            "protection.thresholds.dragon8",
            ('"dragon8"', "dragon7"),
        ),
        ('thresholds = { dragon7 = "x" }', "protection.thresholds.dragon7", ('"x"',)),
        ('counter_wagers = ["pandas"]', "protection.counter_wagers", ('"pandas"', "panda8")),
    ],
)
def test_each_mistake_is_refused_at_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, key: str, said: tuple[str, ...]
) -> None:
    only(refused(tmp_path, capsys, BAC, protection(body)), key, *said)
