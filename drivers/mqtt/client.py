"""The controller's MQTT link (paho-mqtt, MQTT 3.1.1): will, subscriptions, reconnects.

One :class:`MqttLink` per table. It connects in the background and keeps reconnecting with
back-off while the broker is away; each (re)connection calls ``on_connected`` so the table
republishes its whole state under a new birth counter, and every message that arrives on a
subscribed topic goes to ``on_message`` (in paho's network thread: queue it and return).
While the broker is away, publishing drops messages rather than queueing them: the states
republished at the next birth replace them, so a display never receives a stale backlog.
The will marks the table ``offline`` (retained) if the controller dies.

A login the broker refuses (a wrong user or password, a client it does not authorise) is
not retried: the same login would get the same answer every few seconds, unseen. The link
stops, keeps the broker's reason in :attr:`MqttLink.refused` and tells ``on_refused``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion

from controller.errors import ConfigError

__all__ = ["BrokerAddress", "MqttLink", "parse_broker_url"]

#: how long :meth:`MqttLink.flush` sleeps between looks at the client's queue
FLUSH_POLL_SECONDS = 0.00005

#: CONNACK refusals no retry mends (paho's reason codes for MQTT 3.1.1's return codes 1, 2,
#: 4 and 5: protocol version, client id, user name or password, not authorised); the other
#: one, 3 (server unavailable), is retried
REFUSALS = frozenset({0x84, 0x85, 0x86, 0x87})


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is and how to log in."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    websockets: bool = False

    def url(self) -> str:
        """The address as a URL without the password (for logs and status)."""
        scheme = "ws" if self.websockets else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


def parse_broker_url(url: str) -> BrokerAddress:
    """``mqtt://[user[:password]@]host[:port]`` (or ``ws://``) → :class:`BrokerAddress`.

    >>> address = parse_broker_url("mqtt://controller:pw@127.0.0.1:18830")
    >>> address.host, address.port, address.username, address.password
    ('127.0.0.1', 18830, 'controller', 'pw')
    >>> parse_broker_url("localhost")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    controller.errors.ConfigError: broker URL 'localhost': expected mqtt://...
    """
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError as error:  # an IPv6 host not closed: 'mqtt://[::1'
        raise ConfigError(f"broker URL {url!r}: expected mqtt://host[:port]; {error}") from None
    if len(url) > 2048 or (hostname is not None and len(hostname) > 253):
        raise ConfigError(
            f"broker URL {url[:80]!r}…: expected a host name of at most 253 characters"
        )
    if parts.scheme not in ("mqtt", "tcp", "ws") or not hostname:
        raise ConfigError(
            f"broker URL {url!r}: expected mqtt://[user[:password]@]host[:port] or ws://..."
        )
    websockets = parts.scheme == "ws"
    try:
        port = parts.port
    except ValueError as error:
        raise ConfigError(f"broker URL {url!r}: {error}") from None
    if port == 0:  # not "no port": a broker listens on a port of its own
        raise ConfigError(f"broker URL {url!r}: expected a port from 1 to 65535, got 0")
    if port is None:
        port = 80 if websockets else 1883
    return BrokerAddress(
        host=hostname,
        port=port,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        websockets=websockets,
    )


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send each message at once: Nagle's algorithm would hold a card event back behind the
    unacknowledged states before it, up to a delayed ACK's 40 ms."""
    with contextlib.suppress(AttributeError, OSError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _Client(mqtt.Client):
    """A paho client whose queue another thread may write to the socket (:meth:`send_queued`).

    paho's network thread writes whatever is queued once it wakes up; on a busy machine that
    wake-up is a hand-over between threads on a message's path (0.05-0.1 ms, up to about
    1 ms at p99). :meth:`send_queued` writes the queue at once from the calling thread,
    under one lock with the network thread's writes, so packets never interleave and a
    partial write is finished, in order, by whichever thread writes next. Only on a plain
    TCP socket: a TLS or WebSocket connection is read and written by the network thread
    alone.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._write_lock = threading.Lock()
        self.sent_directly = 0  # times another thread wrote the queue itself
        #: why the last try to reach the broker failed (paho swallows it and retries)
        self.connect_error: OSError | None = None

    def reconnect(self) -> MQTTErrorCode:
        try:
            return super().reconnect()
        except OSError as error:  # kept for the words: paho calls on_connect_fail, then retries
            self.connect_error = error
            raise

    def _packet_write(self) -> MQTTErrorCode:
        with self._write_lock:
            return super()._packet_write()

    def send_queued(self) -> None:
        """Write what is queued now, in this thread (a failure is the network thread's to
        find: the packet stays queued)."""
        if type(self._sock) is not socket.socket:
            return
        with self._write_lock:
            super()._packet_write()
        self.sent_directly += 1


class MqttLink:
    """A paho client with a retained will, QoS 1 subscriptions and reconnection."""

    def __init__(
        self,
        address: BrokerAddress,
        client_id: str,
        *,
        subscriptions: Iterable[str] = (),
        will: tuple[str, bytes] | None = None,
        on_connected: Callable[[], None] | None = None,
        on_disconnected: Callable[[str], None] | None = None,
        on_message: Callable[[str, bytes], None] | None = None,
        on_retained: Callable[[str, bytes], None] | None = None,
        on_refused: Callable[[str], None] | None = None,
        keepalive: int = 10,
        backoff: tuple[int, int] = (1, 5),
    ) -> None:
        self.address = address
        self.subscriptions = tuple(subscriptions)
        self.on_connected = on_connected
        self.on_disconnected = on_disconnected
        self.on_message = on_message
        # a message the broker kept (its RETAIN flag set: sent because of a new subscription,
        # not relayed live); without this callback, on_message gets it like any other
        self.on_retained = on_retained
        self.on_refused = on_refused
        self.keepalive = keepalive
        self.backoff = backoff  # the least and the most seconds between tries to reconnect
        self.refused: str | None = None  # the broker's reason, once it refused the login
        self._answered = threading.Condition()  # notified at each CONNACK
        self._connected = threading.Event()
        self._subscribed = threading.Event()
        self._subscribe_mid: int | None = None
        self.connects = 0
        # why the broker was last out of reach, in plain words: the system's reason a try to
        # reach it failed (refused, a name that does not resolve), or why it was lost
        self.down_reason = ""
        self.dropped = 0
        self.last_error = ""
        client = _Client(
            CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=True,
            protocol=MQTTProtocolVersion.MQTTv311,
            transport="websockets" if address.websockets else "tcp",
        )
        if address.username is not None:
            client.username_pw_set(address.username, address.password)
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(*backoff)
        client.max_inflight_messages_set(1000)
        client.on_connect = self._on_connect
        client.on_socket_open = _no_delay
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        self._client = client

    @property
    def connected(self) -> bool:
        """Whether the broker has accepted the connection (and not lost it since)."""
        return self._connected.is_set()

    @property
    def active(self) -> bool:
        """Whether the link is connected or still trying to be (False once stopped, or once
        the broker refused the login: nothing more is tried)."""
        thread = getattr(self._client, "_thread", None)
        return thread is not None and thread.is_alive()

    def start(self) -> None:
        """Connect in the background (retrying until the broker answers)."""
        self._client.connect_async(self.address.host, self.address.port, self.keepalive)
        self._client.loop_start()

    def wait_connected(self, timeout: float) -> bool:
        """Wait until connected; whether that happened in time (``False`` at once when the
        broker refused the login: see :attr:`refused`)."""
        with self._answered:
            self._answered.wait_for(
                lambda: self._connected.is_set() or self.refused is not None, timeout
            )
        return self._connected.is_set()

    def wait_subscribed(self, timeout: float) -> bool:
        """Wait until the broker acknowledged this connection's subscriptions (a reply sent
        after that reaches us); whether that happened in time."""
        return self._subscribed.wait(timeout)

    def publish(self, topic: str, payload: bytes, *, retain: bool = False, qos: int = 1) -> bool:
        """Publish (paho's network thread writes it; :meth:`flush` to write it at once);
        ``False`` (and the message dropped) while disconnected."""
        if not self._connected.is_set():
            self.dropped += 1
            return False
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            self.dropped += 1
            return False
        return True

    def flush(self, timeout: float) -> bool:
        """Write everything published so far to the broker's socket now, in this thread (on
        a plain TCP connection), or else yield the interpreter to the network thread until it
        has, for at most ``timeout`` seconds; whether it was written.

        The running table calls it right after a card's public event, before it builds the
        other audiences' states: otherwise the event waits in the client's queue for the
        network thread to wake up and get the interpreter, which the table's thread holds
        while it builds (up to Python's switch interval, 5 ms). Bulk messages are left to
        the network thread: writing each one here costs more than it saves.
        """
        if not self._connected.is_set():
            return False
        self._client.send_queued()
        deadline = time.monotonic() + timeout
        while self._client.want_write():
            if time.monotonic() >= deadline:
                return False
            time.sleep(FLUSH_POLL_SECONDS)
        return True

    def stop(self, farewell: tuple[str, bytes] | None = None, timeout: float = 2.0) -> None:
        """Publish ``farewell`` (retained) if connected, disconnect cleanly, stop the thread."""
        if farewell is not None and self._connected.is_set():
            info = self._client.publish(farewell[0], farewell[1], qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self._client.disconnect()
        self._client.loop_stop()
        self._connected.clear()

    # -- paho callbacks (network thread) ------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:  # fmt: skip
        if reason.is_failure:
            self.last_error = f"broker refused the connection: {reason}"
            if int(reason.value) in REFUSALS:
                client.disconnect()  # no retry: the same login would get the same answer
                with self._answered:
                    self.refused = str(reason)
                    self._answered.notify_all()
                if self.on_refused is not None:
                    self.on_refused(self.last_error)
            return
        self.connects += 1
        if self.subscriptions:
            _, self._subscribe_mid = client.subscribe([(t, 1) for t in self.subscriptions])
        else:
            self._subscribed.set()
        with self._answered:
            self._connected.set()
            self._answered.notify_all()
        if self.on_connected is not None:
            self.on_connected()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        error = self._client.connect_error
        self.down_reason = (error.strerror or str(error)) if error is not None else "no answer"
        self.last_error = f"cannot reach the broker: {self.down_reason}"

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:  # fmt: skip
        was = self._connected.is_set()
        self._connected.clear()
        self._subscribed.clear()
        if reason.is_failure:  # paho calls a connection closed under it "Unspecified error"
            text = str(reason)
            self.down_reason = "its connection closed" if text == "Unspecified error" else text
        if was or not self.last_error:  # keep why a login was refused
            lost = f"lost the broker: {self.down_reason}"
            self.last_error = lost if reason.is_failure else ""
        if was and self.on_disconnected is not None:
            self.on_disconnected(self.last_error or "disconnected")

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:  # fmt: skip
        if mid != self._subscribe_mid:
            return
        refused = [t for t, r in zip(self.subscriptions, reasons, strict=False) if r.is_failure]
        if refused:  # Mosquitto grants and filters instead; other brokers may refuse
            self.last_error = f"the broker refused the subscription to {', '.join(refused)}"
        self._subscribed.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        if message.retain and self.on_retained is not None:
            self.on_retained(message.topic, bytes(message.payload))
        elif self.on_message is not None:
            self.on_message(message.topic, bytes(message.payload))
