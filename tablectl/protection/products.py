"""Falling-factorial products over many multisets, fast enough to redo after every card.

Drawing without replacement, an ordered deal holding m_c cards of each class c, from n_c cards of
each class left, has weight prod_c n_c (n_c - 1) ... (n_c - m_c + 1). A `ProductPlan` is built
once for a fixed list of multisets: each multiset's product is its parent's (the multiset without
its highest class) times one falling factorial, level by level (the number of classes used), so a
composition's products are a few list comprehensions of integer multiplications (`products`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter

Picker = Callable[[Sequence[int]], tuple[int, ...]]
"""Picks given places out of a list of products, as a tuple."""


def picker(places: Sequence[int]) -> Picker:
    """A function picking these places out of a list, as a tuple (itemgetter, one place too)."""
    if len(places) == 1:
        only = places[0]
        return lambda xs: (xs[only],)
    return itemgetter(*places)


def falling(n: int, k: int) -> int:
    """n (n - 1) ... (n - k + 1): the ordered ways to draw k of n cards (0 when k > n)."""
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclass(frozen=True, slots=True)
class ProductPlan:
    """How to form every multiset's product for a composition (`products`).

    `classes`: how many classes; `most`: the largest multiplicity of a class; `levels[L - 1]`:
    for the multisets using L classes, each one's parent's place in level L - 1 (level 0 is the
    empty multiset) and its factor's place (class * (most + 1) + multiplicity) among a
    composition's falling factorials; `places[i]`: where the i-th multiset asked for lands in
    the list `products` returns.
    """

    classes: int
    most: int
    levels: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    places: tuple[int, ...]

    @classmethod
    def of(cls, multisets: Iterable[Sequence[int]]) -> ProductPlan:
        """A plan for these multisets (each a count per class, all of one length)."""
        wanted = [tuple(m) for m in multisets]
        if not wanted:
            raise ValueError("a plan needs at least one multiset")
        classes = len(wanted[0])
        most = max(max(m) for m in wanted)
        # every multiset needed: the wanted ones and their ancestors, by number of classes used
        by_level: list[set[tuple[int, ...]]] = [set() for _ in range(classes + 1)]
        for m in wanted:
            while True:
                used = [c for c, k in enumerate(m) if k]
                by_level[len(used)].add(m)
                if not used:
                    break
                top = used[-1]
                m = (*m[:top], 0, *m[top + 1 :])
        place: dict[tuple[int, ...], int] = {}
        order: list[list[tuple[int, ...]]] = [sorted(level) for level in by_level]
        offset = 0
        for level in order:
            for i, m in enumerate(level):
                place[m] = offset + i
            offset += len(level)
        levels = []
        starts = [0]
        for level in order:
            starts.append(starts[-1] + len(level))
        for depth in range(1, classes + 1):
            if not order[depth]:
                break
            parents: list[int] = []
            factors: list[int] = []
            for m in order[depth]:
                top = max(c for c, k in enumerate(m) if k)
                parent = (*m[:top], 0, *m[top + 1 :])
                parents.append(place[parent] - starts[depth - 1])
                factors.append(top * (most + 1) + m[top])
            levels.append((tuple(parents), tuple(factors)))
        return cls(classes, most, tuple(levels), tuple(place[m] for m in wanted))

    def products(self, counts: Sequence[int]) -> list[int]:
        """Every multiset's product for `counts` cards left of each class, by `places`."""
        if len(counts) != self.classes:
            raise ValueError(f"a composition of {self.classes} classes, not {len(counts)}")
        ff = [falling(n, k) for n in counts for k in range(self.most + 1)]
        out = [1]
        prev = out
        for parents, factors in self.levels:
            prev = [prev[p] * ff[f] for p, f in zip(parents, factors, strict=True)]
            out.extend(prev)
        return out
