"""Benchmark: a table that runs for years, against the targets in TARGETS.

Two EZ Baccarat Panda 8 histories from hil/synthetic.py (a few hundred rounds, and N rounds: a
busy table deals about 500,000 a year) are each restored with `tablectl import` into a fresh
journal, in a temporary directory, with the scenario table's config (no devices, MQTT off). For
each it measures the journal's bytes per round on disk, the time from `tablectl run` starting to
its systemd READY=1 (over a NOTIFY_SOCKET of our own; median of 3) and the daemon's resident
memory then. Replay is timed two ways on up to REPLAY_ROUNDS rounds: the journal's replay (read
from the file and applied with `Table.advance`, as a start without a snapshot, an import and
`verify-journal --deep` replay it, building no view: views are built only when published), and
`tablectl replay`, which renders and prints every message of every input (about 36 a round), its
output read and counted: as run by default (in two workers where two CPUs may be used) and, the
baseline in the same run, in one process (`--jobs 1`). Each figure with a target is printed with
it and whether it is met. The figures are what the code in the tree does today.

usage: .venv/bin/python hil/bench_longevity.py [--rounds 500000] [--small 200] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hil.synthetic import baccarat_history
from tablectl.cli.replay_workers import usable_jobs

REPO = Path(__file__).resolve().parents[1]
SCENARIO_CONFIG = REPO / "hil" / "scenarios" / "ez-baccarat-two-rounds" / "table.toml"
READY_TIMEOUT = 900.0
"""How long a start may take before the bench gives up on READY=1 (and says so)."""
REPLAY_ROUNDS = 20_000
"""The replays are timed on at most this many rounds."""

TARGETS: dict[str, float] = {
    "start_ratio_max": 1.5,
    "start_s_max": 2.0,
    "bytes_per_round_max": 3072,
    "rss_mb_max": 60,
    "replay_rounds_per_s_min": 2000,
    "replay_command_rounds_per_s_min": 2000,
}
"""A year's journal starts about as fast as a new one, in under 2 s, at 3 KB a round on disk, in
60 MB, and replays at 2,000 rounds a second or more; `tablectl replay` renders and prints every
message at 2,000 baccarat rounds a second or more."""

_IMPORTED = re.compile(r": (\d+) records imported \(([\d,]+) records/s\)")
_SNAPSHOT = re.compile(r": snapshot after record \d+ built by replay in ([\d.]+) s")


@dataclass(frozen=True)
class History:
    """A generated history file: its lines (records) and rounds, and how long it took."""

    path: Path
    rounds: int
    records: int
    seconds: float


@dataclass(frozen=True)
class Imported:
    """One `tablectl import`: records it said it imported, wall time of the whole process, the
    rate it printed (its own clock, the records alone) and, when it says it built one, the
    seconds its snapshot took."""

    records: int
    seconds: float
    printed_records_per_s: float
    snapshot_s: float | None


@dataclass(frozen=True)
class Start:
    """One `tablectl run` start: seconds to READY=1 (None: not within the timeout), resident
    memory when it came, and the last STATUS= line the daemon sent."""

    seconds: float | None
    rss_kb: int
    status: str


@dataclass(frozen=True)
class Replayed:
    """One `tablectl replay`: seconds, round results printed, and refusals by alert kind."""

    seconds: float
    results: int
    messages: int
    alerts: dict[str, int]


def write_table_config(folder: Path) -> Path:
    """The scenario table's config for a bench journal in `folder`: the repository's schedules,
    no devices (a start then journals nothing, so the three starts see one journal; the config
    says the cards are keyed, `manual_entry`), MQTT off."""
    folder.mkdir(parents=True, exist_ok=True)
    kept: list[str] = []
    in_devices = False
    for text in SCENARIO_CONFIG.read_text().splitlines():
        if text.startswith("["):
            in_devices = text.strip() == "[[devices]]"
        if not in_devices:
            kept.append(text)
    body = "\n".join(kept).replace("{schedules}", str(REPO / "config" / "schedules")).rstrip()
    path = folder / "table.toml"
    path.write_text(
        "manual_entry = true\n"
        + body
        + '\n\n[mqtt]\nenabled = false\n\n[journal]\npath = "journal.db"\n',
        encoding="utf-8",
    )
    return path


def write_history(path: Path, rounds: int, seed: int, config: Path) -> History:
    """`rounds` rounds of hil/synthetic.py's history into `path`, one export line each."""
    started = time.perf_counter()
    records = 0
    with path.open("w", encoding="utf-8") as out:
        batch: list[str] = []
        for text in baccarat_history(rounds, seed, config):
            batch.append(text)
            if len(batch) >= 10_000:
                out.write("\n".join(batch) + "\n")
                records += len(batch)
                batch.clear()
        if batch:
            out.write("\n".join(batch) + "\n")
            records += len(batch)
    return History(path, rounds, records, time.perf_counter() - started)


