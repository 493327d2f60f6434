"""A finished round as a person reads it (`tablectl recall`, the demo): the outcome, every
journaled card and decision in order, wagers, settlements and fees."""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tablectl.phh import STREETS, PhhError, PokerHand, Step, is_poker_result, poker_hand
from tablectl_base.money import ZERO, fmt


def format_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished round for a person: the outcome, every journaled card and decision in order,
    wagers, settlements and fees. A poker hand reads as `format_poker_hand` prints it."""
    if is_poker_result(r):
        return format_poker_hand(ts, r, inputs)
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


def format_poker_hand(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished poker hand as the floor reads it: the button and blinds, each seat's stack and
    hole cards (from the journal: recall is the floor's and the regulator's tool; never published,
    R46), every action by street with its amount, the board, the hands shown, each pot and who
    took it, the fee and the stacks after. Without its `hand.start` (a journal read from a later
    point) only the result is shown."""
    game, button = r.get("game", "?"), r.get("button")
    head = f"Hand {r['round']}  ({game}, button seat {button}, finished {ts})"
    try:
        hand = poker_hand(r, inputs)
    except PhhError:
        hand = None
    lines = [head]
    if r.get("void"):
        lines.append(f"  void:      {r.get('reason') or 'misdeal'} (every chip put in returned)")
    if hand is not None:
        lines += _poker_seats(hand)
        lines += _poker_play(hand)
    for i in inputs:
        if i.get("type") == "showdown":
            lines.append(f"  declared:  #{i['seq']} {describe_input(i)} (no hand read)")
    if not r.get("void"):
        lines += _poker_outcome(r, hand)
    if r.get("returned"):
        back = ", ".join(f"seat {x['seat']} {x['amount']}" for x in r["returned"])
        lines.append(f"  returned:  {back}")
    fee = r.get("fee") or {}
    if not r.get("void"):
        note = f"{fee.get('players')} players dealt in" + (
            ", the modified fee" if fee.get("modified") else ""
        )
        lines.append(f"  fee:       {fee.get('amount', '0.00')} ({note})")
    lines.append("  stacks:    " + _stacks_after(r, hand))
    return "\n".join(lines)


def _poker_seats(hand: PokerHand) -> list[str]:
    """The blinds, then each seat dealt in with its stack and hole cards."""
    lines = []
    # 003 "Betting Limits", Kill Rules: what the holder added for the kill blind
    kills = {int(k["seat"]): Decimal(k["amount"]) for k in hand.start.get("kill") or ()}
    blinds = [s for s in hand.seats[:2] if s.posted > 0]
    names = ("small", "big")
    lines.append(
        "  blinds:    "
        + ", ".join(
            f"seat {s.seat} {names[k]} {fmt(s.posted - kills.get(s.seat, ZERO))}"
            for k, s in enumerate(blinds)
        )
    )
    for s in hand.seats:
        if s.seat in kills:
            lines.append(f"  kill pot:  seat {s.seat} posted the kill blind, {fmt(s.posted)}")
    owed = [s for s in hand.seats[2:] if (s.posted > 0 or s.dead > 0) and s.seat not in kills]
    if owed:  # missed blinds, or new to the game (docs/games/poker-room.md)
        lines.append(
            "  posted:    "
            + ", ".join(
                f"seat {s.seat} {fmt(s.posted)} live" + (f" + {fmt(s.dead)} dead" if s.dead else "")
                for s in owed
            )
        )
    for s in hand.seats:
        cards = " ".join(hand.holes.get(s.seat, ())) or "(no hole cards entered)"
        button = "  button" if s.seat == hand.button else ""
        lines.append(f"  seat {s.seat:>2}   {s.player:<10} {fmt(s.stack):>9}  {cards}{button}")
    return lines


