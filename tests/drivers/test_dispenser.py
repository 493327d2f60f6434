"""The shuffler / hand dispenser family: its messages, and both drivers over real ptys.

ShufflerDriver and HandDispenserDriver run against SimulatedDispenser on pseudo-terminals (and
the in-memory null modem for chunkings a pty cannot force). Nothing sleeps to wait: every wait is
for a condition on the recorded calls, bounded by a timeout. The faults positions and resends
deal with (lost, repeated, unreported stacks, a restart, a device that lost its history), which
every positioned device shows, are in tests/drivers/test_device_contract.py; here, the family's
own.
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

from tablectl.cli import main as tablectl_main
from tablectl_base.cards import Card, parse_card, standard_deck
from tablectl_drivers.dispenser.device import (
    CARD_INDEX,
    UNEXPECTED_JOKER,
    WRONG_COUNT,
    DispenserDriver,
    DispenserOptions,
    HandDispenserDriver,
    HandDispenserOptions,
    ShufflerDriver,
)
from tablectl_drivers.dispenser.messages import (
    MAX_STACK_CARDS,
    MESSAGES,
    CardCount,
    Frame,
    ShuffleDone,
    Stack,
)
from tablectl_drivers.envelope import MAX_FRAME, BadFrame, Envelope, FrameError, checksum, encode
from tablectl_drivers.messages import Fault, FaultCleared, Heartbeat
from tablectl_drivers.registry import available_drivers, load_driver
from tablectl_drivers.resend import (
    HOST_MESSAGES,
    MAX_POSITION,
    ResendBegin,
    ResendEnd,
    ResendRequest,
)
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.dispenser import DispenserModel, HopperEmpty, SimulatedDispenser
from tests.drivers.support import (
    QUICK,
    last,
    running,
    simulators,
    synced,
    until_synced,
)

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


def places(sink: RecordingSink) -> list[tuple[str | None, int, int]]:
    """(shuffle, stack number, first card index) of the `shuffler.stack` events, in order."""
    return [
        (e["at"].get("run"), e["at"]["pos"], e["at"]["first"])
        for e in sink.events
        if e.get("type") == "shuffler.stack"
    ]


def stack_event(cards: list[str], run: str, pos: int, first: int, deck: str | None = "red") -> Any:
    """What a stack event must be, its SEQ aside (compare with `without_seq`)."""
    event: dict[str, Any] = {"type": "shuffler.stack", "cards": cards}
    if deck is not None:
        event["deck"] = deck
    event["at"] = {"run": run, "pos": pos, "first": first}
    return event


def without_seq(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with each `at.seq` checked to be a SEQ and taken out, for comparison."""
    out = []
    for e in events:
        if "at" in e:
            at = dict(e["at"])
            assert isinstance(at.pop("seq"), int) and "seq" not in at
            e = {**e, "at": at}
        out.append(e)
    return out


async def until_stacks(sink: RecordingSink, n: int) -> None:
    await sink.wait_for(lambda: len(stacks(sink)) >= n, TIMEOUT)


def changes(values: list[Any]) -> list[Any]:
    """`values` with consecutive repeats dropped: what a status detail went through."""
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


# -- messages ---------------------------------------------------------------------------------

DOC_EXAMPLES: list[tuple[bytes, Frame]] = [
    # the Three Card Poker shuffler's session
    (b"$SHF,0,41,red*37\r\n", ShuffleDone(0, "41", "red")),
    (b"$CNT,1,52*6F\r\n", CardCount(1, 52)),
    (b"$STK,2,1,1,3,Ah,Kd,7c*33\r\n", Stack(2, 1, 1, cards("Ah", "Kd", "7c"))),
    (b"$STK,3,2,4,3,2s,Th,Qs*39\r\n", Stack(3, 2, 4, cards("2s", "Th", "Qs"))),
    (b"$FLT,4,JAM,card stuck at exit*5B\r\n", Fault(4, "JAM", "card stuck at exit")),
    (b"$CLR,5*44\r\n", FaultCleared(5)),
    (b"$STK,6,3,7,2,9d,9c*4B\r\n", Stack(6, 3, 7, cards("9d", "9c"))),
    (b"$HBT,7*45\r\n", Heartbeat(7)),
    (b"$STK,8,4,10,3,5h,5c,Jd*7B\r\n", Stack(8, 4, 10, cards("5h", "5c", "Jd"))),
    (b"$SHF,9,42,blue*50\r\n", ShuffleDone(9, "42", "blue")),
    # its answer, after the heartbeat, to a resend from stack 2 (had frame 3 been lost)
    (b"$RSB,8,OK*7F\r\n", ResendBegin(8, False)),
    (b"$STK,9,2,4,3,2s,Th,Qs*33\r\n", Stack(9, 2, 4, cards("2s", "Th", "Qs"))),
    (b"$STK,10,3,7,2,9d,9c*7C\r\n", Stack(10, 3, 7, cards("9d", "9c"))),
    (b"$RSE,11,41,3*5E\r\n", ResendEnd(11, "41", 3)),
    (b"$CLR,12*72\r\n", FaultCleared(12)),
    # the Pai Gow hand dispenser's session
    (b"$SHF,0,7*5A\r\n", ShuffleDone(0, "7", None)),
    (
        b"$STK,1,1,1,7,As,JKR,Kh,Kc,5d,5s,2h*41\r\n",
        Stack(1, 1, 1, cards("As", "JKR", "Kh", "Kc", "5d", "5s", "2h")),
    ),
    (
        b"$STK,2,2,8,7,Qd,Qh,8s,4c,3c,9h,Jd*50\r\n",
        Stack(2, 2, 8, cards("Qd", "Qh", "8s", "4c", "3c", "9h", "Jd")),
    ),
    (b"$FLT,3,HOPPER_EMPTY*77\r\n", Fault(3, "HOPPER_EMPTY")),
    (b"$CNT,4,39*67\r\n", CardCount(4, 39)),
    # Ultimate Texas Hold'em: a shuffle, a hand and the board
    (b"$SHF,5,12,blue*59\r\n", ShuffleDone(5, "12", "blue")),
    (b"$STK,6,1,1,2,6h,6d*44\r\n", Stack(6, 1, 1, cards("6h", "6d"))),
    (b"$STK,7,2,3,5,Ts,Jc,2d,8h,Ac*49\r\n", Stack(7, 2, 3, cards("Ts", "Jc", "2d", "8h", "Ac"))),
    # the longest STK there can be: 77 bytes
    (
        b"$STK,9999,999999999,999999999,10,JKR,JKR,JKR,JKR,JKR,JKR,JKR,JKR,JKR,JKR*4D\r\n",
        Stack(9999, MAX_POSITION, MAX_POSITION, cards(*["JKR"] * 10)),
    ),
]


