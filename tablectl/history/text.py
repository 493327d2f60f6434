"""A finished round as a person reads it (`tablectl recall`, the demo): each game prints its own
rounds (its GameSpec's `recall_printer`, in the game's package); a round of a game without one
reads as a banked round with its outcome as a JSON line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablectl.games.recall_lines import banked_round
from tablectl.games.registry import spec_of
from tablectl.games.spec import RoundPrinter, load
from tablectl.history.generic import FinishedRound, RoundWriter


def round_printer(game: str) -> RoundPrinter:
    """The printer of a game's finished rounds: its spec's, else the banked frame."""
    try:
        spec = spec_of(game)
    except ValueError:  # a journal of a game this installation does not know
        return banked_round
    if spec.recall_printer is None:
        return banked_round
    printer: RoundPrinter = load(spec.recall_printer)
    return printer


def format_round(ts: str, r: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> str:
    """A finished round for a person: the outcome, every journaled card and decision in order,
    wagers, settlements and fees, as its game prints them."""
    return round_printer(str(r.get("game")))(ts, r, inputs)


class TextWriter(RoundWriter):
    """`text`: each finished round as its game prints it, a line after it (`tablectl recall`)."""

    def write_round(self, finished: FinishedRound) -> None:
        self.out.write(format_round(finished.ts, finished.result, finished.inputs) + "\n")
        self.written += 1
