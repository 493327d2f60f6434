"""`tablectl export --format phh`: finished poker hands as Poker Hand History
(tablectl/games/poker/phh.py), checked by round trip through pokerkit, an independent poker engine
(a dev dependency only).

Each exported hand is loaded with pokerkit's `HandHistory.loads_all`, replayed state by state,
and pokerkit's final stacks must equal the table's (`finishing_stacks`, the stacks of the hand's
`round/result`). The collection (R44) is taken from the main pot; pokerkit rakes every pot it
builds, so hands with a fee are compared only while they have one pot, and hands with side pots
are played under a time collection (nothing from the pots).

Random hands are played through the table with legal random actions (read from the published
`state`: whose turn, what to call, the least and greatest bet or raise). Where the two engines
split a pot differently (tests/games/poker/test_pots_pokerkit.py: pokerkit merges pots with the same
winners
before splitting, and halves every pot of a high-low hand once anyone has a low), only hands in
which every pot has a single high winner and at most one low winner, and high-low hands with one
pot, are compared; the rest are still loaded and replayed to their end by pokerkit.
"""

from __future__ import annotations

import itertools
import json
import random
import warnings
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pokerkit import HandHistory, State

from tablectl.config import load_config
from tablectl.games.poker.hand_rebuild import poker_hand
from tablectl.records import Record, replay_ts
from tablectl.table import Table, journal_body
from tablectl_base.cards import standard_deck
from tests.history.test_poker_recall import (
    HAND_ONE,
    MISDEAL,
    READER_HAND,
    THREE_ALL_INS,
    Event,
    act,
    board,
    hole,
    poker_config,
    poker_journal,
    run,
    seat,
    start,
)

RakeFn = Callable[..., tuple[int, int]]  # pokerkit calls it with the amount and the state


