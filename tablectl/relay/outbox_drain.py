"""Draining the outbox onto the wire: the next rows in seq order within the in-flight window,
each marked sent once the broker took it, and the row the broker refused held, with every row
after it, until the broker takes it (tablectl/relay/__init__.py, "MQTT 5 is what lets the broker
say no")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from paho.mqtt.reasoncodes import ReasonCode

from tablectl.outputs import OutboxRow
from tablectl.relay.client import AckedClient, reason_text
from tablectl_base.backoff import Backoff

RefusalHook = Callable[["Refusal"], None]
RowsFlying = dict[asyncio.Future[ReasonCode | None], OutboxRow]
"""The rows handed to paho on the current connection, by the broker's answer to each
(`AckedClient.start_publish`)."""


@dataclass(frozen=True)
class Refusal:
    """The broker refused an outbox row (`accepted` False: the first refusal of a held row), or
    took a held row at last (`accepted` True). `reason` is the refusing PUBACK's reason code, as
    paho names it with its number ("Not authorized (0x87)"); `refusals` how many times it came."""

    seq: int
    topic: str
    reason: str
    refusals: int
    accepted: bool


@dataclass
class _Held:
    """The lowest refused row: nothing after it is published until the broker takes it."""

    row: OutboxRow
    reason: str
    refusals: int
    retry_at: float  # the event loop's clock
    on_wire: bool = False  # published again on the current connection, its PUBACK awaited


class Outbox(Protocol):
    """What the relay needs from the journal's outbox."""

    def pending(self, limit: int) -> list[OutboxRow]:
        """Up to ``limit`` unsent rows, lowest seq first."""
        ...

    def mark_sent(self, seqs: Sequence[int]) -> None:
        """Record that the broker acknowledged these rows."""
        ...

    def latest_retained(self) -> list[OutboxRow]:
        """The newest retained row of each topic, sent or not, in seq order."""
        ...


