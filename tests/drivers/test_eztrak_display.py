"""The EZTRAK display: rendering and assembling screens, and the real driver against the
simulated display over real pseudo-terminals.

Nothing sleeps to wait: every wait is for a condition (the driver's status, the simulator's
screens), bounded by a timeout; reconnect delays go through an injected sleep.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablectl.games.baccarat.eztrak import Coup, Winner, display_payload
from tablectl_drivers.base import DriverSink
from tablectl_drivers.envelope import MAX_FRAME, checksum
from tablectl_drivers.eztrak.device import DISCONNECTED, NO_ACK, EztrakDisplayDriver
from tablectl_drivers.eztrak.messages import (
    HOST_MESSAGES,
    MESSAGES,
    Ack,
    Commit,
    Limit,
    Nak,
    Ready,
    RoadColumns,
    ScreenStart,
    Statistic,
    Timer,
)
from tablectl_drivers.eztrak.render import (
    SCREEN_KEYS,
    RenderError,
    ScreenAssembler,
    assemble,
    frame_body,
    render,
    screen_crc,
)
from tablectl_drivers.link import Link, LinkLostError
from tablectl_drivers.registry import load_driver
from tablectl_drivers.sim import RecordingSink, StatusReport
from tablectl_drivers.sim.eztrak import EztrakModel, SimulatedEztrak, format_screen
from tablectl_drivers.sim.nullmodem import NullModem
from tests.drivers.support import running, simulators

TIMEOUT = 5.0
LIMITS = {"min": "5.00", "max": "500.00"}
FAST = {"ack_timeout": 0.3, "backoff_initial": 0.05, "backoff_max": 0.2, "status_interval": 0}
"""Options that make resends quick; tests still only wait for conditions."""


# -- payloads ----------------------------------------------------------------------------------


@st.composite
def coups(draw: st.DrawFn) -> Coup:
    """Any self-consistent coup."""
    player = draw(st.integers(0, 9))
    banker = draw(st.integers(0, 9))
    winner: Winner = "player" if player > banker else "banker" if banker > player else "tie"
    pn = player >= 8 and draw(st.booleans())
    bn = banker >= 8 and draw(st.booleans())
    d7 = winner == "banker" and banker == 7 and player <= 6 and draw(st.booleans())
    p8 = winner == "player" and player == 8 and not pn and banker <= 7 and draw(st.booleans())
    return Coup(winner, player, banker, pn, bn, d7, p8)


def random_coups(n: int, seed: int) -> list[Coup]:
    """`n` coups from a seeded random stream (ties, naturals, Dragon 7s and Panda 8s included)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        player, banker = rng.randint(0, 9), rng.randint(0, 9)
        winner: Winner = "player" if player > banker else "banker" if banker > player else "tie"
        out.append(
            Coup(
                winner,
                player,
                banker,
                player >= 8 and rng.random() < 0.5,
                banker >= 8 and rng.random() < 0.5,
                winner == "banker" and banker == 7 and player <= 6,
                False,
            )
        )
    return out


def payload(
    hands: int = 11, *, seed: int = 1, shoe: int = 3, timer: int | None = 25
) -> dict[str, Any]:
    """A display payload as the daemon hands it over (with `table` and `seq`, which are not
    shown)."""
    body = display_payload(
        random_coups(hands, seed), random_coups(7, seed + 100), LIMITS, timer, shoe
    )
    return {"table": "bac-1", **body, "seq": 42}


def shown(p: dict[str, Any]) -> dict[str, Any]:
    """What the display must show for payload `p`."""
    return {key: p[key] for key in SCREEN_KEYS}


def feed(model: EztrakModel, frames: list[Any], chunk: int = 0) -> None:
    data = b"".join(HOST_MESSAGES.encode(f) for f in frames)
    step = chunk or len(data) or 1
    for i in range(0, len(data), step):
        model.receive(data[i : i + step])


def answers(sent: list[bytes]) -> list[Any]:
    """Decode what a display model transmitted."""
    out = []
    for data in sent:
        _, message = MESSAGES.decode(data)
        out.append(message)
    return out