def export_phh(
    cfg: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[str, list[HandHistory]]:
    """`tablectl export --format phh`: its text and the hands pokerkit loads from it."""
    code, out, err = run(["export", "--config", str(cfg), "--format", "phh", *extra], capsys)
    assert (code, err) == (0, ""), err
    return out, list(HandHistory.loads_all(out))


def fee_rake(fee: int) -> RakeFn:
    """pokerkit's rake: the hand's fee from the (one) pot."""

    def rake(amount: int, _state: State | None = None) -> tuple[int, int]:
        taken = min(fee, amount)
        return taken, amount - taken

    return rake


def replayed(hh: HandHistory) -> State:
    """The hand played to its end in pokerkit, with the table's fee as its rake."""
    hh.rake = fee_rake(int(hh.user_defined_fields["_fee"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fold with nothing to call: pokerkit warns, allows
        states = list(hh)
    final = states[-1]
    assert not final.status, "pokerkit did not reach the end of the hand"
    return final


def test_a_fixed_limit_holdem_hand_round_trips_through_pokerkit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, HAND_ONE)
    text, (hh,) = export_phh(cfg, capsys)
    assert text.startswith('[1]\nvariant = "FT"\n')
    assert hh.variant == "FT" and (hh.small_bet, hh.big_bet) == (4, 8)
    assert hh.blinds_or_straddles == [2, 4, 0] and hh.antes == [0, 0, 0]
    # by position: the small blind (seat 3) first, the button (seat 1) last
    assert hh.seats == [3, 5, 1] and hh.players == ["p3", "p5", "p1"]
    assert hh.starting_stacks == [100, 100, 100] and hh.seat_count == 9 and hh.hand == 1
    assert hh.actions == [
        "d dh p1 AhKh",
        "d dh p2 2c7d",
        "d dh p3 QsQd",
        "p3 cbr 8",
        "p1 cc",
        "p2 f",
        "d db AcQh3s",
        "p1 cbr 4",
        "p3 cbr 8",
        "p1 cc",
        "d db 9h",
        "p1 cc",
        "p3 cc",
        "d db 2h",
        "p1 cbr 8",
        "p3 cc",
        "p1 sm AhKh",
        "p3 sm QsQd",
    ]
    assert hh.user_defined_fields["_fee"] == 1 and hh.winnings == [51, 0, 0]
    assert replayed(hh).stacks == hh.finishing_stacks == [127, 96, 76]


def test_a_misdeal_is_left_out_with_a_note_and_round_selects_one_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, [*HAND_ONE, *MISDEAL, start(), act(3, "fold"), act(5, "fold")])
    text, hands = export_phh(cfg, capsys)
    assert "# hand 2: a misdeal (void), not written\n" in text
    assert [hh.hand for hh in hands] == [1, 3]
    for hh in hands:
        assert replayed(hh).stacks == hh.finishing_stacks
    text, (only,) = export_phh(cfg, capsys, "--round", "3")
    assert only.hand == 3 and only.actions[-2:] == ["p3 f", "p1 f"]


def test_an_all_in_before_the_river_shows_down_before_the_rest_of_the_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No limit $1/$2, nothing collected from the pots: a main pot and a side pot.
    cfg = poker_config(
        tmp_path, structure="no-limit", stakes=None, blinds=("1", "2"), schedule="half-hour"
    )
    poker_journal(cfg, THREE_ALL_INS)
    _, (hh,) = export_phh(cfg, capsys)
    assert hh.variant == "NT" and hh.min_bet == 2
    assert hh.actions[3:] == [
        "p3 cc",
        "p1 cbr 20",
        "p2 cbr 50",
        "p3 cc",
        "p1 sm AhAd",
        "p2 sm KhKd",
        "p3 sm QhQd",
        "d db 2c7s9d",
        "d db Jc",
        "d db 3h",
    ]
    assert replayed(hh).stacks == hh.finishing_stacks == [60, 60, 50]


def test_an_omaha_hi_lo_hand_splits_as_pokerkit_splits_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path, game="omaha-hi-lo")
    events = [
        seat(1, "100"),
        seat(2, "100"),
        start(button=1),
        hole(2, "Ac 2d Kh Ks"),
        hole(1, "Qc Qd 9s 9h"),
        act(2, "call"),  # heads up the button posts the big blind: seat 2 completes the small
        act(1, "check"),
        board("3c 4d 8h"),
        act(2, "bet", "4"),
        act(1, "call"),
        board("Qs"),
        act(2, "check"),
        act(1, "check"),
        board("Jd"),
        act(2, "check"),
        act(1, "check"),
    ]
    poker_journal(cfg, events)
    _, (hh,) = export_phh(cfg, capsys)
    assert hh.variant == "FO/8" and hh.seats == [2, 1]
    # 16 in, $1 fee: 15, high to seat 1 (trip queens) 8, low to seat 2 (8-4-3-2-A) 7
    assert replayed(hh).stacks == hh.finishing_stacks == [99, 100]


@pytest.mark.parametrize(
    ("game", "structure", "stakes"),
    [
        ("crazy-pineapple-hi-lo", "fixed-limit", ("4", "8")),
        ("omaha", "fixed-limit", ("4", "8")),
        ("texas-holdem", "spread-limit", ("2", "10")),
    ],
)
def test_a_game_phh_has_no_variant_code_for_is_refused_naming_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    game: str,
    structure: str,
    stakes: tuple[str, str],
) -> None:
    options = [2] if game == "crazy-pineapple-hi-lo" else None
    cfg = poker_config(tmp_path, game=game, structure=structure, stakes=stakes, options=options)
    poker_journal(cfg, [seat(1, "100"), seat(2, "100"), start(button=1), act(2, "fold")])
    code, out, err = run(["export", "--config", str(cfg), "--format", "phh"], capsys)
    assert (code, out) == (2, "")
    assert f"hand 1: PHH has no variant code for {game} played {structure}" in err


