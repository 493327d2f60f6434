"""Tampering with the journal is detectable by anyone who was not holding the key.

A real SQLite journal of a short baccarat session is built through tablectl's own code (journal,
table, outbox, as the daemon's `_ingest` does) under a chain key made in the test's tmp folder.
The floor's witness is what the table published on `journal/head`. Then an intruder without the
key edits the file with a connection of their own, and recomputes every later public SHA-256 hash
as the chain prescribes: an edit, a removed record, two records swapped, an inserted record, the
end cut off. Each is caught with the key, or against the collected heads, or both (a clean cut of
the end is only visible against the heads, and `verify-journal` says what it could not check).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from hil.tamper import rechain
from tablectl.chainkey import KEY_BYTES, ChainKey, KeyFileError, create_key, load_key
from tablectl.cli import main
from tablectl.config import LoadedConfig
from tablectl.journal import Journal, JournalError
from tablectl.journal.chain import GENESIS, KeyStart, record_bytes, record_hash
from tablectl.journal.heads import Head, HeadsError, heads_from_lines, read_heads
from tablectl.records import Record
from tablectl.table import Table, journal_body
from tests.helpers import BASE, CLOSE, SHOE_NEW, bank, cards, make_config, wager, write_config

# Two finished rounds and a third in betting: round 1 a player natural, round 2 banker draws.
ROUND_1 = [
    bank(4, "500"),
    wager(1, "player", "25"),
    wager(2, "banker", "25"),
    wager(3, "tie", "5"),
    CLOSE,
    *cards("9h 2d Kc 5s"),
]
ROUND_2 = [
    bank(4, "300"),
    wager(1, "banker", "100"),
    wager(2, "player", "40"),
    CLOSE,
    *cards("2h 3d 4c 2s 7c"),
]
ROUND_3 = [bank(5, "200"), wager(2, "tie", "10")]
SESSION = [SHOE_NEW, *ROUND_1, *ROUND_2, *ROUND_3]  # records 1-21; rounds end at 10 and 19
BANKER_CARD = 8  # the record of round 1's first banker card, the 2d


def ts(n: int) -> str:
    return f"2026-11-26T10:00:{n:02d}.000000Z"


def ingest(cfg: LoadedConfig, events: list[Any], key: ChainKey | None) -> Journal:
    """Journal and apply events as the daemon does; returns the journal (open)."""
    table = Table(cfg)
    journal = Journal(cfg.journal_path, table=cfg.table.table, key=key)
    for rec in journal.records():
        table.apply(rec)
    for event in events:
        rec = journal.append(ts(journal.last_seq + 1), "test", None, journal_body(event))
        journal.write_outputs(rec, table.apply(rec))
    return journal


@pytest.fixture
def key(tmp_path: Path) -> ChainKey:
    return create_key(tmp_path / "journal.key")


@pytest.fixture
def cfg(tmp_path: Path) -> LoadedConfig:
    return make_config(tmp_path)


@pytest.fixture
def session(cfg: LoadedConfig, key: ChainKey) -> Iterator[Path]:
    """The keyed journal of SESSION, closed; yields its path."""
    ingest(cfg, SESSION, key).close()
    yield cfg.journal_path


def published_heads(path: Path) -> list[Head]:
    """What a floor subscriber of journal/head received, read back as `--against` reads it."""
    journal = Journal(path, table=None, readonly=True)
    try:
        rows = journal.outbox(topic_suffix="journal/head")
    finally:
        journal.close()
    lines = [f"{r.topic} {r.payload.decode()}" for r in rows]  # as `mosquitto_sub -v` prints
    return list(heads_from_lines(lines, "heads"))


def check(path: Path, keys: Sequence[ChainKey] = (), heads: Sequence[Head] = ()) -> Any:
    journal = Journal(path, table=None, readonly=True)
    try:
        return journal.check(keys, heads)
    finally:
        journal.close()


# -- the intruder: a connection of their own, no key -----------------------------------------


def sql(path: Path, *statements: str, params: list[tuple[Any, ...]] | None = None) -> None:
    db = sqlite3.connect(path)
    try:
        for i, statement in enumerate(statements):
            db.execute(statement, params[i] if params else ())
        db.commit()
    finally:
        db.close()


NATURAL_NOBODY_DEALT = '{"type":"shoe.card","card":"9c"}'


def edit(path: Path) -> None:
    """Round 1's banker is dealt a 9 of clubs instead of the 2 of diamonds."""
    sql(path, f"UPDATE journal SET body = '{NATURAL_NOBODY_DEALT}' WHERE seq = {BANKER_CARD}")


