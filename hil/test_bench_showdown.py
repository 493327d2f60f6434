"""The Omaha hi-lo showdown benchmark (hil/bench_showdown.py) at a toy size: it prints every
figure and agrees with pokerkit, and its cross-check stops on a hand where the two differ. No
timing is asserted: the figures are only reported."""

from __future__ import annotations

import json
import random

import pytest

from hil import bench_showdown
from tablectl.rules.flop_hands import LowHand
from tablectl_base.cards import standard_deck


def test_the_bench_prints_the_figures_and_agrees_with_pokerkit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench_showdown.main(["--hands", "6", "--seed", "41", "--json"])
    out = capsys.readouterr().out.splitlines()
    assert "agree with pokerkit on every hand" in out[0]
    for label in ("tablectl omaha_high", "build_pots + award", "pokerkit", "ratio tablectl /"):
        assert any(line.startswith(label) or label in line for line in out[1:]), label
    f = json.loads(out[-1])
    assert f["hands"] == 6 and f["seats"] == 10 and f["agree"] is True
    assert 0 < f["hands_with_low"] <= 6  # the low half is exercised
    for key in (
        "tablectl_hands_per_s",
        "award_hands_per_s",
        "tablectl_with_award_hands_per_s",
        "pokerkit_hands_per_s",
        "ratio_tablectl_to_pokerkit",
    ):
        assert f[key] > 0, key


def test_a_full_table_is_ten_players_dealt_from_one_deck() -> None:
    d = bench_showdown.deal(random.Random(1), list(standard_deck()))
    assert len(d.holes) == bench_showdown.SEATS == 10
    assert all(len(h) == 4 for h in d.holes) and len(d.board) == 5
    cards = [*(c for h in d.holes for c in h), *d.board]
    assert len(set(cards)) == 45


def test_the_cross_check_stops_on_a_hand_where_the_lows_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_low(hole: object, board: object) -> LowHand | None:
        return None

    monkeypatch.setattr(bench_showdown, "omaha_low", no_low)
    with pytest.raises(SystemExit) as stop:
        bench_showdown.main(["--hands", "6", "--seed", "41"])
    message = stop.value.code
    assert isinstance(message, str)  # printed, exit status 1
    assert "tablectl and pokerkit disagree" in message and "board " in message


def test_the_cross_check_stops_when_the_award_does_not_pay_out_the_pot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bench_showdown, "POT", bench_showdown.POT + 1)
    with pytest.raises(SystemExit) as stop:
        bench_showdown.main(["--hands", "1"])
    assert "award pays 105.00 of the 106.00 pot" in str(stop.value.code)
