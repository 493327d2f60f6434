"""The 21.5 base game computed exactly for the stated strategy
(tablectl/analysis/blackjack_exact.py, tablectl/analysis/blackjack_dealer.py;
docs/games/blackjack.md "Base game analysis").

Tiny shoes whose whole game tree is worked by hand in the docstrings; the same rounds and
random small ones enumerated through the engine itself (`BlackjackEngine`, every card order
played with `play_round`), which the model must match exactly, so it cannot rule differently
from the table; the player-dealer's masses against a direct enumeration; and the full-shoe
figures against the engine simulation's 95% interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from itertools import permutations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tablectl.analysis import blackjack_base as base
from tablectl.analysis.blackjack import PURE_GAME, SPANISH_GAME
from tablectl.analysis.blackjack_dealer import OUTCOMES, card_of, dealer_masses, outcome_of
from tablectl.analysis.blackjack_exact import Counts, Dist, ExactBase, Model, shoe_counts
from tablectl.games.blackjack.state import Hand
from tablectl.rules.blackjack import dealer_must_hit, is_pure
from tablectl_base.cards import Card

PURE, SPANISH = PURE_GAME, SPANISH_GAME


def counts(**by_value: int) -> Counts:
    """A composition by value: counts(a=1, k=3) is one ace and three cards worth 10."""
    names = ("a", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9", "k")
    return tuple(by_value.get(n, 0) for n in names)


def model(game: str, pays: str = "6 to 5") -> Model:
    return Model(base.base_engine(game, 8, pays).policy, game)


# -- the engine, every card order -------------------------------------------------------------


class NeedCard(Exception):
    """The engine asked for a card the prefix does not hold: branch on every card left."""


class OutOfCards(Exception):
    """The engine asked for a card the tiny shoe no longer has."""


def real_card(value: int, earlier: int, game: str) -> Card:
    """A distinct real card of `value` for its `earlier`-th copy in a round (the engine refuses
    more copies of one card than its decks hold, contract 1)."""
    if value == 10:
        ranks = "KQJ" if game == SPANISH else "KQJT"
        return Card(ranks[earlier % len(ranks)], "shdc"[earlier // len(ranks) % 4])
    return Card(card_of(value).rank, "shdc"[earlier % 4])


def engine_distribution(game: str, pays: str, dealt: tuple[int, ...], left: Counts) -> Dist:
    """The round's net per unit, every order of the cards `left` after the cards `dealt` (in
    deal order: player, up, player), each round played through BlackjackEngine by the
    simulation's own `play_round` and strategy."""
    engine = base.base_engine(game, 8, pays)
    stake = base.base_stake(engine)
    dist: Dist = {}

    def drawer(values: list[int]) -> Callable[[], Card]:
        feed = iter(values)
        seen = [0] * 10

        def draw() -> Card:
            v = next(feed, None)
            if v is None:
                raise NeedCard
            seen[v - 1] += 1
            return real_card(v, seen[v - 1] - 1, game)

        return draw

    def walk(values: list[int], rest: Counts, p: float) -> None:
        try:
            played = base.play_round(engine, drawer(values), stake)
        except NeedCard:
            total = sum(rest)
            if total == 0:
                raise OutOfCards from None
            for v in range(1, 11):
                k = rest[v - 1]
                if k:
                    less = (*rest[: v - 1], k - 1, *rest[v:])
                    walk([*values, v], less, p * k / total)
            return
        net = float(played.net / stake)
        dist[net] = dist.get(net, 0.0) + p

    walk(list(dealt), left, 1.0)
    return dist


def whole_shoe_by_engine(game: str, pays: str, shoe: Counts) -> Dist:
    """Every deal of `shoe` through the engine: `engine_distribution` from the empty prefix."""
    return engine_distribution(game, pays, (), shoe)


def assert_same(a: Dist, b: Dist) -> None:
    keys = set(a) | set(b)
    for k in keys:
        assert a.get(k, 0.0) == pytest.approx(b.get(k, 0.0), abs=1e-12), k


