"""The card-reading poker table: its messages, its emulator, and PokerTableDriver over real ptys.

The driver runs against SimulatedPokerTable on pseudo-terminals (and the in-memory null modem for
chunkings a pty cannot force). Nothing sleeps to wait: every wait is for a condition on the
recorded calls, bounded by a timeout. The faults positions and resends deal with (lost, repeated,
unread placements, a restart, a table that lost its history or does not answer), which every
positioned device shows, are in tests/drivers/test_device_contract.py; here, the table's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from tablectl.cli import main as tablectl_main
from tablectl_base.cards import parse_card
from tablectl_base.events import DevicePosition, InputEvent, TableCard
from tablectl_base.positions import Ledger, Verdict
from tablectl_drivers.envelope import MAX_FRAME, BadFrame, FrameError, checksum
from tablectl_drivers.messages import Fault, FaultCleared, Heartbeat
from tablectl_drivers.poker_table.device import (
    UNKNOWN_SEAT,
    PokerTableDriver,
    PokerTableOptions,
)
from tablectl_drivers.poker_table.frames import (
    BOARD,
    MAX_SEATS,
    MESSAGES,
    MUCK,
    CardPlaced,
    CardRemoved,
    CardReturned,
    Frame,
    NewHand,
    Zone,
    decode,
    encode,
    seat_zone,
)
from tablectl_drivers.registry import available_drivers, load_driver
from tablectl_drivers.resend import (
    HOST_MESSAGES,
    MAX_POSITION,
    ResendBegin,
    ResendEnd,
    ResendRequest,
)
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.history import nothing_to_resend
from tablectl_drivers.sim.nullmodem import Fragmenter, NullModem, chunks_of, random_chunks
from tablectl_drivers.sim.poker_table import (
    DeckEmpty,
    PokerTableModel,
    SimulatedPokerTable,
    parse_zone,
)
from tests.drivers.resend_support import AnsweringModem
from tests.drivers.support import QUICK, TIMEOUT, last, running, simulators, synced, until_synced

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocols" / "poker-table.md"
INPUT = TypeAdapter(InputEvent)
HOLE = ["Ah", "Kd", "7c", "Kc", "2s", "9h", "Qd", "Td", "5s", "3c"]


def card(text: str) -> Any:
    return parse_card(text)


def line(body: str) -> bytes:
    """A well-formed frame around `body`, whatever the body says."""
    raw = body.encode()
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatedPokerTable]]:
    yield from simulators(SimulatedPokerTable)


def placements(sink: RecordingSink) -> list[tuple[str | None, int, str, int | None, str]]:
    """(hand, position, zone, seat, card) of every `table.card` event, in order."""
    return [
        (e["at"].get("run"), e["at"]["pos"], e["zone"], e.get("seat"), e["card"])
        for e in sink.events
        if e["type"] == "table.card"
    ]


async def until_placed(sink: RecordingSink, n: int) -> None:
    await sink.wait_for(lambda: len(placements(sink)) >= n, TIMEOUT)


# -- messages ---------------------------------------------------------------------------------

DOC_EXAMPLES: list[tuple[bytes, Frame]] = [
    # the Hold'em hand at a six-seat table
    (b"$HND,0,17*74\r\n", NewHand(0, "17")),
    (b"$PLC,1,1,S1,Ah*14\r\n", CardPlaced(1, 1, seat_zone(1), card("Ah"))),
    (b"$PLC,2,2,S3,Kd*10\r\n", CardPlaced(2, 2, seat_zone(3), card("Kd"))),
    (b"$PLC,3,3,S1,7c*69\r\n", CardPlaced(3, 3, seat_zone(1), card("7c"))),
    (b"$PLC,4,4,S3,Kc*17\r\n", CardPlaced(4, 4, seat_zone(3), card("Kc"))),
    (b"$RMV,5,S3,Kd*1F\r\n", CardRemoved(5, seat_zone(3), card("Kd"))),
    (b"$RTN,6,S3,Kd*1D\r\n", CardReturned(6, seat_zone(3), card("Kd"))),
    (b"$RMV,7,S1,Ah*19\r\n", CardRemoved(7, seat_zone(1), card("Ah"))),
    (b"$PLC,8,5,MUCK,Ah*6B\r\n", CardPlaced(8, 5, MUCK, card("Ah"))),
    (b"$RMV,9,S1,7c*6A\r\n", CardRemoved(9, seat_zone(1), card("7c"))),
    (b"$PLC,10,6,MUCK,7c*2C\r\n", CardPlaced(10, 6, MUCK, card("7c"))),
    (b"$FLT,11,ANTENNA,S4 does not answer*1E\r\n", Fault(11, "ANTENNA", "S4 does not answer")),
    (b"$CLR,12*72\r\n", FaultCleared(12)),
    (b"$PLC,13,7,BOARD,2s*71\r\n", CardPlaced(13, 7, BOARD, card("2s"))),
    (b"$PLC,14,8,BOARD,9h*69\r\n", CardPlaced(14, 8, BOARD, card("9h"))),
    (b"$PLC,15,9,BOARD,Qd*0D\r\n", CardPlaced(15, 9, BOARD, card("Qd"))),
    (b"$HBT,16*75\r\n", Heartbeat(16)),
    (b"$HND,17,18*4D\r\n", NewHand(17, "18")),
    # its answer, after frame 10, to a resend from position 5 (had frame 8 been lost)
    (b"$RSB,11,OK*47\r\n", ResendBegin(11, False)),
    (b"$PLC,12,5,MUCK,Ah*50\r\n", CardPlaced(12, 5, MUCK, card("Ah"))),
    (b"$PLC,13,6,MUCK,7c*2F\r\n", CardPlaced(13, 6, MUCK, card("7c"))),
    (b"$RSE,14,17,6*5D\r\n", ResendEnd(14, "17", 6)),
    (b"$CLR,15*75\r\n", FaultCleared(15)),
    # a ten-seat table, hand 18
    (b"$HND,0,18*7B\r\n", NewHand(0, "18")),
    (b"$PLC,1,1,S2,As*0C\r\n", CardPlaced(1, 1, seat_zone(2), card("As"))),
    (b"$PLC,2,2,S10,Td*3D\r\n", CardPlaced(2, 2, seat_zone(10), card("Td"))),
]


@pytest.mark.parametrize(("wire", "message"), DOC_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_examples_are_what_the_code_sends_and_reads(
    wire: bytes, message: Frame
) -> None:
    assert encode(message) == wire
    assert decode(wire) == (len(wire), message)
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert shown in DOC.read_text(), f"{shown} is not in {DOC.name}"


def test_the_worked_checksum_is_the_xor_of_the_body() -> None:
    running_xor = 0
    for char, after in zip(
        "HND,0,17", [0x48, 0x06, 0x42, 0x6E, 0x5E, 0x72, 0x43, 0x74], strict=True
    ):
        running_xor ^= ord(char)
        assert running_xor == after
    assert checksum(b"HND,0,17") == 0x74


def test_the_documented_session_is_what_the_simulator_sends() -> None:
    """The doc's hand played on the model: peek and fold make RMV and RTN, and the numbers only
    count first arrivals; then the resend the doc shows, had frame 8 been lost."""
    sent: list[bytes] = []
    model = PokerTableModel(sent.append, seats=6, first_hand=17)
    model.new_hand()
    for seat, text in [(1, "Ah"), (3, "Kd"), (1, "7c"), (3, "Kc")]:
        model.put(seat_zone(seat), text)
    model.remove("Kd")
    assert model.put(seat_zone(3), "Kd") is None  # back where it came first: RTN, no position
    model.remove("Ah")
    model.drop_next()
    assert model.put(MUCK, "Ah") == 5  # frame 8, lost on the wire
    assert model.put(MUCK, "7c") == 6  # RMV from seat 1 first, then PLC in the muck
    assert len(sent) == 10  # frame 8 used its SEQ but never went out
    assert sent == [w for w, _ in DOC_EXAMPLES[:11] if w != b"$PLC,8,5,MUCK,Ah*6B\r\n"]
    model.receive(b"$RSN,0,17,5*60\r\n")
    assert sent[10:] == [w for w, _ in DOC_EXAMPLES[18:23]]
    assert model.cards_in(MUCK) == ["Ah", "7c"] and model.cards_in(seat_zone(3)) == ["Kc", "Kd"]
    assert model.cards_in(seat_zone(1)) == []


def test_the_documented_resend_request_is_what_the_driver_sends() -> None:
    wire = b"$RSN,0,17,5*60\r\n"
    assert HOST_MESSAGES.encode(ResendRequest(0, "17", 5)) == wire
    assert wire.decode().replace("\r\n", "\\r\\n") in DOC.read_text()


DOC_BAD_EXAMPLES = [
    (b"$PLC,9,5,S11,Ah*29\r\n", "PLC zone is not S1..S10, BOARD or MUCK"),
    (b"$PLC,9,5,S03,Ah*2A\r\n", "PLC zone is not S1..S10, BOARD or MUCK"),
    (b"$PLC,9,5,board,Ah*00\r\n", "PLC zone is not S1..S10, BOARD or MUCK"),
    (b"$PLC,9,0,S1,Ah*1D\r\n", "PLC position must be at least 1"),
    (b"$PLC,9,S1,Ah*01\r\n", "PLC takes exactly three fields, the position, the zone and the card"),
    (b"$PLC,9,5,S1,Zz*11\r\n", "PLC card is not a card"),
    (b"$PLC,9,5,S1, Ah*38\r\n", "PLC card has spaces"),
    (b"$RMV,9,S1*12\r\n", "RMV takes exactly two fields, the zone and the card"),
    (b"$RTN,9,S1,Ah,2*08\r\n", "RTN takes exactly two fields, the zone and the card"),
    (b"$HND,9*57\r\n", "HND takes exactly one field, the hand id"),
    (b"$HND,9,17-b*32\r\n", "HND hand id is not 1-8 letters or digits"),
]


@pytest.mark.parametrize(("wire", "reason"), DOC_BAD_EXAMPLES, ids=lambda x: repr(x))
def test_the_documented_bad_frames_are_bad_for_the_documented_reason(
    wire: bytes, reason: str
) -> None:
    assert decode(wire) == (len(wire), BadFrame(wire, reason))
    shown = wire.decode().replace("\r\n", "\\r\\n")
    assert re.search(re.escape(shown) + r" +" + re.escape(reason), DOC.read_text())


@pytest.mark.parametrize(
    "message",
    [
        NewHand(0, "1"),
        NewHand(9999, "Zz09abcd"),
        CardPlaced(9999, MAX_POSITION, seat_zone(MAX_SEATS), card("JKR")),
        CardPlaced(0, 1, BOARD, card("Tc")),
        CardRemoved(3, MUCK, card("2d")),
        CardReturned(4, seat_zone(7), card("Qs")),
        ResendEnd(5, None, 0),
        Fault(6, "COLLISION", "S2, three tags"),
    ],
    ids=repr,
)
def test_messages_round_trip_within_a_frame(message: Frame) -> None:
    wire = encode(message)
    assert len(wire) <= MAX_FRAME
    assert decode(wire) == (len(wire), message)
    assert MESSAGES.decode(wire) == (len(wire), message)


def test_cards_are_case_insensitive_on_the_wire_and_canonical_after() -> None:
    wire = line("PLC,3,4,BOARD,tD")
    assert decode(wire) == (len(wire), CardPlaced(3, 4, BOARD, card("Td")))


@pytest.mark.parametrize(
    "make",
    [
        lambda: encode(CardPlaced(1, 0, BOARD, card("Ah"))),
        lambda: encode(NewHand(1, "hand-1")),
        lambda: encode(NewHand(1, "123456789")),
    ],
)
def test_a_message_no_table_could_send_cannot_be_encoded(make: Callable[[], bytes]) -> None:
    with pytest.raises(FrameError):
        make()


@pytest.mark.parametrize(
    ("kind", "seat"), [("seat", None), ("seat", 0), ("seat", 11), ("board", 1), ("muck", True)]
)
def test_a_zone_that_is_none_cannot_be_made(kind: Any, seat: Any) -> None:
    with pytest.raises(ValueError):
        Zone(kind, seat)


# -- the emulator without I/O -----------------------------------------------------------------


def decoded(wire: list[bytes]) -> list[Any]:
    return [decode(w)[1] for w in wire]


def test_the_model_deals_from_a_seeded_deck_and_numbers_first_arrivals_only() -> None:
    sent: list[bytes] = []
    model = PokerTableModel(sent.append, seats=6, deck_seed=4)
    with pytest.raises(RuntimeError, match="no hand yet"):
        model.deal(BOARD)
    assert model.new_hand() == "1"
    hole = model.deal(seat_zone(2), 2)
    again = PokerTableModel(lambda _: None, deck_seed=4)
    again.new_hand()
    assert again.deal(seat_zone(5), 2) == hole  # the same seed, the same deck
    assert model.peek(2) == hole
    assert model.fold(2) == hole
    flop = model.deal(BOARD, 3)
    assert model.remaining == 52 - 5
    assert model.collect() == 5
    s2, a, b = seat_zone(2), card(hole[0]), card(hole[1])
    f = [card(c) for c in flop]
    assert decoded(sent) == [
        NewHand(0, "1"),
        CardPlaced(1, 1, s2, a),
        CardPlaced(2, 2, s2, b),
        CardRemoved(3, s2, a),  # peek: lifted and put back, no new position
        CardReturned(4, s2, a),
        CardRemoved(5, s2, b),
        CardReturned(6, s2, b),
        CardRemoved(7, s2, a),  # fold: off the seat, into the muck (first arrival there)
        CardPlaced(8, 3, MUCK, a),
        CardRemoved(9, s2, b),
        CardPlaced(10, 4, MUCK, b),
        CardPlaced(11, 5, BOARD, f[0]),
        CardPlaced(12, 6, BOARD, f[1]),
        CardPlaced(13, 7, BOARD, f[2]),
        CardRemoved(14, MUCK, a),
        CardRemoved(15, MUCK, b),
        CardRemoved(16, BOARD, f[0]),
        CardRemoved(17, BOARD, f[1]),
        CardRemoved(18, BOARD, f[2]),
    ]
    assert model.new_hand() == "2" and model.position == 0
    assert model.put(seat_zone(1), hole[0]) == 1  # a new hand counts from 1 again


def test_the_model_refuses_what_no_table_could_do() -> None:
    model = PokerTableModel(lambda _: None, seats=6, deck_seed=1)
    model.new_hand()
    with pytest.raises(ValueError, match=r"seats 1\.\.6, not 7"):
        model.put(seat_zone(7), "Ah")
    model.put(seat_zone(1), "Ah")
    with pytest.raises(ValueError, match="already lies in S1"):
        model.put(seat_zone(1), "Ah")
    with pytest.raises(ValueError, match="lies in no zone"):
        model.remove("Kd")
    with pytest.raises(DeckEmpty):
        model.deal(BOARD, 52)  # Ah is out of the deck: 51 left
    with pytest.raises(ValueError):
        PokerTableModel(lambda _: None, seats=11)
    assert model.position == 1


def test_a_misread_uses_its_position_and_a_forgotten_history_answers_lost() -> None:
    sent: list[bytes] = []
    model = PokerTableModel(sent.append, deck_seed=2)
    model.new_hand()
    first = model.deal(seat_zone(4))
    model.misread(seat_zone(4), announce=True)
    third = model.deal(BOARD)
    model.receive(HOST_MESSAGES.encode(ResendRequest(0, "1", 1)))
    assert decoded(sent[4:]) == [
        ResendBegin(4, False),
        CardPlaced(5, 1, seat_zone(4), card(first[0])),
        CardPlaced(6, 3, BOARD, card(third[0])),  # nothing for position 2: it was never read
        ResendEnd(7, "1", 3),
        Fault(8, "MISREAD", "placement 2 in S4 not read"),
    ]
    model.forget()
    model.receive(HOST_MESSAGES.encode(ResendRequest(1, "1", 2)))
    assert decoded(sent[9:]) == [
        ResendBegin(9, True),
        ResendEnd(10, "1", 3),
        Fault(11, "MISREAD", "placement 2 in S4 not read"),
    ]


def test_the_model_keeps_ten_hands_of_history() -> None:
    sent: list[bytes] = []
    model = PokerTableModel(sent.append, deck_seed=3)
    for _ in range(11):
        model.new_hand()
        model.deal(BOARD)
    del sent[:]
    model.receive(HOST_MESSAGES.encode(ResendRequest(0, "2", 1)))  # hand 2: the oldest kept
    answer = decoded(sent)
    assert answer[0] == ResendBegin(answer[0].seq, False)
    assert [m.hand for m in answer if isinstance(m, NewHand)] == [str(h) for h in range(3, 12)]
    del sent[:]
    model.receive(HOST_MESSAGES.encode(ResendRequest(1, "1", 1)))  # hand 1: gone
    assert decoded(sent)[0] == ResendBegin(decoded(sent)[0].seq, True)


@pytest.mark.parametrize(
    ("text", "zone"),
    [("s3", seat_zone(3)), ("S10", seat_zone(10)), ("7", seat_zone(7)), ("Board", BOARD)],
)
def test_a_person_types_zones_loosely(text: str, zone: Zone) -> None:
    assert parse_zone(text) == zone
    assert parse_zone("muck") == MUCK


@pytest.mark.parametrize("text", ["s0", "s11", "table", ""])
def test_a_typed_zone_that_is_none_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_zone(text)


# -- the driver over a real pty ---------------------------------------------------------------


async def test_a_scripted_hand_becomes_exactly_these_events(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """The doc's hand through the real driver: each first arrival is one `table.card` with its
    zone, seat, card and place; looks and folds' removals are no events; every event is a valid
    contract-2 input."""
    sim = make_sim(seats=6, first_hand=17)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {"seats": 6})
    async with synced(driver, sink):
        sim.new_hand()
        for seat, text in [(1, "Ah"), (3, "Kd"), (1, "7c"), (3, "Kc")]:
            sim.put(seat_zone(seat), text)
        sim.peek(3)
        sim.fold(1)
        for text in ("2s", "9h", "Qd"):
            sim.put(BOARD, text)
        await until_placed(sink, 9)
    seq0 = sink.events[0]["at"]["seq"]  # the HND is no event: the first is seat 1's Ah
    assert sink.events == [
        {"type": "table.card", "zone": "seat", "seat": 1, "card": "Ah",
         "at": {"run": "17", "pos": 1, "seq": seq0}},
        {"type": "table.card", "zone": "seat", "seat": 3, "card": "Kd",
         "at": {"run": "17", "pos": 2, "seq": seq0 + 1}},
        {"type": "table.card", "zone": "seat", "seat": 1, "card": "7c",
         "at": {"run": "17", "pos": 3, "seq": seq0 + 2}},
        {"type": "table.card", "zone": "seat", "seat": 3, "card": "Kc",
         "at": {"run": "17", "pos": 4, "seq": seq0 + 3}},
        # seq0 + 4..7: seat 3 looks at Kc and Kd (RMV, RTN each), seq0 + 8: Ah leaves seat 1
        {"type": "table.card", "zone": "muck", "card": "Ah",
         "at": {"run": "17", "pos": 5, "seq": seq0 + 9}},
        {"type": "table.card", "zone": "muck", "card": "7c",
         "at": {"run": "17", "pos": 6, "seq": seq0 + 11}},
        {"type": "table.card", "zone": "board", "card": "2s",
         "at": {"run": "17", "pos": 7, "seq": seq0 + 12}},
        {"type": "table.card", "zone": "board", "card": "9h",
         "at": {"run": "17", "pos": 8, "seq": seq0 + 13}},
        {"type": "table.card", "zone": "board", "card": "Qd",
         "at": {"run": "17", "pos": 9, "seq": seq0 + 14}},
    ]  # fmt: skip
    for event in sink.events:
        assert isinstance(INPUT.validate_python(event), TableCard)
    assert (driver.stats["removed"], driver.stats["returned"]) == (4, 2)  # peek 2 + 2, fold 2
    assert sink.cursor() == {"run": "17", "pos": 9, "seq": seq0 + 14}
    assert all(s.fault is None for s in sink.statuses)
    assert driver.stats["bad_frames"] == 0


async def test_the_documented_events_are_what_the_driver_makes_of_the_documented_hand() -> None:
    """The doc's session, byte for byte, into the driver (after an answer to its connect RSN
    whose SEQs run up to 9999, so the session's SEQ 0 follows on): every `table.card` the doc
    quotes in full is one the driver emitted, and there is one per PLC, none for the rest."""
    modem = NullModem(fragment=chunks_of(7))
    sink = RecordingSink()
    driver = PokerTableDriver("reader", "null", 9600, {}, connect=modem.connect)
    async with running(driver, sink):
        async with asyncio.timeout(TIMEOUT):
            while not modem.device_end.received:  # the RSN on connect: the driver waits for it
                await asyncio.sleep(0.01)
        assert bytes(modem.device_end.received) == b"$RSN,0,-,0*4E\r\n"
        modem.write(nothing_to_resend(9997, None, 0))
        modem.write(b"".join(wire for wire, _ in DOC_EXAMPLES[:18]))
        await until_placed(sink, 9)
        await sink.wait_for(lambda: last(sink).detail["position"]["run"] == "18", TIMEOUT)
    assert [(e["at"]["pos"], e["at"]["seq"]) for e in sink.events] == [
        (1, 1), (2, 2), (3, 3), (4, 4), (5, 8), (6, 10), (7, 13), (8, 14), (9, 15)
    ]  # fmt: skip
    text = re.sub(r"\s+", " ", DOC.read_text())
    quoted = []
    for found in re.findall(r'`(\{"type": "table\.card".*?\}\})`', text):
        with contextlib.suppress(json.JSONDecodeError):  # templates with <placeholders>
            quoted.append(json.loads(found))
    assert len(quoted) >= 4
    assert all(event in sink.events for event in quoted), quoted
    assert (driver.stats["removed"], driver.stats["returned"]) == (3, 1)
    assert last(sink).fault is None and driver.stats["frames_lost"] == 0


async def test_a_new_hand_restarts_the_count_and_the_journal_takes_its_first_card_as_its_start(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """No event starts a hand: position 1 of a hand the ledger has not seen is dealt as that
    hand's start (Ledger.place, as for a shuffler's first stack), so the count moves on."""
    sim = make_sim(deck_seed=5)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.new_hand()
        one = sim.deal(seat_zone(1), 2)
        sim.new_hand()
        two = sim.deal(seat_zone(2), 2) + sim.deal(BOARD, 3)
        await until_placed(sink, 7)
    assert [(r, p, c) for r, p, _, _, c in placements(sink)] == [
        ("1", 1, one[0]),
        ("1", 2, one[1]),
        *[("2", i, c) for i, c in enumerate(two, 1)],
    ]
    assert sink.cursor() is not None and sink.cursor() == {  # the ledger followed every one
        "run": "2",
        "pos": 5,
        "seq": sink.events[-1]["at"]["seq"],
    }
    old = Ledger(run="1", pos=2, seq=3)
    first = sink.events[2]["at"]
    verdict, after = old.place(DevicePosition(**first), "k", starts_run=False)
    assert verdict is Verdict.DEAL and (after.run, after.pos) == ("2", 1)


async def test_a_seat_past_the_configured_ones_is_emitted_and_shown_until_the_next_hand(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    sim = make_sim(seats=10, deck_seed=6)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {"seats": 6})
    async with synced(driver, sink):
        sim.new_hand()
        sim.deal(seat_zone(6))
        [stray] = sim.deal(seat_zone(8))
        await sink.wait_for(lambda: last(sink).fault == UNKNOWN_SEAT, TIMEOUT)
        status = last(sink)
        assert status.available and "fault_text" not in status.detail
        assert status.detail["unknown_seat"] == 1
        assert status.detail["last_unknown_seat"] == {"hand": "1", "pos": 2, "seat": 8}
        sim.repeat_last()  # read twice: passed on again, but not judged again
        await until_placed(sink, 3)
        assert last(sink).detail["unknown_seat"] == 1
        sim.new_hand()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)
    assert [(p, s, c) for _, p, _, s, c in placements(sink)][1:] == [(2, 8, stray), (2, 8, stray)]
    assert last(sink).detail["unknown_seat"] == 1  # the counter stays


async def test_a_placement_filled_late_is_judged_once_too() -> None:
    """Positions may reach the driver out of order (a hole filled by a late resend): each is
    judged the first time it is passed on, whatever came after it, and never again."""
    driver = PokerTableDriver("reader", "/dev/null", 9600, {"seats": 6})
    sink = RecordingSink()
    await driver.emit(CardPlaced(5, 3, seat_zone(2), card("Ah")), {"run": "1", "pos": 3}, sink)
    assert driver.device_fault() is None
    late = CardPlaced(4, 2, seat_zone(8), card("Kd"))
    await driver.emit(late, {"run": "1", "pos": 2, "seq": 4}, sink)
    assert driver.device_fault() == UNKNOWN_SEAT and driver.stats["unknown_seat"] == 1
    await driver.emit(late, {"run": "1", "pos": 2, "seq": 6}, sink)  # read again
    assert driver.stats["unknown_seat"] == 1
    await driver.emit(NewHand(7, "2"), {"run": "2", "pos": 0, "seq": 7}, sink)
    assert driver.device_fault() is None
    assert [e["seat"] for e in sink.events] == [2, 8, 8]


@pytest.mark.parametrize("code", ["ANTENNA", "MISREAD", "COLLISION", "FOREIGN_TAG", "NEW_CODE_9"])
async def test_table_faults_reach_status_until_cleared(
    make_sim: Callable[..., SimulatedPokerTable], code: str
) -> None:
    sim = make_sim()
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {})
    async with synced(driver, sink):
        sim.new_hand()
        sim.fault(code, "S4, tag 3")
        await sink.wait_for(lambda: last(sink).fault == code, TIMEOUT)
        assert last(sink).detail["fault_text"] == "S4, tag 3"
        sim.deal(BOARD)  # placements still flow while a fault stands
        await until_placed(sink, 1)
        assert last(sink).fault == code
        sim.clear()
        await sink.wait_for(lambda: last(sink).fault is None, TIMEOUT)


async def test_bad_frames_are_refused_counted_and_show_no_card(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """A garbled frame (checksum error), hand-made bad ones and line noise: each counted once,
    nothing emitted for them, no card in any status; the placements around them are whole (the
    garbled one is resent in its place)."""
    sim = make_sim(deck_seed=7)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, {"status_interval": 0})
    async with synced(driver, sink):
        sim.new_hand()
        dealt = sim.deal(seat_zone(1))
        sim.garble_next()
        dealt += sim.deal(seat_zone(1))  # its checksum fails: bad, then resent
        sim.write_raw(b"\x00\xff line noise \r\n")
        sim.write_raw(b"$PLC,99,3,S1,Qh*00\r\n")  # a wrong checksum
        sim.write_raw(line("PLC,99,3,S12,Qd"))  # no such zone
        dealt += sim.deal(BOARD)
        await until_placed(sink, 3)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 4, TIMEOUT)
    assert [(p, c) for _, p, _, _, c in placements(sink)] == list(enumerate(dealt, 1))
    assert last(sink).detail["last_bad"] == {
        "reason": "PLC zone is not S1..S10, BOARD or MUCK",
        "raw": "$PLC,99<14 bytes withheld>",
    }
    published = json.dumps([s.detail for s in sink.statuses])
    assert "Qh" not in published and "Qd" not in published
    assert [e["type"] for e in sink.events] == ["table.card"] * 3


# -- a restart across hands (docs/protocols/poker-table.md) ----------------------------------------


def placed(sink: RecordingSink) -> list[tuple[str | None, int, str]]:
    """(hand, position, card) of every `table.card` passed on, in order."""
    return [(e["at"].get("run"), e["at"]["pos"], e["card"]) for e in sink.events if "card" in e]


def gaps(sink: RecordingSink) -> list[dict[str, Any]]:
    return [e for e in sink.events if e["type"] == "device.gap"]


async def until_cursor(sink: RecordingSink, pos: int, hand: str = "1") -> None:
    def there() -> bool:
        cursor = sink.cursor() or {}
        return (cursor.get("run"), cursor.get("pos")) == (hand, pos)

    await sink.wait_for(there, TIMEOUT)


def put_seats(sim: SimulatedPokerTable, cards: list[str], first_seat: int = 1) -> None:
    """One card to each seat in turn, from `first_seat` on."""
    for i, text in enumerate(cards):
        sim.put(seat_zone((first_seat + i - 1) % 10 + 1), text)


async def test_placements_missed_while_the_daemon_was_down_come_in_with_their_positions(
    make_sim: Callable[..., SimulatedPokerTable],
) -> None:
    """The daemon stops after two hole cards of hand 1; meanwhile the table finishes hand 1 and
    starts hand 2. A new driver on the journal's cursor (hand 1, position 2) asks for what came
    after it and gets exactly that: hand 1 from position 3, then hand 2 from position 1."""
    sim = make_sim()
    first = RecordingSink()
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with synced(driver, first):
        sim.new_hand()
        put_seats(sim, HOLE[:2])
        await until_cursor(first, 2)
    cursor = first.cursor()
    assert cursor is not None and (cursor["run"], cursor["pos"]) == ("1", 2)
    put_seats(sim, HOLE[2:4])  # nobody reads the pty now: 7c to seat 1, Kc to seat 2
    sim.fold(1)
    sim.peek(2)
    sim.new_hand()
    sim.put(seat_zone(5), "As")
    sim.put(BOARD, "Ks")
    sim.flush()
    again = RecordingSink(start=cursor)
    driver = PokerTableDriver("reader", sim.port, 9600, QUICK)
    async with running(driver, again):
        await until_cursor(again, 2, hand="2")
    assert placed(again) == [
        ("1", 3, "7c"),
        ("1", 4, "Kc"),
        ("1", 5, "Ah"),  # seat 1's fold: its cards' first arrivals in the muck
        ("1", 6, "7c"),
        ("2", 1, "As"),
        ("2", 2, "Ks"),
    ]
    assert [(e["zone"], e.get("seat")) for e in again.events] == [
        ("seat", 1),
        ("seat", 2),
        ("muck", None),
        ("muck", None),
        ("seat", 5),
        ("board", None),
    ]
    assert gaps(again) == []
    assert driver.stats["frames_lost"] > 0  # the SEQ gap across the restart was seen


@pytest.mark.parametrize(
    "fragment",
    [None, chunks_of(1), chunks_of(5), random_chunks(4, 9)],
    ids=["whole", "1", "5", "random"],
)
async def test_any_chunking_gives_the_same_events(fragment: Fragmenter | None) -> None:
    """Over the null modem, with the writes cut anywhere: the same placements at the same
    places, noise counted the same."""
    modem = AnsweringModem(lambda write: PokerTableModel(write, deck_seed=8), fragment=fragment)
    sink = RecordingSink()
    driver = PokerTableDriver("reader", "null", 9600, {"status_interval": 0}, connect=modem.connect)
    async with running(driver, sink):
        await until_synced(driver, sink)
        table = modem.model
        table.new_hand()
        dealt: list[tuple[int | None, str]] = []
        for seat in range(1, 11):
            dealt += [(seat, c) for c in table.deal(seat_zone(seat))]
            if seat % 4 == 1:
                table.write_raw(b"\r\n~noise~")  # always followed by a frame, which ends it
        table.peek(3)
        dealt += [(None, c) for c in table.deal(BOARD, 5)]
        await until_placed(sink, 15)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 3, TIMEOUT)
    assert [(s, c) for _, _, _, s, c in placements(sink)] == dealt
    assert [p for _, p, _, _, _ in placements(sink)] == list(range(1, 16))
    if fragment is not None:
        assert driver.stats["reads"] > driver.stats["frames"]  # it really came in pieces


# -- options, registry, check-config, interactive simulator ------------------------------------


def test_the_seats_option_defaults_to_ten() -> None:
    driver = PokerTableDriver("reader", "/dev/null", 9600, {})
    assert type(driver.options) is PokerTableOptions and driver.options.seats == 10
    assert PokerTableDriver("r", "p", 9600, {"seats": 1}).options.seats == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seats": 0}, "option 'seats' must be an integer 1..10, not 0"),
        ({"seats": 11}, "option 'seats' must be an integer 1..10, not 11"),
        ({"seats": "6"}, "option 'seats' must be an integer 1..10, not '6'"),
        ({"seats": 6.0}, "option 'seats' must be an integer 1..10"),
        ({"seats": True}, "option 'seats' must be an integer 1..10"),
        ({"resend_attempts": 0}, "option 'resend_attempts' must be 1..20"),
        ({"zones": 3}, r"unknown option 'zones' \(known: .*seats.*\)"),
        ({"seats": 0, "resend_timeout": -1}, r"option 'resend_timeout' .*; option 'seats'"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PokerTableDriver("reader", "/dev/null", 9600, options)


def test_the_driver_is_registered() -> None:
    assert available_drivers()["poker-table"] == (
        "tablectl_drivers.poker_table.device:PokerTableDriver"
    )
    assert load_driver("poker-table") is PokerTableDriver


def test_check_config_takes_a_poker_table_and_names_a_bad_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Texas Hold'em table (a game that takes the reader), its own reader taken out
    shipped = (ROOT / "config" / "texas-holdem-003.toml").read_text(encoding="utf-8")
    assert "[[devices]]" in shipped and "[mqtt]" in shipped, "the shipped config changed shape"
    base = shipped[: shipped.index("[[devices]]")] + shipped[shipped.index("[mqtt]") :]

    def check(options: str) -> tuple[int, str]:
        device = (
            f'[[devices]]\nname = "reader"\ndriver = "poker-table"\n'
            # a character device that is there: an absent port would be a warning on stderr
            f'port = "/dev/null"\noptions = {options}\n\n[mqtt]'
        )
        path = tmp_path / "table.toml"
        path.write_text(base.replace("[mqtt]", device, 1), encoding="utf-8")
        code = tablectl_main(["check-config", str(path)])
        return code, capsys.readouterr().err

    assert check("{ seats = 9 }") == (0, "")
    code, err = check("{ seats = 12 }")
    assert code == 2
    assert "option 'seats' must be an integer 1..10, not 12" in err


def test_interactive_simulator_prints_its_port_and_obeys_commands() -> None:
    commands = [
        "deal s3 2",
        "peek 3",
        "fold 3",
        "deal board 3",
        "place s1 Ah",
        "place s7 Kd",  # a six-seat table has no seat 7
        "misread muck",
        "fault",
        "clear",
        "status",
        "hand",
        "status",
        "bogus",
        "quit",
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "tablectl_drivers.sim.poker_table", "--seats", "6", "--seed", "1"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("/dev/")
    model = PokerTableModel(lambda _: None, seats=6, deck_seed=1)
    model.new_hand()
    hole = model.deal(seat_zone(3), 2)
    flop = model.deal(BOARD, 3)
    assert lines[1:5] == [" ".join(hole), " ".join(hole), " ".join(hole), " ".join(flop)]
    assert lines[5] == "position 8"
    assert lines[6] == "error: this table has seats 1..6, not 7"
    assert re.fullmatch(r"misread \S\S at position 9", lines[7])
    assert lines[8:10] == ["fault ANTENNA", "ok"]
    # SEQ 0 HND, 1-2 PLC, 3-6 peek, 7-10 fold, 11-13 board, 14 PLC, 15 FLT, 16 CLR; the deck
    # gave 2 + 3 cards, Ah and the misread one: 45 left
    assert lines[10].startswith(
        "hand 1 position 9, 6 cards on the table, 45 in the deck, next SEQ 17, port /dev/"
    )
    assert lines[11] == "hand 2"
    assert lines[12].startswith("hand 2 position 0, 0 cards on the table, 52 in the deck")
    assert "commands" in lines[13] and "FOREIGN_TAG" in proc.stdout
    for switch in ("drop [N]", "garble [N]", "dup", "repeat [N]", "unplug", "replug", "forget"):
        assert switch in proc.stdout
