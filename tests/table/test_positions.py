"""Every card knows its place: a device input carries its position in the device's own
count, and the table deals it only when it is the next one. A position read twice is never dealt
twice; one past a gap waits for the positions before it; a gap the device cannot fill holds the
round until the dealer enters the missing cards at the console (R39) or voids it.

The coup used throughout is R25's: P 9h, B 2c, P Kd, B 3s: player 9 (natural) v banker 5, the
player wins; seat 4's $20 on the player is paid 1 to 1 and seat 5's $30 on the banker is lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.game_records import GameRecord, StateChanged
from tablectl.table import Table
from tests.helpers import (
    WITH_SHOE,
    FullWayTable,
    bank,
    feed,
    make_config,
    payloads,
    play,
    records,
    wager,
)

SHOE = "device/shoe"
COUP = ["9h", "2c", "Kd", "3s"]


def card(c: str, pos: int, run: str | None = "S1", source: str = SHOE) -> dict[str, Any]:
    at: dict[str, Any] = {"pos": pos}
    if run is not None:
        at["run"] = run
    return {"type": "shoe.card", "card": c, "at": at, "source": source}


def new_shoe(run: str = "S1") -> dict[str, Any]:
    return {"type": "shoe.new", "at": {"run": run, "pos": 0}, "source": SHOE}


def gap(after: int, missing: list[int] | None, run: str = "S1") -> dict[str, Any]:
    return {
        "type": "device.gap",
        "device": "shoe",
        "run": run,
        "after": after,
        "missing": missing,
        "reason": "the shoe has no record of them",
        "source": SHOE,
    }


def betting() -> list[dict[str, Any]]:
    return [new_shoe(), bank(3, "500"), wager(4, "player", "20"), wager(5, "banker", "30")]


def cards_of(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    o = result["outcome"]
    return o["player"]["cards"], o["banker"]["cards"]


def alert_kinds(rows: Any) -> list[str]:
    return [a["kind"] for a in payloads(rows, "alert")]


def test_cards_in_order_are_dealt_and_the_result_names_their_positions(tmp_path: Path) -> None:
    deal = [card(c, i) for i, c in enumerate(COUP, 1)]
    table, rows = play(make_config(tmp_path), [*betting(), *deal])
    (result,) = payloads(rows, "round/result")
    assert cards_of(result) == (["9h", "Kd"], ["2c", "3s"])
    assert result["positions"] == [{"device": "shoe", "run": "S1", "pos": [1, 2, 3, 4]}]
    assert "entered_by_hand" not in result
    assert table.cursor("shoe") == {"run": "S1", "pos": 4, "seq": None}


def test_a_card_read_twice_is_not_dealt_twice_5c_4c_4c_kd(tmp_path: Path) -> None:
    """The issue's double read: the shoe reports 2c at position 2 twice. Without positions the
    second 2c went to the player; with them it is told and dropped, and the coup is the true
    one (P 9h Kd v B 2c 3s)."""
    events = [*betting(), card("9h", 1), card("2c", 2), card("2c", 2), card("Kd", 3), card("3s", 4)]
    _, rows = play(make_config(tmp_path), events)
    assert "position-repeated" in alert_kinds(rows)
    repeated = next(a for a in payloads(rows, "alert") if a["kind"] == "position-repeated")
    assert "2c" not in str(repeated)
    (result,) = payloads(rows, "round/result")
    assert cards_of(result) == (["9h", "Kd"], ["2c", "3s"])
    assert result["positions"][0]["pos"] == [1, 2, 3, 4]


def test_a_different_card_at_a_dealt_position_holds_the_round(tmp_path: Path) -> None:
    events = [*betting(), card("9h", 1), card("2c", 2), card("5d", 2)]
    table, rows = play(make_config(tmp_path), events)
    assert alert_kinds(rows)[-2:] == ["position-conflict", "round-held"]
    assert table.held is not None and "position 2 of S1" in table.held
    assert payloads(rows, "round/result") == []


def test_a_card_past_a_gap_waits_and_the_resend_completes_the_true_deal(tmp_path: Path) -> None:
    """Position 2 is lost on the wire; 3 arrives first and waits; the resend brings 2 (and 3
    again, which is not dealt twice); the coup completes as dealt, with no hold."""
    events = [*betting(), card("9h", 1), card("Kd", 3)]
    table, rows = play(make_config(tmp_path), events)
    assert alert_kinds(rows) == ["gap"]
    assert "position(s) 2 of S1 not yet reported" in payloads(rows, "alert")[0]["reason"]
    assert payloads(rows, "state")[-1]["gaps"] == {
        "shoe": "device shoe: position(s) 2 of S1 not yet reported"
    }
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert payloads(out, "cmd/round.resume/reply")[0]["ok"] is False
    out = feed(table, _strip(card("2c", 2)), source=SHOE)
    assert [e["card"] for e in payloads(out, "event") if e["type"] == "shoe.card"] == ["2c", "Kd"]
    out = feed(table, _strip(card("Kd", 3)), source=SHOE)  # the resend repeats it: not dealt again
    assert alert_kinds(out) == ["position-repeated"]
    out = feed(table, _strip(card("3s", 4)), source=SHOE)
    (result,) = payloads(out, "round/result")
    assert cards_of(result) == (["9h", "Kd"], ["2c", "3s"])
    assert result["positions"][0]["pos"] == [1, 2, 3, 4]
    assert table.held is None


def _strip(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "source"}


def test_an_unfillable_gap_holds_until_the_dealer_enters_the_card_by_hand_R39(
    tmp_path: Path,
) -> None:
    events = [*betting(), card("9h", 1), gap(1, [2]), card("Kd", 3), card("3s", 4)]
    table, rows = play(make_config(tmp_path, **WITH_SHOE), events)  # a table with its reader
    kinds = alert_kinds(rows)
    assert kinds[:2] == ["gap", "round-held"]
    assert "enter the missing cards at the console" in payloads(rows, "alert")[0]["reason"]
    assert payloads(rows, "round/result") == []
    # Resume is refused while position 2 is missing.
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert "position(s) 2 of S1 missing" in payloads(out, "cmd/round.resume/reply")[0]["reason"]
    # The console may not enter a card anywhere else, nor without a position.
    out = feed(table, _strip(card("2c", 5)), source="cmd/shoe.card", ref="c1")
    assert payloads(out, "cmd/shoe.card/reply")[0]["ok"] is False
    out = feed(table, {"type": "shoe.card", "card": "2c"}, source="cmd/shoe.card", ref="c2")
    assert payloads(out, "cmd/shoe.card/reply")[0]["ok"] is False
    # The dealer enters 2c at position 2: the gap is filled, everything waits for the resume.
    entry = {"type": "shoe.card", "card": "2c", "at": {"pos": 2}}
    out = feed(table, entry, source="cmd/shoe.card", ref="c3")
    assert payloads(out, "cmd/shoe.card/reply")[0]["ok"] is True
    assert "gap-filled" in alert_kinds(out)
    assert payloads(out, "round/result") == []
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r2")
    assert payloads(out, "cmd/round.resume/reply")[0]["ok"] is True
    (result,) = payloads(out, "round/result")
    assert cards_of(result) == (["9h", "Kd"], ["2c", "3s"])
    assert result["positions"] == [{"device": "shoe", "run": "S1", "pos": [1, 2, 3, 4]}]
    assert result["entered_by_hand"] == [{"device": "shoe", "run": "S1", "pos": 2}]


def test_a_void_gives_up_the_gap_and_the_count_carries_on_after_it(tmp_path: Path) -> None:
    events = [*betting(), card("9h", 1), gap(1, [2]), card("Kd", 3)]
    table, _ = play(make_config(tmp_path), events)
    out = feed(table, {"type": "round.void"}, source="cmd/round.void", ref="v1")
    assert payloads(out, "cmd/round.void/reply")[0]["ok"] is True
    (result,) = payloads(out, "round/result")
    assert result["void"] is True
    assert "held-inputs-discarded" in alert_kinds(out)
    assert table.cursor("shoe") == {"run": "S1", "pos": 3, "seq": None}
    assert table.held is None and not table.ledgers["shoe"].blocked()


def test_nothing_known_after_a_position_mid_round_can_only_be_voided(tmp_path: Path) -> None:
    """The shoe kept no record of S1 after position 2 (say it was power-cycled): whatever was
    dealt after it cannot be confirmed, so the round waits for a void."""
    events = [*betting(), card("9h", 1), card("2c", 2), gap(2, None), new_shoe("S2")]
    table, rows = play(make_config(tmp_path), events)
    assert "nothing of S1 after position 2 can be confirmed" in payloads(rows, "alert")[0]["reason"]
    out = feed(table, {"type": "round.resume"}, source="cmd/round.resume", ref="r1")
    assert payloads(out, "cmd/round.resume/reply")[0]["ok"] is False
    out = feed(table, {"type": "round.void"}, source="cmd/round.void", ref="v1")
    assert payloads(out, "round/result")[0]["void"] is True
    assert table.held is None


def test_an_unknown_gap_between_rounds_is_told_and_play_goes_on(tmp_path: Path) -> None:
    table, rows = play(make_config(tmp_path), [new_shoe(), card("9h", 1), gap(1, None)])
    assert alert_kinds(rows)[-1] == "gap"
    assert table.held is None


def test_a_new_shoe_restarts_the_count(tmp_path: Path) -> None:
    deal1 = [card(c, i) for i, c in enumerate(COUP, 1)]
    deal2 = [card(c, i, run="S2") for i, c in enumerate(COUP, 1)]
    events = [*betting(), *deal1, new_shoe("S2"), bank(3, "500"), wager(4, "player", "20"), *deal2]
    table, rows = play(make_config(tmp_path), events)
    results = payloads(rows, "round/result")
    assert [r["positions"][0]["run"] for r in results] == ["S1", "S2"]
    assert table.cursor("shoe") == {"run": "S2", "pos": 4, "seq": None}


def test_the_cursor_is_the_journals_so_a_restart_resumes_from_it(tmp_path: Path) -> None:
    """A fresh Table fed the same records (what the daemon does at start-up)
    has the same cursor, SEQ included, so a gap across a restart is seen like any other."""
    seq_card = {**card("9h", 1), "at": {"run": "S1", "pos": 1, "seq": 41}}
    events = [*betting(), seq_card, card("Kd", 3)]
    first, _ = play(make_config(tmp_path), events)
    again = Table(make_config(tmp_path))
    for rec in records(events):
        again.apply(rec)
    assert first.cursor("shoe") == again.cursor("shoe") == {"run": "S1", "pos": 1, "seq": 41}
    assert again.ledgers["shoe"].missing() == (2,)


# -- never dealt out of place, whatever the wire does (hypothesis) -------------------------------


class _Recorder:
    """A stand-in engine that accepts every input and remembers what it was dealt: what the
    table lets through is all this property is about."""

    game_id = "recorder"

    def __init__(self) -> None:
        self.dealt: list[tuple[int, str]] = []

    def initial(self) -> int:
        return 0

    def apply(self, state: int, event: Any, ts: str) -> tuple[int, list[GameRecord]]:
        if event.type == "shoe.card":
            self.dealt.append((event.at.pos, event.card))
        return state + 1, []

    def void(self, state: int, reason: str, ts: str) -> tuple[int, list[GameRecord]]:
        return state, []

    def in_deal(self, state: int) -> bool:
        return True

    def between_rounds(self, state: int) -> bool:
        return False

    def state_view(self, state: int) -> StateChanged:
        return StateChanged(state, "dealing", 0, {})


TRUTH = ["Ah", "2d", "3c", "4s", "5h", "6d", "7c", "8s", "9h", "Td", "Jc", "Qs"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, len(TRUTH)), max_size=40))
def test_whatever_arrives_only_the_next_position_is_ever_dealt(
    tmp_path_factory: pytest.TempPathFactory, arrivals: list[int]
) -> None:
    """Any order, loss and repetition of a shoe's cards on the wire: the game is dealt exactly
    the true cards 1..k in order, where k is the longest run of positions from 1 that arrived."""
    table = Table(make_config(tmp_path_factory.mktemp("p")))
    engine = _Recorder()
    table.engine = engine
    table.state = engine.initial()
    feed(table, _strip(new_shoe()), source=SHOE)
    for pos in arrivals:
        feed(table, _strip(card(TRUTH[pos - 1], pos)), source=SHOE)
    k = 0
    while k + 1 in arrivals:
        k += 1
    assert engine.dealt == [(p, TRUTH[p - 1]) for p in range(1, k + 1)]


def test_a_resend_of_what_already_waits_past_a_gap_is_quiet(tmp_path: Path) -> None:
    table, _ = play(make_config(tmp_path), [*betting(), card("9h", 1), card("Kd", 3)])
    assert feed(table, _strip(card("Kd", 3)), source=SHOE) == []
    out = feed(table, _strip(gap(1, [2])), source=SHOE)
    assert [a["kind"] for a in payloads(out, "alert")] == ["gap", "round-held"]
    # The same gap told again (the driver reconnected and asked again) adds nothing.
    assert feed(table, _strip(gap(1, [2])), source=SHOE) == []


def test_a_count_begun_without_a_run_takes_the_runs_name_when_it_is_told(tmp_path: Path) -> None:
    """A driver heard cards before any NEW (a fresh journal, a shoe already in play): its first
    positions have no run; once the shoe's id is known the same count goes on under it."""
    events = [card("9h", 7, run=None), card("2c", 8, run="S4"), card("Kd", 9, run="S4")]
    table, rows = play(make_config(tmp_path), events)
    assert table.cursor("shoe") == {"run": "S4", "pos": 9, "seq": None}
    assert [a["kind"] for a in payloads(rows, "alert")].count("gap") == 0


