"""Properties of the Pure 21.5 and Pure Spanish 21.5 tables over many random shoes and decisions.

A session is a shuffled six-deck shoe and rounds with random banks and wagers; every decision is
picked at random among the legal actions the engine publishes in `state` (contract 3: what the
dealer console is offered), and random illegal inputs are thrown in between. The oracles come from
the documents, not from the code: the base wager's verdict is recomputed from the hands in the
result by the documents' "How each wager wins, loses, or pushes" (000 "Pure 21.5 Blackjack: How Each
Wager Wins, Loses, or Pushes", 003 "Pure Spanish 21.5: How Winners Are Determined and Paid";
R10-R13, R16, R20), the settlement walk by R1's text, and the deal order by 000 "Pure 21.5
Blackjack: Dealing Procedures and Round of Play".
"""

from __future__ import annotations

import random
import re
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.config import LoadedConfig
from tablectl.table import Table
from tests.helpers import BASE, CLOSE, SHOE_NEW, bank, feed, make_config, payload, records, wager

D = Decimal
SEATS = 7
SCHEDULE = {
    "option": 1,
    "table_min": "5",
    "table_max": "500",
    "brackets": [{"from": "5", "fee": "1"}, {"from": "101", "fee": "2"}],
}
NOT_BACCARAT = {"decks": None, "banker_push_on_dragon7": None, "bet_timer_seconds": None}
# A blackjack table needs its card source (its device_roles, checked by parse_config): the shoe.
CARD_SHOE = [{"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"}]
VARIANTS: dict[str, dict[str, Any]] = {
    "pure": {
        "id": "pure-21.5-blackjack",
        "red_flex_table": "RFB-02",
        "buster_table": "option-5",
        "insurance": True,
        "even_money": True,
        "settlement_order": "by-seat",
    },
    "pure-003": {
        "id": "pure-21.5-blackjack",
        "pure_pays": "3 to 2",
        "red_flex_table": "RFB-12",
        "buster_table": "option-1",
        "insurance": True,
        "even_money": True,
        "settlement_order": "by-spot",
        "action_start": "player-dealer-left",
    },
    "spanish": {
        "id": "pure-spanish-21.5",
        "match_dealer_table": "MATCH-003",
        "double_double": True,
        "settlement_order": "by-seat",
    },
    "spanish-no-dd": {
        "id": "pure-spanish-21.5",
        "match_dealer_table": "MATCH-003",
        "double_double": False,
        "settlement_order": "by-seat",
    },
}
SIDES: dict[str, tuple[str, ...]] = {
    "pure": ("red-flex", "buster"),
    "pure-003": ("red-flex", "buster"),
    "spanish": ("match-dealer",),
    "spanish-no-dd": ("match-dealer",),
}
AMOUNTS = ("5", "10", "25", "40", "100")
BANKS = ("5", "20", "50", "200", "1000")
RANKS = "A23456789TJQK"


def cfg(tmp_path: Path, variant: str) -> LoadedConfig:
    game = {**NOT_BACCARAT, **VARIANTS[variant]}
    collection = {"file": None, "option": None, "schedule": SCHEDULE}
    return make_config(
        tmp_path, game=game, collection=collection, seats={"count": SEATS}, devices=CARD_SHOE
    )


def shoe(rng: random.Random, spanish: bool) -> list[str]:
    """Six shuffled decks (a Spanish deck has no tens: 003 "Pure Spanish 21.5: Description of the
    Deck and Number of Decks Used"), drawn from the end."""
    ranks = RANKS.replace("T", "") if spanish else RANKS
    cards = [r + s for r in ranks for s in "shdc"] * 6
    rng.shuffle(cards)
    return cards


# -- the documents' rules, recomputed ------------------------------------------------------------


def value(card: str) -> int:
    """A 1 (or 11), 2-9 face value, bonus cards 10
    (000 "Pure 21.5 Blackjack: Card Values and Hand Rankings", R10)."""
    r = card[0]
    return 1 if r == "A" else 10 if r in "TJQK" else int(r)


def total(cards: list[str]) -> int:
    """The best total: one ace as 11 when that stays at 21 or less."""
    t = sum(value(c) for c in cards)
    return t + 10 if t <= 11 and any(c[0] == "A" for c in cards) else t


