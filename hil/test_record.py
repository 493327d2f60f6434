"""The recorder writes what a device sends on a real pty in the scenario format, and the runner's
reader reads it back byte for byte."""

from __future__ import annotations

import io
import os
import threading
import tty

from hil.record import Recorder, record_port
from hil.traffic import DeviceWrite, parse


def test_recorded_bytes_read_back_identically() -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    out = io.StringIO()
    rec = Recorder(out)
    stop, opened = threading.Event(), threading.Event()
    reader = threading.Thread(
        target=record_port, args=(rec, "shoe", os.ttyname(slave), 9600, stop, opened), daemon=True
    )
    reader.start()
    try:
        assert opened.wait(5)
        frames = [b"$NEW,1*41\r\n", b"\x00garbage", b"$CRD,2,9h*36\r\n"]
        for f in frames:
            os.write(master, f)
        deadline = threading.Event()
        for _ in range(100):
            got = b"".join(
                i.data for i in parse(out.getvalue().splitlines()) if isinstance(i, DeviceWrite)
            )
            if got == b"".join(frames):
                break
            deadline.wait(0.05)
        assert got == b"".join(frames)
        times = [i.t for i in parse(out.getvalue().splitlines())]
        assert times == sorted(times)
    finally:
        stop.set()
        reader.join(2)
        os.close(master)
        os.close(slave)