def test_recall_shows_each_cards_position_and_those_entered_by_hand_R39(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A regulator reading `recall` sees where each card sat in the shoe and which one the
    dealer entered at the console (R39)."""
    from tablectl.cli import main
    from tablectl.journal import Journal
    from tablectl.records import now_ts
    from tablectl.table import journal_body
    from tests.helpers import write_config

    path = write_config(tmp_path)
    journal = Journal(tmp_path / "journal.db", table="t1")
    entry = {"type": "shoe.card", "card": "2c", "at": {"pos": 2}, "source": "cmd/shoe.card"}
    events = [*betting(), card("9h", 1), gap(1, [2]), card("Kd", 3), card("3s", 4), entry]
    events.append({"type": "round.resume", "source": "cmd/round.resume"})
    for ev in events:
        body = {k: v for k, v in ev.items() if k != "source"}
        journal.append(now_ts(), ev.get("source", "test"), None, journal_body(body))
    journal.close()
    assert main(["recall", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "shoe.card 9h at 1 of S1" in out
    assert "shoe.card 2c at 2  (entered by hand, R39)" in out
    assert "shoe.card Kd at 3 of S1\n" in out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, len(TRUTH)), max_size=40))
def test_a_replay_places_every_arrival_as_the_live_table_does(
    tmp_path_factory: pytest.TempPathFactory, arrivals: list[int]
) -> None:
    """`advance` (a start's or an import's replay, which takes a short way for the card that is
    simply next in its count: `Table._simple_input`) keeps the device's count, what waits, the
    round's positions and the message count exactly as `apply` does the full way, record by
    record, and deals the game the same cards."""
    cfg = make_config(tmp_path_factory.mktemp("p"))
    live, quiet = FullWayTable(cfg), Table(cfg)
    for table in (live, quiet):
        table.engine = _Recorder()
        table.state = table.engine.initial()
    for rec in records([new_shoe(), *(card(TRUTH[pos - 1], pos) for pos in arrivals)]):
        live.apply(rec)
        quiet.advance(rec)
        kept = (live.seq, live.state, live.ledgers, live.round_positions, live.round_devices)
        assert (
            quiet.seq,
            quiet.state,
            quiet.ledgers,
            quiet.round_positions,
            quiet.round_devices,
        ) == kept
        assert (quiet.held, quiet.held_inputs) == (live.held, live.held_inputs)
    assert isinstance(live.engine, _Recorder) and isinstance(quiet.engine, _Recorder)
    assert quiet.engine.dealt == live.engine.dealt


def test_a_table_without_its_reader_deals_the_cards_the_dealer_keys_R55(tmp_path: Path) -> None:
    """`manual_entry = true` (no card reader): the dealer keys each card at the console, without
    a position, and the table deals it in order (R55), where a table with its reader refuses a
    card keyed outside a gap (R39, above). Player 9h Kd = 9 against banker 2c 4s = 6: a natural
    9, player wins (the baccarat tableau, R25: both stand on a natural)."""
    cfg = make_config(tmp_path)  # no reader: manual_entry
    assert cfg.rules.manual_entry and cfg.rules.to_json()["manual_entry"] is True
    table, _ = play(cfg, betting())
    out = []
    for n, code in enumerate(["9h", "2c", "Kd", "4s"]):
        out += feed(table, {"type": "shoe.card", "card": code}, source="cmd/shoe.card", ref=f"k{n}")
    assert all(p["ok"] for p in payloads(out, "cmd/shoe.card/reply"))
    (result,) = payloads(out, "round/result")
    assert result["outcome"]["winner"] == "player"
    assert [result["outcome"][side]["total"] for side in ("player", "banker")] == [9, 6]
    with_reader = make_config(tmp_path, **WITH_SHOE).rules
    assert not with_reader.manual_entry and "manual_entry" not in with_reader.to_json()