def base_verdict(hand: dict[str, Any], dealer: list[str], spanish: bool) -> str:
    """What the documents say the seated player's base wager did (before the bank's limit)."""
    pure = hand["rank"] == "pure-21.5"
    dealer_pure = len(dealer) == 2 and {value(c) for c in dealer} == {1, 10}
    if dealer_pure:  # the peek ended the round (R12); both pure: push, Spanish player wins
        return ("win" if spanish else "push") if pure else "lose"
    if pure:
        return "win"
    if hand["end"] in ("surrender", "rescue"):
        return "lose"
    mine = total(hand["cards"])
    theirs = total(dealer)
    if mine > 21:  # 888 pushes every busted hand; otherwise a bust loses (R13)
        return "push" if [c[0] for c in dealer] == ["8", "8", "8"] else "lose"
    if theirs > 21 or mine > theirs or (spanish and mine == theirs == 21):
        return "win"
    return "lose" if mine < theirs else "push"


# -- a session played by a console that only offers legal actions ----------------------------------


def console_session(
    table: Table, rng: random.Random, variant: str, rounds: int, noise: bool
) -> tuple[list[Any], list[Any]]:
    """Play `rounds` rounds on `table`; return every event fed and every row out."""
    spanish = variant.startswith("spanish")
    cards = shoe(rng, spanish)
    events: list[Any] = []
    rows: list[Any] = []

    def send(ev: Any) -> list[Any]:
        events.append(ev)
        out = feed(table, ev)
        rows.extend(out)
        return out

    send(SHOE_NEW)
    for i in range(rounds):
        seat = (i // 2) % SEATS + 1  # two hands each (R5)
        send(bank(seat, rng.choice(BANKS)))
        others = [s for s in range(1, SEATS + 1) if s != seat]
        for s in rng.sample(others, rng.randint(1, 4)):
            send(wager(s, "base", rng.choice(AMOUNTS)))
            for side in SIDES[variant]:
                if rng.random() < 0.4:
                    send(wager(s, side, rng.choice(AMOUNTS[:3])))
            if rng.random() < 0.2:
                send(wager(s, "base", rng.choice(AMOUNTS), player=f"b{s}"))
        if rng.random() < 0.5:
            send(CLOSE)
        for _ in range(200):
            state = table.state_payload()
            if state["round"] != i + 1:
                break
            if noise and rng.random() < 0.15:
                send(random_input(rng, cards))
                continue
            phase = state["phase"]
            if phase == "insurance":
                for s in state["insurance"]["pending"]:
                    if s in state["insurance"]["even_money"] and rng.random() < 0.5:
                        send({"type": "decision", "seat": s, "action": "even-money"})
                    elif rng.random() < 0.3:
                        send({"type": "decision", "seat": s, "action": "insurance"})
                if table.state_payload()["phase"] == "insurance":
                    send(CLOSE)
                continue
            legal = state["legal"]
            if phase in ("betting", "dealing", "player-dealer") or legal == ["hit"]:
                send({"type": "shoe.card", "card": cards.pop()})
                continue
            action = rng.choice(legal)
            turn = state["turn"]
            if action == "hit":
                send({"type": "shoe.card", "card": cards.pop()})
                continue
            ev: dict[str, Any] = {"type": "decision", "seat": turn["seat"], "action": action}
            if rng.random() < 0.5:
                ev["hand"] = turn["hand"]
            if action == "double" and variant in ("pure", "pure-003", "spanish-no-dd"):
                hand = next(
                    h
                    for h in state["hands"]
                    if (h["seat"], h["hand"]) == (turn["seat"], turn["hand"])
                )
                if rng.random() < 0.5:  # double for less (R16): a tenth to all of the stake
                    part = D(hand["stake"]) * rng.randint(1, 10) / 10
                    ev["amount"] = f"{max(D('0.01'), part.quantize(D('0.01'), ROUND_DOWN)):.2f}"
            out = send(ev)
            assert "alert" not in [r.topic.rsplit("/", 1)[-1] for r in out], payload(out[0])
        else:
            pytest.fail(f"round {i + 1} did not finish")
    return events, rows


def random_input(rng: random.Random, cards: list[str]) -> dict[str, Any]:
    """Anything a console or a shoe might send, legal or not."""
    seat = rng.randint(0, SEATS + 1)
    pick = rng.randrange(6)
    if pick == 0:
        return {"type": "decision", "seat": max(seat, 1), "action": rng.choice(ACTIONS)}
    if pick == 1:
        return {
            "type": "decision",
            "seat": max(seat, 1),
            "action": rng.choice(ACTIONS),
            "amount": rng.choice(("0.5", "5", "10", "1000")),
            "hand": rng.randint(1, 5),
        }
    if pick == 2:
        return wager(max(seat, 1), rng.choice(("base", "red-flex", "buster", "insurance")), "5")
    if pick == 3:
        return {"type": "shoe.card", "card": rng.choice(("Td", "JKR", "As"))}
    if pick == 4:
        return bank(max(seat, 1), "100")
    return CLOSE


ACTIONS = ("stand", "double", "split", "surrender", "insurance", "even-money", "rescue", "fold")


# -- the properties ------------------------------------------------------------------------------


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(VARIANTS)))
def test_random_shoes_and_legal_decisions_conserve_money_R1_R13_R20(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str
) -> None:
    rng = random.Random(seed)
    table = Table(cfg(tmp_path_factory.mktemp("bj"), variant))
    _, rows = console_session(table, rng, variant, rounds=6, noise=False)
    results = [payload(r) for r in rows if r.topic == f"{BASE}/round/result"]
    assert len(results) == 6
    # R4: each round's fee is on the total of the wagers accepted before the deal, never on
    # doubles, splits or insurance (decisions)
    placed = D(0)
    for row in rows:
        body = payload(row)
        if row.topic == f"{BASE}/event" and body["type"] == "wager":
            placed += D(body["amount"])
        elif row.topic == f"{BASE}/round/result":
            fee = next(f for f in body["fees"] if f["payer"] == "player-dealer")
            assert D(fee["total_action"]) == placed
            placed = D(0)
    spanish = variant.startswith("spanish")
    for result in results:
        # R1: the bank neither goes below zero nor wins more than itself; money is conserved
        start, end = D(result["bank"]["start"]), D(result["bank"]["end"])
        assert D(0) <= end <= 2 * start
        assert sum((D(s["net"]) for s in result["settlements"]), D(0)) + (end - start) == 0
        dealer = result["outcome"]["player_dealer"]["cards"]
        hands = {(h["seat"], h["hand"]): h for h in result["outcome"]["hands"]}
        for s in result["settlements"]:
            if s["spot"] != "base" or s["player"] != f"p{s['seat']}":
                continue
            hand = hands[(s["seat"], s["hand"])]
            want = base_verdict(hand, dealer, spanish)
            if want == "push":
                assert s["status"] == "push" and D(s["net"]) == 0
            elif want == "win":
                assert s["status"] in ("win", "partial", "returned")
                assert D(s["net"]) >= 0
            else:
                assert s["status"] in ("lose", "partial", "returned")
                assert D(s["net"]) <= 0


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(VARIANTS)))
def test_any_input_is_accepted_or_refused_with_state_unchanged_contract2(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str
) -> None:
    rng = random.Random(seed)
    table = Table(cfg(tmp_path_factory.mktemp("bj"), variant))
    real_feed = table.apply

    def checked(rec: Any) -> Any:
        before = table.state
        out = real_feed(rec)
        names = [r.topic.rsplit("/", 1)[-1] for r in out]
        if "alert" in names:  # a dealer error also opens on `alerts/open`
            assert names in (["alert"], ["alert", "open"]), names
            alert = payload(out[0])
            # R15: a Chart 1A refusal or a card no hand may draw is a "dealer-error"
            assert alert["kind"] in ("rejected", "dealer-error", "invalid-input"), alert
            if alert["kind"] == "dealer-error":
                assert alert.get("rule") and alert["reason"].startswith("dealer error"), alert
            assert table.state == before  # refused: nothing changed
        state = table.state_payload()
        # the hole card is never in `state` while it is face down
        # (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play")
        dealer = state["player_dealer"]
        if dealer is not None and dealer["hole_card_down"]:
            assert len(dealer["cards"]) == 1
        return out

    table.apply = checked  # type: ignore[method-assign]
    console_session(table, rng, variant, rounds=4, noise=True)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(VARIANTS)))
