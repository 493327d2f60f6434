"""Random legal hands of the draw games through the poker engine, and their pots
against references of the test's own and pokerkit.

The generator of the console's next legal input at a draw table (`_next_draw_input`),
`draw_session` (a whole random session's inputs) and the test's own working of Lowball's seven
rule from the published betting actions and the seats' five cards (`expected_lowball_stacks`,
R45). The engine's properties over those sessions (chips conserved, no card of a hand published
before its result and only a shown hand's five in it, R46, R45 at each Lowball showdown the
hands speak in, the replay the same) are the poker families' shared suite,
tests/games/poker/test_poker_family_properties.py.

The pots: random final hands of each game (two to six players, contributions with folds and
all-ins of different sizes), ranked by tablectl/rules/draw.py and paid by `award`, must pay
every seat what the test's own reference pays (`reference_payouts`: its own hand evaluators, its
own side pots built chip level by chip level, R41 and R42 as docs/rulings.md words them); and a
whole hand of Five Card Draw high played in pokerkit (which has no ace-to-five lowball with a
joker) must pay what pokerkit pays.
"""

from __future__ import annotations

import tomllib
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from pokerkit import BettingStructure, Deck, Opening, StandardHighHand, State, Street

from tablectl.config import load_config
from tablectl.game_records import PokerHandSettled
from tablectl.games.draw.family import DRAW
from tablectl.games.poker.engine import PokerEngine
from tablectl.games.poker.state import PokerState
from tablectl.games.registry import make_engine
from tablectl.rules.draw import draw_high, draw_low_eight, lowball_low
from tablectl.rules.pots import Contribution, Split, Strength, award, build_pots, paid_by_seat
from tablectl_base.cards import Card, parse_card, standard_deck
from tablectl_base.events import parse_event
from tests.games.poker.test_poker_engine_properties import _amount
from tests.games.poker.test_pots_pokerkit import AUTOMATIONS, chip_divmod, pokerkit_differs

D = Decimal
CONFIG = Path(__file__).resolve().parents[3] / "config"
DRAW_CONFIGS = (
    "five-card-draw-003.toml",
    "five-card-draw-hi-lo-003.toml",
    "lowball-003.toml",
)
JOKER = "JKR"
PACK = [*(str(c) for c in standard_deck()), JOKER]  # Lowball's pack: 52 and the bug


# ---------------------------------------------------------------- a random session


@dataclass
class Deal:
    """The hand in play as the generator dealt it: what is left of the deck, each seat's five as
    they stand (before its draw the dealt five, after it the final five), the seats whose five as
    they stand the engine has been told (by `hole.cards`, or by a draw naming its discards and
    new cards), the seats that drew, the cards thrown away (dealt again once the deck runs out,
    docs/games/draw.md "Seats"), every card this hand dealt, and whether its showdown is
    declared (then no `hole.cards` at all, and no draw names its discards: no hand speaks)."""

    number: int = 0
    deck: list[str] = field(default_factory=list)
    five: dict[int, list[str]] = field(default_factory=dict)
    known: set[int] = field(default_factory=set)
    drew: set[int] = field(default_factory=set)
    thrown: list[str] = field(default_factory=list)
    every: set[str] = field(default_factory=set)
    declare: bool = False

    def take(self) -> str:
        """The next card: from the deck, else the oldest card thrown away."""
        return self.deck.pop() if self.deck else self.thrown.pop(0)

    def tell(self, seat: int) -> dict[str, Any]:
        self.known.add(seat)
        return {"type": "hole.cards", "seat": seat, "cards": list(self.five[seat])}


def _live(state: PokerState) -> list[int]:
    """The seats still in, in the order dealt (from the dealer's left)."""
    hand = state.hand
    assert hand is not None
    folded = set(hand.betting.folded_seats)
    return [s for s in hand.order if s not in folded]


def _tiers(seats: Sequence[int], key: Callable[[int], Any], *, best_high: bool) -> list[list[int]]:
    """`seats` grouped by `key`, tied seats together, best first (highest, or lowest)."""
    keys = sorted({key(s) for s in seats}, reverse=best_high)
    return [[s for s in seats if key(s) == k] for k in keys]


