"""One property suite for the poker families (flop, stud, draw), parametrised over them: random
legal sessions of up to three hands through the one poker engine, each family's inputs drawn by
its own generator (`_next_input`, `_next_stud_input`, `_next_draw_input`).

After every input: chips are conserved (stacks behind, chips in the pot and everything collected
stay what was seated) and no stack behind goes negative; no card the family keeps hidden is
published (R46): a flop game's hole cards before the result that shows their hand, a stud
hand's down cards (in the result only a shown hand's), a draw hand's cards dealt, drawn or thrown
away (in the result only the five of a shown hand, its final five); a folded stud seat's up cards
leave `state` for good (003 "Basic Seven Card Stud Rules" rule 2). At Lowball, each showdown the
hands speak in with a single pot pays as the test works R45 out by itself. At the end no stack
is negative, and replaying the same inputs gives the same state and byte-identical records.

The flop games play every betting structure under both documents with a full kill at fixed and
spread limit; stud and draw play their shipped configs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tablectl.game_records import GameRecord, PokerHandSettled
from tablectl.games.poker.engine import PokerEngine
from tablectl.games.poker.state import VARIANTS, PokerSettings, PokerState
from tablectl.render import render
from tablectl_base.cards import standard_deck
from tablectl_base.events import parse_event
from tests.games.draw.test_draw_properties import (
    DRAW_CONFIGS,
    Ledger,
    _check_R45,
    _next_draw_input,
    low_first,
    packs,
)
from tests.games.draw.test_draw_properties import PACK as DRAW_PACK
from tests.games.draw.test_draw_properties import Deal as DrawDeal
from tests.games.draw.test_draw_properties import _deck as draw_deck
from tests.games.draw.test_draw_properties import _engine as draw_engine
from tests.games.poker.test_poker_engine_properties import (
    KILL_STRUCTURES,
    SCHEDULE,
    STRUCTURES,
    _next_input,
)
from tests.games.stud.test_stud_properties import CONFIG, STUD_CONFIGS, _next_stud_input
from tests.games.stud.test_stud_properties import Deal as StudDeal
from tests.games.stud.test_stud_properties import _deck as stud_deck
from tests.games.stud.test_stud_properties import _engine as stud_engine

D = Decimal


def _published(records: Sequence[GameRecord]) -> list[str]:
    """Each record as its published JSON (topic and payload)."""
    return [json.dumps([m.topic, m.payload]) for m in map(render, records)]


def _quoted(cards: set[str], text: str) -> list[str]:
    return sorted(c for c in cards if f'"{c}"' in text)


class Dealer(Protocol):
    """A family's side of a random session: it deals each hand's cards, draws the next legal
    input, and checks what an input published against the cards it keeps hidden."""

    def new_hand(self, hands: int, state: PokerState) -> None: ...

    def next_input(self, data: st.DataObject, state: PokerState) -> dict[str, Any] | None: ...

    def check(self, step: dict[str, Any], out: list[GameRecord], state: PokerState) -> int:
        """Assert the family's card properties of `out`; the hands it settled."""
        ...


# ---------------------------------------------------------------- each family's dealer


@dataclass
class FlopDealer:
    eng: PokerEngine
    deck_order: list[str]
    deck: list[str] = field(default_factory=list)
    holes: dict[int, list[str]] = field(default_factory=dict)

    def new_hand(self, hands: int, state: PokerState) -> None:
        self.deck, self.holes = list(self.deck_order), {}

    def next_input(self, data: st.DataObject, state: PokerState) -> dict[str, Any] | None:
        return _next_input(data, self.eng, state, self.deck, self.holes)

    def check(self, step: dict[str, Any], out: list[GameRecord], state: PokerState) -> int:
        settled = 0
        for r in out:
            if isinstance(r, PokerHandSettled):
                settled += 1
                event(
                    "void" if r.void else f"showdown, {len(r.pots)} pots" if r.showdown else "folds"
                )
        if state.hand is not None and state.hand.kill is not None:
            event("a kill pot dealt")
        # R46: a hole card is published only in a result that shows its hand.
        for text in _published([r for r in out if not isinstance(r, PokerHandSettled)]):
            for cards in self.holes.values():
                assert not any(f'"{c}"' in text for c in cards), text
        return settled


