"""Random Lowball and Five Card Draw sessions played twice through
a `Table`: once at the console alone (`hole.cards`, and each `draw` naming its `discard` and
`cards`), once with every card read by the card-reading table (`table.card`,
docs/protocols/poker-table.md) as docs/games/draw.md ("A hand, input by input") says a draw hand
is read: the deal around at the seat antennas, each drawing seat's discards in the muck (before
or after the console's `draw` count), a burn in the muck ("the dealer 'burns' (discards) top card
face down and then fills the player's requirements", 003 "Lowball" rule 18), then the seat's
cards, at most four at once, the fifth of five after every other seat has its own ("only four
cards can be given at one time. The fifth card will be dealt after the other players have
received their requested cards", 003 "Lowball" rule 16). A folded hand goes to the muck too
(it changes nothing, docs/protocols/poker-table.md).

Properties:
- equivalence: both tables publish the same round results (pots, fees, returns, stacks, shown
  hands) but for where the cards came from, and end in the same `state`;
- chips are conserved after every input (stacks behind, chips in the pot and everything
  collected stay what was seated), and each result's stacks plus the fees so far too;
- R46 (docs/rulings.md, "R46 Cards in poker"; docs/mqtt.md "Alerts never show a card"): no card
  of a hand (dealt, thrown away, burnt or drawn) appears in any published payload (event,
  state, alert, round/result) before its result, refused inputs' alerts included, and in the
  result only the cards of the hands it shows;
- a reader card dealt before its seat's burn (rule 18) or a fifth card given before the others
  have theirs (rule 16) is refused with one alert naming that rule and changes nothing.

The refused inputs are the reader's rule-16 and rule-18 reads and, at the console, a draw out
of turn naming its cards and a seat's hand of four.

Found by writing these, fixed, and kept as tests below: a refused `draw` published its
`discard` (a seat's hole cards) in the alert's `input`
(`test_a_refused_draw_alert_withholds_the_seats_discards_R46`); a hand whose first round is
over as it starts (every player but one all-in on the blinds) could not be dealt from the
reader (`test_a_hand_all_in_on_the_blinds_is_dealt_from_the_reader`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tablectl.config import LoadedConfig, load_config
from tablectl.games.draw.family import DRAW
from tablectl.games.poker.engine import PokerEngine
from tablectl.games.poker.state import PokerState
from tablectl.games.registry import make_engine
from tablectl.table import Table
from tablectl_base.cards import standard_deck
from tablectl_base.events import parse_event
from tests.games.poker.test_poker_engine_properties import _amount
from tests.helpers import feed, records

D = Decimal
CONFIG = Path(__file__).resolve().parents[3] / "config"
CONFIGS = ("lowball-003.toml", "five-card-draw-003.toml")
JOKER = "JKR"
PACK = [*(str(c) for c in standard_deck()), JOKER]
READER = "device/reader"
BURN_RULE = '003 "Lowball" (Lowball Rules, rule 18)'
AT_ONCE_RULE = '003 "Lowball" (Lowball Rules, rule 16)'
FROM_THE_READER = ("table", "seq", "ts", "devices", "positions", "chain")
"""Round result keys that say where the cards came from (or number the message), not the hand."""
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][shdc]|JKR)(?![A-Za-z0-9])")
"""A card name as tablectl writes one (tablectl/table/masking.py masks these in alerts)."""


# ---------------------------------------------------------------- the two sessions


class Refusal(NamedTuple):
    """What must refuse an input: its alert's rule, and words of its reason (None: any)."""

    rule: str | None = None
    reason: str | None = None


