"""`tablectl recall` of the poker room's games past the flop games: the draw games (the betting
before and after the draw, each seat's draw with its discards and cards, burns, Lowball's
straddles and flashed cards, a dead hand, the low named, R45's returns), the stud games (each
street's cards by seat, down cards in parentheses, Option Alley's buy), Chinese Poker (each
setting, fouls, sweeps, points and payments) and Dealer's Choice (the game chosen in the header,
then that game's hand); `recall --json`; and PHH export refusing every game PHH has no code for
with a message, never a crash.

Journals are built from the shipped configs (config/, their devices, broker and journal left
out) as the daemon builds them (tests/history/test_poker_recall.py's `poker_journal`). Every line a
test
asserts is worked out by hand from the inputs in its comments.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tablectl.config import load_config
from tablectl.journal import Journal
from tablectl.records import replay_ts
from tablectl.table import Table, journal_body
from tests.history.test_poker_recall import (
    Event,
    act,
    hand_blocks,
    hole,
    labelled,
    poker_journal,
    run,
    seat,
    start,
)

CONFIG = Path(__file__).resolve().parents[2] / "config"


def shipped(tmp_path: Path, name: str) -> Path:
    """A shipped config (config/NAME) with its journal under `tmp_path`: its devices, broker
    and journal sections, which come last in every shipped poker config, left out."""
    text = (CONFIG / name).read_text(encoding="utf-8")
    cut = min(text.index(k) for k in ("[[devices]]", "[mqtt]", "[journal]") if k in text)
    assert "[game]" in text[:cut] and "[seats]" in text[:cut]
    path = tmp_path / name
    path.write_text(
        text[:cut] + f'\n[journal]\npath = "{tmp_path / "journal.db"}"\n', encoding="utf-8"
    )
    return path


def up(**cards: str) -> Event:
    """`up.cards` for seats given as s3="9c", in the order dealt."""
    return {
        "type": "up.cards",
        "cards": [{"seat": int(k[1:]), "card": v} for k, v in cards.items()],
    }


def down(**cards: str) -> Event:
    """`down.cards`, with the cards where given."""
    if not cards:
        return {"type": "down.cards"}
    return {
        "type": "down.cards",
        "cards": [{"seat": int(k[1:]), "card": v} for k, v in cards.items()],
    }


def draw(s: int, count: int, discard: str = "", cards: str = "") -> Event:
    ev: Event = {"type": "draw", "seat": s, "count": count}
    if discard:
        ev["discard"] = discard.split()
    if cards:
        ev["cards"] = cards.split()
    return ev


class Reader:
    """The card-reading table's placements, numbered in its own count."""

    def __init__(self) -> None:
        self.pos = 0

    def __call__(self, zone: str, card: str, s: int | None = None) -> Event:
        self.pos += 1
        ev: Event = {"type": "table.card", "zone": zone, "card": card}
        if s is not None:
            ev["seat"] = s
        ev["at"] = {"run": "1", "pos": self.pos}
        return ev