# -- hand-worked shoes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "pays", "pure"),
    [(PURE, "6 to 5", 1.2), (PURE, "3 to 2", 1.5), (SPANISH, "6 to 5", 1.2)],
)
def test_one_ace_and_three_bonus_cards_R11_R12(game: str, pays: str, pure: float) -> None:
    """A shoe of one ace and three bonus cards, dealt player, up, player, hole: the ace is
    equally likely in each of the four places. In a player's place (chance 1/2) the player holds
    a Pure 21.5 and the player-dealer cannot: paid 6 to 5 or 3 to 2 (R11). As the up card or
    the hole card (1/2) the peek finds the player-dealer's Pure 21.5 (R12) and the player's 20
    loses. Expected net: 1.2/2 - 1/2 = 0.1 at 6 to 5, 0.25 at 3 to 2."""
    shoe = counts(a=1, k=3)
    dist = model(game, pays).round_distribution(shoe)
    assert_same(dist, {pure: 0.5, -1.0: 0.5})
    assert ExactBase(dist).expectation == pytest.approx(pure / 2 - 0.5)
    assert_same(whole_shoe_by_engine(game, pays, shoe), dist)


def test_888_pushes_a_busted_player_R13_R14() -> None:
    """Pure 21.5: the player holds K-6 (hard 16) against an 8 up, with two 8s and a bonus card
    left. Hard 16 hits against an 8 (the table's H). The hole card and the player's card are
    two of the three left, in either order equally likely (the player's card is chosen without
    seeing the hole card). The player busts whatever comes (24 or 26). If the player took the
    bonus card (1/3) the player-dealer holds 8-8, hits (R14) the last 8: 888, and the busted
    player pushes (R13). Otherwise (2/3) the player-dealer ends 8-8-K (26) or 8-K (18) and the
    busted player loses. So: lose 2/3, push 1/3."""
    left = counts(c8=2, k=1)
    dist = model(PURE).deal(10, 6, 8, left)
    assert_same(dist, {-1.0: 2 / 3, 0.0: 1 / 3})
    assert_same(engine_distribution(PURE, "6 to 5", (10, 8, 6), left), dist)


@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_split_aces_against_a_bonus_only_shoe_R16(game: str) -> None:
    """A-A against a 6 up, only bonus cards left: the aces split (both tables: P), each takes a
    bonus card: 21, not a Pure 21.5 after a split (R10). The player-dealer's 6 and bonus card
    make 16; it hits (R14) and busts. Both hands win: +2, always. Here the split approximation
    is exact: every card left is the same."""
    left = counts(k=8)
    dist = model(game).deal(1, 1, 6, left)
    assert_same(dist, {2.0: 1.0})
    assert_same(engine_distribution(game, "6 to 5", (1, 6, 1), left), dist)


@pytest.mark.parametrize(
    ("game", "want"),
    [(SPANISH, {2.0: 2 / 3, -2.0: 1 / 3}), (PURE, {2.0: 1 / 3, 0.0: 1 / 3, -2.0: 1 / 3})],
)
def test_a_doubled_21_against_the_player_dealers_21_R14_R16_R20(
    game: str, want: dict[float, float]
) -> None:
    """7-4 (hard 11) against a 7 up doubles (both tables: D) with two bonus cards and a 4
    left. The double's card is a bonus card (2/3): 21. Then the hole card is the other bonus
    card (1/2): the player-dealer stands on 17 and the doubled hand wins 2; or the 4 (1/2): 11,
    it hits (R14) the bonus card, 21. Spanish: a player's 21 beats the player-dealer's 21 (R20),
    +2; Pure 21.5: a push. The double's card is the 4 (1/3): a doubled 15 (Spanish stands on it
    against a 7; Pure 21.5 gets one card, R16) against the player-dealer's 7 and bonus card
    (17): -2. Spanish +2 2/3, -2 1/3; Pure 21.5 +2, 0, -2 a third each."""
    left = counts(c4=1, k=2)
    dist = model(game).deal(7, 4, 7, left)
    assert_same(dist, want)
    assert_same(engine_distribution(game, "6 to 5", (7, 7, 4), left), dist)


def test_spanish_rescue_takes_back_the_doubled_portion_R20() -> None:
    """Spanish 6-4 (hard 10) against an 8 doubles (D); a 5 and two bonus cards left. The 5
    (1/3): a doubled hard 15 against an 8 is rescued (R), the doubled unit back and the first
    lost: -1. A bonus card (2/3): 20 stands; the player-dealer's 8 takes the other bonus card
    (18) or the 5 and then the bonus card (23, bust): +2 either way."""
    left = counts(c5=1, k=2)
    dist = model(SPANISH).deal(6, 4, 8, left)
    assert_same(dist, {-1.0: 1 / 3, 2.0: 2 / 3})
    assert_same(engine_distribution(SPANISH, "6 to 5", (6, 8, 4), left), dist)


