"""The parts of the status report worked out by hand (tablectl/daemon/status_report.py): the last
result in one line, never with a card, for each shape of `round/result`; the next month's close."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tablectl.daemon.status_report import journal_entry, next_month, result_line

BACCARAT: dict[str, Any] = {
    "round": 7,
    "game": "ez-baccarat-panda8",
    "outcome": {
        "winner": "banker",
        "player": {"cards": ["4h", "2c", "Kd"], "total": 6},
        "banker": {"cards": ["3s", "4d", "Qh"], "total": 7},
        "dragon7": True,
    },
    "dealt": [{"to": "player", "card": "4h"}],
    "settlements": [
        {"seat": 1, "spot": "player", "amount": "25.00", "status": "lose", "net": "-25.00"},
        {"seat": 2, "spot": "dragon7", "amount": "5.00", "status": "win", "net": "200.00"},
    ],
}


def test_a_baccarat_coup_reads_winner_totals_flags_and_the_players_net() -> None:
    # seat 1 loses 25 on player, seat 2's dragon 7 pays 40 to 1 on 5: 200 - 25 = +175.00
    assert result_line(BACCARAT) == (
        "round 7: banker wins 6-7 [dragon7]; 2 wager(s) settled, players net +175.00"
    )


def test_a_tie_and_a_losing_table_for_the_players() -> None:
    tie = {
        **BACCARAT,
        "outcome": {"winner": "tie", "player": {"total": 8}, "banker": {"total": 8}},
        "settlements": [{"net": "-25.00"}, {"net": "-5.00"}],
    }
    assert result_line(tie) == "round 7: tie 8-8; 2 wager(s) settled, players net -30.00"


def test_a_void_says_why() -> None:
    void = {"round": 3, "void": True, "reason": "cards lost", "outcome": None, "settlements": []}
    assert result_line(void) == "round 3 void: cards lost"


def test_a_banked_game_without_a_coup_counts_wagers_and_money() -> None:
    blackjack = {
        "round": 12,
        "game": "pure-21.5-blackjack",
        "outcome": {"dealer": {"cards": ["Th", "7c"], "total": 17}},
        "settlements": [{"net": "10.00"}, {"net": "0.00"}, {"net": "-15.00"}],
    }
    assert result_line(blackjack) == "round 12: 3 wager(s) settled, players net -5.00"


def test_a_poker_hand_names_the_pots_and_the_seats_paid_not_the_hands_shown() -> None:
    hand = {
        "round": 41,
        "game": "texas-holdem",
        "board": ["Ah", "Kd", "7c", "7s", "2h"],
        "pots": [
            {"amount": "120.00", "paid": [{"seat": 3, "amount": "120.00"}]},
            {
                "amount": "40.00",
                "paid": [{"seat": 2, "amount": "20.00"}, {"seat": 5, "amount": "20.00"}],
            },
        ],
        "shown": [{"seat": 3, "cards": ["As", "Ad"]}],
    }  # fmt: skip
    line = result_line(hand)
    assert line == "hand 41: pot 120.00 to seat 3; pot 40.00 to seats 2, 5"
    assert not any(card in line for card in ("Ah", "As", "Ad", "Kd"))


def test_a_chinese_poker_round_counts_its_payments() -> None:
    rnd = {
        "round": 5,
        "game": "chinese-poker",
        "hands": [{"seat": 1, "cards": ["2h"]}, {"seat": 2}, {"seat": 3}],
        "payments": [{"from": 1, "to": 2}, {"from": 3, "to": 2}],
    }
    assert result_line(rnd) == "round 5: 2 payment(s) between 3 hands"


def test_a_shape_it_does_not_know_still_gives_its_round() -> None:
    assert result_line({"round": 9, "game": "someone-elses"}) == "round 9 finished"


@pytest.mark.parametrize(
    ("month", "closes"),
    [("2026-11", "2026-12-01T00:00:00Z"), ("2026-12", "2027-01-01T00:00:00Z")],
)
def test_the_next_months_close(month: str, closes: str) -> None:
    assert next_month(month) == closes


def test_the_journal_entry_looks_at_the_file_and_its_wal(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    path.write_bytes(b"x" * 4096)
    assert journal_entry(path, "2026-11", close_due=False) == {
        "path": str(path),
        "bytes": 4096,
        "wal_bytes": None,  # no -wal: a journal closed cleanly
        "month": "2026-11",
        "closes_after": "2026-12-01T00:00:00Z",
        "close_due": False,
    }


def test_a_stored_result_that_is_no_result_any_more_leaves_the_status_without_one(
    tmp_path: Path,
) -> None:
    """The last `round/result` in the outbox is what `status` shows after a restart; a row edited
    into something else must not stop the start (a loop). (Found in review.)"""
    import sqlite3

    from tablectl.daemon import Daemon
    from tests.helpers import make_config
    from tests.journal.test_tamper import SESSION, ingest

    cfg = make_config(tmp_path)
    ingest(cfg, SESSION, None).close()
    db = sqlite3.connect(cfg.journal_path)
    assert db.execute("UPDATE outbox SET payload = X'7b6e6f' WHERE topic LIKE '%/round/result'")
    db.commit()
    db.close()
    daemon = Daemon(cfg, mqtt=False)
    try:
        assert daemon._stored_result() is None
    finally:
        daemon.journal.close()
