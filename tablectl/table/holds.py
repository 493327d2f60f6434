"""Holds: a round held for a fault, a gap or an engine error keeps its inputs until the floor
resumes (they are played in order) or voids it."""

from __future__ import annotations

import bisect

from tablectl.games.base import Rejected
from tablectl.records import Record
from tablectl.table.alerting import TableAlerts
from tablectl.table.masking import public_input
from tablectl.table.state import blocked_reason
from tablectl.table_messages import Message, RoundResumed, TableAlert
from tablectl_base.events import InputEvent, RoundVoid


class RoundHolds(TableAlerts):
    """A held round: what comes in is kept, then played at `round.resume` or dropped by
    `round.void`."""

    def _deal_or_hold(
        self, event: InputEvent, rec: Record, rank: float | None = None
    ) -> list[Message]:
        """Kept while the round is held (devices and console alike, in the order they happened,
        so a stand typed during the hold still comes before the card the shoe reads after it),
        else played."""
        if self.held is not None:
            return self._hold_input(event, rec, rank)
        return self._play(event, rec)

    def _void_round(self, event: RoundVoid, rec: Record) -> list[Message]:
        """A misdeal: the engine voids the round; gaps are given up (their pending inputs are
        never dealt and stay in the journal). With no round in progress, a void only clears
        what held the table."""
        blocked = any(led.blocked() for led in self.ledgers.values())
        outputs: list[Message] = []
        if not (self.engine.between_rounds(self.state) and (blocked or self.held is not None)):
            self.state, engine_out = self.engine.void(self.state, event.reason, rec.ts)
            outputs = self._with_table_notes(engine_out, rec.ts)
        self.held = None
        dropped = [(event, kept) for _, event, kept in self.held_inputs]
        self.held_inputs = []
        for name in sorted(self.ledgers):
            skipped, skipped_to = self.ledgers[name].skip()
            self._set_ledger(name, skipped_to)
            dropped += skipped
        return [
            *outputs,
            *self._held_inputs_not_played(dropped),
            self.state_view(),
        ]

    def _hold_input(
        self, event: InputEvent, rec: Record, rank: float | None = None
    ) -> list[Message]:
        """An input while the round is held: kept, unplayed, until the operator resolves the
        hold (it is in the journal already; the alert shows no card). `rank` places it among
        what is kept (its record's seq unless it fills a gap)."""
        item = (float(rec.seq) if rank is None else rank, event, rec)
        held = list(self.held_inputs)
        bisect.insort(held, item, key=lambda kept: kept[0])
        self.held_inputs = held
        return [
            TableAlert(
                f"kept until round.resume or round.void: the round is held ({self.held})",
                kind="input-held",
                source=rec.source,
                input=public_input(rec.body),
            ),
            self.state_view(),
        ]

    def _held_inputs_not_played(self, dropped: list[tuple[InputEvent, Record]]) -> list[Message]:
        """A void ends the round with what was kept during the hold unplayed: say so (the
        journal keeps those inputs)."""
        if not dropped:
            return []
        seqs = [rec.seq for _, rec in dropped]
        return [
            TableAlert(
                f"{len(dropped)} input(s) kept during the hold were not played: the round is void",
                kind="held-inputs-discarded",
                records=tuple(seqs),
            )
        ]

    def _resume_round(self, rec: Record) -> list[Message]:
        """Play on after a hold: every device back and clear of faults, then what was kept during
        the hold is played in the order it arrived."""
        if self.held is None:
            raise Rejected("nothing is held: there is no round to resume", rule="round.resume")
        down = sorted(self.unavailable)
        if down:
            raise Rejected(
                f"still unavailable: {', '.join(down)}; reconnect it first", rule="round.resume"
            )
        faulted = sorted(f"{name} {fault}" for name, fault in self.faults.items())
        if faulted:
            raise Rejected(
                f"still faulted: {', '.join(faulted)}; clear it first, or void the round",
                rule="round.resume",
            )
        blocked = [
            blocked_reason(name, ledger)
            for name, ledger in sorted(self.ledgers.items())
            if ledger.blocked()
        ]
        if blocked:
            raise Rejected(
                f"still missing: {'; '.join(blocked)}; enter them at the console with their "
                "positions, or void the round",
                rule="round.resume",
            )
        self.held = None
        out: list[Message] = [RoundResumed(rec.ts)]
        kept, self.held_inputs = self.held_inputs, []
        for _, event, original in kept:
            try:
                out += self._play(event, original)
            except Rejected as rej:
                out.append(self._refusal_alert(rej, original))
        return [*out, self.state_view()]
