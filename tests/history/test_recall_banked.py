"""`tablectl recall` of the banked games past baccarat, as the floor reads them (issue 15 item
2): Pure 21.5 Blackjack's hands and side bets, Three Card Poker 6 Card Bonus's threes and 6 Card
Bonus hands, Fortune Pai Gow's dice, highs and lows, Ultimate Texas Hold'em's board and best
fives; an outcome of a shape the printer does not know falls back to the raw JSON line.

Each round is played through `Table.apply` with the rounds of the engines' own tests (their
configs and inputs imported from there); every line asserted is worked by hand from the cards in
the comments, never read back from the printer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tablectl.history.text import format_round
from tests.games.blackjack.test_blackjack_engine import decide as bj_decide
from tests.games.blackjack.test_blackjack_engine import pure_cfg, result_of, spanish_cfg, stand
from tests.games.pai_gow.test_pai_gow_engine import config as pai_gow_config
from tests.games.pai_gow.test_pai_gow_engine import only_result as pai_gow_result
from tests.games.pai_gow.test_pai_gow_rounds import ROUND_3
from tests.games.three_card_poker.test_three_card_poker_engine import (
    QUALIFY_BETS,
    QUALIFY_PLAYS,
    QUALIFY_STACKS,
)
from tests.games.three_card_poker.test_three_card_poker_engine import only_result as tcp_result
from tests.games.three_card_poker.test_three_card_poker_engine import run as tcp_run
from tests.games.ultimate.test_ultimate_engine import ante_blind, deal
from tests.games.ultimate.test_ultimate_engine import decide as ut_decide
from tests.games.ultimate.test_ultimate_engine import only_result as ut_result
from tests.games.ultimate.test_ultimate_engine import run as ut_run
from tests.helpers import CLOSE, bank, cards, play, wager

TS = "2026-11-27T04:00:00.000000Z"


def outcome_lines(text: str) -> list[str]:
    """The lines between the header and the bank line: the outcome as printed."""
    lines = text.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("  bank:"))
    return lines[1:end]


def test_recall_of_a_blackjack_round_shows_each_hand_its_total_and_result(
    tmp_path: Path,
) -> None:
    # Bank seat 1; bases at 2 ($10), 3 ($20), 4 ($30 and a $5 Buster), Pure 21.5 with Red Flex
    # RFB-02 and Buster option 5 (tests/games/blackjack/test_blackjack_engine.py's 888 round).
    # Deal s2, s3, s4, up, s2, s3, s4, hole: s2 Th 6c = 16, s3 Ts 7c = hard 17, s4 9h 7d = 16,
    # player-dealer up 8d, hole 8c. An 8 up is neither an ace nor a bonus card: no peek.
    events: list[Any] = [
        bank(1, "500"),
        wager(2, "base", "10"),
        wager(3, "base", "20"),
        wager(4, "base", "30"),
        wager(4, "buster", "5"),
        CLOSE,
        *cards("Th Ts 9h 8d 6c 7c 7d 8c"),
        # s2 hits Kc: 10 + 6 + 10 = 26, bust; s3 stands on 17; s4 surrenders its 16
        *cards("Kc"),
        stand(3),
        bj_decide(4, "surrender"),
        # the player-dealer's 16 hits 8h: 8 8 8 = 24, the 888 (R13), which pushes every busted
        # hand: s2 pushes, s3's 17 wins, s4's surrender loses half
        *cards("8h"),
    ]
    result = result_of(play(pure_cfg(tmp_path), events)[1])
    assert outcome_lines(format_round(TS, result)) == [
        "  dealer:  seat 1  8d 8c 8h = 888 (24)",
        "  hand:    seat 2 #1 p2  Th 6c Kc = 26 bust  -> push",
        "  hand:    seat 3 #1 p3  Ts 7c = hard 17  -> win",
        "  hand:    seat 4 #1 p4  9h 7d = hard 16  surrendered  -> surrender",
        # Red Flex counts only when the first two are red: 8c is black, so 0 (R18)
        "  red flex: 0 red in the dealer's hand, loses",
        # 888 is a three-card bust for the Buster (R19): option 5's three-card row
        "  buster:  the dealer busted with 3 cards, pays cards-3",
    ]


def test_recall_of_a_pure_spanish_round_shows_a_split_and_match_the_dealer(
    tmp_path: Path,
) -> None:
    # Bank seat 1; seat 2 base $10 and Match the Dealer $5 (MATCH-003). s2 7h 7c; up 7h, hole 9s
    # = 16 (a 7 up: no peek). s2 splits: hand 1 7h Qs = hard 17, hand 2 7c Jd = hard 17, both
    # stand; the player-dealer's 16 hits 8c: 24, bust, and both hands win.
    events: list[Any] = [bank(1, "500"), wager(2, "base", "10"), wager(2, "match-dealer", "5")]
    events += [CLOSE, *cards("7h 7h 7c 9s"), bj_decide(2, "split"), *cards("Qs"), stand(2)]
    events += [*cards("Jd"), stand(2, hand=2), *cards("8c")]
    result = result_of(play(spanish_cfg(tmp_path), events)[1])
    assert outcome_lines(format_round(TS, result)) == [
        "  dealer:  seat 1  7h 9s 8c = 24 bust",
        "  hand:    seat 2 #1 p2  7h Qs = hard 17  split  -> win",
        "  hand:    seat 2 #2 p2  7c Jd = hard 17  split  -> win",
        # the initial 7h 7c against the up 7h: one suited and one unsuited match (R21)
        "  match:   seat 2  7h 7c against up card 7h: matches 1-suited-1-unsuited",
    ]


def test_recall_of_a_three_card_poker_round_shows_the_threes_qualifier_and_6_card_bonus(
    tmp_path: Path,
) -> None:
    # Bank seat 4; antes at 5, 7 (with a 6 Card Bonus) and 2; every seat plays
    # (tests/games/three_card_poker/test_three_card_poker_engine.py's qualifying round).
    result = tcp_result(tcp_run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS)[1])
    assert outcome_lines(format_round(TS, result)) == [
        # Q-5-2 is queen-high: queen-high or better qualifies
        "  dealer:  seat 4  Qh 5c 2d  high card, qualifies",
        # a pair of aces beats queen-high
        "  hand:    seat 5  Ah Ad 7c  pair, plays, wins",
        # K-9-4 beats Q-5-2; the 6 Card Bonus's best five of Ks 9s 4h Qh 5c 2d: king-high,
        # K Q 9 5 4 (no pair, no flush, no straight)
        "  hand:    seat 7  Ks 9s 4h  high card, plays, wins;  "
        "6 card bonus: Ks Qh 9s 5c 4h high card",
        # Q-5-2 against Q-5-2: a tie
        "  hand:    seat 2  Qs 5d 2h  high card, plays, ties",
    ]


def test_recall_of_a_fortune_pai_gow_round_shows_dice_settings_results_and_bonuses(
    tmp_path: Path,
) -> None:
    # tests/games/pai_gow/test_pai_gow_rounds.py's round 3: bank seat 1, dice 1+1+1 = 3, seat 3
    # first and the
    # action button; every hand set the house way.
    cfg = pai_gow_config(tmp_path, game={"settlement_order": "by-spot"})
    result = pai_gow_result(play(cfg, ROUND_3)[1])
    assert outcome_lines(format_round(TS, result)) == [
        "  dice:    1 1 1 = 3: first hand to seat 3, action button seat 3",
        # Kc 9h 8h 5s 4c 3d 2h, no pair: the 2nd and 3rd highest in front
        "  dealer:  seat 1  high Kc 5s 4c 3d 2h (high card)  low 9h 8h (high card)"
        "  house way no-pair",
        # five aces: the pair of aces in front, three aces (with the joker) behind; both beat
        # the bank's: wins; Fortune five aces; an Envy hand
        "  hand:    seat 3  high Ad Ac JKR 8s 6d (three of a kind)  low As Ah (pair)"
        "  house way five-aces  wins;  fortune five aces, envy hand",
        # four 7s behind, Q-J in front (> 9-8): wins; Fortune four of a kind
        "  hand:    seat 5  high 7c 7d 7s 7h 2c (four of a kind)  low Qh Jh (high card)"
        "  house way four-of-a-kind  wins;  fortune four of a kind, envy hand",
        # the straight flush behind wins, 4-3 in front loses to 9-8: push
        "  hand:    seat 6  high Qd Jd Td 9d 8d (straight flush)  low 4s 3h (high card)"
        "  house way straight-flush-no-pair  pushes;  fortune straight flush, envy hand",
        # Q-J in front beats 9-8, K-9-6-4-2 beats K-5-4-3-2: wins
        "  hand:    seat 7  high Kh 9c 6c 4d 2s (high card)  low Qc Js (high card)"
        "  house way no-pair  wins",
        # T-8 beats 9-8 in front, J-high loses behind: push
        "  hand:    seat 2  high 5d 3c Jc 2d 6s (high card)  low Tc 8c (high card)"
        "  house way no-pair  pushes",
        "  envy:    paid for the hands at seat 3, 5, 6",
    ]


def test_recall_of_an_ultimate_texas_holdem_round_shows_board_best_fives_and_bonuses(
    tmp_path: Path,
) -> None:
    # tests/games/ultimate/test_ultimate_engine.py's Bad Beat round: bank seat 4; seat 1 Ante and
    # Blind $10,
    # Trips $5, Bad Beat $5, bets 3x pre-flop ($30).
    events: list[Any] = [
        bank(4, "1000"),
        *ante_blind(1, "10"),
        wager(1, "trips", "5"),
        wager(1, "bad-beat", "5"),
        *deal("9s 9h", "Ad Jd", "9d 4d 7d Kc 2s"),
        ut_decide(1, "bet", 3),
    ]
    result = ut_result(ut_run(tmp_path, events)[1])
    assert outcome_lines(format_round(TS, result)) == [
        "  board:   9d 4d 7d Kc 2s",
        # Ad Jd with 9d 4d 7d: a diamond flush A-J-9-7-4; a flush qualifies (a pair or better)
        "  dealer:  seat 4  Ad Jd  best Ad Jd 9d 7d 4d  flush, qualifies",
        # 9s 9h with 9d: three nines, K 7 kickers; it loses to the flush: the Blind loses, the
        # Trips pays three of a kind, the Bad Beat pays the beaten three of a kind (the best
        # five as the engine orders them: by rank, a rank's suits d, h, s)
        "  hand:    seat 1 p1  9s 9h  best 9d 9h 9s Kc 7d  three of a kind, play 30.00 "
        "(3x preflop), loses;  blind lose, trips win, bad beat win",
    ]


def test_recall_prints_an_outcome_it_does_not_know_as_the_json_line(tmp_path: Path) -> None:
    result = tcp_result(tcp_run(tmp_path, QUALIFY_BETS + QUALIFY_STACKS + QUALIFY_PLAYS)[1])
    # a key the printer does not know: the known lines, then that key as JSON
    extra = copy.deepcopy(result)
    extra["outcome"]["jackpot"] = {"seat": 5, "hit": "mini-royal"}
    lines = outcome_lines(format_round(TS, extra))
    assert lines[0] == "  dealer:  seat 4  Qh 5c 2d  high card, qualifies"
    assert lines[-1] == '  outcome: {"jackpot":{"seat":5,"hit":"mini-royal"}}'
    # a shape the printer does not know (the hands as a mapping): the whole outcome as JSON
    odd = copy.deepcopy(result)
    odd["outcome"]["player_dealer"] = {"cards": "Qh 5c 2d"}
    line = "  outcome: " + json.dumps(odd["outcome"], separators=(",", ":"))
    assert outcome_lines(format_round(TS, odd)) == [line]
    # a game with no printer: the JSON line, as before
    other = {**copy.deepcopy(result), "game": "let-it-ride"}
    assert outcome_lines(format_round(TS, other)) == [
        "  outcome: " + json.dumps(result["outcome"], separators=(",", ":"))
    ]
    # the lines after the outcome are the same as before
    text = format_round(TS, result).splitlines()
    assert text[-1] == "  fee:     player-dealer seat 4 1.00 (schedule 1)"
