"""The shipped Ultimate Texas Hold'em configs pass `tablectl check-config` (contract 4) and play
whole rounds worked by hand from the documents.

config/ultimate-texas-holdem-003.toml is document 003's table (six places,
003 "Ultimate Texas Hold'em: Description of Table Used and Total Number of Seated Positions"; Blind,
Trips and Bad Beat); config/ultimate-texas-holdem-004.toml is document 004's (seven places,
004 "Ultimate Texas Hold'em: Description of Table Used and Total Number of Seated Positions"; Trips
only, 004 "Ultimate Texas Hold'em: Object of the Game").
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, load_config, parse_config
from tablectl.table import Table
from tests.helpers import REPO, as_plugged_in, bank, feed, payload, wager

CONFIGS = [REPO / "config" / "ultimate-texas-holdem-003.toml"]
CONFIGS += [REPO / "config" / "ultimate-texas-holdem-004.toml"]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_passes_check_config_contract4(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", str(path)]) == 0
    out, err = as_plugged_in(*capsys.readouterr())
    assert err == ""
    document = path.stem[-3:]  # each file is named for its document
    assert f"ok: ultimate-texas-holdem (document {document}) table" in out


def test_003_table_has_six_places_and_the_bad_beat_003_3455() -> None:
    cfg = load_config(CONFIGS[0])
    assert cfg.table.seats.count == 6
    assert cfg.rules.game.id == "ultimate-texas-holdem"
    assert getattr(cfg.rules.game, "bad_beat_table", None) == "BADBEAT-003"


def test_004_table_has_seven_places_and_no_bad_beat_004_983_947() -> None:
    cfg = load_config(CONFIGS[1])
    assert cfg.table.seats.count == 7
    assert getattr(cfg.rules.game, "bad_beat_table", "missing") is None


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_plays_a_round_R35(path: Path, tmp_path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["journal"]["path"] = str(tmp_path / "journal.db")
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    table = Table(parse_config(data, tmp_path / "table.toml"))
    # seat 1 As Ad = pair of aces beats the player-dealer's Qh Qs (pair of queens) on
    # Kc 7h 4d 9s 2c: Ante 10 and Play 40 win 1 to 1, the Blind pushes
    # (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid").
    events: list[dict[str, Any]] = [
        bank(4, "1000"),
        wager(1, "ante", "10"),
        wager(1, "blind", "10"),
        {"type": "shuffler.stack", "cards": ["As", "Ad"]},
        {"type": "shuffler.stack", "cards": ["Qh", "Qs"]},
        {"type": "shuffler.stack", "cards": ["Kc", "7h", "4d", "9s", "2c"]},
        {"type": "decision", "seat": 1, "action": "bet", "multiple": 4},
    ]
    rows = [row for ev in events for row in feed(table, ev)]
    (result,) = [payload(r) for r in rows if r.topic.endswith("/round/result")]
    assert [(s["spot"], s["status"], s["net"]) for s in result["settlements"]] == [
        ("ante", "win", "10.00"),
        ("play", "win", "40.00"),
        ("blind", "push", "0.00"),
    ]


def _game(path: Path, **game: Any) -> dict[str, Any]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["game"].update(game)
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    return data


def test_more_than_seven_places_is_refused_004_983(tmp_path: Path) -> None:
    data = _game(CONFIGS[0])
    data["seats"]["count"] = 8
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert [p.key for p in exc.value.problems] == ["seats.count"]


def test_unknown_pay_table_and_deal_start_are_refused(tmp_path: Path) -> None:
    data = _game(CONFIGS[0], bad_beat_table="BADBEAT-999", deal_from="the-middle")
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert {p.key for p in exc.value.problems} == {"game.deal_from"}
    data = _game(CONFIGS[0], bad_beat_table="BADBEAT-999")
    with pytest.raises(ConfigError) as exc:
        parse_config(data, tmp_path / "table.toml")
    assert [p.key for p in exc.value.problems] == ["game.bad_beat_table"]


# -- whole rounds through the shipped tables, worked by hand ---------------------------------------


def shipped_table(path: Path, tmp_path: Path) -> Table:
    """A Table running the shipped config at `path` (journal in tmp)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    data["journal"]["path"] = str(tmp_path / "journal.db")
    data["collection"]["file"] = str(path.parent / data["collection"]["file"])
    return Table(parse_config(data, tmp_path / "table.toml"))