def delete(path: Path) -> None:
    """Seat 3's tie wager (record 5) never happened: removed, the later records renumbered."""
    sql(
        path,
        "DELETE FROM journal WHERE seq = 5",
        "UPDATE journal SET seq = seq - 1 WHERE seq > 5",
        "DELETE FROM outbox WHERE journal_seq = 5",
        "UPDATE outbox SET journal_seq = journal_seq - 1 WHERE journal_seq > 5",
    )


def reorder(path: Path) -> None:
    """Records 3 and 4 (two wagers) swap places."""
    sql(
        path,
        "UPDATE journal SET seq = -3 WHERE seq = 3",
        "UPDATE journal SET seq = 3 WHERE seq = 4",
        "UPDATE journal SET seq = 4 WHERE seq = -3",
    )


def insert(path: Path) -> None:
    """A wager nobody made, slipped in after record 4."""
    sql(
        path,
        "UPDATE journal SET seq = -seq WHERE seq > 4",
        "UPDATE journal SET seq = 1 - seq WHERE seq < 0",
        "INSERT INTO journal (seq, ts, source, ref, body, hash) VALUES "
        "(5, ?, 'test', NULL, ?, zeroblob(32))",
        "UPDATE outbox SET journal_seq = journal_seq + 1 WHERE journal_seq > 4",
        params=[
            (),
            (),
            (ts(4), json.dumps(journal_body(wager(6, "tie", "500")), separators=(",", ":"))),
            (),
        ],
    )


def truncate(path: Path) -> None:
    """Round 2 and everything after it cut off, with their outbox rows: a clean end."""
    end = 1 + len(ROUND_1)
    sql(
        path,
        f"DELETE FROM journal WHERE seq > {end}",
        f"DELETE FROM outbox WHERE journal_seq > {end}",
    )


ATTACKS = {"edit": edit, "delete": delete, "reorder": reorder, "insert": insert}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_recomputed_rewrite_passes_the_public_chain_but_not_the_key_nor_the_heads(
    session: Path, key: ChainKey, attack: str
) -> None:
    heads = published_heads(session)
    assert len(heads) == 2  # one per finished round
    ATTACKS[attack](session)
    rechain(session)
    # What the old journal had: every public hash recomputed, the chain "intact".
    assert check(session).problems == []
    with_key = check(session, [key]).problems
    assert any("keyed hash does not match" in p for p in with_key), with_key
    against = check(session, heads=heads).problems
    assert any("rewritten" in p for p in against), against


def test_a_rewrite_is_named_at_the_first_record_it_changed(session: Path, key: ChainKey) -> None:
    edit(session)
    rechain(session)
    problems = check(session, [key]).problems
    assert problems[0] == (
        f"record {BANKER_CARD}: keyed hash does not match (key {key.id}): contents or place "
        "rewritten without the key"
    )
    assert all(p.startswith("record ") for p in problems)


def test_a_clean_cut_of_the_end_is_caught_against_the_heads(session: Path, key: ChainKey) -> None:
    heads = published_heads(session)
    truncate(session)
    rechain(session)  # the applied mark moved back to the new last record
    assert check(session, [key]).problems == []  # every remaining record is genuine
    problems = check(session, heads=heads).problems
    assert len(problems) == 1
    assert "record 19 was published" in problems[0]
    assert problems[0].endswith("but the journal ends at record 10: records removed")


