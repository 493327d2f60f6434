"""`cmd/history`'s request and answer (tablectl/history_answers.py; docs/mqtt.md)."""

from __future__ import annotations

import pytest

from tablectl import schemas
from tablectl.history_answers import (
    MAX_HISTORY,
    HistoryRequest,
    HistoryRequestError,
    answer_payload,
    read_request,
    refusal_payload,
)
from tablectl.outputs import OutboxRow

BASE = "tablectl/room-1/bac-1"


def test_a_request_names_its_id_and_numbers() -> None:
    payload = b'{"id":"l-1","from":4,"to":9}'
    schemas.validate(f"{BASE}/cmd/history", payload)
    assert read_request(payload) == HistoryRequest("l-1", 4, 9)


@pytest.mark.parametrize(
    ("payload", "reason", "ref"),
    [
        (b"{", "not JSON", None),
        (b"[]", "not a JSON object", None),
        (b'{"from":1,"to":2}', "id must be text", None),
        (b'{"id":"a","from":0,"to":2}', "1 <= from <= to", "a"),
        (b'{"id":"a","from":5,"to":4}', "1 <= from <= to", "a"),
        (b'{"id":"a","from":1,"to":"9"}', "whole numbers", "a"),
        (b'{"id":"a","from":1,"to":201}', f"at most {MAX_HISTORY}", "a"),
        (b'{"id":"a","from":1,"to":2,"all":true}', "unknown keys: all", "a"),
    ],
)
def test_a_bad_request_is_refused_naming_why(payload: bytes, reason: str, ref: str | None) -> None:
    with pytest.raises(HistoryRequestError, match=reason) as err:
        read_request(payload)
    assert err.value.ref == ref


def test_an_answer_carries_each_message_as_the_bytes_it_was_published_with() -> None:
    """Asked 3-7 of a table whose last message is 6: 3 and 5 held, 4 pruned, 7 not yet made."""
    rows = [
        OutboxRow(
            3, f"{BASE}/event", b'{"table":"bac-1","seq":3,"x":1.50,"y":"\xc3\xa9"}', 1, False
        ),
        OutboxRow(5, f"{BASE}/state", b'{"table":"bac-1","seq":5}', 1, True),
    ]
    req = HistoryRequest("l-7", 3, 7)
    out = answer_payload("bac-1", "2026-11-29T10:00:00.000000Z", BASE, req, rows, 6, 5)
    assert rows[0].payload in out and rows[1].payload in out  # spliced in, byte for byte
    answer = schemas.validate(f"{BASE}/history", out)
    assert answer["id"] == "l-7" and answer["ok"] is True
    assert [(m["seq"], m["topic"], m["retain"]) for m in answer["messages"]] == [
        (3, "event", False),
        (5, "state", True),
    ]
    assert (answer["pruned"], answer["held_from"], answer["highest"]) == ([[4, 4], [6, 6]], 5, 6)


def test_a_refusal_says_why() -> None:
    out = schemas.validate(
        f"{BASE}/history",
        refusal_payload("bac-1", "2026-11-29T10:00:00.000000Z", "l-1", "too many"),
    )
    assert (out["ok"], out["id"], out["reason"]) == (False, "l-1", "too many")
