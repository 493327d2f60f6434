"""Alerts a person must act on: they stay open, on the retained `alerts/open`,
until `cmd/alert.ack` closes them with who and why; a table playing outside the rules' pace band
raises one. All of it is derived from the journal: a replay, a snapshot and the live table agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tablectl import snapshot
from tablectl.alerts import OPEN_KEPT, OpenAlert, OpenAlerts
from tablectl.config import ConfigError, LoadedConfig
from tablectl.outputs import OutboxRow
from tablectl.records import Record, format_ts
from tablectl.table import Table, journal_body
from tests.helpers import bank, cards, config_dict, make_config, payload, payloads, wager

START = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def status(fault: str | None, available: bool = True) -> dict[str, Any]:
    body = {"type": "device.status", "device": "shoe", "available": available, "fault": fault}
    return {**body, "detail": {}}


class Run:
    """A table fed records one by one at chosen times (the journal's `ts`)."""

    def __init__(self, cfg: LoadedConfig) -> None:
        self.table = Table(cfg)
        self.now = START
        self.rows: list[OutboxRow] = []
        self.records: list[Record] = []

    def feed(
        self, event: dict[str, Any], source: str = "test", ref: str | None = None
    ) -> list[OutboxRow]:
        self.now += timedelta(seconds=1)
        seq = self.table.position + 1
        rec = Record(seq, format_ts(self.now), source, ref, journal_body(event), "", "")
        out = self.table.apply(rec)
        self.records.append(rec)
        self.rows += out
        return out

    def round(self) -> list[OutboxRow]:
        """One coup: the seat R5 offers the bank posts it, a player bets, P 9h Kd v B 2c 3s."""
        seat = self.table.state_payload()["bank_offer_seat"] or 3  # None: no offer yet
        out = self.feed(bank(seat, "500"))
        out += self.feed(wager(seat % 7 + 1, "player", "20"))
        for card in cards("9h 2c Kd 3s"):
            out += self.feed(card, source="device/shoe")
        assert len(payloads(out, "round/result")) == 1, payloads(out, "alert")
        return out

    def ack(self, alert_id: int, by: str = "floor:ann", why: str = "reseated") -> list[OutboxRow]:
        body = {"type": "alert.ack", "alert": alert_id, "by": by, "why": why}
        return self.feed(body, source="cmd/alert.ack", ref=f"a{self.table.position}")


def opened(rows: list[OutboxRow]) -> dict[str, Any]:
    """The newest `alerts/open` among `rows`."""
    (*_, last) = [r for r in rows if r.topic.endswith("/alerts/open")]
    assert last.retain
    return payload(last)


def test_a_device_fault_stays_open_until_acknowledged_with_who_and_why(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path))
    out = run.feed(status("JAM"), source="device/shoe")
    (fault,) = payloads(out, "alert")
    assert fault["kind"] == "device-fault"
    listed = opened(out)["open"]
    assert listed == [
        {
            "id": fault["seq"],
            "kind": "device-fault",
            "reason": fault["reason"],
            "since": fault["ts"],
        }
    ]
    # The device coming back does not close it: someone must say what they did.
    out = run.feed(status(None), source="device/shoe")
    assert [r for r in out if r.topic.endswith("/alerts/open")] == []
    out = run.ack(fault["seq"], by="floor:ann", why="reseated the shoe")
    (echo,) = payloads(out, "event")
    assert echo == {
        "table": echo["table"],
        "seq": echo["seq"],
        "ts": echo["ts"],
        "v": 1,
        "type": "alert.ack",
        "alert": fault["seq"],
        "kind": "device-fault",
        "by": "floor:ann",
        "why": "reseated the shoe",
    }
    assert opened(out) == {**opened(out), "open": [], "overflow": 0}
    assert payloads(out, "cmd/alert.ack/reply")[0]["ok"] is True


def test_an_ack_of_no_open_alert_is_refused_naming_what_is_open(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path))
    fault = payloads(run.feed(status("JAM"), source="device/shoe"), "alert")[0]
    out = run.ack(fault["seq"] + 50)
    (refused,) = payloads(out, "alert")
    assert refused["rule"] == "alert.ack"
    assert refused["reason"] == f"no open alert {fault['seq'] + 50} (open: {fault['seq']})"
    assert payloads(out, "cmd/alert.ack/reply")[0]["ok"] is False
    run.ack(fault["seq"])
    out = run.ack(fault["seq"])  # twice: the second finds nothing open
    assert payloads(out, "alert")[0]["reason"] == f"no open alert {fault['seq']} (open: none)"


def test_an_ack_needs_who_and_why(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path))
    out = run.feed({"type": "alert.ack", "alert": 1, "why": "x"}, source="cmd/alert.ack", ref="1")
    (refused,) = payloads(out, "alert")
    assert refused["kind"] == "invalid-input" and "by" in refused["reason"]


def test_a_held_round_opens_with_the_fault_and_both_close_one_by_one(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path))
    run.feed(bank(3, "500"))
    run.feed(wager(4, "player", "20"))
    run.feed(cards("9h")[0], source="device/shoe")
    out = run.feed(status("JAM"), source="device/shoe")
    kinds = {a["kind"]: a["seq"] for a in payloads(out, "alert")}
    assert [a["kind"] for a in opened(out)["open"]] == ["device-fault", "round-held"]
    out = run.ack(kinds["round-held"])
    assert [a["id"] for a in opened(out)["open"]] == [kinds["device-fault"]]


