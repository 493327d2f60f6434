"""The ledger's config (tablectl/ledger/settings.py) and loading a table's export into the
books (tablectl/ledger/load.py) on a real PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from hil.ports import RefusedPort
from hil.postgres import PostgresServer
from tablectl.cli import main as cli
from tablectl.config import load_config
from tablectl.ledger.load import exported_messages, load_export
from tablectl.ledger.settings import LedgerConfigError, load_ledger_config
from tablectl.ledger.store import LedgerStore
from tests.ledger.test_ledger_service import HISTORY, REPO

EXAMPLE = REPO / "config" / "ledger" / "ledger.toml"


def test_the_shipped_example_config_is_valid() -> None:
    cfg = load_ledger_config(EXAMPLE)
    assert cfg.sites == ["cardroom-1"] and cfg.shifts["grave"] == "22:00"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (('sites = ["cardroom-1"]', "sites = []"), "ledger.sites: "),
        (("batch_ms = 200", "batch_ms = 0"), "ledger.batch_ms: "),
        (('timezone = "America/Los_Angeles"', 'timezone = "Mars/Olympus"'), "ledger.timezone: "),
        (
            ('day = "06:00"', 'day = "25:99"'),
            r'ledger.shifts.day: "25:99" is not usable here: give a time of day as HH:MM on the '
            r"24-hour clock",  # not the pattern's regex
        ),
        (
            ('day = "06:00"', '"night shift" = "06:00"'),
            r'ledger.shifts."night shift": "night shift" is not usable here: give 1 to 32 letters',
        ),
        (("port = 1883", "port = 1883\nprot = 1"), "ledger.broker.prot: unknown key"),
        (
            ('# pit-1 = ["cardroom-1/bac-01", "cardroom-1/bac-02"]', 'A = ["bac-1"]'),
            r"ledger.pits.A\[0\]: \"bac-1\" is not usable here: give a table as its site",
        ),
    ],
)
def test_a_wrong_key_is_named(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    path = tmp_path / "ledger.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert edit[0] in text
    path.write_text(text.replace(edit[0], edit[1], 1), encoding="utf-8")
    with pytest.raises(LedgerConfigError, match=f"{path}: {message}"):
        load_ledger_config(path)


def table_config(tmp_path: Path) -> Path:
    config = tmp_path / "table.toml"
    text = (HISTORY / "table.toml").read_text(encoding="utf-8").replace("{repo}", str(REPO))
    config.write_text(text, encoding="utf-8")
    return config


def test_an_export_loads_every_message_once(tmp_path: Path, postgres: PostgresServer) -> None:
    """The recorded session's export, loaded twice: every number counted, no gap, the round
    results those the replay gives, and the second load adding nothing."""
    cfg = load_config(table_config(tmp_path))
    lines = (HISTORY / "events.jsonl").read_text(encoding="utf-8").splitlines(True)
    messages = list(exported_messages(cfg, lines))
    store = LedgerStore(postgres.conninfo)
    first = load_export(store, cfg, lines)
    again = load_export(store, cfg, lines)
    assert (first.counted, first.rows) == (len(messages), sum(m.kept for m in messages))
    assert (again.counted, again.rows, again.repeated) == (0, 0, len(messages))
    assert store.gaps() == {}
    rows = store.conn.execute(
        "SELECT payload FROM ledger_messages WHERE kind = 'round-result' ORDER BY seq"
    ).fetchall()
    assert [r[0] for r in rows] == [m.payload for m in messages if m.topic == "round/result"]
    store.close()


def loaded(tmp_path: Path, postgres: PostgresServer) -> tuple[Path, str]:
    """A ledger config for the recorded session's site, and `tablectl ledger load` of the
    session's export into its books: the config's path and the site."""
    site = load_config(table_config(tmp_path)).table.site
    ledger = tmp_path / "ledger.toml"
    ledger.write_text(
        f'[ledger]\nsites = ["{site}"]\ndatabase = "{postgres.conninfo}"\n', encoding="utf-8"
    )
    table = table_config(tmp_path)
    argv = ["ledger", "load", "--config", str(ledger), "--table-config", str(table)]
    assert cli([*argv, str(HISTORY / "events.jsonl")]) == 0
    return ledger, site


def test_the_load_command_says_what_it_did(
    tmp_path: Path, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, _ = loaded(tmp_path, postgres)
    out = capsys.readouterr().out
    assert out.endswith("gaps left: none\n") and " already held" in out
    assert cli(["ledger", "gaps", "--config", str(ledger), "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out).values()
    assert table["gaps"] == [] and table["through"] == table["highest"] > 0
    with psycopg.connect(postgres.conninfo) as conn:
        assert conn.execute("SELECT count(*) FROM ledger_messages").fetchone() != (0,)


def test_the_report_command_writes_the_csv_and_refuses_a_pdf_without_a_file(
    tmp_path: Path, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger, site = loaded(tmp_path, postgres)
    capsys.readouterr()
    hours = ["--from", "1970-01-01T00:00", "--to", "2100-01-01T00:00"]
    assert cli(["ledger", "report", "--config", str(ledger), *hours]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "section,site,table,item,detail,amount,ts,note"
    assert any(r.startswith(f"site-collected,{site},") for r in rows)
    assert rows[-1].startswith("digest,,,sha256,")
    assert cli(["ledger", "report", "--config", str(ledger), *hours, "--format", "pdf"]) == 2
    assert "--format pdf needs --output FILE" in capsys.readouterr().err
    assert cli(["ledger", "report", "--config", str(ledger), "--shift", "day"]) == 2
    assert "give --shift and --date, or --from and --to" in capsys.readouterr().err


def test_the_readers_refuse_books_they_cannot_read_in_a_line(
    tmp_path: Path, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ledger gaps` before any ledger made the books, and `ledger report` of books a newer
    tablectl migrated: exit 2 (books it cannot use, as a config it cannot use: not 1, which
    for `gaps` means gaps found) and one line saying why and what to do (it was a traceback, or
    a reader creating the tables)."""
    ledger = tmp_path / "ledger.toml"
    ledger.write_text(
        f'[ledger]\nsites = ["s1"]\ndatabase = "{postgres.conninfo}"\n', encoding="utf-8"
    )
    assert cli(["ledger", "gaps", "--config", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl ledger gaps: the database: the database holds no books yet")
    assert "Traceback" not in err
    LedgerStore(postgres.conninfo).close()
    with psycopg.connect(postgres.conninfo, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger_migrations (version, what) VALUES (999, 'future')")
    hours = ["--from", "1970-01-01T00:00", "--to", "2100-01-01T00:00"]
    assert cli(["ledger", "report", "--config", str(ledger), *hours]) == 2
    err = capsys.readouterr().err
    assert "tablectl ledger report: the database: the database was migrated to version 999" in err
    assert err.rstrip().endswith("upgrade this tablectl") and "Traceback" not in err


def test_a_report_date_that_is_not_one_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--date 2026-13-45` said only "month must be in 1..12" (and `yesterday` "Invalid
    isoformat string"): the option is named, before any database is asked."""
    ledger = tmp_path / "ledger.toml"
    ledger.write_text('[ledger]\nsites = ["s1"]\ndatabase = "host=192.0.2.1"\n', encoding="utf-8")
    for text in ("2026-13-45", "yesterday"):
        argv = ["ledger", "report", "--config", str(ledger), "--shift", "day", "--date", text]
        assert cli(argv) == 2
        err = capsys.readouterr().err
        assert f"--date {text!r} is not a date of the form 2026-11-29" in err


def test_a_database_out_of_reach_is_exit_2_never_the_gaps_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], refused_port: RefusedPort
) -> None:
    """`ledger gaps` exits 1 when the books lack messages; a database it cannot reach is exit 2
    (it was 1: a monitor read an outage as gaps)."""
    ledger = tmp_path / "ledger.toml"
    database = f"host=127.0.0.1 port={refused_port.port} connect_timeout=5"  # nobody listens
    ledger.write_text(f'[ledger]\nsites = ["s1"]\ndatabase = "{database}"\n', encoding="utf-8")
    assert cli(["ledger", "gaps", "--config", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl ledger gaps: the database: ") and "Traceback" not in err
