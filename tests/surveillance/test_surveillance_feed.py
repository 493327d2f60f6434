"""The surveillance feed (tablectl/surveillance/feed.py) on hand-made sequences of the table's
played inputs: the composition after `shoe.new`, each card and each burn; nothing before the
first `shoe.new` or at a game without live figures; a card the shoe cannot hold; the numbering
by journal record and part; the threshold alerts (docs/surveillance.md, "Alerts")
and the counter alert from the wagers' echoes. And `tablectl replay --surveillance` of a seeded
synthetic history: every threshold alert is a rise past the threshold the odds messages show.
"""

from __future__ import annotations

import dataclasses
import json
import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hil.synthetic import baccarat_history
from tablectl.cli import main
from tablectl.cli.replay import replay_records
from tablectl.config import load_config
from tablectl.config.sections import Protection
from tablectl.games.table_rules import Rules
from tablectl.rules.baccarat import next_to_draw
from tablectl.surveillance.counter import spearman
from tablectl.surveillance.feed import SurveillanceFeed, feed_inputs
from tablectl.surveillance.payloads import decimal_text, fraction_text
from tablectl.table import Table
from tablectl_base.cards import RANKS, SUITS, Card

REPO = Path(__file__).resolve().parents[2]
HISTORIES = REPO / "tests" / "history" / "replay_histories"
TS = "2027-01-05T14:00:00.000000Z"
BANKER_FULL_SHOE = Fraction(241149546272, 19524993263685)
"""The banker line's expectation off the top of 8 decks, paid 1 to 1 with no commission
(R26): +1.2351%, "about +1.24%" as the game protection issue puts it (and analyze's figure)."""


def config(tmp_path: Path, name: str = "synthetic-baccarat.toml", extra: str = "") -> Path:
    path = tmp_path / "table.toml"
    text = (HISTORIES / name).read_text(encoding="utf-8").replace("{repo}", str(REPO))
    path.write_text(text + extra, "utf-8")
    return path


@pytest.fixture
def rules(tmp_path: Path) -> Rules:
    return Table(load_config(config(tmp_path))).rules


def payloads(messages: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(m.suffix, json.loads(m.payload)) for m in messages]


def new_shoe(seq: int = 1) -> dict[str, Any]:
    return {"type": "shoe.new", "seq": seq, "round": 1}


def card(name: str, seq: int, kind: str = "shoe.card", round_no: int = 1) -> dict[str, Any]:
    return {"type": kind, "card": name, "seq": seq, "round": round_no}


def test_decimal_and_exact_forms() -> None:
    assert decimal_text(Fraction(-1, 81)) == "-0.012346"  # -0.0123456790...
    assert decimal_text(Fraction(1, 2_000_000)) == "0.000000"  # 0.0000005: half to even
    assert decimal_text(Fraction(3, 2_000_000)) == "0.000002"  # 0.0000015: half to even
    assert decimal_text(Fraction(7)) == "7.000000"
    assert fraction_text(Fraction(-6, 4)) == "-3/2"


def test_a_new_shoe_is_full_and_every_card_and_burn_comes_out(rules: Rules) -> None:
    feed = SurveillanceFeed(Protection(), "t1")
    ((topic, full),) = payloads(feed.add(3, TS, [new_shoe(4)], rules))
    assert topic == "surveillance/odds"
    assert (full["table"], full["ts"], full["record"], full["part"]) == ("t1", TS, 3, 1)
    assert full["shoe_record"] == 3 and full["after"] == {"type": "shoe.new", "seq": 4}
    assert full["cards_left"] == 416 and set(full["counts"].values()) == {32}
    assert [w["wager"] for w in full["wagers"]] == ["player", "banker", "tie", "dragon7", "panda8"]
    for w in full["wagers"]:  # off the top: the live figure is the full-shoe figure
        assert w["expectation"] == w["full_shoe"]
    banker = next(w for w in full["wagers"] if w["wager"] == "banker")
    assert banker["expectation"] == {"value": "0.012351", "exact": fraction_text(BANKER_FULL_SHOE)}

    ((_, burned),) = payloads(feed.add(4, TS, [card("5h", 7, "shoe.burn")], rules))
    assert burned["cards_left"] == 415 and burned["counts"]["5"] == 31
    assert burned["after"] == {"type": "shoe.burn", "seq": 7, "card": "5h"}
    # a record that plays two cards (one held past a gap, then the one that filled it)
    two = payloads(feed.add(9, TS, [card("Kd", 11), card("Kc", 12)], rules))
    assert [(p["record"], p["part"], p["cards_left"]) for _, p in two] == [(9, 1, 414), (9, 2, 413)]
    assert two[1][1]["counts"] == {**burned["counts"], "K": 30}
    assert two[1][1]["shoe_record"] == 3


