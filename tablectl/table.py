"""The deterministic core: journal records in, numbered outbox messages out.

The daemon, `replay` and `recall` all run records through this one class, so what was published
live, what a replay prints and what a restart rebuilds are the same bytes.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import json
import re
import typing
from collections import deque
from collections.abc import Iterable, Iterator
from datetime import timedelta
from enum import Enum
from typing import Any, cast

from pydantic import ValidationError

from tablectl.alerts import NEEDS_A_PERSON, OPENED_ONCE, OpenAlert, OpenAlerts, Pace
from tablectl.commands import CARD_COMMANDS
from tablectl.config import LoadedConfig
from tablectl.game_records import (
    DeviceUsed,
    DisplayChanged,
    GameRecord,
    InputAccepted,
    RoundResult,
    StateChanged,
    TableNotes,
)
from tablectl.games.base import Rejected
from tablectl.games.common import replace
from tablectl.games.registry import make_engine, spec_of
from tablectl.games.table_rules import Rules
from tablectl.outputs import PAYLOAD_VERSION, OutboxRow, Output, alert
from tablectl.records import REPLAY_EPOCH, Record, format_ts, parse_ts
from tablectl.render import render
from tablectl_base.events import (
    AlertAck,
    DeviceGap,
    DeviceStatus,
    DiceRoll,
    EventError,
    InputEvent,
    InputInvalid,
    JournalTrouble,
    PositionedEvent,
    RoundResume,
    RoundVoid,
    RulesLoaded,
    ShoeBurn,
    ShoeCard,
    ShoeNew,
    ShufflerStack,
    TableCard,
    event_dict,
    parse_event,
)
from tablectl_base.positions import Gap, Ledger, Verdict, spans

COMMAND_ID_WINDOW = timedelta(hours=24)
"""How long a command's (verb, id) is remembered, in the journal's record times: a command
again with the same (verb, id) within it is refused as a duplicate (R54). It outlasts every way
a command can reach the table twice: a sender's retry with the same id, a QoS 1 resend after a
reconnect, a broker or bridge queue kept across a restart (docs/mqtt.md "Duplicate ids")."""
PARSED_KEPT = 1024  # journaled bodies remembered with their parsed event (`_parse`)
MICROSECOND = timedelta(microseconds=1)
WINDOW_MICROS = COMMAND_ID_WINDOW // MICROSECOND


CARD_FIELDS = ("card", "cards", "low", "discard", "front", "middle", "back")
"""The input fields that hold cards (a draw's discards, a Chinese Poker setting too): withheld."""
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


class CommandIds:
    """The (verb/id) of every command the table has handled, each with its record's time, in
    journal order: a command whose (verb, id) is here is refused as a duplicate (R54).

    An id is forgotten once a command record at least COMMAND_ID_WINDOW later (by the records'
    own times) is checked against it, never earlier: only records move this clock, so an idle
    table forgets nothing, a replay forgets exactly what the live table forgot, and the memory
    is a function of the journal alone. Ids are forgotten oldest first in journal order, so
    after the clock stepped back an older id waits behind a newer one with a later time: a
    step back only makes ids remembered longer. An id whose record's time cannot be read (a
    replayed line's own text) takes the time of the id before it (1970 when there is none).

    Times are whole microseconds since 1970 (UTC), exact at the window's edge. A dict by id
    beside the order, so a lookup does not scan a day of ids per command."""

    def __init__(self, items: Iterable[tuple[str, int]] = ()) -> None:
        self._times: dict[str, int] = {}
        self._order: deque[str] = deque()
        self._read: tuple[str, int | None] = ("", None)  # the last record time read, as read
        for key, when in items:
            self._times[key] = when
            self._order.append(key)

    def __contains__(self, key: object) -> bool:
        return key in self._times

    def __iter__(self) -> Iterator[tuple[str, int]]:
        """(id, time) oldest first: what a snapshot keeps."""
        times = self._times
        return ((key, times[key]) for key in self._order)

    def __len__(self) -> int:
        return len(self._order)

    def known(self, key: str, ts: str) -> bool:
        """Whether `key` is remembered at a command record of time `ts`, after forgetting what
        that record's time puts outside the window."""
        now = self._micros(ts)
        if now is not None:
            cutoff = now - WINDOW_MICROS
            order, times = self._order, self._times
            while order and times[order[0]] <= cutoff:
                del times[order.popleft()]
        return key in self._times

    def add(self, key: str, ts: str) -> None:
        """Remember `key` (not already known, `known` asked just before) from a record of time
        `ts`."""
        when = self._micros(ts)
        if when is None:
            when = self._times[self._order[-1]] if self._order else 0
        self._times[key] = when
        self._order.append(key)

    def _micros(self, ts: str) -> int | None:
        """A record time in microseconds since 1970, None if it is not a time; the last one read
        is kept (`known` and `add` read the same record's time in turn)."""
        text, micros = self._read
        if ts is text:
            return micros
        try:
            micros = (parse_ts(ts) - REPLAY_EPOCH) // MICROSECOND
        except ValueError:
            micros = None
        self._read = (ts, micros)
        return micros


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
        self._refs = CommandIds()
        # The sets, lists and dicts below are replaced, never changed in place: `_save` keeps
        # them by reference (no copies on every record) for R40 to put back.
        # Devices: what each reports now, and which ones fed the round in progress.
        self.faults: dict[str, str] = {}
        self.unavailable: set[str] = set()
        self.serials: dict[str, str | None] = {}
        self.round_devices: set[str] = set()
        self.held: str | None = None  # why the round in progress is held, until resolved
        # What came in while the round was held (devices and console): played at round.resume,
        # in arrival order, so a card read after the fault is neither lost nor dealt out of turn.
        # Each is ranked by when it happened (its record's seq; a card that fills a gap ranks
        # just before what waited behind the gap), so a late fill is still played in its place.
        self.held_inputs: list[tuple[float, InputEvent, Record]] = []
        # Each device's place in its own count (issue 9): rebuilt from the journal, so a driver
        # resumes from the journal's cursor after a restart. And where this round's inputs sat.
        self.ledgers: dict[str, Ledger] = {}
        self.round_positions: list[dict[str, Any]] = []
        # Alerts waiting for a person, and the pace against the rules' band (issue 14 item 2).
        self.open_alerts = OpenAlerts()
        self.pace = Pace()
        # R28: with a bet timer, (round, when betting closes): the round's first wager's record
        # time plus the timer, so a restart and every screen count down to the same moment.
        self.bet_clock: tuple[int, str] | None = None
        # Display views published by the records applied since `take_displayed` last ran.
        self.displayed: dict[str, dict[str, Any]] = {}
        # With the delayed broadcast feed on (the daemon sets a list): every accepted input's
        # echo as published but with nothing hidden, since `take_unhidden` last ran.
        self.unhidden: list[dict[str, Any]] | None = None
        # For recall (a list when it asks): each input the engine accepted, in the order
        # played, as (its record's seq, its echo), since `take_played` last ran.
        self.played: list[tuple[int, dict[str, Any] | None]] | None = None
        self._rendering = True  # whether the record being applied will be published (`apply`)
        self._parsed: dict[str, InputEvent] = {}  # journaled JSON text -> its event (`_parse`)

    def apply(self, rec: Record) -> list[OutboxRow]:
        """Apply one journal record; return its messages, numbered."""
        if rec.seq != self.position + 1:
            raise ValueError(f"record {rec.seq} applied after record {self.position}")
        self.position = rec.seq
        self._rendering = True
        return [self._number(o, rec) for o in self._witnessed(rec, self._outputs(rec))]

    def advance(self, rec: Record) -> None:
        """Apply one journal record whose messages are not wanted (they are in the outbox
        already, or were published by the table an import came from): the state and the
        message count move on exactly as `apply` moves them, without rendering a message."""
        if rec.seq != self.position + 1:
            raise ValueError(f"record {rec.seq} applied after record {self.position}")
        self.position = rec.seq
        self._rendering = False
        counted = self._counted_input(rec)
        if counted is not None:
            self.seq += counted
            return
        outputs = self._outputs(rec)
        # Only counted: a witness (`_witnessed`) adds its journal/head to a round's result.
        self.seq += len(outputs)
        if rec.witness and any(isinstance(o, RoundResult) for o in outputs):
            self.seq += 1

    def _counted_input(self, rec: Record) -> int | None:
        """`advance`'s short way through the usual record of a replay (issue 10): a game input
        the engine accepts (a bank, a wager, bets.close, a decision) from anywhere but a
        device, or a device's input that is the next in its count with nothing waiting (a
        card from the shoe), while no round is held and nothing is paced, played for recall or
        witnessed. It moves the state, the request ids, the device's count and what the round
        notes as `_outputs` does and returns how many messages that way makes; None sends the
        record the full way, which judges (and refuses) it as ever. tests/test_snapshot.py
        holds the two ways equal record by record for every game."""
        if (
            self.held is not None
            or self.played is not None
            or rec.witness
            or self.rules.pace is not None
        ):
            return None
        try:
            event = self._parse(rec)
        except EventError:
            return None
        route = _route(type(event))
        source = rec.source
        key: str | None = None  # a command's request id as the table remembers it
        placed: Ledger | None = None  # a device's count after its input
        if route is _Route.GAME and not source.startswith("device/"):
            if source.startswith("cmd/"):
                key = f"{source[4:]}/{rec.ref}" if rec.ref is not None else ""
                if key and self._refs.known(key, rec.ts):
                    return None
        elif route is _Route.POSITIONED and source.startswith("device/"):
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
            counted = len(self._noted(event, rec, outputs))
        except Exception:  # a refusal, or anything R40 answers: the full way's to judge and say
            self._restore(saved)
            return None
        if key:
            self._refs.add(key, rec.ts)
        return counted + (key is not None)

    def _next_in_count(self, event: PositionedEvent, device: str, rec: Record) -> Ledger | None:
        """`device`'s count after `event` when it is simply the next position of the run in
        progress, with nothing waiting and no gap (what `_positioned` deals at once); else None."""
        at = event.at
        ledger = self.ledgers.get(device)
        if at is None or ledger is None or ledger.pending or ledger.gap is not None:
            return None
        if type(event) is ShoeNew:
            return None
        verdict, placed = ledger.place(at, _input_key(rec.body), starts_run=False)
        return placed if verdict is Verdict.DEAL and placed.run == ledger.run else None

    def _witnessed(self, rec: Record, outputs: list[Message]) -> list[Message]:
        """A record that finishes a round publishes the journal's chain head with it: in each
        `round/result` (`chain`) and on the retained `journal/head`, so the floor keeps a witness
        of the journal that no later edit of the file can change (docs/mqtt.md). A record that
        carries no head (a replayed line without one) publishes none."""
        if not rec.witness or not any(isinstance(o, RoundResult) for o in outputs):
            return outputs
        out: list[Message] = [
            replace(o, table=replace(o.table, chain=rec.chain)) if isinstance(o, RoundResult) else o
            for o in outputs
        ]
        return [*out, Output("journal/head", {"chain": rec.chain}, retain=True)]

    def _outputs(self, rec: Record) -> list[Message]:
        verb = rec.source.removeprefix("cmd/") if rec.source.startswith("cmd/") else None
        if verb is not None and rec.ref is not None and not _retained(rec):
            key = f"{verb}/{rec.ref}"
            if self._refs.known(key, rec.ts):
                return [_reply(verb, rec.ref, False, "duplicate request id: already handled")]
            self._refs.add(key, rec.ts)
        saved = self._save()
        try:
            outputs = self._judge(rec, verb)
        except Exception as exc:  # R40: never a crash, never a restart loop, never half a state
            self._restore(saved)
            outputs = self._engine_error(exc, rec, verb)
        return self._watched(outputs, rec)

    def _watched(self, outputs: list[Message], rec: Record) -> list[Message]:
        """Issue 14 item 2: a round finished outside the rules' pace band raises a `pace` alert;
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
                        outputs = [*outputs, alert(str(raised.pop("reason")), **raised)]
        opened = self.open_alerts
        for i, o in enumerate(outputs):
            if type(o) is Output and o.topic == "alert":
                kind = o.payload.get("kind")
                if kind in NEEDS_A_PERSON:
                    reason = str(o.payload.get("reason"))
                    if kind in OPENED_ONCE and opened.holds(str(kind), reason):
                        continue  # told again (the alert is published), open once
                    opened = opened.opened(OpenAlert(self.seq + 1 + i, str(kind), reason, rec.ts))
        if opened is self.open_alerts:
            return outputs
        self.open_alerts = opened
        return [*outputs, Output("alerts/open", opened.payload(), retain=True)]

    def _ack(self, event: AlertAck, rec: Record) -> list[Message]:
        """`alert.ack`: a person closes an open alert, saying who and why (journaled)."""
        found = self.open_alerts.find(event.alert)
        if found is None:
            listed = ", ".join(str(a.id) for a in self.open_alerts.items) or "none"
            raise Rejected(f"no open alert {event.alert} (open: {listed})", rule="alert.ack")
        self.open_alerts = self.open_alerts.acknowledged(event.alert)
        echo = {
            "type": "alert.ack",
            "alert": found.id,
            "kind": found.kind,
            "by": event.by,
            "why": event.why,
            "ts": rec.ts,
        }
        return [
            Output("event", echo),
            Output("alerts/open", self.open_alerts.payload(), retain=True),
        ]

    def _save(self) -> tuple[Any, ...]:
        """What applying one record may change, cheaply: engine states and ledgers are
        immutable, and the containers are replaced rather than changed, so references are
        enough."""
        return (
            self.state,
            self.held,
            self.held_inputs,
            self.ledgers,
            self.round_devices,
            self.round_positions,
            self.faults,
            self.unavailable,
            self.serials,
            self.open_alerts,
            self.pace,
            self.bet_clock,
        )

    def _restore(self, saved: tuple[Any, ...]) -> None:
        (
            self.state,
            self.held,
            self.held_inputs,
            self.ledgers,
            self.round_devices,
            self.round_positions,
            self.faults,
            self.unavailable,
            self.serials,
            self.open_alerts,
            self.pace,
            self.bet_clock,
        ) = saved

    def _engine_error(self, exc: Exception, rec: Record, verb: str | None) -> list[Message]:
        """R40: an input that makes the code fail (not a refusal) leaves the state as it was and
        holds the round; the journal keeps the input, and a replay fails the same way."""
        what = self._public_text(f"{type(exc).__name__}: {exc}", rec.source)[:300]
        reason = f"record {rec.seq} could not be applied ({what}); the state is unchanged"
        out: list[Message] = [
            alert(
                reason,
                kind="engine-error",
                rule="R40",
                source=rec.source,
                input=public_input(rec.body),
            )
        ]
        if self.held is None:
            self.held = f"engine error on record {rec.seq}"
            out.append(alert(f"round held: {self.held}", kind="round-held", rule="R40"))
        out.append(self.state_view())
        return out + _maybe_reply(verb, rec.ref, False, reason, rule="R40")

    def _judge(self, rec: Record, verb: str | None) -> list[Message]:
        """One record's messages: an alert for anything refused, a reply to every command."""
        try:
            event = self._parse(rec)
        except EventError as exc:  # a journal written by an older version, or edited
            out = [alert(f"journal record {rec.seq} is not a valid event: {exc}", kind="invalid")]
            return out + _maybe_reply(verb, rec.ref, False, str(exc))
        route = _route(type(event))
        if route is _Route.TABLE:
            return self._table_input(event, rec, verb)
        try:
            outputs = self._deal(event, rec) if route is _Route.GAME else self._game(event, rec)
        except Rejected as rej:
            out = [
                alert(
                    self._public_text(rej.reason, rec.source),
                    rule=rej.rule,
                    kind=rej.kind,  # "rejected", or "dealer-error" (R15)
                    source=rec.source,
                    input=public_input(rec.body),
                )
            ]
            reason = self._public_text(rej.reason, rec.source)
            return out + _maybe_reply(verb, rec.ref, False, reason, rule=rej.rule)
        if verb is None:
            return outputs
        # `advance` only counts the messages: the reply it never sends is not built either.
        reply = _reply(verb, rec.ref, True, None) if self._rendering else COUNTED_REPLY
        return [*outputs, reply]

    def _table_input(self, event: InputEvent, rec: Record, verb: str | None) -> list[Message]:
        """An input for the table itself, not the game: a refused payload, a device's status or
        gap, the journal's trouble, new rules."""
        if isinstance(event, InputInvalid):
            # R54: a retained command waits at the broker for a person to clear it (an alert
            # that stays open); any other invalid input is only told.
            retained = event.retained is True
            rule = {"rule": "R54"} if retained else {}
            out = [
                alert(
                    self._public_text(event.reason, rec.source),
                    kind="retained-command" if retained else "invalid-input",
                    **rule,
                    source=rec.source,
                    raw=self._public_text(event.raw[:512], rec.source),
                )
            ]
            reason = self._public_text(event.reason, rec.source)
            return out + _maybe_reply(verb, rec.ref, False, reason, **rule)
        if isinstance(event, DeviceStatus):
            return self._device(event, rec)
        if isinstance(event, DeviceGap):
            return self._gap(event, rec)
        if isinstance(event, JournalTrouble):
            # Issue 14: the journal's trouble, journaled once it could be, waits for a person.
            reason = (
                f"the journal could not be written from {event.since} to {event.until} "
                f"({event.reason}): inputs waited, commands were refused"
            )
            return [alert(reason, kind="journal-trouble", since=event.since, until=event.until)]
        if isinstance(event, RulesLoaded):
            return self._rules(event, rec)
        raise AssertionError(f"{type(event).__name__} is routed to the table but not handled")

    def _parse(self, rec: Record) -> InputEvent:
        """`parse_event(rec.body)`, parsed once for every record with the same JSON text: a
        replay meets the same wager or bank again and again, and events are immutable. An input
        with a position (`at`) is never the same twice, so it is not remembered."""
        text = rec.text
        if text is None or not isinstance(rec.body, dict) or "at" in rec.body:
            return parse_event(rec.body)
        event = self._parsed.get(text)
        if event is None:
            event = parse_event(rec.body)
            if len(self._parsed) >= PARSED_KEPT:
                self._parsed.clear()
            self._parsed[text] = event
        return event

    def _public_text(self, text: str, source: str | None = None) -> str:
        """An alert's text as it may be published: card names masked, since a refused card may
        be a hole card nobody has seen; not at a game that shows every card face up (baccarat),
        unless the input came from a command that can carry a card the table does not show (a
        burn: `commands.CARD_COMMANDS`, which only the table may read)."""
        verb = source.removeprefix("cmd/") if source and source.startswith("cmd/") else None
        if spec_of(self.rules.game.id).shows_every_card and verb not in CARD_COMMANDS:
            return text
        return mask_cards(text)

    def _game(self, event: InputEvent, rec: Record) -> list[Message]:
        """A game input: placed in its device's count, kept while the round is held, otherwise
        the engine's to judge."""
        route = _route(type(event))
        if route is _Route.FLOOR and isinstance(event, RoundResume):
            return self._resume(rec)
        if route is _Route.FLOOR and isinstance(event, RoundVoid):
            return self._void(event, rec)
        if route is _Route.FLOOR and isinstance(event, AlertAck):
            return self._ack(event, rec)
        if route is _Route.POSITIONED and cast(PositionedEvent, event).at is not None:
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
        return self._deal(event, rec)

    def _deal(self, event: InputEvent, rec: Record, rank: float | None = None) -> list[Message]:
        """Kept while the round is held (devices and console alike, in the order they happened,
        so a stand typed during the hold still comes before the card the shoe reads after it),
        else played."""
        if self.held is not None:
            return self._keep(event, rec, rank)
        return self._play(event, rec)

    def _play(self, event: InputEvent, rec: Record) -> list[Message]:
        """The engine's judgement of one game input; the device (and position) that fed it is
        noted for the round's result."""
        self.state, outputs = self.engine.apply(self.state, event, rec.ts)
        return self._noted(event, rec, outputs)

    def _noted(self, event: InputEvent, rec: Record, outputs: list[GameRecord]) -> list[Message]:
        """What the table notes of an input the engine accepted: the echo for recall, the
        device (and position) that fed the round, holds and the bet clock in `state`."""
        if self.played is not None:
            echo = next((o for o in outputs if isinstance(o, InputAccepted)), None)
            self.played.append((rec.seq, None if echo is None else render(echo).payload))
        if rec.source.startswith("device/"):
            device = rec.source.removeprefix("device/")
            if device not in self.round_devices:
                self.round_devices = {*self.round_devices, device}
        positioned = _route(type(event)) is _Route.POSITIONED
        at = cast(PositionedEvent, event).at if positioned else None
        if at is not None and at.pos > 0:  # a run's own start (a shoe's NEW) holds no card
            used: dict[str, Any] = {
                "device": at.device or rec.source.removeprefix("device/"),
                "run": at.run,
                "pos": at.pos,
            }
            if rec.source.startswith("cmd/"):
                used["by_hand"] = True
            self.round_positions = [*self.round_positions, used]
        return self._annotate(outputs, rec.ts)

    # -- positions (issue 9) -------------------------------------------------------------------

    def _positioned(self, event: PositionedEvent, rec: Record) -> list[Message]:
        """An input with its place in the device's count: dealt only when it is the next one;
        read twice, it is refused; past a gap, it waits for the positions before it."""
        device, event = self._source_device(event, rec)
        at = event.at
        assert at is not None
        ledger = self.ledgers.get(device) or Ledger()  # a new Ledger only for a new device
        key = _input_key(rec.body)
        verdict, placed = ledger.place(at, key, starts_run=type(event) is ShoeNew)
        if verdict is Verdict.DEAL:
            self._set_ledger(device, placed)
            # Each step below is skipped where it would do nothing: the usual card, with nothing
            # pending and no gap, is only dealt.
            blocked = bool(ledger.pending) or ledger.gap is not None
            out = self._new_run(device, ledger, placed) if ledger.pending else []
            same_run = placed.run == ledger.run
            rank = _fill_rank(ledger, rec) if same_run and blocked else float(rec.seq)
            out += self._deal(event, rec, rank)
            now = self.ledgers[device]
            return out + self._drain(device, rank) if now.pending or now.gap is not None else out
        if verdict is Verdict.WAITING:
            return []  # a resend of what already waits past the gap
        where = f" of {at.run}" if at.run is not None else ""
        if verdict in (Verdict.REPEAT, Verdict.CONFLICT):
            if rec.source.startswith("cmd/"):
                raise Rejected(f"position {at.pos}{where} of {device} is already in", rule="R39")
            return self._repeated(device, at.pos, where, verdict, rec)
        assert verdict is Verdict.AHEAD
        return self._wait_for_gap(device, placed.hold(at, key, (event, rec)), at.pos, where)

    def _set_ledger(self, device: str, ledger: Ledger) -> None:
        """`device`'s ledger is now `ledger` (in a new dict: see `_save`)."""
        self.ledgers = {**self.ledgers, device: ledger}

    def _wait_for_gap(self, device: str, ledger: Ledger, pos: int, where: str) -> list[Message]:
        """An input past a gap is kept in `ledger` (not dealt); the first one to wait says which
        positions it waits for."""
        first = len(ledger.pending) == 1
        self._set_ledger(device, ledger)
        out: list[Message] = []
        if first:
            why = "the device cannot resend them" if ledger.gap else "asking the device to resend"
            out.append(
                alert(
                    f"device {device}: position(s) {spans(ledger.missing())}{where} not yet "
                    f"reported; position {pos} waits for them ({why})",
                    kind="gap",
                    device=device,
                )
            )
        return [*out, self.state_view()]

    def _source_device(self, event: PositionedEvent, rec: Record) -> tuple[str, PositionedEvent]:
        """Which device's count `event` belongs to: its source, or for a card entered at the
        console (R39) the device whose unfillable gap it fills (the event then names it)."""
        if not rec.source.startswith("cmd/"):
            return rec.source.removeprefix("device/"), event
        at = event.at
        assert at is not None
        gaps = {n: led.gap for n, led in self.ledgers.items() if led.gap is not None}
        device = at.device
        if device is None and len(gaps) == 1:
            device = next(iter(gaps))
        gap = gaps.get(device) if device is not None else None
        if device is None or gap is None or gap.missing is None or at.pos not in gap.missing:
            raise Rejected(
                "the console may enter a card only into a gap its device could not fill "
                f"(position {at.pos} is not missing from any device)",
                rule="R39",
            )
        if at.run is not None and at.run != gap.run:
            raise Rejected(f"the gap of {device} is in {gap.run}, not {at.run}", rule="R39")
        full = at.model_copy(update={"device": device, "run": gap.run, "seq": None})
        return device, event.model_copy(update={"at": full})

    def _repeated(
        self, device: str, pos: int, where: str, verdict: Verdict, rec: Record
    ) -> list[Message]:
        """A position read again: never dealt twice. The same card read twice is only told;
        a different card at a dealt position means one read was wrong, so the round is held."""
        if verdict is Verdict.REPEAT:
            return [
                alert(
                    f"device {device}: position {pos}{where} read again; not dealt twice",
                    kind="position-repeated",
                    device=device,
                    source=rec.source,
                )
            ]
        reason = (
            f"device {device}: position {pos}{where} read again as a different input; one of "
            "the two reads is wrong"
        )
        out: list[Message] = [
            alert(reason, kind="position-conflict", device=device, source=rec.source)
        ]
        if self.held is None and not self.engine.between_rounds(self.state):
            self.held = reason
            out.append(alert(f"round held: {reason}", kind="round-held", device=device))
            out.append(self.state_view())
        return out

    def _new_run(self, device: str, old: Ledger, new: Ledger) -> list[Message]:
        """A new shoe or shuffle while positions of the old one were still pending: those can
        never be dealt in order now; they stay in the journal, a gap stands until a void."""
        if not old.pending or new.run == old.run:
            return []
        gap = old.gap or Gap(old.run, old.pos or 0, old.missing(), "a new run began first")
        self._set_ledger(device, new.with_gap(gap))
        return [
            alert(
                f"{gap.describe(device)} when {new.run} began: {len(old.pending)} input(s) "
                "after it cannot be dealt; void the round",
                kind="gap",
                device=device,
            )
        ]

    def _drain(self, device: str, rank: float) -> list[Message]:
        """Deal what was waiting behind a gap that is now filled, in position order (ranked
        after the input that filled it, whatever order they came in)."""
        out: list[Message] = []
        ledger = self.ledgers[device]
        while (nxt := ledger.next_pending()) is not None:
            (event, rec), ledger = nxt
            self._set_ledger(device, ledger)
            rank = max(float(rec.seq), rank + 0.001)
            out += self._deal_or_refuse(event, rec, rank)
        gap = ledger.gap
        if gap is not None and gap.missing is not None and _filled(gap, ledger):
            self._set_ledger(device, ledger.with_gap(None))
            out.append(
                alert(
                    f"device {device}: position(s) {spans(gap.missing)} entered; "
                    "round.resume plays on",
                    kind="gap-filled",
                    device=device,
                )
            )
        return out

    def _deal_or_refuse(self, event: InputEvent, rec: Record, rank: float) -> list[Message]:
        """`_deal`, with a refusal turned into its alert (for inputs dealt late, in order)."""
        try:
            return self._deal(event, rec, rank)
        except Rejected as rej:
            return [self._refusal(rej, rec)]

    def _refusal(self, rej: Rejected, rec: Record) -> Output:
        return alert(
            self._public_text(rej.reason, rec.source),
            rule=rej.rule,
            kind=rej.kind,
            source=rec.source,
            input=public_input(rec.body),
        )

    def _gap(self, ev: DeviceGap, rec: Record) -> list[Message]:
        """The device cannot fill a gap (R39): the round is held until the dealer enters the
        missing cards at the console with their positions, or voids it."""
        device = (
            rec.source.removeprefix("device/") if rec.source.startswith("device/") else ev.device
        )
        ledger = self.ledgers.get(device, Ledger())
        missing: tuple[int, ...] | None = None
        if ev.missing is not None:
            dealt = ledger.pos if ledger.run == ev.run and ledger.pos is not None else 0
            missing = tuple(sorted({p for p in ev.missing if p > dealt} - set(ledger.pending)))
            if not missing:
                return []  # everything it names is in after all
        gap = Gap(ev.run, ev.after, missing, ev.reason, record=rec.seq)
        if ledger.gap is not None and (ledger.gap.run, ledger.gap.missing) == (gap.run, missing):
            return []  # told again after a reconnect: the gap already stands
        told = f"{gap.describe(device)}: {ev.reason}"
        if missing is None and self.engine.between_rounds(self.state) and not ledger.pending:
            # Between rounds nothing of a round can be missing: say so and play on.
            return [alert(f"{told}; no round was in progress", kind="gap", device=device)]
        self._set_ledger(device, ledger.with_gap(gap))
        remedy = (
            "void the round"
            if missing is None
            else "enter the missing cards at the console with their positions, or void the round"
        )
        out: list[Message] = [alert(f"{told}; {remedy}", kind="gap", rule="R39", device=device)]
        if self.held is None:
            self.held = gap.describe(device)
            out.append(alert(f"round held: {self.held}", kind="round-held", device=device))
        return [*out, self.state_view()]

    def _void(self, event: RoundVoid, rec: Record) -> list[Message]:
        """A misdeal: the engine voids the round; gaps are given up (their pending inputs are
        never dealt and stay in the journal). With no round in progress, a void only clears
        what held the table."""
        blocked = any(led.blocked() for led in self.ledgers.values())
        outputs: list[Message] = []
        if not (self.engine.between_rounds(self.state) and (blocked or self.held is not None)):
            self.state, engine_out = self.engine.void(self.state, event.reason, rec.ts)
            outputs = self._annotate(engine_out, rec.ts)
        self.held = None
        dropped = [(event, kept) for _, event, kept in self.held_inputs]
        self.held_inputs = []
        for name in sorted(self.ledgers):
            skipped, skipped_to = self.ledgers[name].skip()
            self._set_ledger(name, skipped_to)
            dropped += skipped
        return [
            *outputs,
            *self._discarded(dropped),
            self.state_view(),
        ]

    def _keep(self, event: InputEvent, rec: Record, rank: float | None = None) -> list[Message]:
        """An input while the round is held: kept, unplayed, until the operator resolves the
        hold (it is in the journal already; the alert shows no card). `rank` places it among
        what is kept (its record's seq unless it fills a gap)."""
        item = (float(rec.seq) if rank is None else rank, event, rec)
        held = list(self.held_inputs)
        bisect.insort(held, item, key=lambda kept: kept[0])
        self.held_inputs = held
        return [
            alert(
                f"kept until round.resume or round.void: the round is held ({self.held})",
                kind="input-held",
                source=rec.source,
                input=public_input(rec.body),
            ),
            self.state_view(),
        ]

    def _discarded(self, dropped: list[tuple[InputEvent, Record]]) -> list[Message]:
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

    def _resume(self, rec: Record) -> list[Message]:
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
            _blocked_reason(name, ledger)
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
        out: list[Message] = [Output("event", {"type": "round.resume", "ts": rec.ts})]
        kept, self.held_inputs = self.held_inputs, []
        for _, event, original in kept:
            try:
                out += self._play(event, original)
            except Rejected as rej:
                out.append(self._refusal(rej, original))
        return [*out, self.state_view()]

    def _annotate(self, outputs: Iterable[Message], ts: str) -> list[Message]:
        """Say in every result which devices (and serials) fed the round; show holds and the
        bet timer in state."""
        if not self._rendering:  # `advance` only counts them: what it must do is start afresh
            out = list(outputs)
            for o in out:
                if isinstance(o, RoundResult):
                    self.round_devices = set()
                    self.round_positions = []
                elif isinstance(o, StateChanged):
                    self._clock_bets(o, ts)
            return out
        out = []
        for o in outputs:
            if isinstance(o, RoundResult):
                devices = tuple(
                    DeviceUsed(n, self.serials.get(n)) for n in sorted(self.round_devices)
                )
                o = replace(o, table=TableNotes(devices, self._positions()))
                self.round_devices = set()
                self.round_positions = []
            elif isinstance(o, StateChanged):
                self._clock_bets(o, ts)
                o = o.with_fields(self._table_view())
            out.append(o)
        return out

    def _clock_bets(self, state: StateChanged, ts: str) -> None:
        """R28: the bet timer starts at the round's first wager (the record time of the input
        that placed it) and stops when betting closes."""
        if state.phase != "betting" or not state.wagers:
            self.bet_clock = None
        elif self.bet_clock is None or self.bet_clock[0] != state.round:
            seconds = self.rules.game.bet_timer()
            if seconds:
                closes = format_ts(parse_ts(ts) + timedelta(seconds=seconds))
                self.bet_clock = (state.round, closes)

    def _table_view(self) -> dict[str, Any]:
        """What the table adds to the game's `state`: any hold, and when a running bet timer
        closes betting (`bets_close_at`, R28)."""
        view = self._hold_view()
        if self.bet_clock is not None:
            view["bets_close_at"] = self.bet_clock[1]
        return view

    def _positions(self) -> dict[str, Any]:
        """Issue 9 item 4: where in each device's own count the round's inputs sat, so anyone can
        check the deal against the device's log; cards entered by hand are flagged (R39)."""
        groups: list[dict[str, Any]] = []
        for used in self.round_positions:
            last = groups[-1] if groups else None
            if last is not None and (last["device"], last["run"]) == (used["device"], used["run"]):
                last["pos"].append(used["pos"])
            else:
                groups.append({"device": used["device"], "run": used["run"], "pos": [used["pos"]]})
        if not groups:
            return {}
        by_hand = [
            {k: u[k] for k in ("device", "run", "pos")}
            for u in self.round_positions
            if u.get("by_hand")
        ]
        return {"positions": groups, **({"entered_by_hand": by_hand} if by_hand else {})}

    def _hold_view(self) -> dict[str, Any]:
        """What `state` shows of a hold: why, how many inputs wait, and any gap in a device's
        count (only while there is one)."""
        view: dict[str, Any] = {"held": self.held, "held_inputs": len(self.held_inputs)}
        if any(ledger.blocked() for ledger in self.ledgers.values()):
            view["gaps"] = {
                name: _blocked_reason(name, ledger)
                for name, ledger in sorted(self.ledgers.items())
                if ledger.blocked()
            }
        return view

    def _rules(self, ev: RulesLoaded, rec: Record) -> list[Message]:
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
        return [Output("event", payload), self.state_view()]

    def _device(self, ev: DeviceStatus, rec: Record) -> list[Message]:
        payload: dict[str, Any] = {
            "device": ev.device,
            "available": ev.available,
            "fault": ev.fault,
            "detail": ev.detail,
            "ts": rec.ts,
        }
        out: list[Message] = [Output(f"device/{ev.device}/status", payload, retain=True)]
        serial = ev.detail.get("serial")
        self.serials = {**self.serials, ev.device: serial if isinstance(serial, str) else None}
        fault = ev.fault or (None if ev.available else "UNAVAILABLE")
        if ev.available:
            self.unavailable = self.unavailable - {ev.device}
        else:
            self.unavailable = self.unavailable | {ev.device}
        if fault is None:
            self.faults = {name: f for name, f in self.faults.items() if name != ev.device}
            return out
        if self.faults.get(ev.device) != fault:  # a standing fault is alerted once, not per report
            out.append(alert(f"device {ev.device}: {fault}", kind="device-fault", device=ev.device))
        self.faults = {**self.faults, ev.device: fault}
        if self.held is None and self.engine.in_deal(self.state):
            # No result from a half-read hand: the round waits for the operator.
            self.held = f"device {ev.device}: {fault}"
            out.append(alert(f"round held: {self.held}", kind="round-held", device=ev.device))
            out.append(self.state_view())
        return out

    def _number(self, message: Message, rec: Record) -> OutboxRow:
        self.seq += 1
        try:
            out = render(message)
        except Exception as exc:  # R40: a view built only now (a start never builds it)
            out = render(self._unrendered(message, exc, rec))
            message = out
        # The envelope (docs/mqtt.md): `ts` is the record's journal time (an input's echo keeps
        # its own, which a held input's differs from), `v` the payload schemas' version.
        payload = {
            "table": self.table_id,
            "seq": self.seq,
            "ts": rec.ts,
            "v": PAYLOAD_VERSION,
            **out.payload,
        }
        if isinstance(message, DisplayChanged):
            self.displayed[message.name] = payload
        if self.unhidden is not None and isinstance(message, InputAccepted):
            whole = render(dataclasses.replace(message, hide=frozenset()))
            envelope = {"table": self.table_id, "seq": self.seq, "ts": rec.ts}
            self.unhidden.append({**envelope, "v": PAYLOAD_VERSION, **whole.payload})
        data = _encode_payload(payload).encode("utf-8")
        return OutboxRow(self.seq, f"{self.base}/{out.topic}", data, out.qos, out.retain)

    def _unrendered(self, message: Message, exc: Exception, rec: Record) -> Output:
        """R40: a message that cannot be rendered (a view is built only when it is published,
        never by a start or an import, which replay without publishing) is published as an
        engine-error alert in its place: one message for one, so the count, and every state the
        table keeps, are the same whether the record was published or only replayed."""
        what = self._public_text(f"{type(exc).__name__}: {exc}")[:300]
        topic = (
            message.topic
            if isinstance(message, Output)
            else "state"
            if isinstance(message, StateChanged)
            else f"display/{message.name}"
            if isinstance(message, DisplayChanged)
            else "event"
            if isinstance(message, InputAccepted)
            else "round/result"
        )
        return alert(
            f"the {topic} message after record {rec.seq} could not be built ({what}); "
            "the input stands",
            kind="engine-error",
            rule="R40",
            source=rec.source,
        )

    def take_played(self) -> list[tuple[int, dict[str, Any] | None]]:
        """The inputs played since the last call, in order: (record seq, echo payload)."""
        if self.played is None:
            return []
        taken, self.played = self.played, []
        return taken

    def take_unhidden(self) -> list[dict[str, Any]]:
        """The accepted inputs' echoes with every field (hole cards too) published since the
        last call, each with its live echo's `seq`: for the delayed broadcast feed only."""
        if self.unhidden is None:
            return []
        taken, self.unhidden = self.unhidden, []
        return taken

    def take_displayed(self) -> dict[str, dict[str, Any]]:
        """Each display's newest view (as published) since the last call, for the display
        devices (R28)."""
        taken, self.displayed = self.displayed, {}
        return taken

    def state_view(self) -> StateChanged:
        """The retained `state`: the game's view with any hold shown."""
        return self.engine.state_view(self.state).with_fields(self._table_view())

    def state_payload(self) -> dict[str, Any]:
        """The `state` payload as published (less `table` and `seq`)."""
        return dict(self.state_view().view)

    def cursor(self, device: str) -> dict[str, Any] | None:
        """Where `device`'s count stands in the journal (run, last position dealt in order,
        SEQ): what its driver asks the device to resend after, on every (re)connect."""
        ledger = self.ledgers.get(device)
        return None if ledger is None else ledger.cursor()


Message = GameRecord | Output
"""What the table numbers and publishes: a game's record, or a message of the table's own."""

POSITIONED: tuple[type[PositionedEvent], ...] = typing.get_args(PositionedEvent)
"""The inputs a device reports with a position, as a tuple (`isinstance` on a tuple is the fast
one: this is asked of every input)."""

HAND_ENTERED = (ShoeCard, ShoeBurn, ShufflerStack, DiceRoll, TableCard)
"""Inputs a device reports that the console may enter only into a gap, with a position (R39);
at a table without its reader (`manual_entry`, R55) the console deals them in order."""
HAND_ENTERED_TYPES = tuple(str(cls.model_fields["type"].default) for cls in HAND_ENTERED)
"""Their event types, as journaled."""


class _Route(Enum):
    """Where the table sends an input (`_judge`, `_game`, `_play`)."""

    TABLE = "table"  # its own: a device's status or gap, new rules, an invalid input
    FLOOR = "floor"  # the floor's: round.resume, round.void, alert.ack
    POSITIONED = "positioned"  # placed in its device's count first (when it has a position)
    GAME = "game"  # anything else: the engine's


@functools.cache
def _route(kind: type) -> _Route:
    """Where an input of class `kind` goes: asked of every input, answered once a class. (An
    `isinstance` that fails against an event class is a call of its metaclass's
    `__instancecheck__`: a handful of those an input were a tenth of a replay's time.)"""
    if issubclass(kind, (InputInvalid, DeviceStatus, DeviceGap, RulesLoaded, JournalTrouble)):
        return _Route.TABLE
    if issubclass(kind, (RoundResume, RoundVoid, AlertAck)):
        return _Route.FLOOR
    if issubclass(kind, POSITIONED):
        return _Route.POSITIONED
    return _Route.GAME


_encode_payload = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, check_circular=False
).encode
"""A message payload as JSON text: json.dumps(payload, separators=(",", ":"),
ensure_ascii=False), the same text, with one encoder for every message rather than one per call
and no search for reference cycles (a payload is a fresh tree of JSON values, never a cycle)."""

