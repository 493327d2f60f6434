"""Whatever arrives on `cmd/<verb>` is journaled and answered, never a traceback (issue 9,
item 7): `Daemon.on_command` driven directly, with a real SQLite journal and MQTT off.

Each command must add exactly one journal record: its event, or `input.invalid` with a reason;
every refused one is answered on `cmd/<verb>/reply` with `ok: false`, stored in the outbox.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablectl.commands import COMMAND_VERBS
from tablectl.config import load_config
from tablectl.daemon import Daemon
from tablectl.daemon.commands import (
    MAX_COMMAND_BYTES,
    MAX_COMMAND_DEPTH,
    MAX_REF_CHARS,
    RAW_KEPT_BYTES,
)
from tablectl.outputs import OutboxRow
from tablectl.records import Record
from tablectl_base.events import EventError, parse_event
from tests.helpers import BASE, write_config

VERBS = sorted(COMMAND_VERBS)


class Console:
    """A running daemon (journal, table; no MQTT, no devices) and one command at a time."""

    def __init__(self, daemon: Daemon, loop: asyncio.AbstractEventLoop) -> None:
        self.daemon = daemon
        self.loop = loop
        self.seen: list[tuple[Record, list[OutboxRow]]] = []
        daemon.listeners.append(lambda rec, rows: self.seen.append((rec, rows)))

    def send(
        self, verb: str, payload: bytes, *, retained: bool = False
    ) -> tuple[Record, list[OutboxRow]]:
        """Run on_command (for a message that came with the retain flag or not); return the one
        record it journaled and the rows stored for it."""
        journal = self.daemon.journal
        before = journal.last_seq
        self.seen.clear()
        command = self.daemon.on_command(verb, payload, retained)
        self.loop.run_until_complete(asyncio.wait_for(command, 10))
        assert not self.daemon.failed, "a daemon task died"
        assert journal.last_seq == before + 1, "not exactly one journal record"
        ((rec, rows),) = self.seen
        stored = {r.seq for r in journal.outbox()}
        assert {r.seq for r in rows} <= stored, "the outputs are not in the outbox"
        return rec, rows


@contextmanager
def console(tmp: Path) -> Iterator[Console]:
    daemon = Daemon(load_config(write_config(tmp)), mqtt=False)
    loop = asyncio.new_event_loop()
    runner = loop.create_task(daemon.run(install_signals=False))
    loop.run_until_complete(asyncio.sleep(0.01))  # recovered, rules journaled, consumer up
    try:
        yield Console(daemon, loop)
    finally:
        daemon.stop()
        loop.run_until_complete(runner)
        loop.close()


@pytest.fixture
def cons(tmp_path: Path) -> Iterator[Console]:
    with console(tmp_path) as c:
        yield c


def reply(rows: list[OutboxRow], verb: str) -> dict[str, Any]:
    (row,) = [r for r in rows if r.topic == f"{BASE}/cmd/{verb}/reply"]
    payload: dict[str, Any] = json.loads(row.payload)
    return payload


def refused(c: Console, verb: str, payload: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """Send; assert it was journaled as input.invalid and answered ok false; body and reply."""
    rec, rows = c.send(verb, payload)
    assert rec.body["type"] == "input.invalid"
    assert rec.body["reason"].strip()
    answer = reply(rows, verb)
    assert answer["ok"] is False and answer["reason"].strip()
    return rec.body, answer


# -- the retain flag (R54) -----------------------------------------------------------------------


def test_a_command_with_the_retain_flag_is_journaled_refused_whatever_it_says(
    cons: Console,
) -> None:
    """A valid bank, an oversize payload and one that is not UTF-8, each with the retain flag:
    each journaled as `input.invalid` marked retained with its first bytes, its id when one can
    be read, and the reason naming the topic to clear; answered ok false, rule R54."""
    topic = f"{BASE}/cmd/bank"
    reason = (
        f"{topic} came retained: a retained command is delivered again on every subscribe, so "
        f"it is never applied; clear it at the broker (mosquitto_pub -r -n -t {topic})"
    )
    big = b'{"id":"b2","seat":1,"amount":"5","x":"' + b"y" * 5000 + b'"}'
    cases = [
        (b'{"id":"b1","seat":1,"amount":"500"}', "b1", '{"id":"b1","seat":1,"amount":"500"}'),
        (big, None, big[:RAW_KEPT_BYTES].decode()),
        (b'{"id":"b3","seat":\xff}', None, '{"id":"b3","seat":\ufffd}'),
    ]
    for payload, ref, raw in cases:
        rec, rows = cons.send("bank", payload, retained=True)
        assert (rec.source, rec.ref) == ("cmd/bank", ref)
        assert rec.body == {"type": "input.invalid", "raw": raw, "reason": reason, "retained": True}
        answer = reply(rows, "bank")
        assert answer == {**answer, "id": ref, "ok": False, "reason": reason, "rule": "R54"}
    assert cons.daemon.table.state_payload()["player_dealer"] is None


def test_an_empty_message_with_the_retain_flag_is_no_command_but_an_empty_payload(
    cons: Console,
) -> None:
    """What clearing a retained command delivers (MQTT 5 keeps the flag on it): refused as not
    JSON, like any empty payload, and not as a retained command."""
    rec, rows = cons.send("bank", b"", retained=True)
    assert rec.body == {
        "type": "input.invalid",
        "raw": "",
        "reason": "payload is not JSON: Expecting value at line 1 column 1",
    }
    answer = reply(rows, "bank")
    assert answer == {**answer, "id": None, "ok": False} and "rule" not in answer


# -- size, encoding, JSON ----------------------------------------------------------------------


def test_an_oversize_payload_is_refused_unread_and_only_its_head_journaled(cons: Console) -> None:
    payload = b'{"type":"wager","seat":1,"spot":"tie","amount":"5","player":"' + b"x" * 10_000
    body, answer = refused(cons, "wager", payload + b'"}')
    assert body["reason"] == f"payload is {len(payload) + 2} bytes; a command is at most 4096"
    assert len(body["raw"].encode()) <= RAW_KEPT_BYTES
    assert answer["id"] is None


def test_a_payload_of_exactly_the_limit_is_read(cons: Console) -> None:
    head = b'{"id":"a1","type":"bets.close","ts":"'
    payload = head + b"x" * (MAX_COMMAND_BYTES - len(head) - 2) + b'"}'
    assert len(payload) == MAX_COMMAND_BYTES
    body, answer = refused(cons, "bets.close", payload)
    assert "ts: String should have at most 64 characters" in body["reason"]
    assert answer["id"] == "a1"  # read, so its id came back


def test_a_5000_digit_integer_is_refused_and_answered_not_a_traceback(cons: Console) -> None:
    body, answer = refused(cons, "bank", b'{"seat":' + b"9" * 5000 + b',"amount":"5"}')
    assert "a command is at most 4096" in body["reason"]
    assert answer["id"] is None


def test_an_integer_json_cannot_convert_is_refused_as_not_json(cons: Console) -> None:
    """Under the size limit too: with the conversion limit at its minimum (640 digits)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        body, _ = refused(cons, "bank", b'{"id":"b1","seat":' + b"9" * 700 + b',"amount":"5"}')
    finally:
        sys.set_int_max_str_digits(old)
    assert body["reason"] == "payload is not JSON: a number has more than 640 digits"


