"""The shipped Three Card Poker 6 Card Bonus configs pass `tablectl check-config` (contract 4) and
say what their documents say: seats, 6 Card Bonus table, action start and wager order (R2, R3,
R29). The config's own deck-colour check
(004 "Three Card Poker 6 Card Bonus: Description of the Deck and Number of Decks Used") is pinned
here too, and whole rounds through the shipped 004 table, worked by hand from the document."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, load_config, parse_config
from tablectl.games.three_card_poker.spec import ThreeCardPokerGame
from tablectl.table import Table
from tests.helpers import as_plugged_in, bank, feed, make_config, payload, wager

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("doc", "seats", "six_card", "action_start", "wager_order"),
    [
        # 000 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
        # Positions" seven places; lines 417-424 TCB-6B4; line 324 action button, Play first
        ("000", 7, "TCB-6B4", "action-button", "play-first"),
        # 001 "Type of gaming table utilized for this game" eight places; lines 142-150 the 001
        # table; line 97 action button
        ("001", 8, "TCB-001", "action-button", "ante-first"),
        # 003 "Three Card Poker 6 Card Bonus: Type of gaming table utilized for this game" eight
        # places; lines 982-989 TCB-6B4; line 935 left of the player-dealer
        ("003", 8, "TCB-6B4", "player-dealer-left", "ante-first"),
        # 004 "Three Card Poker 6 Card Bonus: Description of Table Used and Total Number of Seated
        # Positions" seven places; lines 618-627 TCB-6B2; line 526 Ante first
        ("004", 7, "TCB-6B2", "action-button", "ante-first"),
    ],
)
def test_shipped_config_checks_and_follows_its_document_R2_R3_R29(
    capsys: pytest.CaptureFixture[str],
    doc: str,
    seats: int,
    six_card: str,
    action_start: str,
    wager_order: str,
) -> None:
    path = ROOT / "config" / f"three-card-poker-6cb-{doc}.toml"
    assert main(["check-config", str(path)]) == 0, capsys.readouterr()
    out, err = as_plugged_in(*capsys.readouterr())
    assert err == ""
    assert f"ok: three-card-poker-6cb (document {doc}) table" in out
    cfg = load_config(path)
    game = cfg.table.game
    assert isinstance(game, ThreeCardPokerGame)
    assert cfg.table.seats.count == seats
    assert game.six_card_bonus_table == six_card
    assert game.pair_plus_table == "PP-MR200"
    assert (game.action_start, game.wager_order) == (action_start, wager_order)
    assert cfg.table.collection is not None
    assert cfg.table.collection.file == f"schedules/three-card-poker-6cb-{doc}.toml"
    assert [d.driver for d in cfg.table.devices] == ["shuffler"]


@pytest.mark.parametrize(
    ("colours", "why"),
    [
        (["red", "red"], "different colours"),
        (["Red", "blue"], "lowercase"),
        (["red", ""], "lowercase"),
    ],
)
def test_deck_colours_are_two_different_names_line_488(
    tmp_path: Path, colours: list[str], why: str
) -> None:
    game = {
        "id": "three-card-poker-6cb",
        "decks": None,
        "banker_push_on_dragon7": None,
        "bet_timer_seconds": None,
        "deck_colours": colours,
    }
    with pytest.raises(ConfigError) as err:
        make_config(tmp_path, game=game)
    assert why in str(err.value)


# -- whole rounds through the shipped tables, worked by hand ---------------------------------------


def shipped_table(doc: str, tmp_path: Path) -> Table:
    """A Table running `config/three-card-poker-6cb-<doc>.toml` as shipped (journal in tmp)."""
    path = ROOT / "config" / f"three-card-poker-6cb-{doc}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["journal"]["path"] = str(tmp_path / "journal.db")
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    return Table(parse_config(data, tmp_path / "table.toml"))


def stack(cards: str, deck: str) -> dict[str, Any]:
    return {"type": "shuffler.stack", "cards": cards.split(), "deck": deck}


def decide(seat: int, action: str, amount: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "seat": seat, "action": action}
    return ev if amount is None else {**ev, "amount": amount}


def play_round(table: Table, events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The round's result and every payload published while it was played."""
    rows = [row for ev in events for row in feed(table, ev)]
    assert not [r for r in rows if r.topic.endswith("/alert")]
    (result,) = [payload(r) for r in rows if r.topic.endswith("/round/result")]
    return result, [r.payload.decode() for r in rows]


def settled(result: dict[str, Any]) -> list[tuple[int, str, str, str, str]]:
    return [
        (s["seat"], s["player"], s["spot"], s["status"], s["net"]) for s in result["settlements"]
    ]


