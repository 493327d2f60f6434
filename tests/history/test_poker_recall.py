"""`tablectl recall` of poker hands: the button, blinds, each seat's hole cards (the journal's:
recall is the floor's tool), every action by street with its amount, the board, the showdown,
the pots and their winners, the fee and the stacks after; a misdeal says so.

Journals are built as the daemon builds them (journal the body, apply it to the Table, store the
outputs), from a poker table config written here: `poker_config` and `poker_journal` are shared
with tests/history/test_phh_export.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import load_config
from tablectl.journal import Journal
from tablectl.records import replay_ts
from tablectl.table import Table, journal_body

Event = dict[str, Any]


def poker_config(
    tmp_path: Path,
    *,
    game: str = "texas-holdem",
    structure: str = "fixed-limit",
    stakes: tuple[str, str] | None = ("4", "8"),
    blinds: tuple[str, str] = ("2", "4"),
    document: str = "003",
    schedule: str = "hand",
    options: list[int] | None = None,
    seats: int = 9,
    reader: bool = False,
) -> Path:
    """A poker table's config under `tmp_path`: by default $4-$8 fixed-limit Hold'em under 003
    with its own per-hand schedule ($1 before the flop, then $1/$2/$3 by players dealt in);
    `schedule="half-hour"` makes it a time collection, which takes nothing from the pots;
    `options` names the document's posted schedule options instead; `reader` adds the
    card-reading table as device `reader`."""
    stakes_line = "" if stakes is None else f'stakes = ["{stakes[0]}", "{stakes[1]}"]\n'
    if schedule == "hand":
        fees = (
            'per = "hand"\nmodified_fee = "1"\nrates = [\n  { from = 2, to = 4, fee = "1" },\n'
            '  { from = 5, to = 6, fee = "2" },\n  { from = 7, fee = "3" },\n]\n'
        )
    else:
        fees = 'per = "half-hour"\nrates = [{ from = 2, fee = "1" }]\n'
    collection = (
        f"[game.collection]\noptions = {options}\n"
        if options is not None
        else f"[game.collection.schedule]\noption = 1\n{fees}"
    )
    text = (
        'site = "room"\ntable = "poker-1"\n\n[game]\n'
        f'id = "{game}"\ndocument = "{document}"\nstructure = "{structure}"\n{stakes_line}'
        f'blinds = ["{blinds[0]}", "{blinds[1]}"]\nchip = "1"\n\n'
        f"{collection}\n"
        f"[seats]\ncount = {seats}\n\n"
        f'[journal]\npath = "{tmp_path / "poker.db"}"\n'
    )
    if reader:
        text += '\n[[devices]]\nname = "reader"\ndriver = "poker-table"\nport = "/dev/null"\n'

    path = tmp_path / "poker.toml"
    path.write_text(text, encoding="utf-8")
    return path


def poker_journal(
    cfg_path: Path,
    events: Sequence[Event],
    *,
    source: str = "cmd/console",
    refusals: bool = False,
) -> Path:
    """Journal `events` as the daemon does (after the config record); every one must be
    accepted unless `refusals` (a refused input is journaled too). Returns the journal's path."""
    cfg = load_config(cfg_path)
    table = Table(cfg)
    journal = Journal(cfg.journal_path, table=cfg.table.table)
    try:
        bodies: list[tuple[str, Event]] = [
            ("config", {"type": "config", "rules": cfg.rules.to_json()})
        ]
        # the reader's placements come from its driver, the rest from the console
        bodies += [
            ("driver/reader" if e["type"] in ("table.card", "device.status") else source, e)
            for e in events
        ]
        for seq, (src, body) in enumerate(bodies, start=1):
            rec = journal.append(replay_ts(seq), src, None, journal_body(body))
            rows = table.apply(rec)
            journal.write_outputs(rec, rows)
            alerts = [json.loads(r.payload) for r in rows if r.topic.endswith("/alert")]
            refused = [a for a in alerts if a["kind"] in ("rejected", "invalid-input", "invalid")]
            assert refusals or not refused, f"{body} was refused: {refused}"
    finally:
        journal.close()
    return cfg.journal_path


