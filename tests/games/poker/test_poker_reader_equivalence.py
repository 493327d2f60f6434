"""A hand read by the card-reading table is the same hand entered at the console:
random sessions of the flop games are played twice through a `Table`, once with the console's
`hole.cards`, `board.cards` and `hole.discard`, once with the reader's `table.card` placements
(each card in its zone, in order, with its position), and every round result and the final
state must be the same but for where the cards came from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.config import load_config
from tablectl.table import Table
from tablectl_base.cards import standard_deck
from tests.games.poker.test_poker_engine_properties import poker_session
from tests.helpers import records

CONFIG = Path(__file__).resolve().parents[3] / "config"
READ_BY_TABLE = ("positions", "devices", "chain")  # where the cards came from, not the hand


def as_read(inputs: list[Any]) -> list[Any]:
    """The same session with every card the reader's: one `table.card` a card, in its zone,
    numbered from 1 in each hand's run (the reader's HND), from `device/reader`."""
    out: list[Any] = []
    hand, pos = 0, 0

    def placed(zone: str, card: str, seat: int | None = None) -> dict[str, Any]:
        nonlocal pos
        pos += 1
        ev: dict[str, Any] = {"type": "table.card", "zone": zone, "card": card}
        if seat is not None:
            ev["seat"] = seat
        return {**ev, "at": {"run": f"h{hand}", "pos": pos}, "source": "device/reader"}

    for ev in inputs:
        kind = ev["type"]
        if kind == "hand.start":
            hand, pos = hand + 1, 0
            out.append(ev)
        elif kind == "hole.cards":
            out += [placed("seat", c, ev["seat"]) for c in ev["cards"]]
        elif kind == "board.cards":
            out += [placed("board", c) for c in ev["cards"]]
        elif kind == "hole.discard":
            out.append(placed("muck", ev["card"]))
        else:
            out.append(ev)
    return out


def results(name: str, inputs: list[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every round result (less where its cards came from) and the last state."""
    table = Table(load_config(CONFIG / name))
    out: list[dict[str, Any]] = []
    for rec in records(inputs):
        for row in table.apply(rec):
            payload = json.loads(row.payload)
            refused = payload.get("kind") in ("rejected", "invalid-input", "engine-error")
            assert not (row.topic.endswith("/alert") and refused), payload
            if row.topic.endswith("/round/result"):
                # `ts` is the time of the record that finished the hand: the reader's hand
                # has more records (one a card), so it differs by design.
                for key in ("table", "seq", "ts", *READ_BY_TABLE):
                    payload.pop(key, None)
                out.append(payload)
    return out, table.state_payload()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(
        ["texas-holdem-004.toml", "omaha-hi-lo-004.toml", "crazy-pineapple-hi-lo-003.toml"]
    ),
    stacks=st.lists(st.integers(5, 120), min_size=2, max_size=6),
    deck=st.permutations([str(c) for c in standard_deck()]),
    data=st.data(),
)
def test_a_hand_read_by_the_table_settles_as_the_same_hand_entered_at_the_console(
    name: str, stacks: list[int], deck: list[str], data: st.DataObject
) -> None:
    session = poker_session(CONFIG / name, stacks, deck, data)
    entered, entered_state = results(name, session)
    read, read_state = results(name, as_read(session))
    assert read == entered
    assert read_state == entered_state
