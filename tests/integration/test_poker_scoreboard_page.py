"""The scoreboard's poker room views (docs/scoreboard.md "The poker room" and
"Chinese Poker") in a real headless Chromium, served by a real locked Mosquitto's websockets
listener and fed by the real daemon of a poker table, driven as the poker end-to-end tests drive
one: the dealer's console over `cmd/`, and at the Hold'em table the card-reading table emulator
on a real pty (hole cards to the seat antennas, burns to the muck, the board).

Four tables, one session each, one browser each, looked at in a 1280x720 and a 1920x1080 window:

- Texas Hold'em (config/texas-holdem-003.toml, ten seats, the reader): ten players, a short stack
  all in on the flop, a side pot, two hands shown at the showdown and one mucked unseen;
- Seven Card Stud (seven seats, the console): up cards street by street, three down cards each;
- Five Card Draw (ten seats, the console): five face down each, the draw counted;
- Chinese Poker (config/chinese-poker-003.toml): four hands set, then all exposed.

Each time it looks, at each size: nothing to scroll and no panel or seat cut short; the round and
the phase the table's `state` holds are on the page; and after the result, every card the
round's result shows is drawn. Over the whole session, no card reached the page before the table
showed it: the DOM (every `data-card` ever inserted, watched by a MutationObserver) and every
message the page's user received (`window.scoreboard.received`) never hold a hole card, a down
card, a burn or a hand not shown. Screenshots go to tmp_path (`pytest --basetemp=DIR`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver

from hil.ports import free_port
from tablectl_drivers.poker_table.frames import BOARD, MUCK, seat_zone
from tablectl_drivers.sim.poker_table import SimulatedPokerTable
from tests.conftest import MosquittoBroker, MosquittoFactory
from tests.integration.floor import (
    CONFIG,
    Payload,
    assert_no_refusals,
    latest_state,
    round_result,
    running_table,
)
from tests.integration.harness import Console, lock_table
from tests.integration.pages import (
    DOM_WITNESS,
    MIN_CARD_1080,
    WEB,
    Browser,
    Page,
    assert_fits_and_reads,
    assert_no_card_before_shown,
    cards_in,
    write_page_user,
)
from tests.integration.test_chinese_poker_e2e import bring_in, chinese_003_config
from tests.integration.test_poker_table_e2e import act, in_hand, wait_state
from tests.integration.test_stud_table_e2e import stud_003_config

pytestmark = pytest.mark.integration

SIZES = ((1280, 720), (1920, 1080))

# A row of cards that does not fit its box (the panels themselves pages.assert_fits_and_reads
# measures).
CARD_ROWS = """
const view = document.querySelector('main.view:not([hidden])');
return [...view.querySelectorAll('.cards')].filter((e) => e.getClientRects().length > 0)
  .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
  .map((e) => `${e.closest('[data-seat]') ? e.closest('[data-seat]').dataset.seat : e.id}:`
    + ` ${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}`);
"""


# -- the page ----------------------------------------------------------------------------------


@contextmanager
def scoreboard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ws_port: int, base: str
) -> Iterator[tuple[webdriver.Chrome, Page]]:
    """One Chromium for the session, the scoreboard of table `base` open and subscribed, its
    DOM's cards watched from the start; no error in the browser's console by the end."""
    with Browser(tmp_path, monkeypatch, size=SIZES[0]) as driver:
        page = Page(driver, ws_port, base=base)
        page.wait("the page subscribed", "return window.scoreboard.link === 'subscribed'")
        driver.execute_script(DOM_WITNESS)
        yield driver, page
        log = driver.get_log("browser")  # type: ignore[no-untyped-call]  # selenium: untyped
        assert not [e for e in log if e["level"] == "SEVERE"], log


def set_viewport(driver: webdriver.Chrome, width: int, height: int) -> None:
    """The page's viewport exactly `width` x `height`. The window is sized for it, and the
    viewport is then set through the DevTools protocol: headless Chromium's window is taller than
    its viewport by a frame of its own, and a resized window's viewport was seen to lag."""
    driver.set_window_size(width, height + 200)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    inner: list[int] = driver.execute_script("return [innerWidth, innerHeight]")
    assert inner == [width, height]


