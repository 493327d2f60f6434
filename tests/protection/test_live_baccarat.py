"""Baccarat's live figures (tablectl/protection/live.py): at a full shoe they are `analyze`'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.analysis.baccarat import exact_house_edge
from tablectl.protection.live import live_figures, live_game
from tablectl.protection.shoe import ShoeLeft
from tests.helpers import make_config


@pytest.mark.parametrize("push", [False, True])
@pytest.mark.parametrize("decks", [3, 6, 8])
def test_the_figures_of_a_full_shoe_are_analyzes(tmp_path: Path, decks: int, push: bool) -> None:
    """`tablectl analyze`'s exact house edge is minus the player's expectation, R26 and R27 pays,
    with and without the banker pushing on a Dragon 7."""
    rules = make_config(tmp_path, game={"decks": decks, "banker_push_on_dragon7": push}).rules
    assert live_game(rules)
    figures = live_figures(rules, ShoeLeft.full(decks))
    assert figures.cards_left == 52 * decks
    assert [w.wager for w in figures.wagers] == ["player", "banker", "tie", "dragon7", "panda8"]
    for w in figures.wagers:
        edge = exact_house_edge(w.wager, decks, banker_push_on_dragon7=push)
        assert w.expectation == -edge
        assert w.full_shoe == -edge
    assert figures.running_count is None
    assert figures.true_count is None
