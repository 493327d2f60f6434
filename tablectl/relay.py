"""MQTT relay: publishes the durable outbox (QoS 1, in seq order) and delivers inbound commands.

The outbox is the truth. The relay only marks a row sent once the broker has taken it (a
PUBACK with a success code), so a dropped connection or a broker outage loses nothing:
unacknowledged rows stay pending and are re-sent after reconnecting under the same ``seq``.
Consumers de-duplicate by ``(table, seq)`` (DESIGN: Outbox; contract 3).

Connection handling is an explicit state machine::

    DISCONNECTED -> CONNECTING -> CONNECTED --(error)--> BACKOFF -> CONNECTING -> ...

with capped exponential backoff, jittered (`tablectl_base.backoff`: a floor of tables does not
retry a restarted broker in lockstep), that resets after every successful connect. Each connection
uses a fresh ``aiomqtt.Client`` speaking MQTT 5 with a clean start and no session expiry (the
session ends with the connection, as 3.1.1's clean session did): paho's in-memory session state
adds nothing to the durable outbox, and a command queued at the broker while the table was
offline is stale by the time it would be delivered (its sender has long given up on the reply).

MQTT 5 is what lets the broker say no. A PUBACK whose reason code is a refusal (0x80 or more:
Mosquitto sends 0x87 "not authorized" for a publish its ACL denies) leaves the row unsent, and
the outbox stops there: the row is **held**, published again alone after a capped, jittered
backoff (`refused_retry_initial` doubling up to `refused_retry_max`), across reconnects, until the
broker takes it; no later row goes on the wire meanwhile, so nothing the table writes after the
refusal overtakes it. Only rows already in flight behind it when the refusal came (up to
`window` - 1) can: they were taken or refused on their own, the taken ones are sent, the refused
ones wait their turn after the held one. ``on_refusal`` hears of the first refusal of each
held row and of its acceptance (the daemon's alerts from memory); the log has every refusal.
A held row is held in memory: a restart publishes it again with the rows behind it, and holds
it anew if the broker still refuses it.

Commands are subscribed to with retain-as-published, so a command published with the retain
flag arrives with it even live (the broker clears it otherwise), and no-local: the table never
publishes a command (its ACL forbids it), and would not be handed its own if it did.

Availability (``<base>/status``, retained, QoS 1): the bare word ``online`` is published after
every connect (not JSON: the availability payload Home Assistant and Node-RED expect), and
again every ``heartbeat`` seconds while connected (issue 25 item 2): a notice from memory, never
an outbox row, so a page can tell a table that fell silent (hung, stopped, cut off) from a quiet
one after two missed beats, long before the broker's keepalive gives up on the link. A beat is
not queued while one still waits (at most one on the way). ``stop()`` publishes ``offline`` and
disconnects cleanly. Any other end of a connection
(network loss, a failed publish, the ``run()`` task being cancelled) drops the TCP connection
*without* an MQTT DISCONNECT, so the broker publishes the Last Will ``offline``.

Retained topics come back after a broker restart without persistence (which forgets them):
on every connect the relay publishes the newest retained outbox row of each topic again, same
``seq`` and bytes (`Outbox.latest_retained`), merged into the outbox stream in ``seq`` order, so
the broker ends every topic on its newest message even while a backlog drains.

Notices (`Relay.notice`) are the few messages that cannot go through the outbox because they
say the outbox cannot be written (a full disk), or how many of its rows wait: published from
memory on the same connection, best effort, the newest retained one of each topic again after
every connect. ``on_connect`` is called on every connect before those go out, so a notice made
then (the daemon's fresh unsent count) is the one published, not a stale one.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import socket
import ssl
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import aiomqtt
import paho.mqtt.client as paho_mqtt
import structlog
from aiomqtt.types import PahoSocket
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from tablectl.outputs import OutboxRow
from tablectl_base.backoff import Backoff, RandomFn

log = structlog.get_logger(__name__)

STATUS_ONLINE = b"online"
"""The availability payload after every connect: the bare word, no JSON quotes (docs/mqtt.md)."""
STATUS_OFFLINE = b"offline"
"""The availability payload of a clean stop and of the Last Will."""
MAX_NOTICES = 100
"""Notices kept for the next connection while there is none; beyond that the oldest are dropped."""

CommandHandler = Callable[[str, bytes, bool], Awaitable[None]]
"""``on_command(verb, payload, retained)``: `retained` is the received message's retain flag (a
retained command is refused: docs/mqtt.md "Retained commands")."""
ConnectHook = Callable[[], None]
RefusalHook = Callable[["Refusal"], None]
Sleep = Callable[[float], Awaitable[None]]
T = TypeVar("T")


class RelayClient(aiomqtt.Client):
    """aiomqtt's client, asking the event loop to watch paho's socket for writing only while the
    socket is open (issue 24 item 6).

    paho asks for a writer (`on_socket_register_write`) whenever it queues a packet: a publish,
    the keepalive's PINGREQ. aiomqtt 2.x hands every such request to the loop through
    `call_soon_threadsafe`, which runs it on the loop's next turn, even when paho asked from
    the loop itself; it does so because paho may also ask from the executor thread that runs
    its blocking `connect()`. When a read in the same turn finds the connection gone, paho
    closes the socket first, and the deferred `add_writer` meets a closed descriptor: the
    "Exception in callback BaseSelectorEventLoop.add_writer(17, ...) OSError: [Errno 9] Bad
    file descriptor" logged after the daemon had been stopped (SIGSTOP) for longer than the
    broker's keepalive, when the ping and the broker's close come together; had the number
    been reused by then, the writer would have watched some other file. So here a request made
    on the loop's thread registers at once, while the socket is certainly open, and one from
    another thread registers later only if the socket is still paho's and still open (paho
    closes it, and drops it, only after withdrawing the writer: `Client._sock_close`).
    """

    def _on_socket_register_write(
        self, client: paho_mqtt.Client, userdata: Any, sock: PahoSocket
    ) -> None:
        def write() -> None:
            # As aiomqtt's own: a failed write (a broken pipe) means the connection is gone.
            try:
                client.loop_write()
            except Exception as exc:
                if not self._disconnected.done():
                    self._disconnected.set_exception(exc)

        def register() -> None:
            fd = sock.fileno()  # -1 once closed
            if fd >= 0 and client.socket() is sock:
                self._loop.add_writer(fd, write)

        if _on_loop(self._loop):
            register()
        else:
            self._loop.call_soon_threadsafe(register)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs on `loop`'s own thread (not the executor running a connect)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop runs on this thread
        return False


@dataclass(frozen=True)
class Notice:
    """A message from memory (`Relay.notice`): not in the outbox, no ``seq``."""

    topic: str
    payload: bytes
    retain: bool


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


class RelayState(enum.Enum):
    """Connection states of the relay's state machine."""

    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    CONNECTED = "connected"
    BACKOFF = "backoff"


