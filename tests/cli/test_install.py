"""The install a technician runs: `scripts/install`
into a throwaway root (or an empty folder) leaves the service user, the config, the journal key,
the udev rules for the devices the config names, the docs where the units point, the release in
its own folder behind /opt/tablectl/current, and units (the table's service, the monthly
archive's service and timer) `systemd-analyze verify` accepts. An upgrade of a table with
history runs the new release's upgrade-check before it switches, and a rollback switches back.

What the upgrade tests can and cannot prove: the two "releases" are this checkout installed twice
under two names (launchers into the same venv), so they prove the mechanics (a folder a release,
the check gating the switch, `previous`, the rollback, a journal the rolled-back release still
reads and verifies), not that two real versions agree. A real older release meeting a newer
journal schema is stood for by this release meeting schema 4 (tests/cli/test_upgrade_check.py, and
hil/journal_faults.py's unknown-schema for the held daemon), since this is the code that will be
the older release once a schema 4 exists."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import tablectl
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.state import Input
from tablectl.install import udev_rules
from tests.helpers import REPO, natural_rounds, write_config

INSTALL = REPO / "scripts" / "install"
CONFIG = REPO / "config" / "ez-baccarat-panda8.toml"  # a shoe and an EZTRAK on stable names
UNITS = Path("/usr/lib/systemd/system")
OUR_UNITS = (
    "tablectl.service",
    "tablectl-archive.service",
    "tablectl-archive.timer",
    "tablectl-ledger.service",
)
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="useradd into a root needs root (CI is)")
SYSTEMD = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None or not UNITS.is_dir(),
    reason="systemd-analyze and systemd's units (Debian's systemd package) are not installed",
)


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


def verify(root: Path, *units: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["systemd-analyze", "verify", f"--root={root}", *(units or OUR_UNITS)],
        capture_output=True,
        text=True,
        check=False,
    )


@AS_ROOT
@SYSTEMD
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
    for name in OUR_UNITS:
        text = (root / "etc" / "systemd" / "system" / name).read_text()
        docs = next(ln for ln in text.splitlines() if ln.startswith("Documentation="))
        assert (root / docs.removeprefix("Documentation=file:///")).is_file()
    unit = (root / "etc" / "systemd" / "system" / "tablectl.service").read_text()
    assert "ExecStart=/opt/tablectl/current/bin/tablectl run " in unit
    assert (root / "opt" / "tablectl" / "current").readlink() == Path(tablectl.__version__)

    checked = verify(root)
    assert checked.returncode == 0, checked.stderr
    # the check is not vacuous: the same root with a broken unit is refused
    for name in ("tablectl.service", "tablectl-archive.service", "tablectl-ledger.service"):
        broken = root / "etc" / "systemd" / "system" / name
        good = broken.read_text()
        broken.write_text(good.replace("ExecStart=/opt/tablectl", "ExecStart=/opt/nowhere"))
        assert verify(root, name).returncode != 0, name
        broken.write_text(good)

    launcher = root / "opt" / "tablectl" / "current" / "bin" / "tablectl"
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


def install_into(
    root: Path, *options: str, config: Path = CONFIG
) -> subprocess.CompletedProcess[str]:
    venv = Path(sys.executable).parent.parent
    return subprocess.run(
        [str(INSTALL), "--root", str(root), "--venv", str(venv), "--config", str(config), *options],
        capture_output=True,
        text=True,
        check=False,
    )


@AS_ROOT
def test_install_leaves_a_folder_that_was_there_as_it_was_and_owns_those_it_makes(
    tmp_path: Path,
) -> None:
    """The install changes the mode and owner of no folder it did not make:
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


# -- issue 26 item 4: --help, an empty root, keygen's example, the archive timer ------------------


def test_help_exits_0_and_its_examples_name_shipped_configs() -> None:
    for option in ("--help", "-h"):
        done = subprocess.run([str(INSTALL), option], capture_output=True, text=True, check=False)
        assert (done.returncode, done.stderr) == (0, ""), option
        assert "Options:" in done.stdout and "--rollback" in done.stdout
    named = re.findall(r"config/[\w.-]+\.toml", done.stdout)
    assert named and all((REPO / name).is_file() for name in named), named
    wrong = subprocess.run([str(INSTALL), "--bogus"], capture_output=True, text=True, check=False)
    assert wrong.returncode == 2 and "unknown option --bogus" in wrong.stderr


def test_keygens_example_keeps_the_key_where_operations_md_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tablectl.cli import main

    assert main(["keygen", "--help"]) == 0
    text = capsys.readouterr().out
    assert "tablectl keygen /etc/tablectl/keys/journal.key" in text
    assert "/var/lib/tablectl/chain.key" not in text
    ops = (REPO / "docs" / "operations.md").read_text()
    assert "keygen /etc/tablectl/keys/journal.key" in ops