def test_nothing_before_the_first_shoe_new_nor_at_a_game_without_live_figures(
    rules: Rules, tmp_path: Path
) -> None:
    feed = SurveillanceFeed(Protection(), "t1")
    assert feed.add(1, TS, [card("9h", 2)], rules) == []  # which shoe? nobody knows yet
    wager = {"type": "wager", "seat": 4, "spot": "dragon7", "amount": "5.00", "round": 1}
    assert feed.add(2, TS, [wager], rules) == []
    other = tmp_path / "other"
    other.mkdir()
    poker = Table(load_config(config(other, "three-card-poker-6cb/table.toml"))).rules
    assert SurveillanceFeed(Protection(), "t1").add(1, TS, [new_shoe()], poker) == []


def test_a_card_the_shoe_cannot_hold_loses_the_composition_until_the_next_shoe(
    rules: Rules,
) -> None:
    """An 8-deck shoe holds eight aces of spades: a ninth is an alert, and no figures follow
    until a new shoe is put in."""
    feed = SurveillanceFeed(Protection(), "t1")
    feed.add(1, TS, [new_shoe()], rules)
    for n in range(8):
        assert len(feed.add(2 + n, TS, [card("As", 10 + n)], rules)) == 1
    ((topic, alert),) = payloads(feed.add(10, TS, [card("As", 20)], rules))
    assert (topic, alert["kind"], alert["part"]) == ("surveillance/alert", "composition-lost", 1)
    assert "As" in alert["reason"] and alert["after"]["card"] == "As"
    assert feed.add(11, TS, [card("2c", 21)], rules) == []
    ((_, again),) = payloads(feed.add(12, TS, [new_shoe(22)], rules))
    assert again["cards_left"] == 416


def test_a_threshold_alert_is_told_once_a_rise(rules: Rules) -> None:
    """The banker line favours the player off the top (+1.2351%): with its threshold set at
    +1.23% it is an alert as the shoe goes in, told once while it stays above; with the default
    (its full-shoe figure plus a margin) and the wagers that favour the player-dealer (above 0),
    a full shoe is no alert."""
    feed = SurveillanceFeed(Protection.model_validate({"thresholds": {"banker": "0.0123"}}), "t1")
    out = payloads(feed.add(1, TS, [new_shoe()], rules))
    assert [(t, p.get("kind")) for t, p in out] == [
        ("surveillance/odds", None),
        ("surveillance/alert", "wager-favourable"),
    ]
    alert = out[1][1]
    assert alert["wager"] == "banker" and alert["part"] == 2
    assert alert["threshold"] == {"value": "0.012300", "exact": "123/10000"}
    assert alert["expectation"]["exact"] == fraction_text(BANKER_FULL_SHOE)
    assert alert["cards_left"] == 416
    # a banker-rich card keeps it above: no second alert while it stays there
    assert [t for t, _ in payloads(feed.add(2, TS, [card("2c", 3, "shoe.burn")], rules))] == [
        "surveillance/odds"
    ]
    quiet = SurveillanceFeed(Protection(), "t1")
    assert [t for t, _ in payloads(quiet.add(1, TS, [new_shoe()], rules))] == ["surveillance/odds"]


