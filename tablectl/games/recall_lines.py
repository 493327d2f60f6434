"""What the games' recall printers share: a banked round's frame (its header, the journaled
inputs, the bank, the settlements and the fees around the game's own outcome lines), one
journaled input in a line, and the small phrases the banked printers use."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

OutcomeLines = Callable[[dict[str, Any]], list[str]]
"""A banked game's `outcome` lines for a finished round's result payload."""

OutcomePrinter = Callable[[dict[str, Any], Sequence[dict[str, Any]]], list[str]]
"""A banked game's printer of its outcome (and the round's settlements) as lines."""


def banked_round(
    ts: str,
    r: dict[str, Any],
    inputs: Sequence[dict[str, Any]] = (),
    outcome: OutcomeLines | None = None,
) -> str:
    """A finished banked round for a person: the outcome (`outcome`'s lines; without one, the
    raw JSON line), every journaled card and decision in order, wagers, settlements and fees."""
    o = r.get("outcome")
    where = f"shoe {r['shoe']}" if "shoe" in r else r.get("game", "?")
    lines = [f"Round {r['round']}  ({where}, finished {ts})"]
    if r.get("void"):
        lines.append(f"  void: {r.get('reason', 'misdeal')} (every wager returned)")
    elif o is not None:
        lines += outcome(r) if outcome is not None else [json_outcome(o)]
    for i in inputs:
        hand = "  (entered by hand, R39)" if i.get("by_hand") else ""
        lines.append(f"  journal: #{i['seq']} {describe_input(i)}{hand}")
    b = r["bank"]
    lines.append(
        f"  bank:    seat {b['seat']} {b['start']} -> {b['end']} (turn {b.get('turn', '?')}), "
        f"action from seat {r['action_seat']}"
    )
    for s in r["settlements"]:
        lines.append(
            f"  seat {s['seat']:>2} {s['player']:<8} {s['spot']:<8} {s['amount']:>9} "
            f"{s['status']:<8} {s['net']:>9}"
        )
    for f in r["fees"]:
        lines.append(
            f"  fee:     {f['payer']} seat {f['seat']} {f['amount']} (schedule {f['schedule']})"
        )
    return "\n".join(lines)


def json_outcome(o: Any) -> str:
    """An outcome no printer reads, as its JSON line."""
    return "  outcome: " + json.dumps(o, separators=(",", ":"))


def outcome_lines(known: frozenset[str], draw: OutcomePrinter) -> OutcomeLines:
    """A banked game's outcome lines as the floor reads them (docs/games/*.md "Recall") by
    `draw`: an outcome whose shape `draw` does not know reads as the raw JSON line; keys it does
    not know (`known` are those it reads) follow its lines as a JSON line of their own."""

    def lines(r: dict[str, Any]) -> list[str]:
        o = r["outcome"]
        if not isinstance(o, dict):
            return [json_outcome(o)]
        try:
            said = draw(o, r.get("settlements") or [])
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return [json_outcome(o)]
        rest = {k: v for k, v in o.items() if k not in known}
        return said + ([json_outcome(rest)] if rest else [])

    return lines


def spoken(rank: Any) -> str:
    """A rank as spoken: `three-of-a-kind` -> `three of a kind`."""
    return str(rank).replace("-", " ")


def cards_text(cards: Sequence[Any]) -> str:
    return " ".join(str(c) for c in cards)


def settled(settlements: Sequence[dict[str, Any]], seat: Any, spot: str) -> list[dict[str, Any]]:
    return [s for s in settlements if s.get("seat") == seat and s.get("spot") == spot]


def side_bets(settlements: Sequence[dict[str, Any]], seat: Any, spots: Sequence[str]) -> str:
    """`blind push, trips win`: the seat's settled side bets among `spots`, in that order."""
    said = [
        f"{spot.replace('-', ' ')} {row['status']}"
        for spot in spots
        for row in settled(settlements, seat, spot)
    ]
    return ", ".join(said)


def describe_input(body: dict[str, Any]) -> str:
    """One journaled round input in a line: `shoe.burn 7c`, `shuffler.stack Ah Kd 7c (red)`."""
    kind = body["type"]
    at = body.get("at")
    place = ""
    if isinstance(at, dict) and "pos" in at:  # where in the device's own count of what it read
        place = f" at {at['pos']}" + (f" of {at['run']}" if at.get("run") else "")
    if kind in ("shoe.card", "shoe.burn"):
        return f"{kind} {body['card']}{place}"
    if kind == "shuffler.stack":
        deck = f" ({body['deck']})" if body.get("deck") else ""
        return f"{kind} {' '.join(body['cards'])}{deck}{place}"
    if kind == "dice.roll":
        return f"{kind} {' '.join(map(str, body['dice']))}{place}"
    if kind == "table.card":
        seat = f" seat {body['seat']}" if body.get("seat") is not None else ""
        return f"{kind} {body.get('zone')}{seat} {body['card']}{place}"
    if kind == "showdown":
        ranks = " > ".join("=".join(map(str, tied)) for tied in body.get("high", []))
        lows = body.get("low")
        low = (
            ""
            if lows is None
            else " low " + (" > ".join("=".join(map(str, tied)) for tied in lows) or "none")
        )
        return f"{kind} high {ranks}{low}"
    extra = {k: v for k, v in body.items() if k not in ("type", "seq", "ts", "seat", "action")}
    tail = " ".join(
        f"{k}={v if not isinstance(v, list) else ' '.join(map(str, v))}" for k, v in extra.items()
    )
    return f"decision seat {body.get('seat')} {body.get('action')}" + (f" {tail}" if tail else "")
