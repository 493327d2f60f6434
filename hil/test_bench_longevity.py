"""The longevity benchmark (hil/bench_longevity.py) at toy sizes, and the synthetic history it
is built on: a history the engine refuses anywhere, or that loses a round, would make every
figure of the benchmark meaningless."""

from __future__ import annotations

import json
import platform
from pathlib import Path

from hil.bench_longevity import TARGETS, measure, replay, write_history, write_table_config
from hil.synthetic import baccarat_history
from tablectl.cli.replay import replay_records
from tablectl.config import load_config
from tablectl.table import Table


def test_the_bench_reports_every_figure_for_a_tiny_table(tmp_path: Path) -> None:
    f = measure(120, 30, repeats=1, ready_timeout=120, workdir=tmp_path)
    json.dumps(f)  # the --json line
    assert f["imported_records"] == f["records"] > 120 * 10
    assert f["small_imported_records"] == f["small_records"] > 30 * 10
    assert f["journal_bytes"] > 0 and f["bytes_per_round"] > 0
    for key in ("start_small_s", "start_year_s", "first_start_small_s", "first_start_year_s"):
        assert f[key] is not None and 0 < f[key] < 120, key  # READY=1 came
    assert f["start_ratio"] is not None and f["start_ratio"] > 0
    assert 5 < f["rss_mb"] < 1000
    assert f["interpreter"]["version"] == platform.python_version()
    assert f["interpreter"]["libpython"] in ("shared", "built in")
    assert f["import_records_per_s"] > 0 and f["import_printed_records_per_s"] > 0
    assert f["replay_rounds"] == f["replay_command_results"] == 120
    assert f["replay_command_alerts"] == {}
    assert f["replay_rounds_per_s"] > 0 and len(f["replay_runs_s"]) == 1
    assert f["replay_command_rounds_per_s"] > 0 and f["replay_command_one_process_rounds_per_s"] > 0
    assert f["replay_command_jobs"] in (1, 2) and f["replay_command_speedup"] > 0
    assert 20 < f["replay_command_messages_per_round"] < 60
    assert f["targets"] == TARGETS
    assert set(f["met"]) >= {
        "start_ratio",
        "start_s",
        "bytes_per_round",
        "rss_mb",
        "replay_rounds_per_s",
    }
    assert all(isinstance(v, bool) for v in f["met"].values())


def test_a_history_replays_with_nothing_refused_and_one_result_per_round(tmp_path: Path) -> None:
    cfg = write_table_config(tmp_path)
    hist = write_history(tmp_path / "history.jsonl", 180, 7, cfg)
    text = hist.path.read_text()
    assert text.count('"type":"shoe.new"') >= 2  # past the cut card: a shoe change is covered
    assert '"type":"shoe.burn"' in text
    done = replay(cfg, hist.path)
    assert done.alerts == {}  # no rejected, invalid, dealer-error, gap or repeat
    assert done.results == 180


def test_a_history_opens_with_the_configs_rules_so_a_start_journals_none(tmp_path: Path) -> None:
    cfg = write_table_config(tmp_path)
    loaded = load_config(cfg)
    table = Table(loaded)
    first = next(replay_records(iter(baccarat_history(1, 1, cfg))))
    assert first.source == "config"
    table.apply(first)
    assert table.rules_journaled and table.rules == loaded.rules  # as Daemon._journal_rules asks


def test_the_same_seed_gives_the_same_history_and_another_seed_another(tmp_path: Path) -> None:
    cfg = write_table_config(tmp_path)
    once = list(baccarat_history(40, 3, cfg))
    assert once == list(baccarat_history(40, 3, cfg))
    assert once != list(baccarat_history(40, 4, cfg))
    stamps = [json.loads(line)["ts"] for line in once]
    assert stamps == sorted(stamps)  # time only moves on
