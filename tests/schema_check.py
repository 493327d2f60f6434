"""Every payload the tests make tablectl publish is checked against its schema (issue 14 item 1:
"Schemas validate every payload the integration tests publish"; schemas/, tablectl/schemas.py).

A pytest plugin (tests/conftest.py `pytest_plugins`), so it runs under every test of `tests/`
and `hil/`. It wraps, without changing them, the places where payloads are made:

- `Table._number`: every outbox row (state, event, round/result, alert, replies, displays,
  device status, journal heads), in unit tests and in daemons run in-process;
- `Daemon._notice`: what a daemon publishes from memory (info, journal/status, the journal
  alerts, replies refused while the journal cannot be written);
- `DelayedFeed.due`: the delayed broadcast feed;
- the subscribers that watch a real broker (`tests.integration.harness.Console`, the floors of
  `hil.runner` and `hil.campaign`): what daemons in child processes publish, as received,
  `status` included; the commands the tests send themselves on `cmd/<verb>` are not the
  table's and are skipped there;
- `Daemon.on_command`: a command the table takes as an input (not `input.invalid`) must be one
  its `cmd/<verb>` schema accepts too (the schema never refuses what the table takes).

What a stand-in engine a test defines itself (not under `tablectl.games`) renders is not a
tablectl payload and is skipped (the table's own messages around it are checked). Problems are
collected where they happen (a daemon's thread, paho's) and fail the test at its teardown,
naming the topic, the schema and the JSON path. The validators are compiled once
(tablectl.schemas, jsonschema-rs): about 30 µs a message, some 10 s over the whole suite.
"""

from __future__ import annotations

import functools
import importlib
import json
import threading
import typing
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tablectl import schemas

PROBLEMS: list[str] = []
"""Every refusal so far, in order (appended from any thread; read at each test's teardown)."""

_installed = False
_lock = threading.Lock()
_MAX_REPORTED = 5
SUBSCRIBERS = (
    ("tests.integration.harness", "Console"),
    ("hil.runner", "Floor"),
    ("hil.campaign", "Floor"),
)
"""The test subscribers on a table's `<base>/#` whose messages are checked as received."""


def check(topic: str, payload: bytes, where: str) -> None:
    """Validate one payload; a refusal is recorded, never raised into the code that made it."""
    try:
        schemas.validate(topic, payload)
    except schemas.PayloadError as exc:
        shown = payload[:300].decode("utf-8", "replace")
        PROBLEMS.append(f"{exc} [{where}; payload {shown}]")


def _is_command(topic: str) -> bool:
    try:
        return schemas.topic_kind(topic) == "cmd/<verb>"
    except KeyError:
        return False


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` deep (iterative: a depth bomb must not
    blow the stack here either)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            child
            for item in level
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
    return False


def check_command(verb: str, payload: bytes) -> None:
    """A command the table takes as its event must be one the verb's schema accepts."""
    from tablectl.commands import COMMAND_VERBS
    from tablectl.daemon.commands import MAX_COMMAND_BYTES, MAX_COMMAND_DEPTH, id_problem
    from tablectl_base.events import EventError, parse_event

    if verb not in COMMAND_VERBS or len(payload) > MAX_COMMAND_BYTES:
        return
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return
    if not isinstance(data, dict) or _deeper_than(data, MAX_COMMAND_DEPTH):
        return
    body = dict(data)
    if id_problem(body.pop("id", None)) is not None:
        return
    if body.setdefault("type", COMMAND_VERBS[verb]) != COMMAND_VERBS[verb]:
        return
    try:
        parse_event(body)
    except EventError:
        return  # the table refuses it too
    check(f"cmd/{verb}", payload, "a command the table takes")


GAME_RECORDS: tuple[type, ...] = ()
"""What an engine makes (tablectl.game_records.GameRecord's types), set by `install`: from a
stand-in engine a test defines itself these are not tablectl's payloads; the table's own
messages (alerts, replies, device status, journal heads) around it still are."""


def _wrap_number(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def _number(self: Any, message: Any, rec: Any) -> Any:
        row = original(self, message, rec)
        if type(self.engine).__module__.startswith("tablectl.games") or not isinstance(
            message, GAME_RECORDS
        ):
            check(row.topic, row.payload, "Table._number")
        return row

    return _number


def _wrap_notice(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def _notice(self: Any, suffix: str, fields: dict[str, Any], *, retain: bool = False) -> None:
        original(self, suffix, fields, retain=retain)
        if self.relay is not None:
            from tablectl.daemon.mqtt_link import notice_payload

            check(suffix, notice_payload(self.cfg.table.table, fields), "Daemon._notice")

    return _notice


def _wrap_due(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def due(self: Any, now: Any) -> Any:
        items = original(self, now)
        for item in items:
            check(item.topic, item.payload, "DelayedFeed.due")
        return items

    return due


def _wrap_on_command(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    async def on_command(self: Any, verb: str, payload: bytes, retained: bool = False) -> None:
        check_command(verb, payload)
        await original(self, verb, payload, retained)

    return on_command


def _wrap_on_message(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def _on_message(self: Any, client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic.startswith("tablectl/") and not _is_command(msg.topic):
            check(msg.topic, bytes(msg.payload), f"received by {type(self).__name__}")
        original(self, client, userdata, msg)

    return _on_message


def install() -> None:
    """Wrap the payload makers and the test subscribers (once; they stay wrapped)."""
    global _installed
    with _lock:
        if _installed:
            return
        global GAME_RECORDS
        from tablectl.broadcast import DelayedFeed
        from tablectl.daemon import Daemon
        from tablectl.game_records import GameRecord
        from tablectl.relay import STATUS_OFFLINE, STATUS_ONLINE
        from tablectl.table import Table

        GAME_RECORDS = typing.get_args(GameRecord)

        targets: list[tuple[type, str, Callable[[Callable[..., Any]], Callable[..., Any]]]] = [
            (Table, "_number", _wrap_number),
            (Daemon, "_notice", _wrap_notice),
            (Daemon, "on_command", _wrap_on_command),
            (DelayedFeed, "due", _wrap_due),
        ]
        for module, name in SUBSCRIBERS:
            targets.append(
                (getattr(importlib.import_module(module), name), "_on_message", _wrap_on_message)
            )
        for cls, attr, wrap in targets:
            if not callable(getattr(cls, attr, None)):  # renamed: say so, never check nothing
                raise RuntimeError(f"tests/schema_check.py: {cls.__qualname__}.{attr} is gone")
            setattr(cls, attr, wrap(getattr(cls, attr)))
        for word in (STATUS_ONLINE, STATUS_OFFLINE):  # the relay publishes these constants
            check("status", word, "tablectl.relay")
        _installed = True


@pytest.fixture(autouse=True)
def payloads_match_their_schemas() -> Iterator[None]:
    """Fails a test at teardown if a payload it made tablectl publish breaks its schema."""
    install()
    start = len(PROBLEMS)
    yield
    found = PROBLEMS[start:]
    if found:
        shown = "\n".join(f"- {p}" for p in found[:_MAX_REPORTED])
        more = f"\n(and {len(found) - _MAX_REPORTED} more)" if len(found) > _MAX_REPORTED else ""
        pytest.fail(
            f"{len(found)} payload(s) do not match their schema (schemas/, docs/mqtt.md "
            f"'Schemas'):\n{shown}{more}",
            pytrace=False,
        )