def test_stripping_the_key_and_recomputing_the_old_unkeyed_way_is_caught(
    session: Path, key: ChainKey
) -> None:
    """The intruder rewrites a record, recomputes the chain as an unkeyed journal's, and removes
    every trace of the key (its key starts, the keyed hashes): the journal looks unkeyed."""
    heads = published_heads(session)
    edit(session)
    sql(session, "UPDATE journal SET mac = NULL", "DELETE FROM keys")
    rechain(session)
    assert check(session).problems == []
    assert check(session, [key]).problems == [
        f"no record is keyed (keys given: {key.id}): the journal was never keyed, or its keyed "
        "hashes were stripped and its chain recomputed"
    ]
    assert any("rewritten" in p for p in check(session, heads=heads).problems)


def test_stripping_the_key_without_any_edit_is_caught_against_the_heads(
    session: Path,
) -> None:
    heads = published_heads(session)
    sql(session, "UPDATE journal SET mac = NULL", "DELETE FROM keys")
    problems = check(session, heads=heads).problems
    assert any("published under key" in p and "journal says none" in p for p in problems)


def test_a_key_of_the_intruders_own_is_caught(session: Path, key: ChainKey, tmp_path: Path) -> None:
    """Rewritten and re-keyed from the edit on with a key the intruder made, a well-formed key
    start and every keyed hash after it included: it is not the table's key."""
    edit(session)
    rechain(session)
    theirs = create_key(tmp_path / "theirs.key")
    db = sqlite3.connect(session)
    rows = db.execute("SELECT seq, ts, source, ref, body, hash FROM journal ORDER BY seq")
    prev = GENESIS  # the hash each record follows: the stored one of the record before it
    for seq, ts_, source, ref, body, digest in rows.fetchall():
        if seq >= BANKER_CARD:
            mac = theirs.mac(record_bytes(prev, seq, ts_, source, ref, body))
            db.execute("UPDATE journal SET mac = ? WHERE seq = ?", (bytes.fromhex(mac), seq))
            if seq == BANKER_CARD:
                start = KeyStart.data(seq, theirs.id, key.id, prev, ts_)
                db.execute(
                    "INSERT INTO keys VALUES (?, ?, ?, ?, ?, ?)",
                    (seq, theirs.id, key.id, prev, ts_, theirs.mac(start)),
                )
        prev = bytes(digest).hex()
    db.commit()
    db.close()
    assert check(session, [theirs]).problems == []  # consistent in itself, under their key
    assert check(session, [key]).problems == [
        f"key {theirs.id}, in force from record {BANKER_CARD}, was not given (keys given: "
        f"{key.id}): records {BANKER_CARD}-21 cannot be checked"
    ]


def test_moving_a_key_start_is_caught(session: Path, key: ChainKey) -> None:
    sql(session, "UPDATE keys SET first_seq = 5")
    problems = check(session, [key]).problems
    assert "key " + key.id + " from record 5: not made with that key (forged)" in problems


def test_an_intact_keyed_journal_verifies_with_the_key_and_the_heads(
    session: Path, key: ChainKey
) -> None:
    result = check(session, [key], published_heads(session))
    assert result.problems == []
    assert result.notes == [
        f"records 1-21: keyed hashes checked with key {key.id}",
        "checked against 2 published heads, up to record 19",
    ]


def test_without_a_key_verify_says_what_it_could_not_check(session: Path, key: ChainKey) -> None:
    result = check(session)
    assert result.problems == []
    assert result.notes[0] == f"records 1-21: keyed with key {key.id}, not checked (no key given)"
    assert "whoever edits the file can recompute" in result.notes[-1]


def test_against_heads_without_a_key_says_which_records_no_head_covers(
    cfg: LoadedConfig,
) -> None:
    ingest(cfg, SESSION, None).close()
    heads = published_heads(cfg.journal_path)
    result = check(cfg.journal_path, heads=heads)
    assert result.problems == []
    assert result.notes == [
        "checked against 2 published heads, up to record 19",
        "no key given: records 20-21, after the last head, are checked only by the public "
        "SHA-256 chain, which whoever edits the file can recompute",
    ]
    assert (
        check(cfg.journal_path, heads=heads[:1]).notes[-1].startswith("no key given: records 11-21")
    )


# -- heads: what the table publishes, and what replay reproduces ------------------------------


