"""What tablectl and its device drivers share, and nothing else: cards, money, the input events a
device reports (contract 2), a device's count of what it reported (positions), and the reconnect
backoff. A leaf: it imports neither tablectl nor tablectl_drivers (tests/test_layers.py)."""
