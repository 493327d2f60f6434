"""The blackjack base game under a stated strategy (tablectl/analysis/blackjack_strategy.py):
the player-dealer's edge computed exactly (`base_exact`, tablectl/analysis/blackjack_exact.py),
the headline, and whole rounds simulated through the real engine with the 95% confidence
interval of the edge, its cross-check (`base_cross_check`).

Every rule the simulation meets is the engine's own (tablectl/games/blackjack/): the strategy
only picks among the engine's legal actions, and every round is played with `apply`. The exact
model plays the same table (`base_engine`'s policy) by the same engine functions.
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
from tablectl.analysis.blackjack import PURE_GAME, SPANISH_GAME, WAGERS, check_decks, shoe
from tablectl.analysis.blackjack_exact import (
    APPROXIMATION,
    EXACT_FOR,
    ExactBase,
    exact_base,
    shoe_counts,
)
from tablectl.analysis.blackjack_sim import SIM_SEED, Z95, workers_available
from tablectl.analysis.blackjack_strategy import BASE_STRATEGY, base_strategy
from tablectl.config import load_config
from tablectl.game_records import RoundSettled
from tablectl.games.blackjack.engine import BlackjackEngine
from tablectl.games.blackjack.state import BlackjackState
from tablectl.games.registry import make_engine
from tablectl.games.table_rules import Rules
from tablectl.rules.blackjack import DEFAULT_PURE_ODDS, PURE_ODDS
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


@cache
def base_exact(game: str, decks: int, pure_pays: str) -> ExactBase:
    """The exact figures of the base game under the stated strategy, for the table the
    simulation plays (`base_engine`: the same policy) dealt from a full shoe of `decks`."""
    engine = base_engine(game, decks, pure_pays)
    return exact_base(engine.policy, game, shoe_counts(game, decks))


def exact_figures(exact: ExactBase) -> dict[str, Any]:
    """The exact figures in the shape of the simulation's (`base_figures`), per unit of base
    wager: the player-dealer's edge, the share of rounds won (the hit frequency), pushed and
    lost, and the standard deviation of a round's net."""
    win, push, lose = exact.share(1), exact.share(0), exact.share(-1)
    return {
        "hit_frequency": win,
        "house_edge": exact.house_edge,
        "method": "exact",
        "exact_for": EXACT_FOR,
        "approximation": APPROXIMATION,
        "outcomes": {"win": win, "push": push, "lose": lose},
        "sd": exact.sd,
    }


def base_cross_check(exact: Mapping[str, Any], check: Mapping[str, Any]) -> dict[str, Any]:
    """How the simulation (`base_figures`) stands against the exact house edge: its standard
    error, whether its 95% interval holds the exact figure, how many standard errors apart they
    are ("z") and the two-sided chance of a difference that large by sampling alone
    ("p_value"), and a note saying which figure is the headline."""
    se = float(check["sd"]) / math.sqrt(int(check["hands"]))
    low, high = check["ci95"]
    inside = bool(low <= exact["house_edge"] <= high)
    z = (check["house_edge"] - exact["house_edge"]) / se if se > 0 else None
    p = math.erfc(abs(z) / math.sqrt(2)) if z is not None else None
    if z is None or p is None:
        note = "The exact figure is the headline; the simulation saw no spread to check it by."
    else:
        where = "inside" if inside else "outside"
        note = (
            f"The exact figure is the headline. The simulation plays the same strategy through "
            f"the engine: its house edge is {abs(z):.2f} standard errors "
            f"{'above' if z > 0 else 'below'} the exact one, {where} its 95% interval; sampling "
            f"alone makes a difference that large {p:.1%} of the time."
        )
    return {
        "standard_error": se,
        "exact_inside_ci95": inside,
        "z": z,
        "p_value": p,
        "note": note,
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
    """The base game's house edge under the stated strategy: exact (`base_exact`), with the
    simulation through the engine as its cross-check under "simulation".

    `pure_pays`: "6 to 5" (default, R11) or "3 to 2" for Pure 21.5; Spanish pays 6 to 5 only
    (003 "Pure Spanish 21.5: Card Values and Hand Rankings"). `hands` simulated rounds (default
    BASE_HANDS), seeded.
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
    exact = exact_figures(base_exact(game, decks, pays))
    tally = simulate_base(game, decks, rounds, pure_pays=pays, seed=seed, workers=workers)
    check = base_figures(tally, stake) | {"seed": seed}
    check |= base_cross_check(exact, check)
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
        **exact,
        "simulation": check,
        "strategy": BASE_STRATEGY[game],
        "assumes": assumes,
    }