def look(driver: webdriver.Chrome, tmp_path: Path, name: str, *, cards: bool = True) -> None:
    """At each size, the page as docs/scoreboard.md "Sizing" wants it (nothing to scroll,
    nothing cut, no text under 20 px, every card at least 80 px high at 1080 lines and two
    thirds of that at 720: pages.assert_fits_and_reads), every row of cards within its seat;
    a screenshot first (of a failure too)."""
    for width, height in SIZES:
        set_viewport(driver, width, height)
        driver.save_screenshot(str(tmp_path / f"scoreboard-{name}-{width}x{height}.png"))
        assert_fits_and_reads(driver, min_card=MIN_CARD_1080 * height / 1080 if cards else None)
        rows = driver.execute_script(CARD_ROWS)
        assert rows == [], f"{name} at {width}x{height}: {rows}"


def dom_cards(driver: webdriver.Chrome) -> list[str]:
    """The cards the page draws now, face up (a face-down card names none)."""
    found: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('main.view:not([hidden]) [data-card]')]"
        ".map(e => e.dataset.card).filter(Boolean)"
    )
    return found


def seat_cards(driver: webdriver.Chrome, seat: int) -> list[str]:
    found: list[str] = driver.execute_script(
        "return [...document.querySelectorAll(`[data-seat='${arguments[0]}'] .card`)]"
        ".map(e => e.dataset.card)",
        seat,
    )
    return found


def shows_state(
    page: Page, floor: Console, phase_id: str, round_and_phase: tuple[Any, str]
) -> None:
    """The page has the table's newest `state`, and shows its round (the header) and phase (the
    view's `phase_id` element, by its data-phase and its text)."""
    seq = latest_state(floor)["seq"]
    page.wait(f"state {seq}", f"return (window.scoreboard.state || {{}}).seq >= {seq}")
    number, phase = round_and_phase
    page.wait(
        f"round {number}, phase {phase}",
        f"return document.getElementById('round').textContent === '{number}'"
        f" && document.getElementById('{phase_id}').dataset.phase === '{phase}'",
    )
    assert page.text(phase_id)  # the phase in words


def no_card_before_shown(
    driver: webdriver.Chrome, shown: list[tuple[str, int]], base: str
) -> list[dict[str, Any]]:
    """The session's witness: every message the page's user received, and every card the DOM
    ever held, named a card only once the table had shown it; returns the messages."""
    received: list[dict[str, Any]] = driver.execute_script("return window.scoreboard.received")
    assert_no_card_before_shown(received, shown, base)
    first: dict[str, int] = {}
    for card, count in shown:
        first.setdefault(card, count)
    seen: list[list[Any]] = driver.execute_script("return window.domCards")
    assert seen, "the DOM never drew a card"
    for card, count in seen:
        assert card in first, f"{card} in the page's DOM, never shown by the table"
        assert count >= first[card], f"{card} drawn before the table showed it"
    return received


def page_broker(factory: MosquittoFactory) -> tuple[MosquittoBroker, int]:
    """The locked broker with its websockets listener serving web/ (pages.websocket_broker's),
    not started yet: `start_locked` gives it the table's users and the page's, then starts it.
    (A broker given them once running reloads on SIGHUP; one sent just after its start, before
    Mosquitto has set up its signals, was seen lost.)"""
    broker = factory(start=False)
    ws_port = free_port()
    with broker.config_path.open("a") as conf:
        conf.write(f"listener {ws_port}\nprotocol websockets\nhttp_dir {WEB}\n")
    return broker, ws_port


def start_locked(broker: MosquittoBroker, cfg: Path, user: str, base: str) -> None:
    """The table at `cfg` gets its broker user `user` (`tablectl broker-acl`'s users and ACL),
    the page its read-only user on the five topics of `base` (as pages.add_page_user gives it);
    then the broker starts."""
    lock_table(cfg, broker, user)
    write_page_user(broker, base)
    broker.start()


# -- betting -----------------------------------------------------------------------------------

Plan = dict[int, list[tuple[str, str | None]]]


