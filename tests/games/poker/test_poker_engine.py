"""The poker hand engine, hands worked by hand from 003 and 004.

Each test plays a hand through `PokerEngine.apply` from console inputs (`seat.take`, `hand.start`,
`hole.cards`, `decision`, `board.cards`, `hole.discard`, `round.void`) and checks the settled
hand's record against amounts worked out in the comments.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tablectl.game_records import GameRecord, PokerHandSettled, StateChanged
from tablectl.games.base import Engine, Rejected
from tablectl.games.poker.engine import FIRST_BUTTON, PokerEngine
from tablectl.games.poker.flop import DISCARD_RULE, ONE_DECK
from tablectl.games.poker.seats import SEATING
from tablectl.games.poker.state import PokerSettings, PokerState, Variant
from tablectl.render import render
from tablectl.rules.betting import (
    ACTION_ORDER,
    ROUND_OF_PLAY,
    SPREAD_ROUND_CAP,
    Structure,
)
from tablectl.rules.betting_structures import FixedLimit, NoLimit, SpreadLimit
from tablectl.rules.poker_fees import PokerSchedule, parse_poker_schedules
from tablectl.rules.pots import OddChipRule
from tablectl_base.events import parse_event

D = Decimal
SCHEDULES = Path(__file__).resolve().parents[3] / "config" / "schedules" / "poker"


@cache
def posted(name: str) -> dict[int, PokerSchedule]:
    """A shipped poker schedule file, parsed."""
    return parse_poker_schedules((SCHEDULES / name).read_text(encoding="utf-8"), name)


def engine(
    variant: Variant = "texas-holdem",
    structure: Structure | None = None,
    *,
    blinds: tuple[str, str] = ("2", "4"),
    document: OddChipRule = "004",
    schedule: PokerSchedule | None = None,
    chip: str = "1",
) -> PokerEngine:
    """An engine with the given table settings ($4-$8 fixed limit, $2/$4 blinds by default)."""
    return PokerEngine(
        PokerSettings(
            variant=variant,
            structure=structure or FixedLimit(D("4"), D("8")),
            small_blind=D(blinds[0]),
            big_blind=D(blinds[1]),
            chip=D(chip),
            document=document,
            schedule=schedule,
        )
    )


def play(
    eng: PokerEngine, state: PokerState, *events: dict[str, Any]
) -> tuple[PokerState, list[GameRecord]]:
    """Apply each event in turn; every record they produced."""
    out: list[GameRecord] = []
    for i, ev in enumerate(events):
        state, records = eng.apply(state, parse_event(ev), f"t{i}")
        out += records
    return state, out


def seated(eng: PokerEngine, stacks: dict[int, str]) -> PokerState:
    """A table with players seated with these stacks."""
    state, _ = play(
        eng,
        eng.initial(),
        *({"type": "seat.take", "seat": s, "stack": v} for s, v in stacks.items()),
    )
    return state


def act(seat: int, action: str, amount: str | None = None) -> dict[str, Any]:
    """A `decision` of the betting."""
    ev: dict[str, Any] = {"type": "decision", "seat": seat, "action": action}
    if amount is not None:
        ev["amount"] = amount
    return ev


def hole(seat: int, cards: str) -> dict[str, Any]:
    """A seat's hole cards."""
    return {"type": "hole.cards", "seat": seat, "cards": cards.split()}


def board(cards: str) -> dict[str, Any]:
    """Board cards."""
    return {"type": "board.cards", "cards": cards.split()}


def settled(records: list[GameRecord]) -> PokerHandSettled:
    """The one settled hand among `records`."""
    (result,) = [r for r in records if isinstance(r, PokerHandSettled)]
    return result


def stacks(state: PokerState) -> dict[int, Decimal]:
    """Each seat's stack."""
    return {s.seat: s.stack for s in state.seats}


def payload_bytes(records: list[GameRecord]) -> bytes:
    """Every rendered message's topic and payload, as published bytes."""
    return b"\n".join(
        json.dumps([m.topic, m.payload]).encode() for m in (render(r) for r in records)
    )


