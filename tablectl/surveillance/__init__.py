"""Game protection for surveillance: the surveillance feed (`feed`), the counter's signature
(`counter`), the messages' bytes (`payloads`) and the daemon's worker that runs the feed off the
hot path (`worker`). Only the surveillance role may read what it publishes (tablectl/broker.py).
"""
