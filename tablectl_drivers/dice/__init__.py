"""Dice-cup sensor: its messages (messages.py) and device logic (device.py) on drivers.framed."""
