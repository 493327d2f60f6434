"""`tablectl import`: a table restored onto a replacement PC from its export.

The new journal's public chain is recomputed and equals the old one record for record (so heads
the floor collected still verify), the export must reproduce its own chain hashes, the history
is not published again, and the next message carries on the old table's count.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tablectl.cli import import_journal, main
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.exports import verified_lines
from tablectl.journal import Journal
from tests.table.test_rules_change import config

ROUND: list[dict[str, Any]] = [
    {"type": "bank", "seat": 1, "amount": "1000"},
    {"type": "wager", "seat": 2, "spot": "player", "amount": "400"},
    {"type": "bets.close"},
    *({"type": "shoe.card", "card": c} for c in ["9h", "2d", "Kc", "3s"]),  # natural 9 v 5
]


async def play(path: Path, inputs: list[dict[str, Any]]) -> None:
    daemon = Daemon(load_config(path))
    runner = asyncio.create_task(daemon.run(install_signals=False))
    try:
        for data in inputs:
            await daemon.submit("console", data)
    finally:
        daemon.stop()
        await runner


def export(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["export", "--config", str(path)]) == 0
    return capsys.readouterr().out


def moved(old: Path, tmp_path: Path) -> Path:
    """The same table's config on the replacement PC (a new, empty journal folder)."""
    new = tmp_path / "new"
    new.mkdir()
    target = new / "table.toml"
    target.write_text(old.read_text().replace('path = "journal.db"', f'path = "{new}/j.db"'))
    return target


async def test_export_then_import_gives_the_same_journal_and_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = config(tmp_path, "500")
    await play(old, [*ROUND, *ROUND[:2]])
    text = export(old, capsys)
    (tmp_path / "ev.jsonl").write_text(text)
    new = moved(old, tmp_path)
    assert main(["import", "--config", str(new), str(tmp_path / "ev.jsonl")]) == 0
    assert "records imported" in capsys.readouterr().out
    assert main(["verify-journal", "--config", str(new)]) == 0
    assert export(new, capsys) == text  # every record, and each head, as it was
    a = Journal(tmp_path / "journal.db", table="t1", readonly=True)
    b = Journal(tmp_path / "new" / "j.db", table="t1", readonly=True)
    assert [r.hash for r in a.records()] == [r.hash for r in b.records()]
    old_top = max(r.seq for r in a.outbox())
    a.close()
    b.close()
    # The replacement table starts without publishing the history again, and its next message
    # carries on the old table's count (consumers de-duplicate by seq).
    await play(new, [ROUND[2]])
    b = Journal(tmp_path / "new" / "j.db", table="t1", readonly=True)
    seqs = [r.seq for r in b.outbox()]
    b.close()
    assert seqs and min(seqs) == old_top + 1


def test_an_export_that_does_not_reproduce_its_own_chain_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = config(tmp_path, "500")
    asyncio.run(play(old, ROUND))
    lines = export(old, capsys).splitlines()
    headed = max(i for i, line in enumerate(lines) if '"chain"' in line)
    edited = [json.loads(line) for line in lines]
    card = next(i for i in range(headed, -1, -1) if edited[i]["type"] == "shoe.card")
    edited[card]["card"] = "Ah"  # a card rewritten, the chain hash left as it was
    path = tmp_path / "ev.jsonl"
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in edited))
    new = moved(old, tmp_path)
    assert main(["import", "--config", str(new), str(path)]) == 1  # a check failed
    err = capsys.readouterr().err
    assert f"line {card + 1} (record {card + 1})" in err and "altered" in err
    assert not (tmp_path / "new" / "j.db").exists()  # a refused import leaves no journal


