"""Properties of the EZ Baccarat Panda 8 table over many random shoes, wagers and inputs.

The oracles here are written from the documents, not from the code: the drawing rules are
recomputed from seed 003's prose and chart (R25), the wager results from "How Each Wager Wins,
Loses, or Pushes" (R26, R27), the settlement walk from R1's text in the order of R2/R3, and the fee
from schedule option 3's rows (R4).
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from tablectl.cli import main
from tablectl.cli.replay import print_rows, replay_records
from tablectl.table import Table
from tests.helpers import (
    BASE,
    CLOSE,
    SHOE_NEW,
    bank,
    burn,
    feed,
    make_config,
    payload,
    records,
    write_config,
)

D = Decimal
RANKS = "A23456789TJQK"
SUITS = "shdc"
DECK = [r + s for r in RANKS for s in SUITS]
SEATS = 7

# "picture cards (king, queen, jack) and 10's have a value of zero, an ace has a value of one, and
# all other cards have their face value"
POINT = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 0, "J": 0, "Q": 0, "K": 0}
# "The player line which pays 1 to 1; The banker line which pays 1 to 1; The Tie Bet, which pays
# 8 to 1; ... Dragon 7 Bonus Bet, which pays 40 to 1; ... Panda 8, which pays 25 to 1."
ODDS = {"player": 1, "banker": 1, "tie": 8, "panda8": 25, "dragon7": 40}
# "all player line wagers, all banker line wagers, all Tie Bet wagers, all Panda 8 wagers, and then
# all Dragon 7 Bonus Bet wagers"
DOC_SPOT_ORDER = ("player", "banker", "tie", "panda8", "dragon7")


# -- the document's rules, recomputed --------------------------------------------------------------


def total(hand: Sequence[str]) -> int:
    """ "only the right-hand digit (numeric count) is considered" """
    return sum(POINT[c[0]] for c in hand) % 10


def prose_next(player: Sequence[str], banker: Sequence[str]) -> str | None:
    """Who gets the next card by seed 003's "Dealing Procedures" and chart; None: coup over."""
    # "one card to the right and one card to the left, one by one in rotation, until each hand
    # has a total of two cards each" with the player's hand first (R25)
    opening = {(0, 0): "player", (1, 0): "banker", (1, 1): "player", (2, 1): "banker"}
    if len(player) < 2 or len(banker) < 2:
        return opening[(len(player), len(banker))]
    p2, b2 = total(player[:2]), total(banker[:2])
    # a Natural 8 or 9 (the first two cards) is the top of the ranking: the chart has no banker
    # rows for 8 and 9 and the player stands on 6 through 9, so a natural ends the coup
    if p2 >= 8 or b2 >= 8:
        return None
    # "The player's hand must stand when the hand is valued at 6 through 9, and must hit when the
    # hand is valued at 5 or less."
    if len(player) == 2 and p2 <= 5:
        return "player"
    if len(banker) == 3:
        return None
    if len(player) == 2:
        # "If the player's hand stands, then the dealer hand hits on a total of 5 or less."
        return "banker" if b2 <= 5 else None
    third = POINT[player[2][0]]
    # "If the player's hand hits ..." (rows 0-2 of the chart: H in every column; 7: S in all)
    hits = {
        0: True,
        1: True,
        2: True,
        3: third != 8,  # "unless the third card dealt to the player's hand was an 8"
        4: third not in (0, 1, 8, 9),  # "unless ... a 0, 1, 8, or 9"
        5: third in (4, 5, 6, 7),  # "if ... 4, 5, 6, or 7"
        6: third in (6, 7),  # "if ... a 6 or 7"
        7: False,
    }[b2]
    return "banker" if hits else None


def doc_outcome(player: Sequence[str], banker: Sequence[str]) -> dict[str, Any]:
    pt, bt = total(player), total(banker)
    return {
        "winner": "player" if pt > bt else "banker" if bt > pt else "tie",
        "player_total": pt,
        "banker_total": bt,
        # "If the banker hand has a point value of seven using three cards and the player's hand
        # has a value of six or less"
        "dragon7": len(banker) == 3 and bt == 7 and pt <= 6,
        # "If the player hand has a point value of eight using three cards and the banker's hand
        # has a value of seven or less"
        "panda8": len(player) == 3 and pt == 8 and bt <= 7,
        "natural": any(len(h) == 2 and total(h) >= 8 for h in (player, banker)),
    }


