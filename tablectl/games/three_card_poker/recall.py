"""Three Card Poker as `tablectl recall` prints a round's outcome: the dealer's three and whether
it qualifies, each hand's three, its play or fold and its 6 Card Bonus hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round, cards_text, outcome_lines, spoken


def _three_card(o: dict[str, Any], settlements: Sequence[dict[str, Any]]) -> list[str]:
    d = o["player_dealer"]
    qualifies = "qualifies" if d["qualified"] else "does not qualify"
    lines = [
        f"  dealer:  seat {d['seat']}  {cards_text(d['cards'])}  {spoken(d['rank'])}, {qualifies}"
    ]
    for h in o["hands"]:
        if h["decision"] == "fold":
            text = "folds"
        else:
            showdown = h.get("showdown")
            verdict = {"win": "wins", "lose": "loses", "tie": "ties"}.get(
                str(showdown), "the dealer does not qualify"
            )
            text = f"{cards_text(h['cards'])}  {spoken(h['rank'])}, plays, {verdict}"
        line = f"  hand:    seat {h['seat']}  {text}"
        bonus = h.get("six_card_bonus")
        if bonus is not None:
            five = f"{cards_text(bonus['cards'])} " if bonus.get("cards") else ""
            line += f";  6 card bonus: {five}{spoken(bonus['rank'])}"
        lines.append(line)
    return lines


OUTCOME_KEYS = frozenset({"player_dealer", "hands"})
"""The outcome keys the printer reads: any other follows its lines as JSON."""

_outcome = outcome_lines(OUTCOME_KEYS, _three_card)


def print_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished Three Card Poker round for `tablectl recall` and the demo (the game's
    `recall_printer`)."""
    return banked_round(ts, r, inputs, _outcome)
