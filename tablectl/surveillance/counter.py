"""The signature of a counter: per seat, over a shoe, the rank correlation between the seat's stake
on a wager and that wager's live expectation when the stake was placed (docs/surveillance.md,
"Alerts").

A player who counts a side bet raises the stake when the cards left favour it and lowers it (or
bets nothing) when they do not, so the stake rises with the expectation; a player who bets by
hunch or habit shows no such order. Spearman's rank correlation measures exactly that ("the
larger stakes come with the larger expectations") without assuming how the stake grows, and is
computed here exactly: ranks (ties given their average rank) are doubled to whole numbers, so
the sums are integers and the comparison with the threshold is exact; only the figure printed
is a float (`Correlation.rho`).

Pure and small: `CounterWatch` keeps one shoe's samples per seat and wager and says which pairs
crossed the threshold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction


def doubled_ranks(values: Sequence[Fraction] | Sequence[Decimal]) -> list[int]:
    """Twice each value's rank among `values` (1 = the smallest), ties given their average
    rank: with the ranks doubled, an average of tied ranks is always a whole number."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        doubled = (i + 1) + (j + 1)  # twice the average of ranks i+1 .. j+1
        for k in range(i, j + 1):
            ranks[order[k]] = doubled
        i = j + 1
    return ranks


@dataclass(frozen=True, slots=True)
class Correlation:
    """Spearman's rank correlation of `n` pairs as exact integer sums over the doubled ranks
    centred on their mean: rho = sxy / sqrt(sxx * syy)."""

    n: int
    sxy: int
    sxx: int
    syy: int

    @property
    def defined(self) -> bool:
        """False when either side never varies (every stake the same, say): no order to read."""
        return self.sxx > 0 and self.syy > 0

    @property
    def rho(self) -> float:
        """The correlation as a float (for the message; `at_least` decides exactly)."""
        return self.sxy / math.sqrt(self.sxx * self.syy) if self.defined else 0.0

    def at_least(self, threshold: Fraction) -> bool:
        """Whether rho >= `threshold` (0 < threshold <= 1), decided in whole numbers."""
        if not self.defined or self.sxy <= 0:
            return False
        return Fraction(self.sxy * self.sxy) >= threshold * threshold * self.sxx * self.syy


def spearman(stakes: Sequence[Decimal], expectations: Sequence[Fraction]) -> Correlation:
    """Spearman's rank correlation between `stakes` and `expectations` (pairs by position)."""
    n = len(stakes)
    if n != len(expectations):
        raise ValueError("spearman: as many stakes as expectations")
    rx, ry = doubled_ranks(stakes), doubled_ranks(expectations)
    mean = n + 1  # the mean of the doubled ranks 2..2n
    dx = [r - mean for r in rx]
    dy = [r - mean for r in ry]
    return Correlation(
        n,
        sum(a * b for a, b in zip(dx, dy, strict=True)),
        sum(a * a for a in dx),
        sum(b * b for b in dy),
    )


@dataclass(slots=True)
class Samples:
    """One seat's rounds of a shoe for one wager: the stake (0 when the seat bet elsewhere that
    round) and the wager's expectation when the seat bet, keyed by round so that a voided round
    is taken out."""

    stakes: dict[int, Decimal] = field(default_factory=dict)
    expectations: dict[int, Fraction] = field(default_factory=dict)

    def correlation(self) -> Correlation:
        rounds = sorted(self.stakes)
        return spearman([self.stakes[r] for r in rounds], [self.expectations[r] for r in rounds])


@dataclass(frozen=True, slots=True)
class CounterAlert:
    """A seat whose stakes on `wager` follow its expectation: `correlation` over the shoe."""

    seat: int
    wager: str
    correlation: Correlation


class CounterWatch:
    """One shoe's samples, per (seat, wager), and the pairs already alerted (each once a shoe).

    `threshold` (0 < t <= 1) and `min_rounds` are the config's (`[protection]`); `wagers`
    limits the wagers watched (None: every wager with live figures)."""

    def __init__(
        self, threshold: Fraction, min_rounds: int, wagers: frozenset[str] | None = None
    ) -> None:
        self.threshold = threshold
        self.min_rounds = min_rounds
        self.wagers = wagers
        self.samples: dict[tuple[int, str], Samples] = {}
        self.alerted: set[tuple[int, str]] = set()

    def new_shoe(self) -> None:
        """A new shoe: the samples and alerts of the last one are done with."""
        self.samples.clear()
        self.alerted.clear()

    def watched(self, wager: str) -> bool:
        return self.wagers is None or wager in self.wagers

    def add_round(
        self,
        round_no: int,
        seat: int,
        stakes: dict[str, Decimal],
        expectations: dict[str, Fraction],
    ) -> list[CounterAlert]:
        """A seat's round: its stake on each wager (`stakes`, the wagers it bet on) and each
        watched wager's expectation when it bet (`expectations`: every wager with figures).
        Returns the (seat, wager) pairs that reach the threshold now, each once a shoe."""
        out: list[CounterAlert] = []
        for wager, expectation in expectations.items():
            if not self.watched(wager):
                continue
            key = (seat, wager)
            samples = self.samples.setdefault(key, Samples())
            samples.stakes[round_no] = stakes.get(wager, Decimal(0))
            samples.expectations[round_no] = expectation
            if key in self.alerted or len(samples.stakes) < self.min_rounds:
                continue
            corr = samples.correlation()
            if corr.at_least(self.threshold):
                self.alerted.add(key)
                out.append(CounterAlert(seat, wager, corr))
        return out

    def void_round(self, round_no: int) -> None:
        """A voided round: every wager returned, so none of its stakes is a sample."""
        for samples in self.samples.values():
            samples.stakes.pop(round_no, None)
            samples.expectations.pop(round_no, None)
