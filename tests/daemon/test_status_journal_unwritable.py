"""`tablectl status` while the journal cannot be written (docs/operations.md
"Disk full"): the table is held, and the status socket still answers, since it needs no disk.

The disk fills at SQLite's lowest level, as tests/journal/test_disk_full.py does it (`PRAGMA
max_page_count` on the daemon's own connection: SQLITE_FULL, "database or disk is full"); the
daemon runs in this loop and the status is read over its real socket from another thread, as
`tablectl status` reads it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tablectl.cli.status import ask
from tablectl.status_socket import socket_path
from tests.journal.test_disk_full import Disk, feed_until_full, play, running, table_config, until


async def test_a_journal_the_disk_cannot_take_holds_the_table_and_status_says_so_exit_1(
    tmp_path: Path,
) -> None:
    async with running(table_config(tmp_path)) as (daemon, _):
        sock = socket_path(daemon.cfg.journal_path)
        before = await asyncio.to_thread(ask, sock)
        assert (before["exit"], before["state"], before["holds"]) == (0, "running", [])
        disk = Disk(daemon)
        disk.full()
        stuck, _ = await feed_until_full(daemon, play())
        shown = await asyncio.to_thread(ask, sock)
        assert (shown["exit"], shown["state"]) == (1, "HELD")
        (hold,) = shown["holds"]
        assert (hold["kind"], hold["reason"]) == ("journal-unwritable", "database or disk is full")
        assert hold["since"] == daemon._trouble_since
        disk.room()
        await until(lambda: stuck.done(), "the input journaled once there is room")
        after = await asyncio.to_thread(ask, sock)
        assert (after["exit"], after["holds"]) == (0, [])