def betting(
    console: Console, floor: Console, plan: Plan, reader: SimulatedPokerTable | None = None
) -> Payload:
    """Play the betting round in play to its end: the seat whose turn it is takes its next
    planned action, else calls what it owes or checks (a fold at a reader table sends the hand
    to the muck). Returns the `state` after the round."""
    state = latest_state(floor)
    number, street = in_hand(state)["round"], in_hand(state)["street"]
    while True:
        hand = in_hand(state)
        if (hand.get("round"), hand.get("street"), hand.get("phase")) != (
            number,
            street,
            "betting",
        ) or hand.get("turn") is None:
            return state
        seat = hand["turn"]
        todo = plan.get(seat)
        action, amount = (
            todo.pop(0) if todo else ("call" if hand["to_call"] != "0.00" else "check", None)
        )
        act(console, seat, action, amount)
        # the state after the decision: another seat's turn, or the round over (a state made
        # before it, by a card read in the muck, still shows this seat's turn)
        wait_state(floor, f"after seat {seat}'s {action}", partial(turn_moved, seat))
        if action == "fold" and reader is not None:
            reader.fold(seat)
        state = latest_state(floor)


def turn_moved(seat: int, state: Payload) -> bool:
    """Another seat's turn, or none."""
    return bool(in_hand(state).get("turn") != seat)


def folds(*seats: int) -> Plan:
    return {seat: [("fold", None)] for seat in seats}


def board_is(board: list[str], state: Payload) -> bool:
    return bool(in_hand(state).get("board") == board)


# -- Texas Hold'em -----------------------------------------------------------------------------

HOLDEM_BASE = "tablectl/cardroom-1/holdem-03"
HOLDEM_HOLES = {  # dealt clockwise from the button's (seat 10's) left
    1: ("Ad", "Jc"),
    2: ("8h", "6h"),
    3: ("3d", "3s"),
    4: ("Kd", "Qc"),
    5: ("Th", "7s"),
    6: ("Qh", "Qs"),
    7: ("Jd", "Js"),
    8: ("7h", "7d"),
    9: ("5h", "5s"),
    10: ("Ts", "4d"),
}
HOLDEM_BOARD = (("Kc", "8d", "3h"), ("2s",), ("9s",))
HOLDEM_BURNS = ("4c", "5c", "6c")


def holdem_config(folder: Path, *, reader_port: str, mqtt_port: int) -> Path:
    """config/texas-holdem-003.toml as shipped (ten seats, $2-$4 fixed limit, blinds $1/$2, its
    collection schedule, the card-reading table) on the emulator's pty, the test broker and a
    journal in `folder`."""
    text = (CONFIG / "texas-holdem-003.toml").read_text()
    swaps = {
        "port = 1883\n": f"port = {mqtt_port}\nkeepalive = 5\n",
        'port = "/dev/tablectl-poker-table"': f'port = "{reader_port}"\nemulator = true',
        'username = "table-cardroom-1-holdem-03"': "",
        'password_file = "/etc/tablectl/mqtt-password"': "",
        'path = "/var/lib/tablectl/holdem-03.db"': f'path = "{folder}/journal.db"',
    }
    for old, new in swaps.items():
        assert text.count(old) == 1, f"expected one {old!r} in the shipped config"
        text = text.replace(old, new)
    path = folder / "texas-holdem-003.toml"
    path.write_text(text)
    return path


