"""What the tests of the banked games' scoreboard views share (test_scoreboard_banked.py,
test_scoreboard_full_table.py): the display user's page at one table as a `Session` (the cards
the table showed it, its looks at both screen sizes, the session's no-card-before-shown check),
the seats as drawn, and a shoe dealing cards one by one.

No card before the table shows it, in two places: every message the display user received over
the whole session (`window.scoreboard.received`), and every card the page's DOM ever held (a
MutationObserver logs each `data-card` put into it, with how many messages the page had then).
A card may appear in either only after the table showed it; a hole card or a card dealt face
down only once it is turned over (a face-down card is drawn without a name); a burn, a folded or
discarded hand and the cards left in a device never."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from selenium import webdriver

from tablectl_drivers.sim.device import SimulatedDevice
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoFactory
from tests.integration.floor import (
    events,
    latest_state,
    round_result,
    running_table,
    shipped_config,
)
from tests.integration.harness import Console
from tests.integration.pages import (
    DOM_WITNESS,
    MIN_CARD_1080,
    PAGE_TOPICS,
    WAIT,
    Browser,
    Page,
    add_page_user,
    assert_fits_and_reads,
    named,
    websocket_broker,
)

SIZES = ((1280, 720), (1920, 1080))
CODE = re.compile(r"^(?:[2-9TJQKA][shdc]|JKR)$")  # a card as the table names it, the joker too


def letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


# Where each device of the shipped configs is (their `port`), by its name there.
SHIPPED_PORTS = {
    "shoe": "/dev/tablectl-shoe",
    "shuffler": "/dev/tablectl-shuffler",
    "dispenser": "/dev/tablectl-dispenser",
    "dice": "/dev/tablectl-dice-cup",
}


@contextmanager
def table_session(
    tmp_path: Path,
    mosquitto_factory: MosquittoFactory,
    monkeypatch: pytest.MonkeyPatch,
    config: str,
    base: str,
    **devices: SimulatedDevice,
) -> Iterator[Session]:
    """config/`config` as shipped at `base`, run by the real daemon on a locked broker with a
    websockets listener, its devices the emulators given by their names in it (`shoe=...`);
    the display user's page open on it in one headless Chromium at 1280x720: a Session."""
    broker, ws_port = websocket_broker(mosquitto_factory)
    with Browser(tmp_path, monkeypatch, size=SIZES[0]) as driver:
        ports = {SHIPPED_PORTS[name]: device.port for name, device in devices.items()}
        cfg = shipped_config(tmp_path, config, ports=ports, mqtt_port=broker.port)
        add_page_user(broker, base)  # (once the broker is up and locked for the table)
        with running_table(cfg, broker, base, list(devices)) as table:
            yield Session(driver, ws_port, base, table, tmp_path)


