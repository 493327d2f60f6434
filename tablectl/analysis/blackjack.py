"""Pure 21.5 and Pure Spanish 21.5 side-bet analysis: Match the Dealer, Red Flex, Buster, insurance.

- Match the Dealer (R21) is settled on three cards, the player's two and the player-dealer's up
  card, so it is counted exactly: every up card of the shoe and every pair of the rest.
- Insurance (R17) is counted exactly over the hole card given an ace up.
- Red Flex (R18) and Buster (R19) are settled on the player-dealer's whole hand, which draws by
  Chart 1B after the players have drawn. They get a seeded simulation of a full table dealt from
  a freshly shuffled shoe in the documents' order (`simulate`), with its 95% confidence
  interval, and an exact figure for the player-dealer's hand dealt from the top of a full shoe
  ("exact_full_shoe", `dealer_distribution`): a forward recursion over the multisets of card
  values the hand can hold (its total, softness and size are functions of the multiset, and
  drawing without replacement makes every ordering of one multiset equally likely), in Fractions.

The players' draws cannot move the exact figure: whether a player draws depends only on cards
already seen, and the unseen remainder of a shuffled shoe stays exchangeable at such a stopping
time, so the player-dealer's later cards are distributed as the next cards of the shoe. The
simulation, which does deal the players, is the check of that argument (its interval holds the
exact figure in the tests).

Every decision is read from `tablectl.rules.blackjack` (the same functions the engine uses), on
representative cards, so analysis and play cannot disagree.

The base game wager depends on the player's choices, so it is simulated under a stated strategy
(`BASE_STRATEGY`, `base_strategy`) through the table's own engine (`BlackjackEngine`, built by
`make_engine` from a shipped config): every round is bank, wager, deal, decisions and settlement
exactly as at the table (`analyze_base`), so no rule has a second home here.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache
from math import comb
from types import MappingProxyType
from typing import Any

from tablectl.cards import Card, DeckKind, deck_of
from tablectl.config import Rules, load_config
from tablectl.events import Bank, BetsClose, Decision, InputEvent, ShoeCard, Wager
from tablectl.games.blackjack import BlackjackEngine, BlackjackState
from tablectl.games.registry import make_engine
from tablectl.rules.blackjack import (
    DEFAULT_PURE_ODDS,
    INSURANCE_ODDS,
    PURE_ODDS,
    buster_cards,
    buster_category,
    card_value,
    dealer_must_hit,
    hand_total,
    is_bonus,
    is_pure,
    match_dealer,
    match_dealer_category,
    red_flex_category,
    red_flex_count,
)
from tablectl.rules.blackjack import paytable as named_paytable
from tablectl.rules.paytables import PAYTABLE_DIR, PayTable, payout

PURE_GAME = "pure-21.5-blackjack"
SPANISH_GAME = "pure-spanish-21.5"

# Decks: Pure 21.5 "a minimum of a single deck to a maximum of eight decks" (000 line 29, 003
# line 391); Pure Spanish 21.5 "a minimum of four decks ... to a maximum of eight" (003 line 1841).
DECK_RANGE: Mapping[str, tuple[int, int]] = MappingProxyType(
    {PURE_GAME: (1, 8), SPANISH_GAME: (4, 8)}
)
DECK_KIND: Mapping[str, DeckKind] = MappingProxyType(
    {PURE_GAME: DeckKind.PURE_21_5, SPANISH_GAME: DeckKind.SPANISH_48}
)
# DESIGN contract 4 wager ids analyzed by `analyze`; "base" (the game wager) needs a player
# strategy and is simulated through the engine by `analyze_base`.
WAGERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {PURE_GAME: ("red-flex", "buster", "insurance"), SPANISH_GAME: ("match-dealer",)}
)
# Default tables: 000's (the Bureau's Pure 21.5 approval with both side bets: RFB-02 at line
# 183, Buster "Payout Option 5" at line 143); 003's Match the Dealer table (line 1960).
DEFAULT_PAYTABLES: Mapping[str, str] = MappingProxyType(
    {"red-flex": "RFB-02", "buster": "option-5", "match-dealer": "MATCH-003"}
)

SIM_HANDS = 1_000_000
SIM_SEED = 215
SIM_PLAYERS = 7  # 004 line 344: eight seats, "seven for the players and one for the player-dealer"
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile

SIM_ASSUMES = (
    "each round is dealt from a freshly shuffled shoe of the configured decks to {players} "
    "players and the player-dealer in the documents' order (one card each clockwise, the "
    "player-dealer's up card last, then a second round with its hole card last; 000 lines 53-54); "
    "a player-dealer Pure 21.5 ends the round before anyone draws (R12); otherwise each player, "
    "in seat order, hits by Chart 1B (the same rule as the player-dealer, which keeps within "
    "Chart 1A) and never doubles, splits or surrenders; then the player-dealer completes the "
    "hand by Chart 1B (R14)"
)
EXACT_ASSUMES = (
    "the player-dealer's cards are the first cards of a freshly shuffled full shoe of the "
    "configured decks (no player cards removed), completed by Chart 1B unless a Pure 21.5 "
    "(R14); players' draws depend only on cards already seen, so this is also the per-round "
    "figure of a table dealt from a freshly shuffled shoe"
)
MATCH_ASSUMES = (
    "the player's two initial cards and the player-dealer's up card are three cards of a freshly "
    "shuffled shoe of the configured decks; every choice of three is equally likely"
)
INSURANCE_ASSUMES = (
    "the player-dealer's up card is an ace and the hole card is any other card of the shoe "
    "(the player's own cards not removed); insurance pays 2 to 1 when it is a bonus card (R17)"
)


def _check(game: str, wager: str, decks: int) -> None:
    """Refuse a game, wager or deck count the documents do not have, naming what they allow."""
    if game not in WAGERS:
        raise ValueError(f"{game!r} is not a 21.5 game: expected one of {', '.join(WAGERS)}")
    if wager == "base":
        raise ValueError(f"'base' is not an analyzed {game} side bet: analyze_base simulates it")
    if wager not in WAGERS[game]:
        raise ValueError(
            f"{wager!r} is not an analyzed {game} wager: expected one of {', '.join(WAGERS[game])}"
        )
    _check_decks(game, decks)


def _check_decks(game: str, decks: int) -> None:
    """Refuse a deck count the game's document does not allow (DECK_RANGE)."""
    lo, hi = DECK_RANGE[game]
    if isinstance(decks, bool) or not isinstance(decks, int) or not lo <= decks <= hi:
        raise ValueError(f"{game} is played with {lo} to {hi} decks, not {decks!r}")


