"""The 21.5 base game simulated through the engine under the stated strategy, the cross-check of
its exact figure (docs/games/blackjack.md "Base game analysis"; the exact figure's own tests are
tests/analysis/test_blackjack_exact.py).

Stacked shoes give rounds whose moves and money are worked out by hand from the documents
(000 "Pure 21.5 Blackjack: Chart 1A", "Chart 1B", "How Each Wager Wins, Loses, or Pushes",
"Double-Down, Split, and Surrender"; 003 "Pure Spanish 21.5: Card Values and Hand Rankings",
"Chart 1A", "Double-Down, Rescue, Double-Double Down, Split, and Surrender"; R1, R11-R17, R20);
random shoes check that the strategy only ever makes a move the engine offers (it would raise
Rejected otherwise), that each round's money is its settlements', and that the simulation is seeded
and the same on any number of processes.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Iterator
from decimal import Decimal
from typing import TypedDict

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tablectl.analysis import blackjack_base as bj
from tablectl.analysis import blackjack_strategy as strategy
from tablectl.analysis.blackjack import PURE_GAME, SPANISH_GAME, shoe
from tablectl.cli import main
from tablectl.rules.blackjack import hand_total
from tablectl_base.cards import Card, parse_card

PURE, SPANISH = PURE_GAME, SPANISH_GAME
D = Decimal
STAKE = D(5)  # the table minimum of both shipped configs (000 and 003 "$5-$500" schedules)


def stacked(text: str) -> Iterator[Card]:
    """Cards in draw order: player card, up card, player card, hole card, then the draws."""
    return iter([parse_card(c) for c in text.split()])


def play(game: str, text: str, pays: str = "6 to 5") -> bj.BaseRound:
    """One round of the simulation's table dealt from a stacked shoe; every card is used."""
    cards = stacked(text)
    played = bj.play_round(bj.base_engine(game, 8, pays), lambda: next(cards), STAKE)
    assert next(cards, None) is None, "the round should use every stacked card"
    return played


def chosen(played: bj.BaseRound) -> list[str]:
    return [move for _, move in played.moves]


def base_nets(played: bj.BaseRound) -> Decimal:
    return sum((s.net for s in played.result.settlements), D(0))


def test_stake_is_the_shipped_table_minimum_and_the_bank_covers_R1() -> None:
    for game in (PURE, SPANISH):
        assert bj.base_stake(bj.base_engine(game, 6, "6 to 5")) == STAKE
    # 4 hands (R16) doubled three times (R20: 8x) is the most one round can move
    assert bj.BANK_STAKES > 4 * 8


# ---------------------------------------------------------------- hands worked by hand


def test_hard_11_doubles_against_9_and_wins_when_the_player_dealer_busts_R14_R16() -> None:
    """Player 5+6 = hard 11 against a 9: double (000 "Pure 21.5 Blackjack: Double-Down, Split, and
    Surrender", one card): T makes 21. The player-dealer's 9+7 = hard 16 must hit (Chart 1B, 000
    "Pure 21.5 Blackjack: Chart 1B"): the 8 busts it at 24.
    The doubled hand wins 2 units: +10 on a $5 wager, the bank pays 10."""
    played = play(PURE, "5h 9c 6d 7s Ts 8d")
    assert chosen(played) == ["double", "hit"]  # the hit is the double's one card
    assert played.moves[0][0] == ("hit", "double", "surrender")  # hard 11 must hit: no stand
    assert played.net == D(10)
    assert played.bank_change == D(-10)


def test_eights_split_a_split_hand_doubles_both_lose_to_21_R16() -> None:
    """8-8 against a 6: split (000 "Pure 21.5 Blackjack: Double-Down, Split, and Surrender"). Hand
    1: 8+3 = hard 11 against 6, double after the split (line 115 "Doubling-down is permitted after
    splitting"): 9 makes 20. Hand 2: 8+K = hard 18, stand. Player-dealer 6+K = 16 hits: 5 makes 21.
    Hand 1 loses 2 units, hand 2 loses 1: -3 units = -15."""
    played = play(PURE, "8s 6d 8h Kc 3c 9d Ks 5s")
    assert chosen(played) == ["split", "hit", "double", "hit", "hit", "stand"]
    assert played.net == D(-15)
    assert played.bank_change == D(15)


