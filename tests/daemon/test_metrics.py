"""The Prometheus metrics (tablectl/metrics.py): `[metrics] listen` as
check-config takes and refuses it; the in-process daemon's endpoint on a free loopback port with
the holds worked out by hand (a device fault mid-deal holds the round until round.resume; a
journal that cannot be replayed holds the table); what the endpoint answers besides the metrics;
an address that cannot be bound; and daemons side by side in one process, each with its own
registry. tests/integration/test_metrics_e2e.py scrapes a table playing a round on a simulated
shoe."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from hil.journal_faults import body_not_json, build
from hil.ports import free_port
from tablectl.cli import main
from tablectl.config import LoadedConfig, load_config
from tablectl.daemon import Daemon
from tablectl.daemon.devices import _Sink
from tablectl.metrics import TableMetrics
from tests.helpers import bank, cards, make_config, wager, write_config
from tests.journal.test_disk_full import Disk, feed_until_full, play

TIMEOUT = 10.0
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
GAME = "ez-baccarat-panda8"

# -- check-config ---------------------------------------------------------------------------


@pytest.mark.parametrize("listen", ["127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9100"])
def test_check_config_takes_an_address_and_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], listen: str
) -> None:
    path = write_config(tmp_path, metrics={"listen": listen})
    assert main(["check-config", str(path)]) == 0, capsys.readouterr().err
    metrics = load_config(path).table.metrics
    assert metrics is not None and metrics.listen == listen


def test_no_metrics_table_is_no_endpoint(tmp_path: Path) -> None:
    assert load_config(write_config(tmp_path)).table.metrics is None


@pytest.mark.parametrize(
    ("listen", "reason"),
    [
        ("localhost:9464", '"localhost" is not an IP address'),
        ("127.0.0.1", "give an IP address and a port"),
        (":9464", "give an IP address and a port"),
        ("127.0.0.1:0", 'port "0" is not a number from 1 to 65535'),
        ("127.0.0.1:65536", 'port "65536" is not a number from 1 to 65535'),
        ("127.0.0.1:94x", 'port "94x" is not a number'),
        ("::1:9464", "an IPv6 address goes in brackets"),
        ("[127.0.0.1]:9464", "an IPv6 address goes in brackets"),
        ("", 'is empty ("")'),
        (9464, "must be text in quotes, not 9464"),
    ],
)
def test_check_config_refuses_what_is_not_an_address_and_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], listen: Any, reason: str
) -> None:
    path = tmp_path / "table.toml"
    text = write_config(tmp_path).read_text()
    value = f'"{listen}"' if isinstance(listen, str) else str(listen)
    path.write_text(f"{text}\n[metrics]\nlisten = {value}\n")
    assert main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: metrics.listen: {reason}" in err, err


def test_check_config_refuses_an_unknown_key_and_a_missing_listen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    text = write_config(tmp_path).read_text()
    path.write_text(f"{text}\n[metrics]\nport = 9464\n")
    assert main(["check-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: metrics.port: unknown key" in err
    assert f"{path}: metrics.listen: required key is missing" in err


# -- the daemon's endpoint ------------------------------------------------------------------


def metered(tmp_path: Path, port: int) -> LoadedConfig:
    return make_config(tmp_path, metrics={"listen": f"127.0.0.1:{port}"})


async def until(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


@asynccontextmanager
async def running(daemon: Daemon) -> AsyncIterator[Daemon]:
    """`daemon` running in this loop (no MQTT) until the block ends; its endpoint bound."""
    task = asyncio.create_task(daemon.run(install_signals=False))
    try:
        await until(lambda: task.done() or _bound(daemon), "the daemon running")
        yield daemon
    finally:
        daemon.stop()
        await asyncio.wait_for(task, TIMEOUT)
    assert not daemon.failed


def _bound(daemon: Daemon) -> bool:
    server = daemon._metrics_server
    return server is not None and bool(server.bound)


async def request(port: int, raw: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send `raw` to the endpoint; its status line, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), TIMEOUT)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}
    return status, headers, body


async def scrape(port: int) -> Samples:
    status, _, body = await request(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == "HTTP/1.1 200 OK", status
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def alerts(got: Samples) -> dict[str, float]:
    return {
        dict(labels)["kind"]: v
        for (name, labels), v in got.items()
        if name == "tablectl_alerts_total"
    }


def held(got: Samples, kind: str) -> tuple[float, float]:
    """(tablectl_held, tablectl_held_seconds_total) for `kind`."""
    labels = frozenset({("kind", kind)})
    return got[("tablectl_held", labels)], got[("tablectl_held_seconds_total", labels)]


async def test_a_device_fault_mid_deal_holds_the_round_until_resume(tmp_path: Path) -> None:
    port = free_port()
    async with running(Daemon(metered(tmp_path, port), mqtt=False)) as daemon:
        shoe = _Sink(daemon, "shoe", "/dev/null")  # the path a driver's inputs take
        await shoe.status(True, None, {"serial": "SH-0042"})
        await daemon.submit("console", bank(3, "500"))
        await daemon.submit("console", wager(4, "player", "20"))
        await daemon.submit("console", wager(5, "banker", "30"))
        for card in cards("9h 2c"):
            await shoe.event(card)
        got = await scrape(port)
        assert held(got, "round") == (0, 0)
        await shoe.status(True, "JAM", {"serial": "SH-0042"})  # mid-deal: the round is held
        got = await scrape(port)
        assert held(got, "round")[0] == 1
        assert alerts(got) == {"device-fault": 1, "round-held": 1}
        await asyncio.sleep(0.3)
        assert held(await scrape(port), "round")[1] >= 0.3  # counted while held
        await shoe.status(True, None, {"serial": "SH-0042"})
        await daemon.submit("cmd/round.resume", {"type": "round.resume"}, ref="r1")
        got = await scrape(port)
        now, seconds = held(got, "round")
        assert now == 0 and 0.3 <= seconds < 5
        await asyncio.sleep(0.1)
        assert held(await scrape(port), "round") == (0, seconds)  # no longer counting
        for card in cards("Kd 3s"):  # P 9h Kd = 9, B 2c 3s = 5: a natural, the round ends
            await shoe.event(card)
        got = await scrape(port)
        assert got[("tablectl_rounds_total", frozenset({("game", GAME), ("void", "false")}))] == 1
        inputs = frozenset({("device", "shoe"), ("type", "shoe.card")})
        assert got[("tablectl_device_inputs_total", inputs)] == 4
        shoe_only = frozenset({("device", "shoe")})
        assert got[("tablectl_device_input_journal_seconds_count", shoe_only)] == 4
        assert held(got, "journal-fault") == (0, 0)
        assert "tablectl_broker_connected" not in {name for name, _ in got}  # MQTT off


async def test_a_journal_that_cannot_be_replayed_holds_the_table_and_says_so(
    tmp_path: Path,
) -> None:
    port = free_port()
    cfg = metered(tmp_path, port)
    body_not_json(build(cfg))
    daemon = Daemon(cfg, mqtt=False)
    assert daemon.fault is None  # the file opens; its replay at run() stops on the record
    async with running(daemon):
        assert daemon.fault is not None
        got = await scrape(port)
        assert held(got, "journal-fault")[0] == 1
        assert alerts(got) == {"journal-fault": 1}
        await asyncio.sleep(0.2)
        assert held(await scrape(port), "journal-fault")[1] >= 0.2
        assert held(got, "round") == (0, 0)
        assert got[("tablectl_journal_bytes", frozenset())] > 0


async def test_a_full_disk_holds_the_table_until_there_is_room(tmp_path: Path) -> None:
    port = free_port()
    daemon = Daemon(metered(tmp_path, port), mqtt=False)
    daemon.journal_retry_seconds = 0.05
    async with running(daemon):
        disk = Disk(daemon)
        disk.full()
        waiting, _ = await feed_until_full(daemon, play())
        got = await scrape(port)
        assert held(got, "journal-unwritable")[0] == 1
        assert alerts(got) == {"journal-unwritable": 1}
        await asyncio.sleep(0.3)
        disk.room()
        await asyncio.wait_for(waiting, TIMEOUT)
        await until(lambda: daemon.queue.empty(), "the trouble journaled")
        await asyncio.sleep(0.05)
        got = await scrape(port)
        now, seconds = held(got, "journal-unwritable")
        assert now == 0 and 0.3 <= seconds < 5
        # told from memory while it lasted (unwritable, writable), then journaled
        assert alerts(got) == {"journal-unwritable": 1, "journal-writable": 1, "journal-trouble": 1}


async def test_the_endpoint_answers_get_and_head_on_metrics_alone(tmp_path: Path) -> None:
    port = free_port()
    async with running(Daemon(metered(tmp_path, port), mqtt=False)) as daemon:
        assert daemon._metrics_server is not None
        assert daemon._metrics_server.bound == [("127.0.0.1", port)]  # nowhere else
        status, headers, body = await request(port, b"GET / HTTP/1.0\r\n\r\n")
        assert status == "HTTP/1.1 200 OK" and b"tablectl_rounds_total{" not in body  # none yet
        assert b"tablectl_table_info{" in body
        assert headers["content-type"].startswith("text/plain; version=0.0.4")
        assert int(headers["content-length"]) == len(body)
        openmetrics = b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n"
        status, headers, body = await request(port, openmetrics)
        assert headers["content-type"].startswith("application/openmetrics-text")
        assert body.endswith(b"# EOF\n")
        status, headers, body = await request(port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
        assert (status, body) == ("HTTP/1.1 200 OK", b"") and int(headers["content-length"]) > 0
        status, _, _ = await request(port, b"POST /metrics HTTP/1.1\r\n\r\n")
        assert status == "HTTP/1.1 405 Method Not Allowed"
        status, _, _ = await request(port, b"GET /journal.db HTTP/1.1\r\n\r\n")
        assert status == "HTTP/1.1 404 Not Found"
        status, _, _ = await request(port, b"nonsense\r\n\r\n")
        assert status == "HTTP/1.1 400 Bad Request"
        # A client that never finishes its request is dropped; the next scrape is answered.
        _, silent = await asyncio.open_connection("127.0.0.1", port)
        await scrape(port)
        silent.close()


async def test_an_address_in_use_is_logged_and_the_table_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        daemon = Daemon(metered(tmp_path, port), mqtt=False)
        task = asyncio.create_task(daemon.run(install_signals=False))
        await until(lambda: daemon._metrics_server is not None, "the endpoint tried")
        record = await daemon.submit("console", bank(3, "500"))  # the table runs
        assert record.seq > 0
        daemon.stop()
        await asyncio.wait_for(task, TIMEOUT)
    assert not daemon.failed
    assert "metrics.unavailable" in capsys.readouterr().out


def test_daemons_in_one_process_keep_their_own_counts(tmp_path: Path) -> None:
    """A registry each: no 'Duplicated timeseries' for a second daemon, no count shared."""

    def table_metrics() -> TableMetrics:
        return TableMetrics(
            site="s",
            table="t",
            game=GAME,
            base_topic="tablectl/s/t",
            unsent=lambda: 3,
            journal_bytes=lambda: 4096,
            broker_connected=lambda: None,
        )

    one, two = table_metrics(), table_metrics()
    one.device_input("device/shoe", "shoe.card", 0.002)
    one.device_input("device/shoe", "9h", 0.002)  # not a type a device gives: `other`
    one.device_input("device/shoe", None, 0.002)
    text = one.exposition()[0].decode()
    assert 'tablectl_device_inputs_total{device="shoe",type="shoe.card"} 1.0' in text
    assert 'tablectl_device_inputs_total{device="shoe",type="other"} 2.0' in text
    assert "9h" not in text
    assert "tablectl_outbox_unsent 3.0" in text and "tablectl_journal_bytes 4096.0" in text
    assert "tablectl_device_inputs_total{" not in two.exposition()[0].decode()
    # Daemons too: two in one process, each with its own registry.
    first = Daemon(make_config(tmp_path / "a", metrics={"listen": "127.0.0.1:9464"}), mqtt=False)
    second = Daemon(make_config(tmp_path / "b", metrics={"listen": "127.0.0.1:9465"}), mqtt=False)
    assert first.metrics is not None and second.metrics is not None
    assert first.metrics.registry is not second.metrics.registry
    assert Daemon(make_config(tmp_path / "c"), mqtt=False).metrics is None  # off by default


def test_a_hold_is_timed_on_the_clock_it_is_given() -> None:
    now = [100.0]
    m = TableMetrics(
        site="s",
        table="t",
        game=GAME,
        base_topic="tablectl/s/t",
        unsent=lambda: 0,
        journal_bytes=lambda: 0,
        broker_connected=lambda: True,
        clock=lambda: now[0],
    )
    m.held("round", True)
    now[0] = 130.0
    m.held("round", True)  # still held: nothing changes
    assert m.hold_seconds()["round"] == (True, 30.0)
    now[0] = 160.0
    m.held("round", False)
    now[0] = 200.0
    m.held("round", True)
    now[0] = 205.0
    assert m.hold_seconds() == {
        "round": (True, 65.0),
        "journal-fault": (False, 0.0),
        "journal-unwritable": (False, 0.0),
    }
