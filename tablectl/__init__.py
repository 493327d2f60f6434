"""tablectl: the table controller beside a California card-room table.

Devices in (tablectl_drivers/), a durable journal, pure game engines, an MQTT outbox out.
"""

__version__ = "0.1.0"
