"""A table's export loaded into the books: for numbers the table's outbox no longer holds (a
PC replaced, a ledger set up after months of play). The export is replayed through the table's
own engine with the table's config, which gives the very messages the table published, numbers
included (docs/operations.md "Regression fixtures"); each is written as if it had come off the
broker, so what the books already hold is left as it is."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tablectl.cli.replay import replay_records
from tablectl.config import LoadedConfig
from tablectl.ledger.messages import Received, read_message
from tablectl.ledger.store import LedgerStore, Written
from tablectl.table import Table

LOAD_BATCH = 2000


def exported_messages(table_cfg: LoadedConfig, lines: Iterable[str]) -> Iterator[Received]:
    """Every numbered message the table published for the records of its export, in order."""
    table = Table(table_cfg)
    prefix = table_cfg.table.base_topic.split("/", 1)[0]
    for rec in replay_records(iter(lines)):
        for row in table.apply(rec):
            msg = read_message(prefix, row.topic, row.payload)
            if msg is not None:
                yield msg


def load_export(store: LedgerStore, table_cfg: LoadedConfig, lines: Iterable[str]) -> Written:
    """Write the export's messages in batches; the totals of what the batches did."""
    rows = counted = repeated = 0
    batch: list[Received] = []
    for msg in exported_messages(table_cfg, lines):
        batch.append(msg)
        if len(batch) >= LOAD_BATCH:
            done = store.write(batch)
            rows, counted, repeated = (
                rows + done.rows,
                counted + done.counted,
                repeated + done.repeated,
            )
            batch.clear()
    if batch:
        done = store.write(batch)
        rows, counted, repeated = rows + done.rows, counted + done.counted, repeated + done.repeated
    return Written(rows, counted, repeated)