def test_limit_holdem_hand_to_showdown_with_fee_004_texas_holdem_collection_fee_schedule() -> None:
    # 004 "Texas Hold'em: Collection Fee Schedule" option 2 ($4-$8, "5 or less", $3), taken from
    # the main pot after the flop (004 "Collection Procedures" ("Poker Games"); R44). Three
    # players with $100, button seat 1, small blind seat 2 ($2), big blind seat 3 ($4).
    # Preflop: 1 calls 4, 2 completes (+2), 3 checks: pot 12. Flop: 2 bets 4, 3 calls, 1 folds:
    # pot 20. Turn (big bet): 2 bets 8, 3 calls: pot 36. River: check, check.
    # Showdown: seat 2 As Ks pairs the board's ace; seat 3 Qd Qc: a pair of queens. Seat 2 takes
    # 36 - 3 = 33. Stacks: 1: 100-4 = 96; 2: 100-16+33 = 117; 3: 100-16 = 84; + $3 fee = 300.
    eng = engine(schedule=posted("texas-holdem-004.toml")[2])
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "8h 6d"),
        hole(2, "As Ks"),
        hole(3, "Qd Qc"),
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("Ah 7c 2d"),
        act(2, "bet", "4"),
        act(3, "call"),
        act(1, "fold"),
        board("9s"),
        act(2, "bet", "8"),
        act(3, "call"),
        board("3h"),
        act(2, "check"),
        act(3, "check"),
    )
    result = settled(records)
    assert result.showdown and result.fee == D("3") and not result.fee_modified
    assert [(p.amount, p.high, p.paid) for p in result.pots] == [(D("33"), (2,), ((2, D("33")),))]
    assert stacks(state) == {1: D("96"), 2: D("117"), 3: D("84")}
    assert state.collected == D("3") and state.hand is None
    assert [h.seat for h in result.shown] == [2]  # seat 3's losing hand is mucked unshown (R46)


@pytest.mark.parametrize(
    ("variant", "document", "schedule", "fee", "seat1"),
    [
        # 003 "Crazy Pineapple High-Low Split: Collection Fee Schedule" option 2: "If the hand
        # does not reach the flop a $1 collection, referred to as the Modified fee".
        ("crazy-pineapple-hi-lo", "003", ("crazy-pineapple-003.toml", 2), "1", "103"),
        # 004 Texas Hold'em option 6 prints no modified fee: nothing is taken (R44).
        ("texas-holdem", "004", ("texas-holdem-004.toml", 6), "0", "104"),
    ],
)
def test_hand_won_by_folds_before_the_flop_pays_the_modified_fee_or_none_R44(
    variant: Variant, document: OddChipRule, schedule: tuple[str, int], fee: str, seat1: str
) -> None:
    # $3-$6 limit, blinds $1 (seat 2) and $3 (seat 3), button seat 1. Seat 1 raises to 6; both
    # blinds fold. Chips in: 1: 6, 2: 1, 3: 3. The main pot is 1+1+1 (level 1) + 2+2 (level 3)
    # = 7; seat 1's last 3 were never called and come back. 003: 7 - $1 = 6 won, seat 1
    # 100-6+6+3 = 103; 004: 7 won, 104. Nothing is shown (R46).
    eng = engine(
        variant,
        FixedLimit(D("3"), D("6")),
        blinds=("1", "3"),
        document=document,
        schedule=posted(schedule[0])[schedule[1]],
    )
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        act(1, "raise", "6"),
        act(2, "fold"),
        act(3, "fold"),
    )
    result = settled(records)
    assert not result.showdown and result.shown == ()
    # 003 takes its $1 modified fee; 004 prints none, so nothing is taken and nothing modified
    assert result.fee == D(fee) and result.fee_modified == (fee != "0")
    assert result.returned == ((1, D("3")),)
    assert stacks(state) == {1: D(seat1), 2: D("99"), 3: D("97")}
    assert sum(stacks(state).values()) + state.collected == D("300")