def _declared(eng: PokerEngine, state: PokerState, deal: Deal) -> dict[str, Any]:
    """The dealer's showdown for the hands still in, ranked as their cards rank. Lowball is
    declared in `high` alone, lowest first (docs/games/draw.md)."""
    live = _live(state)

    def cards(s: int) -> list[Card]:
        return [parse_card(c) for c in deal.five[s]]

    variant = eng.settings.variant
    if variant == "lowball":
        lows = {s: lowball_low(cards(s))[0] for s in live}
        return {"type": "showdown", "high": _tiers(live, lows.__getitem__, best_high=False)}
    highs = {s: draw_high(cards(s))[0] for s in live}
    ev: dict[str, Any] = {
        "type": "showdown",
        "high": _tiers(live, highs.__getitem__, best_high=True),
    }
    if variant == "five-card-draw-hi-lo":
        eights = {s: low[0] for s in live if (low := draw_low_eight(cards(s))) is not None}
        ev["low"] = _tiers(list(eights), eights.__getitem__, best_high=False)
    return ev


def _straddles(data: st.DataObject, state: PokerState, button: int) -> list[str]:
    """Lowball's straddles, sometimes: by the seats after the big blind in turn, each double the
    big blind or the straddle before it and at most half the straddler's chips (003 "Lowball"
    rule 5); a seat owing a missed blind does not straddle (it posts what it owes)."""
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
    """Seats sitting out and back (the blinds passing them), or the next hand.start (at Lowball
    now and then with straddles)."""
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
    straddles = _straddles(data, state, button) if eng.game.pass_and_out else []
    if straddles:
        ev["straddles"] = straddles
    return ev


def _draw(data: st.DataObject, deal: Deal, seat: int, *, lowball: bool) -> dict[str, Any]:
    """The seat's draw: 0 to 5 cards (at Lowball, half the time, its cards over seven and the
    second of each pair), its discards of its own five and new cards from the deck, named
    sometimes (the discards only where the engine knows its five)."""
    five = deal.five[seat]
    if lowball and data.draw(st.booleans()):  # a Lowball player's own draw: pairs and high cards
        out = [c for i, c in enumerate(five) if c != JOKER and _ace_low(c) > 7]
        out += [
            c
            for i, c in enumerate(five)
            if c not in out
            and c != JOKER
            and any(_ace_low(c) == _ace_low(d) for d in five[:i] if d != JOKER and d not in out)
        ]
    else:
        out = list(data.draw(st.permutations(five)))[: data.draw(st.integers(0, 5))]
    count = len(out)
    deal.drew.add(seat)
    ev: dict[str, Any] = {"type": "draw", "seat": seat, "count": count}
    if count == 0:
        return ev
    new = [deal.take() for _ in range(count)]
    deal.five[seat] = [*(c for c in five if c not in out), *new]
    deal.thrown += out  # after the draw: the seat is not given back its own discards
    deal.every |= set(new)
    named_out = seat in deal.known and not deal.declare and data.draw(st.booleans())
    named_new = data.draw(st.booleans())
    if named_out:
        ev["discard"] = out
    if named_new:
        ev["cards"] = new
    if not (named_out and named_new):
        deal.known.discard(seat)
    return ev