def shoe(game: str, decks: int) -> list[Card]:
    """Every card of the game's shoe of `decks` decks, in a fixed order."""
    return list(deck_of(DECK_KIND[game])) * decks


def _figures(probabilities: Mapping[str, Fraction], table: PayTable) -> tuple[Fraction, Fraction]:
    """(hit frequency, house edge) of a wager paying `table` on categories of these chances."""
    hit = sum(probabilities.values(), Fraction(0))
    ev = sum((p * payout(table, c) for c, p in probabilities.items()), Fraction(0)) - (1 - hit)
    return hit, -ev


# ---------------------------------------------------------------- Match the Dealer (exact)


def match_dealer_counts(game: str, decks: int) -> dict[str, int]:
    """Ordered (up card, unordered player pair) choices by R21 category, over the whole shoe.

    For an up card u held `m` times, the other N - 1 cards hold m - 1 suited matches (same
    rank and suit), r unsuited ones (same rank, other suits) and o = N - 1 - (m - 1) - r others;
    each category is a product of binomials. The total is N * C(N - 1, 2).
    """
    cards = Counter(shoe(game, decks))
    n = sum(cards.values())
    per_rank = Counter(c.rank for c in cards.elements())
    counts: Counter[str] = Counter()
    for up, m in cards.items():
        s = m - 1
        r = per_rank[up.rank] - m
        o = n - 1 - s - r
        ways = {
            (2, 0): comb(s, 2),
            (1, 1): s * r,
            (1, 0): s * o,
            (0, 2): comb(r, 2),
            (0, 1): r * o,
        }
        for (suited, unsuited), k in ways.items():
            category = match_dealer(_match_pair(up, suited, unsuited), up)
            if category is None:
                raise RuntimeError(f"{suited} suited + {unsuited} unsuited is not a match (R21)")
            counts[category] += m * k
    counts["no-match"] = n * comb(n - 1, 2) - sum(counts.values())
    return dict(counts)


