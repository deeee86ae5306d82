"""MQTT: the brokers tablectl runs (Mosquitto as a child process, an embedded one) and clients.

:class:`MosquittoBroker` runs the shipped ``config/mosquitto/`` on free loopback ports for tests,
benchmarks and tools; :class:`EmbeddedBroker` is an in-process MQTT 3.1.1 broker for a machine
without Mosquitto. Both have ``host``, ``port``, ``url``, ``start()``, ``stop()`` and are
context managers.
"""

from __future__ import annotations

from drivers.mqtt.broker import (
    DEV_SEATS,
    DEV_USERS,
    BrokerError,
    MosquittoBroker,
    MosquittoNotFound,
    find_mosquitto,
    render_acl,
    seat_user,
)
from drivers.mqtt.embedded import EmbeddedBroker

__all__ = [
    "DEV_SEATS",
    "DEV_USERS",
    "BrokerError",
    "EmbeddedBroker",
    "MosquittoBroker",
    "MosquittoNotFound",
    "find_mosquitto",
    "render_acl",
    "seat_user",
]
