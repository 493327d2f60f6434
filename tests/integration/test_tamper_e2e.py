"""End to end: the daemon with a chain key, a real Mosquitto (locked, as a card
room's) and a simulated shoe on a real pty. The floor collects the journal heads the table
publishes (a floor subscriber, and `tablectl collect-heads` with the floor's user); then an
intruder rewrites a card in the journal and recomputes the public chain: `verify-journal` catches
it with the key and, without it, against the collected heads. A cut-off end is caught against the
heads too."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hil.tamper import cut_front
from tablectl.chainkey import create_key
from tablectl.cli import main as cli
from tablectl.journal.chain import GENESIS, record_hash
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.conftest import MosquittoBroker
from tests.integration.harness import REPO, Console, DaemonThread, write_config

pytestmark = pytest.mark.integration
BASE = "tablectl/it/t1"


@pytest.fixture
def shoe() -> Iterator[SimulatedShoe]:
    with SimulatedShoe() as s:
        yield s


def draw(console: Console, shoe: SimulatedShoe) -> None:
    """One card, and wait until the daemon has published it and the state after it."""

    def cards() -> list[int]:
        return sorted({e["seq"] for e in console.on("event") if e["type"] == "shoe.card"})

    before = len(cards())
    card = shoe.draw()
    console.wait_for(f"card {card}", lambda: len(cards()) > before)
    seq = cards()[-1]
    console.wait_for(
        f"state after {card}", lambda: any(s["seq"] > seq for s in console.on("state"))
    )


def play_round(console: Console, shoe: SimulatedShoe, rnd: int) -> None:
    console.ok("bank", {"seat": 4, "amount": "500"})
    console.ok("wager", {"seat": 1, "spot": "player", "amount": "25"})
    console.ok("wager", {"seat": 3, "spot": "banker", "amount": "50"})
    console.ok("bets.close", {})
    while not any(r["round"] == rnd for r in console.on("round/result")):
        draw(console, shoe)
    console.wait_for(f"round {rnd}'s head", lambda: len(console.on("journal/head")) >= rnd)


def rewrite_and_rechain(path: Path, seq: int, body: str) -> None:
    """What an intruder without the key can do: edit, and recompute the public SHA-256 chain."""
    db = sqlite3.connect(path)
    try:
        db.execute("UPDATE journal SET body = ? WHERE seq = ?", (body, seq))
        prev = GENESIS
        rows = db.execute("SELECT seq, ts, source, ref, body FROM journal ORDER BY seq").fetchall()
        for s, ts, source, ref, text in rows:
            digest = record_hash(prev, s, ts, source, ref, text)
            # schema 3: only the hash is stored (32 bytes); the one it follows is derived
            db.execute("UPDATE journal SET hash = ? WHERE seq = ?", (bytes.fromhex(digest), s))
            prev = digest
        db.execute("UPDATE applied SET hash = ?", (prev,))
        db.commit()
    finally:
        db.close()


def test_heads_collected_off_mqtt_catch_a_rewritten_journal(
    tmp_path: Path,
    mosquitto: MosquittoBroker,
    shoe: SimulatedShoe,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cfg = write_config(tmp_path, shoe_port=shoe.port, mqtt_port=mosquitto.port)
    text = cfg.read_text()
    cfg.write_text(text.replace("[journal]\n", '[journal]\nkey_file = "journal.key"\n'))
    key = create_key(tmp_path / "journal.key")
    floor = Console(mosquitto.port, BASE, client_id="it-floor", role="floor")
    console = Console(mosquitto.port, BASE)
    try:
        with DaemonThread(cfg):
            console.wait_for("shoe available", console.device_available)
            shoe.new_shoe(8, seed=3)
            console.wait_for(
                "shoe.new", lambda: any(e["type"] == "shoe.new" for e in console.on("event"))
            )
            play_round(console, shoe, 1)
            play_round(console, shoe, 2)
            floor.wait_for("both heads", lambda: len(floor.on("journal/head")) == 2)
            # a technician's collector, later: it gets the retained head
            credentials = mosquitto.credentials("floor", BASE)
            login: list[str] = []
            if credentials is not None:
                secret = tmp_path / "floor-password"
                secret.write_text(credentials[1] + "\n")
                login = ["--username", credentials[0], "--password-file", str(secret)]
            collected = subprocess.run(
                [
                    *(sys.executable, "-m", "tablectl.cli", "collect-heads", "--config", str(cfg)),
                    *login,
                    *("--count", "3", "--seconds", "10"),
                ],
                capture_output=True,
                text=True,
                cwd=REPO,
                timeout=30,
                check=True,
            ).stdout
    finally:
        floor.close()
        console.close()

    heads = floor.on("journal/head")
    results = floor.on("round/result")
    assert [r["chain"] for r in results] == [h["chain"] for h in heads]
    assert {h["chain"]["key"] for h in heads} == {key.id}
    by_topic = {m["topic"]: m for m in map(json.loads, collected.splitlines())}
    assert by_topic[f"{BASE}/journal/head"] == {
        "topic": f"{BASE}/journal/head",
        "payload": heads[-1],
        "retain": True,
    }
    # The anchors: record 1 begins the journal and, no month closed yet, the
    # live file too.
    start = by_topic[f"{BASE}/journal/start"]["payload"]
    segment = by_topic[f"{BASE}/journal/segment"]["payload"]
    assert start["chain"]["seq"] == segment["chain"]["seq"] == 1
    assert start["anchor"] == {"file": "journal", "prev_hash": GENESIS}
    assert segment["anchor"]["file"] == "segment" and start["chain"]["key"] == key.id
    collected_file = tmp_path / "collected.jsonl"
    collected_file.write_text(collected)

    heads_file = tmp_path / "heads.jsonl"  # as `mosquitto_sub -v` would have written them
    heads_file.write_text("".join(f"{BASE}/journal/head {json.dumps(h)}\n" for h in heads))
    journal = tmp_path / "journal.db"
    assert cli(["verify-journal", "--config", str(cfg), "--against", str(heads_file)]) == 0
    capsys.readouterr()

    cut = tmp_path / "cut.db"
    shutil.copy(journal, cut)
    front = tmp_path / "front.db"
    shutil.copy(journal, front)
    cut_front(front, 3, key)  # a key holder cuts records 1-3 off and signs the new start
    assert cli(["verify-journal", "--journal", str(front), "--key", str(key.path)]) == 0
    capsys.readouterr()
    assert cli(["verify-journal", "--journal", str(front), "--against", str(collected_file)]) == 1
    assert "records 1-3 were cut off its front" in capsys.readouterr().out

    # The first card of round 1 becomes another card; every later hash is recomputed.
    db = sqlite3.connect(journal)
    seq, body = db.execute(
        "SELECT seq, body FROM journal WHERE body LIKE '%shoe.card%' ORDER BY seq LIMIT 1"
    ).fetchone()
    db.close()
    card = json.loads(body)["card"]
    forged = json.dumps({"type": "shoe.card", "card": "9c" if card != "9c" else "9d"})
    rewrite_and_rechain(journal, seq, forged.replace(" ", ""))

    assert cli(["verify-journal", "--journal", str(journal)]) == 0  # the public chain alone
    capsys.readouterr()
    assert cli(["verify-journal", "--journal", str(journal), "--against", str(heads_file)]) == 1
    out = capsys.readouterr().out
    assert out.count("was published with hash") == 2, out  # both heads contradict it
    assert cli(["verify-journal", "--config", str(cfg)]) == 1
    assert f"record {seq}: keyed hash does not match (key {key.id})" in capsys.readouterr().out

    # A clean cut after round 1 (its head still agrees): round 2's head says what is missing.
    first_head = heads[0]["chain"]["seq"]
    db = sqlite3.connect(cut)
    db.execute("DELETE FROM journal WHERE seq > ?", (first_head,))
    db.execute("DELETE FROM outbox WHERE journal_seq > ?", (first_head,))
    db.execute(
        "UPDATE applied SET journal_seq = ?, "
        "hash = (SELECT lower(hex(hash)) FROM journal WHERE seq = ?)",
        (first_head, first_head),
    )
    db.commit()
    db.close()
    assert cli(["verify-journal", "--journal", str(cut), "--key", str(key.path)]) == 0
    capsys.readouterr()
    assert cli(["verify-journal", "--journal", str(cut), "--against", str(heads_file)]) == 1
    assert (
        f"but the journal ends at record {first_head}: records removed" in capsys.readouterr().out
    )
