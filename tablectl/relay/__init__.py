"""The MQTT relay: publishes the durable outbox (QoS 1, in seq order) and delivers inbound commands.

The outbox is the truth. The relay only marks a row sent once the broker has taken it (a
PUBACK with a success code), so a dropped connection or a broker outage loses nothing:
unacknowledged rows stay pending and are re-sent after reconnecting under the same ``seq``.
Consumers de-duplicate by ``(table, seq)`` (DESIGN: Outbox; contract 3).

A record's rows go on the wire as soon as the journal has committed it (`Relay.offer`, in the
daemon's turn, before the outbox stores them: they are a function of the journal), merged with
the pending rows so that none overtakes an older one; every other row is read from the outbox
when the relay is woken. Nothing is published before the journal commit.

Connection handling is an explicit state machine::

    DISCONNECTED -> CONNECTING -> CONNECTED --(error)--> BACKOFF -> CONNECTING -> ...

with capped exponential backoff, jittered (`tablectl_base.backoff`: a floor of tables does not
retry a restarted broker in lockstep), that resets after every successful connect. Each connection
uses a fresh ``aiomqtt.Client`` speaking MQTT 5 with a clean start and no session expiry (the
session ends with the connection, as 3.1.1's clean session did): paho's in-memory session state
adds nothing to the durable outbox, and a command queued at the broker while the table was
offline is stale by the time it would be delivered (its sender has long given up on the reply).

MQTT 5 is what lets the broker say no. A PUBACK whose reason code is a refusal (0x80 or more:
Mosquitto sends 0x87 "not authorized" for a publish its ACL denies) leaves the row unsent, and
the outbox stops there: the row is **held**, published again alone after a capped, jittered
backoff (`refused_retry_initial` doubling up to `refused_retry_max`), across reconnects, until the
broker takes it; no later row goes on the wire meanwhile, so nothing the table writes after the
refusal overtakes it. Only rows already in flight behind it when the refusal came (up to
`window` - 1) can: they were taken or refused on their own, the taken ones are sent, the refused
ones wait their turn after the held one. ``on_refusal`` hears of the first refusal of each
held row and of its acceptance (the daemon's alerts from memory); the log has every refusal.
A held row is held in memory: a restart publishes it again with the rows behind it, and holds
it anew if the broker still refuses it.

Commands are subscribed to with retain-as-published, so a command published with the retain
flag arrives with it even live (the broker clears it otherwise), and no-local: the table never
publishes a command (its ACL forbids it), and would not be handed its own if it did.

Availability (``<base>/status``, retained, QoS 1): the bare word ``online`` is published after
every connect (not JSON: the availability payload Home Assistant and Node-RED expect), and
again every ``heartbeat`` seconds while connected: a notice from memory, never
an outbox row, so a page can tell a table that fell silent (hung, stopped, cut off) from a quiet
one after two missed beats, long before the broker's keepalive gives up on the link. A beat is
not queued while one still waits (at most one on the way). ``stop()`` publishes ``offline`` and
disconnects cleanly. Any other end of a connection
(network loss, a failed publish, the ``run()`` task being cancelled) drops the TCP connection
*without* an MQTT DISCONNECT, so the broker publishes the Last Will ``offline``.

Retained topics come back after a broker restart without persistence (which forgets them):
on every connect the relay publishes the newest retained outbox row of each topic again, same
``seq`` and bytes (`Outbox.latest_retained`), merged into the outbox stream in ``seq`` order, so
the broker ends every topic on its newest message even while a backlog drains.

Notices (`Relay.notice`) are the few messages that cannot go through the outbox because they
say the outbox cannot be written (a full disk), or how many of its rows wait: published from
memory on the same connection, best effort, the newest retained one of each topic again after
every connect. ``on_connect`` is called on every connect before those go out, so a notice made
then (the daemon's fresh unsent count) is the one published, not a stale one.

The package: `connection` (the state machine and `Relay`), `outbox_drain` (the outbox onto the
wire, refused rows held), `notices` (messages from memory, the heartbeat) and `client` (aiomqtt's
client as the relay needs it).
"""

from tablectl.relay.client import RelayClient
from tablectl.relay.connection import STATUS_OFFLINE, STATUS_ONLINE, Relay, RelayState
from tablectl.relay.notices import MAX_NOTICES, Notice
from tablectl.relay.outbox_drain import Outbox, Refusal

__all__ = [
    "MAX_NOTICES",
    "STATUS_OFFLINE",
    "STATUS_ONLINE",
    "Notice",
    "Outbox",
    "Refusal",
    "Relay",
    "RelayClient",
    "RelayState",
]
