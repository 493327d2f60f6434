"""The relay's MQTT 5 client: aiomqtt's, with its writer kept off closed sockets (`RelayClient`)
and the PUBACK's reason code returned (`AckedClient`); and the few ways of ending a connection
and awaiting aiomqtt that the relay needs (`abort`, `checked`)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable
from typing import Any, TypeVar

import aiomqtt
import paho.mqtt.client as paho_mqtt
import structlog
from aiomqtt.types import PahoSocket
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

T = TypeVar("T")
log = structlog.get_logger("tablectl.relay")


class RelayClient(aiomqtt.Client):
    """aiomqtt's client, asking the event loop to watch paho's socket for writing only while the
    socket is open (a writer on a closed descriptor fails, or watches some other file).

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
    on the loop's thread is written at once, while the socket is certainly open, and a writer
    registered only for what the socket did not take; one from another thread registers later
    only if the socket is still paho's and still open (paho closes it, and drops it, only after
    withdrawing the writer: `Client._sock_close`).

    Writing at once is also what puts a message on the wire in the turn that published it
    (paho does the same when no event loop watches its socket): a card's event leaves before
    the messages after it are even built, and no writer is added and withdrawn per message.
    """

    def _on_socket_open(self, client: paho_mqtt.Client, userdata: Any, sock: PahoSocket) -> None:
        """Nagle's algorithm off on the broker's TCP connection (`no_delay`), then aiomqtt's
        reader on the socket."""
        no_delay(sock)
        super()._on_socket_open(client, userdata, sock)

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
            # Asked from the loop's thread (a publish, the keepalive's ping): written now, in
            # the caller's turn, as paho writes when no event loop watches its socket; the loop
            # watches the socket only for what it did not take (a full send buffer).
            write()
            if client.want_write():
                register()
        else:
            self._loop.call_soon_threadsafe(register)


def no_delay(sock: PahoSocket) -> None:
    """TCP_NODELAY on a TCP socket: each message leaves when it is written, never held back
    until the broker acknowledges the segment before it. With Nagle's algorithm on, a message
    written while an earlier one is unacknowledged waits for that acknowledgment, which the
    broker's delayed ACK can hold for 40 ms (Linux's least delayed-ACK time): a round's last card
    is followed by four more messages, and the next card can come right after them. Mosquitto
    sets the option on its side only with `set_tcp_nodelay` (docs/operations.md); libmosquitto
    has it as MOSQ_OPT_TCP_NODELAY, paho has no option for it. A socket that refuses it is
    logged and used as it is (a connection goes on without it)."""
    if not isinstance(sock, socket.socket) or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as exc:
        log.warning("relay.tcp_nodelay_refused", error=str(exc))


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs on `loop`'s own thread (not the executor running a connect)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop runs on this thread
        return False


class AckedClient(RelayClient):
    """aiomqtt's client (its writer kept off closed sockets: `RelayClient`), with what its
    ``publish()`` leaves out: the PUBACK's reason code.

    aiomqtt 2.5's ``publish()`` returns once the PUBACK came, whatever its reason code, so a
    publish the broker refused looks like one it took; `start_publish` and `publish_acked` give
    the code (paho hands it to ``on_publish``).
    ``receive_maximum`` is the broker's Receive Maximum from its CONNACK (Mosquitto says 20;
    65535 when it says nothing): an MQTT 5 client may not have more unacknowledged publishes at
    the broker than that, paho does not see to it, and paho's own window cannot change once
    connected, so the relay keeps its window within it.
    """

    def __init__(self, hostname: str, port: int, **kwargs: Any) -> None:
        super().__init__(hostname, port, **kwargs)
        self._acks: dict[int, asyncio.Future[ReasonCode | None]] = {}
        self.receive_maximum = 65535

    def start_publish(
        self, topic: str, payload: bytes, *, qos: int, retain: bool
    ) -> asyncio.Future[ReasonCode | None]:
        """Hand a message to paho now, in the caller's turn (the order of the calls is the order
        on the wire; `RelayClient` writes it at once), and return the broker's answer to come:
        the PUBACK's reason code for QoS 1 (a refusal when ``is_failure``: 0x80 or more), None
        for QoS 0, which nothing answers.
        It fails with ``MqttError`` when paho cannot send the message or no PUBACK comes within
        the client's timeout; cancelling it only stops the wait."""
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[ReasonCode | None] = loop.create_future()
        info = self._client.publish(topic, payload, qos, retain)
        if info.rc != paho_mqtt.MQTT_ERR_SUCCESS:
            answer.set_exception(aiomqtt.MqttCodeError(info.rc, "Could not publish message"))
            return answer
        if qos == 0:
            answer.set_result(None)
            return answer
        # paho reads the PUBACK in this thread's event loop, never within publish(): the
        # future is in place before it can come.
        mid = info.mid
        self._acks[mid] = answer
        timer = loop.call_later(self.timeout, _time_out, answer)

        def forget(_: asyncio.Future[ReasonCode | None]) -> None:
            timer.cancel()
            if self._acks.get(mid) is answer:
                del self._acks[mid]

        answer.add_done_callback(forget)
        return answer

    async def publish_acked(
        self, topic: str, payload: bytes, *, qos: int, retain: bool
    ) -> ReasonCode | None:
        """`start_publish`, awaited."""
        return await self.start_publish(topic, payload, qos=qos, retain=retain)

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


def _time_out(answer: asyncio.Future[ReasonCode | None]) -> None:
    """No PUBACK within the client's timeout."""
    if not answer.done():
        answer.set_exception(aiomqtt.MqttError("Operation timed out"))


def reason_text(code: ReasonCode) -> str:
    """A reason code as the log and the alerts give it: paho's name and the number."""
    return f"{code.getName()} (0x{code.value:02x})"


async def checked(call: Awaitable[T]) -> T:
    """Await ``call`` without losing a cancellation of the calling task.

    aiomqtt waits with ``asyncio.wait_for``, which on Python 3.11 returns the result instead of
    raising when the task is cancelled in the same loop iteration the awaited operation
    completes (cpython gh-86296; 3.12 rewrote wait_for, GH-96764). ``Task.cancelling()`` still
    counts the request, so re-raise it here: the relay's tasks must end when cancelled.
    """
    result = await call
    if being_cancelled():
        raise asyncio.CancelledError
    return result


def being_cancelled() -> bool:
    """Whether someone asked to cancel the current task (even if the request got swallowed)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def abort(client: AckedClient) -> None:
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


def settle_and_abort(client: AckedClient, connecting: asyncio.Future[Any]) -> None:
    """Done-callback for a connect attempt abandoned by cancellation."""
    if not connecting.cancelled():
        connecting.exception()  # retrieve it; the attempt no longer matters
    abort(client)
