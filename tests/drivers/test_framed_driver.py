"""FramedDriver and MessageSet are reusable: a made-up device defined here works end to end.

The "toy dice cup" below is only a message set, a FramedDriver subclass and a DeviceModel
subclass, as a real new device class would be; it runs over the null modem and a real pty.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import pytest
import structlog
from structlog.testing import capture_logs
from structlog.typing import EventDict

from tablectl_drivers.base import DriverSink
from tablectl_drivers.envelope import BadFrame, Envelope, FrameError, checksum
from tablectl_drivers.framed import DISCONNECTED, FRAMES_LOST, FramedDriver, FramedOptions
from tablectl_drivers.messages import (
    Fault,
    FaultCleared,
    FieldError,
    Heartbeat,
    Message,
    MessageSet,
)
from tablectl_drivers.shoe.frames import NewShoe
from tablectl_drivers.sim import RecordingSink, StatusReport
from tablectl_drivers.sim.device import DeviceModel, SimulatedDevice
from tablectl_drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks

TIMEOUT = 5.0

# -- the made-up device class: messages ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll(Message):
    """`ROL`: one to three dice came to rest, each 1..6."""

    TYPE: ClassVar[str] = "ROL"
    dice: tuple[int, ...]

    def to_fields(self) -> tuple[str, ...]:
        return tuple(str(d) for d in self.dice)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if not 1 <= len(fields) <= 3 or not all(
            f in {"1", "2", "3", "4", "5", "6"} for f in fields
        ):
            raise FieldError("ROL takes 1-3 dice of 1..6")
        return cls(seq, tuple(int(f) for f in fields))


@dataclass(frozen=True, slots=True)
class Lid(Message):
    """`LID`: the cup's lid is OPEN or SHUT."""

    TYPE: ClassVar[str] = "LID"
    open: bool

    def to_fields(self) -> tuple[str, ...]:
        return ("OPEN" if self.open else "SHUT",)

    @classmethod
    def from_fields(cls, seq: int, fields: tuple[str, ...]) -> Self:
        if fields not in {("OPEN",), ("SHUT",)}:
            raise FieldError("LID takes OPEN or SHUT")
        return cls(seq, fields == ("OPEN",))


@dataclass(frozen=True, slots=True)
class Reset(Message):
    """`RST`: the cup was reset; a fresh start, so lost frames no longer matter."""

    TYPE: ClassVar[str] = "RST"


ToyMessage = Roll | Lid | Reset
TOY: MessageSet[ToyMessage] = MessageSet(Roll, Lid, Reset)

# -- the made-up device class: driver and simulator ---------------------------------------------


@dataclass(frozen=True)
class ToyOptions(FramedOptions):
    """The common options plus `sides`: rolls above it are flagged as unfair."""

    sides: int = 6

    @classmethod
    def check_option(cls, key: str, value: Any) -> Any:
        if key == "sides":
            if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= 6:
                raise ValueError(f"option 'sides' must be an integer 2..6, not {value!r}")
            return value
        return super().check_option(key, value)


class ToyDriver(FramedDriver[ToyMessage]):
    """Rolls and resets as events, the lid as status detail."""

    messages = TOY
    log_prefix: ClassVar[str] = "toy"
    options_class: ClassVar[type[FramedOptions]] = ToyOptions
    options: ToyOptions
    _lid_open = False

    async def on_frame(self, frame: ToyMessage, sink: DriverSink) -> None:
        if isinstance(frame, Roll):
            fair = all(d <= self.options.sides for d in frame.dice)
            await sink.event({"type": "toy.roll", "dice": list(frame.dice), "fair": fair})
        elif isinstance(frame, Lid):
            self._lid_open = frame.open
        else:
            self.clear_frames_lost()
            await sink.event({"type": "toy.reset"})

    def extra_detail(self) -> dict[str, Any]:
        return {"lid_open": self._lid_open}


class ToyModel(DeviceModel):
    """The cup's side without I/O."""

    def roll(self, *dice: int) -> None:
        self.transmit(lambda seq: Roll(seq, dice))

    def lid(self, is_open: bool) -> None:
        self.transmit(lambda seq: Lid(seq, is_open))

    def reset(self) -> None:
        self.transmit(Reset)


class SimulatedToy(SimulatedDevice, ToyModel):
    """The cup on a real pty."""


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def logs() -> Iterator[list[EventDict]]:
    """Captured structlog events, at debug level whatever an earlier test configured."""
    old = structlog.get_config()["wrapper_class"]
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        with capture_logs() as entries:
            yield entries
    finally:
        structlog.configure(wrapper_class=old)


