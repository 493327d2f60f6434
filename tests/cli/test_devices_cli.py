"""`tablectl devices`: serial ports (pyserial's own ListPortInfo objects) and USB devices (the
simulated pyusb backend, pyusb's code running on it), matched to a real config file's entries by
path, by a real /dev/serial/by-id style symlink, by another symlink, and by `usb:` URL."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import serial.tools.list_ports
from serial.tools.list_ports_common import ListPortInfo

import tablectl.cli.common
import tablectl_drivers.usb
from tablectl import devices
from tablectl.cli import main
from tablectl.config import Device
from tablectl_drivers.sim.usb_backend import SimUsbBackend, SimUsbDevice
from tablectl_drivers.usb import UsbUnavailableError, list_devices
from tests.helpers import write_config


def config_with(tmp_path: Path, entries: list[tuple[str, str]]) -> Path:
    """A baccarat table config with these (name, port) devices: the first its card-reading
    shoe, the others scoreboard displays (a role without a limit: the game takes any number).
    A pseudo-terminal's is said to be an emulator's, as the config must for it to be used."""
    path = write_config(tmp_path)
    with path.open("a") as f:
        for i, (name, port) in enumerate(entries):
            driver = "eztrak" if i else "shoe"
            pty = "emulator = true\n" if port.startswith("/dev/pts/") else ""
            f.write(f'\n[[devices]]\nname = "{name}"\ndriver = "{driver}"\nport = "{port}"\n{pty}')
    return path


def port_info(
    device: str,
    vid: int | None = None,
    pid: int | None = None,
    serial_number: str | None = None,
    description: str = "n/a",
) -> ListPortInfo:
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.serial_number, info.description = vid, pid, serial_number, description
    return info


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Three serial ports, three USB devices, a by-id directory and a config naming them."""
    ports = [
        port_info("/dev/ttyFAKE0", 0x0403, 0x6001, "SHOE0001", "FT232R USB UART"),
        port_info("/dev/ttyFAKE1", 0x067B, 0x2303, None, "USB-Serial Controller"),
        port_info("/dev/ttyS0"),
    ]
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda *a, **k: list(ports))

    by_id = tmp_path / "by-id"
    by_id.mkdir()
    shuffler_link = by_id / "usb-Prolific_USB-Serial_Controller-if00-port0"
    shuffler_link.symlink_to("/dev/ttyFAKE1")  # the device itself is fake: only the link is real
    monkeypatch.setattr(devices, "BY_ID_DIR", by_id)
    udev_link = tmp_path / "tablectl-dispenser"
    udev_link.symlink_to("/dev/ttyS0")

    cup = SimUsbDevice(0x16C0, 0x05DC, serial="CUP-1", manufacturer="Acme", product="Dice cup")
    display = SimUsbDevice(0x1209, 0x0E27, manufacturer="EZ", product="EZTRAK", bus=2)
    stranger = SimUsbDevice(0x046D, 0xC52B, serial="X", accessible=False)
    monkeypatch.setattr(devices, "usb_backend", SimUsbBackend(cup, display, stranger))

    entries = [
        ("shoe", "/dev/ttyFAKE0"),
        ("shuffler", str(shuffler_link)),
        ("dispenser", str(udev_link)),
        ("dice", "usb:16c0:05dc:CUP-1"),
        ("eztrak", "usb:1209:0e27"),
        ("spare-shoe", "/dev/tablectl-spare-shoe"),
        ("spare-dice", "usb:16c0:05dc:CUP-2"),
        ("remote", "socket://127.0.0.1:7000"),
    ]
    path = config_with(tmp_path, entries)
    return {"config": path, "cup": cup, "display": display, "by_id": shuffler_link}


