"""`tablectl check-config FILE` (contract 4): exit 0 and an ok line for a valid config; exit 2 and
one `FILE: key.path: reason` line per problem otherwise. Unknown keys are errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tablectl.cli import main
from tablectl.config import ConfigError, Problem, load_config
from tablectl.games.baccarat.spec import BaccaratGame
from tests.helpers import as_plugged_in

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "config" / "ez-baccarat-panda8.toml"
SCHEDULES = ROOT / "config" / "schedules" / "ez-baccarat-panda8.toml"

Edit = Callable[[str], str]


def replace(old: str, new: str) -> Edit:
    """An edit of the config text that fails loudly if the shipped file no longer has `old`."""

    def edit(text: str) -> str:
        assert old in text, f"the shipped config no longer contains {old!r}"
        return text.replace(old, new, 1)

    return edit


def chain(*edits: Edit) -> Edit:
    def edit(text: str) -> str:
        for e in edits:
            text = e(text)
        return text

    return edit


def config_text(tmp_path: Path) -> str:
    """The shipped config with an absolute schedules path and the journal in tmp_path."""
    return chain(
        replace('file = "schedules/ez-baccarat-panda8.toml"', f'file = "{SCHEDULES}"'),
        replace('path = "/var/lib/tablectl/bac-01.db"', f'path = "{tmp_path / "bac-01.db"}"'),
    )(SHIPPED.read_text(encoding="utf-8"))


def write_config(tmp_path: Path, edit: Edit | None = None, name: str = "table.toml") -> Path:
    text = config_text(tmp_path)
    path = tmp_path / name
    path.write_text(edit(text) if edit else text, encoding="utf-8")
    return path


def check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check-config", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def problem_lines(err: str, path: Path) -> list[tuple[str, str]]:
    """Every stderr line as (key, reason); each must begin with the config file's name."""
    lines = err.strip().splitlines()
    assert lines, "no problem was printed"
    out = []
    for line in lines:
        m = re.match(rf"^{re.escape(str(path))}: (?P<key>[^:]+): (?P<reason>.+)$", line)
        assert m, f"not a 'FILE: key.path: reason' line: {line!r}"
        out.append((m["key"], m["reason"]))
    return out


# -- valid configs --------------------------------------------------------------------------


def test_shipped_config_is_valid_as_shipped() -> None:
    cfg = load_config(SHIPPED)
    assert cfg.table.game.id == "ez-baccarat-panda8"
    assert isinstance(cfg.table.game, BaccaratGame)
    assert cfg.table.game.decks == 8
    assert cfg.rules.banked()[1].option == 3
    assert cfg.table.base_topic == "tablectl/cardroom-1/bac-01"


def test_check_config_accepts_the_shipped_config_with_exit_0_and_an_ok_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = check(SHIPPED, capsys)
    out, err = as_plugged_in(out, err)
    assert code == 0
    assert err == ""
    assert out == (
        f"{SHIPPED}: ok: ez-baccarat-panda8 (document 003) table cardroom-1/bac-01, 8 seats, "
        "limits 5.00-500.00, collection schedule 3, 2 device(s)\n"
    )


def test_check_config_accepts_the_test_config_with_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path)
    code, out, err = check(path, capsys)
    out, err = as_plugged_in(out, err)
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}: ok: ez-baccarat-panda8 (document 003)")
    assert load_config(path).journal_path == tmp_path / "bac-01.db"


