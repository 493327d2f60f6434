"""Random Chinese Poker rounds (document 003 "Chinese Poker") through the engine of
the shipped config/chinese-poker-003.toml ($5 point, collection option 2: $2 from the buttons'
holder, $1 from each other player dealt in), checked against a reference written here from
docs/games/chinese-poker.md, not from tablectl/rules/chinese_poker.py:

- the hands (`five`, `three`): an evaluator of its own; the foul ("the front hand may not rank
  higher than the middle hand; the middle hand may not rank higher than the back");
- the clean sweeps by brute force (`holds`): a Dragon is thirteen values, six pairs count four of
  a kind as two, three straights and three flushes try every 3-5-5 split of the thirteen;
- the points of each pair (`pair_points`): segments won a point each and their bonus hands, ties
  to the buttons' holder, a fouled hand paying nine and the other's bonus hands, two fouls
  pushing, clean sweeps paid first by every other player, equal sweeps pushing;
- the settlement walk (`walk`): sweeps first, then segments, pair by pair from the buttons'
  holder, each payment bounded by what the payer and the payee have left of the stacks they
  started the round with;
- the table around the rounds: the buttons moving clockwise, four at most dealt in from the
  holder, each one's fee before the deal, a misdeal returning the fees and the buttons.

Each session (2-5 seated, random stacks from the twenty-point buy-in up, up to three rounds of
random shuffled deals split 13 a hand, settings valid or fouled, sweeps declared whether held or
not, some hands dealt to hold a sweep, some of those one card short of it, seats sitting out and
misdeals) checks after every input that the stacks plus the fees collected stay what was
seated, and at every showdown that the pairs' points are what the reference says (antisymmetric
and zero-sum across the table before any cap), the payments are the reference walk's in the
document's order, nobody exchanges more than the stack it started the round with, no card was
published before the result; and replayed, the same inputs give byte-identical records.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tablectl.config import load_config
from tablectl.game_records import GameRecord
from tablectl.games.chinese_poker.engine import ChinesePokerEngine, ChineseState
from tablectl.games.chinese_poker.records import ChineseRoundSettled
from tablectl.games.registry import make_engine
from tablectl.render import render
from tablectl.rules import chinese_poker as rules
from tablectl_base.cards import parse_card
from tablectl_base.events import parse_event
from tests.helpers import assert_replays_identically

D = Decimal
CONFIG = Path(__file__).resolve().parents[3] / "config" / "chinese-poker-003.toml"
POINT = D(5)  # the shipped table's point
BUY_IN = 20 * POINT  # "The buy-in is twenty (20) times the value of one point" (Game Rules 1)
HOLDER_FEE, OTHER_FEE = D(2), D(1)  # collection option 2: "Player # 1" $2, "Player #2" $1
VALUES = "23456789TJQKA"
DECK = [v + s for v in VALUES for s in "shdc"]
SWEEP_KINDS = ("dragon", "six-pairs", "three-straights", "three-flushes")
SWEEP_POINTS = {"dragon": 13, "six-pairs": 3, "three-straights": 3, "three-flushes": 3}
FOUL = 9  # "3 points for each segment"
SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


# ---------------------------------------------------------------- the reference: hands


def value(card: str) -> int:
    return VALUES.index(card[0]) + 2


def straight_top(values: Sequence[int]) -> int | None:
    """The top of five distinct consecutive values, the ace high or low (A-2-3-4-5: five)."""
    distinct = set(values)
    if len(distinct) != 5:
        return None
    if max(distinct) - min(distinct) == 4:
        return max(distinct)
    return 5 if distinct == {14, 2, 3, 4, 5} else None


# Categories: 0 no pair, 1 pair, 2 two pair, 3 three of a kind, 4 straight, 5 flush,
# 6 full house, 7 four of a kind, 8 straight flush.
def five(cards: Sequence[str]) -> tuple[int, ...]:
    """A five-card hand as a tuple that compares as the hands rank."""
    vs = sorted((value(c) for c in cards), reverse=True)
    groups = sorted(Counter(vs).items(), key=lambda kv: (-kv[1], -kv[0]))
    shape = [n for _, n in groups]
    flush = len({c[1] for c in cards}) == 1
    top = straight_top(vs)
    if top and flush:
        return (8, top)
    if shape[0] == 4:
        return (7, groups[0][0], groups[1][0])
    if shape[:2] == [3, 2]:
        return (6, groups[0][0], groups[1][0])
    if flush:
        return (5, *vs)
    if top:
        return (4, top)
    if shape[0] == 3:
        return (3, groups[0][0], *(v for v in vs if v != groups[0][0]))
    if shape[:2] == [2, 2]:
        return (2, groups[0][0], groups[1][0], groups[2][0])
    if shape[0] == 2:
        return (1, groups[0][0], *(v for v in vs if v != groups[0][0]))
    return (0, *vs)


def three(cards: Sequence[str]) -> tuple[int, ...]:
    """A front of three: three of a kind, a pair and its kicker, or three values (no straight,
    no flush), in the same order as `five` so a front compares with a middle."""
    vs = sorted((value(c) for c in cards), reverse=True)
    groups = sorted(Counter(vs).items(), key=lambda kv: (-kv[1], -kv[0]))
    if groups[0][1] == 3:
        return (3, vs[0])
    if groups[0][1] == 2:
        return (1, groups[0][0], groups[1][0])
    return (0, *vs)


BONUS = {(0, 3): 3, (1, 6): 2, (1, 7): 8, (1, 8): 10, (2, 7): 4, (2, 8): 5}
"""(segment 0 front .. 2 back, category) -> bonus points (the document's Bonus System)."""


def is_straight(cards: Sequence[str]) -> bool:
    vs = sorted(value(c) for c in cards)
    if len(set(vs)) != len(vs):
        return False
    low = sorted(1 if v == 14 else v for v in vs)
    return vs[-1] - vs[0] == len(vs) - 1 or low[-1] - low[0] == len(vs) - 1


def is_flush(cards: Sequence[str]) -> bool:
    return len({c[1] for c in cards}) == 1


def holds(sweep: str, cards: Sequence[str]) -> bool:
    """Whether thirteen cards hold the clean sweep, by brute force."""
    if sweep == "dragon":
        return sorted(value(c) for c in cards) == list(range(2, 15))
    if sweep == "six-pairs":  # pair off equal values, four of a kind as two pairs
        vs = sorted(value(c) for c in cards)
        pairs, i = 0, 0
        while i < len(vs) - 1:
            if vs[i] == vs[i + 1]:
                pairs, i = pairs + 1, i + 2
            else:
                i += 1
        return pairs >= 6
    test = is_straight if sweep == "three-straights" else is_flush
    every = list(cards)
    for front in combinations(every, 3):  # every 3-5-5 split
        if not test(front):
            continue  # no split with this front holds it
        rest = [c for c in every if c not in front]
        for middle in combinations(rest, 5):
            if test(middle) and test([c for c in rest if c not in middle]):
                return True
    return False


@dataclass(frozen=True)
class Ref:
    """A hand brought in: a setting's ranks (front, middle, back), or a clean sweep held, or
    neither (a sweep declared and not held: a fouled hand)."""

    ranks: tuple[tuple[int, ...], ...] | None = None
    sweep: str | None = None

    @property
    def fouled(self) -> bool:
        if self.sweep is not None:
            return False
        if self.ranks is None:
            return True
        front, middle, back = self.ranks
        return front > middle or middle > back

    def bonus(self, segment: int) -> int:
        assert self.ranks is not None
        return BONUS.get((segment, self.ranks[segment][0]), 0)


def ref_of(ev: dict[str, Any]) -> Ref:
    if ev["type"] == "chinese.sweep":
        return Ref(sweep=ev["sweep"]) if holds(ev["sweep"], ev["cards"]) else Ref()
    return Ref(ranks=(three(ev["front"]), five(ev["middle"]), five(ev["back"])))


def pair_points(a: Ref, b: Ref, holder: str | None) -> tuple[int, int]:
    """(sweep points, segment points) `b` pays `a` (negative: `a` pays `b`); `holder` is "a" or
    "b" when one of them holds the buttons."""
    va = SWEEP_POINTS[a.sweep] if a.sweep else 0
    vb = SWEEP_POINTS[b.sweep] if b.sweep else 0
    sweep = va if va > vb else -vb if vb > va else 0
    if a.sweep or b.sweep or (a.fouled and b.fouled):
        return sweep, 0
    if b.fouled:
        return sweep, FOUL + sum(a.bonus(i) for i in range(3))
    if a.fouled:
        return sweep, -(FOUL + sum(b.bonus(i) for i in range(3)))
    assert a.ranks is not None and b.ranks is not None
    points = 0
    for i in range(3):
        ra, rb = a.ranks[i], b.ranks[i]
        if ra > rb or (ra == rb and holder == "a"):
            points += 1 + a.bonus(i)
        elif rb > ra or (ra == rb and holder == "b"):
            points -= 1 + b.bonus(i)
    return sweep, points


def ref_walk(
    order: Sequence[int],
    start: dict[int, Decimal],
    sweeps: dict[tuple[int, int], int],
    segments: dict[tuple[int, int], int],
) -> list[tuple[int, int, Decimal, Decimal, str]]:
    """(payer, payee, owed, amount, reason) of each payment."""
    exchanged = dict.fromkeys(order, D(0))
    out = []
    for reason, owed_points in (("sweep", sweeps), ("segments", segments)):
        for i, first in enumerate(order):
            for second in order[i + 1 :]:
                n = owed_points[(first, second)]
                if n == 0:
                    continue
                payer, payee = (second, first) if n > 0 else (first, second)
                owed = abs(n) * POINT
                amount = min(owed, start[payer] - exchanged[payer], start[payee] - exchanged[payee])
                exchanged[payer] += amount
                exchanged[payee] += amount
                out.append((payer, payee, owed, amount, reason))
    return out


# ---------------------------------------------------------------- dealing


def rigged(kind: str, left: set[str], rnd: random.Random) -> list[str] | None:
    """Thirteen cards from `left` that hold the sweep `kind` (None when they cannot be found)."""
    by_value = {v: [c for c in sorted(left) if value(c) == v] for v in range(2, 15)}
    taken: list[str] = []

    def take(v: int) -> bool:
        free = [c for c in by_value[14 if v == 1 else v] if c not in taken]
        if not free:
            return False
        taken.append(rnd.choice(free))
        return True

    if kind == "dragon":
        ok = all(take(v) for v in range(2, 15))
    elif kind == "six-pairs":
        pairs = [v for v, cs in by_value.items() if len(cs) >= 2]
        rnd.shuffle(pairs)
        ok = len(pairs) >= 6 and all(take(v) and take(v) for v in pairs[:6])
        extra = sorted(left - set(taken))
        if ok and extra:
            taken.append(rnd.choice(extra))
        ok = ok and len(taken) == 13
    elif kind == "three-straights":
        starts = [rnd.randint(1, 12), rnd.randint(1, 10), rnd.randint(1, 10)]
        ok = all(take(v) for s, n in zip(starts, (3, 5, 5), strict=True) for v in range(s, s + n))
    else:
        suits = [rnd.choice("shdc") for _ in range(3)]
        ok = True
        for suit, n in zip(suits, (3, 5, 5), strict=True):
            free = [c for c in sorted(left) if c[1] == suit and c not in taken]
            if len(free) < n:
                ok = False
                break
            taken += rnd.sample(free, n)
    return taken if ok else None


def near_miss(cards: list[str], left: set[str], rnd: random.Random) -> list[str]:
    """One card swapped for another from `left` (most often no longer the sweep)."""
    spare = sorted(left - set(cards))
    if not spare:
        return cards
    out = list(cards)
    out[rnd.randrange(13)] = rnd.choice(spare)
    return out


def a_setting(cards: list[str], rnd: random.Random, tidy: bool) -> dict[str, list[str]]:
    """A random 3-5-5 split; `tidy` puts the better five in the back (most such are valid; a
    front can still beat the middle: a foul)."""
    cards = list(cards)
    rnd.shuffle(cards)
    front, middle, back = cards[:3], cards[3:8], cards[8:]
    if tidy and five(middle) > five(back):
        middle, back = back, middle
    return {"front": front, "middle": middle, "back": back}


# ---------------------------------------------------------------- a random session


@dataclass
class Seats:
    """What the session keeps of the table, by the document: seats, stacks, who sits out, the
    buttons (None before the first round, or after the first round was voided)."""

    stacks: dict[int, Decimal]
    away: set[int]
    button: int | None = None


def next_button(table: Seats, named: int | None) -> int:
    playing = sorted(s for s in table.stacks if s not in table.away)
    if table.button is None:
        return named if named is not None else playing[0]
    after = [s for s in playing if s > table.button]
    return (after or playing)[0]


def dealt_in(table: Seats, button: int) -> list[int]:
    playing = sorted(s for s in table.stacks if s not in table.away)
    i = playing.index(button)
    return (playing[i:] + playing[:i])[:4]


@dataclass
class Round:
    """A round as the session dealt it: the order, the stacks it started with (after the fees),
    each seat's hand input and its reference."""

    button: int
    previous: int | None
    order: list[int]
    fees: dict[int, Decimal]
    start: dict[int, Decimal]
    hands: dict[int, dict[str, Any]]
    refs: dict[int, Ref]
    after: dict[int, Decimal] | None = None  # every seat's stack after the round


def deal(data: st.DataObject, rnd: random.Random, order: list[int]) -> dict[int, dict[str, Any]]:
    """Each seat's hand input: thirteen cards from one shuffled deck (some dealt to hold a clean
    sweep, some of those one card short), set tidily, at random, or declared a sweep."""
    left = set(DECK)
    cards: dict[int, list[str]] = {}
    declared: dict[int, str] = {}
    for seat in order:
        kind = data.draw(st.sampled_from((None, None, None, *SWEEP_KINDS)), label="rigged")
        if kind is None:
            continue
        made = rigged(kind, left, rnd)
        if made is None:
            continue
        if data.draw(st.booleans(), label="near miss"):
            made = near_miss(made, left, rnd)
        cards[seat] = made
        left -= set(made)
        declared[seat] = kind
    rest = sorted(left)
    rnd.shuffle(rest)
    for seat in order:
        if seat not in cards:
            cards[seat], rest = rest[:13], rest[13:]
    hands: dict[int, dict[str, Any]] = {}
    for seat in order:
        how = data.draw(st.sampled_from(("tidy", "tidy", "random", "sweep")), label="how")
        if seat in declared and how != "random":
            how = "declare"
        if how in ("sweep", "declare"):
            kind = declared.get(seat) or data.draw(st.sampled_from(SWEEP_KINDS), label="sweep")
            shown = list(cards[seat])
            rnd.shuffle(shown)
            hands[seat] = {"type": "chinese.sweep", "seat": seat, "sweep": kind, "cards": shown}
        else:
            split = a_setting(cards[seat], rnd, tidy=how == "tidy")
            hands[seat] = {"type": "chinese.set", "seat": seat, **split}
    return hands


def engine() -> ChinesePokerEngine:
    made = make_engine(load_config(CONFIG).rules)
    assert isinstance(made, ChinesePokerEngine)
    return made


@dataclass
class Session:
    inputs: list[dict[str, Any]]
    rounds: list[tuple[Round, dict[str, Any] | None]]  # each round and its void input, if any


def session(data: st.DataObject) -> Session:
    """A random session's inputs, as the console enters them, and the rounds dealt."""
    rnd = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    seats = sorted(data.draw(st.sets(st.integers(1, 5), min_size=2), label="seats"))
    stack = st.one_of(st.integers(100, 130), st.integers(100, 500))
    inputs: list[dict[str, Any]] = []
    table = Seats({}, set())
    for seat in seats:
        amount = D(data.draw(stack, label="stack"))
        inputs.append({"type": "seat.take", "seat": seat, "stack": str(amount)})
        table.stacks[seat] = amount
    rounds: list[tuple[Round, dict[str, Any] | None]] = []
    for _ in range(data.draw(st.integers(1, 3), label="rounds")):
        # between rounds: a broke seat leaves; someone may sit out or come back
        for seat in sorted(table.stacks):
            if table.stacks[seat] < HOLDER_FEE:
                inputs.append({"type": "seat.leave", "seat": seat})
                del table.stacks[seat]
                table.away.discard(seat)
        if table.stacks and data.draw(st.integers(0, 4), label="away or back") == 0:
            seat = data.draw(st.sampled_from(sorted(table.stacks)), label="which")
            verb = "seat.back" if seat in table.away else "seat.away"
            inputs.append({"type": verb, "seat": seat})
            table.away ^= {seat}
        playing = sorted(s for s in table.stacks if s not in table.away)
        if len(playing) < 2:
            break
        named = None
        if table.button is None and data.draw(st.booleans(), label="name the button"):
            named = data.draw(st.sampled_from(playing), label="button")
        button = next_button(table, named)
        order = dealt_in(table, button)
        fees = {s: HOLDER_FEE if s == button else OTHER_FEE for s in order}
        inputs.append({"type": "hand.start"} | ({"button": named} if named else {}))
        for s, fee in fees.items():
            table.stacks[s] -= fee
        start = {s: table.stacks[s] for s in order}
        hands = deal(data, rnd, order)
        rnd_round = Round(button, table.button, order, fees, start, hands, {})
        table.button = button
        brought = list(order)
        rnd.shuffle(brought)  # the hands come in any order
        void = None
        cut = len(brought)
        if data.draw(st.integers(0, 9), label="misdeal") == 0:
            cut = data.draw(st.integers(0, len(brought) - 1), label="misdeal at")
            void = {"type": "round.void", "reason": "a misdeal"}
        inputs += [hands[s] for s in brought[:cut]]
        if void is not None:
            inputs.append(void)
            for s, fee in fees.items():
                table.stacks[s] += fee
            table.button = rnd_round.previous
        else:
            rnd_round.refs = {s: ref_of(hands[s]) for s in order}
            payments, _, _ = expected(rnd_round)
            for payer, payee, _owed, amount, _reason in payments:
                table.stacks[payer] -= amount
                table.stacks[payee] += amount
        rnd_round.after = dict(table.stacks)
        rounds.append((rnd_round, void))
    return Session(inputs, rounds)


def expected(
    r: Round,
) -> tuple[list[tuple[int, int, Decimal, Decimal, str]], dict[tuple[int, int], int], Any]:
    """The reference payments, each pair's total points, and (sweeps, segments)."""
    sweeps: dict[tuple[int, int], int] = {}
    segments: dict[tuple[int, int], int] = {}
    for i, a in enumerate(r.order):
        for b in r.order[i + 1 :]:
            holder = "a" if a == r.button else "b" if b == r.button else None
            sweeps[(a, b)], segments[(a, b)] = pair_points(r.refs[a], r.refs[b], holder)
    points = {k: sweeps[k] + segments[k] for k in sweeps}
    return ref_walk(r.order, r.start, sweeps, segments), points, (sweeps, segments)


# ---------------------------------------------------------------- the properties


def published(records: Sequence[GameRecord]) -> list[str]:
    return [json.dumps([m.topic, m.payload]) for m in map(render, records)]


def cards_quoted(text: str) -> set[str]:
    return {c for c in DECK if f'"{c}"' in text}


def as_rules_hand(ev: dict[str, Any]) -> rules.Hand:
    """The rules module's Hand for an input (for its own antisymmetry)."""
    if ev["type"] == "chinese.sweep":
        cards = [parse_card(c) for c in ev["cards"]]
        held = rules.sweep_holds(ev["sweep"], cards)
        return rules.Hand(sweep=ev["sweep"]) if held else rules.Hand()
    parts = [[parse_card(c) for c in ev[k]] for k in ("front", "middle", "back")]
    return rules.Hand(setting=rules.setting(*parts))


@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_random_rounds_settle_as_the_document_says_conserve_money_and_replay_the_same(
    data: st.DataObject,
) -> None:
    played = session(data)
    eng = engine()
    state: ChineseState = eng.initial()
    records: list[GameRecord] = []
    seated = D(0)
    results: list[ChineseRoundSettled] = []
    hidden: set[str] = set()  # the cards of the round in play
    for ev in played.inputs:
        if ev["type"] == "seat.take":
            seated += D(ev["stack"])
        if ev["type"] == "seat.leave":
            seated -= next(s.stack for s in state.seats if s.seat == ev["seat"])
        if ev["type"] == "hand.start":
            hidden = set()
        if ev["type"].startswith("chinese."):
            hidden |= {c for k in ("front", "middle", "back", "cards") for c in ev.get(k, [])}
        state, out = eng.apply(state, parse_event(ev), "t")  # every input is accepted
        records += out
        # money: the stacks and every fee collected stay what was seated
        assert sum((s.stack for s in state.seats), D(0)) + state.collected == seated
        assert all(s.stack >= 0 for s in state.seats)
        for r, text in zip(out, published(out), strict=True):
            if isinstance(r, ChineseRoundSettled):
                results.append(r)
            else:  # nothing of a hand is published before its round's result
                assert not cards_quoted(text) & hidden, (ev, text)

    assert len(results) == len(played.rounds)
    for (rnd, void), result in zip(played.rounds, results, strict=True):
        assert result.button == rnd.button
        assert dict(result.stacks) == rnd.after  # the fees, the walk: the stacks after
        if void is not None:
            event("a misdeal")
            assert result.void and not result.payments
            continue
        assert dict(result.fees) == rnd.fees
        assert [h.seat for h in result.hands] == rnd.order
        for shown in result.hands:
            ref = rnd.refs[shown.seat]
            assert shown.fouled == ref.fouled
            assert shown.sweep == ref.sweep
            event(f"a hand {'fouled' if ref.fouled else 'swept' if ref.sweep else 'set'}")
        payments, points, (sweeps, segments) = expected(rnd)
        # the points of each pair, from the reference
        assert {(a, b): n for a, b, n in result.points} == points
        # antisymmetric: the rules' own pair, looked at from the other side, pays the opposite
        hands = {s: as_rules_hand(rnd.hands[s]) for s in rnd.order}
        for a, b, n in result.points:
            side: Literal["a", "b"] | None = (
                "b" if a == rnd.button else "a" if b == rnd.button else None
            )
            back = rules.sweep_points(hands[b], hands[a]) + rules.segment_points(
                hands[b], hands[a], side
            )
            assert back == -n
        # zero-sum across the table before any cap
        net = Counter[int]()
        for a, b, n in result.points:
            net[a] += n
            net[b] -= n
        assert sum(net.values()) == 0
        # the walk: the reference's payments, sweeps first, pairs in the document's order
        got = [(p.payer, p.payee, p.owed, p.amount, p.reason) for p in result.payments]
        assert got == payments
        pairs = [(a, b) for i, a in enumerate(rnd.order) for b in rnd.order[i + 1 :]]
        phases = {"sweep": (0, sweeps), "segments": (1, segments)}
        keys = [
            (
                phases[p.reason][0],
                pairs.index(_pair(p.payer, p.payee, rnd.order)),
            )
            for p in result.payments
        ]
        assert keys == sorted(set(keys))  # one payment a pair and phase, in the walk's order
        owing = {
            (k, pairs.index(pair)) for k, owed in phases.values() for pair in pairs if owed[pair]
        }
        assert set(keys) == owing
        # nobody exchanges more than the stack it started the round with
        exchanged: dict[int, Decimal] = defaultdict(Decimal)
        for p in result.payments:
            assert 0 <= p.amount <= p.owed
            exchanged[p.payer] += p.amount
            exchanged[p.payee] += p.amount
        assert all(exchanged[s] <= rnd.start[s] for s in rnd.order)
        if any(p.amount < p.owed for p in result.payments):
            event("a payment capped by a stack")
        if any(rnd.refs[s].sweep for s in rnd.order):
            event("a clean sweep held")
        settings_ = [ranks for s in rnd.order if (ranks := rnd.refs[s].ranks)]
        if any(x[k] == y[k] for x, y in combinations(settings_, 2) for k in range(3)):
            event("a segment tied")
    # replayed, the same inputs publish the same bytes
    again = eng.initial()
    replayed: list[GameRecord] = []
    for ev in played.inputs:
        again, out = eng.apply(again, parse_event(ev), "t")
        replayed += out
    assert again == state
    assert published(replayed) == published(records)
    assert_replays_identically(load_config(CONFIG), played.inputs)


def chinese_session(data: st.DataObject) -> list[dict[str, Any]]:
    """A random session's inputs (for the snapshot restore test)."""
    return session(data).inputs


# ---------------------------------------------------------------- the sweeps by brute force


@st.composite
def thirteen_cards(draw: st.DrawFn) -> list[str]:
    """Thirteen cards: dealt to hold a sweep, one card short of it, or at random."""
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from((None, *SWEEP_KINDS)))
    made = rigged(kind, set(DECK), rnd) if kind else None
    if made is None:
        made = rnd.sample(DECK, 13)
    elif draw(st.booleans()):
        made = near_miss(made, set(DECK), rnd)
    return made


