"""The display swarm: many displays on one socket thread, against a real Mosquitto."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from drivers.mqtt.broker import MosquittoBroker, dev_password
from drivers.mqtt.embedded import EmbeddedBroker
from simulators.display.swarm import DisplaySwarm, SwarmError


def collect() -> tuple[list[tuple[int, str, bytes]], threading.Condition, Callable[..., None]]:
    got: list[tuple[int, str, bytes]] = []
    cond = threading.Condition()

    def on_message(index: int, topic: str, payload: bytes, at: int) -> None:
        with cond:
            got.append((index, topic, payload))
            cond.notify_all()

    return got, cond, on_message


def test_every_display_gets_every_message_once(
    mosquitto: MosquittoBroker, mqtt_client: Any, table_id: str
) -> None:
    controller = mqtt_client(mosquitto, "controller")
    controller.publish(f"tablectl/{table_id}/state", "retained state", retain=True)
    got, cond, on_message = collect()
    swarm = DisplaySwarm(
        "127.0.0.1", mosquitto.port, 60, [f"tablectl/{table_id}/state",
                                         f"tablectl/{table_id}/events"],
        on_message, username="display", password=dev_password("display"),
    )  # fmt: skip
    swarm.start()
    try:
        for n in range(3):
            controller.publish(f"tablectl/{table_id}/events", f"event {n}")
        with cond:
            assert cond.wait_for(lambda: len(got) >= 60 * 4, timeout=5), len(got)
    finally:
        swarm.stop()
    per_display = Counter(index for index, _, _ in got)
    assert per_display == Counter({index: 4 for index in range(60)})
    for index in range(60):  # the retained state first, then the events in order
        mine = [payload for i, _, payload in got if i == index]
        assert mine == [b"retained state", b"event 0", b"event 1", b"event 2"]


def test_a_refused_login_names_the_display_and_the_code(mosquitto: MosquittoBroker) -> None:
    swarm = DisplaySwarm(
        "127.0.0.1", mosquitto.port, 2, ["tablectl/T1/state"], lambda *a: None,
        username="display", password="wrong",
    )  # fmt: skip
    with pytest.raises(SwarmError, match=r"display 0: the broker refused .* return code 5"):
        swarm.start()
    swarm.stop()


def test_a_refused_subscription_is_an_error(embedded_broker: EmbeddedBroker) -> None:
    swarm = DisplaySwarm(
        "127.0.0.1", embedded_broker.port, 1, ["tablectl/#/state"], lambda *a: None
    )
    with pytest.raises(SwarmError, match=r"subscription to .* refused"):
        swarm.start()
    swarm.stop()
