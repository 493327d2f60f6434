"""Every data file says what it is for, and `check-config` refuses one at a table of another game
or document: a collection schedule file, a pay table, a betting limits file.

The shipped files' `[approval]` tables were read by hand from the documents they cite (shared
seeds/README.md says which document approves which game); each refusal below is the line a
technician would read, worked out from the files' approvals.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

import tablectl.games.poker.spec as poker_spec
from tablectl.cli import main
from tablectl.config import parse_config
from tablectl.games.registry import game_ids, spec_of
from tablectl.rules.approval import Approval, mismatch, parse_approval
from tablectl.rules.paytables import load_paytable_file
from tests.config.test_config_mistakes import Edit, check_config, replace
from tests.helpers import REPO, as_plugged_in, config_dict

CONFIG = REPO / "config"


def write(tmp_path: Path, shipped: str, *edits: Edit) -> Path:
    """A shipped config in `tmp_path` as a technician edits it: `schedules/` beside it (a link to
    the shipped folder, so that the config names its file as shipped), the journal in
    `tmp_path`, /dev/null (a character device) for each udev-named port."""
    (tmp_path / "schedules").symlink_to(CONFIG / "schedules")
    text = (CONFIG / shipped).read_text(encoding="utf-8")
    text = re.sub(r'path = "/var/lib/tablectl/[^"]+"', f'path = "{tmp_path}/table.db"', text)
    for edit in edits:
        text = edit(text)
    text = re.sub(r'port = "/dev/tablectl-[^"]+"', 'port = "/dev/null"', text)
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refused(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """check-config's problem lines (exit 2, nothing on stdout), each less "FILE: "."""
    code, out, err = check_config(path, capsys)
    assert (code, out) == (2, ""), err
    prefix = f"{path}: "
    assert all(line.startswith(prefix) for line in err.splitlines()), err
    return [line.removeprefix(prefix) for line in err.splitlines()]


BJ = "pure-21.5-blackjack-000.toml"
TCP4 = "three-card-poker-6cb-004.toml"
HOLDEM3 = "texas-holdem-003.toml"


# -- a collection schedule file ------------------------------------------------------------------


def test_a_blackjack_table_pointed_at_the_baccarat_fee_schedule_is_refused_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's finding: a Pure 21.5 (000) table under EZ Baccarat's schedule 3 would charge
    baccarat's fees (schedule 3's table limit is $5-$500, as the table's, so nothing else
    stops it)."""
    path = write(
        tmp_path,
        BJ,
        replace(
            'file = "schedules/pure-21.5-blackjack-000.toml"\noption = 1',
            'file = "schedules/ez-baccarat-panda8.toml"\noption = 3',
        ),
    )
    assert refused(path, capsys) == [
        "collection.file: schedules/ez-baccarat-panda8.toml is for ez-baccarat-panda8 "
        "(document 003), not pure-21.5-blackjack (document 000)"
    ]


def test_a_000_blackjack_table_under_004s_blackjack_schedule_is_refused_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same game, another document: 004's one option is $5-$500 like 000's option 1."""
    path = write(
        tmp_path,
        BJ,
        replace(
            'file = "schedules/pure-21.5-blackjack-000.toml"',
            'file = "schedules/pure-21.5-blackjack-004.toml"',
        ),
    )
    assert refused(path, capsys) == [
        "collection.file: schedules/pure-21.5-blackjack-004.toml is for pure-21.5-blackjack "
        "(document 004), not pure-21.5-blackjack (document 000)"
    ]


def test_002_a_near_copy_of_000_takes_000s_blackjack_schedule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """000's schedules file says 002 prints the same table: a 002 table may use it."""
    path = write(tmp_path, BJ, replace('document = "000"', 'document = "002"'))
    code, out, err = check_config(path, capsys)
    assert (code, err) == (0, "")
    assert ": ok: pure-21.5-blackjack (document 002) table cardroom-1/bj-01, " in out


def test_a_schedules_file_that_does_not_say_what_it_is_for_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "own.toml"
    shipped = (CONFIG / "schedules" / "pure-21.5-blackjack-000.toml").read_text()
    own.write_text(re.sub(r"\[approval\]\n(.+\n){3}", "", shipped))
    assert "[approval]" not in own.read_text()
    path = write(
        tmp_path,
        BJ,
        replace('file = "schedules/pure-21.5-blackjack-000.toml"', 'file = "own.toml"'),
    )
    assert refused(path, capsys) == [
        "collection.file: own.toml does not say which document and game it is for: it needs an "
        "[approval] table with documents, games and option (docs/config.md, 'What a data file "
        "is for')"
    ]