def test_the_tables_client_id_is_its_broker_user_unless_the_config_names_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped broker config makes every client's id its user name
    (`use_username_as_clientid`), so the table asks for that id too; a config with another
    `client_id` beside its `username` is valid, with a warning saying the broker ignores it."""
    user = 'username = "table-cardroom-1-bac-01"'
    assert load_config(SHIPPED).table.client_id == "table-cardroom-1-bac-01"
    secret = 'password_file = "/etc/tablectl/mqtt-password"'
    anonymous = write_config(tmp_path, chain(replace(user, ""), replace(secret, "")), "anon.toml")
    assert load_config(anonymous).table.client_id == "tablectl-cardroom-1-bac-01"
    other = write_config(tmp_path, replace(user, f'{user}\nclient_id = "bac01"'), name="o.toml")
    cfg = load_config(other)
    assert cfg.table.client_id == "bac01"
    (warning,) = cfg.warnings
    assert warning.startswith(f"{other}: mqtt.client_id: 'bac01' is not the username")
    code, _, err = check(other, capsys)
    assert code == 0 and "use_username_as_clientid" in err


def test_relative_paths_in_a_config_resolve_against_the_config_folder(tmp_path: Path) -> None:
    path = write_config(tmp_path, replace(f'path = "{tmp_path / "bac-01.db"}"', 'path = "j.db"'))
    assert load_config(path).journal_path == tmp_path / "j.db"


# -- one problem at a time --------------------------------------------------------------------

ONE_PROBLEM: list[tuple[str, Edit, str, str]] = [
    (
        "typo in a game key",
        replace("decks = 8 ", "deks = 8 "),
        "game.deks",
        "unknown key",
    ),
    (
        "typo in a top-level key",
        replace('table = "bac-01"', 'table = "bac-01"\nlog_levl = "info"'),
        "log_levl",
        "unknown key",
    ),
    (
        "typo in a device key",
        replace("baud = 9600", "bauds = 9600"),
        "devices[0].bauds",
        "unknown key",
    ),
    (
        "typo in a section name",
        replace("[seats]", "[seat]"),
        "seat",
        "unknown key",
    ),
    (
        "deck count above 8",
        replace("decks = 8 ", "decks = 9 "),
        "game.decks",
        "less than or equal to 8",
    ),
    (
        "deck count below 3",
        replace("decks = 8 ", "decks = 2 "),
        "game.decks",
        "greater than or equal to 3",
    ),
    (
        "wrong type: text for a seat count",
        replace("count = 8", 'count = "seven"'),
        "seats.count",
        'must be a whole number written without quotes, not "seven"',
    ),
    (
        "wrong type: number for money",
        replace('min = "5"\nmax = "500"', 'min = 5.0\nmax = "500"'),
        "limits.min",
        "decimal string",
    ),
    (
        "negative limit",
        replace('max = "500"', 'max = "-500"'),
        "limits.max",
        "negative",
    ),
    (
        "missing section",
        replace("[journal]\n", "[journal_old]\n"),
        "journal",
        "required key is missing",
    ),
    (
        "missing required key",
        replace('site = "cardroom-1"', ""),
        "site",
        "required key is missing",
    ),
    (
        "limit above the schedule's table limit",
        replace('max = "500"', 'max = "600"'),
        "limits",
        "outside collection schedule 3's table limit 5.00-500.00",
    ),
    (
        "limit below the schedule's table limit",
        chain(
            replace('min = "5"\nmax = "500"', 'min = "1"\nmax = "500"'),
        ),
        "limits",
        "outside collection schedule 3's table limit",
    ),
    (
        "min above max",
        replace('min = "5"\nmax = "500"', 'min = "400"\nmax = "300"'),
        "limits",
        "min 400.00 is above max 300.00",
    ),
    (
        "unknown schedule option",
        replace("option = 3", "option = 99"),
        "collection.option",
        "no schedule option 99",
    ),
    (
        "missing schedules file",
        replace(f'file = "{SCHEDULES}"', 'file = "schedules/no-such-file.toml"'),
        "collection.file",
        "cannot read",
    ),
    (
        "unknown game id",
        replace('id = "ez-baccarat-panda8"', 'id = "ez-baccarat-panda9"'),
        "game.id",
        'unknown game id "ez-baccarat-panda9"',
    ),
    (
        "unknown wager in per-spot limits",
        replace("[limits.spots.panda8]", "[limits.spots.pandas8]"),
        "limits.spots.pandas8",
        "no such wager",
    ),
    (
        "table id that cannot be a topic level",
        replace('table = "bac-01"', 'table = "bac/01"'),
        "table",
        '"bac/01" is not usable here: give 1 to 64 letters, digits',
    ),
    (
        "duplicate device names",
        replace("[mqtt]", '[[devices]]\nname = "shoe"\ndriver = "shoe"\nport = "/dev/x"\n\n[mqtt]'),
        "devices[2].name",
        '"shoe" is already the name of devices[0]',
    ),
    (
        "password file without a username",
        replace('username = "table-cardroom-1-bac-01"', '# username = "table-cardroom-1-bac-01"'),
        "mqtt.password_file",
        "needs a username",
    ),
    (
        "invalid TOML",
        replace('site = "cardroom-1"', 'site = "cardroom-1'),
        "(top level)",
        "not valid TOML",
    ),
]


@pytest.mark.parametrize(
    ("edit", "key", "reason"),
    [(e, k, r) for _, e, k, r in ONE_PROBLEM],
    ids=[name for name, *_ in ONE_PROBLEM],
)
def test_bad_config_exits_2_naming_file_key_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, key: str, reason: str
) -> None:
    path = write_config(tmp_path, edit)
    code, out, err = check(path, capsys)
    assert code == 2
    assert out == ""
    problems = problem_lines(err, path)
    assert any(k == key and reason in r for k, r in problems), problems


def test_unknown_key_reason_says_it_is_not_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, replace("decks = 8 ", "deks = 8 "))
    _, _, err = check(path, capsys)
    assert problem_lines(err, path) == [
        ("game.deks", "unknown key (check the spelling; unknown keys are not ignored)")
    ]


def test_missing_config_file_exits_2_saying_it_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nope.toml"
    code, out, err = check(path, capsys)
    assert (code, out) == (2, "")
    assert problem_lines(err, path) == [("(top level)", "cannot read: No such file or directory")]


def test_config_that_is_not_utf8_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'site = "caf\xe9"\n')
    code, _, err = check(path, capsys)
    assert code == 2
    assert problem_lines(err, path) == [("(top level)", "not UTF-8 text")]


def test_invalid_toml_reason_gives_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, replace("count = 8", "count = = 7"))
    _, _, err = check(path, capsys)
    ((key, reason),) = problem_lines(err, path)
    assert key == "(top level)"
    assert "not valid TOML" in reason
    lines = path.read_text(encoding="utf-8").splitlines()
    lineno = next(i for i, line in enumerate(lines, 1) if line.startswith("count = = 7"))
    assert f"line {lineno}" in reason


def test_problems_inside_the_schedules_file_are_reported_under_collection_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schedules = tmp_path / "schedules.toml"
    schedules.write_text(
        '[[schedule]]\noption = 3\ntable_limit = { min = "5", max = "500" }\n'
        'player_fee = "5%"\nbrackets = [ { from = "5", fee = "1" }, { from = "4", fee = "2" } ]\n',
        encoding="utf-8",
    )
    path = write_config(tmp_path, replace(f'file = "{SCHEDULES}"', f'file = "{schedules}"'))
    code, _, err = check(path, capsys)
    assert code == 2
    assert err.startswith(f"{path}: collection.file: ")
    assert "percentages are not allowed" in err
    assert "brackets must be strictly ascending" in err


def test_load_config_raises_config_error_with_structured_problems(tmp_path: Path) -> None:
    path = write_config(tmp_path, replace("option = 3", "option = 99"))
    with pytest.raises(ConfigError) as exc_info:
        load_config(path)
    (problem,) = exc_info.value.problems
    assert isinstance(problem, Problem)
    assert problem.file == str(path)
    assert problem.key == "collection.option"
    assert "no schedule option 99" in problem.reason
    assert str(problem) == f"{path}: collection.option: {problem.reason}"


# -- several problems at once -------------------------------------------------------------------


def test_several_schema_problems_are_all_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = chain(
        replace("decks = 8 ", "decks = 9 "),
        replace("count = 8", 'count = "seven"'),
        replace("baud = 9600", "bauds = 9600"),
        replace('id = "ez-baccarat-panda8"', 'id = "ez-baccarat-panda8"\ncolour = "red"'),
        replace("[journal]\n", "[journal_old]\n"),
    )
    path = write_config(tmp_path, edit)
    code, _, err = check(path, capsys)
    assert code == 2
    keys = [k for k, _ in problem_lines(err, path)]
    assert sorted(keys) == sorted(
        ["game.decks", "seats.count", "devices[0].bauds", "game.colour", "journal", "journal_old"]
    )


def test_several_cross_checks_are_all_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = chain(
        replace('max = "500"', 'max = "600"'),
        replace("[limits.spots.panda8]", "[limits.spots.pandas8]"),
        replace('username = "table-cardroom-1-bac-01"', '# username = "table-cardroom-1-bac-01"'),
    )
    path = write_config(tmp_path, edit)
    code, _, err = check(path, capsys)
    assert code == 2
    keys = [k for k, _ in problem_lines(err, path)]
    assert keys == ["limits", "limits.spots.pandas8", "mqtt.password_file"]


def test_unknown_spot_is_still_reported_when_the_schedules_file_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = chain(
        replace(f'file = "{SCHEDULES}"', 'file = "missing.toml"'),
        replace("[limits.spots.panda8]", "[limits.spots.pandas8]"),
    )
    path = write_config(tmp_path, edit)
    _, _, err = check(path, capsys)
    keys = [k for k, _ in problem_lines(err, path)]
    assert keys == ["collection.file", "limits.spots.pandas8"]


@pytest.mark.parametrize(
    ("edit", "hidden_key"),
    [
        (
            chain(replace("decks = 8 ", "decks = 9 "), replace("option = 3", "option = 99")),
            "collection.option",
        ),
        (
            chain(replace("decks = 8 ", "deks = 8 "), replace('max = "500"', 'max = "600"')),
            "limits",
        ),
        (
            chain(
                replace("count = 8", 'count = "7x"'),
                replace("[limits.spots.panda8]", "[limits.spots.pandas8]"),
            ),
            "limits.spots.pandas8",
        ),
    ],
    ids=["unknown option hidden by deck count", "limit hidden by typo", "spot hidden by type"],
)
def test_cross_check_problem_is_printed_alongside_a_schema_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit, hidden_key: str
) -> None:
    path = write_config(tmp_path, edit)
    code, _, err = check(path, capsys)
    assert code == 2
    keys = [k for k, _ in problem_lines(err, path)]
    assert len(keys) == 2 and hidden_key in keys, keys


def test_limits_min_above_max_is_printed_alongside_a_bad_spot_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit = chain(
        replace('min = "5"\nmax = "500"', 'min = "400"\nmax = "300"'),
        replace('[limits.spots.panda8]\nmin = "5"', '[limits.spots.panda8]\nmin = "200"'),
    )
    path = write_config(tmp_path, edit)
    _, _, err = check(path, capsys)
    keys = [k for k, _ in problem_lines(err, path)]
    assert sorted(keys) == ["limits", "limits.spots.panda8"], keys


@pytest.mark.parametrize(
    "edit",
    [
        replace(
            '[limits.spots.panda8]\nmin = "5"\nmax = "100"',
            '[limits.spots.panda8]\nmin = "5"\nmax = "5000"',
        ),
        replace(
            '[limits.spots.panda8]\nmin = "5"\nmax = "100"',
            '[limits.spots.panda8]\nmin = "1"\nmax = "100"',
        ),
    ],
    ids=["spot max above schedule", "spot min below schedule"],
)
def test_per_spot_limit_outside_the_schedules_table_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: Edit
) -> None:
    path = write_config(tmp_path, edit)
    code, _, err = check(path, capsys)
    assert code == 2
    assert any(k.startswith("limits") for k, _ in problem_lines(err, path))
