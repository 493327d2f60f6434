"""Device drivers: bytes from table devices in, typed input events out. Never game logic."""
