"""`tablectl replay --surveillance`: the journal records through the table and the surveillance
feed (tablectl/surveillance/feed.py), the feed's messages printed as JSON lines in the form
`tablectl replay` prints the table's: byte for byte what the daemon published on
`surveillance/#` for the same journal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence

from tablectl.config import LoadedConfig
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl.surveillance.feed import SurveillanceFeed, feed_inputs
from tablectl.table import Table

SURVEILLANCE_QOS = 1
"""The feed's messages go at QoS 1, not retained (docs/mqtt.md)."""


def replay_surveillance(
    cfg: LoadedConfig,
    table: Table,
    records: Iterable[Record],
    text: Callable[[Sequence[OutboxRow]], str],
) -> None:
    """Every record through `table`, its played inputs' whole echoes through the feed, and
    the feed's messages written to the standard output as `text` writes rows, in order."""
    feed = SurveillanceFeed(cfg.table.protection, cfg.table.table)
    base = cfg.table.base_topic
    table.unhidden = []
    for rec in records:
        rows = table.apply(rec)
        messages = feed.add(rec.seq, rec.ts, feed_inputs(table.take_unhidden(), rows), table.rules)
        if messages:
            lines = [
                OutboxRow(0, f"{base}/{m.suffix}", m.payload, SURVEILLANCE_QOS, False)
                for m in messages
            ]
            sys.stdout.write(text(lines))
