"""What the ledger reads of a table's message (tablectl/ledger/messages.py, docs/mqtt.md)."""

from __future__ import annotations

import json

import pytest

from tablectl.ledger.messages import NotLedgerMessage, read_message

BASE = "tablectl/room-1/bac-1"


def payload(**fields: object) -> bytes:
    envelope = {"table": "bac-1", "seq": 7, "ts": "2026-11-29T10:00:00.000000Z", "v": 1}
    return json.dumps({**envelope, **fields}).encode()


def test_a_round_result_is_kept_under_its_table_and_number() -> None:
    msg = read_message("tablectl", f"{BASE}/round/result", payload(round=3))
    assert msg is not None
    assert (msg.site, msg.table, msg.seq, msg.topic, msg.kept, msg.kind) == (
        "room-1", "bac-1", 7, "round/result", True, "round-result",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("below", "fields", "kept", "kind"),
    [
        ("event", {"type": "round.void"}, True, "event:round.void"),
        ("alert", {"kind": "held"}, True, "alert:held"),
        ("device/shoe/status", {"available": False}, True, "device-status"),
        ("state", {"phase": "betting"}, False, "state"),
        ("cmd/wager/reply", {"id": "c-1", "ok": True}, False, "cmd/wager/reply"),
    ],
)
def test_the_books_keep_results_inputs_alerts_and_devices(
    below: str, fields: dict[str, object], kept: bool, kind: str
) -> None:
    msg = read_message("tablectl", f"{BASE}/{below}", payload(**fields))
    assert msg is not None and (msg.kept, msg.kind) == (kept, kind)


def test_messages_without_a_number_are_not_counted() -> None:
    """`status` is a bare word and `journal/status` comes from memory without `seq`."""
    assert read_message("tablectl", f"{BASE}/status", b"online") is None
    body = json.dumps({"table": "bac-1", "ts": "2026-11-29T10:00:00Z", "writable": True})
    assert read_message("tablectl", f"{BASE}/journal/status", body.encode()) is None


@pytest.mark.parametrize(
    ("topic", "body", "reason"),
    [
        ("other/room-1/bac-1/event", payload(), "not below tablectl/"),
        (f"{BASE}/event", b"{not json", "not JSON"),
        (f"{BASE}/event", b"[1]", "not a JSON object"),
        ("tablectl/room-1/bac-2/event", payload(), "table is 'bac-1'"),
        (f"{BASE}/event", payload(seq=0), "seq is 0"),
        (f"{BASE}/event", payload(v=2), "payload version 2"),
        (f"{BASE}/event", payload(ts=None), "ts is None"),
    ],
)
def test_an_unreadable_message_is_refused_naming_why(topic: str, body: bytes, reason: str) -> None:
    with pytest.raises(NotLedgerMessage, match=reason):
        read_message("tablectl", topic, body)
