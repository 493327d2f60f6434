"""Which of one table's message numbers the ledger holds, as ranges, and so its gaps.

A table numbers every message it publishes 1, 2, 3 ... on one counter shared by all topics
(docs/mqtt.md "the envelope"), so a number that never arrived is a message the ledger missed,
whatever its topic. The ledger counts every number it receives, stored or not."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Span = tuple[int, int]
"""Message numbers `lo` to `hi`, both included."""


@dataclass
class SeqRanges:
    """The numbers received of one table: every number up to `through`, and the spans above
    it (sorted, apart, none touching `through`)."""

    through: int = 0
    above: list[Span] | None = None

    def __post_init__(self) -> None:
        if self.through < 0:
            raise ValueError(f"through is {self.through}; message numbers start at 1")
        spans = sorted(self.above or [])
        self.above = []
        for lo, hi in spans:
            self.add_span(lo, hi)

    def add(self, seq: int) -> bool:
        """Count message `seq`; False if it was counted already (a redelivery)."""
        return self.add_span(seq, seq)

    def add_all(self, seqs: Iterable[int]) -> int:
        """Count each of `seqs`; how many were new."""
        return sum(self.add(s) for s in seqs)

    def add_span(self, lo: int, hi: int) -> bool:
        """Count numbers `lo` to `hi`; False if every one was counted already."""
        if lo < 1 or hi < lo:
            raise ValueError(f"message numbers {lo}-{hi}: a table numbers its messages from 1")
        if hi <= self.through:
            return False
        spans = self.above if self.above is not None else []
        lo = max(lo, self.through + 1)
        i = bisect.bisect_left(spans, (lo, lo))
        if i > 0 and spans[i - 1][1] >= hi:
            return False
        if i < len(spans) and spans[i][0] == lo and spans[i][1] >= hi:
            return False
        # merge every span that overlaps or touches [lo, hi]
        start = i - 1 if i > 0 and spans[i - 1][1] >= lo - 1 else i
        end = i
        while end < len(spans) and spans[end][0] <= hi + 1:
            end += 1
        merged_lo = min([lo, *(s[0] for s in spans[start:end])])
        merged_hi = max([hi, *(s[1] for s in spans[start:end])])
        spans[start:end] = [(merged_lo, merged_hi)]
        if spans and spans[0][0] == self.through + 1:
            self.through = spans.pop(0)[1]
        self.above = spans
        return True

    @property
    def highest(self) -> int:
        """The highest number received (0 before any)."""
        return self.above[-1][1] if self.above else self.through

    def gaps(self) -> list[Span]:
        """The numbers missing below the highest received, as spans."""
        out: list[Span] = []
        prev = self.through
        for lo, hi in self.above or []:
            out.append((prev + 1, lo - 1))
            prev = hi
        return out

    def missing(self) -> int:
        """How many numbers the gaps hold."""
        return sum(hi - lo + 1 for lo, hi in self.gaps())

    def spans(self) -> Sequence[Span]:
        """The spans above `through` (for storing)."""
        return tuple(self.above or ())
