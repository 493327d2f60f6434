"""Exact EZ Baccarat Panda 8 analysis: every coup a shoe can deal, weighted without replacement.

Cards are grouped in ten point classes (0 holds tens and pictures, 16 per deck; 1-9 hold 4 per
deck). Every sequence of classes is dealt in R25 order (P1, B1, P2, B2, then third cards) with
integer weights (products of the counts still in the shoe) and the totals become exact Fractions.
Which hand draws is read from `tablectl.rules.baccarat.next_to_draw` (tabulated by point, since
the rules look only at points), and each coup's outcome comes from `outcome` on cards of those
points, so the analysis cannot disagree with what the engine deals and settles.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any

from tablectl.games.baccarat.spec import SPEC
from tablectl.games.spec import Analysis, AnalyzeRequest
from tablectl.rules.baccarat import (
    PAYOUTS,
    SPOTS,
    CoupOutcome,
    Side,
    next_to_draw,
    outcome,
    wager_result,
)
from tablectl_base.cards import Card

GAME = "ez-baccarat-panda8"
MIN_DECKS, MAX_DECKS = 3, 8  # the document: a minimum of three decks and a maximum of eight

_REP_RANK = "TA23456789"  # a card of each point class, 0..9
_N_KEYS = 10 * 10 * 2 * 2  # player total, banker total, player cards (2/3), banker cards (2/3)


def _card(p: int) -> Card:
    """A representative card of point class `p`."""
    return Card(_REP_RANK[p], "s")


def _hand(points: tuple[int, ...]) -> list[Card]:
    """Representative cards with the given points, in order."""
    return [_card(p) for p in points]


@cache
def _draw_tables() -> tuple[
    tuple[tuple[Side | None, ...], ...], tuple[tuple[tuple[bool, ...], ...], ...]
]:
    """Point-level drawing decisions read from `next_to_draw` (the rules look only at points).

    first[pt][bt]: who draws after the four opening cards; banker_after[pt][bt][p3]: whether the
    banker draws after the player's third card of point p3.
    """
    first = tuple(
        tuple(next_to_draw(_hand((pt, 0)), _hand((bt, 0))) for bt in range(10)) for pt in range(10)
    )
    banker_after = tuple(
        tuple(
            tuple(
                first[pt][bt] == "player"
                and next_to_draw(_hand((pt, 0, p3)), _hand((bt, 0))) == "banker"
                for p3 in range(10)
            )
            for bt in range(10)
        )
        for pt in range(10)
    )
    return first, banker_after


def _key(pt: int, bt: int, pn: int, bn: int) -> int:
    """Index of (player total, banker total, player cards, banker cards) in the weight table."""
    return ((pt * 10 + bt) * 2 + (pn - 2)) * 2 + (bn - 2)


def _check_decks(decks: object) -> int:
    """The deck count if the document allows it (3 to 8), else ValueError."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise ValueError(
            f"EZ Baccarat Panda 8 uses {MIN_DECKS} to {MAX_DECKS} decks, not {decks!r}"
        )
    return decks


@cache
def _enumerate(
    decks: int,
) -> tuple[tuple[int, ...], tuple[tuple[tuple[int, ...], tuple[int, ...]] | None, ...], int]:
    """Weights of every (totals, card counts) result, scaled to six draws, plus one coup for each.

    A coup that ends after k < 6 cards is weighted as if 6 - k more cards were drawn, so every
    weight shares the denominator N(N-1)...(N-5) returned last.
    """
    first, banker_after = _draw_tables()
    counts = [16 * decks] + [4 * decks] * 9
    n = 52 * decks
    weights = [0] * _N_KEYS
    reps: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = [None] * _N_KEYS
    r4, r5 = n - 4, n - 5
    classes = range(10)
    for p1 in classes:
        w1 = counts[p1]
        counts[p1] -= 1
        for b1 in classes:
            w2 = w1 * counts[b1]
            counts[b1] -= 1
            for p2 in classes:
                w3 = w2 * counts[p2]
                counts[p2] -= 1
                pt = (p1 + p2) % 10
                for b2 in classes:
                    w = w3 * counts[b2]
                    counts[b2] -= 1
                    bt = (b1 + b2) % 10
                    who = first[pt][bt]
                    if who is None:
                        k = _key(pt, bt, 2, 2)
                        weights[k] += w * r4 * r5
                        if reps[k] is None:
                            reps[k] = ((p1, p2), (b1, b2))
                    elif who == "banker":
                        for b3 in classes:
                            k = _key(pt, (bt + b3) % 10, 2, 3)
                            weights[k] += w * counts[b3] * r5
                            if reps[k] is None:
                                reps[k] = ((p1, p2), (b1, b2, b3))
                    else:
                        draws = banker_after[pt][bt]
                        for p3 in classes:
                            wp = w * counts[p3]
                            counts[p3] -= 1
                            pt3 = (pt + p3) % 10
                            if draws[p3]:
                                for b3 in classes:
                                    k = _key(pt3, (bt + b3) % 10, 3, 3)
                                    weights[k] += wp * counts[b3]
                                    if reps[k] is None:
                                        reps[k] = ((p1, p2, p3), (b1, b2, b3))
                            else:
                                k = _key(pt3, bt, 3, 2)
                                weights[k] += wp * r5
                                if reps[k] is None:
                                    reps[k] = ((p1, p2, p3), (b1, b2))
                            counts[p3] += 1
                    counts[b2] += 1
                counts[p2] += 1
            counts[b1] += 1
        counts[p1] += 1
    total = n * (n - 1) * (n - 2) * (n - 3) * r4 * r5
    return tuple(weights), tuple(reps), total


