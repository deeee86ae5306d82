"""The controller's MQTT link against a real Mosquitto: subscriptions, will, reconnects."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from drivers.mqtt.broker import MosquittoBroker
from drivers.mqtt.client import BrokerAddress, MqttLink


def wait_until(ready: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_messages_arrive_and_the_socket_sends_at_once(
    open_mosquitto: MosquittoBroker, mqtt_client: Any, table_id: str
) -> None:
    got: list[tuple[str, bytes]] = []
    connected = threading.Event()
    link = MqttLink(
        BrokerAddress("127.0.0.1", open_mosquitto.port),
        f"link-{table_id}",
        subscriptions=[f"tablectl/{table_id}/cmd/#"],
        on_message=lambda topic, payload: got.append((topic, payload)),
        on_connected=connected.set,
    )
    link.start()
    try:
        assert link.wait_connected(5) and connected.wait(5)
        sock = link._client.socket()
        assert isinstance(sock, socket.socket)
        # a card event must not wait behind an unacknowledged message (Nagle)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        probe = mqtt_client(open_mosquitto)
        probe.subscribe(f"tablectl/{table_id}/state")
        assert wait_until(lambda: link.publish(f"tablectl/{table_id}/state", b"s", retain=True))
        probe.expect(f"tablectl/{table_id}/state", "s")
        assert link.wait_subscribed(5)  # from here on a message to the filter reaches it
        probe.publish(f"tablectl/{table_id}/cmd/dealer", "go")
        assert wait_until(lambda: bool(got))
        assert got == [(f"tablectl/{table_id}/cmd/dealer", b"go")]
    finally:
        link.stop(farewell=(f"tablectl/{table_id}/status", b"offline"))
    assert not link.connected
    assert link.publish("tablectl/x/state", b"late") is False and link.dropped == 1


def test_the_will_marks_a_vanished_controller_offline(
    mosquitto_factory: Callable[..., MosquittoBroker], mqtt_client: Any
) -> None:
    broker = mosquitto_factory(auth=False)
    link = MqttLink(
        BrokerAddress("127.0.0.1", broker.port),
        "link-will",
        will=("tablectl/W1/status", b"offline"),
        keepalive=1,
    )
    link.start()
    assert link.wait_connected(5)
    link.publish("tablectl/W1/status", b"online", retain=True)
    display = mqtt_client(broker)
    display.subscribe("tablectl/W1/status")
    display.expect("tablectl/W1/status", "online")
    sock = link._client.socket()
    assert isinstance(sock, socket.socket)
    sock.shutdown(socket.SHUT_RDWR)  # the connection is cut without a DISCONNECT
    display.expect("tablectl/W1/status", "offline", timeout=5)
    link.stop()


def test_it_reconnects_after_a_broker_restart_and_says_so(
    mosquitto_factory: Callable[..., MosquittoBroker],
) -> None:
    broker = mosquitto_factory(auth=False)
    births: list[int] = []
    lost: list[str] = []
    link = MqttLink(
        BrokerAddress("127.0.0.1", broker.port),
        "link-restart",
        on_connected=lambda: births.append(len(births) + 1),
        on_disconnected=lost.append,
        backoff=(1, 1),
    )
    link.start()
    assert link.wait_connected(5)
    broker.kill()
    assert wait_until(lambda: not link.connected)
    assert link.publish("tablectl/R/state", b"while away") is False  # dropped, not queued
    broker.start()
    assert wait_until(lambda: len(births) == 2, timeout=10), births
    assert link.connected and link.connects == 2 and lost
    link.stop()


def test_flush_waits_until_what_was_published_has_left(
    mosquitto_factory: Callable[..., MosquittoBroker], table_id: str
) -> None:
    """flush() is how the table lets a card's event leave before it builds the states: it
    returns once the client's queue is written to the socket, and gives up after its time
    when the socket cannot take it (a broker that stopped reading)."""
    broker = mosquitto_factory(auth=False)
    link = MqttLink(BrokerAddress("127.0.0.1", broker.port), f"flush-{table_id}")
    assert link.flush(1.0) is False  # not connected: nothing can leave
    link.start()
    try:
        assert link.wait_connected(5)
        assert link.publish(f"tablectl/{table_id}/events", b"card") and link.flush(5.0)
        assert not link._client.want_write()
        pid = broker.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # the broker reads nothing: the socket fills up
        try:
            big = b"x" * (1 << 20)
            for _ in range(64):
                link.publish(f"tablectl/{table_id}/state", big)
            started = time.monotonic()
            assert link.flush(0.05) is False
            assert time.monotonic() - started < 2.0  # it gave up instead of blocking
            assert link._client.want_write()
        finally:
            os.kill(pid, signal.SIGCONT)
        assert link.flush(30.0)  # the broker reads again: everything leaves
    finally:
        link.stop()


def test_flush_writes_in_the_calling_thread_while_the_network_thread_is_busy(
    open_mosquitto: MosquittoBroker, mqtt_client: Any, table_id: str
) -> None:
    """flush() writes to the socket itself: a card event does not wait for paho's network
    thread, here held inside a slow callback, to wake up and write it."""
    inside, release = threading.Event(), threading.Event()

    def slow(topic: str, payload: bytes) -> None:
        inside.set()
        release.wait(10)

    link = MqttLink(
        BrokerAddress("127.0.0.1", open_mosquitto.port),
        f"direct-{table_id}",
        subscriptions=[f"tablectl/{table_id}/cmd/#"],
        on_message=slow,
    )
    link.start()
    probe = mqtt_client(open_mosquitto)
    try:
        assert link.wait_connected(5) and link.wait_subscribed(5)
        probe.subscribe(f"tablectl/{table_id}/events")
        probe.publish(f"tablectl/{table_id}/cmd/dealer", "hold the network thread")
        assert inside.wait(5)
        assert link.publish(f"tablectl/{table_id}/events", b"card") and link.flush(1.0)
        probe.expect(f"tablectl/{table_id}/events", "card")  # arrived meanwhile
        assert inside.is_set() and not release.is_set()
        assert link._client.sent_directly >= 1
    finally:
        release.set()
        link.stop()
