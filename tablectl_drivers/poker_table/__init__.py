"""Card-reading poker table: its messages (frames.py) and device logic (device.py) on the
shared positioned driver (tablectl_drivers/positioned.py); docs/protocols/poker-table.md."""