def test_invalid_utf8_is_refused_with_the_byte_it_failed_at(cons: Console) -> None:
    body, _ = refused(cons, "wager", b'{"seat":1,"spot":"\xff"}')
    assert body["reason"] == "payload is not UTF-8 text: invalid start byte at byte 18"


@pytest.mark.parametrize("payload", [b"", b"{", b"{not json", b"\x00", b"NaN]"])
def test_text_that_is_not_json_is_refused_as_not_json(cons: Console, payload: bytes) -> None:
    body, _ = refused(cons, "wager", payload)
    assert body["reason"].startswith("payload is not JSON: ")


@pytest.mark.parametrize("depth", [MAX_COMMAND_DEPTH + 1, 500, 2000])
def test_a_depth_bomb_is_refused_as_nested_too_deeply(cons: Console, depth: int) -> None:
    body, _ = refused(cons, "wager", b"[" * depth + b"]" * depth)
    assert body["reason"] in (
        f"payload is nested deeper than {MAX_COMMAND_DEPTH} levels",
        "payload is not JSON: nested too deeply",
    )


def test_a_depth_bomb_inside_an_object_is_refused_before_its_id_is_read(cons: Console) -> None:
    inner = b"[" * 900 + b"]" * 900
    body, answer = refused(cons, "wager", b'{"id":"d1","type":"wager","x":' + inner + b"}")
    assert body["reason"] == f"payload is nested deeper than {MAX_COMMAND_DEPTH} levels"
    assert answer["id"] is None  # refused before its id was read