def seat(s: int, stack: str) -> Event:
    return {"type": "seat.take", "seat": s, "stack": stack}


def start(button: int | None = None) -> Event:
    return {"type": "hand.start"} if button is None else {"type": "hand.start", "button": button}


def hole(s: int, cards: str) -> Event:
    return {"type": "hole.cards", "seat": s, "cards": cards.split()}


def board(cards: str) -> Event:
    return {"type": "board.cards", "cards": cards.split()}


def act(s: int, action: str, amount: str | None = None) -> Event:
    ev: Event = {"type": "decision", "seat": s, "action": action}
    if amount is not None:
        ev["amount"] = amount
    return ev


# Three players, $4-$8 fixed limit, blinds $2/$4, button seat 1: seat 3 small blind, seat 5 big.
# Preflop seat 1 raises to 8, seat 3 calls 6, seat 5 folds (4 in). Flop: 3 bets 4, 1 raises to
# 8, 3 calls. Turn: both check. River: 3 bets 8, 1 calls. Pot 4 + 8+8 + 8+8 + 8+8 = 52, less the
# fee of $1 (2-4 players dealt in) from the main pot: seat 3's flush takes 51.
HAND_ONE: list[Event] = [
    seat(1, "100"),
    seat(3, "100"),
    seat(5, "100"),
    start(button=1),
    hole(3, "Ah Kh"),
    hole(5, "2c 7d"),
    hole(1, "Qs Qd"),
    act(1, "raise", "8"),
    act(3, "call"),
    act(5, "fold"),
    board("Ac Qh 3s"),
    act(3, "bet", "4"),
    act(1, "raise", "8"),
    act(3, "call"),
    board("9h"),
    act(3, "check"),
    act(1, "check"),
    board("2h"),
    act(3, "bet", "8"),
    act(1, "call"),
]
MISDEAL: list[Event] = [start(), {"type": "round.void", "reason": "two cards exposed"}]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def hand_blocks(out: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("Hand "):
            blocks.append([line])
        else:
            assert blocks, f"text before the first hand: {line!r}"
            blocks[-1].append(line)
    return blocks


def labelled(block: list[str], label: str) -> list[str]:
    return [ln.strip().removeprefix(label).strip() for ln in block if ln.strip().startswith(label)]


def test_recall_prints_a_poker_hand_as_the_floor_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, HAND_ONE)
    code, out, err = run(["recall", "--config", str(cfg)], capsys)
    assert (code, err) == (0, "")
    (block,) = hand_blocks(out)
    assert block[0].startswith("Hand 1  (texas-holdem, button seat 1, finished ")
    assert labelled(block, "blinds:") == ["seat 3 small 2.00, seat 5 big 4.00"]
    # every seat dealt in with its stack before the blinds and its hole cards, by position
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  Ah Kh",
        "5   p5            100.00  2c 7d",
        "1   p1            100.00  Qs Qd  button",
    ]
    text = "\n".join(block)
    # every action in order, by street, with its amount and journal record
    assert (
        "  preflop:\n"
        "    #9 seat 1 raises to 8.00\n"
        "    #10 seat 3 calls 6.00\n"
        "    #11 seat 5 folds\n"
        "  flop:     Ac Qh 3s  (board Ac Qh 3s; #12)\n"
        "    #13 seat 3 bets 4.00\n"
        "    #14 seat 1 raises to 8.00\n"
        "    #15 seat 3 calls 4.00\n"
        "  turn:     9h  (board Ac Qh 3s 9h; #16)\n"
        "    #17 seat 3 checks\n"
        "    #18 seat 1 checks\n"
        "  river:    2h  (board Ac Qh 3s 9h 2h; #19)\n"
        "    #20 seat 3 bets 8.00\n"
        "    #21 seat 1 calls 8.00\n"
    ) in text
    # the showdown: the winner shown, the loser's hand from the journal, not shown (R46)
    assert labelled(block, "shown:") == ["seat 3 Ah Kh: flush (Ah Kh Qh 9h 2h)"]
    assert labelled(block, "mucked:") == ["seat 1 Qs Qd (won no pot: not shown, R46)"]
    # 4 + 2 x 8 + 2 x 8 + 2 x 8 = 52 in, $1 (three players dealt in) taken from the main pot
    assert labelled(block, "main pot:") == ["51.00 (seats 1 3): high seat 3; paid seat 3 51.00"]
    assert labelled(block, "fee:") == ["1.00 (3 players dealt in)"]
    assert labelled(block, "stacks:") == [
        "seat 1 76.00 (-24.00), seat 3 127.00 (+27.00), seat 5 96.00 (-4.00)"
    ]