def doc_verdict(spot: str, o: dict[str, Any]) -> str:
    if spot in ("player", "banker"):
        if o["winner"] == "tie":
            return "push"  # R26
        return "win" if o["winner"] == spot else "lose"  # banker 1:1 even on a Dragon 7 (R26)
    if spot == "tie":
        return "win" if o["winner"] == "tie" else "lose"
    return "win" if o[spot] else "lose"


def doc_order(bank_seat: int, wagers: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """R2/R3 by spot: from the seat to the player-dealer's left, clockwise, spot by spot."""
    seats = [(bank_seat + i - 1) % SEATS + 1 for i in range(1, SEATS)]
    return [
        w
        for spot in DOC_SPOT_ORDER
        for s in seats
        for w in wagers
        if (w["seat"], w["spot"]) == (s, spot)
    ]


def r1_walk(
    bank_amount: Decimal, wagers: Sequence[dict[str, Any]], o: dict[str, Any]
) -> list[tuple[int, str, str, str, Decimal]]:
    """R1 as written: funds start at B, the bank's net may not exceed B, winners paid from funds."""
    funds, bank_net = bank_amount, D(0)
    out = []
    for w in wagers:
        amount, verdict = D(w["amount"]), doc_verdict(w["spot"], o)
        if verdict == "push":
            status, net = "push", D(0)
        elif verdict == "lose":
            collected = min(amount, bank_amount - bank_net)
            funds += collected
            bank_net += collected
            status = "lose" if collected == amount else "returned" if collected == 0 else "partial"
            net = -collected
        else:
            owed = amount * ODDS[w["spot"]]
            paid = min(owed, funds)
            funds -= paid
            bank_net -= paid
            status = "win" if paid == owed else "returned" if paid == 0 else "partial"
            net = paid
        out.append((w["seat"], w["player"], w["spot"], status, net))
    return out


def option3_fee(action: Decimal) -> str | None:
    """Schedule option 3, whole-dollar action: $5-$200 $1, $201-$300 $2, $301-$500 $3,
    $501-$1000 $5, $1000+ $8 (exactly $1000 reads as "$1000+", per the schedules file)."""
    if action == 0:
        return None
    for low, fee in ((1000, "8.00"), (501, "5.00"), (301, "3.00"), (201, "2.00")):
        if action >= low:
            return fee
    return "1.00"


def shoe(seed: int, decks: int = 8) -> list[str]:
    cards = DECK * decks
    random.Random(seed).shuffle(cards)
    return cards


def is_result(row: Any) -> bool:
    return bool(row.topic == f"{BASE}/round/result")


# -- whole shoes of random rounds ------------------------------------------------------------------

SPOTS = list(ODDS)
AMOUNTS = ["5", "10", "25", "40", "100", "250", "500", "501", "3"]  # 501 and 3 break the limits
BANKS = ["1", "20", "50", "100", "300", "1000", "5000"]


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
        "burn": draw(st.booleans()),
    }


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plans=st.lists(round_plans(), min_size=20, max_size=80))
def test_random_shoes_balance_and_follow_the_document_R1_R25_R26_R27(
    tmp_path_factory: pytest.TempPathFactory, seed: int, plans: list[dict[str, Any]]
) -> None:
    cfg = make_config(tmp_path_factory.mktemp("shoe"))
    table = Table(cfg)
    cards = shoe(seed)
    seqs: list[int] = []
    results: list[dict[str, Any]] = []  # every round/result published, whatever caused it

    def step(event: Any) -> list[Any]:
        rows = feed(table, event)
        seqs.extend(payload(r)["seq"] for r in rows)
        results.extend(payload(r) for r in rows if is_result(r))
        return rows

    step(SHOE_NEW)
    coups = 0
    last_seat, streak = None, 0
    for plan in plans:
        if len(cards) < 7:
            break
        seat = plan["seat"]
        if seat == last_seat and streak >= 2:  # R5: offer the bank on clockwise
            seat = seat % SEATS + 1
        if plan["burn"]:
            assert not [r for r in step(burn(cards.pop())) if r.topic.endswith("/alert")]
        assert not [r for r in step(bank(seat, plan["bank"])) if r.topic.endswith("/alert")]
        accepted: list[dict[str, Any]] = []
        for wseat, spot, amount, backer in plan["wagers"]:
            ev: dict[str, Any] = {"type": "wager", "seat": wseat, "spot": spot, "amount": amount}
            if backer:
                ev["player"] = backer
            accepted += [payload(r) for r in step(ev) if r.topic.endswith("/event")]
        if plan["close"]:
            step(CLOSE)
        player: list[str] = []
        banker: list[str] = []
        result = None
        while True:
            expected = prose_next(player, banker)
            assert expected is not None
            card = cards.pop()
            rows = step({"type": "shoe.card", "card": card})
            events = [payload(r) for r in rows if r.topic.endswith("/event")]
            assert [e["to"] for e in events] == [expected]  # R25
            (player if expected == "player" else banker).append(card)
            finished = [payload(r) for r in rows if is_result(r)]
            if prose_next(player, banker) is None:
                coups += 1
                assert len(finished) == 1
                result = finished[0]
                break
            assert finished == []
        last_seat, streak = seat, (streak + 1 if seat == last_seat else 1)

        assert result is not None
        o = doc_outcome(player, banker)
        note(f"winner {o['winner']}" + " dragon7" * o["dragon7"] + " panda8" * o["panda8"])
        out = result["outcome"]
        assert out["player"]["cards"] == player and out["banker"]["cards"] == banker
        assert (out["winner"], out["player"]["total"], out["banker"]["total"]) == (
            o["winner"],
            o["player_total"],
            o["banker_total"],
        )
        assert (out["dragon7"], out["panda8"], out["natural"]) == (
            o["dragon7"],
            o["panda8"],
            o["natural"],
        )
        start, end = D(result["bank"]["start"]), D(result["bank"]["end"])
        assert start == D(plan["bank"]) and result["bank"]["seat"] == seat
        nets = [D(s["net"]) for s in result["settlements"]]
        assert sum(nets) + (end - start) == 0  # R1, contract 3
        assert end >= 0
        for s in result["settlements"]:
            note(f"status {s['status']}")
            amount = D(s["amount"])
            assert -amount <= D(s["net"]) <= amount * ODDS[s["spot"]]
        # every accepted wager settled once, walked in the document's order under R1
        got = [
            (s["seat"], s["player"], s["spot"], s["status"], D(s["net"]))
            for s in result["settlements"]
        ]
        assert got == r1_walk(start, doc_order(seat, accepted), o)
        action = sum((D(w["amount"]) for w in accepted), D(0))
        fee = option3_fee(action)
        assert [f["amount"] for f in result["fees"]] == ([] if fee is None else [fee])
    assert len(results) == coups
    note(f"coups {coups // 10 * 10}+")
    assert seqs == list(range(1, len(seqs) + 1))  # contract 3