def test_spanish_double_double_R20() -> None:
    """Spanish 6-4 (hard 10) against a 7 doubles (D); a 2 and three bonus cards left. The 2
    (1/4): a doubled hard 12 against a 7 doubles again (DD, config double_double), four units,
    and takes a bonus card: 22, bust: -4. A bonus card (3/4): 20 stands; the player-dealer's 7
    ends at 17 (bonus card) or 19 (the 2, then a bonus card): +2."""
    left = counts(c2=1, k=3)
    dist = model(SPANISH).deal(6, 4, 7, left)
    assert_same(dist, {-4.0: 1 / 4, 2.0: 3 / 4})
    assert_same(engine_distribution(SPANISH, "6 to 5", (6, 7, 4), left), dist)


@pytest.mark.parametrize(
    ("game", "dealt", "left"),
    [
        (PURE, (8, 10, 8), counts(c2=1, c3=1, c9=1, k=4)),
        (SPANISH, (8, 6, 8), counts(c2=1, c3=1, c9=1, k=4)),
        (SPANISH, (1, 6, 1), counts(c5=1, c6=1, c9=1, k=3)),
    ],
)
def test_a_split_without_a_resplit_has_the_engines_expectation_R16(
    game: str, dealt: tuple[int, int, int], left: Counts
) -> None:
    """A split the cards left cannot resplit (no third card of the pair): the expectation of
    the split hands dealt each from the cards at the split is the engine's exactly, since the
    cards after one hand's are as likely as from the top of what was left at the split
    (exchangeability at a stopping time). The shares of won, pushed and lost rounds are where
    the split approximation shows: the model takes the hands as independent given the
    player-dealer's final hand, so here they differ from the engine's."""
    first, up, second = dealt
    mine = ExactBase(model(game).deal(first, second, up, left))
    engine = ExactBase(engine_distribution(game, "6 to 5", dealt, left))
    assert mine.expectation == pytest.approx(engine.expectation, abs=1e-12)
    assert mine.share(1) != pytest.approx(engine.share(1), abs=1e-6)


# -- the model against the engine -------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "shoe"),
    [
        (PURE, counts(a=1, c5=1, c6=1, c9=1, k=3)),
        (SPANISH, counts(a=1, c5=1, c6=1, c9=1, k=3)),
        (PURE, counts(c2=1, c3=1, c4=1, c7=1, k=3)),
        (SPANISH, counts(c2=1, c4=1, c5=1, c8=1, k=3)),
    ],
)
def test_every_deal_of_a_small_shoe_matches_the_engine(game: str, shoe: Counts) -> None:
    """No pair the strategy splits can be dealt from these shoes, so the model is exact and
    must give every net the engine gives, with the same chance."""
    assert_same(model(game).round_distribution(shoe), whole_shoe_by_engine(game, "6 to 5", shoe))


VALUE = st.integers(min_value=1, max_value=10)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    game=st.sampled_from([PURE, SPANISH]),
    first=VALUE,
    second=VALUE,
    up=VALUE,
    left=st.lists(VALUE, min_size=4, max_size=7),
)
def test_any_unsplit_deal_matches_the_engine(
    game: str, first: int, second: int, up: int, left: list[int]
) -> None:
    """Any deal the strategy does not split, any small set of cards left: the model's chances
    of every net are the engine's, every order of the cards played (R10-R16, R20)."""
    rest = tuple(left.count(v) for v in range(1, 11))
    m = model(game)
    try:
        by_engine = engine_distribution(game, "6 to 5", (first, up, second), rest)
    except OutOfCards:
        assume(False)
        return
    hand = Hand(1, "1", Decimal(1), (card_of(first), card_of(second)))
    assume(is_pure(hand.cards, split=False) or m.move(hand, up, 1) != "split")
    assert_same(m.deal(first, second, up, rest), by_engine)


# -- the player-dealer's masses ---------------------------------------------------------------