def test_three_all_ins_make_side_pots_each_awarded_on_its_own_R42() -> None:
    # No-limit Hold'em, blinds $1/$2, button seat 1; seat 2 small blind, seat 3 big blind.
    # Stacks 1: 200, 2: 50, 3: 100, 4: 25. Seat 4 is all-in for 25, seat 1 calls, seat 2 is
    # all-in for 50, seat 3 all-in for 100, seat 1 calls 100. Chips in 100/50/100/25:
    # main pot 25 x 4 = 100 (all four), side pot 1 (50-25) x 3 = 75 (1, 2, 3), side pot 2
    # (100-50) x 2 = 100 (1, 3). Board 2c 7d 9h Jc 4s: seat 4's aces win the main pot, seat 2's
    # kings side pot 1, seat 3's queens beat seat 1's jack high for side pot 2.
    # Stacks after: 1: 100, 2: 75, 3: 100, 4: 100 (= 375 as before).
    eng = engine(structure=NoLimit(D("2")), blinds=("1", "2"))
    state = seated(eng, {1: "200", 2: "50", 3: "100", 4: "25"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "3h 5h"),
        hole(2, "Ks Kd"),
        hole(3, "Qs Qd"),
        hole(4, "As Ad"),
        act(4, "all-in"),
        act(1, "call"),
        act(2, "all-in"),
        act(3, "all-in"),
        act(1, "call"),
        board("2c 7d 9h"),
        board("Jc"),
        board("4s"),
    )
    result = settled(records)
    assert [(p.amount, p.eligible, p.high) for p in result.pots] == [
        (D("100"), (1, 2, 3, 4), (4,)),
        (D("75"), (1, 2, 3), (2,)),
        (D("100"), (1, 3), (3,)),
    ]
    assert stacks(state) == {1: D("100"), 2: D("75"), 3: D("100"), 4: D("100")}
    assert [h.seat for h in result.shown] == [2, 3, 4]  # button order; seat 1 lost: unshown


@pytest.mark.parametrize(
    ("document", "seat1", "seat3"),
    [
        # 003 "Omaha (High-Low Split)" 5: the halving's odd chip goes to the high half (R41):
        # the $5 pot halves $3 high (seat 1) and $2 low (seat 3).
        ("003", "101", "100"),
        # 004 "Omaha High/Low Split: How The Pot Is Awarded": the odd chip to the winner closest
        # to the button's left (R41). The button is seat 1, so seat 3 is closer: $3 low, $2 high.
        ("004", "100", "101"),
    ],
)
def test_odd_chip_of_a_split_pot_by_each_documents_rule_R41(
    document: OddChipRule, seat1: str, seat3: str
) -> None:
    # Omaha hi-lo $2-$4, blinds $1 (seat 2) and $2 (seat 3), $1 chips, button seat 1. Seat 1
    # calls 2, seat 2 folds, seat 3 checks, then checks to the river: pot 2+1+2 = $5.
    # Board 2c 5d 6h Kc Ks. Seat 1 Kd Kh Qs Qc: four kings (Kd Kh + Kc Ks 6h), no low.
    # Seat 3 Ah 3d 7s 8s: low 6-5-3-2-A (Ah 3d + 2c 5d 6h), high only a pair of kings.
    eng = engine("omaha-hi-lo", FixedLimit(D("2"), D("4")), blinds=("1", "2"), document=document)
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    checks = [act(3, "check"), act(1, "check")]
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "Kd Kh Qs Qc"),
        hole(2, "Jd Jh Td Th"),
        hole(3, "Ah 3d 7s 8s"),
        act(1, "call"),
        act(2, "fold"),
        act(3, "check"),
        board("2c 5d 6h"),
        *checks,
        board("Kc"),
        *checks,
        board("Ks"),
        *checks,
    )
    (pot,) = settled(records).pots
    assert (pot.amount, pot.high, pot.low) == (D("5"), (1,), (3,))
    assert stacks(state) == {1: D(seat1), 2: D("99"), 3: D(seat3)}


def test_quartered_omaha_hi_lo_pot_004_omaha_high_low_how_the_pot_is_awarded() -> None:
    # 004 "Omaha High/Low Split: How The Pot Is Awarded": half to the best high, the low half
    # split equally among the tied lows. $4-$8, blinds $2/$4, button seat 1: 1 calls, 2
    # completes, 3 checks, then checks to the river: pot $12. Board 2c 3d 7h Kc Qs.
    # Seat 1 Kd Kh 8s 8c: three kings, no low (two hole cards from K K 8 8 make none).
    # Seats 2 (Ah 4s Jd Jh) and 3 (As 4d Ts Td) both make 7-4-3-2-A. High $6 to seat 1; the
    # low $6 quartered: $3 each. Stacks: 1: 96+6 = 102, 2 and 3: 96+3 = 99.
    eng = engine("omaha-hi-lo")
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    checks = [act(2, "check"), act(3, "check"), act(1, "check")]
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "Kd Kh 8s 8c"),
        hole(2, "Ah 4s Jd Jh"),
        hole(3, "As 4d Ts Td"),
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("2c 3d 7h"),
        *checks,
        board("Kc"),
        *checks,
        board("Qs"),
        *checks,
    )
    (pot,) = settled(records).pots
    assert (pot.high, pot.low) == ((1,), (2, 3))
    assert pot.paid == ((2, D("3")), (3, D("3")), (1, D("6")))
    assert stacks(state) == {1: D("102"), 2: D("99"), 3: D("99")}


