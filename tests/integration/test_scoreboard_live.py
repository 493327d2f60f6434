"""The scoreboard's liveness (docs/scoreboard.md "The banner"): a table that
goes silent is marked on the scoreboard, not only on the floor view.

A real baccarat daemon on the shipped defaults (`[mqtt] keepalive` 8, `heartbeat_seconds` 5), a
real Mosquitto with its websockets listener, the page in headless Chromium as the display user.
The daemon is stopped with SIGSTOP (a hung table) just after a heartbeat: within 12 s the pill
says "last heard N s ago" and the banner "Table not heard from"; the broker's Last Will then
says offline ("Table offline"); continued with SIGCONT, the table is online again and the
banner goes. The figures are printed.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoFactory
from tests.integration.harness import Console, DaemonProcess, write_config
from tests.integration.pages import BASE, Browser, Page, add_page_user, websocket_broker

pytestmark = pytest.mark.integration

STALE_WITHIN = 12.0  # stale within 12 s of the stop
OFFLINE_WITHIN = 20.0  # and offline at the Last Will within 20 s


def banner(page: Page) -> tuple[str, str]:
    """The banner's kind and text ("" when hidden)."""
    kind, text = page.driver.execute_script(
        "const b = document.getElementById('banner');"
        " return [b.hidden ? '' : b.dataset.kind, b.hidden ? '' : b.textContent]"
    )
    return str(kind), str(text)


def test_a_hung_table_is_stale_on_the_scoreboard_then_offline_and_back(
    tmp_path: Path, mosquitto_factory: MosquittoFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    broker, ws_port = websocket_broker(mosquitto_factory)
    with SimulatedShoe() as shoe, Browser(tmp_path, monkeypatch, size=(1280, 720)) as driver:
        cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=broker.port)
        text = cfg.read_text()
        cfg.write_text(text.replace("keepalive = 5\n", ""))  # the shipped default, 8
        add_page_user(broker)
        console = Console(broker.port, BASE)
        daemon = DaemonProcess(cfg)
        try:
            daemon.start()
            console.wait_for("online", lambda: "online" in console.on("status"))
            page = Page(driver, ws_port)
            page.wait(
                "the table online",
                "return window.scoreboard.liveness"
                " && window.scoreboard.liveness.state === 'online'",
            )
            assert banner(page) == ("", "")
            # Just after a heartbeat: the longest the stale mark can take.
            beats = len(console.on("status"))
            console.wait_for("a heartbeat", lambda: len(console.on("status")) > beats, timeout=8)
            assert daemon.proc is not None
            daemon.proc.send_signal(signal.SIGSTOP)
            t0 = time.monotonic()
            stale = offline = None
            while time.monotonic() - t0 < OFFLINE_WITHIN + 5 and offline is None:
                kind, said = banner(page)
                if kind == "stale" and stale is None:
                    stale = time.monotonic() - t0
                    assert said.startswith("Table not heard from: last heard "), said
                    assert page.text("table-status").startswith("table last heard ")
                    driver.save_screenshot(str(tmp_path / "scoreboard-stale.png"))
                if kind == "offline":
                    offline = time.monotonic() - t0
                    assert said == "Table offline"
                time.sleep(0.05)  # polling the page, bounded by the loop's deadline
            print(f"scoreboard: SIGSTOP stale after {stale} s, offline after {offline} s")
            assert stale is not None and stale < STALE_WITHIN, (stale, offline)
            assert offline is not None and stale < offline < OFFLINE_WITHIN, (stale, offline)
            daemon.proc.send_signal(signal.SIGCONT)
            page.wait(
                "online again",
                "return window.scoreboard.liveness.state === 'online'"
                " && document.getElementById('banner').hidden",
                timeout=20,
            )
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            if daemon.proc is not None and daemon.proc.poll() is None:
                daemon.proc.send_signal(signal.SIGCONT)
            daemon.stop_quietly()
            console.close()
