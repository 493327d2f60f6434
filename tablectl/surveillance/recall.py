"""`tablectl recall --shoe`: what the shoe held when each of a round's wagers was placed, from the
surveillance feed's notes (tablectl/surveillance/feed.py, `notes=True`), as the round's
`shoe_at_wagers` (JSON) and as lines under the round (text). docs/surveillance.md."""

from __future__ import annotations

from typing import Any

from tablectl.surveillance.feed import SurveillanceFeed
from tablectl.surveillance.payloads import figure


def wager_figures(feed: SurveillanceFeed) -> list[dict[str, Any]]:
    """The wagers the feed noted since the last call, each with the shoe's figures when it was
    placed (`figures` null: the shoe was not known then); the notes are taken."""
    notes, feed.notes = feed.notes or [], []
    out: list[dict[str, Any]] = []
    for note in notes:
        fig = note.figures
        entry: dict[str, Any] = {
            "record": note.record,
            "seat": note.seat,
            "spot": note.spot,
            "amount": note.amount,
            "figures": None,
        }
        if fig is not None:
            entry["figures"] = {
                "cards_left": fig.cards_left,
                "wagers": {w.wager: figure(w.expectation) for w in fig.wagers},
                "running_count": fig.running_count,
            }
        out.append(entry)
    return out


def shoe_lines(result: dict[str, Any]) -> list[str]:
    """The text lines of a round's `shoe_at_wagers` (none when the round has none)."""
    noted = result.get("shoe_at_wagers")
    if not noted:
        return []
    lines = ["  the shoe at each wager (live figures, docs/surveillance.md):"]
    for w in noted:
        head = f"    journal #{w['record']} seat {w['seat']} {w['spot']} {w['amount']}: "
        fig = w["figures"]
        if fig is None:
            lines.append(head + "the shoe not known (no shoe.new replayed before it)")
            continue
        figures = " ".join(f"{name} {f['value']}" for name, f in fig["wagers"].items())
        count = "" if fig["running_count"] is None else f"; running count {fig['running_count']}"
        lines.append(f"{head}{fig['cards_left']} cards left; {figures}{count}")
    return lines
