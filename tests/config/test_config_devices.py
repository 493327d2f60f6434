"""A table's card reader and its device ports as `check-config` (and `run`) hold them (issue 26
items 2 and 3).

* A game's card reader (the role its spec marks `needed`) is required, unless the config says
  the dealer keys the cards at the console (`manual_entry = true`, said in the ok line).
* A port path that exists must be a character device; one where nothing is yet is a warning (a
  config is often written before its device is plugged in); a Windows name or a path that is not
  whole is refused; a pseudo-terminal only when the device says it is an emulator's; a baud
  rate Linux has no name for only with `custom_baud = true`.
"""

from __future__ import annotations

import os
import re
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config import STANDARD_BAUDS
from tests.config.test_config_mistakes import Edit, replace, write
from tests.helpers import REPO

CONFIG = REPO / "config"
BAC = "ez-baccarat-panda8.toml"
TCP = "three-card-poker-6cb-004.toml"
BJ = "pure-21.5-blackjack-000.toml"

BAC_SHOE = (
    '[[devices]]\nname = "shoe"\ndriver = "shoe"\n'
    'port = "/dev/tablectl-shoe"   # the stable name systemd/99-tablectl.rules gives the shoe\n'
    "baud = 9600\n\n"
)
TCP_SHUFFLER = re.compile(r"\[\[devices\]\]\nname = \"shuffler\"\n(?:.*\n)*?(?=\[mqtt\])")


def top(line: str) -> Edit:
    """A top-level key, written first (before any table)."""
    return lambda text: f"{line}\n{text}"


def check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    """check-config's exit code, stdout, and stderr lines each less its "FILE: " or
    "warning: FILE: " (which every one must begin with)."""
    code = main(["check-config", "--config", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    lines = []
    for line in err.splitlines():
        for prefix in (f"{path}: ", f"warning: {path}: "):
            if line.startswith(prefix):
                lines.append(line.removeprefix(prefix))
                break
        else:
            raise AssertionError(f"not a 'FILE: key: reason' line: {line!r}")
    return code, out, lines


# -- the card reader -----------------------------------------------------------------------------


def test_baccarat_without_its_shoe_is_refused_naming_the_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The EZTRAK display stays; the shoe, baccarat's card reader, is gone."""
    code, out, lines = check(write(tmp_path, BAC, replace(BAC_SHOE, "")), capsys)
    assert (code, out) == (2, "")
    assert lines == [
        "devices: ez-baccarat-panda8 needs a device for the cards: shoe or line (003: every "
        "card is dealt from the card-reading shoe); none is configured (if the dealer keys the "
        "cards at the console instead, set manual_entry = true)"
    ]


def test_baccarat_without_its_shoe_and_with_manual_entry_is_accepted_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BAC, replace(BAC_SHOE, ""), top("manual_entry = true"))
    code, out, lines = check(path, capsys)
    assert (code, lines) == (0, [])
    assert out == (
        f"{path}: ok: ez-baccarat-panda8 (document 003) table cardroom-1/bac-01, 8 seats, "
        "limits 5.00-500.00, collection schedule 3, 1 device(s), cards keyed at the console "
        "(manual_entry)\n"
    )


def test_three_card_poker_without_its_shuffler_is_refused_naming_the_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, TCP, lambda text: TCP_SHUFFLER.sub("", text, count=1))
    assert "[[devices]]" not in path.read_text()
    code, out, lines = check(path, capsys)
    assert (code, out) == (2, "")
    assert lines == [
        "devices: three-card-poker-6cb needs a device for the hands: shuffler or hand-dispenser "
        '(003 line 910: "the device shall dispense cards in stacks of three"); none is '
        "configured (if the dealer keys the cards at the console instead, set manual_entry = true)"
    ]