class OutboxDrain:
    """Publishes an `Outbox`'s rows on a connection and settles them: the rows the broker took
    marked sent, the lowest it refused held (`held`) with its retries on a capped, jittered
    backoff, ``on_refusal`` told of a row held anew and of its acceptance (a failure there is
    logged, publishing goes on)."""

    def __init__(
        self,
        outbox: Outbox,
        *,
        on_refusal: RefusalHook | None,
        retry: Backoff,
        log: Any,
    ) -> None:
        self._outbox = outbox
        self._on_refusal = on_refusal
        self._refused_backoff = retry
        self._log = log
        self._mark_failing = False  # the outbox would not take the last marks (logged once)
        self._held: _Held | None = None  # the refused row the outbox waits for (module doc)

    @property
    def held(self) -> int | None:
        """The seq of the refused row the outbox waits for, if any."""
        return None if self._held is None else self._held.row.seq

    def latest_retained(self) -> list[OutboxRow]:
        """The outbox's newest retained row of each topic (published again on every connect)."""
        return self._outbox.latest_retained()

    def new_connection(self) -> None:
        """Whatever was on the old connection's wire is gone: a held row goes again when due."""
        if self._held is not None:
            self._held.on_wire = False

    def turn_timeout(self, poll_interval: float, flying: int, window: int) -> float:
        """How long one turn of the publisher waits for an acknowledgment or a wake: the poll
        interval, or less when a held row's retry comes due sooner and has room to go out
        (`flying` messages unacknowledged of the `window`)."""
        held = self._held
        if held is None or held.on_wire or flying >= window:
            return poll_interval
        now = asyncio.get_running_loop().time()
        return min(poll_interval, max(0.0, held.retry_at - now))

    def issue(
        self,
        client: AckedClient,
        in_flight: RowsFlying,
        last: int,
        again: Sequence[OutboxRow],
        notes_flying: int,
        window: int,
        offered: Sequence[OutboxRow] = (),
    ) -> int:
        """Start publishing the next rows, in seq order, up to `window` unacknowledged messages
        (the `notes_flying` notices count too); returns the highest seq handed to paho.

        The next rows are the pending ones merged with `again` and with the `offered` rows of a
        record just stored (`_next_rows`), or the offered rows alone when they are the next
        ones (`_offered_next`: the outbox is not read then). A sliding window
        rather than batches: a new card goes on the wire at once even while earlier messages
        wait for their PUBACK (which a broker's Nagle delay can hold ~40 ms). Each message is
        handed to paho here, in seq order, so messages go on the wire in seq order;
        `AckedClient.start_publish` gives the PUBACK's reason code once it arrived.

        While a row is held (refused, module doc) only the rows before it go, and then the held
        row alone once its retry is due; none after it.
        """
        room = window - len(in_flight) - notes_flying
        if room <= 0:
            return last
        rows = self._offered_next(last, again, offered)
        if rows is None:
            flying = {row.seq for row in in_flight.values()}
            limit = window + len(in_flight)
            merged = [*again, *offered] if offered else again
            rows = [r for r in self._next_rows(limit, last, merged) if r.seq not in flying]
        held = self._held
        if held is not None:
            rows = [r for r in rows if r.seq < held.row.seq]
            due = asyncio.get_running_loop().time() >= held.retry_at
            if not held.on_wire and due and len(rows) < room:
                rows.append(held.row)
                held.on_wire = True
        for row in rows[:room]:
            answer = client.start_publish(row.topic, row.payload, qos=row.qos, retain=row.retain)
            in_flight[answer] = row
            last = max(last, row.seq)
        return last

    def _offered_next(
        self, last: int, again: Sequence[OutboxRow], offered: Sequence[OutboxRow]
    ) -> list[OutboxRow] | None:
        """The `offered` rows, when they are the next rows themselves; else None (the outbox is
        read). They are when nothing is held, they run on from seq `last` without a hole, and no
        row of `again` is still to go: every row up to `last` was handed on (rows are handed in
        seq order, and `last` is lowered only when a held row is taken, while rows after it may
        still wait), so none can lie between them and `last`; a record's rows are the newest
        the outbox holds when they are offered, and one stored after them goes on a later turn,
        after them."""
        if not offered or self._held is not None or any(r.seq > last for r in again):
            return None
        if [r.seq for r in offered] != list(range(last + 1, last + 1 + len(offered))):
            return None
        return list(offered)

    def _next_rows(self, limit: int, last: int, again: Sequence[OutboxRow]) -> list[OutboxRow]:
        """The rows after seq `last`, in seq order: pending ones and those of `again` (retained
        rows published once more on this connection), each seq once.

        `again` joins the stream only up to the last pending row read: while more pending rows
        may lie beyond it, a row of `again` past it could overtake an older pending row of its
        own topic and leave the broker holding that older one. With seq order the broker's last
        message on a topic is always the topic's newest row.
        """
        pending = self._outbox.pending(limit)
        horizon = pending[-1].seq if len(pending) >= limit else None  # None: nothing beyond
        rows = {r.seq: r for r in again if r.seq > last and (horizon is None or r.seq <= horizon)}
        rows.update((r.seq, r) for r in pending if r.seq > last)
        return [rows[seq] for seq in sorted(rows)]

    def settle(
        self,
        in_flight: RowsFlying,
        last: int,
        *,
        only_done: bool,
    ) -> int:
        """Mark the rows the broker took sent, hold the lowest it refused (`_refused`), and
        raise the first publish failure; returns `last`, lowered to the held row's seq when the
        broker takes it, so the rows after it (refused ones included) are read again. With
        `only_done` False (the connection is ending) unfinished publishes are cancelled and stay
        pending."""
        acked: list[int] = []
        refused: list[tuple[OutboxRow, ReasonCode]] = []
        failed: tuple[OutboxRow, BaseException] | None = None
        for task in list(in_flight):
            if not task.done():
                if only_done:
                    continue
                task.cancel()
            row = in_flight.pop(task)
            if not task.done() or task.cancelled():
                continue
            if (exc := task.exception()) is not None:
                failed = failed or (row, exc)
            elif (code := task.result()) is not None and code.is_failure:
                refused.append((row, code))
            else:
                acked.append(row.seq)
        if acked:
            try:
                self._outbox.mark_sent(acked)
            except Exception as error:
                # E.g. a full disk: the rows stay unsent in the outbox and are published again,
                # under the same seqs, on the next connection or start. Publishing goes on.
                if not self._mark_failing:
                    self._log.warning("relay.mark_sent_failed", error=str(error) or repr(error))
                self._mark_failing = True
            else:
                self._mark_failing = False
                self._log.debug("relay.published", count=len(acked), last_seq=max(acked))
            held = self._held
            if held is not None and held.row.seq in acked:
                last = min(last, held.row.seq)
                self._release(held)
        if refused:
            self._refused(refused)
        if failed is not None and only_done:
            row, exc = failed
            self._log.warning("relay.publish_failed", seq=row.seq, topic=row.topic)
            raise exc
        return last

    def _refused(self, refused: Sequence[tuple[OutboxRow, ReasonCode]]) -> None:
        """Rows the broker refused: each logged; the lowest held (its retry scheduled) unless a
        lower one is held already; the others stay pending and go after it. A row held anew is
        told to ``on_refusal``; one refused again is only logged."""
        for row, code in refused:
            self._log.warning(
                "relay.publish_refused", seq=row.seq, topic=row.topic, reason=reason_text(code)
            )
        row, code = min(refused, key=lambda rc: rc[0].seq)
        reason = reason_text(code)
        held = self._held
        if held is not None and held.row.seq < row.seq:
            return  # still waiting for a lower one: these wait behind it, unsent
        again = held is not None and held.row.seq == row.seq
        if not again:
            self._refused_backoff.reset()  # a row held anew starts at the first delay
        delay = self._refused_backoff.next_delay()
        retry_at = asyncio.get_running_loop().time() + delay
        if held is not None and again:
            held.refusals += 1
            held.reason, held.retry_at, held.on_wire = reason, retry_at, False
            self._log.warning(
                "relay.held_row_refused_again",
                seq=row.seq,
                topic=row.topic,
                refusals=held.refusals,
                retry_in=round(delay, 3),
            )
            return
        self._held = _Held(row, reason, 1, retry_at)
        self._log.error(
            "relay.row_held",
            seq=row.seq,
            topic=row.topic,
            reason=reason,
            retry_in=round(delay, 3),
            detail="the broker refused this row: it and every row after it stay unsent until "
            "the broker takes it (check the broker's ACL: tablectl broker-acl)",
        )
        self._tell(Refusal(row.seq, row.topic, reason, 1, accepted=False))

    def _release(self, held: _Held) -> None:
        """The broker took the held row: the rows after it go on."""
        self._held = None
        self._refused_backoff.reset()
        self._log.info(
            "relay.held_row_accepted",
            seq=held.row.seq,
            topic=held.row.topic,
            refusals=held.refusals,
        )
        row = held.row
        self._tell(Refusal(row.seq, row.topic, held.reason, held.refusals, accepted=True))

    def _tell(self, refusal: Refusal) -> None:
        """Hand `refusal` to ``on_refusal``; a failure there is logged, publishing goes on."""
        if self._on_refusal is None:
            return
        try:
            self._on_refusal(refusal)
        except Exception:
            self._log.exception("relay.on_refusal_failed", seq=refusal.seq)
