"""Benchmark: tablectl's best-five evaluator against treys (pure Python, PyPI), random 6-card hands.

Both evaluators run in this process on the same seeded hands, each on its own prebuilt card
objects (conversion is not timed). The two must order every adjacent pair of hands the same way,
or the benchmark stops. Then the exhaustive 6 Card Bonus pass over all C(52,6) six-card sets
(tablectl.analysis.three_card_poker) is timed from a cold cache. Prints hands per second and ratios.

usage: .venv/bin/python hil/bench_evaluators.py [--n 200000] [--seed 29]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from treys import Card as TreysCard
from treys import Evaluator

from tablectl.analysis import three_card_poker
from tablectl.rules import poker
from tablectl_base.cards import Card, standard_deck

T = TypeVar("T")


def _rate(fn: Callable[[T], object], hands: Sequence[T]) -> tuple[float, list[object]]:
    """Hands per second of `fn` over `hands`, and its results."""
    start = time.perf_counter()
    out = [fn(h) for h in hands]
    return len(hands) / (time.perf_counter() - start), out


def _sign(a: object, b: object, lower_is_better: bool) -> int:
    """-1, 0 or 1: how hand a compares with hand b."""
    if a == b:
        return 0
    better = a < b if lower_is_better else a > b  # type: ignore[operator]
    return 1 if better else -1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="random 6-card hands to evaluate")
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    deck = list(standard_deck())
    hands: list[list[Card]] = [rng.sample(deck, 6) for _ in range(args.n)]
    treys_hands = [[TreysCard.new(str(c)) for c in h] for h in hands]
    evaluator = Evaluator()

    def treys_eval(h: list[int]) -> int:
        return int(evaluator.evaluate(h[:2], h[2:]))

    cold, _ = _rate(poker.best_rank, hands[: min(len(hands), 20_000)])
    rank_rate, ours = _rate(poker.best_rank, hands)
    five_rate, _ = _rate(poker.best_five, hands)
    treys_rate, theirs = _rate(treys_eval, treys_hands)

    for i in range(len(hands) - 1):
        if _sign(ours[i], ours[i + 1], False) != _sign(theirs[i], theirs[i + 1], True):
            raise SystemExit(f"evaluators disagree on {hands[i]} vs {hands[i + 1]}")

    poker._best_plain.cache_clear()
    poker._best_flush.cache_clear()
    three_card_poker.best_five_category_counts.cache_clear()
    start = time.perf_counter()
    three_card_poker.best_five_category_counts(6)
    exhaustive = time.perf_counter() - start

    print(f"random 6-card hands: {args.n} (seed {args.seed}); orderings agree with treys")
    print(f"tablectl best_rank, first 20k (cold cache): {cold:12,.0f} hands/s")
    print(f"tablectl best_rank (warm cache):           {rank_rate:12,.0f} hands/s")
    print(f"tablectl best_five (rank + the five cards): {five_rate:12,.0f} hands/s")
    print(f"treys Evaluator.evaluate (6 cards):        {treys_rate:12,.0f} hands/s")
    print(f"ratio best_rank / treys: {rank_rate / treys_rate:.2f}x")
    print(f"ratio best_five / treys: {five_rate / treys_rate:.2f}x")
    print(f"exhaustive C(52,6) = 20,358,520 pass (cold cache): {exhaustive:.2f} s")
    print(
        f"  = {20_358_520 / exhaustive:,.0f} six-card sets/s counted; treys would need "
        f"~{20_358_520 / treys_rate:.0f} s to evaluate them one by one"
    )


if __name__ == "__main__":
    main()
