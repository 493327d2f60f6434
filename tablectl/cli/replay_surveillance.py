"""`tablectl replay --surveillance`: a file of input events through the table and the
surveillance feed (tablectl/surveillance/feed.py), the feed's messages printed as JSON lines in
the form `tablectl replay` prints the table's, byte for byte what the daemon published on
`surveillance/#` for the same journal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from tablectl.cli.common import EXIT_OK
from tablectl.cli.replay import replay_records, rows_text
from tablectl.config import LoadedConfig
from tablectl.outputs import OutboxRow
from tablectl.surveillance.feed import SurveillanceFeed
from tablectl.table import Table

SURVEILLANCE_QOS = 1
"""The feed's messages go at QoS 1, not retained (docs/mqtt.md)."""


def replay_surveillance(cfg: LoadedConfig, table: Table, events: Path) -> int:
    """Every record of `events` through `table`, and its played inputs' whole echoes through
    the feed; the feed's messages printed, in order."""
    feed = SurveillanceFeed(cfg.table.protection, cfg.table.table)
    base = cfg.table.base_topic
    table.unhidden = []
    stream: TextIO = (
        sys.stdin if str(events) == "-" else events.open(encoding="utf-8", errors="replace")
    )
    with stream:
        for rec in replay_records(iter(stream)):
            table.apply(rec)
            messages = feed.add(rec.seq, rec.ts, table.take_unhidden(), table.rules)
            rows = [
                OutboxRow(0, f"{base}/{m.suffix}", m.payload, SURVEILLANCE_QOS, False)
                for m in messages
            ]
            if rows:
                sys.stdout.write(rows_text(rows))
    return EXIT_OK
