"""The imperative shell: drivers and commands in, journal, engine, outbox, MQTT relay out.

One asyncio task owns the journal and the table; every input goes through its queue, so the
order inputs are journaled in is the order the engine sees them (a device's input that finds
the queue empty and the task waiting is taken in the driver's turn: inputs.py). A restart
replays the journal, writes the outputs of any record whose outputs were not yet stored, and
carries on.

`Daemon` (tablectl/daemon/supervision.py) is one object made of one class per job, each in its
own module over the state they share (state.py):

- recovery.py: start-up and recovery (the journal opened and replayed, snapshots, the month's
  close, the config's rules) and the hold on a journal it cannot replay (journal_fault.py);
- inputs.py: the journal's queue and consumer, and a journal that cannot be written;
- commands.py: MQTT commands received, their payloads validated, answered;
- mqtt_link.py: the relay, its hooks, and what is published from memory;
- devices.py: the drivers run and restarted, the display views handed on;
- status_report.py: what `tablectl status` and the metrics read from memory;
- supervision.py: the tasks, systemd (READY=1, watchdog, STATUS=), the status socket, shutdown.
"""

from __future__ import annotations

from tablectl.daemon.supervision import Daemon

__all__ = ["Daemon"]