@pytest.mark.parametrize(("wire", "message"), DOC_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_examples_are_what_the_code_sends_and_reads(
    wire: bytes, message: Frame
) -> None:
    assert MESSAGES.encode(message) == wire
    assert MESSAGES.decode(wire) == (len(wire), message)
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert shown in DOC.read_text(), f"{shown} is not in {DOC.name}"


def test_the_documented_resend_request_is_what_the_driver_sends() -> None:
    wire = b"$RSN,0,41,2*64\r\n"
    assert HOST_MESSAGES.encode(ResendRequest(0, "41", 2)) == wire
    assert wire.decode().replace("\r\n", "\\r\\n") in DOC.read_text()


def test_the_documented_resend_is_what_the_device_answers() -> None:
    """The doc's exchange, played on the model: the host lost stack 2 of shuffle 41 and asks
    from there; the device answers with stacks 2 and 3 under fresh SEQs, then where it is."""
    sent: list[bytes] = []
    model = DispenserModel(sent.append, stack_size=3, first_shuffle=41)
    model.load(["Ah", "Kd", "7c", "2s", "Th", "Qs", "9d", "9c", "5h", "5c", "Jd"])  # SEQ 0
    model.count()  # 1
    model.dispense()  # 2
    model.drop_next()
    model.dispense()  # 3, lost on the wire
    model.fault("JAM", "card stuck at exit")  # 4
    model.clear()  # 5
    model.dispense(2)  # 6
    model.heartbeat()  # 7
    assert len(sent) == 7
    model.receive(b"$RSN,0,41,2*64\r\n")
    assert sent[7:] == [wire for wire, _ in DOC_EXAMPLES[10:15]]


DOC_BAD_EXAMPLES = [
    (b"$STK,9,5,13,3,Ah,Kd*77\r\n", "STK says 3 cards but carries 2"),
    (b"$STK,9,5,13,3,Ah,Kd,Zz*7B\r\n", "STK card 3 is not a card"),
    (b"$STK,9,5,13,0*72\r\n", "STK card count 0 is not 1..10"),
    (b"$STK,9,5,13,x,Ah*3F\r\n", "STK card count is not a number 1..10"),
    (b"$STK,9,0,1,1,Ah*40\r\n", "STK stack number must be at least 1"),
    (b"$STK,9,3,Ah,Kd,7c*38\r\n", "STK first card index is not 1-9 digits"),
    (b"$SHF,9*48\r\n", "SHF takes a shuffle id and at most a deck colour"),
    (b"$SHF,9,41,Red*1E\r\n", "SHF deck colour 'Red' is not 1-16 lowercase letters"),
    (b"$SHF,9,4-1,red*13\r\n", "SHF shuffle id is not 1-8 letters or digits"),
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
        Stack(0, 1, 1, cards("Ah")),
        Stack(9999, 8, 50, cards("As", "Ks", "Qs", "Js", "Ts", "9s", "8s")),
        Stack(17, MAX_POSITION, 1, cards(*DECK[:MAX_STACK_CARDS])),
        Stack(18, 2, MAX_POSITION, cards("JKR", "JKR")),  # the wire does not judge the deck
        Stack(19, 3, 2, cards("2c")),  # nor whether the first card index follows on
        ShuffleDone(19, "1", "red"),
        ShuffleDone(20, "Ab3", "abcdefghijklmnop"),
        ShuffleDone(21, "12345678"),
        CardCount(22, 0),
        CardCount(23, 9999),
        Fault(24, "WRONG_COUNT", "counted 4, expected 3"),
        ResendBegin(25, True),
        ResendEnd(26, "41", 0),
        ResendEnd(27, None, 0),
    ],
    ids=repr,
)
def test_messages_round_trip(message: Frame) -> None:
    wire = MESSAGES.encode(message)
    assert MESSAGES.decode(wire) == (len(wire), message)
    assert MESSAGES.kinds == {"STK", "SHF", "CNT", "RSB", "RSE", "FLT", "CLR", "HBT"}


