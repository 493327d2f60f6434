"""Random Dealer's Choice sessions (003 "Dealer's Choice"): "The
player located on the dealer's button is allowed to choose the game to be played for that hand
... The rules for each game apply. Then the dealer button is rotated, and the game is chosen by
the next dealer."

Each session seats two to seven players at a Dealer's Choice table (the shipped
config/dealers-choice-003.toml, and the same table offering every game tablectl plays) and plays
up to five hands through a `Table`: before each, now and then a seat sits out or comes back;
each `hand.start` names a game drawn from those offered, and the hand is played to its end by
that game's inputs, drawn as the game's own random-session tests draw them (the flop games'
`_next_input`, stud's `_next_stud_input`, the draw games' `_next_draw_input`: legal actions from
the betting round's own can-check/can-call/least-and-most raise, cards dealt from a shuffled
deck, early `hole.cards`, declared showdowns, misdeals). Properties, after every input:

- chips are conserved: stacks behind, chips in the pot and everything collected are what was
  seated; each result's stacks plus the fees so far too;
- the hand's game is the one chosen, journaled (the `hand.start` record carries it, and a fresh
  table replaying the records publishes the very same bytes) and published: the `hand.start`
  echo, every `state` of the hand (`game` and `dealers_choice.game`) and the round result;
  between hands `state` names `dealers-choice` and no game (docs/games/dealers-choice.md, "What
  is published");
- the chooser is the button's holder: the echo's, the state's and the result's `button` is the
  seat the rules move the button to, clockwise to the next player with chips (the first hand
  names it), and after a misdeal the same seat again ("a misdeal puts the button back, and the
  same player chooses again");
- R46 (docs/rulings.md): no hole, down, discarded or drawn card is on any topic before the
  result that shows its hand (stud's up cards and the board are public); in the result only the
  shown hands' cards;
- Lowball at Dealer's Choice has no joker ("When playing Dealer's Choice, no joker will be
  added", 003 "Lowball" rule 1): a `JKR` entered as a hole card, read at a seat, given on the
  draw or flashed is refused with one alert and changes nothing.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tablectl.config import LoadedConfig, load_config, parse_config
from tablectl.games.dealers_choice.engine import DealersChoiceEngine
from tablectl.games.dealers_choice.spec import OFFERABLE
from tablectl.games.draw.family import DRAW
from tablectl.games.poker.state import PokerState
from tablectl.games.stud.family import STUD
from tablectl.records import Record
from tablectl.table import Table
from tablectl_base.cards import standard_deck
from tests.games.draw.test_draw_properties import Deal as DrawDeal
from tests.games.draw.test_draw_properties import _next_draw_input
from tests.games.poker.test_poker_engine_properties import _next_input
from tests.games.stud.test_stud_properties import Deal as StudDeal
from tests.games.stud.test_stud_properties import _next_stud_input
from tests.helpers import record

D = Decimal
SHIPPED = Path(__file__).resolve().parents[3] / "config" / "dealers-choice-003.toml"
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][shdc]|JKR)(?![A-Za-z0-9])")
"""A card name as tablectl writes one (tablectl/table/masking.py masks these in alerts)."""
WITHOUT_JOKER = "lowball is dealt without the joker"
JOKER = "JKR"
HANDS = 5


def _every_game() -> LoadedConfig:
    """The shipped table offering every game tablectl plays (docs/games/dealers-choice.md,
    `games`), its seven seats the seven-card stud games' most."""
    data = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    data["game"]["games"] = list(OFFERABLE)
    return parse_config(data, SHIPPED)


CONFIGS: dict[str, LoadedConfig] = {
    "dealers-choice-003": load_config(SHIPPED),
    "every-game": _every_game(),
}


# ---------------------------------------------------------------- one hand's cards