# -- random input of any kind ----------------------------------------------------------------------

ANY_CARD = st.sampled_from([*DECK, "JKR", "10d", "Zz", "as", "KH", ""])
MONEY = st.sampled_from(
    ["0", "1", "5", "5.50", "25", "100", "500", "501", "-5", "abc", "1e3", 7, 2.5]
)


def any_events() -> st.SearchStrategy[Any]:
    seat = st.integers(-1, 9)
    return st.one_of(
        st.builds(lambda c: {"type": "shoe.card", "card": c}, ANY_CARD),
        st.builds(lambda c: {"type": "shoe.card", "card": c}, st.sampled_from(DECK)),
        st.builds(lambda c: {"type": "shoe.burn", "card": c}, ANY_CARD),
        st.builds(lambda s, a: {"type": "bank", "seat": s, "amount": a}, seat, MONEY),
        st.builds(
            lambda s, sp, a, p: (
                {"type": "wager", "seat": s, "spot": sp, "amount": a}
                | ({} if p is None else {"player": p})
            ),
            seat,
            st.sampled_from([*SPOTS, "bogus", "", "PLAYER"]),
            MONEY,
            st.sampled_from([None, "backer", ""]),
        ),
        st.just(CLOSE),
        st.just(SHOE_NEW),
        st.just({"type": "decision", "seat": 2, "action": "stand"}),
        st.just({"type": "shuffler.stack", "cards": ["As", "Kd", "Qh"]}),
        st.just({"type": "nonsense"}),
        st.just({"type": "wager"}),
        st.just({"card": "As"}),
        st.just(["As"]),
        st.just("shoe.card As"),
        st.just(None),
    )


def with_source() -> st.SearchStrategy[tuple[Any, str, str | None]]:
    return st.tuples(
        any_events(),
        st.sampled_from(["test", "test", "cmd/wager", "cmd/bank"]),
        st.sampled_from([None, "r1", "r2", "r3"]),
    )


@st.composite
def mixed_inputs(draw: st.DrawFn) -> list[tuple[Any, str, str | None]]:
    """A plausible session (so coups do complete) with random input dropped in anywhere."""
    base: list[tuple[Any, str, str | None]] = [
        (e, "test", None) for e in scripted_shoe(draw(st.integers(0, 2**32 - 1)), 5)
    ]
    noise = draw(st.lists(st.tuples(st.integers(0, len(base)), with_source()), max_size=40))
    for at, item in sorted(noise, key=lambda n: -n[0]):
        base.insert(at, item)
    return base