def test_recall_says_a_misdeal_returned_every_chip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, [*HAND_ONE, *MISDEAL])
    code, out, _ = run(["recall", "--config", str(cfg), "--round", "2"], capsys)
    assert code == 0
    (block,) = hand_blocks(out)
    assert block[0].startswith("Hand 2  (texas-holdem, button seat 3, ")
    assert labelled(block, "void:") == ["two cards exposed (every chip put in returned)"]
    assert labelled(block, "blinds:") == ["seat 5 small 2.00, seat 1 big 4.00"]
    assert labelled(block, "returned:") == ["seat 5 2.00, seat 1 4.00"]
    assert not labelled(block, "fee:") and not labelled(block, "main pot:")
    assert labelled(block, "stacks:") == [
        "seat 1 76.00 (0.00), seat 3 127.00 (0.00), seat 5 96.00 (0.00)"
    ]


THREE_ALL_INS: list[Event] = [
    seat(2, "20"),
    seat(4, "50"),
    seat(6, "100"),
    start(button=6),
    hole(2, "Ah Ad"),
    hole(4, "Kh Kd"),
    hole(6, "Qh Qd"),
    act(6, "call"),
    act(2, "all-in"),
    act(4, "all-in"),
    act(6, "call"),
    board("2c 7s 9d"),
    board("Jc"),
    board("3h"),
]
"""No limit $1/$2, button seat 6: seat 2 (20) shoves, seat 4 (50) raises all in, seat 6 (100)
calls 50: a main pot of 60 (2, 4, 6) and a side pot of 60 (4, 6); the board runs out."""


def test_recall_shows_all_ins_side_pots_and_a_hand_won_without_a_showdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No limit $1/$2, time collection (no fee from the pots). Hand 1: seat 2 (20) shoves, seat 4
    # (50) raises all-in, seat 6 (100) calls 50: main pot 60 (2, 4, 6), side pot 60 (4, 6).
    # Hand 2: the button raises and both blinds fold: won without a showdown.
    cfg = poker_config(
        tmp_path, structure="no-limit", stakes=None, blinds=("1", "2"), schedule="half-hour"
    )
    events = [
        *THREE_ALL_INS,
        start(),
        act(2, "raise", "6"),
        act(4, "fold"),
        act(6, "fold"),
    ]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    one, two = hand_blocks(out)
    text = "\n".join(one)
    assert "    #9 seat 6 calls 2.00\n" in text
    assert "    #10 seat 2 all-in, raises to 20.00\n" in text
    assert "    #11 seat 4 all-in, raises to 50.00\n" in text
    assert "    #12 seat 6 calls 48.00\n" in text
    assert labelled(one, "main pot:") == ["60.00 (seats 2 4 6): high seat 2; paid seat 2 60.00"]
    assert labelled(one, "side pot 1:") == ["60.00 (seats 4 6): high seat 4; paid seat 4 60.00"]
    assert labelled(one, "fee:") == ["0.00 (3 players dealt in)"]
    assert labelled(two, "no showdown:") == ["everyone else folded"]
    assert labelled(two, "returned:") == ["seat 2 4.00"]


