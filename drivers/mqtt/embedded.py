"""An in-process MQTT 3.1.1 broker: the demo's default when no Mosquitto is installed.

:class:`EmbeddedBroker` runs an asyncio server in a background thread on 127.0.0.1. It speaks
the part of MQTT 3.1.1 that tablectl and its clients use: CONNECT (clean and persistent
sessions, wills, optional user names and passwords), PUBLISH at QoS 0, 1 and 2 inbound and up
to QoS 1 outbound (a subscription asking for QoS 2 is granted QoS 1, as the protocol allows),
SUBSCRIBE and UNSUBSCRIBE with ``+`` and ``#``, retained messages, PINGREQ, DISCONNECT and
keep-alive. It has no ACL, no WebSocket listener and keeps nothing on disk: production runs
Mosquitto with ``config/mosquitto/``.

Why not amqtt: its 0.12.1 broker sends a newly connecting client the retained messages of every
topic filter any client ever subscribed to (it walks the broker-wide subscription list on
connect), so a display would receive other audiences' retained topics; it also pins an exact
``websockets`` version and brings about twenty packages. This module is stdlib only.

The codec helpers (:func:`topic_matches`, :func:`valid_filter`, :func:`encode_length`) are
pure; the server owns the sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeVar

from drivers.mqtt.broker import HOST, BrokerError

__all__ = [
    "EmbeddedBroker",
    "encode_length",
    "topic_matches",
    "valid_filter",
    "valid_topic",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

# Packet types (MQTT 3.1.1 section 2.2.1).
CONNECT, CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP = 1, 2, 3, 4, 5, 6, 7
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT = (
    8,
    9,
    10,
    11,
    12,
    13,
    14,
)

# CONNACK return codes.
ACCEPTED, BAD_PROTOCOL, BAD_CLIENT_ID, BAD_CREDENTIALS, NOT_AUTHORIZED = 0, 1, 2, 4, 5

MAX_GRANTED_QOS = 1
"""Outbound messages are sent at QoS 0 or 1."""

SUBACK_FAILURE = 0x80


# ------------------------------------------------------------------------ codec


def encode_length(n: int) -> bytes:
    """The variable-length "remaining length" of a fixed header.

    >>> encode_length(0), encode_length(127), encode_length(128), encode_length(16383)
    (b'\\x00', b'\\x7f', b'\\x80\\x01', b'\\xff\\x7f')
    """
    if not 0 <= n <= 268_435_455:
        raise ValueError(f"an MQTT packet is at most 268435455 bytes long; got {n}")
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def valid_topic(topic: str) -> bool:
    """A topic name a client may publish to: not empty, no wildcards, no NUL.

    >>> valid_topic("tablectl/T1/state"), valid_topic("tablectl/+/state"), valid_topic("")
    (True, False, False)
    """
    return (
        0 < len(topic.encode()) <= 65535
        and "+" not in topic
        and "#" not in topic
        and "\0" not in topic
    )


def valid_filter(topic_filter: str) -> bool:
    """A topic filter: ``+`` fills a whole level, ``#`` a whole last level.

    >>> [valid_filter(f) for f in ("a/+/c", "a/#", "#", "a/b#", "a/#/c", "a+", "")]
    [True, True, True, False, False, False, False]
    """
    if not topic_filter or "\0" in topic_filter or len(topic_filter.encode()) > 65535:
        return False
    levels = topic_filter.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return False
        if "+" in level and level != "+":
            return False
    return True


def topic_matches(topic_filter: str, topic: str) -> bool:
    """True if ``topic`` matches the (valid) ``topic_filter``.

    ``#`` also matches its parent level, and wildcards in the first level never match
    topics that start with ``$``.

    >>> topic_matches("tablectl/+/state", "tablectl/T1/state")
    True
    >>> topic_matches("tablectl/+/state", "tablectl/T1/seat/3/state")
    False
    >>> topic_matches("tablectl/T1/#", "tablectl/T1"), topic_matches("#", "$SYS/uptime")
    (True, False)
    """
    if topic.startswith("$") and topic_filter[:1] in ("+", "#"):
        return False
    wanted = topic_filter.split("/")
    levels = topic.split("/")
    for i, level in enumerate(wanted):
        if level == "#":
            return True
        if i >= len(levels) or (level != "+" and level != levels[i]):
            return False
    return len(wanted) == len(levels)


class _Malformed(Exception):
    """A packet that breaks the protocol: the connection is closed."""


class _Cursor:
    """Reads the fields of one packet body."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def u8(self) -> int:
        if self.at + 1 > len(self.data):
            raise _Malformed("packet ends inside a byte field")
        self.at += 1
        return self.data[self.at - 1]

    def u16(self) -> int:
        if self.at + 2 > len(self.data):
            raise _Malformed("packet ends inside a two-byte field")
        self.at += 2
        return int.from_bytes(self.data[self.at - 2 : self.at], "big")

    def binary(self) -> bytes:
        size = self.u16()
        if self.at + size > len(self.data):
            raise _Malformed("packet ends inside a length-prefixed field")
        self.at += size
        return self.data[self.at - size : self.at]

    def string(self) -> str:
        try:
            text = self.binary().decode("utf-8")
        except UnicodeDecodeError:
            raise _Malformed("a string is not UTF-8") from None
        if "\0" in text:
            raise _Malformed("a string contains U+0000")
        return text

    def rest(self) -> bytes:
        out, self.at = self.data[self.at :], len(self.data)
        return out

    def done(self) -> bool:
        return self.at >= len(self.data)