@settings(max_examples=150, deadline=None)
@given(inputs=st.one_of(st.lists(with_source(), max_size=80), mixed_inputs()))
def test_any_input_is_accepted_or_alerts_with_state_unchanged_contract2_R25(
    tmp_path_factory: pytest.TempPathFactory, inputs: list[tuple[Any, str, str | None]]
) -> None:
    table = Table(make_config(tmp_path_factory.mktemp("any")))
    player: list[str] = []
    banker: list[str] = []
    for event, source, ref in inputs:
        before, seq_before = table.state, table.seq
        rows = feed(table, event, source=source, ref=ref)  # never raises
        names = [r.topic.removeprefix(BASE + "/") for r in rows]
        assert [payload(r)["seq"] for r in rows] == list(range(seq_before + 1, table.seq + 1))
        replies = [n for n in names if n.endswith("/reply")]
        assert len(replies) == (1 if source.startswith("cmd/") else 0)
        if "alert" in names:
            assert names.count("alert") == 1 and names[0] == "alert"
            alert = payload(rows[0])
            note(f"alert {alert['kind']}")
            assert alert["kind"] in ("rejected", "dealer-error", "invalid-input")
            assert alert["reason"]
            assert table.state == before
            if replies:
                assert payload(rows[-1])["ok"] is False
            continue
        if replies and payload(rows[-1])["ok"] is False:  # a duplicate request id
            assert names == replies and table.state == before
            continue
        # accepted: a card goes where the document says (R25), and ends the coup when it says
        for p in [payload(r) for r in rows if r.topic.endswith("/event")]:
            if p["type"] == "shoe.card":
                assert p["to"] == prose_next(player, banker)
                (player if p["to"] == "player" else banker).append(p["card"])
        note("accepted")
        if "round/result" in names:
            note("a coup completed")
            assert prose_next(player, banker) is None
            player, banker = [], []
        else:
            assert len(player) + len(banker) < 4 or prose_next(player, banker) is not None


# -- replay is byte-identical ----------------------------------------------------------------------


def event_lists() -> st.SearchStrategy[list[Any]]:
    return st.lists(any_events(), max_size=60)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), noise=event_lists())
def test_replay_through_two_tables_is_identical_contract4(
    tmp_path_factory: pytest.TempPathFactory, seed: int, noise: list[Any]
) -> None:
    cfg = make_config(tmp_path_factory.mktemp("replay"))
    events = scripted_shoe(seed, 6) + noise
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


def scripted_shoe(seed: int, rounds: int) -> list[Any]:
    """A plausible session: a new shoe, then rounds with banks, wagers and enough cards."""
    rng = random.Random(seed)
    cards = shoe(seed)
    events: list[Any] = [SHOE_NEW, burn(cards.pop())]
    for i in range(rounds):
        seat = (i // 2) % SEATS + 1  # two hands each (R5)
        events.append(bank(seat, rng.choice(BANKS)))
        for _ in range(rng.randint(0, 6)):
            ws = rng.randint(1, SEATS)
            events.append(
                {
                    "type": "wager",
                    "seat": ws,
                    "spot": rng.choice(SPOTS),
                    "amount": rng.choice(AMOUNTS),
                }
            )
        events += [{"type": "shoe.card", "card": cards.pop()} for _ in range(6)]  # extras alert
    return events


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**32 - 1), noise=st.lists(any_events(), max_size=20))
def test_cli_replay_twice_prints_identical_bytes_contract4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, noise: list[Any]
) -> None:
    config = write_config(tmp_path)
    lines = [json.dumps(e) for e in scripted_shoe(seed, 4) + noise]
    lines += [
        "not json at all",
        json.dumps({"type": "wager", "seat": 4, "ts": "2024-05-01T00:00:00Z"}),
    ]
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()

    assert main(["replay", "--config", str(config), str(events)]) == 0
    first = capsys.readouterr().out
    assert main(["replay", "--config", str(config), str(events)]) == 0
    second = capsys.readouterr().out
    assert first == second
    printed = [json.loads(line) for line in first.splitlines()]
    assert [m["payload"]["seq"] for m in printed] == list(range(1, len(printed) + 1))

    # the command prints exactly what the Table publishes for the same records
    table, buf = Table(make_config(tmp_path)), io.StringIO()
    for rec in replay_records(iter(events.read_text(encoding="utf-8").splitlines(keepends=True))):
        print_rows(table.apply(rec), buf)
    assert buf.getvalue() == first
