"""A Chinese Poker round as `tablectl recall` prints it: the buttons and the point, the fees, each
hand as set or its clean sweep, the points each pair settled, the payments and the stacks."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tablectl_base.money import ZERO, fmt


def format_chinese_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A Chinese Poker round as the floor reads it (003 "Chinese Poker"; the result's shape:
    tablectl/games/chinese_poker/records.py): the buttons and the point, each player's fee,
    each hand as set (front, middle, back, with their names) or its clean sweep, and fouls;
    the points each pair settled, each payment of the walk (less than owed where a stack ran
    out) and the stacks after, with each change over the round. A misdeal returns the fees."""
    lines = [
        f"Round {r['round']}  ({r.get('game', 'chinese-poker')}, buttons seat {r.get('button')}, "
        f"point {r.get('point', '?')}, finished {ts})"
    ]
    if r.get("void"):
        lines.append(f"  void:      {r.get('reason') or 'misdeal'} (the fees returned)")
    fees = {int(f["seat"]): Decimal(f["amount"]) for f in r.get("fees", [])}
    if fees:
        lines.append("  fees:      " + ", ".join(f"seat {s} {fmt(a)}" for s, a in fees.items()))
    entered = {
        int(i["seat"]): i
        for i in inputs
        if i.get("type") in ("chinese.set", "chinese.sweep") and i.get("seat") is not None
    }
    for h in r.get("hands", []):
        seat = int(h["seat"])
        lines += _chinese_hand(h, entered.get(seat))
    for p in r.get("points", []):
        a, b = (int(s) for s in p["seats"])
        n = int(p["points"])
        if n == 0:
            lines.append(f"  points:    seats {a} and {b}: even")
        else:
            payer, payee = (b, a) if n > 0 else (a, b)
            lines.append(
                f"  points:    seats {a} and {b}: seat {payer} pays seat {payee} {abs(n)} "
                f"point{'s' if abs(n) != 1 else ''}"
            )
    for p in r.get("payments", []):
        short = (
            f"; {p['owed']} owed, no more than a stack as the round began changes hands"
            if Decimal(p["owed"]) != Decimal(p["amount"])
            else ""
        )
        lines.append(
            f"  paid:      seat {p['from']} to seat {p['to']} {p['amount']} "
            f"({'clean sweep' if p['for'] == 'sweep' else p['for']}{short})"
        )
    lines.append("  stacks:    " + _chinese_stacks(r, fees))
    return "\n".join(lines)


def _chinese_hand(h: dict[str, Any], entered: dict[str, Any] | None) -> list[str]:
    """One hand as exposed: its setting and segment names, or its clean sweep; a foul says
    why (out of order, or a sweep declared that its cards do not hold)."""
    seat = int(h["seat"])
    seq = f"  (#{entered['seq']})" if entered is not None and "seq" in entered else ""
    if h.get("sweep"):
        return [f"  seat {seat:>2}   clean sweep, {h['sweep']}: {' '.join(h['cards'])}{seq}"]
    if h.get("front"):
        names = list(h.get("names") or ())
        names += ["?"] * (3 - len(names))
        segs = " | ".join(
            f"{label} {' '.join(h[label])} ({name})"
            for label, name in zip(("front", "middle", "back"), names, strict=False)
        )
        foul = ": fouled (set out of order)" if h.get("fouled") else ""
        return [f"  seat {seat:>2}   {segs}{foul}{seq}"]
    if entered is not None and entered.get("type") == "chinese.sweep":
        why = f"declared {entered.get('sweep')}, which its cards do not hold"
    else:
        why = "no setting"
    foul = "fouled" if h.get("fouled") else "not set"
    return [f"  seat {seat:>2}   {foul} ({why}): {' '.join(h['cards'])}{seq}"]


def _chinese_stacks(r: dict[str, Any], fees: dict[int, Decimal]) -> str:
    """Each seat's stack after the round, with its change over the round (its fee and what
    it paid and was paid) for the seats dealt in."""
    net: dict[int, Decimal] = {s: -a for s, a in fees.items()}
    for p in r.get("payments", []):
        amount = Decimal(p["amount"])
        net[int(p["from"])] = net.get(int(p["from"]), ZERO) - amount
        net[int(p["to"])] = net.get(int(p["to"]), ZERO) + amount
    parts = []
    for x in r.get("stacks", []):
        seat = int(x["seat"])
        change = ""
        if seat in net:
            delta = net[seat]
            change = f" ({'+' if delta > 0 else ''}{fmt(delta)})"
        parts.append(f"seat {seat} {x['stack']}{change}")
    return ", ".join(parts)
