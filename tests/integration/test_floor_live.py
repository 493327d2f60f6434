"""The floor view's liveness, alert order and every game's round (issue 25 items 2 and 3;
docs/floor.md) in a real headless Chromium, served by a real Mosquitto's websockets listener and
fed by two real daemons in child processes on the shipped broker defaults (`[mqtt] keepalive`
8, `heartbeat_seconds` 5: neither is in the configs).

- A Texas Hold'em table with no reader, played from the console: its row shows the hand
  (`state.hand.round`), its phase (`state.hand.phase`) and hands an hour, and between hands the
  last hand with the phase "between hands".
- A Pure 21.5 Blackjack table on a simulated shoe: round, phase and rounds an hour; then the
  finding of issue 25: a dealer error, and the shoe unplugged mid-round. The row shows the
  unplugged shoe first (the worst), "+N more", and the dealer error last.
- Both sit idle for 12 s: still online (their heartbeats; a page that heard nothing for two
  would mark them stale). Then the poker daemon is stopped (SIGSTOP: a hung table) just after
  a heartbeat, the worst moment, and the blackjack daemon killed (SIGKILL). The poker row
  says "last heard N s ago" within 12 s and offline at the broker's Last Will within 20 s; the
  killed one is offline within 2 s; the figures are printed. Continued (SIGCONT), the poker
  table is online again.
"""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium import webdriver

from hil.ports import free_port
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoFactory, broker_on
from tests.games.poker.test_poker_hands import play, rows_by, table_of
from tests.integration.floor import shipped_config
from tests.integration.harness import Console, DaemonProcess, lock_table
from tests.integration.pages import WEB, Browser, websocket_broker
from tests.integration.test_blackjack_e2e import draw, ok
from tests.integration.test_floor_page import FloorPage

pytestmark = pytest.mark.integration

SITE = "cardroom-1"
POKER = "holdem-09"
BJ = "bj-03"  # the shipped blackjack config's table
BJ_CONFIG = "pure-21.5-blackjack-003-6to5.toml"
SHOE_PORT = "/dev/tablectl-shoe"
IDLE = 12.0  # s without a game message: longer than two heartbeats
STALE_WITHIN = 12.0  # the stale mark within 12 s of the stop
OFFLINE_WITHIN = 20.0  # ... and the Last Will's offline within 20 s
KILLED_WITHIN = 2.0

# Blackjack, one player against the player-dealer (seat 4, then the next seat: R5): the deal
# goes the player, the player-dealer face up, the player, the hole card. Rounds 1 and 2: 19 and
# 20 stand, the player-dealer turns 17 and stands (an 8 or 7 up: no insurance, no peek; R12,
# R14, R17). Round 3: the player holds hard 10, where Chart 1A does not stand: a stand is a
# dealer error (R15); then the shoe is unplugged.
BJ_ROUNDS = [["Th", "8h", "9c", "9d"], ["Kc", "7h", "Qd", "Ts"]]
BJ_ROUND_3 = ["6h", "8s", "4d", "9s"]
LEFT_IN_SHOE = ["2c", "3c", "5c"]


def poker_config(folder: Path, mqtt_port: int) -> Path:
    """A $4-$8 fixed-limit Hold'em table of the room (document 004) with no reader: the console
    enters what a reader would. No keepalive or heartbeat key: the defaults."""
    folder.mkdir()
    path = folder / "holdem.toml"
    path.write_text(
        f"""site = "{SITE}"
table = "{POKER}"

[game]
id = "texas-holdem"
document = "004"
structure = "fixed-limit"
stakes = ["4", "8"]
blinds = ["2", "4"]
chip = "1"

[game.collection]
options = [1, 2]

[seats]
count = 9

[mqtt]
host = "127.0.0.1"
port = {mqtt_port}

[journal]
path = "{folder}/journal.db"
"""
    )
    broker = broker_on(mqtt_port)
    assert broker is not None and broker.locked
    lock_table(path, broker, f"table-{SITE}-{POKER}")
    return path


