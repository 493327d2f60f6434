"""The floor view (docs/floor.md) in a real headless Chromium, served by a real
Mosquitto's websockets listener (`http_dir` = web/) and fed over MQTT-over-WebSockets by the
retained topics of a site's tables.

Two real daemons (EZ Baccarat Panda 8, each on its own simulated shoe) play rounds on a locked
broker, and the page reads them as the `floor-it` user `tablectl broker-acl` generates: it shows
both tables with their game, version, round and round rate; one round is held by a shoe jam (the
row says why, the shoe's fault is an open alert); the other table is stopped and its row says
offline and sorts first. Then 500 synthetic tables, whose retained `status`, `info`, `state`,
`journal/status` and `device/shoe/status` are the real daemon's payloads with the table id
rewritten, are listed within a few seconds, counted right, sorted trouble first, filtered and
updated in place.

No card reaches the page but those the tables had shown: the page keeps every PUBLISH its MQTT
client received (`window.floor.received`, with `record=1`); a card may be named only in a `state`
(which carries the cards on the table), only after the shoe dealt it, and never a burn or a card
left in the shoe; the page's DOM and everything it keeps of a table name no card at all.

Screenshots go to the test's tmp_path (`pytest --basetemp=DIR` keeps them in DIR), never the
repository."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from selenium import webdriver

import tablectl
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker, MosquittoFactory, find_mosquitto_passwd, password_for
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.pages import CARD, Browser, cards_in, websocket_broker
from tests.integration.test_scoreboard_page import BURNS_1, BURNS_2, SHOE_1, latest, latest_offer

pytestmark = pytest.mark.integration

SITE = "it"
TABLES = ("t1", "t2")
SCALE_SITE = "scale"
SCALE_TABLES = 500
WRITER = "it-synthetic"  # publishes the synthetic tables' retained topics
SCALE_READER = "floor-scale"  # the floor role's grants, written by hand for the synthetic site
WAIT = 15.0
FILTERS = (
    "+/status",
    "+/info",
    "+/state",
    "+/journal/status",
    "+/device/+/status",
    "+/alerts/open",
)
TOPIC = re.compile(
    r"^tablectl/[^/]+/[^/]+/(status|info|state|journal/status|device/[^/]+/status|alerts/open)$"
)

# From the worked shoe of tests/games/baccarat/test_eztrak.py (dealt as test_scoreboard_page.py
# deals it): t1
# plays its hands 1-3 and is dealt the first two cards of hand 4 when its shoe jams; t2 plays
# hands 5 and 6. Cards no topic may ever name: the burns and what stays in t1's shoe.
T1_HANDS = SHOE_1[0:3]
T1_HELD = SHOE_1[3]  # Ks As dealt, then the jam; Jd 2d 8h stay in the shoe
T2_HANDS = SHOE_1[4:6]
NEVER = [*BURNS_1, *BURNS_2, *T1_HELD[2:]]


def test_the_floor_page_shows_every_table_and_no_card(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    dealt = [c for hand in [*T1_HANDS, T1_HELD[:2], *T2_HANDS] for c in hand]
    assert not set(dealt) & set(NEVER)

    broker, ws_port = websocket_broker(mosquitto_factory)
    with (
        SimulatedShoe() as shoe1,
        SimulatedShoe() as shoe2,
        Browser(tmp_path, monkeypatch) as driver,
    ):
        shoes = {"t1": shoe1, "t2": shoe2}
        cfgs: dict[str, Path] = {}
        for name in TABLES:
            (tmp_path / name).mkdir()
            cfgs[name] = write_config(
                tmp_path / name, shoe_port=shoes[name].port, mqtt_port=broker.port, table=name
            )
        add_scale_users(broker)
        consoles = {
            n: Console(broker.port, f"tablectl/{SITE}/{n}", client_id=f"it-console-{n}")
            for n in TABLES
        }
        daemons = {n: DaemonProcess(cfg) for n, cfg in cfgs.items()}
        try:
            for daemon in daemons.values():
                daemon.start()
            for console in consoles.values():
                console.wait_for("online", lambda c=console: "online" in c.on("status"))  # type: ignore[misc]
                console.wait_for("the shoe", console.device_available)

            # The generated floor role: it reads every topic of the site's tables but the
            # commands and the delayed feed; the page asks for its six filters and no more, at
            # QoS 0 (docs/floor.md: acknowledgements would hold the broker to 20 in flight).
            page = FloorPage(driver, ws_port, SITE, f"floor-{SITE}")
            page.wait("the page subscribed", "return window.floor.link === 'subscribed'")
            granted = driver.execute_script("return window.floor.granted")
            assert [g["topic"] for g in granted] == [f"tablectl/{SITE}/{f}" for f in FILTERS]
            assert all(g["granted"] == 0 for g in granted), granted
            page.wait("both tables", "return window.floor.counts.online === 2")

            fed: list[tuple[str, int]] = []  # (card, page messages received before it was dealt)
            t1, t2 = consoles["t1"], consoles["t2"]
            load(t1, shoe1, [*T1_HANDS, T1_HELD], BURNS_1, page, fed)
            for n, hand in enumerate(T1_HANDS, start=1):
                play_hand(t1, shoe1, page, hand, fed, n)
            t1.wait_for("round 4", lambda: (latest(t1, "state") or {}).get("round") == 4)
            between_rounds = latest(t1, "state")  # round 4 betting: a realistic idle state
            healthy = t1.on("device/shoe/status")[-1]
            assert healthy["available"] and healthy["fault"] is None, healthy
            load(t2, shoe2, T2_HANDS, BURNS_2, page, fed)
            for n, hand in enumerate(T2_HANDS, start=1):
                play_hand(t2, shoe2, page, hand, fed, n)

            page.wait("t1 at round 4", "return window.floor.tables.get('t1').round === 4")
            page.wait("t2 at round 3", "return window.floor.tables.get('t2').round === 3")
            page.wait(
                "t2's row",
                "return document.querySelector('tr[data-table=\"t2\"] td.c-round')"
                ".textContent === '3'",
            )
            # Each table's outbox drained: the retained journal/status says so (at once).
            for name in TABLES:
                page.wait(
                    f"{name}'s backlog told",
                    f"return document.querySelector('tr[data-table=\"{name}\"] td.c-backlog')"
                    ".textContent === '0'",
                )
            row1, row2 = page.row("t1"), page.row("t2")
            for row in (row1, row2):
                assert row["status"] == "online"
                assert row["game"] == "EZ Baccarat Panda 8"
                assert row["version"] == tablectl.__version__
                assert row["phase"] == "betting"
                assert row["held"] == "" and row["alerts"] == ""
                assert row["backlog"] == "0"  # journal/status.unsent (docs/floor.md)
                assert row["devices"] == [["shoe", "ok"]]
            assert (row1["round"], row2["round"]) == ("4", "3")
            # t1's round went up three times while the page watched, t2's twice: a rate each.
            assert int(row1["rate"]) > 0 and int(row2["rate"]) > 0, (row1, row2)
            check_rate(driver)

            # t1's shoe jams mid-deal: the round is held, and the fault is an open alert.
            open_round(t1)
            for card in T1_HELD[:2]:
                deal(t1, shoe1, page, card, fed)
            shoe1.fault("JAM", "card stuck at exit")
            t1.wait_for("the hold", lambda: any(a["kind"] == "round-held" for a in t1.on("alert")))
            page.wait("t1 held", "return window.floor.counts.held === 1")
            held_state = latest(t1, "state")
            jammed = t1.on("device/shoe/status")[-1]
            assert held_state is not None and held_state["held"] and jammed["fault"] == "JAM"
            # Both wait for a person on the retained `alerts/open`.
            raised = {a["kind"]: a for a in t1.on("alert")}
            fault, hold = raised["device-fault"], raised["round-held"]
            page.wait(
                "t1's open alerts",
                "const t = window.floor.tables.get('t1'); return !!t.open && t.open.length === 2",
            )
            # t2 stops (a clean stop publishes `offline`; a crash's Last Will says the same).
            assert daemons["t2"].terminate() == 0, daemons["t2"].log_text()
            page.wait("t2 offline", "return window.floor.counts.offline === 1")
            page.wait(
                "t2 on top", "return document.querySelector('#rows tr').dataset.table === 't2'"
            )
            assert page.counts() == {
                "total": 2,
                "online": 1,
                "stale": 0,
                "offline": 1,
                "held": 1,
                "alerts": 1,
                "unknown": 0,
            }
            # Trouble first: the offline table, then the held one.
            assert [r["table"] for r in page.rows()] == ["t2", "t1"]
            row1, row2 = page.row("t1"), page.row("t2")
            assert (row2["status"], row2["kind"], row2["round"]) == ("offline", "offline", "3")
            assert (row1["status"], row1["kind"], row1["phase"]) == ("online", "held", "dealing")
            assert row1["held"].startswith("device shoe: JAM"), row1
            # The worst first (docs/floor.md: a held round before a device's fault), then how
            # many more; the tooltip lists them all in that order.
            assert row1["alerts"] == f"open #{hold['seq']} round-held: {hold['reason']} (+2 more)"
            assert page.alerts_tip("t1")[0] == f"open #{hold['seq']} round-held: {hold['reason']}"
            assert sorted(page.alerts_tip("t1")[1:]) == sorted(
                [f"open #{fault['seq']} device-fault: {fault['reason']}", "shoe: JAM"]
            )
            assert row1["devices"] == [["shoe JAM", "fault"]]
            driver.save_screenshot(str(tmp_path / "floor-two-tables.png"))
            # A floor person acknowledges the fault (who and why): it leaves the list and the
            # page; the held round's alert stays open until someone acknowledges it too.
            t1.ok("alert.ack", {"alert": fault["seq"], "by": "floor:lee", "why": "cleared the jam"})
            page.wait(
                "the fault acknowledged",
                "return window.floor.tables.get('t1').open.length === 1",
            )
            page.wait(
                "t1's row redrawn",
                "return !document.querySelector('tr[data-table=\"t1\"] td.c-alerts')"
                ".textContent.includes('device-fault')",
            )
            assert page.row("t1")["alerts"] == (
                f"open #{hold['seq']} round-held: {hold['reason']} (+1 more)"
            )
            (ack,) = [e for e in t1.on("event") if e["type"] == "alert.ack"]
            assert (ack["alert"], ack["by"], ack["why"]) == (
                fault["seq"],
                "floor:lee",
                "cleared the jam",
            )
            received: list[dict[str, Any]] = driver.execute_script("return window.floor.received")
            assert_no_card_in_page(driver)
            retained = {
                "status": "online",
                "info": t1.on("info")[-1],
                "state": between_rounds,
                "held": held_state,
                "journal/status": t1.on("journal/status")[-1],
                "device/shoe/status": healthy,
                "jammed": jammed,
            }
        finally:
            for daemon in daemons.values():
                daemon.stop_quietly()
            for console in consoles.values():
                console.close()

        assert_no_card_before_shown(received, fed)
        scale_check(tmp_path, driver, broker, ws_port, retained)
        log = driver.get_log("browser")  # type: ignore[no-untyped-call]  # selenium: untyped
        severe = [e for e in log if e["level"] == "SEVERE"]
        assert not severe, severe


# -- 500 tables ------------------------------------------------------------------------------


def scale_check(
    tmp_path: Path,
    driver: webdriver.Chrome,
    broker: MosquittoBroker,
    ws_port: int,
    real: dict[str, Any],
) -> None:
    """500 tables' retained topics (the real daemon's payloads, table id rewritten): table i
    is offline when i % 10 == 0 (50 tables), held by a jammed shoe when i % 25 == 1 (20), its
    journal unwritable with 40 + i messages unsent when i % 50 == 7 (10); listed, counted and
    sorted within a few seconds.
    The broker has no limit on a client's queue (`max_queued_messages 0`, as the test brokers
    and docs/floor.md's broker for a large floor): at Mosquitto's default of 1000 the page gets
    only the first 1000 or so of these 2500 retained messages.
    """
    publish_synthetic(broker, real)
    started = time.monotonic()
    page = FloorPage(driver, ws_port, SCALE_SITE, SCALE_READER)
    page.wait(
        "500 rows and their counters",
        "const c = window.floor.counts; return document.querySelectorAll('#rows tr').length"
        " === 500 && c.offline === 50 && c.held === 20 && c.alerts === 30",
        timeout=10,
    )
    took = time.monotonic() - started
    assert took < 5, f"500 tables took {took:.1f} s"
    assert page.counts() == {
        "total": 500,
        "online": 450,
        "stale": 0,  # their `info` says no heartbeat: never stale (docs/floor.md)
        "offline": 50,
        "held": 20,
        "alerts": 30,
        "unknown": 0,
    }
    stats = driver.execute_script("return {m: window.floor.messages, f: window.floor.flushes}")
    assert stats["m"] == 5 * SCALE_TABLES + 1, stats  # and s007's alerts/open
    assert stats["f"] < stats["m"] / 10, stats  # redrawn a frame at a time, not per message
    rows = page.rows()
    kinds = [r["kind"] for r in rows]
    assert kinds == ["offline"] * 50 + ["held"] * 20 + ["alerts"] * 10 + ["ok"] * 420
    assert [r["table"] for r in rows[:3]] == ["s010", "s020", "s030"]  # by id within a group
    s007 = page.row("s007")
    # Its alerts worst first (docs/floor.md "Open alerts"): the journal it cannot write now,
    # then each open kind by severity, the newest first within one; then how many more.
    assert s007["alerts"] == "journal not writable: database or disk is full (+10 more)"
    assert page.alerts_tip("s007") == [
        "journal not writable: database or disk is full",
        *(f"open #{n} {kind}: {why}" for n, kind, why in EVERY_KIND_WORST_FIRST),
    ]
    assert (s007["backlog"], page.row("s008")["backlog"]) == ("47", "0")  # journal/status.unsent
    driver.save_screenshot(str(tmp_path / "floor-500.png"))

    # A live update moves the row, it does not make a new one: s001's jam is cleared.
    driver.execute_script("window.s001 = document.querySelector('tr[data-table=\"s001\"]')")
    state = {**real["state"], "table": "s001", "seq": real["held"]["seq"] + 1, "round": 9}
    device = {**real["device/shoe/status"], "table": "s001", "seq": real["jammed"]["seq"] + 1}
    with Writer(broker) as w:
        w.publish("s001/state", state)
        w.publish("s001/device/shoe/status", device)
    page.wait(
        "s001 no longer held nor jammed",
        "return window.floor.counts.held === 19 && window.floor.counts.alerts === 29",
    )
    page.wait("its round", "return window.s001.querySelector('.c-round').textContent === '9'")
    assert driver.execute_script(
        "return document.querySelector('tr[data-table=\"s001\"]') === window.s001"
        " && document.querySelectorAll('#rows tr').length === 500"
    )
    assert page.row("s001")["kind"] == "ok"
    # Show only the held tables.
    driver.execute_script(
        "const s = document.getElementById('show'); s.value = 'held';"
        " s.dispatchEvent(new Event('change'))"
    )
    page.wait(
        "the held ones",
        "return document.querySelectorAll('#rows tr:not([hidden])').length === 19",
    )
    assert page.text("shown") == "showing 19 of 500"
    driver.save_screenshot(str(tmp_path / "floor-500-held.png"))
    # ... of those, the ones whose id has "s2"; then every table again, sorted by id.
    driver.execute_script(
        "const f = document.getElementById('find'); f.value = 's2';"
        " f.dispatchEvent(new Event('input'))"
    )
    page.wait(
        "the search", "return document.getElementById('shown').textContent === 'showing 4 of 500'"
    )
    assert [r["table"] for r in page.rows() if not r["hidden"]] == ["s201", "s226", "s251", "s276"]
    driver.execute_script(
        "const f = document.getElementById('find'); f.value = '';"
        " f.dispatchEvent(new Event('input'));"
        " for (const [id, v] of [['show', 'all'], ['sort', 'table']]) {"
        " const s = document.getElementById(id); s.value = v;"
        " s.dispatchEvent(new Event('change')); }"
    )
    page.wait("every table by id", "return document.getElementById('shown').textContent === ''")
    page.wait("sorted by id", "return document.querySelector('#rows tr').dataset.table === 's001'")
    assert [r["table"] for r in page.rows()] == [f"s{i:03d}" for i in range(1, 501)]


# s007's open alerts, one of each kind and two dealer errors (ids are their seqs, `since` their
# times), in the order the page must list them: by severity (web/floor.js SEVERITY), the
# newest first within a kind. Published oldest first, as the table lists them.
EVERY_KIND_WORST_FIRST = [
    (108, "engine-error", "engine error: a defect (R40): the round is held"),
    (105, "round-held", "round held: device shoe: JAM"),
    (104, "device-fault", "device shoe: JAM"),
    (103, "journal-trouble", "the journal could not be written for 40 s"),
    (109, "coffee-spilled", "a kind from a newer tablectl"),
    (102, "retained-command", "tablectl/scale/s007/cmd/bank came retained"),
    (110, "dealer-error", "dealer error: a stand on hard 10 (R15)"),
    (101, "dealer-error", "dealer error: hit on hard 18 (R15)"),
    (107, "pace", "11 rounds in the last hour, below 30"),
    (106, "pace", "10 rounds in the last hour, below 30"),
]


def every_kind_open(real: dict[str, Any]) -> dict[str, Any]:
    """s007's `alerts/open`: every kind in EVERY_KIND_WORST_FIRST, oldest first."""
    oldest_first = sorted(EVERY_KIND_WORST_FIRST)
    return {
        "table": "s007",
        "seq": 111,
        "ts": "2026-11-29T04:00:11.000000Z",
        "v": 1,
        "open": [
            {"id": n, "kind": k, "reason": r, "since": f"2026-11-29T04:00:{n - 100:02d}.000000Z"}
            for n, k, r in oldest_first
        ],
        "overflow": 0,
    }


