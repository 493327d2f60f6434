"""Issue 24 item 1: `tablectl import` proves every line of an export against the public chain.

The finding on 4379ae3: delete one line of an export and change a later wager from 10 to 500,
and `import` printed `records imported`, exit 0, after which `verify-journal` with the new
table's key said `chain intact`. A line whose `chain.seq` differed from its line number carried
no claimed hash, so after one deleted or inserted line no later hash was checked. Now a line
deleted, inserted, moved or edited anywhere refuses the whole import, naming the first bad line,
and leaves no journal behind; an export whose chain an intruder recomputed is caught by the old
table's heads (`--against`), which the restored journal stays tied to (its provenance names the
old table's keys).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hil.tamper import edited_line, rechained_export
from tablectl.chainkey import ChainKey, create_key
from tablectl.cli import main
from tablectl.exports import ExportError, verified_lines
from tablectl.journal import Journal
from tablectl.journal.chain import GENESIS, record_bytes
from tests.helpers import make_config, write_config
from tests.journal.test_tamper import SESSION, ingest

WAGER_LINE = 13  # record 13 of SESSION: round 2's player wager of 40.00 at seat 2


@pytest.fixture
def old(tmp_path: Path) -> Path:
    """The old table's keyed journal of SESSION (21 records, heads published at 10 and 19)."""
    folder = tmp_path / "old"
    folder.mkdir()
    ingest(make_config(folder), SESSION, create_key(folder / "journal.key")).close()
    return folder / "journal.db"


@pytest.fixture
def new_key(tmp_path: Path) -> ChainKey:
    (tmp_path / "new").mkdir()
    return create_key(tmp_path / "new" / "journal.key")


@pytest.fixture
def new(tmp_path: Path, new_key: ChainKey) -> Path:
    """The replacement PC's config: the same table, its own key, no journal yet."""
    path = write_config(tmp_path / "new")
    text = path.read_text()
    path.write_text(text.replace("[journal]\n", '[journal]\nkey_file = "journal.key"\n'))
    return path


