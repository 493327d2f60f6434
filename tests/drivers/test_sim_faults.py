"""The emulators' fault switches, each through the REAL driver over a real pty.

Garbled frames (`garble_next`), a message read twice under a new SEQ (`repeat_last`), and the
unplug / replug behind a stable link (`unplug`, `replug`), plus the interactive commands for them.
Also a bad frame logged with its raw bytes at debug level, for envelope devices
(docs/protocols/envelope.md, "What every envelope driver reports"). What every positioned device
shows under these faults is in test_device_contract.py.
Every expected frame is written out by hand from docs/protocols/envelope.md (`$TYPE,SEQ,...*CS`,
CS the XOR of the bytes between `$` and `*`) and the device's protocol page; every expected game
outcome is worked by hand from seed 003 (EZ Baccarat Panda 8) and DESIGN contract 1.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs
from structlog.typing import EventDict

from tablectl.outputs import OutboxRow
from tablectl.table import Table
from tablectl_drivers.dice.device import DiceCupDriver
from tablectl_drivers.dice.messages import DiceReading
from tablectl_drivers.dispenser.device import ShufflerDriver
from tablectl_drivers.envelope import BadFrame, checksum, decode, encode
from tablectl_drivers.messages import Fault
from tablectl_drivers.shoe.device import ShoeDriver
from tablectl_drivers.sim import RecordingSink
from tablectl_drivers.sim.device import garble
from tablectl_drivers.sim.dice import DiceModel, SimulatedDice
from tablectl_drivers.sim.dispenser import SimulatedDispenser
from tablectl_drivers.sim.shoe import SimulatedShoe
from tests.drivers.resend_support import until_answered
from tests.drivers.support import last, running, simulators, until_open
from tests.helpers import bank, feed, make_config, payload, payloads, topics, wager

TIMEOUT = 5.0
FAST_RECONNECT = {"backoff_initial": 0.01, "backoff_max": 0.05, "status_interval": 0}


def frame(body: str) -> bytes:
    """A well-formed frame around `body` (docs/protocols/envelope.md): `$body*CS\\r\\n`."""
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode("ascii") + b"\r\n"


def cs(body: str) -> str:
    """The checksum field of a frame with this body, as the frame writes it."""
    return f"{checksum(body.encode('ascii')):02X}"


@pytest.fixture
def make_shoe() -> Iterator[Callable[..., SimulatedShoe]]:
    yield from simulators(SimulatedShoe)


@pytest.fixture
def make_dice() -> Iterator[Callable[..., SimulatedDice]]:
    yield from simulators(SimulatedDice)


@pytest.fixture
def make_dispenser() -> Iterator[Callable[..., SimulatedDispenser]]:
    yield from simulators(SimulatedDispenser)


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


# -- garble: the model alone -----------------------------------------------------------------------


def test_garble_flips_the_last_body_byte_so_the_checksum_fails() -> None:
    # "d" is 0x64; its lowest bit flipped is 0x65 "e". The checksum field is left as it was.
    assert garble(frame("CRD,2,Kd")) == f"$CRD,2,Ke*{cs('CRD,2,Kd')}\r\n".encode()
    # "%" (0x25) flipped would be "$" (0x24), a new frame: the next bit gives 0x27 "'".
    assert garble(frame("FLT,0,JAM,50%")) == f"$FLT,0,JAM,50'*{cs('FLT,0,JAM,50%')}\r\n".encode()
    # "~" (0x7E) flipped would be 0x7F, not printable: the next bit gives 0x7C "|".
    assert garble(frame("FLT,0,JAM,~")) == f"$FLT,0,JAM,|*{cs('FLT,0,JAM,~')}\r\n".encode()


_TEXT = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*\r\n"),
    max_size=30,
)


@given(
    code=st.from_regex(r"[A-Z0-9_]{1,16}", fullmatch=True),
    text=_TEXT,
    seq=st.integers(0, 9999),
)
def test_any_garbled_frame_is_one_checksum_mismatch_and_nothing_else(
    code: str, text: str, seq: int
) -> None:
    # envelope.md: one changed body byte changes the XOR; the receiver must see exactly one bad
    # frame covering the whole line (no `$` made in the middle, no control byte), never a message.
    wire = garble(encode(Fault(seq, code, text).to_envelope()))
    consumed, item = decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame)
    assert item.reason.startswith("checksum mismatch")


def test_garble_next_corrupts_that_many_frames_and_uses_their_seq() -> None:
    wire: list[bytes] = []
    cup = DiceModel(wire.append)
    cup.shake([1, 2, 3])  # SEQ 0, roll 1
    cup.garble_next(2)
    cup.shake([4, 5, 6])  # SEQ 1, roll 2, garbled: "6" (0x36) -> "7" (0x37)
    cup.lift()  # SEQ 2, garbled: "D" of LIFTED (0x44) -> "E" (0x45)
    cup.shake([2, 2, 2])  # SEQ 3, roll 3, clean
    assert wire == [
        frame("DIC,0,1,1,2,3"),
        f"$DIC,1,2,4,5,7*{cs('DIC,1,2,4,5,6')}\r\n".encode(),
        f"$CUP,2,LIFTEE*{cs('CUP,2,LIFTED')}\r\n".encode(),
        frame("DIC,3,3,2,2,2"),
    ]
    cup.duplicate_last()  # a retransmission is the frame as built
    assert wire[-1] == frame("DIC,3,3,2,2,2")


def test_repeat_last_sends_the_same_message_under_new_seqs() -> None:
    wire: list[bytes] = []
    cup = DiceModel(wire.append, seq=9998)
    with pytest.raises(RuntimeError, match="no message"):
        cup.repeat_last()
    cup.shake([6, 1, 3])  # SEQ 9998, roll 1
    repeated = cup.repeat_last(2)  # 9999, then SEQ wraps to 0 (envelope.md: 0..9999)
    # read twice is the same roll again: the same roll number, which the table refuses twice
    assert repeated == [DiceReading(9999, 1, (6, 1, 3)), DiceReading(0, 1, (6, 1, 3))]
    assert wire == [
        frame("DIC,9998,1,6,1,3"),
        frame("DIC,9999,1,6,1,3"),
        frame("DIC,0,1,6,1,3"),
    ]
    assert cup.next_seq == 1 and cup.rolls_read == 1


@pytest.mark.parametrize("count", [0, -1, True, 1.5])
def test_a_switch_count_must_be_a_whole_number_of_frames(count: Any) -> None:
    cup = DiceModel(lambda _: None)
    for switch in (cup.drop_next, cup.garble_next, cup.repeat_last):
        with pytest.raises(ValueError, match="count of frames"):
            switch(count)


# -- garbled frames through the real driver --------------------------------------------------------


async def test_garbled_card_frames_are_counted_bad_and_no_card_is_invented(
    make_shoe: Callable[..., SimulatedShoe],
) -> None:
    """Two garbled card frames are two bad frames, and nothing is made of their bytes. The SEQ
    gap they leave makes the driver ask the shoe to resend, and the true cards
    come back at their own positions (before, they were lost and FRAMES_LOST held the round
    until the next shoe; FRAMES_LOST now stands only while a resend goes unanswered)."""
    sim = make_shoe()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)  # RSB, RSE, CLR: SEQ 0-2
        sim.load(["As", "Kd", "9c", "2h", "5s"])  # NEW, SEQ 3
        sim.draw()  # As, SEQ 4, position 1
        sim.garble_next(2)
        # The last byte before "*" is the position's last digit now: "2" (0x32) -> "3" (0x33)
        sim.draw()  # Kd, SEQ 5: "$CRD,5,Kd,3*..." arrives
        sim.draw()  # 9c, SEQ 6: "3" (0x33) -> "2" (0x32): "$CRD,6,9c,2*..." arrives
        sim.draw()  # 2h, SEQ 7, position 4: the gap; RSN from position 2
        await sink.wait_for(lambda: len(sink.cards) == 4, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 2, TIMEOUT)
        await until_answered(sink, resends=2)
    status = last(sink)
    assert status.available and status.fault is None
    assert status.detail["last_gap"] == {"expected": 5, "received": 7, "lost": 2}
    assert status.detail["last_bad"] == {
        "reason": f"checksum mismatch: frame says {cs('CRD,6,9c,3')}, bytes give "
        f"{cs('CRD,6,9c,2')}",
        "raw": "$CRD,6<10 bytes withheld>",  # ",9c,2*CS\r\n" is 10 bytes; a card stays hidden
    }
    # Neither garbled frame, nor anything made of their bytes (a card at the wrong position):
    # RSB 8, Kd 9, 9c 10 and 2h 11 resent (the 2h that came after the gap, 7, waited for the
    # replay, which brings it in its place), RSE 12, CLR 13.
    assert [(e["card"], e["at"]["pos"], e["at"]["seq"]) for e in sink.events[1:]] == [
        ("As", 1, 4),
        ("Kd", 2, 9),
        ("9c", 3, 10),
        ("2h", 4, 11),
    ]
    assert driver.stats["bad_frames"] == 2 and driver.stats["duplicates"] == 0
    assert all(s.fault is None for s in sink.statuses)


@pytest.mark.parametrize("garbled", [False, True], ids=["hand-made", "garble_next"])
async def test_a_bad_dice_frame_is_logged_at_debug_with_its_raw_bytes(
    make_dice: Callable[..., SimulatedDice], logs: list[EventDict], garbled: bool
) -> None:
    sim = make_dice()
    sink = RecordingSink()
    driver = DiceCupDriver("cup1", sim.port, 9600, {"status_interval": 0})
    # garbled: "6" -> "7" (0x36 -> 0x37) in SEQ 3 (0-2 answered the resend asked on connect:
    # RSB, RSE, CLR), roll 1; hand-made: garbage before the next `$`
    garbled_dic = f"$DIC,3,1,3,5,7*{cs('DIC,3,1,3,5,6')}\r\n".encode()
    expected = garbled_dic if garbled else b"\x00\xffnoise\r\n"
    async with running(driver, sink):
        await until_open(driver, sink)
        await sink.wait_for(lambda: last(sink).detail["position"]["pos"] == 0, TIMEOUT)
        if garbled:
            sim.garble_next()
            sim.shake([3, 5, 6])  # SEQ 3
        else:
            sim.write_raw(expected)
        sim.close_cup()  # a good frame after it
        await sink.wait_for(lambda: last(sink).detail["cup"] == "closed", TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 1, TIMEOUT)
        if garbled:  # the SEQ gap makes the driver ask again: the true roll comes back
            await sink.wait_for(lambda: len(sink.events) == 1, TIMEOUT)
    bad = [e for e in logs if e["event"] == "dice.bad_frame"]
    assert len(bad) == 1
    assert bad[0]["log_level"] == "debug"
    assert bad[0]["raw"] == expected  # every byte, exactly as it came off the line
    assert bad[0]["device"] == "cup1" and bad[0]["port"] == sim.port
    # the 3-5-7 the line made up never became a roll; the 3-5-6 the cup read did, by the resend
    assert [e["dice"] for e in sink.events] == ([[3, 5, 6]] if garbled else [])


async def test_a_garbled_stack_is_logged_raw_at_debug_but_its_cards_stay_off_status(
    make_dispenser: Callable[..., SimulatedDispenser], logs: list[EventDict]
) -> None:
    sim = make_dispenser(stack_size=3)
    sim.load(["Ah", "Kd", "Qs", "2c", "3c", "4c"], announce=False)
    sink = RecordingSink()
    driver = ShufflerDriver("shuffler", sim.port, 9600, {"status_interval": 0})
    async with running(driver, sink):
        await until_open(driver, sink)  # SEQ 0-2 answer the resend asked on connect
        await sink.wait_for(lambda: last(sink).detail["position"]["pos"] == 0, TIMEOUT)
        sim.garble_next()
        sim.dispense()  # SEQ 3, stack 1: "s" (0x73) -> "r" (0x72): "Qr" arrives
        sim.dispense()  # SEQ 4, stack 2: 2c 3c 4c, after a gap: the driver asks again
        await sink.wait_for(lambda: len(sink.events) == 2, TIMEOUT)
        await sink.wait_for(lambda: last(sink).detail["bad_frames"] == 1, TIMEOUT)
    raw = f"$STK,3,1,1,3,Ah,Kd,Qr*{cs('STK,3,1,1,3,Ah,Kd,Qs')}\r\n".encode()
    [bad] = [e for e in logs if e["event"] == "dispenser.bad_frame"]
    assert bad["log_level"] == "debug" and bad["raw"] == raw
    assert bad["reason"].startswith("checksum mismatch")
    # docs/protocols/dispenser.md: the published status shows only $TYPE,SEQ of a bad frame
    assert last(sink).detail["last_bad"]["raw"] == f"$STK,3<{len(raw) - 6} bytes withheld>"
    assert "Qr" not in str(sink.calls)  # nothing made of the garbled bytes
    # the true stack 1 came by the resend, in its place; stack 2 waited for it
    assert [(e["cards"], e["at"]["pos"], e["at"]["first"]) for e in sink.events] == [
        (["Ah", "Kd", "Qs"], 1, 1),
        (["2c", "3c", "4c"], 2, 4),
    ]


# -- a card read twice: the driver passes it on, the table refuses it ---------------------------


async def test_a_card_read_twice_is_not_dealt_twice_and_a_ninth_as_is_refused_contract1(
    make_shoe: Callable[..., SimulatedShoe], tmp_path: Path
) -> None:
    # An 8-deck shoe (003 "EZ Baccarat Panda 8: Description of the Deck and Number of Decks Used":
    # "a maximum of eight decks"; helpers' config: decks = 8) holds eight As. Seven are burned, the
    # eighth is the Player's first card; the shoe then reads it again under a new SEQ. The repeat
    # carries the same position (8), so the table refuses it as a position read twice
    # before the engine sees it. The shoe then reads a ninth As at its own position (9), which
    # DESIGN contract 1 says the engine rejects ("a ninth `As` in an 8-deck shoe").
    sim = make_shoe()
    sink = RecordingSink()
    driver = ShoeDriver("shoe1", sim.port, 9600, {})
    async with running(driver, sink):
        await until_open(driver, sink)
        await until_answered(sink)  # RSB, RSE, CLR: SEQ 0-2
        sim.load(["As"] * 9 + ["Kd", "5c", "7s"])  # NEW, SEQ 3
        for _ in range(7):
            sim.burn()  # SEQ 4..10, positions 1-7
        sim.draw()  # the 8th As, SEQ 11, position 8
        sim.duplicate_last()  # SEQ 11 again: a retransmission, which the driver drops
        sim.repeat_last()  # SEQ 12: As read twice, position 8 again
        for _ in range(4):
            sim.draw()  # the ninth As, Kd, 5c, 7s: SEQ 13..16, positions 9-12
        await sink.wait_for(lambda: len(sink.cards) == 6, TIMEOUT)
    card_events = [e for e in sink.events if e["type"] == "shoe.card"]
    assert [(e["card"], e["at"]["pos"]) for e in card_events] == [
        ("As", 8),
        ("As", 8),  # passed on: the table, which keeps the count, refuses it
        ("As", 9),
        ("Kd", 10),
        ("5c", 11),
        ("7s", 12),
    ]
    assert driver.stats["duplicates"] == 1 and driver.stats["repeats"] == 1
    assert last(sink).fault is None

    table = Table(make_config(tmp_path))
    rows: list[OutboxRow] = []
    for event in [e for e in sink.events if e["type"] != "shoe.card"]:  # shoe.new, 7 burns
        rows += feed(table, event)
    rows += feed(table, bank(3, "100"))
    rows += feed(table, wager(4, "player", "25"))
    rows += feed(table, card_events[0])  # As to the Player (R25)
    assert payloads(rows, "alert") == []

    before = table.state
    refused = feed(table, card_events[1])  # the As read twice: position 8 again
    assert topics(refused) == ["alert"]
    alert = payload(refused[0])
    assert alert["kind"] == "position-repeated" and "position 8 of 1" in alert["reason"]
    assert table.state == before  # not dealt twice

    refused = feed(table, card_events[2])  # the ninth As, at position 9
    assert topics(refused) == ["alert"]
    alert = payload(refused[0])
    assert alert["kind"] == "rejected" and "As" in alert["reason"]
    assert table.state == before  # the refused card went to no hand

    for event in card_events[3:]:
        rows += feed(table, event)
    [result] = payloads(rows, "round/result")
    # R25 deal order P B P B: Player As 5c, Banker Kd 7s. Values
    # (003 "EZ Baccarat Panda 8: Card Values and Hand Rankings"): A=1, K=0, so Player 6 stands (line
    # 1144), Banker 7 stands (line 1145: hits on 5 or less only); the hand closest to nine wins
    # (line 1142): Banker 7-6, with two cards, so no Dragon 7.
    outcome = result["outcome"]
    assert outcome["winner"] == "banker"
    assert outcome["player"]["cards"] == ["As", "5c"] and outcome["player"]["total"] == 6
    assert outcome["banker"]["cards"] == ["Kd", "7s"] and outcome["banker"]["total"] == 7
    # The player line loses its 25 (003 "EZ Baccarat Panda 8: Dealing Procedures and Round of Play":
    # the player line pays 1 to 1; R1: the bank of 100 collects it whole).
    [settlement] = result["settlements"]
    assert (settlement["spot"], settlement["status"], settlement["net"]) == (
        "player",
        "lose",
        "-25.00",
    )


# -- unplug and replug behind the emulator's own link ----------------------------------------------


def test_a_link_path_holding_a_real_file_is_not_replaced(tmp_path: Path) -> None:
    precious = tmp_path / "shoe0"
    precious.write_text("not ours")
    with pytest.raises(FileExistsError, match="not a symlink"):
        SimulatedShoe(link=precious)
    assert precious.read_text() == "not ours"


# -- the interactive commands ----------------------------------------------------------------------


def test_the_interactive_fault_commands(tmp_path: Path) -> None:
    link = tmp_path / "shoe0"
    commands = [
        "garble",  # the next frame is corrupted
        "draw",  # SEQ 1 (NEW was 0)
        "repeat 2",  # SEQ 2, 3
        "drop 0",  # refused: not a count
        "unplug",
        "draw",  # refused: unplugged
        "replug",
        "status",
        "quit",
    ]
    argv = ["--decks", "1", "--seed", "4", "--link", str(link)]
    proc = subprocess.run(
        [sys.executable, "-m", "tablectl_drivers.sim.shoe", *argv],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    lines = proc.stdout.splitlines()
    assert lines[0] == str(link)
    assert lines[1] == "ok"
    assert re.fullmatch(r"[A2-9TJQK][shdc]", lines[2])
    assert lines[3] == "ok"
    assert lines[4] == "error: a count of frames is a whole number >= 1, not 0"
    assert lines[5] == "unplugged"
    assert lines[6] == "error: the SimulatedShoe is closed (unplugged)"
    assert re.fullmatch(r"replugged /dev/\S+", lines[7])
    port = lines[7].removeprefix("replugged ")
    # 52 - 1 drawn (position 1; a repeat is no new card); SEQ 0..3 used
    assert lines[8] == f"51 cards left, shoe 1 position 1, next SEQ 4, port {port}"
    assert not link.is_symlink()  # quitting unplugs: the link goes with the port


@pytest.mark.parametrize("device", ["shoe", "dice", "dispenser", "eztrak", "poker_table"])
def test_every_simulators_help_lists_the_fault_commands(device: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", f"tablectl_drivers.sim.{device}", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    for command in ("drop [N]", "garble [N]", "dup", "repeat [N]", "unplug", "replug", "raw"):
        assert f"  {command} " in proc.stdout, command
