"""R1: the player-dealer's bank pays and collects in action order and never wins or loses more
than itself. Expected figures are worked by hand from the ruling's text."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tablectl.rules.settlement import WagerVerdict, settle

D = Decimal


def win(seat: int, amount: str, owed: str) -> WagerVerdict:
    return WagerVerdict(seat, f"p{seat}", "player", D(amount), "win", D(owed))


def lose(seat: int, amount: str) -> WagerVerdict:
    return WagerVerdict(seat, f"p{seat}", "player", D(amount), "lose")


def push(seat: int, amount: str) -> WagerVerdict:
    return WagerVerdict(seat, f"p{seat}", "player", D(amount), "push")


def test_bank_covers_everything_R1() -> None:
    # bank 500: collects 25, pays 40 (40 owed on a 40 wager) -> end 485
    r = settle(D(500), [lose(1, "25"), win(2, "40", "40")])
    assert [(s.status, s.net) for s in r.settlements] == [("lose", D(-25)), ("win", D(40))]
    assert r.end == D(485)


def test_exhausted_bank_returns_later_winners_R1() -> None:
    # bank 100: pays 60 (funds 40), pays 40 of 50 owed (partial, funds 0), next winner returned
    r = settle(D(100), [win(1, "60", "60"), win(2, "50", "50"), win(3, "10", "10")])
    assert [(s.status, s.net) for s in r.settlements] == [
        ("win", D(60)),
        ("partial", D(40)),
        ("returned", D(0)),
    ]
    assert r.end == D(0)


def test_collections_refill_funds_in_action_order_R1() -> None:
    # bank 50: collects 30 (funds 80), pays 80 of a 10-unit Dragon 7 owed 400 -> partial 80
    r = settle(D(50), [lose(1, "30"), win(2, "10", "400")])
    assert [(s.status, s.net) for s in r.settlements] == [("lose", D(-30)), ("partial", D(80))]
    assert r.end == D(0)


def test_bank_never_wins_more_than_itself_R1() -> None:
    # bank 50: collects 40 (net 40), then only 10 of the next 25 (net capped at 50), then nothing
    r = settle(D(50), [lose(1, "40"), lose(2, "25"), lose(3, "5")])
    assert [(s.status, s.net) for s in r.settlements] == [
        ("lose", D(-40)),
        ("partial", D(-10)),
        ("returned", D(0)),
    ]
    assert r.end == D(100)


def test_push_returns_stake_R1() -> None:
    r = settle(D(10), [push(1, "25")])
    assert [(s.status, s.net) for s in r.settlements] == [("push", D(0))]
    assert r.end == D(10)


money = st.integers(min_value=1, max_value=100_000).map(lambda c: D(c) / 100)
verdicts = st.lists(
    st.tuples(st.sampled_from(["win", "lose", "push"]), money, st.sampled_from([1, 8, 25, 40])),
    max_size=30,
)


@given(bank=money, vs=verdicts)
def test_money_conserved_and_bank_never_negative_R1(
    bank: Decimal, vs: list[tuple[str, Decimal, int]]
) -> None:
    ws = [
        WagerVerdict(i % 7 + 1, "p", "player", amt, v, amt * odds if v == "win" else D(0))  # type: ignore[arg-type]
        for i, (v, amt, odds) in enumerate(vs)
    ]
    r = settle(bank, ws)
    assert sum((s.net for s in r.settlements), D(0)) + r.change == 0
    assert r.end >= 0
    assert r.end <= 2 * bank  # "may not win ... more than the original amount wagered"
    for w, s in zip(ws, r.settlements, strict=True):
        assert -w.amount <= s.net <= w.owed