def test_floor_liveness_alert_order_and_every_games_round_with_real_daemons(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    broker, ws_port = websocket_broker(mosquitto_factory)
    with SimulatedShoe() as shoe, Browser(tmp_path, monkeypatch) as driver:
        poker_cfg = poker_config(tmp_path / "poker", broker.port)
        (tmp_path / "bj").mkdir()
        bj_cfg = shipped_config(
            tmp_path / "bj", BJ_CONFIG, ports={SHOE_PORT: shoe.port}, mqtt_port=broker.port
        )
        for cfg in (poker_cfg, bj_cfg):
            text = cfg.read_text()
            assert "keepalive" not in text and "heartbeat" not in text  # the defaults
        poker = Console(broker.port, f"tablectl/{SITE}/{POKER}", client_id="it-console-poker")
        bj = Console(broker.port, f"tablectl/{SITE}/{BJ}", client_id="it-console-bj")
        daemons = {POKER: DaemonProcess(poker_cfg), BJ: DaemonProcess(bj_cfg)}
        try:
            for console in (poker, bj):
                assert console.subscribed.wait(20)
            for daemon in daemons.values():
                daemon.start()
            for console in (poker, bj):
                console.wait_for("online", lambda c=console: "online" in c.on("status"))  # type: ignore[misc]
            bj.wait_for("the shoe", bj.device_available)
            page = FloorPage(driver, ws_port, SITE, f"floor-{SITE}")
            page.wait("both tables", "return window.floor.counts.online === 2")
            opened = time.monotonic()

            play_poker(poker, page)
            play_blackjack(bj, shoe, page)
            dealer_error_then_unplug(bj, shoe, page)

            # Idle: no game message for IDLE s, only the heartbeats. Neither table is stale.
            before = len(poker.on("status"))
            time.sleep(IDLE)
            assert time.monotonic() - opened > IDLE
            counts = page.counts()
            assert (counts["online"], counts["stale"], counts["offline"]) == (2, 0, 0), counts
            beats = poker.on("status")[before:]
            print(f"\npoker table idle {IDLE:.0f} s: {len(beats)} heartbeats")
            assert beats == ["online"] * len(beats) and len(beats) >= 2, beats

            stopped, killed = daemons[POKER].proc, daemons[BJ].proc
            assert stopped is not None and killed is not None
            # Stopped just after a heartbeat: the longest the stale mark can take (two whole
            # intervals), and the Will as late as the broker sends it after that beat.
            heard = len(poker.on("status"))
            poker.wait_for("a heartbeat", lambda: len(poker.on("status")) > heard, timeout=10)
            stopped.send_signal(signal.SIGSTOP)
            killed.send_signal(signal.SIGKILL)
            t0 = time.monotonic()
            try:
                seen = watch(page, t0, tmp_path / "floor-stale.png")
            finally:
                stopped.send_signal(signal.SIGCONT)
            killed.wait(20)
            print(
                f"SIGKILL: offline after {seen['killed offline']:.2f} s; SIGSTOP: stale "
                f'("{seen["stale text"]}") after {seen["stale"]:.2f} s, offline after '
                f"{seen['stopped offline']:.2f} s"
            )
            assert seen["killed offline"] < KILLED_WITHIN, seen
            assert seen["stale"] < STALE_WITHIN, seen
            assert re.fullmatch(r"last heard (1[0-9]|[5-9]) s ago", seen["stale text"]), seen
            assert seen["stale"] < seen["stopped offline"] < OFFLINE_WITHIN, seen
            # Continued, the table reconnects and says online: the row is online again.
            page.wait(
                "the poker table back",
                f"return document.querySelector('tr[data-table=\"{POKER}\"]')"
                ".dataset.status === 'online'",
                timeout=20,
            )
            assert daemons[POKER].terminate() == 0, daemons[POKER].log_text()
            page.wait("the clean stop", "return window.floor.counts.offline === 2")
        finally:
            for daemon in daemons.values():
                daemon.stop_quietly()
            for console in (poker, bj):
                console.close()
        log = driver.get_log("browser")  # type: ignore[no-untyped-call]  # selenium: untyped
        severe = [e for e in log if e["level"] == "SEVERE"]
        assert not severe, severe


# -- poker -------------------------------------------------------------------------------------


def latest(console: Console, suffix: str) -> dict[str, Any]:
    """The newest message on `suffix` by seq (an empty dict before the first)."""
    found: list[dict[str, Any]] = console.on(suffix)
    return max(found, key=lambda p: p["seq"]) if found else {}


def open_alerts(console: Console) -> list[dict[str, Any]]:
    """The newest `alerts/open` list (empty before the first)."""
    found: list[dict[str, Any]] = latest(console, "alerts/open").get("open", [])
    return found


def play_poker(console: Console, page: FloorPage) -> None:
    """Two players; three hands, each folded by the first to act. The row shows hand 3 in play,
    its phase and hands an hour (hand.round went up twice while the page watched); between
    hands the last hand and "between hands"."""
    console.ok("seat.take", {"seat": 1, "player": "p1", "stack": "200"})
    console.ok("seat.take", {"seat": 2, "player": "p2", "stack": "200"})
    for number in (1, 2, 3):
        console.ok("hand.start", {"button": 1} if number == 1 else {})
        console.wait_for(
            f"hand {number}",
            lambda n=number: (latest(console, "state").get("hand") or {}).get("round") == n,  # type: ignore[misc]
        )
        hand = latest(console, "state")["hand"]
        page.wait(
            f"hand {number} on the floor",
            f"return document.querySelector('tr[data-table=\"{POKER}\"] td.c-round')"
            f".textContent === '{number}'",
        )
        row = page.row(POKER)
        assert (row["round"], row["phase"]) == (str(number), hand["phase"]), (row, hand)
        assert row["game"] == "Texas Hold'em"
        if number == 3:
            assert int(row["rate"]) > 0, row  # hands an hour, from hand 1 to 3
            print(f"\npoker row in hand 3: phase {row['phase']!r}, {row['rate']} hands/h")
        console.ok("decision", {"seat": hand["turn"], "action": "fold"})
        console.wait_for(
            f"hand {number} over", lambda: latest(console, "state").get("hand", 0) is None
        )
    page.wait(
        "between hands",
        f"return document.querySelector('tr[data-table=\"{POKER}\"] td.c-phase')"
        ".textContent === 'between hands'",
    )
    assert page.row(POKER)["round"] == "3"  # the last hand, kept by the page


# -- blackjack ---------------------------------------------------------------------------------


def open_round(console: Console) -> int:
    """The seat the bank is offered to banks (two rounds a turn, R5), another seat bets 10;
    returns the player's seat."""
    bank = latest(console, "state").get("bank_offer_seat") or 4
    player = 5 if bank != 5 else 6
    ok(console, console, "bank", {"seat": bank, "amount": "500"})
    ok(console, console, "wager", {"seat": player, "spot": "base", "amount": "10"})
    ok(console, console, "bets.close", {})
    return player


def play_blackjack(console: Console, shoe: SimulatedShoe, page: FloorPage) -> None:
    """Rounds 1 and 2 as BJ_ROUNDS says: the row shows round 3 betting and rounds an hour."""
    shoe.load([*(c for r in BJ_ROUNDS for c in r), *BJ_ROUND_3, *LEFT_IN_SHOE])
    console.wait_for(
        "the new shoe", lambda: any(e["type"] == "shoe.new" for e in console.on("event"))
    )
    for number, cards in enumerate(BJ_ROUNDS, start=1):
        seat = open_round(console)
        draw(shoe, console, *cards)
        ok(console, console, "decision", {"seat": seat, "action": "stand"})
        console.wait_for(
            f"round {number}'s result",
            lambda n=number: any(r["round"] == n for r in console.on("round/result")),  # type: ignore[misc]
        )
    page.wait(
        "round 3 on the floor",
        f"return document.querySelector('tr[data-table=\"{BJ}\"] td.c-round').textContent === '3'",
    )
    row = page.row(BJ)
    assert (row["game"], row["phase"]) == ("Pure 21.5 Blackjack", "betting"), row
    assert int(row["rate"]) > 0, row
    print(f"blackjack row at round 3: phase {row['phase']!r}, {row['rate']} rounds/h")


def dealer_error_then_unplug(console: Console, shoe: SimulatedShoe, page: FloorPage) -> None:
    """Issue 25's finding: a dealer error opens first, then the shoe is unplugged mid-round. The
    row shows the unplugged shoe first, "+N more", the dealer error (the least) last."""
    seat = open_round(console)
    draw(shoe, console, *BJ_ROUND_3)
    refused = console.send("decision", {"seat": seat, "action": "stand"})  # hard 10: R15
    assert not refused["ok"], refused
    console.wait_for(
        "the dealer error open",
        lambda: any(a["kind"] == "dealer-error" for a in open_alerts(console)),
    )
    shoe.unplug()
    console.wait_for("the shoe gone", lambda: not console.device_available())
    console.wait_for(
        "its fault open",
        lambda: any(a["kind"] == "device-fault" for a in open_alerts(console)),
    )
    opened = open_alerts(console)
    page.wait(
        "every alert on the floor",
        f"const t = window.floor.tables.get('{BJ}'); return !!t.open && t.open.length"
        f" === {len(opened)} && !t.devices.get('shoe').available",
    )
    page.wait(
        "the row redrawn",
        f"return document.querySelector('tr[data-table=\"{BJ}\"]')"
        f".dataset.alerts === '{len(opened) + 1}'",
    )
    fault = latest(console, "device/shoe/status")["fault"]
    tip = page.alerts_tip(BJ)
    row = page.row(BJ)
    print(f"blackjack alerts worst first: {tip}")
    assert row["alerts"] == f"shoe unavailable: {fault} (+{len(opened)} more)", row
    assert tip[0] == f"shoe unavailable: {fault}"
    (error,) = [a for a in opened if a["kind"] == "dealer-error"]
    assert tip[-1] == f"open #{error['id']} dealer-error: {error['reason']}", tip
    kinds = [a["kind"] for a in opened]
    order = ["round-held", "device-fault", "dealer-error"]
    assert sorted(kinds, key=order.index) == [
        k for line in tip[1:] for k in order if f" {k}: " in line
    ], (kinds, tip)


# -- the stop and the kill ---------------------------------------------------------------------


def watch(page: FloorPage, t0: float, screenshot: Path) -> dict[str, Any]:
    """Poll the page every 50 ms until the killed table is offline and the stopped one stale,
    then offline; when each came (s after t0), and the stale row's status text. The page is
    photographed once the stale row has said "last heard 11 s ago" or more."""
    seen: dict[str, Any] = {}
    script = (
        'const r = id => document.querySelector(`tr[data-table="${id}"]`);'
        f" const p = r('{POKER}'), b = r('{BJ}');"
        " return [p.dataset.status, p.querySelector('.c-status').textContent, b.dataset.status]"
    )
    driver: webdriver.Chrome = page.driver
    while time.monotonic() - t0 < OFFLINE_WITHIN + 10:
        poker_status, poker_text, bj_status = driver.execute_script(script)
        now = time.monotonic() - t0
        if bj_status == "offline":
            seen.setdefault("killed offline", now)
        if poker_status == "stale" and "stale" not in seen:
            seen["stale"], seen["stale text"] = now, poker_text
        if poker_status == "stale" and poker_text != seen["stale text"] and "shot" not in seen:
            seen["shot"] = driver.save_screenshot(str(screenshot))
        if poker_status == "offline":
            seen.setdefault("stopped offline", now)
        if {"killed offline", "stopped offline"} <= seen.keys():
            break
        time.sleep(0.05)  # poll interval, bounded by the loop's deadline
    for what in ("killed offline", "stale", "stopped offline"):
        seen.setdefault(what, float("inf"))
    seen.setdefault("stale text", None)
    return seen


# -- every game's state --------------------------------------------------------------------------


def every_games_state() -> dict[str, tuple[dict[str, Any], str, str, str]]:
    """Real `state` payloads of the poker room's games, as their tables publish them (the
    shipped configs built into a `Table`, fed console inputs): table id -> (state, the Round,
    Phase and Game cells the floor must show)."""
    out: dict[str, tuple[dict[str, Any], str, str, str]] = {}

    def last_state(rows: list[Any]) -> dict[str, Any]:
        return rows_by(rows, "state")[-1]

    holdem = table_of("texas-holdem-003.toml")
    play(holdem, *seats(1, 3))
    rows = play(holdem, {"type": "hand.start", "button": 1})
    state = last_state(rows)
    out["holdem"] = (state, "1", state["hand"]["phase"], "Texas Hold'em")
    turn = state["hand"]["turn"]
    rows = play(holdem, {"type": "decision", "seat": turn, "action": "fold"})
    out["holdem-after"] = (last_state(rows), DASH, "between hands", "Texas Hold'em")
    for table_id, config, game in (
        ("stud", "seven-card-stud-003.toml", "Seven Card Stud"),
        ("draw", "five-card-draw-003.toml", "Five Card Draw"),
    ):
        table = table_of(config)
        play(table, *seats(1, 3, 5))
        state = last_state(play(table, {"type": "hand.start", "button": 1}))
        assert state["hand"]["round"] == 1, state
        out[table_id] = (state, "1", state["hand"]["phase"], game)
    choice = table_of("dealers-choice-003.toml")
    play(choice, *seats(1, 3, 5))
    state = last_state(play(choice, {"type": "hand.start", "game": "razz", "button": 1}))
    assert state["game"] == "razz" and state["hand"]["phase"] == "deal", state
    out["choice"] = (state, "1", "deal", "Dealer's Choice: Razz")
    chinese = table_of("chinese-poker-003.toml")
    before = play(chinese, *seats(1, 2, 3, 4))
    out["chinese-before"] = (last_state(before), DASH, "between rounds", "Chinese Poker")
    state = last_state(play(chinese, {"type": "hand.start", "button": 1}))
    assert state["round"]["round"] == 1, state
    out["chinese"] = (state, "1", "setting", "Chinese Poker")
    return out


def seats(*numbers: int) -> list[dict[str, Any]]:
    return [{"type": "seat.take", "seat": n, "stack": "200"} for n in numbers]


DASH = "\u2014"


def test_the_floor_shows_round_and_phase_of_every_poker_rooms_game(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hold'em (in a hand and between hands), stud, draw, Dealer's Choice
    (its hand's game beside the table's) and Chinese Poker (before and in a round), each from
    a real table's `state`, retained on an open broker under site `games`; the Dealer's Choice
    table's `info` says its game."""
    states = every_games_state()
    broker = mosquitto_factory(start=False, locked=False)
    ws_port = free_port()
    with broker.config_path.open("a") as conf:
        conf.write(f"listener {ws_port}\nprotocol websockets\nhttp_dir {WEB}\n")
    broker.start()
    writer = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="it-games")
    writer.connect("127.0.0.1", broker.port)
    writer.loop_start()
    try:
        sent = [
            writer.publish(f"tablectl/games/{t}/state", json.dumps(s), qos=1, retain=True)
            for t, (s, *_) in states.items()
        ]
        info = {"table": "choice", "ts": "2026-11-29T00:00:00.000000Z", "v": 1}
        info["game"] = "dealers-choice"
        sent.append(writer.publish("tablectl/games/choice/info", json.dumps(info), 1, True))
        for message in sent:
            message.wait_for_publish(20)
    finally:
        writer.disconnect()
        writer.loop_stop()
    with Browser(tmp_path, monkeypatch) as driver:
        page = FloorPage(driver, ws_port, "games", None)  # the open broker: no user
        page.wait("every table", f"return window.floor.counts.total === {len(states)}")
        page.wait(
            "the Dealer's Choice table's game from its info",
            "return document.querySelector('tr[data-table=\"choice\"] td.c-game')"
            '.textContent.startsWith("Dealer\'s Choice")',
        )
        shown = {r["table"]: (r["round"], r["phase"], r["game"]) for r in page.rows()}
        print(f"\n{shown}")
        assert shown == {t: (r, p, g) for t, (_, r, p, g) in states.items()}
