"""A record's messages leave only once the journal has committed the input (docs/architecture.md
"A card's path"). They may go before the outbox stores them, in the same turn, only when no
stored row can differ from them: the broker's acknowledgment then always ends with the row
marked sent (a row acknowledged while a full disk kept it from the outbox is stored sent), and
a record whose messages differ from the ones stored for it holds the table without a message of
it on the wire.

Both were broken for a while by a relay that published a record's rows between the journal's
commit and the outbox's store without those two guards; these tests were written against that."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hil.journal_faults import build, edit_the_second_wager
from tablectl.daemon.inputs import JournalHeld
from tests.conftest import MosquittoBroker
from tests.daemon import test_journal_fault as fault
from tests.journal import test_disk_full as disk


@pytest.mark.integration
async def test_rows_acknowledged_while_the_outbox_cannot_store_them_end_marked_sent(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    path = disk.table_config(tmp_path, mosquitto)
    async with disk.Floor(mosquitto) as floor, disk.running(path) as (daemon, _runner):
        await disk.until(lambda: floor.on("status")[-1:] == ["online"], "online")
        await disk.until(lambda: daemon.journal.unsent_count() == 0, "drained")
        filling = disk.Filling(daemon, at="outputs")
        filling.start()
        stuck, _done = await disk.feed_until_full(daemon, disk.play())
        await asyncio.sleep(0.5)  # the input is journaled, its outputs cannot be stored yet
        filling.stop()
        await asyncio.wait_for(stuck, 10)
        await disk.until(lambda: daemon.journal.unsent_count() == 0, "every row marked sent")
        assert daemon.status_line().endswith("; 0 unsent")


@pytest.mark.integration
async def test_a_record_whose_rows_differ_from_the_stored_ones_publishes_none_of_them(
    tmp_path: Path, mosquitto: MosquittoBroker
) -> None:
    cfg = fault.table(tmp_path, mosquitto.port, shoe=False)
    path = build(cfg)
    edit_the_second_wager(path)
    async with fault.Floor(mosquitto) as floor, fault.running(cfg) as daemon:
        await fault.until(lambda: floor.on("status")[-1:] == ["online"], "online")
        await asyncio.sleep(0.5)
        before = len(floor.messages)
        assert daemon.fault is None
        with pytest.raises(JournalHeld):
            await daemon.submit("console", {"type": "bank", "seat": 5, "amount": "200"})
        await asyncio.sleep(0.5)
        numbered = [
            (topic, payload["seq"])
            for topic, payload, _ in floor.messages[before:]
            if isinstance(payload, dict) and "seq" in payload
        ]
        assert numbered == []


def test_the_test_clock_reaches_every_daemon_module_that_reads_the_time() -> None:
    """The `clock` fixture (tests/conftest.py) sets the time in each daemon module that takes
    `now_ts`: one left out would read the real clock under a test's month."""
    from tests.conftest import DAEMON_CLOCK_READERS

    root = Path(__file__).resolve().parents[2] / "tablectl" / "daemon"
    readers = {
        f"tablectl.daemon.{path.stem}"
        for path in root.glob("*.py")
        if "import now_ts" in path.read_text(encoding="utf-8")
        or ", now_ts" in path.read_text(encoding="utf-8")
    }
    assert readers == set(DAEMON_CLOCK_READERS)