# -- render and assemble: pure ---------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    current=st.lists(coups(), max_size=90),
    previous=st.one_of(st.none(), st.lists(coups(), max_size=30)),
    limits=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True),
        st.from_regex(r"[0-9]{1,7}\.[0-9]{2}", fullmatch=True),
        max_size=4,
    ),
    timer=st.one_of(st.none(), st.integers(1, 600)),
    shoe=st.integers(0, 99_999),
    first_seq=st.integers(0, 9_999),
    chunk=st.integers(0, 9),
)
def test_any_payload_round_trips_through_the_simulated_display_R28(
    current: list[Coup],
    previous: list[Coup] | None,
    limits: dict[str, str],
    timer: int | None,
    shoe: int,
    first_seq: int,
    chunk: int,
) -> None:
    p = display_payload(current, previous, limits, timer, shoe)
    frames = render(p, first_seq)
    assert all(len(HOST_MESSAGES.encode(f)) <= MAX_FRAME for f in frames)
    assert isinstance(frames[0], ScreenStart)
    end = frames[-1]
    assert isinstance(end, Commit)
    assert end.count == len(frames) - 1
    assert [f.seq for f in frames] == [(first_seq + i) % 10_000 for i in range(len(frames))]
    sent: list[bytes] = []
    model = EztrakModel(sent.append)
    feed(model, frames, chunk)
    assert model.bad_frames == 0
    screen = model.screen
    assert screen is not None
    assert screen == shown(p)
    assert screen["limits"] == p["limits"]
    assert screen["stats"] == p["stats"]
    assert screen["previous"] == p["previous"]
    assert screen["roads"] == p["roads"]
    assert screen["bet_timer"] == p["bet_timer"]
    assert answers(sent) == [Ack(0, end.seq)]


DOC = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "eztrak.md"


def _coup(winner: Winner, player: int, banker: int, **flags: bool) -> Coup:
    return Coup(
        winner,
        player,
        banker,
        flags.get("pn", False),
        flags.get("bn", False),
        flags.get("d7", False),
        flags.get("p8", False),
    )


WORKED_SHOE = [  # tests/games/baccarat/test_eztrak.py's worked shoe: P B T P T B P P B B P
    _coup("player", 8, 5, pn=True),
    _coup("banker", 4, 7, d7=True),
    _coup("tie", 6, 6),
    _coup("player", 8, 3, p8=True),
    _coup("tie", 9, 9, pn=True, bn=True),
    _coup("banker", 2, 9, bn=True),
    _coup("player", 7, 6),
    _coup("player", 5, 1),
    _coup("banker", 0, 6),
    _coup("banker", 3, 4),
    _coup("player", 9, 7),
]


def wire(data: bytes) -> str:
    return data.decode().replace("\r\n", "\\r\\n")


def test_the_documented_examples_are_what_the_code_sends() -> None:
    doc = DOC.read_text()
    p = display_payload(WORKED_SHOE, WORKED_SHOE[:6], LIMITS, 25, 4)
    frames = render(p, 120)
    lines = [HOST_MESSAGES.encode(f) for f in frames]
    for line in lines:
        assert wire(line) + "\n" in doc
    assert len(lines) == 27 and sum(len(line) for line in lines) == 760
    assert "760\n  bytes" in doc or "is 760" in doc
    sent: list[bytes] = []
    model = EztrakModel(sent.append)
    for line in lines:
        model.receive(line)
    assert [wire(x) for x in sent] == ["$ACK,0,146*4A\\r\\n"]
    assert wire(MESSAGES.encode(Nak(0, 146, "GAP"))) in doc
    assert wire(MESSAGES.encode(Ready(0))) in doc
    assert model.screen is not None
    assert format_screen(model.screen) in doc
    banker = _coup("banker", 3, 6)
    long_run = [_coup("tie", 4, 4), _coup("banker", 0, 9, bn=True), *[banker] * 68]
    long_run += [_coup("tie", 4, 4), _coup("tie", 4, 4), _coup("player", 6, 2)]
    big = [f for f in render(display_payload(long_run, None, LIMITS, None, 5), 9990)]
    roads = [HOST_MESSAGES.encode(f) for f in big if isinstance(f, RoadColumns) and f.road == "BR"]
    assert [wire(x) for x in roads] == [
        "$RDS,4,BR,0,b1" + "B" * 58 + "*02\\r\\n",
        "$RDS,5,BR,0,BBBBBBBBBB2,P*1E\\r\\n",
    ]
    for x in roads:
        assert wire(x) in doc