def test_crazy_pineapple_with_no_qualifying_9_low_pays_the_high_hand_the_whole_pot_003() -> None:
    # 003 "Crazy Pineapple High-Low Split: How Each Wager Wins, Loses, or Pushes": with no
    # 9-or-better low the high hand takes the whole pot (R42). $3-$6, blinds $1/$3, option 2
    # ($2 for 2-4 players once the flop is dealt). Seat 1 calls 3, 2 completes, 3 checks: pot
    # $9. Each discards after the flop (003 "... Dealing Procedures and Round of Play").
    # Board Kc Qd Jh 9s 9c holds one low card (9): no hand makes five low cards.
    # Seat 1 keeps As Ad: aces and nines; seat 2 keeps 3h 4h, seat 3 keeps Ac 7d: nines only.
    # Seat 1 takes 9 - 2 = 7: 100-3+7 = 104; seats 2 and 3: 97; + $2 = 300.
    eng = engine(
        "crazy-pineapple-hi-lo",
        FixedLimit(D("3"), D("6")),
        blinds=("1", "3"),
        document="003",
        schedule=posted("crazy-pineapple-003.toml")[2],
    )
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    checks = [act(2, "check"), act(3, "check"), act(1, "check")]
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "As Ad 2h"),
        hole(2, "3h 4h 5h"),
        hole(3, "Ac 8d 7d"),
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("Kc Qd Jh"),
        {"type": "hole.discard", "seat": 2, "card": "5h"},
        {"type": "hole.discard", "seat": 3, "card": "8d"},
        {"type": "hole.discard", "seat": 1, "card": "2h"},
        *checks,
        board("9s"),
        *checks,
        board("9c"),
        *checks,
    )
    result = settled(records)
    (pot,) = result.pots
    assert (pot.amount, pot.high, pot.low) == (D("7"), (1,), ())
    assert result.fee == D("2")
    assert stacks(state) == {1: D("104"), 2: D("97"), 3: D("97")}
    assert result.shown[0].cards == ("As", "Ad")  # the two kept, not the discard


def test_crazy_pineapple_betting_waits_for_every_discard_003_dealing_procedures() -> None:
    # 003 "Crazy Pineapple High-Low Split: Dealing Procedures and Round of Play": "Once all
    # active players have discarded one card ... the second round of betting will occur".
    eng = engine("crazy-pineapple-hi-lo", FixedLimit(D("3"), D("6")), blinds=("1", "3"))
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, _ = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(2, "3h 4h 5h"),
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("Kc Qd Jh"),
    )
    with pytest.raises(Rejected) as e:
        eng.apply(state, parse_event(act(2, "check")), "t")
    assert e.value.rule == DISCARD_RULE
    with pytest.raises(Rejected) as e:  # seat 1's hole cards are not in: nothing to discard
        eng.apply(state, parse_event({"type": "hole.discard", "seat": 1, "card": "2h"}), "t")
    assert e.value.rule == DISCARD_RULE
    assert eng.state_view(state).phase == "discard"


