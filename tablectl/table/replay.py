"""The short way through the usual record (`Table.apply` and `Table.advance`): a simple input
played without the full way's checks for everything else."""

from __future__ import annotations

from typing import cast

from tablectl.records import Record
from tablectl.table.inputs import Route, input_key, route_of
from tablectl.table.replies import COUNTED_REPLY
from tablectl.table.sequencing import DeviceSequencing
from tablectl.table_messages import CommandReply, Message
from tablectl_base.events import EventError, PositionedEvent, ShoeNew
from tablectl_base.positions import Ledger, Verdict


class ReplayShortcut(DeviceSequencing):
    """The short way through the usual record, for `apply` and `advance` alike (a start, an
    import, a verification and `tablectl replay` run every record of a journal): most records
    are a simple input, played here without the checks the full way makes for the rest."""

    def _simple_input(self, rec: Record) -> list[Message] | None:
        """The short way through the usual record: a game input the engine accepts (a bank, a
        wager, bets.close, a decision) from anywhere but a device, or a device's input that is
        the next in its count with nothing waiting (a card from the shoe), while no round is
        held and nothing is paced or played for recall. It moves the state, the request ids,
        the device's count and what the round notes as `_record_messages` does and returns the
        same messages (a command's reply last); None sends the record the full way, which
        checks (and refuses) it as ever. tests/table/test_snapshot.py holds the two ways equal
        record by record for every game."""
        if self.held is not None or self.played is not None or self.rules.pace is not None:
            return None
        try:
            event = self._parse(rec)
        except EventError:
            return None
        route = route_of(type(event))
        source = rec.source
        key: str | None = None  # a command's request id as the table remembers it
        placed: Ledger | None = None  # a device's count after its input
        if route is Route.GAME and not source.startswith("device/"):
            if source.startswith("cmd/"):
                key = f"{source[4:]}/{rec.ref}" if rec.ref is not None else ""
                if key and self._refs.known(key, rec.ts):
                    return None
        elif route is Route.POSITIONED and source.startswith("device/"):
            placed = self._next_in_count(cast(PositionedEvent, event), source[7:], rec)
            if placed is None:
                return None
        else:
            return None
        saved = self._save()
        try:
            self.state, outputs = self.engine.apply(self.state, event, rec.ts)
            if placed is not None:
                self._set_ledger(source[7:], placed)
            out = self._track_accepted_input(event, rec, outputs)
        except Exception:  # a refusal, or anything R40 answers: the full way's to judge and say
            self._restore(saved)
            return None
        if key:
            self._refs.add(key, rec.ts)
        if key is None:
            return out
        # `advance` only counts the messages: the reply it never sends is not built either.
        out.append(CommandReply(source[4:], rec.ref, True) if self._rendering else COUNTED_REPLY)
        return out

    def _next_in_count(self, event: PositionedEvent, device: str, rec: Record) -> Ledger | None:
        """`device`'s count after `event` when it is simply the next position of the run in
        progress, with nothing waiting and no gap (what `_positioned` deals at once); else None."""
        at = event.at
        ledger = self.ledgers.get(device)
        if at is None or ledger is None or ledger.pending or ledger.gap is not None:
            return None
        if type(event) is ShoeNew:
            return None
        verdict, placed = ledger.place(at, input_key(rec.body), starts_run=False)
        return placed if verdict is Verdict.DEAL and placed.run == ledger.run else None