class Look(NamedTuple):
    """The page at one size: its cards' height (px), the view's layout and columns of seats
    (banked.js's fit: data-layout, --cols) and the posted panel's pages."""

    card: float
    layout: str
    cols: int
    pages: int


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

    def round_over(self, number: int) -> dict[str, Any]:
        """Round `number` over, once the page has its result and the next round's state: every
        card the result shows is drawn, and no card face down. Returns that state."""
        result = round_result(self.floor, number)
        self.page.wait(
            f"round {number}'s result",
            f"return window.scoreboard.results.some(r => r.round === {number})",
        )
        state = self.synced()
        self.all_drawn(result)
        assert self.down_cards() == 0
        return state

    def dom_cards(self) -> list[str]:
        found: list[str] = self.driver.execute_script(
            "return [...document.querySelectorAll('main.view:not([hidden]) [data-card]')]"
            ".map(e => e.dataset.card).filter(Boolean)"
        )
        return found

    def cards_of(self, element_id: str) -> list[str]:
        return self.page.cards(element_id)

    def down_cards(self) -> int:
        n: int = self.driver.execute_script(
            "return document.querySelectorAll('main.view:not([hidden]) .card.down').length"
        )
        return n

    def look(self, name: str, state: dict[str, Any]) -> dict[int, Look]:
        """At each size: the page as docs/scoreboard.md "Sizing" wants it (nothing to scroll,
        nothing cut off, no seat cut off, no text under 20 px, every card at least 80 px high
        at 1080 lines and 53 at 720), every card the same height, the header's round and the
        view's phase `state`'s, and what the table posts whole over its pages; a screenshot of
        each size. Returns how it looked at each size, by the screen's lines."""
        driver = self.driver
        seen: dict[int, Look] = {}
        for w, h in SIZES:
            resize(driver, w, h)
            driver.execute_async_script("requestAnimationFrame(() => setTimeout(arguments[0]))")
            driver.save_screenshot(str(self.tmp_path / f"{name}-{w}x{h}.png"))
            heights = assert_fits_and_reads(driver, min_card=MIN_CARD_1080 * h / 1080)
            assert len({round(x, 1) for x in heights}) == 1, heights
            assert self.page.text("round") == str(state["round"])
            phase = driver.execute_script(
                "const p = document.querySelector('main.view:not([hidden]) [data-phase]');"
                " return [p.dataset.phase, p.textContent]"
            )
            assert phase[0] == state["phase"]
            assert letters(phase[1]).startswith(letters(state["phase"])), phase
            layout: list[str] = driver.execute_script(
                "const v = document.querySelector('main.view:not([hidden])');"
                " return [v.dataset.layout || '', v.style.getPropertyValue('--cols')]"
            )
            pages = self.posted_pages(MIN_CARD_1080 * h / 1080)
            seen[h] = Look(heights[0], layout[0], int(layout[1] or 0), pages)
        resize(driver, *SIZES[0])
        return seen

    def posted_pages(self, min_card: float) -> int:
        """What the table posts, page by page where it is shown a page at a time (a full table:
        scoreboard.js's pager): each page as "Sizing" wants it, and over the pages every fact
        and every row of every table shown. Returns how many pages."""
        driver = self.driver
        rows = "[...document.querySelectorAll('#posted-facts dt, #posted-panel tr')]"
        total: int = driver.execute_script(f"return {rows}.length")
        shown: set[int] = set()
        visited: set[int] = set()
        pages = 1
        for _ in range(30):  # each page once, whichever the page's own timer turns to meanwhile
            at: list[int] | None = driver.execute_script("return window.scoreboard.postedPage")
            page, pages = at or (1, 1)
            if page not in visited:
                visited.add(page)
                assert_fits_and_reads(driver, min_card=min_card)
                found: list[int] = driver.execute_script(
                    f"return {rows}.flatMap((e, i) => e.getClientRects().length ? [i] : [])"
                )
                shown.update(found)
            if len(visited) == pages:
                break
            driver.execute_script("window.scoreboard.turnPosted()")
        assert len(visited) == pages, (visited, pages)
        assert shown == set(range(total)), f"posted rows never shown: {set(range(total)) - shown}"
        return pages

    def all_drawn(self, result: dict[str, Any]) -> None:
        """Every card `result` shows is drawn on the page."""
        assert set(named(result, CODE)) <= set(self.dom_cards()), (result, self.dom_cards())

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
            for c in named(payload, CODE):
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
    headless, a window has an outer frame), asked again until the viewport has settled."""
    deadline = time.monotonic() + WAIT
    width, height = w, h
    while True:
        driver.set_window_size(width, height)
        inner: list[int] = driver.execute_script("return [innerWidth, innerHeight]")
        if inner == [w, h]:
            return
        assert time.monotonic() < deadline, f"the viewport stays {inner}, not {w}x{h}"
        width, height = width + w - inner[0], height + h - inner[1]
        time.sleep(0.05)  # let the window manager catch up; bounded by the deadline


def seats(driver: webdriver.Chrome) -> dict[str, list[dict[str, Any]]]:
    """The view's seats as drawn, in order: each hand's cards (a face-down card as None) and
    the text of its line."""
    found: list[list[Any]] = driver.execute_script(
        """
        const view = document.querySelector('main.view:not([hidden])');
        return [...view.querySelectorAll('.seat[data-seat]')].map(s => [s.dataset.seat,
          [...s.querySelectorAll('[data-hand]')].map(h => ({
            hand: h.dataset.hand,
            cards: [...h.querySelectorAll('.card')].map(c => c.dataset.card || null),
            text: h.querySelector('.line') ? h.querySelector('.line').innerText : '',
          }))]);
        """
    )
    return {seat: hands for seat, hands in found}


def spots(driver: webdriver.Chrome, seat: int) -> list[str]:
    """What seat `seat` won or lost on each wager, as drawn ("Ante +10.00")."""
    found: list[str] = driver.execute_script(
        "const view = document.querySelector('main.view:not([hidden])');"
        " return [...view.querySelectorAll(`.seat[data-seat='${arguments[0]}'] [data-spot]`)]"
        ".map(e => e.textContent)",
        seat,
    )
    return found


def seat_text(driver: webdriver.Chrome, seat: int) -> str:
    text: str = driver.execute_script(
        "const view = document.querySelector('main.view:not([hidden])');"
        " const s = view.querySelector(`.seat[data-seat='${arguments[0]}']`);"
        " return s ? s.innerText : ''",
        seat,
    )
    return text


def shoe_deals(
    s: Session, shoe: SimulatedShoe, cards: tuple[str, ...], face_down: str | None = None
) -> None:
    """The shoe deals `cards`, each shown as it is dealt but `face_down`; returns once the table
    has published the `state` after the last."""
    floor = s.floor
    for card in cards:
        if card != face_down:
            s.show(card)
        before = len(events(floor, "shoe.card"))
        assert shoe.draw() == card
        floor.wait_for(f"card {card}", lambda: len(events(floor, "shoe.card")) > before)  # noqa: B023
        seq = events(floor, "shoe.card")[-1]["seq"]
        floor.wait_for(
            f"the state after {card}",
            lambda: latest_state(floor).get("seq", 0) > seq,  # noqa: B023
        )
