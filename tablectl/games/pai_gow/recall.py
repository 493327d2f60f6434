"""Fortune Pai Gow as `tablectl recall` prints a round's outcome: the dice, the dealer's and each
hand's high and low as set, each result, and the fortune and envy hands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round, cards_text, outcome_lines, spoken


def _pai_gow(o: dict[str, Any], settlements: Sequence[dict[str, Any]]) -> list[str]:
    def setting(h: dict[str, Any]) -> str:
        text = (
            f"high {cards_text(h['high']['cards'])} ({spoken(h['high']['rank'])})  "
            f"low {cards_text(h['low']['cards'])} ({spoken(h['low']['rank'])})"
        )
        by = h.get("set_by")
        if by == "house-way":
            return text + f"  house way {h.get('house_way_row')}"
        return text + (f"  set by {by}" if by else "")

    dice = " ".join(str(x) for x in o["dice"])
    d = o["player_dealer"]
    lines = [
        f"  dice:    {dice} = {o['total']}: first hand to seat {o['first_seat']}, "
        f"action button seat {o['button_seat']}",
        f"  dealer:  seat {d['seat']}  {setting(d)}",
    ]
    verdicts = {"win": "wins", "lose": "loses", "push": "pushes"}
    for h in o["hands"]:
        hits = []
        if h.get("fortune"):
            hits.append(f"fortune {spoken(h['fortune'])}")
        if h.get("envy"):
            hits.append("envy hand")
        lines.append(
            f"  hand:    seat {h['seat']}  {setting(h)}  {verdicts.get(h['result'], h['result'])}"
            + (f";  {', '.join(hits)}" if hits else "")
        )
    envy = o.get("envy_hands") or []
    if envy:
        lines.append("  envy:    paid for the hands at seat " + ", ".join(map(str, envy)))
    return lines


OUTCOME_KEYS = frozenset(
    {"dice", "total", "first_seat", "button_seat", "player_dealer", "hands", "envy_hands"}
)
"""The outcome keys the printer reads: any other follows its lines as JSON."""

_outcome = outcome_lines(OUTCOME_KEYS, _pai_gow)


def print_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished Fortune Pai Gow round for `tablectl recall` and the demo (the game's
    `recall_printer`)."""
    return banked_round(ts, r, inputs, _outcome)