def test_phh_needs_the_config_and_round_needs_phh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    journal = poker_journal(cfg, HAND_ONE)
    code, _, err = run(["export", "--journal", str(journal), "--format", "phh"], capsys)
    assert code == 2 and "give --config" in err
    code, _, err = run(["export", "--config", str(cfg), "--round", "1"], capsys)
    assert code == 2 and "--format phh" in err
    code, _, err = run(["export", "--config", str(cfg), "--format", "phh", "--round", "9"], capsys)
    assert code == 1 and "hand 9 is not in the journal" in err


# -- random hands ---------------------------------------------------------------------------


class RandomTable:
    """Plays random legal hands through a Table, keeping the events it accepted."""

    def __init__(self, cfg_path: Path, rng: random.Random, hole_count: int) -> None:
        self.cfg = load_config(cfg_path)
        self.table = Table(self.cfg)
        self.rng = rng
        self.hole_count = hole_count
        self.events: list[Event] = []
        self.seq = 0
        self._apply({"type": "config", "rules": self.cfg.rules.to_json()}, keep=False)

    def _apply(self, body: Event, *, keep: bool = True) -> bool:
        """Apply `body`; whether the table accepted it (kept for the journal if so)."""
        self.seq += 1
        body = journal_body(body)
        rec = Record(self.seq, replay_ts(self.seq), "cmd/console", None, body, "", "", None)
        rows = self.table.apply(rec)
        refused = any(r.topic.endswith("/alert") for r in rows)
        if not refused and keep:
            self.events.append(body)
        return not refused

    def try_apply(self, body: Event) -> bool:
        """Apply `body` if the table takes it; a refused one is not replayed (the table that
        refused it is rebuilt from the events kept, so its record count stays in step)."""
        if self._apply(body):
            return True
        self._rebuild()
        return False

    def _rebuild(self) -> None:
        self.table = Table(self.cfg)
        self.seq = 0
        kept, self.events = self.events, []
        self._apply({"type": "config", "rules": self.cfg.rules.to_json()}, keep=False)
        for body in kept:
            assert self._apply(body)

    def busted(self, below: Decimal) -> list[int]:
        """The seats left with less than `below`, who buy in again before the next hand."""
        return [s["seat"] for s in self.view()["seats"] if Decimal(s["stack"]) < below]

    def view(self) -> dict[str, Any]:
        return self.table.state_payload()

    def play_hand(self, button: int | None) -> bool:
        """One random hand; False when fewer than two players have chips."""
        view = self.view()
        playing = [s["seat"] for s in view["seats"] if Decimal(s["stack"]) > 0]
        if len(playing) < 2:
            return False
        assert self.try_apply(start(button) if button is not None else start())
        deck = list(standard_deck())
        self.rng.shuffle(deck)
        dealt = [s["seat"] for s in self.view()["seats"] if s.get("in_round") is not None]
        for s in dealt:
            cards = " ".join(str(deck.pop()) for _ in range(self.hole_count))
            assert self.try_apply(hole(s, cards))
        while True:
            hand = self.view()["hand"]
            if hand is None:
                return True
            if hand["phase"] == "board":
                n = 3 if not hand["board"] else 1
                assert self.try_apply(board(" ".join(str(deck.pop()) for _ in range(n))))
                continue
            assert hand["phase"] == "betting", hand
            self._decide(hand)

    def _decide(self, hand: dict[str, Any]) -> None:
        turn, to_call = hand["turn"], Decimal(hand["to_call"])
        lo, hi = hand["min_to"], hand["max_to"]
        choices: list[Event] = [act(turn, "call" if to_call > 0 else "check")] * 5
        if to_call > 0:
            choices += [act(turn, "fold")] * 2
        elif self.rng.random() < 0.05:
            choices.append(act(turn, "fold"))
        if lo is not None and self._raises_this_round() < 3:
            low, high = int(Decimal(lo)), int(Decimal(hi))
            verb = "raise" if self._bet_this_round() else "bet"
            choices += [act(turn, verb, str(self.rng.randint(low, high)))] * 3
            choices.append(act(turn, "all-in"))
        for ev in self.rng.sample(choices, len(choices)):
            if self.try_apply(ev):
                return
        raise AssertionError(f"no action accepted for seat {turn}: {hand}")

    def _round_actions(self) -> list[Event]:
        """This betting round's decisions so far (since the last board or hand start)."""
        out: list[Event] = []
        for ev in reversed(self.events):
            if ev["type"] in ("board.cards", "hand.start"):
                break
            if ev["type"] == "decision":
                out.append(ev)
        return out

    def _raises_this_round(self) -> int:
        return sum(e["action"] in ("bet", "raise", "all-in") for e in self._round_actions())

    def _bet_this_round(self) -> bool:
        seats = self.view()["seats"]
        return any(Decimal(s["in_round"] or 0) > 0 for s in seats if s.get("in_round"))


