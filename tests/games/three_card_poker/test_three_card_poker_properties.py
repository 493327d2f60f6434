"""Properties of the Three Card Poker 6 Card Bonus table over random decks, wagers and decisions.

The oracles here are written from the documents, not from the code: the three-card ranking from
004 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings" with R29 (A-2-3 the lowest
straight, A-K-Q suited the Mini Royal), the five-card 6 Card Bonus hands from 000 "Three Card Poker
6 Card Bonus: 6 Card Bonus" (best five of the six, TCB-6B4), the wager results from 004 "Three Card
Poker 6 Card Bonus: Round of Play" to "6 Card Bonus", the action button from 000 "Three Card Poker 6
Card Bonus: Description of Table Used and Total Number of Seated Positions" (R2), the settlement
order from 004 "Three Card Poker 6 Card Bonus: Method Used to Determine Action and Distribution of
Cards" (R3), the bank walk from R1's text, and the fee from 000 schedule option 1 (lines 435-439).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event as note
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.table import Table
from tests.games.three_card_poker.test_three_card_poker_engine import tcp_config
from tests.helpers import (
    BASE,
    CLOSE,
    assert_balanced,
    assert_replays_identically,
    bank,
    feed,
    feed_checked,
    interleave,
    payload,
)

D = Decimal
RANKS = "A23456789TJQK"
SUITS = "shdc"
DECK = [r + s for r in RANKS for s in SUITS]
SEATS = 7
COLOURS = ("red", "blue")

# "ace, king, queen, jack, 10, 9, 8, 7, 6, 5, 4, 3, 2"
# (004 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings")
VALUE = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10, **{str(n): n for n in range(2, 10)}}
# the action button: "ace, is one, 2 through 9 have their face value, jack is eleven, queen is
# twelve, and king is thirteen" (000 "Three Card Poker 6 Card Bonus: Description of Table Used and
# Total Number of Seated Positions"; R2 gives the ten 10)
BUTTON = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 10)}}
# Pair Plus, 000 "Three Card Poker 6 Card Bonus: Pair Plus Wager", by three-card category (below)
PAIR_PLUS = {6: 200, 5: 40, 4: 30, 3: 6, 2: 3, 1: 1, 0: 0}
# TCB-6B4, 000 "Three Card Poker 6 Card Bonus: 6 Card Bonus"
SIX_CARD = {
    "royal-flush": 1000,
    "straight-flush": 200,
    "four-of-a-kind": 100,
    "full-house": 20,
    "flush": 15,
    "straight": 10,
    "three-of-a-kind": 7,
}
FIVE_ORDER = [None, *reversed(list(SIX_CARD))]  # losing hands first, the royal flush last
# 004 "Three Card Poker 6 Card Bonus: Method Used to Determine Action and Distribution of Cards"
SPOT_ORDER = ("ante", "play", "pair-plus", "six-card-bonus")


# -- the document's rules, recomputed --------------------------------------------------------------


def three_key(cards: Sequence[str]) -> tuple[int, ...]:
    """A comparable key: Mini Royal 6, straight flush 5, three of a kind 4, straight 3, flush 2,
    pair 1, high card 0 (004 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings"), then
    the values that order hands of one kind."""
    vals = sorted((VALUE[c[0]] for c in cards), reverse=True)
    suited = len({c[1] for c in cards}) == 1
    high: int | None = None
    if vals == [14, 3, 2]:
        high = 3  # "ace, 2, 3 is the lowest ranked straight" (line 504, R29)
    elif vals[0] - vals[1] == 1 and vals[1] - vals[2] == 1:
        high = vals[0]
    if vals[0] == vals[2]:
        return (4, vals[0])
    if high is not None and suited:
        return (6,) if high == 14 else (5, high)
    if high is not None:
        return (3, high)
    if suited:
        return (2, *vals)
    if vals[0] == vals[1] or vals[1] == vals[2]:
        pair = vals[1]
        kicker = vals[2] if vals[0] == vals[1] else vals[0]
        return (1, pair, kicker)
    return (0, *vals)


def qualifies(cards: Sequence[str]) -> bool:
    """ "The player-dealer must qualify to play with a minimum of queen-high" (line 559)."""
    key = three_key(cards)
    return key[0] > 0 or key[1] >= 12


def five_category(cards: Sequence[str]) -> str | None:
    """The paying five-card hand of exactly five cards, or None."""
    vals = sorted(VALUE[c[0]] for c in cards)
    counts = sorted(Counter(vals).values(), reverse=True)
    flush = len({c[1] for c in cards}) == 1
    straight = len(set(vals)) == 5 and (vals[4] - vals[0] == 4 or vals == [2, 3, 4, 5, 14])
    if straight and flush:
        return "royal-flush" if vals[0] == 10 else "straight-flush"
    if counts[0] == 4:
        return "four-of-a-kind"
    if counts == [3, 2]:
        return "full-house"
    if flush:
        return "flush"
    if straight:
        return "straight"
    if counts[0] == 3:
        return "three-of-a-kind"
    return None


def six_card_category(six: Sequence[str]) -> str | None:
    """ "uses any of those six cards ... to make the best possible five card poker hand" (609)."""
    return max((five_category(five) for five in combinations(six, 5)), key=FIVE_ORDER.index)


def doc_verdict(
    spot: str, hand: Sequence[str], dealer: Sequence[str], folded: bool
) -> tuple[str, Decimal]:
    """(verdict, odds) of one wager by
    004 "Three Card Poker 6 Card Bonus: Round of Play" to "6 Card Bonus"."""
    if spot in ("ante", "play"):
        if folded:
            return "lose", D(0)
        if not qualifies(dealer):
            return ("push", D(0)) if spot == "play" else ("win", D(1))
        mine, theirs = three_key(hand), three_key(dealer)
        return (
            ("win", D(1)) if mine > theirs else ("lose", D(0)) if mine < theirs else ("push", D(0))
        )
    if spot == "pair-plus":
        odds = 0 if folded else PAIR_PLUS[three_key(hand)[0]]
    else:
        category = six_card_category([*hand, *dealer])
        odds = 0 if category is None else SIX_CARD[category]
    return ("win", D(odds)) if odds else ("lose", D(0))


def doc_action_seat(face_up: str, bank_seat: int, wagered: set[int]) -> int | None:
    """000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
    Positions" with R2: count the seats from seat 1 skipping the player-dealer, wrap, then the next
    seat clockwise with a wager."""
    counted = [s for s in range(1, SEATS + 1) if s != bank_seat]
    button = counted[(BUTTON[face_up[0]] - 1) % len(counted)]
    for i in range(SEATS):
        seat = (button + i - 1) % SEATS + 1
        if seat in wagered:
            return seat
    return None


def r1_walk(bank_amount: Decimal, rows: Sequence[tuple[dict[str, Any], str, Decimal]]) -> list[Any]:
    """R1 as written: funds start at B, the bank's net may not exceed B, winners paid from funds."""
    funds, bank_net = bank_amount, D(0)
    out = []
    for w, verdict, odds in rows:
        amount = D(w["amount"])
        if verdict == "push":
            status, net = "push", D(0)
        elif verdict == "lose":
            collected = min(amount, bank_amount - bank_net)
            funds += collected
            bank_net += collected
            status = "lose" if collected == amount else "returned" if collected == 0 else "partial"
            net = -collected
        else:
            owed = amount * odds
            paid = min(owed, funds)
            funds -= paid
            bank_net -= paid
            status = "win" if paid == owed else "returned" if paid == 0 else "partial"
            net = paid
        out.append((w["seat"], w["player"], w["spot"], status, net))
    return out


def option1_fee(action: Decimal) -> str | None:
    """000 schedule option 1: $5-$50 $.50, $51-$100 $1, $101-$300 $2, $301-$500 $4, $501+ $5."""
    if action == 0:
        return None
    for low, fee in ((501, "5.00"), (301, "4.00"), (101, "2.00"), (51, "1.00")):
        if action >= low:
            return fee
    return "0.50"


# -- whole sessions of random rounds ---------------------------------------------------------------

SPOTS = ["ante", "ante", "pair-plus", "six-card-bonus"]
AMOUNTS = ["5", "10", "25", "100", "500", "501", "3"]  # 501 and 3 break the limits
BANKS = ["1", "20", "50", "300", "5000", "5000", "5000"]


@st.composite
def round_plans(draw: st.DrawFn) -> dict[str, Any]:
    wagers = draw(
        st.lists(
            st.tuples(
                st.integers(1, SEATS),
                st.sampled_from(SPOTS),
                st.sampled_from(AMOUNTS),
                st.sampled_from([None, None, None, "backer"]),
            ),
            max_size=12,
        )
    )
    return {
        "seat": draw(st.integers(1, SEATS)),
        "bank": draw(st.sampled_from(BANKS)),
        "wagers": wagers,
        "close": draw(st.booleans()),
        "folds": draw(st.lists(st.booleans(), min_size=SEATS, max_size=SEATS)),
        "deck_known": draw(st.booleans()),
        "shuffle": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=60, deadline=None)
@given(plans=st.lists(round_plans(), min_size=3, max_size=12))
def test_random_rounds_balance_hide_cards_and_follow_the_documents_R1_R2_R29(
    tmp_path_factory: pytest.TempPathFactory, plans: list[dict[str, Any]]
) -> None:
    table = Table(tcp_config(tmp_path_factory.mktemp("tcp")))
    last_seat, streak, colour = None, 0, 0
    for plan in plans:
        round_rows: list[Any] = []

        def step(event: Any, rows: list[Any] = round_rows) -> list[Any]:
            out = feed(table, event)
            rows.extend(out)
            return out

        seat = plan["seat"]
        if seat == last_seat and streak >= 2:  # R5: offer the bank on clockwise
            seat = seat % SEATS + 1
        assert not [r for r in step(bank(seat, plan["bank"])) if r.topic.endswith("/alert")]
        accepted: list[dict[str, Any]] = []
        for wseat, spot, amount, backer in plan["wagers"]:
            ev: dict[str, Any] = {"type": "wager", "seat": wseat, "spot": spot, "amount": amount}
            if backer:
                ev["player"] = backer
            accepted += [payload(r) for r in step(ev) if r.topic.endswith("/event")]
        if plan["close"]:
            step(CLOSE)
        # R29 / line 524: a stack to each seat with an Ante from the player-dealer's left
        anted = {w["seat"] for w in accepted if w["spot"] == "ante"}
        left = [(seat + i - 1) % SEATS + 1 for i in range(1, SEATS)]
        order = [s for s in left if s in anted] + [seat]
        deck = DECK[:]
        random.Random(plan["shuffle"]).shuffle(deck)
        deck_colour = COLOURS[colour % 2] if plan["deck_known"] else None
        hands: dict[int, list[str]] = {}
        for s in order:
            hands[s] = [deck.pop() for _ in range(3)]
            ev = {"type": "shuffler.stack", "cards": hands[s]}
            if deck_colour is not None:
                ev["deck"] = deck_colour
            echo = [payload(r) for r in step(ev) if r.topic.endswith("/event")]
            assert [e["to"] for e in echo] == [s]
        colour += 1 if deck_colour is not None else 0
        dealer = hands[seat]
        folded = {s for s in order[:-1] if plan["folds"][s - 1]}
        for s in order[:-1]:  # clockwise from the player-dealer's left (line 554)
            step({"type": "decision", "seat": s, "action": "fold" if s in folded else "play"})
        results = [payload(r) for r in round_rows if r.topic == f"{BASE}/round/result"]
        assert len(results) == 1
        result = results[0]
        last_seat, streak = seat, (streak + 1 if seat == last_seat else 1)

        # contract 3: no hole card before the reveal, no folded card ever
        reveal = next(i for i, r in enumerate(round_rows) if r.topic.endswith("/round/result"))
        hidden = [c for s in order[:-1] for c in hands[s]] + dealer[1:]
        for row in round_rows[:reveal]:
            assert not any(f'"{c}"' in row.payload.decode() for c in hidden)
        for row in round_rows:
            assert not any(f'"{c}"' in row.payload.decode() for s in folded for c in hands[s])

        # the documents' verdicts, in the documents' order, walked under R1
        plays: dict[tuple[int, str], Decimal] = {}
        for w in accepted:
            if w["spot"] == "ante" and w["seat"] not in folded:
                key = (w["seat"], w["player"])
                plays[key] = plays.get(key, D(0)) + D(w["amount"])
        wagers = accepted + [
            {"seat": s, "player": p, "spot": "play", "amount": str(a)}
            for (s, p), a in plays.items()
        ]
        action = doc_action_seat(dealer[0], seat, {w["seat"] for w in wagers})
        assert result["action_seat"] == action
        seat_order = [] if action is None else [(action + i - 1) % SEATS + 1 for i in range(SEATS)]
        walk = [
            (w, *doc_verdict(w["spot"], hands[w["seat"]], dealer, w["seat"] in folded))
            for s in seat_order
            for spot in SPOT_ORDER
            for w in wagers
            if (w["seat"], w["spot"]) == (s, spot)
        ]
        got = [
            (s["seat"], s["player"], s["spot"], s["status"], D(s["net"]))
            for s in result["settlements"]
        ]
        assert got == r1_walk(D(plan["bank"]), walk)
        start, end = D(result["bank"]["start"]), D(result["bank"]["end"])
        assert sum(g[4] for g in got) + (end - start) == 0  # R1, contract 3
        assert end >= 0
        pre_deal = sum((D(w["amount"]) for w in accepted), D(0))
        fee = option1_fee(pre_deal)  # R4: the Play never counts
        assert [f["amount"] for f in result["fees"]] == ([] if fee is None else [fee])
        note("qualified" if qualifies(dealer) else "not qualified")
        for s in result["settlements"]:
            note(f"{s['spot']} {s['status']}")


# -- random input of any kind ----------------------------------------------------------------------

ANY_CARD = st.sampled_from([*DECK, "JKR", "As", "Kd"])


def any_events() -> st.SearchStrategy[Any]:
    seat = st.integers(-1, 9)
    money = st.sampled_from(["0", "5", "10", "25", "500", "501", "-5", "abc", 7])
    return st.one_of(
        st.builds(
            lambda cards, deck: (
                {"type": "shuffler.stack", "cards": cards}
                | ({} if deck is None else {"deck": deck})
            ),
            st.lists(ANY_CARD, min_size=0, max_size=4),
            st.sampled_from([None, "red", "blue", "green"]),
        ),
        st.builds(lambda s, a: {"type": "bank", "seat": s, "amount": a}, seat, money),
        st.builds(
            lambda s, sp, a, p: (
                {"type": "wager", "seat": s, "spot": sp, "amount": a}
                | ({} if p is None else {"player": p})
            ),
            seat,
            st.sampled_from(["ante", "pair-plus", "six-card-bonus", "play", "bogus"]),
            money,
            st.sampled_from([None, "backer"]),
        ),
        st.builds(
            lambda s, a, amt: (
                {"type": "decision", "seat": s, "action": a}
                | ({} if amt is None else {"amount": amt})
            ),
            seat,
            st.sampled_from(["play", "fold", "stand", "set"]),
            st.sampled_from([None, "10", "25"]),
        ),
        st.just(CLOSE),
        st.just({"type": "shoe.card", "card": "As"}),
        st.just({"type": "round.void", "reason": "misdeal"}),
        st.just({"type": "round.resume"}),
        st.just({"type": "nonsense"}),
        st.just(None),
    )


def scripted_session(seed: int, rounds: int) -> list[Any]:
    """A plausible session: banks, wagers, the stacks in the right order, decisions."""
    rng = random.Random(seed)
    events: list[Any] = []
    for i in range(rounds):
        seat = (i // 2) % SEATS + 1  # two hands each (R5)
        events += [bank(seat, rng.choice(BANKS))]
        anted = sorted(rng.sample([s for s in range(1, SEATS + 1) if s != seat], rng.randint(0, 3)))
        for s in anted:
            events.append({"type": "wager", "seat": s, "spot": "ante", "amount": "10"})
            if rng.random() < 0.5:
                spot = rng.choice(["pair-plus", "six-card-bonus"])
                events.append({"type": "wager", "seat": s, "spot": spot, "amount": "5"})
        order = [s for s in ((seat + k - 1) % SEATS + 1 for k in range(1, SEATS)) if s in anted]
        deck = DECK[:]
        rng.shuffle(deck)
        colour = COLOURS[i % 2]
        for _ in range(len(order) + 1):
            events.append(
                {"type": "shuffler.stack", "cards": [deck.pop() for _ in range(3)], "deck": colour}
            )
        events += [
            {"type": "decision", "seat": s, "action": rng.choice(["play", "fold"])} for s in order
        ]
    return events


@st.composite
def mixed_inputs(draw: st.DrawFn) -> list[Any]:
    """A plausible session with random input dropped in anywhere."""
    base = scripted_session(draw(st.integers(0, 2**32 - 1)), 4)
    noise = draw(st.lists(st.tuples(st.integers(0, len(base)), any_events()), max_size=30))
    return interleave(base, noise)


@settings(max_examples=80, deadline=None)
@given(inputs=st.one_of(st.lists(any_events(), max_size=60), mixed_inputs()))
def test_any_input_is_accepted_or_alerts_with_state_unchanged_contract2(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any]
) -> None:
    table = Table(tcp_config(tmp_path_factory.mktemp("any")))
    for event in inputs:
        rows = feed_checked(table, event)
        if rows is None:
            note("refused")
            continue
        note("accepted")
        for result in (payload(r) for r in rows if r.topic.endswith("/round/result")):
            note("a round ended")
            assert_balanced(result)


# -- replay is byte-identical ----------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.lists(any_events(), max_size=40))
def test_replay_through_two_tables_is_identical_contract4(
    tmp_path_factory: pytest.TempPathFactory, seed: int, noise: list[Any]
) -> None:
    cfg = tcp_config(tmp_path_factory.mktemp("replay"))
    assert_replays_identically(cfg, scripted_session(seed, 5) + noise)


def test_scripted_session_plays_whole_rounds(tmp_path: Path) -> None:
    """The session the properties build on really finishes its rounds (a guard on the fixture)."""
    table = Table(tcp_config(tmp_path))
    results = 0
    for event in scripted_session(7, 6):
        rows = feed(table, event)
        assert not [r for r in rows if r.topic.endswith("/alert")]
        results += sum(r.topic.endswith("/round/result") for r in rows)
    assert results == 6
