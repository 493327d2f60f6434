"""The journal: every input, hash-chained and durable before the engine sees it; and the outbox.

- store.py: the SQLite file (records, key starts, meta, snapshots), one writer at a time;
  file.py its modes, lock and transactions, schema.py its tables and upgrades, rows.py reading
  the rows back, chain.py what the hashes cover;
- outbox.py: the outputs waiting for the broker, in the same file;
- verification.py: the chain checks (`verify-journal`); heads.py: the chain heads and anchors
  the table publishes, read back from a heads file or collected off MQTT;
- segments.py: the journal closed month by month into files of their own, read as one history.

A record as a plain value, and the record time form, are in tablectl/records.py: the pure table
core uses them without loading SQLite.
"""

from tablectl.journal.errors import BadRecord, JournalError, JournalUnavailable
from tablectl.journal.store import Journal

__all__ = ["BadRecord", "Journal", "JournalError", "JournalUnavailable"]