def _match_pair(up: Card, suited: int, unsuited: int) -> list[Card]:
    """Two representative player cards with that many suited and unsuited matches of `up`."""
    other_suit = "s" if up.suit != "s" else "h"
    other_rank = "2" if up.rank != "2" else "3"
    pair = [up] * suited + [Card(up.rank, other_suit)] * unsuited
    return pair + [Card(other_rank, up.suit)] * (2 - len(pair))


def match_dealer_figures(game: str, decks: int, table: PayTable) -> dict[str, Any]:
    """Exact Match the Dealer figures: probabilities by category, hit frequency and house edge."""
    counts = match_dealer_counts(game, decks)
    total = sum(counts.values())
    probs = {
        c: Fraction(k, total)
        for c, k in counts.items()
        if match_dealer_category(c if c != "no-match" else None, table)
    }
    hit, edge = _figures(probs, table)
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "deals": total,
        "counts": counts,
        "probabilities": {c: k / total for c, k in counts.items()},
        "assumes": MATCH_ASSUMES,
    }


# ---------------------------------------------------------------- insurance (exact)


def insurance_figures(game: str, decks: int) -> dict[str, Any]:
    """Exact insurance figures: the hole card is a bonus card given an ace up (R17, 000 line 95)."""
    cards = shoe(game, decks)
    bonus = sum(is_bonus(c) for c in cards)
    hit = Fraction(bonus, len(cards) - 1)
    edge = -(hit * INSURANCE_ODDS - (1 - hit))
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "assumes": INSURANCE_ASSUMES,
    }


# ---------------------------------------------------------------- the player-dealer's hand (exact)

_REP = "A23456789K"  # a representative rank of each value 1..10


def _hand(values: Sequence[int]) -> list[Card]:
    """Representative cards of these values 1..10 (the hand rules look only at values)."""
    return [Card(_REP[v - 1], "s") for v in values]


def _multiset_hand(counts: tuple[int, ...]) -> list[Card]:
    return _hand([v + 1 for v, k in enumerate(counts) for _ in range(k)])


@dataclass(frozen=True)
class DealerDistribution:
    """Exact chances of the player-dealer's final hand from the top of a full shoe.

    `bust_cards[n]`: busted with n cards (888 included, R19); `red_run[n]`: Red Flex count n >= 2
    (R18); `pure`: a Pure 21.5.
    """

    bust_cards: Mapping[int, Fraction]
    red_run: Mapping[int, Fraction]
    pure: Fraction


