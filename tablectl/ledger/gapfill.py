"""Which message numbers to ask each table for again (`cmd/history`), and when.

Pure: the ledger gives the time and each table's received numbers; this says what to request.
A gap is asked for once it is `grace` seconds old (a message can still be on its way: a
redelivery after a reconnect comes a little late), one request a table at a time, at most
MAX_HISTORY numbers each, again after `timeout` if no answer came. Numbers a table answered as
pruned (no longer in its outbox) are not asked for again until the ledger restarts: they are a
gap for the reports until the table's export is loaded."""

from __future__ import annotations

from dataclasses import dataclass, field

from tablectl.history_answers import MAX_HISTORY
from tablectl.ledger.seqs import SeqRanges, Span

TableKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Ask:
    """One `cmd/history` request to make."""

    table: TableKey
    ref: str
    first: int
    last: int


@dataclass
class _Open:
    ask: Ask
    sent_at: float


@dataclass
class GapFiller:
    grace: float = 10.0
    timeout: float = 30.0
    first_seen: dict[tuple[TableKey, Span], float] = field(default_factory=dict)
    open: dict[TableKey, _Open] = field(default_factory=dict)
    pruned: dict[TableKey, SeqRanges] = field(default_factory=dict)
    _count: int = 0

    def due(self, now: float, tables: dict[TableKey, SeqRanges]) -> list[Ask]:
        """The requests to send now (each remembered as open until answered or timed out)."""
        asks: list[Ask] = []
        seen_now: dict[tuple[TableKey, Span], float] = {}
        for key, ranges in sorted(tables.items()):
            for span in ranges.gaps():
                # a gap partly filled keeps the age of the gap it was part of
                seen_now[(key, span)] = self._age_of(key, span, now)
            waiting = self.open.get(key)
            if waiting is not None and now - waiting.sent_at < self.timeout:
                continue
            ask = self._next_ask(key, ranges, now, seen_now)
            if ask is not None:
                self.open[key] = _Open(ask, now)
                asks.append(ask)
            else:
                self.open.pop(key, None)
        self.first_seen = seen_now
        return asks

    def _age_of(self, key: TableKey, span: Span, now: float) -> float:
        """When the ledger first saw a gap overlapping `span` (now, for a new one)."""
        lo, hi = span
        seen = [
            at for (k, (a, b)), at in self.first_seen.items() if k == key and a <= hi and lo <= b
        ]
        return min(seen, default=now)

    def _next_ask(
        self,
        key: TableKey,
        ranges: SeqRanges,
        now: float,
        seen: dict[tuple[TableKey, Span], float],
    ) -> Ask | None:
        skip = self.pruned.get(key, SeqRanges())
        for lo, hi in ranges.gaps():
            if now - seen[(key, (lo, hi))] < self.grace:
                continue
            free = _first_free(skip, lo, hi)
            if free is None:
                continue
            first, last = free
            self._count += 1
            return Ask(key, f"ledger-{self._count}", first, min(last, first + MAX_HISTORY - 1))
        return None

    def answered(
        self, key: TableKey, ref: str | None, pruned: list[Span], held_from: int | None
    ) -> bool:
        """An answer came: the request is closed; its pruned numbers, and every number below
        `held_from` (the table's outbox holds none of them), are not asked again.
        False for an answer to no open request of ours (another ledger's, or a late one)."""
        waiting = self.open.get(key)
        if waiting is None or waiting.ask.ref != ref:
            return False
        del self.open[key]
        ranges = self.pruned.setdefault(key, SeqRanges())
        for lo, hi in pruned:
            ranges.add_span(lo, hi)
        if held_from is not None and held_from > 1:
            ranges.add_span(1, held_from - 1)
        return True


def _first_free(skip: SeqRanges, lo: int, hi: int) -> Span | None:
    """The first run of numbers within lo..hi that `skip` does not hold, or None."""
    n = max(lo, skip.through + 1)
    for s_lo, s_hi in skip.spans():
        if s_hi < n:
            continue
        if s_lo > n:
            return (n, min(hi, s_lo - 1)) if n <= hi else None
        n = s_hi + 1
    return (n, hi) if n <= hi else None