def test_the_holdem_table_on_the_scoreboard(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten seats, $100 each but seat 3's $6; the button named on seat 10: seat 1 posts the $1
    small blind, seat 2 the $2 big blind, seat 3 acts first ($2-$4 fixed limit).
      before the flop: 3 raises to 4; 4 calls; 5 to 9 fold; 10 calls; 1 folds; 2 calls.
      flop Kc 8d 3h: 2 checks, 3 all in for its last 2, 4 raises to 4, 10 folds, 2 calls.
      turn 2s: 2 checks, 4 bets 4, 2 calls. river 9s: checked.
    Main pot (seats 2, 3, 4: each 6, and the 1 and 4 of seats 1 and 10) 23, less the $3 fee
    (seven or more dealt in) 20 to seat 3's three threes; the side pot (seats 2 and 4) 12 to
    seat 4's kings. Shown: seats 3 and 4; seat 2's eights lost and are never shown (R46)."""
    broker, ws_port = page_broker(mosquitto_factory)
    with SimulatedPokerTable(seats=10) as reader:
        cfg = holdem_config(tmp_path, reader_port=reader.port, mqtt_port=broker.port)
        start_locked(broker, cfg, "table-cardroom-1-holdem-03", HOLDEM_BASE)
        with (
            running_table(cfg, broker, HOLDEM_BASE, ["reader"]) as (console, floor),
            scoreboard(tmp_path, monkeypatch, ws_port, HOLDEM_BASE) as (driver, page),
        ):
            shown: list[tuple[str, int]] = []
            for seat in range(1, 11):
                stack = "6" if seat == 3 else "100"
                console.ok("seat.take", {"seat": seat, "stack": stack, "player": f"p{seat}"})
            console.ok("hand.start", {"button": 10})
            wait_state(floor, "hand 1", lambda st: in_hand(st).get("round") == 1)
            reader.new_hand()
            for i in range(2):
                for seat, cards in HOLDEM_HOLES.items():
                    reader.put(seat_zone(seat), cards[i])
            state = wait_state(
                floor, "the hole cards", lambda st: all(s["cards_in"] for s in st["seats"])
            )
            shows_state(page, floor, "pk-phase", (1, "betting"))
            page.wait("ten seats", "return document.querySelectorAll('.pk-seat').length === 10")
            badges = driver.execute_script(
                "return Object.fromEntries([...document.querySelectorAll('.pk-badge')]"
                ".map(b => [b.dataset.badge, +b.closest('.pk-seat').dataset.seat]))"
            )
            assert badges == {"D": 10, "SB": 1, "BB": 2}
            assert seat_cards(driver, 3) == ["", ""]  # face down, naming nothing
            look(driver, tmp_path, "holdem-preflop")

            betting(console, floor, {3: [("raise", "4")], **folds(5, 6, 7, 8, 9, 1)}, reader)
            for street, turned in enumerate(HOLDEM_BOARD):
                reader.put(MUCK, HOLDEM_BURNS[street])
                for card in turned:
                    shown.append((card, page.count()))
                    reader.put(BOARD, card)
                board = [c for part in HOLDEM_BOARD[: street + 1] for c in part]
                state = wait_state(floor, f"street {street}", partial(board_is, board))
                if street == 0:
                    shows_state(page, floor, "pk-phase", (1, "betting"))
                    page.wait(
                        "the flop",
                        "return document.querySelectorAll('#pk-board .card').length === 3",
                    )
                    assert dom_cards(driver) == ["Kc", "8d", "3h"]
                    betting(
                        console,
                        floor,
                        {3: [("all-in", None)], 4: [("raise", "4")], **folds(10)},
                        reader,
                    )
                    look(driver, tmp_path, "holdem-flop")
                elif street == 1:
                    # the flop's betting over: the all-in's main pot and the side pot above it
                    shows_state(page, floor, "pk-phase", (1, "betting"))
                    assert in_hand(state)["pots"] == [
                        {"amount": "23.00", "eligible": [2, 3, 4]},
                        {"amount": "4.00", "eligible": [2, 4]},
                    ]
                    assert page.text("pk-pots").splitlines() == [
                        "Main pot 23.00: seats 2, 3, 4",
                        "Side pot 4.00: seats 2, 4",
                    ]
                    assert page.text("pk-action") == "Seat 2 to act: check or bet 4.00"
                    look(driver, tmp_path, "holdem-turn")
                    betting(console, floor, {4: [("bet", "4")]}, reader)
                else:
                    shows_state(page, floor, "pk-phase", (1, "betting"))
                    # the river checked through: the cards speak; seats 3 and 4 are shown
                    shown += [(c, page.count()) for s in (3, 4) for c in HOLDEM_HOLES[s]]
                    betting(console, floor, {}, reader)
            result = round_result(floor, 1)
            reader.collect()
            wait_state(floor, "between hands", lambda st: st.get("hand") is None)
            assert_no_refusals(floor)
            assert [h["seat"] for h in result["shown"]] == [3, 4]
            assert [(p["amount"], p["high"]) for p in result["pots"]] == [
                ("20.00", [3]),
                ("12.00", [4]),
            ]
            shows_state(page, floor, "pk-phase", (1, "between-hands"))
            page.wait(
                "the shown hands",
                "return document.querySelectorAll('[data-status=shown]').length === 2",
            )
            for hand in result["shown"]:
                assert seat_cards(driver, hand["seat"]) == hand["cards"]
            assert set(dom_cards(driver)) == set(result["board"]) | {
                c for h in result["shown"] for c in h["cards"]
            }
            assert page.text("pk-pots").splitlines() == [
                "Main pot 20.00: seat 3",
                "Side pot 12.00: seat 4",
                "Collection 3.00 (10 players)",
            ]
            won = driver.execute_script(
                "return Object.fromEntries([...document.querySelectorAll('[data-won]')]"
                ".map(w => [+w.closest('.pk-seat').dataset.seat, w.dataset.won]))"
            )
            assert won == {"3": "20.00", "4": "12.00"}
            look(driver, tmp_path, "holdem-result")
            received = no_card_before_shown(driver, shown, HOLDEM_BASE)
    hidden = {c for cards in HOLDEM_HOLES.values() for c in cards} | set(HOLDEM_BURNS)
    hidden -= {c for s in (3, 4) for c in HOLDEM_HOLES[s]}
    named = {c for m in received for c in cards_in(m["payload"])}
    assert not named & hidden
    assert set(result["board"]) <= named  # the scan has teeth


# -- Seven Card Stud ---------------------------------------------------------------------------

STUD_BASE = "tablectl/cardroom-1/stud-01"
STUD_UP = [  # streets third .. sixth: seat -> its up card, in the order dealt (the button on 1)
    {2: "9c", 3: "Kd", 4: "4h", 5: "Qs", 6: "2h", 7: "Ah", 1: "7c"},
    {2: "9d", 3: "7d", 4: "8h", 7: "Kh", 1: "Js"},  # seats 5 and 6 folded on third street
    {2: "3s", 3: "5h", 4: "8s", 7: "Qh", 1: "2d"},
    {2: "4d", 3: "Kc", 4: "3c", 7: "Jh", 1: "Tc"},
]
STUD_DOWN = {  # seat -> its down cards, the seventh street's last
    1: ("Qd", "9s", "8d"),
    2: ("9h", "6c", "5c"),
    3: ("Ks", "7s", "4s"),
    4: ("4c", "2s", "3h"),
    5: ("5d", "6s"),
    6: ("Jc", "Td"),
    7: ("Th", "2c", "6d"),  # Ah Kh Qh Jh Th: a royal flush, the one hand shown
}


def dealt(up: dict[int, str], state: Payload) -> bool:
    """The street's up cards are out and its betting open."""
    last = {s["seat"]: s.get("up", [])[-1:] for s in state.get("seats", [])}
    return in_hand(state).get("phase") == "betting" and all(
        last.get(seat) == [card] for seat, card in up.items()
    )


def test_the_stud_table_on_the_scoreboard(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven seats, $100 each, $2-$4 fixed limit, the button on seat 1 (seat 2 the small blind,
    seat 3 the big). Third street's door cards; seats 5 and 6 fold; the five others call and
    check every street down to seventh (its card face down). Seat 7's royal flush wins the one
    pot: its hand is the only one shown; every other down card stays unseen (R46)."""
    broker, ws_port = page_broker(mosquitto_factory)
    cfg = stud_003_config(tmp_path, mqtt_port=broker.port)
    start_locked(broker, cfg, "table-cardroom-1-stud-01", STUD_BASE)
    with (
        running_table(cfg, broker, STUD_BASE, []) as (console, floor),
        scoreboard(tmp_path, monkeypatch, ws_port, STUD_BASE) as (driver, page),
    ):
        shown: list[tuple[str, int]] = []
        for seat in range(1, 8):
            console.ok("seat.take", {"seat": seat, "stack": "100", "player": f"p{seat}"})
        console.ok("hand.start", {"button": 1})
        wait_state(floor, "hand 1", lambda st: in_hand(st).get("round") == 1)
        shows_state(page, floor, "pk-phase", (1, "deal"))
        for street, up in enumerate(STUD_UP):
            shown += [(c, page.count()) for c in up.values()]
            console.ok("up.cards", {"cards": [{"seat": s, "card": c} for s, c in up.items()]})
            wait_state(floor, f"street {street + 3}", partial(dealt, up))
            shows_state(page, floor, "pk-phase", (1, "betting"))
            for seat, c in up.items():
                assert seat_cards(driver, seat)[-1] == c
            if street == 0:
                assert seat_cards(driver, 4) == ["", "", "4h"]  # two down, the door card up
                look(driver, tmp_path, "stud-third")
            betting(console, floor, folds(5, 6) if street == 0 else {})
        live = [1, 2, 3, 4, 7]
        console.ok("down.cards", {"cards": [{"seat": s, "card": STUD_DOWN[s][2]} for s in live]})
        wait_state(floor, "seventh street", lambda st: in_hand(st).get("street") == "seventh")
        shows_state(page, floor, "pk-phase", (1, "betting"))
        assert seat_cards(driver, 1) == ["", "", "", "7c", "Js", "2d", "Tc"]
        assert seat_cards(driver, 5) == []  # folded: its door card turned down
        look(driver, tmp_path, "stud-seventh")
        betting(console, floor, {})
        for seat in live:
            if seat == live[-1]:  # the last down cards in: the showdown; seat 7 is shown
                shown += [(c, page.count()) for c in (*STUD_DOWN[7], *(u[7] for u in STUD_UP))]
            console.ok("hole.cards", {"seat": seat, "cards": list(STUD_DOWN[seat][:2])})
        result = round_result(floor, 1)
        wait_state(floor, "between hands", lambda st: st.get("hand") is None)
        assert_no_refusals(floor)
        assert [h["seat"] for h in result["shown"]] == [7]
        shows_state(page, floor, "pk-phase", (1, "between-hands"))
        page.wait(
            "the shown hand", "return document.querySelectorAll('[data-status=shown]').length === 1"
        )
        assert seat_cards(driver, 7) == result["shown"][0]["cards"]
        assert set(dom_cards(driver)) == set(result["shown"][0]["cards"])
        look(driver, tmp_path, "stud-result")
        received = no_card_before_shown(driver, shown, STUD_BASE)
    hidden = {c for s, cards in STUD_DOWN.items() if s != 7 for c in cards}
    assert not {c for m in received for c in cards_in(m["payload"])} & hidden


# -- Five Card Draw ----------------------------------------------------------------------------

DRAW_BASE = "tablectl/cardroom-1/draw-01"
DRAW_COUNTS = {1: 2, 2: 0, 3: 3, 4: 1, 10: 4}  # in turn from the dealer's left
DRAW_FINAL = {  # the five each seat still in holds after the draw
    1: ("As", "Ks", "2d", "3c", "7h"),
    2: ("2h", "5h", "9h", "Jh", "Kh"),  # a flush, pat: the one hand shown
    3: ("Qd", "Qc", "4s", "6c", "8d"),
    4: ("Td", "Tc", "3s", "5d", "9c"),
    10: ("Ac", "Ad", "4h", "6h", "8c"),
}


def draw_config(folder: Path, *, mqtt_port: int) -> Path:
    """config/five-card-draw-003.toml's game ($2-$4 fixed limit, blinds $1/$2, its collection)
    at ten seats (five cards each from one pack), no device: the console enters every input."""
    path = folder / "five-card-draw.toml"
    path.write_text(
        f"""site = "cardroom-1"
table = "draw-01"

[game]
id = "five-card-draw"
document = "003"
structure = "fixed-limit"
stakes = ["2", "4"]
blinds = ["1", "2"]
chip = "1"

[game.collection.schedule]
option = 1
per = "hand"
modified_fee = "1"
rates = [
  {{ from = 2, to = 4, fee = "1" }},
  {{ from = 5, to = 6, fee = "2" }},
  {{ from = 7, fee = "3" }},
]

[seats]
count = 10

[mqtt]
host = "127.0.0.1"
port = {mqtt_port}
keepalive = 5

[journal]
path = "{folder}/journal.db"
"""
    )
    return path


def test_the_draw_table_on_the_scoreboard(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten seats, $100 each, the button on seat 10. Before the draw seats 5 to 9 fold and the
    rest call; the draw (1: two cards, 2: pat, 3: three, 4: one, 10: four); after it, checked.
    Seat 2's flush wins: its five are the only cards the page ever gets (R46)."""
    broker, ws_port = page_broker(mosquitto_factory)
    cfg = draw_config(tmp_path, mqtt_port=broker.port)
    start_locked(broker, cfg, "table-cardroom-1-draw-01", DRAW_BASE)
    with (
        running_table(cfg, broker, DRAW_BASE, []) as (console, floor),
        scoreboard(tmp_path, monkeypatch, ws_port, DRAW_BASE) as (driver, page),
    ):
        shown: list[tuple[str, int]] = []
        for seat in range(1, 11):
            console.ok("seat.take", {"seat": seat, "stack": "100", "player": f"p{seat}"})
        console.ok("hand.start", {"button": 10})
        wait_state(floor, "hand 1", lambda st: in_hand(st).get("round") == 1)
        shows_state(page, floor, "pk-phase", (1, "betting"))
        assert seat_cards(driver, 7) == [""] * 5
        betting(console, floor, folds(5, 6, 7, 8, 9))
        shows_state(page, floor, "pk-phase", (1, "draw"))
        assert page.text("pk-action") == "Seat 1 to draw"  # in turn from the button's left
        for seat, count in DRAW_COUNTS.items():
            console.ok("draw", {"seat": seat, "count": count})
        wait_state(floor, "after the draw", lambda st: in_hand(st).get("street") == "after-draw")
        shows_state(page, floor, "pk-phase", (1, "betting"))
        notes = driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('.pk-seat')]"
            ".map(s => [+s.dataset.seat, s.querySelector('.pk-note').textContent]))"
        )
        assert {s: notes[str(s)].split(" \u00b7 ")[0] for s in DRAW_COUNTS} == {
            1: "drew 2",
            2: "stood pat",
            3: "drew 3",
            4: "drew 1",
            10: "drew 4",
        }
        assert notes["5"] == "folded"
        assert dom_cards(driver) == []  # every card face down
        look(driver, tmp_path, "draw-after")
        betting(console, floor, {})
        for seat, five in DRAW_FINAL.items():
            if seat == 10:  # the last five in: the showdown; seat 2's is shown
                shown += [(c, page.count()) for c in DRAW_FINAL[2]]
            console.ok("hole.cards", {"seat": seat, "cards": list(five)})
        result = round_result(floor, 1)
        wait_state(floor, "between hands", lambda st: st.get("hand") is None)
        assert_no_refusals(floor)
        assert [h["seat"] for h in result["shown"]] == [2]
        shows_state(page, floor, "pk-phase", (1, "between-hands"))
        page.wait(
            "the shown hand", "return document.querySelectorAll('[data-status=shown]').length === 1"
        )
        assert seat_cards(driver, 2) == result["shown"][0]["cards"]
        assert set(dom_cards(driver)) == set(DRAW_FINAL[2])
        look(driver, tmp_path, "draw-result")
        received = no_card_before_shown(driver, shown, DRAW_BASE)
    hidden = {c for s, five in DRAW_FINAL.items() if s != 2 for c in five}
    assert not {c for m in received for c in cards_in(m["payload"])} & hidden


