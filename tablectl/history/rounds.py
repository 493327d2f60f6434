"""Finished rounds read back from the journal: each round's result with the inputs that dealt
and played it, replayed from the snapshot each monthly file opens with (`recall`, and the PHH
and text writers, read them)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from tablectl import snapshot
from tablectl.chainkey import load_key
from tablectl.commands import CARD_INPUTS
from tablectl.config import LoadedConfig
from tablectl.history.generic import FinishedRound
from tablectl.journal import Journal
from tablectl.journal.segments import History
from tablectl.records import Record
from tablectl.surveillance.feed import SurveillanceFeed, feed_inputs
from tablectl.surveillance.recall import wager_figures
from tablectl.table import HAND_ENTERED_TYPES, Table
from tablectl_base.money import ZERO, fmt

PLAY_INPUTS = ("hand.start", "decision", "hand.dead", "showdown")
"""The inputs without a card that decide how a round is played: the hand's start, a player's
decision, a hand declared dead, a showdown's order."""
ROUND_INPUTS = frozenset({*HAND_ENTERED_TYPES, *CARD_INPUTS, *PLAY_INPUTS})
"""What recall lists of a round from the journal: every input that carries a round's cards
(`commands.CARD_INPUTS`: burns, folded hands, hole cards, what no topic showed) or decides how
they are played."""


def rounds_from_journal(
    journal: Journal, table: Table, feed: SurveillanceFeed | None = None
) -> Iterator[FinishedRound]:
    """Every round finished in one journal file, rebuilt from its records with `table` as it
    stood before them: when it finished, its result payload, and the inputs that dealt and
    played it (each with its journal `seq`), in the order the table played them: at once, or,
    when the round was held, at the record that played it (round.resume, a gap filled). An
    input refused, or held and then discarded (a void), was never played and is not listed.
    A segment closes only between rounds, so no round spans two files. With the surveillance
    `feed` (`recall --shoe`), each result also holds `shoe_at_wagers`: the live figures when each
    of the round's wagers was placed (tablectl/surveillance/recall.py)."""
    inputs: list[dict[str, Any]] = []
    journaled: dict[int, dict[str, Any]] = {}  # this round's inputs, by seq, until played
    table.played = []
    if feed is not None:
        table.unhidden = []
    for rec in journal.records():
        kind = rec.body.get("type")
        if kind in ROUND_INPUTS:
            entry: dict[str, Any] = {"seq": rec.seq, **rec.body}
            if rec.source.startswith("cmd/") and kind in HAND_ENTERED_TYPES:
                entry["by_hand"] = True  # R39: a card no device read, entered at the console
            at_start = _hand_start(table, rec) if kind == "hand.start" else None
            if at_start is not None:
                entry["at_start"] = at_start
            journaled[rec.seq] = entry
        rows = table.apply(rec)
        if feed is not None:
            feed.add(rec.seq, rec.ts, feed_inputs(table.take_unhidden(), rows), table.rules)
        for seq, echo in table.take_played():
            played = journaled.pop(seq, None)
            if played is not None:
                inputs.append(_completed(played, echo))
        for row in rows:
            if row.topic.endswith("/round/result"):
                result = json.loads(row.payload)
                if feed is not None:
                    result["shoe_at_wagers"] = wager_figures(feed)
                yield FinishedRound(rec.ts, result, inputs)
                inputs = []
                journaled.clear()


def _completed(entry: dict[str, Any], echo: dict[str, Any] | None) -> dict[str, Any]:
    """A poker input completed from the table's echo of it: the chips a decision moved; who a
    hand start dealt in and what each posted. Other inputs as journaled."""
    if echo is None:
        return entry
    if entry["type"] == "table.card" and echo.get("type") == "hole.discard":
        # a hole card read in the muck that the table took as that seat's discard
        seat, card = echo["seat"], entry["card"]
        return {"seq": entry["seq"], "type": "hole.discard", "seat": seat, "card": card}
    if echo.get("type") != entry["type"]:
        return entry
    if entry["type"] == "decision" and "added" in echo:  # what it put in and brought the seat to
        entry["added"], entry["to"] = echo["added"], echo["to"]
    elif "at_start" in entry and "dealt_in" in echo:  # who was dealt in, what each posted
        at_start = entry["at_start"]
        at_start["dealt_in"] = echo["dealt_in"]
        at_start["posted"] = _posts(echo, "blind", "kill")
        at_start["dead"] = _posts(echo, "dead")
        at_start["kill"] = _posts(echo, "kill")
    return entry


def _posts(echo: dict[str, Any], *kinds: str) -> list[dict[str, Any]]:
    """What each seat posted of these kinds (`blind` and `kill`: live, toward its call; `dead`)
    before the deal, from a `hand.start` echo, in the order posted."""
    total: dict[int, Decimal] = {}
    for p in echo["posted"]:
        if p["post"] in kinds:
            total[p["seat"]] = total.get(p["seat"], ZERO) + Decimal(p["amount"])
    return [{"seat": seat, "amount": fmt(amount)} for seat, amount in total.items()]


def _hand_start(table: Table, rec: Record) -> dict[str, Any] | None:
    """A hand's table as it begins (before `rec`, its `hand.start`): the seats and stacks
    between hands and the game's terms a hand history needs (`GameSettings.hand_history_terms`:
    the betting structure and stakes, say), and the seat count (what a hand history needs
    besides the inputs); once the table has taken it, `posted` adds the seats dealt in with
    what each posted. None where the game keeps no hand history."""
    terms = table.rules.game.hand_history_terms()
    if terms is None:
        return None
    view = table.state_payload()
    return {
        "ts": rec.ts,
        "table": table.table_id,
        **terms,
        "seat_count": table.rules.seats.count,
        "seats": [
            {"seat": s["seat"], "player": s["player"], "stack": s["stack"]}
            for s in view.get("seats", [])
        ],
    }


def recall_rounds(
    history: History,
    cfg: LoadedConfig,
    *,
    last: int,
    number: int | None,
    every_file: bool = False,
    shoe: bool = False,
) -> list[FinishedRound]:
    """Round `number` (every round with that number), or the `last` rounds (0: all), replaying
    only the files they are in: the newest first, each from the snapshot it opens with (`shoe`:
    with the shoe at each wager, `rounds_from_journal`). A round
    number is looked for back to the newest file that holds it, or in every file with
    `every_file` (round numbers start again when the game changes)."""
    found: list[FinishedRound] = []
    files = history.files
    # A snapshot is trusted only when signed with the table's key (when the config names one).
    keys = [load_key(cfg.key_path)] if cfg.key_path is not None else []
    for i in range(len(files) - 1, -1, -1):
        f = files[i]
        start = Table(cfg)
        if f.first_seq > 1:  # from the snapshot it opens with (or an older file's, replayed on)
            start, _ = snapshot.rebuild(cfg, files[: i + 1], upto=f.first_seq - 1, keys=keys)
        feed = SurveillanceFeed(cfg.table.protection, cfg.table.table, notes=True) if shoe else None
        rounds = list(
            rounds_from_journal(f, start) if feed is None else rounds_from_journal(f, start, feed)
        )
        if number is not None:
            found = [r for r in rounds if r[1]["round"] == number] + found
            if found and not every_file:
                if i > 0:
                    print(
                        f"tablectl: round {number} found in {f.path.name}; {i} older file(s) not "
                        "searched (--every-file searches them too)",
                        file=sys.stderr,
                    )
                return found
        else:
            found = rounds + found
            if last > 0 and len(found) >= last:
                return found[-last:]
    return found
