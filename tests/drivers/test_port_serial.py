"""Which device fed a round: the serial behind a port, from a usb: URL or /dev/serial/by-id."""

from __future__ import annotations

from pathlib import Path

from tablectl_drivers.connect import port_serial


def test_usb_url_serial() -> None:
    assert port_serial("usb:0403:6001:SHOE0042") == "SHOE0042"
    assert port_serial("usb:0403:6001") is None


def test_by_id_name_directly_and_through_a_udev_link(tmp_path: Path) -> None:
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    tty = tmp_path / "ttyUSB0"
    tty.write_text("")
    (by_id / "usb-FTDI_FT232R_A1B2C3-if00-port0").symlink_to(tty)
    stable = tmp_path / "tablectl-shoe"
    stable.symlink_to(tty)
    name = "usb-FTDI_FT232R_A1B2C3-if00-port0"
    assert port_serial(str(by_id / name), by_id) == name
    assert port_serial(str(stable), by_id) == name
    assert port_serial(str(tmp_path / "ttyS0"), by_id) is None  # not there at all
    assert port_serial("socket://rig:4001", by_id) is None
