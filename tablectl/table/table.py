"""The deterministic core: journal records in, numbered outbox messages out.

The daemon, `replay` and `recall` all run records through this one class, so what was published
live, what a replay prints and what a restart rebuilds are the same bytes."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json

from tablectl.game_records import DisplayChanged, InputAccepted, RoundResult, StateChanged
from tablectl.games.base import Rejected
from tablectl.games.common import replace
from tablectl.games.registry import make_engine
from tablectl.games.table_rules import Rules
from tablectl.outputs import PAYLOAD_VERSION, OutboxRow
from tablectl.records import Record
from tablectl.render import enveloped, render
from tablectl.table.inputs import HAND_ENTERED, Route, route_of
from tablectl.table.masking import public_input
from tablectl.table.replay import ReplayShortcut
from tablectl.table.replies import COUNTED_REPLY, is_retained_refusal, maybe_reply
from tablectl.table_messages import (
    TABLE_MESSAGES,
    ChainHead,
    CommandReply,
    Message,
    RulesChanged,
    TableAlert,
)
from tablectl_base.events import (
    AlertAck,
    DeviceGap,
    DeviceStatus,
    EventError,
    InputEvent,
    InputInvalid,
    JournalTrouble,
    PositionedEvent,
    RoundResume,
    RoundVoid,
    RulesLoaded,
)


class Table(ReplayShortcut):
    """One table's engine state and outgoing sequence number: applies journal records
    (`apply`, `advance`) and numbers and renders their messages. Its jobs live one to a module
    (tablectl/table/): each class it builds on adds one."""

    def apply(self, rec: Record) -> list[OutboxRow]:
        """Apply one journal record; return its messages, numbered."""
        return [self._number(o, rec) for o in self._messages_of(rec)]

    def apply_lazily(self, rec: Record) -> Iterator[OutboxRow]:
        """`apply`, each message numbered and rendered as it is taken: the daemon hands a
        card's event to the broker before the state after it is rendered. Take every one (the
        count moves on as each is numbered)."""
        for message in self._messages_of(rec):
            yield self._number(message, rec)

    def _messages_of(self, rec: Record) -> list[Message]:
        """Apply one journal record; its messages, not yet numbered or rendered."""
        if rec.seq != self.position + 1:
            raise ValueError(f"record {rec.seq} applied after record {self.position}")
        self.position = rec.seq
        self._rendering = True
        outputs = self._simple_input(rec)
        if outputs is None:
            outputs = self._record_messages(rec)
        return self._with_chain_head(rec, outputs)

    def advance(self, rec: Record) -> None:
        """Apply one journal record whose messages are not wanted (they are in the outbox
        already, or were published by the table an import came from): the state and the
        message count move on exactly as `apply` moves them, without rendering a message."""
        if rec.seq != self.position + 1:
            raise ValueError(f"record {rec.seq} applied after record {self.position}")
        self.position = rec.seq
        self._rendering = False
        outputs = self._simple_input(rec)
        if outputs is None:
            outputs = self._record_messages(rec)
        # Only counted: a witness (`_with_chain_head`) adds its journal/head to a round's result.
        self.seq += len(outputs)
        if rec.witness and _ends_a_round(outputs):
            self.seq += 1

    def _with_chain_head(self, rec: Record, outputs: list[Message]) -> list[Message]:
        """A record that finishes a round publishes the journal's chain head with it: in each
        `round/result` (`chain`) and on the retained `journal/head`, so the floor keeps a witness
        of the journal that no later edit of the file can change (docs/mqtt.md). A record that
        carries no head (a replayed line without one) publishes none."""
        if not rec.witness or not _ends_a_round(outputs):
            return outputs
        out: list[Message] = [
            replace(o, table=replace(o.table, chain=rec.chain)) if isinstance(o, RoundResult) else o
            for o in outputs
        ]
        return [*out, ChainHead(rec.chain)]

    def _record_messages(self, rec: Record) -> list[Message]:
        """The messages of one record: a repeated command refused (R54), or what
        `_messages_for` makes (an engine error in its place, R40, never a crash), then any pace
        alert and the open alerts."""
        verb = rec.source.removeprefix("cmd/") if rec.source.startswith("cmd/") else None
        if verb is not None and rec.ref is not None and not is_retained_refusal(rec):
            key = f"{verb}/{rec.ref}"
            if self._refs.known(key, rec.ts):
                return [CommandReply(verb, rec.ref, False, "duplicate request id: already handled")]
            self._refs.add(key, rec.ts)
        saved = self._save()
        try:
            outputs = self._messages_for(rec, verb)
        except Exception as exc:  # R40: never a crash, never a restart loop, never half a state
            self._restore(saved)
            outputs = self._engine_error(exc, rec, verb)
        return self._with_pace_and_open_alerts(outputs, rec)

    def _messages_for(self, rec: Record, verb: str | None) -> list[Message]:
        """One record's messages: an alert for anything refused, a reply to every command."""
        try:
            event = self._parse(rec)
        except EventError as exc:  # a journal written by an older version, or edited
            out = [
                TableAlert(f"journal record {rec.seq} is not a valid event: {exc}", kind="invalid")
            ]
            return out + maybe_reply(verb, rec.ref, False, str(exc))
        route = route_of(type(event))
        if route is Route.TABLE:
            return self._table_input(event, rec, verb)
        try:
            outputs = (
                self._deal_or_hold(event, rec)
                if route is Route.GAME
                else self._game_input(event, rec)
            )
        except Rejected as rej:
            out = [
                TableAlert(
                    self._public_text(rej.reason, rec.source),
                    rule=rej.rule,
                    kind=rej.kind,  # "rejected", or "dealer-error" (R15)
                    source=rec.source,
                    input=public_input(rec.body),
                )
            ]
            reason = self._public_text(rej.reason, rec.source)
            return out + maybe_reply(verb, rec.ref, False, reason, rule=rej.rule)
        if verb is None:
            return outputs
        # `advance` only counts the messages: the reply it never sends is not built either.
        ok = CommandReply(verb, rec.ref, True) if self._rendering else COUNTED_REPLY
        return [*outputs, ok]

    def _table_input(self, event: InputEvent, rec: Record, verb: str | None) -> list[Message]:
        """An input for the table itself, not the game: a refused payload, a device's status or
        gap, the journal's trouble, new rules."""
        if isinstance(event, InputInvalid):
            # R54: a retained command waits at the broker for a person to clear it (an alert
            # that stays open); any other invalid input is only told.
            retained = event.retained is True
            rule = "R54" if retained else None
            out = [
                TableAlert(
                    self._public_text(event.reason, rec.source),
                    kind="retained-command" if retained else "invalid-input",
                    rule=rule,
                    source=rec.source,
                    raw=self._public_text(event.raw[:512], rec.source),
                )
            ]
            reason = self._public_text(event.reason, rec.source)
            return out + maybe_reply(verb, rec.ref, False, reason, rule=rule)
        if isinstance(event, DeviceStatus):
            return self._device_status(event, rec)
        if isinstance(event, DeviceGap):
            return self._device_gap(event, rec)
        if isinstance(event, JournalTrouble):
            # The journal's trouble, journaled once it could be, waits for a person.
            reason = (
                f"the journal could not be written from {event.since} to {event.until} "
                f"({event.reason}): inputs waited, commands were refused"
            )
            return [
                TableAlert(reason, kind="journal-trouble", since=event.since, until=event.until)
            ]
        if isinstance(event, RulesLoaded):
            return self._new_rules(event, rec)
        raise AssertionError(f"{type(event).__name__} is routed to the table but not handled")

    def _game_input(self, event: InputEvent, rec: Record) -> list[Message]:
        """A game input: placed in its device's count, kept while the round is held, otherwise
        the engine's to judge."""
        route = route_of(type(event))
        if route is Route.FLOOR and isinstance(event, RoundResume):
            return self._resume_round(rec)
        if route is Route.FLOOR and isinstance(event, RoundVoid):
            return self._void_round(event, rec)
        if route is Route.FLOOR and isinstance(event, AlertAck):
            return self._acknowledge_alert(event, rec)
        if route is Route.POSITIONED and cast(PositionedEvent, event).at is not None:
            return self._positioned(cast(PositionedEvent, event), rec)
        if (
            rec.source.startswith("cmd/")
            and isinstance(event, HAND_ENTERED)
            and not self.rules.manual_entry  # R55: a table without its reader deals from here
        ):
            raise Rejected(
                "a card entered at the console fills a gap its device could not: give its "
                "position (at.pos)",
                rule="R39",
            )
        return self._deal_or_hold(event, rec)

    def _new_rules(self, ev: RulesLoaded, rec: Record) -> list[Message]:
        """New rules from the config file take over, between rounds only."""
        try:
            rules = Rules.model_validate(ev.rules)
        except ValidationError as exc:
            return [
                TableAlert(f"journal record {rec.seq} holds unusable rules: {exc}", kind="invalid")
            ]
        if rules != self.rules and not self.engine.between_rounds(self.state):
            return [
                TableAlert(
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
                    TableAlert(
                        f"journal record {rec.seq} holds unusable rules: {exc}", kind="invalid"
                    )
                ]
            if rules.game.id != self.rules.game.id:
                self.state = engine.initial()
            self.engine = engine
        self.rules, self.rules_journaled = rules, True
        return [RulesChanged(rules.to_json(), rec.ts), self.state_view()]

    def _number(self, message: Message, rec: Record) -> OutboxRow:
        self.seq += 1
        # The envelope (docs/mqtt.md): `ts` is the record's journal time (an input's echo keeps
        # its own, which a held input's differs from), `v` the payload schemas' version. The
        # envelope's fields come first; a payload's field of the same name takes its place.
        envelope = {"table": self.table_id, "seq": self.seq, "ts": rec.ts, "v": PAYLOAD_VERSION}
        try:
            topic, payload, qos, retain = enveloped(
                message, envelope, (rec.event, rec.body) if self.unhidden is None else None
            )
            data = encode_payload(payload)
        except Exception as exc:  # R40: a view built (and encoded) only now, never by a start
            message = self._unrendered(message, exc, rec)
            topic, payload, qos, retain = enveloped(message, envelope)
            data = encode_payload(payload)
        if isinstance(message, DisplayChanged):
            self.displayed[message.name] = payload
        elif self.unhidden is not None and isinstance(message, InputAccepted):
            whole = render(dataclasses.replace(message, hide=frozenset()))
            self.unhidden.append({**envelope, **whole.payload})
        return OutboxRow(self.seq, f"{self.base}/{topic}", data, qos, retain)

    def _unrendered(self, message: Message, exc: Exception, rec: Record) -> TableAlert:
        """R40: a message that cannot be rendered (a view is built only when it is published,
        never by a start or an import, which replay without publishing) is published as an
        engine-error alert in its place: one message for one, so the count, and every state the
        table keeps, are the same whether the record was published or only replayed."""
        what = self._public_text(f"{type(exc).__name__}: {exc}")[:300]
        topic = (
            message.topic
            if isinstance(message, TABLE_MESSAGES)
            else "state"
            if isinstance(message, StateChanged)
            else f"display/{message.name}"
            if isinstance(message, DisplayChanged)
            else "event"
            if isinstance(message, InputAccepted)
            else "round/result"
        )
        return TableAlert(
            f"the {topic} message after record {rec.seq} could not be built ({what}); "
            "the input stands",
            kind="engine-error",
            rule="R40",
            source=rec.source,
        )


def _ends_a_round(outputs: list[Message]) -> bool:
    """Whether a round's result is among `outputs` (asked of every witnessed record: a loop, not
    `any` over a generator, which costs more than the loop's work)."""
    for o in outputs:  # noqa: SIM110
        if isinstance(o, RoundResult):
            return True
    return False


_encode_payload = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, check_circular=False
).encode
"""A message payload as JSON text: json.dumps(payload, separators=(",", ":"),
ensure_ascii=False), the same text, with one encoder for every message rather than one per call
and no search for reference cycles (a payload is a fresh tree of JSON values, never a cycle)."""

_PYDANTIC_FLOAT_FORMS = (b"e-", b"0.0000")
"""What pydantic_core's encoder may write for a float below 1e-4 in magnitude ("1e-5",
"0.00001") where json writes "1e-05": text holding either goes the json way."""


def encode_payload(payload: dict[str, Any]) -> bytes:
    """A message payload as UTF-8 JSON: the bytes `_encode_payload(payload).encode("utf-8")`
    gives, made by pydantic_core's encoder at a third of the cost (every message of a replay is
    encoded). For the JSON values a payload holds (text, whole numbers, booleans, null, lists and
    objects with text keys) both write the same text: no spaces, non-ASCII as itself, the same
    escapes, floats as Python's repr, except a small float's exponent (`_PYDANTIC_FLOAT_FORMS`);
    any doubt, or anything pydantic_core refuses, takes json's way (which raises as it did)."""
    try:
        data = to_json(payload)
    except PydanticSerializationError:
        return _encode_payload(payload).encode("utf-8")
    if _PYDANTIC_FLOAT_FORMS[0] in data or _PYDANTIC_FLOAT_FORMS[1] in data:
        return _encode_payload(payload).encode("utf-8")
    return data
