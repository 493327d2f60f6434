"""The table-side scoreboard page (docs/scoreboard.md) in a real headless
Chromium, served by a real Mosquitto's websockets listener (`http_dir` = web/) and fed over
MQTT-over-WebSockets by the real daemon of an EZ Baccarat Panda 8 table.

The broker is locked as a card room's is (tests/integration/conftest.py) and the page connects
as a read-only user this test adds to the acl_file: read `status`, `info`, `state`,
`display/eztrak` and `round/result` of the table, nothing else. The test deals the worked shoe of
tests/games/baccarat/test_eztrak.py (11 hands, every card chosen here and the drawing rules applied
by hand)
through a simulated shoe on a pty, with burns before it, then a second shoe of two hands, and
checks what the page shows against figures worked by hand: the statistics of both shoes, the
bead plate, the big road and the three derived roads, the last hand, the bet timer, and the
table's status when the daemon stops.

No hidden card reaches the page's socket: the page keeps every PUBLISH its MQTT client received
(`window.scoreboard.received`, with `record=1`); every card named in one must have been dealt by
the shoe before the page had received that many messages, no burned card is named anywhere (the
delayed broadcast feed is on, and the test sees the burns on it with the broadcast role, so they
were on the broker), and the page received nothing but its five topics.

Screenshots go to the test's tmp_path (`pytest --basetemp=DIR` keeps them in DIR), never the
repository. The browser is Debian's `chromium` and `chromium-driver` (scripts/setup.sh with
NEED_BROWSER=1); Selenium is given both paths, so Selenium Manager never runs or downloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import (
    MosquittoFactory,
    password_for,
)
from tests.integration.floor import events, running_table, shipped_config
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.pages import (
    BASE,
    MIN_CARD_1080,
    PAGE_TOPICS,
    Browser,
    Page,
    add_page_user,
    assert_fits_and_reads,
    assert_no_card_before_shown,
    cards_in,
    websocket_broker,
)

pytestmark = pytest.mark.integration

BET_TIMER = 60
# The two screens the page is sized for (docs/scoreboard.md "Sizing"): the test's own page at
# 1920x1080 and a second one at 1280x720, where everything is 2/3 the size (the text has a
# floor of 20 px at both).
LARGE, SMALL = (1920, 1080), (1280, 720)
MIN_CARD = {LARGE: MIN_CARD_1080, SMALL: MIN_CARD_1080 * 720 / 1080}

# The worked shoe of tests/games/baccarat/test_eztrak.py, dealt card by card in the order of 003
# (player,
# banker, player, banker, then the player's and the banker's third cards as the tableau says).
#   hand  cards (P B P B [P3] [B3])   player-banker  why it ends there
SHOE_1: list[list[str]] = [
    ["3s", "2h", "5d", "3c"],  # 1 P 8-5: player natural, both stand
    ["Ac", "Ah", "3d", "2s", "Td", "4s"],  # 2 B 4-7: P 4 draws T; B 3 draws (third not 8): Dragon 7
    ["2c", "6c", "4h", "Qh"],  # 3 T 6-6: both stand
    ["Ks", "As", "Jd", "2d", "8h"],  # 4 P 8-3: P 0 draws 8; B 3 stands on an 8: Panda 8
    ["4c", "9s", "5h", "Tc"],  # 5 T 9-9: both naturals
    ["Kd", "7c", "2h", "2c"],  # 6 B 2-9: banker natural
    ["3h", "5c", "4d", "Ad"],  # 7 P 7-6: both stand
    ["5s", "Qs", "Jc", "Jh", "Qd", "Ac"],  # 8 P 5-1: P 5 draws Q; B 0 draws A
    ["Kh", "6h", "Qc", "Ks", "Jh"],  # 9 B 0-6: P 0 draws J; B 6 stands on a 0
    ["2s", "4h", "Ah", "Th", "Tc"],  # 10 B 3-4: P 3 draws T; B 4 stands on a 0
    ["Ad", "3s", "3h", "4c", "5c"],  # 11 P 9-7: P 4 draws 5; B 7 stands
]
SHOE_2: list[list[str]] = [
    ["Kc", "9d", "Qd", "Kh"],  # 1 B 0-9: banker natural
    ["4s", "Jd", "5s", "Js"],  # 2 P 9-0: player natural
]
BURNS_1 = ["9h", "8c", "7s"]  # never dealt in this test: a burn named anywhere is a leak
BURNS_2 = ["9c", "6s"]

# Worked by hand from the hands above (tests/games/baccarat/test_eztrak.py works the same shoe):
# Player hands 1 4 7 8 11 = 5/11 = 45.45 -> 45.5; Banker 2 6 9 10 = 4 -> 36.4; Tie 3 5 = 2 ->
# 18.2; Dragon 7 (hand 2) and Panda 8 (hand 4) 1 -> 9.1; naturals in hands 1 5 6 = 3 -> 27.3;
# player naturals 1 5 = 2 -> 18.2; banker naturals 5 6 = 2 -> 18.2.
STATS_1 = {
    "hands": (11, None),
    "player": (5, "45.5"),
    "banker": (4, "36.4"),
    "tie": (2, "18.2"),
    "dragon7": (1, "9.1"),
    "panda8": (1, "9.1"),
    "naturals": (3, "27.3"),
    "player_naturals": (2, "18.2"),
    "banker_naturals": (2, "18.2"),
}
STATS_2 = {
    "hands": (2, None),
    "player": (1, "50.0"),
    "banker": (1, "50.0"),
    "tie": (0, "0.0"),
    "dragon7": (0, "0.0"),
    "panda8": (0, "0.0"),
    "naturals": (2, "100.0"),
    "player_naturals": (1, "50.0"),
    "banker_naturals": (1, "50.0"),
}
# Bead plate: every coup in columns of six.
BEAD_1 = [["P", "B", "T", "P", "T", "B"], ["P", "P", "B", "B", "P"]]
# Big road: (winner, ties counted on it, natural). The tie of hand 3 goes on hand 2's B, the tie
# of hand 5 on hand 4's P; hands 1 and 6 were naturals.
BIG_ROAD_1 = [
    [("P", 0, True)],
    [("B", 1, False)],
    [("P", 1, False)],
    [("B", 0, True)],
    [("P", 0, False), ("P", 0, False)],
    [("B", 0, False), ("B", 0, False)],
    [("P", 0, False)],
]
# Derived roads over big-road column lengths 1 1 1 1 2 2 1 (docs/games/baccarat.md's rule):
# big eye boy (k=1) starts at column 2: c2 r0 |c1|=|c0| R; c3 r0 R; c4 r0 R; c4 r1 c3 ends at
# row 0: B; c5 r0 |c4|=2 != |c3|=1: B; c5 r1 c4 has row 1: R; c6 r0 |c5|=|c4|: R.
BIG_EYE_BOY_1 = [["R", "R", "R"], ["B", "B"], ["R", "R"]]
# small road (k=2) starts at column 3: c3 r0 |c2|=|c0| R; c4 r0 |c3|=|c1| R; c4 r1 c2 ends at
# row 0: B; c5 r0 |c4| != |c2|: B; c5 r1 c3 ends at row 0: B; c6 r0 |c5| != |c3|: B.
SMALL_ROAD_1 = [["R", "R"], ["B", "B", "B", "B"]]
# cockroach pig (k=3) starts at column 4: c4 r0 |c3|=|c0| R; c4 r1 B; c5 r0 |c4| != |c1| B;
# c5 r1 c2 ends at row 0: B; c6 r0 |c5| != |c2| B.
COCKROACH_PIG_1 = [["R"], ["B", "B", "B", "B"]]


def test_the_scoreboard_page_shows_the_shoe_and_no_card_before_the_table(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    dealt = {c for hand in SHOE_1 + SHOE_2 for c in hand}
    assert not dealt & set(BURNS_1 + BURNS_2)  # the burns are cards no hand shows

    broker, ws_port = websocket_broker(mosquitto_factory)
    (tmp_path / "small").mkdir()
    with (
        SimulatedShoe() as shoe,
        Browser(tmp_path, monkeypatch, size=LARGE) as driver,
        Browser(tmp_path / "small", monkeypatch, size=SMALL) as small_driver,
    ):
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
        add_page_user(broker)
        text = cfg.read_text().replace(
            "decks = 8\n", f"decks = 8\nbet_timer_seconds = {BET_TIMER}\n"
        )
        cfg.write_text(text + "[broadcast]\ndelay_seconds = 1\n")
        console = Console(broker.port, BASE)
        feed = Console(broker.port, BASE, client_id="it-broadcast", role="broadcast")
        daemon = DaemonProcess(cfg)
        try:
            daemon.start()
            console.wait_for("online", lambda: "online" in console.on("status"))
            console.wait_for("the shoe", lambda: available(console))
            page = Page(driver, ws_port)
            page.wait("the page subscribed", "return window.scoreboard.link === 'subscribed'")
            granted = driver.execute_script("return window.scoreboard.granted")
            assert [g["topic"] for g in granted] == [f"{BASE}/{t}" for t in PAGE_TOPICS]
            assert all(g["granted"] == 1 for g in granted), granted
            page.wait("status online", "return window.scoreboard.status === 'online'")
            # The same board on a 1280x720 screen, open from the start (the last hand is not
            # retained: a page sees it live).
            small = Page(small_driver, ws_port)
            small.wait(
                "the small page subscribed", "return window.scoreboard.link === 'subscribed'"
            )

            def screens(what: str) -> None:
                """Both screens fit, read from 3 m (cards out: the last hand's at least), and
                are photographed: `what` shown."""
                for size, shown_on in ((LARGE, driver), (SMALL, small_driver)):
                    assert_fits_and_reads(shown_on, min_card=MIN_CARD[size])
                    shown_on.save_screenshot(
                        str(tmp_path / f"scoreboard-{what}-{size[0]}x{size[1]}.png")
                    )

            fed: list[tuple[str, int]] = []  # (card, page messages received before it was dealt)
            rounds: dict[int, list[str]] = {}
            new_shoe(console, shoe, SHOE_1, BURNS_1, page, fed, shoes=1)
            for n, hand in enumerate(SHOE_1, start=1):
                rounds[n] = hand
                play_hand(console, shoe, page, hand, fed, n, check_timer=n == 1)
            page.wait("11 hands", "return document.getElementById('hands').textContent === '11'")
            page.wait(
                "the last hand",
                "return document.getElementById('last').dataset.round === '11'",
            )
            assert page.stats("cur") == STATS_1
            assert page.beads() == BEAD_1
            assert page.big_road() == BIG_ROAD_1
            assert page.derived("big-eye-boy") == BIG_EYE_BOY_1
            assert page.derived("small-road") == SMALL_ROAD_1
            assert page.derived("cockroach-pig") == COCKROACH_PIG_1
            assert page.text("last-winner") == "Round 11: player wins"
            assert page.cards("last-player") == ["Ad", "3h", "5c"]
            assert page.cards("last-banker") == ["3s", "4c"]
            assert page.text("last-player-total") == "9"
            assert page.text("last-banker-total") == "7"
            assert page.text("limits") == "Limits 5.00\u2013500.00"
            assert page.text("game-name") == "EZ Baccarat Panda 8"
            # the posted collection schedule (`info`): config/schedules/ez-baccarat-panda8.toml
            # option 3, as the harness's config names it (003 "EZ Baccarat Panda 8: Collection Fee
            # Schedule")
            assert page.text("collection-title") == "Collection: option 3"
            assert page.collection() == [
                "Table limit 5.00\u2013500.00; player-dealer, by total action",
                "from 5.00 1.00",
                "from 201.00 2.00",
                "from 301.00 3.00",
                "from 501.00 5.00",
                "from 1000.00 8.00",
                "Player none",
            ]
            assert page.posted()["Bet timer"] == f"{BET_TIMER} s"
            # R26, R27: the pays 003 fixes, as the layout reads them
            assert [(w, pay) for w, _, pay in page.paytable("fixed")] == [
                ("player", "1 to 1"),
                ("banker", "1 to 1"),
                ("tie", "8 to 1"),
                ("dragon7", "40 to 1"),
                ("panda8", "25 to 1"),
            ]
            small.wait(
                "the last hand on the small screen",
                "return document.getElementById('last').dataset.round === '11'",
            )
            assert small.stats("cur") == STATS_1
            assert small.big_road() == BIG_ROAD_1
            assert small.text("last-winner") == "Round 11: player wins"
            screens("shoe-1")

            # Keep alive: with nothing to acknowledge for 2 s the page pings; the broker never
            # dropped it.
            page.wait("a PINGREQ", "return window.scoreboard.client.pings > 0", timeout=5)
            assert driver.execute_script("return window.scoreboard.connects") == 1
            # The broker restarts (no persistence): the page says so, reconnects by itself, and
            # shows the same shoe again from the retained topics the table publishes anew.
            broker.stop()
            page.wait("the link down", "return window.scoreboard.link !== 'subscribed'")
            assert page.text("banner") == "Connecting to the table\u2026"
            broker.start()
            page.wait("the page back", "return window.scoreboard.connects === 2")
            console.wait_for("the table back", lambda: console.times_online() >= 2)
            page.wait(
                "the shoe again",
                "return document.getElementById('hands').textContent"
                " === '11' && window.scoreboard.eztrak.hands === 11"
                " && document.getElementById('banner').hidden",
            )
            assert page.stats("cur") == STATS_1
            assert page.big_road() == BIG_ROAD_1

            # The second shoe: this shoe's figures start again, the first shoe's are "previous".
            new_shoe(console, shoe, SHOE_2, BURNS_2, page, fed, shoes=2)
            page.wait("shoe 2", "return document.getElementById('shoe').textContent === '2'")
            for n, hand in enumerate(SHOE_2, start=12):
                rounds[n] = hand
                play_hand(console, shoe, page, hand, fed, n, check_timer=False)
            page.wait("2 hands", "return document.getElementById('hands').textContent === '2'")
            assert page.stats("cur") == STATS_2
            assert page.stats("prev") == STATS_1
            assert page.beads() == [["B", "P"]]
            assert page.big_road() == [[("B", 0, True)], [("P", 0, True)]]
            assert page.derived("big-eye-boy") == []
            # A hand being dealt shows its cards as the shoe gives them, and no more.
            console.ok("bank", {"seat": latest_offer(console), "amount": "500"})
            console.ok(
                "wager",
                {"seat": 7 if latest_offer(console) != 7 else 6, "spot": "tie", "amount": "5"},
            )
            shoe.load(["8d", "Jc"], announce=False)
            for card in ("8d", "Jc"):
                deal(console, shoe, page, card, fed)
            page.wait(
                "the card on the table",
                "return document.querySelectorAll('#now .card').length === 2",
            )
            assert page.cards("now-player") == ["8d"]
            assert page.cards("now-banker") == ["Jc"]
            assert page.text("phase") == "no more bets"
            # Round 13 (the second shoe's second hand: 4s 5s against Jd Js) was a player
            # natural.
            assert page.text("last-winner") == "Round 13: player wins, a natural"
            small.wait(
                "the cards on the small screen",
                "return document.querySelectorAll('#now .card').length === 2",
            )
            screens("shoe-2-dealing")  # the widest board: both shoes' figures, cards out

            # The shoe jams mid-deal: the round is held (docs/mqtt.md "Device faults"), and
            # both screens say so in the banner, over the header's facts.
            shoe.fault("JAM", "card stuck at exit")
            for shown_on in (page, small):
                shown_on.wait(
                    "the held round's banner",
                    "return document.getElementById('banner').dataset.kind === 'held'",
                )
            assert page.text("banner").startswith("Round held: device shoe: JAM")
            screens("held")

            # The broker had the burns (on the delayed feed, for its role only) ...
            feed.wait_for(
                "the burns on the delayed feed",
                lambda: {*BURNS_1, *BURNS_2} <= {e.get("card") for e in feed.on("broadcast/event")},
            )
            assert daemon.terminate() == 0, daemon.log_text()
            page.wait("status offline", "return window.scoreboard.status === 'offline'")
            page.wait(
                "the banner",
                "return document.getElementById('banner').textContent === 'Table offline'",
            )
            small.wait(
                "the small screen's banner",
                "return document.getElementById('banner').textContent === 'Table offline'",
            )
            screens("offline")
            received: list[dict[str, Any]] = driver.execute_script(
                "return window.scoreboard.received"
            )
            check_layout(driver)
            log = driver.get_log("browser")  # type: ignore[no-untyped-call]  # selenium: untyped
            # A reconnect tried while the test had the broker stopped is refused, and Chromium
            # logs that as SEVERE: expected then, and the page went on (it reconnected above).
            severe = [
                e
                for e in log
                if e["level"] == "SEVERE"
                and not ("WebSocket connection to" in e["message"] and "REFUSED" in e["message"])
            ]
            assert not severe, severe

            # With the display role `tablectl broker-acl` generates (status, info, state and
            # display/#), the page shows the EZTRAK board, the table's status and the posted
            # schedule; round/result is not granted without --display-results.
            display = Page(driver, ws_port, user="display-it", password=password_for("display-it"))
            display.wait("the display role's page", "return window.scoreboard.granted !== null")
            display.wait("the board", "return document.getElementById('hands').textContent === '2'")
            assert display.stats("prev") == STATS_1
            assert display.beads() == [["B", "P"]]
            # Mosquitto grants every subscription (SUBACK QoS 1) and delivers only what the ACL
            # lets the user read: the retained ones here, `status` ("offline" by now) included.
            display.wait("the retained info", "return window.scoreboard.info !== null")
            display_topics = driver.execute_script(
                "return [...new Set(window.scoreboard.received.map(m => m.topic))].sort()"
            )
            assert display_topics == [
                f"{BASE}/{t}" for t in ("display/eztrak", "info", "state", "status")
            ]
            assert display.text("table-status") == "table offline"
            assert display.text("collection-title") == "Collection: option 3"
        finally:
            daemon.stop_quietly()
            console.close()
            feed.close()

    # ... and the page never had a card before the table dealt it, nor any burn.
    assert_no_card_before_shown(received, fed, BASE)
    assert {m["topic"] for m in received} == {f"{BASE}/{t}" for t in PAGE_TOPICS}
    for m in received:
        if m["topic"] == f"{BASE}/round/result":
            result = json.loads(m["payload"])
            assert [d["card"] for d in result["dealt"]] == rounds[result["round"]]
        if m["topic"] == f"{BASE}/state":
            state = json.loads(m["payload"])
            shown = state["cards"]["player"] + state["cards"]["banker"]
            assert set(shown) <= set(rounds.get(state["round"], ["8d", "Jc"]))
    assert len(list(tmp_path.glob("scoreboard-*.png"))) == 8


# Another game: Pure 21.5 Blackjack (config/pure-21.5-blackjack-003-6to5.toml as shipped), the
# second round of tests/integration/test_blackjack_e2e.py, worked by hand there: seat 4 banks
# $500; seat 5 bets 20 with Red Flex 5 and Buster 5, seat 1 bets 10. Deal: seat 5 Js, seat 1 7c,
# player-dealer 8h up, seat 5 6s, seat 1 4d, hole card 8d face down. Seat 5 hits 9c and busts;
# seat 1 doubles for 5 and gets 2c, whose echo turns the hole card over; the player-dealer hits
# 8s: 888. Red Flex (8h 8d red, then black) pays 2 to 1: +10.00; Buster (a three-card bust)
# 1 to 1: +5.00.
BJ_BASE = "tablectl/cardroom-1/bj-03"
BJ_DEAL = ["Js", "7c", "8h", "6s", "4d", "8d"]
BJ_HOLE = "8d"
BJ_LEFT = ["Qh", "3c"]  # never drawn


def test_the_scoreboard_page_at_a_blackjack_table_shows_no_hole_card(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The blackjack view's frame: the game, the player-dealer and the rotation, the side-bet
    hits, what the table posts; and the hole card reaches the page's socket only once the table
    has turned it over."""
    broker, ws_port = websocket_broker(mosquitto_factory)
    with SimulatedShoe() as shoe, Browser(tmp_path, monkeypatch) as driver:
        cfg = shipped_config(
            tmp_path,
            "pure-21.5-blackjack-003-6to5.toml",
            ports={"/dev/tablectl-shoe": shoe.port},
            mqtt_port=broker.port,
        )
        add_page_user(broker, BJ_BASE)
        with running_table(cfg, broker, BJ_BASE, ["shoe"]) as (console, floor):
            page = Page(driver, ws_port, base=BJ_BASE)
            page.wait("the page subscribed", "return window.scoreboard.link === 'subscribed'")
            shoe.load([*BJ_DEAL, "9c", "2c", "8s", *BJ_LEFT])
            floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
            shown: list[tuple[str, int]] = []
            for verb, body in (
                ("bank", {"seat": 4, "amount": "500"}),
                ("wager", {"seat": 5, "spot": "base", "amount": "20"}),
                ("wager", {"seat": 5, "spot": "red-flex", "amount": "5"}),
                ("wager", {"seat": 5, "spot": "buster", "amount": "5"}),
                ("wager", {"seat": 1, "spot": "base", "amount": "10"}),
                ("bets.close", {}),
            ):
                console.ok(verb, body)
            for card in BJ_DEAL:
                if card != BJ_HOLE:  # the hole card is dealt face down: not shown yet
                    shown.append((card, page.count()))
                deal(floor, shoe, page, card, [])
            page.wait("the player-dealer", "return window.scoreboard.state.phase === 'playing'")
            # What the table posts (`info`), from config/pure-21.5-blackjack-003-6to5.toml:
            # limits $5-$200, Red Flex and Buster $5-$100 each, schedule option 5 (the
            # player-dealer $0.50 to $4 by total action, players nothing): 003 "Pure 21.5
            # Blackjack 6 to 5: Wagering Limits and Collection Fees"; RFB-12 (003 "Red Flex Bet")
            # and Buster option 1 (003 "Buster Blackjack Bonus Bet Pay Table").
            assert page.text("limits") == "Limits 5.00\u2013200.00"
            assert page.posted() == {
                "Table limits": "5.00\u2013200.00",
                "Red Flex limits": "5.00\u2013100.00",
                "Buster Blackjack limits": "5.00\u2013100.00",
            }
            # the pays the rules fix: R11 6 to 5 at this approval, R17 insurance 2 to 1
            assert page.paytable("fixed") == [
                ("base", "Base: a pure 21.5", "6 to 5"),
                ("insurance", "Insurance: the player-dealer has a pure 21.5", "2 to 1"),
            ]
            assert page.paytable("RFB-12") == [
                ("red-8-or-more", "8 or more red cards", "300 to 1"),
                ("red-7", "7 red cards", "200 to 1"),
                ("red-6", "6 red cards", "100 to 1"),
                ("red-5", "5 red cards", "50 to 1"),
                ("red-4", "4 red cards", "8 to 1"),
                ("red-3", "3 red cards", "3 to 1"),
                ("red-2", "2 red cards", "2 to 1"),
            ]
            assert page.paytable("option-1")[0] == ("cards-3", "3-card bust", "1 to 1")
            assert page.paytable("option-1")[-1] == (
                "cards-8-or-more",
                "8 or more cards bust",
                "200 to 1",
            )
            assert page.text("collection-title") == "Collection: option 5"
            assert page.collection() == [
                "Table limit 5.00\u2013200.00; player-dealer, by total action",
                "from 5.00 0.50",
                "from 51.00 1.00",
                "from 101.00 2.00",
                "from 201.00 3.00",
                "from 301.00 4.00",
                "Player none",
            ]
            # the blackjack view (web/views/blackjack.js; test_scoreboard_banked.py plays it)
            assert (page.text("round"), page.text("bj-phase")) == ("1", "Playing")
            assert page.text("bj-bank") == "seat 4 \u00b7 bank 500.00 \u00b7 hand 1 of 2"
            assert page.text("bj-action") == "Total action 40.00"
            driver.save_screenshot(str(tmp_path / "scoreboard-blackjack-playing.png"))
            shown.append(("9c", page.count()))
            deal(floor, shoe, page, "9c", [])
            console.ok("decision", {"seat": 1, "action": "double", "amount": "5"})
            shown += [("2c", page.count()), (BJ_HOLE, page.count())]  # 2c turns it over
            deal(floor, shoe, page, "2c", [])
            shown.append(("8s", page.count()))
            deal(floor, shoe, page, "8s", [])
            floor.wait_for("the result", lambda: bool(floor.on("round/result")))
            page.wait("the hits", "return document.querySelectorAll('#bj-hits li').length === 2")
            assert page.text("game-name") == "Pure 21.5 Blackjack"
            assert page.text("bj-hits").splitlines() == [
                "Round 1: seat 5 Red Flex +10.00",
                "Round 1: seat 5 Buster Blackjack +5.00",
            ]
            page.wait("the next round", "return window.scoreboard.state.round === 2")
            assert page.text("bj-note") == "Bank offered to seat 4"  # its second hand (R5)
            assert driver.execute_script(
                "const b = document.getElementById('baccarat'); return !b || b.hidden"
            )
            driver.save_screenshot(str(tmp_path / "scoreboard-blackjack.png"))
            received: list[dict[str, Any]] = driver.execute_script(
                "return window.scoreboard.received"
            )
            check_mqtt_framing(driver)
    assert_no_card_before_shown(received, shown, BJ_BASE)
    named = {card for m in received for card in cards_in(m["payload"])}
    assert BJ_HOLE in named and not named & set(BJ_LEFT)


def check_layout(driver: webdriver.Chrome) -> None:
    """The page's dragon tail: a column longer than six rows turns right along the bottom row,
    and the next column starts at the top of the next free grid column."""
    placed: list[list[int]] = driver.execute_script(
        "return window.scoreboard.layout([[1,2,3,4,5,6,7,8], [9], [10,11]], 6)"
        ".map(p => [p.c, p.r, p.x, p.y])"
    )
    assert placed == [
        *([0, r, 0, r] for r in range(6)),
        [0, 6, 1, 5],
        [0, 7, 2, 5],
        [1, 0, 1, 0],
        [2, 0, 2, 0],
        [2, 1, 2, 1],
    ]


def check_mqtt_framing(driver: webdriver.Chrome) -> None:
    """web/mqtt-ws.js cuts packets out of whatever the WebSocket frames hold: a QoS 1 PUBLISH
    with a two-byte remaining length fed one byte at a time, then a QoS 0 PUBLISH and a
    PINGRESP in one frame. Each message is delivered once and whole, and the QoS 1 one is
    acknowledged with a PUBACK naming its packet id."""
    out: dict[str, Any] = driver.execute_script(
        """
        const got = [], sent = [];
        const c = new MqttWsClient({url: "ws://unused", clientId: "t", onMessage:
          (topic, bytes, meta) => got.push([topic, new TextDecoder().decode(bytes), meta.qos])});
        c.ws = {readyState: 1, send: (b) => sent.push(Array.from(b)), close() {}};
        const enc = (s) => Array.from(new TextEncoder().encode(s));
        const body = "x".repeat(200);  // remaining length 2 + 3 + 2 + 200 = 207: two bytes
        const topic = [0, 3, ...enc("a/b")];
        const qos1 = [0x32, 207 % 128 + 128, 1, ...topic, 0x12, 0x34, ...enc(body)];
        for (const b of qos1) c._receive(new Uint8Array([b]));
        const qos0 = [0x30, 7, ...topic, ...enc("hi")];
        c._receive(new Uint8Array([...qos0, 0xd0, 0]));
        return {got, sent, left: c.buffer.length, open: c.ws !== null};
        """
    )
    assert out["got"] == [["a/b", "x" * 200, 1], ["a/b", "hi", 0]]
    assert out["sent"] == [[0x40, 2, 0x12, 0x34]]  # PUBACK, packet id 0x1234
    assert (out["left"], out["open"]) == (0, True)


# -- playing the table -----------------------------------------------------------------------


def available(console: Console) -> bool:
    st = console.on("device/shoe/status")
    return bool(st) and st[-1].get("available") is True


def latest(console: Console, suffix: str) -> dict[str, Any] | None:
    found = [p for p in console.on(suffix) if isinstance(p, dict) and "seq" in p]
    return max(found, key=lambda p: p["seq"]) if found else None


def latest_offer(console: Console) -> int:
    state = latest(console, "state")
    seat = state.get("bank_offer_seat") if state else None
    return int(seat) if seat else 4


def new_shoe(
    console: Console,
    shoe: SimulatedShoe,
    hands: list[list[str]],
    burns: list[str],
    page: Page,
    fed: list[tuple[str, int]],
    *,
    shoes: int,
) -> None:
    """Insert a shoe holding the burns and then exactly these hands' cards, and burn."""
    shoe.load([*burns, *(c for hand in hands for c in hand)])
    console.wait_for(
        f"shoe.new {shoes}",
        lambda: sum(1 for e in console.on("event") if e["type"] == "shoe.new") >= shoes,
    )

    def burns_echoed() -> int:
        return sum(1 for e in console.on("event") if e["type"] == "shoe.burn")

    for card in burns:
        before = burns_echoed()
        fed.append(("burn", page.count()))
        assert shoe.burn() == card
        console.wait_for(f"burn {card}", lambda: burns_echoed() > before)  # noqa: B023


def deal(
    console: Console, shoe: SimulatedShoe, page: Page, card: str, fed: list[tuple[str, int]]
) -> None:
    """The shoe deals `card`; returns once the table has published the state after it."""

    def cards() -> list[dict[str, Any]]:
        return [e for e in console.on("event") if e["type"] == "shoe.card"]

    before = len(cards())
    fed.append((card, page.count()))  # what the page had before this card left the shoe
    assert shoe.draw() == card
    console.wait_for(f"card {card}", lambda: len(cards()) > before)
    seq = cards()[-1]["seq"]
    console.wait_for(
        f"state after {card}", lambda: any(s["seq"] > seq for s in console.on("state"))
    )


def play_hand(
    console: Console,
    shoe: SimulatedShoe,
    page: Page,
    hand: list[str],
    fed: list[tuple[str, int]],
    rnd: int,
    *,
    check_timer: bool,
) -> None:
    seat = latest_offer(console)
    others = [s for s in (1, 2, 3, 5, 6, 7) if s != seat]
    console.ok("bank", {"seat": seat, "amount": "500"})
    console.ok("wager", {"seat": others[0], "spot": "player", "amount": "10"})
    console.ok("wager", {"seat": others[1], "spot": "banker", "amount": "10"})
    if check_timer:  # the bet timer counts from the round's first wager (R28)
        page.wait(
            "the bet timer",
            "return document.getElementById('bet-timer').dataset.state === 'running'",
        )
        left = int(page.text("bet-timer").removeprefix("Bets close in ").removesuffix(" s"))
        assert BET_TIMER - 5 <= left <= BET_TIMER
        # A screen opened now, in the middle of betting, counts down to the same moment: the
        # retained `state` says when (`bets_close_at`), not the page's own count.
        first_tab = page.driver.current_window_handle
        page.driver.switch_to.new_window("tab")
        try:
            late = Page(page.driver, page.ws_port)
            late.wait(
                "the late screen's bet timer",
                "return document.getElementById('bet-timer').dataset.state === 'running'",
            )
            late_left = int(
                late.text("bet-timer").removeprefix("Bets close in ").removesuffix(" s")
            )
            assert left - 5 <= late_left <= left
        finally:
            page.driver.close()
            page.driver.switch_to.window(first_tab)
    for card in hand:
        deal(console, shoe, page, card, fed)
    console.wait_for(
        f"round {rnd}'s result", lambda: any(r["round"] == rnd for r in console.on("round/result"))
    )