def _describe_step(step: Step) -> str:
    """One action of the betting: who, what, how much."""
    what = {
        "check": "checks",
        "fold": "folds",
        "call": f"calls {fmt(step.added)}",
        "bet": f"bets {fmt(step.to)}",
        "raise": f"raises to {fmt(step.to)}",
    }.get(step.action)
    if step.action == "all-in":
        if step.raise_:
            what = f"all-in, {'raises to' if step.facing > 0 else 'bets'} {fmt(step.to)}"
        else:
            what = f"all-in, calls {fmt(step.added)}"
    elif step.all_in:
        what = f"{what} (all-in)"
    return f"seat {step.seat} {what or step.action}"


def _poker_play(hand: PokerHand) -> list[str]:
    """Every action by street, the board as each street is turned up."""
    lines = [f"  {STREETS[0]}:"] if hand.steps else []
    for step in hand.steps:
        by_hand = "  (entered by hand, R39)" if step.by_hand else ""
        if step.kind == "board":
            board = " ".join(hand.board[: _board_len(step.street)])
            seqs = f"#{step.seq}"
            if step.first_seq and step.first_seq != step.seq:  # read card by card
                seqs = f"#{step.first_seq}-{step.seq}"
            lines.append(
                f"  {STREETS[step.street]}:{' ' * (9 - len(STREETS[step.street]))}"
                f"{' '.join(step.cards)}  (board {board}; {seqs}){by_hand}"
            )
        elif step.kind == "action":
            lines.append(f"    #{step.seq} {_describe_step(step)}")
        elif step.kind == "discard":
            what = " ".join(step.cards) or "a card, face down (not read)"
            lines.append(f"    #{step.seq} seat {step.seat} discards {what}")
        else:
            lines.append(f"    #{step.seq} to the muck: {' '.join(step.cards)}{by_hand}")
    return lines


def _board_len(street: int) -> int:
    """Board cards out once `street` (1 flop, 2 turn, 3 river) is turned up."""
    return (0, 3, 4, 5)[street]


def _poker_outcome(r: dict[str, Any], hand: PokerHand | None) -> list[str]:
    """The showdown (the hands shown, and the other hands still in, which the table ranked but
    did not show, R46) and each pot with its winners."""
    lines = []
    if r.get("showdown"):
        shown = {int(h["seat"]) for h in r.get("shown", [])}
        for h in r.get("shown", []):
            low = h.get("low")
            low_text = f"; low {low['name']} ({' '.join(low['cards'])})" if low else ""
            lines.append(
                f"  shown:     seat {h['seat']} {' '.join(h['cards'])}: "
                f"{h['high']['name']} ({' '.join(h['high']['cards'])}){low_text}"
            )
        for seat in () if hand is None or r.get("declared") else hand.live_at_end():
            if seat not in shown:
                cards = " ".join(hand.kept(seat)) if hand is not None else ""
                lines.append(f"  mucked:    seat {seat} {cards} (won no pot: not shown, R46)")
    else:
        lines.append("  no showdown: everyone else folded")
    for k, pot in enumerate(r.get("pots", []), start=1):
        name = "main pot" if k == 1 else f"side pot {k - 1}"
        high = " ".join(map(str, pot["high"])) or "-"
        low = " ".join(map(str, pot["low"]))
        paid = ", ".join(f"seat {p['seat']} {p['amount']}" for p in pot["paid"])
        who = f"high seat {high}" + (f", low seat {low}" if low else "")
        lines.append(
            f"  {name}:{' ' * max(1, 10 - len(name))}{pot['amount']} "
            f"(seats {' '.join(map(str, pot['eligible']))}): {who}; paid {paid}"
        )
    return lines


def _stacks_after(r: dict[str, Any], hand: PokerHand | None) -> str:
    """Each seat's stack after the hand, with its change for the seats dealt in."""
    before = {} if hand is None else {s.seat: s.stack for s in hand.seats}
    parts = []
    for x in r.get("stacks", []):
        seat, after = int(x["seat"]), Decimal(x["stack"])
        change = ""
        if seat in before:
            delta = after - before[seat]
            change = f" ({'+' if delta > 0 else ''}{fmt(delta)})"
        parts.append(f"seat {seat} {x['stack']}{change}")
    return ", ".join(parts)