@dataclass
class StudDealer:
    eng: PokerEngine
    deck_order: list[str]
    deal: StudDeal = field(default_factory=StudDeal)

    def new_hand(self, hands: int, state: PokerState) -> None:
        self.deal = StudDeal(deck=stud_deck(self.deck_order, hands))

    def next_input(self, data: st.DataObject, state: PokerState) -> dict[str, Any] | None:
        return _next_stud_input(data, self.eng, state, self.deal)

    def check(self, step: dict[str, Any], out: list[GameRecord], state: PokerState) -> int:
        settled = 0
        deal = self.deal
        # R46: no down card in anything published before the result; in the result, only the
        # down cards of the hands it shows.
        hidden = deal.downs()
        for r, text in zip(out, _published(out), strict=True):
            if isinstance(r, PokerHandSettled):
                settled += 1
                shown = {s.seat for s in r.shown}
                hidden = {c for s, cards in deal.down.items() if s not in shown for c in cards}
                kind = "void" if r.void else "declared" if r.declared else "shown"
                event(f"{self.eng.game_id}: {kind if r.showdown or r.void else 'folds'}")
            assert not _quoted(hidden, text), (step, text)
        # A folded seat's up cards are turned down: `state` shows none of them (rule 2, R46).
        if state.hand is not None:
            text = _published(out[-1:])[0]  # the `state` after the input
            for s in state.hand.betting.folded_seats:
                if deal.up.get(s):
                    event("a folded seat's up cards turned down")
                assert not _quoted(set(deal.up.get(s, [])), text), (s, text)
        return settled


@dataclass
class DrawDealer:
    eng: PokerEngine
    config: Path
    deck_order: list[str]
    low: bool = False  # every hand's deck deals its low cards first (`low_first`)
    deal: DrawDeal = field(default_factory=DrawDeal)
    ledger: Ledger = field(default_factory=lambda: Ledger({}))

    def new_hand(self, hands: int, state: PokerState) -> None:
        deck = draw_deck(self.deck_order, hands, self.eng.game.joker)
        self.deal = DrawDeal(deck=low_first(deck) if self.low else deck)
        self.ledger = Ledger({s.seat: s.stack for s in state.seats})

    def next_input(self, data: st.DataObject, state: PokerState) -> dict[str, Any] | None:
        return _next_draw_input(data, self.eng, state, self.deal)

    def check(self, step: dict[str, Any], out: list[GameRecord], state: PokerState) -> int:
        settled = 0
        deal, ledger = self.deal, self.ledger
        # R46: no card of the hand in anything published before the result; in the result only
        # the five cards of the hands it shows, each the seat's five as they stand.
        hidden = set(deal.every)
        for r, text in zip(out, _published(out), strict=True):
            message = render(r)
            if message.topic == "event":
                ledger.read(message.payload)
            if isinstance(r, PokerHandSettled):
                settled += 1
                for hand in r.shown:
                    assert sorted(hand.cards) == sorted(deal.five[hand.seat]), (hand, deal)
                shown = {c for hand in r.shown for c in hand.cards}
                hidden = deal.every - shown
                kind = "void" if r.void else "declared" if r.declared else "shown"
                event(f"{self.config.name}: {kind if r.showdown or r.void else 'folds'}")
                if ledger.drawn and r.showdown and not r.declared and self.eng.game.seven_rule:
                    _check_R45(self.config, ledger, deal, r)
            assert not _quoted(hidden, text), (step, text)
        return settled


# ---------------------------------------------------------------- the shared properties


def check_session(eng: PokerEngine, stacks: list[int], dealer: Dealer, data: st.DataObject) -> None:
    """Plays a random session of up to three hands (the dealer's inputs, drawn as it goes) and
    checks after every input the chips and the dealer's card properties, and at the end the
    stacks and the replay."""
    state = eng.initial()
    inputs: list[dict[str, Any]] = [
        {"type": "seat.take", "seat": i + 1, "stack": str(s)} for i, s in enumerate(stacks)
    ]
    records: list[GameRecord] = []
    for ev in inputs:
        state, out = eng.apply(state, parse_event(ev), "t")
        records += out
    total = D(sum(stacks))
    hands = 0
    for _ in range(400):
        if state.hand is None:
            if hands == 3:
                break
            dealer.new_hand(hands, state)
        step = dealer.next_input(data, state)
        if step is None:
            break
        inputs.append(step)
        state, out = eng.apply(state, parse_event(step), "t")
        records += out
        # Chips: stacks behind, chips in the pot and the house's collection are what was seated.
        live = state.hand.betting.players if state.hand else ()
        behind = {p.seat: p.stack for p in live}
        in_pot = sum((p.in_hand for p in live), D(0))
        assert all(v >= 0 for v in behind.values())
        seats = sum((behind.get(s.seat, s.stack) for s in state.seats), D(0))
        assert seats + in_pot + state.collected == total
        hands += dealer.check(step, out, state)
    assert all(s.stack >= 0 for s in state.seats)

    again = eng.initial()
    replayed: list[GameRecord] = []
    for ev in inputs:
        again, out = eng.apply(again, parse_event(ev), "t")
        replayed += out
    assert again == state
    assert _published(replayed) == _published(records)


