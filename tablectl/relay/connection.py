"""The relay's connection state machine: connect, serve (publish the notices and the outbox,
hand the commands on), and reconnect with backoff; `Relay` is the relay as the daemon uses it
(the overview: tablectl/relay/__init__.py)."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
import structlog
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from tablectl.outputs import OutboxRow
from tablectl.relay.client import (
    AckedClient,
    abort,
    being_cancelled,
    checked,
    reason_text,
    settle_and_abort,
)
from tablectl.relay.notices import Notice, Notices, NoticesFlying
from tablectl.relay.outbox_drain import Outbox, OutboxDrain, RefusalHook, RowsFlying
from tablectl_base.backoff import Backoff, RandomFn

log = structlog.get_logger("tablectl.relay")  # the logger's name as the logs have always given it

STATUS_ONLINE = b"online"
"""The availability payload after every connect: the bare word, no JSON quotes (docs/mqtt.md)."""
STATUS_OFFLINE = b"offline"
"""The availability payload of a clean stop and of the Last Will."""

CommandHandler = Callable[[str, bytes, bool], Awaitable[None]]
"""``on_command(verb, payload, retained)``: `retained` is the received message's retain flag (a
retained command is refused: docs/mqtt.md "Retained commands")."""
ConnectHook = Callable[[], None]
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Wire:
    """What one connection has handed to paho: the rows and notices awaiting the broker's
    answer, the highest seq handed on (`last`, lowered by a refusal) and the retained rows it
    publishes again (`again`)."""

    client: AckedClient
    again: list[OutboxRow]
    in_flight: RowsFlying = field(default_factory=dict)
    notes: NoticesFlying = field(default_factory=dict)
    last: int = 0


class RelayState(enum.Enum):
    """Connection states of the relay's state machine."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    BACKOFF = "backoff"