@dataclass
class Script:
    """One random session, as the console enters it and as the reader reads it. Each input is
    tagged with the hand it belongs to (an index into `cards`, -1 between hands);
    `console_refused` and `reader_refused` map an input of each session to the refusal it must
    meet."""

    console: list[dict[str, Any]] = field(default_factory=list)
    reader: list[dict[str, Any]] = field(default_factory=list)
    console_hand: list[int] = field(default_factory=list)
    reader_hand: list[int] = field(default_factory=list)
    console_refused: dict[int, Refusal] = field(default_factory=dict)
    reader_refused: dict[int, Refusal] = field(default_factory=dict)
    cards: list[set[str]] = field(default_factory=list)  # every card of each hand
    run: str = ""
    pos: int = 0

    @property
    def hand(self) -> int:
        return len(self.cards) - 1

    def both(
        self, ev: dict[str, Any], *, between: bool = False, refused: Refusal | None = None
    ) -> None:
        hand = -1 if between else self.hand
        if refused is not None:
            self.console_refused[len(self.console)] = refused
            self.reader_refused[len(self.reader)] = refused
        self.console.append(ev)
        self.console_hand.append(hand)
        self.reader.append(ev)
        self.reader_hand.append(hand)

    def console_only(self, ev: dict[str, Any]) -> None:
        self.console.append(ev)
        self.console_hand.append(self.hand)

    def reader_only(self, ev: dict[str, Any], refused: Refusal | None = None) -> None:
        if refused is not None:
            self.reader_refused[len(self.reader)] = refused
        self.reader.append(ev)
        self.reader_hand.append(self.hand)

    def read(
        self, zone: str, card: str, seat: int | None = None, refused: Refusal | None = None
    ) -> None:
        """The reader's next placement in this hand's run (its `HND`), from the reader."""
        self.pos += 1
        ev: dict[str, Any] = {"type": "table.card", "zone": zone, "card": card}
        if seat is not None:
            ev["seat"] = seat
        ev["at"] = {"run": self.run, "pos": self.pos}
        self.reader_only({**ev, "source": READER}, refused)
        self.cards[self.hand].add(card)


@dataclass
class Cards:
    """The hand in play as the generator dealt it: the deck left, each seat's five as they
    stand, the fifth cards the reader still owes (rule 16)."""

    deck: list[str]
    five: dict[int, list[str]] = field(default_factory=dict)
    late: list[tuple[int, str]] = field(default_factory=list)


def _engine(name: str) -> PokerEngine:
    engine = make_engine(load_config(CONFIG / name).rules)
    assert isinstance(engine, PokerEngine) and engine.family is DRAW
    return engine


def _live(state: PokerState) -> list[int]:
    hand = state.hand
    assert hand is not None
    folded = set(hand.betting.folded_seats)
    return [s for s in hand.order if s not in folded]


def _deck(deck_order: Sequence[str], hand: int, joker: bool) -> list[str]:
    """The `hand`-th hand's deck: the drawn order cut further each hand; the joker at Lowball."""
    order = [c for c in deck_order if joker or c != JOKER]
    cut = (hand * 17) % len(order)
    return [*order[cut:], *order[:cut]]


def _straddles(data: st.DataObject, state: PokerState, button: int) -> list[str]:
    """Lowball's straddles, now and then: the seats after the big blind in turn, each double the
    one before and at most half the straddler's chips (003 "Lowball" rule 5)."""
    playing = [s for s in state.seats if s.stack > 0 and not s.away]
    i = next(k for k, s in enumerate(playing) if s.seat == button)
    clockwise = playing[i + 1 :] + playing[: i + 1]
    amounts: list[str] = []
    if data.draw(st.integers(0, 2)):
        return amounts
    before = D(2)  # the big blind
    for p in clockwise[2:]:
        if p.owes != "none" or 4 * before > p.stack or not data.draw(st.booleans()):
            break
        before *= 2
        amounts.append(str(before))
    return amounts