_encode_key = json.JSONEncoder(sort_keys=True).encode
"""json.dumps(x, sort_keys=True) with one encoder for every call."""


_KEYS_KEPT = 1024
_keys: dict[tuple[tuple[str, Any], ...], str] = {}
"""Input keys by the fields they were made of, when every value is text or a whole number
(a card's type and name, mostly): equal fields of those types are equal JSON."""


def _input_key(body: dict[str, Any]) -> str:
    """What tells two reads at one position apart: the input without its position."""
    rest = [(k, v) for k, v in body.items() if k != "at"]
    for _, v in rest:
        if type(v) is not str and type(v) is not int:  # (not a bool: True == 1)
            return _encode_key(dict(rest))
    # The JSON text of the same few cards again and again: made once each (the encoder is
    # most of a card's cost in `_positioned` otherwise).
    fields = tuple(rest)
    key = _keys.get(fields)
    if key is None:
        if len(_keys) >= _KEYS_KEPT:
            _keys.clear()
        key = _keys[fields] = _encode_key(dict(rest))
    return key


def _fill_rank(before: Ledger, rec: Record) -> float:
    """Where an input dealt in order ranks among kept inputs: its own record's, unless it fills
    a hole, then just before whatever waited behind the hole or told of it (it happened first)."""
    anchors = [item[1].seq for _, item, _ in before.pending.values()]
    if before.gap is not None and before.gap.record is not None:
        anchors.append(before.gap.record)
    return min([*anchors, rec.seq]) - 0.5 if anchors else float(rec.seq)