def assert_chips_add_up(result: dict[str, Any]) -> None:
    """The hand as tablectl/games/poker/hand_rebuild.py rebuilds it accounts for every chip: each
    seat's stack before, less its blind and every amount it put in, plus what it won and what came
    back, is its stack after (so the amounts recall prints and PHH writes are the table's)."""
    hand = poker_hand(result, result["journal"])
    after, won = hand.stacks_after(), hand.winnings()
    back = {int(x["seat"]): Decimal(x["amount"]) for x in result["returned"]}
    for s in hand.seats:
        put = s.posted + sum(
            (x.added for x in hand.steps if x.kind == "action" and x.seat == s.seat), Decimal(0)
        )
        assert s.stack - put + won.get(s.seat, 0) + back.get(s.seat, 0) == after[s.seat], (
            result["round"],
            s,
        )


def comparable(result: dict[str, Any]) -> bool:
    """A hand whose pots both engines split alike (module docstring)."""
    pots = result["pots"]
    if any(len(p["high"]) > 1 or len(p["low"]) > 1 for p in pots):
        return False
    return not (len(pots) > 1 and any(p["low"] for p in pots))


@pytest.mark.parametrize(
    ("game", "structure", "stakes", "schedule", "players", "seed"),
    [
        ("texas-holdem", "no-limit", None, "half-hour", 6, 1),
        ("texas-holdem", "no-limit", None, "hand", 3, 2),
        ("texas-holdem", "no-limit", None, "half-hour", 2, 3),
        ("texas-holdem", "fixed-limit", ("4", "8"), "hand", 4, 4),
        ("texas-holdem", "fixed-limit", ("4", "8"), "half-hour", 5, 5),
        ("omaha", "pot-limit", None, "half-hour", 4, 6),
        ("omaha-hi-lo", "fixed-limit", ("4", "8"), "hand", 4, 7),
        ("omaha-hi-lo", "fixed-limit", ("4", "8"), "half-hour", 3, 8),
    ],
)
def test_random_hands_round_trip_through_pokerkit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    game: str,
    structure: str,
    stakes: tuple[str, str] | None,
    schedule: str,
    players: int,
    seed: int,
) -> None:
    blinds = ("2", "4") if stakes else ("1", "2")
    rng = random.Random(seed)
    # Sessions of up to 25 hands, each on its own table, until 25 hands are played: a session
    # ends when a player is short of the big blind (PHH posts a short blind but then calls only
    # what was posted, where the table calls the full blind: tablectl/games/poker/phh.py) or, at
    # fixed limit, of what a hand can cost at most (four bets a street), so that no one goes all-in
    # there: after a short all-in raise pokerkit's next raise is a full bet above the all-in,
    # the table's a full bet above the last full bet, and such hands do not replay in pokerkit.
    below = Decimal(blinds[1]) if stakes is None else 8 * (Decimal(stakes[0]) + Decimal(stakes[1]))
    stack_choices = [40, 60, 100, 150] if stakes is None else [100, 150, 300]
    played = compared = 0
    for session in itertools.count():
        if played >= 25:
            break
        where = tmp_path / f"session-{session}"
        where.mkdir()
        cfg = poker_config(
            where, game=game, structure=structure, stakes=stakes, blinds=blinds, schedule=schedule
        )
        t = RandomTable(cfg, rng, 4 if "omaha" in game else 2)
        seats = rng.sample(range(1, 10), players)
        for s in seats:
            assert t.try_apply(seat(s, str(rng.choice(stack_choices))))
        for hand in range(25 - played):
            if hand and t.busted(below):
                break
            assert t.play_hand(min(seats) if hand == 0 else None)
            played += 1
        poker_journal(cfg, t.events)
        compared += check_session(cfg, capsys)
    assert compared >= played // 2


