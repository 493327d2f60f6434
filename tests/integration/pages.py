"""What the tests of the table pages share (the scoreboard and the floor view): the locked broker
with its websockets listener serving web/, the scoreboard's read-only user, Debian's headless
Chromium through Selenium (never a downloaded browser), the scoreboard as a test reads it, and
the checks that no card reached a page before the table showed it.

Screenshots go to the test's tmp_path (`pytest --basetemp=DIR` keeps them in DIR), never the
repository."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from hil.ports import free_port
from tests.conftest import MosquittoBroker, MosquittoFactory, find_mosquitto_passwd
from tests.integration.harness import REPO

BASE = "tablectl/it/t1"
WEB = REPO / "web"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
PAGE_USER = "scoreboard-it"
PAGE_PASSWORD = "scoreboard-it-secret"
WAIT = 15.0
CARD = re.compile(r"^[2-9TJQKA][shdc]$")
PAGE_TOPICS = ("status", "info", "state", "display/eztrak", "round/result")  # as it subscribes


def websocket_broker(factory: MosquittoFactory) -> tuple[MosquittoBroker, int]:
    """A locked broker (no user yet) with a websockets listener serving web/ (http_dir), as
    docs/operations.md sets one up. Mosquitto 2.0.11 binds that listener on every interface
    whatever address is given; the test connects on loopback only."""
    broker = factory(start=False)
    ws_port = free_port()
    with broker.config_path.open("a") as conf:
        conf.write(f"listener {ws_port}\nprotocol websockets\nhttp_dir {WEB}\n")
    broker.start()
    return broker, ws_port


def add_page_user(broker: MosquittoBroker, base: str = BASE) -> None:
    """The page's read-only user, written into the running broker's acl_file by this test: the
    five topics the page reads, read only (what `tablectl broker-acl --display-results` gives
    its display role; without the option it reads all but `round/result`: docs/scoreboard.md)."""
    write_page_user(broker, base)
    broker.reload()


def write_page_user(broker: MosquittoBroker, base: str = BASE) -> None:
    """`add_page_user`'s files alone (the acl_file and the password file), for a broker that
    is not started yet."""
    grants = "".join(f"topic read {base}/{t}\n" for t in PAGE_TOPICS)
    with broker.acl_path.open("a") as acl:
        acl.write(f"\n# the scoreboard page (test)\nuser {PAGE_USER}\n{grants}")
    subprocess.run(
        [find_mosquitto_passwd(), "-b", str(broker.password_path), PAGE_USER, PAGE_PASSWORD],
        check=True,
        capture_output=True,
        timeout=WAIT,
    )


# -- the browser -----------------------------------------------------------------------------


class Browser:
    """Debian's headless Chromium through its chromedriver, both by path: Selenium Manager is
    never asked for a driver or a browser (SE_OFFLINE too, should anything ask). `size` is the
    page's viewport (`innerWidth`, `innerHeight`), e.g. (1280, 720) or (1920, 1080): the
    window is made that much larger than the viewport as its frame takes (headless Chromium
    counts some 140 px of frame in --window-size)."""

    def __init__(
        self,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
        *,
        size: tuple[int, int] = (1600, 1000),
    ) -> None:
        for binary, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
            if not os.access(binary, os.X_OK):
                pytest.fail(
                    f"the scoreboard test needs {binary}: `apt-get install {package}` "
                    "(NEED_BROWSER=1 bash scripts/setup.sh does it)",
                    pytrace=False,
                )
        monkeypatch.setenv("SE_OFFLINE", "true")
        self.options = webdriver.ChromeOptions()
        self.options.binary_location = CHROMIUM
        for arg in (
            "--headless=new",
            "--no-sandbox",  # root in CI
            "--disable-dev-shm-usage",
            "--disable-gpu",
            f"--window-size={size[0]},{size[1]}",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
        ):
            self.options.add_argument(arg)
        self.options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.service = Service(
            executable_path=CHROMEDRIVER, log_output=str(tmp_path / "chromedriver.log")
        )
        self.driver: webdriver.Chrome | None = None
        self.size = size

    def __enter__(self) -> webdriver.Chrome:
        self.driver = webdriver.Chrome(service=self.service, options=self.options)
        width, height = self.size
        inner: list[int] = self.driver.execute_script("return [innerWidth, innerHeight]")
        if inner != [width, height]:
            outer = self.driver.get_window_size()
            self.driver.set_window_size(
                outer["width"] + width - inner[0], outer["height"] + height - inner[1]
            )
            inner = self.driver.execute_script("return [innerWidth, innerHeight]")
        assert inner == [width, height], f"the viewport is {inner}, not {self.size}"
        return self.driver

    def __exit__(self, *exc: object) -> None:
        if self.driver is not None:
            self.driver.quit()


class Page:
    """The scoreboard page as the test reads it: from what it shows (the DOM)."""

    def __init__(
        self,
        driver: webdriver.Chrome,
        ws_port: int,
        *,
        base: str = BASE,
        user: str = PAGE_USER,
        password: str = PAGE_PASSWORD,
    ) -> None:
        self.driver = driver
        self.ws_port = ws_port
        self.driver.get(
            f"http://127.0.0.1:{ws_port}/scoreboard.html?table={base}&record=1&keepalive=2"
            f"#user={user}&pass={password}"
        )

    def wait(self, what: str, script: str, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while not self.driver.execute_script(script):
            if time.monotonic() > deadline:
                state = self.driver.execute_script(
                    "const s = window.scoreboard; return s && {link: s.link, detail: s.linkDetail,"
                    " received: s.received.length}"
                )
                raise AssertionError(f"the page did not show {what}: {state}")
            time.sleep(0.02)  # poll interval, bounded by the deadline above

    def count(self) -> int:
        """How many PUBLISH packets the page's client has received so far."""
        n: int = self.driver.execute_script("return window.scoreboard.received.length")
        return n

    def facts(self) -> dict[str, str]:
        """The other games' table facts: each `dd[data-fact]` by its name."""
        found: dict[str, str] = self.driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('#other-facts dd')]"
            ".map(d => [d.dataset.fact, d.textContent]))"
        )
        return found

    def posted(self) -> dict[str, str]:
        """The posted panel's facts (limits, stakes, bet timer): each `dd[data-posted]`."""
        found: dict[str, str] = self.driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('#posted-facts dd')]"
            ".map(d => [d.dataset.posted, d.textContent]))"
        )
        return found

    def paytable(self, name: str) -> list[tuple[str, str, str]]:
        """Pay table `name` as shown: (category id, the hand as written, the pay) a row."""
        rows: list[list[str]] = self.driver.execute_script(
            "return [...document.querySelectorAll(`[data-paytable='${arguments[0]}'] tr`)]"
            ".map(tr => [tr.dataset.hand, tr.querySelector('.hand').textContent,"
            " tr.querySelector('.pay').textContent])",
            name,
        )
        return [(h, t, p) for h, t, p in rows]

    def collection(self) -> list[str]:
        """The posted collection schedule, a line a row (its cells joined by a space)."""
        rows: list[str] = self.driver.execute_script(
            "return [...document.querySelectorAll('#collection tr')]"
            ".map(tr => [...tr.cells].map(c => c.textContent).join(' '))"
        )
        return rows

    def text(self, element_id: str) -> str:
        return str(self.driver.find_element(By.ID, element_id).text)

    def cards(self, element_id: str) -> list[str]:
        found = self.driver.find_elements(By.CSS_SELECTOR, f"#{element_id} .card")
        return [str(e.get_attribute("data-card")) for e in found]

    def stats(self, block: str) -> dict[str, tuple[int, str | None]]:
        rows: list[list[str]] = self.driver.execute_script(
            "return [...document.querySelectorAll('#stats tbody tr')].map(tr => [tr.dataset.stat,"
            f" tr.querySelector('.count.{block}').textContent,"
            f" tr.querySelector('.pct.{block}').textContent])"
        )
        return {k: (int(c), p.removesuffix("%") if p else None) for k, c, p in rows}

    def _cells(self, selector: str, *keys: str) -> list[list[Any]]:
        """Road cells by their column and row in the data (data-col, data-row)."""
        cells: list[dict[str, str]] = self.driver.execute_script(
            f"return [...document.querySelectorAll('{selector}')].map(e => ({{...e.dataset}}))"
        )
        columns: list[list[Any]] = []
        for cell in sorted(cells, key=lambda c: (int(c["col"]), int(c["row"]))):
            col, row = int(cell["col"]), int(cell["row"])
            if col == len(columns):
                columns.append([])
            assert (col, row) == (len(columns) - 1, len(columns[-1])), cells
            value = tuple(cell[k] for k in keys)
            columns[-1].append(value[0] if len(keys) == 1 else value)
        return columns

    def beads(self) -> list[list[str]]:
        return self._cells("#bead-plate .bead", "v")

    def big_road(self) -> list[list[tuple[str, int, bool]]]:
        return [
            [(v, int(t), n == "1") for v, t, n in column]
            for column in self._cells("#big-road .br", "v", "ties", "natural")
        ]

    def derived(self, road: str) -> list[list[str]]:
        return self._cells(f"#{road} > span", "v")


