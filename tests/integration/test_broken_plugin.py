"""A vendor driver plugin that is broken does not stop the table (vendor drivers install
"through the `tablectl.drivers` entry-point group, imported lazily so a broken plugin cannot stop
the daemon").

The plugins are real installed distributions: a `*.dist-info` folder with an `entry_points.txt`
and the vendor's module, on `sys.path` (in this process) or `PYTHONPATH` (for `tablectl run`), so
`importlib.metadata` and the registry find and load them as they would a pip-installed package.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, load_config
from tablectl.journal import Journal
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.integration.harness import DaemonProcess, write_config

pytestmark = pytest.mark.integration

# What each plugin module does when imported (the class `Driver` is its entry point's target).
BROKEN_IMPORT = 'raise RuntimeError("licence dongle missing")\n'
BROKEN_BUILD = (
    "class Driver:\n"
    "    def __init__(self, name, port, baud, options):\n"
    '        raise RuntimeError("firmware table not found")\n'
    "    async def run(self, sink):\n"
    "        pass\n"
)
REFUSES_OPTIONS = (
    "class Driver:\n"
    "    def __init__(self, name, port, baud, options):\n"
    "        if options:\n"
    '            raise ValueError("unknown option " + repr(sorted(options)[0]))\n'
    "    async def run(self, sink):\n"
    "        pass\n"
)
DOWN = "; the daemon runs without this device and reports it unavailable"


def install_plugin(site: Path, dist: str, name: str, module: str, source: str) -> None:
    """Install distribution `dist` into `site`: module `module` and an entry point `name` of
    the `tablectl.drivers` group pointing at `module:Driver`."""
    (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[tablectl.drivers]\n{name} = {module}:Driver\n")


def add_device(config: Path, name: str, driver: str, options: str = "") -> None:
    """Append a `[[devices]]` entry to a config written by the harness."""
    with config.open("a") as f:
        f.write(f'\n[[devices]]\nname = "{name}"\ndriver = "{driver}"\nport = "/dev/null"\n')
        if options:
            f.write(f"[devices.options]\n{options}\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A site-packages-like folder on sys.path holding the vendor plugins of the test."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """The harness's baccarat table (built-in shoe on /dev/null), MQTT off."""
    path = write_config(tmp_path, shoe_port="/dev/null", mqtt_port=1)
    path.write_text(path.read_text().replace("[mqtt]", "[mqtt]\nenabled = false"))
    return path


def test_a_plugin_that_cannot_be_imported_is_a_warning_not_a_problem(
    site: Path, config: Path
) -> None:
    install_plugin(site, "acme-shoe", "acme-shoe", "acme_shoe", BROKEN_IMPORT)
    add_device(config, "vendor-shoe", "acme-shoe")
    cfg = load_config(config)  # before the fix: ConfigError, so `tablectl run` exited 2
    assert cfg.warnings == (
        f"{config}: devices[1].driver: driver 'acme-shoe' (acme_shoe:Driver) cannot be loaded: "
        f"plugin from acme-shoe: RuntimeError: licence dongle missing{DOWN}",
    )
    assert [d.name for d in cfg.table.devices] == ["shoe", "vendor-shoe"]


def test_a_plugin_that_fails_to_build_is_a_warning(site: Path, config: Path) -> None:
    install_plugin(site, "acme-cup", "acme-cup", "acme_cup", BROKEN_BUILD)
    add_device(config, "vendor-cup", "acme-cup")
    assert load_config(config).warnings == (
        f"{config}: devices[1].driver: driver 'acme-cup' cannot be built: "
        f"RuntimeError: firmware table not found{DOWN}",
    )


