"""The journal's published chain heads and anchors: what the table publishes over MQTT, collected
off the broker, and read back from a heads file.

Every record that finishes a round publishes the journal's head, `{"seq", "hash", "key"}`: in the
`round/result` payload (`chain`) and on the retained `journal/head` topic. The journal's first
record and the live file's first record are published as anchors on the retained `journal/start`
and `journal/segment` (a head with `"anchor": {"file", "prev_hash"}`), so a journal whose front
was cut off no longer passes for whole. Whoever keeps those messages holds an independent record
of the chain: `tablectl verify-journal --against FILE` reads them back and
names every head the journal contradicts (a record rewritten, removed, or the end cut off).

A heads file is JSON lines in any of the forms a floor is likely to have kept:
    {"table":..,"seq":..,"chain":{"seq":17,"hash":"..","key":".."}}   a journal/head or
                                                                      round/result payload
    {"topic":"..","payload":{...}}                                   a whole message (replay,
                                                                      `tablectl collect-heads`)
    {"seq":17,"hash":"..","key":".."}                                a bare head
    tablectl/site/t/journal/head {"table":..}                        `mosquitto_sub -v` output
Lines that are JSON but carry no head (other topics of a full capture) are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tablectl.config import LoadedConfig, resolve, tls_context
from tablectl.journal.chain import GENESIS

if TYPE_CHECKING:
    from tablectl.journal.store import Journal

HEAD_TOPIC = "journal/head"
START_TOPIC = "journal/start"
"""Retained: the head of record 1, where the journal begins (an anchor: a journal whose front
was cut off no longer passes for whole)."""
SEGMENT_TOPIC = "journal/segment"
"""Retained: the head of the live file's first record, where this month's segment begins."""
HEAD_TOPICS = (HEAD_TOPIC, START_TOPIC, SEGMENT_TOPIC)
ANCHORS = ("journal", "segment")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_NO_KEY = object()


class HeadsError(Exception):
    """A heads file that cannot be read (missing, not JSON, a malformed head, no head at all)."""


@dataclass(frozen=True)
class Head:
    """One published chain head: record `seq` had `hash`, made under key `key` (None: unkeyed).
    `key_known` is False for a bare head that did not say; `where` names the line it came from."""

    seq: int
    hash: str
    key: str | None
    key_known: bool
    where: str
    anchor: str | None = None
    """"journal": record `seq` is where the journal begins (record 1); "segment": where a
    month's file begins. None: a head published as a round finished."""
    prev_hash: str | None = None
    """An anchor's: the hash the file continues from (the genesis hash for the journal's)."""


def _object_in(payload: Any, key: str) -> dict[str, Any] | None:
    """The object under `key` in a decoded payload, or in the `payload` of a whole message
    (`{"topic","payload"}`, as `collect-heads` writes them)."""
    if not isinstance(payload, dict):
        return None
    if isinstance(payload.get(key), dict):
        return dict(payload[key])
    if isinstance(payload.get("payload"), dict):
        return _object_in(payload["payload"], key)
    return None


def chain_of(payload: Any) -> dict[str, Any] | None:
    """The head inside a decoded line or message payload, if it carries one (a bare head too,
    at either level)."""
    found = _object_in(payload, "chain")
    if found is not None or not isinstance(payload, dict):
        return found
    if isinstance(payload.get("payload"), dict):
        return chain_of(payload["payload"])
    if "hash" in payload and "seq" in payload and "table" not in payload:
        return dict(payload)
    return None


def anchors(journal: Journal) -> list[tuple[str, dict[str, Any]]]:
    """The anchors a journal's table publishes (topic suffix, fields): `journal/start`, the head
    of record 1 (while the journal knows it), and `journal/segment`, the head of the live file's
    first record (once it holds one). docs/mqtt.md, "journal/start and journal/segment"."""
    out: list[tuple[str, dict[str, Any]]] = []
    origin = journal.origin()
    if origin is not None:
        out.append(
            (START_TOPIC, {"chain": origin, "anchor": {"file": "journal", "prev_hash": GENESIS}})
        )
    start = journal.file_start()
    if start is not None:
        anchor = {"file": "segment", "prev_hash": journal.start_hash, "month": journal.month}
        out.append((SEGMENT_TOPIC, {"chain": start, "anchor": anchor}))
    return out


def anchor_of(payload: Any) -> dict[str, Any] | None:
    """The anchor a decoded line or message payload carries (`journal/start`, `journal/segment`):
    `{"file": "journal" | "segment", "prev_hash": ...}`, if any."""
    return _object_in(payload, "anchor")