class Relay:
    """Publishes an `Outbox` over MQTT and hands ``<base>/cmd/<verb>`` messages to ``on_command``.

    ``run()`` runs until cancelled or stopped; ``wake()`` says new rows are waiting; ``offer()``
    publishes a journaled record's rows at once; ``notice()`` publishes a message from memory;
    ``heartbeat`` (seconds, None: off) is how often the retained ``online`` is published again
    while connected; ``stop()`` publishes the retained ``offline`` status, disconnects cleanly
    and waits for ``run()``. ``on_connect`` is called after every connect,
    after ``online`` and before the retained notices are published again: a notice it makes
    replaces the one of its topic kept from before (a failure is logged, and the connection
    goes on). ``on_refusal`` is called when the broker first refuses a row the outbox then
    holds, and when it takes that row at last (`Refusal`; a failure is logged). ``sleep`` and
    ``random`` are the backoff's seams for tests: a timer the test fires, and the jitter's draw
    (the refused row's retries draw from ``random`` too).
    """

    def __init__(
        self,
        outbox: Outbox,
        *,
        host: str,
        port: int,
        base_topic: str,
        client_id: str,
        username: str | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
        on_command: CommandHandler | None = None,
        on_connect: ConnectHook | None = None,
        on_refusal: RefusalHook | None = None,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        refused_retry_initial: float = 1.0,
        refused_retry_max: float = 30.0,
        sleep: Sleep = asyncio.sleep,
        random: RandomFn | None = None,
        keepalive: int = 30,
        heartbeat: float | None = None,
        window: int = 50,
        poll_interval: float = 1.0,
        timeout: float = 10.0,
    ) -> None:
        if window < 1:
            raise ValueError("window must be at least 1")
        if heartbeat is not None and heartbeat <= 0:
            raise ValueError("heartbeat must be positive (None: off)")
        self._host = host
        self._port = port
        self._base = base_topic.rstrip("/")
        self._client_id = client_id
        self._username = username
        self._password = password
        self._tls = tls
        self._on_command = on_command
        self._on_connect = on_connect
        self._backoff = Backoff(backoff_initial, backoff_max, random=random)
        self._sleep = sleep
        self._keepalive = keepalive
        self._heartbeat = heartbeat
        self._window = window
        self._poll_interval = poll_interval
        self._timeout = timeout

        self._state = RelayState.DISCONNECTED
        self._wake = asyncio.Event()
        self._turn: asyncio.Future[None] | None = None  # the publisher's wait (`_next_turn`)
        self._wire: _Wire | None = None  # the connection's publishing state while it waits
        self._stop_requested = asyncio.Event()
        self._finished = asyncio.Event()
        self._running = False
        self._commands: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
        self._log = log.bind(client_id=client_id, broker=f"{host}:{port}")
        beat = Notice(self.status_topic, STATUS_ONLINE, retain=True)
        self._notices = Notices(beat, heartbeat, self._log)
        self._drain = OutboxDrain(
            outbox,
            on_refusal=on_refusal,
            retry=Backoff(refused_retry_initial, refused_retry_max, random=random),
            log=self._log,
        )

    # -- public --------------------------------------------------------------------------------

    @property
    def state(self) -> RelayState:
        """The current connection state."""
        return self._state

    @property
    def status_topic(self) -> str:
        """``<base>/status``: retained availability, also the Last Will topic."""
        return f"{self._base}/status"

    @property
    def command_filter(self) -> str:
        """``<base>/cmd/+``: the inbound command subscription."""
        return f"{self._base}/cmd/+"

    @property
    def command_options(self) -> SubscribeOptions:
        """The command subscription's MQTT 5 options: QoS 1, retain-as-published (a command
        published with the retain flag keeps it even live), no-local."""
        return SubscribeOptions(qos=1, noLocal=True, retainAsPublished=True)

    @property
    def held(self) -> int | None:
        """The seq of the refused row the outbox waits for, if any (module doc)."""
        return self._drain.held

    @property
    def beats(self) -> int:
        """Heartbeats handed to a client (for a test and the log)."""
        return self._notices.beats

    def wake(self) -> None:
        """Tell the relay that new rows are in the outbox (cheap; callable from any task)."""
        self._wake_publisher()

    def offer(self, rows: Sequence[OutboxRow]) -> None:
        """Publish `rows` now if they are next: the messages of a record the journal has
        committed, which the outbox has stored or stores in the caller's turn (so a broker's
        acknowledgment finds the row to mark sent; the daemon offers them first only when no
        stored row can differ from them, `Outbox.holds_none_of`: a record whose stored rows
        differ holds the table and publishes nothing). While the publisher waits on a
        connection, this is its turn taken at once (the waiting notices first, then the rows in
        seq order, merged with the pending ones the way `_next_rows` merges the retained rows
        again, so no row overtakes an older one); otherwise, or when anything fails, the rows
        go the usual way, read from the outbox after `wake()`."""
        wire = self._wire
        if wire is not None and rows and not self._stop_requested.is_set():
            try:
                self._hand_on(wire, rows)
            except Exception:  # the publisher's own turn meets it again, and says so
                self._log.debug("relay.offer_failed", exc_info=True)
        self._wake_publisher()

    def notice(self, topic_suffix: str, payload: bytes, *, retain: bool = False) -> None:
        """Publish ``<base>/<topic_suffix>`` from memory, not through the outbox: for what the
        outbox cannot hold, such as the word that the journal cannot be written.

        QoS 1, on the current connection as soon as the publisher wakes, ahead of outbox rows
        not yet handed to the client. The latest retained notice of each topic is published
        again after ``online`` on every (re)connect, so the broker holds it whatever became of
        the connection it was first sent on. A notice is best effort otherwise: one made while
        disconnected waits for the next connection (at most MAX_NOTICES wait; the oldest are
        dropped), one on the wire when the connection drops is not sent again, and none
        survives the process. Nothing marks a notice sent, and it carries no ``seq``.
        """
        self.notice_at(f"{self._base}/{topic_suffix}", payload, retain=retain)

    def notice_at(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """`notice` on a whole topic outside the table's base (Home Assistant discovery's
        `<prefix>/<component>/<node>/<object>/config`, tablectl/discovery.py)."""
        note = Notice(topic, payload, retain)
        self._notices.add(note)
        self._wake_publisher()

    async def run(self) -> None:
        """Connect, publish and reconnect with backoff until cancelled or `stop()` is called."""
        if self._running:
            raise RuntimeError("Relay.run() is already running")
        self._running = True
        self._finished.clear()
        worker = asyncio.create_task(self._command_worker(), name="relay-commands")
        try:
            while not self._stop_requested.is_set():
                self._set_state(RelayState.CONNECTING)
                try:
                    await self._session()
                except (aiomqtt.MqttError, OSError) as exc:
                    event = (
                        "relay.connect_failed"
                        if self._state is RelayState.CONNECTING
                        else "relay.connection_lost"
                    )
                    self._log.warning(event, error=str(exc) or repr(exc))
                except Exception:
                    # A bug or an outbox failure must not end publishing for good: log it with
                    # its traceback and retry after the backoff like any connection failure.
                    self._log.exception("relay.session_error")
                if self._stop_requested.is_set():
                    break
                delay = self._backoff.next_delay()
                self._set_state(RelayState.BACKOFF, delay=delay)
                await self._sleep_unless_stopped(delay)
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
            self._set_state(RelayState.DISCONNECTED)
            self._running = False
            self._finished.set()

    async def stop(self, timeout: float = 10.0) -> None:
        """Publish ``offline`` (retained) and disconnect cleanly; wait up to ``timeout`` for
        ``run()`` to return. Final: a stopped relay's ``run()`` returns at once."""
        self._stop_requested.set()
        self._wake_publisher()
        if self._running:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._finished.wait()

    # -- state machine -------------------------------------------------------------------------

    def _set_state(self, new: RelayState, **info: Any) -> None:
        old, self._state = self._state, new
        if old is not new:
            self._log.info("relay.state", old=old.value, new=new.value, **info)

    async def _sleep_unless_stopped(self, delay: float) -> None:
        """The backoff wait: the injected ``sleep``, cut short by `stop()`."""
        sleeper = asyncio.ensure_future(self._sleep(delay))
        stopper = asyncio.ensure_future(self._stop_requested.wait())
        try:
            await asyncio.wait({sleeper, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sleeper, stopper):
                task.cancel()
            await asyncio.gather(sleeper, stopper, return_exceptions=True)

    def _make_client(self) -> AckedClient:
        relay = self

        class Handed(asyncio.Queue[aiomqtt.Message]):
            """Each message handed to the relay as it arrives: aiomqtt's own queue is read by an
            iterator that stops at a disconnect and drops whatever it still held, commands the
            broker counts as delivered."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                relay._take(item)

        return AckedClient(
            self._host,
            self._port,
            queue_type=Handed,
            identifier=self._client_id,
            username=self._username,
            password=self._password,
            tls_context=self._tls,
            keepalive=self._keepalive,
            protocol=aiomqtt.ProtocolVersion.V5,
            clean_start=True,  # and no Session Expiry Interval: the session ends with the link
            timeout=self._timeout,
            max_inflight_messages=self._window,
            will=aiomqtt.Will(self.status_topic, STATUS_OFFLINE, qos=1, retain=True),
        )

    async def _session(self) -> None:
        """One connection, from CONNECTING until it fails or `stop()` ends it cleanly."""
        client = self._make_client()
        connecting = asyncio.ensure_future(client.__aenter__())
        try:
            await asyncio.shield(connecting)
        except asyncio.CancelledError:
            # The connect runs in an executor thread and cannot be interrupted; once it settles,
            # drop whatever it produced so no orphan connection outlives us.
            connecting.add_done_callback(lambda fut: settle_and_abort(client, fut))
            raise
        except BaseException:
            abort(client)  # e.g. no CONNACK in time: the socket may still be open
            raise
        clean = False
        try:
            self._backoff.reset()
            self._set_state(RelayState.CONNECTED)
            await self._serve(client)  # returns once stop() has published offline
            clean = True
        finally:
            if clean:
                await checked(client.__aexit__(None, None, None))
                self._log.info("relay.disconnected_cleanly")
            else:
                abort(client)

    async def _serve(self, client: AckedClient) -> None:
        """Publish and receive until the connection fails (raises) or `stop()` (returns).

        The receiver also watches the connection: aiomqtt ends message iteration with an
        ``MqttError`` as soon as the connection drops, while a pending ``publish()`` or
        ``subscribe()`` would only notice at its timeout. Whichever ends first ends the other.
        """
        receiver = asyncio.create_task(self._receive(client), name="relay-receive")
        publisher = asyncio.create_task(self._publisher(client), name="relay-publish")
        try:
            done, _ = await asyncio.wait({receiver, publisher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            receiver.cancel()
            publisher.cancel()
            await asyncio.gather(receiver, publisher, return_exceptions=True)
        for task in (receiver, publisher):
            if task in done and not task.cancelled() and (exc := task.exception()) is not None:
                raise exc
        if receiver in done:
            raise aiomqtt.MqttError("message stream ended")

    # -- outbound ------------------------------------------------------------------------------

    async def _publisher(self, client: AckedClient) -> None:
        """Everything this connection sends: subscribe, online, the retained notices, then
        notices (a heartbeat's ``online`` among them when one is due) and the outbox (with each
        retained topic's newest row again) until `stop()`, then offline. Rows still pending at
        `stop()` stay in the outbox for the next start."""
        loop = asyncio.get_running_loop()
        again: list[OutboxRow] = []  # the retained rows this connection publishes again
        self._drain.new_connection()  # whatever was on the old connection's wire is gone
        if not self._stop_requested.is_set():  # else stop() came while connecting: just go
            if self._on_command is not None:
                await self._subscribe_commands(client)
            await self._publish_status(client, STATUS_ONLINE)
            if self._on_connect is not None:
                try:
                    self._on_connect()  # e.g. a fresh unsent count, in place of a stale one
                except Exception:
                    self._log.exception("relay.on_connect_failed")
            # The latest retained notices again (each topic's newest), then the others waiting.
            self._notices.requeue_after_connect()
            again = self._drain.latest_retained()
        beat_at = None if self._heartbeat is None else loop.time() + self._heartbeat
        wire = _Wire(client, again)
        in_flight, notes = wire.in_flight, wire.notes
        try:
            while not self._stop_requested.is_set():
                self._wire = wire
                self._wake.clear()  # before reading the outbox, so no wake() can be missed
                beat_at = self._notices.beat_if_due(beat_at, notes, loop.time())
                self._hand_on(wire)
                flying = len(in_flight) + len(notes)
                window = self._window_of(client)
                timeout = self._drain.turn_timeout(self._poll_interval, flying, window)
                if beat_at is not None:
                    timeout = min(timeout, max(0.0, beat_at - loop.time()))
                await self._next_turn([*in_flight, *notes], timeout)
                self._wire = None
                self._notices.settle(notes)
                wire.last = self._drain.settle(in_flight, wire.last, only_done=True)
            # Notices made just before stop():
            self._notices.issue(client, notes, len(in_flight), self._window_of(client))
            if in_flight or notes:  # stop(): let what is on the wire be acknowledged first
                await asyncio.wait({*in_flight, *notes}, timeout=self._timeout)
        finally:
            self._wire = None
            Notices.drop(notes)  # what was not acknowledged is not sent again (`notice`)
            self._drain.settle(in_flight, wire.last, only_done=False)
        await self._publish_status(client, STATUS_OFFLINE)

    def _hand_on(self, wire: _Wire, offered: Sequence[OutboxRow] = ()) -> None:
        """Hand paho the waiting notices, then the next rows (`OutboxDrain.issue`, `offered`
        merged with the pending ones), as many as the window has room for; each is on the wire
        as it is handed (`RelayClient`), in this turn, not the loop's next."""
        client, in_flight, notes = wire.client, wire.in_flight, wire.notes
        window = self._window_of(client)
        self._notices.issue(client, notes, len(in_flight), window)
        wire.last = self._drain.issue(
            client, in_flight, wire.last, wire.again, len(notes), window, offered
        )

    async def _next_turn(self, answers: list[asyncio.Future[Any]], timeout: float) -> None:
        """Wait until one of the broker's `answers` came, `wake()` (or `notice`, `stop()`) was
        called, or `timeout` passed: ``asyncio.wait`` on the answers and the wake event, without
        the task that waiting on an event takes, so a wake runs the publisher's next turn on the
        loop's next iteration rather than three later."""
        if self._wake.is_set():
            return
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()

        def over(_: object = None) -> None:
            if not turn.done():
                turn.set_result(None)

        timer = loop.call_later(timeout, over)
        for answer in answers:
            answer.add_done_callback(over)
        self._turn = turn
        try:
            await turn
        finally:
            self._turn = None
            timer.cancel()
            for answer in answers:
                answer.remove_done_callback(over)

    def _wake_publisher(self) -> None:
        """Set the wake event and end the publisher's wait (`_next_turn`), if it waits."""
        self._wake.set()
        turn = self._turn
        if turn is not None and not turn.done():
            turn.set_result(None)

    async def _subscribe_commands(self, client: AckedClient) -> None:
        """Subscribe to the commands (`command_options`). A refused subscription is logged as an
        error and the connection goes on: the outbox must still be published. (Mosquitto's
        acl_file never refuses one; it delivers only what the ACL lets the user read.)"""
        codes = await checked(client.subscribe(self.command_filter, options=self.command_options))
        refused = [c for c in codes if isinstance(c, ReasonCode) and c.is_failure]
        if refused:
            self._log.error(
                "relay.command_subscription_refused",
                topic=self.command_filter,
                reason=reason_text(refused[0]),
                detail="no command reaches this table until the broker grants it",
            )

    async def _publish_status(self, client: AckedClient, word: bytes) -> None:
        """The retained availability `word`; a refusal is logged (the broker refuses a
        connection whose Last Will on the same topic its ACL denies, so it should not come)."""
        code = await checked(client.publish_acked(self.status_topic, word, qos=1, retain=True))
        if code is not None and code.is_failure:
            self._log.error(
                "relay.status_refused", topic=self.status_topic, reason=reason_text(code)
            )

    def _window_of(self, client: AckedClient) -> int:
        """The messages (rows and notices) this connection may have unacknowledged: `window`,
        or fewer when the broker receives fewer at once (its Receive Maximum)."""
        return min(self._window, client.receive_maximum)

    # -- inbound -------------------------------------------------------------------------------

    async def _receive(self, client: AckedClient) -> None:
        """Wait out the connection: ends with ``MqttError`` when the link drops. Messages never
        come out of the iterator: each was handed to `_take` as it arrived (`_make_client`)."""
        async for message in client.messages:
            self._take(message)  # (not reached: the client's queue keeps nothing)

    def _take(self, message: aiomqtt.Message) -> None:
        """Queue a ``<base>/cmd/<verb>`` message, with its retain flag, for the command worker."""
        prefix = f"{self._base}/cmd/"
        topic = message.topic.value
        verb = topic[len(prefix) :] if topic.startswith(prefix) else ""
        if not verb or "/" in verb:
            return  # not a command: e.g. our own .../cmd/<verb>/reply
        self._commands.put_nowait((verb, bytes(message.payload), bool(message.retain)))

    async def _command_worker(self) -> None:
        """Run ``on_command`` one at a time, in arrival order, across reconnects.

        Kept apart from the connection so that a dropped link never cancels a command halfway;
        a failing handler is logged with its traceback and the relay carries on.
        """
        while True:
            verb, payload, retained = await self._commands.get()
            if self._on_command is None:
                continue
            try:
                await checked(self._on_command(verb, payload, retained))
            except asyncio.CancelledError:
                if being_cancelled():
                    raise
                # The handler's own await was cancelled, not this worker: a failed command.
                self._log.exception("relay.command_failed", verb=verb)
            except Exception:
                self._log.exception("relay.command_failed", verb=verb)