def fits_without_scrolling(driver: webdriver.Chrome) -> bool:
    """Whether the page fits its window: nothing to scroll, down or across."""
    fits: bool = driver.execute_script(
        "const d = document.documentElement; return d.scrollHeight <= window.innerHeight"
        " && d.scrollWidth <= window.innerWidth"
    )
    return fits


def assert_no_card_before_shown(
    received: list[dict[str, Any]], shown: list[tuple[str, int]], base: str
) -> None:
    """`received`: every PUBLISH the page's client got, numbered (`n`) in arrival order;
    `shown`: (card, how many the page had received before the table showed that card). Every
    card a message names must have been shown before the page had received that message, and
    the page received nothing but its five topics."""
    topics = {f"{base}/{t}" for t in PAGE_TOPICS}
    assert {m["topic"] for m in received} <= topics
    first: dict[str, int] = {}  # card -> how many page messages had come before it was shown
    for card, count in shown:
        first.setdefault(card, count)
    for m in received:
        for card in cards_in(m["payload"]):
            assert card in first, f"{card} (never shown) in {m['topic']}: {m['payload']}"
            assert m["n"] >= first[card], (
                f"{card} reached the page (message {m['n']}: {m['topic']} {m['payload']}) "
                f"before the table showed it (after message {first[card]})"
            )


