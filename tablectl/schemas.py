"""The machine-readable contract of every MQTT payload: a JSON Schema (draft
2020-12) per payload kind in `schemas/`, and `schemas/asyncapi.yaml` naming every topic with its
retain flag, QoS and schema (docs/mqtt.md "Schemas").

`schema_for(topic)` gives the schema of a topic (a full `tablectl/<site>/<table>/...` topic or
the part below the base: `state`, `device/shoe/status`, `cmd/wager/reply`, `cmd/wager`);
`validate(topic, payload)` checks a payload's bytes against it and raises `PayloadError`
naming the topic, the schema file and the JSON path of what is wrong. The validators are built
once per schema and kept: validating uses jsonschema-rs, a compiled validator about 80 times
faster than the pure-Python `jsonschema` on these schemas, so that the test suite can check every
payload it makes (tests/schema_check.py); the tests check the schemas themselves against the
draft 2020-12 meta-schema with `jsonschema` (tests/test_schemas.py).

The schemas ship with the package (pyproject.toml data-files: share/tablectl/schemas), found in
the source checkout first, as the pay tables are. Validating needs `jsonschema-rs` (a development
dependency, docs/dependencies.md; the daemon never imports this module).
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema_rs

SCHEMA_FILES = (
    "common.json",
    "status.json",
    "info.json",
    "state.json",
    "event.json",
    "round-result.json",
    "alert.json",
    "display-eztrak.json",
    "journal-head.json",
    "journal-anchor.json",
    "journal-status.json",
    "device-status.json",
    "cmd-reply.json",
    "broadcast-event.json",
    "broadcast-round-result.json",
    "surveillance-odds.json",
    "surveillance-alert.json",
    "cmd.json",
    "alerts-open.json",
    "history.json",
    "history-request.json",
)
"""Every schema file; `common.json` holds the definitions the others share."""

TOPICS: dict[str, str] = {
    "status": "status.json",
    "info": "info.json",
    "state": "state.json",
    "event": "event.json",
    "round/result": "round-result.json",
    "alert": "alert.json",
    "alerts/open": "alerts-open.json",
    "display/eztrak": "display-eztrak.json",
    "journal/head": "journal-head.json",
    "journal/start": "journal-anchor.json",
    "journal/segment": "journal-anchor.json",
    "journal/status": "journal-status.json",
    "device/<name>/status": "device-status.json",
    "cmd/<verb>/reply": "cmd-reply.json",
    "broadcast/event": "broadcast-event.json",
    "broadcast/round/result": "broadcast-round-result.json",
    "surveillance/odds": "surveillance-odds.json",
    "surveillance/alert": "surveillance-alert.json",
    "cmd/<verb>": "cmd.json",
    "history": "history.json",
    "cmd/history": "history-request.json",
}
"""Each topic below a table's base (docs/mqtt.md "Topics") -> its schema file. `cmd/<verb>` is
the inbound command; its schema is `cmd.json#/$defs/<verb>`."""

NOT_JSON = frozenset({"status"})
"""Topics whose payload is text, not JSON: `status` is the bare word online/offline."""

_BASE = re.compile(r"^tablectl/[^/]+/[^/]+/")
_DEVICE_STATUS = re.compile(r"^device/[^/]+/status$")
_REPLY = re.compile(r"^cmd/[^/]+/reply$")
_COMMAND = re.compile(r"^cmd/([^/]+)$")
_MAX_SHOWN = 200  # characters of a value or message quoted in an error
BASE_URI = "https://tablectl.invalid/schemas/"
"""Where the schema files are registered for `$ref` (never fetched: `.invalid` is no host). The
files carry no `$id`, so their relative `$ref`s also resolve file by file in other tools."""


class PayloadError(ValueError):
    """A payload its topic's schema refuses (or one with no schema, or not JSON)."""

    def __init__(self, topic: str, schema: str, path: str, message: str) -> None:
        self.topic = topic
        self.schema = schema
        self.path = path
        self.message = message
        super().__init__(f"{topic}: {schema} refuses the payload at {path}: {message}")


def schema_dir() -> Path:
    """The schemas: `schemas/` of the source checkout, else where installing put them."""
    source = Path(__file__).resolve().parent.parent / "schemas"
    if source.is_dir():
        return source
    return Path(sys.prefix) / "share" / "tablectl" / "schemas"