# -- Dealer's Choice --------------------------------------------------------------------------

CHOICE_BASE = "tablectl/cardroom-1/choice-01"
CHOICE_DOOR = {2: "9c", 3: "Kd", 4: "4h", 5: "Qs", 6: "2h", 7: "Ah", 1: "7c"}  # the order dealt


def choice_config(folder: Path, *, mqtt_port: int) -> Path:
    """config/dealers-choice-003.toml as shipped (seven games offered, Omaha hi-lo at its own
    $5-$10, seven seats) without its card-reading table (the console enters every input), on
    the test broker, with a journal in `folder`."""
    text = (CONFIG / "dealers-choice-003.toml").read_text()
    text = text[: text.index("[[devices]]")] + text[text.index("[mqtt]") :]
    swaps = {
        "port = 1883\n": f"port = {mqtt_port}\nkeepalive = 5\n",
        'username = "table-cardroom-1-choice-01"': "",
        'password_file = "/etc/tablectl/mqtt-password"': "",
        'path = "/var/lib/tablectl/choice-01.db"': f'path = "{folder}/journal.db"',
    }
    for old, new in swaps.items():
        assert text.count(old) == 1, f"expected one {old!r} in the shipped config"
        text = text.replace(old, new)
    path = folder / "dealers-choice-003.toml"
    path.write_text(text)
    return path