def test_the_counter_alert_from_the_wagers_the_table_took(rules: Rules) -> None:
    """One seeded shoe dealt by R25: seat 4 ("p4") bets the banker line flat and Dragon 7 by
    the Dragon 7 expectation the feed last published (more when it is higher than off the top);
    seat 2 bets flat. With the alert after 10 rounds, it names seat 4 and Dragon 7, with the
    correlation of the stakes and expectations the test itself sent, and nothing else."""
    protection = Protection(counter_min_rounds=10)
    feed = SurveillanceFeed(protection, "t1")
    cards = [Card(r, s) for r in RANKS for s in SUITS] * 8
    random.Random(7).shuffle(cards)
    record = seq = 1
    last = payloads(feed.add(record, TS, [new_shoe()], rules))[0][1]
    alerts: list[dict[str, Any]] = []
    sent: list[tuple[Decimal, Fraction]] = []
    for round_no in range(1, 60):
        d7 = _exact(last, "dragon7")
        stake = Decimal(5) if d7 <= _exact(last, "dragon7", "full_shoe") else Decimal(50)
        sent.append((stake, d7))
        for seat, spot, amount in ((4, "banker", "25"), (4, "dragon7", stake), (2, "player", "10")):
            record, seq = record + 1, seq + 1
            echo = {"type": "wager", "seat": seat, "spot": spot, "amount": str(amount)}
            feed.add(
                record, TS, [{**echo, "seq": seq, "round": round_no, "player": f"p{seat}"}], rules
            )
        player: list[Card] = []
        banker: list[Card] = []
        while (side := next_to_draw(player, banker)) is not None:
            dealt = cards.pop()
            (player if side == "player" else banker).append(dealt)
            record, seq = record + 1, seq + 1
            for topic, p in payloads(
                feed.add(record, TS, [card(str(dealt), seq, round_no=round_no)], rules)
            ):
                if topic == "surveillance/odds":
                    last = p
                elif p["kind"] == "counter":
                    alerts.append(p)
    assert len({s for s, _ in sent}) == 2  # the stake did follow the count in this shoe
    (alert,) = alerts
    assert (alert["seat"], alert["player"], alert["wager"]) == (4, "p4", "dragon7")
    corr = spearman(
        [s for s, _ in sent[: alert["rounds"]]], [e for _, e in sent[: alert["rounds"]]]
    )
    assert alert["rounds"] >= 10 and alert["rho"] == decimal_text(Fraction(corr.rho), 4)
    assert corr.at_least(Fraction(protection.counter_threshold))
    assert alert["threshold"] == "0.6000" and alert["min_rounds"] == 10


def _exact(odds: dict[str, Any], wager: str, field: str = "expectation") -> Fraction:
    figure = next(w[field] for w in odds["wagers"] if w["wager"] == wager)
    return Fraction(figure["exact"])


def test_replay_surveillance_alerts_are_rises_past_the_thresholds_the_odds_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A seeded synthetic table (a shoe and a half, burns, random bettors): each
    `wager-favourable` alert follows an odds message of the same record whose figure is above
    the threshold, and the odds before it (since its shoe went in) were at or below it."""
    path = config(tmp_path)
    events = tmp_path / "events.jsonl"
    events.write_text("".join(ln + "\n" for ln in baccarat_history(120, 5, path)), "utf-8")
    assert main(["replay", "--surveillance", "--config", str(path), str(events)]) == 0
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    base = load_config(path).table.base_topic
    assert lines and all(ln["topic"].startswith(f"{base}/surveillance/") for ln in lines)
    above: dict[str, bool] = {}
    figures: dict[str, Fraction] = {}
    alerts = 0
    for ln in lines:
        p = ln["payload"]
        if ln["topic"].endswith("/odds"):
            if p["after"]["type"] == "shoe.new":
                above.clear()
            for w in p["wagers"]:
                threshold = (
                    Fraction(0)
                    if _exact(p, w["wager"], "full_shoe") < 0
                    else (_exact(p, w["wager"], "full_shoe") + Fraction(5, 1000))
                )
                now = Fraction(w["expectation"]["exact"]) > threshold
                figures[w["wager"]] = Fraction(w["expectation"]["exact"])
                w["rose"] = now and not above.get(w["wager"], False)
                above[w["wager"]] = now
            last_odds = p
        elif p["kind"] == "wager-favourable":
            alerts += 1
            assert p["record"] == last_odds["record"] and p["part"] > last_odds["part"]
            rose = next(w for w in last_odds["wagers"] if w["wager"] == p["wager"])
            assert rose["rose"] and Fraction(p["expectation"]["exact"]) == figures[p["wager"]]
    assert alerts > 0
    rises = sum(
        1
        for ln in lines
        if ln["topic"].endswith("/odds")
        for w in ln["payload"]["wagers"]
        if w["rose"]
    )
    assert rises == alerts


def test_a_spanish_shoe_goes_in_without_its_pip_tens_and_the_hole_card_comes_out(
    tmp_path: Path,
) -> None:
    """Pure Spanish 21.5 (003 "Pure Spanish 21.5: Description of the Deck and Number of Decks
    Used": 48-card decks, the pip tens removed): six decks are 288 cards, no ten among them,
    a Hi-Lo count of 0 off the top; the player-dealer's face-down card (its echo whole, as the
    table gives the feed) comes out like any other: a ten-value card lowers the count by one."""
    rules = Table(load_config(config(tmp_path, "pure-spanish-21.5/table.toml"))).rules
    feed = SurveillanceFeed(Protection(), "t1")
    ((_, full),) = payloads(feed.add(1, TS, [new_shoe()], rules))
    assert full["cards_left"] == 288 and full["counts"]["T"] == 0
    assert set(full["counts"].values()) == {0, 24}
    assert full["running_count"] == 0 and full["true_count"]["exact"] == "0/1"
    hole = {**card("Kd", 5), "to": "player-dealer", "face_down": True}
    ((_, after),) = payloads(feed.add(2, TS, [hole], rules))
    assert after["cards_left"] == 287 and after["counts"]["K"] == 23
    assert after["running_count"] == -1


@pytest.fixture(scope="module")
def three_decks(tmp_path_factory: pytest.TempPathFactory) -> Rules:
    """The synthetic table's rules with a 3-deck shoe (003: 3 to 8 decks)."""
    path = config(tmp_path_factory.mktemp("three"))
    text = path.read_text(encoding="utf-8")
    assert text.count("decks = 8") == 1
    path.write_text(text.replace("decks = 8", "decks = 3"), "utf-8")
    return Table(load_config(path)).rules


