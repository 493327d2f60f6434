"""The shuffler / hand dispenser family: its messages, and both drivers over real ptys.

ShufflerDriver and HandDispenserDriver run against SimulatedDispenser on pseudo-terminals (and
the in-memory null modem for chunkings a pty cannot force). Nothing sleeps to wait: every wait is
for a condition on the recorded calls, bounded by a timeout.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.dispenser.device import (
    DISCONNECTED,
    FRAMES_LOST,
    UNEXPECTED_JOKER,
    WRONG_COUNT,
    DispenserDriver,
    DispenserOptions,
    HandDispenserDriver,
    HandDispenserOptions,
    ShufflerDriver,
)
from drivers.dispenser.messages import (
    MAX_STACK_CARDS,
    MESSAGES,
    CardCount,
    Frame,
    ShuffleDone,
    Stack,
)
from drivers.envelope import MAX_FRAME, BadFrame, FrameError, checksum
from drivers.messages import Fault, FaultCleared, Heartbeat
from drivers.registry import available_drivers, load_driver
from drivers.sim import RecordingSink
from drivers.sim.dispenser import DispenserModel, HopperEmpty, SimulatedDispenser
from drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from tablectl.cards import Card, parse_card, standard_deck
from tablectl.cli import main as tablectl_main
from tests.drivers.support import last, running, simulators, until_open

TIMEOUT = 5.0
ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocols" / "dispenser.md"
DECK = [str(c) for c in standard_deck()]


# -- helpers ----------------------------------------------------------------------------------


def cards(*texts: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in texts)


def line(body: str) -> bytes:
    """A well-formed frame around `body`, whatever the body says."""
    raw = body.encode()
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedDispenser]]:
    yield from simulators(SimulatedDispenser)


def stacks(sink: RecordingSink) -> list[list[str]]:
    """The cards of the `shuffler.stack` events, in order."""
    return [e["cards"] for e in sink.events if e.get("type") == "shuffler.stack"]


async def until_stacks(sink: RecordingSink, n: int) -> None:
    await sink.wait_for(lambda: len(stacks(sink)) >= n, TIMEOUT)


# -- messages ---------------------------------------------------------------------------------

DOC_EXAMPLES: list[tuple[bytes, Frame]] = [
    # the Three Card Poker shuffler's session
    (b"$SHF,0,red*1E\r\n", ShuffleDone(0, "red")),
    (b"$CNT,1,52*6F\r\n", CardCount(1, 52)),
    (b"$STK,2,3,Ah,Kd,7c*33\r\n", Stack(2, cards("Ah", "Kd", "7c"))),
    (b"$STK,3,3,2s,Th,Qs*3F\r\n", Stack(3, cards("2s", "Th", "Qs"))),
    (b"$FLT,4,JAM,card stuck at exit*5B\r\n", Fault(4, "JAM", "card stuck at exit")),
    (b"$CLR,5*44\r\n", FaultCleared(5)),
    (b"$STK,6,2,9d,9c*4F\r\n", Stack(6, cards("9d", "9c"))),
    (b"$HBT,7*45\r\n", Heartbeat(7)),
    (b"$SHF,8,blue*7B\r\n", ShuffleDone(8, "blue")),
    # the Pai Gow hand dispenser's session
    (b"$SHF,0*41\r\n", ShuffleDone(0, None)),
    (
        b"$STK,1,7,As,JKR,Kh,Kc,5d,5s,2h*41\r\n",
        Stack(1, cards("As", "JKR", "Kh", "Kc", "5d", "5s", "2h")),
    ),
    (
        b"$STK,2,7,Qd,Qh,8s,4c,3c,9h,Jd*5A\r\n",
        Stack(2, cards("Qd", "Qh", "8s", "4c", "3c", "9h", "Jd")),
    ),
    (b"$FLT,3,HOPPER_EMPTY*77\r\n", Fault(3, "HOPPER_EMPTY")),
    (b"$CNT,4,39*67\r\n", CardCount(4, 39)),
    # Ultimate Texas Hold'em: a hand and the board
    (b"$STK,5,2,6h,6d*47\r\n", Stack(5, cards("6h", "6d"))),
    (b"$STK,6,5,Ts,Jc,2d,8h,Ac*49\r\n", Stack(6, cards("Ts", "Jc", "2d", "8h", "Ac"))),
]


@pytest.mark.parametrize(("wire", "message"), DOC_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_examples_are_what_the_code_sends_and_reads(
    wire: bytes, message: Frame
) -> None:
    assert MESSAGES.encode(message) == wire
    assert MESSAGES.decode(wire) == (len(wire), message)
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert shown in DOC.read_text(), f"{shown} is not in {DOC.name}"


DOC_BAD_EXAMPLES = [
    (b"$STK,9,3,Ah,Kd*40\r\n", "STK says 3 cards but carries 2"),
    (b"$STK,9,3,Ah,Kd,Zz*4C\r\n", "STK card 3 is not a card"),
    (b"$STK,9,0*45\r\n", "STK card count 0 is not 1..20"),
    (b"$STK,9,x,Ah*08\r\n", "STK card count is not a number 1..20"),
    (b"$SHF,9,Red*37\r\n", "SHF deck colour 'Red' is not 1-16 lowercase letters"),
    (b"$CNT,9,-1*7C\r\n", "CNT takes one field, the cards left (1-4 digits)"),
]


@pytest.mark.parametrize(("wire", "reason"), DOC_BAD_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_bad_frames_are_bad_for_the_documented_reason(
    wire: bytes, reason: str
) -> None:
    assert MESSAGES.decode(wire) == (len(wire), BadFrame(wire, reason))
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert re.search(re.escape(shown) + r" +" + re.escape(reason), DOC.read_text())


@pytest.mark.parametrize(
    "message",
    [
        Stack(0, cards("Ah")),
        Stack(9999, cards("As", "Ks", "Qs", "Js", "Ts", "9s", "8s")),
        Stack(17, cards(*DECK[:MAX_STACK_CARDS])),
        Stack(18, cards("JKR", "JKR")),  # the wire does not judge the deck
        ShuffleDone(19, "red"),
        ShuffleDone(20, "abcdefghijklmnop"),
        ShuffleDone(21),
        CardCount(22, 0),
        CardCount(23, 9999),
        Fault(24, "WRONG_COUNT", "counted 4, expected 3"),
    ],
    ids=repr,
)
def test_messages_round_trip(message: Frame) -> None:
    wire = MESSAGES.encode(message)
    assert MESSAGES.decode(wire) == (len(wire), message)
    assert MESSAGES.kinds == {"STK", "SHF", "CNT", "FLT", "CLR", "HBT"}


def test_the_biggest_stack_fits_in_a_frame() -> None:
    wire = MESSAGES.encode(Stack(9999, cards(*DECK[: MAX_STACK_CARDS - 1], "JKR")))
    assert len(wire) <= MAX_FRAME


def test_cards_are_case_insensitive_on_the_wire_and_canonical_after() -> None:
    wire = line("STK,1,3,ah,KD,jkr")
    assert MESSAGES.decode(wire) == (len(wire), Stack(1, cards("Ah", "Kd", "JKR")))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("STK,1", "STK takes a card count and that many cards"),
        ("STK,1,3,Ah,Kd", "STK says 3 cards but carries 2"),
        ("STK,1,2,Ah,Kd,Qc", "STK says 2 cards but carries 3"),
        ("STK,1,0", "STK card count 0 is not 1..20"),
        ("STK,1,21," + ",".join(["Ah"] * 21), "STK card count 21 is not 1..20"),
        ("STK,1,003,Ah,Kd,Qc", "STK card count is not a number 1..20"),
        ("STK,1,Ah,Kd", "STK card count is not a number 1..20"),
        ("STK,1,3,Ah,10d,Qc", "STK card 2 is not a card"),
        ("STK,1,3,Ah,Kd, Qc", "STK card 3 has spaces"),
        ("STK,1,3,Ah,,Qc", "STK card 2 is not a card"),
        ("SHF,1,", "SHF deck colour '' is not 1-16 lowercase letters"),
        ("SHF,1,RED", "SHF deck colour 'RED' is not 1-16 lowercase letters"),
        ("SHF,1,dark-blue", "SHF deck colour 'dark-blue'"),
        ("SHF,1,abcdefghijklmnopq", "is not 1-16 lowercase letters"),
        ("SHF,1,red,blue", "SHF takes at most one field, the deck colour"),
        ("CNT,1", "CNT takes one field"),
        ("CNT,1,12345", "CNT takes one field"),
        ("CNT,1,4,5", "CNT takes one field"),
        ("CRD,1,Ah", "unknown frame type 'CRD'"),  # the shoe's message
    ],
)
def test_bad_fields_make_a_bad_frame(body: str, reason: str) -> None:
    wire = line(body)
    consumed, item = MESSAGES.decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame) and item.raw == wire
    assert reason in item.reason
    for text in body.split(",")[3:]:  # the reason is published in status: it names no card
        token = rf"(?<![A-Za-z0-9]){re.escape(text.strip())}(?![A-Za-z0-9])"
        assert not (body.startswith("STK") and text.strip() and re.search(token, item.reason))


@pytest.mark.parametrize(
    "message",
    [
        Stack(1, ()),
        Stack(1, cards(*DECK[: MAX_STACK_CARDS + 1])),
        ShuffleDone(1, "Red"),
        ShuffleDone(1, ""),
        CardCount(1, -1),
        CardCount(1, 10_000),
    ],
    ids=repr,
)
def test_a_message_no_device_could_send_cannot_be_encoded(message: Frame) -> None:
    with pytest.raises(FrameError):
        MESSAGES.encode(message)


# -- the model --------------------------------------------------------------------------------


def decoded(wire: list[bytes]) -> list[Any]:
    return [MESSAGES.decode(w)[1] for w in wire]


def test_the_model_shuffles_one_deck_from_its_seed_and_dispenses_it_in_stacks() -> None:
    sent: list[bytes] = []
    a = DispenserModel(sent.append, stack_size=3, shuffle_seed=4)
    b = DispenserModel(lambda _: None, stack_size=3, shuffle_seed=4)
    a.shuffle("blue")
    b.shuffle("blue")
    assert a.remaining == 52
    dealt = [a.dispense() for _ in range(17)]
    assert dealt == [b.dispense() for _ in range(17)]  # reproducible from the seed
    assert a.remaining == 1
    assert all(len(s) == 3 for s in dealt)
    assert sorted(c for s in dealt for c in s) != sorted(DECK[:51])  # shuffled, not in order
    assert len({c for s in dealt for c in s}) == 51  # one deck: no card twice
    frames = decoded(sent)
    assert frames[0] == ShuffleDone(0, "blue")
    assert [[str(c) for c in f.cards] for f in frames[1:]] == dealt
    with pytest.raises(HopperEmpty):
        a.dispense()
    assert a.dispense(1)[0] not in {c for s in dealt for c in s}
    assert a.count() == 0
    assert decoded(sent[-1:]) == [CardCount(19, 0)]


def test_the_pai_gow_deck_has_the_joker_and_load_keeps_the_order_given() -> None:
    sent: list[bytes] = []
    model = DispenserModel(sent.append, stack_size=7, joker=True, shuffle_seed=1)
    model.shuffle(None, announce=False)
    assert sent == []
    hands = [model.dispense() for _ in range(7)]
    assert sum(h.count("JKR") for h in hands) == 1
    assert model.remaining == 4
    model.load(["ah", "KD", "jkr"], "red")
    assert model.dispense(3) == ["Ah", "Kd", "JKR"]
    before = (model.next_seq, len(sent))
    for size in (0, MAX_STACK_CARDS + 1):
        with pytest.raises(ValueError, match="a stack holds"):
            model.dispense(size)
    with pytest.raises(ValueError, match="lowercase"):
        model.shuffle("Red")
    with pytest.raises(ValueError, match="lowercase"):
        model.shuffle_done("dark blue")
    assert (model.next_seq, len(sent)) == before  # nothing was sent
    assert model.remaining == 0  # and the failed shuffle did not refill the hopper


# -- the driver over a real pty ---------------------------------------------------------------


async def test_stacks_become_events_in_dispense_order_with_the_deck(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=1)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        first = sink.statuses[0]
        assert (first.available, first.fault) == (True, None)
        assert first.detail["port"] == sim.port
        assert first.detail["deck"] is None  # not told yet
        sim.shuffle("red")
        dealt = [sim.dispense() for _ in range(12)]
        await until_stacks(sink, 12)
    assert sink.events == [{"type": "shuffler.stack", "cards": s, "deck": "red"} for s in dealt]
    assert driver.stats["bad_frames"] == 0
    assert [s.detail["deck"] for s in sink.statuses] == [None, "red"]  # never one per stack


async def test_the_deck_colour_is_carried_from_each_shuffle_to_the_stacks_after_it(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:15], announce=False)
        sim.dispense()  # before any SHF: the colour is unknown
        sim.shuffle_done("red")
        sim.dispense()
        sim.dispense()
        sim.shuffle_done("blue")
        sim.dispense()
        sim.shuffle_done(None)  # a device that cannot tell the colour
        sim.dispense()
        await until_stacks(sink, 5)
    assert [e.get("deck") for e in sink.events] == [None, "red", "red", "blue", None]
    assert "deck" not in sink.events[0] and "deck" not in sink.events[4]
    assert stacks(sink) == [DECK[i : i + 3] for i in range(0, 15, 3)]
    assert last(sink).detail["deck"] is None


async def test_a_stack_of_the_wrong_size_is_emitted_as_read_and_reported(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:20], "red")
        short = sim.dispense(2)
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
        status = last(sink)
        assert status.available
        assert status.detail["wrong_count"] == 1
        assert status.detail["last_wrong_count"] == {"expected": [3], "received": 2}
        assert "fault_text" not in status.detail  # derived from the stack, not a FLT
        assert stacks(sink) == [short]  # emitted as read, before the status says why
        good = sim.dispense()  # a right-sized stack ends it
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        long = sim.dispense(4)
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 2, TIMEOUT)
        assert last(sink).fault == WRONG_COUNT
        assert last(sink).detail["last_wrong_count"] == {"expected": [3], "received": 4}
        sim.shuffle_done("blue")  # so does a fresh shuffle
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert sink.events == [
        {"type": "shuffler.stack", "cards": short, "deck": "red"},
        {"type": "shuffler.stack", "cards": good, "deck": "red"},
        {"type": "shuffler.stack", "cards": long, "deck": "red"},
    ]
    assert sink.statuses[-1].detail["wrong_count"] == 2  # the counter stays


async def test_the_device_own_wrong_count_fault_stands_until_clr(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:6])
        sim.fault("WRONG_COUNT", "counted 4, expected 3")
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
        assert last(sink).detail["fault_text"] == "counted 4, expected 3"
        sim.dispense()  # a right-sized stack does not clear the device's own fault
        await until_stacks(sink, 1)
        assert last(sink).fault == WRONG_COUNT
        sim.clear()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert last(sink).detail["wrong_count"] == 0


async def test_the_hand_dispenser_forms_seven_card_hands_and_takes_the_joker(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=7, joker=True, shuffle_seed=8)
    sink = RecordingSink()
    driver = HandDispenserDriver("pg1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(["JKR", *DECK[:6], *DECK[6:13]], "blue")
        hands = [sim.dispense(), sim.dispense()]
        sim.shuffle("red")
        hands += [sim.dispense() for _ in range(7)]  # the whole 53-card deck but four
        await until_stacks(sink, 9)
    assert stacks(sink) == hands
    assert stacks(sink)[0] == ["JKR", *DECK[:6]]
    assert sum(h.count("JKR") for h in hands[2:]) == 1
    assert [e["deck"] for e in sink.events] == ["blue"] * 2 + ["red"] * 7
    assert all(s.fault is None for s in sink.statuses)


async def test_a_joker_is_refused_when_the_deck_has_none(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(["As", "JKR", "Kh", *DECK[:6]], "red")
        sim.dispense()  # holds the joker: withheld
        await sink.wait_for(lambda: last(sink).fault == UNEXPECTED_JOKER, TIMEOUT)
        assert last(sink).detail["joker_refused"] == 1
        assert sink.events == []
        after = sim.dispense()  # other stacks still flow, and the fault stands
        await until_stacks(sink, 1)
        assert last(sink).fault == UNEXPECTED_JOKER
        sim.dispense(2)  # a wrong count ranks below it
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 1, TIMEOUT)
        assert last(sink).fault == UNEXPECTED_JOKER
        sim.shuffle_done("blue")  # the right deck, freshly shuffled
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert stacks(sink) == [after, DECK[3:5]]
    assert "JKR" not in json.dumps(sink.calls, default=repr)
    assert last(sink).detail["joker_refused"] == 1


@pytest.mark.parametrize(
    ("cls", "options", "takes_joker"),
    [
        (ShufflerDriver, {"joker": True}, True),
        (HandDispenserDriver, {"joker": False, "stack_size": 3}, False),
    ],
    ids=["shuffler-joker-true", "hand-dispenser-joker-false"],
)
async def test_the_joker_option_decides(
    make_sim: Callable[..., SimulatedDispenser],
    cls: type[DispenserDriver],
    options: dict[str, Any],
    takes_joker: bool,
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = cls("d1", sim.port, 9600, options)
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(["JKR", "2c", "3c", "4c", "5c", "6c"])
        sim.dispense()
        marker = sim.dispense()
        await sink.wait_for(lambda: stacks(sink)[-1:] == [marker], TIMEOUT)
    if takes_joker:
        assert stacks(sink) == [["JKR", "2c", "3c"], marker]
        assert last(sink).fault is None
    else:
        assert stacks(sink) == [marker]
        assert last(sink).fault == UNEXPECTED_JOKER


async def test_ultimate_texas_holdem_takes_hands_of_two_and_a_board_of_five(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=2, shuffle_seed=3)
    sink = RecordingSink()
    driver = HandDispenserDriver("uth1", sim.port, 9600, {"stack_size": [5, 2], "joker": False})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shuffle("red")
        dealt = [sim.dispense() for _ in range(7)] + [sim.dispense(5)]
        await until_stacks(sink, 8)
        assert all(s.fault is None for s in sink.statuses)
        wrong = sim.dispense(3)
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
    assert stacks(sink) == [*dealt, wrong]
    assert last(sink).detail["last_wrong_count"] == {"expected": [2, 5], "received": 3}


@pytest.mark.parametrize("code", ["JAM", "MISREAD", "HOPPER_EMPTY", "DOOR_OPEN", "NEW_CODE_9"])
async def test_device_faults_reach_status_until_cleared(
    make_sim: Callable[..., SimulatedDispenser], code: str
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:6], "red")
        sim.fault(code, "see the manual, page 4")
        await sink.wait_for(lambda: last(sink).fault == code, TIMEOUT)
        status = last(sink)
        assert status.available
        assert status.detail["fault_text"] == "see the manual, page 4"
        dealt = sim.dispense()  # stacks still flow while a fault stands
        await until_stacks(sink, 1)
        assert last(sink).fault == code
        sim.clear()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert stacks(sink) == [dealt]
    assert [s.fault for s in sink.statuses].count(code) == 1  # one report per change
    assert "fault_text" not in sink.statuses[-1].detail


async def test_the_card_count_shows_in_status_until_the_next_shuffle(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=2)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shuffle("red")
        assert sim.count() == 52
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 52, TIMEOUT)
        sim.dispense()
        sim.dispense()
        sim.count()
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 46, TIMEOUT)
        sim.shuffle("red")  # a fresh deck: the old count no longer holds
        await sink.wait_for(lambda: last(sink).detail["remaining"] is None, TIMEOUT)
    assert [s.detail["remaining"] for s in sink.statuses] == [None, None, 52, 46, None]


async def test_garbage_between_frames_is_survived_and_shows_no_card(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=5)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shuffle("red")
        dealt = [sim.dispense()]
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage before $
        dealt.append(sim.dispense())
        sim.write_raw(b"$STK,9,3,Qh,Qd,Qc*00\r\n")  # 2: bad checksum
        sim.write_raw(line("STK,9,3,Jh,Jd"))  # 3: the count says 3, two cards
        sim.write_raw(b"$STK,9,3,Th,")  # 4: truncated by the next frame's $
        dealt.append(sim.dispense())
        await until_stacks(sink, 3)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4, TIMEOUT)
    assert stacks(sink) == dealt
    final = sink.statuses[-1]
    assert final.available and final.fault is None
    assert final.detail["frames_lost"] == 0
    assert final.detail["last_bad"] == {
        "reason": "truncated frame: $ before end of line",
        "raw": "$STK,9<6 bytes withheld>",
    }
    published = json.dumps([s.detail for s in sink.statuses])
    for card in ("Qh", "Qd", "Qc", "Jh", "Jd", "Th"):  # bad stacks' cards reach no status
        assert card not in published


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"$STK,9,3,Qh,Qd,Qc*00\r\n", "$STK,9<16 bytes withheld>"),
        (b"\x00\xff line noise \r\n", "<16 bytes withheld>"),
        (b"Kd,7s*3A\r\n", "<10 bytes withheld>"),  # the tail of a broken stack
        (b"$STK,12", "$STK,12"),
    ],
)
def test_a_bad_frame_shows_only_its_type_and_seq(raw: bytes, shown: str) -> None:
    assert ShufflerDriver("d", "p", 9600, {}).shown_bad_frame(raw) == shown


async def test_fragmented_writes_still_yield_every_stack(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=7, joker=True, shuffle_seed=7, fragment=True, max_chunk=3, seed=7)
    sink = RecordingSink()
    driver = HandDispenserDriver("pg1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.shuffle("blue")
        dealt = [sim.dispense() for _ in range(7)]
        sim.count()
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 4, TIMEOUT)
    assert stacks(sink) == dealt
    assert driver.stats["bad_frames"] == 0
    assert driver.stats["reads"] > driver.stats["frames"] == 9  # it really came in pieces


async def test_a_retransmitted_stack_is_ignored(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:6], "red")
        sim.dispense()
        sim.duplicate_last()  # the same frame, same SEQ
        sim.dispense()
        await until_stacks(sink, 2)
        sim.count()
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 0, TIMEOUT)
    assert stacks(sink) == [DECK[0:3], DECK[3:6]]
    assert sink.statuses[-1].detail["duplicates"] == 1
    assert sink.statuses[-1].fault is None


async def test_a_lost_frame_is_reported_until_the_next_shuffle_and_the_deck_is_forgotten(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        sim.load(DECK[:18], "red")  # SEQ 0
        sim.dispense()  # 1
        sim.drop_next()
        sim.shuffle_done("blue")  # 2, lost on the wire: was the deck changed?
        sim.dispense()  # 3
        await sink.wait_for(lambda: last(sink).fault == FRAMES_LOST, TIMEOUT)
        gap = sink.statuses[-1]
        assert gap.available
        assert gap.detail["last_gap"] == {"expected": 2, "received": 3, "lost": 1}
        await until_stacks(sink, 2)
        assert last(sink).detail["deck"] is None  # not "red": that may be stale
        sim.dispense()  # 4: a stack does not clear it
        await until_stacks(sink, 3)
        assert last(sink).fault == FRAMES_LOST
        sim.shuffle_done("blue")  # 5: the next shuffle does
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        sim.dispense()
        await until_stacks(sink, 4)
    assert [e.get("deck") for e in sink.events] == ["red", None, None, "blue"]
    assert stacks(sink) == [DECK[i : i + 3] for i in range(0, 12, 3)]  # nothing invented
    assert driver.stats["frames_lost"] == 1


async def test_unplug_reports_loss_and_replug_through_a_symlink_carries_on(
    make_sim: Callable[..., SimulatedDispenser], tmp_path: Path
) -> None:
    link = tmp_path / "shuffler0"
    sim1 = make_sim(stack_size=3)
    link.symlink_to(sim1.port)
    sink = RecordingSink()
    options = {"backoff_initial": 0.01, "backoff_max": 0.05}
    driver = ShufflerDriver("tcp1", str(link), 9600, options)
    async with running(driver, sink):
        await until_open(driver, sink)
        sim1.load(DECK[:6], "red")
        first = sim1.dispense()
        await until_stacks(sink, 1)

        sim1.close()  # unplugged
        await sink.wait_for(lambda: last(sink).fault == DISCONNECTED, TIMEOUT)
        down = sink.statuses[-1]
        assert down.available is False
        assert down.detail["error"].startswith(f"lost {link}")
        link.unlink()
        link.symlink_to(tmp_path / "nothing-here")
        await sink.wait_for(lambda: "cannot open" in last(sink).detail["error"], TIMEOUT)

        sim2 = make_sim(stack_size=3, seq=sim1.next_seq)  # the same device, plugged in again
        sim2.load(DECK[3:6], announce=False)
        link.unlink()
        link.symlink_to(sim2.port)
        await until_open(driver, sink, opens=2)
        second = sim2.dispense()
        await until_stacks(sink, 2)
    assert sink.events == [
        {"type": "shuffler.stack", "cards": first, "deck": "red"},
        {"type": "shuffler.stack", "cards": second, "deck": "red"},  # SEQ carried on
    ]
    assert sink.statuses[-1].fault is None
    assert sink.statuses[-1].detail["reconnects"] == 1
    with pytest.raises(RuntimeError, match="closed"):
        sim1.dispense()


# -- over the null modem: any chunking ---------------------------------------------------------


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(5), random_chunks(2, 9)],
    ids=["whole", "1", "5", "random"],
)
async def test_any_chunking_gives_the_same_result(fragment: Fragmenter | None) -> None:
    modem = NullModem(fragment=fragment)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", "null", 9600, {"status_interval": 0}, connect=modem.connect)
    async with running(driver, sink):
        await until_open(driver, sink)
        device = DispenserModel(modem.write, stack_size=3, shuffle_seed=9)
        device.shuffle("red")
        dealt = []
        for i in range(12):
            dealt.append(device.dispense())
            if i % 4 == 1:
                device.write_raw(b"\r\n~noise~")  # always followed by a frame, which ends it
        await until_stacks(sink, 12)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    assert stacks(sink) == dealt


# -- options, registry, check-config, interactive simulator ------------------------------------


def test_the_two_drivers_differ_only_in_their_defaults() -> None:
    shuffler = ShufflerDriver("tcp1", "/dev/null", 9600, {})
    dispenser = HandDispenserDriver("pg1", "/dev/null", 9600, {})
    assert type(shuffler.options) is DispenserOptions
    assert type(dispenser.options) is HandDispenserOptions
    assert (shuffler.options.stack_size, shuffler.options.joker) == (3, False)
    assert (dispenser.options.stack_size, dispenser.options.joker) == (7, True)
    for cls in (ShufflerDriver, HandDispenserDriver):  # thin: no logic of their own
        assert cls.__bases__ == (DispenserDriver,)
        assert [k for k in vars(cls) if not k.startswith("_") and k != "options_class"] == []
    assert "options_class" not in vars(ShufflerDriver)  # the family's defaults are its own
    custom = ShufflerDriver("d", "p", 9600, {"stack_size": [5, 2], "joker": True})
    assert (custom.options.stack_size, custom.options.stack_sizes) == ((2, 5), (2, 5))
    assert custom.options.joker is True
    assert HandDispenserDriver("d", "p", 9600, {"stack_size": 1}).options.stack_sizes == (1,)


@pytest.mark.parametrize("cls", [ShufflerDriver, HandDispenserDriver])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"stack_size": 0}, "option 'stack_size' must be an integer 1..7 or a list of them, not 0"),
        ({"stack_size": 8}, "option 'stack_size' must be an integer 1..7 or a list of them, not 8"),
        ({"stack_size": "3"}, "option 'stack_size' must be an integer 1..7"),
        ({"stack_size": 3.0}, "option 'stack_size' must be an integer 1..7"),
        ({"stack_size": True}, "option 'stack_size' must be an integer 1..7"),
        ({"stack_size": []}, "option 'stack_size' must be an integer 1..7"),
        ({"stack_size": [2, 2]}, "option 'stack_size' must be an integer 1..7"),
        ({"stack_size": [2, 8]}, "option 'stack_size' must be an integer 1..7"),
        ({"joker": "yes"}, "option 'joker' must be true or false, not 'yes'"),
        ({"joker": 1}, "option 'joker' must be true or false, not 1"),
        ({"decks": 1}, r"unknown option 'decks' \(known: .*joker.*stack_size.*\)"),
        ({"stack_size": 9, "joker": 0}, r"option 'joker' .*; option 'stack_size'"),
    ],
)
def test_bad_options_are_refused_by_name(
    cls: type[DispenserDriver], options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        cls("d1", "/dev/null", 9600, options)


def test_both_drivers_are_registered() -> None:
    drivers = available_drivers()
    assert drivers["shuffler"] == "drivers.dispenser.device:ShufflerDriver"
    assert drivers["hand-dispenser"] == "drivers.dispenser.device:HandDispenserDriver"
    assert load_driver("shuffler") is ShufflerDriver
    assert load_driver("hand-dispenser") is HandDispenserDriver


def test_check_config_names_a_bad_dispenser_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = (ROOT / "config" / "ez-baccarat-panda8.toml").read_text(encoding="utf-8")
    schedules = ROOT / "config" / "schedules" / "ez-baccarat-panda8.toml"
    relative = 'file = "schedules/ez-baccarat-panda8.toml"'
    assert relative in shipped and "[mqtt]" in shipped, "the shipped config changed shape"
    base = shipped.replace(relative, f'file = "{schedules}"')

    def check(options: str) -> tuple[int, str]:
        device = (
            f'[[devices]]\nname = "dispenser"\ndriver = "hand-dispenser"\n'
            f'port = "/dev/x"\noptions = {options}\n\n[mqtt]'
        )
        path = tmp_path / "table.toml"
        path.write_text(base.replace("[mqtt]", device, 1), encoding="utf-8")
        code = tablectl_main(["check-config", str(path)])
        return code, capsys.readouterr().err

    assert check("{ stack_size = [2, 5], joker = false }") == (0, "")
    code, err = check('{ stack_size = 9, joker = "no" }')
    assert code == 2
    assert "options: option 'joker' must be true or false" in err
    assert "option 'stack_size' must be an integer 1..7" in err


SIM_ARGS = ["--stack-size", "7", "--joker", "--seed", "1", "--deck", "blue"]


def test_interactive_simulator_prints_its_port_and_obeys_commands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "drivers.sim.dispenser", *SIM_ARGS],
        input="dispense\ndispense 2\ncount\nfault\nclear\nshuffle red\nstatus\nbogus\nquit\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    assert len(lines[1].split()) == 7
    model = DispenserModel(lambda _: None, stack_size=7, joker=True, shuffle_seed=1)
    model.shuffle("blue")
    assert lines[1].split() == model.dispense()  # seeded
    assert len(lines[2].split()) == 2
    assert lines[3:6] == ["44 cards left", "fault JAM", "ok"]
    assert lines[6] == "shuffled: 53 cards, deck red"
    assert lines[7].startswith("53 cards left, stack of 7, next SEQ 7, port /dev/")
    assert "commands:" in lines[8] and "HOPPER_EMPTY" in proc.stdout
