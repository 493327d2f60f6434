"""`tablectl check-config` on any config exits 0, or 2 with at least one problem line; never a
traceback. A NUL byte in any path, on the command line or in the file, is a
problem naming its key."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tablectl.cli import main
from tablectl.config import MAX_PATH
from tests.helpers import REPO, write_config

SHIPPED = REPO / "config" / "ez-baccarat-panda8.toml"
NUL = "\x00"


def check(path: Path | str) -> tuple[int, str, str]:
    """`tablectl check-config PATH`: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check-config", str(path)])
    return code, out.getvalue(), err.getvalue()


def refused(path: Path | str) -> list[str]:
    code, _, err = check(path)
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and "Traceback" not in err
    return lines


def shipped_copy(folder: Path, text: str | None = None) -> Path:
    """The shipped config in `folder`, its relative schedules folder beside it."""
    link = folder / "schedules"
    if not link.exists():
        link.symlink_to(REPO / "config" / "schedules")
    path = folder / "table.toml"
    path.write_text(SHIPPED.read_text() if text is None else text, encoding="utf-8")
    return path


def test_the_shipped_config_copied_is_valid(tmp_path: Path) -> None:
    assert check(shipped_copy(tmp_path))[0] == 0


# -- NUL bytes and other paths the operating system cannot take, by hand ---------------------


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"journal": {"path": f"/var/lib/{NUL}x.db"}}, "journal.path"),
        ({"collection": {"file": f"sched{NUL}.toml", "option": 3}}, "collection.file"),
        ({"paytables": f"pay{NUL}tables"}, "paytables"),
        ({"mqtt": {"username": "u", "password_file": f"/etc/{NUL}pw"}}, "mqtt.password_file"),
        ({"mqtt": {"tls": {"ca": f"ca{NUL}.pem"}}}, "mqtt.tls.ca"),
        ({"mqtt": {"tls": {"ca": "ca.pem", "cert": f"{NUL}"}}}, "mqtt.tls.cert"),
        ({"mqtt": {"tls": {"ca": "ca.pem", "cert": "c.pem", "key": f"k{NUL}"}}}, "mqtt.tls.key"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_nul_byte_in_a_config_path_exits_2_naming_the_key(
    tmp_path: Path, overrides: dict[str, object], key: str
) -> None:
    lines = refused(write_config(tmp_path, **overrides))
    assert any(f": {key}: contains a NUL byte" in line for line in lines), lines


@pytest.mark.parametrize("port", [f"/dev/tty{NUL}S0", f"usb:{NUL}", NUL])
def test_a_nul_byte_in_a_device_port_exits_2_naming_the_device(tmp_path: Path, port: str) -> None:
    path = write_config(tmp_path)
    device = f'\n[[devices]]\nname = "shoe"\ndriver = "shoe"\nport = {json.dumps(port)}\n'
    path.write_text(path.read_text() + device)
    lines = refused(path)
    assert any(": devices[0].port: contains a NUL byte" in line for line in lines), lines


@pytest.mark.parametrize(
    ("value", "reason"),
    [("", "is empty"), ("x" * (MAX_PATH + 1), f"a path is at most {MAX_PATH}")],
    ids=["empty", "too-long"],
)
def test_an_empty_or_overlong_journal_path_exits_2(tmp_path: Path, value: str, reason: str) -> None:
    lines = refused(write_config(tmp_path, journal={"path": value}))
    assert any("journal.path: " in line and reason in line for line in lines), lines


def test_a_nul_byte_in_the_command_line_path_exits_2() -> None:
    (line,) = refused(f"/etc/tablectl/table{NUL}.toml")
    assert line == "/etc/tablectl/table\\0.toml: (top level): the path contains a NUL byte (\\0)"


def test_a_config_that_is_a_directory_exits_2(tmp_path: Path) -> None:
    (line,) = refused(tmp_path)
    assert "cannot read: Is a directory" in line


def test_a_config_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(b'site = "caf\xe9"\n')
    assert refused(path) == [f"{path}: (top level): not UTF-8 text"]


def test_a_config_that_is_not_toml_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text("this is not toml\n")
    (line,) = refused(path)
    assert "not valid TOML" in line


def test_a_config_with_a_5000_digit_integer_exits_2(tmp_path: Path) -> None:
    text = SHIPPED.read_text().replace("count = 8", "count = " + "9" * 5000, 1)
    (line,) = refused(shipped_copy(tmp_path, text))
    assert line.endswith(": (top level): not valid TOML: a number has more than 4300 digits")


def test_a_config_nested_too_deeply_exits_2(tmp_path: Path) -> None:
    text = SHIPPED.read_text().replace("count = 8", "count = " + "[" * 5000 + "]" * 5000, 1)
    (line,) = refused(shipped_copy(tmp_path, text))
    assert line.endswith("not valid TOML: nested too deeply")


def test_a_schedules_file_with_a_5000_digit_integer_exits_2(tmp_path: Path) -> None:
    schedules = tmp_path / "schedules.toml"
    schedules.write_text("[[schedule]]\noption = " + "1" * 5000 + "\n")
    lines = refused(write_config(tmp_path, collection={"file": str(schedules), "option": 3}))
    assert any("collection.file: " in ln and "more than 4300 digits" in ln for ln in lines), lines


def test_a_pay_table_file_that_is_not_utf8_exits_2_naming_the_game_key(tmp_path: Path) -> None:
    folder = tmp_path / "paytables"
    shutil.copytree(REPO / "config" / "paytables", folder)
    (folder / "three-card-poker.toml").write_bytes(b"\xff\xfe not text")
    game = {"id": "three-card-poker-6cb", "decks": None, "banker_push_on_dragon7": None}
    game |= {"bet_timer_seconds": None, "settlement_order": None}
    path = write_config(
        tmp_path,
        game=game,
        paytables=str(folder),
        collection={"file": str(REPO / "config/schedules/three-card-poker-6cb-004.toml")},
        limits={"min": "5", "max": "100"},
    )
    lines = refused(path)
    assert any("game.six_card_bonus_table: " in ln and "not UTF-8" in ln for ln in lines), lines


# -- fuzz: mutations of the shipped config ----------------------------------------------------


def _value_lines(text: str) -> list[int]:
    """Indexes of the `key = value` lines (not comments, not table headers)."""
    return [
        i
        for i, line in enumerate(text.splitlines())
        if "=" in line and not line.lstrip().startswith(("#", "["))
    ]


VALUES = st.one_of(
    st.text(max_size=30).map(json.dumps),  # a TOML basic string of any text (NUL included)
    st.text(max_size=30),  # raw text: mostly not TOML
    st.integers().map(str),
    st.sampled_from(
        [
            '"\\u0000"',
            '"/dev/\\u0000"',
            '"a\\u0000b"',
            '""',
            "9" * 5000,
            "-1",
            "0",
            "1e400",
            "nan",
            "true",
            "[]",
            "{}",
            '"1,5"',
            '"\\uff15"',  # fullwidth 5
            '"5_0"',
            '"1E1"',
            '"+25"',
            '"3 "',
            "5.0",
            "1979-05-27T07:32:00Z",
            '["a", 1]',
            '{ x = "\\u0000" }',
        ]
    ),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    lines = SHIPPED.read_text(encoding="utf-8").splitlines()
    keyed = _value_lines("\n".join(lines))
    for i in draw(st.lists(st.sampled_from(keyed), max_size=4, unique=True)):
        key = lines[i].split("=", 1)[0].strip()
        if draw(st.booleans()) and draw(st.booleans()):
            lines[i] = ""  # the key dropped
        else:
            lines[i] = f"{key} = {draw(VALUES)}"
    return "\n".join(lines) + "\n"


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(mutated())
@example(SHIPPED.read_text().replace('path = "/var/lib/tablectl/bac-01.db"', 'path = "\\u0000"'))
@example(SHIPPED.read_text().replace('port = "/dev/tablectl-shoe"', 'port = "\\u0000"'))
def test_any_mutation_of_the_shipped_config_exits_0_or_2_with_a_problem_line(
    tmp_path: Path, text: str
) -> None:
    code, out, err = check(shipped_copy(tmp_path, text))
    assert code in (0, 2)
    assert "Traceback" not in err
    if code == 2:
        assert [ln for ln in err.splitlines() if ln.strip()]
    else:
        assert ": ok" in out


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_as_a_config_exit_2_with_a_problem_line(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.toml"
        path.write_bytes(data)
        refused(path)