def test_the_biggest_stack_fits_in_a_frame_and_one_card_more_might_not() -> None:
    """The worst case: a 4-digit SEQ, 9-digit stack number and first card index, every card
    the 3-letter JKR. MAX_STACK_CARDS of them fit (77 bytes); one more would not (81)."""
    wire = MESSAGES.encode(Stack(9999, MAX_POSITION, MAX_POSITION, cards(*["JKR"] * 10)))
    assert MAX_STACK_CARDS == 10
    assert len(wire) == 77 <= MAX_FRAME
    fields = ("999999999", "999999999", "11", *["JKR"] * 11)
    with pytest.raises(FrameError, match="81 bytes, more than 80"):
        encode(Envelope("STK", 9999, fields))
    hand = MESSAGES.encode(Stack(9999, MAX_POSITION, MAX_POSITION, cards(*DECK[:6], "JKR")))
    assert len(hand) <= MAX_FRAME  # a Pai Gow hand at the largest numbers


def test_cards_are_case_insensitive_on_the_wire_and_canonical_after() -> None:
    wire = line("STK,1,1,1,3,ah,KD,jkr")
    assert MESSAGES.decode(wire) == (len(wire), Stack(1, 1, 1, cards("Ah", "Kd", "JKR")))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("STK,1", "STK takes a stack number, a first card index, a card count"),
        ("STK,1,1,1", "STK takes a stack number, a first card index, a card count"),
        ("STK,1,1,1,3,Ah,Kd", "STK says 3 cards but carries 2"),
        ("STK,1,1,1,2,Ah,Kd,Qc", "STK says 2 cards but carries 3"),
        ("STK,1,1,1,0", "STK card count 0 is not 1..10"),
        ("STK,1,1,1,11," + ",".join(["Ah"] * 11), "STK card count 11 is not 1..10"),
        ("STK,1,1,1,003,Ah,Kd,Qc", "STK card count is not a number 1..10"),
        ("STK,1,1,1,Ah,Kd", "STK card count is not a number 1..10"),
        ("STK,1,3,Ah,Kd,Qc", "STK first card index is not 1-9 digits"),  # no positions
        ("STK,1,0,1,1,Ah", "STK stack number must be at least 1"),
        ("STK,1,1,0,1,Ah", "STK first card index must be at least 1"),
        ("STK,1,1234567890,1,1,Ah", "STK stack number is not 1-9 digits"),
        ("STK,1,x,1,1,Ah", "STK stack number is not 1-9 digits"),
        ("STK,1,1,-1,1,Ah", "STK first card index is not 1-9 digits"),
        ("STK,1,1,1,3,Ah,10d,Qc", "STK card 2 is not a card"),
        ("STK,1,1,1,3,Ah,Kd, Qc", "STK card 3 has spaces"),
        ("STK,1,1,1,3,Ah,,Qc", "STK card 2 is not a card"),
        ("SHF,1", "SHF takes a shuffle id and at most a deck colour"),
        ("SHF,1,,red", "SHF shuffle id is not 1-8 letters or digits"),
        ("SHF,1,123456789", "SHF shuffle id is not 1-8 letters or digits"),
        ("SHF,1,4 1", "SHF shuffle id is not 1-8 letters or digits"),
        ("SHF,1,41,", "SHF deck colour '' is not 1-16 lowercase letters"),
        ("SHF,1,41,RED", "SHF deck colour 'RED' is not 1-16 lowercase letters"),
        ("SHF,1,41,dark-blue", "SHF deck colour 'dark-blue'"),
        ("SHF,1,41,abcdefghijklmnopq", "is not 1-16 lowercase letters"),
        ("SHF,1,41,red,blue", "SHF takes a shuffle id and at most a deck colour"),
        ("CNT,1", "CNT takes one field"),
        ("CNT,1,12345", "CNT takes one field"),
        ("CNT,1,4,5", "CNT takes one field"),
        ("RSB,1,MAYBE", "RSB takes OK or LOST"),
        ("RSE,1,41", "RSE takes a run and a position"),
        ("RSN,1,41,2", "unknown frame type 'RSN'"),  # the host's message
        ("CRD,1,Ah,1", "unknown frame type 'CRD'"),  # the shoe's message
    ],
)
def test_bad_fields_make_a_bad_frame(body: str, reason: str) -> None:
    wire = line(body)
    consumed, item = MESSAGES.decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame) and item.raw == wire
    assert reason in item.reason
    for text in body.split(",")[5:]:  # the reason is published in status: it names no card
        token = rf"(?<![A-Za-z0-9]){re.escape(text.strip())}(?![A-Za-z0-9])"
        assert not (body.startswith("STK") and text.strip() and re.search(token, item.reason))