def _next_draw_input(
    data: st.DataObject, eng: PokerEngine, state: PokerState, deal: Deal
) -> dict[str, Any] | None:
    """A legal input for what the draw table waits for, or None when no hand can be dealt.
    `deal` follows the cards: each seat's five are taken from the deck when the hand is first
    seen (they are dealt with `hand.start`)."""
    hand = state.hand
    if hand is None:
        return _between_hands(data, eng, state)
    if deal.number != hand.number:
        deal.number = hand.number
        deal.five = {s: [deal.deck.pop() for _ in range(5)] for s in hand.order}
        deal.every = {c for five in deal.five.values() for c in five}
        deal.known, deal.drew, deal.thrown = set(), set(), []
        deal.declare = data.draw(st.integers(0, 3)) == 0
    if data.draw(st.integers(0, 150)) == 77:
        return {"type": "round.void", "reason": "misdeal"}
    phase = eng.state_view(state).phase
    live = _live(state)
    untold = [s for s in hand.order if s not in deal.known]
    if not deal.declare and untold and phase != "showdown" and data.draw(st.integers(0, 7)) == 0:
        return deal.tell(data.draw(st.sampled_from(untold)))
    if phase == "draw":
        return _draw(
            data, deal, next(s for s in live if s not in deal.drew), lowball=eng.game.joker
        )
    if phase == "showdown":
        if deal.declare:
            return _declared(eng, state, deal)
        return deal.tell(next(s for s in live if s not in deal.known))
    assert phase == "betting", phase
    b = hand.betting
    turn = b.turn
    assert turn is not None
    # Lowball is pass and out before the draw: no check but a blind's (or straddle's) option.
    option = not eng.game.pass_and_out or b.street > 0 or b.player(turn).in_round > 0
    options = [
        a
        for a, ok in (("check", b.can_check() and option), ("call", b.can_call()), ("fold", True))
        if ok
    ]
    if "check" in options:  # checks often: showdowns, and R45's checked sevens, come often
        options += ["check", "check"]
    if b.can_all_in():
        options.append("all-in")
    low, high = b.min_bet_or_raise_to, b.max_bet_or_raise_to
    if low is not None and high is not None:
        options += ["bet" if b.current_bet == 0 else "raise"] * 2
    action = data.draw(st.sampled_from(options))
    if eng.game.seven_rule and b.street == 1 and my_seven_or_better(deal.five[turn]):
        # a seven after the draw is often checked, then called: R45's case
        passive = [a for a in ("check", "call") if a in options]
        if passive:
            checks: bool = data.draw(st.booleans())
            if checks:
                action = passive[0]
    ev = {"type": "decision", "seat": turn, "action": action}
    if action in ("bet", "raise"):
        assert low is not None and high is not None
        ev["amount"] = _amount(data, low, high)
    return ev


def _engine(config: Path) -> PokerEngine:
    engine = make_engine(load_config(config).rules)
    assert isinstance(engine, PokerEngine) and engine.family is DRAW
    return engine


def _deck(deck_order: Sequence[str], hand: int, joker: bool) -> list[str]:
    """The deck of the `hand`-th hand: the drawn order cut a little further each hand, with the
    joker at Lowball only."""
    order = [c for c in deck_order if joker or c != JOKER]
    cut = (hand * 17) % len(order)
    return [*order[cut:], *order[:cut]]