def exported(journal: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    capsys.readouterr()
    assert main(["export", "--journal", str(journal)]) == 0
    return capsys.readouterr().out.splitlines()


def heads_file(journal: Path, target: Path) -> Path:
    """The old table's published heads, as a floor that kept its messages holds them."""
    j = Journal(journal, table=None, readonly=True)
    try:
        rows = j.outbox(topic_suffix="journal/head")
    finally:
        j.close()
    target.write_text("".join(r.payload.decode() + "\n" for r in rows))
    return target


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def import_(
    new: Path, export: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["import", "--config", str(new), str(export), *extra])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_every_exported_line_carries_its_chain_head(
    old: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = exported(old, capsys)
    assert len(lines) == 21
    for seq, line in enumerate(lines, start=1):
        chain = json.loads(line)["chain"]
        assert chain["seq"] == seq and len(chain["hash"]) == 64 and "published" not in chain


def test_the_findings_export_a_line_deleted_and_a_later_wager_raised_is_refused(
    old: Path, new: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = exported(old, capsys)
    assert json.loads(lines[WAGER_LINE - 1])["amount"] == "40.00"
    tampered = lines[:4] + lines[5:]  # record 5 gone
    tampered[WAGER_LINE - 2] = edited_line(tampered[WAGER_LINE - 2], amount="500.00")
    code, said = import_(new, write(tmp_path / "ev.jsonl", tampered), capsys)
    assert code == 1
    assert "line 5: says it is record 6, but it is record 5 of the export" in said
    assert "1 line(s) before it were deleted" in said and "nothing imported" in said
    assert not (tmp_path / "new" / "journal.db").exists()  # no journal a daemon could start on


@pytest.mark.parametrize(
    ("tamper", "first_bad"),
    [
        (lambda ls: ls[:9] + ls[10:], "line 10: says it is record 11, but it is record 10"),
        (lambda ls: [*ls[:3], ls[7], *ls[3:]], "line 4: says it is record 8, but it is record 4"),
        (lambda ls: [*ls[:3], ls[4], ls[3], *ls[5:]], "line 4: says it is record 5"),
        (lambda ls: [*ls[:-1], edited_line(ls[-1], amount="11.00")], "line 21 (record 21): its"),
        (lambda ls: [edited_line(ls[0], ts="2026-11-26T09:00:00Z"), *ls[1:]], "line 1 (record 1)"),
        (lambda ls: [*ls, ls[-1]], "line 22: says it is record 21, but it is record 22"),
    ],
    ids=["deleted", "inserted", "moved", "edited-last", "edited-first-ts", "repeated-last"],
)
def test_a_line_deleted_inserted_moved_or_edited_anywhere_refuses_the_whole_import(
    old: Path,
    new: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tamper: Any,
    first_bad: str,
) -> None:
    code, said = import_(new, write(tmp_path / "ev.jsonl", tamper(exported(old, capsys))), capsys)
    assert code == 1, said
    assert first_bad in said
    assert not (tmp_path / "new" / "journal.db").exists()


def test_a_recomputed_export_passes_alone_but_not_against_the_old_tables_heads(
    old: Path, new: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whoever edits an export can recompute its public chain: the export is then consistent
    with itself, and only the old table's heads (or its key) tell. Import --against refuses it;
    imported without them, verify-journal --against the heads fails it afterwards."""
    lines = exported(old, capsys)
    tampered = lines[:4] + lines[5:]
    tampered[WAGER_LINE - 2] = edited_line(tampered[WAGER_LINE - 2], amount="500.00")
    export = write(tmp_path / "ev.jsonl", rechained_export(tampered))
    heads = heads_file(old, tmp_path / "heads.jsonl")
    code, said = import_(new, export, capsys, "--against", str(heads))
    assert code == 1
    assert "does not agree with" in said and "was published with hash" in said
    assert not (tmp_path / "new" / "journal.db").exists()
    code, said = import_(new, export, capsys)
    assert code == 0, said
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(new), "--against", str(heads)]) == 1
    assert "record 10 was published with hash" in capsys.readouterr().out


def test_a_restored_journal_verifies_against_the_old_tables_heads_and_names_where_it_came_from(
    old: Path, new: Path, new_key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The old heads name the old table's key; the restored journal is signed with the new
    one. Its provenance (meta `imported`) keeps the old keys, so the heads still agree."""
    lines = exported(old, capsys)
    heads = heads_file(old, tmp_path / "heads.jsonl")
    code, said = import_(new, write(tmp_path / "ev.jsonl", lines), capsys, "--against", str(heads))
    assert code == 0, said
    assert "21 records imported" in said and "every one of 2 heads" in said
    restored = tmp_path / "new" / "journal.db"
    j = Journal(restored, table=None, readonly=True)
    try:
        origin = j.provenance
        old_key = json.loads(lines[0])["chain"]["key"]
        assert origin is not None and (origin.first, origin.last) == (1, 21)
        assert origin.last_hash == json.loads(lines[-1])["chain"]["hash"]
        assert origin.keys == [[1, old_key]] and old_key != new_key.id
    finally:
        j.close()
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(new), "--against", str(heads)]) == 0
    out = capsys.readouterr().out
    assert "chain intact" in out and "were imported from an export" in out
    assert f"keyed hashes checked with key {new_key.id}" in out


def test_a_verified_line_needs_every_line_after_a_head_to_carry_one(tmp_path: Path) -> None:
    """An export written before every line carried its head has head-less lines only at its
    start (records from before heads were published); the first head after them proves them.
    A head-less line after a headed one is an inserted line."""
    body = {"type": "bets.close"}
    prev, lines = GENESIS, []
    for seq in (1, 2, 3):
        ts = f"2026-11-26T10:00:0{seq}.000000Z"
        text = json.dumps(body, separators=(",", ":"))
        prev = hashlib.sha256(record_bytes(prev, seq, ts, "test", None, text)).hexdigest()
        line: dict[str, Any] = {**body, "ts": ts, "source": "test"}
        if seq == 3:
            line["chain"] = {"seq": 3, "hash": prev, "key": None}
        lines.append(json.dumps(line))
    assert [p.seq for p in verified_lines(lines)] == [1, 2, 3]
    with pytest.raises(ExportError, match="lines 1-2 carry no chain head and no line after"):
        list(verified_lines(lines[:2]))
    with pytest.raises(ExportError, match="line 4: carries no chain head, after lines that do"):
        list(verified_lines([*lines, lines[0]]))
    # a line typed in by hand lacks its time too: it is still named as inserted (it said
    # "`ts` must be text")
    with pytest.raises(ExportError, match="line 4: carries no chain head, after lines that do"):
        list(verified_lines([*lines, '{"type": "wager", "seat": 2, "amount": "5.00"}']))
    with pytest.raises(ExportError, match=r"lines 1-3 \(no heads before it\) were altered"):
        list(verified_lines([lines[1], lines[0], lines[2]]))


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("not json", "line 1: not JSON"),
        ("[1, 2]", "line 1: not a JSON object"),
        ('{"type": "bets.close", "source": "x"}', "line 1: `ts` must be text"),
        ('{"type": "bets.close", "ts": "t", "source": "x", "chain": 3}', "`chain` must be an"),
        (
            '{"type": "bets.close", "ts": "t", "source": "x", "chain": {"seq": 1, "hash": "ab"}}',
            "`chain.hash` must be 64 hex digits",
        ),
    ],
)
def test_a_line_that_is_no_export_line_is_named(line: str, reason: str) -> None:
    with pytest.raises(ExportError, match=reason):
        list(verified_lines([line]))