def test_spread_limit_round_capped_at_200_per_seat_R43_004_collection_procedures() -> None:
    # R43, 004 "Collection Procedures" ("Poker Games"): "a wager may not exceed $200 per betting
    # round" at $4-$200 spread limit; no seat puts more than $200 into one round, an all-in
    # included. Blinds $2/$4, button seat 1, stacks $500. Seat 1 raises to 50 (a raise of 46).
    # Seat 2 may raise to at least 50 + 46 = 96 and, within the spread, to 50 + 200 = 250, but
    # the round cap stops it at 200 in this round: not 250, and no all-in for 500.
    eng = engine(
        structure=SpreadLimit(D("4"), D("200"), round_cap=D("200")),
        schedule=posted("texas-holdem-004.toml")[8],
    )
    state = seated(eng, {1: "500", 2: "500", 3: "500"})
    state, _ = play(eng, state, {"type": "hand.start", "button": 1}, act(1, "raise", "50"))
    view = eng.state_view(state).view["hand"]
    assert isinstance(view, dict) and view["turn"] == 2
    assert (view["min_to"], view["max_to"]) == ("96.00", "200.00")
    for refused in (act(2, "raise", "250"), act(2, "all-in")):
        with pytest.raises(Rejected) as e:
            eng.apply(state, parse_event(refused), "t")
        assert e.value.rule == SPREAD_ROUND_CAP
    state, _ = play(eng, state, act(2, "raise", "200"))
    assert state.hand is not None and state.hand.betting.player(2).in_round == D("200")


def test_button_moves_to_the_next_seated_player_each_hand_004_action_and_distribution() -> None:
    # 004 "Texas Hold'em: Action and Distribution of Cards": the button rotates clockwise after
    # each round of play; the small and big blinds are the two seats on its left. The first
    # hand names the button (004 "Omaha High/Low Split: Dealing Procedures and Round of Play":
    # the highest card by suit). Seats 1, 3, 5: button 3 (blinds 5 and 1), then 5 (blinds 1
    # and 3); seat 4 sits down, so then 1 (blinds 3, 4).
    eng = engine()
    state = seated(eng, {1: "100", 3: "100", 5: "100"})
    with pytest.raises(Rejected) as e:
        eng.apply(state, parse_event({"type": "hand.start"}), "t")
    assert e.value.rule == FIRST_BUTTON

    def fold_out(state: PokerState) -> PokerState:
        assert state.hand is not None
        while state.hand is not None:
            turn = state.hand.betting.turn
            assert turn is not None
            state, _ = play(eng, state, act(turn, "fold"))
        return state

    state, _ = play(eng, state, {"type": "hand.start", "button": 3})
    assert state.hand is not None and state.hand.order == (5, 1, 3)
    assert [a.seat for a in state.hand.betting.actions] == [5, 1]  # small, big blind
    state = fold_out(state)
    state, _ = play(eng, state, {"type": "hand.start"})
    assert state.button == 5 and state.hand is not None and state.hand.order == (1, 3, 5)
    state = fold_out(state)
    state, _ = play(eng, state, {"type": "seat.take", "seat": 4, "stack": "100"})
    state, _ = play(eng, state, {"type": "hand.start"})
    assert state.button == 1 and state.hand is not None
    assert [a.seat for a in state.hand.betting.actions] == [3, 4]
    state = fold_out(state)
    with pytest.raises(Rejected) as e:  # the button is not named again
        eng.apply(state, parse_event({"type": "hand.start", "button": 4}), "t")
    assert e.value.rule == ACTION_ORDER


def test_misdeal_returns_every_chip_and_keeps_the_button_round_void() -> None:
    # `round.void` (docs/events.md; the floor's misdeal, e.g. 003 "Lowball" rule 13): the hand
    # is void, every chip put in comes back, no fee, and the hand is dealt again from the same
    # button. Chips in before the void: 1: 8, 2: 8, 3: 8 (flop bet called).
    eng = engine(schedule=posted("texas-holdem-004.toml")[2])
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("Ah 7c 2d"),
        act(2, "bet", "4"),
        act(3, "call"),
        act(1, "call"),
        {"type": "round.void", "reason": "two cards exposed"},
    )
    result = settled(records)
    assert result.void and result.reason == "two cards exposed" and result.fee == 0
    assert result.returned == ((2, D("8")), (3, D("8")), (1, D("8")))
    assert stacks(state) == {1: D("100"), 2: D("100"), 3: D("100")}
    assert state.button is None and state.collected == 0
    assert render(result).payload["void"] is True
    state, _ = play(eng, state, {"type": "hand.start", "button": 1})
    assert state.button == 1
    with pytest.raises(Rejected):
        eng.void(eng.initial(), "misdeal", "t")