def _string(text: str) -> bytes:
    data = text.encode()
    return len(data).to_bytes(2, "big") + data


def _packet(kind: int, flags: int, body: bytes = b"") -> bytes:
    return bytes([kind << 4 | flags]) + encode_length(len(body)) + body


def _publish_packet(
    topic: str, payload: bytes, qos: int, retain: bool, mid: int, dup: bool
) -> bytes:
    flags = (0x08 if dup else 0) | qos << 1 | (0x01 if retain else 0)
    body = _string(topic) + (mid.to_bytes(2, "big") if qos else b"") + payload
    return _packet(PUBLISH, flags, body)


# ---------------------------------------------------------------------- sessions


@dataclass
class _Message:
    """An application message on its way to one client."""

    topic: str
    payload: bytes
    qos: int
    retain: bool = False


@dataclass
class _Will:
    topic: str
    payload: bytes
    qos: int
    retain: bool


@dataclass
class _Session:
    """What the broker keeps for one client id (beyond its connection if not clean)."""

    client_id: str
    clean: bool
    subscriptions: dict[str, int] = field(default_factory=dict)
    pending: deque[_Message] = field(default_factory=deque)  # waiting for an in-flight slot
    inflight: dict[int, _Message] = field(default_factory=dict)  # sent at QoS 1, not acked
    received_qos2: set[int] = field(default_factory=set)  # PUBREC sent, PUBREL awaited
    next_mid: int = 1
    connection: _Connection | None = None

    def new_mid(self) -> int:
        while True:
            mid = self.next_mid
            self.next_mid = mid % 65535 + 1
            if mid not in self.inflight:
                return mid


class _Connection:
    """One client's network connection."""

    def __init__(
        self, core: _Core, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.core = core
        self.reader = reader
        self.writer = writer
        self.session: _Session | None = None
        self.will: _Will | None = None
        self.keepalive = 0
        self.closed = False
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)

    @property
    def name(self) -> str:
        return self.session.client_id if self.session else f"<{self.peer}>"

    def send(self, data: bytes) -> None:
        """Queue bytes for the client; a client that stops reading is dropped."""
        if self.closed or self.writer.is_closing():
            return
        self.writer.write(data)
        if self.writer.transport.get_write_buffer_size() > self.core.max_buffer:
            log.warning("%s: not reading its messages; dropped", self.name)
            self.abort()

    def abort(self) -> None:
        """Close the socket now; the read loop ends and the will is published."""
        self.closed = True
        self.writer.transport.abort()