def recall(cfg: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code, out, err = run(["recall", "--config", str(cfg), *extra], capsys)
    assert (code, err) == (0, ""), err
    return out


def between(text: str, first: str, last: str) -> str:
    """The lines of `text` from the one starting `first` to the one before `last`."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(first))
    j = next(k for k, line in enumerate(lines) if k > i and line.startswith(last))
    return "\n".join(lines[i:j])


# -- the draw games -------------------------------------------------------------------------


def test_recall_of_a_lowball_hand_read_by_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lowball $2-$4 (blinds $1/$2), read by the table. Button seat 1: seat 3 small blind $1,
    seat 5 big blind $2, seat 1 straddles $4 (003 "Lowball" rule 5: double the big blind). The
    dealer flashes seat 1's 9h on the deal: a six or higher is dead and replaced (rule 6), by
    the 6d. Before the draw (pass and out) seat 3 calls 3 more, seat 5 2 more, seat 1 checks its
    straddle's option: $12. The draw, from the dealer's left: seat 3 asks for 2, a burn (Jc), its
    discards Kd 9c in the muck, then 4c and 5d: Ah 2d 3s 4c 5d; seat 5's discard Qc reaches the
    muck before its count of 1, a burn (Jh), the 4d: 8h 7d 6c 5s 4d; seat 1 stands pat. After
    the draw seat 3 checks its wheel, seat 5 bets $4, seat 1 folds, seat 3 calls. Seat 3's
    5-4-3-2-A wins; it checked a seven or better, so R45 gives back every chip put in after the
    draw ($4 each) and seat 3 takes the pot as it stood at the draw: $12 less the $1 fee (three
    dealt in): $11. Stacks: seat 3 100 - 4 + 11 = 107, seat 5 100 - 4 = 96, seat 1 96."""
    cfg = shipped(tmp_path, "lowball-003.toml")
    rd = Reader()
    dealt = {3: "Ah 2d 3s Kd 9c", 5: "8h 7d 6c 5s Qc", 1: "2h 3h 4h Td 9h"}
    # one card at a time round the table, from the dealer's left
    deal = [rd("seat", dealt[s].split()[k], s) for k in range(5) for s in (3, 5, 1)]
    events = [
        seat(1, "100"),
        seat(3, "100"),
        seat(5, "100"),
        {"type": "hand.start", "button": 1, "straddles": ["4"]},
        *deal,  # records 6-20 (the config is record 1)
        {"type": "card.flashed", "seat": 1, "card": "9h", "when": "deal"},  # 21
        rd("seat", "6d", 1),  # 22
        act(3, "call"),  # 23
        act(5, "call"),
        act(1, "check"),
        draw(3, 2),  # 26
        rd("muck", "Jc"),
        rd("muck", "Kd"),
        rd("muck", "9c"),
        rd("seat", "4c", 3),
        rd("seat", "5d", 3),  # 31
        rd("muck", "Qc"),
        draw(5, 1),
        rd("muck", "Jh"),
        rd("seat", "4d", 5),
        draw(1, 0),  # 36
        act(3, "check"),
        act(5, "bet", "4"),
        act(1, "fold"),
        act(3, "call"),  # 40
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    assert block[0].startswith("Hand 1  (lowball, button seat 1, finished ")
    assert labelled(block, "blinds:") == ["seat 3 small 1.00, seat 5 big 2.00"]
    assert labelled(block, "straddles:") == ["seat 1 4.00"]
    # each seat's five as dealt, the flashed 9h replaced by the 6d
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  Ah 2d 3s Kd 9c",
        "5   p5            100.00  8h 7d 6c 5s Qc",
        "1   p1            100.00  2h 3h 4h Td 6d  button",
    ]
    text = "\n".join(block)
    assert (
        "  before the draw:\n"
        "    #21 seat 1's 9h flashed on the deal: dead, replaced (rule 6)\n"
        "    #23 seat 3 calls 3.00\n"
        "    #24 seat 5 calls 2.00\n"
        "    #25 seat 1 checks\n"
        "  the draw:\n"
        "    #26 seat 3 draws 2\n"
        "    #27 burn Jc\n"
        "    #28 seat 3 discards Kd\n"
        "    #29 seat 3 discards 9c\n"
        "    #30 seat 3 is given 4c\n"
        "    #31 seat 3 is given 5d (now Ah 2d 3s 4c 5d)\n"
        "    #32 seat 5 discards Qc\n"
        "    #33 seat 5 draws 1\n"
        "    #34 burn Jh\n"
        "    #35 seat 5 is given 4d (now 8h 7d 6c 5s 4d)\n"
        "    #36 seat 1 stands pat (2h 3h 4h Td 6d)\n"
        "  after the draw:\n"
        "    #37 seat 3 checks\n"
        "    #38 seat 5 bets 4.00\n"
        "    #39 seat 1 folds\n"
        "    #40 seat 3 calls 4.00\n"
    ) in text
    assert labelled(block, "shown:") == ["seat 3 Ah 2d 3s 4c 5d: low 5-4-3-2-A (Ah 2d 3s 4c 5d)"]
    assert labelled(block, "mucked:") == ["seat 5 8h 7d 6c 5s 4d (won no pot: not shown, R46)"]
    assert labelled(block, "main pot:") == ["11.00 (seats 3 5): low seat 3; paid seat 3 11.00"]
    assert labelled(block, "returned:") == [
        "seat 3 4.00, seat 5 4.00 (R45, the seven rule: seat 3 checked a seven or better after "
        "the draw and won; every chip put in after the draw goes back)"
    ]
    assert labelled(block, "fee:") == ["1.00 (3 players dealt in)"]
    assert labelled(block, "stacks:") == [
        "seat 1 96.00 (-4.00), seat 3 107.00 (+7.00), seat 5 96.00 (-4.00)"
    ]


def test_recall_of_a_five_card_draw_hi_lo_hand_drawn_at_the_console(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five Card Draw hi-lo $2-$4, blinds $1/$2, button seat 1: dealt 3, 5, 7, 1. Before the
    draw seat 7 calls $2, seat 1 raises to $4, seat 3 calls 3 more, seat 5 2 more, seat 7 2
    more: $16. The draw: seat 3 throws the Kc for the 5d (Ah 2h 3c 8d 5d: an 8-5-3-2-A low);
    seat 5 throws three for Qh 7c 3d (three queens); seat 7 asks for 2 and the floor declares
    its hand dead; seat 1 asks for 1 (its cards entered later: 9s 9h 6d 6c Th). After the draw
    ($4): seat 3 checks, seat 5 bets 4, seat 1 and seat 3 call: $28, less the $1 fee (four dealt
    in, 2-4 players): $27, halved: the high (seat 5) 14 with the odd chip (R41), the low (seat 3)
    13. Stacks: seat 5 100 - 8 + 14 = 106, seat 3 100 - 8 + 13 = 105, seat 1 92, seat 7 96."""
    cfg = shipped(tmp_path, "five-card-draw-hi-lo-003.toml")
    events = [
        seat(1, "100"),
        seat(3, "100"),
        seat(5, "100"),
        seat(7, "100"),
        start(button=1),  # 6 (the config is record 1)
        hole(3, "Ah 2h 3c 8d Kc"),
        hole(5, "Qs Qd Jc 7s 4h"),
        hole(7, "Ks Kh 2c 2s Jd"),
        hole(1, "9s 9h 6d 6c 2d"),
        act(7, "call"),  # 11
        act(1, "raise", "4"),
        act(3, "call"),
        act(5, "call"),
        act(7, "call"),
        draw(3, 1, "Kc", "5d"),  # 16
        draw(5, 3, "Jc 7s 4h", "Qh 7c 3d"),
        draw(7, 2),
        {"type": "hand.dead", "seat": 7, "reason": "fouled hand"},
        draw(1, 1),
        act(3, "check"),  # 21
        act(5, "bet", "4"),
        act(1, "call"),
        act(3, "call"),
        hole(1, "9s 9h 6d 6c Th"),  # 25
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    assert block[0].startswith("Hand 1  (five-card-draw-hi-lo, button seat 1, ")
    assert labelled(block, "seat ")[:4] == [
        "3   p3            100.00  Ah 2h 3c 8d Kc",
        "5   p5            100.00  Qs Qd Jc 7s 4h",
        "7   p7            100.00  Ks Kh 2c 2s Jd",
        "1   p1            100.00  9s 9h 6d 6c 2d  button",
    ]
    assert between("\n".join(block), "  the draw:", "  shown:") == (
        "  the draw:\n"
        "    #16 seat 3 draws 1: discards Kc, is given 5d (now Ah 2h 3c 8d 5d)\n"
        "    #17 seat 5 draws 3: discards Jc 7s 4h, is given Qh 7c 3d (now Qs Qd Qh 7c 3d)\n"
        "    #18 seat 7 draws 2\n"
        "    #19 seat 7's hand declared dead: fouled hand\n"
        "    #20 seat 1 draws 1\n"
        "  after the draw:\n"
        "    #21 seat 3 checks\n"
        "    #22 seat 5 bets 4.00\n"
        "    #23 seat 1 calls 4.00\n"
        "    #24 seat 3 calls 4.00\n"
        "    #25 seat 1's five after the draw: 9s 9h 6d 6c Th"
    )
    # the hands that won a pot, by position: the high's three queens, the low's 8-5-3-2-A
    assert labelled(block, "shown:") == [
        "seat 3 Ah 2h 3c 8d 5d: high-card (Ah 8d 5d 3c 2h); low 8-5-3-2-A (Ah 2h 3c 8d 5d)",
        "seat 5 Qs Qd Qh 7c 3d: three-of-a-kind (Qh Qd Qs 7c 3d)",
    ]
    # the dead hand is not among the hands still in
    assert labelled(block, "mucked:") == ["seat 1 9s 9h 6d 6c Th (won no pot: not shown, R46)"]
    assert labelled(block, "main pot:") == [
        "27.00 (seats 1 3 5): high seat 5, low seat 3; paid seat 3 13.00, seat 5 14.00"
    ]
    assert not labelled(block, "returned:")
    assert labelled(block, "fee:") == ["1.00 (4 players dealt in)"]
    assert labelled(block, "stacks:") == [
        "seat 1 92.00 (-8.00), seat 3 105.00 (+5.00), seat 5 106.00 (+6.00), seat 7 96.00 (-4.00)"
    ]


# -- the stud games -------------------------------------------------------------------------


SEVEN_STUD: list[Event] = [
    seat(1, "100"),
    seat(3, "100"),
    seat(5, "100"),
    start(
        button=1
    ),  # 5 (the config is record 1): dealt 3, 5, 1; seat 3 small blind $1, seat 5 big blind $2
    up(s3="9c", s5="Kd", s1="Kh"),
    act(1, "call"),
    act(3, "call"),
    act(5, "check"),
    up(s3="4d", s5="7c", s1="7h"),  # K-7 and K-7 tie: seat 5, dealt first, bets first
    act(5, "check"),
    act(1, "check"),
    act(3, "check"),
    up(s3="9d", s5="5h", s1="2s"),  # 14: seat 3's pair of nines first
    act(3, "check"),
    act(5, "check"),
    act(1, "check"),
    up(s3="3s", s5="6h", s1="Ks"),  # 18: seat 1's pair of kings first
    act(1, "check"),
    act(3, "check"),
    act(5, "check"),
    down(),  # 22
    act(1, "check"),
    act(3, "check"),
    act(5, "check"),
    hole(3, "Ah Ac 2c"),
    hole(5, "Qd Jd Td"),
    hole(1, "Kc 8s 8d"),
]
"""Seven Card Stud $2-$4 (tests/games/stud/test_stud_hands.py's first hand): $2 each on third
street,
checked to the end; seat 1's kings full of eights take the $6 less the $1 fee."""


def test_recall_of_a_seven_card_stud_hand_street_by_street(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = shipped(tmp_path, "seven-card-stud-003.toml")
    poker_journal(cfg, SEVEN_STUD)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    assert block[0].startswith("Hand 1  (seven-card-stud, button seat 1, ")
    # the down cards as dealt (two on third street, one on seventh), then the up cards
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  down Ah Ac 2c  up 9c 4d 9d 3s",
        "5   p5            100.00  down Qd Jd Td  up Kd 7c 5h 6h",
        "1   p1            100.00  down Kc 8s 8d  up Kh 7h 2s Ks  button",
    ]
    text = "\n".join(block)
    assert (
        "  third street:   seat 3 (Ah Ac) 9c, seat 5 (Qd Jd) Kd, seat 1 (Kc 8s) Kh  (#6)\n"
        "    #7 seat 1 calls 2.00\n"
        "    #8 seat 3 calls 1.00\n"
        "    #9 seat 5 checks\n"
        "  fourth street:  seat 3 4d, seat 5 7c, seat 1 7h  (#10)\n"
        "    #11 seat 5 checks\n"
    ) in text
    assert "  fifth street:   seat 3 9d, seat 5 5h, seat 1 2s  (#14)\n    #15 seat 3 checks" in text
    assert "  sixth street:   seat 3 3s, seat 5 6h, seat 1 Ks  (#18)\n    #19 seat 1 checks" in text
    assert "  seventh street: seat 3 (2c), seat 5 (Td), seat 1 (8d)  (#22)\n" in text
    assert labelled(block, "shown:") == ["seat 1 Kc 8s 8d Kh 7h 2s Ks: full-house (Ks Kh Kc 8d 8s)"]
    assert labelled(block, "mucked:") == [
        "seat 3 Ah Ac 2c 9c 4d 9d 3s (won no pot: not shown, R46)",
        "seat 5 Qd Jd Td Kd 7c 5h 6h (won no pot: not shown, R46)",
    ]
    assert labelled(block, "main pot:") == ["5.00 (seats 1 3 5): high seat 1; paid seat 1 5.00"]
    assert labelled(block, "stacks:") == [
        "seat 1 103.00 (+3.00), seat 3 98.00 (-2.00), seat 5 98.00 (-2.00)"
    ]


def test_recall_of_razz_names_the_low_and_leaves_unknown_down_cards_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Razz (tests/games/stud/test_stud_hands.py): seat 5 folds its Kc on third street with its down
    cards
    never entered; seat 3's pair of twos (2-2-5-4-3) is the low; the $10 pot less the $1 fee
    to seat 3: 100 - 4 + 9 = 105, seat 1 96, seat 5 98."""
    cfg = shipped(tmp_path, "razz-003.toml")
    events = [
        seat(1, "100"),
        seat(3, "100"),
        seat(5, "100"),
        start(button=1),
        up(s3="2h", s5="Kc", s1="6s"),  # 6 (the config is record 1)
        act(1, "call"),
        act(3, "raise", "4"),
        act(5, "fold"),
        act(1, "call"),
        up(s3="3h", s1="6d"),  # 11
        act(3, "check"),
        act(1, "check"),
        up(s3="2d", s1="7c"),
        act(3, "check"),
        act(1, "check"),
        up(s3="3c", s1="8h"),
        act(1, "check"),
        act(3, "check"),
        down(s3="4c", s1="7d"),  # 20: the seventh card, known
        act(1, "check"),
        act(3, "check"),
        hole(1, "9s 9d"),  # the third street's two, entered after: the seventh is in
        hole(3, "4h 5h"),
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    # each seat's down cards in their places: the two of third street entered after the
    # seventh, which came with `down.cards`
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  down 4h 5h 4c  up 2h 3h 2d 3c",
        "5   p5            100.00  down (not entered)  up Kc",
        "1   p1            100.00  down 9s 9d 7d  up 6s 6d 7c 8h  button",
    ]
    text = "\n".join(block)
    assert "  third street:   seat 3 (4h 5h) 2h, seat 5 (?? ??) Kc, seat 1 (9s 9d) 6s  (#6)" in text
    assert "    #9 seat 5 folds\n" in text
    assert "  fourth street:  seat 3 3h, seat 1 6d  (#11)\n    #12 seat 3 checks" in text
    assert "  seventh street: seat 3 (4c), seat 1 (7d)  (#20)\n    #21 seat 1 checks" in text
    # low only (Razz): no high part; 2-2-3-3-4-4-5 makes at best a pair of twos with 5-4-3
    (shown,) = labelled(block, "shown:")
    assert shown.startswith("seat 3 4c 4h 5h 2h 3h 2d 3c: low 2-2-5-4-3 (")
    assert labelled(block, "mucked:") == [
        "seat 1 7d 9s 9d 6s 6d 7c 8h (won no pot: not shown, R46)"
    ]
    assert labelled(block, "main pot:") == ["9.00 (seats 1 3): low seat 3; paid seat 3 9.00"]
    assert labelled(block, "stacks:") == [
        "seat 1 96.00 (-4.00), seat 3 105.00 (+5.00), seat 5 98.00 (-2.00)"
    ]


def test_recall_of_option_alley_shows_the_buy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Option Alley $2-$4: Five Card Stud's streets, then the buy, in turn from the dealer's
    left: seat 3 stands pat, seat 5 throws its up Kd for the Ac (face up), seat 1 its hole card
    2c for the Kc (face down); then the buy's betting round, all checked. $2 each on second
    street: $6 less the $1 fee, halved: high seat 1 (kings: Kc Kh Ks), 3 with the odd chip;
    low (no qualifier) seat 5's T-7-6-5-A, 2. Stacks: seat 1 101, seat 5 100, seat 3 98."""
    cfg = shipped(tmp_path, "option-alley-003.toml")
    checked = [act(1, "check"), act(3, "check"), act(5, "check")]
    events = [
        seat(1, "100"),
        seat(3, "100"),
        seat(5, "100"),
        start(button=1),  # 5
        hole(3, "Qs"),
        hole(5, "Ts"),
        hole(1, "2c"),
        up(s3="9c", s5="Kd", s1="Kh"),  # 9
        act(1, "call"),
        act(3, "call"),
        act(5, "check"),
        up(s3="4d", s5="7c", s1="7h"),  # 13: seat 5's K-7 dealt before seat 1's K-7
        act(5, "check"),
        act(1, "check"),
        act(3, "check"),
        up(s3="9d", s5="5h", s1="2s"),  # 17: seat 3's nines
        act(3, "check"),
        act(5, "check"),
        act(1, "check"),
        up(s3="3s", s5="6h", s1="Ks"),  # 21: seat 1's kings
        *checked,
        {"type": "option.buy", "seat": 3},  # 25
        {"type": "option.buy", "seat": 5, "discard": "Kd", "card": "Ac"},
        {"type": "option.buy", "seat": 1, "discard": "hole", "card": "Kc"},
        *checked,  # 28-30: seat 1's K-K-7-2 showing first
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    # as dealt: the buy's cards are the buy's
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  down Qs  up 9c 4d 9d 3s",
        "5   p5            100.00  down Ts  up Kd 7c 5h 6h",
        "1   p1            100.00  down 2c  up Kh 7h 2s Ks  button",
    ]
    text = "\n".join(block)
    assert "  second street:  seat 3 (Qs) 9c, seat 5 (Ts) Kd, seat 1 (2c) Kh  (#9)\n" in text
    assert "  fifth street:   seat 3 3s, seat 5 6h, seat 1 Ks  (#21)\n" in text
    assert (
        "  the buy:\n"
        "    #25 seat 3 stands pat\n"
        "    #26 seat 5 discards Kd (up), is given Ac up\n"
        "    #27 seat 1 discards its hole card 2c, is given Kc down\n"
        "  after the buy:\n"
        "    #28 seat 1 checks\n"
        "    #29 seat 3 checks\n"
        "    #30 seat 5 checks\n"
    ) in text
    assert labelled(block, "shown:") == [
        "seat 5 Ts 7c 5h 6h Ac: high-card (Ac Ts 7c 6h 5h); low T-7-6-5-A (Ts 7c 5h 6h Ac)",
        "seat 1 Kc Kh 7h 2s Ks: three-of-a-kind (Ks Kh Kc 7h 2s); low K-K-K-7-2 (Kc Kh 7h 2s Ks)",
    ]
    assert labelled(block, "mucked:") == ["seat 3 Qs 9c 4d 9d 3s (won no pot: not shown, R46)"]
    assert labelled(block, "main pot:") == [
        "5.00 (seats 1 3 5): high seat 1, low seat 5; paid seat 5 2.00, seat 1 3.00"
    ]
    assert labelled(block, "stacks:") == [
        "seat 1 101.00 (+1.00), seat 3 98.00 (-2.00), seat 5 100.00 (0.00)"
    ]


def test_recall_of_five_card_stud_read_by_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five Card Stud heads up, read by the table card by card: each street is listed once its
    last card is read, with the records of its reads; a burn in the muck is listed where it
    was read. Button seat 1: seat 3 posts the $1 small blind and acts first, seat 1 the $2 big.
    Seat 3 calls, then every street is checked (the pair of nines first, then seat 1's kings on
    fifth street). Seat 1's kings and deuces take $4 less the $1 fee: 101; seat 3 98."""
    cfg = shipped(tmp_path, "five-card-stud-003.toml")
    rd = Reader()
    events = [
        seat(1, "100"),
        seat(3, "100"),
        start(button=1),  # 4
        rd("seat", "Qs", 3),  # 5: down
        rd("seat", "2c", 1),
        rd("seat", "9c", 3),  # up
        rd("seat", "Kh", 1),  # 8: second street is out
        act(3, "call"),
        act(1, "check"),
        rd("muck", "5c"),  # 11
        rd("seat", "9d", 3),
        rd("seat", "7h", 1),  # 13
        act(3, "check"),
        act(1, "check"),
        rd("seat", "4d", 3),
        rd("seat", "2s", 1),  # 17
        act(3, "check"),
        act(1, "check"),
        rd("seat", "3s", 3),
        rd("seat", "Ks", 1),  # 21
        act(1, "check"),
        act(3, "check"),
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    (block,) = hand_blocks(out)
    assert labelled(block, "seat ")[:2] == [
        "3   p3            100.00  down Qs  up 9c 9d 4d 3s",
        "1   p1            100.00  down 2c  up Kh 7h 2s Ks  button",
    ]
    text = "\n".join(block)
    assert (
        "  second street:  seat 3 (Qs) 9c, seat 1 (2c) Kh  (#5-8)\n"
        "    #9 seat 3 calls 1.00\n"
        "    #10 seat 1 checks\n"
        "    #11 to the muck: 5c\n"
        "  third street:   seat 3 9d, seat 1 7h  (#12-13)\n"
    ) in text
    assert "  fifth street:   seat 3 3s, seat 1 Ks  (#20-21)\n    #22 seat 1 checks\n" in text
    assert labelled(block, "shown:") == ["seat 1 2c Kh 7h 2s Ks: two-pair (Ks Kh 2s 2c 7h)"]
    assert labelled(block, "stacks:") == ["seat 1 101.00 (+1.00), seat 3 98.00 (-2.00)"]


# -- Chinese Poker --------------------------------------------------------------------------


def chinese_set(s: int, front: str, middle: str, back: str) -> Event:
    return {
        "type": "chinese.set",
        "seat": s,
        "front": front.split(),
        "middle": middle.split(),
        "back": back.split(),
    }


SEAT_1 = ("As Ks 9h", "Jh Jd 4h 5h 6h", "Qh Qd Qs 8h 8d")  # A-K-9 | jacks | queens full
SEAT_2 = ("Ah Ac Kh", "Kc Qc Jc 9c 2s", "Js Ts 4s 3s 7h")  # aces in front over king high: foul
SEAT_3 = "2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c"  # six pairs: a clean sweep
SEAT_4 = ("Ad Kd 9d", "Tc Td Th 2h 3h", "9s 8s 7s 6s 5s")  # A-K-9 | trip tens | straight flush


def test_recall_of_chinese_poker_shows_settings_fouls_sweeps_points_and_payments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tests/games/chinese_poker/test_chinese_poker.py's round, worked there from 003: a $5 point,
    option 2 ($2
    from the buttons' holder, $1 from each other). Seat 3's six pairs take 3 points from each;
    seat 2 fouled: 9 points to seat 1, 9 and seat 4's straight flush bonus (5) to seat 4; seat 1
    and seat 4: seat 1 wins the tied front (the buttons), loses the middle and the back and the
    straight flush bonus: pays 6. Round 2 (button seat 2, seats 1 and 2 only, $100 and $57):
    seat 2 sets trip aces in front over a flush (fouled): it owes seat 1 nine points and seat
    1's bonuses (four of a kind in the middle 8, a straight flush in the back 5), 22 points,
    $110, but seat 1 started the round with $196 and seat 2 with $56 (after its $2 fee): $56
    changes hands."""
    cfg = shipped(tmp_path, "chinese-poker-003.toml")
    events = [
        seat(1, "200"),
        seat(2, "200"),
        seat(3, "200"),
        seat(4, "200"),
        start(button=1),  # 6
        chinese_set(1, *SEAT_1),
        chinese_set(2, *SEAT_2),
        {"type": "chinese.sweep", "seat": 3, "sweep": "six-pairs", "cards": SEAT_3.split()},
        chinese_set(4, *SEAT_4),  # 10: the round settles
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    lines = out.splitlines()
    assert lines[0].startswith("Round 1  (chinese-poker, buttons seat 1, point 5.00, finished ")
    assert labelled(lines, "fees:") == ["seat 1 2.00, seat 2 1.00, seat 3 1.00, seat 4 1.00"]
    assert labelled(lines, "seat ") == [
        "1   front As Ks 9h (high-card) | middle Jh Jd 4h 5h 6h (pair) | back Qh Qd Qs 8h 8d "
        "(full-house)  (#7)",
        "2   front Ah Ac Kh (pair) | middle Kc Qc Jc 9c 2s (high-card) | back Js Ts 4s 3s 7h "
        "(high-card): fouled (set out of order)  (#8)",
        "3   clean sweep, six-pairs: 2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8c  (#9)",
        "4   front Ad Kd 9d (high-card) | middle Tc Td Th 2h 3h (three-of-a-kind) | back 9s 8s "
        "7s 6s 5s (straight-flush)  (#10)",
    ]
    assert labelled(lines, "points:") == [
        "seats 1 and 2: seat 2 pays seat 1 9 points",
        "seats 1 and 3: seat 1 pays seat 3 3 points",
        "seats 1 and 4: seat 1 pays seat 4 6 points",
        "seats 2 and 3: seat 2 pays seat 3 3 points",
        "seats 2 and 4: seat 2 pays seat 4 14 points",
        "seats 3 and 4: seat 4 pays seat 3 3 points",
    ]
    # the sweeps first, then the segments, in the walk's order; $5 a point
    assert labelled(lines, "paid:") == [
        "seat 1 to seat 3 15.00 (clean sweep)",
        "seat 2 to seat 3 15.00 (clean sweep)",
        "seat 4 to seat 3 15.00 (clean sweep)",
        "seat 2 to seat 1 45.00 (segments)",
        "seat 1 to seat 4 30.00 (segments)",
        "seat 2 to seat 4 70.00 (segments)",
    ]
    # seat 1: -2 fee -15 +45 -30 = -2; seat 2: -1 -15 -45 -70 = -131; seat 3: -1 +45 = +44;
    # seat 4: -1 -15 +30 +70 = +84
    assert labelled(lines, "stacks:") == [
        "seat 1 198.00 (-2.00), seat 2 69.00 (-131.00), seat 3 244.00 (+44.00), "
        "seat 4 284.00 (+84.00)"
    ]


def test_recall_of_a_chinese_poker_misdeal_and_a_payment_short_of_what_is_owed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seats 1 and 2, $100 each. Round 1 is a misdeal: the fees come back. Round 2, buttons on
    seat 2: fees $2 (seat 2) and $1 (seat 1). Seat 2 sets trip aces in front over king high in
    the middle: fouled. It owes seat 1 nine points and seat 1's bonuses (four of a kind in the
    middle 8, a straight flush in the back 5): 22 points, $110; it started the round with $98
    (after its fee), and exchanges no more: $98 changes hands. Seat 1: 100 - 1 + 98 = 197."""
    cfg = shipped(tmp_path, "chinese-poker-003.toml")
    events = [
        seat(1, "100"),
        seat(2, "100"),
        start(button=2),  # 4
        {"type": "round.void", "reason": "a card twice"},
        start(button=2),  # 6
        chinese_set(1, "Ah Kd Qc", "7s 7h 7d 7c 2s", "9h Th Jh Qh Kh"),
        chinese_set(2, "Ac Ad As", "3s 4s 5s 6s 8d", "2h 3h 4h 5h 8h"),  # 8
    ]
    poker_journal(cfg, events)
    out = recall(cfg, capsys)
    first, second = out.split("\nRound 2")
    lines = first.splitlines()
    assert lines[0].startswith("Round 1  (chinese-poker, buttons seat 2, point 5.00, ")
    assert labelled(lines, "void:") == ["a card twice (the fees returned)"]
    assert not labelled(lines, "fees:") and not labelled(lines, "paid:")
    assert labelled(lines, "stacks:") == ["seat 1 100.00, seat 2 100.00"]
    lines = ("Round 2" + second).splitlines()
    assert labelled(lines, "fees:") == ["seat 2 2.00, seat 1 1.00"]
    assert labelled(lines, "seat ") == [
        "2   front Ac Ad As (three-of-a-kind) | middle 3s 4s 5s 6s 8d (high-card) | back 2h 3h "
        "4h 5h 8h (flush): fouled (set out of order)  (#8)",
        "1   front Ah Kd Qc (high-card) | middle 7s 7h 7d 7c 2s (four-of-a-kind) | back 9h Th "
        "Jh Qh Kh (straight-flush)  (#7)",
    ]
    assert labelled(lines, "points:") == ["seats 2 and 1: seat 2 pays seat 1 22 points"]
    assert labelled(lines, "paid:") == [
        "seat 2 to seat 1 98.00 (segments; 110.00 owed, no more than a stack as the round "
        "began changes hands)"
    ]
    assert labelled(lines, "stacks:") == ["seat 1 197.00 (+97.00), seat 2 0.00 (-100.00)"]


# -- Dealer's Choice ------------------------------------------------------------------------


DEALERS_CHOICE: list[Event] = [
    seat(1, "100"),
    seat(3, "100"),
    seat(5, "100"),
    # Hand 1, Razz at the table's $2-$4 (blinds $1/$2), button seat 1: dealt 3, 5, 1
    {"type": "hand.start", "button": 1, "game": "razz"},  # 5
    up(s3="2h", s5="Kc", s1="6s"),
    act(1, "call"),
    act(3, "raise", "4"),
    act(5, "fold"),
    act(1, "fold"),  # 10
    # Hand 2, Five Card Draw, button seat 3: dealt 5, 1, 3; seat 5 $1, seat 1 $2
    {"type": "hand.start", "game": "five-card-draw"},
    hole(5, "Ah Ad Kc Qc 2s"),
    hole(1, "7h 8h 9h Th 2c"),
    hole(3, "3c 3d 3h 4s 5s"),
    act(3, "call"),  # 15
    act(5, "call"),
    act(1, "check"),
    draw(5, 3, "Kc Qc 2s", "As 7c 7d"),
    draw(1, 1),
    {"type": "hand.dead", "seat": 1, "reason": "six cards"},  # 20
    draw(3, 0),
    act(5, "bet", "4"),
    act(3, "call"),
    # Hand 3, Omaha hi-lo at its own limits ($5-$10, blinds $2/$5), button seat 5: dealt 1, 3, 5
    {"type": "hand.start", "game": "omaha-hi-lo"},
    act(5, "fold"),  # 25
    act(1, "fold"),
]


def test_recall_of_dealers_choice_names_the_game_chosen_and_plays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand 1: seat 3 raises to $4 on third street and both fold: $4 in, $2 uncalled back, $6
    less the modified fee ($1, ended in the first round): $5. Hand 2: $6 before the draw, seat
    1's hand is dead after its draw (its chips stay), $8 after: $14 less $1; seat 5's aces full
    win: 98 - 6 + 13 = 105. Hand 3: the big blind's $5 uncalled over the small's $2 goes back
    ($3), $4 less the modified fee: $3 to seat 3."""
    cfg = shipped(tmp_path, "dealers-choice-003.toml")
    poker_journal(cfg, DEALERS_CHOICE)
    out = recall(cfg, capsys)
    one, two, three = hand_blocks(out)
    assert one[0].startswith("Hand 1  (dealer's choice: razz, button seat 1, finished ")
    assert two[0].startswith("Hand 2  (dealer's choice: five-card-draw, button seat 3, ")
    assert three[0].startswith("Hand 3  (dealer's choice: omaha-hi-lo, button seat 5, ")
    # each hand in its game's form
    assert "  third street:   seat 3 (?? ??) 2h, seat 5 (?? ??) Kc, seat 1 (?? ??) 6s  (#6)" in (
        "\n".join(one)
    )
    assert labelled(one, "main pot:") == ["5.00 (seats 3): low seat 3; paid seat 3 5.00"]
    assert labelled(one, "returned:") == ["seat 3 2.00"]
    assert labelled(one, "fee:") == ["1.00 (3 players dealt in, the modified fee)"]
    assert between("\n".join(two), "  the draw:", "  shown:") == (
        "  the draw:\n"
        "    #18 seat 5 draws 3: discards Kc Qc 2s, is given As 7c 7d (now Ah Ad As 7c 7d)\n"
        "    #19 seat 1 draws 1\n"
        "    #20 seat 1's hand declared dead: six cards\n"
        "    #21 seat 3 stands pat (3c 3d 3h 4s 5s)\n"
        "  after the draw:\n"
        "    #22 seat 5 bets 4.00\n"
        "    #23 seat 3 calls 4.00"
    )
    assert labelled(two, "shown:") == ["seat 5 Ah Ad As 7c 7d: full-house (As Ad Ah 7d 7c)"]
    assert labelled(two, "mucked:") == ["seat 3 3c 3d 3h 4s 5s (won no pot: not shown, R46)"]
    assert labelled(two, "stacks:") == [
        "seat 1 96.00 (-2.00), seat 3 97.00 (-6.00), seat 5 105.00 (+7.00)"
    ]
    # the game's own blinds
    assert labelled(three, "blinds:") == ["seat 1 small 2.00, seat 3 big 5.00"]
    assert labelled(three, "preflop:") == [""]
    assert labelled(three, "returned:") == ["seat 3 3.00"]
    assert labelled(three, "stacks:") == [
        "seat 1 94.00 (-2.00), seat 3 98.00 (+1.00), seat 5 105.00 (0.00)"
    ]


# -- PHH, --json ----------------------------------------------------------------------------


def test_phh_export_refuses_every_game_it_has_no_code_for_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Stud, draw and Chinese Poker have no PHH variant code; a Dealer's Choice hand is refused
    even in a game PHH writes (the journal keeps the table's limits, not the game's own): exit
    2, a message naming the hand and why, nothing written."""
    cases: list[tuple[str, Sequence[Event], str]] = [
        (
            "seven-card-stud-003.toml",
            SEVEN_STUD,
            "hand 1: PHH has no variant code for seven-card-stud played fixed-limit",
        ),
        (
            "lowball-003.toml",
            [seat(1, "100"), seat(3, "100"), start(button=1), act(3, "fold")],
            "hand 1: PHH has no variant code for lowball played fixed-limit",
        ),
        (
            "chinese-poker-003.toml",
            [
                seat(1, "100"),
                seat(2, "100"),
                start(button=1),
                chinese_set(1, *SEAT_1),
                chinese_set(2, *SEAT_4),
            ],
            "hand 1: PHH has no variant code for chinese-poker",
        ),
        (
            "dealers-choice-003.toml",
            [
                seat(1, "100"),
                seat(3, "100"),
                {"type": "hand.start", "button": 1, "game": "texas-holdem"},
                act(3, "fold"),
            ],
            "hand 1: a Dealer's Choice hand (texas-holdem): the journal keeps the table's limits",
        ),
    ]
    for k, (name, events, message) in enumerate(cases):
        folder = tmp_path / str(k)
        folder.mkdir()
        cfg = shipped(folder, name)
        poker_journal(cfg, events)
        code, out, err = run(["export", "--config", str(cfg), "--format", "phh"], capsys)
        assert (code, out) == (2, ""), name
        assert err.startswith(f"tablectl: {message}"), err
        assert "Traceback" not in err


def test_recall_json_carries_every_games_result_and_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--json`: each result as published, with the inputs that played it."""
    cfg = shipped(tmp_path, "dealers-choice-003.toml")
    poker_journal(cfg, DEALERS_CHOICE)
    hands = [json.loads(line) for line in recall(cfg, capsys, "--json").splitlines()]
    assert [h["game"] for h in hands] == ["razz", "five-card-draw", "omaha-hi-lo"]
    assert hands[1]["journal"][0]["type"] == "hand.start"
    assert hands[1]["journal"][0]["game"] == "five-card-draw"
    assert {"seq": 18, **draw(5, 3, "Kc Qc 2s", "As 7c 7d")} in hands[1]["journal"]
    folder = tmp_path / "chinese"
    folder.mkdir()
    cfg = shipped(folder, "chinese-poker-003.toml")
    poker_journal(
        cfg,
        [
            seat(1, "100"),
            seat(2, "100"),
            start(button=1),
            chinese_set(1, *SEAT_1),
            chinese_set(2, *SEAT_4),
        ],
    )
    (line,) = recall(cfg, capsys, "--json").splitlines()
    result = json.loads(line)
    assert result["hands"][0]["front"] == SEAT_1[0].split()
    assert [i["type"] for i in result["journal"]] == ["hand.start", "chinese.set", "chinese.set"]


# -- every shipped poker config ---------------------------------------------------------------


Step = Event | str | Callable[[dict[str, Any]], list[Event]]
"""A sample hand's step: an input; "round": every seat to act checks or calls until the
betting round is over; or a function of the table's `state` giving inputs (the draw and the
buy go in turn from the dealer's left, which depends on the button)."""


def play_journal(cfg_path: Path, steps: Sequence[Step]) -> None:
    """Journal a sample hand as the daemon does (tests/history/test_poker_recall.py's
    `poker_journal`,
    with its `round` and state-dependent steps played against the table as it stands). Every
    input must be accepted."""
    cfg = load_config(cfg_path)
    table = Table(cfg)
    journal = Journal(cfg.journal_path, table=cfg.table.table)
    seq = 0

    def apply(body: Event) -> None:
        nonlocal seq
        seq += 1
        src = "driver/reader" if body["type"] == "table.card" else "cmd/console"
        rec = journal.append(replay_ts(seq), src, None, journal_body(body))
        rows = table.apply(rec)
        journal.write_outputs(rec, rows)
        alerts = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
        refused = [a for a in alerts if a["kind"] in ("rejected", "invalid-input", "invalid")]
        assert not refused, f"{body} was refused: {refused}"

    try:
        apply({"type": "config", "rules": cfg.rules.to_json()})
        for step in steps:
            if step == "round":
                while True:
                    hand = table.state_payload().get("hand")
                    if not hand or hand["phase"] != "betting" or hand["turn"] is None:
                        break
                    to_call = hand["to_call"] not in ("0", "0.00")
                    apply(act(int(hand["turn"]), "call" if to_call else "check"))
            elif callable(step):
                for body in step(dict(table.state_payload())):
                    apply(body)
            else:
                assert isinstance(step, dict)
                apply(step)
    finally:
        journal.close()


SEATS = (1, 3, 5)
HOLES = {1: "Kc Ks Kd 8s 8d", 3: "Ah 2h 3c 8c Qc", 5: "Qd Jd Td 4s 2s"}
"""Each seat's five cards (a flop game's hole cards are the first two to four)."""
DRAWN = {1: "", 3: "Qc:5d", 5: "4s 2s:9c 9h"}
"""Each seat's draw in the sample: its discards and the cards it is given."""
UP = {1: "Kh 7h 2c Jh", 3: "9c 4d 9d 3s", 5: "5h 7c 6h 6d"}
"""Each seat's up cards, street by street."""


def dealt_in(state: dict[str, Any]) -> list[int]:
    """The seats dealt in, clockwise from the button's left: the order of the draw and the
    buy."""
    button = int(state["button"])
    return sorted(SEATS, key=lambda s: (s <= button, s))


def sample_hand(game: str, *, button: int | None = None) -> list[Step]:
    """A hand of `game` to its showdown, every round checked or called around."""
    begin: Event = {"type": "hand.start"}
    if button is not None:
        begin["button"] = button
    if game == "chinese-poker":
        sets = [chinese_set(1, *SEAT_1), chinese_set(3, *SEAT_2), chinese_set(5, *SEAT_4)]
        return [begin, *sets]
    if game in ("texas-holdem", "omaha", "omaha-hi-lo", "crazy-pineapple-hi-lo"):
        n = {"texas-holdem": 2, "crazy-pineapple-hi-lo": 3}.get(game, 4)
        holes = [hole(s, " ".join(HOLES[s].split()[:n])) for s in SEATS]
        flop: list[Step] = [{"type": "board.cards", "cards": ["5c", "6c", "7d"]}]
        if n == 3:
            flop.append(
                lambda st: [
                    {"type": "hole.discard", "seat": s, "card": HOLES[s].split()[2]}
                    for s in dealt_in(st)
                ]
            )
        turn: Event = {"type": "board.cards", "cards": ["Tc"]}
        river: Event = {"type": "board.cards", "cards": ["Js"]}
        return [begin, *holes, "round", *flop, "round", turn, "round", river, "round"]
    if game in ("five-card-draw", "five-card-draw-hi-lo", "lowball"):

        def draws(state: dict[str, Any]) -> list[Event]:
            out = []
            for s in dealt_in(state):
                thrown, _, given = DRAWN[s].partition(":")
                out.append(draw(s, len(thrown.split()), thrown, given))
            return out

        return [begin, *(hole(s, HOLES[s]) for s in SEATS), "round", draws, "round"]
    five = game in ("five-card-stud", "option-alley")
    downs = {s: HOLES[s].split()[: 1 if five else 2] for s in SEATS}
    steps: list[Step] = [begin, *(hole(s, " ".join(downs[s])) for s in SEATS)]
    for k in range(4):
        steps += [up(**{f"s{s}": UP[s].split()[k] for s in SEATS}), "round"]
    if game == "option-alley":
        steps.append(
            lambda st: [
                {"type": "option.buy", "seat": s}
                if s != 5
                else {"type": "option.buy", "seat": 5, "discard": "5h", "card": "Ad"}
                for s in dealt_in(st)
            ]
        )
        steps.append("round")
    elif not five:
        steps += [down(**{f"s{s}": HOLES[s].split()[2] for s in SEATS}), "round"]
    return steps


def poker_configs() -> list[tuple[str, str]]:
    """Every shipped poker room config: (file name, game id)."""
    games = {
        "texas-holdem",
        "omaha",
        "omaha-hi-lo",
        "crazy-pineapple-hi-lo",
        "seven-card-stud",
        "seven-card-stud-hi-lo",
        "razz",
        "five-card-stud",
        "option-alley",
        "five-card-draw",
        "five-card-draw-hi-lo",
        "lowball",
        "chinese-poker",
        "dealers-choice",
    }
    found = []
    for path in sorted(CONFIG.glob("*.toml")):
        game = tomllib.loads(path.read_text(encoding="utf-8")).get("game", {}).get("id")
        if game in games:
            found.append((path.name, str(game)))
    return found


def test_every_game_of_the_poker_room_has_a_shipped_config_here() -> None:
    assert len({game for _, game in poker_configs()}) == 14


@pytest.mark.parametrize(("name", "game"), poker_configs())
def test_recall_of_every_shipped_poker_configs_sample_hand_does_not_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, game: str
) -> None:
    """A sample hand of the config's game (Dealer's Choice: one hand of each game it offers,
    the button moving round) recalls as text and as JSON, every hand in its game's form, and
    PHH export either writes it or refuses it with a message."""
    cfg = shipped(tmp_path, name)
    seats = [seat(s, "200" if game == "chinese-poker" else "100") for s in SEATS]
    if game == "dealers-choice":
        offered = tomllib.loads((CONFIG / name).read_text(encoding="utf-8"))["game"]["games"]
        steps: list[Step] = []
        for k, chosen in enumerate(offered):
            hand = sample_hand(chosen, button=1 if k == 0 else None)
            assert isinstance(hand[0], dict)
            hand[0]["game"] = chosen
            steps += hand
        games = list(offered)
    else:
        steps = sample_hand(game, button=1)
        games = [game]
    play_journal(cfg, [*seats, *steps])
    out = recall(cfg, capsys, "--last", "0")
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    assert len(heads) == len(games)
    for head, played in zip(heads, games, strict=True):
        assert head.startswith(("Hand ", "Round ")) and f"{played}, " in head
    if game == "chinese-poker":
        assert len(labelled(out.splitlines(), "seat ")) == 3
    else:
        assert all("shown:" in block for block in out.split("\nHand ")), out
    results = [
        json.loads(line) for line in recall(cfg, capsys, "--json", "--last", "0").splitlines()
    ]
    assert [r["game"] for r in results] == games
    code, text, err = run(["export", "--config", str(cfg), "--format", "phh"], capsys)
    if code == 0:
        assert text.startswith("[1]") and not err
    else:
        assert (code, text) == (2, "") and err.startswith("tablectl: hand 1: "), err
