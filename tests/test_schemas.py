"""The MQTT contract's schemas (schemas/, tablectl/schemas.py): valid draft
2020-12 schemas whose references resolve, an AsyncAPI document that names every topic of
docs/mqtt.md with its retain flag, QoS and an existing schema, recorded traffic that matches,
and payloads that break the contract refused with the topic, the schema and the JSON path.
That every payload the suite makes tablectl publish matches is tests/schema_check.py's."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tablectl import schemas
from tablectl.commands import COMMAND_VERBS
from tests import schema_check

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
MQTT_DOC = REPO / "docs" / "mqtt.md"
SCENARIOS = sorted((REPO / "hil" / "scenarios").glob("*/expected.jsonl"))
BASE = "tablectl/room/t1"
TS = "2026-11-27T03:00:00.000000Z"


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _registry() -> Registry[Any]:
    """The schema files for the reference implementation (python-jsonschema)."""
    return Registry().with_resources(
        (name, Resource.from_contents(schemas.load(name), default_specification=DRAFT202012))
        for name in schemas.SCHEMA_FILES
    )


# -- the schemas themselves ----------------------------------------------------------------------


def test_every_schema_file_is_known_and_every_known_file_exists() -> None:
    on_disk = {p.name for p in SCHEMAS.glob("*.json")}
    assert on_disk == set(schemas.SCHEMA_FILES)
    assert set(schemas.TOPICS.values()) <= on_disk
    assert schemas.schema_dir() == SCHEMAS


@pytest.mark.parametrize("name", schemas.SCHEMA_FILES)
def test_each_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = schemas.load(name)
    Draft202012Validator.check_schema(schema)  # raises SchemaError naming what is wrong
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] and schema["description"]


@pytest.mark.parametrize("name", schemas.SCHEMA_FILES)
def test_every_reference_resolves(name: str) -> None:
    resolver = _registry().resolver(base_uri=name)
    for target in set(_refs(schemas.load(name))):
        assert resolver.lookup(target).contents is not None, f"{name}: {target}"


# -- the AsyncAPI document -----------------------------------------------------------------------


def _asyncapi() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((SCHEMAS / "asyncapi.yaml").read_text())
    return doc


def _doc_topics() -> dict[str, bool]:
    """docs/mqtt.md's topic table: each topic below the base (`<name>` as `{name}`) -> whether
    it is retained (the inbound commands are not published by the table: no)."""
    text = MQTT_DOC.read_text()
    table = text[text.index("## Topics") :]
    table = table[: table.index("\n\n", table.index("| topic |"))]
    topics: dict[str, bool] = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        for topic in re.findall(r"`([^`]+)`", cells[0]):
            topics[re.sub(r"<(\w+)>", r"{\1}", topic)] = cells[1] == "yes"
    return topics


def _channels_by_topic(doc: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    out = {}
    for key, channel in doc["channels"].items():
        address = channel["address"]
        assert address.startswith("tablectl/{site}/{table}/"), address
        out[address.removeprefix("tablectl/{site}/{table}/")] = (key, channel)
    return out


def _payload_ref(doc: dict[str, Any], message_ref: str) -> str:
    assert message_ref.startswith("#/components/messages/"), message_ref
    message = doc["components"]["messages"][message_ref.rsplit("/", 1)[1]]
    payload = message["payload"]
    assert payload["schemaFormat"] == "application/schema+json;version=draft-2020-12"
    ref: str = payload["schema"]["$ref"]
    return ref.removeprefix("./")


def test_the_asyncapi_document_names_every_topic_of_the_docs_with_its_flags() -> None:
    doc = _asyncapi()
    assert doc["asyncapi"] == "3.0.0"
    documented = _doc_topics()
    # the table as written: 19 published, 2 inbound (the commands, the ledger's cmd/history)
    assert len(documented) == 21, documented
    channels = _channels_by_topic(doc)
    assert set(channels) == set(documented)
    operations = {op["channel"]["$ref"].rsplit("/", 1)[1]: op for op in doc["operations"].values()}
    for topic, retained in documented.items():
        key, channel = channels[topic]
        op = operations[key]
        binding = op["bindings"]["mqtt"]
        assert binding["qos"] == 1, topic  # "Every message is published with QoS 1"
        if topic in ("cmd/{verb}", "cmd/history"):
            assert op["action"] == "receive"
            assert binding["retain"] is False
        else:
            assert op["action"] == "send", topic
            assert binding["retain"] is retained, topic
        kind = re.sub(r"\{(\w+)\}", r"<\1>", topic)
        for message in channel["messages"].values():
            file, _, pointer = _payload_ref(doc, message["$ref"]).partition("#")
            assert file == schemas.TOPICS[kind], topic
            target: Any = schemas.load(file)
            for part in filter(None, pointer.split("/")):
                target = target[part]  # the pointer exists
            assert isinstance(target, dict)


def test_every_command_verb_has_a_message_and_a_schema() -> None:
    doc = _asyncapi()
    _, channel = _channels_by_topic(doc)["cmd/{verb}"]
    refs = {_payload_ref(doc, m["$ref"]) for m in channel["messages"].values()}
    assert refs == {f"cmd.json#/$defs/{verb}" for verb in COMMAND_VERBS}
    assert set(channel["parameters"]["verb"]["enum"]) == set(COMMAND_VERBS)
    assert set(schemas.load("cmd.json")["$defs"]) == set(COMMAND_VERBS)


def test_schema_for_maps_every_topic_form() -> None:
    assert schemas.schema_for(f"{BASE}/state") is schemas.load("state.json")
    assert schemas.schema_for("device/shoe/status") is schemas.load("device-status.json")
    assert schemas.schema_for(f"{BASE}/cmd/wager/reply") is schemas.load("cmd-reply.json")
    assert schemas.schema_for("cmd/wager")["title"] == "cmd/wager"
    assert schemas.schema_for("broadcast/round/result")["$ref"] == "round-result.json"
    with pytest.raises(KeyError, match="not a tablectl topic"):
        schemas.schema_for(f"{BASE}/nothing/here")
    with pytest.raises(KeyError, match="no command 'fly'"):
        schemas.schema_for("cmd/fly")


# -- real traffic ----------------------------------------------------------------------------------


def _recorded() -> list[tuple[str, bytes, Any]]:
    """The scenarios' expected messages (hil/runner.py records them without `seq` and `ts`, and
    a device status by availability and fault only: no `v`), with what the recorder took out put
    back."""
    out = []
    for path in SCENARIOS:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            topic, payload = item["topic"], item["payload"]
            if not topic.startswith("tablectl/"):
                continue  # what an emulated device showed (the EZTRAK screen), not MQTT
            kind = schemas.topic_kind(topic)
            if isinstance(payload, dict):
                payload = (
                    {"seq": 1, **payload} if kind not in ("info", "journal/status") else payload
                )
                payload.setdefault("ts", "2026-11-27T03:00:00.000000Z")
                if kind == "device/<name>/status":
                    payload.setdefault("detail", {})
                    payload.setdefault("v", 1)
                if kind == "journal/head":
                    payload.setdefault("chain", {"seq": 1, "hash": "0" * 64, "key": None})
                raw = json.dumps(payload).encode()
            else:
                raw = str(payload).encode()
            out.append((topic, raw, payload))
    return out


def test_the_recorded_scenarios_match_their_schemas_in_both_implementations() -> None:
    recorded = _recorded()
    assert len(recorded) > 100
    assert {schemas.topic_kind(t) for t, _, _ in recorded} >= {
        "status",
        "state",
        "event",
        "round/result",
        "display/eztrak",
        "journal/head",
        "device/<name>/status",
        "cmd/<verb>/reply",
    }
    registry = _registry()
    for topic, raw, payload in recorded:
        schemas.validate(topic, raw)  # jsonschema-rs
        # ... and the reference implementation agrees, so no schema leans on one validator
        _, start = schemas.schema_ref(topic)
        reference = Draft202012Validator({"$ref": start}, registry=registry)
        assert not list(reference.iter_errors(payload)), topic


# -- what the schemas refuse -----------------------------------------------------------------

STATE: dict[str, Any] = {
    "table": "t1",
    "seq": 4,
    "ts": "2026-11-27T03:00:00.000000Z",
    "v": 1,
    "game": "ez-baccarat-panda8",
    "round": 1,
    "phase": "betting",
    "shoe": 1,
    "player_dealer": None,
    "bank_offer_seat": None,
    "wagers": [{"seat": 5, "player": "p5", "spot": "banker", "amount": "100.00"}],
    "total_action": "100.00",
    "cards": {"player": [], "banker": []},
    "next_card": None,
    "held": None,
    "held_inputs": 0,
}


def _refusal(topic: str, payload: Any) -> schemas.PayloadError:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    with pytest.raises(schemas.PayloadError) as caught:
        schemas.validate(topic, raw)
    return caught.value


def test_a_valid_state_passes_and_comes_back_decoded() -> None:
    assert schemas.validate(f"{BASE}/state", json.dumps(STATE).encode()) == STATE


def test_a_state_without_seq_is_refused_naming_topic_schema_and_path() -> None:
    error = _refusal(f"{BASE}/state", {k: v for k, v in STATE.items() if k != "seq"})
    assert (error.topic, error.schema, error.path) == (f"{BASE}/state", "schemas/state.json", "$")
    assert '"seq" is a required property' in str(error)
    assert str(error).startswith(f"{BASE}/state: schemas/state.json refuses the payload at $: ")


def test_every_payload_carries_ts_and_the_schema_version() -> None:
    """Issue 14: `ts` and `v` in every JSON payload (the suite's schema check holds every
    payload tablectl publishes to it); a reader told another version is refused, not misread."""
    for key in ("ts", "v"):
        error = _refusal("state", {k: v for k, v in STATE.items() if k != key})
        assert f'"{key}" is a required property' in error.message
    assert _refusal("state", {**STATE, "v": 2}).path == "$.v"
    assert _refusal("state", {**STATE, "ts": "yesterday"}).path == "$.ts"


def test_a_state_field_of_the_wrong_shape_is_refused_at_its_path() -> None:
    wagers = [{**STATE["wagers"][0], "amount": "100"}]  # money is always published with cents
    error = _refusal("state", {**STATE, "wagers": wagers})
    assert error.path == "$.wagers[0].amount"
    error = _refusal("state", {**STATE, "game": "craps"})
    assert error.path == "$.game"
    error = _refusal("state", {**STATE, "hole_cards": ["Ah"]})  # baccarat's state is closed
    assert "hole_cards" in error.message


def test_an_alert_of_an_unknown_kind_is_refused() -> None:
    alert = {"table": "t1", "seq": 9, "ts": TS, "v": 1, "kind": "on-fire", "reason": "smoke"}
    error = _refusal(f"{BASE}/alert", alert)
    assert (error.schema, error.path) == ("schemas/alert.json", "$.kind")
    assert '"on-fire" is not one of' in error.message


def test_alerts_never_show_a_card_and_carry_seq_unless_from_memory() -> None:
    refused = {
        "table": "t1",
        "seq": 9,
        "ts": TS,
        "v": 1,
        "kind": "rejected",
        "reason": "no",
        "source": "cmd/shoe.card",
        "input": {"type": "shoe.card", "card": "Ah"},
    }
    assert _refusal("alert", refused).path == "$.input.card"
    withheld = {**refused, "input": {"type": "shoe.card", "withheld": ["card"]}}
    schemas.validate("alert", json.dumps(withheld).encode())
    memory: dict[str, Any] = {
        "table": "t1",
        "ts": TS,
        "v": 1,
        "kind": "journal-unwritable",
        "reason": "disk full",
    }
    assert '"journaled" is a required property' in _refusal("alert", memory).message
    memory |= {"journaled": False}
    schemas.validate("alert", json.dumps(memory).encode())
    assert _refusal("alert", {**memory, "seq": 3}).path == "$.seq"


def test_an_event_never_carries_a_card_the_table_has_not_shown() -> None:
    burn = {"table": "t1", "seq": 4, "v": 1, "type": "shoe.burn", "round": 1, "ts": TS}
    schemas.validate("event", json.dumps(burn).encode())
    assert _refusal("event", {**burn, "card": "Ah"}).path == "$.card"
    hole = {"table": "t1", "seq": 5, "v": 1, "type": "hole.cards", "seat": 3, "round": 1, "ts": TS}
    assert _refusal("event", {**hole, "cards": ["Ah", "Kh"]}).path == "$.cards"
    # the delayed broadcast feed carries them, and must
    schemas.validate("broadcast/event", json.dumps({**hole, "cards": ["Ah", "Kh"]}).encode())
    assert _refusal("broadcast/event", hole).message.startswith('"cards" is a required')


def test_status_is_the_bare_word_and_other_payloads_json() -> None:
    schemas.validate(f"{BASE}/status", b"online")
    schemas.validate(f"{BASE}/status", b"offline")
    assert _refusal(f"{BASE}/status", b'"online"').path == "$"  # the form before issue 14
    error = _refusal(f"{BASE}/state", b"{not json")
    assert "not JSON" in error.message and error.schema == "schemas/state.json"
    assert "not a tablectl topic" in _refusal(f"{BASE}/weather", b"{}").message


def test_commands_as_the_table_takes_them() -> None:
    schemas.validate("cmd/wager", b'{"id":"c-1","seat":5,"spot":"player","amount":"25"}')
    schemas.validate("cmd/shoe.card", b'{"id":17,"card":"2c","at":{"pos":2}}')
    schemas.validate("cmd/bets.close", b"{}")
    assert _refusal("cmd/wager", {"seat": 5, "spot": "player", "amount": "12.505"}).path == (
        "$.amount"
    )
    assert _refusal("cmd/wager", {"seat": 5, "spot": "b", "amount": 5, "colour": "red"}).path == "$"
    assert _refusal("cmd/bank", {"type": "wager", "seat": 1, "amount": "5"}).path == "$.type"
    error = _refusal("cmd/table.card", {"zone": "board", "seat": 2, "card": "Ah"})
    assert error.path == "$.seat"


def test_a_reply_says_why_only_when_refused() -> None:
    ok = {"table": "t1", "seq": 11, "ts": TS, "v": 1, "id": "c-1003", "ok": True}
    schemas.validate("cmd/wager/reply", json.dumps(ok).encode())
    assert _refusal("cmd/wager/reply", {**ok, "reason": "fine"}).path == "$.reason"
    refused = {"table": "t1", "ts": TS, "v": 1, "id": None, "ok": False, "reason": "x"}
    refused["journaled"] = False
    schemas.validate("cmd/wager/reply", json.dumps(refused).encode())
    # true: the one command whose record showed a journal fault (journaled, not applied)
    schemas.validate("cmd/wager/reply", json.dumps({**refused, "journaled": True}).encode())
    assert _refusal("cmd/wager/reply", {**refused, "journaled": "no"}).path == "$.journaled"
    assert _refusal("cmd/wager/reply", {**refused, "seq": 12}).path == "$.seq"  # from memory


# -- the suite's check ---------------------------------------------------------------------------


def test_the_suite_hook_records_a_refusal_without_raising_it() -> None:
    before = len(schema_check.PROBLEMS)
    schema_check.check(
        f"{BASE}/alert", b'{"table":"t1","seq":1,"kind":"nope","reason":"x"}', "test"
    )
    try:
        assert len(schema_check.PROBLEMS) == before + 1
        problem = schema_check.PROBLEMS[-1]
        assert problem.startswith(f"{BASE}/alert: schemas/alert.json refuses the payload at $.kind")
        assert "[test; payload {" in problem
    finally:
        del schema_check.PROBLEMS[before:]  # this test's own refusal is not a failure


def test_the_suite_hook_checks_the_commands_the_table_takes() -> None:
    before = len(schema_check.PROBLEMS)
    schema_check.check_command("wager", b'{"seat":5,"spot":"player","amount":"25","id":3}')
    schema_check.check_command("wager", b'{"seat":5,"spot":"player","amount":"1e3"}')  # refused
    schema_check.check_command("fly", b"{}")  # no such verb: the table refuses it
    assert schema_check.PROBLEMS[before:] == []
