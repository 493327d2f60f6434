"""The command line as a table has it: `scripts/install` pip-installs the repository,
not editable, so the program runs from site-packages and its data from <venv>/share/tablectl, never
from a checkout. The rest of the suite runs from the checkout and cannot see what the package
fails to ship: `analyze` of the blackjack base game read config/pure-21.5-blackjack-000.toml,
which no install had.

Here a wheel is built from a copy of this checkout and installed into a fresh venv of the same
Python, and every command a technician uses is run once from it, in a folder away from the
checkout with PYTHONPATH unset. The wheel goes in with --no-deps, and the venv reads its
dependencies (pydantic, structlog...) from the test venv's site-packages as a plain path: the
suite runs offline, and that venv's .pth files, among them the editable install of tablectl, are
not processed, so `import tablectl` can only find the wheel's (asserted)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.cli.test_cli import SESSION, ingest, shoe_inputs
from tests.helpers import REPO

SKIPPED = (".venv", ".git", "build", "dist", "demo-data", "__pycache__", "*.egg-info", ".*_cache")
BASE_PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"


class Installed:
    """A venv with the wheel of this checkout in it, and how to run it as a table would."""

    def __init__(self, venv: Path, home: Path) -> None:
        self.venv = venv
        self.home = home  # the working folder: not the checkout
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(self, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "tablectl"), *argv],
            capture_output=True,
            text=True,
            input=stdin,
            cwd=self.home,
            env=self.env,
            timeout=300,
            check=False,
        )

    def python(self, code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", code],
            capture_output=True,
            text=True,
            cwd=self.home,
            env=self.env,
            timeout=300,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    top = tmp_path_factory.mktemp("wheel")
    source = top / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*SKIPPED), symlinks=True)
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(top / "dist"), "."),
        ],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = (top / "dist").glob("tablectl-*.whl")
    venv = top / "venv"
    subprocess.run([str(BASE_PYTHON), "-m", "venv", str(venv)], check=True, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True, timeout=300)
    site = Path(
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "zz-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    home = top / "table"
    home.mkdir()
    return Installed(venv, home)


@pytest.fixture
def table(installed: Installed, tmp_path: Path) -> Path:
    """A table config as /etc/tablectl holds one: the shipped example beside the collection
    schedules it names, its journal in tmp_path."""
    shutil.copytree(REPO / "config" / "schedules", tmp_path / "schedules")
    text = (REPO / "config" / "ez-baccarat-panda8.toml").read_text(encoding="utf-8")
    old = 'path = "/var/lib/tablectl/bac-01.db"'
    assert old in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(old, f'path = "{tmp_path / "bac-01.db"}"'), encoding="utf-8")
    return path


def test_the_program_is_the_wheels_not_the_checkouts(installed: Installed) -> None:
    done = installed.python(
        "import tablectl, tablectl_base, tablectl_drivers as d; print("
        "tablectl.__file__, tablectl_base.__file__, d.__file__)"
    )
    assert done.returncode == 0, done.stderr
    for path in done.stdout.split():
        assert Path(path).is_relative_to(installed.venv), path
    version = installed.run("--version")
    assert version.returncode == 0 and version.stdout.startswith("tablectl ")


def test_every_command_a_table_uses_runs_from_the_installed_package(
    installed: Installed, table: Path, tmp_path: Path
) -> None:
    config = str(table)
    done = installed.run("check-config", "--config", config)
    assert done.returncode == 0, done.stderr
    assert "ez-baccarat-panda8 (document 003) table cardroom-1/bac-01" in done.stdout

    # not running: no daemon answers on the socket beside the journal
    status = installed.run("status", "--config", config)
    assert status.returncode == 3, status.stdout + status.stderr

    # a table's history (journaled as the daemon does), then every journal command on it
    ingest(table, shoe_inputs(SESSION))
    verify = installed.run("verify-journal", "--config", config, "--deep")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"{len(SESSION)} records, chain intact" in verify.stdout
    recall = installed.run("recall", "--config", config, "--last", "1", "--json")
    assert recall.returncode == 0, recall.stderr
    assert json.loads(recall.stdout)["round"] == 3
    check = installed.run("upgrade-check", "--config", config)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "upgrade-check: ok: every one of " in check.stdout

    export = installed.run("export", "--config", config)
    assert export.returncode == 0, export.stderr
    assert len(export.stdout.splitlines()) == len(SESSION)
    replay = installed.run("replay", "--config", config, "-", stdin=export.stdout)
    assert replay.returncode == 0, replay.stderr
    assert any("/round/result" in ln for ln in replay.stdout.splitlines())

    # the export imported as a replacement PC would: a new journal, then verified and recalled
    restored = tmp_path / "restored"
    restored.mkdir()
    shutil.copytree(tmp_path / "schedules", restored / "schedules")
    text = table.read_text().replace(str(tmp_path / "bac-01.db"), str(restored / "bac-01.db"))
    (restored / "table.toml").write_text(text)
    (restored / "table.jsonl").write_text(export.stdout)
    imported = installed.run(
        "import", "--config", str(restored / "table.toml"), str(restored / "table.jsonl")
    )
    assert imported.returncode == 0, imported.stderr
    assert f"{len(SESSION)} records imported" in imported.stdout
    again = installed.run("verify-journal", "--config", str(restored / "table.toml"), "--deep")
    assert again.returncode == 0, again.stdout + again.stderr
    recalled = installed.run("recall", "--config", str(restored / "table.toml"), "--last", "1")
    assert (
        recalled.returncode == 0
        and recalled.stdout == installed.run("recall", "--config", config, "--last", "1").stdout
    )

    key = installed.run("keygen", str(tmp_path / "journal.key"))
    assert key.returncode == 0 and (tmp_path / "journal.key").stat().st_mode & 0o777 == 0o600
    acl = installed.run("broker-acl", "--config", config, "--users")
    assert acl.returncode == 0 and "table-cardroom-1-bac-01" in acl.stdout


def test_analyze_reads_only_what_the_package_ships(installed: Installed) -> None:
    """The finding: `analyze --game pure-21.5-blackjack --wager base` read its rules from
    config/, which the package did not ship. Its simulation is cut to 2,000 rounds here (80,000
    by default, about 45 s): what is under test is that it finds its config and pay tables."""
    done = installed.python(
        "import sys; import tablectl.analysis.blackjack_base as b; b.BASE_HANDS = 2000\n"
        "from tablectl.cli import main\n"
        "sys.exit(main(['analyze', '--game', 'pure-21.5-blackjack', '--wager', 'base',"
        " '--decks', '6', '--json']))"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["method"] == "exact" and result["simulation"]["hands"] == 2000
    where = installed.python(
        "from tablectl.analysis.blackjack_base import CONFIG_DIR; print(CONFIG_DIR)"
    )
    assert Path(where.stdout.strip()) == installed.venv / "share" / "tablectl"
    for game, wager in (
        ("ez-baccarat-panda8", "tie"),
        ("three-card-poker-6cb", "pair-plus"),
        ("pure-21.5-blackjack", "buster"),
    ):
        found = installed.run("analyze", "--game", game, "--wager", wager, "--json")
        assert found.returncode == 0, (game, found.stderr)
        assert json.loads(found.stdout)["house_edge"] is not None