def test_ace_up_insurance_is_declined_and_hard_16_hits_R12_R15_R17() -> None:
    """T+6 = hard 16 against an ace: no insurance (000 "Pure 21.5 Blackjack: How Each Wager Wins,
    Loses, or Pushes"; the offer is closed), the hole card 7 is no Pure 21.5 (R12), so the hand
    hits: 4 makes hard 20, which must stand (Chart 1A, 000 "Pure 21.5 Blackjack: Chart 1A").
    Player-dealer A+7 = soft 18 stands (R14). 20 beats 18: +1 unit."""
    played = play(PURE, "Ts Ad 6h 7c 4s")
    assert chosen(played) == ["hit", "stand"]
    assert played.moves[1][0] == ("stand",)
    assert [s.spot for s in played.result.settlements] == ["base"]  # never insured
    assert played.net == D(5)


@pytest.mark.parametrize(("pays", "net"), [("6 to 5", D(6)), ("3 to 2", D("7.5"))])
def test_player_pure_is_paid_at_the_configured_odds_R11(pays: str, net: Decimal) -> None:
    """A+K is a Pure 21.5 (R10): 6 to 5 on $5 is $6, 3 to 2 is $7.50 (000 "Pure 21.5 Blackjack: Card
    Values and Hand Rankings", 003 "Pure 21.5 Blackjack 3 to 2: Value of the Cards"). The
    player-dealer still completes its hand (5+9 = 14, T busts it; R14)."""
    played = play(PURE, "As 5c Kd 9h Ts", pays)
    assert played.moves == ()
    assert played.net == net


def test_player_dealer_pure_at_the_peek_ends_the_round_R12() -> None:
    """K up, hole A: the peek finds a Pure 21.5 before anyone draws (000 "Pure 21.5 Blackjack: How
    Each Wager Wins, Loses, or Pushes"); the player's 18 loses its wager: -5."""
    played = play(PURE, "9s Kd 9h Ac")
    assert played.moves == ()
    assert played.net == D(-5)


def test_spanish_doubled_12_against_5_stands_R16_R20() -> None:
    """Spanish (003's config: double-double offered). 6+4 = hard 10 against a 5: double (table:
    hard 10 doubles against 2-8); the 2 makes hard 12 and the engine offers stand, double and
    rescue (003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and Surrender"):
    a doubled 12 against 2-6 stands. Player-dealer 5+9 = 14 hits, K busts it: +2 units = +10."""
    played = play(SPANISH, "6s 5d 4h 9c 2c Kh")
    assert chosen(played) == ["double", "hit", "stand"]
    assert played.moves[2][0] == ("stand", "double", "rescue")
    assert played.net == D(10)


def test_spanish_doubled_12_against_7_doubles_again_and_wins_R20() -> None:
    """6+4 = hard 10 against a 7: double; the 2 makes hard 12, which doubles again against 7-8
    (double-double down, 003 "Pure Spanish 21.5: Double-Down, Rescue, Double-Double Down, Split, and
    Surrender": the wager is now 4 units); the 8 makes hard 20, which must stand (Chart 1A, 003
    "Pure Spanish 21.5: Chart 1A": no third double is offered). Player-dealer 7+K = 17 stands (R14).
    20 beats 17: +4 units = +20."""
    played = play(SPANISH, "6s 7d 4h Kc 2c 8s")
    assert chosen(played) == ["double", "hit", "double", "hit", "stand"]
    assert played.moves[4][0] == ("stand", "rescue")
    assert played.net == D(20)
    assert played.bank_change == D(-20)


def test_spanish_doubled_15_against_9_is_rescued_R20() -> None:
    """6+5 = hard 11 against a 9: double; the 4 makes hard 15, which is rescued against 8-A
    (R20: take back the doubled portion, forfeit the rest). The player-dealer still completes
    its hand (R14): 9+7 = 16 hits, the 2 makes 18. The player loses 1 unit: -5."""
    played = play(SPANISH, "6s 9c 5h 7d 4c 2s")
    assert chosen(played) == ["double", "hit", "rescue"]
    assert played.net == D(-5)
    assert played.bank_change == D(5)


# ---------------------------------------------------------------- the stated strategy


