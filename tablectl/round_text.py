"""A finished round as a person reads it (`tablectl recall`, the demo): the outcome, every
journaled card and decision in order, wagers, settlements and fees."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def format_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished round for a person: the outcome, every journaled card and decision in order,
    wagers, settlements and fees."""
    o = r.get("outcome")
    where = f"shoe {r['shoe']}" if "shoe" in r else r.get("game", "?")
    lines = [f"Round {r['round']}  ({where}, finished {ts})"]
    if r.get("void"):
        lines.append(f"  void: {r.get('reason', 'misdeal')} (every wager returned)")
    elif r.get("game") == "ez-baccarat-panda8" and o is not None:
        if o["winner"] == "tie":
            verdict = f"tie {o['player']['total']}-{o['banker']['total']}"
        else:
            verdict = f"{o['winner']} wins {o['player']['total']}-{o['banker']['total']}"
        flags = [k for k in ("natural", "dragon7", "panda8") if o.get(k)]
        lines.append(f"  {verdict}" + (f"  [{', '.join(flags)}]" if flags else ""))
        lines.append(
            "  dealt:   " + ", ".join(f"{d['to'][0].upper()} {d['card']}" for d in r["dealt"])
        )
        lines.append(
            f"  player:  {' '.join(o['player']['cards'])} = {o['player']['total']}    "
            f"banker: {' '.join(o['banker']['cards'])} = {o['banker']['total']}"
        )
    elif o is not None:
        lines.append("  outcome: " + json.dumps(o, separators=(",", ":")))
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


def describe_input(body: dict[str, Any]) -> str:
    """One journaled round input in a line: `shoe.burn 7c`, `shuffler.stack Ah Kd 7c (red)`."""
    kind = body["type"]
    at = body.get("at")
    place = ""
    if isinstance(at, dict) and "pos" in at:  # where in the device's own count (issue 9)
        place = f" at {at['pos']}" + (f" of {at['run']}" if at.get("run") else "")
    if kind in ("shoe.card", "shoe.burn"):
        return f"{kind} {body['card']}{place}"
    if kind == "shuffler.stack":
        deck = f" ({body['deck']})" if body.get("deck") else ""
        return f"{kind} {' '.join(body['cards'])}{deck}{place}"
    if kind == "dice.roll":
        return f"{kind} {' '.join(map(str, body['dice']))}{place}"
    extra = {k: v for k, v in body.items() if k not in ("type", "seq", "ts", "seat", "action")}
    tail = " ".join(
        f"{k}={v if not isinstance(v, list) else ' '.join(map(str, v))}" for k, v in extra.items()
    )
    return f"decision seat {body.get('seat')} {body.get('action')}" + (f" {tail}" if tail else "")