@contextlib.asynccontextmanager
async def running(driver: ToyDriver, sink: RecordingSink) -> AsyncIterator[None]:
    task = asyncio.create_task(driver.run(sink))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TIMEOUT)
        assert task.cancelled()


def last(sink: RecordingSink) -> StatusReport:
    status = sink.last_status
    assert status is not None
    return status


async def until_open(driver: ToyDriver, sink: RecordingSink, opens: int = 1) -> None:
    def ready() -> bool:
        status = sink.last_status
        return driver.stats["opens"] >= opens and status is not None and status.available

    await sink.wait_for(ready, TIMEOUT)


def line(body: str) -> bytes:
    raw = body.encode()
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


# -- the message set --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        Roll(1, (1,)),
        Roll(2, (6, 5, 4)),
        Lid(3, True),
        Lid(4, False),
        Reset(9999),
        Fault(5, "SPILL", "die on the floor, table 3"),
        FaultCleared(6),
        Heartbeat(7),
    ],
    ids=repr,
)
def test_a_declared_message_set_decodes_and_encodes_its_messages_and_the_common_ones(
    message: ToyMessage | Fault | FaultCleared | Heartbeat,
) -> None:
    wire = TOY.encode(message)
    assert TOY.decode(wire) == (len(wire), message)
    assert TOY.kinds == {"ROL", "LID", "RST", "FLT", "CLR", "HBT"}


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (line("NEW,1,1"), "unknown frame type 'NEW'"),  # another device's message (shoe 1)
        (line("ROL,1"), "ROL takes 1-3 dice"),
        (line("ROL,1,7"), "ROL takes 1-3 dice"),
        (line("LID,1,ajar"), "LID takes OPEN or SHUT"),
        (line("RST,1,now"), "RST takes no fields"),
        (line("CLR,1,x"), "CLR takes no fields"),
        (line("FLT,1,spill"), "fault code"),
        (line("RST,x"), "SEQ"),
        (b"$RST,1*00\r\n", "checksum mismatch"),
    ],
)
def test_bad_frames_carry_the_line_and_the_reason(wire: bytes, reason: str) -> None:
    consumed, item = TOY.decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame) and item.raw == wire
    assert reason in item.reason


def test_message_sets_refuse_clashes_and_foreign_messages() -> None:
    with pytest.raises(ValueError, match="two messages with TYPE 'ROL'"):
        MessageSet(Roll, Roll)
    with pytest.raises(ValueError, match="two messages with TYPE 'HBT'"):
        MessageSet(Heartbeat)  # the common ones are always in

    @dataclass(frozen=True, slots=True)
    class Lower(Message):
        TYPE: ClassVar[str] = "rol"

    with pytest.raises(ValueError, match="three uppercase letters"):
        MessageSet(Lower)
    with pytest.raises(FrameError, match="not in this message set"):
        TOY.encode(NewShoe(1, "1"))  # type: ignore[arg-type]
    with pytest.raises(FrameError, match="fault code"):
        TOY.encode(Fault(1, "spill"))
    assert Reset(4).to_envelope() == Envelope("RST", 4, ())


