"""The counter's signature (tablectl/surveillance/counter.py): Spearman's rank correlation between
a seat's stakes on a wager and the wager's expectation, worked by hand, and the alert on it over
real shoes: it fires on a scripted counter who raises the Dragon 7 stake as the Dragon 7
expectation rises, and never on random bettors over 50 seeded 8-deck shoes (docs/surveillance.md,
"Alerts"; the defaults: docs/config.md "[protection]").

The shoes are dealt coup by coup by R25's drawing order (`next_to_draw`, the engine's own) and
each round's figures are the live figures of the composition left before it (`live_figures`),
so the statistic sees what the feed would at each round's wagers; the feed itself is tested on
the same path in test_surveillance_feed.py.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.config import load_config
from tablectl.config.sections import Protection
from tablectl.games.table_rules import Rules
from tablectl.protection.live import live_figures
from tablectl.protection.shoe import ShoeLeft
from tablectl.rules.baccarat import next_to_draw
from tablectl.surveillance.counter import CounterWatch, doubled_ranks, spearman
from tablectl.table import Table
from tablectl_base.cards import RANKS, SUITS, Card

REPO = Path(__file__).resolve().parents[2]
SHOES = 50
SEED = 28
CUT_CARD = 14  # a new shoe when fewer are left (hil/synthetic.py's cut card)
DEFAULTS = Protection()


def test_ranks_of_ties_are_their_average_doubled() -> None:
    # values 5 0 5 10 -> ranks 2.5 1 2.5 4 -> doubled 5 2 5 8
    assert doubled_ranks([Decimal(5), Decimal(0), Decimal(5), Decimal(10)]) == [5, 2, 5, 8]


def test_spearman_worked_by_hand() -> None:
    """Stakes 0 0 5 5 against expectations rising: ranks 1.5 1.5 3.5 3.5 and 1 2 3 4, centred
    -1 -1 1 1 and -1.5 -0.5 0.5 1.5: sxy = 4, sxx = 4, syy = 5, rho = 4 / sqrt(20) = 0.894427
    (doubled ranks: 16, 16, 20)."""
    stakes = [Decimal(0), Decimal(0), Decimal(5), Decimal(5)]
    corr = spearman(stakes, [Fraction(k, 100) for k in (1, 2, 3, 4)])
    assert (corr.n, corr.sxy, corr.sxx, corr.syy) == (4, 16, 16, 20)
    assert round(corr.rho, 6) == 0.894427
    assert corr.at_least(Fraction(894, 1000)) and not corr.at_least(Fraction(895, 1000))
    falling = spearman(stakes, [Fraction(k, 100) for k in (4, 3, 2, 1)])
    assert round(falling.rho, 6) == -0.894427 and not falling.at_least(Fraction(1, 100))


def test_a_seat_whose_stake_never_changes_has_no_correlation() -> None:
    flat = spearman([Decimal(5)] * 4, [Fraction(k) for k in range(4)])
    assert not flat.defined and not flat.at_least(Fraction(1, 100))


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(-50, 50)), min_size=2, max_size=40))
def test_spearman_is_pearsons_correlation_of_the_ranks(pairs: list[tuple[int, int]]) -> None:
    """The definition, with ties at their average rank, in floats."""
    stakes = [Decimal(a) for a, _ in pairs]
    expectations = [Fraction(b, 100) for _, b in pairs]
    corr = spearman(stakes, expectations)
    rx = [r / 2 for r in doubled_ranks(stakes)]
    ry = [r / 2 for r in doubled_ranks(expectations)]
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        assert not corr.defined
    else:
        assert corr.rho == pytest.approx(sxy / (sxx * syy) ** 0.5, abs=1e-12)
        assert -1 - 1e-12 <= corr.rho <= 1 + 1e-12


def test_a_voided_round_is_no_sample_and_each_pair_is_told_once_a_shoe() -> None:
    watch = CounterWatch(Fraction(9, 10), min_rounds=3)
    rising = {"side": Fraction(0)}
    assert watch.add_round(1, 2, {"side": Decimal(5)}, {"side": Fraction(1, 100)}) == []
    assert watch.add_round(2, 2, {"side": Decimal(10)}, {"side": Fraction(2, 100)}) == []
    watch.void_round(2)
    assert watch.add_round(3, 2, {}, rising) == []  # two rounds only: 1 and 3
    (alert,) = watch.add_round(4, 2, {"side": Decimal(25)}, {"side": Fraction(3, 100)})
    assert (alert.seat, alert.wager, alert.correlation.n) == (2, "side", 3)
    assert watch.add_round(5, 2, {"side": Decimal(50)}, {"side": Fraction(4, 100)}) == []
    watch.new_shoe()
    assert watch.samples == {} and watch.alerted == set()


# -- over real shoes -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rounds_of_shoes(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Fraction]]]:
    """50 seeded 8-deck shoes, dealt coup by coup: each round's expectation of every wager,
    from the composition left before it."""
    rules = _rules(tmp_path_factory.mktemp("table"))
    rng = random.Random(SEED)
    shoes = []
    for _ in range(SHOES):
        cards = [Card(r, s) for r in RANKS for s in SUITS] * 8
        rng.shuffle(cards)
        left = ShoeLeft.full(8)
        rounds = []
        while len(cards) >= CUT_CARD:
            figures = live_figures(rules, left)
            rounds.append({w.wager: w.expectation for w in figures.wagers})
            player: list[Card] = []
            banker: list[Card] = []
            while (side := next_to_draw(player, banker)) is not None:
                card = cards.pop()
                (player if side == "player" else banker).append(card)
                left = left.without(card)
        shoes.append(rounds)
    return shoes


def _rules(folder: Path) -> Rules:
    config = REPO / "tests" / "history" / "replay_histories" / "synthetic-baccarat.toml"
    path = folder / "table.toml"
    path.write_text(config.read_text(encoding="utf-8").replace("{repo}", str(REPO)), "utf-8")
    return Table(load_config(path)).rules


def _watch() -> CounterWatch:
    return CounterWatch(Fraction(DEFAULTS.counter_threshold), DEFAULTS.counter_min_rounds)


def counter_stake(expectation: Fraction) -> Decimal:
    """The scripted counter: $5 on Dragon 7 off the top, $25 once its expectation is above
    -5%, $100 once it is above 0 (the full shoe's is -7.61%)."""
    if expectation > 0:
        return Decimal(100)
    return Decimal(25) if expectation > Fraction(-5, 100) else Decimal(5)


def test_the_counter_alert_fires_on_a_seat_that_raises_its_dragon7_stake_with_the_count(
    rounds_of_shoes: list[list[dict[str, Fraction]]],
) -> None:
    """Every shoe where the counter's stake varied at all ends with the alert on its Dragon 7
    (the count never rising past -5% leaves a flat $5, which no statistic can read), and
    it is told for Dragon 7 alone: its line bets are flat."""
    fired, varied = 0, 0
    for rounds in rounds_of_shoes:
        watch = _watch()
        alerts = []
        for n, figures in enumerate(rounds, start=1):
            stakes = {"banker": Decimal(25), "dragon7": counter_stake(figures["dragon7"])}
            alerts += watch.add_round(n, 4, stakes, figures)
        if len({counter_stake(f["dragon7"]) for f in rounds}) > 1:
            varied += 1
        fired += bool(alerts)
        assert {(a.seat, a.wager) for a in alerts} <= {(4, "dragon7")}
        assert all(a.correlation.n >= DEFAULTS.counter_min_rounds for a in alerts)
    assert varied >= SHOES // 2  # the scripted shoes do test the alert
    assert fired >= varied * 2 // 3, (fired, varied)


def test_the_counter_alert_never_fires_on_random_bettors_over_50_shoes(
    rounds_of_shoes: list[list[dict[str, Fraction]]],
) -> None:
    """Seven seats betting by chance (a line every round, a side bet now and then, stakes drawn
    at random), every wager watched: no alert in 50 shoes."""
    rng = random.Random(SEED + 1)
    for rounds in rounds_of_shoes:
        watch = _watch()
        for n, figures in enumerate(rounds, start=1):
            for seat in range(1, 8):
                stakes = {rng.choice(("player", "banker")): Decimal(rng.choice((10, 25, 50)))}
                for side in ("tie", "dragon7", "panda8"):
                    if rng.random() < 0.3:
                        stakes[side] = Decimal(rng.choice((5, 10, 25)))
                assert watch.add_round(n, seat, stakes, figures) == []