def check_session(cfg: Path, capsys: pytest.CaptureFixture[str]) -> int:
    """Every hand of a session's journal recalled, exported and replayed in pokerkit; how many
    of them were compared with pokerkit's stacks."""
    code, out, err = run(["recall", "--config", str(cfg), "--json", "--last", "0"], capsys)
    assert code == 0, err
    results = {r["round"]: r for r in map(json.loads, out.splitlines())}
    for result in results.values():
        assert_chips_add_up(result)
    _, exported = export_phh(cfg, capsys)
    assert [hh.hand for hh in exported] == sorted(results)
    compared = 0
    for hh in exported:
        result = results[hh.hand]
        assert hh.finishing_stacks == [
            int(Decimal(next(x["stack"] for x in result["stacks"] if x["seat"] == s)))
            for s in hh.seats or ()
        ]
        fee = int(hh.user_defined_fields["_fee"])
        final = replayed(hh)  # every hand replays to its end in pokerkit
        if comparable(result) and (fee == 0 or len(result["pots"]) <= 1):
            assert final.stacks == hh.finishing_stacks, (hh.hand, hh.actions, result)
            compared += 1
    return compared


def test_a_big_blind_posted_short_is_called_in_full_and_phh_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Seat 3 has $3 for the $4 big blind: the table's bet to call is still $4 (rules/betting.py
    # open_round); PHH calls only what was posted, so the call carries a commentary, and
    # pokerkit, which calls $3, does not end with the table's stacks.
    cfg = poker_config(tmp_path)
    events = [
        seat(1, "100"),
        seat(2, "100"),
        seat(3, "3"),
        start(button=1),
        hole(1, "Ah Ad"),
        hole(2, "Kh Kd"),
        hole(3, "2c 7d"),
        act(1, "call"),
        act(2, "call"),
        board("Qs 8c 4h"),
        act(2, "check"),
        act(1, "check"),
        board("9d"),
        act(2, "check"),
        act(1, "check"),
        board("5s"),
        act(2, "check"),
        act(1, "check"),
    ]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "    #9 seat 1 calls 4.00\n" in out and "    #10 seat 2 calls 2.00\n" in out
    _, (hh,) = export_phh(cfg, capsys)
    assert hh.actions[3:5] == [
        "p3 cc # calls 4: the full big blind, posted short (the table's rule; PHH calls only "
        "what was posted)",
        "p1 cc",
    ]