def test_recall_json_carries_the_hands_start_and_its_hole_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, HAND_ONE)
    code, out, _ = run(["recall", "--config", str(cfg), "--json"], capsys)
    assert code == 0
    (line,) = out.splitlines()
    hand = json.loads(line)
    assert hand["round"] == 1 and hand["pots"][0]["high"] == [3]
    kinds = [i["type"] for i in hand["journal"]]
    assert kinds[:4] == ["hand.start", "hole.cards", "hole.cards", "hole.cards"]
    at_start = hand["journal"][0]["at_start"]
    assert at_start["structure"] == "fixed-limit" and at_start["stakes"] == ["4.00", "8.00"]
    assert at_start["blinds"] == ["2.00", "4.00"] and at_start["seat_count"] == 9
    assert at_start["seats"] == [
        {"seat": 1, "player": "p1", "stack": "100.00"},
        {"seat": 3, "player": "p3", "stack": "100.00"},
        {"seat": 5, "player": "p5", "stack": "100.00"},
    ]
    assert {"type": "hole.cards", "seat": 1, "cards": ["Qs", "Qd"]} in [
        {k: v for k, v in i.items() if k != "seq"} for i in hand["journal"]
    ]


def read(zone: str, card: str, pos: int, s: int | None = None) -> Event:
    """A placement the card-reading table reports (docs/protocols/poker-table.md)."""
    ev: Event = {"type": "table.card", "zone": zone, "card": card}
    if s is not None:
        ev["seat"] = s
    ev["at"] = {"run": "1", "pos": pos}
    return ev


# HAND_ONE read by the card-reading table: hole cards card by card, a burn to the muck before
# each street, the board card by card (the flop is whole at its third card).
READER_HAND: list[Event] = [
    seat(1, "100"),
    seat(3, "100"),
    seat(5, "100"),
    start(button=1),
    read("seat", "Ah", 1, 3),
    read("seat", "2c", 2, 5),
    read("seat", "Qs", 3, 1),
    read("seat", "Kh", 4, 3),
    read("seat", "7d", 5, 5),
    read("seat", "Qd", 6, 1),
    act(1, "raise", "8"),
    act(3, "call"),
    act(5, "fold"),
    read("muck", "5c", 7),
    read("board", "Ac", 8),
    read("board", "Qh", 9),
    read("board", "3s", 10),
    act(3, "bet", "4"),
    act(1, "raise", "8"),
    act(3, "call"),
    read("muck", "5d", 11),
    read("board", "9h", 12),
    act(3, "check"),
    act(1, "check"),
    read("muck", "5h", 13),
    read("board", "2h", 14),
    act(3, "bet", "8"),
    act(1, "call"),
]