def test_replay_through_two_tables_is_identical_contract4(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str
) -> None:
    config = cfg(tmp_path_factory.mktemp("bj"), variant)
    live = Table(config)
    events, rows = console_session(live, random.Random(seed), variant, rounds=4, noise=True)
    again = Table(config)
    replayed = [r for rec in records(events) for r in again.apply(rec)]
    key = [(r.seq, r.topic, r.payload, r.qos, r.retain) for r in rows]
    assert key == [(r.seq, r.topic, r.payload, r.qos, r.retain) for r in replayed]
    assert live.state == again.state


# -- what the documents forbid, read off what the table publishes ---------------------------------


def illegal(state: dict[str, Any], spanish: bool) -> list[str]:
    """Every way the published `state` breaks a rule of the documents (R10, R15-R17, R20)."""
    out: list[str] = []
    hands = state["hands"]
    per_seat: dict[int, int] = {}
    for h in hands:
        per_seat[h["seat"]] = per_seat.get(h["seat"], 0) + 1
        cards, doubles, stake = h["cards"], [D(d) for d in h["doubles"]], D(h["stake"])
        if h["end"] is None and cards and total(cards) > 21:
            # a bust ends the hand
            # (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes")
            out.append(f"an open hand is bust: {h}")
        if h["end"] == "surrender" and (len(cards) != 2 or h["split"] or doubles):
            # 000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender", R16
            out.append(f"surrender off the first two cards: {h}")
        if h["end"] == "pure" and (h["split"] or len(cards) != 2):
            out.append(f"a pure that is not the initial two cards: {h}")  # R10
        if spanish:  # R20: one card per doubling, at most three, 8x in all
            if len(doubles) > 3 or (doubles and len(cards) > 2 + len(doubles)):
                out.append(f"more doublings or cards than R20 allows: {h}")
            if stake + sum(doubles, D(0)) > 8 * stake:
                out.append(f"more than 8 times the wager: {h}")
        else:  # R16: one double, for up to the wager, one card; a split ace gets one card
            if len(doubles) > 1 or (doubles and (doubles[0] > stake or len(cards) > 3)):
                out.append(f"a double R16 does not allow: {h}")
            if h["split"] and cards[0][0] == "A" and len(cards) > 2:
                out.append(f"a split ace drew more than one card: {h}")
    if any(n > 4 for n in per_seat.values()):
        out.append(f"more than four hands at a seat (R16): {per_seat}")
    stakes = {h["seat"]: D(h["stake"]) for h in hands if h["hand"] == 1}
    for w in state["wagers"]:
        if w["spot"] == "insurance" and 2 * D(w["amount"]) > stakes[w["seat"]]:
            out.append(f"insurance over half the wager (R17): {w}")
    return out