def test_each_finished_round_publishes_its_head_in_the_result_and_on_journal_head(
    session: Path, key: ChainKey
) -> None:
    journal = Journal(session, table=None, readonly=True)
    try:
        rows = journal.outbox()
        recs = {rec.seq: rec for rec in journal.records()}
    finally:
        journal.close()
    results = [json.loads(r.payload) for r in rows if r.topic == f"{BASE}/round/result"]
    heads = [r for r in rows if r.topic == f"{BASE}/journal/head"]
    assert [h.retain for h in heads] == [True, True]
    for result, head in zip(results, heads, strict=True):
        chain = result["chain"]
        rec = recs[chain["seq"]]
        assert chain == {"seq": rec.seq, "hash": rec.hash, "key": key.id}
        assert json.loads(head.payload)["chain"] == chain
        assert list(json.loads(head.payload)) == ["table", "seq", "ts", "v", "chain"]
        assert json.loads(head.payload)["ts"] == rec.ts  # the record that finished the round
    # the head follows the result it repeats
    seqs = {r.topic.removeprefix(BASE + "/"): r.seq for r in rows}
    assert seqs["round/result"] < seqs["journal/head"]


def test_export_then_replay_gives_the_outbox_byte_for_byte_heads_included(
    session: Path, cfg: LoadedConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    assert main(["export", "--config", str(config)]) == 0
    exported = tmp_path / "exported.jsonl"
    exported.write_text(capsys.readouterr().out)
    assert main(["replay", "--config", str(config), str(exported)]) == 0
    replayed = capsys.readouterr().out
    journal = Journal(session, table=None, readonly=True)
    try:
        stored = journal.outbox()
    finally:
        journal.close()
    expected = "".join(
        json.dumps(
            {"topic": r.topic, "payload": json.loads(r.payload), "qos": r.qos, "retain": r.retain},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        + "\n"
        for r in stored
    )
    assert replayed == expected
    assert replayed.count("/journal/head") == 2


def test_a_replayed_line_without_a_head_publishes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(e) + "\n" for e in [SHOE_NEW, *ROUND_1]))
    assert main(["replay", "--config", str(config), str(events)]) == 0
    out = capsys.readouterr().out
    assert "round/result" in out
    assert "journal/head" not in out and '"chain"' not in out


def test_heads_are_read_in_every_form_a_floor_keeps(tmp_path: Path) -> None:
    digest = "ab" * 32
    payload = {"table": "t1", "seq": 40, "chain": {"seq": 12, "hash": digest, "key": "0a1b2c3d"}}
    lines = [
        json.dumps(payload),  # a payload as stored
        json.dumps({"topic": f"{BASE}/journal/head", "payload": payload}),  # a whole message
        f"{BASE}/journal/head {json.dumps(payload)}",  # mosquitto_sub -v
        json.dumps({"seq": 13, "hash": digest}),  # a bare head, key not said
        json.dumps({"table": "t1", "seq": 41, "type": "bank"}),  # another topic: skipped
        "",
    ]
    path = tmp_path / "heads.jsonl"
    path.write_text("\n".join(lines))
    heads = read_heads(path)
    assert [(h.seq, h.key, h.key_known) for h in heads] == [
        (12, "0a1b2c3d", True),
        (13, None, False),
    ]
    assert heads[0].where == f"{path} line 1"
    path.write_text("not json\n")
    with pytest.raises(HeadsError, match="line 1: not JSON"):
        read_heads(path)
    path.write_text(json.dumps({"seq": 1, "hash": "short"}) + "\n")
    with pytest.raises(HeadsError, match="64 hex digits"):
        read_heads(path)
    path.write_text(json.dumps({"type": "bank"}) + "\n")
    with pytest.raises(HeadsError, match="no chain head"):
        read_heads(path)


# -- the command line --------------------------------------------------------------------------


def keyed_config(tmp_path: Path) -> Path:
    """The test config with `key_file` relative to it, as an install would have it."""
    path = write_config(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("[journal]\n", '[journal]\nkey_file = "journal.key"\n'))
    return path