def test_long_columns_are_cut_and_continued() -> None:
    banker = Coup("banker", 3, 6, False, False, False, False)
    natural = Coup("banker", 0, 9, False, True, False, False)
    tie = Coup("tie", 4, 4, False, False, False, False)
    shoe = [natural, tie, *([banker, tie, tie] * 30), banker] * 1
    p = display_payload(shoe, None, LIMITS, 30, 2)
    big = p["roads"]["big_road"]
    assert len(big) == 1 and len(big[0]) == 32  # one true-length column of 32 banker wins
    frames = render(p, 100)
    roads = [f for f in frames if isinstance(f, RoadColumns) and f.road == "BR"]
    assert len(roads) > 1
    assert all(f.col == 0 for f in roads)  # every frame after the first continues column 0
    assert roads[0].cells[0].startswith("b1B2")
    model = EztrakModel(lambda _: None)
    feed(model, frames, 3)
    assert model.screen == shown(p)


def test_many_short_columns_share_a_frame() -> None:
    alternate = [
        Coup("player", 5, 2, False, False, False, False),
        Coup("banker", 2, 5, False, False, False, False),
    ] * 40
    p = display_payload(alternate, None, LIMITS, None, 2)
    frames = render(p)
    bead = [f for f in frames if isinstance(f, RoadColumns) and f.road == "BP"]
    big = [f for f in frames if isinstance(f, RoadColumns) and f.road == "BR"]
    # 14 columns in two frames: eight and a cut ninth, then the ninth continued and the rest
    assert [f.col for f in bead] == [0, 8]
    assert len(bead[0].cells) == 9 and len(bead[0].cells[-1]) + len(bead[1].cells[0]) == 6
    assert sum(len(f.cells) for f in big) == 80
    assert assemble(frames[:-1]) == shown(p)


def screen_lines(p: dict[str, Any], first_seq: int = 0) -> list[bytes]:
    return [HOST_MESSAGES.encode(f) for f in render(p, first_seq)]


def verdict_of(lines: list[bytes]) -> tuple[int, str | None]:
    """Feed raw lines to a display model; the screen id and reason of its single answer."""
    sent: list[bytes] = []
    model = EztrakModel(sent.append)
    for line in lines:
        model.receive(line)
    [reply] = answers(sent)
    if isinstance(reply, Ack):
        return reply.screen, None
    assert isinstance(reply, Nak)
    return reply.screen, reply.reason


def test_a_lost_frame_is_refused_with_gap() -> None:
    lines = screen_lines(payload())
    assert verdict_of(lines) == (len(lines) - 1, None)
    assert verdict_of(lines[:3] + lines[4:]) == (len(lines) - 1, "GAP")
    garbled = lines[5].replace(b"C,", b"C;")
    assert verdict_of([*lines[:5], garbled, *lines[6:]]) == (len(lines) - 1, "GAP")


def test_end_without_start_count_and_crc_mismatches_are_refused() -> None:
    p = payload()
    frames = render(p, 10)
    end = frames[-1]
    assert isinstance(end, Commit)
    lines = [HOST_MESSAGES.encode(f) for f in frames]
    assert verdict_of(lines[1:]) == (end.seq, "NOSTART")
    wrong_count = Commit(end.seq, end.count + 1, end.crc)
    assert verdict_of([*lines[:-1], HOST_MESSAGES.encode(wrong_count)]) == (end.seq, "COUNT")
    wrong_crc = Commit(end.seq, end.count, end.crc ^ 1)
    assert verdict_of([*lines[:-1], HOST_MESSAGES.encode(wrong_crc)]) == (end.seq, "CRC")


def test_frames_that_do_not_make_a_screen_are_refused_with_content() -> None:
    def screen(*body: Any) -> list[bytes]:
        frames = [ScreenStart(0, 1, 0), *body]
        lines = [HOST_MESSAGES.encode(f) for f in frames]
        crc = screen_crc(frame_body(line) for line in lines)
        return [*lines, HOST_MESSAGES.encode(Commit(len(frames), len(frames), crc))]

    ok = screen(Timer(1, None))
    assert verdict_of(ok) == (2, None)
    assert verdict_of(screen(Timer(1, None), Timer(2, 5)))[1] == "CONTENT"
    twice = screen(Limit(1, "min", "5"), Limit(2, "min", "6"), Timer(3, 1))
    assert verdict_of(twice)[1] == "CONTENT"
    assert verdict_of(screen(Timer(1, 9), Statistic(2, "P", "tie", 0, "0.0")))[1] == "CONTENT"
    assert verdict_of(screen(Timer(1, 9), RoadColumns(2, "BP", 1, ("P",))))[1] == "CONTENT"