@pytest.mark.parametrize(
    ("hand", "up", "legal", "move"),
    [
        # Pure 21.5: the published H17 multi-deck chart (docs/games/blackjack.md)
        ("Ts 6h", "6d", "hit stand surrender", "stand"),  # hard 16 against 2-6
        ("Ts 6h", "7d", "hit stand surrender", "hit"),  # hard 16 against 7 or more
        ("Ts 2h", "Kd", "hit stand surrender", "hit"),  # hard 12 against a bonus card
        ("Ts 2h", "4d", "hit stand surrender", "stand"),  # hard 12 against 4-6
        ("Ts 2h", "3d", "hit stand surrender", "hit"),  # hard 12 against 2-3
        ("9s 3h", "Ad", "hit stand surrender", "hit"),  # against an ace
        ("Ts 7h", "Ad", "hit stand surrender", "stand"),  # hard 17: never surrender
        ("As 6h", "5d", "hit stand double surrender", "double"),  # soft 17 against 3-6
        ("As 6h", "2d", "hit stand double surrender", "hit"),  # soft 17 against 2
        ("As 7h", "2d", "hit stand double surrender", "double"),  # soft 18 against 2: H17 Ds
        ("As 3h 4c", "2d", "hit stand", "stand"),  # Ds without a double: stand
        ("As 7h", "8d", "hit stand double surrender", "stand"),  # soft 18 against 7-8
        ("As 7h", "Td", "hit stand double surrender", "hit"),  # soft 18 against 9-A
        ("As 8h", "6d", "hit stand double surrender", "double"),  # soft 19 against 6: H17
        ("4s 5h", "3d", "hit double surrender", "double"),  # hard 9 against 3-6
        ("4s 5h", "2d", "hit double surrender", "hit"),  # hard 9 against 2
        ("5s 5h", "9d", "hit stand double split surrender", "double"),  # 5-5 is hard 10
        ("5s 5h", "Td", "hit stand double split surrender", "hit"),  # no double against 10
        ("6s 5h", "As", "hit double surrender", "double"),  # hard 11 against an ace: H17
        ("4s 3h 3d", "6d", "hit stand", "hit"),  # hard 10 of three cards: no double, hit
        ("9s 9h", "6d", "hit stand double split surrender", "split"),  # 9-9 against 2-6, 8-9
        ("9s 9h", "7d", "hit stand double split surrender", "stand"),  # 9-9 against 7
        ("9s 9h", "Ad", "hit stand double split surrender", "stand"),  # 9-9 against 10, A
        ("4s 4h", "5d", "hit double split surrender", "split"),  # 4-4 against 5-6
        ("4s 4h", "4d", "hit double split surrender", "hit"),
        ("6s 6h", "2d", "hit stand double split surrender", "split"),  # 6-6 against 2-6
        ("7s 7h", "8d", "hit stand double split surrender", "hit"),  # 7-7 against 2-7 only
        ("8s 8h", "Td", "hit stand double split surrender", "split"),
        ("8s 8h", "Ad", "hit stand double split surrender", "split"),  # no surrender
        ("As Ah", "6d", "hit stand double split surrender", "split"),
        ("Ks Qh", "6d", "stand split surrender", "stand"),  # two bonus cards: never split
        ("8s", "5d", "hit", "hit"),  # a split hand owed its second card
    ],
)
def test_pure_strategy_moves_by_the_table(hand: str, up: str, legal: str, move: str) -> None:
    cards = [parse_card(c) for c in hand.split()]
    assert strategy.base_strategy(cards, parse_card(up), tuple(legal.split())) == move


@pytest.mark.parametrize(
    ("hand", "up", "legal", "move"),
    [
        # Spanish 21.5: derived from 003's rules (48-card deck, player 21 wins, R20)
        ("Ks 2h", "4d", "hit stand double surrender", "hit"),  # hard 12 hits against all
        ("9s 4h", "6d", "hit stand double surrender", "stand"),  # hard 13 stands on 6 only
        ("9s 4h", "5d", "hit stand double surrender", "hit"),
        ("9s 5h", "4d", "hit stand double surrender", "stand"),  # hard 14 against 4-6
        ("2s 3h", "5d", "hit stand double surrender", "double"),  # hard 5 against 5-6
        ("6s 4h", "8d", "hit stand double surrender", "double"),  # hard 10 against 2-8
        ("6s 4h", "9d", "hit stand double surrender", "hit"),
        ("9s 9h", "2d", "hit stand double split surrender", "stand"),  # 9-9 against 2
        ("8s 8h", "Ad", "hit stand double split surrender", "hit"),  # 8-8 against an ace
        ("Js Kh", "6d", "hit stand double split surrender", "stand"),  # equal value, R20
        ("6s 4h 2c", "5d", "stand double rescue", "stand"),  # doubled 12 against 2-6
        ("6s 4h 2c", "7d", "stand double rescue", "double"),  # doubled 12 against 7-8: DD
        ("6s 4h 2c", "7d", "stand rescue", "stand"),  # no double left: stand
        ("6s 5h 4c", "9d", "stand double rescue", "rescue"),  # doubled 15 against 8-A
        ("As 3h 2c", "Kd", "stand double rescue", "double"),  # a doubled soft hand: DD
    ],
)
def test_spanish_strategy_moves_by_the_table_R20(hand: str, up: str, legal: str, move: str) -> None:
    cards = [parse_card(c) for c in hand.split()]
    assert strategy.base_strategy(cards, parse_card(up), tuple(legal.split()), game=SPANISH) == move