def test_a_hand_read_by_the_table_writes_as_the_same_hand_entered_at_the_console(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    console, reader = tmp_path / "console", tmp_path / "reader"
    console.mkdir()
    reader.mkdir()
    poker_journal(poker_config(console), HAND_ONE)
    poker_journal(poker_config(reader), READER_HAND)
    _, (typed,) = export_phh(console / "poker.toml", capsys)
    _, (read,) = export_phh(reader / "poker.toml", capsys)
    assert read.actions == typed.actions  # hole cards per seat, the flop whole, burns left out
    assert replayed(read).stacks == read.finishing_stacks == [127, 96, 76]


def test_a_declared_showdown_shows_the_hands_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    events = [e for e in HAND_ONE if e["type"] != "hole.cards"]
    poker_journal(cfg, [*events, {"type": "showdown", "high": [[1], [3]]}])
    _, (hh,) = export_phh(cfg, capsys)
    assert hh.actions[:3] == ["d dh p1 ????", "d dh p2 ????", "d dh p3 ????"]
    assert hh.actions[-2:] == [
        "p1 sm ???? # not read: the dealer declared the order",
        "p3 sm ???? # not read: the dealer declared the order",
    ]
    assert hh.finishing_stacks == [76, 96, 127] and hh.winnings == [0, 0, 51]


def missed_blinds_session() -> list[Event]:
    """Seats 1 3 5 7 9 ($100). Hand 1 (button 1: 3 small, 5 big) folds to the big blind; seat 7
    sits out; hands 2 (button 3: 5 small, 9 big, passing seat 7) and 3 (button 5: 9 small, 1
    big) fold to the big blind; seat 7 comes back. Hand 4, button 7: 9 small $2, 1 big $4, and
    7 posts $2 dead and $4 live (docs/games/poker-room.md, missed blinds). 3 and 5 fold, 7
    checks, 9 completes, 1 checks; the flop; 9 bets $4, 1 and 7 fold."""
    events: list[Event] = [seat(s, "100") for s in (1, 3, 5, 7, 9)]
    events += [start(button=1), act(7, "fold"), act(9, "fold"), act(1, "fold"), act(3, "fold")]
    events += [{"type": "seat.away", "seat": 7}]
    events += [start(), act(1, "fold"), act(3, "fold"), act(5, "fold")]
    events += [start(), act(3, "fold"), act(5, "fold"), act(9, "fold")]
    events += [{"type": "seat.back", "seat": 7}, start()]
    events += [hole(9, "Ah Kh"), hole(1, "2c 7d"), hole(3, "Qs Qd"), hole(5, "Jc Jd")]
    events += [hole(7, "8s 8d"), act(3, "fold"), act(5, "fold"), act(7, "check")]
    events += [act(9, "call"), act(1, "check"), board("Ac Qh 3s")]
    events += [act(9, "bet", "4"), act(1, "fold"), act(7, "fold")]
    return events


def test_a_dead_blind_is_recalled_and_its_hand_left_out_of_phh_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recall shows the live and the dead post. PHH has no post past the blinds but a straddle,
    which acts last: pokerkit could not replay the hand as played, so it is left out, noted,
    and the three hands before it are written and replay in pokerkit."""
    cfg = poker_config(tmp_path)
    poker_journal(cfg, missed_blinds_session())
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "  posted:    seat 7 4.00 live + 2.00 dead\n" in out
    text, hands = export_phh(cfg, capsys)
    assert text.startswith(
        "# hand 4: seat 7 posted past the blinds (missed blinds or new to the game), which PHH "
        "cannot write: it would read a straddle, which acts last, not written\n"
    )
    assert [hh.hand for hh in hands] == [1, 2, 3]
    for hh in hands:
        assert replayed(hh).stacks == hh.finishing_stacks


def test_a_kill_pot_is_recalled_and_left_out_of_phh_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """003 Kill Rules, half kill at $2-$4: seat 5 wins hands 1 and 2, so hand 3 is a kill pot
    with its $3 kill blind (tests/games/poker/test_poker_hands.py works the amounts). Recall says
    so; PHH
    has no kill blind and leaves the hand out, noted; hands 1 and 2 replay in pokerkit."""
    cfg = poker_config(tmp_path, stakes=("2", "4"), blinds=("1", "2"), schedule="half-hour")
    text = cfg.read_text(encoding="utf-8").replace('chip = "1"\n', 'chip = "1"\nkill = "half"\n')
    cfg.write_text(text, encoding="utf-8")
    events = [seat(1, "100"), seat(3, "100"), seat(5, "100"), start(button=1)]
    events += [act(1, "fold"), act(3, "fold"), start(), act(3, "fold")]
    events += [act(5, "raise", "4"), act(1, "fold"), start(), act(1, "fold"), act(3, "fold")]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "  kill pot:  seat 5 posted the kill blind, 3.00\n" in out
    text, hands = export_phh(cfg, capsys)
    assert text.startswith("# hand 3: a kill pot (003 Kill Rules)")
    assert [hh.hand for hh in hands] == [1, 2]
    for hh in hands:
        assert replayed(hh).stacks == hh.finishing_stacks