def test_three_card_poker_without_its_shuffler_and_with_manual_entry_is_accepted_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        TCP,
        lambda text: TCP_SHUFFLER.sub("", text, count=1),
        top("manual_entry = true"),
    )
    code, out, lines = check(path, capsys)
    assert (code, lines) == (0, [])
    assert out.endswith(", 0 device(s), cards keyed at the console (manual_entry)\n")


def test_manual_entry_beside_the_card_reader_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, lines = check(write(tmp_path, BJ, top("manual_entry = true")), capsys)
    assert code == 0 and ": ok, with warnings: " in out
    assert lines == [
        "manual_entry: true says the dealer keys the cards at the console, but devices[0] reads "
        "the cards: leave manual_entry out while the table has its reader"
    ]


def test_manual_entry_is_true_or_false(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, lines = check(write(tmp_path, BJ, top('manual_entry = "yes"')), capsys)
    assert code == 2
    assert lines == ['manual_entry: must be true or false, without quotes, not "yes"']


# -- ports: what is at the path ------------------------------------------------------------------


def shoe_at(port: str, extra: str = "") -> Edit:
    """The blackjack table's shoe on `port`, with `extra` keys on the device."""
    old = 'port = "/dev/tablectl-shoe"'
    return replace(old, f"port = {port!r}\n{extra}".replace("'", '"'))


def test_a_port_that_is_a_regular_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a port\n")
    code, out, lines = check(write(tmp_path, BJ, shoe_at(str(notes))), capsys)
    assert (code, out) == (2, "")
    assert lines == [
        f'devices[0].port: "{notes}" is a regular file, not a character device: a serial port '
        "is one; name the device's port (`tablectl devices` lists them)"
    ]


def test_a_port_that_is_a_link_to_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "tablectl-shoe"
    link.symlink_to(tmp_path)
    code, _, lines = check(write(tmp_path, BJ, shoe_at(str(link))), capsys)
    assert code == 2
    assert lines == [
        f'devices[0].port: "{link}" is a symbolic link to a folder, not a character device: a '
        "serial port is one; name the device's port (`tablectl devices` lists them)"
    ]


def test_a_port_not_plugged_in_yet_is_a_warning_and_check_config_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BJ, shoe_at("/dev/ttyUSB9"))
    assert not os.path.exists("/dev/ttyUSB9")
    code, out, lines = check(path, capsys)
    assert code == 0
    assert out.startswith(f"{path}: ok, with warnings: pure-21.5-blackjack (document 000) ")
    assert lines == [
        'devices[0].port: "/dev/ttyUSB9" is not there (yet): plug the device in, or correct '
        "the port; until then the table runs without it and reports it unavailable (`tablectl "
        "devices` shows whether it is found)"
    ]


def test_a_udev_link_to_nothing_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "tablectl-shoe"
    link.symlink_to(tmp_path / "ttyUSB0")
    code, _, lines = check(write(tmp_path, BJ, shoe_at(str(link))), capsys)
    assert code == 0
    assert [line.split(": plug")[0] for line in lines] == [
        f'devices[0].port: "{link}" is a link to nothing (yet)'
    ]


