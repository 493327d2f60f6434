"""Ultimate Texas Hold'em as `tablectl recall` prints a round's outcome: the board, the dealer's
best five and whether it qualifies, each hand's best five, its play and its side bets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round, cards_text, outcome_lines, side_bets, spoken


def _ultimate(o: dict[str, Any], settlements: Sequence[dict[str, Any]]) -> list[str]:
    lines = [f"  board:   {cards_text(o['board'])}"]
    d = o.get("player_dealer")
    if d is None:
        lines.append("  dealer:  not turned over (every hand folded)")
    else:
        qualifies = "qualifies" if d["qualifies"] else "does not qualify"
        lines.append(
            f"  dealer:  seat {d['seat']}  {cards_text(d['cards'])}  "
            f"best {cards_text(d['best_five'])}  {spoken(d['rank'])}, {qualifies}"
        )
    verdicts = {"win": "wins", "lose": "loses", "push": "pushes"}
    for h in o["hands"]:
        if h.get("folded"):
            text = "folds"
        else:
            p = h.get("play")
            bet = f"play {p['amount']} ({p['multiple']}x {p['street']})" if p else "no play"
            text = (
                f"{cards_text(h['cards'])}  best {cards_text(h['best_five'])}  "
                f"{spoken(h['rank'])}, {bet}, {verdicts.get(h['result'], h['result'])}"
            )
        sides = side_bets(settlements, h["seat"], ("blind", "trips", "bad-beat"))
        lines.append(
            f"  hand:    seat {h['seat']} {h['player']}  {text}" + (f";  {sides}" if sides else "")
        )
    return lines


OUTCOME_KEYS = frozenset({"board", "player_dealer", "hands"})
"""The outcome keys the printer reads: any other follows its lines as JSON."""

_outcome = outcome_lines(OUTCOME_KEYS, _ultimate)


def print_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished Ultimate Texas Hold'em round for `tablectl recall` and the demo (the game's
    `recall_printer`)."""
    return banked_round(ts, r, inputs, _outcome)