def card_count(text: str, card: str) -> int:
    """How many times `card` is named in a published payload (as a whole card name)."""
    return len(re.findall(rf'"{card}"', text))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(sorted(VARIANTS)))
def test_no_illegal_state_and_no_face_down_card_on_any_topic_R16_R17_R20_contract3(
    tmp_path_factory: pytest.TempPathFactory, seed: int, variant: str
) -> None:
    """After every input, legal or not: the published state breaks no rule, and while the hole
    card is face down no message on any topic names it more often than the face-up cards on the
    table do (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of Play"; contract 3: "a
    subscriber must not be able to learn what a player cannot see")."""
    spanish = variant.startswith("spanish")
    table = Table(cfg(tmp_path_factory.mktemp("bj"), variant))
    real_feed = table.apply

    def checked(rec: Any) -> Any:
        out = real_feed(rec)
        state = table.state_payload()
        assert illegal(state, spanish) == []
        engine_state = table.state
        if len(engine_state.dealer) >= 2 and not engine_state.hole_shown:
            hole = str(engine_state.dealer[1])
            # face up: every player card (000 "Pure 21.5 Blackjack: Dealing Procedures and Round of
            # Play") and the up card, from the table itself
            face_up = [str(c) for h in engine_state.hands for c in h.cards]
            face_up.append(str(engine_state.dealer[0]))
            for row in out:
                text = row.payload.decode()
                assert '"hole_card":' not in text
                assert card_count(text, hole) <= face_up.count(hole), (hole, text)
        return out

    table.apply = checked  # type: ignore[method-assign]
    console_session(table, random.Random(seed), variant, rounds=4, noise=True)
