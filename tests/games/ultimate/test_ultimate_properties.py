"""Properties of the Ultimate Texas Hold'em table over random decks, wagers and decisions.

The oracles are written from the documents, not from the code: hands are ranked by treys (an
independent evaluator from PyPI) under the ranking of 003 "Ultimate Texas Hold'em Hand Rankings";
the wagers settle by 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play" to "How
Winners are Determined and Paid" and R35, paid from the pay tables as printed at 003 "Ultimate Texas
Hold'em: Blind Wager Payout Table" to "Bad Beat Bonus Bet Payout Table"; the settlement walk is R1's
text in the order of 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"; the fee is
003 schedule option 1 (lines 3635-3639) on the pre-deal action only (R4).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event as note
from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card as TCard
from treys import Evaluator

from tablectl.config import LoadedConfig
from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tests.helpers import (
    BASE,
    CLOSE,
    assert_balanced,
    assert_replays_identically,
    bank,
    feed,
    feed_checked,
    interleave,
    make_config,
    payload,
    wager,
)

D = Decimal
# 003 "Ultimate Texas Hold'em: Description of Table Used and Total Number of Seated Positions"
SEATS = 6
DECK = [r + s for r in "A23456789TJQK" for s in "shdc"]
OPTION_1 = {
    "option": 1,
    "table_min": "5",
    "table_max": "300",
    "brackets": [
        {"from": "5", "fee": "1"},
        {"from": "51", "fee": "2"},
        {"from": "101", "fee": "3"},
        {"from": "201", "fee": "6"},
        {"from": "301", "fee": "9"},
    ],
}

# 003 "Ultimate Texas Hold'em: Blind Wager Payout Table" "Blind Wager Payout Table"
BLIND = {
    "royal-flush": Fraction(500),
    "straight-flush": Fraction(50),
    "four-of-a-kind": Fraction(10),
    "full-house": Fraction(3),
    "flush": Fraction(3, 2),
    "straight": Fraction(1),
}
# 003 "Ultimate Texas Hold'em: Trips Bonus Bet Payout Table" "Trips Bonus Bet Payout Table"
TRIPS = {
    "royal-flush": Fraction(50),
    "straight-flush": Fraction(40),
    "four-of-a-kind": Fraction(30),
    "full-house": Fraction(8),
    "flush": Fraction(6),
    "straight": Fraction(5),
    "three-of-a-kind": Fraction(3),
}
# 003 "Ultimate Texas Hold'em: Bad Beat Bonus Bet Payout Table" "Bad Beat Bonus Bet Payout Table",
# by the hand beaten
BAD_BEAT = {
    "straight-flush": Fraction(7500),
    "four-of-a-kind": Fraction(500),
    "full-house": Fraction(50),
    "flush": Fraction(30),
    "straight": Fraction(20),
    "three-of-a-kind": Fraction(9),
}
# 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"
SPOT_ORDER = ("ante", "play", "blind", "trips", "bad-beat")
NAMES = {
    "Royal Flush": "royal-flush",
    "Straight Flush": "straight-flush",
    "Four of a Kind": "four-of-a-kind",
    "Full House": "full-house",
    "Flush": "flush",
    "Straight": "straight",
    "Three of a Kind": "three-of-a-kind",
    "Two Pair": "two-pair",
    "Pair": "pair",
    "High Card": "high-card",
}
TREYS = Evaluator()


def ut_config(tmp_path: Path, deal_from: str = "house-dealer-left") -> LoadedConfig:
    game = {
        "id": "ultimate-texas-holdem",
        "decks": None,
        "settlement_order": "by-seat",
        "banker_push_on_dragon7": None,
        "bet_timer_seconds": None,
        "blind_table": "BLIND-003",
        "trips_table": "TRIPS-003",
        "bad_beat_table": "BADBEAT-003",
        "deal_from": deal_from,
    }
    return make_config(
        tmp_path,
        game=game,
        seats={"count": SEATS},
        limits={"min": "5", "max": "300"},
        collection={"file": None, "option": None, "schedule": OPTION_1},
    )


# -- the document's rules, recomputed --------------------------------------------------------------


@dataclass(frozen=True)
class Hand:
    score: int  # treys: lower is better
    name: str


def doc_hand(hole: Sequence[str], board: Sequence[str]) -> Hand:
    """The best five of seven (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"),
    ranked by 003 "Ultimate Texas Hold'em Hand Rankings" (via treys)."""
    score = TREYS.evaluate([TCard.new(c) for c in hole], [TCard.new(c) for c in board])
    return Hand(score, NAMES[TREYS.class_to_string(TREYS.get_rank_class(score))])


def pays(amount: Decimal, odds: Fraction) -> Decimal:
    """amount x odds, to the cent below (the documents print no rounding; tablectl's choice)."""
    return (amount * odds.numerator / odds.denominator).quantize(D("0.01"), rounding=ROUND_DOWN)


def doc_verdict(spot: str, amount: Decimal, player: Hand, dealer: Hand, folded: bool) -> Any:
    """(verdict, owed) of one wager by 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of
    Play" to "How Winners are Determined and Paid" and R35."""
    if spot == "trips":  # "the Trips Bonus Bet always wins - even if the player folds"
        odds = TRIPS.get(player.name)
        return ("win", pays(amount, odds)) if odds else ("lose", D(0))
    if folded:  # "Collect the Ante wager, Blind wager ... and any Bad Beat Bonus Bet"
        return ("lose", D(0))
    outcome = (
        "win" if player.score < dealer.score else "lose" if player.score > dealer.score else "push"
    )
    if spot == "ante":
        if dealer.name == "high-card":  # "does not have a pair or higher": the Ante pushes
            return ("push", D(0))
        return (outcome, amount if outcome == "win" else D(0))
    if spot == "play":
        return (outcome, amount if outcome == "win" else D(0))
    if spot == "blind":
        if outcome != "win":
            return (outcome, D(0))
        odds = BLIND.get(player.name)  # "If a player wins with less than a straight ... pushes"
        return ("win", pays(amount, odds)) if odds else ("push", D(0))
    assert spot == "bad-beat"
    if outcome == "push":  # "There is no opportunity for the Bad Beat Bonus Bet to push"
        return ("lose", D(0))
    beaten = player if outcome == "lose" else dealer
    odds = BAD_BEAT.get(beaten.name)
    return ("win", pays(amount, odds)) if odds else ("lose", D(0))


def r1_walk(bank_amount: Decimal, verdicts: Sequence[Any]) -> list[tuple[Any, ...]]:
    """R1 as written: funds start at B, the bank's net may not exceed B, winners paid from funds."""
    funds, bank_net = bank_amount, D(0)
    out = []
    for seat, spot, amount, (verdict, owed) in verdicts:
        if verdict == "push":
            status, net = "push", D(0)
        elif verdict == "lose":
            collected = min(amount, bank_amount - bank_net)
            funds += collected
            bank_net += collected
            status = "lose" if collected == amount else "returned" if collected == 0 else "partial"
            net = -collected
        else:
            paid = min(owed, funds)
            funds -= paid
            bank_net -= paid
            status = "win" if paid == owed else "returned" if paid == 0 else "partial"
            net = paid
        out.append((seat, spot, status, net))
    return out


def option1_fee(action: Decimal) -> str | None:
    """003 schedule option 1: $5-$50 $1, $51-$100 $2, $101-$200 $3, $201-$300 $6, $301+ $9."""
    if action == 0:
        return None
    for low, fee in ((301, "9.00"), (201, "6.00"), (101, "3.00"), (51, "2.00")):
        if action >= low:
            return fee
    return "1.00"


# -- random rounds ---------------------------------------------------------------------------------

ANTES = ["5", "10", "25", "5.25", "7.50", "100"]
BONUS = [None, None, "5", "20", "5.50"]
BANKS = ["1", "30", "200", "1000", "100000"]
PREFLOP = ["check", "check", 3, 4]
FLOP = ["check", 2]
RIVER = [1, "fold"]


@st.composite
def round_plans(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.sets(st.integers(1, SEATS), max_size=SEATS))
    return {
        "deck": draw(st.sampled_from(["plain", "ranks", "suit"])),
        "bank": draw(st.sampled_from(BANKS)),
        "close": draw(st.booleans()),
        "players": {
            s: {
                "ante": draw(st.sampled_from(ANTES)),
                "trips": draw(st.sampled_from(BONUS)),
                "bad-beat": draw(st.sampled_from(BONUS)),
                "preflop": draw(st.sampled_from(PREFLOP)),
                "flop": draw(st.sampled_from(FLOP)),
                "river": draw(st.sampled_from(RIVER)),
            }
            for s in sorted(players)
        },
    }


def loaded_deck(rng: random.Random, how: str) -> list[str]:
    """A shuffled deck, drawn from the end; "ranks" puts every card of four ranks and "suit"
    the thirteen of one suit at the end, so three of a kind, full houses, quads, flushes and the
    Bad Beat come up often."""
    deck = list(DECK)
    rng.shuffle(deck)
    if how == "ranks":
        ranks = set(rng.sample("A23456789TJQK", 4))
        deck.sort(key=lambda c: c[0] in ranks)  # stable: shuffled within each part
    elif how == "suit":
        suit = rng.choice("shdc")
        deck.sort(key=lambda c: c[1] == suit)
    return deck


def published(rows: Sequence[OutboxRow], card: str) -> list[str]:
    return [r.topic.removeprefix(BASE + "/") for r in rows if f'"{card}"' in r.payload.decode()]


def no_alert(rows: Sequence[OutboxRow]) -> list[OutboxRow]:
    alerts = [payload(r) for r in rows if r.topic.endswith("/alert")]
    assert alerts == []
    return list(rows)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    plans=st.lists(round_plans(), min_size=1, max_size=5),
    colours=st.booleans(),
    deal_from=st.sampled_from(["house-dealer-left", "player-dealer-left"]),
)
def test_random_rounds_settle_by_the_document_and_balance_R1_R4_R35(
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    plans: list[dict[str, Any]],
    colours: bool,
    deal_from: str,
) -> None:
    table = Table(ut_config(tmp_path_factory.mktemp("ut"), deal_from))
    rng = random.Random(seed)
    for i, plan in enumerate(plans):
        pd = (i // 2) % SEATS + 1  # two hands each (R5)
        players = {s: p for s, p in plan["players"].items() if s != pd}
        deck = loaded_deck(rng, plan["deck"])
        colour = ("red", "blue")[i % 2] if colours else None
        rows: list[OutboxRow] = []
        rows += no_alert(feed(table, bank(pd, plan["bank"])))
        for seat, p in players.items():
            rows += no_alert(feed(table, wager(seat, "ante", p["ante"])))
            rows += no_alert(feed(table, wager(seat, "blind", p["ante"])))
            for spot in ("trips", "bad-beat"):
                if p[spot]:
                    rows += no_alert(feed(table, wager(seat, spot, p[spot])))
        if plan["close"]:
            rows += no_alert(feed(table, CLOSE))
        # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play": from the house
        # dealer's left (seat 1 up), or the configured option
        first = 1 if deal_from == "house-dealer-left" else pd % SEATS + 1
        order = [(first + k - 1) % SEATS + 1 for k in range(SEATS)]
        order = [s for s in order if s in players]
        hole = {s: [deck.pop(), deck.pop()] for s in order}
        dealer = [deck.pop(), deck.pop()]
        board = [deck.pop() for _ in range(5)]
        for cards in [*hole.values(), dealer, board]:
            ev: dict[str, Any] = {"type": "shuffler.stack", "cards": cards}
            if colour:
                ev["deck"] = colour
            rows += no_alert(feed(table, ev))
        # the streets, each in deal order
        # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
        plays: dict[int, Decimal] = {}
        folded: set[int] = set()
        for street in ("preflop", "flop", "river"):
            for seat in order:
                if seat in plays:
                    continue
                choice = players[seat][street]
                ante = D(players[seat]["ante"])
                if isinstance(choice, int):
                    ev = {"type": "decision", "seat": seat, "action": "bet", "multiple": choice}
                    plays[seat] = ante * choice
                else:
                    ev = {"type": "decision", "seat": seat, "action": choice}
                    if choice == "fold":
                        folded.add(seat)
                rows += no_alert(feed(table, ev))
        results = [payload(r) for r in rows if r.topic.endswith("/round/result")]
        assert len(results) == 1
        result = results[0]

        # the document's settlement
        dealer_hand = doc_hand(dealer, board)
        hands = {s: doc_hand(hole[s], board) for s in order}
        # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play"
        seat_order = [(pd + k - 1) % SEATS + 1 for k in range(1, SEATS)]
        verdicts = []
        for seat in seat_order:
            if seat not in players:
                continue
            p = players[seat]
            amounts = {
                "ante": D(p["ante"]),
                "play": plays.get(seat),
                "blind": D(p["ante"]),
                "trips": D(p["trips"]) if p["trips"] else None,
                "bad-beat": D(p["bad-beat"]) if p["bad-beat"] else None,
            }
            for spot in SPOT_ORDER:
                amount = amounts[spot]
                if amount is None:
                    continue
                v = doc_verdict(spot, amount, hands[seat], dealer_hand, seat in folded)
                verdicts.append((seat, spot, amount, v))
                note(f"{spot} {v[0]}")
        got = [(s["seat"], s["spot"], s["status"], D(s["net"])) for s in result["settlements"]]
        assert got == r1_walk(D(plan["bank"]), verdicts)
        start, end = D(result["bank"]["start"]), D(result["bank"]["end"])
        assert sum(n for *_, n in got) + (end - start) == 0  # R1, contract 3
        assert end >= 0
        # R4: the fee on the pre-deal wagers only
        action = sum((D(p["ante"]) * 2 for p in players.values()), D(0)) + sum(
            (D(p[b]) for p in players.values() for b in ("trips", "bad-beat") if p[b]), D(0)
        )
        fee = option1_fee(action)
        assert [f["amount"] for f in result["fees"]] == ([] if fee is None else [fee])

        # what was shown: a folded hand never; the player-dealer's cards and the other hands only
        # in the result, and only when someone remains
        # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
        remaining = [s for s in order if s not in folded]
        for seat in order:
            for card in hole[seat]:
                where = published(rows, card)
                assert where == ([] if seat in folded else ["round/result"]), (card, where)
        for card in dealer:
            assert published(rows, card) == (["round/result"] if remaining else [])
        shown = result["outcome"]["player_dealer"]
        if remaining:
            assert shown["rank"] == dealer_hand.name
            assert shown["qualifies"] == (dealer_hand.name != "high-card")
        else:
            assert shown is None
        for h in result["outcome"]["hands"]:
            assert h["folded"] == (h["seat"] in folded)
            if not h["folded"]:
                assert h["rank"] == hands[h["seat"]].name
        note(f"dealer {dealer_hand.name}")


# -- random input of any kind ----------------------------------------------------------------------


def any_events() -> st.SearchStrategy[Any]:
    seat = st.integers(0, 8)
    cards = st.lists(st.sampled_from([*DECK, "JKR"]), min_size=0, max_size=6)
    return st.one_of(
        st.builds(
            lambda c, d: {"type": "shuffler.stack", "cards": c} | ({"deck": d} if d else {}),
            cards,
            st.sampled_from([None, "red", "blue"]),
        ),
        st.builds(
            lambda s, a: {"type": "bank", "seat": s, "amount": a},
            seat,
            st.sampled_from(["0", "50", "1000"]),
        ),
        st.builds(
            lambda s, sp, a, p: (
                {"type": "wager", "seat": s, "spot": sp, "amount": a}
                | ({} if p is None else {"player": p})
            ),
            seat,
            st.sampled_from(["ante", "blind", "trips", "bad-beat", "play", "bogus"]),
            st.sampled_from(["5", "10", "301", "0"]),
            st.sampled_from([None, None, "p9"]),
        ),
        st.builds(
            lambda s, a, m, amt: (
                {"type": "decision", "seat": s, "action": a}
                | ({} if m is None else {"multiple": m})
                | ({} if amt is None else {"amount": amt})
            ),
            seat,
            st.sampled_from(["bet", "check", "fold", "stand"]),
            st.sampled_from([None, 1, 2, 3, 4, 5]),
            st.sampled_from([None, None, "30"]),
        ),
        st.just(CLOSE),
        st.just({"type": "round.void", "reason": "misdeal"}),
        st.just({"type": "shoe.card", "card": "As"}),
        st.just({"type": "dice.roll", "dice": [1, 2, 3]}),
    )


def session(seed: int, rounds: int) -> list[Any]:
    """A plausible session: banks, wagers, the stacks and decisions in a likely order."""
    rng = random.Random(seed)
    events: list[Any] = []
    for i in range(rounds):
        pd = (i // 2) % SEATS + 1
        events.append(bank(pd, rng.choice(BANKS)))
        seats = [s for s in range(1, SEATS + 1) if s != pd and rng.random() < 0.5]
        for s in seats:
            amount = rng.choice(ANTES)
            events += [wager(s, "ante", amount), wager(s, "blind", amount)]
            if rng.random() < 0.5:
                events.append(wager(s, "trips", "5"))
        deck = list(DECK)
        rng.shuffle(deck)
        for _ in range(len(seats) + 1):
            events.append({"type": "shuffler.stack", "cards": [deck.pop(), deck.pop()]})
        events.append({"type": "shuffler.stack", "cards": [deck.pop() for _ in range(5)]})
        for street in ("preflop", "flop", "river"):
            for s in seats:
                choice = rng.choice({"preflop": PREFLOP, "flop": FLOP, "river": RIVER}[street])
                if isinstance(choice, int):
                    events.append(
                        {"type": "decision", "seat": s, "action": "bet", "multiple": choice}
                    )
                else:
                    events.append({"type": "decision", "seat": s, "action": choice})
    return events


@st.composite
def mixed_inputs(draw: st.DrawFn) -> list[Any]:
    base: list[Any] = session(draw(st.integers(0, 2**32 - 1)), 3)
    noise = draw(st.lists(st.tuples(st.integers(0, len(base)), any_events()), max_size=25))
    return interleave(base, noise)


@settings(max_examples=60, deadline=None)
@given(inputs=st.one_of(st.lists(any_events(), max_size=60), mixed_inputs()))
def test_any_input_is_accepted_or_alerts_with_state_unchanged_contract2(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any]
) -> None:
    table = Table(ut_config(tmp_path_factory.mktemp("any")))
    for event in inputs:
        rows = feed_checked(table, event)
        if rows is None:
            note("refused")
            continue
        note("accepted")
        for p in [payload(r) for r in rows if r.topic.endswith("/event")]:
            # a stack is echoed face down
            # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
            assert "cards" not in p
        for result in [payload(r) for r in rows if r.topic.endswith("/round/result")]:
            note("void" if result.get("void") else "a round completed")
            assert_balanced(result)


# -- replay is byte-identical ----------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.lists(any_events(), max_size=30))
def test_replay_through_two_tables_is_identical_contract4(
    tmp_path_factory: pytest.TempPathFactory, seed: int, noise: list[Any]
) -> None:
    cfg = ut_config(tmp_path_factory.mktemp("replay"))
    assert_replays_identically(cfg, session(seed, 4) + noise)
