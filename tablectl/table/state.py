"""What the table holds between records, and the steps every way of applying a record shares."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from datetime import timedelta
from types import MappingProxyType
from typing import Any, cast

from tablectl.alerts import OpenAlerts, Pace
from tablectl.config import LoadedConfig
from tablectl.game_records import (
    DeviceUsed,
    GameRecord,
    InputAccepted,
    JsonObject,
    RoundResult,
    StateChanged,
    TableNotes,
)
from tablectl.games.common import replace
from tablectl.games.registry import make_engine, spec_of
from tablectl.records import Record, format_ts, parse_ts
from tablectl.render import render
from tablectl.table.inputs import Route, route_of
from tablectl.table.masking import public_text
from tablectl.table.replies import CommandIds
from tablectl.table_messages import Message
from tablectl_base.events import InputEvent, PositionedEvent, parse_event
from tablectl_base.positions import Ledger, spans

PARSED_KEPT = 1024  # journaled bodies remembered with their parsed event (`_parse`)


SAVED_ATTRIBUTES = (
    "state",
    "held",
    "held_inputs",
    "ledgers",
    "round_devices",
    "round_positions",
    "faults",
    "unavailable",
    "serials",
    "open_alerts",
    "pace",
    "bet_clock",
)
"""What a record may change in the table, saved before it is applied and put back if applying
it fails (one list for both, so neither can miss an attribute the other has)."""


class TableState:
    """One table's engine state, outgoing sequence number and what it keeps of devices, holds,
    alerts and commands; the steps every way of applying a record shares (playing an input
    the engine accepts, noting it, the views). `Table` adds the rest by job (see the package)."""

    _saved_attributes = staticmethod(operator.attrgetter(*SAVED_ATTRIBUTES))

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
        # Each device's place in its own count (R39): rebuilt from the journal, so a driver
        # resumes from the journal's cursor after a restart. And where this round's inputs sat.
        self.ledgers: dict[str, Ledger] = {}
        self.round_positions: list[dict[str, Any]] = []
        # Alerts waiting for a person, and the pace against the rules' band (docs/mqtt.md).
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
        self._blocked: tuple[dict[str, Ledger], bool] = ({}, False)  # `_any_blocked`, by ledgers

    def _save(self) -> tuple[Any, ...]:
        """What applying one record may change, cheaply: engine states and ledgers are
        immutable, and the containers are replaced rather than changed, so references are
        enough."""
        return self._saved_attributes(self)

    def _restore(self, saved: tuple[Any, ...]) -> None:
        for name, value in zip(SAVED_ATTRIBUTES, saved, strict=True):
            setattr(self, name, value)

    def _parse(self, rec: Record) -> InputEvent:
        """`parse_event(rec.body)`, parsed once for every record with the same JSON text: a
        replay meets the same wager or bank again and again, and events are immutable. An input
        with a position (`at`) is never the same twice, so it is not remembered. A record that
        comes with its event parsed (`Record.event`) is not parsed again."""
        parsed: InputEvent | None = rec.event  # (no `cast`: a call, on every record)
        if parsed is not None:
            return parsed
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
        """An alert's text as this table's game may publish it (`masking.public_text`)."""
        return public_text(text, spec_of(self.rules.game.id).shows_every_card, source)

    def _play(self, event: InputEvent, rec: Record) -> list[Message]:
        """The engine's judgement of one game input; the device (and position) that fed it is
        noted for the round's result."""
        self.state, outputs = self.engine.apply(self.state, event, rec.ts)
        return self._track_accepted_input(event, rec, outputs)

    def _track_accepted_input(
        self, event: InputEvent, rec: Record, outputs: list[GameRecord]
    ) -> list[Message]:
        """What the table notes of an input the engine accepted: the echo for recall, the
        device (and position) that fed the round, holds and the bet clock in `state`."""
        if self.played is not None:
            echo = next((o for o in outputs if isinstance(o, InputAccepted)), None)
            self.played.append((rec.seq, None if echo is None else render(echo).payload))
        if rec.source.startswith("device/"):
            device = rec.source.removeprefix("device/")
            if device not in self.round_devices:
                self.round_devices = {*self.round_devices, device}
        positioned = route_of(type(event)) is Route.POSITIONED
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
        return self._with_table_notes(outputs, rec.ts)

    def _set_ledger(self, device: str, ledger: Ledger) -> None:
        """`device`'s ledger is now `ledger` (in a new dict: see `_save`)."""
        self.ledgers = {**self.ledgers, device: ledger}

    def _with_table_notes(self, outputs: Iterable[Message], ts: str) -> list[Message]:
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
                o = replace(o, table=TableNotes(devices, self._positions_used()))
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

    def _table_view(self) -> JsonObject:
        """What the table adds to the game's `state`: any hold, and when a running bet timer
        closes betting (`bets_close_at`, R28). The usual one (nothing held, no gap, no timer
        running) is one read-only object, not a new dict a state."""
        if (
            self.held is None
            and not self.held_inputs
            and self.bet_clock is None
            and not self._any_blocked()
        ):
            return NOTHING_HELD
        view = self._hold_view()
        if self.bet_clock is not None:
            view["bets_close_at"] = self.bet_clock[1]
        return view

    def _positions_used(self) -> dict[str, Any]:
        """Where in each device's own count the round's inputs sat (`positions` of a round's
        result), so anyone can check the deal against the device's log; cards entered by hand
        are flagged (R39)."""
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

    def _any_blocked(self) -> bool:
        """Whether a device's count blocks the round, worked out again only when the ledgers
        change (they are replaced, never changed in place: see `_save`)."""
        ledgers = self.ledgers
        known = self._blocked
        if known[0] is not ledgers:
            known = self._blocked = (ledgers, any(led.blocked() for led in ledgers.values()))
        return known[1]

    def _hold_view(self) -> dict[str, Any]:
        """What `state` shows of a hold: why, how many inputs wait, and any gap in a device's
        count (only while there is one)."""
        view: dict[str, Any] = {"held": self.held, "held_inputs": len(self.held_inputs)}
        if self._any_blocked():
            view["gaps"] = {
                name: blocked_reason(name, ledger)
                for name, ledger in sorted(self.ledgers.items())
                if ledger.blocked()
            }
        return view

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


NOTHING_HELD: JsonObject = MappingProxyType({"held": None, "held_inputs": 0})
"""`_hold_view` of a table with nothing held and no gap."""


def blocked_reason(name: str, ledger: Ledger) -> str:
    """Why device `name` blocks the round: its gap, or the positions it has not reported."""
    if ledger.gap is not None:
        return ledger.gap.describe(name)
    where = f" of {ledger.run}" if ledger.run is not None else ""
    return f"device {name}: position(s) {spans(ledger.missing())}{where} not yet reported"