@dataclass
class HandCards:
    """The hand in play as the generator deals it, for the chosen game's generator: the flop
    games' deck and hole cards, or stud's or the draw games' `Deal`."""

    game: str
    deck: list[str] = field(default_factory=list)
    holes: dict[int, list[str]] = field(default_factory=dict)
    stud: StudDeal | None = None
    draw: DrawDeal | None = None

    def hidden(self) -> set[str]:
        """Every card of the hand no player but its holder may see: hole cards (a Crazy
        Pineapple discard among them), stud's down cards (an Option Alley hole card bought
        away too), every card of a draw hand."""
        if self.stud is not None:
            return self.stud.downs()
        if self.draw is not None:
            return set(self.draw.every)
        return {c for cards in self.holes.values() for c in cards}


def _deck(deck_order: list[str], hand: int) -> list[str]:
    """The `hand`-th hand's deck: the drawn order cut further each hand."""
    cut = (hand * 19) % len(deck_order)
    return [*deck_order[cut:], *deck_order[:cut]]


def _next_hand_input(
    data: st.DataObject, dc: DealersChoiceEngine, state: PokerState, cards: HandCards
) -> dict[str, Any]:
    """The chosen game's next legal input, as its own random sessions draw it."""
    eng = dc.engines[cards.game]
    if eng.family is STUD:
        assert cards.stud is not None
        ev = _next_stud_input(data, eng, state, cards.stud)
    elif eng.family is DRAW:
        assert cards.draw is not None
        ev = _next_draw_input(data, eng, state, cards.draw)
    else:
        ev = _next_input(data, eng, state, cards.deck, cards.holes)
    assert ev is not None  # a hand in play always waits for something
    return ev


def _joker_probes(
    data: st.DataObject, dc: DealersChoiceEngine, state: PokerState, cards: HandCards
) -> list[dict[str, Any]]:
    """Lowball's joker, now and then, where it would otherwise be taken (003 "Lowball" rule 1):
    a seat's five with the joker (four of its own cards), the joker read at a seat, given on
    the draw to the seat due to draw, flashed to a seat."""
    hand = state.hand
    assert hand is not None and cards.draw is not None
    if data.draw(st.integers(0, 3)):
        return []
    eng = dc.engines["lowball"]
    folded = set(hand.betting.folded_seats)
    seat = data.draw(st.sampled_from([s for s in hand.order if s not in folded]))
    probes: list[dict[str, Any]] = [
        {"type": "hole.cards", "seat": seat, "cards": [*cards.draw.five[seat][:4], JOKER]},
        {"type": "table.card", "zone": "seat", "seat": seat, "card": JOKER},
    ]
    phase = eng.state_view(state).phase
    if phase == "draw":
        due = next(s for s in hand.order if s not in folded and s not in hand.drawn)
        probes.append({"type": "draw", "seat": due, "count": 1, "cards": [JOKER]})
    when = "draw" if phase == "draw" or hand.betting.street > 0 else "deal"
    probes.append({"type": "card.flashed", "seat": seat, "card": JOKER, "when": when})
    return probes


# ---------------------------------------------------------------- the session on a Table