def test_check_config_prints_the_warning_and_exits_0(
    site: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(site, "acme-shoe", "acme-shoe", "acme_shoe", BROKEN_IMPORT)
    add_device(config, "vendor-shoe", "acme-shoe")
    code = main(["check-config", str(config)])
    out, err = capsys.readouterr()
    assert code == 0
    assert err == (
        f"warning: {config}: devices[1].driver: driver 'acme-shoe' (acme_shoe:Driver) cannot be "
        f"loaded: plugin from acme-shoe: RuntimeError: licence dongle missing{DOWN}\n"
    )
    assert out == (
        f"{config}: ok, with warnings: ez-baccarat-panda8 (document 003) table it/t1, 7 seats, "
        "limits 5.00-500.00, collection schedule 3, 2 device(s)\n"
    )


def test_options_a_driver_refuses_and_unknown_names_stay_problems(site: Path, config: Path) -> None:
    """What the technician must fix in the file still fails the check: a built-in's or a
    loaded plugin's refused options, and a driver name nothing provides."""
    install_plugin(site, "acme-fussy", "acme-fussy", "acme_fussy", REFUSES_OPTIONS)
    add_device(config, "fussy", "acme-fussy", 'colour = "red"')
    add_device(config, "shoe-2", "shoe", 'colour = "red"')
    add_device(config, "typo", "acme-shoo")
    with pytest.raises(ConfigError) as info:
        load_config(config)
    problems = {p.key: p.reason for p in info.value.problems}
    assert problems["devices[1].options"] == "unknown option 'colour'"
    assert problems["devices[2].options"].startswith("unknown option 'colour'")
    assert problems["devices[3].driver"].startswith("no driver 'acme-shoo'; known: ")
    assert len(problems) == 3


def test_tablectl_run_runs_the_table_and_reports_the_plugin_device_unavailable(
    tmp_path: Path, config: Path
) -> None:
    """`tablectl run` starts, logs the warning, runs the built-in shoe, and publishes the plugin
    device on device/<name>/status as unavailable with the reason (journaled, so published)."""
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "acme-shoe", "acme-shoe", "acme_shoe", BROKEN_IMPORT)
    with SimulatedShoe() as shoe:
        config.write_text(config.read_text().replace('port = "/dev/null"', f'port = "{shoe.port}"'))
        add_device(config, "vendor-shoe", "acme-shoe")
        env = {
            "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
        }
        daemon = DaemonProcess(config, env=env)
        daemon.start()
        try:
            statuses = wait_for_statuses(tmp_path / "journal.db", daemon)
            assert daemon.proc is not None and daemon.proc.poll() is None, daemon.log_text()
            assert daemon.terminate() == 0, daemon.log_text()
        finally:
            daemon.stop_quietly()
    assert statuses["shoe"]["available"] is True
    vendor = statuses["vendor-shoe"]
    assert vendor["available"] is False
    assert vendor["fault"] == "DRIVER-ERROR"
    assert vendor["detail"]["error"] == (
        "DriverLoadError: driver 'acme-shoe' (acme_shoe:Driver) cannot be loaded: "
        "plugin from acme-shoe: RuntimeError: licence dongle missing"
    )
    log = daemon.log_text()
    assert "config warning" in log and "licence dongle missing" in log


def wait_for_statuses(journal: Path, daemon: DaemonProcess) -> dict[str, dict[str, Any]]:
    """The first journaled status of the plugin's device and the first available status of the
    shoe, once both are there (20 s at most)."""
    deadline = time.monotonic() + 20
    while True:
        assert daemon.proc is not None
        assert daemon.proc.poll() is None, f"tablectl run exited:\n{daemon.log_text()}"
        found: dict[str, dict[str, Any]] = {}
        if '"running"' in daemon.log_text():  # the journal is set up before the daemon runs
            j = Journal(journal, table="t1", readonly=True)
            try:
                for rec in j.records():
                    body = rec.body
                    if body.get("type") != "device.status":
                        continue
                    if body["device"] == "vendor-shoe" or body.get("available") is True:
                        found.setdefault(str(body["device"]), body)
            finally:
                j.close()
        if {"shoe", "vendor-shoe"} <= set(found):
            return found
        assert time.monotonic() < deadline, f"no status of both devices:\n{daemon.log_text()}"
        time.sleep(0.1)


SWALLOWS_A_STOP = (
    "import asyncio\n"
    "class Driver:\n"
    "    def __init__(self, name, port, baud, options):\n"
    "        pass\n"
    "    async def run(self, sink):\n"
    "        await sink.status(True, None, {})\n"
    "        try:\n"
    "            await asyncio.Event().wait()\n"
    "        except asyncio.CancelledError:\n"
    "            pass  # the first stop is lost, as Python 3.11's wait_for can lose it\n"
    "        await asyncio.Event().wait()\n"
)


async def test_a_driver_that_swallows_its_stop_does_not_hang_the_shutdown(
    site: Path, config: Path
) -> None:
    """DESIGN shape 5: the shell "shuts down cleanly on SIGTERM". A driver that ignores one
    cancellation is cancelled again (and logged), so the daemon still stops."""
    from tablectl.daemon import Daemon

    install_plugin(site, "acme-stubborn", "acme-stubborn", "acme_stubborn", SWALLOWS_A_STOP)
    config.write_text(config.read_text().replace('driver = "shoe"', 'driver = "acme-stubborn"'))
    daemon = Daemon(load_config(config))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    deadline = time.monotonic() + 10
    while not any(r.body.get("available") is True for r in daemon.journal.records()):
        assert time.monotonic() < deadline, "the plugin never reported itself available"
        await asyncio.sleep(0.05)
    daemon.stop()
    done, _ = await asyncio.wait([runner], timeout=10)
    assert done, "the daemon's shutdown hung on a driver that swallowed its cancellation"
    runner.result()