class _Core:
    """The broker's state: sessions, retained messages, live connections (loop thread only)."""

    def __init__(self, users: Mapping[str, str] | None, max_inflight: int, max_queued: int) -> None:
        self.users = dict(users) if users is not None else None
        self.max_inflight = max_inflight
        self.max_queued = max_queued
        self.max_buffer = 8 * 1024 * 1024
        self.max_packet = 16 * 1024 * 1024
        self.sessions: dict[str, _Session] = {}
        self.retained: dict[str, _Message] = {}
        self.connections: set[_Connection] = set()
        self.ids = itertools.count(1)

    # -- routing

    def route(self, message: _Message) -> None:
        """Store a retained message and deliver ``message`` to every matching subscription."""
        if message.retain:
            if message.payload:
                self.retained[message.topic] = _Message(
                    message.topic, message.payload, message.qos, retain=True
                )
            else:
                self.retained.pop(message.topic, None)
        for session in self.sessions.values():
            granted = max(
                (
                    qos
                    for topic_filter, qos in session.subscriptions.items()
                    if topic_matches(topic_filter, message.topic)
                ),
                default=None,
            )
            if granted is not None:
                qos = min(message.qos, granted)
                self.deliver(session, _Message(message.topic, message.payload, qos))

    def deliver(self, session: _Session, message: _Message) -> None:
        """Send now, or hold in the session (QoS 1 only while offline, as Mosquitto does)."""
        connection = session.connection
        if connection is None:
            if message.qos and not session.clean and len(session.pending) < self.max_queued:
                session.pending.append(message)
            return
        if session.pending or (message.qos and len(session.inflight) >= self.max_inflight):
            # behind messages that wait for an in-flight slot, whatever its QoS: in order
            if len(session.pending) < self.max_queued:
                session.pending.append(message)
            else:
                log.warning(
                    "%s: queue full; a message to %s dropped", session.client_id, message.topic
                )
        elif message.qos == 0:
            connection.send(
                _publish_packet(message.topic, message.payload, 0, message.retain, 0, False)
            )
        else:
            self._send_qos1(session, connection, message, dup=False)

    def _send_qos1(
        self, session: _Session, connection: _Connection, message: _Message, *, dup: bool
    ) -> None:
        mid = session.new_mid()
        session.inflight[mid] = message
        connection.send(
            _publish_packet(message.topic, message.payload, 1, message.retain, mid, dup)
        )

    def pump(self, session: _Session) -> None:
        """Move held messages into free in-flight slots."""
        connection = session.connection
        while connection and session.pending and len(session.inflight) < self.max_inflight:
            message = session.pending.popleft()
            if message.qos == 0:
                connection.send(
                    _publish_packet(message.topic, message.payload, 0, message.retain, 0, False)
                )
            else:
                self._send_qos1(session, connection, message, dup=False)

    # -- one connection

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one client until it disconnects, breaks the protocol or goes quiet."""
        connection = _Connection(self, reader, writer)
        self.connections.add(connection)
        graceful = False
        try:
            graceful = await self._serve(connection)
        except (_Malformed, ValueError) as error:
            log.warning("%s: protocol error: %s; connection closed", connection.name, error)
        except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
            pass
        except asyncio.CancelledError:
            graceful = True  # the broker is stopping: no wills
            raise
        finally:
            self._closed(connection, graceful)

    async def _read_packet(self, connection: _Connection) -> tuple[int, int, bytes]:
        timeout = connection.keepalive * 1.5 if connection.keepalive else None
        if connection.session is None:
            timeout = 10.0  # the CONNECT must come promptly
        async with asyncio.timeout(timeout):
            first = (await connection.reader.readexactly(1))[0]
            length = 0
            for shift in range(0, 28, 7):
                digit = (await connection.reader.readexactly(1))[0]
                length |= (digit & 0x7F) << shift
                if not digit & 0x80:
                    break
            else:
                raise _Malformed("remaining length longer than four bytes")
            if length > self.max_packet:
                raise _Malformed(f"a packet of {length} bytes is over the {self.max_packet} limit")
            body = await connection.reader.readexactly(length)
        return first >> 4, first & 0x0F, body

    async def _serve(self, connection: _Connection) -> bool:
        kind, flags, body = await self._read_packet(connection)
        if kind != CONNECT:
            raise _Malformed(f"the first packet must be CONNECT, not type {kind}")
        if flags:
            raise _Malformed("CONNECT flags must be 0")
        if not self._connect(connection, _Cursor(body)):
            await connection.writer.drain()
            return True
        while True:
            kind, flags, body = await self._read_packet(connection)
            expected_flags = 2 if kind in (PUBREL, SUBSCRIBE, UNSUBSCRIBE) else 0
            if kind != PUBLISH and flags != expected_flags:
                raise _Malformed(f"packet type {kind} with flags {flags:#x}")
            cursor = _Cursor(body)
            if kind == PUBLISH:
                self._publish(connection, flags, cursor)
            elif kind == PUBACK:
                self._puback(connection, cursor)
            elif kind == PUBREL:
                mid = cursor.u16()
                assert connection.session is not None
                connection.session.received_qos2.discard(mid)
                connection.send(_packet(PUBCOMP, 0, mid.to_bytes(2, "big")))
            elif kind in (PUBREC, PUBCOMP):
                cursor.u16()  # we never send QoS 2; nothing to do
            elif kind == SUBSCRIBE:
                self._subscribe(connection, cursor)
            elif kind == UNSUBSCRIBE:
                self._unsubscribe(connection, cursor)
            elif kind == PINGREQ:
                connection.send(_packet(PINGRESP, 0))
            elif kind == DISCONNECT:
                return True
            else:
                raise _Malformed(f"unexpected packet type {kind}")

    def _connect(self, connection: _Connection, cursor: _Cursor) -> bool:
        """Handle CONNECT; True if the client is accepted."""
        name, level = cursor.string(), cursor.u8()
        if name != "MQTT" or level != 4:
            # MQTT 3.1.1 only ("MQIsdp" 3 is 3.1, level 5 is MQTT 5)
            log.info("%s: refused protocol %s level %d", connection.peer, name, level)
            connection.send(_packet(CONNACK, 0, bytes([0, BAD_PROTOCOL])))
            return False
        flags = cursor.u8()
        connection.keepalive = cursor.u16()
        if flags & 0x01:
            raise _Malformed("CONNECT reserved flag set")
        clean = bool(flags & 0x02)
        has_will, will_qos, will_retain = (
            bool(flags & 0x04),
            (flags >> 3) & 0x03,
            bool(flags & 0x20),
        )
        has_user, has_password = bool(flags & 0x80), bool(flags & 0x40)
        if not has_will and (will_qos or will_retain):
            raise _Malformed("will QoS or retain set without a will")
        if will_qos > 2:
            raise _Malformed("will QoS 3")
        if has_password and not has_user:
            raise _Malformed("a password without a user name")
        client_id = cursor.string()
        will = None
        if has_will:
            topic, payload = cursor.string(), cursor.binary()
            if not valid_topic(topic):
                raise _Malformed(f"will topic {topic!r} is not a topic name")
            will = _Will(topic, payload, will_qos, will_retain)
        user = cursor.string() if has_user else None
        password = cursor.binary() if has_password else None
        if not cursor.done():
            raise _Malformed("bytes after the CONNECT payload")

        if not client_id:
            if not clean:
                connection.send(_packet(CONNACK, 0, bytes([0, BAD_CLIENT_ID])))
                return False
            client_id = f"embedded-{next(self.ids)}"
        if self.users is not None:
            code = self._authenticate(user, password)
            if code != ACCEPTED:
                log.info("%s: login as %r refused", connection.peer, user)
                connection.send(_packet(CONNACK, 0, bytes([0, code])))
                return False

        old = self.sessions.get(client_id)
        if old is not None and old.connection is not None:
            log.info("%s: taken over by a new connection", client_id)
            old.connection.abort()
            self._detach(old.connection, graceful=False)
            old = self.sessions.get(client_id)
        if clean or old is None:
            session = _Session(client_id, clean)
            self.sessions[client_id] = session
            present = False
        else:
            session = old
            present = True
        session.connection = connection
        connection.session = session
        connection.will = will
        connection.send(_packet(CONNACK, 0, bytes([int(present), ACCEPTED])))
        log.debug("%s connected from %s (clean %s)", client_id, connection.peer, clean)
        if present:
            # resend what was in flight, then what waited
            for mid, message in list(session.inflight.items()):
                connection.send(
                    _publish_packet(message.topic, message.payload, 1, message.retain, mid, True)
                )
            self.pump(session)
        return True

    def _authenticate(self, user: str | None, password: bytes | None) -> int:
        assert self.users is not None
        if user is None:
            return NOT_AUTHORIZED
        expected = self.users.get(user)
        if expected is None or password is None:
            return BAD_CREDENTIALS
        if not hmac.compare_digest(expected.encode(), password):
            return BAD_CREDENTIALS
        return ACCEPTED

    def _publish(self, connection: _Connection, flags: int, cursor: _Cursor) -> None:
        qos, retain, dup = (flags >> 1) & 0x03, bool(flags & 0x01), bool(flags & 0x08)
        if qos == 3:
            raise _Malformed("PUBLISH at QoS 3")
        if qos == 0 and dup:
            raise _Malformed("DUP set on a QoS 0 PUBLISH")
        topic = cursor.string()
        if not valid_topic(topic):
            raise _Malformed(f"{topic!r} is not a topic name")
        mid = cursor.u16() if qos else 0
        if qos and mid == 0:
            raise _Malformed("packet identifier 0")
        payload = cursor.rest()
        session = connection.session
        assert session is not None
        if qos == 2:
            if mid not in session.received_qos2:
                session.received_qos2.add(mid)
                self.route(_Message(topic, payload, qos, retain))
            connection.send(_packet(PUBREC, 0, mid.to_bytes(2, "big")))
            return
        self.route(_Message(topic, payload, qos, retain))
        if qos == 1:
            connection.send(_packet(PUBACK, 0, mid.to_bytes(2, "big")))

    def _puback(self, connection: _Connection, cursor: _Cursor) -> None:
        session = connection.session
        assert session is not None
        session.inflight.pop(cursor.u16(), None)
        self.pump(session)

    def _subscribe(self, connection: _Connection, cursor: _Cursor) -> None:
        session = connection.session
        assert session is not None
        mid = cursor.u16()
        wanted: list[tuple[str, int]] = []
        while not cursor.done():
            topic_filter, options = cursor.string(), cursor.u8()
            if options > 2:
                raise _Malformed(f"SUBSCRIBE options {options:#x}")
            wanted.append((topic_filter, options))
        if not wanted:
            raise _Malformed("SUBSCRIBE with no topic filter")
        codes = bytearray()
        accepted: list[tuple[str, int]] = []
        for topic_filter, qos in wanted:
            if valid_filter(topic_filter):
                granted = min(qos, MAX_GRANTED_QOS)
                session.subscriptions[topic_filter] = granted
                accepted.append((topic_filter, granted))
                codes.append(granted)
            else:
                codes.append(SUBACK_FAILURE)
        connection.send(_packet(SUBACK, 0, mid.to_bytes(2, "big") + bytes(codes)))
        for topic_filter, granted in accepted:
            for retained in list(self.retained.values()):
                if topic_matches(topic_filter, retained.topic):
                    qos = min(retained.qos, granted)
                    self.deliver(
                        session, _Message(retained.topic, retained.payload, qos, retain=True)
                    )

    def _unsubscribe(self, connection: _Connection, cursor: _Cursor) -> None:
        session = connection.session
        assert session is not None
        mid = cursor.u16()
        if cursor.done():
            raise _Malformed("UNSUBSCRIBE with no topic filter")
        while not cursor.done():
            session.subscriptions.pop(cursor.string(), None)
        connection.send(_packet(UNSUBACK, 0, mid.to_bytes(2, "big")))

    # -- endings

    def _detach(self, connection: _Connection, *, graceful: bool) -> None:
        """Unbind a connection from its session, publish its will unless it said goodbye."""
        session, connection.session = connection.session, None
        will, connection.will = connection.will, None
        if session is not None and session.connection is connection:
            session.connection = None
            if session.clean and self.sessions.get(session.client_id) is session:
                del self.sessions[session.client_id]
            log.debug("%s disconnected (%s)", session.client_id, "clean" if graceful else "lost")
        if will is not None and not graceful:
            self.route(_Message(will.topic, will.payload, will.qos, will.retain))

    def _closed(self, connection: _Connection, graceful: bool) -> None:
        self.connections.discard(connection)
        connection.closed = True
        self._detach(connection, graceful=graceful)
        connection.writer.close()


# ------------------------------------------------------------------------ thread


class EmbeddedBroker:
    """An MQTT 3.1.1 broker in a background thread, on 127.0.0.1.

    ``port=0`` (the default) takes a free port at the first :meth:`start`; later starts reuse
    it, so :meth:`stop` then :meth:`start` is a broker restart on the same port. Each start
    begins empty (no sessions, no retained messages), like Mosquitto without persistence.
    ``users`` (name to password) makes every client log in; without it anyone may connect.

    >>> with EmbeddedBroker() as broker:
    ...     broker.url.startswith("mqtt://127.0.0.1:") and broker.port > 0
    True
    """

    def __init__(
        self,
        host: str = HOST,
        port: int = 0,
        *,
        users: Mapping[str, str] | None = None,
        max_inflight: int = 100,
        max_queued: int = 1000,
    ) -> None:
        self._host = host
        self._port = port
        self.users = dict(users) if users is not None else None
        self.max_inflight = max_inflight
        self.max_queued = max_queued
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._core: _Core | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def host(self) -> str:
        """The address the broker listens on."""
        return self._host

    @property
    def port(self) -> int:
        """The TCP port (0 until the first start chose one)."""
        return self._port

    @property
    def url(self) -> str:
        """``mqtt://HOST:PORT``, the form ``--broker`` takes."""
        return f"mqtt://{self._host}:{self._port}"

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout: float = 5.0) -> Self:
        """Listen and serve in a background thread; return once connections are accepted."""
        if self.running:
            raise BrokerError(f"the embedded broker is already running on port {self._port}")
        ready = threading.Event()
        failure: list[BaseException] = []
        self._thread = threading.Thread(
            target=self._run, args=(ready, failure), name="embedded-mqtt-broker", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout):
            raise BrokerError(f"the embedded broker did not start within {timeout:g} s")
        if failure:
            self._thread.join(timeout)
            self._thread = None
            raise BrokerError(
                f"the embedded broker cannot listen on {self._host}:{self._port}: {failure[0]}"
            ) from failure[0]
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close every connection (no wills are sent) and the listener; join the thread."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        if thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout)
            if thread.is_alive():
                raise BrokerError(f"the embedded broker did not stop within {timeout:g} s")
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedBroker({self.url}, {'running' if self.running else 'stopped'})"

    # -- looking inside, for tests and the demo's summary

    def retained(self) -> dict[str, bytes]:
        """The retained messages now held, by topic."""
        return self._call(lambda core: {t: m.payload for t, m in core.retained.items()})

    def clients(self) -> list[str]:
        """The client ids connected now."""
        return self._call(
            lambda core: sorted(c.session.client_id for c in core.connections if c.session)
        )

    def _call(self, read: Callable[[_Core], T], timeout: float = 5.0) -> T:
        loop, core = self._loop, self._core
        if not self.running or loop is None or core is None:
            raise BrokerError("the embedded broker is not running")

        async def inside() -> T:
            return read(core)

        future: Future[T] = asyncio.run_coroutine_threadsafe(inside(), loop)
        return future.result(timeout)

    # -- the thread

    def _run(self, ready: threading.Event, failure: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        core = _Core(self.users, self.max_inflight, self.max_queued)
        self._core = core
        try:
            try:
                self._server = loop.run_until_complete(self._listen(core))
            except OSError as error:
                failure.append(error)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown(core))
        finally:
            loop.close()
            self._server = None

    async def _listen(self, core: _Core) -> asyncio.Server:
        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._spawn(core.serve(reader, writer))

        server = await asyncio.start_server(accepted, self._host, self._port)
        self._port = int(server.sockets[0].getsockname()[1])
        log.info("embedded MQTT broker listening on %s", self.url)
        return server

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _shutdown(self, core: _Core) -> None:
        if self._server is not None:
            self._server.close()
        for connection in list(core.connections):
            connection.abort()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        log.info("embedded MQTT broker on port %d stopped", self._port)