def test_verify_journal_uses_the_configs_key_and_heads_and_exits_1_on_a_rewrite(
    session: Path, key: ChainKey, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = keyed_config(tmp_path)
    heads = tmp_path / "heads.jsonl"
    journal = Journal(session, table=None, readonly=True)
    try:
        heads.write_text("".join(r.payload.decode() + "\n" for r in journal.outbox()))
    finally:
        journal.close()
    assert main(["verify-journal", "--config", str(config), "--against", str(heads)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"{session}: ok: 21 records, chain intact",
        f"{session}: note: records 1-21: keyed hashes checked with key {key.id}",
        f"{session}: note: checked against 2 published heads, up to record 19",
        f"{session}: note: the heads hold no anchor (journal/start): whether records were cut "
        "off the journal's front is not checked against them",
    ]
    edit(session)
    rechain(session)
    assert main(["verify-journal", "--config", str(config)]) == 1
    assert f"{session}: record {BANKER_CARD}: keyed hash does not match" in capsys.readouterr().out
    assert main(["verify-journal", "--journal", str(session), "--against", str(heads)]) == 1
    out = capsys.readouterr().out
    assert f"{session}: head from {heads} line " in out
    assert "was published with hash" in out
    assert main(["verify-journal", "--journal", str(session), "--key", str(key.path)]) == 1


def test_keygen_writes_a_private_key_and_never_overwrites_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k" / "journal.key"
    path.parent.mkdir()
    old = os.umask(0)
    try:
        assert main(["keygen", str(path)]) == 0
    finally:
        os.umask(old)
    key = load_key(path)
    assert capsys.readouterr().out.startswith(f"{path}: key {key.id} written (mode 0600)")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_text().strip()) == 2 * KEY_BYTES
    before = path.read_bytes()
    assert main(["keygen", str(path)]) == 2
    assert "already exists; not overwritten" in capsys.readouterr().err
    assert path.read_bytes() == before
    # a folder given for the file (it said "already exists") is named as one
    assert main(["keygen", str(path.parent)]) == 2
    assert capsys.readouterr().err == (
        f"tablectl: key file {path.parent}: is a folder; give the new file's path in it "
        f"({path.parent / 'journal.key'})\n"
    )


def test_check_config_refuses_a_key_file_the_daemon_would_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = keyed_config(tmp_path)
    assert main(["check-config", str(config)]) == 2
    assert capsys.readouterr().err == (
        f"{config}: journal.key_file: key file {tmp_path / 'journal.key'}: missing; create one "
        f"with `tablectl keygen {tmp_path / 'journal.key'}` as the service user\n"
    )
    create_key(tmp_path / "journal.key")
    assert main(["check-config", str(config)]) == 0


def test_the_daemon_refuses_to_start_without_its_key_file(tmp_path: Path) -> None:
    from tablectl.config import load_config
    from tablectl.daemon import Daemon

    config = keyed_config(tmp_path)
    with pytest.raises(KeyFileError, match="missing"):
        Daemon(load_config(config))
    assert not (tmp_path / "journal.db").exists()


# -- the key file ------------------------------------------------------------------------------


def test_a_key_file_others_could_read_is_refused(key: ChainKey) -> None:
    assert key.path is not None
    for mode in (0o640, 0o604, 0o620):
        os.chmod(key.path, mode)
        with pytest.raises(KeyFileError, match=f"mode {mode:04o} lets group or others"):
            load_key(key.path)
    os.chmod(key.path, 0o400)
    assert load_key(key.path).id == key.id


def test_a_key_file_of_another_user_is_refused(
    key: ChainKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert key.path is not None
    owner = key.path.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1000 if owner + 1000 != 0 else 1)
    with pytest.raises(KeyFileError, match="not by the user running tablectl"):
        load_key(key.path)


@pytest.mark.parametrize(
    ("text", "reason"),
    [("ab" * (KEY_BYTES - 1), "31 bytes, a key needs at least 32"), ("not hex", "hex digits")],
)
def test_a_short_or_garbled_key_is_refused(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "bad.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, text.encode())
    os.close(fd)
    with pytest.raises(KeyFileError, match=reason):
        load_key(path)
    with pytest.raises(KeyFileError, match="missing"):
        load_key(tmp_path / "none.key")


def test_key_id_is_the_first_8_hex_digits_of_the_sha256_of_the_key(key: ChainKey) -> None:
    import hashlib

    assert key.id == hashlib.sha256(key.secret).hexdigest()[:8]
    assert key.secret.hex() not in repr(key)


# -- files private whatever the umask ------------------------------------------------------------


def test_journal_files_and_folders_are_private_under_umask_0(tmp_path: Path) -> None:
    path = tmp_path / "state" / "tables" / "journal.db"
    old = os.umask(0)
    try:
        journal = Journal(path, table="t1")
        journal.append(ts(1), "test", None, journal_body(SHOE_NEW))
        modes = {
            p.name: stat.S_IMODE(p.stat().st_mode)
            for p in (
                path,
                Path(f"{path}-wal"),
                Path(f"{path}-shm"),
                path.parent,
                path.parent.parent,
            )
        }
        journal.close()
    finally:
        os.umask(old)
    assert modes == {
        "journal.db": 0o600,
        "journal.db-wal": 0o600,
        "journal.db-shm": 0o600,
        "tables": 0o700,
        "state": 0o700,
    }


def test_an_existing_journal_open_to_others_keeps_its_mode(tmp_path: Path) -> None:
    """tablectl sets the mode only of files it creates: a journal whose mode
    was changed since is left so, and check-config names it (tests/config/test_paths.py)."""
    path = tmp_path / "journal.db"
    Journal(path, table="t1").close()
    os.chmod(path, 0o644)
    Journal(path, table="t1").close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


# -- rotation, and a journal that becomes keyed ------------------------------------------------


def test_rotation_keeps_old_records_verifiable_with_the_key_ring(
    cfg: LoadedConfig, key: ChainKey, tmp_path: Path
) -> None:
    ingest(cfg, [SHOE_NEW, *ROUND_1], key).close()
    new = create_key(tmp_path / "journal-2.key")
    journal = ingest(cfg, ROUND_2, new)
    assert journal.key_change == (key.id, new.id, 11)
    journal.close()
    path = cfg.journal_path
    both = check(path, [key, new])
    assert both.problems == []
    assert both.notes == [
        f"records 11-19: keyed hashes checked with key {new.id}",
        f"records 1-10: keyed hashes checked with key {key.id}",
    ]
    only_new = check(path, [new])
    assert only_new.problems == []  # not checkable is not tampered
    assert only_new.notes[-1] == (
        f"records 1-10: made with key {key.id}, which was not given: their contents are not "
        "checked, only their place in the chain"
    )
    only_old = check(path, [key])
    assert only_old.problems == [
        f"key {new.id}, in force from record 11, was not given (keys given: {key.id}): "
        "records 11-19 cannot be checked"
    ]
    # a rewrite of the new part, recomputed, is caught with the new key
    sql(path, 'UPDATE journal SET body = \'{"type":"shoe.card","card":"9c"}\' WHERE seq = 15')
    rechain(path)
    assert any("record 15: keyed hash does not match" in p for p in check(path, [new]).problems)


def test_an_unkeyed_journal_becomes_keyed_at_the_next_record(
    cfg: LoadedConfig, key: ChainKey
) -> None:
    ingest(cfg, [SHOE_NEW, *ROUND_1], None).close()
    path = cfg.journal_path
    assert check(path, [key]).problems[0].startswith("no record is keyed")
    journal = Journal(path, table="t1", key=key)  # the daemon started with a key
    assert journal.key_change == (None, key.id, 11)
    journal.close()
    assert check(path, [key]).problems == []  # the key start is there before any record
    ingest(cfg, ROUND_2, key).close()
    result = check(path, [key])
    assert result.problems == []
    assert result.notes[-1] == (
        "records 1-10: unkeyed (from before the journal was keyed); the keyed record after them "
        "seals their hashes"
    )
    # the unkeyed part cannot be rewritten either: record 11's keyed hash covers record 10's
    sql(path, 'UPDATE journal SET body = \'{"type":"shoe.card","card":"9c"}\' WHERE seq = 7')
    rechain(path)
    problems = check(path, [key]).problems
    assert any("does not follow record 10" in p for p in problems), problems
    assert any("record 11: keyed hash does not match" in p for p in problems), problems


def test_a_keyed_journal_is_not_written_without_its_key(cfg: LoadedConfig, session: Path) -> None:
    with pytest.raises(JournalError, match=r"is keyed .* set \[journal\] key_file"):
        Journal(session, table="t1")


def test_reopening_with_the_same_key_starts_nothing(session: Path, key: ChainKey) -> None:
    journal = Journal(session, table="t1", key=key)
    assert journal.key_change is None
    assert [k.first_seq for k in journal.key_starts] == [1]
    journal.close()


# -- a journal from before heads ----------------------------------------------------------------


def test_a_journal_from_before_heads_replays_its_old_records_without_any(
    cfg: LoadedConfig, tmp_path: Path
) -> None:
    """A schema-1 journal (no keyed hashes, no heads): reopened by this version, its old records
    give exactly the messages they gave (no head, so no new seq), and new rounds have heads.
    Opened writable, it is upgraded to schema 3 (hashes as bytes, no stored prev_hash) with the
    very same records and chain."""
    path = cfg.journal_path
    write_schema_1(path, cfg, [SHOE_NEW, *ROUND_1])
    old = Journal(path, table=None, readonly=True)
    assert not any(rec.witness for rec in old.records())
    assert old.verify() == []
    stored = old.outbox()
    before = list(old.records())
    old.close()
    table = Table(cfg)
    journal = Journal(path, table="t1")
    assert list(journal.records()) == before
    assert journal.verify() == []
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("3",)
        columns = [r[1] for r in db.execute("PRAGMA table_info(journal)")]
        assert columns == ["seq", "ts", "source", "ref", "body", "hash", "mac"]
        hashes = db.execute("SELECT seq, hash FROM journal ORDER BY seq").fetchall()
    finally:
        db.close()
    assert [(s, bytes(h).hex()) for s, h in hashes] == [(r.seq, r.hash) for r in before]
    rows = [row for rec in journal.records() for row in table.apply(rec)]
    assert rows == stored  # what restart recovery compares, message for message
    for event in ROUND_2:
        rec = journal.append(ts(journal.last_seq + 1), "test", None, journal_body(event))
        journal.write_outputs(rec, table.apply(rec))
    heads = journal.outbox(topic_suffix="journal/head")
    assert [json.loads(h.payload)["chain"]["seq"] for h in heads] == [19]
    assert journal.verify() == []
    journal.close()


SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE journal (seq INTEGER PRIMARY KEY, ts TEXT NOT NULL, source TEXT NOT NULL, ref TEXT,
    body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE outbox (seq INTEGER PRIMARY KEY, journal_seq INTEGER NOT NULL, topic TEXT NOT NULL,
    payload BLOB NOT NULL, qos INTEGER NOT NULL, retain INTEGER NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0);
CREATE TABLE applied (id INTEGER PRIMARY KEY CHECK (id = 1), journal_seq INTEGER NOT NULL,
    hash TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1'), ('table', 't1');
"""


def write_schema_1(path: Path, cfg: LoadedConfig, events: list[Any]) -> None:
    """A journal as the version before keys and heads wrote it: its schema, and outputs made from
    records that publish no head."""
    table = Table(cfg)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    prev = GENESIS
    for seq, event in enumerate(events, start=1):
        text = json.dumps(journal_body(event), separators=(",", ":"), ensure_ascii=False)
        digest = record_hash(prev, seq, ts(seq), "test", None, text)
        db.execute(
            "INSERT INTO journal VALUES (?, ?, 'test', NULL, ?, ?, ?)",
            (seq, ts(seq), text, prev, digest),
        )
        rec = Record(seq, ts(seq), "test", None, json.loads(text), prev, digest)
        for row in table.apply(rec):
            db.execute(
                "INSERT INTO outbox (seq, journal_seq, topic, payload, qos, retain) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (row.seq, seq, row.topic, row.payload, row.qos, int(row.retain)),
            )
        db.execute("INSERT OR REPLACE INTO applied VALUES (1, ?, ?)", (seq, digest))
        prev = digest
    db.commit()
    db.close()