def test_a_lone_surrogate_escape_is_refused_not_a_dead_journal(cons: Console) -> None:
    """JSON's "\\ud800" decodes to a str no UTF-8 journal can hold: it used to kill the
    journal task, and the daemon with it."""
    for payload in (
        b'{"seat":1,"spot":"\\ud800","amount":"5"}',
        b'{"id":"\\udfff","seat":1,"spot":"tie","amount":"5"}',
        b'{"\\ud800":1}',
    ):
        body, _ = refused(cons, "wager", payload)
        assert "not Unicode" in body["reason"]
    _, rows = cons.send("bank", b'{"id":"after","seat":3,"amount":"500"}')
    answer = reply(rows, "bank")
    assert answer == {
        "table": "t1",
        "seq": rows[-1].seq,
        "ts": answer["ts"],  # the journal's time of the command's record
        "v": 1,
        "id": "after",
        "ok": True,
    }


def test_an_overlong_id_is_refused_and_the_reply_id_is_null(cons: Console) -> None:
    payload = json.dumps({"id": "i" * (MAX_REF_CHARS + 1), "seat": 3, "amount": "500"})
    body, answer = refused(cons, "bank", payload.encode())
    assert body["reason"] == f"id is {MAX_REF_CHARS + 1} characters; at most {MAX_REF_CHARS}"
    assert answer["id"] is None


def test_a_null_id_is_the_same_as_no_id(cons: Console) -> None:
    """The command schemas allow `"id": null`; the table takes the command, the reply's id null."""
    rec, rows = cons.send("bank", b'{"id":null,"seat":3,"amount":"500"}')
    assert rec.body == {"type": "bank", "seat": 3, "amount": "500.00"}
    assert reply(rows, "bank") | {"seq": 0, "ts": ""} == {
        "table": "t1",
        "seq": 0,
        "ts": "",
        "v": 1,
        "id": None,
        "ok": True,
    }


@pytest.mark.parametrize(
    ("raw_id", "kind"),
    [
        ("[1]", "an array"),
        ('{"a":1}', "an object"),
        ("true", "true or false"),
        ("1.5", "the number 1.5"),
    ],
)
def test_an_id_that_is_not_text_or_a_whole_number_is_refused(
    cons: Console, raw_id: str, kind: str
) -> None:
    """Only what the schemas allow is taken: text, an integer, or null."""
    body, answer = refused(cons, "bank", f'{{"id":{raw_id},"seat":3,"amount":"500"}}'.encode())
    assert body["reason"] == f"id must be text or a whole number, not {kind}"
    assert answer["id"] is None


# -- shape: not an object, unknown verb, wrong type, strict fields --------------------------------


@pytest.mark.parametrize("payload", [b"[]", b"null", b'"bank"', b"17", b"true"])
def test_a_payload_that_is_not_an_object_is_refused(cons: Console, payload: bytes) -> None:
    body, _ = refused(cons, "bank", payload)
    assert body["reason"] == "payload must be a JSON object"


def test_an_unknown_verb_is_refused_and_answered_on_its_own_reply_topic(cons: Console) -> None:
    body, answer = refused(cons, "shoe.shuffle", b'{"id":"u1","card":"As"}')
    assert body["reason"].startswith("unknown command 'shoe.shuffle'; known: ")
    assert answer["id"] == "u1"


@pytest.mark.parametrize("verb", ["", "a+b", "#", "a\x00b", "x" * 65, "\ud800"])
def test_a_topic_level_no_reply_can_use_is_journaled_under_cmd_without_reply(
    cons: Console, verb: str
) -> None:
    rec, rows = cons.send(verb, b'{"seat":1}')
    assert rec.source == "cmd"
    assert rec.body["type"] == "input.invalid" and rec.body["reason"].strip()
    assert not [r for r in rows if "/cmd/" in r.topic]
    assert [json.loads(r.payload)["kind"] for r in rows if r.topic.endswith("/alert")] == [
        "invalid-input"
    ]


def test_a_command_carrying_another_verbs_type_is_refused(cons: Console) -> None:
    body, _ = refused(cons, "bank", b'{"type":"wager","seat":1,"spot":"tie","amount":"5"}')
    assert body["reason"] == "cmd/bank carries type 'wager'"


@pytest.mark.parametrize("seat", ['"3"', '"3 "', "3.0", "true"])
def test_a_seat_that_is_not_a_json_integer_is_refused(cons: Console, seat: str) -> None:
    body, _ = refused(cons, "bank", f'{{"seat":{seat},"amount":"500"}}'.encode())
    assert body["reason"] == "seat: Input should be a valid integer"


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"type": "decision", "seat": 1, "action": "hit", "hand": "1"}, "hand"),
        ({"type": "decision", "seat": 1, "action": "play", "multiple": 3.0}, "multiple"),
        ({"type": "decision", "seat": 1, "action": "play", "multiple": True}, "multiple"),
        ({"type": "dice.roll", "dice": [1, "2", 3]}, "dice.1"),
        ({"type": "dice.roll", "dice": [1, 2.0, 3]}, "dice.1"),
        ({"type": "wager", "seat": True, "spot": "tie", "amount": "5"}, "seat"),
        ({"type": "shoe.new", "at": {"pos": "3"}}, "at.pos"),
        ({"type": "shoe.card", "card": "As", "at": {"pos": 1, "seq": 2.0}}, "at.seq"),
    ],
)
def test_integer_fields_of_an_event_are_json_integers_only(
    event: dict[str, Any], field: str
) -> None:
    with pytest.raises(EventError, match=rf"^{field}: Input should be a valid integer"):
        parse_event(event)