def _between_hands(
    data: st.DataObject, eng: PokerEngine, state: PokerState
) -> dict[str, Any] | None:
    """A seat sitting out or back, or the next `hand.start` (the first names the button)."""
    away = [s.seat for s in state.seats if s.away]
    here = [s.seat for s in state.seats if s.stack > 0 and not s.away]
    pick = data.draw(st.integers(0, 5))
    if away and (len(here) < 2 or pick == 0):
        return {"type": "seat.back", "seat": away[0]}
    if len(here) > 2 and pick == 1:
        return {"type": "seat.away", "seat": data.draw(st.sampled_from(here))}
    if len(here) < 2:
        return None
    ev: dict[str, Any] = {"type": "hand.start"}
    if state.button is None:
        ev["button"] = button = here[0]
    else:
        button = next((s for s in here if s > state.button), here[0])
    kill_pot = state.kill_next and state.kill_holder in here
    if eng.game.pass_and_out and not kill_pot and (straddles := _straddles(data, state, button)):
        ev["straddles"] = straddles
    return ev


def _decision(data: st.DataObject, eng: PokerEngine, state: PokerState) -> dict[str, Any]:
    """A legal action of the seat whose turn it is (Lowball: pass and out before the draw, no
    check but a blind's or straddle's option)."""
    hand = state.hand
    assert hand is not None
    b = hand.betting
    turn = b.turn
    assert turn is not None
    option = not eng.game.pass_and_out or b.street > 0 or b.player(turn).in_round > 0
    options = [
        a
        for a, ok in (("check", b.can_check() and option), ("call", b.can_call()), ("fold", True))
        if ok
    ]
    if "check" in options:
        options += ["check", "check"]  # showdowns come often
    if "call" in options:
        options.append("call")
    if b.can_all_in():
        options.append("all-in")
    low, high = b.min_bet_or_raise_to, b.max_bet_or_raise_to
    if low is not None and high is not None:
        options.append("bet" if b.current_bet == 0 else "raise")
    action = data.draw(st.sampled_from(options))
    ev: dict[str, Any] = {"type": "decision", "seat": turn, "action": action}
    if action in ("bet", "raise"):
        assert low is not None and high is not None
        ev["amount"] = _amount(data, low, high)
    return ev