@pytest.mark.parametrize(
    "message",
    [
        Stack(1, 1, 1, ()),
        Stack(1, 1, 1, cards(*DECK[: MAX_STACK_CARDS + 1])),
        Stack(1, 0, 1, cards("Ah")),
        Stack(1, 1, 0, cards("Ah")),
        Stack(1, MAX_POSITION + 1, 1, cards("Ah")),
        ShuffleDone(1, "4-1"),
        ShuffleDone(1, "123456789"),
        ShuffleDone(1, ""),
        ShuffleDone(1, "41", "Red"),
        ShuffleDone(1, "41", ""),
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
    assert frames[0] == ShuffleDone(0, "1", "blue")
    assert [[str(c) for c in f.cards] for f in frames[1:]] == dealt
    # each stack numbered since the shuffle, with the number of its first card
    assert [(f.pos, f.first) for f in frames[1:]] == [(i, 3 * i - 2) for i in range(1, 18)]
    assert (a.shuffle_id, a.position, a.card_index) == ("1", 17, 51)
    with pytest.raises(HopperEmpty):
        a.dispense()
    assert a.position == 17  # nothing was sent, no number used
    assert a.dispense(1)[0] not in {c for s in dealt for c in s}
    assert decoded(sent[-1:]) == [Stack(18, 18, 52, decoded(sent[-1:])[0].cards)]
    assert a.count() == 0
    assert decoded(sent[-1:]) == [CardCount(19, 0)]
    a.shuffle("red")  # a new shuffle: a new id, the numbers start again
    a.dispense()
    assert decoded(sent[-2:])[0] == ShuffleDone(20, "2", "red")
    assert (decoded(sent[-1:])[0].pos, decoded(sent[-1:])[0].first) == (1, 1)


def test_the_pai_gow_deck_has_the_joker_and_load_keeps_the_order_given() -> None:
    sent: list[bytes] = []
    model = DispenserModel(sent.append, stack_size=7, joker=True, shuffle_seed=1)
    model.shuffle(None, announce=False)
    assert sent == []
    hands = [model.dispense() for _ in range(7)]
    assert sum(h.count("JKR") for h in hands) == 1
    assert model.remaining == 4
    assert (model.shuffle_id, model.position, model.card_index) == ("1", 7, 49)
    model.load(["ah", "KD", "jkr"], "red")
    assert model.dispense(3) == ["Ah", "Kd", "JKR"]
    assert decoded(sent[-2:]) == [
        ShuffleDone(7, "2", "red"),
        Stack(8, 1, 1, cards("Ah", "Kd", "JKR")),
    ]
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


def test_the_model_misreads_loses_cards_and_resends_only_what_it_reported() -> None:
    sent: list[bytes] = []
    model = DispenserModel(sent.append, stack_size=2)
    model.load(DECK[:12], "red")  # SEQ 0: shuffle 1
    model.dispense()  # 1: stack 1, cards 1-2
    assert model.misread() == DECK[2:4]  # stack 2, cards 3-4: nothing sent
    assert model.lose_cards() == [DECK[4]]  # card 5 leaves without a stack: nothing sent
    model.dispense()  # 2: stack 3 starts at card 6
    assert decoded(sent) == [
        ShuffleDone(0, "1", "red"),
        Stack(1, 1, 1, cards(*DECK[0:2])),
        Stack(2, 3, 6, cards(*DECK[5:7])),
    ]
    assert model.misread(announce=True) == DECK[7:9]  # 3: FLT MISREAD; stack 4, cards 8-9
    assert decoded(sent[3:]) == [Fault(3, "MISREAD", "stack 4 not reported")]
    assert (model.position, model.card_index, model.remaining) == (4, 9, 3)
    with pytest.raises(ValueError, match="whole number"):
        model.lose_cards(0)
    with pytest.raises(HopperEmpty):
        model.lose_cards(4)
    # the host asks from stack 2: only stack 3 was ever reported, so only it comes again
    model.receive(HOST_MESSAGES.encode(ResendRequest(0, "1", 2)))
    assert decoded(sent[4:]) == [
        ResendBegin(4, False),
        Stack(5, 3, 6, cards(*DECK[5:7])),
        ResendEnd(6, "1", 4),
        Fault(7, "MISREAD", "stack 4 not reported"),  # the fault that stands
    ]
    model.forget()  # a power cycle: the history is gone
    model.receive(HOST_MESSAGES.encode(ResendRequest(1, "1", 3)))
    assert decoded(sent[8:]) == [
        ResendBegin(8, True),
        ResendEnd(9, "1", 4),
        Fault(10, "MISREAD", "stack 4 not reported"),
    ]


# -- the driver over a real pty ---------------------------------------------------------------


async def test_stacks_become_events_in_dispense_order_with_the_deck_and_their_place(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=1)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
        first = sink.statuses[0]
        assert (first.available, first.fault) == (True, None)
        assert first.detail["port"] == sim.port
        assert first.detail["deck"] is None  # not told yet
        sim.shuffle("red")
        dealt = [sim.dispense() for _ in range(12)]
        await until_stacks(sink, 12)
    # stack i of shuffle 1 starts at card 3i - 2: the count runs on card by card
    assert without_seq(sink.events) == [
        stack_event(s, "1", i, 3 * i - 2) for i, s in enumerate(dealt, 1)
    ]
    seqs = [e["at"]["seq"] for e in sink.events]  # each stack's own frame
    assert seqs == list(range(seqs[0], seqs[0] + 12))
    assert driver.stats["bad_frames"] == 0
    assert changes([s.detail["deck"] for s in sink.statuses]) == [None, "red"]
    # the SHF's colour is one report; a stack is an event, never a status report of its own
    assert len([s for s in sink.statuses if s.detail["deck"] == "red"]) == 1
    assert sink.cursor() == {"run": "1", "pos": 12, "seq": seqs[-1]}
    assert all(s.fault is None for s in sink.statuses)


async def test_the_deck_colour_is_carried_from_each_shuffle_to_the_stacks_after_it(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sim.load(DECK[:15], announce=False)  # shuffle 1, of which no SHF tells
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
        assert last(sink).detail["position"] == {"run": "1", "pos": 0}  # the resend's RSE
        sim.dispense()  # the colour of shuffle 1 is unknown
        sim.shuffle_done("red")  # shuffle 2
        sim.dispense()
        sim.dispense()
        sim.shuffle_done("blue")  # 3
        sim.dispense()
        sim.shuffle_done(None)  # 4: a device that cannot tell the colour
        sim.dispense()
        await until_stacks(sink, 5)
    assert [e.get("deck") for e in sink.events] == [None, "red", "red", "blue", None]
    assert "deck" not in sink.events[0] and "deck" not in sink.events[4]
    assert stacks(sink) == [DECK[i : i + 3] for i in range(0, 15, 3)]
    # each shuffle counts its stacks and cards from 1
    assert places(sink) == [("1", 1, 1), ("2", 1, 1), ("2", 2, 4), ("3", 1, 1), ("4", 1, 1)]
    assert last(sink).detail["deck"] is None


async def test_a_stack_of_the_wrong_size_is_emitted_as_read_and_reported(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
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
    assert without_seq(sink.events) == [
        stack_event(short, "1", 1, 1),
        stack_event(good, "1", 2, 3),  # the card index counts what was dispensed: 2 then 3
        stack_event(long, "1", 3, 6),
    ]
    assert sink.statuses[-1].detail["wrong_count"] == 2  # the counter stays
    assert sink.statuses[-1].detail["card_index_breaks"] == 0  # sizes, not missing cards


async def test_the_device_own_wrong_count_fault_stands_until_clr(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
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


async def test_a_first_card_index_that_does_not_follow_on_is_reported_as_card_index(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """Cards went missing between two stacks (one dropped inside the device): each stack is
    right-sized and emitted as read, but the second's first card index jumps, so the count of
    the deck does not add up: CARD_INDEX, until a stack that follows on rightly (or SHF)."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.load(DECK[:20], "red")
        first = sim.dispense()
        assert sim.lose_cards(2) == DECK[3:5]
        second = sim.dispense()  # starts at card 6, not 4
        await sink.wait_for(lambda: last(sink).fault == CARD_INDEX, TIMEOUT)
        status = last(sink)
        assert status.available and "fault_text" not in status.detail
        assert status.detail["card_index_breaks"] == 1
        assert status.detail["last_card_index"] == {
            "shuffle": "1",
            "stack": 2,
            "expected": 4,
            "received": 6,
        }
        assert stacks(sink) == [first, second]  # emitted as read, before the status says why
        third = sim.dispense()  # follows on from the second: it ends
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        sim.lose_cards()
        sim.dispense(2)  # a wrong size too: CARD_INDEX ranks above WRONG_COUNT
        await sink.wait_for(lambda: last(sink).detail["card_index_breaks"] == 2, TIMEOUT)
        assert last(sink).fault == CARD_INDEX
        sim.shuffle_done("blue")  # a fresh shuffle ends both
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
        sim.lose_cards()
        sim.dispense()  # stack 1 of a shuffle must start at card 1
        await sink.wait_for(lambda: last(sink).detail["card_index_breaks"] == 3, TIMEOUT)
        assert last(sink).detail["last_card_index"] == {
            "shuffle": "2",
            "stack": 1,
            "expected": 1,
            "received": 2,
        }
    assert places(sink) == [("1", 1, 1), ("1", 2, 6), ("1", 3, 9), ("1", 4, 13), ("2", 1, 2)]
    assert stacks(sink)[:3] == [first, second, third]
    assert last(sink).detail["wrong_count"] == 1


async def test_the_hand_dispenser_forms_seven_card_hands_and_takes_the_joker(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=7, joker=True, shuffle_seed=8)
    sink = RecordingSink()
    driver = HandDispenserDriver("pg1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.load(["JKR", *DECK[:6], *DECK[6:13]], "blue")
        hands = [sim.dispense(), sim.dispense()]
        sim.shuffle("red")
        hands += [sim.dispense() for _ in range(7)]  # the whole 53-card deck but four
        await until_stacks(sink, 9)
    assert stacks(sink) == hands
    assert stacks(sink)[0] == ["JKR", *DECK[:6]]
    assert sum(h.count("JKR") for h in hands[2:]) == 1
    assert [e["deck"] for e in sink.events] == ["blue"] * 2 + ["red"] * 7
    assert places(sink) == [("1", 1, 1), ("1", 2, 8)] + [("2", i, 7 * i - 6) for i in range(1, 8)]
    assert all(s.fault is None for s in sink.statuses)


async def test_a_joker_is_refused_when_the_deck_has_none_and_its_place_is_a_gap(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """The stack is withheld, as no game on a joker-free deck can hold it; its stack number
    would otherwise be a hole nobody explains, so it is reported as a gap the device cannot
    fill: the table holds the round until the dealer voids it (or enters the stack)."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.load(["As", "JKR", "Kh", *DECK[:6]], "red")
        sim.dispense()  # holds the joker: withheld
        await sink.wait_for(lambda: last(sink).fault == UNEXPECTED_JOKER, TIMEOUT)
        assert last(sink).detail["joker_refused"] == 1
        assert sink.events == [
            {
                "type": "device.gap",
                "device": "tcp1",
                "after": 0,
                "missing": [1],
                "reason": "stack 1 held a joker, which this deck has not: it was withheld",
                "run": "1",
            }
        ]
        after = sim.dispense()  # other stacks still flow, and the fault stands
        await until_stacks(sink, 1)
        assert last(sink).fault == UNEXPECTED_JOKER
        sim.dispense(2)  # a wrong count ranks below it
        await sink.wait_for(lambda: last(sink).detail["wrong_count"] == 1, TIMEOUT)
        assert last(sink).fault == UNEXPECTED_JOKER
        sim.shuffle_done("blue")  # the right deck, freshly shuffled
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert stacks(sink) == [after, DECK[3:5]]
    assert places(sink) == [("1", 2, 4), ("1", 3, 7)]  # the card index counts the joker stack
    assert "JKR" not in json.dumps(sink.calls, default=repr)
    assert last(sink).detail["joker_refused"] == 1
    assert last(sink).detail["card_index_breaks"] == 0
    assert driver.stats["gaps"] == 1


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
    async with synced(driver, sink):
        sim.load(["JKR", "2c", "3c", "4c", "5c", "6c"])
        sim.dispense()
        marker = sim.dispense()
        await sink.wait_for(lambda: stacks(sink)[-1:] == [marker], TIMEOUT)
    gaps = [e["missing"] for e in sink.events if e["type"] == "device.gap"]
    if takes_joker:
        assert stacks(sink) == [["JKR", "2c", "3c"], marker]
        assert gaps == []
        assert last(sink).fault is None
    else:
        assert stacks(sink) == [marker]
        assert gaps == [[1]]
        assert last(sink).fault == UNEXPECTED_JOKER


async def test_ultimate_texas_holdem_takes_hands_of_two_and_a_board_of_five(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=2, shuffle_seed=3)
    sink = RecordingSink()
    driver = HandDispenserDriver("uth1", sim.port, 9600, {"stack_size": [5, 2], "joker": False})
    async with synced(driver, sink):
        sim.shuffle("red")
        dealt = [sim.dispense() for _ in range(7)] + [sim.dispense(5)]
        await until_stacks(sink, 8)
        assert all(s.fault is None for s in sink.statuses)
        wrong = sim.dispense(3)
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
    assert stacks(sink) == [*dealt, wrong]
    assert last(sink).detail["last_wrong_count"] == {"expected": [2, 5], "received": 3}
    assert [first for _, _, first in places(sink)] == [1, 3, 5, 7, 9, 11, 13, 15, 20]


@pytest.mark.parametrize("code", ["JAM", "MISREAD", "HOPPER_EMPTY", "DOOR_OPEN", "NEW_CODE_9"])
async def test_device_faults_reach_status_until_cleared(
    make_sim: Callable[..., SimulatedDispenser], code: str
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
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
    assert changes([s.fault for s in sink.statuses]) == [None, code, None]
    assert "fault_text" not in sink.statuses[-1].detail


async def test_the_card_count_shows_in_status_until_the_next_shuffle(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=2)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.shuffle("red")
        assert sim.count() == 52
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 52, TIMEOUT)
        sim.dispense()
        sim.dispense()
        sim.count()
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 46, TIMEOUT)
        sim.shuffle("red")  # a fresh deck: the old count no longer holds
        await sink.wait_for(lambda: last(sink).detail["remaining"] is None, TIMEOUT)
    assert changes([s.detail["remaining"] for s in sink.statuses]) == [None, 52, 46, None]


async def test_garbage_between_frames_is_survived_and_shows_no_card(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3, shuffle_seed=5)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, {"status_interval": 0})
    async with synced(driver, sink):
        sim.shuffle("red")
        dealt = [sim.dispense()]
        sim.write_raw(b"\x00\xff line noise \r\n")  # 1: garbage before $
        dealt.append(sim.dispense())
        sim.write_raw(b"$STK,9,3,7,3,Qh,Qd,Qc*00\r\n")  # 2: bad checksum
        sim.write_raw(line("STK,9,3,7,3,Jh,Jd"))  # 3: the count says 3, two cards
        sim.write_raw(b"$STK,9,3,7,3,Th,")  # 4: truncated by the next frame's $
        dealt.append(sim.dispense())
        await until_stacks(sink, 3)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4, TIMEOUT)
    assert stacks(sink) == dealt
    assert places(sink) == [("1", 1, 1), ("1", 2, 4), ("1", 3, 7)]
    final = sink.statuses[-1]
    assert final.available and final.fault is None
    assert final.detail["frames_lost"] == 0
    assert final.detail["last_bad"] == {
        "reason": "truncated frame: $ before end of line",
        "raw": "$STK,9<10 bytes withheld>",
    }
    published = json.dumps([s.detail for s in sink.statuses])
    for card in ("Qh", "Qd", "Qc", "Jh", "Jd", "Th"):  # bad stacks' cards reach no status
        assert card not in published


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"$STK,9,3,Qh,Qd,Qc*00\r\n", "$STK,9<16 bytes withheld>"),
        (b"$STK,9,3,7,3,Qh,Qd,Qc*00\r\n", "$STK,9<20 bytes withheld>"),
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
        await until_synced(driver, sink)  # RSB, RSE, CLR: the answer to the resend on connect
        sim.shuffle("blue")
        dealt = [sim.dispense() for _ in range(7)]
        sim.count()
        await sink.wait_for(lambda: last(sink).detail["remaining"] == 4, TIMEOUT)
    assert stacks(sink) == dealt
    assert [pos for _, pos, _ in places(sink)] == list(range(1, 8))
    assert driver.stats["bad_frames"] == 0
    assert driver.stats["reads"] > driver.stats["frames"] == 3 + 9  # it really came in pieces


async def test_a_lost_stack_is_resent_and_nothing_stands(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """Before positions a SEQ gap stood FRAMES_LOST and made the deck colour unknown until the
    next SHF. Now the driver asks the device to resend, and the stacks reach the table in order
    with their deck: nothing is held, nothing guessed."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK[:18], "red")
        sim.dispense()
        sim.drop_next()
        sim.dispense()  # stack 2, lost on the wire
        sim.dispense()  # stack 3 waits for it
        sim.dispense()
        await until_stacks(sink, 4)
        await sink.wait_for(lambda: "waiting" not in last(sink).detail, TIMEOUT)
    assert stacks(sink) == [DECK[i : i + 3] for i in range(0, 12, 3)]  # in order, nothing lost
    assert places(sink) == [("1", 1, 1), ("1", 2, 4), ("1", 3, 7), ("1", 4, 10)]
    assert [e.get("deck") for e in sink.events] == ["red"] * 4
    assert [e["type"] for e in sink.events] == ["shuffler.stack"] * 4  # no gap
    assert driver.stats["frames_lost"] == 1 and driver.stats["resends"] >= 2
    assert all(s.fault is None for s in sink.statuses)
    assert last(sink).detail["deck"] == "red"


async def test_a_lost_shuffle_is_resent_with_its_deck_colour(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """The SHF of shuffle 2 is lost on the wire: its first stack comes right after the SEQ gap.
    The resend brings the SHF back, and the stacks of shuffle 2 carry its colour."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK[:18], "red")
        sim.dispense()
        sim.dispense()
        await until_stacks(sink, 2)
        sim.drop_next()
        sim.shuffle_done("blue")  # shuffle 2, lost on the wire
        sim.dispense()
        sim.dispense()
        await until_stacks(sink, 4)
        await sink.wait_for(lambda: last(sink).detail["deck"] == "blue", TIMEOUT)
    assert places(sink) == [("1", 1, 1), ("1", 2, 4), ("2", 1, 1), ("2", 2, 4)]
    assert [e.get("deck") for e in sink.events] == ["red", "red", "blue", "blue"]
    assert stacks(sink) == [DECK[i : i + 3] for i in range(0, 12, 3)]
    # the driver's count now (a status is not sent for each stack, so the last one may be older)
    assert driver.position == {"run": "2", "pos": 2}
    assert driver.stats["repeats"] == 0  # no stack of shuffle 2 was taken for one of shuffle 1


# -- the device's own faults at their stack numbers (docs/protocols/dispenser.md) -----------------


def placed_stacks(sink: RecordingSink) -> list[tuple[str | None, int, int, list[str]]]:
    """(shuffle, stack number, first card index, cards) of every stack passed on, in order."""
    return [
        (e["at"].get("run"), e["at"]["pos"], e["at"]["first"], e["cards"])
        for e in sink.events
        if e["type"] == "shuffler.stack"
    ]


def stack(run: str, n: int, size: int = 3) -> tuple[str, int, int, list[str]]:
    """Stack `n` of shuffle `run` when the shuffle is DECK in order, in stacks of `size`."""
    first = size * (n - 1) + 1
    return (run, n, first, DECK[first - 1 : first - 1 + size])


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int, run: str = "1") -> None:
    await sink.wait_for(lambda: (sink.cursor() or {}).get("pos") == pos, TIMEOUT)
    cursor = sink.cursor()
    assert cursor is not None and cursor["run"] == run


async def test_a_stack_of_the_wrong_size_keeps_its_place_and_the_count_follows_the_cards(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.dispense(4)  # two hands stuck together, one card short: cards 4-7
        await sink.wait_for(lambda: last(sink).fault == WRONG_COUNT, TIMEOUT)
        sim.dispense()
        await until_cursor(sink, 3)
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert placed_stacks(sink) == [stack("1", 1), ("1", 2, 4, DECK[3:7]), ("1", 3, 8, DECK[7:10])]
    assert last(sink).detail["wrong_count"] == 1
    assert last(sink).detail["card_index_breaks"] == 0


async def test_a_jam_stands_until_cleared_and_a_reconnecting_driver_learns_it_from_the_resend(
    make_sim: Callable[..., SimulatedDispenser],
) -> None:
    """FLT JAM stops the dealing; stacks go on, numbered on, after CLR. A driver started while
    the device is jammed learns the JAM at once: every resend ends with the fault that stands."""
    sim = make_sim(stack_size=3)
    sink = RecordingSink()
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with synced(driver, sink):
        sim.load(DECK, "red")
        sim.dispense()
        sim.fault("JAM", "card stuck at exit")
        await sink.wait_for(lambda: last(sink).fault == "JAM", TIMEOUT)
        assert last(sink).detail["fault_text"] == "card stuck at exit"
    sim.flush()
    again = RecordingSink(start=sink.cursor())
    driver = ShufflerDriver("tcp1", sim.port, 9600, QUICK)
    async with running(driver, again):
        await again.wait_for(lambda: again.last_status is not None and last(again).fault == "JAM")
        sim.clear()
        await again.wait_for(lambda: last(again).fault is None, TIMEOUT)
        sim.dispense()
        await until_cursor(again, 2)
    assert placed_stacks(sink) == [stack("1", 1)]
    assert placed_stacks(again) == [stack("1", 2)]
    assert gaps(again) == []


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
    assert drivers["shuffler"] == "tablectl_drivers.dispenser.device:ShufflerDriver"
    assert drivers["hand-dispenser"] == "tablectl_drivers.dispenser.device:HandDispenserDriver"
    assert load_driver("shuffler") is ShufflerDriver
    assert load_driver("hand-dispenser") is HandDispenserDriver


def test_check_config_names_a_bad_dispenser_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ultimate Texas Hold'em's table, its own dispenser taken out: a game that takes one
    shipped = (ROOT / "config" / "ultimate-texas-holdem-003.toml").read_text(encoding="utf-8")
    schedules = ROOT / "config" / "schedules" / "ultimate-texas-holdem-003.toml"
    relative = 'file = "schedules/ultimate-texas-holdem-003.toml"'
    assert relative in shipped and "[mqtt]" in shipped, "the shipped config changed shape"
    shipped = shipped[: shipped.index("[[devices]]")] + shipped[shipped.index("[mqtt]") :]
    base = shipped.replace(relative, f'file = "{schedules}"')

    def check(options: str) -> tuple[int, str]:
        device = (
            f'[[devices]]\nname = "dispenser"\ndriver = "hand-dispenser"\n'
            # a character device that is there: an absent port would be a warning on stderr
            f'port = "/dev/null"\noptions = {options}\n\n[mqtt]'
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
    commands = [
        "dispense",
        "dispense 2",
        "count",
        "fault",
        "clear",
        "misread",
        "lose 2",
        "status",
        "forget",
        "shuffle red",
        "status",
        "bogus",
        "quit",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "tablectl_drivers.sim.dispenser", *SIM_ARGS],
        input="\n".join(commands) + "\n",
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
    assert lines[2].split() == model.dispense(2)
    assert lines[3:6] == ["44 cards left", "fault JAM", "ok"]
    assert lines[6] == f"misread {' '.join(model.misread())} as stack 3"  # nothing sent
    assert lines[7] == f"lost {' '.join(model.lose_cards(2))}"
    # SEQ 0 SHF, 1-2 STK, 3 CNT, 4 FLT, 5 CLR: the misread stack and the lost cards sent nothing
    assert lines[8].startswith(
        "35 cards left, stack of 7, shuffle 1 stack 3 card 18, next SEQ 6, port /dev/"
    )
    assert lines[9:11] == ["history forgotten", "shuffled: 53 cards, deck red"]
    assert lines[11].startswith(
        "53 cards left, stack of 7, shuffle 2 stack 0 card 0, next SEQ 7, port /dev/"
    )
    assert "commands:" in lines[12] and "HOPPER_EMPTY" in proc.stdout
    assert "misread [N]" in proc.stdout and "forget" in proc.stdout