def publish_synthetic(broker: MosquittoBroker, real: dict[str, Any]) -> None:
    """The synthetic tables publish no heartbeat: their `info` says so (`heartbeat_seconds`
    null, as a table with `heartbeat_seconds = 0`), so the page never marks them stale."""
    info = {**real["info"], "heartbeat_seconds": None}
    with Writer(broker) as w:
        w.publish("s007/alerts/open", every_kind_open(real))
        for i in range(1, SCALE_TABLES + 1):
            table = f"s{i:03d}"
            held = i % 25 == 1
            state = real["held"] if held else {**real["state"], "round": 1 + i % 97}
            device = real["jammed"] if held else real["device/shoe/status"]
            journal = dict(real["journal/status"])
            if i % 50 == 7:
                journal.update(writable=False, reason="database or disk is full", unsent=40 + i)
            w.publish(f"{table}/status", "offline" if i % 10 == 0 else "online")
            for suffix, payload in (
                ("info", info),
                ("state", state),
                ("journal/status", journal),
                ("device/shoe/status", device),
            ):
                w.publish(f"{table}/{suffix}", {**payload, "table": table})


class Writer:
    """Publishes retained QoS 1 messages below `tablectl/scale/` as the synthetic tables, and
    returns from `with` once the broker has acknowledged every one."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="it-synthetic")
        self.client.username_pw_set(WRITER, password_for(WRITER))
        self.client.max_inflight_messages_set(100)
        self.port = broker.port
        self.sent: list[mqtt.MQTTMessageInfo] = []

    def __enter__(self) -> Writer:
        self.client.connect("127.0.0.1", self.port, keepalive=10)
        self.client.loop_start()
        return self

    def publish(self, suffix: str, payload: str | dict[str, Any]) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
        topic = f"tablectl/{SCALE_SITE}/{suffix}"
        self.sent.append(self.client.publish(topic, data, qos=1, retain=True))

    def __exit__(self, *exc: object) -> None:
        try:
            for info in self.sent:
                info.wait_for_publish(WAIT)
                assert info.is_published(), "the broker did not acknowledge a synthetic message"
        finally:
            self.client.disconnect()
            self.client.loop_stop()


def add_scale_users(broker: MosquittoBroker) -> None:
    """The synthetic tables have no configs for `tablectl broker-acl`: their writer, and a
    reader with the grants the floor role has (every topic of the site's tables but the
    commands and the delayed feed), added by hand after the generated ACL."""
    with broker.acl_path.open("a") as acl:
        acl.write(
            f"\n# the synthetic tables (test)\nuser {WRITER}\n"
            f"topic write tablectl/{SCALE_SITE}/#\n"
            f"\n# the floor view of the synthetic site (test)\nuser {SCALE_READER}\n"
            f"topic deny tablectl/{SCALE_SITE}/+/cmd/+\n"
            f"topic deny tablectl/{SCALE_SITE}/+/broadcast/#\n"
            f"topic read tablectl/{SCALE_SITE}/#\n"
        )
    for user in (WRITER, SCALE_READER):
        subprocess.run(
            [find_mosquitto_passwd(), "-b", str(broker.password_path), user, password_for(user)],
            check=True,
            capture_output=True,
            timeout=WAIT,
        )
    broker.reload()


# -- the page --------------------------------------------------------------------------------


class FloorPage:
    """The floor page as the test reads it: from what it shows (the DOM)."""

    def __init__(self, driver: webdriver.Chrome, ws_port: int, site: str, user: str | None) -> None:
        """Open the page for `site` as broker user `user` (None: none, on an open broker)."""
        self.driver = driver
        secret = "" if user is None else f"#user={user}&pass={password_for(user)}"
        self.driver.get(
            f"http://127.0.0.1:{ws_port}/floor.html?site={site}&record=1&keepalive=5{secret}"
        )

    def wait(self, what: str, script: str, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while not self.driver.execute_script(script):
            if time.monotonic() > deadline:
                state = self.driver.execute_script(
                    "const f = window.floor; return f && {link: f.link, detail: f.linkDetail,"
                    " messages: f.messages, counts: f.counts}"
                )
                raise AssertionError(f"the page did not show {what}: {state}")
            time.sleep(0.02)  # poll interval, bounded by the deadline above

    def count(self) -> int:
        """How many PUBLISH packets the page's client has received so far."""
        n: int = self.driver.execute_script("return window.floor.messages")
        return n

    def text(self, element_id: str) -> str:
        found: str = self.driver.execute_script(
            f"return document.getElementById('{element_id}').textContent"
        )
        return found

    def counts(self) -> dict[str, int]:
        """The counter header, as shown."""
        found: dict[str, str] = self.driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('[id^=count-]')]"
            ".map(e => [e.id.slice(6), e.textContent]))"
        )
        return {k: int(v) for k, v in found.items()}

    def rows(self) -> list[dict[str, Any]]:
        """Every row in the order shown: its table, data-status, data-kind, each cell's text,
        and the device chips as [text, health]."""
        found: list[dict[str, Any]] = self.driver.execute_script(
            "return [...document.querySelectorAll('#rows tr')].map(tr => ({"
            " table: tr.dataset.table, status_attr: tr.dataset.status, kind: tr.dataset.kind,"
            " hidden: tr.hidden,"
            " ...Object.fromEntries([...tr.cells].map(td => [td.className.slice(2),"
            " td.textContent])),"
            " devices: [...tr.querySelectorAll('.dev')].map(d => [d.textContent,"
            " d.dataset.health])}))"
        )
        for row in found:
            if row["status_attr"] == "stale":
                assert re.fullmatch(r"last heard \d+ s ago", row["status"]), row
            else:
                assert row["status"] == {"unknown": "?"}.get(row["status_attr"], row["status_attr"])
        return found

    def alerts_tip(self, table: str) -> list[str]:
        """The Open alerts cell's tooltip: every alert of the table, one a line, worst first."""
        tip: str = self.driver.execute_script(
            f"return document.querySelector('tr[data-table=\"{table}\"] td.c-alerts').title"
        )
        return tip.splitlines()

    def row(self, table: str) -> dict[str, Any]:
        (found,) = [r for r in self.rows() if r["table"] == table]
        return found