def copy_systemd_units(root: Path) -> None:
    """systemd's own units, which verify reads for the targets ours name."""
    target = root / "usr" / "lib" / "systemd" / "system"
    shutil.copytree(UNITS, target, symlinks=True, dirs_exist_ok=True)


@AS_ROOT
@SYSTEMD
def test_install_into_an_empty_folder_makes_the_account_files_useradd_needs(
    tmp_path: Path,
) -> None:
    """The finding: `--root` into an empty folder failed with `useradd: cannot lock
    /etc/passwd` and no hint. Now it makes etc/passwd, group, shadow and gshadow (root, and
    group dialout as Debian numbers it) and goes on; a root that has them keeps them."""
    root = tmp_path / "empty"
    root.mkdir()
    done = install_into(root)
    assert done.returncode == 0, done.stderr
    assert f"install: {root}/etc/passwd, group, shadow, gshadow made" in done.stdout
    passwd = (root / "etc" / "passwd").read_text()
    assert passwd.startswith("root:x:0:0:") and "\ntablectl:x:" in passwd
    assert "dialout:x:20:tablectl" in (root / "etc" / "group").read_text()
    assert stat.S_IMODE((root / "etc" / "shadow").stat().st_mode) == 0o600
    assert (root / "opt" / "tablectl" / "current" / "bin" / "tablectl").is_file()
    copy_systemd_units(root)
    checked = verify(root)
    assert checked.returncode == 0, checked.stderr
    # again: the account files it made are kept, the user not made twice
    again = install_into(root)
    assert again.returncode == 0, again.stderr
    assert "made (an empty root" not in again.stdout
    users = (root / "etc" / "passwd").read_text().splitlines()
    assert [u for u in users if u.startswith("tablectl:")] == [users[1]]


@SYSTEMD
def test_the_archive_timer_runs_tablectl_archive_monthly_after_the_month_closed() -> None:
    timer = (REPO / "systemd" / "tablectl-archive.timer").read_text()
    service = (REPO / "systemd" / "tablectl-archive.service").read_text()
    assert "Unit=tablectl-archive.service" in timer and "Persistent=true" in timer
    assert (
        "ExecStart=/opt/tablectl/current/bin/tablectl archive --config /etc/tablectl/table.toml"
        in service
    )
    assert "User=tablectl" in service
    calendar = next(ln.split("=", 1)[1] for ln in timer.splitlines() if ln.startswith("OnCalendar"))
    shown = subprocess.run(
        ["systemd-analyze", "calendar", "--iterations=3", calendar],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TZ": "UTC"},
    ).stdout
    days = re.findall(r"\d{4}-(\d\d)-(\d\d) 04:00:00 UTC", shown)
    assert len(days) == 3, shown
    months = [int(m) for m, _ in days]
    assert {d for _, d in days} == {"02"}  # the 2nd: the month before has closed (UTC)
    assert all((b - a) % 12 == 1 for a, b in itertools.pairwise(months)), shown


# -- issue 26 item 5: a release a folder, the upgrade-check, the rollback ------------------------


def play(config: Path, n: int, start: int = 0) -> None:
    """The table runs `n` rounds as the daemon journals them (in this process: the code of
    every "release" here)."""
    daemon = Daemon(load_config(config), mqtt=False)
    daemon.recover()
    try:
        for event in natural_rounds(n, start, shoe_every=4):
            daemon._ingest(Input("console", event))
    finally:
        daemon.journal.close()


