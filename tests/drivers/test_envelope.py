"""The shared frame envelope (tablectl_drivers/envelope.py): round trips, the checksum, resync,
refusals."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl_drivers.envelope import (
    MAX_FRAME,
    SEQ_MODULO,
    BadFrame,
    Envelope,
    FrameError,
    checksum,
    decode,
    encode,
)


def line(body: str) -> bytes:
    """A correctly checksummed line around `body` (for frames encode() would refuse to make)."""
    raw = body.encode("ascii")
    return b"$" + raw + b"*" + f"{checksum(raw):02X}".encode() + b"\r\n"


def decode_all(chunks: list[bytes]) -> tuple[list[Envelope | BadFrame], bytes]:
    """Feed chunks one at a time as a driver does; return what came out and the leftover."""
    buf = bytearray()
    out: list[Envelope | BadFrame] = []
    for chunk in chunks:
        buf += chunk
        while True:
            consumed, item = decode(buf)
            if consumed == 0:
                assert item is None
                break
            assert 0 < consumed <= len(buf)
            if isinstance(item, Envelope):
                assert bytes(buf[:consumed]).endswith(b"\n")  # exactly its line
            del buf[:consumed]
            assert item is not None
            out.append(item)
    return out, bytes(buf)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


# -- the checksum and round trips -----------------------------------------------------------------


def test_worked_checksum_example_by_hand() -> None:
    # XOR of the bytes between "$" and "*" of "$FLT,3,JAM*..", as in docs/protocols/envelope.md
    steps = [
        ("F", 0x46, 0x46),
        ("L", 0x4C, 0x0A),
        ("T", 0x54, 0x5E),
        (",", 0x2C, 0x72),
        ("3", 0x33, 0x41),
        (",", 0x2C, 0x6D),
        ("J", 0x4A, 0x27),
        ("A", 0x41, 0x66),
        ("M", 0x4D, 0x2B),
    ]
    running = 0
    for char, code, after in steps:
        assert ord(char) == code
        running ^= code
        assert running == after
    assert checksum(b"FLT,3,JAM") == 0x2B
    assert encode(Envelope("FLT", 3, ("JAM",))) == b"$FLT,3,JAM*2B\r\n"
    assert checksum(b"") == 0


@pytest.mark.parametrize(
    "env",
    [
        Envelope("HBT", 0),
        Envelope("HBT", 9999),
        Envelope("ABC", 1, ("",)),
        Envelope("ABC", 2, ("", "")),
        Envelope("ABC", 3, (" spaced ", "x", "~!@#%^&()")),
    ],
    ids=repr,
)
def test_round_trip(env: Envelope) -> None:
    wire = encode(env)
    assert wire.startswith(b"$") and wire.endswith(b"\r\n") and len(wire) <= MAX_FRAME
    assert decode(wire) == (len(wire), env)


def test_fields_default_to_empty_and_decode_is_lenient() -> None:
    assert Envelope("HBT", 1) == Envelope("HBT", 1, ())
    assert decode(b"$FLT,3,JAM*2b\r\n")[1] == Envelope("FLT", 3, ("JAM",))  # lowercase CS
    assert decode(b"$FLT,3,JAM*2B\n") == (14, Envelope("FLT", 3, ("JAM",)))  # bare LF
    assert decode(line("HBT,0042"))[1] == Envelope("HBT", 42)  # leading zeros
    # the TYPE is not checked on receive: which TYPEs exist is the message set's business
    assert decode(line("crd,1,x"))[1] == Envelope("crd", 1, ("x",))


# -- what decode refuses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "reason"),
    [
        (b"$FLT,3,JAM*2C\r\n", "checksum mismatch: frame says 2C, bytes give 2B"),
        (b"$FLT,3,JAM*G1\r\n", "not two hex digits"),
        (b"$FLT,3,JAM2B\r\n", "no *<checksum>"),
        (b"$*\r\n", "no *<checksum>"),
        (b"$FLT,3,J\xc9M*00\r\n", "non-ASCII"),
        (b"$FLT,3,J\tM*00\r\n", "non-ASCII"),
        (b"$FLT,3,J\rM*00\r\n", "non-ASCII"),
        (line("FLT,3,J*M"), "* inside"),
        (line("HBT"), "SEQ ''"),
        (line("HBT,"), "SEQ ''"),
        (line("HBT,12345"), "SEQ '12345'"),
        (line("HBT,-1"), "SEQ"),
        (line("HBT,1.0"), "SEQ"),
        (line("HBT, 1"), "SEQ"),
    ],
)
def test_bad_lines(wire: bytes, reason: str) -> None:
    consumed, item = decode(wire)
    assert consumed == len(wire)
    assert isinstance(item, BadFrame), item
    assert item.raw == wire
    assert reason in item.reason


def test_every_proper_prefix_is_incomplete() -> None:
    wire = encode(Envelope("FLT", 12, ("JAM", "card stuck")))
    for i in range(len(wire)):
        assert decode(wire[:i]) == (0, None)


def test_garbage_truncation_and_over_long_lines_resync() -> None:
    good = encode(Envelope("HBT", 3))
    stream = b"\x00noise" + b"$HBT,1" + b"$ABC,1," + b"A" * 100 + b"\r\n" + good
    items, rest = decode_all([stream])
    assert rest == b""
    assert items[0] == BadFrame(b"\x00noise", "garbage before $")
    assert items[1] == BadFrame(b"$HBT,1", "truncated frame: $ before end of line")
    assert isinstance(items[2], BadFrame) and "over-long" in items[2].reason
    assert len(items[2].raw) == MAX_FRAME
    assert all(isinstance(i, BadFrame) for i in items[:-1])
    assert items[-1] == Envelope("HBT", 3)


def test_garbage_without_dollar_waits_then_goes_in_max_frame_pieces() -> None:
    assert decode(b"noise") == (0, None)
    consumed, item = decode(b"x" * 200)
    assert consumed == MAX_FRAME
    assert item == BadFrame(b"x" * MAX_FRAME, f"no $ within {MAX_FRAME} bytes")


# -- what encode refuses --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (Envelope("crd", 1), "TYPE"),
        (Envelope("CRDX", 1), "TYPE"),
        (Envelope("", 1), "TYPE"),
        (Envelope("C1D", 1), "TYPE"),
        (Envelope("HBT", -1), "SEQ"),
        (Envelope("HBT", SEQ_MODULO), "SEQ"),
        (Envelope("ABC", 1, ("a,b",)), "field"),
        (Envelope("ABC", 1, ("a*b",)), "field"),
        (Envelope("ABC", 1, ("$5",)), "field"),
        (Envelope("ABC", 1, ("a\rb",)), "field"),
        (Envelope("ABC", 1, ("a\nb",)), "field"),
        (Envelope("ABC", 1, ("a\tb",)), "field"),
        (Envelope("ABC", 1, ("é",)), "field"),
        (Envelope("ABC", 1, ("x" * 70,)), "more than 80"),
    ],
    ids=repr,
)
def test_encode_refuses_what_would_break_the_framing(env: Envelope, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        encode(env)


# -- properties -----------------------------------------------------------------------------------

kinds = st.from_regex(r"[A-Z]{3}", fullmatch=True)
field_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*,"),
    max_size=12,
)
# at most 1 + 3 + 5 + 5 * 13 + 3 + 2 = 79 bytes: every generated envelope fits in MAX_FRAME
envelopes = st.builds(
    Envelope, kinds, st.integers(0, SEQ_MODULO - 1), st.lists(field_text, max_size=5).map(tuple)
)
garbage = st.binary(max_size=120).map(lambda b: b.replace(b"$", b""))


@given(envelopes)
def test_any_envelope_round_trips(env: Envelope) -> None:
    wire = encode(env)
    assert len(wire) <= MAX_FRAME
    assert decode(wire) == (len(wire), env)


@given(
    st.lists(st.tuples(garbage, envelopes), max_size=12), garbage, st.lists(st.integers(0, 5000))
)
def test_envelopes_survive_any_garbage_and_any_chunking(
    pairs: list[tuple[bytes, Envelope]], tail: bytes, cuts: list[int]
) -> None:
    stream = b"".join(g + encode(e) for g, e in pairs) + tail
    items, _ = decode_all(split(stream, cuts))
    assert [i for i in items if not isinstance(i, BadFrame)] == [e for _, e in pairs]


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


@given(st.lists(envelopes, max_size=20), st.lists(st.integers(0, 5000)))
def test_a_stray_dollar_costs_one_bad_frame_and_the_next_frame_still_decodes(
    envs: list[Envelope], cuts: list[int]
) -> None:
    stream = b"".join(b"$noise" + encode(e) for e in envs)
    items, rest = decode_all(split(stream, cuts))
    assert rest == b""
    assert items == [
        x for e in envs for x in (BadFrame(b"$noise", "truncated frame: $ before end of line"), e)
    ]