@cache
def coup_distribution(decks: int) -> Mapping[CoupOutcome, Fraction]:
    """Exact probability of each coup outcome off a full shoe of `decks` decks (3..8)."""
    weights, reps, total = _enumerate(_check_decks(decks))
    dist: dict[CoupOutcome, int] = {}
    for weight, rep in zip(weights, reps, strict=True):
        if rep is None:
            continue
        o = outcome(_hand(rep[0]), _hand(rep[1]))
        dist[o] = dist.get(o, 0) + weight
    if sum(dist.values()) != total:
        raise AssertionError("the enumeration's weights do not cover the shoe")
    return MappingProxyType({o: Fraction(w, total) for o, w in dist.items()})


def _check_wager(wager: object) -> str:
    """The wager id if it is one of the five spots, else ValueError."""
    if not isinstance(wager, str) or wager not in SPOTS:
        raise ValueError(
            f"{wager!r} is not an EZ Baccarat Panda 8 wager: expected one of {', '.join(SPOTS)}"
        )
    return wager


def wager_distribution(
    wager: str, decks: int, *, banker_push_on_dragon7: bool = False
) -> dict[str, Fraction]:
    """Exact probabilities that a wager wins, pushes and loses, settled by `wager_result`."""
    spot = _check_wager(wager)
    probs = {"win": Fraction(0), "push": Fraction(0), "lose": Fraction(0)}
    for o, p in coup_distribution(decks).items():
        probs[wager_result(spot, o, banker_push_on_dragon7=banker_push_on_dragon7)] += p
    return probs


def exact_house_edge(wager: str, decks: int, *, banker_push_on_dragon7: bool = False) -> Fraction:
    """Minus the player's expected net per unit wagered: the player-dealer's advantage."""
    probs = wager_distribution(wager, decks, banker_push_on_dragon7=banker_push_on_dragon7)
    return probs["lose"] - PAYOUTS[wager] * probs["win"]


def analyze(wager: str, decks: int, *, banker_push_on_dragon7: bool = False) -> dict[str, Any]:
    """Hit frequency, house edge and outcome probabilities of one wager, exact by enumeration."""
    spot = _check_wager(wager)
    n = _check_decks(decks)
    probs = wager_distribution(spot, n, banker_push_on_dragon7=banker_push_on_dragon7)
    dist = coup_distribution(n)
    outcomes = {
        "player": sum((p for o, p in dist.items() if o.winner == "player"), Fraction(0)),
        "banker": sum((p for o, p in dist.items() if o.winner == "banker"), Fraction(0)),
        "tie": sum((p for o, p in dist.items() if o.winner == "tie"), Fraction(0)),
        "dragon7": sum((p for o, p in dist.items() if o.dragon7), Fraction(0)),
        "panda8": sum((p for o, p in dist.items() if o.panda8), Fraction(0)),
    }
    edge = probs["lose"] - PAYOUTS[spot] * probs["win"]
    return {
        "game": GAME,
        "wager": spot,
        "decks": n,
        "payout": f"{PAYOUTS[spot]} to 1",
        "banker_push_on_dragon7": banker_push_on_dragon7,
        "hit_frequency": float(probs["win"]),
        "house_edge": float(edge),
        "method": "exact",
        "probabilities": {k: float(v) for k, v in probs.items()},
        "outcomes": {k: float(v) for k, v in outcomes.items()},
    }


def analyze_request(request: AnalyzeRequest) -> Analysis:
    """Exact odds of a wager over the configured shoe: the game's analyzer (its GameSpec names
    it)."""
    decks = request.decks or 8
    if request.paytable is not None and request.wager in SPEC.spots[request.game]:
        # every baccarat wager pays fixed odds (R26, R27): there is no table to choose (an
        # unknown wager is refused first, by analyze, naming the game's)
        raise ValueError(
            f"{request.game} {request.wager} has no pay table: baccarat's wagers pay fixed odds "
            "(R26, R27)"
        )
    result = analyze(request.wager, decks, banker_push_on_dragon7=request.banker_push_on_dragon7)
    return Analysis(f"{request.game} {request.wager} ({decks} decks)", result)
