"""Each device's place in its own count, as the journal proves it (R39).

A card-reading shoe numbers its cards from NEW, a dispenser its stacks from a shuffle, a dice
cup its rolls. `Ledger` is what the table knows of one device's count: the run (shoe or
shuffle) and the last position dealt in order, the inputs waiting behind a gap, and the gap the
device could not fill. `Ledger.place` judges one positioned input. Pure and immutable: the table
rebuilds ledgers from the journal, so the cursor a driver resumes from after a restart is the
journal's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from tablectl_base.events import DevicePosition
from tablectl_base.frozen import quick_init  # frozen, built at a plain class's cost

RECENT = 64
"""Positions whose input is remembered, to tell a card read twice from a different card."""

_TIDY = "_tidy_at"
"""Set by `Ledger._at` on the ledger it makes (not a field: no snapshot or comparison sees it):
the position at which `recent` held none older than RECENT before it. A ledger made any other
way (a skip moves `pos` on and keeps `recent`) has no such mark."""


class Verdict(Enum):
    """What to do with one positioned input."""

    DEAL = "deal"
    """Next in the device's count (or the start of a run): it may reach the game."""
    REPEAT = "repeat"
    """A position already dealt, with the same input: the device read it twice."""
    CONFLICT = "conflict"
    """A position already dealt, with a different input: one of the two reads is wrong."""
    AHEAD = "ahead"
    """Past a gap: kept, not dealt, until the positions before it are in."""
    WAITING = "waiting"
    """Already kept past a gap, the same input again (a resend): nothing to do."""


@quick_init
@dataclass(frozen=True)
class Gap:
    """Positions of `run` after `after` that the device did not report and cannot resend.

    `missing` is None when not even their number is known (the device kept no record).
    """

    run: str | None
    after: int
    missing: tuple[int, ...] | None
    reason: str
    record: int | None = None
    """The journal record that told of the gap: the missing inputs happened before it."""

    def describe(self, device: str) -> str:
        """The gap for an alert or a hold: which device, which run, which positions."""
        where = f" of {self.run}" if self.run is not None else ""
        if self.missing is None:
            return f"device {device}: nothing{where} after position {self.after} can be confirmed"
        return f"device {device}: position(s) {spans(self.missing)}{where} missing"