@settings(max_examples=40, deadline=None)
@given(dealt=st.lists(st.sampled_from(["As", "Ah", "7d", "Kc", "9s", "2h"]), max_size=14))
def test_the_composition_is_the_full_shoe_less_every_card_until_one_it_cannot_hold(
    three_decks: Rules, dealt: list[str]
) -> None:
    """Any cards out of a 3-deck shoe (three of each card): after each, the odds say the full
    shoe less the cards so far, numbered by record; the first card of which none is left is a
    `composition-lost` alert and nothing follows it."""
    rules = three_decks
    feed = SurveillanceFeed(Protection(), "t1")
    feed.add(1, TS, [new_shoe()], rules)
    counts = {rank: 12 for rank in RANKS}
    seen: dict[str, int] = {}
    lost = False
    for n, name in enumerate(dealt, start=2):
        out = payloads(feed.add(n, TS, [card(name, n)], rules))
        if lost:
            assert out == []
            continue
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 3:
            assert [(t, p["kind"]) for t, p in out] == [("surveillance/alert", "composition-lost")]
            lost = True
            continue
        counts[name[0]] -= 1
        ((topic, odds), *_) = out
        assert topic == "surveillance/odds" and odds["record"] == n and odds["part"] == 1
        assert odds["counts"] == counts and odds["cards_left"] == sum(counts.values())


def test_a_voided_round_is_read_from_its_result_and_its_stakes_are_no_sample(
    tmp_path: Path,
) -> None:
    """The table echoes no `round.void` (its `round/result` says `void: true`): `feed_inputs`
    reads it from the result, and the round's stakes leave the counter's samples; the cards
    dealt stay out of the shoe (they went to the discards, not back in)."""
    cfg = load_config(config(tmp_path))
    table = Table(cfg)
    table.unhidden = []
    feed = SurveillanceFeed(Protection(), "t1")
    lines: list[dict[str, Any]] = [
        {"type": "shoe.new"},
        {"type": "bank", "seat": 3, "amount": "100.00"},
        {"type": "wager", "seat": 4, "spot": "player", "amount": "10.00"},
        {"type": "bets.close"},
        {"type": "shoe.card", "card": "9h"},
    ]
    seen: list[list[dict[str, Any]]] = []
    records = replay_records(iter([json.dumps({**b, "source": "test"}) for b in lines]))
    for rec in records:
        rows = table.apply(rec)
        seen.append(feed_inputs(table.take_unhidden(), rows))
        feed.add(rec.seq, rec.ts, seen[-1], table.rules)
    assert {seat for seat, _ in feed.counter.samples} == {4}
    assert all(1 in samples.stakes for samples in feed.counter.samples.values())
    void = next(replay_records(iter([json.dumps({"type": "round.void", "source": "test"})])))
    void = dataclasses.replace(void, seq=len(lines) + 1)
    inputs = feed_inputs(table.take_unhidden(), table.apply(void))
    assert inputs == [{"type": "round.void", "round": 1}]
    assert feed.add(void.seq, void.ts, inputs, table.rules) == []
    assert all(samples.stakes == {} for samples in feed.counter.samples.values())
    assert feed.shoe is not None and feed.shoe.cards == 415
