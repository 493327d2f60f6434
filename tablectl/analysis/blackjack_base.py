"""The blackjack base game (issue 3 item 5): whole rounds simulated through the real engine under
a stated strategy, with the 95% confidence interval of the player-dealer's edge.

Every rule the simulation meets is the engine's own (tablectl/games/blackjack/): the strategy
only picks among the engine's legal actions, and every round is played with `apply`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from types import MappingProxyType
from typing import Any

from tablectl.analysis import progress
from tablectl.analysis.blackjack import (
    PURE_GAME,
    SIM_SEED,
    SPANISH_GAME,
    WAGERS,
    Z95,
    check_decks,
    shoe,
    workers_available,
)
from tablectl.config import load_config
from tablectl.game_records import RoundSettled
from tablectl.games.blackjack.engine import BlackjackEngine
from tablectl.games.blackjack.state import BlackjackState
from tablectl.games.registry import make_engine
from tablectl.games.table_rules import Rules
from tablectl.rules.blackjack import DEFAULT_PURE_ODDS, PURE_ODDS, card_value, hand_total
from tablectl.rules.paytables import PAYTABLE_DIR
from tablectl_base.cards import Card
from tablectl_base.events import Bank, BetsClose, Decision, InputEvent, ShoeCard, Wager

CONFIG_DIR = PAYTABLE_DIR.parent
# The shipped config whose rules the base game is played under (docs/config.md): 000's approval
# for Pure 21.5 (its `pure_pays` replaced by the analysis's choice, R11), 003's for Spanish.
BASE_CONFIGS: Mapping[str, str] = MappingProxyType(
    {PURE_GAME: "pure-21.5-blackjack-000.toml", SPANISH_GAME: "pure-spanish-21.5-003.toml"}
)
BASE_HANDS = 80_000  # rounds by default: about 45 s on two cores (docs/games/blackjack.md)
BASE_CHUNK = 5_000  # rounds per independently seeded chunk (the result is the same on any CPUs)
# The one player: seat 1 (contract 2 numbers seats from the house dealer's left), so with the
# player-dealer at the last seat it is the first seat dealt and to act
# (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play").
BASE_SEAT = 1
# The bank in base wagers. A round can cost the bank at most 4 hands (R16) x 8 times the wager
# (Spanish double-double, R20) = 32 wagers, so R1 never limits a payment or a collection.
BANK_STAKES = 1_000
# More inputs than a round can take (a hand holds at most 11 cards, 4 hands, R16): a bug
MAX_INPUTS = 100
TS = "2026-01-01T00:00:00.000000Z"  # the engines need a timestamp; no figure depends on it

# The basic-strategy tables (issue 3 item 5), stated as data: a row per hand class, a column per
# player-dealer up card (T = any card worth 10, R10). Codes: H hit, S stand, D double if allowed
# else hit, Ds double if allowed else stand, P split; after a Spanish double (R20): S stand,
# R rescue, DD double again if allowed else stand. Pure 21.5 is the published multi-deck chart
# for a dealer hitting soft 17 with double after split and no surrender (docs/games/blackjack.md
# "Base game analysis"), whose rules 000 has (000 "Pure 21.5 Blackjack: Chart 1A", "Chart 1B",
# "Double-Down, Split, and Surrender"; R12, R14, R16); Spanish 21.5 is derived from 003's own rules
# (003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used", "Card Values and Hand
# Rankings", "Chart 1A", "Chart 1B", "Double-Down, Rescue, Double-Double Down, Split, and
# Surrender"; R20) by the infinite-deck expected value of each move. Surrender, insurance and
# doubling for less: never.
PURE_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   H  H  H  H  H  H  H  H  H  H
hard 5   H  H  H  H  H  H  H  H  H  H
hard 6   H  H  H  H  H  H  H  H  H  H
hard 7   H  H  H  H  H  H  H  H  H  H
hard 8   H  H  H  H  H  H  H  H  H  H
hard 9   H  D  D  D  D  H  H  H  H  H
hard 10  D  D  D  D  D  D  D  D  H  H
hard 11  D  D  D  D  D  D  D  D  D  D
hard 12  H  H  S  S  S  H  H  H  H  H
hard 13  S  S  S  S  S  H  H  H  H  H
hard 14  S  S  S  S  S  H  H  H  H  H
hard 15  S  S  S  S  S  H  H  H  H  H
hard 16  S  S  S  S  S  H  H  H  H  H
hard 17  S  S  S  S  S  S  S  S  S  S
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  H  H  H  H  D  H  H  H  H  H
soft 13  H  H  H  D  D  H  H  H  H  H
soft 14  H  H  H  D  D  H  H  H  H  H
soft 15  H  H  D  D  D  H  H  H  H  H
soft 16  H  H  D  D  D  H  H  H  H  H
soft 17  H  D  D  D  D  H  H  H  H  H
soft 18  Ds Ds Ds Ds Ds S  S  H  H  H
soft 19  S  S  S  S  Ds S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
pair A   P  P  P  P  P  P  P  P  P  P
pair 2   P  P  P  P  P  P  H  H  H  H
pair 3   P  P  P  P  P  P  H  H  H  H
pair 4   H  H  H  P  P  H  H  H  H  H
pair 5   D  D  D  D  D  D  D  D  H  H
pair 6   P  P  P  P  P  H  H  H  H  H
pair 7   P  P  P  P  P  P  H  H  H  H
pair 8   P  P  P  P  P  P  P  P  P  P
pair 9   P  P  P  P  P  S  P  P  S  S
pair T   S  S  S  S  S  S  S  S  S  S
"""
SPANISH_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   H  H  H  D  D  H  H  H  H  H
hard 5   H  H  H  D  D  H  H  H  H  H
hard 6   H  H  H  D  D  H  H  H  H  H
hard 7   H  H  H  D  D  H  H  H  H  H
hard 8   H  H  D  D  D  H  H  H  H  H
hard 9   H  D  D  D  D  H  H  H  H  H
hard 10  D  D  D  D  D  D  D  H  H  H
hard 11  D  D  D  D  D  D  D  D  D  D
hard 12  H  H  H  H  H  H  H  H  H  H
hard 13  H  H  H  H  S  H  H  H  H  H
hard 14  H  H  S  S  S  H  H  H  H  H
hard 15  S  S  S  S  S  H  H  H  H  H
hard 16  S  S  S  S  S  H  H  H  H  H
hard 17  S  S  S  S  S  S  S  S  S  S
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  H  D  D  D  D  D  H  H  H  H
soft 13  H  D  D  D  D  H  H  H  H  H
soft 14  H  D  D  D  D  H  H  H  H  H
soft 15  H  H  D  D  D  H  H  H  H  H
soft 16  H  H  D  D  D  H  H  H  H  H
soft 17  H  H  D  D  D  H  H  H  H  H
soft 18  S  S  Ds Ds Ds S  S  H  H  H
soft 19  S  S  S  S  S  S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
pair A   P  P  P  P  P  P  P  P  P  P
pair 2   P  P  P  P  P  P  P  H  H  H
pair 3   P  P  P  P  P  P  P  H  H  H
pair 4   H  H  D  D  D  H  H  H  H  H
pair 5   D  D  D  D  D  D  D  H  H  H
pair 6   H  H  P  P  P  H  H  H  H  H
pair 7   P  P  P  P  P  P  H  H  H  H
pair 8   P  P  P  P  P  P  P  P  P  H
pair 9   S  P  P  P  P  S  P  P  S  S
pair T   S  S  S  S  S  S  S  S  S  S
"""
# A Spanish hand that has doubled and taken its card (R20: the engine offers stand, rescue and,
# with double-double down, another double): derived like SPANISH_TABLE for a hand doubled once.
SPANISH_AFTER_DOUBLE_TABLE = """
         2  3  4  5  6  7  8  9  T  A