@quick_init
@dataclass(frozen=True)
class Ledger:
    """One device's count as dealt: `run`, `pos` (the last position dealt in order, 0 at a run's
    start), inputs `pending` behind a gap (by position), and a `gap` the device cannot fill."""

    run: str | None = None
    pos: int | None = None
    seq: int | None = None
    recent: Mapping[int, str] = field(default_factory=dict)
    pending: Mapping[int, tuple[str, Any, int | None]] = field(default_factory=dict)
    """Inputs behind a gap by position: (key, item, SEQ), the item being the caller's."""
    gap: Gap | None = None

    def cursor(self) -> dict[str, Any] | None:
        """What a driver resumes from: the run, the last position dealt in order, the SEQ."""
        if self.pos is None:
            return None
        return {"run": self.run, "pos": self.pos, "seq": self.seq}

    def missing(self) -> tuple[int, ...]:
        """Positions between the last dealt and the furthest pending one that are not in."""
        if not self.pending or self.pos is None:
            return ()
        top = max(self.pending)
        return tuple(p for p in range(self.pos + 1, top) if p not in self.pending)

    def blocked(self) -> bool:
        """Whether play must wait: inputs are pending behind a gap, or a gap cannot be filled."""
        return bool(self.pending) or self.gap is not None

    def place(self, at: DevicePosition, key: str, *, starts_run: bool) -> tuple[Verdict, Ledger]:
        """Judge one input at `at` (`key` tells inputs apart); the ledger after it.

        `starts_run` marks an input that opens a run (a shoe's NEW). A new run is taken as it
        comes (a new shoe, a new shuffle): whatever of the old run was pending is then lost
        with it, which the caller reports. The first position ever seen is taken as it is.
        """
        if starts_run or self.pos is None:
            return Verdict.DEAL, self._at(at, key)
        if self.run is None and at.run is not None:
            # The count began with cards heard before any run start: now the run has a name.
            return replace(self, run=at.run).place(at, key, starts_run=False)
        if at.run != self.run:
            if at.pos == 1:  # a dispenser's first stack of a new shuffle opens its run
                return Verdict.DEAL, self._at(at, key)
            # A run whose start never came: everything before `at` in it is missing.
            return Verdict.AHEAD, Ledger(run=at.run, pos=0, seq=self.seq, gap=self.gap)
        if at.pos <= self.pos:
            seen = self.recent.get(at.pos)
            return (Verdict.REPEAT if seen in (None, key) else Verdict.CONFLICT), self
        if at.pos == self.pos + 1:
            return Verdict.DEAL, self._at(at, key)
        if at.pos in self.pending:
            same = self.pending[at.pos][0] == key
            return (Verdict.WAITING if same else Verdict.CONFLICT), self
        return Verdict.AHEAD, self

    def _at(self, at: DevicePosition, key: str) -> Ledger:
        """Dealt in order: the cursor moves to `at` (a new run starts its memory afresh)."""
        same_run = at.run == self.run and self.pos is not None and at.pos > 0
        # dict.copy clones the table at once, where dict() re-inserts every entry (the pop
        # below leaves a hole in it each card, which dict() will not clone over).
        recent = _copy(self.recent) if same_run else {}
        recent[at.pos] = key
        cutoff = at.pos - RECENT
        recent.pop(cutoff, None)  # the one that usually falls out as the count moves on by one
        # Any older one, after a jump in the count, is looked for (a scan of `recent`) unless
        # there can be none: a new run, or the next position after one this method dealt.
        tidy = not same_run or (at.pos - 1 == self.pos and self.__dict__.get(_TIDY) == self.pos)
        if not tidy and min(recent) <= cutoff:
            for old in [p for p in recent if p <= cutoff]:
                del recent[old]
        pending = self.pending if same_run else {}
        seq = at.seq if at.seq is not None else self.seq
        # run, pos, seq, recent, pending, gap: by position (keywords double a class call's cost)
        moved = Ledger(at.run, at.pos, seq, recent, pending, self.gap)
        moved.__dict__[_TIDY] = at.pos
        return moved

    def hold(self, at: DevicePosition, key: str, item: Any) -> Ledger:
        """Keep `item` (the caller's) at `at`, which `place` found AHEAD, until its turn."""
        pending = dict(self.pending)
        pending[at.pos] = (key, item, at.seq)
        return replace(self, pending=pending)

    def next_pending(self) -> tuple[Any, Ledger] | None:
        """The pending item that is now next in order, dealt (the cursor moves onto it) and
        taken out; None if the next position is not pending."""
        if self.pos is None or self.pos + 1 not in self.pending:
            return None
        pending = dict(self.pending)
        key, item, seq = pending.pop(self.pos + 1)
        moved = replace(self, pending=pending)._at(
            DevicePosition(run=self.run, pos=self.pos + 1, seq=seq), key
        )
        return item, moved

    def with_gap(self, gap: Gap | None) -> Ledger:
        """The ledger with `gap` as the one the device cannot fill (None: filled or voided)."""
        return replace(self, gap=gap)

    def skip(self) -> tuple[list[Any], Ledger]:
        """A void: every pending input is dropped and the count carries on after the furthest
        one, with no gap left; returns the dropped inputs in position order."""
        dropped = [self.pending[p][1] for p in sorted(self.pending)]
        if not self.pending:
            return dropped, replace(self, gap=None)
        top = max(self.pending)
        seq = self.pending[top][2]
        pos = max(top, self.pos or 0)
        return dropped, replace(
            self, pos=pos, seq=self.seq if seq is None else seq, pending={}, gap=None
        )


def _copy(mapping: Mapping[int, str]) -> dict[int, str]:
    """A dict with the items of `mapping`, in its order."""
    return mapping.copy() if type(mapping) is dict else dict(mapping)


def spans(positions: tuple[int, ...] | list[int]) -> str:
    """`[3, 4, 5, 9]` as "3-5, 9": positions for a person."""
    out: list[str] = []
    ordered = sorted(positions)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(out)
