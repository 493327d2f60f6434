"""21.5 side-bet analysis: Match the Dealer and insurance by hand, Red Flex and Buster exact and
simulated, against independent references (R17, R18, R19, R21)."""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest

from tablectl.analysis import blackjack as bj
from tablectl.analysis import blackjack_sim, blackjack_wagers
from tablectl.cli import main
from tablectl.rules.blackjack import match_dealer, paytable
from tablectl_base.cards import DeckKind, deck_of

PURE, SPANISH = bj.PURE_GAME, bj.SPANISH_GAME


# ---------------------------------------------------------------- Match the Dealer (R21)


def test_match_the_dealer_six_decks_exact_by_hand_R21() -> None:
    """Six 48-card decks (the table's own heading,
    003 "Pure Spanish 21.5: Match the Dealer Card Bonus Bet Pay Tables"): N = 288 cards.

    Whatever the up card u, the other 287 cards hold 5 more copies of u (suited matches), 18
    cards of u's rank in the three other suits (unsuited matches) and 287 - 5 - 18 = 264 others.
    The player's two cards are one of C(287, 2) = 41041 pairs:
      2 suited              C(5, 2)  =   10   pays 18   (003 "Pure Spanish 21.5: Table Layout")
      1 suited + 1 unsuited 5 * 18   =   90   pays 13   (line 1976)
      1 suited              5 * 264  = 1320   pays  9   (line 1977)
      2 unsuited            C(18, 2) =  153   pays  8   (line 1978)
      1 unsuited            18 * 264 = 4752   pays  4   (line 1979)
    Hits 10 + 90 + 1320 + 153 + 4752 = 6325; losing pairs 41041 - 6325 = 34716.
    Return 10*18 + 90*13 + 1320*9 + 153*8 + 4752*4 = 180 + 1170 + 11880 + 1224 + 19008 = 33462,
    so the player's expectation is (33462 - 34716) / 41041 = -1254 / 41041: a house edge of
    1254 / 41041 = 3.0555%, hit frequency 6325 / 41041 = 15.411%.
    """
    result = blackjack_wagers.analyze(SPANISH, "match-dealer", None, 6)
    assert result["method"] == "exact"
    assert result["paytable"] == "MATCH-003"
    assert Fraction(result["exact"]["hit_frequency"]) == Fraction(6325, 41041)
    assert Fraction(result["exact"]["house_edge"]) == Fraction(1254, 41041)
    assert result["deals"] == 288 * 41041
    assert result["counts"] == {
        "2-suited": 288 * 10,
        "1-suited-1-unsuited": 288 * 90,
        "1-suited": 288 * 1320,
        "2-unsuited": 288 * 153,
        "1-unsuited": 288 * 4752,
        "no-match": 288 * 34716,
    }
    assert f"{result['house_edge']:.4%}" == "3.0555%"


def test_match_the_dealer_counts_equal_brute_force_on_one_deck_R21() -> None:
    """Every up card and every pair of the other 47 cards of one Spanish deck, one by one."""
    deck = deck_of(DeckKind.SPANISH_48)
    counts: Counter[str] = Counter()
    for i, up in enumerate(deck):
        rest = deck[:i] + deck[i + 1 :]
        for pair in combinations(rest, 2):
            counts[match_dealer(pair, up) or "no-match"] += 1
    # one deck holds no second copy of a card: no suited match is possible
    assert counts["2-suited"] == counts["1-suited"] == counts["1-suited-1-unsuited"] == 0
    assert bj.match_dealer_counts(SPANISH, 1) == {
        c: counts[c] for c in ("1-suited", "1-suited-1-unsuited", "2-suited", "2-unsuited")
    } | {"1-unsuited": counts["1-unsuited"], "no-match": counts["no-match"]}
    assert sum(counts.values()) == 48 * 1081  # 48 up cards times C(47, 2) pairs


# ---------------------------------------------------------------- insurance (R17)


def test_insurance_eight_decks_exact_by_hand_R17() -> None:
    """Ace up: the hole card is one of the 415 other cards of eight decks, 8 * 16 = 128 of them
    bonus cards (000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used").
    Insurance pays 2 to 1 (000 "Pure 21.5 Blackjack: How Each Wager Wins, Loses, or Pushes"):
    expectation (128 * 2 - 287) / 415 = -31 / 415, a house edge of 7.470%."""
    result = blackjack_wagers.analyze(PURE, "insurance", None, 8)
    assert result["method"] == "exact"
    assert Fraction(result["exact"]["hit_frequency"]) == Fraction(128, 415)
    assert Fraction(result["exact"]["house_edge"]) == Fraction(31, 415)