hard 4   S  S  DD DD DD S  R  R  R  R
hard 5   S  S  DD DD DD S  R  R  R  R
hard 6   S  S  DD DD DD S  R  R  R  R
hard 7   DD DD DD DD DD DD R  R  R  R
hard 8   DD DD DD DD DD DD DD DD R  R
hard 9   DD DD DD DD DD DD DD DD DD DD
hard 10  DD DD DD DD DD DD DD DD DD DD
hard 11  DD DD DD DD DD DD DD DD DD DD
hard 12  S  S  S  S  S  DD DD R  R  R
hard 13  S  S  S  S  S  S  R  R  R  R
hard 14  S  S  S  S  S  S  R  R  R  R
hard 15  S  S  S  S  S  S  R  R  R  R
hard 16  S  S  S  S  S  S  R  R  R  R
hard 17  S  S  S  S  S  S  S  S  S  R
hard 18  S  S  S  S  S  S  S  S  S  S
hard 19  S  S  S  S  S  S  S  S  S  S
hard 20  S  S  S  S  S  S  S  S  S  S
hard 21  S  S  S  S  S  S  S  S  S  S
soft 12  DD DD DD DD DD DD DD DD DD DD
soft 13  DD DD DD DD DD DD DD DD DD DD
soft 14  DD DD DD DD DD DD DD DD DD DD
soft 15  DD DD DD DD DD DD DD DD DD DD
soft 16  DD DD DD DD DD DD DD DD DD DD
soft 17  DD DD DD DD DD DD DD DD DD DD
soft 18  S  S  DD DD DD S  S  S  S  S
soft 19  S  S  S  S  S  S  S  S  S  S
soft 20  S  S  S  S  S  S  S  S  S  S
soft 21  S  S  S  S  S  S  S  S  S  S
"""
UP_COLUMNS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
# Every hand class a decision can meet: two cards make hard 4 (2-2) to hard 20 and soft 12
# (A-A) to soft 21, more cards hard 5 to 21 and soft 13 to 21 (R10); a busted or pure hand
# never decides (000 "Pure 21.5 Blackjack: Buster Blackjack Bonus Bet").
HARD_ROWS = tuple(f"hard {t}" for t in range(4, 22))
SOFT_ROWS = tuple(f"soft {t}" for t in range(12, 22))
PAIR_ROWS = tuple(f"pair {c}" for c in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T"))
CODES = frozenset({"H", "S", "D", "Ds", "P"})
AFTER_DOUBLE_CODES = frozenset({"S", "R", "DD"})
# A code's moves, best first; the first the engine offers is taken, so where Chart 1A (R15)
# forbids the table's hit or stand, or a double or split is not offered (R16, R20), the next.
MOVES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "H": ("hit", "stand"),
        "S": ("stand", "hit"),
        "D": ("double", "hit", "stand"),
        "Ds": ("double", "stand", "hit"),
        "P": ("split",),
        "R": ("rescue", "stand", "hit"),
        "DD": ("double", "stand", "hit"),
    }
)

Table = Mapping[str, Mapping[str, str]]


def parse_table(text: str, rows: Sequence[str], codes: frozenset[str]) -> Table:
    """A strategy table stated as text: exactly `rows`, each with one of `codes` per up card."""
    lines = [line.split() for line in text.strip().splitlines()]
    header, body = lines[0], lines[1:]
    if tuple(header) != UP_COLUMNS:
        raise ValueError(f"a strategy table's columns are {' '.join(UP_COLUMNS)}, not {header}")
    table: dict[str, Mapping[str, str]] = {}
    for words in body:
        name, cells = " ".join(words[:2]), words[2:]
        if len(cells) != len(UP_COLUMNS) or not set(cells) <= codes or name in table:
            raise ValueError(f"bad strategy row {' '.join(words)!r}")
        table[name] = MappingProxyType(dict(zip(UP_COLUMNS, cells, strict=True)))
    if tuple(table) != tuple(rows):
        raise ValueError(f"a strategy table has the rows {', '.join(rows)}")
    return MappingProxyType(table)


STRATEGY_TABLES: Mapping[str, Table] = MappingProxyType(
    {
        PURE_GAME: parse_table(PURE_TABLE, HARD_ROWS + SOFT_ROWS + PAIR_ROWS, CODES),
        SPANISH_GAME: parse_table(SPANISH_TABLE, HARD_ROWS + SOFT_ROWS + PAIR_ROWS, CODES),
    }
)
AFTER_DOUBLE: Table = parse_table(
    SPANISH_AFTER_DOUBLE_TABLE, HARD_ROWS + SOFT_ROWS, AFTER_DOUBLE_CODES
)

BASE_STRATEGY: Mapping[str, str] = MappingProxyType(
    {
        PURE_GAME: (
            "basic strategy by the table STRATEGY_TABLES[pure-21.5-blackjack] (the published "
            "multi-deck chart for a dealer hitting soft 17, double after split, no surrender; "
            'docs/games/blackjack.md), within Chart 1A (000 "Pure 21.5 Blackjack: Chart 1A": '
            "stand on hard 19 or more, hit hard 11 or less) and the engine's legal actions: "
            "double for the full wager on any first two cards, split hands included (000 "
            '"Pure 21.5 Blackjack: Double-Down, Split, and Surrender"), split pairs and two '
            "bonus cards by the table (up to four hands, split aces one card each, R16); never "
            "surrender, never take insurance or even money"
        ),
        SPANISH_GAME: (
            "basic strategy by the table STRATEGY_TABLES[pure-spanish-21.5] (derived from "
            "003's rules by the infinite-deck expected value of each move; "
            'docs/games/blackjack.md), within Chart 1A (003 "Pure Spanish 21.5: Chart 1A": '
            "stand on hard 17 or more) and the engine's legal actions: double for the full "
            'wager on any first two cards, split hands included (003 "Pure Spanish 21.5: '
            'Double-Down, Rescue, Double-Double Down, Split, and Surrender"), split any two '
            "cards of equal value by the table (R20, up to four hands); after a double, stand, "
            "rescue or double again (double-double down, R20) by the table AFTER_DOUBLE; never "
            "surrender (the Spanish approval offers no insurance)"
        ),
    }
)
BASE_ASSUMES = (
    "one player at seat {seat} bets the table minimum of the shipped config {config} "
    "({stake}, the unit) on the base wager against a player-dealer bank of {bank_stakes} units "
    "at the last seat, so R1 never limits a payment; every round is played through "
    "BlackjackEngine, the engine that runs the table, and dealt from a freshly shuffled shoe "
    "of {decks} decks; the player's decisions come from the engine's legal actions by this "
    "stated strategy: {strategy}; the house edge is the player's expected loss per unit of "
    "initial base wager (doubles and splits add money at risk, not units), collection fees "
    "(R4) excluded"
)


def _column(value: int) -> str:
    """The table label of a card value (R10): an ace is A, a bonus card T, else the value."""
    return "A" if value == 1 else "T" if value == 10 else str(value)


def base_strategy(
    cards: Sequence[Card], up: Card, legal: Sequence[str], *, game: str = PURE_GAME
) -> str:
    """The stated basic strategy's move (STRATEGY_TABLES[game]) for a hand, one of `legal`.

    "hit" means: draw the next card. A hand owed its card after a split or a double has only
    "hit" legal and takes it. A hand offered "rescue" is a Spanish hand that has doubled
    (R20, 003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender")
    and plays by AFTER_DOUBLE. A two-card hand that may split plays by its pair row, any other by
    its hard or soft total. The table's code gives its moves best first (MOVES_OF) and the first the
    engine offers is taken: that is how Chart 1A (R15) always overrides the table, and how D and Ds
    fall back when a double is not offered.
    """
    if len(legal) == 1:
        return legal[0]
    if game not in STRATEGY_TABLES:
        raise ValueError(f"no strategy table for {game!r}: expected one of {', '.join(WAGERS)}")
    total = hand_total(cards)
    if total.value > 21:
        raise ValueError(f"a busted hand ({total.value}) has no decision")
    row = f"{'soft' if total.soft else 'hard'} {total.value}"
    column = _column(card_value(up))
    if "rescue" in legal:
        code = AFTER_DOUBLE[row][column]
    else:
        table = STRATEGY_TABLES[game]
        code = table[row][column]
        pair = len(cards) == 2 and card_value(cards[0]) == card_value(cards[1])
        if pair and "split" in legal:
            code = table[f"pair {_column(card_value(cards[0]))}"][column]
    for move in MOVES_OF[code]:
        if move in legal:
            return move
    raise ValueError(f"the strategy's {code} for {row} against {up} is not among {legal}")


@cache
def base_engine(game: str, decks: int, pure_pays: str) -> BlackjackEngine:
    """The engine of the game's shipped config (BASE_CONFIGS) with these decks and pays (R11)."""
    rules = load_config(CONFIG_DIR / BASE_CONFIGS[game]).rules
    update: dict[str, Any] = {"decks": decks}
    if game == PURE_GAME:
        update["pure_pays"] = pure_pays
    config = type(rules.game).model_validate(rules.game.model_dump() | update)
    engine = make_engine(
        Rules(
            game=config,
            seats=rules.seats,
            limits=rules.limits,
            schedule=rules.schedule,
            paytables=rules.paytables,
        )
    )
    if not isinstance(engine, BlackjackEngine):
        raise TypeError(f"{game} is not played by BlackjackEngine but by {type(engine).__name__}")
    return engine


def base_stake(engine: BlackjackEngine) -> Decimal:
    """The base wager of the simulation, one unit: the table minimum of the config's base spot."""
    return engine.limits.for_spot("base").min


@dataclass(frozen=True)
class BaseRound:
    """One round played through the engine: the player's net on the base wager, the bank's
    change, each (legal actions, strategy's move) in order and the engine's `RoundSettled`."""

    net: Decimal
    bank_change: Decimal
    moves: tuple[tuple[tuple[str, ...], str], ...]
    result: RoundSettled


def play_round(engine: BlackjackEngine, draw: Callable[[], Card], stake: Decimal) -> BaseRound:
    """Play one round from a fresh table: bank, one base wager, the deal and the hands.

    Cards come from `draw` whenever the engine takes one (the deal, a hit, the card owed after a
    split or a double, the player-dealer's draws by Chart 1B, R14); with an ace up the insurance
    offer is closed unanswered (R17). A move the engine refused would raise its Rejected.
    """
    state: BlackjackState = engine.initial()
    for ev in _opening(engine.seats, stake):
        state, _ = engine.apply(state, ev, TS)
    moves: list[tuple[tuple[str, ...], str]] = []
    for _ in range(MAX_INPUTS):
        ev = _next_input(engine, state, draw, moves)
        state, outputs = engine.apply(state, ev, TS)
        for out in outputs:
            if isinstance(out, RoundSettled):
                return _round_of(out, moves)
    raise RuntimeError(f"a round took more than {MAX_INPUTS} inputs")


def _next_input(
    engine: BlackjackEngine,
    state: BlackjackState,
    draw: Callable[[], Card],
    moves: list[tuple[tuple[str, ...], str]],
) -> InputEvent:
    """What the table enters next: a card, a decision by the strategy, or closing insurance."""
    if state.phase == "insurance":
        return BetsClose()  # never insure: closing the offer checks the hole card (R12, R17)
    hand = state.current
    if hand is not None:
        legal = engine.legal_actions(state)
        up = state.up_card
        if up is None:
            raise RuntimeError("a hand acts before the player-dealer's up card is dealt")
        move = base_strategy(hand.cards, up, legal, game=engine.game_id)
        moves.append((legal, move))
        if move != "hit":
            return _decision(hand.seat, move, state.index_of(hand))
    return _card_event(draw())


# Inputs are immutable: one of each serves every round (validating them anew costs ~5%)


@cache
def _opening(seats: int, stake: Decimal) -> tuple[InputEvent, ...]:
    """A round's first inputs: the bank at the last seat, the base wager, no more bets."""
    return (
        Bank(seat=seats, amount=stake * BANK_STAKES),
        Wager(seat=BASE_SEAT, spot="base", amount=stake),
        BetsClose(),
    )


@cache
def _decision(seat: int, action: str, hand: int) -> Decision:
    """The `decision` input of a move for the seat's `hand`-th hand."""
    return Decision(seat=seat, action=action, hand=hand)


@cache
def _card_event(card: Card) -> ShoeCard:
    """The `shoe.card` input of a card."""
    return ShoeCard(card=str(card))


def _round_of(result: RoundSettled, moves: list[tuple[tuple[str, ...], str]]) -> BaseRound:
    """The money of a finished round, read from its settlements (R1)."""
    rows = result.settlements
    if any(row.spot != "base" for row in rows):
        raise RuntimeError("the base-game simulation placed a wager other than the base wager")
    net = sum((row.net for row in rows), Decimal(0))
    start, end = result.bank.start, result.bank.end
    if start is None or end is None:
        raise RuntimeError("a settled round shows no bank")
    return BaseRound(net, end - start, tuple(moves), result)


class FreshShoe:
    """A freshly shuffled shoe for every round, shuffled only as far as it is dealt.

    A partial Fisher-Yates: the i-th card drawn is chosen uniformly among the cards not drawn
    yet this round, which is the i-th card of a uniformly shuffled shoe.
    """

    def __init__(self, cards: Sequence[Card], rng: random.Random) -> None:
        self.cards = list(cards)
        self.rng = rng
        self.top = 0

    def shuffle(self) -> None:
        """Gather the cards for a new round (every card may be drawn again)."""
        self.top = 0

    def draw(self) -> Card:
        """The next card of this round's shoe."""
        top = self.top
        if top >= len(self.cards):
            raise RuntimeError("the shoe ran out of cards in one round")
        j = self.rng.randrange(top, len(self.cards))
        self.cards[top], self.cards[j] = self.cards[j], self.cards[top]
        self.top = top + 1
        return self.cards[top]


def base_rounds(
    game: str, decks: int, pure_pays: str, rounds: int, seed: str
) -> Iterator[BaseRound]:
    """`rounds` rounds of the base-game simulation, each from a fresh shoe seeded by `seed`."""
    engine = base_engine(game, decks, pure_pays)
    stake = base_stake(engine)
    fresh = FreshShoe(shoe(game, decks), random.Random(seed))
    for _ in range(rounds):
        fresh.shuffle()
        yield play_round(engine, fresh.draw, stake)


@dataclass(frozen=True)
class BaseTally:
    """Sums over simulated rounds, in money: enough for the mean, the variance and the rates."""

    rounds: int = 0
    wins: int = 0  # rounds the player's net is positive
    pushes: int = 0
    losses: int = 0
    net: Decimal = Decimal(0)
    squares: Decimal = Decimal(0)

    def __add__(self, other: BaseTally) -> BaseTally:
        """Both tallies together (exact: Decimal sums of cent amounts)."""
        return BaseTally(
            self.rounds + other.rounds,
            self.wins + other.wins,
            self.pushes + other.pushes,
            self.losses + other.losses,
            self.net + other.net,
            self.squares + other.squares,
        )


def _base_chunk(game: str, decks: int, pure_pays: str, rounds: int, seed: str) -> BaseTally:
    """One seeded chunk of `simulate_base`."""
    wins = pushes = losses = 0
    net = squares = Decimal(0)
    for played in base_rounds(game, decks, pure_pays, rounds, seed):
        net += played.net
        squares += played.net * played.net
        if played.net > 0:
            wins += 1
        elif played.net == 0:
            pushes += 1
        else:
            losses += 1
    return BaseTally(rounds, wins, pushes, losses, net, squares)


def simulate_base(
    game: str,
    decks: int,
    hands: int,
    *,
    pure_pays: str = DEFAULT_PURE_ODDS,
    seed: int = SIM_SEED,
    workers: int | None = None,
) -> BaseTally:
    """Play `hands` rounds of the base game through the engine (see BASE_ASSUMES).

    The rounds are cut in chunks of BASE_CHUNK, chunk i seeded with (seed, i), and spread over
    `workers` processes (default: the CPUs this process may use); the tally depends only on
    `seed` and `hands`.
    """
    if hands < 1:
        raise ValueError(f"simulate at least one round, not {hands}")
    sizes = [min(BASE_CHUNK, hands - start) for start in range(0, hands, BASE_CHUNK)]
    jobs = [(game, decks, pure_pays, k, f"{seed}/{i}") for i, k in enumerate(sizes)]
    workers = min(workers or workers_available(), len(jobs))
    parts: list[BaseTally] = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part in pool.map(_base_chunk, *zip(*jobs, strict=True)):
                parts.append(part)
                progress(len(parts), len(jobs))
    else:
        for job in jobs:
            parts.append(_base_chunk(*job))
            progress(len(parts), len(jobs))
    return sum(parts, BaseTally())


def base_figures(tally: BaseTally, stake: Decimal) -> dict[str, Any]:
    """House edge and hit frequency per unit of base wager, with their 95% intervals."""
    n = tally.rounds
    unit = float(stake)
    mean = float(tally.net) / n / unit
    second = float(tally.squares) / n / (unit * unit)
    sd = math.sqrt(max(second - mean * mean, 0.0) * n / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    hit = tally.wins / n
    hit_half = Z95 * math.sqrt(hit * (1 - hit) / n)
    return {
        "hit_frequency": hit,
        "house_edge": -mean,
        "method": "simulation",
        "ci95": [-mean - half, -mean + half],
        "hit_frequency_ci95": [hit - hit_half, hit + hit_half],
        "outcomes": {"win": hit, "push": tally.pushes / n, "lose": tally.losses / n},
        "sd": sd,
        "hands": n,
    }


def analyze_base(
    game: str,
    decks: int,
    *,
    pure_pays: str | None = None,
    paytable: str | None = None,
    hands: int | None = None,
    seed: int = SIM_SEED,
    workers: int | None = None,
) -> dict[str, Any]:
    """The base game's house edge under the stated strategy, simulated through the engine.

    `pure_pays`: "6 to 5" (default, R11) or "3 to 2" for Pure 21.5; Spanish pays 6 to 5 only
    (003 "Pure Spanish 21.5: Card Values and Hand Rankings"). `hands` rounds (default BASE_HANDS),
    seeded.
    """
    if game not in WAGERS:
        raise ValueError(f"{game!r} is not a 21.5 game: expected one of {', '.join(WAGERS)}")
    check_decks(game, decks)
    if paytable is not None:
        raise ValueError(
            'the base wager has no pay table: the hands decide it (000 "Pure 21.5 Blackjack: '
            'How Each Wager Wins, Loses, or Pushes") and a Pure 21.5 is paid by --pure-pays '
            "(R11)"
        )
    pays = pure_pays or DEFAULT_PURE_ODDS
    if pays not in PURE_ODDS:
        raise ValueError(f"a Pure 21.5 pays {' or '.join(PURE_ODDS)} (R11), not {pays!r}")
    if game == SPANISH_GAME and pays != "6 to 5":
        raise ValueError(
            'a Pure Spanish 21.5 pays 6 to 5 (003 "Pure Spanish 21.5: Card Values and Hand '
            'Rankings")'
        )
    rounds = BASE_HANDS if hands is None else hands
    engine = base_engine(game, decks, pays)
    stake = base_stake(engine)
    tally = simulate_base(game, decks, rounds, pure_pays=pays, seed=seed, workers=workers)
    assumes = BASE_ASSUMES.format(
        seat=BASE_SEAT,
        config=f"config/{BASE_CONFIGS[game]}",
        stake=stake,
        bank_stakes=f"{BANK_STAKES:,}",
        decks=decks,
        strategy=BASE_STRATEGY[game],
    )
    return {
        "game": game,
        "wager": "base",
        "decks": decks,
        "pure_pays": pays,
        "config": f"config/{BASE_CONFIGS[game]}",
        "stake": str(stake),
        **base_figures(tally, stake),
        "seed": seed,
        "strategy": BASE_STRATEGY[game],
        "assumes": assumes,
    }