def test_a_new_start_drops_an_unfinished_screen_and_strays_are_ignored() -> None:
    first, second = payload(seed=1), payload(seed=2)
    lines1, lines2 = screen_lines(first, 0), screen_lines(second, 500)
    sent: list[bytes] = []
    model = EztrakModel(sent.append)
    for line in [*lines1[3:6], *lines1[:4], *lines2]:  # strays, then an abandoned screen
        model.receive(line)
    assert model.strays == 3
    assert model.screen == shown(second)
    assert answers(sent) == [Ack(0, 500 + len(lines2) - 1)]
    assert ScreenAssembler().feed(Commit(7, 0, 0), b"") is not None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"limits": {"min": "5,00"}}, "limit value"),
        ({"limits": {"Min": "5"}}, "limit name"),
        ({"hands": 12}, "hands equal"),
        ({"bet_timer": -1}, "bet timer"),
        ({"roads": {}}, "roads must hold"),
        ({"stats": {"hands": 11, "player": {"count": 1}}}, "statistic 'player'"),
    ],
)
def test_a_payload_no_frame_can_carry_is_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RenderError, match=message):
        render({**payload(), **change})
    with pytest.raises(RenderError, match="not a display payload: no roads"):
        render({k: v for k, v in payload().items() if k != "roads"})


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"STA,1,C,tie,3,101.0", "percentage"),
        (b"STA,1,X,tie,3,1.0", "block"),
        (b"RDS,1,BP,0,PXB", "BP cells"),
        (b"RDS,1,BR,0,P1T", "BR cells"),
        (b"RDS,1,ZZ,0,P", "road"),
        (b"TMR,1,-5", "bet timer"),
        (b"END,1,3,XYZW", "crc"),
        (b"SHO,1,2", "SHO takes 2 fields"),
    ],
)
def test_host_frames_with_bad_fields_are_bad_frames(body: bytes, reason: str) -> None:
    line = b"$" + body + f"*{checksum(body):02X}\r\n".encode()
    _, item = HOST_MESSAGES.decode(line)
    assert not isinstance(item, ScreenStart | Statistic | RoadColumns | Timer | Commit)
    assert reason in getattr(item, "reason", "")


def test_the_screen_as_text() -> None:
    p = payload(hands=8, seed=4)
    text = format_screen(shown(p))
    lines = text.splitlines()
    assert lines[0] == "EZTRAK  shoe 3  hands 8  min 5.00  max 500.00  timer 25 s"
    assert "previous shoe (7 hands)" in lines[1]
    assert any(line.startswith("Dragon 7") for line in lines)
    assert "Cockroach pig:" in text


# -- the driver over a real pty ----------------------------------------------------------------