def check_rate(driver: webdriver.Chrome) -> None:
    """The round rate (rounds an hour) from the moments a table's round went up: 2 rounds in
    120 s is 60 an hour; once the table is later for its next round than its pace (80 s after
    the last change, against 60 s a round), the wait counts too: 2 in 200 s, 36 an hour."""
    rates = driver.execute_script(
        "const r = window.floor.rate, s = [{t: 0, round: 1}, {t: 60e3, round: 2},"
        " {t: 120e3, round: 3}];"
        " return [r(s, 130e3), r(s, 200e3), r(s.slice(0, 1), 200e3), r([], 0)]"
    )
    assert rates == [60, 36, None, None]


# -- playing the tables ----------------------------------------------------------------------


def load(
    console: Console,
    shoe: SimulatedShoe,
    hands: list[list[str]],
    burns: list[str],
    page: FloorPage,
    fed: list[tuple[str, int]],
) -> None:
    """Insert a shoe holding the burns and then these hands' cards, and burn."""
    shoe.load([*burns, *(c for hand in hands for c in hand)])
    console.wait_for("shoe.new", lambda: any(e["type"] == "shoe.new" for e in console.on("event")))
    for card in burns:
        before = sum(1 for e in console.on("event") if e["type"] == "shoe.burn")
        fed.append(("burn", page.count()))
        assert shoe.burn() == card
        console.wait_for(
            f"burn {card}",
            lambda b=before: sum(1 for e in console.on("event") if e["type"] == "shoe.burn") > b,  # type: ignore[misc]
        )


