"""The driver registry: built-ins, entry-point plugins, and plugins that fail to load."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tablectl_drivers import registry
from tablectl_drivers.registry import (
    ENTRY_POINT_GROUP,
    DriverLoadError,
    UnknownDriverError,
    available_drivers,
    load_driver,
)
from tablectl_drivers.shoe.device import ShoeDriver


@pytest.fixture(autouse=True)
def only_the_shoe_built_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the registry's mechanics: pin the built-in table to one driver so
    adding a device class does not change what they expect."""
    monkeypatch.setattr(
        registry, "BUILTIN_DRIVERS", {"shoe": "tablectl_drivers.shoe.device:ShoeDriver"}
    )


def use_plugins(monkeypatch: pytest.MonkeyPatch, **targets: str) -> None:
    """Make `importlib.metadata.entry_points` report these plugins (name -> "module:Class")."""
    eps = [importlib.metadata.EntryPoint(n, t, ENTRY_POINT_GROUP) for n, t in targets.items()]

    def entry_points(**kwargs: str) -> list[importlib.metadata.EntryPoint]:
        assert kwargs == {"group": ENTRY_POINT_GROUP}
        return eps

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


@pytest.fixture
def vendor_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on sys.path for vendor plugin modules written by the test."""
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_builtin_shoe() -> None:
    assert available_drivers()["shoe"] == "tablectl_drivers.shoe.device:ShoeDriver"
    assert load_driver("shoe") is ShoeDriver


def test_unknown_name_lists_known_names(monkeypatch: pytest.MonkeyPatch) -> None:
    use_plugins(monkeypatch, acme_shoe="acme.shoe:Driver")
    with pytest.raises(UnknownDriverError) as info:
        load_driver("shoo")
    message = str(info.value)
    assert "'shoo'" in message
    assert "known: acme_shoe, shoe" in message
    assert isinstance(info.value, LookupError)
    assert isinstance(info.value, DriverLoadError)


def test_plugin_that_cannot_be_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    use_plugins(monkeypatch, broken="tablectl_vendor_not_installed:Driver")
    # listing does not import anything, so a broken plugin cannot hurt it
    assert available_drivers() == {
        "shoe": "tablectl_drivers.shoe.device:ShoeDriver",
        "broken": "tablectl_vendor_not_installed:Driver",
    }
    with pytest.raises(DriverLoadError) as info:
        load_driver("broken")
    err = info.value
    assert err.name == "broken"
    assert err.target == "tablectl_vendor_not_installed:Driver"
    assert "ModuleNotFoundError" in err.cause
    assert "driver 'broken' (tablectl_vendor_not_installed:Driver) cannot be loaded" in str(err)
    assert isinstance(err.__cause__, ModuleNotFoundError)
    assert load_driver("shoe") is ShoeDriver  # the others still load


def test_plugin_that_raises_while_importing(
    monkeypatch: pytest.MonkeyPatch, vendor_dir: Path
) -> None:
    (vendor_dir / "vendor_boom.py").write_text('raise RuntimeError("licence dongle missing")\n')
    use_plugins(monkeypatch, boom="vendor_boom:Driver")
    with pytest.raises(DriverLoadError, match="RuntimeError: licence dongle missing"):
        load_driver("boom")


def test_plugin_that_is_not_a_driver_class(
    monkeypatch: pytest.MonkeyPatch, vendor_dir: Path
) -> None:
    (vendor_dir / "vendor_odd.py").write_text("Driver = 42\nclass NoRun:\n    pass\n")
    use_plugins(monkeypatch, odd="vendor_odd:Driver", norun="vendor_odd:NoRun", gone="vendor_odd:X")
    with pytest.raises(DriverLoadError, match="not a driver class"):
        load_driver("odd")
    with pytest.raises(DriverLoadError, match="not a driver class"):
        load_driver("norun")
    with pytest.raises(DriverLoadError, match="AttributeError"):
        load_driver("gone")


def test_working_plugin(monkeypatch: pytest.MonkeyPatch, vendor_dir: Path) -> None:
    (vendor_dir / "vendor_dice.py").write_text(
        textwrap.dedent(
            """
            class DiceCup:
                def __init__(self, name, port, baud, options):
                    self.name = name

                async def run(self, sink):
                    await sink.event({"type": "dice.roll", "dice": [1, 2, 3]})
            """
        )
    )
    use_plugins(monkeypatch, dice="vendor_dice:DiceCup")
    cls = load_driver("dice")
    assert cls.__name__ == "DiceCup"
    assert cls("cup", "/dev/ttyS0", 9600, {}).name == "cup"


def test_plugin_cannot_shadow_a_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    use_plugins(monkeypatch, shoe="evil.module:Shoe")
    assert available_drivers() == {"shoe": "tablectl_drivers.shoe.device:ShoeDriver"}
    assert load_driver("shoe") is ShoeDriver


def test_broken_package_metadata_does_not_break_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def entry_points(**kwargs: str) -> list[importlib.metadata.EntryPoint]:
        raise ValueError("malformed entry_points.txt")

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert available_drivers() == {"shoe": "tablectl_drivers.shoe.device:ShoeDriver"}
    with pytest.raises(UnknownDriverError, match="known: shoe"):
        load_driver("acme")


def test_a_broken_builtin_is_a_load_error_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.BUILTIN_DRIVERS, "ghost", "tablectl_drivers.no_such_module:Ghost")
    with pytest.raises(DriverLoadError, match=r"'ghost' .* ModuleNotFoundError"):
        load_driver("ghost")


def test_importing_the_registry_imports_no_driver() -> None:
    code = (
        "import sys, tablectl_drivers.registry as r; r.available_drivers(); "
        "print(sorted(m for m in sys.modules if m.startswith('tablectl_drivers.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert out.strip() == "['tablectl_drivers.base', 'tablectl_drivers.registry']"
