"""The link against a real Mosquitto: a refused login is final and said at once; a retained
message is told apart from a live one."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from drivers.mqtt.broker import MosquittoBroker
from drivers.mqtt.client import BrokerAddress, MqttLink


@pytest.mark.parametrize(
    ("user", "password", "reason"),
    [
        ("controller", "not-the-password", "Not authorized"),
        ("nobody", "nothing", "Not authorized"),
        ("controller", None, "Not authorized"),
    ],
)
def test_a_refused_login_is_final_and_answered_at_once(
    mosquitto: MosquittoBroker, table_id: str, user: str, password: str | None, reason: str
) -> None:
    told: list[str] = []
    refused = threading.Event()

    def on_refused(why: str) -> None:
        told.append(why)
        refused.set()

    backoff = (1, 5)  # the link's own reconnect delays: the answer must beat the first
    link = MqttLink(
        BrokerAddress("127.0.0.1", mosquitto.port, user, password),
        f"refused-{table_id}-{user}",
        on_refused=on_refused,
        backoff=backoff,
    )
    started = time.monotonic()
    link.start()
    try:
        assert link.wait_connected(10) is False
        waited = time.monotonic() - started
        assert waited < backoff[0] / 2, f"the refusal took {waited:.3f} s"
        assert refused.wait(5)
        assert link.refused == reason
        assert told == [f"broker refused the connection: {reason}"]
        assert link.last_error == told[0]
        # nothing more is tried: the network thread ends instead of waiting to retry
        deadline = time.monotonic() + 5
        while link.active:
            assert time.monotonic() < deadline, "the link still retries a refused login"
            time.sleep(0.01)
        assert told == [f"broker refused the connection: {reason}"] and not link.connected
    finally:
        link.stop()


def test_an_accepted_login_is_not_refused(mosquitto: MosquittoBroker, table_id: str) -> None:
    link = MqttLink(
        BrokerAddress("127.0.0.1", mosquitto.port, "display", "display-dev"), f"ok-{table_id}"
    )
    link.start()
    try:
        assert link.wait_connected(5) and link.refused is None and link.active
    finally:
        link.stop()
    assert not link.active


def test_a_retained_copy_and_a_live_message_take_different_callbacks(
    mosquitto: MosquittoBroker, mqtt_client: Any, table_id: str
) -> None:
    """MQTT 3.1.1 sets RETAIN on the broker's kept copy sent to a new subscription and clears
    it on a message relayed live: a display tells what the broker remembered from what the
    controller says now."""
    topic = f"tablectl/{table_id}/status"
    controller = mqtt_client(mosquitto, "controller")
    controller.publish(topic, "online", retain=True)
    kept: list[bytes] = []
    live: list[bytes] = []
    arrived = threading.Condition()

    def record(into: list[bytes]) -> Any:
        def on(topic: str, payload: bytes) -> None:
            with arrived:
                into.append(payload)
                arrived.notify_all()

        return on

    link = MqttLink(
        BrokerAddress("127.0.0.1", mosquitto.port, "display", "display-dev"),
        f"display-{table_id}",
        subscriptions=[topic],
        on_message=record(live),
        on_retained=record(kept),
    )
    link.start()
    try:
        assert link.wait_connected(5) and link.wait_subscribed(5)
        with arrived:
            assert arrived.wait_for(lambda: kept == [b"online"], 5), kept
        controller.publish(topic, "online", retain=True)
        with arrived:
            assert arrived.wait_for(lambda: live == [b"online"], 5), live
        assert kept == [b"online"]
    finally:
        link.stop()
