"""The live figures of a table's wagers from the cards left in its shoe (`live_figures`).

Each figure is the player's expected net return per unit staked on the next round, exact: an
enumeration over the remaining cards with integer weights, one Fraction per wager, beside the
same figure off the top of a full shoe of the table's decks. Baccarat's five spots
(tablectl/protection/baccarat.py); at the 21.5 blackjack games the side bets that pay on the
player-dealer's hand alone and Match the Dealer, with a Hi-Lo running and true count
(tablectl/protection/blackjack.py). docs/protection.md says what is computed and how.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from tablectl.games.baccarat.spec import BaccaratGame
from tablectl.games.table_rules import Rules
from tablectl.protection import baccarat
from tablectl.protection.shoe import ShoeLeft

BACCARAT = "ez-baccarat-panda8"
LIVE_GAMES = (BACCARAT,)


@dataclass(frozen=True, slots=True)
class WagerFigure:
    """One wager's live figure."""

    wager: str  # the game's spot name: player banker tie dragon7 panda8 / buster match-dealer ...
    expectation: Fraction  # the player's expected net return per unit staked (this table's pays)
    full_shoe: Fraction  # the same figure off the top of a full shoe


@dataclass(frozen=True, slots=True)
class LiveFigures:
    """Every live figure of a table after a card: the cards left, the wagers, the counts."""

    cards_left: int
    wagers: tuple[WagerFigure, ...]
    running_count: int | None  # blackjack only (Hi-Lo, docs/protection.md)
    true_count: Fraction | None


def live_game(rules: Rules) -> bool:
    """Whether this table's game has live figures (a game dealt from a card-reading shoe whose
    wagers this package enumerates)."""
    return rules.game.id in LIVE_GAMES


def live_figures(rules: Rules, shoe: ShoeLeft) -> LiveFigures:
    """The exact figures of the next round dealt from `shoe` under `rules` (no simulation).

    ValueError for a game without live figures (`live_game`). A baccarat shoe with fewer than six
    cards left cannot promise a coup: its figures hold no wagers.
    """
    game = rules.game
    if isinstance(game, BaccaratGame):
        return _baccarat(shoe, game.banker_push_on_dragon7, game.decks)
    raise ValueError(
        f"{game.id} has no live figures: the games with them are {', '.join(LIVE_GAMES)}"
    )


@cache
def _baccarat_full(push: bool, decks: int) -> dict[str, Fraction]:
    """Baccarat's figures off the top of a full shoe (once per option and deck count)."""
    points = baccarat.class_counts(ShoeLeft.full(decks).counts)
    return baccarat.expectations(points, banker_push_on_dragon7=push)


def _baccarat(shoe: ShoeLeft, push: bool, decks: int) -> LiveFigures:
    cards = shoe.cards
    if cards < baccarat.MOST_CARDS:
        return LiveFigures(cards, (), None, None)
    full = _baccarat_full(push, decks)
    live = baccarat.expectations(baccarat.class_counts(shoe.counts), banker_push_on_dragon7=push)
    wagers = tuple(WagerFigure(spot, live[spot], full[spot]) for spot in live)
    return LiveFigures(cards, wagers, None, None)
