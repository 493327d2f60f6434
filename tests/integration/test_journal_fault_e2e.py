"""Ten tables, each on a journal broken one of the ten ways of
hil/journal_faults.py, run as real `tablectl run` processes side by side under a stand-in for
systemd (hil/supervise.py: Type=notify, a watchdog, Restart=always with RestartSec=2) against the
locked broker, for 60 seconds. Each must start exactly once and stay up, held: READY=1, its
watchdog fed, the retained `journal/status` and the `journal-fault` alert naming the record and
why (every payload checked against its schema as received), a command refused without being
journaled, a clean exit 0 on SIGTERM, and its journal left as it was found. On main each of them
exited at every start, and the stand-in restarted it every 2 s."""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from hil.journal_faults import KINDS, build, rows_kept
from hil.supervise import Supervised, supervise
from tablectl.config import load_config
from tests.conftest import MosquittoBroker
from tests.integration.harness import Console, write_config

pytestmark = pytest.mark.integration

WATCHED_SECONDS = 60.0
WATCHDOG_SECONDS = 4.0  # pings every 2 s: a missed one is a kill and a restart, within the 60 s


def told_the_fault(console: Console) -> bool:
    """Whether the table's `journal-fault` alert reached the console."""
    return any(a.get("kind") == "journal-fault" for a in console.on("alert"))


@pytest.mark.timeout(180)
def test_ten_unreplayable_journals_each_start_once_and_stay_up_held_for_60_seconds(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    tables: dict[str, tuple[Path, str]] = {}  # kind -> (config, base topic)
    kept: dict[str, list[tuple[Any, ...]]] = {}
    for i, kind in enumerate(KINDS):
        folder = tmp_path / kind
        folder.mkdir()
        config = write_config(
            folder, shoe_port="/dev/null", mqtt_port=mosquitto.port, table=f"f{i}"
        )
        cfg = load_config(config)
        KINDS[kind].doctor(build(cfg))
        kept[kind] = rows_kept(cfg.journal_path)
        tables[kind] = (config, cfg.table.base_topic)
    consoles = {
        kind: Console(mosquitto.port, base, client_id=f"it-{kind}")
        for kind, (_, base) in tables.items()
    }
    with tempfile.TemporaryDirectory(prefix="sup-") as short:  # unix socket paths are short
        units = {
            kind: Supervised(config, Path(short), kind, watchdog=WATCHDOG_SECONDS)
            for kind, (config, _) in tables.items()
        }
        try:
            for console in consoles.values():
                assert console.subscribed.wait(10)
            supervise(list(units.values()), WATCHED_SECONDS)
            for kind, unit in units.items():
                record = KINDS[kind].record
                where = "the journal file" if record is None else f"record {record}"
                assert (unit.starts, unit.ends, unit.running) == (1, [], True), unit.summary()
                assert unit.ready == 1 and unit.pings >= WATCHED_SECONDS / WATCHDOG_SECONDS
                assert (unit.status or "").startswith(f"JOURNAL FAULT at {where}: ")
                console = consoles[kind]
                console.wait_for(f"{kind}: the alert", partial(told_the_fault, console))
                status = console.on("journal/status")[-1]
                assert status["writable"] is False and status["fault"]["record"] == record
                assert KINDS[kind].says in status["fault"]["reason"]
                alert = console.on("alert")[-1]
                assert (alert["kind"], alert["record"]) == ("journal-fault", record)
                reply = console.send("bank", {"seat": 3, "amount": "500"})
                assert (reply["ok"], reply["journaled"]) == (False, False)
                assert f"journal fault at {where}" in reply["reason"]
            for kind, unit in units.items():
                assert unit.stop() == 0, f"{kind}: {unit.log.read_text()[-2000:]}"
        finally:
            for unit in units.values():
                unit.stop()
            for console in consoles.values():
                console.close()
    for kind, (config, _) in tables.items():
        assert rows_kept(load_config(config).journal_path) == kept[kind], kind