@pytest.mark.parametrize("up", range(1, 11))
def test_dealer_masses_match_every_order_of_a_small_shoe_R12_R14(up: int) -> None:
    """Every order of a six-card shoe, the player-dealer drawing by Chart 1B (R14) after `up`;
    orders whose first card makes a Pure 21.5 with the up card are the peek's (R12), left out."""
    cards = [1, 5, 6, 8, 8, 10]
    left = counts(a=1, c5=1, c6=1, c8=2, k=1)
    want = [0.0] * len(OUTCOMES)
    orders = list(permutations(range(len(cards))))
    for order in orders:
        hand = [card_of(up)]
        for i in order:
            hand.append(card_of(cards[i]))
            if len(hand) == 2 and is_pure(hand, split=False):
                break
            if not dealer_must_hit(hand):
                want[outcome_of(hand)] += 1 / len(orders)
                break
    assert list(dealer_masses(up, left)) == pytest.approx(want, abs=1e-12)


def test_a_shoe_that_can_run_out_is_refused() -> None:
    """10-2 (hard 12) against a 2 up with one card left: the player-dealer's hole card takes it,
    and hard 12 against a 2 must hit (Pure 21.5: H) with no card left. There is no exact figure
    for that shoe."""
    with pytest.raises(ValueError, match="can run out"):
        model(PURE).deal(10, 2, 2, counts(c2=1))


@settings(max_examples=60, deadline=None)
@given(
    up=VALUE,
    left=st.lists(st.integers(min_value=0, max_value=12), min_size=9, max_size=9),
    tens=st.integers(min_value=16, max_value=48),
)
def test_dealer_masses_add_up_to_no_pure_R12(up: int, left: list[int], tens: int) -> None:
    """Whatever is left (enough to complete the hand: 16 or more cards worth 10), the
    player-dealer's final hands have the chance that the hole card makes no Pure 21.5."""
    rest = (*left, tens)
    total = sum(rest)
    pure = sum(rest[v - 1] for v in (10 if up == 1 else 1,)) if up in (1, 10) else 0
    masses = dealer_masses(up, rest)
    assert (masses >= 0).all()
    assert float(masses.sum()) == pytest.approx(1 - pure / total, abs=1e-12)


# -- the full shoe ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_six_and_eight_decks_differ_and_the_shares_add_up(game: str) -> None:
    """The exact figure tells the deck counts apart, where the simulation's interval cannot;
    more decks, a higher player-dealer's edge. Win, push and lose add to one."""
    six = base.base_exact(game, 6, "6 to 5")
    eight = base.base_exact(game, 8, "6 to 5")
    assert eight.house_edge > six.house_edge
    assert abs(eight.house_edge - six.house_edge) > 1e-4
    for exact in (six, eight):
        assert sum(exact.share(s) for s in (1, 0, -1)) == pytest.approx(1, abs=1e-12)


def test_three_to_two_is_the_pure_rate_times_point_three_better_R11() -> None:
    """The decisions never depend on what a pure pays, so 3 to 2 beats 6 to 5 by exactly
    0.3 times the chance of a player's Pure 21.5 paid (none against the player-dealer's)."""
    six_five = base.base_exact(PURE, 6, "6 to 5").distribution
    three_two = base.base_exact(PURE, 6, "3 to 2").distribution
    assert three_two[1.5] == pytest.approx(six_five[1.2], abs=1e-15)
    gain = (
        base.base_exact(PURE, 6, "6 to 5").house_edge
        - base.base_exact(PURE, 6, "3 to 2").house_edge
    )
    assert gain == pytest.approx(0.3 * six_five[1.2], abs=1e-12)


def test_shoe_counts_R10() -> None:
    """52 cards a deck, 16 worth 10 (T J Q K); Spanish 48, 12 worth 10 (no pip tens)."""
    assert shoe_counts(PURE, 6) == (24,) * 9 + (96,)
    assert shoe_counts(SPANISH, 8) == (32,) * 9 + (96,)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_the_simulation_interval_holds_the_exact_figure(game: str) -> None:
    """`analyze --wager base` as the CLI runs it (8 decks, 80,000 seeded rounds): the exact
    figure is the headline and the engine simulation's 95% interval holds it."""
    result = base.analyze_base(game, 8)
    check = result["simulation"]
    assert result["method"] == "exact" and check["method"] == "simulation"
    low, high = check["ci95"]
    assert low <= result["house_edge"] <= high
    assert check["exact_inside_ci95"] is True
    assert check["hands"] == base.BASE_HANDS
    assert math.isclose(check["standard_error"], check["sd"] / math.sqrt(base.BASE_HANDS))
    assert result["house_edge"] == base.base_exact(game, 8, "6 to 5").house_edge
