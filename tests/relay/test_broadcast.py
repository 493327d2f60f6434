"""The delayed broadcast feed: what a poker table's journaled records become on
`broadcast/...`, and when. The feed is pure: the tests give it the time."""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tablectl.broadcast import DelayedFeed
from tablectl.config import ConfigError, load_config, parse_config
from tablectl.outputs import OutboxRow
from tablectl.records import Record, format_ts
from tablectl.table import Table, journal_body

CONFIG = Path(__file__).resolve().parents[2] / "config" / "texas-holdem-004.toml"
START = datetime(2026, 11, 26, 20, 0, tzinfo=UTC)


class Played:
    """A poker table fed console inputs one second apart, each record and its rows kept."""

    def __init__(self) -> None:
        self.cfg = load_config(CONFIG)
        self.table = Table(self.cfg)
        self.table.unhidden = []  # the feed is on: the table keeps every echo whole
        self.out: list[tuple[Record, list[OutboxRow], list[dict[str, Any]]]] = []
        self.input({"type": "config", "rules": self.cfg.rules.to_json()}, "config")

    def input(self, body: dict[str, Any], source: str = "console") -> list[OutboxRow]:
        seq = self.table.position + 1
        ts = format_ts(START + timedelta(seconds=seq))
        rec = Record(seq, ts, source, None, journal_body(body), "", "")
        rows = self.table.apply(rec)
        self.out.append((rec, rows, self.table.take_unhidden()))
        return rows


def hand_with_hole_cards() -> Played:
    played = Played()
    for seat in (1, 3):
        played.input({"type": "seat.take", "seat": seat, "stack": "100"})
    played.input({"type": "hand.start", "button": 1})
    played.input({"type": "hole.cards", "seat": 3, "cards": ["Ah", "Kh"]})
    played.input({"type": "hole.cards", "seat": 1, "cards": ["7c", "2d"]})
    played.input({"type": "decision", "seat": 3, "action": "fold"})
    return played


def fed(played: Played, delay: int) -> DelayedFeed:
    feed = DelayedFeed(delay, played.cfg.table.base_topic)
    for rec, rows, whole in played.out:
        feed.add(rec, rows, whole)
    return feed


def test_nothing_comes_out_before_the_delay_and_each_input_at_its_own_time() -> None:
    """Record n is journaled at START + n s; with a 1800 s delay its message is due at
    START + n + 1800 s, not a microsecond before."""
    played = hand_with_hole_cards()
    feed = fed(played, 1800)
    assert feed.due(START + timedelta(seconds=1800)) == []
    first = feed.due(START + timedelta(seconds=1801))
    assert [d.topic for d in first] == ["broadcast/event"]  # record 1: the rules
    rest = feed.due(START + timedelta(seconds=1800 + len(played.out)))
    assert len(feed) == 0 and feed.next_due() is None
    topics = [d.topic for d in rest]
    assert topics.count("broadcast/round/result") == 1


def test_the_feed_carries_the_hole_cards_the_live_topics_never_show_R46() -> None:
    """Live, `hole.cards` is echoed without its cards; the delayed feed has them, with the live
    echo's seq, and the result goes as published."""
    played = hand_with_hole_cards()
    live = [r.payload.decode() for _, rows, _ in played.out for r in rows]
    assert not any("Kh" in text or "7c" in text for text in live)
    delayed = fed(played, 60).due(START + timedelta(hours=1))
    holes = [json.loads(d.payload) for d in delayed if b'"hole.cards"' in d.payload]
    assert [(h["seat"], h["cards"]) for h in holes] == [(3, ["Ah", "Kh"]), (1, ["7c", "2d"])]
    echoes = {
        r.seq: json.loads(r.payload)
        for _, rows, _ in played.out
        for r in rows
        if "event" in r.topic
    }
    for h in holes:
        assert echoes[h["seq"]]["type"] == "hole.cards" and "cards" not in echoes[h["seq"]]
        assert h["table"] == "holdem-04"
    (result,) = [d for d in delayed if d.topic == "broadcast/round/result"]
    live_result = [r for _, rows, _ in played.out for r in rows if r.topic.endswith("round/result")]
    assert result.payload == live_result[0].payload


def test_a_refused_input_is_not_fed() -> None:
    """Only what the table accepted (what it echoed on `event`) goes on the feed."""
    played = Played()
    played.input({"type": "hole.cards", "seat": 3, "cards": ["Ah", "Kh"]})  # no hand in play
    delayed = fed(played, 1).due(START + timedelta(hours=1))
    assert [json.loads(d.payload)["type"] for d in delayed] == ["config"]


def test_no_delay_is_no_feed() -> None:
    with pytest.raises(ValueError, match="at least one second"):
        DelayedFeed(0, "tablectl/x/y")


def test_the_feed_is_off_unless_the_config_sets_a_delay(tmp_path: Path) -> None:
    assert load_config(CONFIG).table.broadcast.delay_seconds == 0
    data = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    data["broadcast"] = {"delay_seconds": "1800"}
    with pytest.raises(ConfigError, match=r"broadcast\.delay_seconds"):
        parse_config(data, tmp_path / "table.toml")
    data["broadcast"] = {"delay_seconds": 1800}
    assert parse_config(data, tmp_path / "table.toml").table.broadcast.delay_seconds == 1800


def test_an_input_held_by_a_device_fault_is_fed_whole_when_the_table_plays_it() -> None:
    """A hole card entered while a device fault holds the hand is played at round.resume: the
    feed sends that input, its cards included, not a copy of the resume (found in review)."""
    played = Played()
    for seat in (1, 3):
        played.input({"type": "seat.take", "seat": seat, "stack": "100"})
    played.input({"type": "hand.start", "button": 1})
    fault = {"type": "device.status", "device": "reader", "available": False, "fault": "x"}
    played.input(fault, "device/reader")
    played.input({"type": "hole.cards", "seat": 3, "cards": ["Ah", "Kh"]})
    played.input({"type": "device.status", "device": "reader", "available": True}, "device/reader")
    played.input({"type": "round.resume"})
    delayed = fed(played, 60).due(START + timedelta(hours=1))
    bodies = [json.loads(d.payload) for d in delayed if d.topic == "broadcast/event"]
    assert [b["type"] for b in bodies][-2:] == ["round.resume", "hole.cards"]
    assert bodies[-1]["cards"] == ["Ah", "Kh"] and bodies[-1]["seat"] == 3
    assert [d.seq for d in delayed] == sorted(d.seq for d in delayed)  # the table's order