# ---------------------------------------------------------------- the player-dealer's hand


def _composition(decks: int) -> list[int]:
    """Cards of each value 1..10 in a Pure 21.5 shoe: 4 of each of A-9, 16 bonus cards a deck."""
    return [4 * decks] * 9 + [16 * decks]


def _ref_stands(values: list[int]) -> bool:
    """Chart 1B written out independently: stand on hard 17+ and soft 18+, and on a pure."""
    hard = sum(values)
    if len(values) == 2 and sorted(values) == [1, 10]:
        return True
    soft = 1 in values and hard + 10 <= 21
    total = hard + 10 if soft else hard
    return total > 17 or (total == 17 and not soft)


def _ref_bust_cards(decks: int) -> dict[int, Fraction]:
    """Every ordered sequence of card values the player-dealer can draw, one by one."""
    return _ref_bust_cards_of(_composition(decks))


def _ref_bust_cards_of(have: list[int]) -> dict[int, Fraction]:
    """The same for a shoe holding have[v - 1] cards of value v."""
    out: dict[int, Fraction] = {}

    def go(values: list[int], p: Fraction) -> None:
        if len(values) >= 2 and _ref_stands(values):
            if sum(values) > 21:
                out[len(values)] = out.get(len(values), Fraction(0)) + p
            return
        left = sum(have) - len(values)
        for v in range(1, 11):
            k = have[v - 1] - values.count(v)
            if k:
                go([*values, v], p * Fraction(k, left))

    go([], Fraction(1))
    return out