@pytest.fixture(autouse=True)
def no_default_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No /etc/tablectl/table.toml of the machine running the tests is read."""
    monkeypatch.setattr(tablectl.cli.common, "DEFAULT_CONFIG", tmp_path / "absent" / "table.toml")


def run(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 0) -> str:
    """The command's stdout, having checked its exit code (1: a configured device is missing,
    said on stderr)."""
    got = main(argv)
    out, err = capsys.readouterr()
    assert got == code
    if code == 0:
        assert err == ""
    else:
        assert err.startswith("tablectl: ") and "device(s) not found" in err
    return out


def test_json_lists_devices_and_matches_config_entries(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(run(["devices", "--config", str(table["config"]), "--json"], capsys, 1))

    ports = {p["device"]: p for p in doc["serial_ports"]}
    assert list(ports) == ["/dev/ttyFAKE0", "/dev/ttyFAKE1", "/dev/ttyS0"]
    assert ports["/dev/ttyFAKE0"] == {
        "device": "/dev/ttyFAKE0",
        "by_id": [],
        "vid": "0403",
        "pid": "6001",
        "serial_number": "SHOE0001",
        "description": "FT232R USB UART",
        "config": ["shoe"],
    }
    assert ports["/dev/ttyFAKE1"]["by_id"] == [str(table["by_id"])]
    assert ports["/dev/ttyFAKE1"]["config"] == ["shuffler"]
    assert ports["/dev/ttyS0"]["config"] == ["dispenser"]
    assert ports["/dev/ttyS0"]["vid"] is None

    usb = {u["url"]: u for u in doc["usb_devices"]}
    assert usb["usb:16c0:05dc:CUP-1"] == {
        "vid": "16c0",
        "pid": "05dc",
        "serial": "CUP-1",
        "manufacturer": "Acme",
        "product": "Dice cup",
        "bus": 1,
        "address": table["cup"].address,
        "url": "usb:16c0:05dc:CUP-1",
        "config": ["dice"],
    }
    assert usb["usb:1209:0e27"]["product"] == "EZTRAK"
    assert usb["usb:1209:0e27"]["config"] == ["eztrak"]
    assert usb["usb:046d:c52b"]["serial"] is None  # no permission to read its strings
    assert doc["usb_error"] is None

    config = {c["name"]: c for c in doc["config"]}
    assert list(config) == [
        "shoe",
        "shuffler",
        "dispenser",
        "dice",
        "eztrak",
        "spare-shoe",
        "spare-dice",
        "remote",
    ]
    found = {
        n: (c["status"], [(m["device"], m["how"]) for m in c["matches"]]) for n, c in config.items()
    }
    assert found == {
        "shoe": ("found", [("/dev/ttyFAKE0", "path")]),
        "shuffler": ("found", [("/dev/ttyFAKE1", "by-id link")]),
        "dispenser": ("found", [("/dev/ttyS0", "symlink")]),
        "dice": ("found", [("usb:16c0:05dc:CUP-1", "16c0:05dc:CUP-1")]),
        "eztrak": ("found", [("usb:1209:0e27", "1209:0e27")]),
        "spare-shoe": ("not found", []),
        "spare-dice": ("not found", []),
        "remote": ("network", []),
    }
    assert config["dice"]["matches"][0]["kind"] == "usb"
    assert config["shoe"]["matches"][0]["kind"] == "serial"


def test_text_output(table: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    out = run(["devices", "--config", str(table["config"])], capsys, 1)
    lines = out.splitlines()
    assert lines[0] == "Serial ports:"
    assert "  /dev/ttyFAKE0  0403:6001  serial SHOE0001  FT232R USB UART" in lines
    assert f"      by-id: {table['by_id']}" in lines
    assert "USB devices:" in lines
    assert any(ln.startswith("  usb:16c0:05dc:CUP-1  bus 001 address") for ln in lines)
    assert any(ln.endswith("Acme Dice cup") for ln in lines)
    assert "      config: dice" in lines
    assert "  shoe [shoe] /dev/ttyFAKE0: found: /dev/ttyFAKE0 (path)" in lines
    assert f"  shuffler [eztrak] {table['by_id']}: found: /dev/ttyFAKE1 (by-id link)" in lines
    assert "  spare-shoe [eztrak] /dev/tablectl-spare-shoe: not found" in lines
    assert "  spare-dice [eztrak] usb:16c0:05dc:CUP-2: not found" in lines
    assert "  remote [eztrak] socket://127.0.0.1:7000: network" in lines


def test_without_a_config_only_lists(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(run(["devices", "--json"], capsys))
    assert "config" not in doc
    assert len(doc["serial_ports"]) == 3 and len(doc["usb_devices"]) == 3
    assert all(p["config"] == [] for p in doc["serial_ports"])


def test_an_unplugged_usb_device_is_not_found(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    table["cup"].unplug()
    doc = json.loads(run(["devices", "--config", str(table["config"]), "--json"], capsys, 1))
    dice = next(c for c in doc["config"] if c["name"] == "dice")
    assert (dice["status"], dice["matches"]) == ("not found", [])


def test_usb_unavailable_is_reported_not_raised(
    table: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_libusb(backend: Any = None) -> list[Any]:
        raise UsbUnavailableError(38, "no USB backend: is libusb installed?")

    monkeypatch.setattr(tablectl_drivers.usb, "list_devices", no_libusb)
    doc = json.loads(run(["devices", "--config", str(table["config"]), "--json"], capsys, 1))
    assert doc["usb_devices"] == [] and "libusb" in doc["usb_error"]
    dice = next(c for c in doc["config"] if c["name"] == "dice")
    assert dice["status"] == "unchecked"
    out = run(["devices"], capsys)
    assert "  (cannot list: [Errno 38] no USB backend: is libusb installed?)" in out


def test_ambiguous_invalid_and_unreadable_serial() -> None:
    backend = SimUsbBackend(
        SimUsbDevice(0x16C0, 0x05DC, serial="A"),
        SimUsbDevice(0x16C0, 0x05DC, serial="B"),
        SimUsbDevice(0x0483, 0x5740, serial="LOCKED", accessible=False),
    )
    inv = devices.Inventory(usb=list_devices(backend))
    entries = [
        Device(name="any-cup", driver="shoe", port="usb:16c0:05dc"),
        Device(name="bad", driver="shoe", port="usb:16c0:5dc"),
        Device(name="locked", driver="shoe", port="usb:0483:5740:LOCKED"),
    ]
    any_cup, bad, locked = devices.match_entries(entries, inv)
    assert any_cup.status == "ambiguous" and len(any_cup.hits) == 2
    assert "add the serial" in (any_cup.note or "")
    assert bad.status == "invalid" and "not 4 hex digits" in (bad.note or "")
    assert locked.status == "not found" and "cannot be read" in (locked.note or "")


def test_a_port_pyserial_does_not_list_is_present_not_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config entry's port that exists is never called "not found". A real
    pseudo-terminal and a symlink to it (as the simulators' `--link` makes) are not in
    pyserial's list; a dangling link and a missing path are not found; a plain file is no
    device."""
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda *a, **k: [])
    monkeypatch.setattr(devices, "usb_backend", SimUsbBackend())
    master, slave = os.openpty()
    try:
        pty = os.ttyname(slave)
        link = tmp_path / "tablectl-shoe"
        link.symlink_to(pty)
        dangling = tmp_path / "tablectl-gone"
        dangling.symlink_to(tmp_path / "no-such-pty")
        plain = tmp_path / "notes.txt"
        plain.write_text("not a port\n")
        entries = [
            ("pty", pty),
            ("linked", str(link)),
            ("dangling", str(dangling)),
            ("missing", str(tmp_path / "ttyUSB9")),
            ("file", str(plain)),
        ]
        path = config_with(tmp_path, entries)
        doc = json.loads(run(["devices", "--config", str(path), "--json"], capsys, 1))
        text = run(["devices", "--config", str(path)], capsys, 1).splitlines()
    finally:
        os.close(master)
        os.close(slave)
    found = {c["name"]: (c["status"], c["note"]) for c in doc["config"]}
    listed = f"{pty} is a device that pyserial does not list (a pseudo-terminal?)"
    assert found == {
        "pty": ("present", listed),
        "linked": ("present", listed),
        "dangling": ("not found", None),
        "missing": ("not found", None),
        "file": ("invalid", f"{plain} exists but is not a device"),
    }
    assert f"  linked [eztrak] {link}: present" in text
    assert f"      {listed}" in text