def _strings(value: Any) -> Iterable[str]:
    """Every string inside a decoded JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _chips(state: PokerState) -> Decimal:
    """Stacks behind, chips in the pot and everything collected."""
    live = state.hand.betting.players if state.hand else ()
    behind = {p.seat: p.stack for p in live}
    assert all(v >= 0 for v in behind.values())
    in_pot = sum((p.in_hand for p in live), D(0))
    seats = sum((behind.get(s.seat, s.stack) for s in state.seats), D(0))
    return seats + in_pot + state.collected


def _next_button(state: PokerState) -> int:
    """Where the button goes (docs/games/poker-room.md): clockwise from where it is to the next
    seat with a player with chips who is not sitting out."""
    playing = [s.seat for s in state.seats if s.stack > 0 and not s.away]
    assert state.button is not None
    after = [s for s in playing if s > state.button]
    return (after or playing)[0]


class Session:
    """A Dealer's Choice table played input by input, every published row checked."""

    def __init__(self, cfg: LoadedConfig, deck_order: list[str], data: st.DataObject) -> None:
        self.cfg, self.deck_order, self.data = cfg, deck_order, data
        self.table = Table(cfg)
        engine = self.table.engine
        assert isinstance(engine, DealersChoiceEngine)
        self.dc = engine
        self.offered = list(engine.options.games)
        self.records: list[Record] = []
        self.rows: list[tuple[str, bytes]] = []
        self.seated = self.fees = D(0)
        self.hands = 0
        self.cards: HandCards | None = None
        self.button: int | None = None  # the hand in play's button, as the rules move it
        self.void_button: int | None = None  # the button of a hand just voided
        self.feed({"type": "config", "rules": cfg.rules.to_json(), "source": "config"})

    @property
    def state(self) -> PokerState:
        state = self.table.state
        assert isinstance(state, PokerState)
        return state

    def feed(self, ev: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """One input as the table's next record; its rows (topic below the base, payload)."""
        body = dict(ev)
        source = str(body.pop("source", "test"))
        rec = record(self.table.position + 1, body, source=source)
        self.records.append(rec)
        rows = self.table.apply(rec)
        self.rows += [(r.topic, r.payload) for r in rows]
        return [(r.topic.removeprefix(self.table.base + "/"), json.loads(r.payload)) for r in rows]

    def accepted(self, ev: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """An input that must be taken: no alert; chips and cards checked."""
        rows = self.feed(ev)
        assert not [p for t, p in rows if t == "alert"], (ev, rows)
        if ev["type"] == "seat.take":
            self.seated += D(ev["stack"])
        assert _chips(self.state) == self.seated
        self.check_cards(rows)
        return rows

    def check_cards(self, rows: list[tuple[str, dict[str, Any]]]) -> None:
        """R46: no hidden card of the hand in play before its result; in the result only the
        shown hands' cards. The game and button of every row of the hand are the chosen ones."""
        cards = self.cards
        hidden = cards.hidden() if cards is not None else set()
        for topic, payload in rows:
            allowed: set[str] = set()
            if topic == "round/result":
                allowed = set(_strings(payload["shown"]))
                self.fees += D(payload["fee"]["amount"]) if payload.get("fee") else D(0)
                stacks = sum((D(s["stack"]) for s in payload["stacks"]), D(0))
                assert stacks + self.fees == self.seated, payload
                assert cards is not None
                assert payload["game"] == cards.game and payload["button"] == self.button
            if topic == "state" and payload["hand"] is not None:
                assert cards is not None
                assert payload["game"] == cards.game, payload
                assert payload["dealers_choice"]["game"] == cards.game
                assert payload["button"] == self.button
            elif topic == "state":
                assert payload["game"] == "dealers-choice"
                assert payload["dealers_choice"] == {"games": self.offered, "game": None}
            published = {t for text in _strings(payload) for t in CARD_TOKEN.findall(text)}
            assert not (published & hidden) - allowed, (topic, payload)
            if published & hidden:
                assert cards is not None
                event(f"{cards.game}: hidden cards shown at the showdown")

    def between_hands(self) -> bool:
        """A seat out or back, or the next hand in a game the button's player chooses; False
        when fewer than two players can play."""
        state, data = self.state, self.data
        away = [s.seat for s in state.seats if s.away]
        here = [s.seat for s in state.seats if s.stack > 0 and not s.away]
        pick = data.draw(st.integers(0, 5))
        if away and (len(here) < 2 or pick == 0):
            self.accepted({"type": "seat.back", "seat": away[0]})
            self.void_button = None  # the button may move on to the seat back
            return True
        if len(here) > 2 and pick == 1:
            self.accepted({"type": "seat.away", "seat": data.draw(st.sampled_from(here))})
            self.void_button = None  # the seat sitting out may be the button's
            return True
        if len(here) < 2:
            return False
        game = data.draw(st.sampled_from(self.offered))
        ev: dict[str, Any] = {"type": "hand.start", "game": game}
        if state.button is None:
            ev["button"] = button = data.draw(st.sampled_from(here))
        else:
            button = _next_button(state)
            if self.void_button is not None:
                assert button == self.void_button  # the same player chooses again
                event("a misdeal: the same button chooses again")
        self.void_button = None
        self.button = button
        self.start(ev, button)
        return True

    def start(self, ev: dict[str, Any], button: int) -> None:
        """The chosen game's hand: journaled with its game, echoed with it and the button."""
        game = ev["game"]
        deck = _deck(self.deck_order, self.hands)
        self.cards = HandCards(game, deck=list(deck))
        eng = self.dc.engines[game]
        if eng.family is STUD:
            self.cards.stud = StudDeal(deck=list(deck))
        elif eng.family is DRAW:
            self.cards.draw = DrawDeal(deck=list(deck))
        rows = self.accepted(ev)
        assert self.records[-1].body["game"] == game  # journaled as chosen
        (echo,) = [p for t, p in rows if t == "event"]
        assert (echo["type"], echo["game"], echo["button"]) == ("hand.start", game, button)
        (view,) = [p for t, p in rows if t == "state"]
        assert view["game"] == game and view["button"] == button
        event(f"game chosen: {game}")

    def play_hand(self) -> None:
        """The chosen game's inputs until the hand ends; at Lowball, now and then, the joker
        refused."""
        cards = self.cards
        assert cards is not None
        for _ in range(300):
            state = self.state
            if state.hand is None:
                break
            if cards.game == "lowball" and cards.draw is not None and cards.draw.five:
                for probe in _joker_probes(self.data, self.dc, state, cards):
                    self.refused_joker(probe)
            ev = _next_hand_input(self.data, self.dc, state, cards)
            self.accepted(ev)
            if ev["type"] == "round.void":
                self.void_button = self.button
        assert self.state.hand is None
        self.hands += 1
        self.cards = None

    def refused_joker(self, ev: dict[str, Any]) -> None:
        """003 "Lowball" rule 1 at Dealer's Choice: one alert, nothing changed, no card shown."""
        before, view = self.table.state, self.table.state_payload()
        rows = self.feed(ev)
        assert [t for t, _ in rows] == ["alert"], (ev, rows)
        alert = rows[0][1]
        assert alert["kind"] == "rejected" and WITHOUT_JOKER in alert["reason"], alert
        assert self.table.state == before and self.table.state_payload() == view
        self.check_cards(rows)
        event(f"lowball: a joker refused ({ev['type']})")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=st.sampled_from(sorted(CONFIGS)),
    stacks=st.lists(st.integers(3, 80), min_size=2, max_size=7),
    deck_order=st.permutations([str(c) for c in standard_deck()]),
    data=st.data(),
)
def test_each_hand_is_the_buttons_chosen_game_conserves_chips_and_hides_cards(
    config: str, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> None:
    """003 "Dealer's Choice" and docs/games/dealers-choice.md ("A hand", "What is published"):
    up to five hands, each in the game the button's player chose, played to its end; chips
    conserved, the game journaled and published as chosen, the chooser the button's holder,
    no hidden card published (R46), Lowball without the joker (003 "Lowball" rule 1); and the
    journal replayed on a fresh table publishes the same bytes."""
    cfg = CONFIGS[config]
    session = Session(cfg, deck_order, data)
    for i, stack in enumerate(stacks):
        session.accepted({"type": "seat.take", "seat": i + 1, "stack": str(stack)})
    for _ in range(60):
        if session.hands == HANDS:
            break
        if session.state.hand is None and not session.between_hands():
            break
        if session.state.hand is not None:
            session.play_hand()
    event(f"{config}: {session.hands} hands")

    again = Table(cfg)
    replayed = [(r.topic, r.payload) for rec in session.records for r in again.apply(rec)]
    assert replayed == session.rows
    assert again.state == session.table.state
