"""Blackjack as `tablectl recall` prints a round's outcome: the dealer's hand, each player's
hands with their splits, doubles and results, and the side bets (red flex, buster, match the
dealer)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round, cards_text, outcome_lines, settled


def _bj_total(h: dict[str, Any]) -> str:
    rank = h["rank"]
    if rank == "pure-21.5":
        return "Pure 21.5"
    if rank == "888":
        return f"888 ({h['total']})"
    if rank == "bust":
        return f"{h['total']} bust"
    return str(rank)


BJ_ENDS = {"surrender": "surrendered", "rescue": "rescued", "split-aces": "split aces"}


def _blackjack(o: dict[str, Any], settlements: Sequence[dict[str, Any]]) -> list[str]:
    d = o["player_dealer"]
    peek = "  (hole card checked)" if o.get("peek") else ""
    lines = [f"  dealer:  seat {d['seat']}  {cards_text(d['cards'])} = {_bj_total(d)}{peek}"]
    for h in o["hands"]:
        notes = []
        if h.get("split"):
            notes.append("split")
        if h.get("doubles"):
            notes.append("doubled " + " + ".join(h["doubles"]))
        if h.get("end") in BJ_ENDS:
            notes.append(BJ_ENDS[h["end"]])
        results = [
            str(s.get("result", s["status"]))
            for s in settled(settlements, h["seat"], "base")
            if s.get("hand") == h["hand"]
        ]
        lines.append(
            f"  hand:    seat {h['seat']} #{h['hand']} {h['player']}  {cards_text(h['cards'])} = "
            f"{_bj_total(h)}"
            + (f"  {', '.join(notes)}" if notes else "")
            + (f"  -> {', '.join(results)}" if results else "")
        )
    rf = o.get("red_flex")
    if rf is not None:
        pays = f"pays {rf['category']}" if rf["category"] else "loses"
        lines.append(f"  red flex: {rf['count']} red in the dealer's hand, {pays}")
    bu = o.get("buster")
    if bu is not None:
        if bu["cards"] is None:
            lines.append("  buster:  the dealer did not bust, loses")
        else:
            pays = f"pays {bu['category']}" if bu["category"] else "loses"
            lines.append(f"  buster:  the dealer busted with {bu['cards']} cards, {pays}")
    for m in o.get("match_dealer") or []:
        hit = f"matches {m['category']}" if m["category"] else "no match"
        lines.append(
            f"  match:   seat {m['seat']}  {cards_text(m['cards'])} against up card "
            f"{d['up_card']}: {hit}"
        )
    return lines


OUTCOME_KEYS = frozenset({"player_dealer", "peek", "hands", "red_flex", "buster", "match_dealer"})
"""The outcome keys the printer reads: any other follows its lines as JSON."""

_outcome = outcome_lines(OUTCOME_KEYS, _blackjack)


def print_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished blackjack round for `tablectl recall` and the demo (the game's
    `recall_printer`)."""
    return banked_round(ts, r, inputs, _outcome)