class ManualSleep:
    """An injected reconnect sleep: records each delay and returns only when released."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self._permits = asyncio.Semaphore(0)

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await self._permits.acquire()

    def release(self) -> None:
        self._permits.release()


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedEztrak]]:
    yield from simulators(SimulatedEztrak)


def last(sink: RecordingSink) -> StatusReport:
    return sink.last_status or StatusReport(False, None)


async def until(sim: EztrakModel, predicate: Callable[[], bool]) -> None:
    """Wait (off the event loop) until the simulated display satisfies `predicate`."""
    assert await asyncio.to_thread(sim.wait_for, predicate, TIMEOUT), "the display never got there"


async def acked(sink: RecordingSink, n: int) -> None:
    await sink.wait_for(lambda: last(sink).detail.get("acked", 0) >= n, TIMEOUT)


async def test_a_screen_arrives_and_is_acked(make_sim: Callable[..., SimulatedEztrak]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, {})
    p = payload()
    driver.update("eztrak", p)  # before run(), as the daemon does after a restart
    async with running(driver, sink):
        await acked(sink, 1)
        status = last(sink)
        assert (status.available, status.fault) == (True, None)
        assert sim.screen == shown(p)
        [verdict] = sim.verdicts
        assert status.detail["last_ack_seq"] == verdict.screen_id == len(render(p)) - 1
        assert status.detail["screens_sent"] == 1
        assert status.detail["naks"] == 0
        assert status.detail["port"] == sim.port
    assert sim.bad_frames == 0 and sim.strays == 0


async def test_two_quick_updates_end_on_the_latest(
    make_sim: Callable[..., SimulatedEztrak],
) -> None:
    sim = make_sim(fragment=True, max_chunk=16, seed=3)
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, {})
    first, second, third = payload(seed=1), payload(seed=2), payload(hands=30, seed=3)
    async with running(driver, sink):
        await sink.wait_for(lambda: last(sink).available, TIMEOUT)
        driver.update("eztrak", first)
        driver.update("other-view", payload(seed=9))  # not one of its views: ignored
        driver.update("eztrak", second)
        await acked(sink, 1)
        await until(sim, lambda: sim.screen == shown(second))
        driver.update("eztrak", third)
        await until(sim, lambda: sim.screen == shown(third))
        await sink.wait_for(lambda: last(sink).detail["last_ack_seq"] == sim.verdicts[-1].screen_id)
    assert shown(payload(seed=9)) not in sim.screens
    assert sim.screens[-1] == shown(third)
    assert len(sim.screens) <= 3


async def test_a_nak_makes_it_resend(make_sim: Callable[..., SimulatedEztrak]) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, FAST)
    p = payload()
    async with running(driver, sink):
        await sink.wait_for(lambda: last(sink).available, TIMEOUT)
        sim.nak_next("BUSY")
        driver.update("eztrak", p)
        await acked(sink, 1)
        detail = last(sink).detail
    assert [v.reason for v in sim.verdicts] == ["BUSY", None]
    assert sim.screens == [shown(p)]
    assert detail["naks"] == 1
    assert detail["last_nak"] == {"screen": sim.verdicts[0].screen_id, "reason": "BUSY"}
    assert detail["screens_sent"] == 2
    assert last(sink).fault is None  # a NAK is an answer: no NO_ACK


async def test_no_ack_is_a_fault_until_the_display_answers_again(
    make_sim: Callable[..., SimulatedEztrak],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, FAST)
    p = payload()
    async with running(driver, sink):
        await sink.wait_for(lambda: last(sink).available, TIMEOUT)
        sim.acking = False
        driver.update("eztrak", p)
        await sink.wait_for(lambda: last(sink).fault == NO_ACK, TIMEOUT)
        assert last(sink).available  # the port is fine; the display is not answering
        await until(sim, lambda: len(sim.screens) >= 2)  # it keeps resending meanwhile
        sim.acking = True
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        assert last(sink).detail["acked"] >= 1
    assert sim.screen == shown(p)
    assert [s.fault for s in sink.statuses].count(NO_ACK) == 1  # reported once, not per resend


async def test_unplug_and_replug_sends_the_latest_screen_again(
    make_sim: Callable[..., SimulatedEztrak], tmp_path: Path
) -> None:
    link = tmp_path / "eztrak0"
    sim1 = make_sim()
    link.symlink_to(sim1.port)
    sleep = ManualSleep()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", str(link), 9600, {}, sleep=sleep)
    p = payload()
    async with running(driver, sink):
        driver.update("eztrak", p)
        await acked(sink, 1)
        assert sim1.screen == shown(p)
        sim1.close()  # unplugged
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        sim2 = make_sim(seq=sim1.next_seq)  # plugged in again
        link.unlink()
        link.symlink_to(sim2.port)
        sleep.release()
        await acked(sink, 2)  # no update since: the latest screen goes again by itself
        assert sim2.screen == shown(p)
        newer = payload(seed=7)
        driver.update("eztrak", newer)
        await until(sim2, lambda: sim2.screen == shown(newer))
    assert last(sink).detail["reconnects"] == 1


async def test_a_display_that_restarts_gets_the_screen_again(
    make_sim: Callable[..., SimulatedEztrak],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, {})
    p = payload()
    async with running(driver, sink):
        driver.update("eztrak", p)
        await acked(sink, 1)
        sim.restart()  # power cycle: blank, RDY
        await acked(sink, 2)
    assert sim.screens == [shown(p), shown(p)]
    assert sim.screen == shown(p)


async def test_garbage_from_the_display_is_counted_and_survived(
    make_sim: Callable[..., SimulatedEztrak],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, {"status_interval": 0})
    p = payload()
    async with running(driver, sink):
        await sink.wait_for(lambda: last(sink).available, TIMEOUT)
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage
        sim.write_raw(b"$ACK,0,12345*00\r\n")  # 2: bad checksum
        body = b"ACK,0,ABC"
        sim.write_raw(b"$" + body + f"*{checksum(body):02X}\r\n".encode())  # 3: not a screen
        driver.update("eztrak", p)
        await acked(sink, 1)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    status = last(sink)
    assert status.available and status.fault is None
    assert sim.screen == shown(p)


async def test_a_payload_it_cannot_draw_is_counted_and_the_old_screen_stays(
    make_sim: Callable[..., SimulatedEztrak],
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = EztrakDisplayDriver("eztrak", sim.port, 9600, {})
    p = payload()
    async with running(driver, sink):
        driver.update("eztrak", p)
        await acked(sink, 1)
        driver.update("eztrak", {**p, "limits": {"min": "5,00"}})
        await sink.wait_for(lambda: last(sink).detail["render_errors"] == 1, TIMEOUT)
        driver.update("eztrak", payload(seed=5))
        await acked(sink, 2)
    assert sim.screens == [shown(p), shown(payload(seed=5))]


def test_options_and_registration() -> None:
    assert load_driver("eztrak") is EztrakDisplayDriver
    driver = EztrakDisplayDriver("d", "/dev/null", 9600, {"views": ["eztrak", "lobby"]})
    assert driver.views == ("eztrak", "lobby")
    assert EztrakDisplayDriver("d", "/dev/null", 9600, {}).options.ack_timeout == 2.0
    bad: list[tuple[dict[str, Any], str]] = [
        ({"ack_timeout": 0}, "'ack_timeout' must be positive"),
        ({"views": []}, "option 'views'"),
        ({"views": "eztrak"}, "option 'views'"),
        ({"views": ["a", "a"]}, "option 'views'"),
        ({"acktimeout": 1}, "unknown option 'acktimeout'"),
    ]
    for options, message in bad:
        with pytest.raises(ValueError, match=message):
            EztrakDisplayDriver("d", "/dev/null", 9600, options)


async def test_the_interactive_simulator_prints_each_screen() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tablectl_drivers.sim.eztrak",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    sink = RecordingSink()
    try:
        port = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip()
        assert port.startswith("/dev/")
        driver = EztrakDisplayDriver("eztrak", port, 9600, {})
        driver.update("eztrak", payload())
        async with running(driver, sink):
            await acked(sink, 1)
            header = (await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)).decode()
        assert header.startswith("EZTRAK  shoe 3  hands 11")
        proc.stdin.write(b"status\nquit\n")
        await proc.stdin.drain()
        out, _ = await asyncio.wait_for(proc.communicate(), TIMEOUT)
        assert "1 screens, 0 bad frames" in out.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


# -- the generic write path this driver added to tablectl_drivers/link.py and
# tablectl_drivers/framed.py ---------


async def test_link_writes_until_the_port_goes() -> None:
    modem = NullModem()
    link = Link()
    await modem.connect(lambda: link, "null", 9600)
    await link.wait_connected()
    link.write(b"$HBT,0*46\r\n")
    await link.drain()
    delivered = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(delivered.set_result, None)
    await delivered  # the null modem delivers by call_soon, so it has now
    assert bytes(modem.device_end.received) == b"$HBT,0*46\r\n"
    modem.unplug()
    with pytest.raises(LinkLostError):
        await link.read()
    with pytest.raises(LinkLostError):
        link.write(b"more")
    with pytest.raises(LinkLostError):
        await link.drain()


class BrokenWriter(EztrakDisplayDriver):
    """A display driver whose writer fails with a bug, not a lost port."""

    async def while_connected(self, link: Link, sink: DriverSink) -> None:
        raise RuntimeError("writer bug")


async def test_a_writer_that_fails_with_a_bug_ends_run() -> None:
    modem = NullModem()
    driver = BrokenWriter("eztrak", "null", 9600, {}, connect=modem.connect)
    with pytest.raises(RuntimeError, match="writer bug"):
        await asyncio.wait_for(driver.run(RecordingSink()), TIMEOUT)
