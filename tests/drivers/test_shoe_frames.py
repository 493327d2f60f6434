"""Shoe framing (tablectl_drivers/shoe/frames.py): round trips, the checksum, every way a frame goes
bad.

Since issue 9 a card frame carries its position (`CRD,<seq>,<card>,<pos>`), NEW the shoe id
(`NEW,<seq>,<shoe>`), and the shoe answers a resend with RSB and RSE (tablectl_drivers/resend.py);
the checksums below were recomputed by hand for those bodies."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl_base.cards import JOKER, Card, parse_card, standard_deck
from tablectl_drivers.resend import (
    HOST_MESSAGES,
    MAX_POSITION,
    ResendBegin,
    ResendEnd,
    ResendRequest,
)
from tablectl_drivers.shoe.frames import (
    MAX_FRAME,
    BadFrame,
    CardBurned,
    CardDrawn,
    Fault,
    FaultCleared,
    Frame,
    FrameError,
    Heartbeat,
    NewShoe,
    ShoeEmpty,
    checksum,
    decode,
    encode,
)


def frame_bytes(body: str) -> bytes:
    """A correctly checksummed line around `body` (for frames encode() would refuse to make)."""
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


def decode_all(chunks: list[bytes]) -> tuple[list[Frame | BadFrame], bytes]:
    """Feed chunks one at a time like the driver does; return what came out and the leftover."""
    buf = bytearray()
    out: list[Frame | BadFrame] = []
    for chunk in chunks:
        buf += chunk
        while True:
            consumed, item = decode(buf)
            if consumed == 0:
                assert item is None
                break
            assert 0 < consumed <= len(buf)
            del buf[:consumed]
            assert item is not None
            out.append(item)
    return out, bytes(buf)


# -- round trips and the checksum -----------------------------------------------------------------

EVERY_MESSAGE: list[Frame] = [
    CardDrawn(17, parse_card("Ah"), 5),
    CardDrawn(0, parse_card("Td"), 1),
    CardDrawn(9999, parse_card("JKR"), MAX_POSITION),
    CardBurned(1, parse_card("7d"), 1),
    NewShoe(0, "1"),
    NewShoe(8, "A1b2C3d4"),
    ShoeEmpty(42),
    ResendBegin(9, False),
    ResendBegin(10, True),
    ResendEnd(11, "1", 0),
    ResendEnd(12, "Z9", 416),
    ResendEnd(13, None, 3),
    Fault(3, "JAM", "card stuck at exit"),
    Fault(4, "MISREAD"),
    Fault(5, "COVER", "lid open, close it"),
    FaultCleared(6),
    Heartbeat(7),
]


@pytest.mark.parametrize("frame", EVERY_MESSAGE, ids=repr)
def test_every_message_round_trips(frame: Frame) -> None:
    wire = encode(frame)
    assert wire.startswith(b"$") and wire.endswith(b"\r\n") and len(wire) <= MAX_FRAME
    assert decode(wire) == (len(wire), frame)


def test_worked_checksum_example_by_hand() -> None:
    # XOR of the bytes between "$" and "*" of "$CRD,17,Ah,5*..", as in docs/protocols/shoe.md
    steps = [
        ("C", 0x43, 0x43),
        ("R", 0x52, 0x11),
        ("D", 0x44, 0x55),
        (",", 0x2C, 0x79),
        ("1", 0x31, 0x48),
        ("7", 0x37, 0x7F),
        (",", 0x2C, 0x53),
        ("A", 0x41, 0x12),
        ("h", 0x68, 0x7A),
        (",", 0x2C, 0x56),
        ("5", 0x35, 0x63),
    ]
    running = 0
    for char, code, after in steps:
        assert ord(char) == code
        running ^= code
        assert running == after
    assert checksum(b"CRD,17,Ah,5") == 0x63
    assert encode(CardDrawn(17, parse_card("Ah"), 5)) == b"$CRD,17,Ah,5*63\r\n"


def test_new_frames_checksums_by_hand() -> None:
    # Each from a checksum known above by XOR of the added bytes: NEW,0 is 0x40 and ",1" is
    # 0x2C ^ 0x31; BRN,1,7d is 0x3C and ",1" 0x2C ^ 0x31; CRD,2,Ah is 0x4E and ",2" 0x2C ^ 0x32.
    assert 0x40 ^ 0x2C ^ 0x31 == 0x5D == checksum(b"NEW,0,1")
    assert 0x3C ^ 0x2C ^ 0x31 == 0x21 == checksum(b"BRN,1,7d,1")
    assert 0x4E ^ 0x2C ^ 0x32 == 0x50 == checksum(b"CRD,2,Ah,2")
    assert encode(NewShoe(0, "1")) == b"$NEW,0,1*5D\r\n"
    assert encode(CardBurned(1, parse_card("7d"), 1)) == b"$BRN,1,7d,1*21\r\n"
    assert encode(CardDrawn(2, parse_card("Ah"), 2)) == b"$CRD,2,Ah,2*50\r\n"


def test_documented_examples_decode() -> None:
    lines = [
        b"$NEW,0,1*5D\r\n",
        b"$BRN,1,7d,1*21\r\n",
        b"$CRD,2,Ah,2*50\r\n",
        b"$FLT,3,JAM,card stuck at exit*5C\r\n",
        b"$CLR,4*45\r\n",
        b"$EMP,5*41\r\n",
        b"$HBT,6*44\r\n",
    ]
    items, rest = decode_all([b"".join(lines)])
    assert rest == b""
    assert items == [
        NewShoe(0, "1"),
        CardBurned(1, parse_card("7d"), 1),
        CardDrawn(2, parse_card("Ah"), 2),
        Fault(3, "JAM", "card stuck at exit"),
        FaultCleared(4),
        ShoeEmpty(5),
        Heartbeat(6),
    ]


@pytest.mark.parametrize("text", ["AH", "ah", "aH", "Ah"])
def test_card_codes_are_case_insensitive_on_the_wire(text: str) -> None:
    _, frame = decode(frame_bytes(f"CRD,5,{text},3"))
    assert frame == CardDrawn(5, Card("A", "h"), 3)
    assert isinstance(frame, CardDrawn) and str(frame.card) == "Ah"


def test_lenient_on_receive_lowercase_checksum_bare_lf_leading_zeros() -> None:
    # CRD,17,Ah,9: 0x7A (CRD,17,Ah) ^ 0x2C (,) ^ 0x39 (9) = 0x6F, a checksum with a letter
    assert 0x7A ^ 0x2C ^ 0x39 == 0x6F
    assert decode(b"$CRD,17,Ah,9*6f\r\n")[1] == CardDrawn(17, parse_card("Ah"), 9)
    assert decode(b"$CRD,17,Ah,5*63\n") == (16, CardDrawn(17, parse_card("Ah"), 5))
    assert decode(frame_bytes("HBT,0042"))[1] == Heartbeat(42)
    assert decode(frame_bytes("CRD,1,Ah,007"))[1] == CardDrawn(1, parse_card("Ah"), 7)
    assert decode(frame_bytes("FLT,8,JAM,"))[1] == Fault(8, "JAM", "")


# -- incomplete input and garbage -----------------------------------------------------------------


def test_every_proper_prefix_of_a_frame_is_incomplete() -> None:
    wire = encode(Fault(12, "JAM", "card stuck"))
    for i in range(len(wire)):
        assert decode(wire[:i]) == (0, None)


def test_garbage_before_dollar_is_consumed_as_one_bad_frame() -> None:
    wire = encode(Heartbeat(1))
    consumed, item = decode(b"\x00\xffnoise\r\n" + wire)
    assert consumed == 9
    assert item == BadFrame(b"\x00\xffnoise\r\n", "garbage before $")
    assert decode(wire) == (len(wire), Heartbeat(1))


def test_garbage_without_dollar_waits_then_goes_in_max_frame_pieces() -> None:
    assert decode(b"noise") == (0, None)
    consumed, item = decode(b"x" * 200)
    assert consumed == MAX_FRAME
    assert isinstance(item, BadFrame) and item.raw == b"x" * MAX_FRAME


def test_truncated_frame_resyncs_at_next_dollar() -> None:
    good = encode(CardDrawn(2, parse_card("Kh"), 2))
    items, rest = decode_all([b"$CRD,1,A" + good])
    assert rest == b""
    assert len(items) == 2
    assert isinstance(items[0], BadFrame) and items[0].raw == b"$CRD,1,A"
    assert "truncated" in items[0].reason
    assert items[1] == CardDrawn(2, parse_card("Kh"), 2)


def test_over_long_line_is_bad_and_decoding_resyncs() -> None:
    good = encode(Heartbeat(3))
    stream = b"$HBT,1," + b"A" * 100 + b"*00\r\n" + good
    items, rest = decode_all([stream])
    assert rest == b""
    assert isinstance(items[0], BadFrame) and "over-long" in items[0].reason
    assert len(items[0].raw) == MAX_FRAME
    assert all(isinstance(i, BadFrame) for i in items[:-1])
    assert items[-1] == Heartbeat(3)


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (b"$CRD,17,Ah,5*64\r\n", "checksum mismatch"),
        (b"$CRD,17,Ah,5*G1\r\n", "not two hex digits"),
        (b"$CRD,17,Ah,563\r\n", "no *<checksum>"),
        (b"$CRD,17,A\xe9,5*00\r\n", "non-ASCII"),
        (b"$CRD,17,A\th,5*00\r\n", "non-ASCII"),
        (frame_bytes("XYZ,1"), "unknown frame type 'XYZ'"),
        (frame_bytes("crd,1,Ah,1"), "unknown frame type"),
        (frame_bytes("CRD,1,Zz,1"), "not a card"),
        (frame_bytes("CRD,1,10d,1"), "not a card"),
        (frame_bytes("CRD,1, Ah,1"), "spaces"),
        (frame_bytes("CRD,1"), "exactly two fields"),
        (frame_bytes("CRD,1,Ah"), "exactly two fields"),
        (frame_bytes("BRN,1,Ah"), "exactly two fields"),
        (frame_bytes("CRD,1,Ah,2,Kd"), "exactly two fields"),
        (frame_bytes("CRD,1,Ah,0"), "at least 1"),
        (frame_bytes("CRD,1,Ah,"), "1-9 digits"),
        (frame_bytes("CRD,1,Ah,x"), "1-9 digits"),
        (frame_bytes("CRD,1,Ah,-3"), "1-9 digits"),
        (frame_bytes("CRD,1,Ah,+3"), "1-9 digits"),
        (frame_bytes("CRD,1,Ah,1234567890"), "1-9 digits"),
        (frame_bytes("NEW,1"), "exactly one field"),
        (frame_bytes("NEW,1,8,9"), "exactly one field"),
        (frame_bytes("NEW,1,"), "1-8 letters or digits"),
        (frame_bytes("NEW,1,A-1"), "1-8 letters or digits"),
        (frame_bytes("NEW,1,123456789"), "1-8 letters or digits"),
        (frame_bytes("NEW"), "SEQ"),
        (frame_bytes("NEW,12345,1"), "SEQ"),
        (frame_bytes("NEW,-1,1"), "SEQ"),
        (frame_bytes("NEW,x,1"), "SEQ"),
        (frame_bytes("RSB,1"), "OK or LOST"),
        (frame_bytes("RSB,1,ok"), "OK or LOST"),
        (frame_bytes("RSB,1,OK,1"), "OK or LOST"),
        (frame_bytes("RSE,1,1"), "a run and a position"),
        (frame_bytes("RSE,1,1,x"), "1-9 digits"),
        (frame_bytes("RSE,1,a b,1"), "1-8 letters or digits"),
        (frame_bytes("RSN,1,-,0"), "unknown frame type 'RSN'"),
        (frame_bytes("FLT,1"), "fault code"),
        (frame_bytes("FLT,1,jam"), "fault code"),
        (frame_bytes("FLT,1,J*M"), "* inside"),
    ],
)
def test_bad_frames(wire: bytes, reason: str) -> None:
    consumed, item = decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame), item
    assert item.raw == wire
    assert reason in item.reason


@pytest.mark.parametrize(
    "frame",
    [
        NewShoe(10_000, "1"),
        NewShoe(-1, "1"),
        NewShoe(0, ""),
        NewShoe(0, "A-1"),
        NewShoe(0, "123456789"),
        CardDrawn(0, parse_card("Ah"), 0),
        CardDrawn(0, parse_card("Ah"), MAX_POSITION + 1),
        CardBurned(0, parse_card("Ah"), -1),
        ResendEnd(0, "a b", 1),
        ResendEnd(0, "1", -1),
        Fault(1, "jam"),
        Fault(1, "JAM", "a * b"),
        Fault(1, "JAM", "costs $5"),
        Fault(1, "JAM", "line\nbreak"),
        Fault(1, "JAM", "é"),
        Fault(1, "JAM", "x" * 70),
    ],
    ids=repr,
)
def test_encode_refuses_what_would_break_the_framing(frame: Frame) -> None:
    with pytest.raises(FrameError):
        encode(frame)


# -- properties -----------------------------------------------------------------------------------

CARDS = [*standard_deck(), Card(JOKER, "")]
seqs = st.integers(0, 9999)
cards = st.sampled_from(CARDS)
positions = st.integers(1, MAX_POSITION)
runs = st.from_regex(r"[A-Za-z0-9]{1,8}", fullmatch=True)
fault_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*"),
    max_size=30,
)
frames: st.SearchStrategy[Frame] = st.one_of(
    st.builds(CardDrawn, seqs, cards, positions),
    st.builds(CardBurned, seqs, cards, positions),
    st.builds(NewShoe, seqs, runs),
    st.builds(ShoeEmpty, seqs),
    st.builds(ResendBegin, seqs, st.booleans()),
    st.builds(ResendEnd, seqs, st.none() | runs, st.integers(0, MAX_POSITION)),
    st.builds(Fault, seqs, st.from_regex(r"[A-Z0-9_]{1,16}", fullmatch=True), fault_text),
    st.builds(FaultCleared, seqs),
    st.builds(Heartbeat, seqs),
)
garbage = st.binary(max_size=120).map(lambda b: b.replace(b"$", b""))


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@given(st.lists(st.tuples(garbage, frames), max_size=12), garbage, st.lists(st.integers(0, 5000)))
def test_frames_survive_any_garbage_and_any_chunking(
    pairs: list[tuple[bytes, Frame]], tail: bytes, cuts: list[int]
) -> None:
    stream = b"".join(g + encode(f) for g, f in pairs) + tail
    items, _ = decode_all(split(stream, cuts))
    assert [i for i in items if not isinstance(i, BadFrame)] == [f for _, f in pairs]


@given(st.binary(max_size=400), st.lists(st.integers(0, 5000)))
def test_decoding_does_not_depend_on_chunking(stream: bytes, cuts: list[int]) -> None:
    assert decode_all(split(stream, cuts)) == decode_all([stream])


@given(st.binary(max_size=300))
def test_decode_never_raises_and_never_stalls_on_a_full_buffer(data: bytes) -> None:
    consumed, item = decode(data)
    assert 0 <= consumed <= len(data)
    assert (consumed == 0) == (item is None)
    if len(data) >= MAX_FRAME:
        assert consumed > 0


@given(st.lists(frames, max_size=20))
def test_frames_with_dollar_noise_inside_garbage_still_decode_after_resync(
    fs: list[Frame],
) -> None:
    # a stray "$" in the noise is a truncated frame; the real frame after it still decodes
    stream = b"".join(b"$noise" + encode(f) for f in fs)
    items, rest = decode_all([stream])
    assert rest == b""
    assert [i for i in items if not isinstance(i, BadFrame)] == fs


# -- the protocol page -----------------------------------------------------------------------------

PAGE = Path(__file__).resolve().parents[2] / "docs" / "protocols" / "shoe.md"
_PAGE_FRAME = re.compile(r"^(\$[^*]*\*[0-9A-F]{2})\\r\\n(?:\s+(.+))?$")


def page_frames() -> list[tuple[bytes, str | None]]:
    """Every frame in a code block of docs/protocols/shoe.md, with the reason written after it
    (a bad frame) or None."""
    found: list[tuple[bytes, str | None]] = []
    block = False
    for line in PAGE.read_text().splitlines():
        if line.startswith("```"):
            block = not block
        elif block and (m := _PAGE_FRAME.match(line)):
            found.append((m.group(1).encode() + b"\r\n", m.group(2)))
    return found


def test_every_frame_on_the_protocol_page_is_what_the_code_sends_or_refuses() -> None:
    frames = page_frames()
    assert len(frames) >= 30
    for wire, reason in frames:
        if reason is not None:
            consumed, item = decode(wire)
            assert consumed == len(wire) and isinstance(item, BadFrame), wire
            assert reason in item.reason, (wire, item.reason)
        elif wire.startswith(b"$RSN"):  # the driver's one message
            _, request = HOST_MESSAGES.decode(wire)
            assert isinstance(request, ResendRequest) and HOST_MESSAGES.encode(request) == wire
        else:
            _, frame = decode(wire)
            assert not isinstance(frame, BadFrame) and frame is not None, wire
            assert encode(frame) == wire  # the checksum too


def test_the_longest_frames_on_the_protocol_page() -> None:
    text = PAGE.read_text()
    longest = encode(ResendEnd(9999, "ABCDEFGH", 999_999_999))
    card = encode(CardBurned(9999, parse_card("JKR"), 999_999_999))
    assert (len(longest), len(card)) == (33, 28)
    assert longest.decode().replace("\r\n", "\\r\\n") in text
    assert card.decode().replace("\r\n", "\\r\\n") in text


@pytest.mark.parametrize("page", ["shoe.md", "envelope.md"])
def test_every_frame_quoted_on_the_page_has_its_checksum(page: str) -> None:
    """Frames in the text and tables too, not only in code blocks: each `$BODY*CS` is checked
    with drivers.envelope.checksum (the XOR of BODY)."""
    text = (PAGE.parent / page).read_text()
    quoted = re.findall(r"\$([A-Z]{3},[^*`$\s]*(?: [^*`$]*)?)\*([0-9A-F]{2})", text)
    assert len(quoted) >= 10
    for body, cs in quoted:
        assert f"{checksum(body.encode()):02X}" == cs, body
