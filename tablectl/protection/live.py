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
from tablectl.games.blackjack.spec import Pure215Game, PureSpanish215Game
from tablectl.games.blackjack.variant import policy_of
from tablectl.games.table_rules import Rules
from tablectl.protection import baccarat, blackjack
from tablectl.protection.shoe import ShoeLeft
from tablectl.rules.paytables import PayTable

BACCARAT = "ez-baccarat-panda8"
PURE = "pure-21.5-blackjack"
SPANISH = "pure-spanish-21.5"
LIVE_GAMES = (BACCARAT, PURE, SPANISH)


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

    ValueError for a game without live figures (`live_game`). A wager whose round the shoe may
    not hold enough cards for (a baccarat shoe with fewer than six cards, a blackjack shoe that can
    run out before the player-dealer's hand is complete) is left out; so are the wagers that read
    suits when `shoe.by_card` is None (Red Flex, Match the Dealer).
    """
    game = rules.game
    if isinstance(game, BaccaratGame):
        return _baccarat(shoe, game.banker_push_on_dragon7, game.decks)
    if isinstance(game, (Pure215Game, PureSpanish215Game)):
        return _blackjack(rules, shoe)
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


def _blackjack(rules: Rules, shoe: ShoeLeft) -> LiveFigures:
    """The side bets this table offers (its pay tables named) and the Hi-Lo count."""
    policy = policy_of(rules)
    spanish = isinstance(policy.game, PureSpanish215Game)
    decks = policy.game.decks
    full = ShoeLeft.full(decks, spanish=spanish)
    tables = {"red-flex": policy.red_flex, "buster": policy.buster, "match-dealer": policy.match}
    wagers = []
    for spot in policy.spots:
        table = tables.get(spot)
        if table is None:
            continue  # the base game: its figure needs the players' strategy
        live = _side_bet(spot, table, shoe)
        if live is not None:
            base = _blackjack_full(spot, decks, spanish, table)
            wagers.append(WagerFigure(spot, live, base))
    cards = shoe.cards
    running = blackjack.hi_lo(full.counts, shoe.counts)
    deck_cards = full.cards // decks
    true = Fraction(running * deck_cards, cards) if cards else None
    return LiveFigures(cards, tuple(wagers), running, true)


def _side_bet(spot: str, table: PayTable, shoe: ShoeLeft) -> Fraction | None:
    """One side bet's expectation for the next round, None when the shoe cannot say it."""
    if spot == "match-dealer":
        if shoe.by_card is None or shoe.cards < 3:
            return None
        return blackjack.match_expectation(shoe.by_card, table)
    values = blackjack.value_counts(shoe.counts)
    if not blackjack.dealer_completes(values):
        return None
    if spot == "buster":
        return blackjack.buster_expectation(values, table)
    if shoe.by_card is None:
        return None
    return blackjack.red_flex_expectation(values, blackjack.red_value_counts(shoe.by_card), table)


_FULL: dict[tuple[str, int, bool, str], Fraction] = {}


def _blackjack_full(spot: str, decks: int, spanish: bool, table: PayTable) -> Fraction:
    """A side bet's figure off the top of a full shoe (kept per spot, decks and pay table)."""
    key = (spot, decks, spanish, table.model_dump_json())
    if key not in _FULL:
        figure = _side_bet(spot, table, ShoeLeft.full(decks, spanish=spanish))
        if figure is None:
            raise AssertionError(f"a full shoe of {decks} decks completes any hand")
        _FULL[key] = figure
    return _FULL[key]
