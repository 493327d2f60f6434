"""Properties of the Fortune Pai Gow Poker table over random decks, wagers, dice and settings.

The oracles are written from the documents, not from the engine: the positions from R30's text,
the settlement order from 003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play" (seat by
seat from the Action button: game wager, Fortune, Envy), the Fortune pays and Envy amounts from the
pay table printed at 003 "Fortune Pai Gow Poker: Bonus Bet Paytable", the Envy rules from R32 and
003 "Fortune Pai Gow Poker: Envy Bonus", the walk from R1's text and the fee from 003 schedule
option 7 (lines 1579-1583). Which hand won and which Fortune hand seven cards make is the rules
module's (tests/games/pai_gow/test_pai_gow_rules.py pins it); the round around it is checked here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event as note
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.table import Table
from tests.games.pai_gow.test_pai_gow_engine import FULL_DECK, config
from tests.helpers import BASE, CLOSE, bank, feed, payload, records

D = Decimal
SEATS = 7
# 003 "Fortune Pai Gow Poker: Bonus Bet Paytable": "Pays" (odds to 1) and "Envy" (dollars)
PAYS = {
    "seven-card-straight-flush": 5000,
    "royal-flush-royal-match": 2000,
    "seven-card-straight-flush-joker": 1000,
    "five-aces": 400,
    "royal-flush": 150,
    "straight-flush": 50,
    "four-of-a-kind": 25,
    "full-house": 5,
    "flush": 4,
    "three-of-a-kind": 3,
    "straight": 2,
}
ENVY = {
    "seven-card-straight-flush": 5000,
    "royal-flush-royal-match": 1000,
    "seven-card-straight-flush-joker": 500,
    "five-aces": 250,
    "royal-flush": 50,
    "straight-flush": 20,
    "four-of-a-kind": 5,
}
AMOUNTS = ["5", "10", "25", "100", "500", "501", "3"]  # 501 and 3 break the limits
BANKS = ["1", "20", "100", "300", "1000", "5000"]


def fee_option_7(action: Decimal) -> list[str]:
    """003 schedule option 7: $5-$100 $1, $101-$200 $2, $201-$300 $3, $301-$500 $5, $501+ $10."""
    if action == 0:
        return []
    for low, fee in ((501, "10.00"), (301, "5.00"), (201, "3.00"), (101, "2.00")):
        if action >= low:
            return [fee]
    return ["1.00"]


def first_seat(bank_seat: int, total: int) -> int:
    """R30: the player-dealer is position 1, 8 and 15; other seats count on clockwise."""
    seats = [(bank_seat - 1 + i) % SEATS + 1 for i in range(SEATS)]
    return seats[(total - 1) % SEATS]


def doc_settlements(
    bank_amount: Decimal,
    button: int,
    wagers: dict[tuple[int, str, str], Decimal],
    hands: dict[int, dict[str, Any]],
) -> list[tuple[int, str, str, str, Decimal]]:
    """Every row as the documents settle it, walked under R1."""
    order = [(button - 1 + i) % SEATS + 1 for i in range(SEATS)]
    fortune_seats = {seat for (seat, _, spot) in wagers if spot == "fortune"}
    envy_hands = [
        s for s in order if s in fortune_seats and hands[s]["fortune"] in ENVY
    ]  # R32: hands of players who placed a Fortune wager, four of a kind or better
    rows: list[tuple[int, str, str, Decimal, str, Decimal]] = []
    for seat in order:
        mine = [(k, a) for k, a in wagers.items() if k[0] == seat]
        for (s, player, spot), amount in mine:
            if spot == "base":
                verdict = hands[s]["result"]
                rows.append((s, player, spot, amount, verdict, amount))  # 1 to 1
        for (s, player, spot), amount in mine:
            if spot == "fortune":
                cat = hands[s]["fortune"]
                won = cat in PAYS
                rows.append(
                    (s, player, spot, amount, "win" if won else "lose", amount * PAYS.get(cat, 0))
                )
        for (s, player, spot), amount in mine:
            # one Envy button per seated player's Fortune wager of $5 or more
            # (003 "Fortune Pai Gow Poker: Envy Bonus")
            if spot == "fortune" and amount >= 5 and player == f"p{s}":
                for other in envy_hands:
                    if other != s:
                        rows.append(
                            (s, player, "envy", D(0), "win", D(ENVY[hands[other]["fortune"]]))
                        )
    funds, bank_net = bank_amount, D(0)
    out = []
    for seat, player, spot, amount, verdict, owed in rows:
        if verdict == "push":
            status, net = "push", D(0)
        elif verdict == "lose":
            got = min(amount, bank_amount - bank_net)
            funds += got
            bank_net += got
            status = "lose" if got == amount else "returned" if got == 0 else "partial"
            net = -got
        else:
            paid = min(owed, funds)
            funds -= paid
            bank_net -= paid
            status = "win" if paid == owed else "returned" if paid == 0 else "partial"
            net = paid
        out.append((seat, player, spot, status, net))
    return out


# -- whole sessions of random rounds ---------------------------------------------------------------


@st.composite
def round_plans(draw: st.DrawFn) -> dict[str, Any]:
    wagers = draw(
        st.lists(
            st.tuples(
                st.integers(1, SEATS),
                st.sampled_from(["base", "base", "fortune", "envy"]),
                st.sampled_from(AMOUNTS),
                st.sampled_from([None, None, None, "backer"]),
            ),
            max_size=6,
        )
    )
    # mostly a game wager and then a Fortune by the same player, so Fortunes are in play
    for wseat, amount, fortune, backer in draw(
        st.lists(
            st.tuples(
                st.integers(1, SEATS),
                st.sampled_from(AMOUNTS),
                st.sampled_from(["5", "10", "3", "25"]),
                st.sampled_from([None, None, "backer"]),
            ),
            max_size=6,
        )
    ):
        wagers += [(wseat, "base", amount, backer), (wseat, "fortune", fortune, backer)]
    return {
        # positions (0-6 in dispense order) dealt four of a kind, so Envy hands occur
        "quads": draw(st.lists(st.integers(0, SEATS - 1), max_size=3, unique=True)),
        "seat": draw(st.integers(1, SEATS)),
        "bank": draw(st.sampled_from(BANKS)),
        "wagers": wagers,
        "close": draw(st.booleans()),
        "dice": draw(st.lists(st.integers(1, 6), min_size=3, max_size=3)),
        "deck": draw(st.sampled_from([None, "alternate"])),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


def rigged_deck(rng: random.Random, quads: Sequence[int]) -> list[str]:
    """A shuffled 53-card deck whose 7-card slices at `quads` hold four of a kind each."""
    ranks = rng.sample("AKQJT98765432", len(quads))
    rest = [c for c in FULL_DECK if c[0] not in ranks or c == "JKR"]
    rng.shuffle(rest)
    deck: list[str] = []
    for slot in range(SEATS):
        if slot in quads:
            four = [c for c in FULL_DECK if c[0] == ranks[quads.index(slot)] and c != "JKR"]
            deck += four + [rest.pop() for _ in range(3)]
        else:
            deck += [rest.pop() for _ in range(7)]
    return deck + rest


@settings(max_examples=60, deadline=None)
@given(plans=st.lists(round_plans(), min_size=1, max_size=5))
def test_random_rounds_balance_and_settle_as_the_documents_say_R1_R30_R32(
    tmp_path_factory: pytest.TempPathFactory, plans: list[dict[str, Any]]
) -> None:
    table = Table(config(tmp_path_factory.mktemp("pg")))
    seqs: list[int] = []
    last_seat, streak, colour = None, 0, "blue"

    def step(event: Any) -> tuple[list[dict[str, Any]], list[Any]]:
        before, seq_before = table.state, table.seq
        rows = feed(table, event)
        seqs.extend(payload(r)["seq"] for r in rows)
        if any(r.topic == f"{BASE}/alert" for r in rows):
            assert len(rows) == 1 and table.state == before and table.seq == seq_before + 1
        return [payload(r) for r in rows if r.topic == f"{BASE}/round/result"], rows

    for plan in plans:
        rng = random.Random(plan["seed"])
        seat = plan["seat"]
        if seat == last_seat and streak >= 2:  # R5: offer the bank on clockwise
            seat = seat % SEATS + 1
        step(bank(seat, plan["bank"]))
        wagers: dict[tuple[int, str, str], Decimal] = {}
        for wseat, spot, amount, backer in plan["wagers"]:
            ev: dict[str, Any] = {"type": "wager", "seat": wseat, "spot": spot, "amount": amount}
            if backer:
                ev["player"] = backer
            _, rows = step(ev)
            if any(r.topic.endswith("/event") for r in rows):
                key = (wseat, backer or f"p{wseat}", spot)
                wagers[key] = wagers.get(key, D(0)) + D(amount)
        assert all(spot != "envy" for (_, _, spot) in wagers)  # R32: never a wager
        assert all(
            (s, p, "base") in wagers for (s, p, spot) in wagers if spot == "fortune"
        )  # 003 "Fortune Pai Gow Poker: Fortune Bonus Bet"
        if plan["close"]:
            step(CLOSE)
        step({"type": "dice.roll", "dice": plan["dice"]})
        total = sum(plan["dice"])
        first = first_seat(seat, total)
        deck = rigged_deck(rng, plan["quads"])
        order = [(first - 1 + i) % SEATS + 1 for i in range(SEATS)]
        sevens = {s: deck[7 * i : 7 * i + 7] for i, s in enumerate(order)}
        colour = "red" if colour == "blue" else "blue"
        results: list[dict[str, Any]] = []
        for s in order:
            ev = {"type": "shuffler.stack", "cards": sevens[s]}
            if plan["deck"]:
                ev["deck"] = colour
            got, rows = step(ev)
            (echo,) = [payload(r) for r in rows if r.topic == f"{BASE}/event"]
            assert echo["to"] == s and "cards" not in echo  # R30; contract 3
            results += got
        in_play = sorted({s for (s, _, spot) in wagers if spot == "base"})
        for s in in_play:
            if rng.random() < 0.5:
                low = rng.sample(sevens[s], 2)
                got, rows = step({"type": "decision", "seat": s, "action": "set", "low": low})
                results += got
                if any(r.topic == f"{BASE}/alert" for r in rows):
                    note("a foul setting refused")
                else:
                    continue
            got, _ = step({"type": "decision", "seat": s, "action": "house-way"})
            results += got
        assert len(results) == 1
        result = results[0]
        last_seat, streak = seat, (streak + 1 if seat == last_seat else 1)

        button = seat % SEATS + 1 if first == seat else first  # R30
        out = result["outcome"]
        assert (out["first_seat"], out["button_seat"]) == (first, button)
        hands = {h["seat"]: h for h in out["hands"]}
        assert sorted(hands) == in_play
        for s, h in hands.items():
            assert h["cards"] == sevens[s]
            assert sorted(h["high"]["cards"] + h["low"]["cards"]) == sorted(sevens[s])
        assert out["player_dealer"]["cards"] == sevens[seat]
        # only the hands in play and the player-dealer's are exposed
        # (003 "Fortune Pai Gow Poker: Dealing Procedures and Round of Play")
        assert sorted(d["to"] for d in result["dealt"]) == sorted([*in_play, seat])
        start, end = D(result["bank"]["start"]), D(result["bank"]["end"])
        assert start == D(plan["bank"]) and end >= 0
        got_rows = [
            (r["seat"], r["player"], r["spot"], r["status"], D(r["net"]))
            for r in result["settlements"]
        ]
        assert sum(n for *_, n in got_rows) + (end - start) == 0  # R1, contract 3
        assert got_rows == doc_settlements(start, button, wagers, hands)
        assert [f["amount"] for f in result["fees"]] == fee_option_7(sum(wagers.values(), D(0)))
        for r in result["settlements"]:
            note(f"{r['spot']} {r['status']}")
    assert seqs == list(range(1, len(seqs) + 1))  # contract 3


# -- any input, anywhere ---------------------------------------------------------------------------

ANY_CARD = st.sampled_from([*FULL_DECK, "10d", "Zz", "as", ""])
MONEY = st.sampled_from(["0", "5", "25", "500", "501", "-5", "abc", 7, 2.5])


def any_events() -> st.SearchStrategy[Any]:
    seat = st.integers(-1, 9)
    return st.one_of(
        st.builds(lambda s, a: {"type": "bank", "seat": s, "amount": a}, seat, MONEY),
        st.builds(
            lambda s, sp, a, p: (
                {"type": "wager", "seat": s, "spot": sp, "amount": a}
                | ({} if p is None else {"player": p})
            ),
            seat,
            st.sampled_from(["base", "fortune", "envy", "ante", ""]),
            MONEY,
            st.sampled_from([None, "backer"]),
        ),
        st.just(CLOSE),
        st.builds(
            lambda d: {"type": "dice.roll", "dice": d}, st.lists(st.integers(-1, 8), max_size=4)
        ),
        st.builds(
            lambda c, d: (
                {"type": "shuffler.stack", "cards": c} | ({} if d is None else {"deck": d})
            ),
            st.lists(ANY_CARD, min_size=5, max_size=8),
            st.sampled_from([None, "red", "blue"]),
        ),
        st.builds(
            lambda s, a, low: (
                {"type": "decision", "seat": s, "action": a} | ({} if low is None else {"low": low})
            ),
            seat,
            st.sampled_from(["set", "house-way", "fold"]),
            st.one_of(st.none(), st.lists(ANY_CARD, max_size=3)),
        ),
        st.just({"type": "shoe.card", "card": "As"}),
        st.just({"type": "round.void"}),
        st.just({"type": "nonsense"}),
        st.just(None),
    )


def scripted_session(seed: int, rounds: int) -> list[Any]:
    """A plausible session: banks, wagers, dice, seven stacks, settings (some foul, refused)."""
    rng = random.Random(seed)
    events: list[Any] = []
    for i in range(rounds):
        seat = (i // 2) % SEATS + 1  # two hands each (R5)
        events.append(bank(seat, rng.choice(BANKS)))
        for _ in range(rng.randint(0, 6)):
            ws = rng.randint(1, SEATS)
            events.append(
                {"type": "wager", "seat": ws, "spot": "base", "amount": rng.choice(AMOUNTS)}
            )
            if rng.random() < 0.5:
                events.append({"type": "wager", "seat": ws, "spot": "fortune", "amount": "5"})
        dice = [rng.randint(1, 6) for _ in range(3)]
        events.append({"type": "dice.roll", "dice": dice})
        deck = FULL_DECK[:]
        rng.shuffle(deck)
        first = first_seat(seat, sum(dice))
        sevens = {}
        for k in range(SEATS):
            to = (first - 1 + k) % SEATS + 1
            sevens[to] = deck[7 * k : 7 * k + 7]
            events.append({"type": "shuffler.stack", "cards": sevens[to]})
        for s in range(1, SEATS + 1):
            if rng.random() < 0.5:
                low = rng.sample(sevens[s], 2)
                events.append({"type": "decision", "seat": s, "action": "set", "low": low})
            events.append({"type": "decision", "seat": s, "action": "house-way"})
    return events


@st.composite
def mixed_inputs(draw: st.DrawFn) -> list[Any]:
    base = scripted_session(draw(st.integers(0, 2**32 - 1)), 3)
    noise = draw(st.lists(st.tuples(st.integers(0, len(base)), any_events()), max_size=30))
    for at, item in sorted(noise, key=lambda n: -n[0]):
        base.insert(at, item)
    return base


@settings(max_examples=40, deadline=None)
@given(inputs=st.one_of(st.lists(any_events(), max_size=60), mixed_inputs()))
def test_any_input_is_accepted_or_alerts_with_state_unchanged_contract2(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[Any]
) -> None:
    table = Table(config(tmp_path_factory.mktemp("any")))
    for event in inputs:
        before, seq_before = table.state, table.seq
        rows = feed(table, event)  # never raises
        names = [r.topic.removeprefix(BASE + "/") for r in rows]
        assert [payload(r)["seq"] for r in rows] == list(range(seq_before + 1, table.seq + 1))
        if "alert" in names:
            assert names == ["alert"]
            alert = payload(rows[0])
            assert alert["kind"] in ("rejected", "dealer-error", "invalid-input")
            assert alert["reason"]
            if alert["kind"] != "invalid-input":
                assert alert.get("rule"), alert  # every refusal names its rule (round.void too)
            assert table.state == before
            note(f"alert {alert.get('rule')}")
            continue
        note("accepted")
        for p in (payload(r) for r in rows if r.topic == f"{BASE}/round/result"):
            note("a round ended")
            nets = sum(D(s["net"]) for s in p["settlements"])
            start, end = p["bank"]["start"], p["bank"]["end"]
            if start is not None:
                assert nets + D(end) - D(start) == 0 and D(end) >= 0  # R1


# -- replay is byte-identical ----------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=st.lists(any_events(), max_size=30))
def test_replay_through_two_tables_is_identical_contract4(
    tmp_path_factory: pytest.TempPathFactory, seed: int, noise: Sequence[Any]
) -> None:
    cfg = config(tmp_path_factory.mktemp("replay"))
    events = scripted_session(seed, 3) + list(noise)
    a, b = Table(cfg), Table(cfg)
    rows_a = [
        (r.seq, r.topic, r.payload, r.qos, r.retain)
        for rec in records(events)
        for r in a.apply(rec)
    ]
    rows_b = [
        (r.seq, r.topic, r.payload, r.qos, r.retain)
        for rec in records(events)
        for r in b.apply(rec)
    ]
    assert rows_a == rows_b
    assert a.state == b.state
    assert any(r[1] == f"{BASE}/round/result" for r in rows_a)


def test_session_helper_deals_whole_rounds(tmp_path: Path) -> None:
    """The scripted session really plays rounds through (so the properties above see results)."""
    table = Table(config(tmp_path))
    rows = [r for rec in records(scripted_session(7, 3)) for r in table.apply(rec)]
    assert len([r for r in rows if r.topic == f"{BASE}/round/result"]) == 3