# -- the driver -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(4), random_chunks(3, 9)],
    ids=["whole", "1", "4", "random"],
)
async def test_a_new_device_class_works_end_to_end_over_the_null_modem(
    fragment: Fragmenter | None, logs: list[EventDict]
) -> None:
    modem = NullModem(fragment=fragment)
    sink = RecordingSink()
    options = {"status_interval": 0, "sides": 4}
    driver = ToyDriver("cup1", "null", 9600, options, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        toy = ToyModel(modem.write)
        toy.reset()  # SEQ 0
        toy.roll(1, 2, 3)  # 1
        toy.duplicate_last()  # 1 again: ignored
        toy.write_raw(b"~noise~")  # bad frame
        toy.write_raw(line("ROL,9,7"))  # bad frame (its SEQ is never looked at)
        toy.lid(True)  # 2
        await sink.wait_for(lambda: last(sink).detail["lid_open"] is True, TIMEOUT)
        toy.fault("SPILL", "die on the floor, table 3")  # 3
        await sink.wait_for(lambda: last(sink).fault == "SPILL", TIMEOUT)
        assert last(sink).detail["fault_text"] == "die on the floor, table 3"
        toy.clear()  # 4
        toy.heartbeat()  # 5
        toy.drop_next()
        toy.roll(6)  # 6, lost on the wire
        toy.roll(5, 5)  # 7
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        assert last(sink).detail["last_gap"] == {"expected": 6, "received": 7, "lost": 1}
        toy.reset()  # 8: the device class's way of clearing FRAMES_LOST
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        toy.lid(False)  # 9
        await sink.wait_for(lambda: last(sink).detail["lid_open"] is False, TIMEOUT)
    assert sink.events == [
        {"type": "toy.reset"},
        {"type": "toy.roll", "dice": [1, 2, 3], "fair": True},
        {"type": "toy.roll", "dice": [5, 5], "fair": False},  # sides = 4
        {"type": "toy.reset"},
    ]
    assert driver.stats["duplicates"] == 1
    assert driver.stats["frames_lost"] == 1
    assert driver.stats["bad_frames"] == 2
    assert driver.stats["frames"] == 10  # the retransmission counts as a frame received
    final = sink.statuses[-1]
    assert final.available
    assert final.detail["port"] == "null"
    assert final.detail["last_bad"]["reason"] == "ROL takes 1-3 dice of 1..6"
    assert [s.fault for s in sink.statuses].count("SPILL") == 1  # one report per change
    names = {e["event"] for e in logs}
    assert {"toy.connected", "toy.bad_frame", "toy.fault", "toy.frames_lost"} <= names
    assert not any(name.startswith("shoe.") for name in names)


async def polled(cond: Callable[[], bool]) -> None:
    """Until `cond()` holds, looked at every 10 ms (what changes no status wakes no sink)."""
    async with asyncio.timeout(TIMEOUT):
        while not cond():
            await asyncio.sleep(0.01)


async def test_the_age_of_the_last_frame_is_by_the_drivers_clock_and_none_before_the_first() -> (
    None
):
    """`tablectl status` shows each device's age of last frame (`FrameClock`): a heartbeat is a
    frame (the device spoke), a bad frame is not."""
    now = [100.0]
    modem = NullModem()
    sink = RecordingSink()
    options = {"status_interval": 0}
    driver = ToyDriver("cup1", "null", 9600, options, connect=modem.connect, clock=lambda: now[0])
    assert driver.frame_age() is None
    async with running(driver, sink):
        await until_open(driver, sink)
        assert driver.frame_age() is None  # open, but nothing read yet
        toy = ToyModel(modem.write)
        toy.heartbeat()
        await polled(lambda: driver.stats["frames"] == 1)  # a heartbeat reports nothing
        now[0] = 102.5
        assert driver.frame_age() == 2.5
        toy.write_raw(line("ROL,9,7"))  # a die of 7: a bad frame
        await polled(lambda: driver.stats["bad_frames"] == 1)
        assert driver.frame_age() == 2.5
        toy.roll(2, 2)
        await sink.wait_for(lambda: len(sink.events) == 1, TIMEOUT)
        assert driver.frame_age() == 0.0


async def test_a_new_device_class_works_over_a_real_pty_and_survives_the_unplug() -> None:
    sink = RecordingSink()
    with SimulatedToy(fragment=True, max_chunk=3, seed=5) as sim:
        driver = ToyDriver("cup1", sim.port, 9600, {"backoff_initial": 60, "backoff_max": 60})
        async with running(driver, sink):
            await until_open(driver, sink)
            sim.reset()
            sim.roll(3, 4)
            await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
            sim.close()  # unplugged
            await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
    assert sink.events == [
        {"type": "toy.reset"},
        {"type": "toy.roll", "dice": [3, 4], "fair": True},
    ]
    assert last(sink).detail["error"].startswith(f"lost {sim.port}")
    with pytest.raises(RuntimeError, match="closed"):
        sim.roll(1)


def test_device_options_extend_the_common_ones() -> None:
    driver = ToyDriver("cup1", "null", 9600, {"sides": 5, "silence_timeout": 2})
    assert isinstance(driver.options, ToyOptions)
    assert (driver.options.sides, driver.options.silence_timeout) == (5, 2.0)
    assert ToyDriver("cup1", "null", 9600, {}).options.sides == 6
    with pytest.raises(
        ValueError, match=r"'backoff_max' must be a number.*; option 'sides' must be an integer"
    ):
        ToyDriver("cup1", "null", 9600, {"sides": 7, "backoff_max": "x"})
    with pytest.raises(ValueError, match=r"unknown option 'decks' \(known: .*sides.*\)"):
        ToyDriver("cup1", "null", 9600, {"decks": 8})


def test_a_subclass_must_declare_its_messages_and_frame_handling() -> None:
    class NoMessages(FramedDriver[ToyMessage]):
        log_prefix: ClassVar[str] = "nothing"

        async def on_frame(self, frame: ToyMessage, sink: DriverSink) -> None:
            pass

    with pytest.raises(TypeError, match="must set `messages`"):
        NoMessages("x", "null", 9600, {})

    class NoOnFrame(FramedDriver[ToyMessage]):
        messages = TOY
        log_prefix: ClassVar[str] = "nothing"

    with pytest.raises(TypeError, match="abstract"):
        NoOnFrame("x", "null", 9600, {})  # type: ignore[abstract]
