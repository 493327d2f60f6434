"""The install a technician runs (issue 15 item 4): `scripts/install` into a throwaway root
leaves the service user, the config, the journal key, the udev rules for the devices the config
names, the docs where the unit points, and a unit `systemd-analyze verify` accepts."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tablectl.install import udev_rules
from tests.helpers import REPO, write_config

INSTALL = REPO / "scripts" / "install"
CONFIG = REPO / "config" / "ez-baccarat-panda8.toml"  # a shoe and an EZTRAK on stable names
UNITS = Path("/usr/lib/systemd/system")


def with_devices(tmp_path: Path, *devices: dict[str, str]) -> Path:
    path = write_config(tmp_path)
    text = path.read_text()
    for dev in devices:
        text += "\n[[devices]]\n" + "".join(f'{k} = "{v}"\n' for k, v in dev.items())
    path.write_text(text)
    return path


def test_a_usb_device_gets_its_exact_rule_and_a_by_id_port_none(tmp_path: Path) -> None:
    path = with_devices(
        tmp_path,
        {"name": "shoe", "driver": "shoe", "port": "usb:1D50:601A:SHOE0001"},
        {"name": "board", "driver": "eztrak", "port": "/dev/serial/by-id/usb-FTDI_A1-if00"},
    )
    rules = udev_rules(path, REPO / "systemd" / "99-tablectl.rules")
    assert (
        'SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", ATTR{idVendor}=="1d50", '
        'ATTR{idProduct}=="601a", \\\n    ATTR{serial}=="SHOE0001", GROUP="tablectl", '
        'MODE="0660", TAG+="systemd"'
    ) in rules
    assert "/dev/serial/by-id/usb-FTDI_A1-if00 needs no rule" in rules
    active = [ln for ln in rules.splitlines() if ln and not ln.startswith("#")]
    assert len(active) == 2  # the shoe's rule, two lines; nothing for the display
    assert "EDIT" not in rules  # exact from the URL: nothing to fill in


def test_a_stable_name_gets_the_shipped_example_marked_for_editing(tmp_path: Path) -> None:
    path = with_devices(tmp_path, {"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-shoe"})
    rules = udev_rules(path, REPO / "systemd" / "99-tablectl.rules")
    active = [ln for ln in rules.splitlines() if ln and not ln.startswith("#")]
    assert any('SYMLINK+="tablectl-shoe"' in ln for ln in active)
    assert any('ATTRS{serial}=="SHOE0001"' in ln for ln in active)  # the example's
    assert "EDIT the ids" in rules


def test_a_name_with_no_shipped_rule_gets_a_template_to_fill(tmp_path: Path) -> None:
    path = with_devices(tmp_path, {"name": "shoe", "driver": "shoe", "port": "/dev/tablectl-x"})
    rules = udev_rules(path, REPO / "systemd" / "99-tablectl.rules")
    assert 'ATTRS{serial}=="CHANGEME"' in rules and 'SYMLINK+="tablectl-x"' in rules


def throwaway_root(tmp_path: Path) -> Path:
    """A root with the account files useradd needs and systemd's own units (which verify reads
    for the unit's targets)."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "etc" / "group").write_text("root:x:0:\ndialout:x:20:\n")
    (root / "etc" / "shadow").write_text("root:*:19000:0:99999:7:::\n")
    (root / "etc" / "gshadow").write_text("root:*::\ndialout:*::\n")
    shutil.copytree(UNITS, root / "usr" / "lib" / "systemd" / "system", symlinks=True)
    return root


def verify(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", "tablectl.service"],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="useradd into a root needs root (CI runs as root)")
@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or not UNITS.is_dir(),
    reason="systemd-analyze and systemd's units (Debian's systemd package) are not installed",
)
def test_install_into_a_throwaway_root_leaves_a_unit_systemd_accepts(tmp_path: Path) -> None:
    root = throwaway_root(tmp_path)
    venv = Path(sys.executable).parent.parent
    done = subprocess.run(
        [str(INSTALL), "--root", str(root), "--venv", str(venv), "--config", str(CONFIG)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "install: done" in done.stdout

    users = (root / "etc" / "passwd").read_text()
    uid = int(next(ln for ln in users.splitlines() if ln.startswith("tablectl:")).split(":")[2])
    assert "dialout:x:20:tablectl" in (root / "etc" / "group").read_text()
    etc = root / "etc" / "tablectl"
    assert (etc / "table.toml").read_text() == CONFIG.read_text()
    assert (etc / "schedules" / "ez-baccarat-panda8.toml").is_file()
    key = etc / "keys" / "journal.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.stat().st_uid == uid
    state = root / "var" / "lib" / "tablectl"
    assert stat.S_IMODE(state.stat().st_mode) == 0o750 and state.stat().st_uid == uid
    rules = (root / "etc" / "udev" / "rules.d" / "99-tablectl.rules").read_text()
    assert 'SYMLINK+="tablectl-shoe"' in rules and 'SYMLINK+="tablectl-eztrak"' in rules
    unit = (root / "etc" / "systemd" / "system" / "tablectl.service").read_text()
    docs = next(ln for ln in unit.splitlines() if ln.startswith("Documentation="))
    assert (root / docs.removeprefix("Documentation=file:///")).is_file()

    checked = verify(root)
    assert checked.returncode == 0, checked.stderr
    # the check is not vacuous: the same root with a broken unit is refused
    broken = root / "etc" / "systemd" / "system" / "tablectl.service"
    broken.write_text(unit.replace("ExecStart=/opt/tablectl", "ExecStart=/opt/nowhere"))
    assert verify(root).returncode != 0

    launcher = root / "opt" / "tablectl" / ".venv" / "bin" / "tablectl"
    ok = subprocess.run(
        [str(launcher), "check-config", str(etc / "table.toml")], capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr


def test_install_refuses_a_missing_config_with_exit_2(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    done = subprocess.run(
        [str(INSTALL), "--root", str(root), "--config", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "no config file" in done.stderr
