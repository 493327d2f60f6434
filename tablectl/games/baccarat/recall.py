"""EZ Baccarat as `tablectl recall` prints a round's outcome: who won and by what totals, the
natural, Dragon 7 and Panda 8 flags, the cards as dealt, and each hand's cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round


def coup_verdict(o: Any) -> str | None:
    """A coup's verdict in a few words, no card in it (`winner`, the two totals, its flags),
    for the status report's last result line (the spec's `result_summary`); None for an
    outcome of another shape."""
    if not isinstance(o, Mapping) or "winner" not in o:
        return None
    totals = [o.get(side, {}).get("total") for side in ("player", "banker")]
    score = "-".join(str(t) for t in totals) if None not in totals else ""
    won = f"tie {score}" if o["winner"] == "tie" else f"{o['winner']} wins {score}"
    flags = [k for k in ("natural", "dragon7", "panda8") if o.get(k)]
    return won.strip() + (f" [{', '.join(flags)}]" if flags else "")


def outcome_lines(r: dict[str, Any]) -> list[str]:
    """The outcome of a finished baccarat round, in three lines."""
    o = r["outcome"]
    if o["winner"] == "tie":
        verdict = f"tie {o['player']['total']}-{o['banker']['total']}"
    else:
        verdict = f"{o['winner']} wins {o['player']['total']}-{o['banker']['total']}"
    flags = [k for k in ("natural", "dragon7", "panda8") if o.get(k)]
    return [
        f"  {verdict}" + (f"  [{', '.join(flags)}]" if flags else ""),
        "  dealt:   " + ", ".join(f"{d['to'][0].upper()} {d['card']}" for d in r["dealt"]),
        f"  player:  {' '.join(o['player']['cards'])} = {o['player']['total']}    "
        f"banker: {' '.join(o['banker']['cards'])} = {o['banker']['total']}",
    ]


def print_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished baccarat round for `tablectl recall` and the demo (the game's
    `recall_printer`)."""
    return banked_round(ts, r, inputs, outcome_lines)
