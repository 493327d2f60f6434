"""The scoreboard's views of the banked card games (issue 25 item 1, docs/scoreboard.md): Pure
21.5 Blackjack (screen "blackjack"), Three Card Poker ("three-card-poker"), Fortune Pai Gow
Poker ("pai-gow") and Ultimate Texas Hold'em ("ultimate"), each in a real headless Chromium,
served by a real Mosquitto's websockets listener and fed over MQTT-over-WebSockets by the real
daemon of a shipped config whose devices are emulators on ptys (the shoe, the shuffler, the hand
dispenser, the dice cup).

Each test plays rounds whose cards it chose and, at a few moments of the round, looks at the
page at 1280x720 and at 1920x1080 in one browser (set_window_size): nothing to scroll and no
panel cut off, the round and phase `state` holds on the page, and a screenshot of each size in
tmp_path (`pytest --basetemp=DIR` keeps them). At the end of a round every card its
`round/result` shows is drawn.

No card before the table shows it, in two places: every message the display user received over
the whole session (`window.scoreboard.received`), and every card the page's DOM ever held (a
MutationObserver logs each `data-card` put into it, with how many messages the page had then).
A card may appear in either only after the table showed it; a hole card or a card dealt face
down only once it is turned over (a face-down card is drawn without a name); a burn, a folded or
discarded hand and the cards left in a device never."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver

from tablectl_base.cards import DeckKind, deck_of
from tablectl_drivers.sim.dice import SimulatedDice
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoFactory
from tests.integration.floor import events, latest_state, round_result, running_table, shipped_config
from tests.integration.harness import Console
from tests.integration.pages import (
    PAGE_TOPICS,
    WAIT,
    Browser,
    Page,
    add_page_user,
    fits_without_scrolling,
    websocket_broker,
)

pytestmark = pytest.mark.integration

SIZES = ((1280, 720), (1920, 1080))
CODE = re.compile(r"^(?:[2-9TJQKA][shdc]|JKR)$")  # a card as the table names it, the joker too

# Every `data-card` the page's DOM is given, from now on, with how many messages the page had
# received when it was (a face-down card has an empty one and names nothing).
DOM_WITNESS = """
const log = window.domCards = [];
const note = (node) => {
  if (node.nodeType !== 1) return;
  const found = node.matches('[data-card]') ? [node] : [];
  found.push(...node.querySelectorAll('[data-card]'));
  for (const e of found) {
    const code = e.getAttribute('data-card');
    if (code) log.push([code, window.scoreboard.received.length]);
  }
};
note(document.body);
new MutationObserver((changes) => {
  for (const m of changes) {
    if (m.type === 'attributes') note(m.target); else m.addedNodes.forEach(note);
  }
}).observe(document.body, {subtree: true, childList: true, attributes: true,
  attributeFilter: ['data-card']});
