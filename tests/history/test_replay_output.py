"""`tablectl replay` writes each row's payload bytes as they are: the same line as decoding the
payload and encoding the message again (what it used to do, at twice the cost); to a UTF-8
standard output as bytes, the very bytes its text would have become there."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablectl.cli import main
from tablectl.cli.replay import lines_into, print_rows, rows_text
from tablectl.outputs import OutboxRow
from tablectl.table.table import encode_payload
from tests.history.test_replay_golden import EXPECTED

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


ROWS = (
    st.text(min_size=1),
    st.dictionaries(st.text(), json_values, max_size=6),
    st.sampled_from([0, 1, 2]),
    st.booleans(),
)
"""A row's topic, payload, qos and retain flag, for the properties below."""


def decoded_and_encoded(row: OutboxRow) -> str:
    """The line as print_rows wrote it before: the payload decoded, the message encoded."""
    msg = {"topic": row.topic, "payload": json.loads(row.payload), "qos": row.qos}
    msg["retain"] = row.retain
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False) + "\n"


@given(*ROWS)
def test_replay_line_equals_payload_decoded_and_encoded_again(
    topic: str, payload: dict[str, Any], qos: int, retain: bool
) -> None:
    """Table._number encodes payloads exactly so (compact, ensure_ascii=False, UTF-8); any such
    payload printed as its bytes gives the line the decode-and-encode form gives."""
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")
    row = OutboxRow(7, topic, data, qos, retain)
    out = io.StringIO()
    print_rows([row], out)
    assert out.getvalue() == decoded_and_encoded(row)


@given(*ROWS)
def test_replay_lines_as_bytes_are_its_text_lines_in_utf8(
    topic: str, payload: dict[str, Any], qos: int, retain: bool
) -> None:
    """To a UTF-8 standard output `replay` writes bytes (`lines_into`): exactly what the text
    lines `print_rows` writes (`rows_text`) become in UTF-8, a row's frame reused or not."""
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")
    rows = [OutboxRow(7, topic, data, qos, retain), OutboxRow(8, topic, b"{}", qos, not retain)]
    out: list[bytes] = []
    lines_into(rows + rows, out)
    assert b"".join(out) == rows_text(rows + rows).encode("utf-8")


def test_replay_to_a_text_only_output_writes_the_same_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output without bytes beneath it (here a StringIO) is written text: the same lines as
    the bytes a UTF-8 standard output is given."""
    folder = Path(__file__).resolve().parent / "replay_histories" / "ez-baccarat-panda8"
    golden = EXPECTED["ez-baccarat-panda8"]  # (lines, the output's sha256)
    repo = Path(__file__).resolve().parents[2]
    config = tmp_path / "table.toml"
    config.write_text((folder / "table.toml").read_text("utf-8").replace("{repo}", str(repo)))
    argv = ["replay", "--config", str(config), str(folder / "events.jsonl")]
    assert main(argv) == 0
    as_bytes = capsys.readouterr().out
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(argv) == 0
    assert text.getvalue() == as_bytes
    assert hashlib.sha256(as_bytes.encode()).hexdigest().startswith(golden[1])


@given(st.dictionaries(st.text(), json_values, max_size=6))
def test_payload_encoder_writes_the_json_modules_bytes(payload: dict[str, Any]) -> None:
    """Table._number's encoder (pydantic_core's, small floats json's way) gives exactly the bytes
    json.dumps(payload, separators=(",", ":"), ensure_ascii=False) does, floats of every size,
    NaN and the infinities included."""
    expected = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert encode_payload(payload) == expected


def test_payload_encoder_on_small_floats() -> None:
    """The floats pydantic_core writes otherwise ("1e-5", "0.00001") come out as json's."""
    for value in (1e-5, 0.00001234, -2.5e-7, 1e-9, 5e-324, 0.0001, 1e16, 1.5e300):
        payload = {"x": value, "y": [value, {"z": value}]}
        expected = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        assert encode_payload(payload) == expected
