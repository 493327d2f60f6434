"""The one place game records become contract-3 messages: topic, payload, retain (docs/mqtt.md).

Payloads keep the key order tablectl has always published, so a replay of any journal gives the
same bytes it gave before records were typed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tablectl.game_records import (
    DisplayChanged,
    Fee,
    GameRecord,
    InputAccepted,
    JsonValue,
    OwnRoundResult,
    PokerHandSettled,
    RoundSettled,
    Settlement,
    ShownHand,
    StateChanged,
    TableNotes,
)
from tablectl.outputs import Output
from tablectl.table_messages import (
    TABLE_MESSAGES,
    AlertAcknowledged,
    ChainHead,
    CommandReply,
    DeviceStatusChanged,
    OpenAlertsChanged,
    PaceAlert,
    RoundResumed,
    RulesChanged,
    TableAlert,
    TableMessage,
)
from tablectl_base.events import DeviceStatus, InputEvent
from tablectl_base.money import fmt


def render(record: GameRecord | TableMessage | Output) -> Output:
    """The message a record is published as (an `Output` passes through as it is)."""
    if isinstance(record, Output):
        return record
    if isinstance(record, StateChanged):
        return Output("state", dict(record.view), retain=True)
    if isinstance(record, InputAccepted):
        return Output("event", event_payload(record))
    if isinstance(record, TABLE_MESSAGES):
        return table_message(record)
    if isinstance(record, RoundSettled):
        return Output("round/result", result_payload(record))
    if isinstance(record, DisplayChanged):
        return Output(f"display/{record.name}", dict(record.view), retain=True)
    if isinstance(record, PokerHandSettled):
        return Output("round/result", poker_result_payload(record))
    if isinstance(record, OwnRoundResult):  # a game's own kind of result renders itself
        return Output(record.TOPIC, with_table_notes(record.payload(), record.table))
    raise TypeError(f"not a game record: {record!r}")


def enveloped(
    message: GameRecord | TableMessage,
    envelope: dict[str, Any],
    own: tuple[InputEvent | None, dict[str, Any]] | None = None,
) -> tuple[str, dict[str, Any], int, bool]:
    """`message` as the table numbers it: topic, payload, QoS, retain, the payload being the
    envelope's fields then the message's (a field of the same name takes the envelope's
    place). The usual two, a state and an input's echo, are enveloped as they are built, not
    rendered and then copied. `own`: the record's event and body, when the echo of that very
    event with nothing hidden may be its body (the event's canonical form, `journal_body`:
    `type` first, nulls and `ts` left out) rather than a dump of the event again."""
    if isinstance(message, StateChanged):
        view, extra = message.parts()
        return "state", {**envelope, **view, **extra}, 1, True
    if isinstance(message, InputAccepted):
        event = message.event
        if (
            own is not None
            and event is own[0]
            and not message.hide
            and type(event) is not DeviceStatus
        ):
            payload = {**envelope, **own[1], **message.shown}
        else:
            type_, fields = event_fields(message)
            payload = {**envelope, "type": type_, **fields, **message.shown}
        payload["ts"] = message.ts  # where and as event_payload places it
        return "event", payload, 1, False
    out = render(message)
    return out.topic, {**envelope, **out.payload}, out.qos, out.retain


def event_payload(record: InputAccepted) -> dict[str, Any]:
    """`event`: the input's fields (less what the table does not show yet), the game's own
    additions, the time."""
    kind, fields = event_fields(record)
    payload = {"type": kind, **fields, **record.shown}
    payload["ts"] = record.ts  # as `{..., "ts": record.ts}` places it
    return payload


def event_fields(record: InputAccepted) -> tuple[Any, dict[str, Any]]:
    """The echoed input's type and its other fields, less `ts` and those hidden: what
    `event_payload` puts before the game's additions (the dict is shared: read it, never change
    it)."""
    event, hide = record.event, record.hide
    dumped = _dumped.get(id(event))
    if dumped is None or dumped[0] is not event or dumped[1] != hide:
        body = event.model_dump(mode="json", exclude_none=True, exclude={"ts", *hide})
        dumped = (event, hide, body.pop("type"), body)
        if len(_dumped) >= DUMPED_KEPT:
            _dumped.clear()
        _dumped[id(event)] = dumped
    return dumped[2], dumped[3]


DUMPED_KEPT = 256
_dumped: dict[int, tuple[InputEvent, frozenset[str], Any, dict[str, Any]]] = {}
"""Echoed events' fields (less those hidden) as `event_payload` dumps them, by the event's id
(the event itself kept with them, so an id cannot be another's): an event is immutable, and a
table parses the same wager or bank once and echoes that one event each time it comes."""


def result_payload(record: RoundSettled) -> dict[str, Any]:
    """`round/result` (contract 3)."""
    header: dict[str, Any] = {}
    shoe, deck = record.headers.shoe, record.headers.deck
    if shoe is not None:
        header["shoe"] = shoe
    if deck is not None and (record.void or not deck.after_dealt):
        header["deck"] = deck.colour
    bank = record.bank
    if record.void:
        payload: dict[str, Any] = {
            "round": record.round,
            "game": record.game,
            **header,
            "void": True,
            "reason": record.reason,
            "outcome": None,
            "dealt": record.dealt,
            "bank": {
                "seat": bank.seat,
                "start": None if bank.start is None else fmt(bank.start),
                "end": None if bank.end is None else fmt(bank.end),
            },
        }
    else:
        assert record.outcome is not None and bank.start is not None and bank.end is not None
        payload = {
            "round": record.round,
            "game": record.game,
            **header,
            "outcome": record.outcome.payload(),
            "dealt": record.dealt,
        }
        if deck is not None and deck.after_dealt:
            payload["deck"] = deck.colour
        payload["bank"] = {
            "seat": bank.seat,
            "start": fmt(bank.start),
            "end": fmt(bank.end),
            "turn": bank.turn,
        }
    payload["action_seat"] = record.action_seat
    payload["settlements"] = [settlement_payload(s) for s in record.settlements]
    payload["fees"] = [fee_payload(f) for f in record.fees]
    return with_table_notes(payload, record.table)


def with_table_notes(payload: dict[str, Any], notes: TableNotes) -> dict[str, Any]:
    """A round result's payload with what the table added: the devices that fed the round and
    where in their counts, then the journal's chain head (docs/mqtt.md)."""
    if notes.devices is not None:
        payload["devices"] = [{"name": d.name, "serial": d.serial} for d in notes.devices]
        payload.update(notes.positions)
    if notes.chain is not None:
        payload["chain"] = notes.chain
    return payload


def wager_payload(seat: int, player: str, spot: str, amount: Decimal) -> dict[str, JsonValue]:
    """A wager as `state` and `round/result` show it (contract 3)."""
    return {"seat": seat, "player": player, "spot": spot, "amount": fmt(amount)}


def settlement_payload(s: Settlement) -> dict[str, JsonValue]:
    """One row of `settlements` (R1): the wager, what happened to it, and the game's notes."""
    return {
        **wager_payload(s.seat, s.player, s.spot, s.amount),
        "status": s.status,
        "net": fmt(s.net),
        **s.notes,
    }


def fee_payload(fee: Fee) -> dict[str, Any]:
    """One row of `fees` (R4)."""
    if fee.payer == "player-dealer":
        assert fee.total_action is not None
        return {
            "payer": fee.payer,
            "seat": fee.seat,
            "amount": fmt(fee.amount),
            "schedule": fee.schedule,
            "total_action": fmt(fee.total_action),
        }
    return {
        "payer": fee.payer,
        "seat": fee.seat,
        "player": fee.player,
        "amount": fmt(fee.amount),
        "schedule": fee.schedule,
    }


def poker_result_payload(record: PokerHandSettled) -> dict[str, Any]:
    """`round/result` of a poker hand: pots and winners, the fee, the board, the hands shown
    (R46: never a hole card of a hand not shown), the stacks after; a misdeal's returns."""
    payload: dict[str, Any] = {
        "round": record.hand,
        "game": record.game,
        "button": record.button,
    }
    if record.void:
        payload["void"] = True
        payload["reason"] = record.reason
    payload["board"] = list(record.board)
    payload["showdown"] = record.showdown
    payload["declared"] = record.declared
    payload["pots"] = [
        {
            "amount": fmt(p.amount),
            "eligible": list(p.eligible),
            "high": list(p.high),
            "low": list(p.low),
            "paid": [{"seat": seat, "amount": fmt(amount)} for seat, amount in p.paid],
        }
        for p in record.pots
    ]
    payload["fee"] = {
        "amount": fmt(record.fee),
        "players": record.fee_players,
        "modified": record.fee_modified,
    }
    payload["returned"] = [{"seat": s, "amount": fmt(a)} for s, a in record.returned]
    payload["shown"] = [shown_payload(h) for h in record.shown]
    payload["stacks"] = [{"seat": s, "stack": fmt(a)} for s, a in record.stacks]
    return with_table_notes(payload, record.table)


def shown_payload(hand: ShownHand) -> dict[str, Any]:
    """One hand shown down."""
    return {
        "seat": hand.seat,
        "cards": list(hand.cards),
        # a low-only game shows its low hand alone
        "high": {"cards": list(hand.high), "name": hand.high_name} if hand.high else None,
        "low": None if hand.low is None else {"cards": list(hand.low), "name": hand.low_name},
    }


# -- the table's own messages (tablectl/table_messages.py) ----------------------------------------


def table_message(record: TableMessage) -> Output:
    """A message of the table's own, as published."""
    if isinstance(record, CommandReply):
        return Output(record.topic, reply_payload(record))
    if isinstance(record, TableAlert):
        return Output("alert", alert_payload(record))
    if isinstance(record, OpenAlertsChanged):
        return Output("alerts/open", record.alerts.payload(), retain=True)
    if isinstance(record, ChainHead):
        return Output("journal/head", {"chain": record.chain}, retain=True)
    if isinstance(record, DeviceStatusChanged):
        return Output(record.topic, device_status_payload(record), retain=True)
    if isinstance(record, PaceAlert):
        payload = {"kind": record.kind, "reason": record.reason, "pace": record.pace}
        return Output(
            "alert", {**payload, "rounds_last_hour": record.rounds_last_hour, "band": record.band}
        )
    if isinstance(record, RulesChanged):
        return Output("event", {"type": "config", "rules": record.rules, "ts": record.ts})
    if isinstance(record, RoundResumed):
        return Output("event", {"type": "round.resume", "ts": record.ts})
    if isinstance(record, AlertAcknowledged):
        return Output("event", ack_payload(record))
    raise TypeError(f"not a table message: {record!r}")


def reply_payload(record: CommandReply) -> dict[str, Any]:
    """`cmd/<verb>/reply`: the request's id and whether it was done; if not, why."""
    payload: dict[str, Any] = {"id": record.id, "ok": record.ok}
    if record.reason is not None:
        payload["reason"] = record.reason
    if record.rule is not None:
        payload["rule"] = record.rule
    return payload


def alert_payload(record: TableAlert) -> dict[str, Any]:
    """`alert`: its kind and reason, then what it names (docs/mqtt.md "alert")."""
    payload: dict[str, Any] = {"kind": record.kind, "reason": record.reason}
    if record.rule:
        payload["rule"] = record.rule
    if record.device is not None:
        payload["device"] = record.device
    if record.source is not None:
        payload["source"] = record.source
    if record.input is not None:
        payload["input"] = record.input
    if record.raw is not None:
        payload["raw"] = record.raw
    if record.records is not None:
        payload["records"] = list(record.records)
    if record.since is not None:
        payload["since"] = record.since
    if record.until is not None:
        payload["until"] = record.until
    return payload


def device_status_payload(record: DeviceStatusChanged) -> dict[str, Any]:
    """`device/<name>/status`: what the device reports now."""
    return {
        "device": record.device,
        "available": record.available,
        "fault": record.fault,
        "detail": record.detail,
        "ts": record.ts,
    }


def ack_payload(record: AlertAcknowledged) -> dict[str, Any]:
    """`event` of an `alert.ack`: the alert closed, its kind, who and why."""
    return {
        "type": "alert.ack",
        "alert": record.alert,
        "kind": record.kind,
        "by": record.by,
        "why": record.why,
        "ts": record.ts,
    }
