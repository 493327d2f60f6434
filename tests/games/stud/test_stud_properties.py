"""Random legal hands of the stud games, and their pots against pokerkit.

The generator of the console's next legal input at a stud table (`_next_stud_input`) and
`stud_session`, a whole random session's inputs; the engine's properties over those sessions
(chips conserved, no down card published but a shown hand's, R46, a folded seat's up cards
turned down, the replay the same) are the poker families' shared suite,
tests/games/poker/test_poker_family_properties.py.

The pots, against pokerkit (an independent poker engine): a hand of each game played in
pokerkit with our blinds and its streets' faces, the showdown ranked by tablectl/rules/stud.py
and paid by `award`, must pay every player what pokerkit pays (`test_stud_pots_equal_pokerkits`
says exactly what is compared, and why).

Found by these tests and fixed: a Razz showdown declared with `high` only (best first, as
docs/games/poker-room.md describes a declaration) was an engine error; it now settles, and a
Razz declaration with a `low` order is refused (`high` is a low-only game's one order).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pokerkit import (
    BettingStructure,
    Deck,
    EightOrBetterLowHand,
    Hand,
    Opening,
    RegularLowHand,
    StandardHighHand,
    State,
    Street,
)

from tablectl.config import load_config
from tablectl.game_records import PokerHandSettled
from tablectl.games.base import Rejected
from tablectl.games.poker.engine import PokerEngine
from tablectl.games.poker.state import HandState, PokerState
from tablectl.games.registry import make_engine
from tablectl.games.stud.family import STUD
from tablectl.rules.flop_hands import HighHand, LowHand
from tablectl.rules.pots import Contribution, Split, Strength, award, build_pots, paid_by_seat
from tablectl.rules.stud import razz_low, stud_high, stud_low_eight
from tablectl_base.cards import Card, parse_card, standard_deck
from tablectl_base.events import parse_event
from tests.games.poker.test_poker_engine_properties import _amount
from tests.games.poker.test_pots_pokerkit import AUTOMATIONS, chip_divmod, pokerkit_differs, twin

D = Decimal
CONFIG = Path(__file__).resolve().parents[3] / "config"
STUD_CONFIGS = (
    "seven-card-stud-003.toml",
    "seven-card-stud-hi-lo-003.toml",
    "razz-003.toml",
    "five-card-stud-003.toml",
    "option-alley-003.toml",
)


# ---------------------------------------------------------------- a random session


@dataclass
class Deal:
    """The hand in play as the generator dealt it: what is left of the deck, every seat's down
    and up cards in the order dealt, the down cards the engine has been told (by `hole.cards` or
    `down.cards`), and whether this hand's showdown is declared (then no seat's down cards are
    ever all told: no hand can speak)."""

    number: int = 0
    deck: list[str] = field(default_factory=list)
    down: dict[int, list[str]] = field(default_factory=dict)
    up: dict[int, list[str]] = field(default_factory=dict)
    told: dict[int, list[str]] = field(default_factory=dict)
    declare: bool = False
    discarded: list[str] = field(default_factory=list)  # Option Alley's hole cards bought away

    def untold(self, seat: int) -> list[str]:
        return [c for c in self.down.get(seat, []) if c not in self.told.get(seat, [])]

    def downs(self) -> set[str]:
        return {c for cards in self.down.values() for c in cards} | set(self.discarded)


def _live(state: PokerState) -> list[int]:
    """The seats still in, in the order dealt."""
    hand = state.hand
    assert hand is not None
    folded = set(hand.betting.folded_seats)
    return [s for s in hand.order if s not in folded]


def _tiers(seats: Sequence[int], key: Callable[[int], Any], *, best_high: bool) -> list[list[int]]:
    """`seats` grouped by `key`, tied seats together, best first (highest, or lowest)."""
    keys = sorted({key(s) for s in seats}, reverse=best_high)
    return [[s for s in seats if key(s) == k] for k in keys]


def _declared(eng: PokerEngine, state: PokerState, deal: Deal) -> dict[str, Any]:
    """The dealer's showdown for the hands still in, ranked as their cards rank (the dealer
    reads them right). Razz is declared in `high` alone, best (lowest) first."""
    live = _live(state)

    def cards(s: int) -> tuple[list[Card], list[Card]]:
        return [parse_card(c) for c in deal.down[s]], [parse_card(c) for c in deal.up[s]]

    variant = eng.settings.variant
    if variant == "razz":
        lows: dict[int, LowHand | None] = {s: razz_low(*cards(s)) for s in live}
        order = _tiers(live, lambda s: lows[s][0], best_high=False)  # type: ignore[index]
        return {"type": "showdown", "high": order}
    highs: dict[int, HighHand] = {s: stud_high(*cards(s)) for s in live}
    ev: dict[str, Any] = {
        "type": "showdown",
        "high": _tiers(live, lambda s: highs[s][0], best_high=True),
    }
    if variant == "seven-card-stud-hi-lo":
        eights = {s: low for s in live if (low := stud_low_eight(*cards(s))) is not None}
        ev["low"] = _tiers(list(eights), lambda s: eights[s][0], best_high=False)
    if variant == "option-alley":  # no qualifier: every hand has a low
        any_low = {s: razz_low(*cards(s)) for s in live}
        ev["low"] = _tiers(live, lambda s: any_low[s][0], best_high=False)  # type: ignore[index]
    return ev


def _between_hands(data: st.DataObject, state: PokerState) -> dict[str, Any] | None:
    """Seats sitting out and back (the blinds passing them), or the next hand.start."""
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
        ev["button"] = here[0]
    return ev


def _next_stud_input(
    data: st.DataObject, eng: PokerEngine, state: PokerState, deal: Deal
) -> dict[str, Any] | None:
    """A legal input for what the stud table waits for, or None when no hand can be dealt.
    `deal` follows the cards: the first street's down cards are taken from the deck when the
    hand is first seen (they are dealt with `hand.start`)."""
    hand = state.hand
    if hand is None:
        return _between_hands(data, state)
    game = eng.game
    if deal.number != hand.number:  # hand.start dealt the first street's down cards
        first_downs = sum(f == "down" for f in game.streets[0])
        deal.number, deal.down, deal.up, deal.told = hand.number, {}, {}, {}
        deal.discarded = []
        for s in hand.order:
            deal.down[s] = [deal.deck.pop() for _ in range(first_downs)]
            deal.up[s], deal.told[s] = [], []
        deal.declare = data.draw(st.integers(0, 3)) == 0
    if data.draw(st.integers(0, 150)) == 77:
        return {"type": "round.void", "reason": "misdeal"}
    phase = eng.state_view(state).phase

    def room(s: int) -> int:  # how many down cards seat s may still be told now
        n = len(deal.untold(s))
        return min(n, game.downs - 1 - len(deal.told[s])) if deal.declare else n

    early = [s for s in hand.order if room(s) > 0]
    if early and phase != "showdown" and data.draw(st.integers(0, 7)) == 0:
        seat = data.draw(st.sampled_from(early))
        cards = deal.untold(seat)[: data.draw(st.integers(1, room(seat)))]
        deal.told[seat] += cards
        return {"type": "hole.cards", "seat": seat, "cards": cards}
    live = _live(state)
    if phase == "deal":
        street = game.streets[hand.streets]
        dealt = {s: deal.deck.pop() for s in live}
        if "up" in street:
            for s, c in dealt.items():
                deal.up[s].append(c)
            return {"type": "up.cards", "cards": [{"seat": s, "card": c} for s, c in dealt.items()]}
        for s, c in dealt.items():
            deal.down[s].append(c)
        ev: dict[str, Any] = {"type": "down.cards"}
        if data.draw(st.booleans()) and all(room(s) > 0 for s in live):
            ev["cards"] = [{"seat": s, "card": c} for s, c in dealt.items()]
            for s, c in dealt.items():
                deal.told[s].append(c)
        return ev
    if phase == "buy":
        return _buy(data, hand, deal)
    if phase == "showdown":
        if deal.declare:
            return _declared(eng, state, deal)
        seat = next(s for s in live if deal.untold(s))
        cards = deal.untold(seat)
        deal.told[seat] += cards
        return {"type": "hole.cards", "seat": seat, "cards": cards}
    assert phase == "betting", phase
    b = hand.betting
    turn = b.turn
    assert turn is not None
    options = [
        a for a, ok in (("check", b.can_check()), ("call", b.can_call()), ("fold", True)) if ok
    ]
    if b.can_all_in():
        options.append("all-in")
    low, high = b.min_bet_or_raise_to, b.max_bet_or_raise_to
    if low is not None and high is not None:
        options += ["bet" if b.current_bet == 0 else "raise"] * 2
    action = data.draw(st.sampled_from(options))
    ev = {"type": "decision", "seat": turn, "action": action}
    if action in ("bet", "raise"):
        assert low is not None and high is not None
        ev["amount"] = _amount(data, low, high)
    return ev


def _buy(data: st.DataObject, hand: HandState, deal: Deal) -> dict[str, Any]:
    """Option Alley: the next seat's buy (in turn from the dealer's left): pat, an up card for
    one dealt up, or the hole card for one dealt down (told or not)."""
    folded = set(hand.betting.folded_seats)
    seat = next(s for s in hand.order if s not in folded and s not in hand.bought)
    choice = data.draw(st.sampled_from(["pat", "up", "hole"]))
    if choice == "pat":
        return {"type": "option.buy", "seat": seat}
    new = deal.deck.pop()
    if choice == "up":
        out = data.draw(st.sampled_from(deal.up[seat]))
        deal.up[seat] = [*(c for c in deal.up[seat] if c != out), new]
        return {"type": "option.buy", "seat": seat, "discard": out, "card": new}
    deal.discarded += deal.down[seat]
    deal.down[seat] = [new]
    ev: dict[str, Any] = {"type": "option.buy", "seat": seat, "discard": "hole"}
    deal.told[seat] = []
    if not deal.declare and data.draw(st.booleans()):
        ev["card"] = new
        deal.told[seat] = [new]
    return ev


def _engine(config: Path) -> PokerEngine:
    engine = make_engine(load_config(config).rules)
    assert isinstance(engine, PokerEngine) and engine.family is STUD
    return engine


def _deck(deck_order: Sequence[str], hand: int) -> list[str]:
    """The deck of the `hand`-th hand: the drawn order cut a little further each hand."""
    cut = (hand * 17) % len(deck_order)
    return [*deck_order[cut:], *deck_order[:cut]]


def stud_session(
    config: Path, stacks: list[int], deck_order: list[str], data: st.DataObject
) -> list[dict[str, Any]]:
    """A random session of up to three hands at the stud table `config` describes, as the
    console enters it (the inputs `_next_stud_input` draws), from the players sitting down on."""
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
            deal = Deal(deck=_deck(deck_order, hands))
        step = _next_stud_input(data, engine, state, deal)
        if step is None:
            break
        before = state.hand
        state, _ = engine.apply(state, parse_event(step), "t")
        hands += before is not None and state.hand is None
        inputs.append(step)
    return inputs


def test_a_razz_showdown_declared_best_first_settles_the_pot() -> None:
    """docs/games/poker-room.md: the dealer's `showdown` "ranks every hand still in, best first"
    and "in a split game" also names the qualifying lows. Razz is not a split game: `high`
    alone, best (lowest) first, settles the hand; a `low` order is refused."""
    eng = _engine(CONFIG / "razz-003.toml")
    state = eng.initial()
    steps: list[dict[str, Any]] = [
        {"type": "seat.take", "seat": 1, "stack": "2"},
        {"type": "seat.take", "seat": 2, "stack": "1"},
        {"type": "hand.start", "button": 1},  # both all-in with the blinds: no betting
        *(
            {"type": "up.cards", "cards": [{"seat": 2, "card": a}, {"seat": 1, "card": b}]}
            for a, b in (("2h", "Kc"), ("3h", "Qc"), ("4h", "Jc"), ("5h", "Tc"))
        ),
        {"type": "down.cards"},
    ]
    for step in steps:
        state, out = eng.apply(state, parse_event(step), "t")
    both = {"type": "showdown", "high": [[2], [1]], "low": [[2], [1]]}
    with pytest.raises(Rejected, match="played for low only"):
        eng.apply(state, parse_event(both), "t")
    state, out = eng.apply(state, parse_event({"type": "showdown", "high": [[2], [1]]}), "t")
    assert state.hand is None
    (result,) = [r for r in out if isinstance(r, PokerHandSettled)]
    assert [p.low for p in result.pots] == [(2,)]


# ---------------------------------------------------------------- the pots against pokerkit


@dataclass(frozen=True)
class PokerkitStud:
    """A stud game in pokerkit: its hand types, deck, the faces of each street's cards (False:
    down) and whether the lowest board showing opens the later rounds; our evaluators and
    split for the same game."""

    hand_types: tuple[type[Hand], ...]
    deck: Deck
    faces: tuple[tuple[bool, ...], ...]
    low_opens: bool
    split: Split
    strength: Callable[[Sequence[Card], Sequence[Card]], Strength]


def _high(down: Sequence[Card], up: Sequence[Card]) -> Strength:
    return Strength(stud_high(down, up)[0])


def _high_low(down: Sequence[Card], up: Sequence[Card]) -> Strength:
    low = stud_low_eight(down, up)
    return Strength(stud_high(down, up)[0], None if low is None else low[0])


def _razz(down: Sequence[Card], up: Sequence[Card]) -> Strength:
    low = razz_low(down, up)
    assert low is not None
    return Strength((), low[0])


SEVEN = ((False, False, True), (True,), (True,), (True,), (False,))
POKERKIT_GAMES: dict[str, PokerkitStud] = {
    "seven-card-stud": PokerkitStud(
        (StandardHighHand,), Deck.STANDARD, SEVEN, False, Split.HIGH, _high
    ),
    "seven-card-stud-hi-lo": PokerkitStud(
        (StandardHighHand, EightOrBetterLowHand),
        Deck.STANDARD,
        SEVEN,
        False,
        Split.HIGH_LOW,
        _high_low,
    ),
    "razz": PokerkitStud((RegularLowHand,), Deck.REGULAR, SEVEN, True, Split.LOW, _razz),
    "five-card-stud": PokerkitStud(
        (StandardHighHand,),
        Deck.STANDARD,
        ((False, True), (True,), (True,), (True,)),
        False,
        Split.HIGH,
        _high,
    ),
}


def pokerkit_state(game: PokerkitStud, stacks: Sequence[int], chip: int) -> State:
    """pokerkit's stud with our tables' blinds ($1 and $2, no bring-in, no ante): the first
    round opened by position (left of the big blind), the later ones by the board showing;
    no-limit betting so that any stack can go all-in."""
    later = Opening.LOW_HAND if game.low_opens else Opening.HIGH_HAND
    streets = tuple(
        Street(False, faces, 0, False, Opening.POSITION if i == 0 else later, 2, None)
        for i, faces in enumerate(game.faces)
    )
    return State(
        AUTOMATIONS,
        game.deck,
        game.hand_types,
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


def play_pokerkit(
    game: PokerkitStud,
    stacks: Sequence[int],
    folds: Sequence[bool],
    deck: Sequence[Card],
    chip: int,
) -> tuple[list[int], list[Contribution], dict[int, Strength]]:
    """One hand in pokerkit, every player folding when it may (`folds`) or else putting its whole
    stack in: pokerkit's payoffs, each player's chips put in, and the hands still in ranked by
    our stud evaluators. Player i is dealt deck[k*i : k*(i+1)] in order (k cards a player), each
    card face down or up as its street deals it; player 0 sits left of the button."""
    n, k = len(stacks), sum(map(len, game.faces))
    state = pokerkit_state(game, stacks, chip)
    cards = [iter(deck[k * i : k * (i + 1)]) for i in range(n)]
    down: list[list[Card]] = [[] for _ in range(n)]
    up: list[list[Card]] = [[] for _ in range(n)]
    put = [s - left for s, left in zip(stacks, state.stacks, strict=True)]  # the blinds
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
            elif state.can_deal_hole():
                i = state.hole_dealee_index
                assert i is not None
                card = next(cards[i])
                (face_up,) = state.deal_hole(str(card)).statuses
                (up if face_up else down)[i].append(card)
            else:
                raise AssertionError(f"pokerkit waits for something else: {state.operations[-1]}")
    contributions = [
        Contribution(
            i, Decimal(put[i]), folded=folded[i], all_in=not folded[i] and put[i] == stacks[i]
        )
        for i in range(n)
    ]
    live = [i for i in range(n) if not folded[i]]
    ranking = {i: game.strength(down[i], up[i]) for i in live} if len(live) > 1 else {}
    if ranking:  # every card dealt, with its face
        assert all(len(down[i]) + len(up[i]) == k for i in live)
    return list(state.payoffs), contributions, ranking


@st.composite
def stud_tables(draw: st.DrawFn, cards_each: int) -> tuple[list[int], list[bool], list[Card]]:
    """Two to six players, their stacks, who folds when allowed, and the deck's order (half the
    time with player 1's cards of player 0's ranks, so that hands tie)."""
    n = draw(st.integers(2, 6))
    stacks = draw(st.lists(st.integers(1, 80), min_size=n, max_size=n))
    folds = draw(st.lists(st.sampled_from([False, False, False, True]), min_size=n, max_size=n))
    deck = list(draw(st.permutations(standard_deck())))
    return stacks, folds, twin(deck, cards_each) if draw(st.booleans()) else deck


@settings(max_examples=400, deadline=None)
@given(
    variant=st.sampled_from(sorted(POKERKIT_GAMES)),
    chip=st.sampled_from([1, 5]),
    data=st.data(),
)
def test_stud_pots_equal_pokerkits(variant: str, chip: int, data: st.DataObject) -> None:
    """What is compared: a whole hand of the stud game played in pokerkit 0.7 with our tables'
    blinds ($1 and $2 posted by the two seats left of the button, no bring-in, no ante; pokerkit
    takes blinds in stud when its `State` is built from stud streets directly), the cards dealt
    street by street with their faces (003 "Basic Seven Card Stud Rules" rule 1, "Five Card
    Stud"), every player folding when it may or else going all-in, so hands end with all-ins of
    different sizes, side pots, folded chips and uncalled chips. pokerkit's payoff to each player
    must equal ours: the same chips put in through `build_pots`, and the hands still in ranked by
    `tablectl.rules.stud` (stud_high, stud_low_eight, razz_low: any five of the seat's seven, or
    five, cards, down and up) and paid by `award` under document 003's odd-chip rule (R41: the
    halving's odd chip to the high hand, 003 "Basic Seven Card Stud Rules" rule 6; a tie's odd
    chips to the winner nearest the button's left), in pokerkit's whole chips (`chip_divmod`).

    Why at the pots and not through the engine: the shipped tables are fixed-limit with a
    collection taken from the main pot, pokerkit's stud classes have a bring-in, and heads-up
    pokerkit posts the blinds the other way round; this comparison takes pokerkit's own hand
    evaluation (StandardHighHand, EightOrBetterLowHand, RegularLowHand: ace-to-five, pairs
    count, no qualifier) and pot splitting as the reference for everything a showdown decides.
    The engine settles with exactly this `build_pots` and `award` (PokerEngine._settle).
    Hands where pokerkit places odd chips otherwise than R42 by design (pots it merges, a
    high-low pot with no low halved) are skipped, as in tests/games/poker/test_pots_pokerkit.py
    (`pokerkit_differs`)."""
    game = POKERKIT_GAMES[variant]
    stacks, folds, deck = data.draw(stud_tables(sum(map(len, game.faces))))
    payoffs, contributions, ranking = play_pokerkit(game, stacks, folds, deck, chip)
    pots = build_pots(contributions)
    awards = award(
        pots.pots,
        ranking,
        split=game.split,
        odd_chip_rule="003",
        chip=Decimal(chip),
        button_order=range(len(stacks)),
    )
    why = pokerkit_differs(awards, game.split, "003", Decimal(chip))
    event(f"{variant}: {why or 'compared'}")
    if why:
        return
    if len(ranking) > 1:
        event(f"{variant}: a showdown compared")
        if any(len(a.high) > 1 or len(a.low) > 1 for a in awards):
            event(f"{variant}: a tied pot compared")
        if game.split is Split.HIGH_LOW and any(a.low for a in awards):
            event(f"{variant}: a pot split high and low compared")
    taken = paid_by_seat(awards, pots.uncalled)
    ours = [taken.get(c.seat, Decimal(0)) - c.amount for c in contributions]
    assert ours == [Decimal(p) for p in payoffs], (contributions, ranking, awards)