def draw_session(
    config: Path, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> list[dict[str, Any]]:
    """A random session of up to three hands at the draw table `config` describes, as the
    console enters it (the inputs `_next_draw_input` draws), from the players sitting down on.
    `deck_order` is a permutation of `PACK` (the joker is left out but at Lowball)."""
    engine = _engine(config)
    state = engine.initial()
    inputs: list[dict[str, Any]] = [
        {"type": "seat.take", "seat": i + 1, "stack": str(s)} for i, s in enumerate(stacks)
    ]
    for ev in inputs:
        state, _ = engine.apply(state, parse_event(ev), "t")
    hands, deal = 0, Deal()
    for _ in range(400):
        if state.hand is None:
            if hands == 3:
                break
            deal = Deal(deck=_deck(deck_order, hands, engine.game.joker))
        step = _next_draw_input(data, engine, state, deal)
        if step is None:
            break
        before = state.hand
        state, _ = engine.apply(state, parse_event(step), "t")
        hands += before is not None and state.hand is None
        inputs.append(step)
    return inputs


# ---------------------------------------------------------------- the test's own hand values

VALUE = {r: v for v, r in enumerate("23456789TJQKA", start=2)}


def _groups(values: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Ranks grouped as poker counts them: the group sizes, largest first, and the group values
    in that order (larger groups first, then the higher value first)."""
    counts = Counter(values)
    order = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    return tuple(counts[v] for v in order), tuple(order)


def my_high(five: Sequence[str]) -> tuple[int, tuple[int, ...]]:
    """A five-card poker hand's value, higher is better: category (0 high card ... 8 straight
    flush), then the ranks that break ties; the ace plays high, or low in 5-4-3-2-A."""
    values = [VALUE[c[0]] for c in five]
    shape, order = _groups(values)
    flush = len({c[1] for c in five}) == 1
    straight = shape == (1, 1, 1, 1, 1) and (
        max(values) - min(values) == 4 or set(values) == {14, 2, 3, 4, 5}
    )
    top = 5 if set(values) == {14, 2, 3, 4, 5} else max(values)
    if straight and flush:
        return 8, (top,)
    category = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(shape, 0)
    if category:
        return category, order
    if flush:
        return 5, order
    if straight:
        return 4, (top,)
    return 0, order


def _ace_low(card: str) -> int:
    return 1 if card[0] == "A" else VALUE[card[0]]


def my_low_eight(five: Sequence[str]) -> tuple[int, ...] | None:
    """003 "Five Card Draw (High-Low Split)": "five cards 8 or below without pairing" (the ace
    low), lower is better, compared from the highest card down; None: no low."""
    values = sorted((_ace_low(c) for c in five), reverse=True)
    if len(set(values)) < 5 or values[0] > 8:
        return None
    return tuple(values)


def my_lowball(five: Sequence[str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """003 "Lowball": ace to five, straights and flushes not counting, "two aces are the lowest
    pair", the joker "the lowest card not actually held in the hand". Lower is better: no pair,
    then one pair, two pairs, trips, a full house, four of a kind, each by its ranks."""
    held = [_ace_low(c) for c in five if c != JOKER]
    if len(held) < 5:
        held.append(min(v for v in range(1, 14) if v not in held))
    return _groups(held)


def my_seven_or_better(five: Sequence[str]) -> bool:
    """R45: unpaired, its highest card a seven or lower."""
    shape, order = my_lowball(five)
    return shape == (1, 1, 1, 1, 1) and order[0] <= 7


# ---------------------------------------------------------------- R45 worked out by the test


def _fee(config: Path, dealt: int) -> Decimal:
    """The config's per-hand fee once the draw is reached, by the number of players dealt in."""
    schedule = tomllib.loads(config.read_text())["game"]["collection"]["schedule"]
    rate = next(r for r in schedule["rates"] if r["from"] <= dealt <= r.get("to", dealt))
    return D(rate["fee"])


@dataclass
class Ledger:
    """One hand's betting as published: each seat's chips in before and after the draw, the
    checks after it, the folds, the order dealt in and the stacks when it started."""

    stacks: dict[int, Decimal]
    order: list[int] = field(default_factory=list)
    before: dict[int, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    after: dict[int, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    checked: set[int] = field(default_factory=set)
    folded: set[int] = field(default_factory=set)
    drawn: bool = False

    def read(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "hand.start":
            self.order = list(payload["dealt_in"])
            for post in payload["posted"]:
                self.before[post["seat"]] += D(post["amount"])
        elif kind == "draw":
            self.drawn = True  # every second-round action comes after every draw
        elif kind == "decision":
            seat = payload["seat"]
            (self.after if self.drawn else self.before)[seat] += D(payload["added"])
            if self.drawn and payload["action"] == "check":
                self.checked.add(seat)
            if payload["action"] == "fold":
                self.folded.add(seat)


def expected_lowball_stacks(
    config: Path, ledger: Ledger, five: dict[int, list[str]]
) -> tuple[dict[int, Decimal], bool] | str:
    """Each seat's stack after a Lowball hand that went to the showdown with the hands speaking,
    as the test reads R45 and docs/games/draw.md: the lowest hand (the test's `my_lowball`) wins;
    if a winner checked after the draw holding a seven or better, the winners share only the pot
    as it stood when the draw ended, and every chip put in after the draw goes back to whoever put
    it in; else they share the whole pot. The fee (R44: the rate for the players dealt in, the
    draw reached) comes out of that pot first; a tie's odd chips go to the tied winner nearest
    the button's left (R41). Only hands with a single pot are worked (every seat still in put in
    the same before the draw and in all); else, or when a checked seven ties a hand that was not
    checked (R45 does not say whose action is lost then), the reason it is not worked. With the
    stacks, whether the seven rule took the action after the draw away."""
    live = [s for s in ledger.order if s not in ledger.folded]
    total = {s: ledger.before[s] + ledger.after[s] for s in ledger.order}
    if len({ledger.before[s] for s in live}) > 1 or len({total[s] for s in live}) > 1:
        return "side pots"
    best = min(my_lowball(five[s]) for s in live)
    winners = [s for s in live if my_lowball(five[s]) == best]  # in button order
    seven = my_seven_or_better(five[winners[0]])
    checkers = [s for s in winners if s in ledger.checked]
    if seven and checkers and len(checkers) != len(winners):
        return "a checked seven tied with a hand not checked"
    rule = seven and bool(checkers)
    pot = sum((ledger.before[s] for s in ledger.order), D(0))
    if not rule:
        pot += sum((ledger.after[s] for s in ledger.order), D(0))
    pot -= min(pot, _fee(config, len(ledger.order)))
    each = pot // len(winners)
    won = {s: each for s in winners}
    won[winners[0]] += pot - each * len(winners)
    return {
        s: ledger.stacks[s] - total[s] + won.get(s, D(0)) + (ledger.after[s] if rule else D(0))
        for s in ledger.order
    }, rule


# ---------------------------------------------------------------- the engine's properties


def low_first(order: list[str]) -> list[str]:
    """The pack with the cards of seven and under (the ace low) and the joker last, where the
    deck is dealt from: Lowball hands of seven or better, R45's, come often."""
    return sorted(order, key=lambda c: c == JOKER or _ace_low(c) <= 7)


def packs() -> st.SearchStrategy[list[str]]:
    """Orders of Lowball's pack: shuffled, or shuffled with the low cards dealt first."""
    shuffled = st.permutations(PACK)
    return st.one_of(shuffled, shuffled.map(low_first))


def _check_R45(config: Path, ledger: Ledger, deal: Deal, result: PokerHandSettled) -> None:
    """The engine's stacks after a Lowball showdown the hands spoke in are the test's own."""
    expected = expected_lowball_stacks(config, ledger, deal.five)
    if isinstance(expected, str):
        event(f"lowball showdown not worked by hand: {expected}")
        return
    mine, rule = expected
    stacks = dict(result.stacks)
    event(f"lowball showdown worked by hand{': a checked seven (R45)' if rule else ''}")
    if rule and any(ledger.after.values()):
        event("lowball: R45 returned chips put in after the draw")
    assert {s: stacks[s] for s in mine} == mine, (ledger, deal.five, result)


# ---------------------------------------------------------------- the pots against references


@dataclass(frozen=True)
class DrawGameRef:
    """A draw game's split, its pack, our evaluators' keys for `award` and the test's own."""

    split: Split
    joker: bool
    ours: Callable[[Sequence[Card]], Strength]
    mine: Callable[[Sequence[str]], tuple[Any, Any]]  # (high key or None, low key or None)


def _ours_high(five: Sequence[Card]) -> Strength:
    return Strength(draw_high(five)[0])


def _ours_hi_lo(five: Sequence[Card]) -> Strength:
    low = draw_low_eight(five)
    return Strength(draw_high(five)[0], None if low is None else low[0])


def _ours_lowball(five: Sequence[Card]) -> Strength:
    return Strength((), lowball_low(five)[0])


GAMES = {
    "five-card-draw": DrawGameRef(Split.HIGH, False, _ours_high, lambda f: (my_high(f), None)),
    "five-card-draw-hi-lo": DrawGameRef(
        Split.HIGH_LOW, False, _ours_hi_lo, lambda f: (my_high(f), my_low_eight(f))
    ),
    "lowball": DrawGameRef(Split.LOW, True, _ours_lowball, lambda f: (None, my_lowball(f))),
}


def _split_evenly(amount: int, winners: Sequence[int], chip: int, paid: Counter[int]) -> None:
    """R41: equal shares in whole chips, every odd chip (and any part of a chip) to the winner
    nearest the button's left (the first of `winners`, in button order)."""
    each = amount // chip // len(winners) * chip
    for s in winners:
        paid[s] += each
    paid[winners[0]] += amount - each * len(winners)


def reference_payouts(
    game: DrawGameRef,
    put: Sequence[tuple[int, int, bool]],
    fives: dict[int, list[str]],
    chip: int,
) -> Counter[int]:
    """What each seat takes from the table, worked chip level by chip level: level k holds one
    chip of every player who put in k or more, contested by the players still in among them; a
    level only one player reached goes back to that player (uncalled); neighbouring levels with
    the same players still in are one pot (R41's reading: each all-in starts a side pot). Each pot
    goes to its best hand: the highest (my_high), or at Lowball the lowest (my_lowball, with the
    bug); at hi-lo halved, the odd chip to the high half, between the highest hand and the lowest
    "five cards 8 or below without pairing", or whole to the high hand when none of its
    contenders has such a low (R41, R42: only the hands equal to the lowest low share the low).
    `put`: (seat, chips put in, folded), seats in button order (the button's left first)."""
    paid: Counter[int] = Counter()
    pots: list[tuple[list[int], int]] = []  # (the players still in who may win it, its chips)
    for level in range(1, max(a for _, a, _ in put) + 1):
        reached = [(s, folded) for s, a, folded in put if a >= level]
        if len(reached) == 1:
            paid[reached[0][0]] += 1
            continue
        eligible = [s for s, folded in reached if not folded]
        if pots and pots[-1][0] == eligible:
            pots[-1] = (eligible, pots[-1][1] + len(reached))
        else:
            pots.append((eligible, len(reached)))
    keys = {s: game.mine(five) for s, five in fives.items()}
    for eligible, amount in pots:
        assert eligible, "chips only folded players reached"
        if len(eligible) == 1:
            paid[eligible[0]] += amount
            continue
        if game.split is Split.LOW:
            best = min(keys[s][1] for s in eligible)
            _split_evenly(amount, [s for s in eligible if keys[s][1] == best], chip, paid)
            continue
        top = max(keys[s][0] for s in eligible)
        high = [s for s in eligible if keys[s][0] == top]
        lows = [keys[s][1] for s in eligible if keys[s][1] is not None]
        if game.split is Split.HIGH or not lows:
            _split_evenly(amount, high, chip, paid)
            continue
        low = [s for s in eligible if keys[s][1] == min(lows)]
        low_half = amount // chip // 2 * chip
        _split_evenly(amount - low_half, high, chip, paid)
        _split_evenly(low_half, low, chip, paid)
    return paid


def _alike(deck: list[str], seat: int) -> list[str]:
    """The deck with seat `seat`'s five swapped for cards of seat 0's ranks where the deck has
    them (the joker for the joker), so that the two hands often tie."""
    deck = list(deck)
    for k in range(5):
        at = 5 * seat + k
        rank = deck[k][0]
        spare = next((m for m in range(5 * seat + 5, len(deck)) if deck[m][0] == rank), None)
        if spare is not None:
            deck[at], deck[spare] = deck[spare], deck[at]
    return deck


@st.composite
def showdowns(
    draw: st.DrawFn, game: DrawGameRef
) -> tuple[list[tuple[int, int, bool, bool]], dict[int, list[str]]]:
    """Two to six players' final fives (half the time from the low cards, half the time seat 1's
    of seat 0's ranks) and what each
    put in: a bet level everyone still in matched or went all-in short of, the folded players'
    chips up to the most any player still in put in. (seat, chips, folded, all-in)."""
    n = draw(st.integers(2, 6))
    deck = list(draw(st.permutations(PACK if game.joker else PACK[:-1])))
    if draw(st.booleans()):  # low cards first: lows, and sevens, for every hand
        deck = low_first(deck)[::-1]
    if draw(st.booleans()):
        deck = _alike(deck, 1)
    fives = {i: deck[5 * i : 5 * i + 5] for i in range(n)}
    stacks = draw(st.lists(st.integers(1, 80), min_size=n, max_size=n))
    level = draw(st.integers(1, 80))
    folded = draw(st.lists(st.sampled_from([False, False, True]), min_size=n, max_size=n))
    if all(folded):
        folded[draw(st.integers(0, n - 1))] = False
    most = max(min(stacks[i], level) for i in range(n) if not folded[i])
    put: list[tuple[int, int, bool, bool]] = []
    for i in range(n):
        if folded[i]:
            put.append((i, draw(st.integers(0, min(stacks[i], most))), True, False))
        else:
            put.append((i, min(stacks[i], level), False, stacks[i] <= level))
    return put, fives


@settings(max_examples=600, deadline=None)
@given(game_id=st.sampled_from(sorted(GAMES)), chip=st.sampled_from([1, 5]), data=st.data())
def test_draw_pots_equal_the_tests_own_reference(
    game_id: str, chip: int, data: st.DataObject
) -> None:
    """`build_pots` and `award` with the draw evaluators (tablectl/rules/draw.py) pay each seat
    what `reference_payouts` pays: the test's own hand values and side pots, R41 and R42."""
    game = GAMES[game_id]
    put, fives = data.draw(showdowns(game))
    built = build_pots(Contribution(s, D(a), folded=f, all_in=ai) for s, a, f, ai in put)
    live = [s for s, _, f, _ in put if not f]
    ranking = (
        {s: game.ours([parse_card(c) for c in fives[s]]) for s in live} if len(live) > 1 else {}
    )
    awards = award(
        built.pots,
        ranking,
        split=game.split,
        odd_chip_rule="003",
        chip=D(chip),
        button_order=range(len(put)),
    )
    ours = paid_by_seat(awards, built.uncalled)
    mine = reference_payouts(game, [(s, a, f) for s, a, f, _ in put], fives, chip)
    event(f"{game_id}: {len(built.pots)} pot(s)")
    if any(len(a.high) > 1 or len(a.low) > 1 for a in awards):
        event(f"{game_id}: a tied pot")
    if game.split is Split.HIGH_LOW and any(a.low for a in awards):
        event(f"{game_id}: a pot split high and low")
    if any(JOKER in fives[s] for s in live):
        event(f"{game_id}: the bug in a hand still in")
    assert {s: ours.get(s, D(0)) for s, *_ in put} == {s: D(mine[s]) for s, *_ in put}, (
        put,
        fives,
        awards,
    )


def test_the_tests_own_lowball_values_rank_as_the_document_words() -> None:
    """The reference's hand values on the document's own examples (003 "Lowball")."""
    wheel = my_lowball(["Ah", "2d", "3c", "4s", JOKER])
    assert wheel == my_lowball(["Ah", "2d", "3c", "4s", "5h"])  # the bug: the 5, a wheel
    assert wheel < my_lowball(["6h", "4d", "3c", "2s", "Ac"])
    assert my_lowball(["Ah", "Ad", "Kc", "Qs", "Jh"]) < my_lowball(["2h", "2d", "3c", "4s", "5h"])
    assert my_lowball(["Kh", "Qd", "Jc", "9s", "8h"]) < my_lowball(["Ah", "Ad", "2c", "3s", "4h"])
    assert my_lowball(["Ah", "Ad", "Kc", JOKER, "Qs"]) == my_lowball(["Ah", "Ad", "Kc", "2s", "Qs"])
    assert my_seven_or_better(["7h", "5d", "4c", "3s", JOKER])  # the bug is the ace
    assert not my_seven_or_better(["8h", "5d", "4c", "3s", "2c"])
    assert my_high(["Ah", "2h", "3h", "4h", "5h"]) < my_high(["2d", "3d", "4d", "5d", "6d"])
    assert my_low_eight(["8h", "6d", "4c", "3s", "2c"]) == (8, 6, 4, 3, 2)
    assert my_low_eight(["8h", "8d", "4c", "3s", "2c"]) is None


# ---------------------------------------------------------------- Five Card Draw against pokerkit


def _pokerkit_draw(stacks: Sequence[int], chip: int) -> State:
    """pokerkit's five card draw with our tables' blinds ($1 and $2): five down, a round left of
    the big blind, the draw, a round from the button's left; no-limit so any stack can go
    all-in."""
    streets = (
        Street(False, (False,) * 5, 0, False, Opening.POSITION, 2, None),
        Street(False, (), 0, True, Opening.POSITION, 2, None),
    )
    return State(
        AUTOMATIONS,
        Deck.STANDARD,
        (StandardHighHand,),
        streets,
        BettingStructure.NO_LIMIT,
        True,
        0,
        (1, 2),
        0,
        tuple(stacks),
        len(stacks),
        divmod=chip_divmod(chip),
    )


def play_pokerkit_draw(
    stacks: Sequence[int],
    folds: Sequence[bool],
    discards: Sequence[int],
    deck: Sequence[Card],
    chip: int,
) -> tuple[list[int], list[Contribution], dict[int, Strength]]:
    """One hand of Five Card Draw in pokerkit, every player folding when it may (`folds`) or else
    putting its whole stack in, throwing away its first `discards[i]` cards at the draw (as many
    as the deck still has): pokerkit's payoffs, each player's chips put in, and the final fives
    of the hands still in ranked by draw_high."""
    n = len(stacks)
    state = _pokerkit_draw(stacks, chip)
    cards = iter(deck)
    left = len(deck) - 5 * n  # what the deck has for the draw
    holes: list[list[Card]] = [[] for _ in range(n)]
    put = [s - rest for s, rest in zip(stacks, state.stacks, strict=True)]  # the blinds
    folded = [False] * n
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pokerkit warns when it burns chips or deals oddly
        while state.status:
            if (i := state.actor_index) is not None:
                before = state.stacks[i]
                if folds[i] and state.can_fold():
                    state.fold()
                    folded[i] = True
                elif state.can_complete_bet_or_raise_to(
                    everything := state.stacks[i] + state.bets[i]
                ):
                    state.complete_bet_or_raise_to(everything)
                else:
                    state.check_or_call()
                put[i] += before - state.stacks[i]
            elif (i := state.stand_patter_or_discarder_index) is not None:
                count = min(discards[i], left)
                out, holes[i] = holes[i][:count], holes[i][count:]
                left -= count
                state.stand_pat_or_discard("".join(map(str, out)))
            elif state.can_deal_hole():
                i = state.hole_dealee_index
                assert i is not None
                card = next(cards)
                holes[i].append(card)
                state.deal_hole(str(card))
            else:
                raise AssertionError(f"pokerkit waits for something else: {state.operations[-1]}")
    contributions = [
        Contribution(i, D(put[i]), folded=folded[i], all_in=not folded[i] and put[i] == stacks[i])
        for i in range(n)
    ]
    live = [i for i in range(n) if not folded[i]]
    ranking = {i: _ours_high(holes[i]) for i in live} if len(live) > 1 else {}
    assert all(len(holes[i]) == 5 for i in live)
    return list(state.payoffs), contributions, ranking


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(2, 6),
    chip=st.sampled_from([1, 5]),
    alike=st.booleans(),
    data=st.data(),
)
def test_five_card_draw_pots_equal_pokerkits(
    n: int, chip: int, alike: bool, data: st.DataObject
) -> None:
    """A whole hand of Five Card Draw high played in pokerkit 0.7 (its own streets: five down, a
    round, the draw, a round; our blinds, no-limit so every player folds when it may or goes
    all-in, making side pots, folded and uncalled chips), the final fives ranked by draw_high and
    paid by `award` under 003's odd-chip rule, must pay each player what pokerkit pays. Hands in
    which pokerkit merges pots with the same winners and odd chips
    (tests/games/poker/test_pots_pokerkit.py)
    are skipped."""
    stacks = data.draw(st.lists(st.integers(1, 80), min_size=n, max_size=n))
    folds = data.draw(
        st.lists(st.sampled_from([False, False, False, True]), min_size=n, max_size=n)
    )
    discards = data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    deck = [str(c) for c in data.draw(st.permutations(standard_deck()))]
    if alike:
        deck = _alike(deck, 1)
    payoffs, contributions, ranking = play_pokerkit_draw(
        stacks, folds, discards, [parse_card(c) for c in deck], chip
    )
    pots = build_pots(contributions)
    awards = award(
        pots.pots,
        ranking,
        split=Split.HIGH,
        odd_chip_rule="003",
        chip=D(chip),
        button_order=range(n),
    )
    why = pokerkit_differs(awards, Split.HIGH, "003", D(chip))
    event(why or "compared")
    if why:
        return
    if len(ranking) > 1:
        event("a showdown compared")
        if any(len(a.high) > 1 for a in awards):
            event("a tied pot compared")
    taken = paid_by_seat(awards, pots.uncalled)
    ours = [taken.get(c.seat, D(0)) - c.amount for c in contributions]
    assert ours == [D(p) for p in payoffs], (contributions, ranking, awards)
