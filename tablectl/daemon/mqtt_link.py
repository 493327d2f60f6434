"""The daemon's side of MQTT: the relay made from the config, its hooks (connect, a refused
publish), and what the daemon publishes from memory rather than through the outbox (`info`,
the journal anchors, `alert`, the retained `journal/status`, the delayed broadcast feed).

The retained `journal/status` also says how many outbox rows the broker has not acknowledged
(`unsent`, the count the STATUS= line shows): at start, after every connect when it changed, and
as it changes, at most every UNSENT_NOTE_SECONDS (`UnsentNotes`, tablectl/daemon/state.py).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import ssl
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import structlog

from tablectl.broadcast import DelayedFeed
from tablectl.config import BrokerSetupError, resolve, tls_context
from tablectl.daemon.state import DaemonState
from tablectl.journal import JournalError
from tablectl.journal.heads import anchors
from tablectl.journal.segments import History
from tablectl.outputs import PAYLOAD_VERSION, OutboxRow
from tablectl.records import now_ts
from tablectl.relay import Refusal, Relay
from tablectl.table_info import info_payload, rules_digest
from tablectl_drivers.connect import port_serial

log = structlog.get_logger("tablectl.daemon")

BROADCAST_IDLE_SECONDS = 0.5
"""How often the delayed broadcast feed looks for what came due while nothing waited."""


class _NoOutbox:
    """The relay's outbox while the journal could not even be opened: nothing to publish from
    it, only the messages from memory (the held table's `journal/status` and `alert`)."""

    def pending(self, limit: int) -> list[OutboxRow]:
        return []

    def mark_sent(self, seqs: Sequence[int]) -> None:
        return None

    def latest_retained(self) -> list[OutboxRow]:
        return []


def notice_payload(table: str, fields: dict[str, Any]) -> bytes:
    """A message published from memory (no `seq`): the envelope (`table`, `ts`, `v`) and
    `fields`; `ts` is the time the fields give, else now (docs/mqtt.md)."""
    payload = {"table": table, "ts": now_ts(), "v": PAYLOAD_VERSION, **fields}
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class MqttLink(DaemonState):
    """The relay and its hooks, and the messages published from memory."""

    def _journal_status(
        self,
        fields: dict[str, Any] | None = None,
        *,
        count: int | None = None,
        now: float | None = None,
    ) -> None:
        """The retained `journal/status` (docs/mqtt.md): whether the journal can be written
        (`fields`, kept for the next, else the last word again) and the unsent `count` (else
        counted now), told at `now` (monotonic; else now). The relay keeps the newest and
        publishes it again after every connect."""
        if fields is not None:
            self._journal_fields = fields
        if count is None:
            count = self.unsent_count()
        self._notice("journal/status", {**self._journal_fields, "unsent": count}, retain=True)
        self.unsent_notes.said(count, time.monotonic() if now is None else now)

    def unsent_count(self) -> int:
        """The outbox rows the broker has not acknowledged: the one count both the STATUS= line
        and the retained `journal/status` give. A journal that cannot even be read for it gives
        the last count it gave (logged once), rather than stop the table's status."""
        if self._journal is None:  # held on a file that would not open: it has no outbox
            return 0
        try:
            self._unsent_known = self._journal.unsent_count()
        except sqlite3.Error as exc:
            if not self._unsent_unreadable:
                log.warning("journal.unsent_unreadable", error=str(exc), last=self._unsent_known)
            self._unsent_unreadable = True
        else:
            self._unsent_unreadable = False
        return self._unsent_known

    def _on_connect(self) -> None:
        """The relay connected (`Relay(on_connect=...)`): the unsent count now, when the retained
        `journal/status` kept from before says another, so the relay publishes this one.

        Rows the broker took before their store (a full disk) are stored unsent from now on:
        this connection publishes each retained topic's newest stored row again, an older one
        than theirs, and they must follow it (`Outbox.forget_sent_unstored`)."""
        if self._journal is not None:  # (none: held on a file that would not open)
            self._journal.forget_sent_unstored()
        count = self.unsent_count()
        if count != self.unsent_notes.told:
            self._journal_status(count=count)
        if self.fault is not None:  # told at every connect, not only on the retained status
            self._notice("alert", self.fault.alert_fields())

    def _on_refusal(self, refusal: Refusal) -> None:
        """The broker refused an outbox row, which the relay now holds, or took the held row at
        last (`Relay(on_refusal=...)`): an `alert` from memory, since the outbox is what waits
        (`publish-refused`, `publish-accepted`; docs/mqtt.md). The unsent count on
        `journal/status` tells the backlog behind it."""
        topic = refusal.topic.removeprefix(f"{self.cfg.table.base_topic}/")
        row = f"{topic} (outbox seq {refusal.seq})"
        if refusal.accepted:
            kind = "publish-accepted"
            times = "once" if refusal.refusals == 1 else f"{refusal.refusals} times"
            reason = f"the broker took {row}, refused {times} ({refusal.reason}): the rest go on"
        else:
            kind = "publish-refused"
            reason = (
                f"the broker refused {row}: {refusal.reason}; it and every message after it wait "
                "unsent, tried again until the broker takes it (is the broker's ACL "
                "`tablectl broker-acl` of this release?)"
            )
        fields = {"topic": topic, "outbox_seq": refusal.seq, "refusals": refusal.refusals}
        if self.metrics is not None:
            self.metrics.alert(kind)
        self._notice(
            "alert", {"kind": kind, "reason": reason, **fields, "journaled": False, "ts": now_ts()}
        )

    def _publish_info(self) -> None:
        """The retained `info` (tablectl/table_info.py) for the rules in force now. The relay keeps
        the newest and publishes it again after every connect."""
        self._info_rules = self.table.rules
        self._info_digest = rules_digest(self.table.rules)
        payload = info_payload(self.cfg, self.table.rules, ts=now_ts(), serial_of=port_serial)
        self._notice("info", payload, retain=True)

    def _publish_anchors(self) -> None:
        """The retained anchors (`witness.anchors`, docs/mqtt.md): `journal/start`, where the
        journal begins, and `journal/segment`, where the live month's file begins. Heads alone
        cannot tell a journal whose front was cut off; these can (`verify-journal --against`).
        Published at start, when a file's first record is journaled, and again after every
        connect (the relay keeps them)."""
        if self.relay is None:
            return
        if self.journal.origin() is None and self.journal.first_seq > 1:
            self._find_origin()
        for suffix, fields in anchors(self.journal):
            self._notice(suffix, fields, retain=True)

    def _find_origin(self) -> None:
        """Record 1's head, for a live file whose first months went into segments before the
        anchors existed: read from the oldest segment (beside the journal or archived) and kept
        in the live file. Not there (segments moved off the PC): `journal/start` is not
        published, which `verify-journal --against` notes."""
        try:
            history = History.open(self.journal.path, self.cfg.table.table, self._archive_dir())
        except JournalError as exc:  # a segment that cannot be read: the table plays on
            log.warning("journal.origin_unknown", detail=str(exc))
            return
        try:
            head = history.files[0].head_at(1)
        finally:
            history.close()
        if head is None:
            log.warning("journal.origin_unknown", detail="record 1 is in no segment found here")
            return
        self.journal.keep_origin(head)

    def _info_if_rules_changed(self) -> None:
        """After a record: when a `config` record put other rules in force, `info` anew (a
        record with the same rules again changes nothing). Cheap when nothing changed: the
        table keeps the same rules object until a `config` record is applied."""
        if self.relay is None or self.table.rules is self._info_rules:
            return
        if rules_digest(self.table.rules) == self._info_digest:
            self._info_rules = self.table.rules
            return
        self._publish_info()

    def _notice(self, suffix: str, fields: dict[str, Any], *, retain: bool = False) -> None:
        """Publish from memory, not through the outbox (Relay.notice): no `seq`."""
        if self.relay is None:
            return  # MQTT off: the log says it
        self.relay.notice(suffix, notice_payload(self.cfg.table.table, fields), retain=retain)

    def _make_relay(self) -> Relay:
        """The MQTT relay with the config's credentials; BrokerSetupError naming the key and the
        file when a password or TLS file cannot be read (before anything has started)."""
        m = self.cfg.table.mqtt
        password = None
        where = "mqtt.password_file"
        try:
            if m.password_file:
                password = resolve(self.cfg.path, m.password_file).read_text().strip()
            tls = None
            if m.tls is not None:
                where = "mqtt.tls"
                tls = tls_context(self.cfg.path, m.tls)
        except (OSError, ssl.SSLError, UnicodeDecodeError) as exc:
            raise BrokerSetupError(f"{self.cfg.path}: {where}: {exc}") from None
        return Relay(
            self._journal if self._journal is not None else _NoOutbox(),
            host=m.host,
            port=m.port,
            base_topic=self.cfg.table.base_topic,
            client_id=self.cfg.table.client_id,
            username=m.username,
            password=password,
            tls=tls,
            on_command=self.on_command,
            on_connect=self._on_connect,
            on_refusal=self._on_refusal,
            keepalive=m.keepalive,
            heartbeat=m.heartbeat_seconds or None,  # 0: online only after each connect
        )

    async def _broadcast(self, feed: DelayedFeed, relay: Relay) -> None:
        """Publish the delayed feed's messages as they come due (from memory: best effort)."""
        while True:
            for item in feed.due(datetime.now(UTC)):
                relay.notice(item.topic, item.payload)
            due = feed.next_due()
            wait = BROADCAST_IDLE_SECONDS
            if due is not None:
                wait = min(wait, max(0.0, (due - datetime.now(UTC)).total_seconds()))
            await asyncio.sleep(wait)
