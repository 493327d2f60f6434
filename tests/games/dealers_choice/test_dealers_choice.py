"""Dealer's Choice (003 "Dealer's Choice") as the daemon plays it: the shipped
config built into a `Table`, fed console inputs. "The player located on the dealer's button is
allowed to choose the game to be played for that hand ... The rules for each game apply. Then
the dealer button is rotated, and the game is chosen by the next dealer." Amounts by hand."""

from __future__ import annotations

from typing import Any

from tablectl.table import Table
from tests.games.poker.test_poker_hands import act, alerts, play, rows_by, table_of
from tests.games.stud.test_stud_hands import hole, state, up
from tests.helpers import feed


def seated(table: Table) -> None:
    for seat in (1, 3, 5):
        play(table, {"type": "seat.take", "seat": seat, "stack": "100"})


def start(game: str, **more: Any) -> dict[str, Any]:
    return {"type": "hand.start", "game": game, **more}


def test_each_hand_the_button_chooses_its_game_and_its_limits_apply() -> None:
    table = table_of("dealers-choice-003.toml")
    seated(table)
    assert state(table)["game"] == "dealers-choice"
    refused = feed(table, {"type": "hand.start", "button": 1})
    assert "chooses the game" in alerts(refused)[0]["reason"]
    refused = feed(table, start("omaha", button=1))
    assert "not offered" in alerts(refused)[0]["reason"]
    # Hand 1, the button on seat 1 chooses Hold'em: the table's $1/$2 blinds by seats 3 and 5.
    out = play(table, start("texas-holdem", button=1))
    echo = rows_by(out, "event")[0]
    assert echo["game"] == "texas-holdem"
    assert [p["amount"] for p in echo["posted"]] == ["1.00", "2.00"]
    view = state(table)
    assert view["game"] == "texas-holdem"
    assert view["dealers_choice"]["game"] == "texas-holdem"
    out = play(table, act(1, "fold"), act(3, "fold"))  # seat 5 takes the blinds
    (result,) = rows_by(out, "round/result")
    assert result["game"] == "texas-holdem"
    # Hand 2: the button moves to seat 3, whose player chooses Omaha hi-lo at its own limits:
    # blinds $2 and $5 by seats 5 and 1.
    out = play(table, start("omaha-hi-lo"))
    echo = rows_by(out, "event")[0]
    assert echo["button"] == 3 and echo["game"] == "omaha-hi-lo"
    assert [(p["seat"], p["amount"]) for p in echo["posted"]] == [(5, "2.00"), (1, "5.00")]
    play(table, act(3, "fold"), act(5, "fold"))  # seat 1 takes the blinds
    # Hand 3: the button on seat 5 chooses Razz: stud's inputs now.
    play(table, start("razz"))
    assert state(table)["hand"]["phase"] == "deal"
    play(table, up(s1="2h", s3="Kc", s5="9d"))  # dealt 1, 3, 5: seat 5 on the button
    stacks = {s["seat"]: s["stack"] for s in state(table)["seats"]}
    # Hand 1: seat 5's $1 not called comes back; the $2 pot less the $1 modified fee (it
    # ended before the flop) to seat 5: 5 at 100, 3 at 99. Hand 2: seat 1's $3 not called comes
    # back; $4 less $1 to seat 1: 1 at 101, 5 at 98. Hand 3's blinds: seat 1 $1, seat 3 $2.
    assert stacks == {1: "100.00", 3: "97.00", 5: "98.00"}


def test_lowball_is_dealt_without_the_joker_at_dealers_choice() -> None:
    """003 "Lowball" rule 1: "When playing Dealer's Choice, no joker will be added"."""
    table = table_of("dealers-choice-003.toml")
    seated(table)
    play(table, start("lowball", button=1))
    refused = feed(table, hole(3, "Ah", "2d", "3s", "4s", "JKR"))
    assert "without the joker" in alerts(refused)[0]["reason"]
    play(table, hole(3, "Ah", "2d", "3s", "4s", "5s"))


def test_a_table_of_one_game_takes_no_choice() -> None:
    table = table_of("texas-holdem-003.toml")
    seated(table)
    refused = feed(table, start("omaha", button=1))
    assert "only at Dealer's Choice" in alerts(refused)[0]["reason"]


def test_a_dealers_choice_table_restores_from_a_snapshot_at_every_record(tmp_path: Any) -> None:
    """Three hands of three games (the hand's game is table state): restored at every record,
    the table plays on as the replay did."""
    from pathlib import Path

    from tablectl.config import load_config
    from tests.helpers import records
    from tests.table.test_snapshot import assert_restores_exactly

    config = Path(__file__).resolve().parents[3] / "config" / "dealers-choice-003.toml"
    cfg = load_config(config)
    inputs: list[dict[str, Any]] = [
        {"type": "config", "rules": cfg.rules.to_json(), "source": "config"},
        *({"type": "seat.take", "seat": s, "stack": "100"} for s in (1, 3, 5)),
        start("texas-holdem", button=1),
        act(1, "fold"),
        act(3, "fold"),
        start("razz"),
        up(s5="2h", s1="Kc", s3="9d"),
        act(3, "call"),
        act(5, "fold"),
        act(1, "check"),
        up(s1="5c", s3="4d"),
        start("lowball") | {"type": "hand.start"},
    ]
    recs = records(inputs)
    assert_restores_exactly(cfg, recs, range(len(recs) + 1))
