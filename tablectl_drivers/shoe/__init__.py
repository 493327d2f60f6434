"""Card-reading shoe: its messages (frames.py) and device logic (device.py) on drivers.framed."""