@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_table_covers_every_hand_class_R10(game: str) -> None:
    """Hard 4 (2-2) to 21, soft 12 (A-A) to 21, a pair of every value, each against every up
    card (T = any card worth 10, A = an ace), and only the stated codes."""
    table = strategy.STRATEGY_TABLES[game]
    hard = [f"hard {t}" for t in range(4, 22)]
    soft = [f"soft {t}" for t in range(12, 22)]
    pairs = [f"pair {c}" for c in "A23456789T"]
    assert list(table) == hard + soft + pairs
    for row in table.values():
        assert list(row) == ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]
        assert set(row.values()) <= {"H", "S", "D", "Ds", "P"}
    assert list(strategy.AFTER_DOUBLE) == hard + soft
    assert all(set(r.values()) <= {"S", "R", "DD"} for r in strategy.AFTER_DOUBLE.values())
    # P only in the pair rows; a split hand of 10s (two bonus cards) is never split
    assert all("P" not in table[r].values() for r in hard + soft)
    assert set(table["pair T"].values()) == {"S"}


def test_table_text_is_checked_when_parsed() -> None:
    rows = ("hard 4",)
    head = "2 3 4 5 6 7 8 9 T A\n"
    assert (
        strategy.parse_table(head + "hard 4 " + "H " * 10, rows, strategy.CODES)["hard 4"]["A"]
        == "H"
    )
    for bad in ("hard 4 " + "H " * 9, "hard 4 " + "X " * 10, "hard 5 " + "H " * 10):
        with pytest.raises(ValueError):
            strategy.parse_table(head + bad, rows, strategy.CODES)
    with pytest.raises(ValueError, match="columns"):
        strategy.parse_table("A 2 3\n", rows, strategy.CODES)


VALUES = "A23456789T"


def chart_legal(cards: list[Card], game: str) -> tuple[str, ...]:
    """The actions Chart 1A leaves a hand's first two cards, worked from R15
    (000 "Pure 21.5 Blackjack: Chart 1A", 003 "Pure Spanish 21.5: Chart 1A"): no hit when it must
    stand, no stand when it must hit."""
    hard_total = sum(
        1 if c.rank == "A" else min(10, "A23456789TJQK".index(c.rank) + 1) for c in cards
    )
    soft = any(c.rank == "A" for c in cards) and hard_total <= 11
    must_stand = not soft and hard_total >= (19 if game == PURE else 17)
    must_hit = game == PURE and not soft and hard_total <= 11
    out = [] if must_stand else ["hit"]
    if not must_hit:
        out.append("stand")
    if not must_stand:
        out.append("double")
    return (*out, "split", "surrender")


@given(
    st.sampled_from([PURE, SPANISH]),
    st.lists(st.sampled_from(VALUES), min_size=2, max_size=6),
    st.sampled_from(VALUES),
    st.booleans(),
)
def test_chart_1a_always_overrides_the_table_R15(
    game: str, values: list[str], up: str, two_offered: bool
) -> None:
    """Whatever the table says, a hand Chart 1A makes stand is stood and one it makes hit is
    hit (or doubled): the strategy picks from what the chart leaves. A three-or-more-card hand
    is offered only hit and stand (R16), a two-card hand also double, split, surrender."""
    cards = [parse_card(f"{v}s") for v in values]
    hard_total = sum(1 if v == "A" else 10 if v == "T" else int(v) for v in values)
    assume(hard_total <= 21)
    if game == SPANISH:
        cards = [parse_card("Ks") if c.rank == "T" else c for c in cards]
    legal = chart_legal(cards, game)
    if len(cards) > 2 or not two_offered:
        legal = tuple(m for m in legal if m in ("hit", "stand"))
    move = strategy.base_strategy(
        cards, parse_card("Kh" if up == "T" else f"{up}h"), legal, game=game
    )
    assert move in legal
    soft = "A" in values and hard_total <= 11
    if not soft and hard_total >= (19 if game == PURE else 17):
        assert move in ("stand", "split", "surrender")
        assert move == "stand" or len(cards) == 2  # never a hit
    if game == PURE and not soft and hard_total <= 11:
        assert move in ("hit", "double", "split")