def cards_in(payload: str) -> Iterator[str]:
    """Every card a payload names: each JSON string that is a card code."""
    try:
        value: Any = json.loads(payload)
    except ValueError:
        return
    yield from named(value, CARD)


def named(value: Any, code: re.Pattern[str]) -> Iterator[str]:
    """Every string in a JSON value that `code` matches (a card)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and code.match(v):
            yield v


# Every `data-card` the page's DOM is given from now on, into `window.domCards`, with how many
# messages the page had received when it was (a face-down card has an empty one: it names
# nothing).
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


# -- sizing (docs/scoreboard.md "Sizing") ------------------------------------------------------

MIN_TEXT = 20.0  # px: no text on a screen smaller (read from 3 m)
MIN_CARD_1080 = 80.0  # px: a card's height at 1080 lines; 720 lines scale it by 2/3

_MEASURE = """
const shown = (e) => e.getClientRects().length > 0;
const main = [...document.querySelectorAll("main")].filter(shown);
const panels = main.flatMap((m) => [...m.querySelectorAll(".panel")]).filter(shown);
const boxes = [document.getElementById("top"), ...panels];
const name = (e) => e.id || e.className || e.tagName;
const out = {cut: [], seats: [], small: [], cards: [], wrapped: [], columns: []};
for (const p of boxes) {
  const r = p.getBoundingClientRect();
  if (r.top < -0.5 || r.left < -0.5 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5
      || p.scrollHeight > p.clientHeight + 1 || p.scrollWidth > p.clientWidth + 1) {
    out.cut.push([name(p), Math.round(r.bottom), Math.round(r.right), p.scrollHeight,
      p.clientHeight, p.scrollWidth, p.clientWidth]);
  }
  for (const e of [p, ...p.querySelectorAll("*")]) {
    const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text || !shown(e)) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < arguments[0]) out.small.push([size, name(e), e.textContent.trim().slice(0, 40)]);
  }
}
// Every seat (a [data-seat] box: a seat, a hand, a hit naming its seat) whole: inside the panel
// that holds it (or its view), inside the window, and nothing in it beyond its own box.
for (const e of main.flatMap((m) => [...m.querySelectorAll("[data-seat]")]).filter(shown)) {
  const holder = e.parentElement.closest(".panel") || e.closest("main");
  const r = e.getBoundingClientRect();
  const h = holder.getBoundingClientRect();
  const outside = (a, b) => a.top < b.top - 0.5 || a.left < b.left - 0.5
    || a.bottom > b.bottom + 0.5 || a.right > b.right + 0.5;
  if (outside(r, h) || outside(r, {top: 0, left: 0, bottom: innerHeight, right: innerWidth})
      || e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1) {
    out.seats.push([name(e), e.dataset.seat, e.dataset.hand || "", Math.round(r.top),
      Math.round(r.bottom), Math.round(h.bottom), Math.round(r.right), Math.round(h.right)]);
  }
}
for (const c of panels.flatMap((p) => [...p.querySelectorAll(".card")]).filter(shown)) {
  out.cards.push(c.getBoundingClientRect().height);
}
for (const td of document.querySelectorAll(".paytable td.pay")) {
  const range = document.createRange();
  range.selectNodeContents(td);
  const lines = new Set([...range.getClientRects()].map((x) => Math.round(x.top)));
  if (shown(td) && lines.size > 1) out.wrapped.push(td.textContent);
}
for (const b of document.querySelectorAll("#posted-facts, .paytable-box, #collection-box")) {
  if (shown(b) && b.scrollWidth > b.clientWidth + 1) {
    out.columns.push([name(b), b.scrollWidth, b.clientWidth]);
  }
}
return out;
"""


def assert_fits_and_reads(driver: webdriver.Chrome, *, min_card: float | None) -> list[float]:
    """The page as docs/scoreboard.md "Sizing" wants it at the window's size: nothing to
    scroll; the header and every panel of the view inside the window, none with more in it
    than it shows; every seat (`[data-seat]`) inside its panel and the window, with nothing
    in it beyond its box; no text in them smaller than MIN_TEXT px (headings, labels, the posted
    panel, a bead's letter); every pay on one line and no posted block wider than its column;
    and every card shown at least `min_card` px high (None: no card need be shown). Returns
    the cards' heights."""
    assert fits_without_scrolling(driver), driver.execute_script(
        "const d = document.documentElement;"
        " return [d.scrollWidth, d.scrollHeight, window.innerWidth, window.innerHeight]"
    )
    found: dict[str, list[Any]] = driver.execute_script(_MEASURE, MIN_TEXT)
    assert not found["cut"], f"cut off or outside the window: {found['cut']}"
    assert not found["seats"], (
        "seats cut off (box, seat, hand, top, bottom, its panel's bottom, right, its panel's"
        f" right): {found['seats']}"
    )
    assert not found["small"], f"text smaller than {MIN_TEXT} px: {found['small']}"
    assert not found["wrapped"], f"pays on two lines: {found['wrapped']}"
    assert not found["columns"], f"posted blocks wider than their column: {found['columns']}"
    heights: list[float] = found["cards"]
    if min_card is not None:
        assert heights, "no card shown"
        assert min(heights) >= min_card, heights
    return heights
