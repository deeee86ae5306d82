"""Fixtures for every test: MQTT brokers (a real Mosquitto, the embedded one) and probe clients.

- ``mosquitto``: one Mosquitto per session with the shipped config (users, passwords, ACL);
  log in as ``controller``, ``display``, ``dealer``, ``pit`` or ``seat-N``.
- ``open_mosquitto``: one Mosquitto per session that lets anonymous clients do anything.
- ``mosquitto_factory(**kwargs)``: a Mosquitto of the test's own (to stop, restart or kill).
- ``embedded_broker``: a fresh in-process broker for the test.
- ``table_id``: a table id no other test uses, so retained topics on shared brokers never mix.
- ``mqtt_client(broker, user=None, **kwargs)``: a connected :class:`tests.support.mqtt.Probe`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from drivers.mqtt.broker import MosquittoBroker
from drivers.mqtt.embedded import EmbeddedBroker
from tests.support.mqtt import Probe

_tables = itertools.count(1)


@pytest.fixture(scope="session")
def mosquitto() -> Iterator[MosquittoBroker]:
    """Mosquitto with the shipped ``config/mosquitto/`` (shared: do not stop it)."""
    with MosquittoBroker(auth=True) as broker:
        yield broker


@pytest.fixture(scope="session")
def open_mosquitto() -> Iterator[MosquittoBroker]:
    """Mosquitto without users or ACL (shared: do not stop it)."""
    with MosquittoBroker(auth=False) as broker:
        yield broker


@pytest.fixture
def mosquitto_factory() -> Iterator[Callable[..., MosquittoBroker]]:
    """Start Mosquitto brokers owned by the test (``MosquittoBroker`` keyword arguments)."""
    brokers: list[MosquittoBroker] = []

    def start(**kwargs: Any) -> MosquittoBroker:
        broker = MosquittoBroker(**kwargs)
        brokers.append(broker)
        return broker.start()

    yield start
    for broker in brokers:
        broker.close()


@pytest.fixture
def embedded_broker() -> Iterator[EmbeddedBroker]:
    """A fresh embedded broker, open to anyone."""
    with EmbeddedBroker() as broker:
        yield broker


@pytest.fixture
def table_id() -> str:
    """A table id unique within the test session."""
    return f"T{next(_tables)}"


@pytest.fixture
def mqtt_client() -> Iterator[Callable[..., Probe]]:
    """Connected probes, closed after the test: ``mqtt_client(broker, "display")``.

    ``broker`` is anything with a ``port`` (or an int port); ``transport="websockets"``
    uses its ``ws_port``. Other keyword arguments go to :class:`Probe`; with
    ``connect=False`` the probe is returned unconnected.
    """
    probes: list[Probe] = []

    def make(broker: Any, user: str | None = None, *, connect: bool = True, **kwargs: Any) -> Probe:
        if isinstance(broker, int):
            port = broker
        elif kwargs.get("transport") == "websockets":
            port = broker.ws_port
        else:
            port = broker.port
        probe = Probe(port, user, **kwargs)
        probes.append(probe)
        if connect:
            rc = probe.connect()
            assert not rc.is_failure, f"{user or 'anonymous'} refused: {rc}"
        return probe

    yield make
    for probe in probes:
        probe.close()