DRAWN = [parse_card(c) for c in ("As", "2h", "5d", "6c", "7s", "8h", "9d", "Kc")]
UPS = [parse_card(c) for c in ("As", "2h", "6d", "7c", "Kh")]
MOVES = ["hit", "stand", "double", "split", "surrender", "rescue"]


@given(
    st.lists(st.sampled_from(DRAWN), min_size=2, max_size=5),
    st.sampled_from(UPS),
    st.sets(st.sampled_from(MOVES), min_size=1),
    st.sampled_from([PURE, SPANISH]),
)
def test_strategy_picks_only_offered_moves(
    cards: list[Card], up: Card, offered: set[str], game: str
) -> None:
    """Whatever is offered, the move is one of it; only a choice without hit or stand (which
    the engine never offers an open hand) or a busted hand (which never decides) may have
    none."""
    legal = tuple(sorted(offered))
    try:
        move = strategy.base_strategy(cards, up, legal, game=game)
    except ValueError:
        busted = hand_total(cards).value > 21
        assert len(legal) > 1 and (busted or not {"hit", "stand"} & offered)
        return
    assert move in legal


# ---------------------------------------------------------------- random shoes


@pytest.fixture(scope="module")
def rounds() -> dict[str, list[bj.BaseRound]]:
    """1,000 rounds of each game from seeded random shoes."""
    return {
        PURE: list(bj.base_rounds(PURE, 6, "6 to 5", 1_000, "test/pure")),
        SPANISH: list(bj.base_rounds(SPANISH, 6, "6 to 5", 1_000, "test/spanish")),
    }


@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_every_move_is_one_the_engine_offers_R15_R16(
    rounds: dict[str, list[bj.BaseRound]], game: str
) -> None:
    """Every round ran to its result (a refused move raises Rejected), every move was in the
    engine's legal actions, and the strategy's every kind of move occurred."""
    made = set()
    for played in rounds[game]:
        for legal, move in played.moves:
            assert move in legal
            made.add(move)
    # Spanish also rescues a doubled hand (R20, AFTER_DOUBLE); Pure has no rescue
    extra = {"rescue"} if game == SPANISH else set()
    assert made == {"hit", "stand", "double", "split"} | extra


@pytest.mark.parametrize("game", [PURE, SPANISH])
def test_each_rounds_money_is_its_settlements_R1(
    rounds: dict[str, list[bj.BaseRound]], game: str
) -> None:
    """The round's net is the sum of its settlement rows' nets, all on the base wager, and the
    bank's change is minus it (R1, contract 3); no fee enters it (R4: fees apart). The bank
    always covers: no wager is paid in part or returned (R1)."""
    for played in rounds[game]:
        assert {s.spot for s in played.result.settlements} == {"base"}
        assert played.net == base_nets(played) == -played.bank_change
        assert all(s.status in ("win", "lose", "push") for s in played.result.settlements)


@given(
    st.integers(0, 10**9),
    st.sampled_from([(PURE, "6 to 5"), (PURE, "3 to 2"), (SPANISH, "6 to 5")]),
)
@settings(max_examples=60, deadline=None)
def test_any_shoe_plays_legally_and_conserves_money_R1(seed: int, variant: tuple[str, str]) -> None:
    game, pays = variant
    (played,) = bj.base_rounds(game, 4, pays, 1, str(seed))
    assert all(move in legal for legal, move in played.moves)
    assert played.net == base_nets(played) == -played.bank_change


def test_simulation_is_seeded_and_the_same_on_any_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bj, "BASE_CHUNK", 200)
    one = bj.simulate_base(PURE, 6, 800, seed=3, workers=1)
    two = bj.simulate_base(PURE, 6, 800, seed=3, workers=2)
    assert one == two
    assert one.rounds == one.wins + one.pushes + one.losses == 800
    assert bj.simulate_base(PURE, 6, 800, seed=4, workers=1) != one


def test_tally_is_the_sum_of_the_rounds() -> None:
    """One chunk: the tally's money is the rounds' money, round by round."""
    tally = bj.simulate_base(SPANISH, 6, 300, seed=11, workers=1)
    played = list(bj.base_rounds(SPANISH, 6, "6 to 5", 300, "11/0"))
    assert tally.net == sum((p.net for p in played), D(0))
    assert tally.squares == sum((p.net * p.net for p in played), D(0))
    assert tally.wins == sum(p.net > 0 for p in played)
    assert tally.pushes == sum(p.net == 0 for p in played)


