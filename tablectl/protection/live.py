"""The live figures of a table's wagers from the cards left in its shoe (`live_figures`).

Each figure is the player's expected net return per unit staked on the next round, exact: an
enumeration over the remaining cards with integer weights, one Fraction per wager, beside the
same figure off the top of a full shoe of the table's decks. Baccarat's five spots
(tablectl/protection/baccarat.py); at the 21.5 blackjack games the side bets that pay on the
player-dealer's hand alone and Match the Dealer, with a Hi-Lo running and true count
(tablectl/protection/blackjack.py). docs/protection.md says what is computed and how.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def full_shoe(rules: Rules) -> ShoeLeft:
    """The shoe `shoe.new` puts in at this table: the rules' decks of the game's deck (Pure
    Spanish 21.5's without its pip tens, 003 "Pure Spanish 21.5: Description of the Deck and
    Number of Decks Used"). ValueError for a game without live figures."""
    game = rules.game
    if not isinstance(game, (BaccaratGame, Pure215Game, PureSpanish215Game)):
        raise ValueError(
            f"{game.id} has no live figures: the games with them are {', '.join(LIVE_GAMES)}"
        )
    return ShoeLeft.full(game.decks, spanish=isinstance(game, PureSpanish215Game))


def prepare(rules: Rules) -> None:
    """Build once what every later call reads (the per-process tables, the full shoe's
    figures, about 0.3 s for baccarat): called when the table starts, no card waits for it."""
    live_figures(rules, full_shoe(rules))


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
    full = full_shoe(rules)
    tables = {"red-flex": policy.red_flex, "buster": policy.buster, "match-dealer": policy.match}
    offered = {spot: t for spot, t in tables.items() if t is not None and spot in policy.spots}
    live = _side_bets(offered, shoe)
    base = _blackjack_full(offered, decks, spanish)
    wagers = tuple(WagerFigure(spot, live[spot], base[spot]) for spot in offered if spot in live)
    cards = shoe.cards
    running = blackjack.hi_lo(full.counts, shoe.counts)
    deck_cards = full.cards // decks
    true = Fraction(running * deck_cards, cards) if cards else None
    return LiveFigures(cards, wagers, running, true)


def _side_bets(tables: Mapping[str, PayTable], shoe: ShoeLeft) -> dict[str, Fraction]:
    """The offered side bets' expectations for the next round, leaving out any the shoe cannot
    say: too few cards for the round, or suits not known."""
    out: dict[str, Fraction] = {}
    match = tables.get("match-dealer")
    if match is not None and shoe.by_card is not None and shoe.cards >= 3:
        out["match-dealer"] = blackjack.match_expectation(shoe.by_card, match)
    red_flex, buster = tables.get("red-flex"), tables.get("buster")
    if red_flex is None and buster is None:
        return out
    red = None
    if red_flex is not None and shoe.by_card is not None:
        red = blackjack.red_value_counts(shoe.by_card)
    chances = blackjack.dealer_chances(blackjack.value_counts(shoe.counts), red)
    if chances is None:
        return out
    if buster is not None:
        out["buster"] = blackjack.buster_expectation(chances, buster)
    if red_flex is not None and red is not None:
        out["red-flex"] = blackjack.red_flex_expectation(chances, red_flex)
    return out


_FULL: dict[tuple[int, bool, str], dict[str, Fraction]] = {}


def _blackjack_full(
    tables: Mapping[str, PayTable], decks: int, spanish: bool
) -> dict[str, Fraction]:
    """The side bets' figures off the top of a full shoe (a memo per decks and pay tables)."""
    key = (decks, spanish, repr(sorted((s, t.model_dump_json()) for s, t in tables.items())))
    if key not in _FULL:
        figures = _side_bets(tables, ShoeLeft.full(decks, spanish=spanish))
        if set(figures) != set(tables):
            raise AssertionError(f"a full shoe of {decks} decks says every side bet")
        _FULL[key] = figures
    return _FULL[key]
