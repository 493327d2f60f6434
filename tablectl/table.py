"""The deterministic core: journal records in, numbered outbox messages out.

The daemon, `replay` and `recall` all run records through this one class, so what was published
live, what a replay prints and what a restart rebuilds are the same bytes.
"""

from __future__ import annotations

import json
import re
from collections import deque
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from tablectl.config import LoadedConfig, Rules
from tablectl.events import (
    DeviceStatus,
    EventError,
    InputEvent,
    InputInvalid,
    RoundResume,
    RoundVoid,
    RulesLoaded,
    event_dict,
    parse_event,
)
from tablectl.games.base import Rejected
from tablectl.games.registry import make_engine
from tablectl.journal import Record
from tablectl.outputs import Output, alert
from tablectl.relay import OutboxRow

RECENT_REFS = 4096  # command ids remembered to refuse a redelivered command
REPLAY_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now_ts() -> str:
    """The journal's timestamp form: ISO-8601 UTC with microseconds and a Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def replay_ts(seq: int) -> str:
    """Timestamp of a replayed event that has none: a fixed epoch plus its sequence number."""
    return (REPLAY_EPOCH + timedelta(seconds=seq)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


CARD_FIELDS = ("card", "cards", "low")
# A card as our own messages write it (canonical: "Ah", "Td", "JKR"), and as raw input may quote
# it in any case ("ah"); the raw form is matched only inside quotes so English words survive.
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][shdc]|JKR)(?![A-Za-z0-9])")
_QUOTED_CARD = re.compile(r"([\"'])(?:[A2-9TJQK][SHDC]|JKR)\1", re.IGNORECASE)


def mask_cards(text: str) -> str:
    """`text` with every card name replaced by "??": for alerts of games with hidden cards."""
    return _CARD_TOKEN.sub("??", _QUOTED_CARD.sub(r"\1??\1", text))


def public_input(body: dict[str, Any]) -> dict[str, Any]:
    """A refused input as an alert may show it: its cards withheld (named, not shown), because
    a refused card or stack is not thereby exposed at the table and may be someone's hole card.
    The journal keeps the input whole."""
    hidden = [k for k in CARD_FIELDS if k in body]
    out = {k: v for k, v in body.items() if k not in hidden}
    if hidden:
        out["withheld"] = hidden
    return out


class Table:
    """One table's engine state and outgoing sequence number."""

    def __init__(self, cfg: LoadedConfig) -> None:
        self.table_id = cfg.table.table
        self.base = cfg.table.base_topic
        self.rules = cfg.rules  # until the journal says otherwise
        self.rules_journaled = False  # whether a `config` record has set the rules yet
        self.engine = make_engine(self.rules)
        self.state: Any = self.engine.initial()
        self.seq = 0
        self.position = 0  # the last journal record applied
        self._refs: deque[str] = deque(maxlen=RECENT_REFS)
        # Devices: what each reports now, and which ones fed the round in progress.
        self.faults: dict[str, str] = {}
        self.unavailable: set[str] = set()
        self.serials: dict[str, str | None] = {}
        self.round_devices: set[str] = set()
        self.held: str | None = None  # why the round in progress is held, until resolved
        # What came in while the round was held (devices and console): played at round.resume,
        # in arrival order, so a card read after the fault is neither lost nor dealt out of turn.
        self.held_inputs: list[tuple[InputEvent, Record]] = []

    def apply(self, rec: Record) -> list[OutboxRow]:
        """Apply one journal record; return its messages, numbered."""
        if rec.seq != self.position + 1:
            raise ValueError(f"record {rec.seq} applied after record {self.position}")
        self.position = rec.seq
        return [self._number(o) for o in self._outputs(rec)]

    def _outputs(self, rec: Record) -> list[Output]:
        verb = rec.source.removeprefix("cmd/") if rec.source.startswith("cmd/") else None
        if verb is not None and rec.ref is not None:
            key = f"{verb}/{rec.ref}"
            if key in self._refs:
                return [_reply(verb, rec.ref, False, "duplicate request id: already handled")]
            self._refs.append(key)
        try:
            event = parse_event(rec.body)
        except EventError as exc:  # a journal written by an older version, or edited
            out = [alert(f"journal record {rec.seq} is not a valid event: {exc}", kind="invalid")]
            return out + _maybe_reply(verb, rec.ref, False, str(exc))
        if isinstance(event, InputInvalid):
            out = [
                alert(
                    self._public_text(event.reason),
                    kind="invalid-input",
                    source=rec.source,
                    raw=self._public_text(event.raw[:512]),
                )
            ]
            return out + _maybe_reply(verb, rec.ref, False, self._public_text(event.reason))
        if isinstance(event, DeviceStatus):
            return self._device(event, rec)
        if isinstance(event, RulesLoaded):
            return self._rules(event, rec)
        try:
            outputs = self._game(event, rec)
        except Rejected as rej:
            out = [
                alert(
                    self._public_text(rej.reason),
                    rule=rej.rule,
                    kind=rej.kind,  # "rejected", or "dealer-error" (R15)
                    source=rec.source,
                    input=public_input(rec.body),
                )
            ]
            reason = self._public_text(rej.reason)
            return out + _maybe_reply(verb, rec.ref, False, reason, rule=rej.rule)
        return outputs + _maybe_reply(verb, rec.ref, True, None)

    def _public_text(self, text: str) -> str:
        """An alert's text as it may be published: card names masked unless the game shows every
        card face up (baccarat), since a refused card may be a hole card nobody has seen."""
        return text if getattr(self.engine, "shows_every_card", False) else mask_cards(text)

    def _game(self, event: InputEvent, rec: Record) -> list[Output]:
        """A game input: kept while the round is held, otherwise the engine's to judge."""
        if isinstance(event, RoundResume):
            return self._resume(rec)
        if isinstance(event, RoundVoid):
            self.state, outputs = self.engine.void(self.state, event.reason, rec.ts)
            self.held = None
            dropped, self.held_inputs = self.held_inputs, []
            return self._annotate(outputs) + self._discarded(dropped)
        if self.held is not None:
            # Devices and console alike: kept in arrival order, so a stand typed during the hold
            # still comes before the card the shoe reads after it.
            return self._keep(event, rec)
        return self._play(event, rec)

    def _play(self, event: InputEvent, rec: Record) -> list[Output]:
        """The engine's judgement of one game input; the device that fed it is noted."""
        self.state, outputs = self.engine.apply(self.state, event, rec.ts)
        if rec.source.startswith("device/"):
            self.round_devices.add(rec.source.removeprefix("device/"))
        return self._annotate(outputs)

    def _keep(self, event: InputEvent, rec: Record) -> list[Output]:
        """An input while the round is held: kept, unplayed, until the operator resolves the
        hold (it is in the journal already; the alert shows no card)."""
        self.held_inputs.append((event, rec))
        return [
            alert(
                f"kept until round.resume or round.void: the round is held ({self.held})",
                kind="input-held",
                source=rec.source,
                input=public_input(rec.body),
            ),
            Output("state", self.state_payload(), retain=True),
        ]

    def _discarded(self, dropped: list[tuple[InputEvent, Record]]) -> list[Output]:
        """A void ends the round with what was kept during the hold unplayed: say so (the
        journal keeps those inputs)."""
        if not dropped:
            return []
        seqs = [rec.seq for _, rec in dropped]
        return [
            alert(
                f"{len(dropped)} input(s) kept during the hold were not played: the round is void",
                kind="held-inputs-discarded",
                records=seqs,
            )
        ]

    def _resume(self, rec: Record) -> list[Output]:
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
        self.held = None
        out = [Output("event", {"type": "round.resume", "ts": rec.ts})]
        kept, self.held_inputs = self.held_inputs, []
        for event, original in kept:
            try:
                out += self._play(event, original)
            except Rejected as rej:
                out.append(
                    alert(
                        self._public_text(rej.reason),
                        rule=rej.rule,
                        kind=rej.kind,
                        source=original.source,
                        input=public_input(original.body),
                    )
                )
        return [*out, Output("state", self.state_payload(), retain=True)]

    def _annotate(self, outputs: list[Output]) -> list[Output]:
        """Say in every result which devices (and serials) fed the round; show holds in state."""
        out = []
        for o in outputs:
            if o.topic == "round/result":
                devices = [
                    {"name": n, "serial": self.serials.get(n)} for n in sorted(self.round_devices)
                ]
                o = Output(o.topic, {**o.payload, "devices": devices}, o.retain, o.qos)
                self.round_devices = set()
            elif o.topic == "state":
                held = {"held": self.held, "held_inputs": len(self.held_inputs)}
                o = Output(o.topic, {**o.payload, **held}, o.retain, o.qos)
            out.append(o)
        return out

    def _rules(self, ev: RulesLoaded, rec: Record) -> list[Output]:
        """New rules from the config file take over, between rounds only."""
        try:
            rules = Rules.model_validate(ev.rules)
        except ValidationError as exc:
            return [alert(f"journal record {rec.seq} holds unusable rules: {exc}", kind="invalid")]
        if rules != self.rules and not self.engine.between_rounds(self.state):
            return [
                alert(
                    "the rules cannot change in the middle of a round",
                    kind="rejected",
                    rule="config",
                )
            ]
        if rules != self.rules:
            try:
                engine = make_engine(rules)
            except ValueError as exc:  # rules a game cannot be played under (e.g. its seats)
                return [
                    alert(f"journal record {rec.seq} holds unusable rules: {exc}", kind="invalid")
                ]
            if rules.game.id != self.rules.game.id:
                self.state = engine.initial()
            self.engine = engine
        self.rules, self.rules_journaled = rules, True
        payload = {"type": "config", "rules": rules.to_json(), "ts": rec.ts}
        return [Output("event", payload), Output("state", self.state_payload(), retain=True)]

    def _device(self, ev: DeviceStatus, rec: Record) -> list[Output]:
        payload: dict[str, Any] = {
            "device": ev.device,
            "available": ev.available,
            "fault": ev.fault,
            "detail": ev.detail,
            "ts": rec.ts,
        }
        out = [Output(f"device/{ev.device}/status", payload, retain=True)]
        serial = ev.detail.get("serial")
        self.serials[ev.device] = serial if isinstance(serial, str) else None
        fault = ev.fault or (None if ev.available else "UNAVAILABLE")
        if ev.available:
            self.unavailable.discard(ev.device)
        else:
            self.unavailable.add(ev.device)
        if fault is None:
            self.faults.pop(ev.device, None)
            return out
        if self.faults.get(ev.device) != fault:  # a standing fault is alerted once, not per report
            out.append(alert(f"device {ev.device}: {fault}", kind="device-fault", device=ev.device))
        self.faults[ev.device] = fault
        if self.held is None and self.engine.in_deal(self.state):
            # No result from a half-read hand: the round waits for the operator.
            self.held = f"device {ev.device}: {fault}"
            out.append(alert(f"round held: {self.held}", kind="round-held", device=ev.device))
            out.append(Output("state", self.state_payload(), retain=True))
        return out

    def _number(self, out: Output) -> OutboxRow:
        self.seq += 1
        payload = {"table": self.table_id, "seq": self.seq, **out.payload}
        data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        return OutboxRow(self.seq, f"{self.base}/{out.topic}", data, out.qos, out.retain)

    def state_payload(self) -> dict[str, Any]:
        return {
            **self.engine.state_payload(self.state),
            "held": self.held,
            "held_inputs": len(self.held_inputs),
        }


def _reply(verb: str, ref: str | None, ok: bool, reason: str | None, **extra: Any) -> Output:
    payload: dict[str, Any] = {"id": ref, "ok": ok}
    if reason is not None:
        payload["reason"] = reason
    payload.update({k: v for k, v in extra.items() if v is not None})
    return Output(f"cmd/{verb}/reply", payload)


def _maybe_reply(
    verb: str | None, ref: str | None, ok: bool, reason: str | None, **extra: Any
) -> list[Output]:
    return [] if verb is None else [_reply(verb, ref, ok, reason, **extra)]


def journal_body(data: Any, error: str | None = None) -> dict[str, Any]:
    """What gets journaled for an input: its canonical event, or `input.invalid` with the reason."""
    if error is not None:
        return event_dict(InputInvalid(raw=_raw(data), reason=error))
    try:
        return event_dict(parse_event(data))
    except EventError as exc:
        return event_dict(InputInvalid(raw=_raw(data), reason=str(exc)))


def _raw(data: Any) -> str:
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(data)