def test_recall_of_a_hand_read_by_the_table_shows_its_cards_by_seat_and_street(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(tmp_path)
    poker_journal(cfg, READER_HAND)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    (block,) = hand_blocks(out)
    assert labelled(block, "seat ")[:3] == [
        "3   p3            100.00  Ah Kh",
        "5   p5            100.00  2c 7d",
        "1   p1            100.00  Qs Qd  button",
    ]
    text = "\n".join(block)
    assert "    #15 to the muck: 5c\n  flop:     Ac Qh 3s  (board Ac Qh 3s; #16-18)\n" in text
    assert "    #22 to the muck: 5d\n  turn:     9h  (board Ac Qh 3s 9h; #23)\n" in text
    assert labelled(block, "shown:") == ["seat 3 Ah Kh: flush (Ah Kh Qh 9h 2h)"]
    assert labelled(block, "stacks:") == [
        "seat 1 76.00 (-24.00), seat 3 127.00 (+27.00), seat 5 96.00 (-4.00)"
    ]


def test_recall_of_a_declared_showdown_says_no_hand_was_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A table without a reader: no hole cards entered; after the river the dealer ranks the
    # hands still in, seat 1 best.
    cfg = poker_config(tmp_path)
    events = [e for e in HAND_ONE if e["type"] != "hole.cards"] + [
        {"type": "showdown", "high": [[1], [3]]}
    ]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    (block,) = hand_blocks(out)
    assert labelled(block, "seat ")[0] == "3   p3            100.00  (no hole cards entered)"
    assert labelled(block, "declared:") == ["#19 showdown high 1 > 3 (no hand read)"]
    assert not labelled(block, "shown:") and not labelled(block, "mucked:")
    assert labelled(block, "main pot:") == ["51.00 (seats 1 3): high seat 1; paid seat 1 51.00"]


def test_recall_of_crazy_pineapple_shows_each_discard_and_the_cards_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = poker_config(
        tmp_path, game="crazy-pineapple-hi-lo", stakes=("3", "6"), blinds=("1", "3"), options=[2]
    )
    checked = [act(2, "check"), act(3, "check"), act(1, "check")]
    events = [
        seat(1, "100"),
        seat(2, "100"),
        seat(3, "100"),
        start(button=1),
        hole(2, "Ah 2h 9c"),
        hole(3, "Kd Ks 4c"),
        hole(1, "7h 8h Jd"),
        act(1, "call"),
        act(2, "call"),
        act(3, "check"),
        board("3h 5d Kc"),
        {"type": "hole.discard", "seat": 2, "card": "9c"},
        {"type": "hole.discard", "seat": 3, "card": "4c"},
        {"type": "hole.discard", "seat": 1, "card": "Jd"},
        *checked,
        board("6c"),
        *checked,
        board("Qd"),
        *checked,
    ]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    (block,) = hand_blocks(out)
    text = "\n".join(block)
    assert (
        "    #13 seat 2 discards 9c\n    #14 seat 3 discards 4c\n    #15 seat 1 discards Jd" in text
    )
    assert labelled(block, "shown:") == [
        "seat 2 Ah 2h: high-card (Ah Kc Qd 6c 5d); low 6-5-3-2-A (Ah 2h 3h 5d 6c)",
        "seat 3 Kd Ks: three-of-a-kind (Kc Ks Kd Qd 6c)",
    ]
    assert labelled(block, "mucked:") == ["seat 1 7h 8h (won no pot: not shown, R46)"]
    # 9 in, the $2 fee: 7, high 4 (the odd chip) to seat 3, low 3 to seat 2
    assert labelled(block, "main pot:") == [
        "7.00 (seats 1 2 3): high seat 3, low seat 2; paid seat 2 3.00, seat 3 4.00"
    ]


def test_recall_lists_actions_held_by_a_device_fault_where_they_were_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Hand 1: the reader jams after seat 1's raise; seat 3's call and seat 5's fold wait
    # (input-held) until the reader is back and the floor resumes the round, which plays them.
    # Hand 2: the reader jams again, seat 3's call waits, and the floor voids the hand instead:
    # the call was never played.
    cfg = poker_config(tmp_path, reader=True)
    fault = {"type": "device.status", "device": "reader", "available": True, "fault": "jam"}
    back = {"type": "device.status", "device": "reader", "available": True}
    resume = {"type": "round.resume"}
    one = [*HAND_ONE[:8], fault, *HAND_ONE[8:10], back, resume, *HAND_ONE[10:]]
    two = [start(), fault, act(3, "call"), {"type": "round.void", "reason": "reader jammed"}]
    poker_journal(cfg, [*one, *two])
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    first, second = hand_blocks(out)
    text = "\n".join(first)
    assert "  preflop:\n    #9 seat 1 raises to 8.00\n    #11 seat 3 calls 6.00\n" in text
    assert "    #12 seat 5 folds\n" in text
    assert labelled(first, "main pot:") == ["51.00 (seats 1 3): high seat 3; paid seat 3 51.00"]
    assert labelled(second, "void:") == ["reader jammed (every chip put in returned)"]
    assert not any("calls" in line for line in second)


JAM = {"type": "device.status", "device": "reader", "available": True, "fault": "jam"}
BACK = {"type": "device.status", "device": "reader", "available": True}


def test_recall_lists_held_inputs_where_the_table_played_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reader fault holds the hand after seat 1's raise; seat 3's call, seat 5's fold and the
    flop are entered meanwhile and played at round.resume in that order: recall puts the call and
    the fold before the flop, as the table played them (review found the flop listed first)."""
    cfg = poker_config(tmp_path, reader=True)
    hand = [*HAND_ONE[:8], JAM, *HAND_ONE[8:11], BACK, {"type": "round.resume"}, *HAND_ONE[11:]]
    poker_journal(cfg, hand)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    preflop = out.index("  preflop:")
    flop = out.index("  flop:")
    assert preflop < out.index("#11 seat 3 calls 6.00") < out.index("#12 seat 5 folds") < flop


def test_recall_leaves_out_a_held_input_refused_when_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seat 5's call, entered out of turn while the hand is held, is refused when the table
    plays it at round.resume: recall lists the call of seat 3 and seat 5's later fold, never
    the refused call (review found it listed in place of the fold)."""
    cfg = poker_config(tmp_path, reader=True)
    hand = [*HAND_ONE[:8], JAM, act(5, "call"), act(3, "call"), BACK, {"type": "round.resume"}]
    poker_journal(cfg, [*hand, act(5, "fold"), *HAND_ONE[10:]], refusals=True)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "#10 seat 5" not in out
    assert "#12 seat 3 calls 6.00" in out and "#15 seat 5 folds" in out


def test_recall_shows_a_discard_read_in_the_muck_as_that_seats_discard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Crazy Pineapple read by the table: each seat's discard goes to the muck, where the table
    takes it as the seat's discard; recall says "seat 1 discards Jd", as for the same hand
    keyed at the console (review found it listed as a card to the muck)."""
    cfg = poker_config(
        tmp_path,
        game="crazy-pineapple-hi-lo",
        stakes=("3", "6"),
        blinds=("1", "3"),
        options=[2],
        reader=True,
    )
    pos = iter(range(1, 100))
    holes = [
        read("seat", c, next(pos), s)
        for s, cards in ((2, "Ah 2h 9c"), (3, "Kd Ks 4c"), (1, "7h 8h Jd"))
        for c in cards.split()
    ]
    checked = [act(2, "check"), act(3, "check"), act(1, "check")]
    events = [seat(1, "100"), seat(2, "100"), seat(3, "100"), start(button=1), *holes]
    events += [act(1, "call"), act(2, "call"), act(3, "check")]
    events += [read("board", c, next(pos)) for c in ("3h", "5d", "Kc")]
    events += [read("muck", c, next(pos)) for c in ("9c", "4c", "Jd")]
    events += [*checked, read("board", "6c", next(pos)), *checked]
    events += [read("board", "Qd", next(pos)), *checked]
    poker_journal(cfg, events)
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "seat 1 discards Jd" in out and "to the muck: Jd" not in out


def test_recall_of_a_kill_pot_with_its_holder_on_the_small_blind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """003 half kill at $2-$4, heads up: seat 1 wins hands 1 and 2, so hand 3 is a kill pot with
    seat 1 on the small blind: it posts the $1 small blind and brings it up to the $3 kill
    blind; recall shows the $1 blind and the $3 kill blind (review found "small 3.00")."""
    path = tmp_path / "kill.toml"
    path.write_text(
        'site = "room"\ntable = "kill-1"\n[game]\nid = "texas-holdem"\ndocument = "003"\n'
        'structure = "fixed-limit"\nstakes = ["2", "4"]\nblinds = ["1", "2"]\nkill = "half"\n'
        '[game.collection.schedule]\noption = 4\nper = "half-hour"\n'
        'rates = [{ from = 2, fee = "1" }]\n[seats]\ncount = 9\n'
        f'[journal]\npath = "{tmp_path / "kill.db"}"\n',
        encoding="utf-8",
    )
    events = [seat(1, "100"), seat(3, "100"), start(button=3), act(1, "raise", "4")]
    events += [act(3, "fold"), start(), act(3, "fold"), start(), act(3, "fold")]
    poker_journal(path, events)
    code, out, _ = run(["recall", "--config", str(path)], capsys)
    assert code == 0
    third = out[out.index("Hand 3") :]
    assert "  blinds:    seat 1 small 1.00, seat 3 big 2.00\n" in third
    assert "  kill pot:  seat 1 posted the kill blind, 3.00\n" in third


def test_recall_calls_an_all_in_over_a_bet_a_raise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No limit, blinds $2/$4 (seats 3 and 5, button 1): seat 1 moves all in for $100 facing
    the big blind: recall says it raises to 100.00 (review found "bets"); both blinds fold."""
    cfg = poker_config(tmp_path, structure="no-limit", stakes=None)
    events = [seat(1, "100"), seat(3, "100"), seat(5, "100"), start(button=1)]
    poker_journal(cfg, [*events, act(1, "all-in"), act(3, "fold"), act(5, "fold")])
    code, out, _ = run(["recall", "--config", str(cfg)], capsys)
    assert code == 0
    assert "seat 1 all-in, raises to 100.00" in out