class Relay:
    """Publishes an `Outbox` over MQTT and hands ``<base>/cmd/<verb>`` messages to ``on_command``.

    ``run()`` runs until cancelled or stopped; ``wake()`` says new rows are waiting; ``notice()``
    publishes a message from memory; ``heartbeat`` (seconds, None: off) is how often the
    retained ``online`` is published again while connected; ``stop()`` publishes the retained
    ``offline`` status,
    disconnects cleanly and waits for ``run()``. ``on_connect`` is called after every connect,
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
        self._outbox = outbox
        self._host = host
        self._port = port
        self._base = base_topic.rstrip("/")
        self._client_id = client_id
        self._username = username
        self._password = password
        self._tls = tls
        self._on_command = on_command
        self._on_connect = on_connect
        self._on_refusal = on_refusal
        self._backoff = Backoff(backoff_initial, backoff_max, random=random)
        self._refused_backoff = Backoff(refused_retry_initial, refused_retry_max, random=random)
        self._sleep = sleep
        self._keepalive = keepalive
        self._heartbeat = heartbeat
        self._beat = Notice(self.status_topic, STATUS_ONLINE, retain=True)
        self.beats = 0  # heartbeats handed to a client (for a test and the log)
        self._window = window
        self._poll_interval = poll_interval
        self._timeout = timeout

        self._state = RelayState.DISCONNECTED
        self._wake = asyncio.Event()
        self._stop_requested = asyncio.Event()
        self._finished = asyncio.Event()
        self._running = False
        self._commands: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
        self._notices: deque[Notice] = deque(maxlen=MAX_NOTICES)  # not yet handed to a client
        self._retained: dict[str, Notice] = {}  # topic -> the latest retained notice
        self._mark_failing = False  # the outbox would not take the last marks (logged once)
        self._held: _Held | None = None  # the refused row the outbox waits for (module doc)
        self._log = log.bind(client_id=client_id, broker=f"{host}:{port}")

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
        return None if self._held is None else self._held.row.seq

    def wake(self) -> None:
        """Tell the relay that new rows are in the outbox (cheap; callable from any task)."""
        self._wake.set()

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
        if retain:
            self._retained[note.topic] = note
        self._notices.append(note)
        self._wake.set()

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
        self._wake.set()
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

    def _make_client(self) -> _Client:
        relay = self

        class Handed(asyncio.Queue[aiomqtt.Message]):
            """Each message handed to the relay as it arrives: aiomqtt's own queue is read by an
            iterator that stops at a disconnect and drops whatever it still held, commands the
            broker counts as delivered."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                relay._take(item)

        return _Client(
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
            connecting.add_done_callback(lambda fut: _settle_and_abort(client, fut))
            raise
        except BaseException:
            _abort(client)  # e.g. no CONNACK in time: the socket may still be open
            raise
        clean = False
        try:
            self._backoff.reset()
            self._set_state(RelayState.CONNECTED)
            await self._serve(client)  # returns once stop() has published offline
            clean = True
        finally:
            if clean:
                await _checked(client.__aexit__(None, None, None))
                self._log.info("relay.disconnected_cleanly")
            else:
                _abort(client)

    async def _serve(self, client: _Client) -> None:
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

    async def _publisher(self, client: _Client) -> None:
        """Everything this connection sends: subscribe, online, the retained notices, then
        notices (a heartbeat's ``online`` among them when one is due) and the outbox (with each
        retained topic's newest row again) until `stop()`, then offline. Rows still pending at
        `stop()` stay in the outbox for the next start."""
        loop = asyncio.get_running_loop()
        again: list[OutboxRow] = []  # the retained rows this connection publishes again
        if self._held is not None:
            self._held.on_wire = False  # whatever was on the old connection's wire is gone
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
            waiting_notices = [n for n in self._notices if not n.retain]
            self._notices.clear()
            self._notices.extend([*self._retained.values(), *waiting_notices])
            again = self._outbox.latest_retained()
        beat_at = None if self._heartbeat is None else loop.time() + self._heartbeat
        in_flight: dict[asyncio.Future[ReasonCode | None], OutboxRow] = {}
        notes: dict[asyncio.Future[ReasonCode | None], Notice] = {}
        last = 0  # the highest seq handed to paho on this connection (lowered by a refusal)
        try:
            while not self._stop_requested.is_set():
                self._wake.clear()  # before reading the outbox, so no wake() can be missed
                beat_at = self._beat_if_due(beat_at, notes, loop.time())
                self._issue_notices(client, notes, len(in_flight))
                last = self._issue(client, in_flight, last, again, len(notes))
                waker = asyncio.ensure_future(self._wake.wait())
                timeout = self._turn_timeout(client, len(in_flight) + len(notes))
                if beat_at is not None:
                    timeout = min(timeout, max(0.0, beat_at - loop.time()))
                try:
                    waiting: set[asyncio.Future[Any]] = {*in_flight, *notes, waker}
                    await asyncio.wait(
                        waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    waker.cancel()
                self._settle_notices(notes)
                last = self._settle(in_flight, last, only_done=True)
            self._issue_notices(client, notes, len(in_flight))  # made just before stop()
            if in_flight or notes:  # stop(): let what is on the wire be acknowledged first
                await asyncio.wait({*in_flight, *notes}, timeout=self._timeout)
        finally:
            for task in notes:  # what was not acknowledged is not sent again (the docstring)
                if not task.done():
                    task.cancel()
                elif not task.cancelled():
                    task.exception()  # retrieved (unreported): the connection ends anyway
            self._settle(in_flight, last, only_done=False)
        await self._publish_status(client, STATUS_OFFLINE)

    def _beat_if_due(
        self,
        beat_at: float | None,
        notes: dict[asyncio.Future[ReasonCode | None], Notice],
        now: float,
    ) -> float | None:
        """Queue the heartbeat's ``online`` (from memory: no outbox row, no seq) when it is due
        at `now`, unless the last one still waits to go or for its PUBACK; returns when the
        next is due (None: no heartbeat). Queued ahead of the outbox rows like every notice."""
        if beat_at is None or self._heartbeat is None or now < beat_at:
            return beat_at
        waiting = self._beat in self._notices or self._beat in notes.values()
        if not waiting:
            self._notices.append(self._beat)
            self.beats += 1
        return now + self._heartbeat

    async def _subscribe_commands(self, client: _Client) -> None:
        """Subscribe to the commands (`command_options`). A refused subscription is logged as an
        error and the connection goes on: the outbox must still be published. (Mosquitto's
        acl_file never refuses one; it delivers only what the ACL lets the user read.)"""
        codes = await _checked(client.subscribe(self.command_filter, options=self.command_options))
        refused = [c for c in codes if isinstance(c, ReasonCode) and c.is_failure]
        if refused:
            self._log.error(
                "relay.command_subscription_refused",
                topic=self.command_filter,
                reason=_reason_text(refused[0]),
                detail="no command reaches this table until the broker grants it",
            )

    async def _publish_status(self, client: _Client, word: bytes) -> None:
        """The retained availability `word`; a refusal is logged (the broker refuses a
        connection whose Last Will on the same topic its ACL denies, so it should not come)."""
        code = await _checked(client.publish_acked(self.status_topic, word, qos=1, retain=True))
        if code is not None and code.is_failure:
            self._log.error(
                "relay.status_refused", topic=self.status_topic, reason=_reason_text(code)
            )

    def _window_of(self, client: _Client) -> int:
        """The messages (rows and notices) this connection may have unacknowledged: `window`,
        or fewer when the broker receives fewer at once (its Receive Maximum)."""
        return min(self._window, client.receive_maximum)

    def _turn_timeout(self, client: _Client, flying: int) -> float:
        """How long one turn of the publisher waits for an acknowledgment or a wake: the poll
        interval, or less when a held row's retry comes due sooner and has room to go out."""
        held = self._held
        if held is None or held.on_wire or flying >= self._window_of(client):
            return self._poll_interval
        now = asyncio.get_running_loop().time()
        return min(self._poll_interval, max(0.0, held.retry_at - now))

    def _issue_notices(
        self,
        client: _Client,
        notes: dict[asyncio.Future[ReasonCode | None], Notice],
        rows_flying: int,
    ) -> None:
        """Hand the waiting notices to paho, oldest first, before any outbox row of this turn,
        as many as the window has room for beside the `rows_flying` (the others next turn)."""
        while self._notices and len(notes) + rows_flying < self._window_of(client):
            note = self._notices.popleft()
            task = asyncio.ensure_future(
                client.publish_acked(note.topic, note.payload, qos=1, retain=note.retain)
            )
            notes[task] = note

    def _settle_notices(self, notes: dict[asyncio.Future[ReasonCode | None], Notice]) -> None:
        """Forget acknowledged notices; a failed one fails the connection, like a failed row
        (a retained notice is published again on the next; another is lost). One the broker
        refused is logged and dropped: a notice is best effort, and its retained kind is
        published again after the next connect anyway."""
        for task in [t for t in notes if t.done()]:
            note = notes.pop(task)
            if task.cancelled():
                continue
            if (exc := task.exception()) is not None:
                self._log.warning("relay.notice_failed", topic=note.topic, retain=note.retain)
                raise exc
            code = task.result()
            if code is not None and code.is_failure:
                self._log.warning(
                    "relay.notice_refused",
                    topic=note.topic,
                    retain=note.retain,
                    reason=_reason_text(code),
                )

    def _issue(
        self,
        client: _Client,
        in_flight: dict[asyncio.Future[ReasonCode | None], OutboxRow],
        last: int,
        again: Sequence[OutboxRow] = (),
        notes_flying: int = 0,
    ) -> int:
        """Start publishing the next rows, in seq order, up to `window` unacknowledged messages
        (`_window_of`: the `notes_flying` notices count too).

        The next rows are the pending ones merged with `again` (`_next_rows`). A sliding window
        rather than batches: a new card goes on the wire at once even while earlier messages
        wait for their PUBACK (which a broker's Nagle delay can hold ~40 ms). Each task hands
        its message to paho before its first await, and tasks start in creation order, so
        messages go on the wire in seq order; `_Client.publish_acked` returns the PUBACK's
        reason code once it arrived.

        While a row is held (refused, module doc) only the rows before it go, and then the held
        row alone once its retry is due; none after it.
        """
        window = self._window_of(client)
        room = window - len(in_flight) - notes_flying
        if room <= 0:
            return last
        flying = {row.seq for row in in_flight.values()}
        rows = [
            r for r in self._next_rows(window + len(in_flight), last, again) if r.seq not in flying
        ]
        held = self._held
        if held is not None:
            rows = [r for r in rows if r.seq < held.row.seq]
            due = asyncio.get_running_loop().time() >= held.retry_at
            if not held.on_wire and due and len(rows) < room:
                rows.append(held.row)
                held.on_wire = True
        for row in rows[:room]:
            task = asyncio.ensure_future(
                client.publish_acked(row.topic, row.payload, qos=row.qos, retain=row.retain)
            )
            in_flight[task] = row
            last = max(last, row.seq)
        return last

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

    def _settle(
        self,
        in_flight: dict[asyncio.Future[ReasonCode | None], OutboxRow],
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
                "relay.publish_refused", seq=row.seq, topic=row.topic, reason=_reason_text(code)
            )
        row, code = min(refused, key=lambda rc: rc[0].seq)
        reason = _reason_text(code)
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

    # -- inbound -------------------------------------------------------------------------------

    async def _receive(self, client: _Client) -> None:
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
                await _checked(self._on_command(verb, payload, retained))
            except asyncio.CancelledError:
                if _being_cancelled():
                    raise
                # The handler's own await was cancelled, not this worker: a failed command.
                self._log.exception("relay.command_failed", verb=verb)
            except Exception:
                self._log.exception("relay.command_failed", verb=verb)


class _Client(RelayClient):
    """aiomqtt's client (its writer kept off closed sockets: `RelayClient`), with what its
    ``publish()`` leaves out: the PUBACK's reason code.

    aiomqtt 2.5's ``publish()`` returns once the PUBACK came, whatever its reason code, so a
    publish the broker refused looks like one it took; `publish_acked` returns the code (paho
    hands it to ``on_publish``). ``receive_maximum`` is the broker's Receive Maximum from its
    CONNACK (Mosquitto says 20; 65535 when it says nothing): an MQTT 5 client may not have more
    unacknowledged publishes at the broker than that, paho does not see to it, and paho's own
    window cannot change once connected, so the relay keeps its window within it.
    """

    def __init__(self, hostname: str, port: int, **kwargs: Any) -> None:
        super().__init__(hostname, port, **kwargs)
        self._acks: dict[int, asyncio.Future[ReasonCode]] = {}
        self.receive_maximum = 65535

    async def publish_acked(
        self, topic: str, payload: bytes, *, qos: int, retain: bool
    ) -> ReasonCode | None:
        """Publish and wait for the broker's answer: the PUBACK's reason code for QoS 1 (a
        refusal when ``is_failure``: 0x80 or more), None for QoS 0, which nothing answers.
        ``MqttError`` when paho cannot send it or no PUBACK comes within the client's timeout."""
        info = self._client.publish(topic, payload, qos, retain)
        if info.rc != paho_mqtt.MQTT_ERR_SUCCESS:
            raise aiomqtt.MqttCodeError(info.rc, "Could not publish message")
        if qos == 0:
            return None
        # paho reads the PUBACK in this thread's event loop, never within publish(): the
        # future is in place before it can come.
        acked: asyncio.Future[ReasonCode] = asyncio.get_running_loop().create_future()
        self._acks[info.mid] = acked
        try:
            async with asyncio.timeout(self.timeout):
                return await acked
        except TimeoutError:
            raise aiomqtt.MqttError("Operation timed out") from None
        finally:
            self._acks.pop(info.mid, None)

    def _on_publish(
        self,
        client: paho_mqtt.Client,
        userdata: Any,
        mid: int,
        reason_code: ReasonCode,
        properties: Properties,
    ) -> None:
        acked = self._acks.pop(mid, None)
        if acked is not None and not acked.done():
            acked.set_result(reason_code)
        super()._on_publish(client, userdata, mid, reason_code, properties)

    def _on_connect(
        self,
        client: paho_mqtt.Client,
        userdata: Any,
        flags: paho_mqtt.ConnectFlags,
        reason_code: ReasonCode,
        properties: Properties | None = None,
    ) -> None:
        most = getattr(properties, "ReceiveMaximum", None)
        if isinstance(most, int) and most > 0:
            self.receive_maximum = most
        super()._on_connect(client, userdata, flags, reason_code, properties)


def _reason_text(code: ReasonCode) -> str:
    """A reason code as the log and the alerts give it: paho's name and the number."""
    return f"{code.getName()} (0x{code.value:02x})"


async def _checked(call: Awaitable[T]) -> T:
    """Await ``call`` without losing a cancellation of the calling task.

    aiomqtt waits with ``asyncio.wait_for``, which on Python 3.11 returns the result instead of
    raising when the task is cancelled in the same loop iteration the awaited operation
    completes (cpython gh-86296; 3.12 rewrote wait_for, GH-96764). ``Task.cancelling()`` still
    counts the request, so re-raise it here: the relay's tasks must end when cancelled.
    """
    result = await call
    if _being_cancelled():
        raise asyncio.CancelledError
    return result


def _being_cancelled() -> bool:
    """Whether someone asked to cancel the current task (even if the request got swallowed)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _abort(client: _Client) -> None:
    """Drop the TCP connection without an MQTT DISCONNECT, so the broker sends our Last Will.

    aiomqtt has no public way to do this (leaving its context always sends DISCONNECT), so this
    reaches into the paho client it wraps: shutting the socket down makes paho see EOF on its
    next read and clean up (close the socket, unregister it from the event loop) by itself.
    """
    paho = client._client
    sock = paho.socket()
    if isinstance(sock, socket.socket):  # also covers ssl.SSLSocket
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    # aiomqtt records the resulting disconnect as an exception on a future nobody awaits any
    # more; retrieve it so asyncio does not report "exception was never retrieved".
    disconnected = client._disconnected
    disconnected.add_done_callback(lambda f: None if f.cancelled() else f.exception())


def _settle_and_abort(client: _Client, connecting: asyncio.Future[Any]) -> None:
    """Done-callback for a connect attempt abandoned by cancellation."""
    if not connecting.cancelled():
        connecting.exception()  # retrieve it; the attempt no longer matters
    _abort(client)