def test_no_hole_card_in_any_rendered_payload_R46() -> None:
    # R46: hole cards are never published live; at the showdown only the hands shown are, and a
    # losing hand thrown away unshown is not. Seat 1 folds (Jd Jh), seat 3 loses (Qd Qc), seat
    # 2 wins with As Ks, shown in round/result only.
    eng = engine()
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "Jd Jh"),
        hole(2, "As Ks"),
        hole(3, "Qd Qc"),
        act(1, "fold"),
        act(2, "call"),
        act(3, "check"),
        board("Ah 7c 2d"),
        act(2, "check"),
        act(3, "check"),
        board("9s"),
        act(2, "check"),
        act(3, "check"),
        board("3h"),
        act(2, "check"),
        act(3, "check"),
    )
    published = payload_bytes(records)
    for card in ("Jd", "Jh", "Qd", "Qc"):
        assert card.encode() not in published
    before_result = payload_bytes([r for r in records if not isinstance(r, PokerHandSettled)])
    assert b"As" not in before_result and b"Ks" not in before_result
    assert b'"cards": ["As", "Ks"]' in payload_bytes([settled(records)])


def test_refusals_name_their_rule() -> None:
    # Out of turn (004 "Texas Hold'em: Action and Distribution of Cards"); the flop before the
    # preflop betting is over (004 "... Dealing Procedures and Round of Play"); a card twice
    # (one deck: 004 "Omaha High/Low Split: Description of the Deck and Number of Decks Used").
    eng = engine()
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, _ = play(eng, state, {"type": "hand.start", "button": 1}, hole(1, "Ah Kd"))
    cases = [
        (act(2, "call"), ACTION_ORDER),
        (board("2c 3c 4c"), ROUND_OF_PLAY),
        (hole(2, "Ah 2d"), ONE_DECK),
        (hole(2, "2d"), '003 "Texas Hold-Em (High)" rule 1'),
        (act(1, "bet", "4"), ROUND_OF_PLAY),
        ({"type": "hand.start"}, ROUND_OF_PLAY),
        ({"type": "seat.leave", "seat": 1}, SEATING),
    ]
    for ev, rule in cases:
        with pytest.raises(Rejected) as e:
            eng.apply(state, parse_event(ev), "t")
        assert e.value.rule == rule, ev


def test_state_view_shows_the_turn_the_call_and_the_bounds_but_no_hole_card() -> None:
    # Blinds $2/$4 at $4-$8: seat 1 (button, first to act of three) owes $4 and may raise only
    # to $8 (one small bet more).
    eng = engine()
    as_engine: Engine[PokerState] = eng  # the engine protocol every table drives
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    state, _ = play(eng, state, {"type": "hand.start", "button": 1}, hole(1, "Ah Kd"))
    assert as_engine.in_deal(state) and not as_engine.between_rounds(state)
    view = eng.state_view(state)
    assert isinstance(view, StateChanged) and view.phase == "betting"
    hand = view.view["hand"]
    assert isinstance(hand, dict)
    assert (hand["turn"], hand["to_call"], hand["min_to"], hand["max_to"], hand["pot"]) == (
        1,
        "4.00",
        "8.00",
        "8.00",
        "6.00",
    )
    assert "Ah" not in json.dumps(view.view) and "Kd" not in json.dumps(view.view)


def test_showdown_waits_for_the_hole_cards_of_every_hand_still_in_003_texas_holdem_rule_5() -> None:
    # 003 "Texas Hold-Em (High)" rule 5: "All hands speak for themselves": the engine reads
    # every hand still in, so the showdown waits until each one's hole cards are in. Blinds
    # $2/$4: seat 1 calls, seat 2 folds, seat 3 checks; pot $10, checked to the river.
    # Seat 3's Qd Qc beats seat 1's 8h 6d; seat 3: 100-4+10 = 106.
    eng = engine()
    state = seated(eng, {1: "100", 2: "100", 3: "100"})
    checks = [act(3, "check"), act(1, "check")]
    state, _ = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "8h 6d"),
        act(1, "call"),
        act(2, "fold"),
        act(3, "check"),
        board("Ah 7c 2d"),
        *checks,
        board("9s"),
        *checks,
        board("3h"),
        *checks,
    )
    assert state.hand is not None and eng.state_view(state).phase == "showdown"
    state, records = play(eng, state, hole(3, "Qd Qc"))
    assert settled(records).pots[0].high == (3,)
    assert stacks(state) == {1: D("96"), 2: D("98"), 3: D("106")}


