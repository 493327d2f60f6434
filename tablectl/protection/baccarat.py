"""EZ Baccarat Panda 8's five wagers, exactly, from the composition left in the shoe.

A coup's chance depends only on the multiset of point classes it deals (at most six cards): an
ordered deal of classes c1..ck drawn without replacement from n_c cards of each class has weight
prod_c n_c (n_c - 1) ... (n_c - m_c + 1) (a falling factorial per class, m_c the class's cards in
the deal) out of N (N - 1) ... (N - k + 1). So, once per process (`_table`), every ordered deal of
classes is enumerated in R25 order, as `tablectl.analysis.baccarat` enumerates it (its point
tables say who draws), each complete coup settled by `outcome` and `wager_result` (the engine's
functions), and the ordered deals are counted per (settlement, multiset); a composition's figures
are then sums of falling-factorial products over those multisets: integers, then one Fraction
per wager (`expectations`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from operator import mul

from tablectl.analysis.baccarat import _card, _draw_tables
from tablectl.protection.products import Picker, ProductPlan, falling, picker
from tablectl.rules.baccarat import PAYOUTS, SPOTS, Result, outcome, point, wager_result
from tablectl_base.cards import RANKS, Card

# each rank's point class 0..9, by RANKS, read from `point` (ace 1, tens and pictures 0)
RANK_POINT: tuple[int, ...] = tuple(point(Card(rank, "s")) for rank in RANKS)
MOST_CARDS = 6  # a coup deals four to six cards (R25)
_BASE = MOST_CARDS + 1  # a multiset's key: the sum of _BASE ** class over its cards
Settlement = tuple[tuple[Result, ...], tuple[Result, ...]]  # by SPOTS; without, with the push


def class_counts(counts: Sequence[int]) -> tuple[int, ...]:
    """Cards left of each point class 0..9 from the 13 rank counts."""
    points = [0] * 10
    for rank_count, p in zip(counts, RANK_POINT, strict=True):
        points[p] += rank_count
    return tuple(points)


@dataclass(frozen=True, slots=True)
class _Table:
    """What every composition's figures are summed from (built once, `_table`).

    `plan`: the falling-factorial products of every multiset of classes a coup deals;
    `sums[s]`: for settlement s, per coup size (4, 5 or 6 cards), a picker of those multisets'
    products and how many ordered deals of that size and settlement each holds;
    `settlements[s]`: each spot's result, without and with the banker pushing on a Dragon 7.
    """

    plan: ProductPlan
    sums: tuple[tuple[tuple[int, Picker, tuple[int, ...]], ...], ...]
    settlements: tuple[Settlement, ...]


def _multiset(key: int) -> tuple[int, ...]:
    """The counts per class 0..9 of a multiset key (the sum of _BASE ** class over its cards)."""
    return tuple((key // _BASE**c) % _BASE for c in range(10))


def _ordered_deals() -> tuple[dict[tuple[int, int, int], int], list[Settlement]]:
    """Ordered deals of point classes counted by (settlement, cards, multiset key), R25 order."""
    first, banker_after = _draw_tables()
    settlements: list[Settlement] = []
    by_shape: dict[tuple[int, int, int, int], int] = {}

    def settle(player: tuple[int, ...], banker: tuple[int, ...]) -> int:
        """The settlement number of a complete coup of these point classes."""
        shape = (sum(player) % 10, sum(banker) % 10, len(player), len(banker))
        known = by_shape.get(shape)
        if known is not None:
            return known
        o = outcome([_card(p) for p in player], [_card(p) for p in banker])
        results: Settlement = (
            tuple(wager_result(spot, o) for spot in SPOTS),
            tuple(wager_result(spot, o, banker_push_on_dragon7=True) for spot in SPOTS),
        )
        if results not in settlements:
            settlements.append(results)
        by_shape[shape] = settlements.index(results)
        return by_shape[shape]

    counted: dict[tuple[int, int, int], int] = {}

    def count(s: int, cards: int, key: int, ways: int) -> None:
        counted[s, cards, key] = counted.get((s, cards, key), 0) + ways

    powers = [_BASE**c for c in range(10)]
    classes = range(10)
    # a hand's first two cards as an unordered pair, with its orders (P1 P2 and P2 P1 deal
    # the same hand): the same counts as every ordered opening, a third of the work
    pairs = [(a, b, 1 if a == b else 2) for a in classes for b in classes if a <= b]
    for p1, p2, p_ways in pairs:
        pt = (p1 + p2) % 10
        for b1, b2, b_ways in pairs:
            ways = p_ways * b_ways
            key = powers[p1] + powers[b1] + powers[p2] + powers[b2]
            bt = (b1 + b2) % 10
            who = first[pt][bt]
            if who is None:
                count(settle((p1, p2), (b1, b2)), 4, key, ways)
            elif who == "banker":
                for b3 in classes:
                    count(settle((p1, p2), (b1, b2, b3)), 5, key + powers[b3], ways)
            else:
                draws = banker_after[pt][bt]
                for p3 in classes:
                    if not draws[p3]:
                        count(settle((p1, p2, p3), (b1, b2)), 5, key + powers[p3], ways)
                        continue
                    for b3 in classes:
                        s = settle((p1, p2, p3), (b1, b2, b3))
                        count(s, 6, key + powers[p3] + powers[b3], ways)
    return counted, settlements


@cache
def _table() -> _Table:
    """Build the table once per process (a fraction of a second): see `_Table`."""
    counted, settlements = _ordered_deals()
    keys = sorted({key for (_, _, key) in counted})
    plan = ProductPlan.of(_multiset(key) for key in keys)
    place = dict(zip(keys, plan.places, strict=True))
    sums = []
    for s in range(len(settlements)):
        per_size = []
        for cards in (4, 5, 6):
            found = sorted(
                (place[key], n) for (t, k, key), n in counted.items() if t == s and k == cards
            )
            if found:
                per_size.append((cards, picker([p for p, _ in found]), tuple(n for _, n in found)))
        sums.append(tuple(per_size))
    return _Table(plan, tuple(sums), tuple(settlements))


def settlement_weights(points: Sequence[int]) -> tuple[list[int], int]:
    """Each settlement's weight and the common denominator N (N - 1) ... (N - 5).

    `points`: the cards left of each point class 0..9, at least six in all (a coup may need six).
    A coup of k cards is weighted as if 6 - k more were drawn, so every weight shares the
    denominator.
    """
    n = sum(points)
    if n < MOST_CARDS:
        raise ValueError(f"a coup may need {MOST_CARDS} cards and the shoe holds {n}")
    table = _table()
    products = table.plan.products(points)
    scale = {4: (n - 4) * (n - 5), 5: n - 5, 6: 1}
    weights = []
    for per_size in table.sums:
        w = 0
        for size, pick, deals in per_size:
            w += scale[size] * sum(map(mul, deals, pick(products)))
        weights.append(w)
    return weights, falling(n, MOST_CARDS)


def expectations(points: Sequence[int], *, banker_push_on_dragon7: bool) -> dict[str, Fraction]:
    """Each spot's expected net return per unit staked on the next coup (R26, R27 pays)."""
    table = _table()
    weights, total = settlement_weights(points)
    if sum(weights) != total:
        raise AssertionError("the ordered deals do not cover the shoe")
    out = {}
    for j, spot in enumerate(SPOTS):
        net = 0
        for w, results in zip(weights, table.settlements, strict=True):
            result = results[1 if banker_push_on_dragon7 else 0][j]
            net += w * (PAYOUTS[spot] if result == "win" else -1 if result == "lose" else 0)
        out[spot] = Fraction(net, total)
    return out
