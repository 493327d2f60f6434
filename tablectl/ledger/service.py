"""`tablectl ledger run`: read every table of the configured sites off the broker and keep their
numbered messages in the database, batch by batch.

The broker session is persistent (MQTT 5 clean start off, a session expiry interval): while the
ledger is away the broker queues what the tables publish for it, up to its own limits. What the
broker could not keep, and the few messages received but not yet committed when the ledger
stopped (the broker counts them delivered), are gaps in a table's numbers (seqs.py), which the
ledger knows after a restart from what it committed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import aiomqtt
import psycopg
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.config import resolve, tls_context
from tablectl.history_answers import HISTORY_TOPIC, HISTORY_VERB
from tablectl.ledger.gapfill import GapFiller, TableKey
from tablectl.ledger.messages import NotLedgerMessage, Received, read_message
from tablectl.ledger.settings import LedgerSection
from tablectl.ledger.store import LedgerBusy, LedgerStore, Presence, Written
from tablectl_base.backoff import Backoff

log = structlog.get_logger("tablectl.ledger")


@dataclass
class LedgerCounts:
    """What the ledger did since it started (its log says them on every batch)."""

    received: int = 0
    rows: int = 0
    repeated: int = 0
    unreadable: int = 0
    batches: int = 0
    last_batch_s: float = 0.0
    write_failures: int = 0
    connects: int = 0
    filled: int = 0  # messages received in answers to cmd/history
    last_error: str | None = field(default=None, repr=False)


class Ledger:
    """The broker subscription and the writer of batches to the database."""

    def __init__(
        self,
        cfg: LedgerSection,
        config_path: Path,
        *,
        connect_store: Callable[[str], LedgerStore] = LedgerStore,
        backoff: Backoff | None = None,
    ) -> None:
        self.cfg = cfg
        self.config_path = config_path  # the files it names are relative to its folder
        self._connect_store = connect_store
        self.counts = LedgerCounts()
        self._pending: list[Received] = []
        self._presence: list[Presence] = []
        self._status: dict[TableKey, str] = {}
        self._arrived = asyncio.Event()
        self._store: LedgerStore | None = None
        self._backoff = backoff or Backoff(0.5, 30.0)
        self.ready = asyncio.Event()  # set once subscribed (tests wait for it)
        self.filler = GapFiller(cfg.gap_grace_seconds, cfg.history_timeout_seconds)
        self._client_now: aiomqtt.Client | None = None

    @property
    def conninfo(self) -> str:
        info = self.cfg.database
        if self.cfg.password_file:
            password = resolve(self.config_path, self.cfg.password_file).read_text().strip()
            info = f"{info} password={password}"
        return info

    @property
    def client_id(self) -> str:
        return self.cfg.broker.client_id or f"tablectl-ledger-{self.cfg.sites[0]}"

    def topics(self) -> list[str]:
        """Every table of each site: `<prefix>/<site>/+/#`."""
        return [f"{self.cfg.prefix}/{site}/+/#" for site in self.cfg.sites]

    # -- receiving ---------------------------------------------------------------------------

    def take(self, topic: str, payload: bytes) -> None:
        """One message off the broker: queued for the next batch, or counted as unreadable
        (logged with its topic and why; the books cannot key it)."""
        self.counts.received += 1
        parts = topic.split("/")
        if len(parts) == 4 and parts[0] == self.cfg.prefix and parts[3] == HISTORY_TOPIC:
            self._take_answer((parts[1], parts[2]), payload)
            return
        if len(parts) == 4 and parts[0] == self.cfg.prefix and parts[3] == "status":
            self._take_status((parts[1], parts[2]), payload)
            return
        try:
            msg = read_message(self.cfg.prefix, topic, payload)
        except NotLedgerMessage as exc:
            self.counts.unreadable += 1
            log.warning("unreadable message", topic=topic, reason=str(exc))
            return
        if msg is not None:
            self._pending.append(msg)
            self._arrived.set()

    def _take_status(self, key: TableKey, payload: bytes) -> None:
        """A table's `online`/`offline` (its Last Will): kept when it changes, with the time
        the ledger received it, for the reports' "offline in the shift"."""
        word = payload.decode("utf-8", "replace")
        if word not in ("online", "offline"):
            self.counts.unreadable += 1
            log.warning("unreadable status", table="/".join(key), payload=word[:40])
            return
        if self._status.get(key) == word:
            return  # the heartbeat's `online` again
        self._status[key] = word
        self._presence.append(Presence(key[0], key[1], datetime.now(UTC), word))
        self._arrived.set()

    def _take_answer(self, key: TableKey, payload: bytes) -> None:
        """A table's answer to `cmd/history`: each message in it taken as if it came on its own
        topic (the very bytes the table published), and the request closed."""
        try:
            answer = json.loads(payload)
            ref = answer.get("id")
            if not answer.get("ok"):
                if self.filler.answered(key, ref, [], None):
                    log.warning("history refused", table="/".join(key), reason=answer.get("reason"))
                return
            base = f"{self.cfg.prefix}/{key[0]}/{key[1]}"
            for m in answer["messages"]:
                raw = json.dumps(m["payload"], separators=(",", ":"), ensure_ascii=False)
                self.take(f"{base}/{m['topic']}", raw.encode("utf-8"))
            pruned = [(int(lo), int(hi)) for lo, hi in answer.get("pruned", [])]
            held = answer.get("held_from")
            if self.filler.answered(key, ref, pruned, None if held is None else int(held)):
                self.counts.filled += len(answer["messages"])
                if pruned:
                    log.warning(
                        "history pruned at the table: load its export",
                        table="/".join(key),
                        pruned=pruned,
                        held_from=held,
                    )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.counts.unreadable += 1
            log.warning("unreadable history answer", table="/".join(key), reason=repr(exc))

    async def _gap_loop(self) -> None:
        """Once a second: ask each table for the numbers the books lack (gapfill.py)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(1.0)
            client, store = self._client_now, self._store
            if client is None or store is None:
                continue
            # A table whose messages wait to be written is not asked yet: the books' numbers
            # would not show what already came (an answer still queued would be asked again).
            waiting = {(m.site, m.table) for m in self._pending}
            ready = {k: r for k, r in store.tables.items() if k not in waiting}
            for ask in self.filler.due(loop.time(), ready):
                site, table = ask.table
                request = {"id": ask.ref, "from": ask.first, "to": ask.last}
                topic = f"{self.cfg.prefix}/{site}/{table}/cmd/{HISTORY_VERB}"
                log.info("asking for history", table=f"{site}/{table}", **request)
                try:
                    await client.publish(topic, json.dumps(request), qos=1)
                except aiomqtt.MqttError as exc:
                    log.warning("history request not sent", table=f"{site}/{table}", error=str(exc))

    def _client(self) -> aiomqtt.Client:
        b = self.cfg.broker
        password = None
        if b.password_file:
            password = resolve(self.config_path, b.password_file).read_text().strip()
        tls = None if b.tls is None else tls_context(self.config_path, b.tls)
        ledger = self

        class Handed(asyncio.Queue[aiomqtt.Message]):
            """Each message handed to the ledger as it arrives (aiomqtt's iterator would drop
            what its queue still held at a disconnect)."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                ledger.take(str(item.topic), _payload_bytes(item.payload))

        connect = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        connect.SessionExpiryInterval = b.session_expiry_seconds
        return aiomqtt.Client(
            b.host,
            b.port,
            queue_type=Handed,
            identifier=self.client_id,
            username=b.username,
            password=password,
            tls_context=tls,
            keepalive=b.keepalive,
            timeout=b.timeout_seconds,
            protocol=aiomqtt.ProtocolVersion.V5,
            clean_start=False,
            properties=connect,
        )

    async def _subscribed(self) -> None:
        """One broker connection: subscribe (again: harmless on a kept session) and hold it
        until it drops."""
        async with self._client() as client:
            self.counts.connects += 1
            for topic in self.topics():
                await client.subscribe(topic, qos=1)
            log.info("subscribed", topics=self.topics(), client_id=self.client_id)
            self._backoff.reset()
            self._client_now = client
            self.ready.set()
            # aiomqtt's own end-of-connection future, shielded: a cancelled wait would cancel
            # the future itself, and aiomqtt would then leave without its DISCONNECT
            await asyncio.shield(client._disconnected)

    async def _broker_loop(self) -> None:
        while True:
            try:
                await self._subscribed()
            except aiomqtt.MqttError as exc:
                log.warning("broker connection lost", error=str(exc))
            self.ready.clear()
            self._client_now = None
            await self._backoff.wait()

    # -- writing -----------------------------------------------------------------------------

    def _write(self, batch: list[Received], presence: list[Presence]) -> Written:
        """One batch through the store (in a worker thread), connecting first if need be."""
        if self._store is None:
            self._store = self._connect_store(self.conninfo)
        return self._store.write(batch, presence)

    async def _writer_loop(self) -> None:
        pause = self.cfg.batch_ms / 1000
        retry = Backoff(0.5, 30.0)
        while True:
            await self._arrived.wait()
            if len(self._pending) < self.cfg.batch_rows:
                await asyncio.sleep(pause)  # let a batch gather
            batch = self._pending[: self.cfg.batch_rows]
            presence = list(self._presence)
            started = time.perf_counter()
            write = asyncio.ensure_future(asyncio.to_thread(self._write, batch, presence))
            try:
                done = await asyncio.shield(write)
            except asyncio.CancelledError:
                # Stopping: the write in flight finishes on its thread (the connection is not
                # shared with `flush`); what it stored leaves the queue.
                await asyncio.wait([write])
                if not write.cancelled() and write.exception() is None:
                    self._written(batch, presence, write.result(), started)
                raise
            except (psycopg.Error, LedgerBusy) as exc:
                self.counts.write_failures += 1
                self.counts.last_error = str(exc)
                log.error("database write failed; retrying", error=str(exc), rows=len(batch))
                self._drop_store()
                await retry.wait()
                continue
            retry.reset()
            self._written(batch, presence, done, started)

    def _written(
        self, batch: list[Received], presence: list[Presence], done: Written, started: float
    ) -> None:
        """A committed batch leaves the queue and is counted."""
        del self._pending[: len(batch)]
        del self._presence[: len(presence)]
        if not self._pending and not self._presence:
            self._arrived.clear()
        c = self.counts
        c.batches += 1
        c.rows += done.rows
        c.repeated += done.repeated
        c.last_batch_s = time.perf_counter() - started
        log.debug("batch written", rows=done.rows, counted=done.counted, waiting=len(self._pending))

    def flush(self) -> None:
        """Write what is still queued (after `run` was cancelled: a clean stop loses nothing
        the broker already counts delivered). A database that refuses it: logged, and those
        numbers are gaps the next start asks the tables for."""
        while self._pending or self._presence:
            batch = self._pending[: self.cfg.batch_rows]
            presence = list(self._presence)
            started = time.perf_counter()
            try:
                done = self._write(batch, presence)
            except psycopg.Error as exc:
                log.error("could not write the last messages", error=str(exc), left=len(batch))
                return
            self._written(batch, presence, done, started)

    async def run(self) -> None:
        """Until cancelled: the broker subscription and the writer, side by side."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self._broker_loop(), name="ledger-broker")
            group.create_task(self._writer_loop(), name="ledger-writer")
            group.create_task(self._gap_loop(), name="ledger-gaps")

    def _drop_store(self) -> None:
        """Close the store after a failed write; the next write connects again."""
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close(failed=True)
            except psycopg.Error as exc:  # the connection is broken already: say so, go on
                log.info("closing the failed database connection", error=str(exc))

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def _payload_bytes(payload: object) -> bytes:
    """aiomqtt's payload (bytes as received from paho for every message it hands over)."""
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return b""  # an empty message: read_message refuses it as "not JSON"