def _flop_table(data: st.DataObject) -> tuple[PokerEngine, list[int], Dealer]:
    """A flop game under any structure and either document (fixed and spread limit tables play
    a full kill: kill pots among the hands), stacks of 1-120, a shuffled deck."""
    structure = data.draw(st.sampled_from(sorted(STRUCTURES)), label="structure")
    eng = PokerEngine(
        PokerSettings(
            variant=data.draw(st.sampled_from(VARIANTS), label="variant"),
            structure=STRUCTURES[structure],
            small_blind=D("1"),
            big_blind=D("2"),
            chip=D("1"),
            document=data.draw(st.sampled_from(["003", "004"]), label="document"),
            schedule=SCHEDULE,
            kill="full" if structure in KILL_STRUCTURES else "none",
            kill_factor=D(2),
            kill_structure=KILL_STRUCTURES.get(structure),
        )
    )
    stacks = data.draw(st.lists(st.integers(1, 120), min_size=2, max_size=6), label="stacks")
    deck = data.draw(st.permutations([str(c) for c in standard_deck()]), label="deck")
    return eng, stacks, FlopDealer(eng, deck)


def _stud_table(data: st.DataObject) -> tuple[PokerEngine, list[int], Dealer]:
    """A shipped stud table, stacks of 1-60, a shuffled deck."""
    eng = stud_engine(CONFIG / data.draw(st.sampled_from(STUD_CONFIGS), label="config"))
    stacks = data.draw(st.lists(st.integers(1, 60), min_size=2, max_size=6), label="stacks")
    deck = data.draw(st.permutations([str(c) for c in standard_deck()]), label="deck")
    return eng, stacks, StudDealer(eng, deck)


def _draw_table(data: st.DataObject) -> tuple[PokerEngine, list[int], Dealer]:
    """A shipped draw table, stacks of 1-60, Lowball's pack shuffled (or its low cards first)."""
    config = CONFIG / data.draw(st.sampled_from(DRAW_CONFIGS), label="config")
    eng = draw_engine(config)
    stacks = data.draw(st.lists(st.integers(1, 60), min_size=2, max_size=6), label="stacks")
    return eng, stacks, DrawDealer(eng, config, data.draw(packs(), label="pack"))


@dataclass(frozen=True)
class Family:
    """A family's tables and how many random sessions it plays."""

    table: Callable[[st.DataObject], tuple[PokerEngine, list[int], Dealer]]
    examples: int


FAMILIES = {
    "flop": Family(_flop_table, 60),
    "stud": Family(_stud_table, 120),
    "draw": Family(_draw_table, 120),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_random_sessions_conserve_chips_hide_cards_and_replay_the_same_R46(family: str) -> None:
    case = FAMILIES[family]

    @settings(
        max_examples=case.examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        eng, stacks, dealer = case.table(data)
        check_session(eng, stacks, dealer, data)

    run()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stacks=st.lists(st.integers(8, 60), min_size=2, max_size=6),
    deck_order=st.permutations(DRAW_PACK),
    low=st.booleans(),
    data=st.data(),
)
def test_random_lowball_hands_pay_the_seven_rule_as_worked_by_hand_R45(
    stacks: list[int], deck_order: list[str], low: bool, data: st.DataObject
) -> None:
    """The same properties at Lowball alone, its stacks deep enough that hands reach the second
    round, and each showdown the hands speak in with a single pot paid as
    `expected_lowball_stacks` works it out (R45)."""
    config = CONFIG / "lowball-003.toml"
    eng = draw_engine(config)
    check_session(eng, stacks, DrawDealer(eng, config, deck_order, low=low), data)