def test_an_approval_naming_no_document_is_a_problem_of_the_schedules_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "own.toml"
    shipped = (CONFIG / "schedules" / "pure-21.5-blackjack-000.toml").read_text()
    own.write_text(shipped.replace('documents = ["000", "002"]', "documents = []"))
    path = write(
        tmp_path,
        BJ,
        replace('file = "schedules/pure-21.5-blackjack-000.toml"', 'file = "own.toml"'),
    )
    (line,) = refused(path, capsys)
    assert line.startswith(f"collection.file: {own}: approval.documents: ")
    assert "at least 1 item" in line


# -- a pay table ---------------------------------------------------------------------------------


def test_a_004_three_card_poker_table_naming_000s_six_card_bonus_table_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TCB-6B4 is printed by 000 and 003 (R29), not by 004, whose table is TCB-6B2."""
    path = write(
        tmp_path,
        TCP4,
        replace('six_card_bonus_table = "TCB-6B2"', 'six_card_bonus_table = "TCB-6B4"'),
    )
    assert refused(path, capsys) == [
        "game.six_card_bonus_table: TCB-6B4 is for three-card-poker-6cb (documents 000, 003), "
        "not three-card-poker-6cb (document 004)"
    ]


def test_a_pay_table_of_another_game_in_the_tables_own_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card room's own pay-table folder (`paytables`) whose Three Card Poker file carries a
    table approved for another game: the same pays, but not this game's table."""
    own = tmp_path / "paytables"
    shutil.copytree(CONFIG / "paytables", own)
    text = (own / "three-card-poker.toml").read_text()
    marker = '[TCB-6B2.approval]\ndocuments = ["004"]\ngames = ["three-card-poker-6cb"]'
    assert marker in text
    wrong = marker.replace('"three-card-poker-6cb"', '"ultimate-texas-holdem"')
    (own / "three-card-poker.toml").write_text(text.replace(marker, wrong))
    path = write(tmp_path, TCP4, lambda text: 'paytables = "paytables"\n' + text)
    assert refused(path, capsys) == [
        "game.six_card_bonus_table: TCB-6B2 is for ultimate-texas-holdem (document 004), "
        "not three-card-poker-6cb (document 004)"
    ]


def test_without_game_document_the_schedule_and_pay_tables_must_agree_on_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No game.document: the collection file (000, 002) names the candidates, and RFB-12 (003)
    shares none of them."""
    path = write(
        tmp_path,
        BJ,
        replace('document = "000"', ""),
        replace('red_flex_table = "RFB-02"', 'red_flex_table = "RFB-12"'),
    )
    assert refused(path, capsys) == [
        "game.red_flex_table: RFB-12 is for pure-21.5-blackjack (document 003), but "
        "collection.file is for documents 000, 002: name the table's document (game.document) "
        "and use that document's files"
    ]


def test_without_game_document_the_files_agreeing_on_one_name_it_in_the_ok_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """004's Three Card Poker schedule (004), TCB-6B2 (004) and PP-MR200 (all four): 004."""
    path = write(tmp_path, TCP4, replace('document = "004"', ""))
    code, out, err = check_config(path, capsys)
    assert (code, err) == (0, "")
    assert ": ok: three-card-poker-6cb (document 004) table cardroom-1/tcp-04, " in out