class Generator:
    """Plays a random session at the console on the draw engine (the judge of what is legal)
    and writes it into a `Script` twice: as entered, and as read."""

    def __init__(self, name: str, deck_order: list[str], data: st.DataObject) -> None:
        self.eng = _engine(name)
        self.state = self.eng.initial()
        self.deck_order, self.data = deck_order, data
        self.script = Script()
        self.hand = Cards([])

    def apply(self, ev: dict[str, Any]) -> None:
        """The console's input on the driving engine: it must be accepted."""
        self.state, _ = self.eng.apply(self.state, parse_event(ev), "t")

    def start(self, ev: dict[str, Any]) -> None:
        """A hand.start, then the deal: five rounds of one card each in the order dealt, read
        at the seats; the console enters each seat's five."""
        s = self.script
        s.both(ev, between=True)
        self.apply(ev)
        hand = self.state.hand
        assert hand is not None
        s.cards.append(set())
        s.run, s.pos = f"h{s.hand}", 0
        self.hand = Cards(_deck(self.deck_order, s.hand, self.eng.game.joker))
        five: dict[int, list[str]] = {seat: [] for seat in hand.order}
        for _ in range(5):
            for seat in hand.order:
                card = self.hand.deck.pop()
                five[seat].append(card)
                s.cards[s.hand].add(card)
        self.hand.five = five
        for i in range(5):  # (a hand all in on its blinds is dealt from the reader too)
            for seat in hand.order:
                s.read("seat", five[seat][i], seat)
        for seat in hand.order:
            ev = {"type": "hole.cards", "seat": seat, "cards": list(five[seat])}
            s.console_only(ev)
            self.apply(ev)

    def decide(self) -> None:
        """A betting action; a folded hand's five go to the muck (now and then)."""
        ev = _decision(self.data, self.eng, self.state)
        self.script.both(ev)
        self.apply(ev)
        seat = ev["seat"]
        if ev["action"] == "fold" and self.state.hand is not None and self.data.draw(st.booleans()):
            for card in self.hand.five[seat]:
                self.script.read("muck", card)
            event("a folded hand read in the muck")

    def probe_console(self, seat: int) -> None:
        """Console inputs refused with cards named (their alerts must show none): a draw out of
        turn naming the cards given, a seat's hand of four."""
        hand = self.state.hand
        assert hand is not None
        live = _live(self.state)
        due = [x for x in live if x not in hand.drawn]
        later = [x for x in due if x != seat]
        if later and self.data.draw(st.integers(0, 3)) == 0:
            cards = self.hand.deck[-1:]
            mine = self.hand.five[later[0]][:1]  # its own card, which the alert must withhold
            ev = {"type": "draw", "seat": later[0], "count": 1, "cards": cards, "discard": mine}
            self.script.both(ev, refused=Refusal(reason=f"seat {seat} draws first"))
            self.script.cards[self.script.hand] |= set(cards)
            event("probe: a draw out of turn naming its cards")
        if self.data.draw(st.integers(0, 5)) == 0:
            ev = {"type": "hole.cards", "seat": seat, "cards": self.hand.five[seat][:4]}
            self.script.both(ev, refused=Refusal(reason="a draw hand is five cards, not 4"))
            event("probe: a hand of four")

    def draw(self) -> None:
        """The next seat's draw: at the console its count, discards and cards; at the reader its
        discards to the muck, the count, a burn in the muck (any order, the cards after the
        count and the burn), then at most four cards, the fifth after every other seat has its
        cards. Sometimes a card dealt before the burn (rule 18) or a fifth dealt at once (rule
        16), each refused."""
        data, s, cards = self.data, self.script, self.hand
        hand = self.state.hand
        assert hand is not None
        seat = next(x for x in _live(self.state) if x not in hand.drawn)
        self.probe_console(seat)
        most = max(0, min(5, len(cards.deck) - 1))  # a burn and the cards, from this deck
        count = data.draw(st.one_of(st.just(most), st.integers(0, most)))
        five = cards.five[seat]
        out = sorted(data.draw(st.permutations(range(5)))[:count])
        discard = [five[i] for i in out]
        new = [cards.deck.pop() for _ in range(count)]
        burn = cards.deck.pop() if count else None
        ev: dict[str, Any] = {"type": "draw", "seat": seat, "count": count}
        s.console_only({**ev, "discard": discard, "cards": new} if count else ev)
        self.apply(s.console[-1])
        cards.five[seat] = [c for c in five if c not in discard] + new
        s.cards[s.hand] |= {*new, *([burn] if burn else [])}
        last = self.state.hand is None or self.eng.state_view(self.state).phase != "draw"
        if not count:
            s.reader_only(ev)
        else:
            counted = False
            for step in data.draw(st.permutations(["discards", "count", "burn"])):
                if step == "discards":
                    for card in discard:
                        s.read("muck", card)
                elif step == "count":
                    s.reader_only(ev)
                    counted = True
                else:
                    assert burn is not None
                    if counted and data.draw(st.booleans()):
                        s.read("seat", new[0], seat, refused=Refusal(BURN_RULE))
                        event("probe: a drawn card before its burn (rule 18)")
                    s.read("muck", burn)
            for card in new[:4]:
                s.read("seat", card, seat)
            if count == 5:
                if not last and data.draw(st.booleans()):
                    s.read("seat", new[4], seat, refused=Refusal(AT_ONCE_RULE))
                    event("probe: a fifth card at once (rule 16)")
                cards.late.append((seat, new[4]))
        if last and cards.late:
            event("a fifth card after the others (rule 16)")
            for late_seat, card in data.draw(st.permutations(cards.late)):
                s.read("seat", card, late_seat)
            cards.late = []

    def session(self, stacks: list[int]) -> Script:
        """Up to three hands from the players sitting down."""
        s = self.script
        for i, stack in enumerate(stacks):
            take: dict[str, Any] = {"type": "seat.take", "seat": i + 1, "stack": str(stack)}
            s.both(take, between=True)
            self.apply(take)
        for _ in range(400):
            if self.state.hand is None:
                if s.hand == 2:
                    break
                ev = _between_hands(self.data, self.eng, self.state)
                if ev is None:
                    break
                if ev["type"] == "hand.start":
                    self.start(ev)
                else:
                    s.both(ev, between=True)
                    self.apply(ev)
                continue
            if self.data.draw(st.integers(0, 120)) == 7:
                ev = {"type": "round.void", "reason": "misdeal"}
                s.both(ev)
                self.apply(ev)
                event("a misdeal")
                continue
            phase = self.eng.state_view(self.state).phase
            assert phase in ("betting", "draw"), phase  # every five is known: hands speak
            if phase == "draw":
                self.draw()
            else:
                self.decide()
        return s