def test_an_import_that_stops_after_a_batch_leaves_a_journal_the_daemon_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Import commits in batches: one that stops after a batch (Ctrl-C, a kill, a power cut)
    leaves a partial journal marked as importing, which neither the daemon nor verify-journal
    accepts (the daemon would publish the history again and fork the chain)."""
    real = Journal.import_records

    def small_batches(self: Journal, lines: Any, *, batch: int = 5000) -> int:
        return real(self, lines, batch=3)

    def stopped(lines: Any) -> Any:
        for n, line in enumerate(verified_lines(lines)):
            if n == 4:  # after the first batch of 3 was committed
                raise KeyboardInterrupt
            yield line

    monkeypatch.setattr(Journal, "import_records", small_batches)
    monkeypatch.setattr(import_journal, "verified_lines", stopped)
    old = config(tmp_path, "500")
    asyncio.run(play(old, [*ROUND, *ROUND]))
    text = export(old, capsys)
    (tmp_path / "ev.jsonl").write_text(text)
    new = moved(old, tmp_path)
    with pytest.raises(KeyboardInterrupt):
        main(["import", "--config", str(new), str(tmp_path / "ev.jsonl")])
    partial = Journal(tmp_path / "new" / "j.db", table="t1", readonly=True)
    assert partial.last_seq >= 3 and partial.meta("importing") == "1"
    partial.close()
    held = Daemon(load_config(new))  # held on it, never run on it
    assert held.fault is not None and held.fault.record is None
    assert "j.db: an import did not finish: move it away" in held.fault.reason
    assert main(["verify-journal", "--config", str(new)]) == 1
    assert "an import did not finish" in capsys.readouterr().out
    # The whole export imports into a new folder and carries no marker.
    monkeypatch.undo()
    (tmp_path / "new").rename(tmp_path / "partial")
    new = moved(old, tmp_path)
    assert main(["import", "--config", str(new), str(tmp_path / "ev.jsonl")]) == 0
    done = Journal(tmp_path / "new" / "j.db", table="t1", readonly=True)
    assert done.last_seq == len(text.splitlines()) and done.meta("importing") is None
    done.close()
    assert main(["verify-journal", "--config", str(new)]) == 0


def test_import_never_writes_into_a_journal_that_holds_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = config(tmp_path, "500")
    asyncio.run(play(old, ROUND[:1]))
    (tmp_path / "ev.jsonl").write_text(export(old, capsys))
    assert main(["import", "--config", str(old), str(tmp_path / "ev.jsonl")]) == 2
    assert "exists" in capsys.readouterr().err


REPO = Path(__file__).resolve().parents[2]


def _journal_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("j.db"))


async def test_an_import_refused_before_or_after_its_first_line_leaves_no_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export that cannot be read (missing, a folder) or holds nothing: one line, exit 2 or
    1, and no journal left behind, so the import with the right file is not then refused as
    "exists" (a missing file once left an empty journal and a traceback)."""
    old = config(tmp_path, "500")
    await play(old, ROUND)
    (tmp_path / "ev.jsonl").write_text(export(old, capsys))
    new = moved(old, tmp_path)
    for events, code, said in [
        (tmp_path / "missing.jsonl", 2, "cannot read the export"),
        (tmp_path, 2, "cannot read the export"),
    ]:
        assert main(["import", "--config", str(new), str(events)]) == code
        err = capsys.readouterr().err
        assert err.startswith(f"tablectl: {said} {events}: ") and "Traceback" not in err
        assert _journal_files(new.parent) == []
    (tmp_path / "empty.jsonl").write_text("\n")
    assert main(["import", "--config", str(new), str(tmp_path / "empty.jsonl")]) == 1
    assert "holds no records" in capsys.readouterr().err
    assert _journal_files(new.parent) == []
    assert main(["import", "--config", str(new), str(tmp_path / "ev.jsonl")]) == 0


async def test_an_export_of_another_game_is_not_restored_under_this_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A baccarat table's export imported with a Three Card Poker table's config (the wrong
    file, or the wrong config on the replacement PC) is refused naming both games, and leaves
    no journal: the table would have started as another game over that history."""
    old = config(tmp_path, "500")
    await play(old, ROUND)
    (tmp_path / "ev.jsonl").write_text(export(old, capsys))
    other = tmp_path / "new"
    other.mkdir()
    text = (REPO / "config" / "three-card-poker-6cb-003.toml").read_text(encoding="utf-8")
    poker = other / "table.toml"
    text = text.replace('"/var/lib/tablectl/tcp-03.db"', f'"{other}/j.db"')
    text = text.replace('file = "schedules/', f'file = "{REPO}/config/schedules/')
    poker.write_text(text.replace("[mqtt]", "[mqtt]\nenabled = false"))
    assert main(["import", "--config", str(poker), str(tmp_path / "ev.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "is the export of a ez-baccarat-panda8 table" in err
    assert "sets three-card-poker-6cb" in err
    assert _journal_files(other) == []