def test_figures_are_the_mean_and_normal_interval_of_the_rounds() -> None:
    """house_edge = minus the mean net per unit; ci95 = it +- 1.96 sample sd / sqrt(n)."""
    result = bj.analyze_base(PURE, 6, pure_pays="3 to 2", hands=500, seed=5, workers=1)
    check = result["simulation"]
    units = [float(p.net / STAKE) for p in bj.base_rounds(PURE, 6, "3 to 2", 500, "5/0")]
    edge = -statistics.fmean(units)
    sd = statistics.stdev(units)
    half = 1.959963984540054 * sd / math.sqrt(500)
    assert check["house_edge"] == pytest.approx(edge)
    assert check["ci95"] == pytest.approx([edge - half, edge + half])
    assert check["hit_frequency"] == sum(u > 0 for u in units) / 500
    assert check["standard_error"] == pytest.approx(sd / math.sqrt(500))
    assert check["z"] == pytest.approx((edge - result["house_edge"]) / (sd / math.sqrt(500)))
    assert check["exact_inside_ci95"] == (edge - half <= result["house_edge"] <= edge + half)
    assert check["method"] == "simulation"
    assert result["method"] == "exact"
    assert result["house_edge"] == bj.base_exact(PURE, 6, "3 to 2").house_edge
    assert result["wager"] == "base"
    assert (check["hands"], check["seed"], result["decks"]) == (500, 5, 6)
    assert result["pure_pays"] == "3 to 2"
    assert "Chart 1A" in result["assumes"] and result["strategy"] in result["assumes"]


class Terms(TypedDict, total=False):
    """The keyword arguments of `analyze_base` that name the terms of the game."""

    pure_pays: str
    paytable: str


@pytest.mark.parametrize(
    ("game", "decks", "extra", "match"),
    [
        # 003 "Pure Spanish 21.5: Description of the Deck and Number of Decks Used"
        (SPANISH, 3, {}, "4 to 8 decks"),
        # 000 "Pure 21.5 Blackjack: Description of the Deck and Number of Decks Used"
        (PURE, 9, {}, "1 to 8 decks"),
        # 003 "Pure Spanish 21.5: Card Values and Hand Rankings"
        (SPANISH, 6, {"pure_pays": "3 to 2"}, "6 to 5"),
        (PURE, 6, {"pure_pays": "2 to 1"}, "R11"),
        (PURE, 6, {"paytable": "RFB-02"}, "no pay table"),
        ("blackjack", 6, {}, "not a 21.5 game"),
    ],
)
def test_analyze_base_refuses_what_the_documents_do_not_have(
    game: str, decks: int, extra: Terms, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        bj.analyze_base(game, decks, hands=10, workers=1, **extra)


def test_cli_analyze_base(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bj, "BASE_HANDS", 200)
    argv = ["analyze", "--game", PURE, "--wager", "base", "--decks", "6"]
    assert main([*argv, "--pure-pays", "3 to 2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["method"], out["pure_pays"]) == ("exact", "3 to 2")
    assert (out["simulation"]["method"], out["simulation"]["hands"]) == ("simulation", 200)
    lo, hi = out["simulation"]["ci95"]
    assert lo < out["simulation"]["house_edge"] < hi
    assert out["house_edge"] == bj.base_exact(PURE, 6, "3 to 2").house_edge
    assert out["exact_for"] == "the stated strategy from a full shoe"
    assert "resplit" in out["approximation"]  # the split approximation is stated (R16)
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "pure pays 6 to 5" in text and "(exact: the stated strategy from a full shoe)" in text
    assert "cross-check:" in text and "200 rounds" in text
    assert main([*argv, "--paytable", "RFB-02"]) == 2
    assert main(["analyze", "--game", PURE, "--wager", "buster", "--pure-pays", "3 to 2"]) == 2


def test_fresh_shoe_deals_each_card_at_most_once_per_round() -> None:
    fresh = bj.FreshShoe(shoe(PURE, 1), random.Random(1))
    for _ in range(3):
        fresh.shuffle()
        drawn = [fresh.draw() for _ in range(52)]
        assert sorted(drawn) == sorted(shoe(PURE, 1))
        with pytest.raises(RuntimeError, match="ran out"):
            fresh.draw()