def _anchor(anchor: dict[str, Any] | None, where: str) -> tuple[str | None, str | None]:
    if anchor is None:
        return None, None
    kind, prev = anchor.get("file"), anchor.get("prev_hash")
    if kind not in ANCHORS:
        raise HeadsError(f"{where}: an anchor's file must be one of {', '.join(ANCHORS)}")
    if not isinstance(prev, str) or not _HEX64.fullmatch(prev):
        raise HeadsError(f"{where}: an anchor's prev_hash must be 64 hex digits")
    return str(kind), prev


def heads_from_lines(lines: Iterable[str], name: str) -> Iterator[Head]:
    for n, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        if not text.startswith("{") and " " in text:  # mosquitto_sub -v: "topic payload"
            text = text.split(" ", 1)[1].strip()
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise HeadsError(f"{name} line {n}: not JSON") from None
        chain = chain_of(data)
        if chain is None:
            continue
        seq, digest = chain.get("seq"), chain.get("hash")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise HeadsError(f"{name} line {n}: a head's seq must be a record number")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise HeadsError(f"{name} line {n}: a head's hash must be 64 hex digits")
        key = chain.get("key", _NO_KEY)
        if key is not _NO_KEY and key is not None and not isinstance(key, str):
            raise HeadsError(f"{name} line {n}: a head's key must be a key id or null")
        anchor, prev = _anchor(anchor_of(data), f"{name} line {n}")
        yield Head(
            seq,
            digest,
            None if key is _NO_KEY else key,  # type: ignore[arg-type]
            key is not _NO_KEY,
            f"{name} line {n}",
            anchor,
            prev,
        )


def read_heads(path: Path) -> list[Head]:
    """Every distinct head in a heads file, the first line each came on."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise HeadsError(f"{path}: cannot be read: {exc.strerror}") from None
    seen: dict[tuple[int, str, str | None, bool, str | None, str | None], Head] = {}
    for h in heads_from_lines(text.splitlines(), str(path)):
        seen.setdefault((h.seq, h.hash, h.key, h.key_known, h.anchor, h.prev_hash), h)
    if not seen:
        raise HeadsError(f"{path}: no chain head in it (journal/head or round/result messages)")
    return list(seen.values())


# -- collecting heads off MQTT -----------------------------------------------------------------


def _broker(cfg: LoadedConfig, *, with_password: bool = True) -> dict[str, Any]:
    """The config's broker settings, as the daemon uses them."""
    m = cfg.table.mqtt
    password = None
    if m.password_file and with_password:
        password = resolve(cfg.path, m.password_file).read_text().strip()
    tls = None if m.tls is None else tls_context(cfg.path, m.tls)
    return {
        "hostname": m.host,
        "port": m.port,
        "username": m.username,
        "password": password,
        "tls_context": tls,
    }


async def collect_heads(
    cfg: LoadedConfig,
    out: TextIO,
    *,
    seconds: float = 0.0,
    count: int = 0,
    login: tuple[str, str | None] | None = None,
) -> int:
    """Subscribe to the table's `journal/head` and its anchors (`journal/start`,
    `journal/segment`) and write each as a JSON line `{"topic","payload","retain"}` until
    `seconds` have passed or `count` came (0: until cancelled). The retained ones arrive first.
    `login` (user, password) replaces the config's broker user: on a locked broker a floor user
    reads heads, the table's own user cannot.
    Returns how many were written."""
    import aiomqtt

    written = 0
    broker = _broker(cfg, with_password=login is None)
    if login is not None:
        broker["username"], broker["password"] = login
    client = aiomqtt.Client(
        identifier=f"tablectl-heads-{cfg.table.site}-{cfg.table.table}-{os.getpid()}",
        **broker,
    )
    with contextlib.suppress(TimeoutError):
        async with client, asyncio.timeout(seconds or None):
            for suffix in HEAD_TOPICS:
                await client.subscribe(f"{cfg.table.base_topic}/{suffix}", qos=1)
            async for msg in client.messages:
                try:
                    payload: Any = json.loads(bytes(msg.payload))
                except (ValueError, TypeError):
                    continue
                line = {"topic": str(msg.topic), "payload": payload, "retain": msg.retain}
                out.write(json.dumps(line, separators=(",", ":")) + "\n")
                out.flush()
                written += 1
                if count and written >= count:
                    break
    return written