def _composition(game: str, decks: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cards of each value 1..10 in the shoe, and red cards of each value."""
    total = [0] * 10
    red = [0] * 10
    for c in shoe(game, decks):
        total[card_value(c) - 1] += 1
        red[card_value(c) - 1] += c.is_red
    return tuple(total), tuple(red)


def _stops(counts: tuple[int, ...]) -> bool:
    """Whether the player-dealer's hand of these values is complete (R14: pure, or Chart 1B)."""
    cards = _multiset_hand(counts)
    if len(cards) < 2:
        return False
    return is_pure(cards, split=False) or not dealer_must_hit(cards)


@cache
def dealer_distribution(game: str, decks: int) -> DealerDistribution:
    """The exact distribution of the player-dealer's hand dealt from the top of a full shoe."""
    have, red_have = _composition(game, decks)
    n = sum(have)
    bust: dict[int, Fraction] = {}
    pure = Fraction(0)
    # Buster: every multiset of values still drawing, with its chance.
    layer: dict[tuple[int, ...], Fraction] = {(0,) * 10: Fraction(1)}
    size = 0
    while layer:
        nxt: dict[tuple[int, ...], Fraction] = {}
        for counts, p in layer.items():
            for v in range(10):
                left = have[v] - counts[v]
                if left <= 0:
                    continue
                grown = (*counts[:v], counts[v] + 1, *counts[v + 1 :])
                q = p * Fraction(left, n - size)
                if not _stops(grown):
                    nxt[grown] = nxt.get(grown, Fraction(0)) + q
                    continue
                cards = _multiset_hand(grown)
                if is_pure(cards, split=False):
                    pure += q
                busted = buster_cards(cards)
                if busted is not None:
                    bust[busted] = bust.get(busted, Fraction(0)) + q
        layer = nxt
        size += 1
    return DealerDistribution(
        bust_cards=MappingProxyType(bust),
        red_run=MappingProxyType(_red_runs(have, red_have)),
        pure=pure,
    )


def _red_runs(have: tuple[int, ...], red_have: tuple[int, ...]) -> dict[int, Fraction]:
    """Chances of each Red Flex count >= 2: runs of red cards from the top of the shoe (R18).

    A state is the multiset of values of an all-red hand still drawing; the run ends at the
    first black card (black cards are all still in the shoe) or when the hand is complete.
    """
    n = sum(have)
    black = n - sum(red_have)
    runs: dict[int, Fraction] = {}
    layer: dict[tuple[int, ...], Fraction] = {(0,) * 10: Fraction(1)}
    size = 0
    while layer:
        nxt: dict[tuple[int, ...], Fraction] = {}
        for counts, p in layer.items():
            if size >= 2:  # a black card now ends a run of `size` reds
                runs[size] = runs.get(size, Fraction(0)) + p * Fraction(black, n - size)
            for v in range(10):
                left = red_have[v] - counts[v]
                if left <= 0:
                    continue
                grown = (*counts[:v], counts[v] + 1, *counts[v + 1 :])
                q = p * Fraction(left, n - size)
                if _stops(grown):
                    runs[size + 1] = runs.get(size + 1, Fraction(0)) + q
                else:
                    nxt[grown] = nxt.get(grown, Fraction(0)) + q
        layer = nxt
        size += 1
    return runs


def exact_full_shoe(game: str, wager: str, decks: int, table: PayTable) -> dict[str, Any]:
    """Exact Red Flex or Buster figures for the player-dealer's hand from a full shoe."""
    dist = dealer_distribution(game, decks)
    counts = dist.red_run if wager == "red-flex" else dist.bust_cards
    probs: dict[str, Fraction] = {}
    for k, p in counts.items():
        row = _category(wager, k, table)
        if row is not None:
            probs[row] = probs.get(row, Fraction(0)) + p
    hit, edge = _figures(probs, table)
    return {
        "hit_frequency": float(hit),
        "house_edge": float(edge),
        "exact": {"hit_frequency": str(hit), "house_edge": str(edge)},
        "method": "exact",
        "probabilities": {row: float(p) for row, p in sorted(probs.items())},
        "assumes": EXACT_ASSUMES,
    }


def _category(wager: str, k: int | None, table: PayTable) -> str | None:
    if wager == "red-flex":
        return red_flex_category(k or 0, table)
    return buster_category(k, table)


# ---------------------------------------------------------------- simulation


@dataclass(frozen=True)
class SimulatedHands:
    """Player-dealer hands of a simulation: how many, and how many hit each count."""

    hands: int
    red_run: Mapping[int, int]  # Red Flex count (0 or 1: no win) -> hands
    bust_cards: Mapping[int, int]  # busted with n cards -> hands


@cache
def _must_hit(hard: int, ace: bool) -> bool:
    """Chart 1B for a hand of this hard sum (every ace at 1), holding an ace or not.

    Read from `dealer_must_hit` on representative cards: the chart looks only at the total.
    """
    rest = hard - ace
    values = [1] * ace + [10] * (rest // 10)
    if rest % 10 == 1 and not ace:
        if not values:
            raise ValueError("no hand without an ace sums to 1")
        values[-1:] = [9, 2]  # 11 as 9 + 2, 21 as 10 + 9 + 2, ...
    elif rest % 10:
        values.append(rest % 10)
    return dealer_must_hit(_hand(values))


SIM_CHUNK = 125_000  # hands per independently seeded chunk (the result is the same on any CPUs)


def simulate(
    game: str,
    decks: int,
    hands: int = SIM_HANDS,
    *,
    seed: int = SIM_SEED,
    players: int = SIM_PLAYERS,
    workers: int | None = None,
) -> SimulatedHands:
    """Deal `hands` rounds to `players` players and the player-dealer (see SIM_ASSUMES).

    The rounds are cut in chunks of SIM_CHUNK, chunk i seeded with (seed, i), and the chunks
    spread over `workers` processes (default: the CPUs this process may use); the counts depend
    only on `seed` and `hands`.
    """
    if hands < 1 or players < 0:
        raise ValueError(
            f"simulate at least one hand with 0 or more players, not {hands}, {players}"
        )
    sizes = [min(SIM_CHUNK, hands - start) for start in range(0, hands, SIM_CHUNK)]
    jobs = [(game, decks, k, f"{seed}/{i}", players) for i, k in enumerate(sizes)]
    workers = min(workers or _workers(), len(jobs))
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(_simulate_chunk, *zip(*jobs, strict=True)))
    else:
        parts = [_simulate_chunk(*job) for job in jobs]
    red_runs: Counter[int] = Counter()
    busts: Counter[int] = Counter()
    for runs, bust in parts:
        red_runs.update(runs)
        busts.update(bust)
    return SimulatedHands(hands, MappingProxyType(dict(red_runs)), MappingProxyType(dict(busts)))


def _workers() -> int:
    """Processes for the simulation: the CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


@cache
def _pure_pair(a: int, b: int) -> bool:
    """Whether two cards of values a and b (1..10) are a Pure 21.5, read from `is_pure`."""
    return is_pure(_hand([a, b]), split=False)


def _simulate_chunk(
    game: str, decks: int, hands: int, seed: str, players: int
) -> tuple[dict[int, int], dict[int, int]]:
    """One seeded chunk of `simulate`: Red Flex counts and busted-hand sizes, by hands."""
    cards = shoe(game, decks)
    n = len(cards)
    order = list(range(n))
    value = [card_value(c) for c in cards]
    # a card's value and colour as one small int: the side bets look at nothing else
    symbol = [2 * card_value(c) + c.is_red for c in cards]
    uniform = random.Random(seed).random
    must_hit = _must_hit
    pure = _pure_pair
    settled: dict[tuple[int, ...], tuple[int, int | None]] = {}
    red_runs: Counter[int] = Counter()
    busts: Counter[int] = Counter()
    initial = 2 * players + 2
    seats = [(seat, players + 1 + seat) for seat in range(players)]
    for _ in range(hands):
        # A fresh shuffle as far as it is dealt: a partial Fisher-Yates over the card order,
        # position `top` taking a uniformly chosen card of those not dealt yet.
        for top in range(initial):
            j = top + int(uniform() * (n - top))
            order[top], order[j] = order[j], order[top]
        top = initial
        up, hole = order[players], order[2 * players + 1]  # last card of each round of the deal
        dealer = [up, hole]
        if not pure(value[up], value[hole]):  # R12: a player-dealer pure ends the round
            for first, second in seats:
                a, b = value[order[first]], value[order[second]]
                if pure(a, b):  # the player's pure is paid and draws nothing
                    continue
                hard, ace = a + b, a == 1 or b == 1
                while must_hit(hard, ace):
                    j = top + int(uniform() * (n - top))
                    order[top], order[j] = order[j], order[top]
                    v = value[order[top]]
                    top += 1
                    hard += v
                    ace = ace or v == 1
            hard = value[up] + value[hole]
            ace = value[up] == 1 or value[hole] == 1
            while must_hit(hard, ace):  # R14: the player-dealer completes the hand
                j = top + int(uniform() * (n - top))
                order[top], order[j] = order[j], order[top]
                i = order[top]
                top += 1
                dealer.append(i)
                hard += value[i]
                ace = ace or value[i] == 1
        key = tuple(symbol[i] for i in dealer)
        outcome = settled.get(key)
        if outcome is None:
            hand = [cards[i] for i in dealer]
            outcome = settled[key] = (red_flex_count(hand), buster_cards(hand))
        red_runs[outcome[0]] += 1
        if outcome[1] is not None:
            busts[outcome[1]] += 1
    return dict(red_runs), dict(busts)


def simulated_figures(
    sim: SimulatedHands, wager: str, table: PayTable, *, players: int, seed: int
) -> dict[str, Any]:
    """Hit frequency and house edge of a simulation, with 95% confidence intervals."""
    counts = sim.red_run if wager == "red-flex" else sim.bust_cards
    wins: Counter[str] = Counter()
    for k, hits in counts.items():
        row = _category(wager, k, table)
        if row is not None:
            wins[row] += hits
    n = sim.hands
    won = sum(wins.values())
    # per-hand net of a unit wager: pay on a win, -1 on a loss
    total = sum(k * float(payout(table, row)) for row, k in wins.items()) - (n - won)
    squares = sum(k * float(payout(table, row)) ** 2 for row, k in wins.items()) + (n - won)
    mean = total / n
    sd = math.sqrt(max(squares / n - mean * mean, 0.0) * n / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    hit = won / n
    hit_half = Z95 * math.sqrt(hit * (1 - hit) / n)
    return {
        "hit_frequency": hit,
        "house_edge": -mean,
        "method": "simulation",
        "ci95": [-mean - half, -mean + half],
        "hit_frequency_ci95": [hit - hit_half, hit + hit_half],
        "hands": n,
        "seed": seed,
        "players": players,
        "probabilities": {row: k / n for row, k in sorted(wins.items())},
        "assumes": SIM_ASSUMES.format(players=players),
    }


# ---------------------------------------------------------------- entry point


def analyze(
    game: str,
    wager: str,
    paytable: str | None,
    decks: int,
    *,
    hands: int = SIM_HANDS,
    seed: int = SIM_SEED,
    players: int = SIM_PLAYERS,
) -> dict[str, Any]:
    """Hit frequency and house edge of a 21.5 side bet ("method": "exact" or "simulation").

    Match the Dealer and insurance are exact. Red Flex and Buster are simulated (`hands` seeded
    rounds) with their 95% interval as "ci95", and carry the exact figure of the player-dealer's
    hand from a full shoe as "exact_full_shoe".
    """
    _check(game, wager, decks)
    result: dict[str, Any] = {"game": game, "wager": wager, "decks": decks}
    if wager == "insurance":
        if paytable is not None:
            raise ValueError("insurance has no pay table: it pays 2 to 1 (000 line 95, R17)")
        return result | {"pays": "2 to 1"} | insurance_figures(game, decks)
    table = named_paytable(paytable or DEFAULT_PAYTABLES[wager])
    if table.wager != wager:
        raise ValueError(f"{table.name} is a {table.wager} table, not a {wager} table")
    result |= {
        "paytable": table.name,
        "source": table.source,
        "pays": {c: f"{p.numerator} to {p.denominator}" for c, p in table.pays.items()},
    }
    if wager == "match-dealer":
        return result | match_dealer_figures(game, decks, table)
    sim = simulate(game, decks, hands, seed=seed, players=players)
    return (
        result
        | simulated_figures(sim, wager, table, players=players, seed=seed)
        | {"exact_full_shoe": exact_full_shoe(game, wager, decks, table)}
    )


# ---------------------------------------------------------------- the base game (simulation)

CONFIG_DIR = PAYTABLE_DIR.parent
# The shipped config whose rules the base game is played under (docs/config.md): 000's approval
# for Pure 21.5 (its `pure_pays` replaced by the analysis's choice, R11), 003's for Spanish.
BASE_CONFIGS: Mapping[str, str] = MappingProxyType(
    {PURE_GAME: "pure-21.5-blackjack-000.toml", SPANISH_GAME: "pure-spanish-21.5-003.toml"}
)
BASE_HANDS = 80_000  # rounds by default: about 45 s on two cores (docs/games/blackjack.md)
BASE_CHUNK = 5_000  # rounds per independently seeded chunk (the result is the same on any CPUs)
# The one player: seat 1 (contract 2 numbers seats from the house dealer's left), so with the
# player-dealer at the last seat it is the first seat dealt and to act (000 line 53).
BASE_SEAT = 1
# The bank in base wagers. A round can cost the bank at most 4 hands (R16) x 8 times the wager
# (Spanish double-double, R20) = 32 wagers, so R1 never limits a payment or a collection.
BANK_STAKES = 1_000
# More inputs than a round can take (a hand holds at most 11 cards, 4 hands, R16): a bug
MAX_INPUTS = 100
TS = "2026-01-01T00:00:00.000000Z"  # the engines need a timestamp; no figure depends on it

BASE_STRATEGY: Mapping[str, str] = MappingProxyType(
    {
        PURE_GAME: (
            "obey Chart 1A (000 line 76: stand on hard 19 or more, hit hard 11 or less); split "
            "a pair of aces or of eights whenever the engine allows a split (R16: up to four "
            "hands, split aces one card each); double for the full wager on the first two "
            "cards of a hand, split hands included (000 lines 114-115), holding hard 10 or 11 "
            "against a player-dealer up card of 2 to 9; otherwise hit hard 11 or less, hit "
            "hard 12 to 16 against an up card of 7, 8, 9, a bonus card or an ace and stand "
            "on it against 2 to 6, stand on hard 17 or more, hit soft 17 or less, stand on "
            "soft 18 or more; never surrender, never take insurance or even money"
        ),
        SPANISH_GAME: (
            "obey Chart 1A (003 line 1892: stand on hard 17 or more); split a pair of aces or "
            "of eights (never other equal values) whenever the engine allows a split (R16, "
            "R20); double for the full wager on the first two cards of a hand, split hands "
            "included (003 lines 1925 and 1933), holding hard 10 or 11 against a "
            "player-dealer up card of 2 to 9, then stand (never double-double or rescue, "
            "R20); otherwise hit hard 11 or less, hit hard 12 to 16 against an up card of 7, "
            "8, 9, a bonus card or an ace and stand on it against 2 to 6, stand on hard 17 or "
            "more, hit soft 17 or less, stand on soft 18 or more; never surrender (the "
            "Spanish approval offers no insurance)"
        ),
    }
)
BASE_ASSUMES = (
    "one player at seat {seat} bets the table minimum of the shipped config {config} "
    "({stake}, the unit) on the base wager against a player-dealer bank of {bank_stakes} units "
    "at the last seat, so R1 never limits a payment; every round is played through "
    "BlackjackEngine, the engine that runs the table, and dealt from a freshly shuffled shoe "
    "of {decks} decks; the player's decisions come from the engine's legal actions by this "
    "stated strategy, which is not optimal basic strategy: {strategy}; the house edge is "
    "the player's expected loss per unit of initial base wager (doubles and splits add money "
    "at risk, not units), collection fees (R4) excluded"
)


def base_strategy(cards: Sequence[Card], up: Card, legal: Sequence[str]) -> str:
    """The stated strategy's move (BASE_STRATEGY) for a hand, one of the engine's `legal` actions.

    "hit" means: draw the next card. A hand owed its card after a split or a double has only
    "hit" legal and takes it. Where the engine forbids the strategy's hit or stand, the other
    one is taken; Chart 1A never does (the strategy hits hard 11 or less and stands on hard 17
    or more), so in play only a Spanish doubled hand, which may not draw (003 line 1925,
    R16), is moved from "hit" to "stand".
    """
    if len(legal) == 1:
        return legal[0]
    total = hand_total(cards)
    up_value = card_value(up)  # an ace is 1
    two = len(cards) == 2
    pair = two and cards[0].rank == cards[1].rank and cards[0].rank in ("A", "8")
    if "split" in legal and pair:
        return "split"
    hard_ten_or_eleven = two and not total.soft and total.value in (10, 11)
    if "double" in legal and hard_ten_or_eleven and 2 <= up_value <= 9:
        return "double"
    if total.soft:
        hit = total.value <= 17
    else:
        strong_up = up_value >= 7 or up_value == 1  # 7, 8, 9, a bonus card or an ace
        hit = total.value <= 11 or (total.value <= 16 and strong_up)
    move = "hit" if hit else "stand"
    if move not in legal:  # obey the engine: Chart 1A (R15) or a double's one card (R16, R20)
        move = "stand" if move == "hit" else "hit"
    if move not in legal:
        raise ValueError(f"the stated strategy has no move among the legal actions {legal}")
    return move


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
    change, each (legal actions, strategy's move) in order and the engine's round/result."""

    net: Decimal
    bank_change: Decimal
    moves: tuple[tuple[tuple[str, ...], str], ...]
    result: Mapping[str, Any]


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
            if out.topic == "round/result":
                return _round_of(out.payload, moves)
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
        move = base_strategy(hand.cards, up, legal)
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


def _round_of(result: Mapping[str, Any], moves: list[tuple[tuple[str, ...], str]]) -> BaseRound:
    """The money of a finished round, read from its settlements (contract 3)."""
    rows = result["settlements"]
    if any(row["spot"] != "base" for row in rows):
        raise RuntimeError("the base-game simulation placed a wager other than the base wager")
    net = sum((Decimal(row["net"]) for row in rows), Decimal(0))
    bank = result["bank"]
    change = Decimal(bank["end"]) - Decimal(bank["start"])
    return BaseRound(net, change, tuple(moves), result)


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
    workers = min(workers or _workers(), len(jobs))
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(_base_chunk, *zip(*jobs, strict=True)))
    else:
        parts = [_base_chunk(*job) for job in jobs]
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
    (003 line 1845). `hands` rounds (default BASE_HANDS), seeded.
    """
    if game not in WAGERS:
        raise ValueError(f"{game!r} is not a 21.5 game: expected one of {', '.join(WAGERS)}")
    _check_decks(game, decks)
    if paytable is not None:
        raise ValueError(
            "the base wager has no pay table: the hands decide it (000 lines 98-107) and a "
            "Pure 21.5 is paid by --pure-pays (R11)"
        )
    pays = pure_pays or DEFAULT_PURE_ODDS
    if pays not in PURE_ODDS:
        raise ValueError(f"a Pure 21.5 pays {' or '.join(PURE_ODDS)} (R11), not {pays!r}")
    if game == SPANISH_GAME and pays != "6 to 5":
        raise ValueError("a Pure Spanish 21.5 pays 6 to 5 (003 line 1845)")
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