@settings(max_examples=200, **SETTINGS)
@given(cards=thirteen_cards())
def test_the_sweeps_found_are_the_brute_forces(cards: list[str]) -> None:
    parsed = [parse_card(c) for c in cards]
    for kind in SWEEP_KINDS:
        held = holds(kind, cards)
        assert rules.sweep_holds(kind, parsed) == held, (kind, cards)  # type: ignore[arg-type]
        if held:
            event(f"holds {kind}")


@settings(max_examples=300, **SETTINGS)
@given(data=st.data())
def test_the_segment_points_are_the_documents(data: st.DataObject) -> None:
    """Two settings and the buttons on one, the other or neither: the rules' points are the
    reference's, and the foul is the reference's."""
    rnd = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    deck = list(DECK)
    rnd.shuffle(deck)
    first, rest = deck[:13], deck[13:]
    if data.draw(st.booleans()):  # a tie in front likely: the second's front the first's values
        front = []
        for card in first[:3]:
            same = [c for c in rest if c[0] == card[0] and c not in front]
            if same:
                front.append(same[0])
        rest = [c for c in rest if c not in front]
        second = front + rest[: 13 - len(front)]
    else:
        second = rest[:13]
    evs = []
    for seat, cards in ((1, first), (2, second)):
        how = data.draw(st.sampled_from(("tidy", "random", "keep")))
        split = a_setting(cards, rnd, how == "tidy")
        if how == "keep":  # the cards as they are: the first three in front
            split = {"front": cards[:3], "middle": cards[3:8], "back": cards[8:]}
            if five(split["middle"]) > five(split["back"]):
                split["middle"], split["back"] = split["back"], split["middle"]
        evs.append({"type": "chinese.set", "seat": seat, **split})
    holder = data.draw(st.sampled_from(("a", "b", None)))
    a, b = (as_rules_hand(e) for e in evs)
    ra, rb = (ref_of(e) for e in evs)
    assert (a.fouled, b.fouled) == (ra.fouled, rb.fouled)
    assert rules.segment_points(a, b, holder) == pair_points(ra, rb, holder)[1]  # type: ignore[arg-type]
    if ra.ranks and rb.ranks and ra.ranks[0] == rb.ranks[0]:
        event("the fronts tie")


def _pair(payer: int, payee: int, order: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """The two seats of a payment in the walk's order (the earlier position first)."""
    first, second = sorted((payer, payee), key=list(order).index)
    return first, second