def stack(cards: str) -> dict[str, Any]:
    return {"type": "shuffler.stack", "cards": cards.split()}


def decide(seat: int, action: str, multiple: int | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "decision", "seat": seat, "action": action}
    return ev if multiple is None else {**ev, "multiple": multiple}


def play_round(table: Table, events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """The round's result and every payload published while it was played."""
    rows = [row for ev in events for row in feed(table, ev)]
    assert not [r for r in rows if r.topic.endswith("/alert")]
    (result,) = [payload(r) for r in rows if r.topic.endswith("/round/result")]
    return result, [r.payload.decode() for r in rows]


def settled(result: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    return [(s["seat"], s["spot"], s["status"], s["net"]) for s in result["settlements"]]


def test_003_table_round_by_hand_blind_trips_and_bad_beat_R35(tmp_path: Path) -> None:
    table = shipped_table(CONFIGS[0], tmp_path)
    result, _ = play_round(
        table,
        [
            bank(3, "1000"),
            *[wager(1, spot, amount) for spot, amount in (("ante", "10"), ("blind", "10"))],
            wager(1, "trips", "5"),
            wager(1, "bad-beat", "5"),
            *[wager(5, spot, "10") for spot in ("ante", "blind", "trips")],
            # seat 1 (from the house dealer's left,
            # 003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
            stack("Ah Kh"),
            stack("9c 9d"),  # seat 5
            stack("5s 5c"),  # the player-dealer
            stack("Qh Jh 9h 5d 2s"),
            decide(1, "bet", 4),  # 40
            decide(5, "check"),
            decide(5, "bet", 2),  # 20 on the flop
        ],
    )
    # seat 1: Ah Kh Qh Jh 9h, an ace-high flush; seat 5: three nines (9 9 9 Q J); the
    # player-dealer: three fives (5 5 5 Q J), qualifies. Both win
    # (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"):
    # seat 1 Ante 10, Play 40, Blind flush 3 to 2 = 15 (line 3568), Trips flush 6 to 1 = 30
    # (line 3595), Bad Beat on the beaten three of a kind 9 to 1 = 45 (line 3622); seat 5 Ante
    # 10, Play 20, Blind pushes below a straight (line 3541), Trips 3 to 1 = 30 (line 3597).
    # Payouts from the player-dealer's left, seat by seat: 4, 5, 6, 1, 2 (lines 3510-3511).
    assert settled(result) == [
        (5, "ante", "win", "10.00"),
        (5, "play", "win", "20.00"),
        (5, "blind", "push", "0.00"),
        (5, "trips", "win", "30.00"),
        (1, "ante", "win", "10.00"),
        (1, "play", "win", "40.00"),
        (1, "blind", "win", "15.00"),
        (1, "trips", "win", "30.00"),
        (1, "bad-beat", "win", "45.00"),
    ]
    assert result["bank"]["end"] == "800.00"  # 1000 - 200
    # R4, 003 option 1: pre-deal action 30 + 30 = 60 -> "$51-$100 $2"; the Plays never count
    assert [(f["payer"], f["amount"]) for f in result["fees"]] == [("player-dealer", "2.00")]


def test_003_table_round_by_hand_not_qualifying_and_a_folded_trips_R35(tmp_path: Path) -> None:
    table = shipped_table(CONFIGS[0], tmp_path)
    result, texts = play_round(
        table,
        [
            bank(3, "200"),
            *[wager(2, spot, "10") for spot in ("ante", "blind")],
            wager(2, "trips", "5"),
            *[wager(6, spot, "20") for spot in ("ante", "blind")],
            wager(6, "bad-beat", "5"),
            stack("7c 7d"),  # seat 2
            stack("Ad Kc"),  # seat 6
            stack("8s 4h"),  # the player-dealer
            stack("7s Jc 3d Td 2h"),
            *[decide(seat, "check") for seat in (2, 6, 2, 6)],
            decide(2, "fold"),  # three sevens, folded anyway
            decide(6, "bet", 1),  # 20 at the river
        ],
    )
    # the player-dealer: J-T-8-7-4, no pair, does not qualify
    # (003 "Ultimate Texas Hold'em: How Winners are Determined and Paid"). Seat 6 A-K-J-T-7 wins:
    # Ante pushes (line 3523), Play 1 to 1, Blind pushes (a win below a straight, line 3541), Bad
    # Beat collected (line 3525). Seat 2 folded: Ante and Blind lose (line 3505);
    # its three sevens still win the Trips 3 to 1 = 15 (line 3559).
    assert settled(result) == [
        (6, "ante", "push", "0.00"),
        (6, "play", "win", "20.00"),
        (6, "blind", "push", "0.00"),
        (6, "bad-beat", "lose", "-5.00"),
        (2, "ante", "lose", "-10.00"),
        (2, "blind", "lose", "-10.00"),
        (2, "trips", "win", "15.00"),
    ]
    assert result["bank"]["end"] == "190.00"  # 200 - 20 + 5 + 10 + 10 - 15
    assert result["action_seat"] == 6
    # pre-deal action 10 + 10 + 5 + 20 + 20 + 5 = 70 -> "$51-$100 $2" (003 option 1)
    assert [f["amount"] for f in result["fees"]] == ["2.00"]
    # the folded hand is on no topic
    # (003 "Ultimate Texas Hold'em: Dealing Procedures and Round of Play")
    for card in ("7c", "7d"):
        assert not any(f'"{card}"' in t for t in texts), card


def test_004_table_round_by_hand_the_bank_runs_out_R1_R35(tmp_path: Path) -> None:
    table = shipped_table(CONFIGS[1], tmp_path)
    result, _ = play_round(
        table,
        [
            bank(7, "50"),
            *[wager(1, spot, amount) for spot, amount in (("ante", "10"), ("blind", "10"))],
            wager(1, "trips", "5"),
            *[wager(2, spot, amount) for spot, amount in (("ante", "10"), ("blind", "10"))],
            wager(2, "trips", "5"),
            stack("3h 4h"),  # seat 1
            stack("Ks Kd"),  # seat 2
            stack("Qc Qd"),  # the player-dealer
            stack("5h 6h 7h Kh 2c"),
            decide(1, "bet", 4),  # 40
            decide(2, "bet", 3),  # 30
        ],
    )
    # seat 1: 3h-7h, a straight flush; seat 2: three kings (four hearts only: no flush); the
    # player-dealer: a pair of queens, qualifies. Owed to seat 1: Ante 10, Play 40, Blind 50 to 1
    # = 500, Trips 40 to 1 = 200 (004 "Ultimate Texas Hold'em Paytable"); to seat 2: Ante 10, Play
    # 30, Blind push, Trips 3 to 1 = 15. R1 with B = 50 from seat 1 (left of seat 7): 10 and 40
    # empty the bank, every later winner is returned.
    assert settled(result) == [
        (1, "ante", "win", "10.00"),
        (1, "play", "win", "40.00"),
        (1, "blind", "returned", "0.00"),
        (1, "trips", "returned", "0.00"),
        (2, "ante", "returned", "0.00"),
        (2, "play", "returned", "0.00"),
        (2, "blind", "push", "0.00"),
        (2, "trips", "returned", "0.00"),
    ]
    assert result["bank"]["end"] == "0.00"
    # 004 option 1 (lines 1150-1154): action 50 -> "$25 - $74 $2"; the "$1" player collection
    # once per player (config/schedules/ultimate-texas-holdem-004.toml)
    assert [(f["payer"], f.get("player"), f["amount"]) for f in result["fees"]] == [
        ("player-dealer", None, "2.00"),
        ("player", "p1", "1.00"),
        ("player", "p2", "1.00"),
    ]