def _tablectl(*args: str) -> list[str]:
    """The command line of `tablectl ARGS` with this interpreter (the repository's code)."""
    return [sys.executable, "-m", "tablectl.cli", *args]


def import_history(config: Path, history: Path) -> Imported:
    """`tablectl import --config CONFIG HISTORY` in a child process, timed."""
    started = time.perf_counter()
    done = subprocess.run(
        _tablectl("import", "--config", str(config), str(history)),
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"tablectl import failed ({done.returncode}): {done.stderr.strip()}")
    found = _IMPORTED.search(done.stdout)
    if found is None:
        raise RuntimeError(f"tablectl import printed no count: {done.stdout.strip()!r}")
    snap = _SNAPSHOT.search(done.stdout)
    return Imported(
        int(found[1]),
        seconds,
        float(found[2].replace(",", "")),
        None if snap is None else float(snap[1]),
    )


def journal_bytes(config: Path) -> int:
    """The journal on disk next to `config`: the SQLite file and its write-ahead log."""
    db = config.parent / "journal.db"
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())


def _rss_kb(pid: int) -> int:
    """VmRSS of process `pid` in kB (0 if it has gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for text in fh:
                if text.startswith("VmRSS:"):
                    return int(text.split()[1])
    except OSError:
        pass
    return 0


def time_to_ready(config: Path, timeout: float = READY_TIMEOUT) -> Start:
    """Start `tablectl run --config CONFIG` as systemd would with Type=notify (NOTIFY_SOCKET,
    a datagram socket of ours) and time it to READY=1; read its RSS; SIGTERM it and wait."""
    sock_path = config.parent / "notify.sock"
    sock_path.unlink(missing_ok=True)
    status = ""
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(sock_path))
        env = {**os.environ, "NOTIFY_SOCKET": str(sock_path)}
        env.pop("WATCHDOG_USEC", None)
        env.pop("WATCHDOG_PID", None)
        with (config.parent / "daemon.log").open("ab") as log:
            started = time.perf_counter()
            proc = subprocess.Popen(
                _tablectl("run", "--config", str(config)),
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        seconds: float | None = None
        rss = 0
        try:
            deadline = started + timeout
            while seconds is None:
                left = deadline - time.perf_counter()
                if left <= 0 or proc.poll() is not None:
                    break
                sock.settimeout(min(left, 1.0))
                try:
                    note = sock.recv(4096).decode("utf-8", "replace")
                except TimeoutError:
                    continue
                lines = note.splitlines()
                if "READY=1" in lines:
                    seconds = time.perf_counter() - started
                    rss = _rss_kb(proc.pid)
                status = next((x[7:] for x in lines if x.startswith("STATUS=")), status)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            sock_path.unlink(missing_ok=True)
    return Start(seconds, rss, status)


def interleaved_starts(
    configs: dict[str, Path], repeats: int, timeout: float = READY_TIMEOUT
) -> dict[str, list[Start]]:
    """`repeats` starts of each config, taking turns, so that what else the machine is doing
    falls on both alike (a start is mostly the interpreter's, a few tenths of a second: a
    ratio of two such figures measured minutes apart is mostly noise). A config whose start
    never became ready is not started again (the next would wait as long)."""
    runs: dict[str, list[Start]] = {name: [] for name in configs}
    for _ in range(repeats):
        for name, cfg in configs.items():
            if all(s.seconds is not None for s in runs[name]):
                runs[name].append(time_to_ready(cfg, timeout))
    return runs


def median_start(starts: list[Start]) -> Start:
    """The median time to READY (and the largest RSS) of `starts`; None if any never became
    ready (no median of a start that did not happen)."""
    rss = max(s.rss_kb for s in starts)
    if any(s.seconds is None for s in starts):
        return Start(None, rss, starts[-1].status)
    return Start(statistics.median(s.seconds or 0.0 for s in starts), rss, starts[-1].status)


def replay(config: Path, history: Path, jobs: int | None = None) -> Replayed:
    """`tablectl replay --config CONFIG HISTORY` (with `--jobs JOBS` when given), its output
    read as it comes (round results counted, alerts tallied by kind: a history that is refused
    anywhere is no benchmark)."""
    results = messages = 0
    alerts: dict[str, int] = {}
    started = time.perf_counter()
    given = () if jobs is None else ("--jobs", str(jobs))
    with subprocess.Popen(
        _tablectl("replay", *given, "--config", str(config), str(history)),
        cwd=REPO,
        stdout=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            messages += 1
            head = raw[:120]
            if b'/round/result"' in head:
                results += 1
            elif b'/alert"' in head:
                kind = str(json.loads(raw)["payload"].get("kind"))
                alerts[kind] = alerts.get(kind, 0) + 1
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"tablectl replay failed ({proc.returncode})")
    return Replayed(seconds, results, messages, alerts)


def journal_replay(config: Path, repeats: int) -> list[float]:
    """Seconds to replay the whole journal of `config` the way a start without a snapshot, an
    import's snapshot and `verify-journal --deep` do: records read from the journal file, each
    applied with `Table.advance` (the state and the message count move on; no message is
    rendered, so no view is built). In this process, `repeats` times, each from a new table."""
    from tablectl.config import load_config
    from tablectl.journal import Journal
    from tablectl.table import Table

    cfg = load_config(config)
    times = []
    for _ in range(repeats):
        journal = Journal(cfg.journal_path, table=cfg.table.table)
        try:
            table = Table(cfg)
            started = time.perf_counter()
            for rec in journal.records():
                table.advance(rec)
            times.append(time.perf_counter() - started)
        finally:
            journal.close()
    return times


def interpreter() -> dict[str, Any]:
    """Which Python runs the bench (its replay is this interpreter's): the version, the binary,
    and whether libpython is a shared library it calls into or built into the binary. Both
    matter: Debian's python3 (what `scripts/install` builds the table's venv from) is built into
    its binary with profile-guided optimisation, where a Python built from source with
    `--enable-shared` (pyenv's, say) calls every C function through the shared library and
    replays a quarter slower or more (docs/performance.md)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            shared = any("libpython" in line for line in maps)
    except OSError:
        shared = None
    return {
        "version": platform.python_version(),
        "binary": os.path.realpath(sys.executable),
        "libpython": None if shared is None else "shared" if shared else "built in",
    }


def measure(
    rounds: int,
    small: int,
    *,
    seed: int = 1,
    repeats: int = 3,
    replay_rounds: int = REPLAY_ROUNDS,
    ready_timeout: float = READY_TIMEOUT,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Every figure for a `small`-round and a `rounds`-round table, with the targets and
    whether each is met. In `workdir` (kept) or a temporary directory (removed)."""
    with tempfile.TemporaryDirectory(prefix="tablectl-longevity-") as scratch:
        base = workdir if workdir is not None else Path(scratch)
        figures: dict[str, Any] = {
            "rounds": rounds,
            "small_rounds": small,
            "seed": seed,
            "repeats": repeats,
            "interpreter": interpreter(),
        }
        per: dict[str, dict[str, Any]] = {}
        configs: dict[str, Path] = {}
        for name, n in (("small", small), ("year", rounds)):
            cfg = configs[name] = write_table_config(base / name)
            hist = write_history(base / name / "history.jsonl", n, seed, cfg)
            imp = import_history(cfg, hist.path)
            per[name] = {
                "history": {**asdict(hist), "path": hist.path.name},
                "import": asdict(imp),
                "journal_bytes": journal_bytes(cfg),
            }
        # The first start after an import may do work the next ones need not (a full replay,
        # then a snapshot): timed on its own, then `repeats` more of each for the median.
        first = interleaved_starts(configs, 1, ready_timeout)
        ready = {name: cfg for name, cfg in configs.items() if first[name][0].seconds is not None}
        again = interleaved_starts(ready, repeats, ready_timeout)
        for name, cfg in configs.items():
            runs = again.get(name) or first[name]
            per[name]["first_start"] = asdict(first[name][0])
            per[name]["start"] = asdict(median_start(runs))
            per[name]["start_runs"] = [
                None if s.seconds is None else round(s.seconds, 3) for s in runs
            ]
            per[name]["journal_bytes_after_starts"] = journal_bytes(cfg)
            per[name]["rss_kb"] = max(s.rss_kb for s in [first[name][0], *runs])
        # The replays: `replay_n` rounds of the same history, in a journal of their own.
        replay_n = min(rounds, replay_rounds)
        replay_cfg = configs["year"]
        replay_file = base / "year" / "history.jsonl"
        if replay_n != rounds:
            replay_cfg = write_table_config(base / "replay")
            replay_file = write_history(
                base / "replay" / "history.jsonl", replay_n, seed, replay_cfg
            ).path
            import_history(replay_cfg, replay_file)
        quiet = journal_replay(replay_cfg, repeats)
        rep = replay(replay_cfg, replay_file)  # as a technician runs it: its workers
        alone = replay(replay_cfg, replay_file, jobs=1)  # the baseline: one process
        jobs = usable_jobs(None, replay_file)

    year, small_ = per["year"], per["small"]
    start_year = year["start"]["seconds"]
    start_small = small_["start"]["seconds"]
    first_year = year["first_start"]["seconds"]
    first_small = small_["first_start"]["seconds"]
    figures.update(
        {
            "records": year["history"]["records"],
            "generate_s": round(year["history"]["seconds"], 2),
            "import_records_per_s": round(year["import"]["records"] / year["import"]["seconds"]),
            "import_printed_records_per_s": year["import"]["printed_records_per_s"],
            "import_s": round(year["import"]["seconds"], 2),
            "import_snapshot_s": year["import"]["snapshot_s"],
            "imported_records": year["import"]["records"],
            "small_imported_records": small_["import"]["records"],
            "small_records": small_["history"]["records"],
            "journal_bytes": year["journal_bytes"],
            "bytes_per_round": round(year["journal_bytes"] / rounds),
            "small_bytes_per_round": round(small_["journal_bytes"] / small),
            "start_small_s": _round(start_small, 3),
            "start_year_s": _round(start_year, 3),
            "start_ratio": _ratio(start_year, start_small),
            "start_small_runs_s": small_["start_runs"],
            "start_year_runs_s": year["start_runs"],
            "first_start_small_s": _round(first_small, 3),
            "first_start_year_s": _round(first_year, 3),
            "first_start_ratio": _ratio(first_year, first_small),
            "ready_timeout_s": ready_timeout,
            "start_status": year["first_start"]["status"],
            "journal_bytes_after_starts": year["journal_bytes_after_starts"],
            "rss_mb": round(year["rss_kb"] / 1024, 1),
            "small_rss_mb": round(small_["rss_kb"] / 1024, 1),
            "replay_rounds": replay_n,
            "replay_runs_s": [round(t, 3) for t in quiet],
            "replay_rounds_per_s": round(replay_n / statistics.median(quiet)),
            "replay_method": "the journal read and replayed in process (Table.advance), as a "
            "start without a snapshot, an import and verify-journal --deep replay it; median",
            "replay_command_results": rep.results,
            "replay_command_alerts": rep.alerts,
            "replay_command_s": round(rep.seconds, 2),
            "replay_command_rounds_per_s": round(rep.results / rep.seconds),
            "replay_command_messages_per_round": round(rep.messages / max(rep.results, 1), 1),
            "replay_command_jobs": jobs,
            "replay_command_one_process_s": round(alone.seconds, 2),
            "replay_command_one_process_rounds_per_s": round(alone.results / alone.seconds),
            "replay_command_speedup": round(alone.seconds / rep.seconds, 2),
            "targets": TARGETS,
        }
    )
    figures["met"] = judge(figures)
    return figures


def _round(value: float | None, places: int) -> float | None:
    return None if value is None else round(value, places)


def _ratio(long: float | None, short: float | None) -> float | None:
    return None if long is None or short is None or short <= 0 else round(long / short, 2)


def judge(f: dict[str, Any]) -> dict[str, bool]:
    """Each target met or not (a start that never became ready meets none of its targets)."""
    ratio, start = f["start_ratio"], f["start_year_s"]
    first_ratio, first = f["first_start_ratio"], f["first_start_year_s"]
    return {
        "start_ratio": ratio is not None and ratio <= TARGETS["start_ratio_max"],
        "start_s": start is not None and start < TARGETS["start_s_max"],
        "first_start_ratio": first_ratio is not None and first_ratio <= TARGETS["start_ratio_max"],
        "first_start_s": first is not None and first < TARGETS["start_s_max"],
        "bytes_per_round": f["bytes_per_round"] <= TARGETS["bytes_per_round_max"],
        "rss_mb": f["rss_mb"] <= TARGETS["rss_mb_max"],
        "replay_rounds_per_s": f["replay_rounds_per_s"] >= TARGETS["replay_rounds_per_s_min"],
        "replay_command_rounds_per_s": f["replay_command_rounds_per_s"]
        >= TARGETS["replay_command_rounds_per_s_min"],
    }


def report(f: dict[str, Any]) -> str:
    """The figures as a block a person reads (the --json line has them all)."""

    def secs(v: float | None) -> str:
        return f"{v:.3f} s" if v is not None else f"no READY=1 within {f['ready_timeout_s']:.0f} s"

    def mark(key: str) -> str:
        return "met" if f["met"][key] else "NOT met"

    def ratio_text(v: float | None) -> str:
        return f"{v}x" if v is not None else "n/a"

    t = TARGETS
    return "\n".join(
        [
            f"tablectl longevity: {f['rounds']:,} rounds ({f['records']:,} records, generated "
            f"in {f['generate_s']} s) against {f['small_rounds']:,} (seed {f['seed']})",
            f"  import              {f['import_records_per_s']:,} records/s wall "
            f"({f['import_s']} s); tablectl printed {f['import_printed_records_per_s']:,.0f}/s"
            + (
                f" for the records, then {f['import_snapshot_s']} s for its snapshot"
                if f["import_snapshot_s"] is not None
                else ""
            ),
            f"  journal on disk     {f['bytes_per_round']:,} bytes/round "
            f"({f['journal_bytes']:,} bytes; {f['small_bytes_per_round']:,} at "
            f"{f['small_rounds']:,} rounds)   target <= {t['bytes_per_round_max']:.0f}: "
            f"{mark('bytes_per_round')}",
            f"    (after the import; {f['journal_bytes_after_starts']:,} bytes after the starts)",
            f"  first start         {secs(f['first_start_year_s'])} (small: "
            f"{secs(f['first_start_small_s'])}; ratio {ratio_text(f['first_start_ratio'])})   "
            f"target < {t['start_s_max']} s: {mark('first_start_s')}, ratio: "
            f"{mark('first_start_ratio')}",
            f"    (the first start after the import; last STATUS=: {f['start_status']!r})",
            f"  start to READY=1    {secs(f['start_year_s'])} (small: "
            f"{secs(f['start_small_s'])}; median of {f['repeats']}, taking turns, after the "
            f"first)   "
            f"target < {t['start_s_max']} s: {mark('start_s')}",
            f"  start ratio         {ratio_text(f['start_ratio'])}   target <= "
            f"{t['start_ratio_max']}: {mark('start_ratio')}",
            f"  RSS at READY        {f['rss_mb']} MB, the largest of the starts (small: "
            f"{f['small_rss_mb']} MB)   "
            f"target <= {t['rss_mb_max']:.0f} MB: {mark('rss_mb')}",
            f"  interpreter         Python {f['interpreter']['version']} "
            f"({f['interpreter']['binary']}, libpython {f['interpreter']['libpython']})",
            f"  journal replay      {f['replay_rounds_per_s']:,} rounds/s ({f['replay_rounds']:,}"
            f" rounds; runs {f['replay_runs_s']} s)   target >= "
            f"{t['replay_rounds_per_s_min']:.0f}: {mark('replay_rounds_per_s')}",
            f"    ({f['replay_method']})",
            f"  tablectl replay     {f['replay_command_rounds_per_s']:,} rounds/s "
            f"({f['replay_command_results']:,} results in {f['replay_command_s']} s)   target >= "
            f"{t['replay_command_rounds_per_s_min']:.0f}: {mark('replay_command_rounds_per_s')}",
            f"    ({f['replay_command_jobs']} worker(s), the default here; one process "
            f"({f['replay_command_one_process_s']} s): "
            f"{f['replay_command_one_process_rounds_per_s']:,} rounds/s, so "
            f"{f['replay_command_speedup']}x)",
            f"    ({f['replay_command_messages_per_round']} messages a round, every one rendered "
            f"and printed, the process's start included; alerts: "
            f"{f['replay_command_alerts'] or 'none'})",
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=500_000, help="the long history (a year)")
    ap.add_argument("--small", type=int, default=200, help="the short history it is compared to")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3, help="starts timed per journal (median)")
    ap.add_argument("--ready-timeout", type=float, default=READY_TIMEOUT, help="seconds")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    ap.add_argument("--json", action="store_true", help="also print every figure as JSON")
    a = ap.parse_args()
    figures = measure(
        a.rounds,
        a.small,
        seed=a.seed,
        repeats=a.repeats,
        ready_timeout=a.ready_timeout,
        workdir=a.keep,
    )
    print(report(figures))
    if a.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