def test_the_restored_tables_own_anchors_verify_beside_the_old_tables_heads(
    old: Path, new: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the import the new table publishes its anchors (record 1 is the old table's): they
    name the key the old table had for it, as the old heads do, so a heads file that holds both
    verifies. (Found in review: they named the new key, and failed as 'key starts altered'.)"""
    from tablectl.journal.heads import anchors

    lines = exported(old, capsys)
    heads = heads_file(old, tmp_path / "heads.jsonl")
    code, said = import_(new, write(tmp_path / "ev.jsonl", lines), capsys)
    assert code == 0, said
    restored = Journal(tmp_path / "new" / "journal.db", table=None, readonly=True)
    try:
        published = [
            json.dumps({"chain": fields["chain"], "anchor": fields["anchor"]})
            for _, fields in anchors(restored)
        ]
    finally:
        restored.close()
    assert {json.loads(p)["chain"]["key"] for p in published} == {
        json.loads(lines[0])["chain"]["key"]
    }
    with heads.open("a") as out:
        out.write("".join(p + "\n" for p in published))
    capsys.readouterr()
    assert main(["verify-journal", "--config", str(new), "--against", str(heads)]) == 0


def test_published_is_not_in_the_chain_so_it_may_turn_true_only_once(
    old: Path, new: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`chain.published` is not covered by the hash, and it decides how many messages the
    restored table counts: a line that says its head was not published after one that was is
    refused; heads made unpublished at the start are refused --against the heads the old table
    did publish."""
    lines = exported(old, capsys)
    flipped = [
        *lines[:15],
        edited_line(lines[15], chain={**json.loads(lines[15])["chain"], "published": False}),
        *lines[16:],
    ]
    code, said = import_(new, write(tmp_path / "ev.jsonl", flipped), capsys)
    assert code == 1 and "line 16 (record 16): says its head was not published" in said
    hidden = [
        edited_line(line, chain={**json.loads(line)["chain"], "published": False})
        if n < 12
        else line
        for n, line in enumerate(lines)
    ]
    export = write(tmp_path / "hidden.jsonl", hidden)
    heads = heads_file(old, tmp_path / "heads.jsonl")
    code, said = import_(new, export, capsys, "--against", str(heads))
    assert code == 1
    assert "record 10 was published with a head, the export says heads began at record 13" in said