def tablectl_in(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The root's current release, run as the units run it."""
    launcher = root / "opt" / "tablectl" / "current" / "bin" / "tablectl"
    return subprocess.run([str(launcher), *argv], capture_output=True, text=True, check=False)


def links(root: Path) -> tuple[str | None, str | None]:
    opt = root / "opt" / "tablectl"
    return tuple(  # type: ignore[return-value]
        str((opt / name).readlink()) if (opt / name).is_symlink() else None
        for name in ("current", "previous")
    )


def table_root(tmp_path: Path) -> tuple[Path, Path]:
    """A root with release `a` installed, for a table whose journal is in tmp_path (the
    config's own path, read as it is), and that config inside the root."""
    root = throwaway_root(tmp_path)
    config = write_config(tmp_path)
    done = install_into(root, "--release", "a", config=config)
    assert done.returncode == 0, done.stderr
    return root, root / "etc" / "tablectl" / "table.toml"


@AS_ROOT
def test_an_upgrade_checks_the_journal_switches_and_a_rollback_switches_back(
    tmp_path: Path,
) -> None:
    root, config = table_root(tmp_path)
    assert links(root) == ("a", None)
    play(config, 10)  # the table's history under release a

    up = install_into(root, "--release", "b")
    assert up.returncode == 0, up.stderr
    out = up.stdout
    assert "install: upgrade-check: release b replays the journal against what a published" in out
    assert "upgrade-check: replayed: records 1-" in out and ", 10 finished rounds" in out
    assert "upgrade-check: ok: every one of " in out
    assert "install: current -> b (previous -> a: tablectl-rollback goes back)" in out
    assert links(root) == ("b", "a")
    assert (root / "opt" / "tablectl" / "a" / "bin" / "tablectl").is_file()  # kept beside
    play(config, 3, start=10)  # and more under release b

    back = subprocess.run(
        [str(INSTALL), "--rollback", "--root", str(root)], capture_output=True, text=True
    )
    assert back.returncode == 0, back.stderr
    assert "tablectl-rollback: current -> a (was b); previous -> b" in back.stdout
    assert links(root) == ("a", "b")
    # the release rolled back to reads the whole journal, the rounds b played too
    deep = tablectl_in(root, "verify-journal", "--config", str(config), "--deep")
    assert deep.returncode == 0, deep.stdout + deep.stderr
    assert "chain intact" in deep.stdout
    recall = tablectl_in(root, "recall", "--config", str(config), "--last", "1", "--json")
    assert recall.returncode == 0, recall.stderr
    assert json.loads(recall.stdout)["round"] == 13
    # the installed tablectl-rollback is the same command: run again, it rolls forward
    again = subprocess.run(
        [str(root / "usr" / "local" / "sbin" / "tablectl-rollback"), "--root", str(root)],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert links(root) == ("b", "a")


@AS_ROOT
def test_an_upgrade_whose_check_finds_a_message_that_differs_switches_nothing(
    tmp_path: Path,
) -> None:
    """A release that would publish another message for a record the table already published
    (stood for here by one stored payload changed: the comparison is the same either way) is
    installed beside, not switched to; --force switches anyway, saying so."""
    root, config = table_root(tmp_path)
    play(config, 6)
    journal = tmp_path / "journal.db"
    db = sqlite3.connect(journal)
    try:
        seq, payload = db.execute(
            "SELECT seq, payload FROM outbox WHERE topic LIKE '%/round/result' "
            "ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        changed = re.sub(rb'"net":"[0-9.]+"', b'"net":"1.00"', bytes(payload), count=1)
        assert changed != bytes(payload)
        db.execute("UPDATE outbox SET payload = ? WHERE seq = ?", (changed, seq))
        db.commit()
    finally:
        db.close()

    refused = install_into(root, "--release", "b")
    assert refused.returncode == 1
    assert f"upgrade-check: DIFFERS: message {seq} (round/result, record " in refused.stdout
    assert 'settlements[0].net: stored "1.00", now "20.00"' in refused.stdout
    assert "install: release b is in " in refused.stderr and "NOT switched to" in refused.stderr
    assert links(root) == ("a", None)
    assert (root / "opt" / "tablectl" / "b" / "bin" / "tablectl").is_file()  # there, unused

    forced = install_into(root, "--release", "b", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "WARNING: upgrade-check exit 1, switching anyway (--force)" in forced.stdout
    assert links(root) == ("b", "a")


@AS_ROOT
def test_a_table_installed_before_releases_had_folders_rolls_back_to_its_venv(
    tmp_path: Path,
) -> None:
    """The layout before (the program in /opt/tablectl/.venv, upgraded in place): the first
    upgrade makes `.venv` the previous release, and a rollback goes back to it."""
    root = throwaway_root(tmp_path)
    config = write_config(tmp_path)
    old = root / "opt" / "tablectl" / ".venv" / "bin"
    old.mkdir(parents=True)
    venv = Path(sys.executable).parent.parent
    (old / "tablectl").write_text(f'#!/bin/sh\nexec {venv}/bin/tablectl "$@"\n')
    (old / "tablectl").chmod(0o755)
    done = install_into(root, "--release", "b", config=config)
    assert done.returncode == 0, done.stderr
    assert links(root) == ("b", ".venv")
    back = subprocess.run(
        [str(INSTALL), "--rollback", "--root", str(root)], capture_output=True, text=True
    )
    assert back.returncode == 0, back.stderr
    assert links(root) == (".venv", "b")


def test_a_rollback_with_no_release_before_says_so_and_exits_1(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "opt" / "tablectl").mkdir(parents=True)
    done = subprocess.run(
        [str(INSTALL), "--rollback", "--root", str(root)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "no release to roll back to" in done.stderr


def test_a_release_name_that_is_not_one_is_refused_with_exit_2(tmp_path: Path) -> None:
    for name in ("current", "../x", ".hidden", "a b"):
        done = install_into(tmp_path, "--release", name)
        assert done.returncode == 2, name
        assert "is not a release name" in done.stderr