def _ref_red_runs(decks: int) -> dict[int, Fraction]:
    """Every ordered run of red cards from the top, ended by a black card or a complete hand."""
    red = [v // 2 for v in _composition(decks)]
    n = sum(_composition(decks))
    black = n - sum(red)
    out: dict[int, Fraction] = {}

    def go(values: list[int], p: Fraction) -> None:
        size = len(values)
        if size >= 2 and _ref_stands(values):
            out[size] = out.get(size, Fraction(0)) + p
            return
        if size >= 2:
            out[size] = out.get(size, Fraction(0)) + p * Fraction(black, n - size)
        for v in range(1, 11):
            k = red[v - 1] - values.count(v)
            if k:
                go([*values, v], p * Fraction(k, n - size))

    go([], Fraction(1))
    return out


def test_dealer_distribution_equals_sequence_by_sequence_enumeration_R18_R19() -> None:
    """One deck: the multiset recursion against every ordered draw, written independently."""
    dist = bj.dealer_distribution(PURE, 1)
    assert dict(dist.bust_cards) == _ref_bust_cards(1)
    assert dict(dist.red_run) == _ref_red_runs(1)


def test_red_flex_wins_exactly_when_the_first_two_cards_are_red_R18() -> None:
    """R18: the bet wins on any count of 2 or more, i.e. when up card and hole card are red:
    eight decks, 208 red of 416 cards: 208/416 * 207/415 = 207/830."""
    result = bj.exact_full_shoe(PURE, "red-flex", 8, paytable("RFB-02"))
    assert Fraction(result["exact"]["hit_frequency"]) == Fraction(207, 830)
    one_deck = bj.dealer_distribution(PURE, 1)
    assert sum(one_deck.red_run.values()) == Fraction(26, 52) * Fraction(25, 51)


def test_pure_chance_from_the_top_of_one_deck_R10() -> None:
    """An ace and a bonus card in either order: 2 * 4/52 * 16/51 = 32/663."""
    assert bj.dealer_distribution(PURE, 1).pure == Fraction(32, 663)


def test_red_flex_edge_is_the_pay_table_over_the_runs_R18() -> None:
    """RFB-12 over the exact runs: sum of p(n) * pay(n) minus the losing chance."""
    dist = bj.dealer_distribution(PURE, 6)
    # 003 "Pure 21.5 Blackjack 3 to 2: Red Flex Bet"
    pays = {2: 2, 3: 3, 4: 8, 5: 50, 6: 100, 7: 200}
    p8 = sum((p for n, p in dist.red_run.items() if n >= 8), Fraction(0))
    hit = sum(dist.red_run.values(), Fraction(0))
    ev = sum(p * pays[n] for n, p in dist.red_run.items() if n < 8) + p8 * 300 - (1 - hit)
    result = bj.exact_full_shoe(PURE, "red-flex", 6, paytable("RFB-12"))
    assert Fraction(result["exact"]["house_edge"]) == -ev


# ---------------------------------------------------------------- players drawing first

SMALL_SHOE = [2, 2, 2, 1, 1, 1, 1, 3, 1, 6]
"""20 cards: two each of A, 2 and 3, one each of 4-7 and 9, three 8s (so 888 can be dealt), six
worth 10: small enough to enumerate in a second, with busts of up to 8 cards."""


def _player_first_bust_cards(have: list[int]) -> dict[int, float]:
    """Every deal of the shoe `have` to one player and the player-dealer in the documents' order
    (player, up card, player, hole card; 000 "Pure 21.5 Blackjack: Dealing Procedures and Round
    of Play"): a player-dealer pure ends the round (R12); otherwise the player, unless pure, draws
    first by a rule that reads the up card (to 17 against 7 to ace, to 12 against 2 to 6), then
    the player-dealer completes by Chart 1B (R14). The player-dealer's busted hands by size, each
    deal weighed by its chance; floats, the player-dealer's completion memoized on what is left."""

    def take(rem: tuple[int, ...], v: int) -> tuple[tuple[int, ...], float]:
        return (*rem[: v - 1], rem[v - 1] - 1, *rem[v:]), rem[v - 1] / sum(rem)

    def total(values: tuple[int, ...]) -> int:
        hard = sum(values)
        return hard + 10 if 1 in values and hard + 10 <= 21 else hard

    @functools.cache
    def dealer(rem: tuple[int, ...], hand: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
        if _ref_stands(list(hand)):
            return ((len(hand), 1.0),) if sum(hand) > 21 else ()
        out: dict[int, float] = {}
        for v in range(1, 11):
            if rem[v - 1]:
                left, p = take(rem, v)
                for size, q in dealer(left, tuple(sorted((*hand, v)))):
                    out[size] = out.get(size, 0.0) + p * q
        return tuple(out.items())

    busts: dict[int, float] = {}

    def player(rem: tuple[int, ...], hand: tuple[int, ...], up: int, hole: int, p: float) -> None:
        pure = sorted(hand) == [1, 10]  # the player's pure draws nothing
        if not pure and total(hand) < (17 if up in (1, 7, 8, 9, 10) else 12):
            for v in range(1, 11):
                if rem[v - 1]:
                    left, q = take(rem, v)
                    player(left, (*hand, v), up, hole, p * q)
            return
        for size, q in dealer(rem, tuple(sorted((up, hole)))):
            busts[size] = busts.get(size, 0.0) + p * q

    shoe = tuple(have)
    for a in range(1, 11):
        for u in range(1, 11):
            for b in range(1, 11):
                for h in range(1, 11):
                    rem, p = shoe, 1.0
                    for v in (a, u, b, h):
                        if not rem[v - 1]:
                            break
                        rem, q = take(rem, v)
                        p *= q
                    else:
                        if sorted((u, h)) == [1, 10]:
                            continue  # R12: the round ends, no bust
                        player(rem, (a, b), u, h, p)
    return busts


def test_players_drawing_first_leave_the_player_dealers_hand_as_from_the_top_R12_R14_R19() -> None:
    """The argument the exact Red Flex and Buster figures rest on: the player-dealer's
    hand, dealt after a player who draws on the cards seen, busts with each number of cards as
    often as a hand dealt from the top of the same shoe. Two enumerations of every deal, written
    apart: with the player (`_player_first_bust_cards`) and from the top (`_ref_bust_cards_of`)."""
    with_player = _player_first_bust_cards(SMALL_SHOE)
    from_top = _ref_bust_cards_of(SMALL_SHOE)
    assert set(with_player) == set(from_top)
    assert max(from_top) >= 7  # long busts are dealt from this shoe
    for size, p in from_top.items():
        assert with_player[size] == pytest.approx(float(p), rel=1e-12), size


# ---------------------------------------------------------------- simulation


@pytest.mark.parametrize(("wager", "table"), [("red-flex", "RFB-02"), ("buster", "option-1")])
def test_simulation_interval_holds_the_exact_figure_R18_R19(wager: str, table: str) -> None:
    """Seven players drawing before the player-dealer do not move its hand's distribution."""
    result = blackjack_wagers.analyze(PURE, wager, table, 6, hands=60_000, seed=7)
    sim = result["simulation"]
    assert sim["method"] == "simulation"
    assert sim["hands"] == 60_000
    assert sim["players"] == 7
    assert "assumes" in sim
    assert result["method"] == "exact"  # the headline; the simulation its cross-check
    lo, hi = sim["ci95"]
    assert lo <= result["house_edge"] <= hi
    assert sim["exact_inside_ci95"] is True
    lo, hi = sim["hit_frequency_ci95"]
    assert lo <= result["hit_frequency"] <= hi


@pytest.mark.parametrize(("wager", "table"), [("red-flex", "RFB-02"), ("buster", "option-5")])
def test_the_exact_figure_is_the_json_headline_and_the_simulation_its_cross_check_R18_R19(
    wager: str, table: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`analyze --json` leads with the exact figure, as the text does: its figures are
    exact_full_shoe's, and the simulation follows under "simulation" with both 95% intervals."""
    real = blackjack_sim.simulate

    def simulate(game: str, decks: int, hands: int, **kw: Any) -> Any:
        assert hands == blackjack_sim.SIM_HANDS  # the CLI's; 20,000 here to keep the suite quick
        return real(game, decks, 20_000, **{**kw, "workers": 1})

    monkeypatch.setattr(blackjack_sim, "simulate", simulate)
    monkeypatch.setattr(blackjack_sim, "SIM_CHUNK", 5_000)
    argv = ["analyze", "--game", PURE, "--wager", wager, "--decks", "6", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    exact = bj.exact_full_shoe(PURE, wager, 6, paytable(table))
    assert out["method"] == "exact"
    assert out["exact_for"] == "the player-dealer's hand from a full shoe"
    for key in ("hit_frequency", "house_edge", "exact", "probabilities", "assumes"):
        assert out[key] == exact[key], key
    keys = list(out)
    assert keys.index("house_edge") < keys.index("simulation")  # the headline comes first
    assert "exact_full_shoe" not in out and "ci95" not in out  # one figure per place
    sim = out["simulation"]
    assert sim["method"] == "simulation"
    assert (sim["hands"], sim["seed"], sim["players"]) == (20_000, blackjack_sim.SIM_SEED, 7)
    low, high = sim["ci95"]
    assert low <= sim["house_edge"] <= high
    hit_low, hit_high = sim["hit_frequency_ci95"]
    assert hit_low <= sim["hit_frequency"] <= hit_high
    assert sim["exact_inside_ci95"] is (low <= out["house_edge"] <= high)


CROSS_CHECK_HANDS = 100_000
"""Rounds of the reduced cross-check run by the suite (the CLI's are blackjack_sim.SIM_HANDS)."""


@pytest.mark.parametrize("decks", [5, 6, 8])
@pytest.mark.parametrize(("wager", "table"), [("red-flex", "RFB-02"), ("buster", "option-5")])
def test_cross_check_holds_the_exact_figure_or_says_why_R18_R19(
    wager: str, table: str, decks: int
) -> None:
    """Each cross-check either holds the exact house edge in its 95% interval or says
    it does not, how far apart the two are and that the headline is the exact figure. The
    distance is worked here from the interval itself: half its width is 1.96 standard errors."""
    result = blackjack_wagers.analyze(
        PURE, wager, None, decks, hands=CROSS_CHECK_HANDS, seed=blackjack_sim.SIM_SEED
    )
    sim = result["simulation"]
    assert result["paytable"] == table and result["method"] == "exact"
    low, high = sim["ci95"]
    se = (high - low) / (2 * 1.959964)
    z = (sim["house_edge"] - result["house_edge"]) / se
    assert sim["z"] == pytest.approx(z, rel=1e-5)
    assert sim["p_value"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-4)
    inside = low <= result["house_edge"] <= high
    assert sim["exact_inside_ci95"] is inside
    note = sim["note"]
    assert note.startswith("The exact figure is the headline.")
    assert "players draw only on cards already seen" in note
    assert "one sample a round" in note
    if inside:
        assert "inside its 95% interval" in note
    else:
        assert abs(z) > 1.959
        assert f"{abs(z):.2f} standard errors" in note
        assert "leaves the exact figure out" in note and "one run in 20" in note
    # the expected rounds of every paying row: the exact chance times the rounds
    for row, p in result["probabilities"].items():
        assert sim["expected_by_row"][row] == pytest.approx(p * CROSS_CHECK_HANDS)
    assert sum(sim["rounds_by_row"].values()) == round(sim["hit_frequency"] * CROSS_CHECK_HANDS)


def test_the_issue_26_run_is_told_as_what_it_is_R19() -> None:
    """The run of the finding (6 decks, option-5, 1,000,000 rounds, seed 215), as numbers: the
    exact edge 3538468464045816954011/59145560742900234888285 = 5.98264%, the simulated 5.4167%
    with a standard error of 0.275317%. By hand: z = (0.054167 - 0.0598264) / 0.00275317 =
    -2.0556, and the two-sided normal tail beyond 2.0556 is 0.0398: outside the interval
    (|z| > 1.96), 2.06 standard errors below, 4.0% of the time."""
    exact = {
        "house_edge": 0.0598264,
        "probabilities": {"cards-6": 0.0026376, "cards-7": 0.00021444},
    }
    half = 1.959964 * 0.00275317
    check = {
        "house_edge": 0.054167,
        "ci95": [0.054167 - half, 0.054167 + half],
        "standard_error": 0.00275317,
        "hands": 1_000_000,
    }
    out = blackjack_sim.cross_check(exact, check, "buster")
    assert out["exact_inside_ci95"] is False
    assert out["z"] == pytest.approx(-2.0556, abs=1e-4)
    assert out["p_value"] == pytest.approx(0.0398, abs=1e-4)
    # the finding's expected counts: 2,637.6 six-card and 214.4 seven-card busts
    assert out["expected_by_row"] == pytest.approx({"cards-6": 2637.6, "cards-7": 214.44})
    assert "2.06 standard errors below it" in out["note"]
    assert "a difference that large 4.0% of the time" in out["note"]
    assert "every seat's Buster bet is settled on" in out["note"]


def test_simulation_is_seeded_and_the_same_on_any_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blackjack_sim, "SIM_CHUNK", 4_000)
    one = blackjack_sim.simulate(PURE, 2, 12_000, seed=3, workers=1)
    two = blackjack_sim.simulate(PURE, 2, 12_000, seed=3, workers=2)
    assert one == two
    assert blackjack_sim.simulate(PURE, 2, 12_000, seed=4, workers=1) != one
    assert sum(one.red_run.values()) == 12_000


# ---------------------------------------------------------------- refusals and the CLI


@pytest.mark.parametrize(
    ("game", "wager", "table", "decks", "match"),
    [
        (PURE, "base", None, 8, "not an analyzed"),
        (PURE, "match-dealer", None, 8, "not an analyzed"),
        (SPANISH, "red-flex", None, 8, "not an analyzed"),
        # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used"
        (SPANISH, "match-dealer", None, 3, "4 to 8 decks"),
        # 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used"
        (PURE, "buster", None, 9, "1 to 8 decks"),
        (PURE, "buster", "RFB-02", 8, "not a buster table"),
        (PURE, "insurance", "RFB-02", 8, "no pay table"),
        ("blackjack", "buster", None, 8, "not a 21.5 game"),
    ],
)
def test_analyze_refuses_what_the_documents_do_not_have(
    game: str, wager: str, table: str | None, decks: int, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        blackjack_wagers.analyze(game, wager, table, decks, hands=10)


def test_cli_analyze_match_the_dealer(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["analyze", "--game", SPANISH, "--wager", "match-dealer", "--decks", "6", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "exact"
    assert out["hit_frequency"] == pytest.approx(6325 / 41041)
    assert out["house_edge"] == pytest.approx(1254 / 41041)


@pytest.mark.parametrize(
    ("game", "listed"),
    [
        # contract 4 wager ids: 21.5 `base red-flex buster insurance`; Spanish `base match-dealer`
        (PURE, "base, red-flex, buster, insurance"),
        (SPANISH, "base, match-dealer"),
    ],
)
def test_cli_analyze_refusal_lists_the_base_wager_too_contract4(
    game: str, listed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--wager base` is analyzed (simulated, blackjack_base), so a refusal names it with the
    # side bets; the exit is 2 (usage) and nothing goes to stdout
    assert main(["analyze", "--game", game, "--wager", "bogus", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == (
        f"tablectl: 'bogus' is not an analyzed {game} wager: expected one of {listed}"
    )