def test_without_game_document_a_file_of_no_document_approving_the_game_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card room's copy of 004's schedule that says 002, which approves no Three Card Poker
    (002 is a near copy of 000's blackjack half)."""
    own = tmp_path / "own.toml"
    shipped = (CONFIG / "schedules" / "three-card-poker-6cb-004.toml").read_text()
    own.write_text(shipped.replace('documents = ["004"]', 'documents = ["002"]'))
    path = write(
        tmp_path,
        TCP4,
        replace('document = "004"', ""),
        replace('file = "schedules/three-card-poker-6cb-004.toml"', 'file = "own.toml"'),
    )
    assert refused(path, capsys) == [
        "collection.file: own.toml is for three-card-poker-6cb (document 002), and "
        "three-card-poker-6cb is approved by documents 000, 001, 003, 004 only"
    ]


def test_a_document_that_does_not_approve_the_game_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """001 approves only Three Card Poker (shared seeds/README.md)."""
    path = write(tmp_path, BJ, replace('document = "000"', 'document = "001"'))
    (line,) = refused(path, capsys)
    assert line == "game.document: \"001\" is not one of '000', '002', '003' or '004'"


# -- a betting limits file -----------------------------------------------------------------------


def limits_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> Path:
    """A copy of the shipped limits folder with `old` in poker-003.toml's approval made `new`,
    put where the poker games read their posted limits from."""
    folder = tmp_path / "limits"
    shutil.copytree(CONFIG / "limits", folder)
    text = (folder / "poker-003.toml").read_text()
    assert old in text
    (folder / "poker-003.toml").write_text(text.replace(old, new, 1))
    monkeypatch.setattr(poker_spec, "LIMITS_DIR", folder)
    return folder / "poker-003.toml"


def test_a_betting_limits_file_of_another_document_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    limits = limits_folder(tmp_path, monkeypatch, 'documents = ["003"]', 'documents = ["004"]')
    path = write(tmp_path, HOLDEM3)
    assert refused(path, capsys) == [
        f"game.document: {limits} is for texas-holdem, omaha, omaha-hi-lo, crazy-pineapple-hi-lo, "
        "seven-card-stud, seven-card-stud-hi-lo, razz, five-card-stud, option-alley, "
        "five-card-draw, five-card-draw-hi-lo, lowball, dealers-choice (document 004), "
        "not texas-holdem (document 003)"
    ]


def test_a_betting_limits_file_of_other_games_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    games = re.compile(r"games = \[[^\]]*\]")
    shipped = (CONFIG / "limits" / "poker-003.toml").read_text()
    found = games.search(shipped)
    assert found is not None
    limits = limits_folder(tmp_path, monkeypatch, found[0], 'games = ["razz"]')
    path = write(tmp_path, HOLDEM3)
    assert refused(path, capsys) == [
        f"game.document: {limits} is for razz (document 003), not texas-holdem (document 003)"
    ]


# -- the shipped data files ----------------------------------------------------------------------


def _approvals() -> list[tuple[str, Approval | None]]:
    """Every shipped data file's approval (each pay table's), named by file (and table)."""
    found: list[tuple[str, Approval | None]] = []
    files = [*sorted((CONFIG / "schedules").rglob("*.toml")), CONFIG / "limits/poker-003.toml"]
    for path in files:
        approval, problems = parse_approval(tomllib.loads(path.read_text()).get("approval"))
        assert problems == [], (path, problems)
        found.append((str(path.relative_to(CONFIG)), approval))
    for path in sorted((CONFIG / "paytables").glob("*.toml")):
        for name, (_table, approval) in load_paytable_file(path).items():
            found.append((f"{path.relative_to(CONFIG)}: {name}", approval))
    return found


APPROVALS = _approvals()


def test_the_shipped_data_files_are_found() -> None:
    """19 schedule files (4 of them the poker room's), 1 limits file, 15 pay tables."""
    assert len(APPROVALS) == 19 + 1 + 15


@pytest.mark.parametrize(("where", "approval"), APPROVALS, ids=[w for w, _ in APPROVALS])
def test_every_shipped_data_file_names_known_games_and_documents_that_approve_them(
    where: str, approval: Approval | None
) -> None:
    assert approval is not None, f"{where} does not say what it is for"
    for game in approval.games:
        assert game in game_ids(), where
        approving = spec_of(game).settings[game].DOCUMENTS
        assert set(approval.documents) <= set(approving), (where, game, approving)


def test_each_shipped_table_config_is_of_its_own_document() -> None:
    """The file names end in the document (pure-21.5-blackjack-003-3to2.toml: 003)."""
    for path in sorted(CONFIG.glob("*.toml")):
        data: dict[str, Any] = tomllib.loads(path.read_text())
        named = re.search(r"-(00[0-4])", path.name)
        document = named[1] if named else "003"  # ez-baccarat-panda8.toml: 003 approves it
        assert data["game"].get("document") == document, path.name


def test_mismatch_names_the_file_its_approval_and_the_table() -> None:
    approval = Approval(documents=("000", "002"), games=("pure-21.5-blackjack",), option="x")
    assert mismatch("f.toml", approval, "pure-21.5-blackjack", "002") is None
    assert mismatch("f.toml", approval, "pure-21.5-blackjack", None) is None
    assert mismatch("f.toml", approval, "pure-spanish-21.5", None) == (
        "f.toml is for pure-21.5-blackjack (documents 000, 002), not pure-spanish-21.5"
    )
    assert mismatch("f.toml", approval, "pure-21.5-blackjack", "003") == (
        "f.toml is for pure-21.5-blackjack (documents 000, 002), not pure-21.5-blackjack "
        "(document 003)"
    )


# -- the rules as journaled ----------------------------------------------------------------------


def test_a_banked_tables_document_is_journaled_only_when_the_config_names_it(
    tmp_path: Path,
) -> None:
    """Rules journaled before game.document existed keep their JSON (and digest)."""
    unnamed = parse_config(config_dict(tmp_path), tmp_path / "t.toml").rules.to_json()
    assert "document" not in unnamed["game"]
    named = parse_config(
        config_dict(tmp_path, game={"document": "003"}), tmp_path / "t.toml"
    ).rules.to_json()
    assert named["game"]["document"] == "003"
    assert json.loads(json.dumps(named))["game"] == {**unnamed["game"], "document": "003"}


def test_the_ok_line_of_a_shipped_banked_config_names_its_document(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = CONFIG / BJ
    assert main(["check-config", str(path)]) == 0
    out, err = as_plugged_in(*capsys.readouterr())
    assert err == ""
    assert out == (
        f"{path}: ok: pure-21.5-blackjack (document 000) table cardroom-1/bj-01, 8 seats, "
        "limits 5.00-500.00, collection schedule 1, 1 device(s)\n"
    )