@pytest.mark.parametrize("field", ["spot", "player", "action", "deck", "ts"])
def test_a_name_longer_than_64_characters_is_refused_with_its_limit(field: str) -> None:
    events = {
        "spot": {"type": "wager", "seat": 1, "spot": "s" * 65, "amount": "5"},
        "player": {"type": "wager", "seat": 1, "spot": "tie", "amount": "5", "player": "p" * 65},
        "action": {"type": "decision", "seat": 1, "action": "a" * 65},
        "deck": {"type": "shuffler.stack", "cards": ["As"], "deck": "d" * 65},
        "ts": {"type": "bets.close", "ts": "t" * 65},
    }
    with pytest.raises(EventError, match=rf"^{field}: String should have at most 64 characters"):
        parse_event(events[field])


def test_a_valid_command_is_journaled_as_its_event_and_answered_ok(cons: Console) -> None:
    rec, rows = cons.send("bank", b'{"id":17,"seat":3,"amount":"500"}')
    assert rec.body == {"type": "bank", "seat": 3, "amount": "500.00"}
    assert reply(rows, "bank")["id"] == "17" and reply(rows, "bank")["ok"] is True


# -- fuzz ------------------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["5", "12.50", "1,5", "As", "tie", "player", "stand", "\ud800"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "type", "seat", "spot", "amount", "player", "action", "x"])
            | st.text(max_size=8),
            children,
            max_size=6,
        )
    ),
    max_leaves=20,
)
COMMANDS = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.text(max_size=10), st.integers(), st.none()),
        "type": st.sampled_from([*COMMAND_VERBS.values(), "shoe.shuffle", "x"]),
        "seat": st.one_of(st.integers(-2, 10), st.sampled_from(["3", "3 ", 3.0, True])),
        "spot": st.sampled_from(["player", "banker", "tie", "panda8", "", "x" * 70]),
        "amount": st.one_of(st.text(max_size=8), st.integers(), st.sampled_from(["5", "25"])),
        "action": st.text(max_size=8),
    },
)


def payload_bytes() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=300),
        JSON.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")),
        JSON.map(lambda v: json.dumps(v).encode()),
        COMMANDS.map(lambda v: json.dumps(v).encode()),
        st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
        st.integers(MAX_COMMAND_BYTES - 3, MAX_COMMAND_BYTES + 3).map(lambda n: b"{" * n),
    )


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def test_any_payload_is_one_journal_record_and_a_refusal_is_answered(tmp_path: Path) -> None:
    with console(tmp_path) as c:

        @FUZZ
        @given(st.sampled_from([*VERBS, "nope"]), payload_bytes())
        def check(verb: str, payload: bytes) -> None:
            rec, rows = c.send(verb, payload)
            assert rec.source == f"cmd/{verb}"
            if rec.body["type"] == "input.invalid":
                assert rec.body["reason"].strip()
                assert len(rec.body["raw"].encode()) <= MAX_COMMAND_BYTES * 4
            answer = reply(rows, verb)
            if answer["ok"] is False:
                assert answer["reason"].strip()

        check()


def test_any_topic_level_is_journaled_and_never_raises(tmp_path: Path) -> None:
    with console(tmp_path) as c:

        @FUZZ
        @given(st.text(max_size=80), st.binary(max_size=64))
        def check(verb: str, payload: bytes) -> None:
            rec, rows = c.send(verb, payload)
            if rec.source == "cmd":
                assert rec.body["type"] == "input.invalid" and rec.body["reason"].strip()
            else:
                assert rec.source == f"cmd/{verb}"
                assert reply(rows, verb)["ok"] in (True, False)

        check()


def test_a_payload_nested_exactly_to_the_limit_is_read(cons: Console) -> None:
    nested = "[" * (MAX_COMMAND_DEPTH - 1) + "]" * (MAX_COMMAND_DEPTH - 1)
    body, _ = refused(cons, "wager", f'{{"x":{nested}}}'.encode())
    assert "nested" not in body["reason"]