def open_round(console: Console) -> None:
    seat = latest_offer(console)
    others = [s for s in (1, 2, 3, 5, 6, 7) if s != seat]
    console.ok("bank", {"seat": seat, "amount": "500"})
    console.ok("wager", {"seat": others[0], "spot": "player", "amount": "10"})
    console.ok("wager", {"seat": others[1], "spot": "banker", "amount": "10"})


def play_hand(
    console: Console,
    shoe: SimulatedShoe,
    page: FloorPage,
    hand: list[str],
    fed: list[tuple[str, int]],
    rnd: int,
) -> None:
    open_round(console)
    for card in hand:
        deal(console, shoe, page, card, fed)
    console.wait_for(
        f"round {rnd}'s result", lambda: any(r["round"] == rnd for r in console.on("round/result"))
    )


def deal(
    console: Console, shoe: SimulatedShoe, page: FloorPage, card: str, fed: list[tuple[str, int]]
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


# -- no card ---------------------------------------------------------------------------------


def assert_no_card_before_shown(received: list[dict[str, Any]], fed: list[tuple[str, int]]) -> None:
    """Every PUBLISH the page received is on one of its six filters; a card is named only in
    a `state`, only in its `cards` (the cards on the table), only once the shoe had dealt it,
    and never a burn or a card left in the shoe."""
    assert received, "the page received nothing"
    first: dict[str, int] = {}
    for card, count in fed:
        first.setdefault(card, count)
    named = 0
    for m in received:
        assert TOPIC.match(m["topic"]), m["topic"]
        if m["topic"].endswith("/state"):  # baccarat's cards on the table, and nowhere else
            on_table = json.loads(m["payload"])["cards"]
            assert sorted(cards_in(m["payload"])) == sorted(cards_in(json.dumps(on_table)))
        for card in cards_in(m["payload"]):
            named += 1
            assert m["topic"].endswith("/state"), f"{card} in {m['topic']}: {m['payload']}"
            assert card not in NEVER, f"{card} (never shown) in {m['topic']}: {m['payload']}"
            assert card in first, f"{card} (never dealt) in {m['topic']}: {m['payload']}"
            assert m["n"] >= first[card], (
                f"{card} reached the page (message {m['n']}: {m['payload']}) before the table "
                f"showed it (after message {first[card]})"
            )
    assert named, "no state with a card reached the page: the check checked nothing"


def assert_no_card_in_page(driver: webdriver.Chrome) -> None:
    """The page shows no card and keeps none: no card code (nor a suit sign) in its text, in
    its attributes, or in what it keeps of the tables."""
    shown: str = driver.execute_script("return document.body.innerText")
    attributes: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('#rows *')].flatMap(e =>"
        " [...e.attributes].map(a => a.value))"
    )
    kept: str = driver.execute_script(
        "return JSON.stringify([...window.floor.tables.values()].map(t =>"
        " ({...t, row: null, cells: null, devices: Object.fromEntries(t.devices)})))"
    )
    words = [*re.split(r"[\s;:,()]+", shown), *attributes]
    assert not [w for w in words if CARD.match(w)], shown
    assert not set("\u2660\u2665\u2666\u2663") & set(shown)
    assert not [c for c in cards_in(kept)], kept