# -- exit codes and --check ------------------------------------------------


def test_every_configured_device_found_exits_0(
    table: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = tmp_path / "found"
    sub.mkdir()
    path = config_with(sub, [("shoe", "/dev/ttyFAKE0"), ("dice", "usb:16c0:05dc:CUP-1")])
    assert "shoe [shoe] /dev/ttyFAKE0: found" in run(["devices", "--config", str(path)], capsys)
    assert run(["devices", "--config", str(path), "--check"], capsys) == ""
    doc = json.loads(run(["devices", "--config", str(path), "--check", "--json"], capsys))
    assert doc == {"missing": []}


def test_a_missing_configured_device_exits_1_naming_it(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["devices", "--config", str(table["config"])]) == 1
    out, err = capsys.readouterr()
    assert "  spare-shoe [eztrak] /dev/tablectl-spare-shoe: not found" in out.splitlines()
    assert err == f"tablectl: {table['config']}: device(s) not found: spare-shoe, spare-dice\n"


def test_check_prints_only_the_missing_devices(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(["devices", "--config", str(table["config"]), "--check"], capsys, 1)
    assert out.splitlines() == [
        "spare-shoe [eztrak] /dev/tablectl-spare-shoe: not found",
        "spare-dice [eztrak] usb:16c0:05dc:CUP-2: not found",
    ]
    doc = json.loads(
        run(["devices", "--config", str(table["config"]), "--check", "--json"], capsys, 1)
    )
    assert [m["name"] for m in doc["missing"]] == ["spare-shoe", "spare-dice"]


def test_check_without_a_config_is_a_usage_error(
    table: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["devices", "--check"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "devices --check needs a config" in err


def test_the_default_config_is_matched_when_it_exists(
    table: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tablectl.cli.common, "DEFAULT_CONFIG", table["config"])
    out = run(["devices", "--check"], capsys, 1)
    assert "spare-shoe [eztrak] /dev/tablectl-spare-shoe: not found" in out


def test_an_unreadable_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devices", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err