"""

# Whatever in the view is cut off: a panel or a seat whose content is larger than its box.
CLIPPED = """
const view = document.querySelector('main.view:not([hidden])');
return [...view.querySelectorAll('.panel, [data-seat]')]
  .filter(e => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
  .map(e => e.id || e.className + ' ' + (e.dataset.seat || ''));
"""


def letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def named(value: Any) -> Iterator[str]:
    """Every card a JSON value names (the joker too)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and CODE.match(v):
            yield v


class Session:
    """The display user's page at one table, the cards the table showed it, and its looks."""

    def __init__(
        self,
        driver: webdriver.Chrome,
        ws_port: int,
        base: str,
        table: tuple[Console, Console],
        tmp_path: Path,
    ) -> None:
        self.driver = driver
        self.console, self.floor = table
        self.tmp_path = tmp_path
        self.base = base
        self.page = Page(driver, ws_port, base=base)
        self.page.wait("the page subscribed", "return window.scoreboard.link === 'subscribed'")
        driver.execute_script(DOM_WITNESS)
        self.shown: dict[str, int] = {}  # card -> how many messages the page had before it showed

    def show(self, *cards: str) -> None:
        """The table is about to show `cards` (the next input shows them): the page has
        everything before it."""
        self.synced()
        for c in cards:
            self.shown.setdefault(c, self.page.count())

    def synced(self) -> dict[str, Any]:
        """Wait until the page has the latest `state` the console or the floor has (the console
        has everything before the reply to its last command); returns that state."""
        state = max(latest_state(self.console), latest_state(self.floor), key=lambda s: s["seq"])
        self.page.wait(
            f"state {state['seq']}",
            f"const s = window.scoreboard.state; return !!s && s.seq >= {state['seq']}",
        )
        return state

    def result(self, number: int) -> dict[str, Any]:
        """Round `number`'s result, once the page has it and the next round's state."""
        result = round_result(self.floor, number)
        self.page.wait(
            f"round {number}'s result",
            f"return window.scoreboard.results.some(r => r.round === {number})",
        )
        self.synced()
        return result

    def dom_cards(self) -> list[str]:
        found: list[str] = self.driver.execute_script(
            "return [...document.querySelectorAll('main.view:not([hidden]) [data-card]')]"
            ".map(e => e.dataset.card).filter(Boolean)"
        )
        return found

    def down_cards(self) -> int:
        n: int = self.driver.execute_script(
            "return document.querySelectorAll('main.view:not([hidden]) .card.down').length"
        )
        return n

    def look(self, name: str, state: dict[str, Any]) -> None:
        """At each size: the page fits without scrolling, nothing in the view is cut off, every
        card is drawn at the shared card height, and the header's round and the view's phase are
        `state`'s; a screenshot of each."""
        driver = self.driver
        for w, h in SIZES:
            resize(driver, w, h)
            driver.execute_async_script("requestAnimationFrame(() => setTimeout(arguments[0]))")
            driver.save_screenshot(str(self.tmp_path / f"{name}-{w}x{h}.png"))
            assert fits_without_scrolling(driver), f"{name} at {w}x{h} scrolls"
            assert driver.execute_script(CLIPPED) == [], f"{name} at {w}x{h}"
            heights = driver.execute_script(
                "return [...document.querySelectorAll('main.view:not([hidden]) .card')]"
                ".map(c => c.getBoundingClientRect().height)"
            )
            assert len(set(heights)) <= 1, heights
            assert self.page.text("round") == str(state["round"])
            phase = driver.execute_script(
                "const p = document.querySelector('main.view:not([hidden]) [data-phase]');"
                " return [p.dataset.phase, p.textContent]"
            )
            assert phase[0] == state["phase"]
            assert letters(phase[1]).startswith(letters(state["phase"])), phase
        resize(driver, *SIZES[0])

    def all_drawn(self, result: dict[str, Any]) -> None:
        """Every card `result` shows is drawn on the page."""
        assert set(named(result)) <= set(self.dom_cards()), (result, self.dom_cards())

    def check(self, never: list[str]) -> None:
        """The whole session: each card named by a message the page received, or put into its
        DOM, had been shown by the table before the page had received that message; the cards
        in `never` appear nowhere; the page received only its five topics."""
        received: list[dict[str, Any]] = self.driver.execute_script(
            "return window.scoreboard.received"
        )
        dom: list[list[Any]] = self.driver.execute_script("return window.domCards")
        assert {m["topic"] for m in received} <= {f"{self.base}/{t}" for t in PAGE_TOPICS}
        for m in received:
            try:
                payload = json.loads(m["payload"])
            except ValueError:
                continue
            for c in named(payload):
                assert c not in never, f"{c} must never reach the page: {m['payload']}"
                assert c in self.shown, f"{c} (never shown) in {m['topic']}: {m['payload']}"
                assert m["n"] >= self.shown[c], (
                    f"{c} reached the page (message {m['n']}: {m['topic']} {m['payload']}) "
                    f"before the table showed it (after message {self.shown[c]})"
                )
        assert dom, "the DOM witness saw no card"
        for c, count in dom:
            assert c not in never, f"{c} must never be drawn"
            assert c in self.shown, f"{c} (never shown) drawn"
            assert count > self.shown[c], f"{c} drawn before the table showed it"


def resize(driver: webdriver.Chrome, w: int, h: int) -> None:
    """The page's viewport to `w` x `h`: the window that much larger than its viewport (even
    headless, a window has an outer frame)."""
    driver.set_window_size(w, h)
    iw, ih = driver.execute_script("return [innerWidth, innerHeight]")
    driver.set_window_size(2 * w - iw, 2 * h - ih)
    assert driver.execute_script("return [innerWidth, innerHeight]") == [w, h]


def seats(driver: webdriver.Chrome) -> dict[str, list[dict[str, Any]]]:
    """The view's seats as drawn: each hand's cards (a face-down card as None) and its text."""
    found: dict[str, list[dict[str, Any]]] = driver.execute_script(
        """
        const out = {};
        for (const s of document.querySelectorAll('main.view:not([hidden]) .seat[data-seat]')) {
          out[s.dataset.seat] = [...s.querySelectorAll('[data-hand]')].map(h => ({
            hand: h.dataset.hand,
            cards: [...h.querySelectorAll('.card')].map(c => c.dataset.card || null),
            text: h.querySelector('.line') ? h.querySelector('.line').innerText : '',
          }));
        }
        return out;
        """
    )
    return found


def seat_text(driver: webdriver.Chrome, seat: int) -> str:
    text: str = driver.execute_script(
        "const s = document.querySelector(`main.view:not([hidden]) .seat[data-seat='${arguments[0]}']`);"
        " return s ? s.innerText : ''",
        seat,
    )
    return text


# -- Pure 21.5 Blackjack ---------------------------------------------------------------------

# config/pure-21.5-blackjack-003-6to5.toml as shipped; the two rounds of
# tests/integration/test_blackjack_e2e.py, worked by hand there. A burn first.
# Round 1: seat 4 banks 500; seat 5 base 40, Red Flex 5, Buster 5; seat 1 base 10. Deal seat 5
# 8h, seat 1 Tc, up card Ah, seat 5 8c, seat 1 7d, hole 6c. Insurance: seat 1 for 5. Seat 5
# splits: hand 1 8h 3d doubles for 40, 9s (20); hand 2 8c 2h Kd (20) stands; seat 1 stands on
# 17, which turns the hole card over; the player-dealer draws 5d 5s: 17. Seat 5 +80 +40, seat 1
# pushes and loses its insurance.
# Round 2: seat 5 base 20, Red Flex 5, Buster 5; seat 1 base 10. Deal seat 5 Js, seat 1 7c, up
# 8h, seat 5 6s, seat 1 4d, hole 8d. Seat 5 hits 9c (bust); seat 1 doubles for 5, 2c, whose echo
# turns the hole card over; the player-dealer draws 8s: 888. Seat 5's bust pushes on 888, seat 1
# wins 15; Red Flex (two red) +10, Buster (a three-card bust) +5.
BJ_BASE = "tablectl/cardroom-1/bj-03"
BJ_BURN = "Jd"
BJ_R1 = ["8h", "Tc", "Ah", "8c", "7d", "6c"]
BJ_R2 = ["Js", "7c", "8h", "6s", "4d", "8d"]
BJ_LEFT = ["Qh", "3c"]


def test_the_blackjack_view_shows_every_hand_as_dealt_and_no_hole_card(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    broker, ws_port = websocket_broker(mosquitto_factory)
    with (
        SimulatedShoe() as shoe,
        Browser(tmp_path, monkeypatch, size=SIZES[0]) as driver,
    ):
        cfg = shipped_config(
            tmp_path,
            "pure-21.5-blackjack-003-6to5.toml",
            ports={"/dev/tablectl-shoe": shoe.port},
            mqtt_port=broker.port,
        )
        add_page_user(broker, BJ_BASE)  # (once the broker is up and locked for the table)
        with running_table(cfg, broker, BJ_BASE, ["shoe"]) as (console, floor):
            s = Session(driver, ws_port, BJ_BASE, (console, floor), tmp_path)
            shoe.load(
                [BJ_BURN, *BJ_R1, "3d", "9s", "2h", "Kd", "5d", "5s", *BJ_R2, "9c", "2c", "8s"]
                + BJ_LEFT
            )
            floor.wait_for("the new shoe", lambda: bool(events(floor, "shoe.new")))
            assert shoe.burn() == BJ_BURN
            floor.wait_for("the burn", lambda: bool(events(floor, "shoe.burn")))

            def draw(*cards: str, face_down: str | None = None) -> None:
                for card in cards:
                    if card != face_down:
                        s.show(card)
                    before = len(events(floor, "shoe.card"))
                    assert shoe.draw() == card
                    floor.wait_for(
                        f"card {card}",
                        lambda: len(events(floor, "shoe.card")) > before,  # noqa: B023
                    )
                    seq = events(floor, "shoe.card")[-1]["seq"]
                    floor.wait_for(
                        f"the state after {card}",
                        lambda: latest_state(floor).get("seq", 0) > seq,  # noqa: B023
                    )

            # Round 1: the deal, the up card and the hole card face down; insurance
            def open_round(base: str) -> None:
                console.ok("bank", {"seat": 4, "amount": "500"})
                console.ok("wager", {"seat": 5, "spot": "base", "amount": base})
                console.ok("wager", {"seat": 5, "spot": "red-flex", "amount": "5"})
                console.ok("wager", {"seat": 5, "spot": "buster", "amount": "5"})
                console.ok("wager", {"seat": 1, "spot": "base", "amount": "10"})
                console.ok("bets.close", {})

            open_round("40")
            draw(*BJ_R1, face_down="6c")
            state = s.synced()
            assert state["phase"] == "insurance"
            assert s.dom_cards() == ["Ah", "8h", "8c", "Tc", "7d"]  # dealer, seat 5, seat 1
            assert s.down_cards() == 1
            assert "Insurance open: seat 5, 1" in s.page.text("bj-note")
            s.look("blackjack-insurance", state)
            console.ok("decision", {"seat": 1, "action": "insurance", "amount": "5"})
            console.ok("bets.close", {})
            console.ok("decision", {"seat": 5, "action": "split"})
            draw("3d")
            console.ok("decision", {"seat": 5, "hand": 1, "action": "double", "amount": "40"})
            draw("9s", "2h", "Kd")
            console.ok("decision", {"seat": 5, "hand": 2, "action": "stand"})
            state = s.synced()
            assert state["turn"] == {"seat": 1, "hand": 1}
            drawn = seats(driver)
            assert [h["cards"] for h in drawn["5"]] == [["8h", "3d", "9s"], ["8c", "2h", "Kd"]]
            assert [h["cards"] for h in drawn["1"]] == [["Tc", "7d"]]
            assert drawn["5"][0]["text"].split() == ["20", "split", "doubled", "40.00"]
            assert drawn["5"][1]["text"].split() == ["20", "split", "stand"]
            assert s.dom_cards()[0] == "Ah" and s.down_cards() == 1
            assert "Insurance 5.00" in seat_text(driver, 1)
            s.look("blackjack-split", state)
            s.show("6c")  # seat 1's stand, the last hand, turns the hole card over
            console.ok("decision", {"seat": 1, "action": "stand"})
            draw("5d", "5s")
            first = s.result(1)
            state = s.synced()
            assert (state["round"], state["phase"]) == (2, "betting")
            s.all_drawn(first)
            assert s.down_cards() == 0
            assert s.page.text("bj-title").lower() == "round 1 result"
            assert s.page.text("bj-dealer-total") == "17"
            drawn = seats(driver)
            assert [h["text"].split() for h in drawn["5"]] == [
                ["20", "split", "doubled", "40.00", "win", "+80.00"],
                ["20", "split", "win", "+40.00"],
            ]
            assert drawn["1"][0]["text"].split() == ["17", "push"]
            assert "Insurance \u22125.00" in seat_text(driver, 1)
            s.look("blackjack-round-1", state)

            # Round 2: 888, and the two side-bet hits
            open_round("20")
            draw(*BJ_R2, face_down="8d")
            draw("9c")
            console.ok("decision", {"seat": 1, "action": "double", "amount": "5"})
            s.show("8d")  # the double's card turns the hole card over
            draw("2c")
            draw("8s")
            second = s.result(2)
            state = s.synced()
            s.all_drawn(second)
            assert s.page.text("bj-dealer-total") == "888"
            drawn = seats(driver)
            assert drawn["5"][0]["text"].split() == ["bust", "25", "push"]
            assert drawn["1"][0]["text"].split() == ["13", "doubled", "5.00", "win", "+15.00"]
            assert "Red Flex 2 red +10.00" in seat_text(driver, 5)
            assert "Buster 3-card bust +5.00" in seat_text(driver, 5)
            assert s.page.text("bj-hits").splitlines() == [
                "Round 2: seat 5 Red Flex +10.00",
                "Round 2: seat 5 Buster Blackjack +5.00",
            ]
            s.look("blackjack-round-2", state)
            s.check(never=[BJ_BURN, *BJ_LEFT])