# ---------------------------------------------------------------- playing a session on a Table


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


@dataclass
class Played:
    results: list[dict[str, Any]]
    state: dict[str, Any]


def play_script(
    cfg: LoadedConfig,
    events: list[dict[str, Any]],
    hand_of: list[int],
    cards: list[set[str]],
    refused: dict[int, Refusal],
    total: Decimal,
) -> Played:
    """Plays `events` on a fresh Table (its rules journaled first), checking after every input
    the chips, the cards published, and that each input is accepted, or refused when `refused`
    names a rule: then one alert of that rule and nothing else changed."""
    table = Table(cfg)
    inputs: list[dict[str, Any]] = [
        {"type": "config", "rules": cfg.rules.to_json(), "source": "config"},
        *events,
    ]
    results: list[dict[str, Any]] = []
    fees = seated = D(0)
    for i, rec in enumerate(records(inputs)):
        if rec.body.get("type") == "seat.take":
            seated += D(rec.body["stack"])
        k = i - 1  # the index in `events`
        before, before_view = table.state, table.state_payload()
        rows = table.apply(rec)
        topics = [r.topic.rsplit("/", 1)[-1] for r in rows]
        payloads = [json.loads(r.payload) for r in rows]
        if k in refused:
            assert topics == ["alert"], (events[k], payloads)
            alert, want = payloads[0], refused[k]
            assert alert["kind"] == "rejected", alert
            assert want.rule is None or alert["rule"] == want.rule, (want, alert)
            assert want.reason is None or want.reason in alert["reason"], (want, alert)
            assert table.state == before and table.state_payload() == before_view
        else:
            assert "alert" not in topics, (events[: k + 1], payloads)
        assert _chips(table.state) == seated
        hidden = cards[hand_of[k]] if k >= 0 and hand_of[k] >= 0 else set()
        for topic, payload in zip(topics, payloads, strict=True):
            allowed: set[str] = set()
            if topic == "result":
                allowed = {c for shown in payload["shown"] for c in shown["cards"]}
                fees += D(payload["fee"]["amount"]) if payload.get("fee") else D(0)
                stacks = sum((D(x["stack"]) for x in payload["stacks"]), D(0))
                assert stacks + fees == seated == total, payload
                results.append({k: v for k, v in payload.items() if k not in FROM_THE_READER})
            published = {t for text in _strings(payload) for t in CARD_TOKEN.findall(text)} & hidden
            assert published <= allowed, (topic, payload, published - allowed)
    return Played(results, table.state_payload())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(CONFIGS),
    stacks=st.lists(st.integers(1, 60), min_size=2, max_size=6),
    deck_order=st.permutations(PACK),
    data=st.data(),
)
def test_a_draw_hand_read_by_the_table_settles_as_entered_conserves_chips_and_hides_cards(
    name: str, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> None:
    """docs/games/draw.md ("A hand, input by input", "What is published"), 003 "Lowball" rules
    16 and 18, R46: equivalence of the console and the reader, chips conserved, no card of a
    hand published before its result shows it, and each rule-16 or rule-18 read refused with
    one alert and no change."""
    cfg = load_config(CONFIG / name)
    script = Generator(name, deck_order, data).session(stacks)
    total = D(sum(stacks))
    entered = play_script(
        cfg, script.console, script.console_hand, script.cards, script.console_refused, total
    )
    read = play_script(
        cfg, script.reader, script.reader_hand, script.cards, script.reader_refused, total
    )
    assert read.results == entered.results
    assert read.state == entered.state
    for result in entered.results:
        event(f"{name}: {'void' if result.get('void') else 'shown' if result['shown'] else 'won'}")
        if result.get("returned"):
            event("R45: chips after the draw returned")


# ---------------------------------------------------------------- what the sessions found


def _to_the_draw(name: str) -> tuple[Table, list[str]]:
    """Seats 1, 3 and 5 ($100 each), button 1: seat 3's five entered, the first round called
    around; seat 3 is due to draw."""
    cfg = load_config(CONFIG / name)
    table = Table(cfg)
    five = ["Ah", "2d", "3s", "Kc", "Qh"]
    inputs: list[dict[str, Any]] = [
        {"type": "config", "rules": cfg.rules.to_json(), "source": "config"},
        *({"type": "seat.take", "seat": s, "stack": "100"} for s in (1, 3, 5)),
        {"type": "hand.start", "button": 1},
        {"type": "hole.cards", "seat": 3, "cards": five},
        {"type": "decision", "seat": 1, "action": "call"},
        {"type": "decision", "seat": 3, "action": "call"},
        {"type": "decision", "seat": 5, "action": "check"},
    ]
    for rec in records(inputs):
        rows = table.apply(rec)
        assert not any(r.topic.endswith("/alert") for r in rows)
    return table, five


@pytest.mark.parametrize("name", CONFIGS)
def test_a_refused_draw_alert_withholds_the_seats_discards_R46(name: str) -> None:
    """R46 and docs/mqtt.md ("Alerts never show a card"): a `draw` refused (here its `discard`
    names one card for a draw of two) must not publish the seat's discards, its hole cards."""
    table, five = _to_the_draw(name)
    rows = feed(table, {"type": "draw", "seat": 3, "count": 2, "discard": ["Kc"]})
    (alert,) = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
    assert alert["kind"] == "rejected"
    shown = {t for text in _strings(alert) for t in CARD_TOKEN.findall(text)}
    assert not shown & set(five), alert


@pytest.mark.parametrize("name", CONFIGS)
def test_a_hand_all_in_on_the_blinds_is_dealt_from_the_reader(name: str) -> None:
    """docs/games/draw.md ("A hand, input by input"): `table.card` at a seat on the deal is one
    of the seat's five. Two players all-in on their blinds ($1 each) have no first round to
    play, but their fives are still dealt, and read."""
    cfg = load_config(CONFIG / name)
    table = Table(cfg)
    inputs: list[dict[str, Any]] = [
        {"type": "config", "rules": cfg.rules.to_json(), "source": "config"},
        {"type": "seat.take", "seat": 1, "stack": "1"},
        {"type": "seat.take", "seat": 2, "stack": "1"},
        {"type": "hand.start", "button": 1},
    ]
    for rec in records(inputs):
        table.apply(rec)
    order = table.state.hand.order
    fives = {order[0]: ["2c", "3c", "4c", "5c", "7d"], order[1]: ["Kc", "Kh", "Qc", "Qh", "Jc"]}
    pos = 0
    for i in range(5):
        for seat in order:
            pos += 1
            ev = {"type": "table.card", "zone": "seat", "seat": seat, "card": fives[seat][i]}
            rows = feed(table, {**ev, "at": {"run": "1", "pos": pos}}, source=READER)
            alerts = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
            assert not alerts, (ev, alerts)
