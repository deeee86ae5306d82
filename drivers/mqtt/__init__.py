"""MQTT: the brokers tablectl runs (Mosquitto as a child process, an embedded one), the link.

:class:`MosquittoBroker` runs the shipped ``config/mosquitto/`` on free loopback ports for tests,
benchmarks and tools; :class:`EmbeddedBroker` is an in-process MQTT 3.1.1 broker for a machine
without Mosquitto. Both have ``host``, ``port``, ``url``, ``start()``, ``stop()`` and are
context managers. The names are loaded on first use, so ``python -m drivers.mqtt.broker``
runs its module once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOMES = {
    "DEV_SEATS": "broker",
    "DEV_USERS": "broker",
    "BrokerError": "broker",
    "MosquittoBroker": "broker",
    "MosquittoNotFound": "broker",
    "find_mosquitto": "broker",
    "render_acl": "broker",
    "seat_user": "broker",
    "EmbeddedBroker": "embedded",
}

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


def __getattr__(name: str) -> Any:
    """Import a public name from its module when it is first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'drivers.mqtt' has no attribute {name!r}")
    return getattr(importlib.import_module(f"drivers.mqtt.{home}"), name)