def _filled(gap: Gap, ledger: Ledger) -> bool:
    """Whether every position of `gap` has been dealt in order since."""
    return gap.run == ledger.run and all(p <= (ledger.pos or 0) for p in gap.missing or ())


def _blocked_reason(name: str, ledger: Ledger) -> str:
    if ledger.gap is not None:
        return ledger.gap.describe(name)
    where = f" of {ledger.run}" if ledger.run is not None else ""
    return f"device {name}: position(s) {spans(ledger.missing())}{where} not yet reported"


def _retained(rec: Record) -> bool:
    """Whether `rec` is a command refused because it came with the retain flag (R54): its id is
    neither checked nor remembered (it was not handled; what to do is clear it at the broker)."""
    body: Any = rec.body  # (an edited journal's body may be any JSON value)
    return (
        isinstance(body, dict)
        and body.get("retained") is True
        and body.get("type") == "input.invalid"
    )


COUNTED_REPLY = Output("cmd/reply")
"""The stand-in for a command's ok reply that `advance` counts and never sends."""


def _reply(verb: str, ref: str | None, ok: bool, reason: str | None, **extra: Any) -> Output:
    payload: dict[str, Any] = {"id": ref, "ok": ok}
    if reason is not None:
        payload["reason"] = reason
    if extra:
        payload.update({k: v for k, v in extra.items() if v is not None})
    return Output(f"cmd/{verb}/reply", payload)


def _maybe_reply(
    verb: str | None, ref: str | None, ok: bool, reason: str | None, **extra: Any
) -> list[Message]:
    return [] if verb is None else [_reply(verb, ref, ok, reason, **extra)]


def journal_body(data: Any, error: str | None = None, *, retained: bool = False) -> dict[str, Any]:
    """What gets journaled for an input: its canonical event, or `input.invalid` with the reason
    (marked `retained` for a command refused because it came with the retain flag, R54)."""
    if error is not None:
        return event_dict(InputInvalid(raw=_raw(data), reason=error, retained=retained or None))
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
