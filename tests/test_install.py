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


def install_into(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent
    return subprocess.run(
        [str(INSTALL), "--root", str(root), "--venv", str(venv), "--config", str(CONFIG), *options],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="useradd and chown into a root need root (CI is)")
def test_install_leaves_a_folder_that_was_there_as_it_was_and_owns_those_it_makes(
    tmp_path: Path,
) -> None:
    """The install changes the mode and owner of no folder it did not make (issue 24 item 5):
    a state folder made beforehand, by hand or by a package, keeps both, and is named as kept;
    the keys folder it makes is 0700 and the service user's."""
    root = throwaway_root(tmp_path)
    state = root / "var" / "lib" / "tablectl"
    state.mkdir(parents=True)
    os.chmod(state, 0o755)
    os.chown(state, 0, 0)  # root's, as a package might leave it
    done = install_into(root)
    assert done.returncode == 0, done.stderr
    assert f"install: {state} kept as it is (drwxr-xr-x root:root)" in done.stdout
    st = state.stat()
    assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (0o755, 0, 0)
    users = (root / "etc" / "passwd").read_text()
    uid = int(next(ln for ln in users.splitlines() if ln.startswith("tablectl:")).split(":")[2])
    keys = root / "etc" / "tablectl" / "keys"
    assert (stat.S_IMODE(keys.stat().st_mode), keys.stat().st_uid) == (0o700, uid)


def test_install_stops_at_a_file_where_a_folder_of_its_own_goes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "var" / "lib").mkdir(parents=True)
    os.mkfifo(root / "var" / "lib" / "tablectl")
    done = install_into(root, "--no-user")
    assert done.returncode == 1
    assert f"install: {root}/var/lib/tablectl is a fifo, not a folder: move it away" in done.stderr
    assert stat.S_ISFIFO((root / "var" / "lib" / "tablectl").lstat().st_mode)
