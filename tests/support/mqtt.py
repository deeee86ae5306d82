"""A paho MQTT 3.1.1 client for tests: it records what arrives and every wait is bounded."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import paho.mqtt.client as mqtt
from paho.mqtt.reasoncodes import ReasonCode

from drivers.mqtt.broker import DEV_USERS
from drivers.mqtt.embedded import topic_matches

WAIT = 3.0
"""The longest a test waits for something that should happen (loopback: it takes milliseconds)."""

_ids = itertools.count(1)


@dataclass(frozen=True)
class Received:
    """One message as a client received it."""

    topic: str
    payload: bytes
    qos: int
    retain: bool


class Probe:
    """A paho client (MQTT 3.1.1) that records messages and waits with a timeout.

    ``user`` logs in with its development password from ``DEV_USERS`` unless ``password`` is
    given. After a reconnect (``reconnect=True``) it subscribes again to what it had.
    """

    def __init__(
        self,
        port: int,
        user: str | None = None,
        password: str | None = None,
        *,
        host: str = "127.0.0.1",
        transport: Literal["tcp", "websockets"] = "tcp",
        client_id: str | None = None,
        clean_session: bool = True,
        keepalive: int = 60,
        will: tuple[str, bytes, int, bool] | None = None,
        reconnect: bool = False,
    ) -> None:
        self.port, self.host, self.keepalive = port, host, keepalive
        self.user = user
        self.client_id = client_id or f"probe-{user or 'anon'}-{next(_ids)}"
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=clean_session,
            protocol=mqtt.MQTTv311,
            transport=transport,
            reconnect_on_failure=reconnect,
        )
        if user is not None:
            self.client.username_pw_set(user, DEV_USERS.get(user) if password is None else password)
        if will is not None:
            self.client.will_set(*will)
        if reconnect:
            self.client.reconnect_delay_set(min_delay=0.1, max_delay=0.5)  # type: ignore[arg-type]
        self._cond = threading.Condition()
        self._received: list[Received] = []
        self._connacks: list[ReasonCode] = []
        self._subacks: dict[int, list[int]] = {}
        self._filters: dict[str, int] = {}
        self._resubscribing: int | None = None  # the mid of a resubscription awaiting its SUBACK
        self.disconnects = 0
        self.session_present: list[bool] = []
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe

    # -- callbacks (paho's thread)

    def _on_connect(
        self, client: mqtt.Client, _u: Any, flags: Any, rc: ReasonCode, _p: Any
    ) -> None:
        with self._cond:
            self._connacks.append(rc)
            self.session_present.append(bool(flags.session_present))
            again = list(self._filters.items()) if not rc.is_failure else []
            again = again if len(self._connacks) > 1 and not flags.session_present else []
            if again:
                self._resubscribing = -1  # until the SUBACK: a publish now could be missed
            self._cond.notify_all()
        if again:
            _result, mid = client.subscribe(again)
            with self._cond:
                if self._resubscribing == -1:
                    self._resubscribing = mid
                elif mid in self._subacks:  # the SUBACK beat us here
                    self._resubscribing = None

    def _on_disconnect(self, *_args: Any) -> None:
        with self._cond:
            self.disconnects += 1
            self._cond.notify_all()

    def _on_message(self, _c: mqtt.Client, _u: Any, message: mqtt.MQTTMessage) -> None:
        with self._cond:
            self._received.append(
                Received(message.topic, message.payload, message.qos, bool(message.retain))
            )
            self._cond.notify_all()

    def _on_subscribe(
        self, _c: mqtt.Client, _u: Any, mid: int, codes: list[ReasonCode], _p: Any
    ) -> None:
        with self._cond:
            self._subacks[mid] = [int(code.value) for code in codes]
            if self._resubscribing == mid:
                self._resubscribing = None
            self._cond.notify_all()

    # -- waiting

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not ready():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.client_id}: {what} within {timeout:g} s")
                self._cond.wait(left)

    # -- actions

    def connect(self, timeout: float = WAIT) -> ReasonCode:
        """Connect and return the CONNACK's reason (``== 0`` when accepted)."""
        before = len(self._connacks)
        self.client.connect(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()
        self._wait(lambda: len(self._connacks) > before, "no CONNACK", timeout)
        return self._connacks[before]

    @property
    def connects(self) -> int:
        """How many CONNACKs that accepted the client arrived."""
        with self._cond:
            return sum(1 for rc in self._connacks if not rc.is_failure)

    def wait_connects(self, count: int, timeout: float = WAIT) -> None:
        """Wait until ``count`` accepted CONNACKs arrived (reconnects included).

        After a reconnect it also waits for the SUBACK of the resubscription, so a message
        published next is one the broker routes to this client.
        """
        self._wait(
            lambda: self.connects >= count and self._resubscribing is None,
            f"not connected {count} times (and subscribed again)",
            timeout,
        )

    def subscribe(self, *filters: str, qos: int = 1, timeout: float = WAIT) -> list[int]:
        """Subscribe and return the SUBACK codes (0-2 granted QoS, 0x80 refused)."""
        result, mid = self.client.subscribe([(f, qos) for f in filters])
        assert result == mqtt.MQTT_ERR_SUCCESS, f"subscribe failed: {result}"
        for f in filters:
            self._filters[f] = qos
        self._wait(lambda: mid in self._subacks, f"no SUBACK for {filters}", timeout)
        return self._subacks[mid]

    def unsubscribe(self, *filters: str, timeout: float = WAIT) -> None:
        """Unsubscribe (and wait for the UNSUBACK)."""
        done = threading.Event()
        self.client.on_unsubscribe = lambda *_: done.set()
        self.client.unsubscribe(list(filters))
        for f in filters:
            self._filters.pop(f, None)
        assert done.wait(timeout), f"no UNSUBACK for {filters}"

    def publish(
        self,
        topic: str,
        payload: bytes | str,
        qos: int = 1,
        retain: bool = False,
        timeout: float = WAIT,
    ) -> None:
        """Publish; return once the broker acknowledged it (QoS > 0) or it was written (QoS 0)."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        info.wait_for_publish(timeout)
        assert info.is_published(), f"{self.client_id}: {topic} not acknowledged in {timeout:g} s"

    def expect(
        self, topic: str, payload: bytes | str | None = None, timeout: float = WAIT
    ) -> Received:
        """The first message on ``topic`` (with ``payload`` if given), waiting for it."""
        want = payload.encode() if isinstance(payload, str) else payload

        def found() -> Received | None:
            return next(
                (
                    m
                    for m in self._received
                    if m.topic == topic and (want is None or m.payload == want)
                ),
                None,
            )

        self._wait(lambda: found() is not None, f"nothing on {topic} ({want!r})", timeout)
        message = found()
        assert message is not None
        return message

    def messages(self, topic_filter: str = "#") -> list[Received]:
        """What arrived so far on topics matching ``topic_filter``, in order."""
        with self._cond:
            return [m for m in self._received if topic_matches(topic_filter, m.topic)]

    def wait_messages(self, topic_filter: str, count: int, timeout: float = WAIT) -> list[Received]:
        """:meth:`messages` once at least ``count`` arrived on ``topic_filter``, waiting
        (each message is looked at once, however many arrive)."""
        seen, matched = 0, 0

        def enough() -> bool:
            nonlocal seen, matched
            fresh = self._received[seen:]
            seen += len(fresh)
            matched += sum(topic_matches(topic_filter, m.topic) for m in fresh)
            return matched >= count

        self._wait(enough, f"fewer than {count} messages on {topic_filter}", timeout)
        return self.messages(topic_filter)

    def topics(self) -> set[str]:
        """The topics of every message so far."""
        return {m.topic for m in self.messages()}

    def clear(self) -> None:
        """Forget the messages received so far."""
        with self._cond:
            self._received.clear()

    def close(self) -> None:
        """Disconnect cleanly (no will) and stop the network thread."""
        self.client.disconnect()
        self.client.loop_stop()

    def drop(self) -> None:
        """Lose the connection without DISCONNECT, so the broker publishes the will."""
        sock = self.client.socket()
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)  # paho's loop sees the socket die and ends
        self.client.loop_stop()
        if isinstance(sock, socket.socket):
            sock.close()
