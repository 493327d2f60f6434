"""Alerts the table raises itself: refusals, engine errors (R40), the pace band and the alerts that
stay open until a person acknowledges them."""

from __future__ import annotations

from tablectl.alerts import NEEDS_A_PERSON, OPENED_ONCE, OpenAlert
from tablectl.game_records import RoundResult
from tablectl.games.base import Rejected
from tablectl.records import Record
from tablectl.table.masking import public_input
from tablectl.table.replies import maybe_reply
from tablectl.table.state import TableState
from tablectl.table_messages import (
    ALERTS,
    AlertAcknowledged,
    Message,
    OpenAlertsChanged,
    PaceAlert,
    TableAlert,
)
from tablectl_base.events import AlertAck


class TableAlerts(TableState):
    """The alerts the table raises itself, and the open alerts and pace it keeps."""

    def _with_pace_and_open_alerts(self, outputs: list[Message], rec: Record) -> list[Message]:
        """A round finished outside the rules' pace band raises a `pace` alert (docs/mqtt.md);
        each alert a person must act on (NEEDS_A_PERSON) opens, its id the `seq` its message will
        have; when that changes what is open, the retained `alerts/open` follows the record's
        other messages. (Messages are numbered in order from `self.seq + 1`, by `apply` and
        `advance` alike.)"""
        band = self.rules.pace
        if band is not None:
            for o in outputs:
                if isinstance(o, RoundResult) and not getattr(o, "void", False):
                    low, high = band.min_rounds_per_hour, band.max_rounds_per_hour
                    self.pace, raised = self.pace.after_round(rec.ts, low, high)
                    if raised is not None:
                        outputs = [
                            *outputs,
                            PaceAlert(
                                str(raised["reason"]),
                                str(raised["pace"]),
                                int(raised["rounds_last_hour"]),
                                raised["band"],
                            ),
                        ]
        opened = self.open_alerts
        for i, o in enumerate(outputs):
            if isinstance(o, ALERTS) and o.kind in NEEDS_A_PERSON:
                kind, reason = o.kind, o.reason
                if kind in OPENED_ONCE and opened.holds(kind, reason):
                    continue  # told again (the alert is published), open once
                opened = opened.opened(OpenAlert(self.seq + 1 + i, kind, reason, rec.ts))
        if opened is self.open_alerts:
            return outputs
        self.open_alerts = opened
        return [*outputs, OpenAlertsChanged(opened)]

    def _acknowledge_alert(self, event: AlertAck, rec: Record) -> list[Message]:
        """`alert.ack`: a person closes an open alert, saying who and why (journaled)."""
        found = self.open_alerts.find(event.alert)
        if found is None:
            listed = ", ".join(str(a.id) for a in self.open_alerts.items) or "none"
            raise Rejected(f"no open alert {event.alert} (open: {listed})", rule="alert.ack")
        self.open_alerts = self.open_alerts.acknowledged(event.alert)
        return [
            AlertAcknowledged(found.id, found.kind, event.by, event.why, rec.ts),
            OpenAlertsChanged(self.open_alerts),
        ]

    def _engine_error(self, exc: Exception, rec: Record, verb: str | None) -> list[Message]:
        """R40: an input that makes the code fail (not a refusal) leaves the state as it was and
        holds the round; the journal keeps the input, and a replay fails the same way."""
        what = self._public_text(f"{type(exc).__name__}: {exc}", rec.source)[:300]
        reason = f"record {rec.seq} could not be applied ({what}); the state is unchanged"
        out: list[Message] = [
            TableAlert(
                reason,
                kind="engine-error",
                rule="R40",
                source=rec.source,
                input=public_input(rec.body),
            )
        ]
        if self.held is None:
            self.held = f"engine error on record {rec.seq}"
            out.append(TableAlert(f"round held: {self.held}", kind="round-held", rule="R40"))
        out.append(self.state_view())
        return out + maybe_reply(verb, rec.ref, False, reason, rule="R40")

    def _refusal_alert(self, rej: Rejected, rec: Record) -> TableAlert:
        """The alert for a refused input (a dealer's error too, R15), its cards withheld."""
        return TableAlert(
            self._public_text(rej.reason, rec.source),
            rule=rej.rule,
            kind=rej.kind,
            source=rec.source,
            input=public_input(rec.body),
        )