def topic_kind(topic: str) -> str:
    """The key of `TOPICS` for a topic: `tablectl/room/t1/device/shoe/status` and
    `device/shoe/status` are both `device/<name>/status`. KeyError for a topic tablectl does
    not use."""
    suffix = _BASE.sub("", topic, count=1)
    if suffix in TOPICS:
        return suffix
    if _DEVICE_STATUS.match(suffix):
        return "device/<name>/status"
    if _REPLY.match(suffix):
        return "cmd/<verb>/reply"
    if _COMMAND.match(suffix):
        return "cmd/<verb>"
    raise KeyError(f"{topic}: not a tablectl topic (docs/mqtt.md lists them)")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """One schema file, parsed (kept: the same dict on every call; do not change it)."""
    if name not in SCHEMA_FILES:
        raise KeyError(f"no schema file {name!r}; known: {', '.join(SCHEMA_FILES)}")
    data: dict[str, Any] = json.loads((schema_dir() / name).read_text(encoding="utf-8"))
    return data


@functools.cache
def registry() -> jsonschema_rs.Registry:
    """Every schema file under BASE_URI + its name, so that `common.json#/$defs/card` resolves."""
    return jsonschema_rs.Registry([(BASE_URI + name, load(name)) for name in SCHEMA_FILES])


def schema_ref(topic: str) -> tuple[str, str]:
    """(the schema's name for messages, the `$ref` a validator of `topic` starts from: the file,
    or for a command `cmd.json#/$defs/<verb>`)."""
    kind = topic_kind(topic)
    name = TOPICS[kind]
    if kind == "cmd/<verb>":
        verb = _COMMAND.match(_BASE.sub("", topic, count=1))
        assert verb is not None
        if verb[1] not in load("cmd.json")["$defs"]:
            raise KeyError(f"{topic}: no command {verb[1]!r} (docs/mqtt.md lists the verbs)")
        return f"{name}#/$defs/{verb[1]}", f"{name}#/$defs/{verb[1]}"
    return name, name


def schema_for(topic: str) -> dict[str, Any]:
    """The JSON Schema of `topic`'s payload (a command's: its verb's definition in cmd.json).
    Its `$ref`s name the other files (`common.json#/$defs/...`): validate with `validator_for`,
    or resolve them from `schema_dir()`."""
    label, _ = schema_ref(topic)
    name, _, pointer = label.partition("#")
    schema = load(name)
    for part in filter(None, pointer.split("/")):
        schema = schema[part]
    return schema


@functools.cache
def _validator(start: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(
        {"$ref": start}, registry=registry(), base_uri=BASE_URI + "start.json"
    )


def validator_for(topic: str) -> jsonschema_rs.Draft202012Validator:
    """A validator for `topic`'s payloads (jsonschema-rs), built once per schema."""
    return _validator(schema_ref(topic)[1])


def decode(topic: str, payload: bytes) -> Any:
    """A payload as its schema reads it: JSON, or for `status` the ASCII text."""
    kind = topic_kind(topic)
    try:
        if kind in NOT_JSON:
            return payload.decode("ascii")
        return json.loads(payload)
    except (UnicodeDecodeError, ValueError) as exc:
        what = "ASCII text" if kind in NOT_JSON else "JSON"
        raise PayloadError(topic, f"schemas/{TOPICS[kind]}", "$", f"not {what}: {exc}") from None


def validate(topic: str, payload: bytes) -> Any:
    """Check `payload` (the bytes as published) against `topic`'s schema; returns it decoded.
    Raises PayloadError naming the topic, the schema and the JSON path of the first problem
    (the most relevant one when several branches refuse it)."""
    try:
        label, start = schema_ref(topic)
    except KeyError as exc:
        raise PayloadError(topic, "-", "$", str(exc.args[0])) from None
    instance = decode(topic, payload)
    validator = _validator(start)
    if validator.is_valid(instance):
        return instance
    error = _deepest(validator.iter_errors(instance))
    raise PayloadError(topic, f"schemas/{label}", json_path(error.instance_path), _message(error))


def _deepest(errors: Iterable[jsonschema_rs.ValidationError]) -> jsonschema_rs.ValidationError:
    """The most telling problem: the deepest one, looking into the branches of an `anyOf` or
    `oneOf` (a nullable field's object branch names the key that is wrong; the first branch
    wins a tie, and the schemas list the object before the null)."""
    best: jsonschema_rs.ValidationError | None = None
    for error in errors:
        candidate = error
        context = getattr(error.kind, "context", None)
        if context:
            inner = _deepest(sub for branch in context for sub in branch)
            if len(inner.instance_path) > len(error.instance_path):
                candidate = inner
        if best is None or len(candidate.instance_path) > len(best.instance_path):
            best = candidate
    assert best is not None, "an invalid instance has at least one error"
    return best


def json_path(parts: list[str | int]) -> str:
    """`$.wagers[0].amount` for ["wagers", 0, "amount"]."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _message(error: jsonschema_rs.ValidationError) -> str:
    """The validator's message, shortened (it quotes the whole value), with the keyword."""
    text = error.message
    if len(text) > _MAX_SHOWN:
        text = text[:_MAX_SHOWN] + "..."
    keyword = "/".join(str(p) for p in error.schema_path)
    return f"{text} (schema keyword {keyword})"