def test_the_dealers_choice_table_on_the_scoreboard(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seven seats, $100 each. Between hands the page names the games offered (Omaha hi-lo with
    its own limits); the button (seat 1) chooses Razz: the page says so, and third street's door
    cards fall face up beside two face-down cards each; then a misdeal voids the hand, which the
    page says, the chips returned. No down card ever reaches the page (R46)."""
    broker, ws_port = page_broker(mosquitto_factory)
    cfg = choice_config(tmp_path, mqtt_port=broker.port)
    start_locked(broker, cfg, "table-cardroom-1-choice-01", CHOICE_BASE)
    with (
        running_table(cfg, broker, CHOICE_BASE, []) as (console, floor),
        scoreboard(tmp_path, monkeypatch, ws_port, CHOICE_BASE) as (driver, page),
    ):
        for seat in range(1, 8):
            console.ok("seat.take", {"seat": seat, "stack": "100", "player": f"p{seat}"})
        page.wait("seven seats", "return document.querySelectorAll('.pk-seat').length === 7")
        page.wait("the offer", "return !document.getElementById('pk-offered').hidden")
        assert page.text("pk-offered") == (
            "Offered: Texas Hold'em, Omaha hi-lo (Fixed limit 5.00\u201310.00, blinds 2.00 / 5.00),"
            " Seven Card Stud, Seven Card Stud hi-lo, Razz, Five Card Draw, Lowball"
        )
        look(driver, tmp_path, "choice-between", cards=False)
        console.ok("hand.start", {"button": 1, "game": "razz"})
        wait_state(floor, "hand 1", lambda st: in_hand(st).get("round") == 1)
        shown = [(c, page.count()) for c in CHOICE_DOOR.values()]
        cards = [{"seat": s, "card": c} for s, c in CHOICE_DOOR.items()]
        console.ok("up.cards", {"cards": cards})
        wait_state(floor, "third street", partial(dealt, CHOICE_DOOR))
        shows_state(page, floor, "pk-phase", (1, "betting"))
        assert page.text("pk-choice") == "Dealer's Choice: the button chose Razz"
        assert page.text("game-name") == "Razz"
        for seat, card in CHOICE_DOOR.items():
            assert seat_cards(driver, seat) == ["", "", card]
        look(driver, tmp_path, "choice-razz")
        console.ok("round.void", {"reason": "misdeal"})
        result = round_result(floor, 1)
        assert result["void"] is True
        shows_state(page, floor, "pk-phase", (1, "between-hands"))
        assert page.text("pk-pots") == "Misdeal: every chip returned"
        assert dom_cards(driver) == []
        assert_no_refusals(floor)
        no_card_before_shown(driver, shown, CHOICE_BASE)


# -- Chinese Poker -----------------------------------------------------------------------------

CHINESE_BASE = "tablectl/cardroom-1/chinese-01"


def test_the_chinese_poker_table_on_the_scoreboard(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Round 1 of tests/integration/test_chinese_poker_e2e.py: five seated, seats 1-4 dealt in
    (the buttons on seat 1); seat 2 declares three flushes, seat 4 fouls. No card on the page
    while the hands are set; then all four hands, the points, the payments and the fees."""
    broker, ws_port = page_broker(mosquitto_factory)
    cfg = chinese_003_config(tmp_path, mqtt_port=broker.port)
    start_locked(broker, cfg, "table-cardroom-1-chinese-01", CHINESE_BASE)
    with (
        running_table(cfg, broker, CHINESE_BASE, []) as (console, floor),
        scoreboard(tmp_path, monkeypatch, ws_port, CHINESE_BASE) as (driver, page),
    ):
        for seat, stack in ((1, "200"), (2, "200"), (3, "200"), (4, "200"), (5, "100")):
            console.ok("seat.take", {"seat": seat, "stack": stack})
        console.ok("hand.start", {"button": 1})
        for seat in (1, 3):
            bring_in(console, 1, seat)
        wait_state(floor, "two hands set", lambda st: (st.get("round") or {}).get("set") == [1, 3])
        shows_state(page, floor, "cp-phase", (1, "setting"))
        statuses = driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('.cp-seat')]"
            ".map(s => [+s.dataset.seat, s.dataset.status]))"
        )
        assert statuses == {"1": "set", "2": "setting", "3": "set", "4": "setting", "5": "waits"}
        assert seat_cards(driver, 1) == [""] * 13 and dom_cards(driver) == []
        look(driver, tmp_path, "chinese-setting")
        bring_in(console, 1, 2)
        count = page.count()  # the last hand in: every hand is exposed
        bring_in(console, 1, 4)
        result = round_result(floor, 1)
        assert_no_refusals(floor)
        shows_state(page, floor, "cp-phase", (1, "between-rounds"))
        page.wait(
            "the hands",
            "return document.querySelectorAll('.cp-seat .cp-hand .card').length === 52",
        )
        for hand in result["hands"]:
            assert seat_cards(driver, hand["seat"]) == (
                hand["cards"] if hand["sweep"] else [*hand["front"], *hand["middle"], *hand["back"]]
            )
        assert len(dom_cards(driver)) == 52
        assert len(driver.find_elements("css selector", "#cp-points li")) == len(result["points"])
        assert len(driver.find_elements("css selector", "#cp-payments li")) == len(
            result["payments"]
        )
        look(driver, tmp_path, "chinese-result")
        shown = [(c, count) for h in result["hands"] for c in h["cards"]]
        no_card_before_shown(driver, shown, CHINESE_BASE)