def test_state_view_shows_the_pots_of_the_rounds_over() -> None:
    # No-limit, blinds $1/$2, seat 3 (25) all-in, seat 1 and seat 2 call: main pot 75 for all
    # three once the flop is out; this round's bets are not in it yet.
    eng = engine(structure=NoLimit(D("2")), blinds=("1", "2"))
    state = seated(eng, {1: "100", 2: "100", 3: "25"})
    state, _ = play(
        eng,
        state,
        {"type": "hand.start", "button": 3},
        act(3, "all-in"),
        act(1, "call"),
        act(2, "call"),
        board("Ah 7c 2d"),
        act(1, "bet", "10"),
    )
    hand = eng.state_view(state).view["hand"]
    assert isinstance(hand, dict)
    assert hand["pots"] == [{"amount": "75.00", "eligible": [1, 2, 3]}]
    assert hand["pot"] == "85.00"


def _big_fee(fee: str) -> PokerSchedule:
    """A per-hand schedule whose one rate (2 to 10 players) is `fee`, with no modified fee."""
    return PokerSchedule.model_validate(
        {"option": 1, "per": "hand", "rates": [{"from": 2, "to": 10, "fee": fee}]}
    )


def _short_main_pot_hand(fee: str) -> tuple[PokerState, PokerHandSettled]:
    """No-limit Hold'em, blinds $1/$2. Button seat 1 (100), small blind seat 2 (100), big blind
    seat 3 (2: all in on the blind). Preflop: 1 calls 2, 2 completes: main pot 3 x 2 = 6 for
    1, 2, 3. Flop: 2 bets 10, 1 calls: a side pot of 20 for 1 and 2. Turn and river checked.
    Showdown on Kd 7c 2d 9s 3h: seat 3 As Ah (aces) takes the main pot, seat 2 Ks Qd (kings)
    the side pot, seat 1 8h 6d (king high) nothing. Each of 1 and 2 put in 12, seat 3 put in 2."""
    eng = engine(structure=NoLimit(D("2")), blinds=("1", "2"), schedule=_big_fee(fee))
    state = seated(eng, {1: "100", 2: "100", 3: "2"})
    state, records = play(
        eng,
        state,
        {"type": "hand.start", "button": 1},
        hole(1, "8h 6d"),
        hole(2, "Ks Qd"),
        hole(3, "As Ah"),
        act(1, "call"),
        act(2, "call"),
        board("Kd 7c 2d"),
        act(2, "bet", "10"),
        act(1, "call"),
        board("9s"),
        act(2, "check"),
        act(1, "check"),
        board("3h"),
        act(2, "check"),
        act(1, "check"),
    )
    return state, settled(records)


def test_a_fee_larger_than_the_main_pot_takes_the_rest_from_the_side_pot_R52() -> None:
    # A $10 fee, three dealt in, the flop reached (R44). The $6 main pot pays $6 of it and is
    # gone; the side pot pays the other $4: 20 - 4 = 16 to seat 2. Seat 3's aces win nothing.
    # Stacks: 1: 100 - 12 = 88; 2: 100 - 12 + 16 = 104; 3: 0; + $10 collected = 202.
    # (Before R52 the fee stopped at the main pot's $6 and seat 2 took the whole $20: 108.)
    state, result = _short_main_pot_hand("10")
    assert result.fee == D("10")
    assert [(p.amount, p.eligible, p.high, p.paid) for p in result.pots] == [
        (D("16"), (1, 2), (2,), ((2, D("16")),))
    ]
    assert stacks(state) == {1: D("88"), 2: D("104"), 3: D("0")}
    assert state.collected == D("10")


def test_a_fee_larger_than_every_pot_takes_all_the_pots_hold_R52() -> None:
    # A $30 fee against pots of $6 and $20: the hand pays the $26 it has; nothing is left to win.
    # Stacks: 1: 88; 2: 88; 3: 0; + $26 collected = 202.
    # (Before R52: $6 taken, seat 2 took the $20 side pot: 108.)
    state, result = _short_main_pot_hand("30")
    assert result.fee == D("26") and result.pots == ()
    assert stacks(state) == {1: D("88"), 2: D("88"), 3: D("0")}
    assert state.collected == D("26")