def test_urls_and_usb_ports_are_not_looked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pyserial URLs and `usb:` ports are no paths: nothing is said of them here (`tablectl
    devices` is the live check)."""
    for port in ("socket://127.0.0.1:7000", "usb:1d50:601a:SHOE0001"):
        code, _, lines = check(write(tmp_path, BJ, shoe_at(port)), capsys)
        assert (code, lines) == (0, []), port
        (tmp_path / "table.toml").unlink()


# -- ports: as written ---------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["COM3", "com12", "COM3:"])
def test_a_windows_port_name_is_refused_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    code, _, lines = check(write(tmp_path, BJ, shoe_at(port)), capsys)
    assert code == 2
    assert lines == [
        f'devices[0].port: "{port}" is a Windows port name, which names nothing here: give the '
        "Linux path, best the stable one (/dev/serial/by-id/..., or the /dev/tablectl-* name "
        "systemd/99-tablectl.rules gives); `tablectl devices` lists the ports present"
    ]


def test_a_port_that_is_not_a_whole_path_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, lines = check(write(tmp_path, BJ, shoe_at("ttyUSB0")), capsys)
    assert code == 2
    assert lines == [
        'devices[0].port: "ttyUSB0" is not a whole path: give it from /dev (e.g. '
        '"/dev/ttyUSB0"), a pyserial URL (socket://host:port) or a usb: port'
    ]


def test_a_baud_rate_that_is_no_standard_rate_is_refused_naming_the_nearest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """96000, a 9600 with a zero too many: 57600 and 115200 are the standard rates around it."""
    code, _, lines = check(write(tmp_path, BJ, replace("baud = 9600", "baud = 96000")), capsys)
    assert code == 2
    assert lines == [
        "devices[0].baud: 96000 is not a standard serial rate (the nearest are 57600 or "
        "115200): check the device's manual; if it really runs at 96000, set custom_baud = true "
        "on this device"
    ]


def test_a_custom_baud_rate_is_taken_when_the_config_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = replace("baud = 9600", "baud = 96000\ncustom_baud = true")
    code, out, lines = check(write(tmp_path, BJ, edit), capsys)
    assert (code, lines) == (0, [])
    assert ": ok: " in out


def test_every_standard_rate_is_taken_and_a_usb_ports_baud_is_never_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert {50, 9600, 115200, 4000000} <= set(STANDARD_BAUDS)
    edit = replace("baud = 9600", "baud = 12345")
    code, _, lines = check(write(tmp_path, BJ, shoe_at("usb:1d50:601a:SHOE0001"), edit), capsys)
    assert (code, lines) == (0, [])


# -- ports: pseudo-terminals ---------------------------------------------------------------------


@pytest.fixture
def pty() -> Iterator[str]:
    """A real pseudo-terminal's path (its slave), as an emulator opens one."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def pty_refusal(port: str, via: str = "") -> str:
    return (
        f'devices[0].port: "{port}"{via} is a pseudo-terminal, which no device is: an '
        "emulator's (tablectl demo, hil/, a simulator) lasts only while it runs, and the next "
        "terminal opened gets its number, so tablectl would write into somebody's terminal; set "
        "emulator = true on this device only if an emulator serves it"
    )


def test_a_pseudo_terminal_port_is_refused_unless_an_emulators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pty: str
) -> None:
    """The issue's stale demo port: /dev/pts/0 was by then somebody's terminal."""
    code, _, lines = check(write(tmp_path, BJ, shoe_at(pty)), capsys)
    assert code == 2
    assert lines == [pty_refusal(pty)]
    (tmp_path / "table.toml").unlink()
    code, out, lines = check(write(tmp_path, BJ, shoe_at(pty, "emulator = true")), capsys)
    assert (code, lines) == (0, [])
    assert ": ok: " in out


def test_a_link_to_a_pseudo_terminal_is_refused_by_check_config_and_run_unless_an_emulators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pty: str
) -> None:
    """A simulator's `--link` (a stable name for its pty): the path says nothing, what it leads
    to does. `run` refuses it before it opens anything, as check-config does."""
    link = tmp_path / "tablectl-shoe"
    link.symlink_to(pty)
    path = write(tmp_path, BJ, shoe_at(str(link)))
    code, _, lines = check(path, capsys)
    assert code == 2
    assert lines == [pty_refusal(str(link), f" (a link to {pty})")]
    assert main(["run", "--config", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == f"{path}: {pty_refusal(str(link), f' (a link to {pty})')}\n"
    assert not (tmp_path / "table.db").exists()  # nothing was opened or made


def test_emulator_is_true_or_false(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, lines = check(write(tmp_path, BJ, shoe_at("/dev/null", "emulator = 1")), capsys)
    assert code == 2
    assert lines == ["devices[0].emulator: must be true or false, without quotes, not 1"]
