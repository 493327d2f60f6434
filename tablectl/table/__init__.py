"""The table: journal records in, numbered outbox messages out (`Table`), split by job:

- `state`: what the table holds between records and the steps every record shares;
- `sequencing`: cards and events from the devices, placed in each device's count;
- `holds`: a held round's inputs, kept until the floor resumes or voids it;
- `alerting`: the table's own alerts, the pace band and the alerts left open;
- `replies`: command ids remembered (R54) and the replies to commands;
- `masking`: what an alert may show of a card;
- `replay`: `advance`'s short way through the usual record;
- `inputs`: what is journaled for an input and where it is routed;
- `table`: `Table` itself, which applies a record and numbers its messages.

The names the daemon, the CLI and the tests use are importable from here.
"""

from __future__ import annotations

from tablectl.table.inputs import HAND_ENTERED_TYPES, journal_body, journal_input
from tablectl.table.masking import mask_cards
from tablectl.table.replies import COMMAND_ID_WINDOW
from tablectl.table.table import Table

__all__ = [
    "COMMAND_ID_WINDOW",
    "HAND_ENTERED_TYPES",
    "Table",
    "journal_body",
    "journal_input",
    "mask_cards",
]