def test_the_open_list_is_bounded_and_counts_what_fell_off(tmp_path: Path) -> None:
    alerts = OpenAlerts()
    for i in range(1, OPEN_KEPT + 3):
        alerts = alerts.opened(OpenAlert(i, "device-fault", "x", "t"))
    assert [a.id for a in alerts.items] == list(range(3, OPEN_KEPT + 3))
    assert alerts.payload()["overflow"] == 2


def test_a_table_playing_faster_than_the_band_raises_one_pace_alert(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, pace={"min_rounds_per_hour": 1, "max_rounds_per_hour": 3})
    run = Run(cfg)
    for _ in range(3):
        assert [a["kind"] for a in payloads(run.round(), "alert")] == []
    out = run.round()  # the fourth within minutes: 4 > 3
    (pace,) = payloads(out, "alert")
    assert pace["kind"] == "pace" and pace["pace"] == "fast"
    assert pace["rounds_last_hour"] == 4 and pace["band"] == {"min": 1, "max": 3}
    assert [a["kind"] for a in opened(out)["open"]] == ["pace"]
    assert payloads(run.round(), "alert") == []  # still fast: once per excursion


def test_a_slow_table_is_alerted_only_after_an_hour_of_play(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, pace={"min_rounds_per_hour": 30})
    run = Run(cfg)
    kinds: list[list[str]] = []
    for _ in range(8):  # one coup every 10 minutes: 6 an hour, far below 30
        kinds.append([a["kind"] for a in payloads(run.round(), "alert")])
        run.now += timedelta(minutes=10)
    # The coups at 0, 10 ... 50 minutes: under an hour of play, not judged; at 60+: slow, once.
    assert kinds == [[], [], [], [], [], [], ["pace"], []]
    pace = next(a for a in payloads(run.rows, "alert") if a["kind"] == "pace")
    assert pace["pace"] == "slow" and pace["rounds_last_hour"] == 6


def test_a_break_of_an_hour_starts_a_new_session_not_a_slow_alert(tmp_path: Path) -> None:
    run = Run(make_config(tmp_path, pace={"min_rounds_per_hour": 30}))
    run.round()
    run.now += timedelta(hours=3)  # the table closed for a while
    assert payloads(run.round(), "alert") == []


def test_without_a_band_no_pace_is_kept_and_the_rules_json_is_unchanged(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    assert "pace" not in cfg.rules.to_json()  # rules journaled before issue 14 keep their digest
    with_band = make_config(tmp_path, pace={"max_rounds_per_hour": 90})
    assert with_band.rules.to_json()["pace"] == {
        "min_rounds_per_hour": None,
        "max_rounds_per_hour": 90,
    }


def test_a_band_upside_down_is_refused_at_its_key(tmp_path: Path) -> None:
    from tablectl.config import parse_config

    raw = config_dict(tmp_path, pace={"min_rounds_per_hour": 90, "max_rounds_per_hour": 30})
    with pytest.raises(ConfigError, match="pace") as caught:
        parse_config(raw, tmp_path / "table.toml")
    assert "min_rounds_per_hour (90) is above max_rounds_per_hour (30)" in str(caught.value)


def test_replay_and_snapshot_hold_the_same_open_alerts_and_pace(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, pace={"max_rounds_per_hour": 2})
    run = Run(cfg)
    run.feed(status("JAM"), source="device/shoe")
    run.feed(status(None), source="device/shoe")
    for _ in range(3):
        run.round()
    assert [a.kind for a in run.table.open_alerts.items] == ["device-fault", "pace"]
    # Replayed without publishing (a start, an import): same list, same message count.
    replayed = Table(cfg)
    for rec in run.records:
        replayed.advance(rec)
    assert replayed.open_alerts == run.table.open_alerts
    assert replayed.pace == run.table.pace
    assert replayed.seq == run.table.seq
    restored = snapshot.restore(cfg, snapshot.encode(run.table))
    assert snapshot.encode(restored) == snapshot.encode(run.table)
    assert restored.open_alerts == run.table.open_alerts and restored.pace == run.table.pace


def test_the_journals_trouble_journaled_after_it_waits_for_a_person(tmp_path: Path) -> None:
    """The daemon journals `journal.trouble` once the journal takes inputs again."""
    run = Run(make_config(tmp_path))
    body = {
        "type": "journal.trouble",
        "reason": "database or disk is full",
        "since": "2026-11-27T20:00:00.000000Z",
        "until": "2026-11-27T20:05:00.000000Z",
    }
    out = run.feed(body, source="journal")
    (trouble,) = payloads(out, "alert")
    assert trouble["kind"] == "journal-trouble"
    assert (trouble["since"], trouble["until"]) == (body["since"], body["until"])
    assert trouble["reason"] == (
        "the journal could not be written from 2026-11-27T20:00:00.000000Z to "
        "2026-11-27T20:05:00.000000Z (database or disk is full): inputs waited, commands were "
        "refused"
    )
    assert [a["id"] for a in opened(out)["open"]] == [trouble["seq"]]
    assert opened(run.ack(trouble["seq"]))["open"] == []