def test_004_table_round_by_hand_fold_backline_and_an_exhausted_bank_R1_R2_R29(
    tmp_path: Path,
) -> None:
    table = shipped_table("004", tmp_path)
    result, texts = play_round(
        table,
        [
            bank(2, "200"),
            wager(3, "ante", "10"),
            wager(3, "pair-plus", "5"),
            wager(3, "six-card-bonus", "5"),
            wager(6, "ante", "20"),
            wager(6, "six-card-bonus", "10"),
            wager(7, "ante", "5"),
            # back-line betting
            # (004 "Three Card Poker 6 Card Bonus: Dealing Procedures and Round of Play")
            wager(7, "ante", "10", player="bob"),
            wager(7, "pair-plus", "5", player="bob"),
            {"type": "bets.close"},
            # stacks from the player-dealer's left: seats 3, 6, 7, then seat 2 (line 524, R29)
            stack("8h 8c 8d", "red"),  # seat 3: three eights
            stack("4s 5s 6s", "red"),  # seat 6: 6-high straight flush
            stack("Kd Jc 3h", "red"),  # seat 7: king-high, folded
            stack("Qs Js Ts", "red"),  # player-dealer: Q-high straight flush, Qs face up
            decide(3, "play"),
            decide(6, "play"),
            decide(7, "fold"),
        ],
    )
    # Qs = 12 counts seats 1, 3, 4, 5, 6, 7 (seat 2 skipped): (12 - 1) mod 6 = 5 -> seat 7 (R2)
    assert result["action_seat"] == 7
    # the player-dealer's straight flush qualifies and beats trips and the 6-high straight
    # flush (004 "Three Card Poker 6 Card Bonus: Card Values and Hand Rankings"); TCB-6B2
    # (004 "Three Card Poker 6 Card Bonus: 6 Card Bonus"): seat 3's six cards make three eights (5:1
    # = 25), seat 6's six spades a Q-J-T-6-5 flush (15:1 = 150); Pair Plus (lines 593-598): three of
    # a kind 30:1 = 150; bob's Pair Plus is forfeited by the fold.
    # R1 with B = 200: collected 5 + 10 + 5 + 10 + 10 = 40 (funds 240), paid 150 and 25
    # (funds 65), collected 20 + 20 (funds 105), so seat 6's 150 is paid 105: partial.
    assert settled(result) == [
        (7, "p7", "ante", "lose", "-5.00"),
        (7, "bob", "ante", "lose", "-10.00"),
        (7, "bob", "pair-plus", "lose", "-5.00"),
        (3, "p3", "ante", "lose", "-10.00"),
        (3, "p3", "play", "lose", "-10.00"),
        (3, "p3", "pair-plus", "win", "150.00"),
        (3, "p3", "six-card-bonus", "win", "25.00"),
        (6, "p6", "ante", "lose", "-20.00"),
        (6, "p6", "play", "lose", "-20.00"),
        (6, "p6", "six-card-bonus", "partial", "105.00"),
    ]
    assert (result["bank"]["start"], result["bank"]["end"]) == ("200.00", "0.00")
    # R4, 004 option 1 (lines 638-642): total action 10+5+5+20+10+5+10+5 = 70 -> "$50-$95 $1"
    assert [(f["payer"], f["amount"]) for f in result["fees"]] == [("player-dealer", "1.00")]
    for card in ("Kd", "Jc", "3h"):  # the folded hand, on no topic ever (contract 3)
        assert not any(f'"{card}"' in t for t in texts), card


def test_004_table_round_by_hand_player_dealer_not_qualifying_R29(tmp_path: Path) -> None:
    table = shipped_table("004", tmp_path)
    result, _ = play_round(
        table,
        [
            bank(2, "100"),
            wager(5, "ante", "10"),
            wager(5, "ante", "10"),  # chips added: seat 5's Ante is 20
            wager(5, "six-card-bonus", "5"),
            wager(1, "ante", "25"),
            wager(1, "pair-plus", "10"),
            stack("2c 3d Ah", "blue"),  # seat 5: A-2-3, the lowest straight (R29)
            stack("Kh 7h 2h", "blue"),  # seat 1: a king-high flush
            stack("9c 6d 4s", "blue"),  # player-dealer: 9-high does not qualify (line 563)
            decide(5, "play", "20"),
            decide(1, "play"),
        ],
    )
    # 9c = 9 counts seats 1, 3, 4, 5, 6, 7: (9 - 1) mod 6 = 2 -> seat 4, no wager -> seat 5 (R2)
    assert result["action_seat"] == 5
    # not qualifying: each Ante paid even money, each Play "no action" (lines 564-565); seat 5's
    # six cards 2c 3d Ah 9c 6d 4s hold no pair, no five of a suit, no run of five: the 6 Card
    # Bonus loses; seat 1's flush pays Pair Plus 3:1 = 30 (line 597).
    assert settled(result) == [
        (5, "p5", "ante", "win", "10.00"),
        (5, "p5", "ante", "win", "10.00"),
        (5, "p5", "play", "push", "0.00"),
        (5, "p5", "six-card-bonus", "lose", "-5.00"),
        (1, "p1", "ante", "win", "25.00"),
        (1, "p1", "play", "push", "0.00"),
        (1, "p1", "pair-plus", "win", "30.00"),
    ]
    assert result["bank"]["end"] == "30.00"  # 100 - 10 - 10 + 5 - 25 - 30
    # total action 10 + 10 + 5 + 25 + 10 = 60 -> "$50-$95 $1"
    # (004 "Three Card Poker 6 Card Bonus: Wagering Limits and Collection Fees")
    assert [f["amount"] for f in result["fees"]] == ["1.00"]
